/*
 * test_stream_publish.c - the daemon's generic hooks `argus start` wires the
 * diagnosis through: argus_daemon_publish (stall / diagnosis lines to the
 * stream clients that want their kind and pid), the "kinds" request key,
 * and the tick hook that lets the stall trigger see time pass. A sink
 * publishes from the daemon's thread, as the diagnoser does.
 */
#include <stdatomic.h>

#include "daemon_fixture.h"
#include "stream_priv.h"

struct publisher {
	struct fixture *f;
	uint64_t ticks, last_tick, bad_ticks;
};

/* Each futex_wait record: a "stall" and a "diagnosis" line of its pid. */
static int publish_on_futex(void *arg, const struct argus_event *ev, size_t n)
{
	struct publisher *p = arg;
	for (size_t i = 0; i < n; i++) {
		if (ev[i].type != ARGUS_EV_FUTEX_WAIT)
			continue;
		char line[256];
		snprintf(line, sizeof(line),
		         "{\"kind\":\"stall\",\"phase\":\"start\",\"id\":1,\"pid\":%u}", ev[i].pid);
		argus_daemon_publish(p->f->d, "stall", ev[i].pid, line);
		snprintf(line, sizeof(line), "{\"kind\":\"diagnosis\",\"pid\":%u}", ev[i].pid);
		argus_daemon_publish(p->f->d, "diagnosis", ev[i].pid, line);
	}
	return 0;
}

static bool on_tick(void *arg, uint64_t stream_ns)
{
	struct publisher *p = arg;
	uint64_t now = fx_now();
	/* the stream time trails the clock by the merge delay (50 ms) */
	if (stream_ns < p->last_tick || stream_ns > now || now - stream_ns > 1000000000ull)
		p->bad_ticks++;
	p->last_tick = stream_ns;
	p->ticks++;
	return true; /* waits on time: the daemon keeps its fine tick */
}

/* Sets the tick hook from the daemon's thread (no race with its loop). */
static int set_tick_on_first(void *arg, const struct argus_event *ev, size_t n)
{
	(void)ev;
	struct publisher *p = arg;
	if (n && !p->ticks)
		argus_daemon_set_tick(p->f->d, on_tick, p);
	return 0;
}

static int hello(int fd, const char *req)
{
	char line[512];
	if (write(fd, req, strlen(req)) != (ssize_t)strlen(req) ||
	    !fx_line(fd, line, sizeof(line), 3000))
		return -1;
	return strstr(line, "\"kind\":\"hello\"") ? 0 : -1;
}

TEST(published_lines_reach_the_clients_that_want_their_kind_and_pid)
{
	struct fixture f;
	struct publisher p = {.f = &f};
	struct argus_sink sink = {.events = publish_on_futex, .arg = &p};
	struct argus_daemon_opts o = {.rec_dir = ""};
	fx_start(&f, &o, 4096, &sink);
	int all = fx_connect(f.run, STREAM_SOCK), stalls = fx_connect(f.run, STREAM_SOCK),
	    diag43 = fx_connect(f.run, STREAM_SOCK);
	ASSERT(all >= 0 && stalls >= 0 && diag43 >= 0);
	ASSERT_EQ(hello(all, "stream v=1\n"), 0);
	ASSERT_EQ(hello(stalls, "stream v=1 kinds=stall\n"), 0);
	ASSERT_EQ(hello(diag43, "stream v=1 kinds=diagnosis pids=43\n"), 0);
	uint64_t t = fx_now() - 1000000000ull;
	struct argus_event e1 = fx_ev(t, ARGUS_EV_FUTEX_WAIT, 42),
	                   e2 = fx_ev(t + 1000, ARGUS_EV_FUTEX_WAIT, 43);
	ASSERT_EQ(argus_ring_write(f.prod, &e1), 1);
	ASSERT_EQ(argus_ring_write(f.prod, &e2), 1);
	char line[1024];
	/* everything: two records and what the sink published at each (those
	 * go out when made, not ordered with the records) */
	int events = 0, stall_lines = 0, diag_lines = 0;
	for (int i = 0; i < 6; i++) {
		ASSERT_MSG(fx_line(all, line, sizeof(line), 3000), "got %d of 6 lines", i);
		events += !!strstr(line, "{\"kind\":\"event\"");
		stall_lines += !!strstr(line, "{\"kind\":\"stall\"");
		diag_lines += !!strstr(line, "{\"kind\":\"diagnosis\"");
	}
	ASSERT_EQ(events, 2);
	ASSERT_EQ(stall_lines, 2);
	ASSERT_EQ(diag_lines, 2);
	for (int i = 0; i < 2; i++) {
		ASSERT(fx_line(stalls, line, sizeof(line), 3000));
		ASSERT_CONTAINS(line, "{\"kind\":\"stall\",\"phase\":\"start\"");
	}
	ASSERT(fx_line(diag43, line, sizeof(line), 3000));
	ASSERT_CONTAINS(line, "{\"kind\":\"diagnosis\",\"pid\":43}");
	ASSERT_EQ(fx_line(stalls, line, sizeof(line), 200), 0); /* no records */
	ASSERT_EQ(fx_line(diag43, line, sizeof(line), 200), 0); /* not pid 42 */
	close(all);
	close(stalls);
	close(diag43);
	fx_stop(&f);
	fx_cleanup(&f);
}

