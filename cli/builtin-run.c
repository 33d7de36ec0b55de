/*
 * builtin-run.c - `argus run`: start a command with libargus-hooks.so
 * preloaded, read what its hooks record from shared-memory rings, and write
 * it to a trace file (docs/hooks.md).
 *
 * The rings are created here (the consumer side) and inherited by the
 * command: one per thread up to --rings, the first shared by threads beyond
 * that. Losses are counted per ring and written as drop records. The rings
 * are drained every RUN_POLL_MS; the command is given no wake-up fd, so
 * recording an event never costs it a system call (a wake-up would cost a
 * write(2) each time a ring the drain had emptied gets a record).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../hooks/hooks.h"
#include "cli.h"
#include "event.h"
#include "ringbuf.h"

#define RUN_POLL_MS 50
#define RUN_BATCH   4096

struct run_opts {
	const char *record;
	const char *flags;
	char prune[1024];
	unsigned rings;
	unsigned ring_size;
	bool json;
	char **cmd;
};

struct run {
	struct run_opts o;
	struct argus_ring *rings[ARGUS_HOOK_MAX_RINGS];
	int ring_fds[ARGUS_HOOK_MAX_RINGS];
	uint64_t drops_seen[ARGUS_HOOK_MAX_RINGS];
	struct argus_trace_writer *w;
	struct argus_event *buf;
	pid_t child;
	uint64_t events, drops;
	bool write_failed;
};

static void run_usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: argus run [--record FILE] [--json] [--prune SYMBOL]... [--flags FILE]\n"
	    "                 [--rings N] [--ring-size RECORDS] -- COMMAND [ARGS...]\n"
	    "Runs COMMAND with libargus-hooks.so preloaded (GLib main loop, async posts,\n"
	    "condition variables, D-Bus, GTK input, data flags) and records its events.\n"
	    "  --record FILE     write the events to an .argus trace file\n"
	    "  --json            print the events as JSON lines on standard output\n"
	    "  --prune SYMBOL    make SYMBOL return 0 at once (repeatable)\n"
	    "  --flags FILE      data flags to watch: [BINARY:]SYMBOL|0xADDR LEN w|rw per line\n"
	    "  --rings N         rings for the command's threads (default 16, max %d)\n"
	    "  --ring-size N     records per ring, a power of two (default 16384)\n"
	    "The hook library is $ARGUS_HOOKS_LIB, else found next to this argus binary\n"
	    "(../hooks/ in a build tree, ../lib/argus/ when installed).\n",
	    ARGUS_HOOK_MAX_RINGS);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Check a data-flag file before the command starts: bad lines are errors
 * here, and asking for more watches than the CPU has is said up front. */
static int check_flags(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		cli_error("run", "%s: %s", path, strerror(errno));
		return ARGUS_EXIT_IO;
	}
	char line[512];
	unsigned lineno = 0, n = 0;
	struct argus_flag_spec s;
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		const char *why = NULL;
		int rc = argus_flag_parse_line(line, &s, &why);
		if (rc < 0) {
			cli_error("run", "%s:%u: %s", path, lineno, why);
			fclose(f);
			return ARGUS_EXIT_BADINPUT;
		}
		n += (unsigned)rc;
	}
	fclose(f);
	if (n > ARGUS_FLAGS_MAX)
		cli_error("run",
		          "%s: %u data flags asked, but x86 has %d debug registers: only the "
		          "first %d are watched",
		          path, n, ARGUS_FLAGS_MAX, ARGUS_FLAGS_MAX);
	return ARGUS_EXIT_OK;
}

