/*
 * live.h - a live tracing session shared by `argus record` and `argus stream`
 * (implemented in builtin-record.c): the kernel tracer (kext/), one ring
 * reader per CPU (ringbuf/), the merge by time (stream/), decoding, and the
 * loop that feeds a sink until a signal, a duration or the traced command's
 * exit ends it.
 */
#ifndef ARGUS_CLI_LIVE_H
#define ARGUS_CLI_LIVE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "event.h"
#include "kext.h"

struct live;

struct live_opts {
	struct argus_kext_opts kext;
	uint64_t duration_ns; /* 0 = until a signal (or the command's exit) */
	char **cmd;           /* command to start and trace with its children; NULL = none */
	const char *name;     /* subcommand name for messages */
	int ready_fd;         /* > 0: write "ready\n" here once tracing runs, then close */
	bool no_rt; /* keep the reader at normal priority (default: nice -20 asleep, SCHED_FIFO awake) */
};

struct live_stats {
	uint64_t events;      /* records delivered to the sink */
	uint64_t ring_drops;  /* records the kernel rings lost */
	uint64_t stack_drops; /* user stacks the kernel could not keep */
	uint64_t late;        /* records the merge released after their watermark */
	int cmd_status;       /* wait status of the command, -1 if none */
};

/* Parse the options `record` and `stream` share (--pid, --all, --comm,
 * --cgroup, --duration, --ring-size, --no-samples, --no-irqs, -- CMD...).
 * Returns -1 for an option it does not know (the caller handles it), 0
 * when consumed (*i advanced past its argument), or an exit code > 0. */
int live_parse_common(struct live_opts *o, int argc, char **argv, int *i, pid_t *pids,
                      size_t max_pids);

/* Start tracing; prints one line and returns an exit code (cli.h) on error. */
int live_open(struct live **l, const struct live_opts *o);
/* Feed sink until the end; then drain, report drops and return an exit code. */
int live_run(struct live *l, const struct argus_sink *sink);
void live_get_stats(const struct live *l, struct live_stats *st);
void live_close(struct live *l);
/* The exit code for a kext open / attach status (ARGUS_KEXT_E*). */
int live_kext_exit(int kext_status);

#endif /* ARGUS_CLI_LIVE_H */
