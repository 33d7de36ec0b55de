/*
 * test_diagnose_launch.c - an app starts while its session bus is stopped:
 * its main thread waits on a futex for its D-Bus thread, which connected
 * to the bus's socket, sent its greeting and waits in a poll on that one
 * socket for an answer. The bus daemon forked after listen() (dbus-daemon
 * --fork): the pid the kext names at connect (the listener's credentials)
 * is its parent, gone; the thread that serves the listener is known from
 * an earlier client's connection it read. It was stopped before it
 * accepted the app's connection, so no one ever read there. The daemon
 * must be the root cause (stopped), not the app's own wait.
 */
#include <stdlib.h>

#include "../graph/graph_events.h"
#include "beam.h"
#include "diag_fixture.h"
#include "test.h"

enum { APP = 100, APP_DBUS = 101, APP_BEARER = 102, PARENT = 300, DAEMON = 301, TOOL = 400 };
enum { T_CONNECT = 42, T_POLL = 7 };
enum {
	TOOL_SOCK = 0xa1,
	TOOL_END = 0xa2, /* the daemon's end of the tool's connection */
	APP_SOCK = 0xb1,
	APP_END = 0xb2, /* never accepted */
	APP_LOCK = 0x7000
};

struct trace {
	struct argus_event ev[256];
	size_t n;
};

static void add(struct trace *t, struct argus_event e)
{
	ASSERT(t->n < sizeof(t->ev) / sizeof(t->ev[0]));
	t->ev[t->n++] = e;
}

/* tid of pid connects obj to the path PARENT listens on (the kext's
 * connect record: peer = the connection's other end, arg0 = the pid) */
static struct argus_event connect_to(uint64_t ts, uint32_t pid, uint32_t tid, uint64_t obj,
                                     uint64_t peer)
{
	struct argus_event e = ev_sys_enter(ts, pid, tid, T_CONNECT);
	e.sys_enter.obj = obj;
	e.sys_enter.peer_obj = peer;
	e.sys_enter.obj_kind = ARGUS_OBJ_UNIX;
	e.sys_enter.arg0 = PARENT;
	return e;
}

/* Earlier in the start-up the main thread waited on a futex that another
 * thread of the app (Qt's bearer thread) ended at once, and that thread
 * went on to idle in a poll: compare finds that baseline and a thread now
 * blocked "in another call" than its normal one. */
static void bearer_baseline(struct trace *t)
{
	uint64_t s = 700 * MS;
	struct argus_event f = ev_base(s, ARGUS_EV_FUTEX_WAIT, APP, APP);
	f.futex.uaddr = APP_LOCK;
	add(t, f);
	add(t, ev_switch(s + 1000, APP, APP, 1, APP, APP_BEARER));
	add(t, ev_futex_wake(s + 2000, APP, APP_BEARER, APP_LOCK, 1));
	add(t, ev_wakeup(s + 2100, APP, APP_BEARER, APP, APP, 0));
	add(t, ev_sys_exit(s + 3000, APP, APP, T_FUTEX, 0));
	struct argus_event g = ev_base(s + 4000, ARGUS_EV_FUTEX_WAIT, APP, APP_BEARER);
	g.futex.uaddr = APP_LOCK + 8;
	add(t, g);
	add(t, ev_switch(s + 5000, APP, APP_BEARER, 1, 0, 0));
	add(t, ev_wakeup(s + 6000, APP, APP, APP, APP_BEARER, 0));
	add(t, ev_sys_exit(s + 7000, APP, APP_BEARER, T_FUTEX, 0));
	add(t, ev_sys_enter(s + 8000, APP, APP_BEARER, T_POLL));
	add(t, ev_switch(s + 9000, APP, APP_BEARER, 1, 0, 0));
}