static int parse(struct run_opts *o, int argc, char **argv)
{
	o->rings = 16;
	o->ring_size = 16384;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		uint64_t v;
		if (!strcmp(a, "--")) {
			o->cmd = argv + i + 1;
			break;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			run_usage(stdout);
			exit(ARGUS_EXIT_OK);
		}
		if (!strcmp(a, "--json")) {
			o->json = true;
			continue;
		}
		if (a[0] != '-') { /* the command, without a "--" */
			o->cmd = argv + i;
			break;
		}
		if (!val) {
			cli_error("run", "%s needs a value", a);
			return ARGUS_EXIT_USAGE;
		}
		i++;
		if (!strcmp(a, "--record") || !strcmp(a, "-o")) {
			o->record = val;
		} else if (!strcmp(a, "--flags")) {
			o->flags = val;
		} else if (!strcmp(a, "--prune")) {
			size_t len = strlen(o->prune);
			if (strchr(val, ',') || !*val || len + strlen(val) + 2 > sizeof(o->prune)) {
				cli_error("run", "--prune: bad symbol name \"%s\"", val);
				return ARGUS_EXIT_USAGE;
			}
			snprintf(o->prune + len, sizeof(o->prune) - len, "%s%s", len ? "," : "",
			         val);
		} else if (!strcmp(a, "--rings")) {
			if (!cli_parse_u64(val, 1, ARGUS_HOOK_MAX_RINGS, &v)) {
				cli_error("run", "--rings: \"%s\" is not 1..%d", val,
				          ARGUS_HOOK_MAX_RINGS);
				return ARGUS_EXIT_USAGE;
			}
			o->rings = (unsigned)v;
		} else if (!strcmp(a, "--ring-size")) {
			if (!cli_parse_u64(val, 2, 1u << 24, &v) || (v & (v - 1))) {
				cli_error("run",
				          "--ring-size: \"%s\" is not a power of two in 2..%u", val,
				          1u << 24);
				return ARGUS_EXIT_USAGE;
			}
			o->ring_size = (unsigned)v;
		} else {
			cli_error("run", "unknown option %s", a);
			return ARGUS_EXIT_USAGE;
		}
	}
	if (!o->cmd || !o->cmd[0]) {
		cli_error("run", "no command given (argus run [OPTIONS] -- COMMAND ARGS)");
		return ARGUS_EXIT_USAGE;
	}
	return ARGUS_EXIT_OK;
}

