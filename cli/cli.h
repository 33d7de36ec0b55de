/*
 * cli.h - what the `argus` subcommands (builtin-*.c) share: the command
 * table, and with event/cmdline.h the exit codes and argument parsing
 * helpers (docs/cli.md).
 */
#ifndef ARGUS_CLI_H
#define ARGUS_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cmdline.h" /* exit codes, argument parsing (event/) */

/* One subcommand: `argus NAME ...` runs fn(argc, argv) with argv[0] = NAME. */
struct argus_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

#define ARGUS_CMD(name, summary) int cmd_##name(int argc, char **argv);
#include "commands.def"
#undef ARGUS_CMD

/*
 * The one FILE operand after the options (argv[optind]); "-" is standard
 * input and must not be a terminal. On a wrong count it prints one line
 * and returns NULL (exit ARGUS_EXIT_USAGE).
 */
const char *cli_one_file(const char *cmd, int argc, char **argv, int optind);

/* Where libargus-hooks.so is: argus_hooks_lib_path() of hooks/hooks.h. */
bool cli_hooks_lib(char *out, size_t cap);

/*
 * The options `argus record` and `argus stream` share (live-opts.c:
 * --pid, --all, --comm, --cgroup, --duration, --ring-size, --no-samples,
 * --no-irqs, --no-rt, --no-recv-enter, -- CMD...) into the session's live
 * source options. Returns -1 for an option it does not know (the caller
 * handles it), 0 when consumed (*i advanced past its argument), or an exit
 * code > 0.
 */
struct argus_live_opts;
int cli_live_parse(struct argus_live_opts *o, int argc, char **argv, int *i, pid_t *pids,
                   size_t max_pids);
/* The exit code for a live source / kernel tracer status (session.h). */
int cli_live_exit(int live_status);

#endif /* ARGUS_CLI_H */
