/*
 * test_diagnose_launch_relay.c - an app launches while its session bus is
 * stopped (bench/realapps r10, Qt's shape): the main thread writes its
 * D-Bus thread's eventfd and waits on a futex; the D-Bus thread connects
 * to the bus, sends its greeting and polls the socket. The bus daemon
 * forked after listen(): its serving thread is known from an earlier
 * client's connection it read. The stopped daemon is the root cause in
 * both orders of the hand-off: the relay blocked after the main thread's
 * wait began, or, having preempted it, before.
 *
 * The kernel frees a closed socket and may give its address to the next
 * one: in one live run of four the app's display connection took the two
 * addresses of that earlier bus client's connection, roles swapped, and
 * its X reader thread's first read there was taken for a new server of
 * the bus's listener (realapps r10, 2026-11-27: Xvfb named). A connect's
 * own end is a new socket: what was known at its address is forgotten.
 */
#include <stdlib.h>

#include "../graph/graph_events.h"
#include "beam.h"
#include "diag_fixture.h"
#include "test.h"

enum {
	APP = 100,      /* the main thread */
	APP_DBUS = 101, /* Qt's D-Bus thread: the relay */
	APP_XQ = 102,   /* the thread that reads the display connection */
	XSRV = 50,
	PARENT = 300, /* the bus's listener: the daemon's parent, gone */
	DAEMON = 301,
	TOOL = 400 /* an earlier client of the bus (a bus query) */
};
enum { T_CONNECT = 42, T_POLL = 7 };
enum {
	TOOL_SOCK = 0xa1, /* the tool's end of its bus connection */
	TOOL_END = 0xa2,  /* the daemon's end of it */
	X_CLI = 0xc1,     /* the app's display connection, fresh addresses */
	X_SRV = 0xc2,
	BUS_CLI = 0xb1, /* the relay's bus connection */
	BUS_END = 0xb2, /* the daemon's end: never accepted */
	EFD = 0xe1,     /* the relay's wake-up eventfd */
	APP_LOCK = 0x7000
};

struct trace {
	struct argus_event ev[128];
	size_t n;
};

static void add(struct trace *t, struct argus_event e)
{
	ASSERT(t->n < sizeof(t->ev) / sizeof(t->ev[0]));
	t->ev[t->n++] = e;
}

/* the kext's connect record: peer = the connection's other end, arg0 =
 * the pid listening at the path */
static struct argus_event connect_to(uint64_t ts, uint32_t pid, uint32_t tid, uint64_t obj,
                                     uint64_t peer, uint32_t listener)
{
	struct argus_event e = ev_sys_enter(ts, pid, tid, T_CONNECT);
	e.sys_enter.obj = obj;
	e.sys_enter.peer_obj = peer;
	e.sys_enter.obj_kind = ARGUS_OBJ_UNIX;
	e.sys_enter.arg0 = listener;
	return e;
}

static struct argus_event poll_on(uint64_t ts, uint32_t pid, uint32_t tid, uint64_t obj,
                                  uint64_t peer, uint8_t kind)
{
	struct argus_event e = ev_sys_enter(ts, pid, tid, T_POLL);
	e.sys_enter.obj = obj;
	e.sys_enter.peer_obj = peer;
	e.sys_enter.obj_kind = kind;
	e.sys_enter.arg0 = -1;
	return e;
}

static void futex_wait(struct trace *t, uint64_t ts)
{
	struct argus_event f = ev_base(ts, ARGUS_EV_FUTEX_WAIT, APP, APP);
	f.futex.uaddr = APP_LOCK;
	add(t, f);
}

/* the relay, woken: connects to the bus, greets it, polls the socket */
static void relay_connects(struct trace *t, uint64_t s, uint32_t next)
{
	add(t, ev_sys_exit(s, APP, APP_DBUS, T_POLL, 1));
	add(t, connect_to(s + 1000, APP, APP_DBUS, BUS_CLI, BUS_END, PARENT));
	add(t, ev_ipc(s + 2000, true, APP, APP_DBUS, BUS_CLI, BUS_END, ARGUS_OBJ_UNIX, 16));
	add(t, poll_on(s + 3000, APP, APP_DBUS, BUS_CLI, BUS_END, ARGUS_OBJ_UNIX));
	add(t, ev_switch(s + 4000, APP, APP_DBUS, 1, next == APP ? APP : 0, next));
}

/* reused: the display connection takes the tool's two socket addresses,
 * roles swapped (its client end where the daemon's end was); relay_first:
 * the woken relay preempts the main thread and blocks before its wait */
