/*
 * cmdline.h - what every argus command line shares (the `argus` command,
 * its subcommands, the benchmarks): exit codes, error lines, parsing of
 * durations, sizes, numbers and trace times. Exit codes: docs/cli.md.
 */
#ifndef ARGUS_CMDLINE_H
#define ARGUS_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
	ARGUS_EXIT_BUSY = 10,     /* a store (the issue database) is locked by another writer */
	ARGUS_EXIT_RULES = 11,    /* a user rules file is malformed (docs/debug.md "Rules") */
	ARGUS_EXIT_NOHOOKS = 12,  /* the process was not started with hooks (argus trace-more --hooks) */
};

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

#endif /* ARGUS_CMDLINE_H */
