/* progstats.h - tracing programs' run time from the kernel's BPF statistics
 * (progstats.c), for argus bench overhead --prog-stats. */
#ifndef ARGUS_BENCH_PROGSTATS_H
#define ARGUS_BENCH_PROGSTATS_H

#include <stdbool.h>
#include <stdint.h>

struct prog_stats {
	uint64_t run_ns; /* summed over the loaded tracing programs */
	uint64_t runs;
	unsigned progs;
};

/* Turns the statistics on until the returned fd is closed; -errno when the
 * kernel refuses (no CAP_SYS_ADMIN, or too old). */
int prog_stats_on(void);

/* The machine's tracing programs' totals now (only programs still loaded:
 * take the second snapshot before the tracer stops). */
struct prog_stats prog_stats_now(void);

#endif