static void build(struct trace *t, bool reused, bool relay_first)
{
	add(t, ev_comm(1, APP, APP, "demo-app"));
	add(t, ev_comm(2, DAEMON, DAEMON, "dbus-daemon"));
	add(t, ev_comm(3, TOOL, TOOL, "dbus-send"));
	add(t, ev_comm(4, XSRV, XSRV, "Xvfb"));
	/* a client the daemon accepted and served: its serving thread */
	uint64_t s = 100 * MS;
	add(t, connect_to(s, TOOL, TOOL, TOOL_SOCK, TOOL_END, PARENT));
	add(t, ev_ipc(s + 1000, true, TOOL, TOOL, TOOL_SOCK, TOOL_END, ARGUS_OBJ_UNIX, 16));
	add(t, ev_sys_exit(s + 2000, DAEMON, DAEMON, T_EPOLL_WAIT, 1));
	add(t, ev_ipc(s + 3000, false, DAEMON, DAEMON, TOOL_END, TOOL_SOCK, ARGUS_OBJ_UNIX, 16));
	add(t, ev_ipc(s + 4000, true, DAEMON, DAEMON, TOOL_END, TOOL_SOCK, ARGUS_OBJ_UNIX, 16));
	add(t, ev_ipc(s + 5000, false, TOOL, TOOL, TOOL_SOCK, TOOL_END, ARGUS_OBJ_UNIX, 16));
	add(t, ev_sys_enter(s + 6000, DAEMON, DAEMON, T_EPOLL_WAIT));
	add(t, ev_switch(s + 7000, DAEMON, DAEMON, 1, 0, 0));
	/* SIGSTOP: woken from its wait, it stops */
	add(t, ev_wakeup(500 * MS, TOOL, TOOL, DAEMON, DAEMON, 0));
	add(t, ev_switch(500 * MS + 1000, DAEMON, DAEMON, 4 /* __TASK_STOPPED */, 0, 0));
	/* the app's display connection; its reader thread reads the reply
	 * and polls there (it stays blocked: nothing more to draw) */
	uint64_t cli = reused ? TOOL_END : X_CLI, srv = reused ? TOOL_SOCK : X_SRV;
	s = 600 * MS;
	add(t, connect_to(s, APP, APP, cli, srv, XSRV));
	add(t, ev_ipc(s + 1000, true, APP, APP, cli, srv, ARGUS_OBJ_UNIX, 32));
	add(t, ev_sys_exit(s + 2000, XSRV, XSRV, T_EPOLL_WAIT, 1));
	add(t, ev_ipc(s + 3000, false, XSRV, XSRV, srv, cli, ARGUS_OBJ_UNIX, 32));
	add(t, ev_ipc(s + 4000, true, XSRV, XSRV, srv, cli, ARGUS_OBJ_UNIX, 32));
	add(t, ev_sys_enter(s + 5000, XSRV, XSRV, T_EPOLL_WAIT));
	add(t, ev_switch(s + 6000, XSRV, XSRV, 1, APP, APP_XQ));
	add(t, ev_ipc(s + 7000, false, APP, APP_XQ, cli, srv, ARGUS_OBJ_UNIX, 32));
	add(t, poll_on(s + 8000, APP, APP_XQ, cli, srv, ARGUS_OBJ_UNIX));
	add(t, ev_switch(s + 9000, APP, APP_XQ, 1, 0, 0));
	/* the relay idles in a poll of its wake-up eventfd */
	s = 900 * MS;
	add(t, poll_on(s, APP, APP_DBUS, EFD, 0, ARGUS_OBJ_EVENTFD));
	add(t, ev_switch(s + 1000, APP, APP_DBUS, 1, 0, 0));
	/* the hand-off, as the default capture records it: the wake-up, then
	 * the waker's eventfd write (same ts, noret) */
	s = SEC;
	add(t, ev_wakeup(s, APP, APP, APP, APP_DBUS, 0));
	struct argus_event w = ev_ipc(s, true, APP, APP, EFD, 0, ARGUS_OBJ_EVENTFD, 8);
	w.flags |= ARGUS_F_NORET;
	add(t, w);
	if (relay_first) {
		add(t, ev_switch(s + 1000, APP, APP, 0 /* preempted */, APP, APP_DBUS));
		relay_connects(t, s + 2000, APP);
		futex_wait(t, s + 8000);
		add(t, ev_switch(s + 9000, APP, APP, 1, 0, 0));
	} else {
		futex_wait(t, s + 1000);
		add(t, ev_switch(s + 2000, APP, APP, 1, APP, APP_DBUS));
		relay_connects(t, s + 3000, 0);
	}
	add(t, ev_sys_exit(3 * SEC + 9000, TOOL, TOOL, T_NANOSLEEP, 0)); /* time passes */
}

static uint32_t diagnose(struct trace *t, struct argus_diagnosis *d)
{
	return diag_launch_root(t->ev, t->n, APP, APP, SEC + 9000, 3 * SEC + 9000, T_FUTEX, d);
}

static void check(bool reused, bool relay_first)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct argus_diagnosis *d = malloc(sizeof(*d));
	ASSERT(t && d);
	build(t, reused, relay_first);
	ASSERT_EQ(diagnose(t, d), DAEMON);
	ASSERT(d->root.v.flags & ARGUS_VF_STOPPED);
	ASSERT(diag_rule_used(d, "handoff") || diag_rule_used(d, "futex-sibling"));
	free(t);
	free(d);
}

TEST(relay_blocked_after_the_wait_began_names_the_stopped_daemon)
{
	check(false, false);
}

TEST(relay_blocked_before_the_wait_began_names_the_stopped_daemon)
{
	check(false, true);
}

/* fails without the connect's forgetting: the X reader thread is taken
 * for the bus's server, and the relay's greeting waits for it */
TEST(a_reused_socket_address_serves_no_listener_relay_after)
{
	check(true, false);
}

TEST(a_reused_socket_address_serves_no_listener_relay_before)
{
	check(true, true);
}

TEST_MAIN(TEST_ENTRY(relay_blocked_after_the_wait_began_names_the_stopped_daemon),
          TEST_ENTRY(relay_blocked_before_the_wait_began_names_the_stopped_daemon),
          TEST_ENTRY(a_reused_socket_address_serves_no_listener_relay_after),
          TEST_ENTRY(a_reused_socket_address_serves_no_listener_relay_before))
