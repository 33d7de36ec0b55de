/*
 * test_samples.c - the diagnosis' per-thread sample store
 * (argus_samples_*): a thread's last 1024 samples come back oldest first
 * while its ring grows, an exited thread's samples stay a minute and then
 * go, a tid taken again by a new thread keeps its samples, and a store of
 * many short threads stays small.
 */
#include <string.h>

#include "beam.h"
#include "test.h"

#define SEC 1000000000ull
#define MS  1000000ull

static struct argus_event sample(uint64_t ts, uint32_t tid, uint32_t stack)
{
	struct argus_event e;
	memset(&e, 0, sizeof(e));
	e.ts = ts;
	e.type = ARGUS_EV_CPU_SAMPLE;
	e.pid = e.tid = tid;
	e.stack.ustack = stack;
	e.stack.kind = ARGUS_STACK_SAMPLE;
	return e;
}

static struct argus_event thread_exit(uint64_t ts, uint32_t tid)
{
	struct argus_event e;
	memset(&e, 0, sizeof(e));
	e.ts = ts;
	e.type = ARGUS_EV_THREAD_EXIT;
	e.pid = 1;
	e.tid = tid;
	return e;
}

static void feed(struct argus_samples *s, struct argus_event e)
{
	argus_samples_feed(s, &e, 1);
}

TEST(a_growing_ring_gives_the_last_1024_samples_oldest_first)
{
	struct argus_samples *s;
	ASSERT_EQ(argus_samples_new(&s), 0);
	static uint32_t got[4096];
	static uint64_t ts[4096];
	/* through every growth step: 8, 16, ..., 1024, then wrapping */
	for (uint32_t k = 1; k <= 3000; k++) {
		feed(s, sample(k * MS, 42, k));
		if (k == 5 || k == 8 || k == 9 || k == 100 || k == 1024 || k == 1025 || k == 3000) {
			size_t n = argus_samples_range(s, 42, 0, ~0ull, got, ts, 4096);
			uint32_t want = k < 1024 ? k : 1024;
			ASSERT_MSG(n == want, "after %u samples: %zu kept, want %u", k, n, want);
			for (size_t i = 0; i < n; i++)
				ASSERT_MSG(got[i] == k - want + 1 + i && ts[i] == got[i] * MS,
				           "after %u samples: sample %zu is %u", k, i, got[i]);
		}
	}
	/* a window inside the ring */
	size_t n = argus_samples_range(s, 42, 2500 * MS, 2509 * MS, got, NULL, 4096);
	ASSERT_EQ(n, 10);
	ASSERT_EQ(got[0], 2500);
	argus_samples_free(s);
}

TEST(an_exited_threads_samples_stay_a_minute_then_go)
{
	struct argus_samples *s;
	ASSERT_EQ(argus_samples_new(&s), 0);
	uint32_t got[64];
	for (uint32_t k = 0; k < 20; k++) {
		struct argus_event e[2] = {sample(SEC + k * 20 * MS, 7, 100 + k),
		                           sample(SEC + k * 20 * MS, 8, 200 + k)};
		argus_samples_feed(s, e, 2);
	}
	feed(s, thread_exit(2 * SEC, 7));
	/* its app's exit ended a stall: diagnosed at once, from these */
	ASSERT_EQ(argus_samples_range(s, 7, 0, ~0ull, got, NULL, 64), 20);
	/* 59 s later: still there */
	feed(s, sample(61 * SEC, 8, 300));
	ASSERT_EQ(argus_samples_range(s, 7, 0, ~0ull, got, NULL, 64), 20);
	/* past the minute, the next exit's sweep lets them go; the living
	 * thread keeps its own */
	feed(s, thread_exit(63 * SEC, 9));
	ASSERT_EQ(argus_samples_range(s, 7, 0, ~0ull, got, NULL, 64), 0);
	ASSERT_EQ(argus_samples_range(s, 8, 0, ~0ull, got, NULL, 64), 21);
	ASSERT_EQ(got[20], 300);
	argus_samples_free(s);
}

TEST(a_tid_taken_again_keeps_the_new_threads_samples)
{
	struct argus_samples *s;
	ASSERT_EQ(argus_samples_new(&s), 0);
	uint32_t got[64];
	feed(s, sample(SEC, 7, 1));
	feed(s, thread_exit(2 * SEC, 7));
	/* a new thread with the same tid samples before the minute is up */
	feed(s, sample(30 * SEC, 7, 2));
	feed(s, thread_exit(70 * SEC, 9));
	ASSERT_EQ(argus_samples_range(s, 7, 10 * SEC, ~0ull, got, NULL, 64), 1);
	ASSERT_EQ(got[0], 2);
	argus_samples_free(s);
}

/* A message storm or a build: 100 000 threads of a few samples each, every
 * one exiting; the store keeps only the last minute's. The figure is the
 * number of threads the store still answers for. */
TEST(many_short_threads_leave_only_the_last_minutes)
{
	struct argus_samples *s;
	ASSERT_EQ(argus_samples_new(&s), 0);
	uint32_t got[8];
	uint64_t t = SEC;
	for (uint32_t tid = 1000; tid < 101000; tid++) {
		t += 2 * MS; /* 500 new threads a second */
		struct argus_event e[3] = {sample(t, tid, 1), sample(t + MS / 2, tid, 2),
		                           thread_exit(t + MS, tid)};
		argus_samples_feed(s, e, 3);
	}
	/* the first ones went; the last minute's (30 000) are kept */
	ASSERT_EQ(argus_samples_range(s, 1000, 0, ~0ull, got, NULL, 8), 0);
	ASSERT_EQ(argus_samples_range(s, 100999, 0, ~0ull, got, NULL, 8), 2);
	size_t kept = 0;
	for (uint32_t tid = 1000; tid < 101000; tid++)
		kept += argus_samples_range(s, tid, 0, ~0ull, got, NULL, 8) > 0;
	ASSERT_MSG(kept >= 29000 && kept <= 31000, "%zu threads kept", kept);
	argus_samples_free(s);
}

TEST_MAIN(TEST_ENTRY(a_growing_ring_gives_the_last_1024_samples_oldest_first),
          TEST_ENTRY(an_exited_threads_samples_stay_a_minute_then_go),
          TEST_ENTRY(a_tid_taken_again_keeps_the_new_threads_samples),
          TEST_ENTRY(many_short_threads_leave_only_the_last_minutes))
