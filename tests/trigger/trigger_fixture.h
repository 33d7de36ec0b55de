/*
 * trigger_fixture.h - the stall trigger's tests' fixture: an X server (Xorg,
 * pid 10) and a GUI app (pid 20, UI thread 20) talking over a display
 * socket pair, and the event builders the test_trigger*.c files share (one
 * process per test, so the trigger and its record are per process).
 */
#ifndef ARGUS_TRIGGER_FIXTURE_H
#define ARGUS_TRIGGER_FIXTURE_H

#include <string.h>

#include "test.h"
#include "trigger.h"

#define MS  1000000ull
#define SEC 1000000000ull
#define T0  (100 * SEC)

enum { XPID = 10, APP = 20, OTHER = 21 };
#define SRV_SOCK 0xffff000000001000ull
#define CLI_SOCK 0xffff000000002000ull

struct rec {
	struct argus_stall stalls[8];
	struct argus_stall ends[8];
	struct argus_lag lags[8];
	int nstalls, nends, nlags;
};

static inline void on_stall(void *arg, const struct argus_stall *s)
{
	struct rec *r = arg;
	if (r->nstalls < 8)
		r->stalls[r->nstalls] = *s;
	r->nstalls++;
}
static inline void on_end(void *arg, const struct argus_stall *s)
{
	struct rec *r = arg;
	if (r->nends < 8)
		r->ends[r->nends] = *s;
	r->nends++;
}
static inline void on_lag(void *arg, const struct argus_lag *l)
{
	struct rec *r = arg;
	if (r->nlags < 8)
		r->lags[r->nlags] = *l;
	r->nlags++;
}

static inline struct argus_event ev(uint64_t ts, uint16_t type, uint32_t pid, uint32_t tid)
{
	struct argus_event e;
	memset(&e, 0, sizeof(e));
	e.ts = ts;
	e.type = type;
	e.pid = pid;
	e.tid = tid;
	return e;
}

static struct argus_trigger *t;
static struct rec rec;

static inline void feed(struct argus_event e)
{
	ASSERT_EQ(argus_trigger_feed(t, &e, 1), 0);
}

static inline void app_started(void);
static inline void app_read_nothing(uint64_t ts, uint64_t dur_ns);

static inline void setup(bool exec_app)
{
	memset(&rec, 0, sizeof(rec));
	struct argus_trigger_cb cb = {on_stall, on_end, on_lag, &rec};
	ASSERT_EQ(argus_trigger_new(&t, NULL, &cb), 0);
	struct argus_event e = ev(exec_app ? T0 : T0 - SEC, ARGUS_EV_COMM, XPID, XPID);
	strcpy(e.comm.comm, "Xorg");
	e.comm.is_process = 1;
	feed(e);
	e = ev(exec_app ? T0 : T0 - SEC, exec_app ? ARGUS_EV_PROC_EXEC : ARGUS_EV_COMM, APP, APP);
	strcpy(exec_app ? e.exec.comm : e.comm.comm, "gedit");
	if (!exec_app)
		e.comm.is_process = 1;
	feed(e);
}

/* setup(false) and the app's UI thread idle in its loop since T0 - 1 s */
static inline void setup_started(void)
{
	setup(false);
	app_started();
}

static inline void teardown(void)
{
	argus_trigger_free(t);
	t = NULL;
}

/* the server writes input on the client's connection */
static inline void x_send(uint64_t ts)
{
	struct argus_event e = ev(ts, ARGUS_EV_IPC_SEND, XPID, XPID);
	e.ipc.obj = SRV_SOCK;
	e.ipc.peer_obj = CLI_SOCK;
	e.ipc.obj_kind = ARGUS_OBJ_UNIX; /* an X server: unix is enough */
	e.ipc.ret = 32;
	feed(e);
}

/* the app connects to the display and says hello */
static inline void app_connects(uint64_t ts)
{
	struct argus_event e = ev(ts, ARGUS_EV_IPC_SEND, APP, APP);
	e.ipc.obj = CLI_SOCK;
	e.ipc.peer_obj = SRV_SOCK;
	e.ipc.obj_kind = ARGUS_OBJ_DISPLAY;
	feed(e);
}

