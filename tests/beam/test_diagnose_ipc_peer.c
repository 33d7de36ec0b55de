/*
 * test_diagnose_ipc_peer.c - a UI thread waits in a read for the answer of
 * a helper process that sleeps (a LongWait across processes). The helper's
 * read of the request wakes the writer on the same socket, so the UI's one
 * read is cut into two segments and the anomaly vertex sent nothing itself.
 * The helper - the peer end of the socket, blocked in its sleep - must be
 * the root cause, with or without an earlier normal run to compare with,
 * and also when the helper's switch-out record was lost (it just goes
 * silent). Before, the diagnosis blamed the UI thread's own read (no
 * baseline) or a bystander on the normal path (live runs under load).
 * And a UI thread that spins (sched_yield) on a flag the helper's answer
 * should set, where the helper took the request and never answered: with
 * no flag edge to follow (no hooks), the helper is the root cause.
 */
#include <stdlib.h>

#include "../graph/graph_events.h"
#include "beam.h"
#include "test.h"

enum { APP = 100, HELPER = 200, TOOL = 300, TICKER = 400 };
enum { SOCK_APP = 0xa1, SOCK_HELPER = 0xa2, SOCK_TOOL = 0xb1, SOCK_TOOL_PEER = 0xb2 };

struct trace {
	struct argus_event ev[1024];
	size_t n;
};

static void add(struct trace *t, struct argus_event e)
{
	ASSERT(t->n < sizeof(t->ev) / sizeof(t->ev[0]));
	t->ev[t->n++] = e;
}

static struct argus_event ipc(uint64_t ts, bool send, uint32_t pid, uint64_t obj, uint64_t peer)
{
	return ev_ipc(ts, send, pid, pid, obj, peer, ARGUS_OBJ_UNIX, 1);
}

/* One request at t: the app writes and blocks in its read; the helper
 * reads (waking the app spuriously: it re-blocks in the same read), then
 * sleeps for work_ns (switch-out left out when lost_switch) and answers. */
static void request(struct trace *t, uint64_t ts, uint64_t work_ns, bool lost_switch)
{
	add(t, ev_wakeup(ts, APP, APP, HELPER, HELPER, 0));
	add(t, ipc(ts + 1000, true, APP, SOCK_APP, SOCK_HELPER));
	add(t, ev_sys_enter(ts + 2000, APP, APP, T_READ));
	add(t, ev_switch(ts + 3000, APP, APP, 1, HELPER, HELPER));
	add(t, ev_sys_exit(ts + 4000, HELPER, HELPER, T_READ, 1));
	add(t, ev_wakeup(ts + 5000, HELPER, HELPER, APP, APP, 0));
	add(t, ipc(ts + 6000, false, HELPER, SOCK_HELPER, SOCK_APP));
	add(t, ev_sys_enter(ts + 7000, HELPER, HELPER, T_NANOSLEEP));
	if (!lost_switch)
		add(t, ev_switch(ts + 8000, HELPER, HELPER, 1, APP, APP));
	add(t, ev_switch(ts + 9000, APP, APP, 1, 0, 0)); /* back to sleep in the read */
	uint64_t a = ts + 10000 + work_ns;
	add(t, ev_sys_exit(a, HELPER, HELPER, T_NANOSLEEP, 0));
	add(t, ev_wakeup(a + 1000, HELPER, HELPER, APP, APP, 0));
	add(t, ipc(a + 2000, true, HELPER, SOCK_HELPER, SOCK_APP));
	add(t, ev_sys_enter(a + 3000, HELPER, HELPER, T_READ));
	add(t, ev_switch(a + 4000, HELPER, HELPER, 1, APP, APP));
	add(t, ev_sys_exit(a + 5000, APP, APP, T_READ, 1));
	add(t, ipc(a + 6000, false, APP, SOCK_APP, SOCK_HELPER));
	add(t, ev_sys_enter(a + 7000, APP, APP, T_EPOLL_WAIT));
	add(t, ev_switch(a + 8000, APP, APP, 1, 0, 0));
}

