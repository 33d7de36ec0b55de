/*
 * client.c - the client side of the daemon's sockets: control requests
 * (`argus status`, `argus stop`, `argus dump`'s flush) and the JSON stream
 * reader behind `argus stream` when a daemon runs.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "stream_priv.h"

/* Exit codes of cli/cli.h (docs/cli.md), which this stage cannot include. */
enum { EXIT_OK = 0, EXIT_USAGE = 2, EXIT_PRIV = 3, EXIT_IO = 6, EXIT_DAEMON = 8 };

static int connect_to(const char *run_dir, const char *name)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int n = snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s",
	                 run_dir ? run_dir : ARGUS_RUN_DIR, name);
	if (n < 0 || (size_t)n >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int e = -errno;
		close(fd);
		return e;
	}
	return fd;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

bool argus_daemon_present(const char *run_dir)
{
	int fd = connect_to(run_dir, STREAM_SOCK);
	if (fd < 0)
		return fd == -EACCES; /* there, but not for us: say so when used */
	close(fd);
	return true;
}

int argus_daemon_request(const char *run_dir, const char *req, int out_fd)
{
	int fd = connect_to(run_dir, CONTROL_SOCK);
	if (fd < 0)
		return fd;
	char line[300];
	int n = snprintf(line, sizeof(line), "%s\n", req);
	int rc = write_all(fd, line, (size_t)n);
	char buf[8192];
	ssize_t r = 0;
	while (!rc && (r = read(fd, buf, sizeof(buf))) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			break;
		}
		if (out_fd >= 0)
			rc = write_all(out_fd, buf, (size_t)r);
	}
	close(fd);
	return rc;
}

static void stream_usage(FILE *f)
{
	fprintf(f, "usage: argus stream [--kinds K1,K2] [--types T1,T2] [--pid PID]... "
	           "[--run-dir DIR]\n"
	           "  print the daemon's event stream as NDJSON (docs/json-stream.md)\n"
	           "  --kinds   only these line kinds: event, stall, diagnosis (default all)\n"
	           "  --types   only these event types (names as in docs/events.md)\n"
	           "  --pid     only records of this process (repeat for more)\n"
	           "  --run-dir where the daemon's sockets are (default " ARGUS_RUN_DIR ")\n");
}

int argus_stream_client_run(int argc, char **argv)
{
	const char *run_dir = NULL;
	char types[1024] = "", pids[1024] = "", kinds[64] = "";
	size_t tl = 0, pl = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			stream_usage(stdout);
			return EXIT_OK;
		}
		if (i + 1 >= argc) {
			fprintf(stderr, "argus stream: unknown or incomplete argument '%s'\n", a);
			stream_usage(stderr);
			return EXIT_USAGE;
		}
		const char *v = argv[++i];
		if (!strcmp(a, "--run-dir")) {
			run_dir = v;
		} else if (!strcmp(a, "--kinds")) {
			/* the daemon names a bad kind in its refusal */
			if (strlen(v) >= sizeof(kinds) || strpbrk(v, " \t\n")) {
				fprintf(stderr, "argus stream: bad --kinds '%s'\n", v);
				return EXIT_USAGE;
			}
			snprintf(kinds, sizeof(kinds), "%s", v);
		} else if (!strcmp(a, "--types") || !strcmp(a, "--type")) {
			char copy[512];
			snprintf(copy, sizeof(copy), "%s", v);
			char *save = NULL;
			for (char *t = strtok_r(copy, ",", &save); t;
			     t = strtok_r(NULL, ",", &save)) {
				if (argus_event_type_from_name(t) < 0) {
					fprintf(
					    stderr,
					    "argus stream: unknown event type '%s' in --types\n",
					    t);
					return EXIT_USAGE;
				}
				int n = snprintf(types + tl, sizeof(types) - tl, "%s%s",
				                 tl ? "," : "", t);
				if (n < 0 || (size_t)n >= sizeof(types) - tl) {
					fprintf(stderr, "argus stream: --types list too long\n");
					return EXIT_USAGE;
				}
				tl += (size_t)n;
			}
		} else if (!strcmp(a, "--pid")) {
			char *end;
			unsigned long p = strtoul(v, &end, 10);
			if (!*v || *end || p == 0 || p > 4194304) {
				fprintf(stderr, "argus stream: bad pid '%s'\n", v);
				return EXIT_USAGE;
			}
			int n = snprintf(pids + pl, sizeof(pids) - pl, "%s%lu", pl ? "," : "", p);
			if (n < 0 || (size_t)n >= sizeof(pids) - pl) {
				fprintf(stderr, "argus stream: too many --pid\n");
				return EXIT_USAGE;
			}
			pl += (size_t)n;
		} else {
			fprintf(stderr, "argus stream: unknown argument '%s'\n", a);
			stream_usage(stderr);
			return EXIT_USAGE;
		}
	}
	int fd = connect_to(run_dir, STREAM_SOCK);
	if (fd < 0) {
		const char *dir = run_dir ? run_dir : ARGUS_RUN_DIR;
		if (fd == -EACCES || fd == -EPERM) {
			fprintf(stderr,
			        "argus stream: not allowed to connect to the daemon in %s "
			        "(root or the argus group only)\n",
			        dir);
			return EXIT_PRIV;
		}
		fprintf(stderr,
		        "argus stream: no daemon at %s (%s); start one with `argus start`\n", dir,
		        strerror(-fd));
		return EXIT_DAEMON;
	}
	char req[2200];
	int n = snprintf(req, sizeof(req), "stream v=%d%s%s%s%s%s%s\n", ARGUS_STREAM_VERSION,
	                 tl ? " types=" : "", types, pl ? " pids=" : "", pids,
	                 kinds[0] ? " kinds=" : "", kinds);
	signal(SIGPIPE, SIG_IGN); /* a closed stdout ends us cleanly below */
	if (write_all(fd, req, (size_t)n)) {
		fprintf(stderr, "argus stream: the daemon closed the connection\n");
		close(fd);
		return EXIT_DAEMON;
	}
	char buf[65536];
	bool first = true;
	int rc = EXIT_OK;
	for (;;) {
		ssize_t r = read(fd, buf, sizeof(buf));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (first) {
				fprintf(stderr,
				        "argus stream: the daemon refused the connection\n");
				rc = EXIT_DAEMON;
			}
			break;
		}
		if (first && !strncmp(buf, "{\"kind\":\"error\"", 15)) {
			fprintf(stderr, "argus stream: the daemon refused the request: %.*s",
			        (int)r, buf);
			rc = EXIT_DAEMON;
			break;
		}
		first = false;
		if (write_all(STDOUT_FILENO, buf, (size_t)r)) {
			rc = errno == EPIPE ? EXIT_OK : EXIT_IO;
			break;
		}
	}
	close(fd);
	return rc;
}