/* the server reads the app's request */
static inline void server_reads(uint64_t ts)
{
	struct argus_event r = ev(ts, ARGUS_EV_IPC_RECV, XPID, XPID);
	r.ipc.obj = SRV_SOCK;
	r.ipc.peer_obj = CLI_SOCK;
	r.ipc.obj_kind = ARGUS_OBJ_UNIX;
	r.ipc.ret = 32;
	feed(r);
}

/* the app reads its display connection */
static inline void app_read(uint64_t ts, uint32_t tid)
{
	struct argus_event e = ev(ts, ARGUS_EV_IPC_RECV, APP, tid);
	e.ipc.obj = CLI_SOCK;
	e.ipc.peer_obj = SRV_SOCK;
	e.ipc.obj_kind = ARGUS_OBJ_UNIX;
	e.ipc.ret = 32;
	feed(e);
}

static inline void sys_enter(uint64_t ts, uint32_t tid, uint16_t nr, int64_t arg0)
{
	struct argus_event e = ev(ts, ARGUS_EV_SYS_ENTER, APP, tid);
	e.sys_enter.nr = nr;
	e.sys_enter.arg0 = arg0;
	e.sys_enter.fd = -1;
	feed(e);
}

static inline void block(uint64_t ts, uint32_t tid)
{
	struct argus_event e = ev(ts, ARGUS_EV_SCHED_SWITCH, APP, tid);
	e.sched_switch.prev_state = 1;
	feed(e);
}

static inline void wake(uint64_t ts, uint32_t tid)
{
	struct argus_event e = ev(ts, ARGUS_EV_SCHED_SWITCH, 0, 0);
	e.sched_switch.next_pid = APP;
	e.sched_switch.next_tid = tid;
	feed(e);
}

static inline void hook(uint64_t ts, uint16_t type)
{
	struct argus_event e = ev(ts, type, APP, APP);
	e.flags = ARGUS_F_HOOK;
	feed(e);
}

/* time passes: another process's events */
static inline void tick_until(uint64_t from, uint64_t to)
{
	for (uint64_t ts = from; ts <= to; ts += 10 * MS)
		feed(ev(ts, ARGUS_EV_SYS_EXIT, 99, 99));
}

/* the UI thread's loop: idle in poll, woken by input, reads, handles */
static inline void one_click(uint64_t ts, uint64_t handler_ns)
{
	x_send(ts);
	wake(ts + 10000, APP);
	hook(ts + 20000, ARGUS_EV_DISPATCH_BEGIN);
	app_read(ts + 30000, APP);
	tick_until(ts + 40000, ts + handler_ns);
	hook(ts + handler_ns + 1000, ARGUS_EV_DISPATCH_END);
	sys_enter(ts + handler_ns + 2000, APP, 7, -1);
	block(ts + handler_ns + 3000, APP);
}

/* An app running before the test: its UI thread read its window's first
 * events and has sat idle in its loop's poll since (a thread never idle in
 * its loop is starting up: no stall). */
static inline void app_started(void)
{
	x_send(T0 - SEC + MS);
	app_read(T0 - SEC + 2 * MS, APP);
	app_read_nothing(T0 - SEC + 2 * MS + 1000, 500);
	sys_enter(T0 - SEC + 3 * MS, APP, 7, -1);
	block(T0 - SEC + 3 * MS + 1000, APP);
	wake(T0 - 500 * MS, APP); /* a timer of its loop */
	sys_enter(T0 - 500 * MS + 1000, APP, 7, -1);
	block(T0 - 500 * MS + 2000, APP);
}

/* a read of the display connection that found nothing (EAGAIN), begun at
 * ts - dur_ns */
static inline void app_read_nothing(uint64_t ts, uint64_t dur_ns)
{
	struct argus_event e = ev(ts, ARGUS_EV_IPC_RECV, APP, APP);
	e.ipc.obj = CLI_SOCK;
	e.ipc.peer_obj = SRV_SOCK;
	e.ipc.obj_kind = ARGUS_OBJ_UNIX;
	e.ipc.ret = -11;
	e.ipc.dur_ns = dur_ns;
	feed(e);
}

