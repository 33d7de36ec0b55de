/*
 * builtin-status.c - `argus status`: what the daemon is doing (events/s by
 * type, drops per CPU, ring fill, recorder span, memory, clients).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "stream.h"

/* Shared by status / stop / dump: a failed daemon request as an exit code. */
static int daemon_error(const char *cmd, const char *run_dir, int rc)
{
	const char *dir = run_dir ? run_dir : ARGUS_RUN_DIR;
	if (rc == -EACCES || rc == -EPERM) {
		cli_error(cmd, "not allowed to talk to the daemon in %s (root or its group only)",
		          dir);
		return ARGUS_EXIT_PRIV;
	}
	cli_error(cmd, "no daemon answers in %s (%s); start one with `argus start`", dir,
	          strerror(-rc));
	return ARGUS_EXIT_DAEMON;
}

int cmd_status(int argc, char **argv)
{
	const char *run_dir = NULL;
	bool json = false;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf(
			    "usage: argus status [--json] [--run-dir DIR]\n"
			    "  events/s by type, drops per CPU, ring fill, recorder span, memory,\n"
			    "  clients of the running daemon; --json: one JSON object\n");
			return ARGUS_EXIT_OK;
		} else if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "--run-dir") && i + 1 < argc) {
			run_dir = argv[++i];
		} else {
			cli_error("status", "unknown option '%s' (see --help)", argv[i]);
			return ARGUS_EXIT_USAGE;
		}
	}
	fflush(stdout);
	int rc = argus_daemon_request(run_dir, json ? "status json" : "status", STDOUT_FILENO);
	return rc ? daemon_error("status", run_dir, rc) : ARGUS_EXIT_OK;
}
