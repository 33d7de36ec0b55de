/*
 * test_diagnose_handoff.c - a UI thread hands a request to its process's
 * D-Bus thread (an eventfd write, as GDBus's sync call does) and waits in a
 * poll of its own wake-up eventfd; the D-Bus thread sends the message to the
 * bus daemon, which forwards it to a service that is stopped (it read its
 * connection before). No rule that reads the UI thread's own wait names the
 * service; rule handoff follows the relay and the broker to the unread
 * forward: the stopped service is the culprit (bench/realapps r12).
 */
#include <stdlib.h>
#include <string.h>

#include "../graph/graph_events.h"
#include "beam.h"
#include "diag_fixture.h"
#include "test.h"

enum { APP = 100, RELAY = 101, BUS = 300, SVC = 400, SHELL = 500, XSRV = 50, T_POLL = 7 };
enum {
	EFD_RELAY = 0xe1, /* the relay's wake-up eventfd */
	EFD_UI = 0xe2,    /* the UI thread's */
	APP_SOCK = 0xa1,  /* the app's bus connection, its end */
	BUS_APP = 0xa2,   /* the bus's end of it */
	BUS_SVC = 0xb1,   /* the bus's end of the service's connection */
	SVC_SOCK = 0xb2,  /* the service's end */
	X_CLI = 0xc1,     /* the app's display connection, its end */
	X_SRV = 0xc2,     /* the server's end */
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

/* the service once read what the bus sent it (its registration), then was stopped */
/* The UI thread's eventfd write to the relay as the default capture
 * writes it: the waker's send follows its wake-up (same ts, noret). */
static void hand_off_send(struct trace *t, uint64_t ts)
{
	struct argus_event e = ev_ipc(ts, true, APP, APP, EFD_RELAY, 0, ARGUS_OBJ_EVENTFD, 8);
	e.flags |= ARGUS_F_NORET;
	add(t, e);
}

/* The wake-up of the relay (in process relay_pid) and that send. */
static void hand_off(struct trace *t, uint64_t ts, uint32_t relay_pid)
{
	add(t, ev_wakeup(ts, APP, APP, relay_pid, RELAY, 0));
	hand_off_send(t, ts);
}

static void service(struct trace *t, uint64_t ts, bool stopped)
{
	add(t, ev_wakeup(ts, BUS, BUS, SVC, SVC, 0));
	add(t, ev_ipc(ts + 1000, true, BUS, BUS, BUS_SVC, SVC_SOCK, ARGUS_OBJ_UNIX, 40));
	add(t, ev_ipc(ts + 2000, false, SVC, SVC, SVC_SOCK, BUS_SVC, ARGUS_OBJ_UNIX, 40));
	add(t, ev_sys_enter(ts + 3000, SVC, SVC, T_POLL));
	add(t, ev_switch(ts + 4000, SVC, SVC, 1, 0, 0));
	add(t, ev_sys_enter(ts + 5000, BUS, BUS, T_EPOLL_WAIT));
	add(t, ev_switch(ts + 6000, BUS, BUS, 1, 0, 0));
	if (stopped) {
		add(t, ev_wakeup(ts + 100 * MS, SHELL, SHELL, SVC, SVC, 0));
		add(t, ev_switch(ts + 100 * MS + 1000, SVC, SVC, 4 /* __TASK_STOPPED */, 0, 0));
	}
}

/* the call: UI -> relay (eventfd) -> bus (socket) -> service (socket, unread) */
static void call_as(struct trace *t, uint64_t ts, uint32_t relay_pid, bool per_call)
{
	add(t, ev_wakeup(ts, APP, APP, relay_pid, RELAY, 0));
	if (per_call) {
		add(t, ev_ipc(ts + 1000, true, APP, APP, EFD_RELAY, 0, ARGUS_OBJ_EVENTFD, 8));
	} else {
		/* the default capture: the relay's read, after the poll that
		 * woke it, never blocks: not seen */
		hand_off_send(t, ts);
	}
	add(t, ev_sys_enter(ts + 2000, APP, APP, T_POLL));
	add(t, ev_switch(ts + 3000, APP, APP, 1, relay_pid, RELAY));
	if (per_call)
		add(t,
		    ev_ipc(ts + 4000, false, relay_pid, RELAY, EFD_RELAY, 0, ARGUS_OBJ_EVENTFD, 8));
	add(t, ev_wakeup(ts + 5000, relay_pid, RELAY, BUS, BUS, 0));
	add(t, ev_ipc(ts + 6000, true, relay_pid, RELAY, APP_SOCK, BUS_APP, ARGUS_OBJ_UNIX, 120));
	add(t, ev_sys_enter(ts + 7000, relay_pid, RELAY, T_POLL));
	add(t, ev_switch(ts + 8000, relay_pid, RELAY, 1, BUS, BUS));
	add(t, ev_ipc(ts + 9000, false, BUS, BUS, BUS_APP, APP_SOCK, ARGUS_OBJ_UNIX, 120));
	add(t, ev_ipc(ts + 10000, true, BUS, BUS, BUS_SVC, SVC_SOCK, ARGUS_OBJ_UNIX, 160));
	add(t, ev_sys_enter(ts + 11000, BUS, BUS, T_EPOLL_WAIT));
	add(t, ev_switch(ts + 12000, BUS, BUS, 1, 0, 0));
}

static void call(struct trace *t, uint64_t ts, uint32_t relay_pid)
{
	call_as(t, ts, relay_pid, true);
}

static uint32_t diagnose_as(struct trace *t, uint64_t since, struct argus_diagnosis *d,
                            uint8_t cause)
{
	struct argus_graph *g;
	ASSERT_EQ(argus_graph_new(&g, NULL), 0);
	struct argus_event comms[] = {ev_comm(1, APP, APP, "text-editor"),
	                              ev_comm(2, BUS, BUS, "dbus-daemon"),
	                              ev_comm(3, SVC, SVC, "a11y-launcher")};
	ASSERT_EQ(argus_graph_ingest(g, comms, 3), 0);
	struct argus_stall st = {.id = 1,
	                         .pid = APP,
	                         .tid = APP,
	                         .since = since,
	                         .detected = since + 2 * SEC,
	                         .cls = ARGUS_STALL_LONG_WAIT,
	                         .blocked = true,
	                         .wait_nr = T_POLL,
	                         .cause = cause};
	ASSERT_EQ(argus_graph_ingest(g, t->ev, t->n), 0);
	diag_run(g, &st, d);
	return d->ncandidates ? d->root.v.pid : 0;
}

static uint32_t diagnose(struct trace *t, uint64_t since, struct argus_diagnosis *d)
{
	return diagnose_as(t, since, d, ARGUS_CAUSE_INPUT);
}

TEST(handoff_through_relay_and_broker_names_the_stopped_service)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct argus_diagnosis *d = malloc(sizeof(*d));
	ASSERT(t && d);
	service(t, SEC / 2, true);
	call(t, SEC, APP);
	ASSERT_EQ(diagnose(t, SEC, d), SVC);
	ASSERT(d->root.v.flags & ARGUS_VF_STOPPED);
	ASSERT(diag_rule_used(d, "handoff"));
	free(t);
	free(d);
}