/* A bystander (an input tool) that sent the app its key, then sleeps
 * through the whole stall. */
static void bystander(struct trace *t, uint64_t ts)
{
	add(t, ev_wakeup(ts, TOOL, TOOL, APP, APP, 0));
	add(t, ipc(ts + 100, true, TOOL, SOCK_TOOL, SOCK_TOOL_PEER));
	add(t, ev_sys_enter(ts + 200, TOOL, TOOL, T_NANOSLEEP));
	add(t, ev_switch(ts + 300, TOOL, TOOL, 1, APP, APP));
	add(t, ev_sys_exit(ts + 400, APP, APP, T_EPOLL_WAIT, 1));
	add(t, ipc(ts + 500, false, APP, SOCK_TOOL_PEER, SOCK_TOOL));
}

enum { T_SCHED_YIELD = 24 };

/* A request at ts the helper takes and answers at once to the app's
 * receiver thread (tid APP + 1), or drops (!answered); the app spins on
 * sched_yield meanwhile, for spin_ns, until the answer would have set its
 * flag. */
static void spin_request(struct trace *t, uint64_t ts, bool answered, uint64_t spin_ns)
{
	add(t, ev_wakeup(ts, APP, APP, HELPER, HELPER, 0));
	add(t, ipc(ts + 1000, true, APP, SOCK_APP, SOCK_HELPER));
	add(t, ev_sys_exit(ts + 2000, HELPER, HELPER, T_READ, 1));
	add(t, ipc(ts + 3000, false, HELPER, SOCK_HELPER, SOCK_APP));
	if (answered) {
		add(t, ev_wakeup(ts + 4000, HELPER, HELPER, APP, APP + 1, 0));
		add(t, ipc(ts + 5000, true, HELPER, SOCK_HELPER, SOCK_APP));
		add(t, ev_ipc(ts + 6000, false, APP, APP + 1, SOCK_APP, SOCK_HELPER, ARGUS_OBJ_UNIX,
		              1));
		add(t, ev_sys_enter(ts + 6500, APP, APP + 1, T_READ));
		add(t, ev_switch(ts + 6600, APP, APP + 1, 1, 0, 0));
	}
	add(t, ev_sys_enter(ts + 7000, HELPER, HELPER, T_READ));
	add(t, ev_switch(ts + 8000, HELPER, HELPER, 1, 0, 0));
	for (uint64_t y = ts + 10000; y < ts + spin_ns; y += 20 * MS) {
		add(t, ev_sys_enter(y, APP, APP, T_SCHED_YIELD));
		add(t, ev_sys_exit(y + 1000, APP, APP, T_SCHED_YIELD, 0));
	}
	/* back in its loop */
	add(t, ev_sys_enter(ts + spin_ns, APP, APP, T_EPOLL_WAIT));
	add(t, ev_switch(ts + spin_ns + 1000, APP, APP, 1, 0, 0));
}

/* Feed the events up to the stall's detection (what the daemon has then),
 * diagnose it; returns the root's pid (0 = none). */