/* an app without hooks reads its first input and goes back to its poll */
static inline void first_input(uint64_t ts)
{
	x_send(ts);
	wake(ts + 10000, APP);
	app_read(ts + 20000, APP);
	app_read_nothing(ts + 30000, 1000);
	sys_enter(ts + 40000, APP, 7, -1);
	block(ts + 50000, APP);
}

/* Qt's shape: the event thread (OTHER, QXcbEventQueue) reads X and wakes the
 * main thread (APP) through the eventfd of its dispatcher; the main thread
 * reads the eventfd and handles the events. */
#define WAKE_FD 0xffff000000003000ull

static inline void ipc(uint64_t ts, uint16_t type, uint32_t tid, uint64_t obj, uint8_t kind, int64_t ret)
{
	struct argus_event e = ev(ts, type, APP, tid);
	e.ipc.obj = obj;
	e.ipc.obj_kind = kind;
	e.ipc.ret = ret;
	e.ipc.dur_ns = 0;
	feed(e);
}

static inline void sys_exit(uint64_t ts, uint32_t tid, uint16_t nr, int64_t ret)
{
	struct argus_event e = ev(ts, ARGUS_EV_SYS_EXIT, APP, tid);
	e.sys_exit.nr = nr;
	e.sys_exit.ret = ret;
	e.sys_exit.fd = -1;
	feed(e);
}

/* input arrives; the event thread reads it, relays it and polls again */
static inline void qt_relay(uint64_t ts)
{
	x_send(ts);
	wake(ts + 10000, OTHER);
	app_read(ts + 20000, OTHER);
	ipc(ts + 30000, ARGUS_EV_IPC_SEND, OTHER, WAKE_FD, ARGUS_OBJ_EVENTFD, 8);
	sys_enter(ts + 40000, OTHER, 7, -1);
	block(ts + 50000, OTHER);
}

/* the main thread takes the wake-up: its loop's zero-timeout polls (they
 * find the eventfd ready), the eventfd read, the events handled for
 * handler_ns, then its loop's wait */
static inline void qt_main_handles(uint64_t ts, uint64_t handler_ns)
{
	wake(ts, APP);
	sys_enter(ts + 1000, APP, 7, 0);
	sys_exit(ts + 2000, APP, 7, 1);
	ipc(ts + 3000, ARGUS_EV_IPC_RECV, APP, WAKE_FD, ARGUS_OBJ_EVENTFD, 8);
	tick_until(ts + 10000, ts + handler_ns);
	sys_enter(ts + handler_ns + 1000, APP, 7, -1);
	block(ts + handler_ns + 2000, APP);
}

/* the app starts up: the main thread reads replies on the X connection
 * itself (it waited for them), and its dispatcher's eventfd */
static inline void qt_start(void)
{
	x_send(T0 + MS);
	app_read(T0 + MS + 10000, APP);
	sys_enter(T0 + MS + 20000, APP, 7, -1);
	block(T0 + MS + 30000, APP);
	qt_relay(T0 + 10 * MS);
	qt_main_handles(T0 + 10 * MS + 100000, 2 * MS);
}

/* The default capture (no syscall tracepoint): the event thread's eventfd
 * write is seen only where it wakes the main thread, as the waker's call
 * after its wake-up (ARGUS_F_NORET, same ts), and the main thread's eventfd
 * reads, which never block, not at all: the wake-up names the reader. */
static inline void qt_relay_default(uint64_t ts, bool main_waits)
{
	x_send(ts);
	wake(ts + 10000, OTHER);
	app_read(ts + 20000, OTHER);
	if (main_waits) {
		struct argus_event w = ev(ts + 30000, ARGUS_EV_SCHED_WAKEUP, APP, OTHER);
		w.wakeup.wakee_pid = APP;
		w.wakeup.wakee_tid = APP;
		feed(w);
		struct argus_event e = ev(ts + 30000, ARGUS_EV_IPC_SEND, APP, OTHER);
		e.flags = ARGUS_F_NORET;
		e.ipc.obj = WAKE_FD;
		e.ipc.obj_kind = ARGUS_OBJ_EVENTFD;
		e.ipc.ret = 8;
		feed(e);
	}
	sys_enter(ts + 40000, OTHER, 7, -1);
	block(ts + 50000, OTHER);
}

