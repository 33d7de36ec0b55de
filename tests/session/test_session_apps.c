/*
 * test_session_apps.c - the session tells its owner (argus start) each
 * process the trigger learns is an app, once, on its tick
 * (argus_session_opts.app): argus start turns full stacks on for them.
 */
#include <string.h>

#include "session.h"
#include "synth.h"
#include "test.h"

struct seen {
	uint32_t pid[256];
	unsigned n, calls;
};

static void on_app(void *arg, uint32_t pid)
{
	struct seen *s = arg;

	s->calls++;
	for (unsigned i = 0; i < s->n; i++)
		ASSERT_MSG(s->pid[i] != pid, "pid %u announced twice", pid);
	if (s->n < 256)
		s->pid[s->n++] = pid;
}

TEST(each_app_is_announced_once_on_a_tick)
{
	struct argus_session_opts o;
	argus_session_opts_default(&o);
	struct seen seen = {0};
	o.app = on_app;
	o.app_arg = &seen;
	struct argus_session *s;
	ASSERT_EQ(argus_session_new(&s, &o), 0);
	struct argus_synth_opts so;
	argus_synth_opts_default(&so);
	so.seed = 2;
	so.events = 100000;
	so.rate = 5000;
	struct argus_sink sink = argus_session_sink(s);
	ASSERT_EQ(argus_synth_run(&so, &sink, NULL), 0);
	struct argus_session_stats st;
	argus_session_get_stats(s, &st);
	ASSERT_MSG(st.trigger.ui_threads >= 1, "the synthetic desktop has no UI thread");
	argus_session_tick(s, st.t0 + 100000000000ull);
	ASSERT(seen.n >= 1 && seen.n <= st.trigger.ui_threads);
	unsigned calls = seen.calls;
	argus_session_tick(s, st.t0 + 100000000001ull);
	ASSERT_EQ(seen.calls, calls); /* nothing new: nothing announced */
	argus_session_end(s);
	argus_session_free(s);
}

/* announcements of one pid (the reused-pid test counts them) */
struct calls {
	uint32_t pid;
	unsigned n;
};

static void count_app(void *arg, uint32_t pid)
{
	struct calls *c = arg;
	if (pid == c->pid)
		c->n++;
}

static void feed1(struct argus_session *s, struct argus_event e)
{
	struct argus_sink sink = argus_session_sink(s);
	ASSERT_EQ(sink.events(sink.arg, &e, 1), 0);
}

static struct argus_event at(uint64_t ts, uint16_t type, uint32_t pid)
{
	struct argus_event e;
	memset(&e, 0, sizeof(e));
	e.ts = ts;
	e.type = type;
	e.pid = e.tid = pid;
	return e;
}

/* process pid talks to the display (its request on its own connection) */
static void connects(struct argus_session *s, uint64_t ts, uint32_t pid)
{
	struct argus_event e = at(ts, ARGUS_EV_IPC_SEND, pid);
	e.ipc.obj = 0xffff000000100000ull + (uint64_t)pid * 0x100;
	e.ipc.peer_obj = e.ipc.obj + 0x80;
	e.ipc.obj_kind = ARGUS_OBJ_DISPLAY;
	e.ipc.ret = 32;
	feed1(s, e);
}

/* A session told of apps by app(arg, pid), with an X server running. */
static struct argus_session *x_session_to(void (*app)(void *, uint32_t), void *arg)
{
	struct argus_session_opts o;
	argus_session_opts_default(&o);
	o.app = app;
	o.app_arg = arg;
	struct argus_session *s;
	ASSERT_EQ(argus_session_new(&s, &o), 0);
	struct argus_event e = at(1000000000ull, ARGUS_EV_COMM, 10);
	strcpy(e.comm.comm, "Xorg");
	e.comm.is_process = 1;
	feed1(s, e);
	return s;
}

static struct argus_session *x_session(struct calls *c)
{
	return x_session_to(count_app, c);
}

/* An always-on daemon sees many short X clients come and go (xdotool,
 * xprop, a launcher's helpers): an app that starts after a hundred of them
 * is still announced (its full stacks are turned on) */
TEST(an_app_after_many_exited_clients_is_announced)
{
	struct calls c = {.pid = 5000};
	struct argus_session *s = x_session(&c);
	uint64_t ts = 2000000000ull;
	for (uint32_t pid = 1000; pid < 1100; pid++) {
		connects(s, ts, pid);
		feed1(s, at(ts + 1000, ARGUS_EV_PROC_EXIT, pid));
		ts += 1000000;
		argus_session_tick(s, ts);
	}
	connects(s, ts, 5000);
	argus_session_tick(s, ts + 1000000);
	ASSERT_EQ(c.n, 1);
	argus_session_end(s);
	argus_session_free(s);
}

/* An app exits and a new app gets its pid: announced again (the kext
 * dropped the first one's full stacks at its exit) */
TEST(a_new_app_at_an_exited_apps_pid_is_announced_again)
{
	struct calls c = {.pid = 3000};
	struct argus_session *s = x_session(&c);
	connects(s, 2000000000ull, 3000);
	argus_session_tick(s, 2001000000ull);
	ASSERT_EQ(c.n, 1);
	feed1(s, at(2002000000ull, ARGUS_EV_PROC_EXIT, 3000));
	struct argus_event e = at(2003000000ull, ARGUS_EV_PROC_FORK, 1);
	e.fork.child_pid = e.fork.child_tid = 3000;
	strcpy(e.fork.comm, "gedit");
	feed1(s, e);
	connects(s, 2004000000ull, 3000);
	argus_session_tick(s, 2005000000ull);
	ASSERT_EQ(c.n, 2);
	argus_session_end(s);
	argus_session_free(s);
}