static uint32_t diagnose_with(struct trace *t, uint64_t since, uint8_t cls,
                              const struct argus_graph_opts *opts, struct argus_diagnosis *d)
{
	struct argus_graph *g;
	ASSERT_EQ(argus_graph_new(&g, opts), 0);
	add(t, ev_comm(1, APP, APP, "demo-app"));
	add(t, ev_comm(2, HELPER, HELPER, "slow-lookup"));
	add(t, ev_comm(3, TOOL, TOOL, "xdotool"));
	add(t, ev_comm(4, TICKER, TICKER, "ticker"));
	struct argus_stall st = {.id = 1,
	                         .pid = APP,
	                         .tid = APP,
	                         .since = since,
	                         .detected = since + 2 * SEC,
	                         .cls = cls,
	                         .blocked = cls == ARGUS_STALL_LONG_WAIT,
	                         .wait_nr = cls == ARGUS_STALL_LONG_WAIT ? T_READ : 0xffff};
	/* in time order: the comm records last were written with small ts */
	struct argus_event sorted[1024];
	size_t n = 0;
	for (size_t i = t->n - 4; i < t->n; i++)
		sorted[n++] = t->ev[i];
	for (size_t i = 0; i + 4 < t->n; i++)
		if (t->ev[i].ts <= st.detected)
			sorted[n++] = t->ev[i];
	ASSERT_EQ(argus_graph_ingest(g, sorted, n), 0);
	struct argus_graph_view v;
	argus_graph_view_begin(g, &v);
	struct argus_beam_params p;
	argus_beam_params_default(&p);
	ASSERT_EQ(argus_diagnose(&v, &st, &p, ARGUS_ALGO_BEAM, NULL, NULL, NULL, NULL, NULL, d), 0);
	argus_graph_view_end(&v);
	argus_graph_free(g);
	printf("%s\n", d->summary);
	return d->ncandidates ? d->root.v.pid : 0;
}

static uint32_t diagnose_as(struct trace *t, uint64_t since, uint8_t cls, struct argus_diagnosis *d)
{
	return diagnose_with(t, since, cls, NULL, d);
}

static uint32_t diagnose(struct trace *t, uint64_t since, struct argus_diagnosis *d)
{
	return diagnose_as(t, since, ARGUS_STALL_LONG_WAIT, d);
}

TEST(split_read_without_a_normal_run_blames_the_sleeping_peer)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct argus_diagnosis *d = malloc(sizeof(*d));
	ASSERT(t && d);
	uint64_t hang = 1 * SEC;
	request(t, hang, 4 * SEC, false);
	ASSERT_EQ(diagnose(t, hang, d), HELPER);
	ASSERT_EQ(d->root.reason, ARGUS_ROOT_BLOCKED);
	ASSERT_EQ(d->root.v.wait_kind, ARGUS_WAIT_SLEEP);
	free(t);
	free(d);
}

TEST(split_read_after_normal_runs_blames_the_sleeping_peer_not_a_bystander)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct argus_diagnosis *d = malloc(sizeof(*d));
	ASSERT(t && d);
	for (int i = 0; i < 5; i++) {
		bystander(t, SEC + (uint64_t)i * 150 * MS);
		request(t, SEC + (uint64_t)i * 150 * MS + 10000, 3 * MS, false);
	}
	uint64_t hang = 2 * SEC;
	bystander(t, hang);
	request(t, hang + 10000, 4 * SEC, false);
	ASSERT_EQ(diagnose(t, hang, d), HELPER);
	ASSERT_EQ(d->root.reason, ARGUS_ROOT_BLOCKED);
	free(t);
	free(d);
}

TEST(peer_silent_after_a_lost_switch_record_is_still_the_culprit)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct argus_diagnosis *d = malloc(sizeof(*d));
	ASSERT(t && d);
	for (int i = 0; i < 5; i++)
		request(t, SEC + (uint64_t)i * 150 * MS, 3 * MS, false);
	uint64_t hang = 2 * SEC;
	request(t, hang, 4 * SEC, true);
	ASSERT_EQ(diagnose(t, hang, d), HELPER);
	ASSERT_EQ(d->root.reason, ARGUS_ROOT_BLOCKED);
	free(t);
	free(d);
}

/* The app talked to another peer in the same segment first (it read an
 * event and sent its reply): the request to the helper splits the segment
 * (a second new destination), at the send's record - stamped at its exit,
 * after the helper the call woke began its own segment. */
TEST(request_split_from_earlier_traffic_blames_the_sleeping_peer)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct argus_diagnosis *d = malloc(sizeof(*d));
	ASSERT(t && d);
	uint64_t hang = 1 * SEC;
	add(t, ev_wakeup(hang - 3000, TOOL, TOOL, APP, APP, 0));
	/* a connection of its own (0xb1 ^ 0xb2 is the helper's 0xa1 ^ 0xa2) */
	add(t, ipc(hang - 2000, false, APP, 0xc1, 0xc4));
	add(t, ipc(hang - 1000, true, APP, 0xc1, 0xc4));
	request(t, hang, 4 * SEC, false);
	ASSERT_EQ(diagnose(t, hang, d), HELPER);
	ASSERT_EQ(d->root.reason, ARGUS_ROOT_BLOCKED);
	free(t);
	free(d);
}

