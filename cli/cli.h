/*
 * cli.h - what the `argus` subcommands (builtin-*.c) share: exit codes and
 * argument parsing helpers. Exit codes are documented in docs/cli.md.
 */
#ifndef ARGUS_CLI_H
#define ARGUS_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum argus_exit {
	ARGUS_EXIT_OK = 0,
	ARGUS_EXIT_FAIL = 1,      /* the job itself failed (a test found a fault, ...) */
	ARGUS_EXIT_USAGE = 2,     /* wrong flags or arguments */
	ARGUS_EXIT_PRIV = 3,      /* missing privileges (root, CAP_BPF, CAP_PERFMON) */
	ARGUS_EXIT_NOSUPPORT = 4, /* kernel lacks BTF / BPF / a needed feature */
	ARGUS_EXIT_BADINPUT = 5,  /* input file truncated or corrupt (what was intact was used) */
	ARGUS_EXIT_IO = 6,        /* cannot open / read / write a file */
	ARGUS_EXIT_VERSION = 7,   /* input written by a newer argus */
	ARGUS_EXIT_DAEMON = 8,    /* the daemon is not running or refused us */
	ARGUS_EXIT_INTERNAL = 9,  /* out of memory or a bug */
};

/* One subcommand: `argus NAME ...` runs fn(argc, argv) with argv[0] = NAME. */
struct argus_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

#define ARGUS_CMD(name, summary) int cmd_##name(int argc, char **argv);
#include "commands.def"
#undef ARGUS_CMD

/* "argus NAME: " prefixed message to stderr, with a newline. */
void cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Parse a duration: "250ms", "1.5s", "5m", "2h", "100us", "42ns"; a bare
 * number is seconds. Returns false on junk, negative or overflow.
 */
bool cli_parse_duration(const char *s, uint64_t *ns);
/* Parse a size: "512", "64k", "2G" (powers of 1024). */
bool cli_parse_size(const char *s, uint64_t *bytes);
/* Parse an unsigned integer within [min, max]. */
bool cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/*
 * Parse a trace time: absolute ns ("123456789"), or relative to the trace
 * start with a unit ("+2.5s"). start_ns is the trace's first timestamp.
 */
bool cli_parse_time(const char *s, uint64_t start_ns, uint64_t *ns);

/* The exit code for a trace reader / writer error (enum argus_trace_err). */
int cli_trace_exit(int trace_err);
/*
 * The one FILE operand after the options (argv[optind]); "-" is standard
 * input and must not be a terminal. On a wrong count it prints one line
 * and returns NULL (exit ARGUS_EXIT_USAGE).
 */
const char *cli_one_file(const char *cmd, int argc, char **argv, int optind);

/*
 * Where libargus-hooks.so is: $ARGUS_HOOKS_LIB, else next to this argus
 * binary (../hooks/ in a build tree, ../lib/argus/ or ../lib/ installed).
 */
bool cli_hooks_lib(char *out, size_t cap);

/*
 * The options `argus record` and `argus stream` share (builtin-record.c:
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