static void build(struct trace *t, bool tool_first)
{
	add(t, ev_comm(1, APP, APP, "demo-app"));
	add(t, ev_comm(2, DAEMON, DAEMON, "dbus-daemon"));
	add(t, ev_comm(3, TOOL, TOOL, "dbus-send"));
	uint64_t s = 100 * MS;
	if (tool_first) { /* a client the daemon accepted and served */
		add(t, connect_to(s, TOOL, TOOL, TOOL_SOCK, TOOL_END));
		add(t, ev_ipc(s + 1000, true, TOOL, TOOL, TOOL_SOCK, TOOL_END, ARGUS_OBJ_UNIX, 16));
		add(t, ev_sys_exit(s + 2000, DAEMON, DAEMON, T_EPOLL_WAIT, 1));
		add(t, ev_ipc(s + 3000, false, DAEMON, DAEMON, TOOL_END, TOOL_SOCK, ARGUS_OBJ_UNIX,
		              16));
		add(t, ev_ipc(s + 4000, true, DAEMON, DAEMON, TOOL_END, TOOL_SOCK, ARGUS_OBJ_UNIX,
		              16));
		add(t,
		    ev_ipc(s + 5000, false, TOOL, TOOL, TOOL_SOCK, TOOL_END, ARGUS_OBJ_UNIX, 16));
	}
	add(t, ev_sys_enter(s + 6000, DAEMON, DAEMON, T_EPOLL_WAIT));
	add(t, ev_switch(s + 7000, DAEMON, DAEMON, 1, 0, 0));
	/* SIGSTOP: woken from its wait, it stops */
	add(t, ev_wakeup(500 * MS, TOOL, TOOL, DAEMON, DAEMON, 0));
	add(t, ev_switch(500 * MS + 1000, DAEMON, DAEMON, 4 /* __TASK_STOPPED */, 0, 0));
	if (tool_first)
		bearer_baseline(t);
	/* the app's D-Bus thread: connects, greets, polls the socket alone */
	s = SEC;
	add(t, connect_to(s, APP, APP_DBUS, APP_SOCK, APP_END));
	add(t, ev_ipc(s + 1000, true, APP, APP_DBUS, APP_SOCK, APP_END, ARGUS_OBJ_UNIX, 16));
	struct argus_event p = ev_sys_enter(s + 2000, APP, APP_DBUS, T_POLL);
	p.sys_enter.obj = APP_SOCK;
	p.sys_enter.peer_obj = APP_END;
	p.sys_enter.obj_kind = ARGUS_OBJ_UNIX;
	p.sys_enter.arg0 = -1;
	add(t, p);
	add(t, ev_switch(s + 3000, APP, APP_DBUS, 1, APP, APP));
	/* the main thread waits for it */
	struct argus_event f = ev_base(s + 4000, ARGUS_EV_FUTEX_WAIT, APP, APP);
	f.futex.uaddr = APP_LOCK;
	add(t, f);
	add(t, ev_switch(s + 5000, APP, APP, 1, 0, 0));
	add(t, ev_sys_exit(3 * SEC + 5000, TOOL, TOOL, T_NANOSLEEP, 0)); /* time passes */
}

static uint32_t diagnose(struct trace *t, struct argus_diagnosis *d)
{
	return diag_launch_root(t->ev, t->n, APP, APP, SEC + 5000, 3 * SEC + 5000, T_FUTEX, d);
}

TEST(launch_behind_a_stopped_bus_names_the_daemon_that_serves_the_listener)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct argus_diagnosis *d = malloc(sizeof(*d));
	ASSERT(t && d);
	build(t, true);
	ASSERT_EQ(diagnose(t, d), DAEMON);
	ASSERT(d->root.v.flags & ARGUS_VF_STOPPED);
	free(t);
	free(d);
}

/* no connection to the listener seen served: the listener's pid itself
 * (here gone, with no vertex) is all there is: the app's own wait */
TEST(launch_with_the_listener_never_seen_serving_blames_no_bystander)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct argus_diagnosis *d = malloc(sizeof(*d));
	ASSERT(t && d);
	build(t, false);
	uint32_t root = diagnose(t, d);
	ASSERT(root == APP || root == APP_DBUS);
	free(t);
	free(d);
}

TEST_MAIN(TEST_ENTRY(launch_behind_a_stopped_bus_names_the_daemon_that_serves_the_listener),
          TEST_ENTRY(launch_with_the_listener_never_seen_serving_blames_no_bystander))