TEST(unknown_line_kind_is_refused_with_a_reason)
{
	struct fixture f;
	struct argus_daemon_opts o = {.rec_dir = ""};
	fx_start(&f, &o, 64, NULL);
	int a = fx_connect(f.run, STREAM_SOCK);
	ASSERT(a >= 0);
	const char *req = "stream v=1 kinds=stall,vertexes\n";
	ASSERT_EQ(write(a, req, strlen(req)), (ssize_t)strlen(req));
	char line[512];
	ASSERT(fx_line(a, line, sizeof(line), 3000));
	ASSERT_CONTAINS(line, "{\"kind\":\"error\"");
	ASSERT_CONTAINS(line, "unknown line kind 'vertexes'");
	close(a);
	fx_stop(&f);
	fx_cleanup(&f);
}

TEST(tick_hook_sees_stream_time_pass_without_records)
{
	struct fixture f;
	struct publisher p = {.f = &f};
	struct argus_sink sink = {.events = set_tick_on_first, .arg = &p};
	struct argus_daemon_opts o = {.rec_dir = ""};
	fx_start(&f, &o, 64, &sink);
	struct argus_event e = fx_ev(fx_now() - 1000000000ull, ARGUS_EV_SCHED_SWITCH, 7);
	ASSERT_EQ(argus_ring_write(f.prod, &e), 1);
	usleep(400000);
	fx_stop(&f);
	ASSERT_MSG(p.ticks >= 10, "%llu ticks in 300 ms", (unsigned long long)p.ticks);
	ASSERT_U64_EQ(p.bad_ticks, 0);
	fx_cleanup(&f);
}

/* A tick hook that says whether it waits on time (the diagnosis's answer). */
struct quiet_hook {
	struct fixture *f;
	_Atomic bool waits;
	_Atomic uint64_t ticks;
	bool set;
};

static bool quiet_tick(void *arg, uint64_t stream_ns)
{
	(void)stream_ns;
	struct quiet_hook *q = arg;
	atomic_fetch_add(&q->ticks, 1);
	return atomic_load(&q->waits);
}

static int set_quiet_on_first(void *arg, const struct argus_event *ev, size_t n)
{
	(void)ev;
	struct quiet_hook *q = arg;
	if (n && !q->set) {
		q->set = true;
		argus_daemon_set_tick(q->f->d, quiet_tick, q);
	}
	return 0;
}

/* A quiet daemon (few records) whose tick hook does not wait on time ticks
 * every 200 ms (TICK_QUIET_MS); once the hook waits on time again, at the
 * next tick, every 40 ms at most (daemon.c, on_tick). Counts, not timings:
 * a loaded machine only makes fewer ticks. */
TEST(quiet_tick_while_the_hook_does_not_wait_on_time)
{
	struct fixture f;
	struct quiet_hook q = {.f = &f};
	atomic_init(&q.waits, false);
	atomic_init(&q.ticks, 0);
	struct argus_sink sink = {.events = set_quiet_on_first, .arg = &q};
	struct argus_daemon_opts o = {.rec_dir = ""};
	fx_start(&f, &o, 64, &sink);
	struct argus_event e = fx_ev(fx_now() - 1000000000ull, ARGUS_EV_SCHED_SWITCH, 7);
	ASSERT_EQ(argus_ring_write(f.prod, &e), 1);
	usleep(700000); /* backed off: 5, 10, 20 ... 200 ms */
	uint64_t a = atomic_load(&q.ticks);
	usleep(1000000);
	uint64_t quiet = atomic_load(&q.ticks) - a;
	atomic_store(&q.waits, true);
	usleep(300000); /* the next quiet tick hears it */
	uint64_t b = atomic_load(&q.ticks);
	usleep(500000);
	uint64_t timed = atomic_load(&q.ticks) - b;
	fx_stop(&f);
	ASSERT_MSG(quiet >= 1 && quiet <= 7, "%llu ticks in 1 s not waiting on time",
	           (unsigned long long)quiet);
	ASSERT_MSG(timed >= 8, "%llu ticks in 500 ms waiting on time", (unsigned long long)timed);
	fx_cleanup(&f);
}

TEST_MAIN(TEST_ENTRY(published_lines_reach_the_clients_that_want_their_kind_and_pid),
          TEST_ENTRY(unknown_line_kind_is_refused_with_a_reason),
          TEST_ENTRY(tick_hook_sees_stream_time_pass_without_records),
          TEST_ENTRY(quiet_tick_while_the_hook_does_not_wait_on_time))
