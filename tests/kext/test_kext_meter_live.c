/*
 * test_kext_meter_live.c - the bench meter (label "live"; docs/kext.md "The
 * meter"): with --meter the tracer adds up each program's runs and time per
 * process in argus_meter, read by `argus bench overhead --meter`
 * (bench/progstats.c); without it, nothing is counted.
 */
#include "collect.h"
#include "progstats.h"

/* 200 round trips with a child of its own */
static void pingpong(void *arg)
{
	(void)arg;
	pipe_handoffs(200);
}

/* The meter's figures for the traced child; *outs: its switch records
 * (each one a run of sched_switch in its context, when it left the CPU);
 * *wakes: its wake-up records as the waker (each one a run of
 * sched_waking in its context). */
static struct prog_meter metered(bool meter, unsigned *outs, unsigned *wakes)
{
	struct argus_kext_opts opts = {.pid_filter = true, .no_samples = true, .meter = meter};
	struct prog_meter m = {0};
	struct collector c;

	struct gated_child g = collect_child(&c, &opts, pingpong, NULL);
	ASSERT(prog_meter_add((uint32_t)g.pid, &m) == 0);
	*outs = *wakes = 0;
	for (size_t i = 0; i < c.n; i++) {
		if (c.ev[i].pid != (uint32_t)g.pid)
			continue;
		*outs += c.ev[i].type == ARGUS_EV_SCHED_SWITCH;
		*wakes += c.ev[i].type == ARGUS_EV_SCHED_WAKEUP;
	}
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
	unsigned outs, wakes;
	struct prog_meter m = metered(true, &outs, &wakes);

	/* 200 round trips: the parent blocks in most reads (not in all: on two
	 * CPUs the other process can answer before the parent sleeps; CI saw
	 * 199), and every time it leaves the CPU sched_switch runs in it */
	ASSERT_MSG(outs >= 20, "%u switches of the parent", outs);
	ASSERT_MSG(runs_of(&m, "sched_switch") >= outs, "sched_switch ran %.0f times, %u switches",
	           runs_of(&m, "sched_switch"), outs);
	/* it wakes the child only when the child blocked first: not every
	 * time, and how often is the scheduler's (CI saw fewer than 10 of 200
	 * on a loaded machine), so the runs are held to the wake-ups recorded */
	ASSERT_MSG(wakes >= 1, "%u wake-ups by the parent", wakes);
	ASSERT_MSG(runs_of(&m, "sched_waking") >= wakes, "sched_waking ran %.0f times, %u wake-ups",
	           runs_of(&m, "sched_waking"), wakes);
	ASSERT_MSG(m.ns > 0 && m.runs >= outs + wakes, "%.0f runs, %.0f ns", m.runs, m.ns);
	/* no program runs for seconds: the time is that of runs, not a clock's */
	ASSERT_MSG(m.ns / m.runs < 1e6, "%.0f ns a run", m.ns / m.runs);
}

TEST(without_the_meter_nothing_is_counted)
{
	require_live();
	unsigned outs, wakes;
	struct prog_meter m = metered(false, &outs, &wakes);

	ASSERT_MSG(m.runs == 0 && m.n == 0, "%.0f runs counted", m.runs);
}

TEST_MAIN(TEST_ENTRY(the_meter_counts_a_process_s_switches_and_their_time),
          TEST_ENTRY(without_the_meter_nothing_is_counted))
