/* The watermark merge: order, quiet sources, late records, bounds. */
#include <stdlib.h>

#include "stream.h"
#include "test.h"

#define MS 1000000ull

static struct argus_event rec(uint64_t ts, unsigned src)
{
	struct argus_event e = {0};
	e.ts = ts;
	e.cpu = (uint16_t)src;
	e.type = ARGUS_EV_SCHED_SWITCH;
	return e;
}

static size_t pop_all(struct argus_merge *m, struct argus_event *out, size_t max, uint64_t now)
{
	size_t n = 0, k;
	while ((k = argus_merge_pop(m, out + n, max - n, now)) > 0)
		n += k;
	return n;
}

/* 8 CPUs; each CPU's events are in order but CPUs deliver in bursts of very
 * different sizes and at different lags (all below max_delay). */
TEST(order_under_skewed_per_cpu_delivery)
{
	enum { NSRC = 8, PER = 5000 };
	struct argus_merge *m;
	ASSERT_EQ(argus_merge_new(&m, NSRC, 50 * MS), 0);
	static struct argus_event evs[NSRC][PER];
	srand(7);
	for (unsigned s = 0; s < NSRC; s++) {
		uint64_t t = 1000 * MS + s;
		for (unsigned i = 0; i < PER; i++) {
			t += 1 + (uint64_t)(rand() % 20000) * (s + 1); /* skewed rates */
			evs[s][i] = rec(t, s);
			evs[s][i].tid = i;
		}
	}
	size_t pos[NSRC] = {0};
	static struct argus_event out[NSRC * PER];
	size_t got = 0;
	uint64_t now = 1000 * MS;
	for (;;) {
		bool left = false;
		for (unsigned s = 0; s < NSRC; s++) {
			/* CPU s delivers what it made up to now - lag(s), lag up to 40 ms */
			uint64_t lag = (uint64_t)s * 5 * MS;
			size_t start = pos[s];
			while (pos[s] < PER && evs[s][pos[s]].ts + lag <= now)
				pos[s]++;
			if (pos[s] > start && (s % 3 != 0 || rand() % 4 == 0 || pos[s] == PER))
				ASSERT_EQ(
				    argus_merge_push(m, s, &evs[s][start], pos[s] - start, now), 0);
			else
				pos[s] = start; /* burst later */
			left |= pos[s] < PER;
		}
		got += pop_all(m, out + got, NSRC * PER - got, now);
		if (!left)
			break;
		now += MS / 4;
	}
	got += argus_merge_drain(m, out + got, NSRC * PER - got);
	ASSERT_EQ(got, NSRC * PER);
	for (size_t i = 1; i < got; i++)
		ASSERT_MSG(out[i - 1].ts <= out[i].ts, "out of order at %zu", i);
	for (size_t i = 0; i < got; i++)
		ASSERT(!(out[i].flags & ARGUS_F_LATE));
	struct argus_merge_stats st;
	argus_merge_get_stats(m, &st);
	ASSERT_U64_EQ(st.late, 0);
	ASSERT_U64_EQ(st.pushed, NSRC * PER);
	ASSERT_U64_EQ(st.released, NSRC * PER);
	ASSERT_U64_EQ(st.buffered, 0);
	argus_merge_free(m);
}

TEST(busy_source_waits_for_a_lagging_one)
{
	struct argus_merge *m;
	ASSERT_EQ(argus_merge_new(&m, 2, 100 * MS), 0);
	struct argus_event a[3] = {rec(10 * MS, 0), rec(20 * MS, 0), rec(30 * MS, 0)};
	struct argus_event b = rec(15 * MS, 1);
	struct argus_event out[8];
	ASSERT_EQ(argus_merge_push(m, 1, &b, 1, 16 * MS), 0);
	ASSERT_EQ(argus_merge_push(m, 0, a, 3, 31 * MS), 0);
	/* source 1 has passed 15 ms only: 10 and 15 go, 20 and 30 wait */
	ASSERT_EQ(pop_all(m, out, 8, 31 * MS), 2);
	ASSERT_U64_EQ(out[0].ts, 10 * MS);
	ASSERT_U64_EQ(out[1].ts, 15 * MS);
	struct argus_event b2 = rec(25 * MS, 1);
	ASSERT_EQ(argus_merge_push(m, 1, &b2, 1, 32 * MS), 0);
	ASSERT_EQ(pop_all(m, out, 8, 32 * MS), 2);
	ASSERT_U64_EQ(out[0].ts, 20 * MS);
	ASSERT_U64_EQ(out[1].ts, 25 * MS);
	argus_merge_free(m);
}