/* A windowless X client (xdotool): pid 30, its own connection. */
enum { TOOL = 30 };
#define TOOL_SRV 0xffff000000004000ull
#define TOOL_CLI 0xffff000000005000ull

static inline void tool_ipc(uint64_t ts, uint16_t type, uint32_t pid, uint64_t obj, uint64_t peer)
{
	struct argus_event e = ev(ts, type, pid, pid);
	e.ipc.obj = obj;
	e.ipc.peer_obj = peer;
	e.ipc.obj_kind = ARGUS_OBJ_UNIX;
	e.ipc.ret = 32;
	feed(e);
}

/* the tool asks, the server reads the request and answers */
static inline void tool_request(uint64_t ts)
{
	tool_ipc(ts, ARGUS_EV_IPC_SEND, TOOL, TOOL_CLI, TOOL_SRV);
	tool_ipc(ts + 10000, ARGUS_EV_IPC_RECV, XPID, TOOL_SRV, TOOL_CLI);
	tool_ipc(ts + 20000, ARGUS_EV_IPC_SEND, XPID, TOOL_SRV, TOOL_CLI);
}

/* The X server's own connection to the system bus (Xorg asks logind for
 * devices): it connected there (the kext names dbus-daemon as the
 * listener), so what it sends is no input and the bus daemon, stopped or
 * slow to read, is never the stalled app. An app's connection still is. */
enum { BUS = 40 };
#define X_BUS_CLI 0xffff000000006000ull
#define BUS_END 0xffff000000006800ull

/* Busy without a wait. A key press: the server read a device (not the
 * app's request) and writes the event to the app's connection. */
static inline void key_event(uint64_t ts)
{
	struct argus_event r = ev(ts, ARGUS_EV_IPC_RECV, XPID, XPID);
	r.ipc.obj = SRV_SOCK;
	r.ipc.peer_obj = 0xffff00000000d000ull; /* another client, a device */
	r.ipc.obj_kind = ARGUS_OBJ_UNIX;
	r.ipc.ret = 32;
	feed(r);
	x_send(ts + 1000);
}

/* the app's UI thread enters a poll of the display connection alone (a
 * round trip's, as the kext records it: one fd, its object) */
static inline void poll_display(uint64_t ts)
{
	struct argus_event e = ev(ts, ARGUS_EV_SYS_ENTER, APP, APP);
	e.sys_enter.nr = 7;
	e.sys_enter.arg0 = -1;
	e.sys_enter.arg1 = 1;
	e.sys_enter.fd = 3;
	e.sys_enter.obj = CLI_SOCK;
	e.sys_enter.obj_kind = ARGUS_OBJ_UNIX;
	feed(e);
}

/* ... a poll of its loop: several fds (its wake-up fd, the display, a
 * timer), no one object */
static inline void poll_loop(uint64_t ts, int64_t timeout_ns)
{
	struct argus_event e = ev(ts, ARGUS_EV_SYS_ENTER, APP, APP);
	e.sys_enter.nr = 7;
	e.sys_enter.arg0 = timeout_ns;
	e.sys_enter.arg1 = 3;
	e.sys_enter.fd = -1;
	feed(e);
}

/* the app asks the server something and waits for the reply: a poll on
 * the display connection alone, woken by the reply after wait_ns */
static inline void round_trip(uint64_t ts, uint64_t wait_ns)
{
	app_connects(ts); /* the request */
	server_reads(ts + 1000);
	poll_display(ts + 2000);
	block(ts + 3000, APP);
	x_send(ts + 3000 + wait_ns); /* the reply */
	wake(ts + 4000 + wait_ns, APP);
	app_read(ts + 5000 + wait_ns, APP);
}

/* An app idle in its loop since its first input gets a key at b and reads
 * it: where the busy tests' work starts. */
static inline void app_reads_a_key(uint64_t b)
{
	app_connects(T0 + MS);
	first_input(T0 + 10 * MS);
	key_event(b);
	wake(b + 5000, APP);
	app_read(b + 10000, APP);
}

/* Work on CPU from `from` to `to` that makes a round trip each 10 ms
 * (waiting wait_ns for each reply) and reads the key a user presses each
 * 500 ms after b. */