/* The default capture's records of the same call: the UI thread's
 * segment is cut at its wake-up of the relay, and the relay's eventfd read
 * is not seen (no IPC edge, a wake-up edge from the segment before the
 * wait's): still a hand-off (bench/realapps r12 live, 2026-11-26). */
TEST(handoff_seen_as_a_wakeup_in_the_default_capture_names_the_stopped_service)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct argus_diagnosis *d = malloc(sizeof(*d));
	ASSERT(t && d);
	service(t, SEC / 2, true);
	call_as(t, SEC, APP, false);
	ASSERT_EQ(diagnose(t, SEC, d), SVC);
	ASSERT(diag_rule_used(d, "handoff"));
	free(t);
	free(d);
}

/* The woken relay preempts the UI thread on its CPU and sends, and blocks
 * on the bus, before the UI thread's poll begins (the order of realapps
 * r10's and r12's hand-off in about one run of three): the wake-up is in
 * the wait's own segment all the same. */
TEST(handoff_with_the_relay_blocked_before_the_wait_began_names_the_stopped_service)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct argus_diagnosis *d = malloc(sizeof(*d));
	ASSERT(t && d);
	service(t, SEC / 2, true);
	uint64_t ts = SEC;
	hand_off(t, ts, APP);
	add(t, ev_switch(ts + 1000, APP, APP, 0 /* preempted */, APP, RELAY));
	add(t, ev_wakeup(ts + 2000, APP, RELAY, BUS, BUS, 0));
	add(t, ev_ipc(ts + 3000, true, APP, RELAY, APP_SOCK, BUS_APP, ARGUS_OBJ_UNIX, 120));
	add(t, ev_sys_enter(ts + 4000, APP, RELAY, T_POLL));
	add(t, ev_switch(ts + 5000, APP, RELAY, 1, APP, APP));
	add(t, ev_sys_enter(ts + 6000, APP, APP, T_POLL));
	add(t, ev_switch(ts + 7000, APP, APP, 1, BUS, BUS));
	add(t, ev_ipc(ts + 9000, false, BUS, BUS, BUS_APP, APP_SOCK, ARGUS_OBJ_UNIX, 120));
	add(t, ev_ipc(ts + 10000, true, BUS, BUS, BUS_SVC, SVC_SOCK, ARGUS_OBJ_UNIX, 160));
	add(t, ev_sys_enter(ts + 11000, BUS, BUS, T_EPOLL_WAIT));
	add(t, ev_switch(ts + 12000, BUS, BUS, 1, 0, 0));
	ASSERT_EQ(diagnose_as(t, SEC + 7000, d, ARGUS_CAUSE_LAUNCH), SVC);
	ASSERT(diag_rule_used(d, "handoff"));
	free(t);
	free(d);
}