/* announcements of every pid (the many-apps test counts them) */
struct every {
	unsigned n[400];
	unsigned calls;
};

static void every_app(void *arg, uint32_t pid)
{
	struct every *c = arg;
	c->calls++;
	if (pid >= 1000 && pid < 1400)
		c->n[pid - 1000]++;
}

/* A desktop of many GUI processes (a user's hundred terminals): every one
 * of them is announced, once, however many there are (the session kept
 * the first 64 of the trigger's table, 2026-11-28) */
TEST(every_one_of_many_apps_is_announced_once)
{
	struct every c = {0};
	struct argus_session *s = x_session_to(every_app, &c);
	uint64_t ts = 2000000000ull;
	for (uint32_t pid = 1000; pid < 1300; pid++) {
		connects(s, ts, pid);
		ts += 100000;
		if (pid % 50 == 49)
			argus_session_tick(s, ts);
	}
	argus_session_tick(s, ts + 1000000);
	argus_session_tick(s, ts + 2000000);
	for (uint32_t pid = 1000; pid < 1300; pid++)
		ASSERT_MSG(c.n[pid - 1000] == 1, "app %u announced %u times", pid, c.n[pid - 1000]);
	ASSERT_EQ(c.calls, 300);
	argus_session_end(s);
	argus_session_free(s);
}

/* ---- yields watched while a UI thread leaves an episode unanswered ---- */
struct watch {
	struct argus_session *s;
	struct argus_sink sink;
	uint64_t last_tick, now;
	unsigned on, off;
	uint64_t on_at, shortest_on;
	bool watching;
};

static void on_yields(void *arg, bool on)
{
	struct watch *w = arg;
	ASSERT_MSG(on != w->watching, "told %s twice", on ? "on" : "off");
	w->watching = on;
	if (on) {
		w->on++;
		w->on_at = w->now;
	} else {
		w->off++;
		if (!w->shortest_on || w->now - w->on_at < w->shortest_on)
			w->shortest_on = w->now - w->on_at;
	}
}

/* the records on to the session, ticked every 10 ms of their time, as
 * the daemon's worker does */
static int ticking(void *arg, const struct argus_event *ev, size_t n)
{
	struct watch *w = arg;
	for (size_t i = 0; i < n; i++) {
		if (w->sink.events(w->sink.arg, &ev[i], 1))
			return -1;
		w->now = ev[i].ts;
		if (w->now >= w->last_tick + 10000000ull) {
			w->last_tick = w->now;
			argus_session_tick(w->s, w->now);
		}
	}
	return 0;
}

static uint32_t fwd_string(void *arg, const char *str, size_t len)
{
	struct watch *w = arg;
	return w->sink.intern_string ? w->sink.intern_string(w->sink.arg, str, len) : 0;
}

static uint32_t fwd_stack(void *arg, const uint64_t *ips, uint32_t depth)
{
	struct watch *w = arg;
	return w->sink.intern_stack ? w->sink.intern_stack(w->sink.arg, ips, depth) : 0;
}

static int fwd_map(void *arg, const struct argus_map *m)
{
	struct watch *w = arg;
	return w->sink.map ? w->sink.map(w->sink.arg, m) : 0;
}

static int fwd_truth(void *arg, const struct argus_truth *t)
{
	struct watch *w = arg;
	return w->sink.truth ? w->sink.truth(w->sink.arg, t) : 0;
}

TEST(yields_are_watched_while_an_episode_goes_unanswered)
{
	struct argus_session_opts o;
	argus_session_opts_default(&o);
	struct watch w = {0};
	o.yields = on_yields;
	o.yields_arg = &w;
	ASSERT_EQ(argus_session_new(&w.s, &o), 0);
	w.sink = argus_session_sink(w.s);
	struct argus_sink tick = {.events = ticking,
	                          .intern_string = fwd_string,
	                          .intern_stack = fwd_stack,
	                          .map = fwd_map,
	                          .truth = fwd_truth,
	                          .arg = &w};
	struct argus_synth_opts so;
	argus_synth_opts_default(&so);
	so.seed = 2;
	so.events = 300000;
	so.rate = 5000;
	ASSERT_EQ(argus_synth_run(&so, &tick, NULL), 0);
	struct argus_session_stats st;
	argus_session_get_stats(w.s, &st);
	ASSERT_MSG(st.trigger.stalls >= 1, "the synthetic desktop stalled nowhere");
	/* its stalls asked for yields, and each watch lasted the calm second */
	ASSERT(w.on >= 1);
	if (w.off)
		ASSERT_MSG(w.shortest_on >= ARGUS_SESSION_YIELD_CALM_NS, "a watch of %llu ns",
		           (unsigned long long)w.shortest_on);
	printf("watched %u times, the shortest %.2f s\n", w.on, (double)w.shortest_on / 1e9);
	/* nothing left unanswered a minute on: not watched */
	w.now += 60000000000ull;
	argus_session_tick(w.s, w.now);
	argus_session_tick(w.s, w.now + 2000000000ull);
	ASSERT(!w.watching);
	ASSERT_EQ(w.off, w.on);
	argus_session_end(w.s);
	argus_session_free(w.s);
}

TEST_MAIN(TEST_ENTRY(each_app_is_announced_once_on_a_tick),
          TEST_ENTRY(every_one_of_many_apps_is_announced_once),
          TEST_ENTRY(an_app_after_many_exited_clients_is_announced),
          TEST_ENTRY(a_new_app_at_an_exited_apps_pid_is_announced_again),
          TEST_ENTRY(yields_are_watched_while_an_episode_goes_unanswered))
