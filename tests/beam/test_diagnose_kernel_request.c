/*
 * test_diagnose_kernel_request.c - a UI thread blocks inside the kernel
 * (state D, in a stat of a file on a FUSE mount) while the FUSE daemon does
 * not answer: stopped (SIGSTOP), or itself blocked. No IPC object of the
 * app explains the wait; the kernel's fuse_request_send / fuse_request_end
 * records (KREQ_SEND / KREQ_END) do: the daemon thread that last ended a
 * request on the connection is the culprit (rule kernel-request). Without
 * those records the same trace names the daemon nowhere.
 */
#include <stdlib.h>
#include <string.h>

#include "../graph/graph_events.h"
#include "beam.h"
#include "diag_fixture.h"
#include "test.h"

enum { APP = 100, DAEMON = 200, SHELL = 300 };
enum { T_STATX = 332, CONN = 0xf0c0, DEVFUSE = 0xf11e };

struct trace {
	struct argus_event ev[1024];
	size_t n;
	bool no_kreq; /* leave the kernel's request records out */
};

static void add(struct trace *t, struct argus_event e)
{
	ASSERT(t->n < sizeof(t->ev) / sizeof(t->ev[0]));
	if (t->no_kreq && (e.type == ARGUS_EV_KREQ_SEND || e.type == ARGUS_EV_KREQ_END))
		return;
	t->ev[t->n++] = e;
}

static struct argus_event kreq(uint64_t ts, bool send, uint32_t tid, uint64_t unique)
{
	struct argus_event e = ev_base(ts, send ? ARGUS_EV_KREQ_SEND : ARGUS_EV_KREQ_END,
	                               tid == APP ? APP : DAEMON, tid);
	e.kreq.obj = CONN;
	e.kreq.unique = unique;
	e.kreq.ret = send ? 64 : 0;
	e.kreq.dev = 42;
	e.kreq.requester = APP;
	e.kreq.opcode = send ? 3 : 0; /* FUSE_GETATTR */
	e.kreq.obj_kind = ARGUS_OBJ_FUSE;
	return e;
}

/* The daemon rests in its read of /dev/fuse (a file, no IPC object). */
static void daemon_rests(struct trace *t, uint64_t ts)
{
	add(t, ev_sys_enter(ts, DAEMON, DAEMON, T_READ));
	add(t, ev_switch(ts + 100, DAEMON, DAEMON, 1, 0, 0));
}

/* One stat at ts: the kernel sends the request for the app, which sleeps
 * uninterruptibly (state 2) in the kernel; the daemon, woken (wakes), reads
 * it and (answered) ends it 1 ms later, waking the app. */
static void stat_call(struct trace *t, uint64_t ts, uint64_t unique, bool answered, bool wakes)
{
	add(t, ev_sys_enter(ts, APP, APP, T_STATX));
	if (wakes) /* a stopped daemon is not woken */
		add(t, ev_wakeup(ts + 1000, APP, APP, DAEMON, DAEMON, 0));
	add(t, kreq(ts + 1100, true, APP, unique));
	add(t, ev_switch(ts + 2000, APP, APP, 2, DAEMON, DAEMON));
	if (!answered)
		return;
	add(t, ev_sys_exit(ts + 3000, DAEMON, DAEMON, T_READ, 80));
	add(t, kreq(ts + 3000 + MS, false, DAEMON, unique));
	add(t, ev_wakeup(ts + 3100 + MS, DAEMON, DAEMON, APP, APP, 0));
	daemon_rests(t, ts + 3200 + MS);
	add(t, ev_sys_exit(ts + 4000 + MS, APP, APP, T_STATX, 0));
	add(t, ev_sys_enter(ts + 5000 + MS, APP, APP, T_EPOLL_WAIT));
	add(t, ev_switch(ts + 6000 + MS, APP, APP, 1, 0, 0));
}