static int cmp_ts(const void *a, const void *b)
{
	const struct argus_event *x = a, *y = b;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static void sink_events(struct run *r, struct argus_event *ev, size_t n)
{
	if (!n)
		return;
	qsort(ev, n, sizeof(*ev), cmp_ts);
	r->events += n;
	if (r->w && !r->write_failed && argus_trace_write(r->w, ev, n) < 0) {
		cli_error("run", "%s: write failed: %s", r->o.record, strerror(errno));
		r->write_failed = true;
	}
	if (r->o.json) {
		char line[2048];
		for (size_t i = 0; i < n; i++) {
			argus_event_to_json(&ev[i], NULL, line, sizeof(line));
			puts(line);
		}
		fflush(stdout);
	}
}

/* Read every ring once; losses become drop records. */
static void drain(struct run *r)
{
	size_t n = 0;
	for (unsigned i = 0; i < r->o.rings; i++) {
		size_t got;
		do {
			if (n == RUN_BATCH) {
				sink_events(r, r->buf, n);
				n = 0;
			}
			got = argus_ring_read(r->rings[i], r->buf + n, RUN_BATCH - n);
			n += got;
		} while (got);
		uint64_t d = argus_ring_drops(r->rings[i]);
		if (d > r->drops_seen[i]) {
			if (n == RUN_BATCH) {
				sink_events(r, r->buf, n);
				n = 0;
			}
			struct argus_event *ev = &r->buf[n++];
			argus_event_drop(ev, mono_ns(), ARGUS_DROP_HOOK_RING, i,
			                 d - r->drops_seen[i], d);
			ev->pid = (uint32_t)r->child;
			ev->flags = ARGUS_F_HOOK;
			r->drops += d - r->drops_seen[i];
			r->drops_seen[i] = d;
		}
	}
	sink_events(r, r->buf, n);
}

static pid_t start_child(struct run *r, const char *lib)
{
	char rings[ARGUS_HOOK_MAX_RINGS * 24] = "";
	size_t len = 0;
	for (unsigned i = 0; i < r->o.rings; i++)
		len += (size_t)snprintf(rings + len, sizeof(rings) - len, "%s%d:-1", i ? "," : "",
		                        r->ring_fds[i]);
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	/* child: the ring fds survive exec, the hooks find them in the env */
	for (unsigned i = 0; i < r->o.rings; i++)
		fcntl(r->ring_fds[i], F_SETFD, 0);
	const char *old = getenv("LD_PRELOAD");
	char preload[PATH_MAX * 2];
	snprintf(preload, sizeof(preload), "%s%s%s", lib, old && *old ? ":" : "", old ? old : "");
	setenv("LD_PRELOAD", preload, 1);
	setenv(ARGUS_HOOK_ENV_RINGS, rings, 1);
	if (r->o.prune[0])
		setenv(ARGUS_HOOK_ENV_PRUNE, r->o.prune, 1);
	if (r->o.flags) {
		char abs[PATH_MAX];
		setenv(ARGUS_HOOK_ENV_FLAGS, realpath(r->o.flags, abs) ? abs : r->o.flags, 1);
	}
	signal(SIGINT, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	execvp(r->o.cmd[0], r->o.cmd);
	fprintf(stderr, "argus run: %s: %s\n", r->o.cmd[0], strerror(errno));
	_exit(127);
}

static void cleanup(struct run *r)
{
	for (unsigned i = 0; i < ARGUS_HOOK_MAX_RINGS; i++) {
		if (r->rings[i])
			argus_ring_close(r->rings[i]);
		if (r->ring_fds[i] >= 0)
			close(r->ring_fds[i]);
	}
	free(r->buf);
}

int cmd_run(int argc, char **argv)
{
	struct run r;
	memset(&r, 0, sizeof(r));
	for (unsigned i = 0; i < ARGUS_HOOK_MAX_RINGS; i++)
		r.ring_fds[i] = -1;
	int rc = parse(&r.o, argc, argv);
	if (rc)
		return rc;
	if (r.o.flags && (rc = check_flags(r.o.flags)))
		return rc;
	char lib[PATH_MAX];
	if (!cli_hooks_lib(lib, sizeof(lib))) {
		cli_error("run", "%s not found (set ARGUS_HOOKS_LIB to its path)",
		          ARGUS_HOOK_LIB_NAME);
		return ARGUS_EXIT_IO;
	}
	r.buf = malloc(RUN_BATCH * sizeof(*r.buf));
	if (!r.buf)
		return ARGUS_EXIT_INTERNAL;
	for (unsigned i = 0; i < r.o.rings; i++) {
		int err = argus_ring_create_shm(&r.rings[i], r.o.ring_size, &r.ring_fds[i]);
		if (err) {
			cli_error("run", "cannot create ring %u: %s", i, strerror(-err));
			cleanup(&r);
			return ARGUS_EXIT_INTERNAL;
		}
	}
	if (r.o.record) {
		struct argus_trace_meta meta;
		struct argus_trace_error err;
		argus_trace_meta_init(&meta, "argus run");
		if (argus_trace_writer_open(&r.w, r.o.record, &meta, NULL, &err) < 0) {
			cli_error("run", "%s", err.msg);
			cleanup(&r);
			return ARGUS_EXIT_IO;
		}
	}
	/* The terminal's ^C reaches the command too: let it end, then finish.
	 * SIGTERM / SIGHUP to argus run are passed on to the command, and the
	 * file is completed when it has ended: nothing recorded is lost. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	sigset_t fwd, old_mask;
	sigemptyset(&fwd);
	sigaddset(&fwd, SIGTERM);
	sigaddset(&fwd, SIGHUP);
	sigprocmask(SIG_BLOCK, &fwd, &old_mask);
	int sfd = signalfd(-1, &fwd, SFD_CLOEXEC | SFD_NONBLOCK);
	r.child = start_child(&r, lib);
	if (r.child < 0) {
		cli_error("run", "fork: %s", strerror(errno));
		if (sfd >= 0)
			close(sfd);
		sigprocmask(SIG_SETMASK, &old_mask, NULL);
		cleanup(&r);
		return ARGUS_EXIT_INTERNAL;
	}
	int status = 0;
	for (;;) {
		struct pollfd pfd = {.fd = sfd, .events = POLLIN};
		if (poll(&pfd, sfd >= 0, RUN_POLL_MS) > 0) {
			struct signalfd_siginfo si;
			while (read(sfd, &si, sizeof(si)) == sizeof(si))
				kill(r.child, (int)si.ssi_signo);
		}
		drain(&r);
		pid_t w = waitpid(r.child, &status, WNOHANG);
		if (w == r.child || (w < 0 && errno != EINTR))
			break;
	}
	drain(&r); /* whatever the last threads wrote */
	if (sfd >= 0)
		close(sfd);
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	signal(SIGINT, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	int exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	if (r.w) {
		struct argus_trace_error err;
		if (argus_trace_writer_close(r.w, &err) < 0) {
			cli_error("run", "%s", err.msg);
			r.write_failed = true;
		}
	}
	fprintf(stderr, "argus run: %llu events, %llu dropped%s%s\n", (unsigned long long)r.events,
	        (unsigned long long)r.drops, r.o.record ? ", written to " : "",
	        r.o.record ? r.o.record : "");
	cleanup(&r);
	if (r.write_failed)
		return ARGUS_EXIT_IO;
	return exit_code;
}