TEST(yield_loop_on_a_dropped_request_blames_the_peer_that_took_it)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct argus_diagnosis *d = malloc(sizeof(*d));
	ASSERT(t && d);
	for (int i = 0; i < 3; i++)
		spin_request(t, SEC + (uint64_t)i * 300 * MS, true, 40 * MS);
	uint64_t hang = 2 * SEC;
	spin_request(t, hang, false, 4 * SEC);
	ASSERT_EQ(diagnose_as(t, hang, ARGUS_STALL_YIELD_LOOP, d), HELPER);
	ASSERT_EQ(d->root.reason, ARGUS_ROOT_MISSING_WAKE);
	free(t);
	free(d);
}

/* The UI thread idled 300 ms in its loop's poll until the input came, then
 * asked the helper (asleep 4 s) and waited in its read, which a ticker
 * thread's wake-ups cut into 20 ms pieces (a broadcast it re-checks), which
 * a user's rule says are no cause. The anomaly vertex is a segment of that
 * read: the poll's long wait ended before the stall began, so it is not the
 * stall (it had been picked as the longest wait, and the diagnosis then
 * walked to the input tool; tests/debug/heartbeat live, 1 run in 4). */
TEST(a_long_idle_wait_that_ended_before_the_stall_is_not_the_anomaly)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct argus_diagnosis *d = malloc(sizeof(*d));
	ASSERT(t && d);
	uint64_t idle = 1 * SEC, input = idle + 300 * MS;
	add(t, ev_sys_enter(idle, APP, APP, T_EPOLL_WAIT));
	add(t, ev_switch(idle + 1000, APP, APP, 1, 0, 0));
	bystander(t, input);
	request(t, input + 1000, 4 * SEC, false);
	for (uint64_t y = input + 20 * MS; y < input + 3 * SEC; y += 20 * MS) {
		add(t, ev_wakeup(y, TICKER, TICKER, APP, APP, 0));
		add(t, ev_switch(y + 1000, TICKER, TICKER, 1, APP, APP));
		add(t, ev_switch(y + 2000, APP, APP, 1, 0, 0));
	}
	uint64_t since = input + 5000; /* in the read, 5 us after the poll ended */
	static const char *const ignore[] = {"ticker", NULL};
	struct argus_graph_opts o;
	argus_graph_opts_default(&o);
	o.ignore_wake_comms = ignore;
	uint32_t root = diagnose_with(t, since, ARGUS_STALL_LONG_WAIT, &o, d);
	ASSERT_MSG(d->anomaly_v.end + d->anomaly_v.wait_ns >= since,
	           "anomaly vertex ends at %llu + %llu, before the stall at %llu",
	           (unsigned long long)d->anomaly_v.end, (unsigned long long)d->anomaly_v.wait_ns,
	           (unsigned long long)since);
	/* (the read cut into pieces is not followed to the helper here: each
	 * piece is a wait of its own; only the bystander must not be named) */
	ASSERT(root != TOOL);
	free(t);
	free(d);
}

TEST_MAIN(TEST_ENTRY(split_read_without_a_normal_run_blames_the_sleeping_peer),
          TEST_ENTRY(split_read_after_normal_runs_blames_the_sleeping_peer_not_a_bystander),
          TEST_ENTRY(peer_silent_after_a_lost_switch_record_is_still_the_culprit),
          TEST_ENTRY(request_split_from_earlier_traffic_blames_the_sleeping_peer),
          TEST_ENTRY(yield_loop_on_a_dropped_request_blames_the_peer_that_took_it),
          TEST_ENTRY(a_long_idle_wait_that_ended_before_the_stall_is_not_the_anomaly))