static uint32_t diagnose(struct trace *t, uint64_t since, struct argus_diagnosis *d)
{
	struct argus_graph *g;
	ASSERT_EQ(argus_graph_new(&g, NULL), 0);
	struct argus_event comms[] = {ev_comm(1, APP, APP, "geany"),
	                              ev_comm(2, DAEMON, DAEMON, "bindfs")};
	ASSERT_EQ(argus_graph_ingest(g, comms, 2), 0);
	struct argus_stall st = {.id = 1,
	                         .pid = APP,
	                         .tid = APP,
	                         .since = since,
	                         .detected = since + 2 * SEC,
	                         .cls = ARGUS_STALL_LONG_WAIT,
	                         .blocked = true,
	                         .wait_nr = T_STATX};
	size_t n = 0;
	while (n < t->n && t->ev[n].ts <= st.detected)
		n++;
	ASSERT_EQ(argus_graph_ingest(g, t->ev, n), 0);
	diag_run(g, &st, d);
	return d->ncandidates ? d->root.v.pid : 0;
}

/* Normal stats, then the daemon is stopped, then a stat that hangs. */
static void stopped_daemon(struct trace *t, uint64_t hang)
{
	daemon_rests(t, SEC / 2);
	for (int i = 0; i < 5; i++)
		stat_call(t, SEC + (uint64_t)i * 100 * MS, 10 + (uint64_t)i, true, true);
	/* kill -STOP: the signal wakes it in its read, it stops */
	add(t, ev_wakeup(hang - 101 * MS, SHELL, SHELL, DAEMON, DAEMON, 0));
	add(t, ev_switch(hang - 100 * MS, DAEMON, DAEMON, 4 /* __TASK_STOPPED */, 0, 0));
	stat_call(t, hang, 99, false, false);
}

TEST(kernel_request_names_the_stopped_server)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct argus_diagnosis *d = malloc(sizeof(*d));
	ASSERT(t && d);
	uint64_t hang = 2 * SEC;
	stopped_daemon(t, hang);
	ASSERT_EQ(diagnose(t, hang, d), DAEMON);
	ASSERT(d->root.v.flags & ARGUS_VF_STOPPED);
	ASSERT(diag_rule_used(d, "kernel-request"));
	ASSERT(strstr(d->summary, "stopped"));
	free(t);
	free(d);
}

/* The daemon took the request and sleeps in it (a slow back end): the
 * thread serving the connection, blocked, is the culprit. */
TEST(kernel_request_names_the_blocked_server)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct argus_diagnosis *d = malloc(sizeof(*d));
	ASSERT(t && d);
	daemon_rests(t, SEC / 2);
	for (int i = 0; i < 5; i++)
		stat_call(t, SEC + (uint64_t)i * 100 * MS, 10 + (uint64_t)i, true, true);
	uint64_t hang = 2 * SEC;
	stat_call(t, hang, 99, false, true);
	add(t, ev_sys_exit(hang + 3000, DAEMON, DAEMON, T_READ, 80));
	add(t, ev_sys_enter(hang + 4000, DAEMON, DAEMON, T_NANOSLEEP));
	add(t, ev_switch(hang + 5000, DAEMON, DAEMON, 1, 0, 0));
	ASSERT_EQ(diagnose(t, hang, d), DAEMON);
	ASSERT_EQ(d->root.reason, ARGUS_ROOT_BLOCKED);
	ASSERT_EQ(d->root.v.wait_kind, ARGUS_WAIT_SLEEP);
	ASSERT(diag_rule_used(d, "kernel-request"));
	free(t);
	free(d);
}

/* The same stopped daemon without the kernel's request records: the wait
 * is one no IPC object explains, and the rule does not decide it. */
TEST(without_request_records_the_rule_does_not_apply)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct argus_diagnosis *d = malloc(sizeof(*d));
	ASSERT(t && d);
	t->no_kreq = true;
	uint64_t hang = 2 * SEC;
	stopped_daemon(t, hang);
	diagnose(t, hang, d);
	ASSERT(!diag_rule_used(d, "kernel-request"));
	free(t);
	free(d);
}

TEST_MAIN(TEST_ENTRY(kernel_request_names_the_stopped_server),
          TEST_ENTRY(kernel_request_names_the_blocked_server),
          TEST_ENTRY(without_request_records_the_rule_does_not_apply))
