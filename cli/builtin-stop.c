/*
 * builtin-stop.c - `argus stop`: ask the daemon to flush everything and exit,
 * and wait until it has.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "stream.h"

int cmd_stop(int argc, char **argv)
{
	const char *run_dir = NULL;
	uint64_t timeout = 30ull * 1000000000ull;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: argus stop [--run-dir DIR] [--timeout DURATION]\n"
			       "  stop the daemon after it has flushed its clients and recorder\n");
			return ARGUS_EXIT_OK;
		} else if (!strcmp(argv[i], "--run-dir") && i + 1 < argc) {
			run_dir = argv[++i];
		} else if (!strcmp(argv[i], "--timeout") && i + 1 < argc) {
			if (!cli_parse_duration(argv[++i], &timeout)) {
				cli_error("stop", "--timeout: bad duration '%s'", argv[i]);
				return ARGUS_EXIT_USAGE;
			}
		} else {
			cli_error("stop", "unknown option '%s' (see --help)", argv[i]);
			return ARGUS_EXIT_USAGE;
		}
	}
	const char *dir = run_dir ? run_dir : ARGUS_RUN_DIR;
	int rc = argus_daemon_request(run_dir, "stop", -1);
	if (rc == -EACCES || rc == -EPERM) {
		cli_error("stop", "not allowed to talk to the daemon in %s", dir);
		return ARGUS_EXIT_PRIV;
	}
	if (rc) {
		cli_error("stop", "no daemon answers in %s (%s)", dir, strerror(-rc));
		return ARGUS_EXIT_DAEMON;
	}
	/* It is gone once its control socket no longer answers. */
	struct timespec nap = {0, 20 * 1000000};
	for (uint64_t waited = 0; waited < timeout; waited += 20 * 1000000ull) {
		if (argus_daemon_request(run_dir, "status", -1) != 0) {
			fprintf(stderr, "argus stop: the daemon stopped\n");
			return ARGUS_EXIT_OK;
		}
		nanosleep(&nap, NULL);
	}
	cli_error("stop", "the daemon is still running after the timeout");
	return ARGUS_EXIT_DAEMON;
}
