/* progstats.h - tracing programs' run time from the kernel's BPF statistics
 * (progstats.c), for argus bench overhead --prog-stats. */
#ifndef ARGUS_BENCH_PROGSTATS_H
#define ARGUS_BENCH_PROGSTATS_H

#include <stdbool.h>
#include <stdint.h>

/* Turns the statistics on until the returned fd is closed; -errno when the
 * kernel refuses (no CAP_SYS_ADMIN, or too old). */
int prog_stats_on(void);

/* The meter (argus start / record --meter, docs/kext.md): the tracing
 * programs' time in one process's tasks, per program. */
#define PROG_METER_MAX 48

struct prog_meter {
	char task[32]; /* the name CMD gave the process ("pid NAME PID") */
	double ns, runs;
	unsigned n;
	struct {
		char name[16];
		double ns, runs;
	} prog[PROG_METER_MAX];
};

/* Adds process tgid's figures from the loaded tracer's argus_meter map to
 * *m; -ENOENT when no tracer with a meter is loaded. */
int prog_meter_add(uint32_t tgid, struct prog_meter *m);

/* The machine's tracing programs' totals now, in all and per program name
 * (ns and runs summed over programs of one name), into *m (cleared first;
 * the names past PROG_METER_MAX count in the totals only). Only programs
 * still loaded: take the second snapshot before the tracer stops. */
void prog_stats_by_name(struct prog_meter *m);

/* after - before, per name: what ran in between. */
void prog_meter_sub(struct prog_meter *after, const struct prog_meter *before);

/* The median of v[0..n) (n > 0; sorts v): the overhead bench's figures. */
double median_of(double *v, unsigned n);

/* Prints one row: the median over n rounds of the programs' time in the
 * process, as a share of its CPU time in the same round (cpu[r], seconds;
 * NULL: not known), and each program's mean per round, largest first. */
void prog_meter_print(const char *row, const struct prog_meter *rounds, unsigned n,
                      const double *cpu);

#endif