/* The first hop is another process (a request, not a hand-off): ipc-peer's
 * business, not this rule's. */
TEST(handoff_needs_a_thread_of_the_same_process)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct argus_diagnosis *d = malloc(sizeof(*d));
	ASSERT(t && d);
	service(t, SEC / 2, true);
	call(t, SEC, 600);
	diagnose(t, SEC, d);
	ASSERT(!diag_rule_used(d, "handoff"));
	free(t);
	free(d);
}

/* Just before the hand-off the UI thread made a round trip to the display
 * server in a short poll of the same call (its segment before the wait's
 * ends in that poll, as if one read were split): the server took that
 * request, but the wait is for the relay woken from the wait's own segment
 * (bench/realapps r12, live 2026-11-26 08:00: the server was taken for the
 * hand-off's thread and no rule named the service). */
TEST(handoff_is_the_wait_segments_own_wakeup_not_an_earlier_round_trip)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct argus_diagnosis *d = malloc(sizeof(*d));
	ASSERT(t && d);
	service(t, SEC / 2, true);
	uint64_t ts = SEC - 3 * MS;
	add(t, ev_ipc(ts, true, APP, APP, X_CLI, X_SRV, ARGUS_OBJ_UNIX, 32));
	add(t, ev_sys_enter(ts + 1000, APP, APP, T_POLL));
	add(t, ev_switch(ts + 2000, APP, APP, 1, XSRV, XSRV));
	add(t, ev_ipc(ts + 3000, false, XSRV, XSRV, X_SRV, X_CLI, ARGUS_OBJ_UNIX, 32));
	add(t, ev_wakeup(ts + 4000, XSRV, XSRV, APP, APP, 0));
	add(t, ev_ipc(ts + 5000, true, XSRV, XSRV, X_SRV, X_CLI, ARGUS_OBJ_UNIX, 32));
	add(t, ev_switch(ts + 6000, XSRV, XSRV, 1, APP, APP));
	add(t, ev_ipc(ts + 7000, false, APP, APP, X_CLI, X_SRV, ARGUS_OBJ_UNIX, 32));
	call_as(t, SEC, APP, false);
	ASSERT_EQ(diagnose(t, SEC, d), SVC);
	ASSERT(diag_rule_used(d, "handoff"));
	free(t);
	free(d);
}

