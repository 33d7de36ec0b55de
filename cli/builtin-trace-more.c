/*
 * builtin-trace-more.c - `argus trace-more`: ask the running daemon for
 * more detail on one process until its next stall ends or for a while
 * (docs/daemon.md "Finer tracing on demand", docs/debug.md): full DWARF
 * stacks of its threads' samples, every toolkit landmark of its hooks,
 * per-call syscall records where the daemon captures them. The request is
 * one control line, "more pid=P ..." (stream.h: argus_more_parse).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "stream.h"

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: argus trace-more --pid P [--stacks full] [--syscalls] [--hooks] [--for D]\n"
	        "       argus trace-more --pid P --off\n"
	        "  ask the running daemon for more detail on process P until its next stall\n"
	        "  ends (at most 10 min), or for D (at most 10m) with --for:\n"
	        "  --stacks full  full DWARF stacks of P's threads' samples (the default)\n"
	        "  --syscalls     per-call syscall records: only from a daemon started with\n"
	        "                 --syscalls (which captures every process's: the syscall exit\n"
	        "                 tracepoint slows every task's syscalls); else refused, exit 4\n"
	        "  --hooks        every toolkit landmark of P's hooks, however short: P must\n"
	        "                 have been started with hooks (else exit 12)\n"
	        "  --off          no more of it now\n"
	        "  --run-dir DIR  the daemon's sockets (default " ARGUS_RUN_DIR ")\n"
	        "  a new request for P replaces the one before; `argus status` shows what is on\n"
	        "  exit: 0 on, 2 bad option / no such process, 3 not allowed, 4 the daemon\n"
	        "  cannot, 8 no daemon / refused, 12 P not started with hooks (docs/cli.md)\n");
}

/* The reply to req, into buf; 0 or -errno (argus_daemon_request). */
static int ask(const char *run_dir, const char *req, char *buf, size_t cap)
{
	int p[2];
	if (pipe(p))
		return -errno;
	int rc = argus_daemon_request(run_dir, req, p[1]); /* the reply is < 1 KiB */
	close(p[1]);
	ssize_t n = 0, r;
	while ((size_t)n < cap - 1 && (r = read(p[0], buf + n, cap - 1 - (size_t)n)) > 0)
		n += r;
	close(p[0]);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return rc;
}

int cmd_trace_more(int argc, char **argv)
{
	struct argus_more_req r = {0};
	const char *run_dir = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		uint64_t x;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return ARGUS_EXIT_OK;
		} else if (!strcmp(a, "--syscalls")) {
			r.what |= ARGUS_MORE_SYSCALLS;
		} else if (!strcmp(a, "--hooks")) {
			r.what |= ARGUS_MORE_HOOKS;
		} else if (!strcmp(a, "--off")) {
			r.off = true;
		} else if (!v) {
			cli_error("trace-more", "unknown or incomplete option '%s' (see --help)",
			          a);
			return ARGUS_EXIT_USAGE;
		} else if (!strcmp(a, "--pid") || !strcmp(a, "-p")) {
			if (!cli_parse_u64(v, 1, 4194304, &x)) {
				cli_error("trace-more", "--pid %s: not a process id", v);
				return ARGUS_EXIT_USAGE;
			}
			r.pid = (uint32_t)x, i++;
		} else if (!strcmp(a, "--stacks")) {
			if (strcmp(v, "full")) {
				cli_error("trace-more", "--stacks %s: only --stacks full", v);
				return ARGUS_EXIT_USAGE;
			}
			r.what |= ARGUS_MORE_STACKS, i++;
		} else if (!strcmp(a, "--for")) {
			if (!cli_parse_duration(v, &x) || !x || x > ARGUS_MORE_MAX_NS) {
				cli_error("trace-more",
				          "--for %s: bad duration (1ms .. 10m: 5s, 2m)", v);
				return ARGUS_EXIT_USAGE;
			}
			r.for_ns = x, i++;
		} else if (!strcmp(a, "--run-dir")) {
			run_dir = v, i++;
		} else {
			cli_error("trace-more", "unknown option '%s' (see --help)", a);
			return ARGUS_EXIT_USAGE;
		}
	}
	if (!r.pid) {
		cli_error("trace-more", "which process? --pid P (see --help)");
		return ARGUS_EXIT_USAGE;
	}
	if (r.off && (r.what || r.for_ns)) {
		cli_error("trace-more", "--off takes nothing but --pid");
		return ARGUS_EXIT_USAGE;
	}
	if (!r.off && !r.what)
		r.what = ARGUS_MORE_STACKS;
	if (!r.off && kill((pid_t)r.pid, 0) && errno == ESRCH) {
		cli_error("trace-more", "--pid %u: no such process", r.pid);
		return ARGUS_EXIT_USAGE;
	}
	char req[256], reply[1024];
	if (argus_more_format(&r, req, sizeof(req)) < 0) {
		cli_error("trace-more", "request too long");
		return ARGUS_EXIT_INTERNAL;
	}
	int rc = ask(run_dir, req, reply, sizeof(reply));
	const char *dir = run_dir ? run_dir : ARGUS_RUN_DIR;
	if (rc == -EACCES || rc == -EPERM) {
		cli_error("trace-more",
		          "not allowed to talk to the daemon in %s (root or its group "
		          "only)",
		          dir);
		return ARGUS_EXIT_PRIV;
	}
	if (rc) {
		cli_error("trace-more",
		          "no daemon answers in %s (%s); start one with `argus start`", dir,
		          strerror(-rc));
		return ARGUS_EXIT_DAEMON;
	}
	int cls = argus_more_reply_class(reply);
	const char *text = strchr(reply, ':');
	text = text ? text + 1 + (text[1] == ' ') : reply;
	switch (cls) {
	case 0:
		printf("%s\n", text);
		return ARGUS_EXIT_OK;
	case ARGUS_MORE_ENOPROC:
		cli_error("trace-more", "--pid %u: %s", r.pid, text);
		return ARGUS_EXIT_USAGE;
	case ARGUS_MORE_ENOHOOKS:
		cli_error("trace-more", "--hooks: %s", text);
		return ARGUS_EXIT_NOHOOKS;
	case ARGUS_MORE_ENOSUPPORT:
		cli_error("trace-more", "%s", text);
		return ARGUS_EXIT_NOSUPPORT;
	default:
		cli_error("trace-more", "the daemon refused: %s", reply[0] ? text : "(no answer)");
		return ARGUS_EXIT_DAEMON;
	}
}
