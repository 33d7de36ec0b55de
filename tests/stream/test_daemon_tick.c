/*
 * test_daemon_tick.c - the tick hook's stream time (argus_daemon_set_tick):
 * everything older than it has been delivered, also when delivering took
 * longer than the merge delay (a consumer that judges time passing - the
 * stall trigger - must not be told of times it has no records for yet).
 */
#include <stdatomic.h>

#include "daemon_fixture.h"

enum { WRITES = 1500 };

struct tick_sink {
	uint64_t last_ts;    /* the newest record delivered */
	unsigned slow_left;  /* deliveries still to make slow */
	unsigned ticks;      /* ticks seen with records delivered */
	int64_t worst_ahead; /* the most a tick was ahead of the delivered records */
	_Atomic bool done;
	/* the records written, their times in order: a tick is ahead only of
	 * records that were written (a writer the machine starved for 80 ms
	 * leaves a gap no tick can be faulted for: an ASan CI run) */
	uint64_t written[WRITES];
	_Atomic unsigned nwritten;
};

static int slow_events(void *arg, const struct argus_event *ev, size_t n)
{
	struct tick_sink *s = arg;
	if (n)
		s->last_ts = ev[n - 1].ts;
	if (s->slow_left) {
		s->slow_left--;
		usleep(120000); /* a burst that takes 120 ms to deliver */
	}
	return 0;
}

static bool on_tick(void *arg, uint64_t stream_ns)
{
	struct tick_sink *s = arg;
	unsigned n = atomic_load_explicit(&s->nwritten, memory_order_acquire);
	if (s->last_ts && n && !atomic_load(&s->done)) {
		/* the newest record written at or before the tick's time */
		while (n > 1 && s->written[n - 1] > stream_ns)
			n--;
		uint64_t newest = s->written[n - 1] < stream_ns ? s->written[n - 1] : stream_ns;
		int64_t ahead = (int64_t)(newest - s->last_ts);
		if (ahead > s->worst_ahead)
			s->worst_ahead = ahead;
		s->ticks++;
	}
	return true;
}

/* The test writes a record each millisecond, stamped as it writes it; the
 * sink takes 120 ms over some deliveries. At every tick the newest record
 * delivered is at most a few ms older than the tick's time (the record
 * spacing and the merge's release): with the time taken after delivering,
 * ticks ran 70 ms ahead of the records (argus bench quiet's start-up burst
 * took 89 ms to deliver). */
TEST(a_tick_never_runs_ahead_of_the_records_delivered)
{
	struct fixture f;
	static struct tick_sink ts = {.slow_left = 6};
	struct argus_sink sink = {.events = slow_events, .arg = &ts};
	struct argus_daemon_opts o = {.rec_dir = ""};
	fx_start_full(&f, &o, 1 << 14, &sink, -1, on_tick, &ts);
	for (unsigned i = 0; i < WRITES; i++) {
		struct argus_event e = fx_ev(fx_now(), ARGUS_EV_SCHED_WAKEUP, 5);
		ASSERT_EQ(argus_ring_write(f.prod, &e), 1);
		ts.written[i] = e.ts;
		atomic_store_explicit(&ts.nwritten, i + 1, memory_order_release);
		usleep(1000);
	}
	atomic_store(&ts.done, true);
	fx_stop(&f);
	ASSERT_MSG(ts.slow_left == 0, "the sink was slow only %u of 6 times", 6 - ts.slow_left);
	ASSERT(ts.ticks > 10);
	ASSERT_MSG(ts.worst_ahead <= 20000000, "a tick ran %.1f ms ahead of the records delivered",
	           ts.worst_ahead / 1e6);
	fx_cleanup(&f);
}

TEST_MAIN(TEST_ENTRY(a_tick_never_runs_ahead_of_the_records_delivered))