/* GLib's sync call in the default capture as gnome-text-editor makes it:
 * the relay, woken, first waits a few microseconds for a lock the UI thread
 * releases (a futex wake from the wait's segment) and sends in its next
 * segment (realapps r12, live 2026-11-26 08:10) */
enum { GLIB_LOCK = 0x7f0000003000 };

TEST(handoff_follows_the_relay_past_a_lock_the_waiter_passes_it)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct argus_diagnosis *d = malloc(sizeof(*d));
	ASSERT(t && d);
	service(t, SEC / 2, true);
	uint64_t ts = SEC;
	hand_off(t, ts, APP);
	/* the relay waits for the lock three times; the UI thread, in the
	 * wait's segment, releases it each time */
	for (uint64_t k = 0; k < 3; k++) {
		uint64_t at = ts + 1000 + k * 1000;
		struct argus_event f = ev_base(at, ARGUS_EV_FUTEX_WAIT, APP, RELAY);
		f.futex.uaddr = GLIB_LOCK;
		add(t, f);
		add(t, ev_switch(at + 100, APP, RELAY, 1, 0, 0));
		/* the default capture: the wake-up, then the waker's futex_wake
		 * record (same ts, noret) */
		add(t, ev_wakeup(at + 500, APP, APP, APP, RELAY, 0));
		struct argus_event w = ev_futex_wake(at + 500, APP, APP, GLIB_LOCK, 1);
		w.flags |= ARGUS_F_NORET;
		add(t, w);
		add(t, ev_sys_exit(at + 800, APP, RELAY, T_FUTEX, 0));
	}
	add(t, ev_sys_enter(ts + 4000, APP, APP, T_POLL));
	add(t, ev_switch(ts + 4500, APP, APP, 1, APP, RELAY));
	add(t, ev_wakeup(ts + 5000, APP, RELAY, BUS, BUS, 0));
	add(t, ev_ipc(ts + 6000, true, APP, RELAY, APP_SOCK, BUS_APP, ARGUS_OBJ_UNIX, 120));
	add(t, ev_sys_enter(ts + 7000, APP, RELAY, T_POLL));
	add(t, ev_switch(ts + 8000, APP, RELAY, 1, BUS, BUS));
	add(t, ev_ipc(ts + 9000, false, BUS, BUS, BUS_APP, APP_SOCK, ARGUS_OBJ_UNIX, 120));
	add(t, ev_ipc(ts + 10000, true, BUS, BUS, BUS_SVC, SVC_SOCK, ARGUS_OBJ_UNIX, 160));
	add(t, ev_sys_enter(ts + 11000, BUS, BUS, T_EPOLL_WAIT));
	add(t, ev_switch(ts + 12000, BUS, BUS, 1, 0, 0));
	ASSERT_EQ(diagnose(t, SEC, d), SVC);
	ASSERT(diag_rule_used(d, "handoff"));
	free(t);
	free(d);
}

/* A launch stall whose call was made once before and answered (the bus
 * replied to the relay, the relay woke the UI thread): compare takes that
 * run as the baseline and blames the bus, which answered then and forwards
 * now. A call made at start-up is no repeat of an earlier one: for a
 * launch stall's own wait handoff is asked before compare (realapps r12,
 * sess's run of 2026-11-26 08:09: dbus-daemon "ran epoll_wait but did not
 * wake the waiting thread"). */