static inline void keyed_round_trips(uint64_t b, uint64_t from, uint64_t to, uint64_t wait_ns)
{
	for (uint64_t ts = from; ts < to; ts += 10 * MS) {
		if ((ts - b) % (500 * MS) == 0) {
			key_event(ts);
			app_read(ts + 2000, APP);
		}
		round_trip(ts + 3000, wait_ns);
	}
}

#define TCL_COND 0x7f0000001000ull
#define APP_LOCK 0x7f0000002000ull

static inline void futex_wait(uint64_t ts, uint32_t tid, uint64_t uaddr)
{
	struct argus_event e = ev(ts, ARGUS_EV_FUTEX_WAIT, APP, tid);
	e.futex.uaddr = uaddr;
	e.futex.timeout_ns = -1;
	feed(e);
}

/* threaded Tcl: the main thread idles on a condition variable; the
 * notifier thread (OTHER) selects on the X socket and signals it; the main
 * thread wakes, reads X and handles the event for handler_ns, then waits
 * on the condition again: on the other of glibc's two signal words
 * (__g_signals[0], [1]) each time, as recorded live */
static inline void tk_click(uint64_t ts, uint64_t handler_ns)
{
	static unsigned group;
	x_send(ts);
	wake(ts + 10000, APP);
	app_read(ts + 20000, APP);
	tick_until(ts + 30000, ts + handler_ns);
	futex_wait(ts + handler_ns + 1000, APP, TCL_COND + 4 * (++group & 1));
	block(ts + handler_ns + 2000, APP);
}

/* libdbus's blocking call polls the bus socket alone: a launch stall;
 * a poll on its own wake-up eventfd alone is its loop (Qt's dispatcher) */
static inline void launch_poll_on(uint8_t kind, uint64_t obj)
{
	app_connects(T0 + MS);
	struct argus_event e = ev(T0 + 2 * MS, ARGUS_EV_SYS_ENTER, APP, APP);
	e.sys_enter.nr = 7;
	e.sys_enter.arg0 = -1;
	e.sys_enter.fd = 5;
	e.sys_enter.obj = obj;
	e.sys_enter.obj_kind = kind;
	feed(e);
	block(T0 + 2 * MS + 100, APP);
	tick_until(T0 + 3 * MS, T0 + 5 * SEC);
}

/* A socket the kernel gives the address of a closed one: gedit's
 * accessibility bridge (libatspi) opens an X connection of its own, reads
 * the root window, closes it and connects to the bus, whose new socket
 * has the X connection's address; its blocking GetAddress call polls
 * that socket alone (bench/realapps r1, r13). The connect record starts a
 * new connection: the poll is on a peer, not on the display. */
#define REUSED_SOCK 0xffff00000000b000ull
#define SRV_SOCK2 0xffff00000000b800ull

/* GTK's synchronous GDBus call at start-up: the main thread wakes its
 * gdbus thread through that thread's eventfd (the default capture: the
 * send after the wake-up, same ts, noret) and polls the call's own eventfd
 * alone: waiting for the worker's answer, a launch stall (bench/realapps
 * r12); the same poll with no hand-off before it is the loop's idle wait */
enum { GDBUS = 22 };
#define GDBUS_EFD 0xffff000000009000ull
#define CALL_EFD 0xffff00000000a000ull

/* The X server wrote to a short-lived client (xdotool) at an address that,
 * once that client closed, the kernel gave a windowless D-Bus service's new
 * bus socket (dconf-service, activated while the desktop runs: its connect
 * record at the first send names the bus as the listener). */
#define OLD_X_CLI 0xffff00000000c000ull
#define OLD_X_SRV 0xffff00000000c800ull

