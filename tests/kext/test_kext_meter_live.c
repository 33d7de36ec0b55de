/*
 * test_kext_meter_live.c - the bench meter (label "live"; docs/kext.md "The
 * meter"): with --meter the tracer adds up each program's runs and time per
 * process in argus_meter, read by `argus bench overhead --meter`
 * (bench/progstats.c); without it, nothing is counted.
 */
#include "collect.h"
#include "progstats.h"

static void pingpong(void *arg)
{
	(void)arg;
	int a[2], b[2];
	char c = 0;

	if (pipe(a) || pipe(b))
		_exit(1);
	pid_t p = fork();
	if (p < 0)
		_exit(1);
	for (int i = 0; i < 200; i++) {
		if (p == 0) {
			if (read(a[0], &c, 1) != 1 || write(b[1], &c, 1) != 1)
				_exit(1);
		} else if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1) {
			_exit(1);
		}
	}
	if (p == 0)
		_exit(0);
	int status;
	waitpid(p, &status, 0);
}

/* The meter's figures for the traced child; *outs: its switch records
 * (each one a run of sched_switch in its context, when it left the CPU). */
static struct prog_meter metered(bool meter, unsigned *outs)
{
	struct argus_kext_opts opts = {.pid_filter = true, .no_samples = true, .meter = meter};
	struct prog_meter m = {0};
	struct collector c;

	struct gated_child g = collect_child(&c, &opts, pingpong, NULL);
	ASSERT(prog_meter_add((uint32_t)g.pid, &m) == 0);
	*outs = 0;
	for (size_t i = 0; i < c.n; i++)
		if (c.ev[i].type == ARGUS_EV_SCHED_SWITCH && c.ev[i].pid == (uint32_t)g.pid)
			(*outs)++;
	collector_free(&c);
	return m;
}

static double runs_of(const struct prog_meter *m, const char *prog)
{
	for (unsigned i = 0; i < m->n; i++)
		if (!strcmp(m->prog[i].name, prog))
			return m->prog[i].runs;
	return 0;
}

TEST(the_meter_counts_a_process_s_switches_and_their_time)
{
	require_live();
	unsigned outs;
	struct prog_meter m = metered(true, &outs);

	/* 200 round trips: the parent blocks in most reads (not in all: on two
	 * CPUs the other process can answer before the parent sleeps; CI saw
	 * 199), and every time it leaves the CPU sched_switch runs in it */
	ASSERT_MSG(outs >= 20, "%u switches of the parent", outs);
	ASSERT_MSG(runs_of(&m, "sched_switch") >= outs, "sched_switch ran %.0f times, %u switches",
	           runs_of(&m, "sched_switch"), outs);
	/* it wakes the child only when the child blocked first: not every
	 * time (in a sanitizer build, well under half the time) */
	ASSERT(runs_of(&m, "sched_waking") >= 10);
	ASSERT(m.ns > 0 && m.runs >= 300);
	/* no program runs for seconds: the time is that of runs, not a clock's */
	ASSERT_MSG(m.ns / m.runs < 1e6, "%.0f ns a run", m.ns / m.runs);
}

TEST(without_the_meter_nothing_is_counted)
{
	require_live();
	unsigned outs;
	struct prog_meter m = metered(false, &outs);

	ASSERT_MSG(m.runs == 0 && m.n == 0, "%.0f runs counted", m.runs);
}

TEST_MAIN(TEST_ENTRY(the_meter_counts_a_process_s_switches_and_their_time),
          TEST_ENTRY(without_the_meter_nothing_is_counted))