static void answered_call(struct trace *t, uint64_t ts)
{
	hand_off(t, ts, APP);
	add(t, ev_sys_enter(ts + 2000, APP, APP, T_POLL));
	add(t, ev_switch(ts + 3000, APP, APP, 1, APP, RELAY));
	add(t, ev_wakeup(ts + 5000, APP, RELAY, BUS, BUS, 0));
	add(t, ev_ipc(ts + 6000, true, APP, RELAY, APP_SOCK, BUS_APP, ARGUS_OBJ_UNIX, 120));
	add(t, ev_sys_enter(ts + 7000, APP, RELAY, T_POLL));
	add(t, ev_switch(ts + 8000, APP, RELAY, 1, BUS, BUS));
	add(t, ev_ipc(ts + 9000, false, BUS, BUS, BUS_APP, APP_SOCK, ARGUS_OBJ_UNIX, 120));
	add(t, ev_wakeup(ts + 10000, BUS, BUS, APP, RELAY, 0));
	add(t, ev_ipc(ts + 11000, true, BUS, BUS, BUS_APP, APP_SOCK, ARGUS_OBJ_UNIX, 64));
	add(t, ev_sys_enter(ts + 12000, BUS, BUS, T_EPOLL_WAIT));
	add(t, ev_switch(ts + 13000, BUS, BUS, 1, APP, RELAY));
	add(t, ev_ipc(ts + 14000, false, APP, RELAY, APP_SOCK, BUS_APP, ARGUS_OBJ_UNIX, 64));
	add(t, ev_wakeup(ts + 15000, APP, RELAY, APP, APP, 0));
	struct argus_event e =
	    ev_ipc(ts + 15000, true, APP, RELAY, EFD_UI, 0, ARGUS_OBJ_EVENTFD, 8);
	e.flags |= ARGUS_F_NORET;
	add(t, e);
	add(t, ev_sys_enter(ts + 16000, APP, RELAY, T_POLL));
	add(t, ev_switch(ts + 17000, APP, RELAY, 1, APP, APP));
	add(t, ev_sys_exit(ts + 18000, APP, APP, T_POLL, 1));
}

TEST(handoff_decides_a_launch_stall_before_compare)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct argus_diagnosis *d = malloc(sizeof(*d));
	ASSERT(t && d);
	service(t, SEC / 2, false);
	answered_call(t, SEC / 2 + 200 * MS);
	add(t, ev_wakeup(SEC / 2 + 300 * MS, SHELL, SHELL, SVC, SVC, 0));
	add(t, ev_switch(SEC / 2 + 300 * MS + 1000, SVC, SVC, 4 /* __TASK_STOPPED */, 0, 0));
	call_as(t, SEC, APP, false);
	/* the bus serves another client during the stall: it runs */
	for (uint64_t k = 1; k <= 3; k++) {
		uint64_t at = SEC + k * 300 * MS;
		add(t, ev_wakeup(at, SHELL, SHELL, BUS, BUS, 0));
		add(t, ev_switch(at + 1000, SHELL, SHELL, 1, BUS, BUS));
		add(t, ev_sys_exit(at + 2000, BUS, BUS, T_EPOLL_WAIT, 1));
		add(t, ev_sys_enter(at + 3000, BUS, BUS, T_EPOLL_WAIT));
		add(t, ev_switch(at + 4000, BUS, BUS, 1, 0, 0));
	}
	ASSERT_EQ(diagnose_as(t, SEC, d, ARGUS_CAUSE_LAUNCH), SVC);
	ASSERT(diag_rule_used(d, "handoff"));
	free(t);
	free(d);
}

TEST_MAIN(
    TEST_ENTRY(handoff_through_relay_and_broker_names_the_stopped_service),
    TEST_ENTRY(handoff_decides_a_launch_stall_before_compare),
    TEST_ENTRY(handoff_follows_the_relay_past_a_lock_the_waiter_passes_it),
    TEST_ENTRY(handoff_is_the_wait_segments_own_wakeup_not_an_earlier_round_trip),
    TEST_ENTRY(handoff_seen_as_a_wakeup_in_the_default_capture_names_the_stopped_service),
    TEST_ENTRY(handoff_with_the_relay_blocked_before_the_wait_began_names_the_stopped_service),
    TEST_ENTRY(handoff_needs_a_thread_of_the_same_process))