static inline void service_connects_at_a_closed_clients_address(uint64_t ts)
{
	struct argus_event e = ev(ts - 1000, ARGUS_EV_IPC_RECV, XPID, XPID); /* its request */
	e.ipc.obj = OLD_X_SRV;
	e.ipc.peer_obj = OLD_X_CLI;
	e.ipc.obj_kind = ARGUS_OBJ_UNIX;
	e.ipc.ret = 32;
	feed(e);
	e = ev(ts, ARGUS_EV_IPC_SEND, XPID, XPID); /* the reply */
	e.ipc.obj = OLD_X_SRV;
	e.ipc.peer_obj = OLD_X_CLI;
	e.ipc.obj_kind = ARGUS_OBJ_UNIX;
	e.ipc.ret = 32;
	feed(e);
	e = ev(ts + MS, ARGUS_EV_SYS_ENTER, APP, APP);
	e.sys_enter.nr = 42;
	e.sys_enter.obj = OLD_X_CLI;
	e.sys_enter.peer_obj = OLD_X_SRV;
	e.sys_enter.obj_kind = ARGUS_OBJ_UNIX;
	e.sys_enter.arg0 = 30;
	e.sys_enter.fd = 5;
	feed(e);
	e = ev(ts + MS, ARGUS_EV_IPC_SEND, APP, APP);
	e.ipc.obj = OLD_X_CLI;
	e.ipc.peer_obj = OLD_X_SRV;
	e.ipc.obj_kind = ARGUS_OBJ_UNIX;
	e.ipc.ret = 128;
	feed(e);
}

static inline void launch_after_handoff_from(bool handoff, bool service)
{
	if (service)
		service_connects_at_a_closed_clients_address(T0 + MS / 2);
	else
		app_connects(T0 + MS);
	if (handoff) {
		struct argus_event w = ev(T0 + MS + 500, ARGUS_EV_SCHED_WAKEUP, APP, APP);
		w.wakeup.wakee_pid = APP;
		w.wakeup.wakee_tid = GDBUS;
		feed(w);
		struct argus_event e = ev(T0 + MS + 500, ARGUS_EV_IPC_SEND, APP, APP);
		e.flags = ARGUS_F_NORET;
		e.ipc.obj = GDBUS_EFD;
		e.ipc.obj_kind = ARGUS_OBJ_EVENTFD;
		e.ipc.ret = 8;
		feed(e);
	}
	struct argus_event e = ev(T0 + 2 * MS, ARGUS_EV_SYS_ENTER, APP, APP);
	e.sys_enter.nr = 7;
	e.sys_enter.arg0 = 25 * (int64_t)SEC; /* the call's timeout */
	e.sys_enter.fd = 9;
	e.sys_enter.obj = CALL_EFD;
	e.sys_enter.obj_kind = ARGUS_OBJ_EVENTFD;
	feed(e);
	block(T0 + 2 * MS + 100, APP);
	tick_until(T0 + 3 * MS, T0 + 5 * SEC);
}

static inline void launch_after_handoff(bool handoff)
{
	launch_after_handoff_from(handoff, false);
}

/* A daemon's client (pid 50, "argus stream") connects at the address the
 * kernel reused from a GUI client's closed display connection, whose end
 * was not seen (its exit record lost), then waits for the daemon's
 * messages in a read: it has no display connection, never a stall (a live
 * run named "argus stream" as a stalled app, from its 2 s read). */
enum { STREAMER = 50, DAEMON = 60 };
#define DAEMON_END 0xffff000000007000ull

/* the server reads a request of another client (pid 30's end) */
static inline void server_reads_other(uint64_t ts)
{
	struct argus_event r = ev(ts, ARGUS_EV_IPC_RECV, XPID, XPID);
	r.ipc.obj = SRV_SOCK + 0x100;
	r.ipc.peer_obj = CLI_SOCK + 0x100;
	r.ipc.obj_kind = ARGUS_OBJ_UNIX;
	r.ipc.ret = 32;
	feed(r);
}

/* the app's UI thread writes a request and waits for its answer: a poll on
 * the display connection alone, answered after wait_ns (the server read
 * the request at once, then other clients' before it wrote the answer) */
static inline void round_trip_waited(uint64_t ts, uint64_t wait_ns)
{
	app_connects(ts); /* the request */
	server_reads(ts + 1000);
	server_reads_other(ts + 2000);
	poll_display(ts + 3000);
	block(ts + 4000, APP);
	x_send(ts + wait_ns);
	wake(ts + wait_ns + 1000, APP);
	app_read(ts + wait_ns + 2000, APP);
}

#endif /* ARGUS_TRIGGER_FIXTURE_H */