TEST(quiet_source_does_not_stall_the_watermark)
{
	struct argus_merge *m;
	ASSERT_EQ(argus_merge_new(&m, 4, 100 * MS), 0);
	struct argus_event a[2] = {rec(1000 * MS, 0), rec(1001 * MS, 0)};
	ASSERT_EQ(argus_merge_push(m, 0, a, 2, 1001 * MS), 0);
	struct argus_event out[4];
	/* sources 1..3 never speak: within max_delay nothing goes ... */
	ASSERT_EQ(pop_all(m, out, 4, 1050 * MS), 0);
	struct argus_merge_stats st;
	argus_merge_get_stats(m, &st);
	ASSERT_U64_EQ(st.buffered, 2);
	/* ... and once they have been quiet for max_delay, everything does */
	ASSERT_EQ(pop_all(m, out, 4, 1101 * MS), 2);
	ASSERT_U64_EQ(out[1].ts, 1001 * MS);
	argus_merge_get_stats(m, &st);
	ASSERT_U64_EQ(st.watermark_ns, 1001 * MS);
	argus_merge_free(m);
}

TEST(quiet_declaration_advances_a_source)
{
	struct argus_merge *m;
	ASSERT_EQ(argus_merge_new(&m, 2, 10 * MS), 0);
	struct argus_event a = rec(100 * MS, 0);
	ASSERT_EQ(argus_merge_push(m, 0, &a, 1, 100 * MS), 0);
	argus_merge_quiet(m, 1, 111 * MS); /* source 1 has nothing older than 101 ms */
	struct argus_event out[2];
	ASSERT_EQ(pop_all(m, out, 2, 0), 1);
	argus_merge_free(m);
}

TEST(late_records_flagged_counted_delivered)
{
	struct argus_merge *m;
	ASSERT_EQ(argus_merge_new(&m, 2, 10 * MS), 0);
	struct argus_event a = rec(100 * MS, 0);
	ASSERT_EQ(argus_merge_push(m, 0, &a, 1, 100 * MS), 0);
	struct argus_event out[4];
	ASSERT_EQ(pop_all(m, out, 4, 200 * MS), 1);
	/* source 1 was delayed beyond max_delay: its record is late */
	struct argus_event b[2] = {rec(50 * MS, 1), rec(300 * MS, 1)};
	ASSERT_EQ(argus_merge_push(m, 1, b, 2, 300 * MS), 0);
	ASSERT_EQ(pop_all(m, out, 4, 400 * MS), 2);
	ASSERT_U64_EQ(out[0].ts, 50 * MS);
	ASSERT(out[0].flags & ARGUS_F_LATE);
	ASSERT_U64_EQ(out[1].ts, 300 * MS);
	ASSERT(!(out[1].flags & ARGUS_F_LATE));
	struct argus_merge_stats st;
	argus_merge_get_stats(m, &st);
	ASSERT_U64_EQ(st.late, 1);
	ASSERT_U64_EQ(st.released, 3);
	argus_merge_free(m);
}

TEST(small_disorder_within_a_source_is_repaired)
{
	struct argus_merge *m;
	ASSERT_EQ(argus_merge_new(&m, 1, 10 * MS), 0);
	struct argus_event a[5] = {rec(10, 0), rec(30, 0), rec(20, 0), rec(5, 0), rec(40, 0)};
	ASSERT_EQ(argus_merge_push(m, 0, a, 5, 0), 0);
	struct argus_event out[5];
	ASSERT_EQ(argus_merge_drain(m, out, 5), 5);
	uint64_t want[5] = {5, 10, 20, 30, 40};
	for (int i = 0; i < 5; i++)
		ASSERT_U64_EQ(out[i].ts, want[i]);
	struct argus_merge_stats st;
	argus_merge_get_stats(m, &st);
	ASSERT_U64_EQ(st.late, 0);
	argus_merge_free(m);
}

TEST(drain_releases_everything_in_order)
{
	struct argus_merge *m;
	ASSERT_EQ(argus_merge_new(&m, 3, 1000 * MS), 0);
	for (unsigned i = 0; i < 3000; i++) {
		struct argus_event e = rec((i * 7919u) % 3001u + 1, i % 3);
		/* per-source order is not required for drain correctness */
		ASSERT_EQ(argus_merge_push(m, i % 3, &e, 1, 0), 0);
	}
	static struct argus_event out[3000];
	size_t n = 0, k;
	while ((k = argus_merge_drain(m, out + n, 64)) > 0)
		n += k;
	ASSERT_EQ(n, 3000);
	for (size_t i = 1; i < n; i++)
		ASSERT(out[i - 1].ts <= out[i].ts);
	argus_merge_free(m);
}

TEST(memory_cap_releases_without_waiting)
{
	struct argus_merge *m;
	ASSERT_EQ(argus_merge_new(&m, 2, 1000 * MS), 0);
	argus_merge_set_max_buffered(m, 100);
	static struct argus_event a[250];
	for (unsigned i = 0; i < 250; i++)
		a[i] = rec(1000 + i, 0);
	ASSERT_EQ(argus_merge_push(m, 0, a, 250, 0), 0);
	struct argus_event out[250];
	ASSERT_EQ(pop_all(m, out, 250, 0), 150);
	ASSERT_U64_EQ(out[0].ts, 1000);
	argus_merge_free(m);
}

/* Runs of one source go out together, but never past another source's
 * head: equal times go in source order, as one record at a time would. */
TEST(runs_stop_at_the_next_sources_head_and_ties_go_by_source)
{
	struct argus_merge *m;
	ASSERT_EQ(argus_merge_new(&m, 2, 1000 * MS), 0);
	struct argus_event a[] = {rec(10, 0), rec(20, 0), rec(20, 0), rec(30, 0), rec(31, 0)};
	struct argus_event b[] = {rec(20, 1), rec(20, 1), rec(25, 1)};
	ASSERT_EQ(argus_merge_push(m, 1, b, 3, 0), 0);
	ASSERT_EQ(argus_merge_push(m, 0, a, 5, 0), 0);
	struct argus_event out[8];
	size_t n = 0, k;
	while ((k = argus_merge_drain(m, out + n, 8 - n)) > 0)
		n += k;
	ASSERT_EQ(n, 8);
	const uint64_t ts[] = {10, 20, 20, 20, 20, 25, 30, 31};
	const unsigned src[] = {0, 0, 0, 1, 1, 1, 0, 0};
	for (size_t i = 0; i < n; i++) {
		ASSERT_U64_EQ(out[i].ts, ts[i]);
		ASSERT_EQ(out[i].cpu, src[i]);
	}
	argus_merge_free(m);
}

TEST(bad_source_refused)
{
	struct argus_merge *m;
	ASSERT(argus_merge_new(&m, 0, 1) < 0);
	ASSERT_EQ(argus_merge_new(&m, 2, 1), 0);
	struct argus_event a = rec(1, 0);
	ASSERT(argus_merge_push(m, 2, &a, 1, 0) < 0);
	argus_merge_free(m);
}

TEST_MAIN(TEST_ENTRY(order_under_skewed_per_cpu_delivery),
          TEST_ENTRY(runs_stop_at_the_next_sources_head_and_ties_go_by_source),
          TEST_ENTRY(busy_source_waits_for_a_lagging_one),
          TEST_ENTRY(quiet_source_does_not_stall_the_watermark),
          TEST_ENTRY(quiet_declaration_advances_a_source),
          TEST_ENTRY(late_records_flagged_counted_delivered),
          TEST_ENTRY(small_disorder_within_a_source_is_repaired),
          TEST_ENTRY(drain_releases_everything_in_order),
          TEST_ENTRY(memory_cap_releases_without_waiting), TEST_ENTRY(bad_source_refused))
