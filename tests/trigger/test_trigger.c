/*
 * test_trigger.c - the stall trigger on hand-built event sequences: an X
 * server (Xorg, pid 10) and a GUI app (pid 20, UI thread 20) talking over a
 * display socket pair.
 */
#include <string.h>

#include "test.h"
#include "trigger.h"

#define MS  1000000ull
#define SEC 1000000000ull
#define T0  (100 * SEC)

enum { XPID = 10, APP = 20, OTHER = 21 };
static const uint64_t SRV_SOCK = 0xffff000000001000ull, CLI_SOCK = 0xffff000000002000ull;

struct rec {
	struct argus_stall stalls[8];
	struct argus_stall ends[8];
	struct argus_lag lags[8];
	int nstalls, nends, nlags;
};

static void on_stall(void *arg, const struct argus_stall *s)
{
	struct rec *r = arg;
	if (r->nstalls < 8)
		r->stalls[r->nstalls] = *s;
	r->nstalls++;
}
static void on_end(void *arg, const struct argus_stall *s)
{
	struct rec *r = arg;
	if (r->nends < 8)
		r->ends[r->nends] = *s;
	r->nends++;
}
static void on_lag(void *arg, const struct argus_lag *l)
{
	struct rec *r = arg;
	if (r->nlags < 8)
		r->lags[r->nlags] = *l;
	r->nlags++;
}

static struct argus_event ev(uint64_t ts, uint16_t type, uint32_t pid, uint32_t tid)
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

static void feed(struct argus_event e)
{
	ASSERT_EQ(argus_trigger_feed(t, &e, 1), 0);
}

static void app_started(void);
static void app_read_nothing(uint64_t ts, uint64_t dur_ns);

static void setup(bool exec_app)
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
static void setup_started(void)
{
	setup(false);
	app_started();
}

static void teardown(void)
{
	argus_trigger_free(t);
	t = NULL;
}

/* the server writes input on the client's connection */
static void x_send(uint64_t ts)
{
	struct argus_event e = ev(ts, ARGUS_EV_IPC_SEND, XPID, XPID);
	e.ipc.obj = SRV_SOCK;
	e.ipc.peer_obj = CLI_SOCK;
	e.ipc.obj_kind = ARGUS_OBJ_UNIX; /* an X server: unix is enough */
	e.ipc.ret = 32;
	feed(e);
}

/* the app connects to the display and says hello */
static void app_connects(uint64_t ts)
{
	struct argus_event e = ev(ts, ARGUS_EV_IPC_SEND, APP, APP);
	e.ipc.obj = CLI_SOCK;
	e.ipc.peer_obj = SRV_SOCK;
	e.ipc.obj_kind = ARGUS_OBJ_DISPLAY;
	feed(e);
}

/* the server reads the app's request */
static void server_reads(uint64_t ts)
{
	struct argus_event r = ev(ts, ARGUS_EV_IPC_RECV, XPID, XPID);
	r.ipc.obj = SRV_SOCK;
	r.ipc.peer_obj = CLI_SOCK;
	r.ipc.obj_kind = ARGUS_OBJ_UNIX;
	r.ipc.ret = 32;
	feed(r);
}

/* the app reads its display connection */
static void app_read(uint64_t ts, uint32_t tid)
{
	struct argus_event e = ev(ts, ARGUS_EV_IPC_RECV, APP, tid);
	e.ipc.obj = CLI_SOCK;
	e.ipc.peer_obj = SRV_SOCK;
	e.ipc.obj_kind = ARGUS_OBJ_UNIX;
	e.ipc.ret = 32;
	feed(e);
}

static void sys_enter(uint64_t ts, uint32_t tid, uint16_t nr, int64_t arg0)
{
	struct argus_event e = ev(ts, ARGUS_EV_SYS_ENTER, APP, tid);
	e.sys_enter.nr = nr;
	e.sys_enter.arg0 = arg0;
	e.sys_enter.fd = -1;
	feed(e);
}

static void block(uint64_t ts, uint32_t tid)
{
	struct argus_event e = ev(ts, ARGUS_EV_SCHED_SWITCH, APP, tid);
	e.sched_switch.prev_state = 1;
	feed(e);
}

static void wake(uint64_t ts, uint32_t tid)
{
	struct argus_event e = ev(ts, ARGUS_EV_SCHED_SWITCH, 0, 0);
	e.sched_switch.next_pid = APP;
	e.sched_switch.next_tid = tid;
	feed(e);
}

static void hook(uint64_t ts, uint16_t type)
{
	struct argus_event e = ev(ts, type, APP, APP);
	e.flags = ARGUS_F_HOOK;
	feed(e);
}

/* time passes: another process's events */
static void tick_until(uint64_t from, uint64_t to)
{
	for (uint64_t ts = from; ts <= to; ts += 10 * MS)
		feed(ev(ts, ARGUS_EV_SYS_EXIT, 99, 99));
}

/* the UI thread's loop: idle in poll, woken by input, reads, handles */
static void one_click(uint64_t ts, uint64_t handler_ns)
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
static void app_started(void)
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

TEST(finds_ui_thread_by_display_connection)
{
	setup(false);
	x_send(T0 + MS);
	app_read(T0 + 2 * MS, APP);
	struct argus_ui_thread u[4];
	ASSERT_EQ(argus_trigger_ui_threads(t, u, 4), 1);
	ASSERT_EQ(u[0].pid, APP);
	ASSERT_EQ(u[0].tid, APP);
	ASSERT_U64_EQ(u[0].conn, CLI_SOCK);
	struct argus_trigger_stats st;
	argus_trigger_get_stats(t, &st);
	ASSERT_EQ(st.gui_processes, 1);
	teardown();
}

TEST(long_running_handler_fires_once_and_records_end)
{
	setup_started();
	one_click(T0 + 10 * MS, 3 * SEC);
	tick_until(T0 + 4 * SEC, T0 + 6 * SEC);
	ASSERT_EQ(rec.nstalls, 1);
	ASSERT_EQ(rec.stalls[0].tid, APP);
	ASSERT_EQ(rec.stalls[0].cls, ARGUS_STALL_LONG_RUNNING);
	ASSERT_STR_EQ(rec.stalls[0].comm, "gedit");
	ASSERT_U64_EQ(rec.stalls[0].since, T0 + 10 * MS);
	ASSERT(rec.stalls[0].detected >= T0 + 10 * MS + 2 * SEC);
	ASSERT(rec.stalls[0].detected <= T0 + 10 * MS + 2 * SEC + 20 * MS);
	ASSERT_EQ(rec.nends, 1);
	ASSERT_U64_EQ(rec.ends[0].end, T0 + 10 * MS + 3 * SEC + 1000);
	ASSERT_EQ(rec.nlags, 1); /* the stalled episode is a lag too */
	teardown();
}

TEST(short_handlers_are_lags_not_stalls)
{
	setup(false);
	one_click(T0 + 10 * MS, 150 * MS); /* a lag */
	one_click(T0 + 500 * MS, 20 * MS); /* imperceptible */
	tick_until(T0 + 600 * MS, T0 + 5 * SEC);
	ASSERT_EQ(rec.nstalls, 0);
	ASSERT_EQ(rec.nlags, 1);
	ASSERT(rec.lags[0].end - rec.lags[0].start >= 150 * MS);
	teardown();
}

TEST(idle_ui_thread_never_fires)
{
	setup(false);
	one_click(T0 + 10 * MS, 5 * MS);
	tick_until(T0 + 20 * MS, T0 + 30 * SEC); /* idle in poll for 30 s */
	ASSERT_EQ(rec.nstalls, 0);
	teardown();
}

TEST(blocked_in_poll_on_another_fd_with_nothing_pending_never_fires)
{
	setup(false);
	one_click(T0 + 10 * MS, 5 * MS);
	sys_enter(T0 + 100 * MS, APP, 7, 10 * SEC); /* a poll on something else */
	block(T0 + 100 * MS + 1000, APP);
	tick_until(T0 + 101 * MS, T0 + 10 * SEC);
	ASSERT_EQ(rec.nstalls, 0);
	teardown();
}

TEST(input_unread_while_blocked_in_poll_fires_long_wait)
{
	setup(false);
	one_click(T0 + 10 * MS, 5 * MS);
	sys_enter(T0 + 100 * MS, APP, 7, 10 * SEC);
	block(T0 + 100 * MS + 1000, APP);
	x_send(T0 + 200 * MS); /* input arrives, the thread does not come back */
	tick_until(T0 + 201 * MS, T0 + 3 * SEC);
	ASSERT_EQ(rec.nstalls, 1);
	ASSERT_EQ(rec.stalls[0].cls, ARGUS_STALL_LONG_WAIT);
	ASSERT_EQ(rec.stalls[0].cause, ARGUS_CAUSE_INPUT);
	ASSERT_U64_EQ(rec.stalls[0].since, T0 + 200 * MS);
	ASSERT(rec.stalls[0].blocked);
	ASSERT_EQ(rec.stalls[0].wait_nr, 7);
	teardown();
}

/* a read of the display connection that found nothing (EAGAIN), begun at
 * ts - dur_ns */
static void app_read_nothing(uint64_t ts, uint64_t dur_ns)
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
static void first_input(uint64_t ts)
{
	x_send(ts);
	wake(ts + 10000, APP);
	app_read(ts + 20000, APP);
	app_read_nothing(ts + 30000, 1000);
	sys_enter(ts + 40000, APP, 7, -1);
	block(ts + 50000, APP);
}

TEST(input_read_before_its_send_was_stamped_is_not_pending)
{
	setup(false);
	first_input(T0 + 10 * MS);
	/* records are stamped at syscall exit: the app's read of the server's
	 * write is recorded before the write itself */
	wake(T0 + 100 * MS - 10000, APP);
	app_read(T0 + 100 * MS, APP);
	x_send(T0 + 100 * MS + 5000);
	app_read_nothing(T0 + 100 * MS + 10000, 1000); /* drained after it */
	sys_enter(T0 + 100 * MS + 11000, APP, 7, -1);
	block(T0 + 100 * MS + 12000, APP);
	tick_until(T0 + 101 * MS, T0 + 5 * SEC);
	ASSERT_EQ(rec.nstalls, 0);
	teardown();
}

TEST(input_sent_while_a_read_found_nothing_stays_pending)
{
	setup(false);
	first_input(T0 + 10 * MS);
	/* the read began before the write ended: its EAGAIN proves nothing */
	wake(T0 + 100 * MS - 10000, APP);
	x_send(T0 + 100 * MS);
	app_read_nothing(T0 + 100 * MS + 500, 1000);
	sys_enter(T0 + 100 * MS + 1000, APP, 7, 10 * SEC);
	block(T0 + 100 * MS + 2000, APP);
	tick_until(T0 + 101 * MS, T0 + 3 * SEC);
	ASSERT_EQ(rec.nstalls, 1);
	ASSERT_U64_EQ(rec.stalls[0].since, T0 + 100 * MS);
	teardown();
}

TEST(yield_loop_is_classified)
{
	setup_started();
	x_send(T0 + MS);
	hook(T0 + 2 * MS, ARGUS_EV_DISPATCH_BEGIN);
	app_read(T0 + 2 * MS + 100, APP);
	for (uint64_t ts = T0 + 3 * MS; ts < T0 + 2500 * MS; ts += MS) {
		sys_enter(ts, APP, 7, 0);        /* poll, zero timeout */
		sys_enter(ts + 500, APP, 24, 0); /* sched_yield */
	}
	ASSERT_EQ(rec.nstalls, 1);
	ASSERT_EQ(rec.stalls[0].cls, ARGUS_STALL_YIELD_LOOP);
	ASSERT(rec.stalls[0].yields >= 20);
	teardown();
}

TEST(dispatch_without_input_fires_dispatch_cause)
{
	setup(false);
	wake(T0 + MS, APP);
	hook(T0 + 2 * MS, ARGUS_EV_DISPATCH_BEGIN); /* e.g. a timer callback */
	tick_until(T0 + 3 * MS, T0 + 2100 * MS);
	ASSERT_EQ(rec.nstalls, 0); /* not yet a GUI thread: no display connection */
	teardown();

	setup(false);
	one_click(T0 + MS, 5 * MS); /* now it is one */
	wake(T0 + 100 * MS, APP);
	hook(T0 + 101 * MS, ARGUS_EV_DISPATCH_BEGIN);
	tick_until(T0 + 102 * MS, T0 + 2200 * MS);
	ASSERT_EQ(rec.nstalls, 1);
	ASSERT_EQ(rec.stalls[0].cause, ARGUS_CAUSE_DISPATCH);
	ASSERT_U64_EQ(rec.stalls[0].since, T0 + 101 * MS);
	teardown();
}

TEST(input_queued_during_a_stall_counts_from_its_end)
{
	setup(false);
	x_send(T0 + MS);
	wake(T0 + MS + 100, APP);
	hook(T0 + 2 * MS, ARGUS_EV_DISPATCH_BEGIN);
	app_read(T0 + 3 * MS, APP);
	x_send(T0 + 500 * MS); /* a second key press while it hangs */
	tick_until(T0 + 501 * MS, T0 + 3 * SEC);
	hook(T0 + 3 * SEC + 1000, ARGUS_EV_DISPATCH_END);
	hook(T0 + 3 * SEC + 2000, ARGUS_EV_DISPATCH_BEGIN);
	app_read(T0 + 3 * SEC + 3000, APP); /* handled at once */
	hook(T0 + 3 * SEC + 4000, ARGUS_EV_DISPATCH_END);
	tick_until(T0 + 3 * SEC + 10 * MS, T0 + 6 * SEC);
	ASSERT_EQ(rec.nstalls, 1);
	ASSERT_EQ(rec.nends, 1);
	teardown();
}

/* Qt's shape: the event thread (OTHER, QXcbEventQueue) reads X and wakes the
 * main thread (APP) through the eventfd of its dispatcher; the main thread
 * reads the eventfd and handles the events. */
static const uint64_t WAKE_FD = 0xffff000000003000ull;

static void ipc(uint64_t ts, uint16_t type, uint32_t tid, uint64_t obj, uint8_t kind, int64_t ret)
{
	struct argus_event e = ev(ts, type, APP, tid);
	e.ipc.obj = obj;
	e.ipc.obj_kind = kind;
	e.ipc.ret = ret;
	e.ipc.dur_ns = 0;
	feed(e);
}

static void sys_exit(uint64_t ts, uint32_t tid, uint16_t nr, int64_t ret)
{
	struct argus_event e = ev(ts, ARGUS_EV_SYS_EXIT, APP, tid);
	e.sys_exit.nr = nr;
	e.sys_exit.ret = ret;
	e.sys_exit.fd = -1;
	feed(e);
}

/* input arrives; the event thread reads it, relays it and polls again */
static void qt_relay(uint64_t ts)
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
static void qt_main_handles(uint64_t ts, uint64_t handler_ns)
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
static void qt_start(void)
{
	x_send(T0 + MS);
	app_read(T0 + MS + 10000, APP);
	sys_enter(T0 + MS + 20000, APP, 7, -1);
	block(T0 + MS + 30000, APP);
	qt_relay(T0 + 10 * MS);
	qt_main_handles(T0 + 10 * MS + 100000, 2 * MS);
}

TEST(qt_relay_idle_and_typing_never_fires)
{
	setup(false);
	qt_start();
	/* typing: each key read by the event thread, handled by the main
	 * one, which waits in its loop between them */
	for (uint64_t ts = T0 + 100 * MS; ts < T0 + 3 * SEC; ts += 40 * MS) {
		qt_relay(ts);
		qt_main_handles(ts + 100000, 3 * MS);
	}
	tick_until(T0 + 3 * SEC, T0 + 10 * SEC);
	ASSERT_EQ(rec.nstalls, 0);
	teardown();
}

TEST(qt_main_thread_hung_after_the_relay_fires_on_it)
{
	setup_started();
	qt_start();
	qt_relay(T0 + 100 * MS); /* the key whose handler hangs */
	wake(T0 + 100 * MS + 100000, APP);
	ipc(T0 + 100 * MS + 101000, ARGUS_EV_IPC_RECV, APP, WAKE_FD, ARGUS_OBJ_EVENTFD, 8);
	qt_relay(T0 + 300 * MS); /* another key, read and relayed */
	tick_until(T0 + 301 * MS, T0 + 3 * SEC);
	ASSERT_EQ(rec.nstalls, 1);
	ASSERT_EQ(rec.stalls[0].tid, APP);
	ASSERT_EQ(rec.stalls[0].cause, ARGUS_CAUSE_INPUT);
	ASSERT_U64_EQ(rec.stalls[0].since, T0 + 100 * MS);
	/* between two phases of the work it looks at its loop: the poll finds
	 * work at once (a nested processEvents), and the event thread relays
	 * what the server answered meanwhile: the same stall */
	sys_enter(T0 + 3 * SEC, APP, 7, -1);
	sys_exit(T0 + 3 * SEC + 1000, APP, 7, 1);
	qt_relay(T0 + 3 * SEC + 2000);
	tick_until(T0 + 3 * SEC + MS, T0 + 6 * SEC);
	ASSERT_EQ(rec.nstalls, 1);
	ASSERT_EQ(rec.nends, 0);
	/* back in its loop's wait: it ends there, the whole hang long */
	sys_enter(T0 + 6 * SEC + 20 * MS, APP, 7, -1);
	block(T0 + 6 * SEC + 21 * MS, APP);
	ASSERT_EQ(rec.nends, 1);
	ASSERT_U64_EQ(rec.ends[0].since, T0 + 100 * MS);
	ASSERT_U64_EQ(rec.ends[0].end, T0 + 6 * SEC + 20 * MS);
	teardown();
}

/* The default capture (no syscall tracepoint): the event thread's eventfd
 * write is seen only where it wakes the main thread, as the waker's call
 * after its wake-up (ARGUS_F_NORET, same ts), and the main thread's eventfd
 * reads, which never block, not at all: the wake-up names the reader. */
static void qt_relay_default(uint64_t ts, bool main_waits)
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

TEST(default_capture_qt_main_thread_hung_after_the_relay_fires_on_it)
{
	setup(false);
	x_send(T0 + MS);
	app_read(T0 + MS + 10000, APP);
	sys_enter(T0 + MS + 20000, APP, 7, -1);
	block(T0 + MS + 30000, APP);
	/* typing: each key woken into the main thread's loop, handled there */
	for (uint64_t ts = T0 + 10 * MS; ts < T0 + SEC; ts += 40 * MS) {
		qt_relay_default(ts, true);
		wake(ts + 100000, APP);
		sys_enter(ts + 101000, APP, 7, -1);
		block(ts + 3 * MS, APP);
	}
	tick_until(T0 + SEC, T0 + 4 * SEC);
	ASSERT_EQ(rec.nstalls, 0);
	/* the key whose handler blocks in the kernel (a call that is not
	 * recorded: access() on a stopped FUSE daemon), then keys relayed
	 * while it is blocked: they wake nobody */
	qt_relay_default(T0 + 4 * SEC, true);
	wake(T0 + 4 * SEC + 100000, APP);
	block(T0 + 4 * SEC + 200000, APP);
	qt_relay_default(T0 + 4 * SEC + 300 * MS, false);
	tick_until(T0 + 4 * SEC + 301 * MS, T0 + 7 * SEC);
	ASSERT_EQ(rec.nstalls, 1);
	ASSERT_EQ(rec.stalls[0].tid, APP);
	ASSERT_EQ(rec.stalls[0].cls, ARGUS_STALL_LONG_WAIT);
	ASSERT_U64_EQ(rec.stalls[0].since, T0 + 4 * SEC);
	teardown();
}

TEST(zero_timeout_polls_that_find_work_are_not_a_yield_loop)
{
	setup(false);
	one_click(T0 + MS, 5 * MS);
	x_send(T0 + 100 * MS);
	wake(T0 + 100 * MS + 100, APP);
	hook(T0 + 101 * MS, ARGUS_EV_DISPATCH_BEGIN);
	app_read(T0 + 102 * MS, APP);
	/* long work that looks at its sources between steps, finding some */
	for (uint64_t ts = T0 + 103 * MS; ts < T0 + 2500 * MS; ts += 5 * MS) {
		sys_enter(ts, APP, 7, 0);
		sys_exit(ts + 1000, APP, 7, 1);
	}
	ASSERT_EQ(rec.nstalls, 1);
	ASSERT_EQ(rec.stalls[0].cls, ARGUS_STALL_LONG_RUNNING);
	ASSERT_EQ(rec.stalls[0].zero_polls, 0);
	teardown();

	/* the same polls finding nothing: a spin */
	setup(false);
	one_click(T0 + MS, 5 * MS);
	x_send(T0 + 100 * MS);
	wake(T0 + 100 * MS + 100, APP);
	hook(T0 + 101 * MS, ARGUS_EV_DISPATCH_BEGIN);
	app_read(T0 + 102 * MS, APP);
	for (uint64_t ts = T0 + 103 * MS; ts < T0 + 2500 * MS; ts += 5 * MS) {
		sys_enter(ts, APP, 7, 0);
		sys_exit(ts + 1000, APP, 7, 0);
	}
	ASSERT_EQ(rec.nstalls, 1);
	ASSERT_EQ(rec.stalls[0].cls, ARGUS_STALL_YIELD_LOOP);
	teardown();
}

TEST(one_hang_with_a_brief_return_is_one_stall)
{
	setup(false);
	one_click(T0 + MS, 5 * MS);
	x_send(T0 + 100 * MS);
	wake(T0 + 100 * MS + 100, APP);
	hook(T0 + 101 * MS, ARGUS_EV_DISPATCH_BEGIN);
	app_read(T0 + 102 * MS, APP);
	x_send(T0 + 600 * MS); /* a key while it hangs */
	tick_until(T0 + 601 * MS, T0 + 3 * SEC);
	/* phase one done: back to the loop for a moment, the key still
	 * waiting; phase two begins at once */
	hook(T0 + 3 * SEC + 1000, ARGUS_EV_DISPATCH_END);
	hook(T0 + 3 * SEC + 2000, ARGUS_EV_DISPATCH_BEGIN);
	x_send(T0 + 3500 * MS); /* another key */
	tick_until(T0 + 3 * SEC + 10 * MS, T0 + 7 * SEC);
	hook(T0 + 7 * SEC + 1000, ARGUS_EV_DISPATCH_END);
	hook(T0 + 7 * SEC + 2000, ARGUS_EV_DISPATCH_BEGIN);
	app_read(T0 + 7 * SEC + 3000, APP); /* the keys, handled at once */
	hook(T0 + 7 * SEC + 4000, ARGUS_EV_DISPATCH_END);
	tick_until(T0 + 7 * SEC + 10 * MS, T0 + 10 * SEC);
	ASSERT_EQ(rec.nstalls, 1);
	ASSERT_EQ(rec.nends, 1);
	ASSERT_U64_EQ(rec.ends[0].since, T0 + 100 * MS);
	ASSERT_U64_EQ(rec.ends[0].end, T0 + 7 * SEC + 4000);
	teardown();
}

/* A windowless X client (xdotool): pid 30, its own connection. */
enum { TOOL = 30 };
static const uint64_t TOOL_SRV = 0xffff000000004000ull, TOOL_CLI = 0xffff000000005000ull;

static void tool_ipc(uint64_t ts, uint16_t type, uint32_t pid, uint64_t obj, uint64_t peer)
{
	struct argus_event e = ev(ts, type, pid, pid);
	e.ipc.obj = obj;
	e.ipc.peer_obj = peer;
	e.ipc.obj_kind = ARGUS_OBJ_UNIX;
	e.ipc.ret = 32;
	feed(e);
}

/* the tool asks, the server reads the request and answers */
static void tool_request(uint64_t ts)
{
	tool_ipc(ts, ARGUS_EV_IPC_SEND, TOOL, TOOL_CLI, TOOL_SRV);
	tool_ipc(ts + 10000, ARGUS_EV_IPC_RECV, XPID, TOOL_SRV, TOOL_CLI);
	tool_ipc(ts + 20000, ARGUS_EV_IPC_SEND, XPID, TOOL_SRV, TOOL_CLI);
}

TEST(a_windowless_x_client_is_never_the_stalled_app)
{
	setup_started();
	struct argus_event e = ev(T0, ARGUS_EV_COMM, TOOL, TOOL);
	strcpy(e.comm.comm, "xdotool");
	e.comm.is_process = 1;
	feed(e);
	tool_request(T0 + MS);
	tool_ipc(T0 + MS + 30000, ARGUS_EV_IPC_RECV, TOOL, TOOL_CLI, TOOL_SRV);
	/* it changes the keymap (the server tells it so) and sleeps between
	 * keys for 3 s, leaving what the server wrote unread */
	tool_request(T0 + 2 * MS);
	e = ev(T0 + 3 * MS, ARGUS_EV_SYS_ENTER, TOOL, TOOL);
	e.sys_enter.nr = 35; /* nanosleep */
	feed(e);
	tick_until(T0 + 4 * MS, T0 + 4 * SEC);
	ASSERT_EQ(rec.nstalls, 0);
	/* an app the server sends events to still stalls */
	x_send(T0 + 4 * SEC);
	tick_until(T0 + 4 * SEC + MS, T0 + 7 * SEC);
	app_read(T0 + 7 * SEC, APP); /* the reader known only now */
	x_send(T0 + 7 * SEC + MS);
	tick_until(T0 + 7 * SEC + 2 * MS, T0 + 10 * SEC);
	ASSERT_EQ(rec.nstalls, 1);
	ASSERT_STR_EQ(rec.stalls[0].comm, "gedit");
	teardown();
}

/* the same tool started inside the stream (launch stalls apply): it
 * connects, reads the replies to its requests, then sleeps 3 s between
 * actions before any window (xdotool sleep, key --delay): no launch stall
 * of a process that waits for no one */
TEST(a_windowless_x_client_sleeping_after_its_start_is_no_launch_stall)
{
	setup(false);
	struct argus_event e = ev(T0, ARGUS_EV_PROC_EXEC, TOOL, TOOL);
	strcpy(e.exec.comm, "xdotool");
	feed(e);
	tool_request(T0 + MS);
	tool_ipc(T0 + MS + 30000, ARGUS_EV_IPC_RECV, TOOL, TOOL_CLI, TOOL_SRV);
	e = ev(T0 + 2 * MS, ARGUS_EV_SYS_ENTER, TOOL, TOOL);
	e.sys_enter.nr = 230; /* clock_nanosleep */
	e.sys_enter.fd = -1;
	feed(e);
	e = ev(T0 + 2 * MS + 100, ARGUS_EV_SCHED_SWITCH, TOOL, TOOL);
	e.sched_switch.prev_state = 1;
	feed(e);
	tick_until(T0 + 3 * MS, T0 + 5 * SEC);
	ASSERT_EQ(rec.nstalls, 0);
	teardown();
}

/* The X server's own connection to the system bus (Xorg asks logind for
 * devices): it connected there (the kext names dbus-daemon as the
 * listener), so what it sends is no input and the bus daemon, stopped or
 * slow to read, is never the stalled app. An app's connection still is. */
enum { BUS = 40 };
static const uint64_t X_BUS_CLI = 0xffff000000006000ull, BUS_END = 0xffff000000006800ull;

TEST(a_bus_daemon_the_x_server_talks_to_is_never_the_stalled_app)
{
	setup_started();
	struct argus_event e = ev(T0, ARGUS_EV_COMM, BUS, BUS);
	strcpy(e.comm.comm, "dbus-daemon");
	e.comm.is_process = 1;
	feed(e);
	e = ev(T0 + MS, ARGUS_EV_SYS_ENTER, XPID, XPID);
	e.sys_enter.nr = 42; /* connect */
	e.sys_enter.obj = X_BUS_CLI;
	e.sys_enter.peer_obj = BUS_END;
	e.sys_enter.obj_kind = ARGUS_OBJ_UNIX;
	e.sys_enter.arg0 = BUS;
	e.sys_enter.fd = 9;
	feed(e);
	e = ev(T0 + MS, ARGUS_EV_SYS_EXIT, XPID, XPID);
	e.sys_exit.nr = 42;
	feed(e);
	/* the server's messages to the bus, the bus reading one, then the bus
	 * stopped with the next one unread */
	tool_ipc(T0 + 2 * MS, ARGUS_EV_IPC_SEND, XPID, X_BUS_CLI, BUS_END);
	tool_ipc(T0 + 3 * MS, ARGUS_EV_IPC_RECV, BUS, BUS_END, X_BUS_CLI);
	server_reads(T0 + 4 * MS); /* an app's request meanwhile */
	tool_ipc(T0 + 5 * MS, ARGUS_EV_IPC_SEND, XPID, X_BUS_CLI, BUS_END);
	tick_until(T0 + 6 * MS, T0 + 5 * SEC);
	ASSERT_EQ(rec.nstalls, 0);
	/* an app the server sends events to still stalls */
	x_send(T0 + 5 * SEC);
	app_read(T0 + 5 * SEC + 100, APP);
	tool_request(T0 + 5 * SEC + 200);
	x_send(T0 + 5 * SEC + MS);
	tick_until(T0 + 5 * SEC + 2 * MS, T0 + 8 * SEC);
	ASSERT_EQ(rec.nstalls, 1);
	ASSERT_STR_EQ(rec.stalls[0].comm, "gedit");
	teardown();
}

TEST(a_dispatching_reader_hands_its_input_to_no_worker)
{
	setup(false);
	/* GTK: the main thread reads X, draws, and wakes its GDBus worker
	 * (OTHER) through the worker's eventfd */
	ipc(T0 + MS, ARGUS_EV_IPC_RECV, OTHER, WAKE_FD, ARGUS_OBJ_EVENTFD, 8);
	x_send(T0 + 10 * MS);
	app_read(T0 + 11 * MS, APP);
	struct argus_event e = ev(T0 + 12 * MS, ARGUS_EV_IPC_SEND, APP, APP);
	e.ipc.obj = CLI_SOCK;
	e.ipc.peer_obj = SRV_SOCK;
	e.ipc.obj_kind = ARGUS_OBJ_UNIX;
	e.ipc.ret = 64;
	feed(e);
	ipc(T0 + 13 * MS, ARGUS_EV_IPC_SEND, APP, WAKE_FD, ARGUS_OBJ_EVENTFD, 8);
	sys_enter(T0 + 14 * MS, APP, 7, -1);
	block(T0 + 15 * MS, APP);
	/* the worker is busy a while: not the app's stall */
	tick_until(T0 + 16 * MS, T0 + 4 * SEC);
	ASSERT_EQ(rec.nstalls, 0);
	teardown();
}

TEST(a_hung_handler_that_looks_at_the_connection_is_one_stall)
{
	setup_started();
	first_input(T0 + 10 * MS);
	x_send(T0 + 100 * MS);
	wake(T0 + 100 * MS + 100, APP);
	app_read(T0 + 101 * MS, APP);
	/* 8 s of work that asks now and then whether input is waiting and
	 * finds none (it reads nothing), more input arriving meanwhile */
	tick_until(T0 + 102 * MS, T0 + SEC);
	for (uint64_t ts = T0 + 3 * SEC; ts < T0 + 8 * SEC; ts += 2 * SEC) {
		tick_until(ts - 2 * SEC + 300 * MS, ts);
		app_read_nothing(ts, 1000);
		x_send(ts + 100 * MS);
		app_read(ts + 200 * MS, APP);
	}
	tick_until(T0 + 7300 * MS, T0 + 8 * SEC);
	sys_enter(T0 + 8 * SEC, APP, 7, -1); /* back in its loop */
	block(T0 + 8 * SEC + 1000, APP);
	ASSERT_EQ(rec.nstalls, 1);
	ASSERT_EQ(rec.nends, 1);
	ASSERT_U64_EQ(rec.ends[0].end, T0 + 8 * SEC);
	teardown();
}

/* Busy without a wait. A key press: the server read a device (not the
 * app's request) and writes the event to the app's connection. */
static void key_event(uint64_t ts)
{
	struct argus_event r = ev(ts, ARGUS_EV_IPC_RECV, XPID, XPID);
	r.ipc.obj = SRV_SOCK;
	r.ipc.peer_obj = 0xffff00000000d000ull; /* another client, a device */
	r.ipc.obj_kind = ARGUS_OBJ_UNIX;
	r.ipc.ret = 32;
	feed(r);
	x_send(ts + 1000);
}

/* the app asks the server something and waits for the reply: a poll on
 * the display connection alone, woken by the reply after wait_ns */
static void round_trip(uint64_t ts, uint64_t wait_ns)
{
	app_connects(ts); /* the request */
	server_reads(ts + 1000);
	sys_enter(ts + 2000, APP, 7, -1);
	block(ts + 3000, APP);
	x_send(ts + 3000 + wait_ns); /* the reply */
	wake(ts + 4000 + wait_ns, APP);
	app_read(ts + 5000 + wait_ns, APP);
}

/* A handler working on CPU for 3 s (a big file laid out) that talks to the
 * server all along (round trips, events pumped and read): every read and
 * every reply's poll look like its loop to the episode rules, but it never
 * waits. AbiWord, geany, gedit on their big files (bench/realapps r6, r8,
 * r11). */
TEST(busy_handler_that_pumps_events_fires_busy_without_a_wait)
{
	setup(false);
	app_connects(T0 + MS);
	first_input(T0 + 10 * MS); /* then idle in its loop */
	const uint64_t B = T0 + 300 * MS;
	key_event(B);
	wake(B + 5000, APP);
	app_read(B + 10000, APP);
	for (uint64_t ts = B + 10 * MS; ts < B + 3000 * MS; ts += 10 * MS) {
		if ((ts - B) % (500 * MS) == 0) {
			key_event(ts); /* the user presses a key now and then */
			app_read(ts + 2000, APP);
		}
		round_trip(ts + 3000, 300000); /* 0.3 ms of each 10 ms waited */
	}
	sys_enter(B + 3000 * MS, APP, 7, -1); /* back in its loop: it waits */
	block(B + 3000 * MS + 1000, APP);
	tick_until(B + 3001 * MS, B + 5 * SEC);
	ASSERT_EQ(rec.nstalls, 1);
	ASSERT_EQ(rec.stalls[0].tid, APP);
	ASSERT_EQ(rec.stalls[0].cls, ARGUS_STALL_LONG_RUNNING);
	ASSERT_EQ(rec.stalls[0].cause, ARGUS_CAUSE_INPUT);
	ASSERT_U64_EQ(rec.stalls[0].since, B + 1000);
	ASSERT(rec.stalls[0].detected >= B + 2000 * MS);
	ASSERT(rec.stalls[0].detected <= B + 2050 * MS);
	ASSERT(rec.stalls[0].oncpu_ns > rec.stalls[0].blocked_ns * 3);
	ASSERT_EQ(rec.nends, 1);
	ASSERT(rec.ends[0].end >= B + 2900 * MS);
	ASSERT(rec.ends[0].end <= B + 3001 * MS);
	teardown();
}

/* Work in chunks (a layout validated in idle steps, waiting a frame's 16 ms
 * between some of them): a third of the time waited in a stretch of it
 * does not end the stall; the hang is one stall until the thread waits. */
TEST(busy_work_in_chunks_is_one_stall)
{
	setup(false);
	app_connects(T0 + MS);
	first_input(T0 + 10 * MS);
	const uint64_t B = T0 + 300 * MS;
	key_event(B);
	wake(B + 5000, APP);
	app_read(B + 10000, APP);
	uint64_t ts = B + 10 * MS;
	for (int k = 0; k < 3; k++) {
		for (uint64_t end = ts + 2500 * MS; ts < end; ts += 10 * MS)
			round_trip(ts + 3000, 300000);
		for (uint64_t end = ts + 600 * MS; ts < end; ts += 48 * MS) {
			key_event(ts);
			app_read(ts + 2000, APP);
			round_trip(ts + 3000, 16 * MS); /* a third waited */
		}
	}
	sys_enter(ts, APP, 7, -1);
	block(ts + 1000, APP);
	tick_until(ts + MS, ts + 2 * SEC);
	ASSERT_EQ(rec.nstalls, 1);
	ASSERT_EQ(rec.nends, 1);
	ASSERT(rec.ends[0].end >= ts - MS);
	teardown();
}

/* A machine overloaded: the thread wants the CPU all along but runs 30 %
 * of the time, preempted (runnable) the rest: the load, not its own work,
 * keeps it from its loop: no stall of this rule's. */
TEST(a_thread_kept_from_the_cpu_is_not_busy_without_a_wait)
{
	setup(false);
	app_connects(T0 + MS);
	first_input(T0 + 10 * MS);
	const uint64_t B = T0 + 300 * MS;
	key_event(B);
	wake(B + 5000, APP);
	app_read(B + 10000, APP);
	for (uint64_t ts = B + 10 * MS; ts < B + 3000 * MS; ts += 10 * MS) {
		if ((ts - B) % (500 * MS) == 0) {
			key_event(ts);
			app_read(ts + 2000, APP);
		}
		round_trip(ts + 3000, 300000);
		struct argus_event e = ev(ts + 3 * MS, ARGUS_EV_SCHED_SWITCH, APP, APP);
		e.sched_switch.prev_state = 0; /* preempted: runnable */
		feed(e);
		wake(ts + 10 * MS - 1000, APP);
	}
	sys_enter(B + 3000 * MS, APP, 7, -1);
	block(B + 3000 * MS + 1000, APP);
	tick_until(B + 3001 * MS, B + 5 * SEC);
	ASSERT_EQ(rec.nstalls, 0);
	teardown();
}

/* An app starting up: busy from its first events (its window mapped,
 * exposed) on, never idle in its loop yet: not this rule's (a launch). Once
 * it has been idle, the same work after an event is a stall. */
TEST(an_app_busy_starting_up_is_not_busy_without_a_wait)
{
	setup(false);
	app_connects(T0 + MS);
	key_event(T0 + 10 * MS); /* its window's first events */
	wake(T0 + 10 * MS + 5000, APP);
	app_read(T0 + 10 * MS + 10000, APP);
	for (uint64_t ts = T0 + 20 * MS; ts < T0 + 3000 * MS; ts += 10 * MS) {
		if ((ts - T0) % (500 * MS) == 0) {
			key_event(ts);
			app_read(ts + 2000, APP);
		}
		round_trip(ts + 3000, 300000);
	}
	sys_enter(T0 + 3000 * MS, APP, 7, -1); /* ready: idle in its loop */
	block(T0 + 3000 * MS + 1000, APP);
	tick_until(T0 + 3001 * MS, T0 + 4 * SEC);
	ASSERT_EQ(rec.nstalls, 0);
	key_event(T0 + 4 * SEC);
	wake(T0 + 4 * SEC + 5000, APP);
	app_read(T0 + 4 * SEC + 10000, APP);
	for (uint64_t ts = T0 + 4010 * MS; ts < T0 + 6500 * MS; ts += 10 * MS)
		round_trip(ts + 3000, 300000);
	ASSERT_EQ(rec.nstalls, 1);
	ASSERT_U64_EQ(rec.stalls[0].since, T0 + 4 * SEC + 1000);
	teardown();
}

/* idle, drawing a frame each 16 ms (an animation: a blinking cursor, a
 * spinner), typed at: it waits most of the time, never 100 ms in one go */
TEST(an_animating_idle_app_never_fires_busy_without_a_wait)
{
	setup(false);
	app_connects(T0 + MS);
	first_input(T0 + 10 * MS);
	for (uint64_t ts = T0 + 100 * MS; ts < T0 + 10 * SEC; ts += 16 * MS) {
		if ((ts - T0) % (96 * MS) == 4 * MS)
			key_event(ts);
		wake(ts + 10000, APP);
		app_read(ts + 20000, APP);
		app_connects(ts + 500000); /* the frame drawn */
		sys_enter(ts + 1500000, APP, 7, 14);
		block(ts + 1510000, APP);
	}
	tick_until(T0 + 10 * SEC, T0 + 12 * SEC);
	ASSERT_EQ(rec.nstalls, 0);
	teardown();
}

/* One hang, one stall: a hung handler that reads nothing fires on its
 * pending input; a short wait inside the work (the toolkit's round trip)
 * ends that stall for the episode rules, and the work goes on for 3 s more
 * with events read: the busy rule waits for the thread to wait before it
 * can fire again. */
TEST(busy_rule_does_not_fire_again_before_the_thread_waits)
{
	setup_started();
	app_connects(T0 + MS);
	first_input(T0 + 10 * MS);
	key_event(T0 + 100 * MS);
	wake(T0 + 100 * MS + 5000, APP);
	app_read(T0 + 100 * MS + 10000, APP);
	key_event(T0 + 200 * MS); /* unread for 2 s: the first stall */
	tick_until(T0 + 201 * MS, T0 + 2500 * MS);
	ASSERT_EQ(rec.nstalls, 1);
	app_read(T0 + 2500 * MS, APP);
	app_read_nothing(T0 + 2500 * MS + 2000, 1000);
	sys_enter(T0 + 2501 * MS, APP, 7, -1); /* a poll that waits 2 ms */
	block(T0 + 2501 * MS + 1000, APP);
	wake(T0 + 2503 * MS, APP);
	ASSERT_EQ(rec.nends, 1);
	for (uint64_t ts = T0 + 2510 * MS; ts < T0 + 6 * SEC; ts += 10 * MS) {
		if ((ts - T0) % (500 * MS) == 0) {
			key_event(ts);
			app_read(ts + 2000, APP);
		}
		round_trip(ts + 3000, 300000);
	}
	sys_enter(T0 + 6 * SEC, APP, 7, -1);
	block(T0 + 6 * SEC + 1000, APP);
	tick_until(T0 + 6001 * MS, T0 + 7 * SEC);
	/* a new hang after it waited is a new stall */
	key_event(T0 + 7 * SEC);
	wake(T0 + 7 * SEC + 5000, APP);
	app_read(T0 + 7 * SEC + 10000, APP);
	for (uint64_t ts = T0 + 7010 * MS; ts < T0 + 9500 * MS; ts += 10 * MS)
		round_trip(ts + 3000, 300000);
	ASSERT_EQ(rec.nstalls, 2);
	ASSERT_U64_EQ(rec.stalls[1].since, T0 + 7 * SEC + 1000);
	teardown();
}

static const uint64_t TCL_COND = 0x7f0000001000ull, APP_LOCK = 0x7f0000002000ull;

static void futex_wait(uint64_t ts, uint32_t tid, uint64_t uaddr)
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
static void tk_click(uint64_t ts, uint64_t handler_ns)
{
	static unsigned group;
	x_send(ts);
	wake(ts + 10000, APP);
	app_read(ts + 20000, APP);
	tick_until(ts + 30000, ts + handler_ns);
	futex_wait(ts + handler_ns + 1000, APP, TCL_COND + 4 * (++group & 1));
	block(ts + handler_ns + 2000, APP);
}

TEST(tk_loop_waits_on_a_condition_and_a_stall_ends_there)
{
	setup_started();
	futex_wait(T0 + MS, APP, TCL_COND);
	block(T0 + MS + 1000, APP);
	tk_click(T0 + 10 * MS, MS);
	tk_click(T0 + 20 * MS, MS);
	ASSERT_EQ(rec.nstalls, 0);
	/* a 4 s handler that waits on a lock of its own midway: still the
	 * same stall; it ends when the thread waits on its loop's condition */
	x_send(T0 + 100 * MS);
	wake(T0 + 100 * MS + 100, APP);
	app_read(T0 + 101 * MS, APP);
	tick_until(T0 + 102 * MS, T0 + 2500 * MS);
	futex_wait(T0 + 2500 * MS, APP, APP_LOCK);
	block(T0 + 2500 * MS + 1000, APP);
	wake(T0 + 3 * SEC, APP);
	ASSERT_EQ(rec.nstalls, 1);
	ASSERT_EQ(rec.nends, 0);
	tick_until(T0 + 3 * SEC, T0 + 4 * SEC);
	futex_wait(T0 + 4 * SEC + 1000, APP, TCL_COND + 4);
	block(T0 + 4 * SEC + 2000, APP);
	ASSERT_EQ(rec.nstalls, 1);
	ASSERT_EQ(rec.nends, 1);
	ASSERT_U64_EQ(rec.ends[0].end, T0 + 4 * SEC + 1000);
	teardown();
}

/* a GTK handler that waits on a peer's lock (a timed wait the peer or the
 * timeout ends long after the input came): that futex is not the loop's
 * wait, and a stall in it does not end when the thread waits there again */
TEST(a_handler_futex_woken_late_is_not_the_loop_wait)
{
	setup(false);
	first_input(T0 + 10 * MS);
	for (int i = 0; i < 2; i++) { /* twice: a candidate would be learned */
		uint64_t t0 = T0 + (100 + 1000 * (uint64_t)i) * MS;
		x_send(t0);
		wake(t0 + 100, APP);
		app_read(t0 + 200, APP);
		futex_wait(t0 + MS, APP, APP_LOCK);
		block(t0 + MS + 100, APP);
		x_send(t0 + 100 * MS);    /* input while it waits */
		wake(t0 + 600 * MS, APP); /* the timeout ends the wait */
		app_read(t0 + 601 * MS, APP);
		sys_enter(t0 + 602 * MS, APP, 7, -1);
		block(t0 + 603 * MS, APP);
	}
	ASSERT_EQ(rec.nstalls, 0);
	/* now the peer holds the lock for 4 s */
	x_send(T0 + 3 * SEC);
	wake(T0 + 3 * SEC + 100, APP);
	app_read(T0 + 3 * SEC + 200, APP);
	futex_wait(T0 + 3 * SEC + MS, APP, APP_LOCK);
	block(T0 + 3 * SEC + MS + 100, APP);
	tick_until(T0 + 3 * SEC + 2 * MS, T0 + 5500 * MS);
	ASSERT_EQ(rec.nstalls, 1);
	wake(T0 + 5600 * MS, APP);
	futex_wait(T0 + 5601 * MS, APP, APP_LOCK); /* the next round: still the work */
	block(T0 + 5602 * MS, APP);
	tick_until(T0 + 5603 * MS, T0 + 6 * SEC);
	ASSERT_EQ(rec.nends, 0);
	teardown();
}

TEST(launch_stall_fires_when_blocked_before_first_input)
{
	setup(true); /* the app started inside the stream */
	struct argus_event e = ev(T0 + MS, ARGUS_EV_IPC_SEND, APP, APP);
	e.ipc.obj = CLI_SOCK;
	e.ipc.peer_obj = SRV_SOCK;
	e.ipc.obj_kind = ARGUS_OBJ_DISPLAY; /* connects, says hello */
	feed(e);
	sys_enter(T0 + 2 * MS, APP, 202, 0); /* then blocks on a futex */
	block(T0 + 2 * MS + 100, APP);
	tick_until(T0 + 3 * MS, T0 + 2500 * MS);
	ASSERT_EQ(rec.nstalls, 1);
	ASSERT_EQ(rec.stalls[0].cause, ARGUS_CAUSE_LAUNCH);
	ASSERT_EQ(rec.stalls[0].cls, ARGUS_STALL_LONG_WAIT);
	wake(T0 + 2600 * MS, APP);
	ASSERT_EQ(rec.nends, 1);
	teardown();
}

/* the app connects and reads replies (every toolkit does before its first
 * window), then its main thread waits for a worker that waits for a
 * service: still launching, a launch stall */
TEST(launch_stall_fires_after_replies_were_read)
{
	setup(true);
	app_connects(T0 + MS);
	server_reads(T0 + MS + 1000); /* the server reads the request */
	x_send(T0 + MS + 2000);       /* and replies */
	app_read(T0 + MS + 3000, APP);
	futex_wait(T0 + 2 * MS, APP, APP_LOCK);
	block(T0 + 2 * MS + 100, APP);
	tick_until(T0 + 3 * MS, T0 + 2500 * MS);
	ASSERT_EQ(rec.nstalls, 1);
	ASSERT_EQ(rec.stalls[0].cause, ARGUS_CAUSE_LAUNCH);
	teardown();
}

/* a window is up (the server sent it an event while serving someone
 * else): a long futex wait is no launch stall */
/* The server sends the launching app an event while it hangs (its window
 * appears as the service answers); when the thread runs again the launch
 * stall ends, and that input, read soon after, is the same hang: no second
 * stall (bench/realapps r12 live gave two notifications) */
TEST(input_pending_at_a_launch_stalls_end_is_the_same_hang)
{
	setup(true);
	app_connects(T0 + MS);
	futex_wait(T0 + 2 * MS, APP, APP_LOCK);
	block(T0 + 2 * MS + 100, APP);
	tick_until(T0 + 3 * MS, T0 + 3 * SEC);
	ASSERT_EQ(rec.nstalls, 1);
	x_send(T0 + 3 * SEC + MS); /* an event meanwhile */
	tick_until(T0 + 3 * SEC + 2 * MS, T0 + 5500 * MS);
	wake(T0 + 5500 * MS, APP); /* runs again: the launch stall ends */
	ASSERT_EQ(rec.nends, 1);
	tick_until(T0 + 5501 * MS, T0 + 5800 * MS);
	app_read(T0 + 5800 * MS, APP); /* reads the event */
	sys_enter(T0 + 5801 * MS, APP, 7, -1);
	block(T0 + 5802 * MS, APP);
	tick_until(T0 + 5803 * MS, T0 + 9 * SEC);
	ASSERT_EQ(rec.nstalls, 1);
	teardown();
}

TEST(launch_is_over_once_the_server_sends_an_event)
{
	setup(true);
	app_connects(T0 + MS);
	x_send(T0 + MS + 2000); /* last request read: none of this client's */
	app_read(T0 + MS + 3000, APP);
	sys_enter(T0 + MS + 4000, APP, 7, -1); /* handled: back in its loop */
	block(T0 + MS + 5000, APP);
	wake(T0 + 2 * MS, APP); /* a timer: then it waits for a worker */
	futex_wait(T0 + 2 * MS + 100, APP, APP_LOCK);
	block(T0 + 2 * MS + 200, APP);
	tick_until(T0 + 3 * MS, T0 + 5 * SEC);
	ASSERT_EQ(rec.nstalls, 0);
	teardown();
}

/* threaded Tcl idles on its loop's condition after launch: no launch
 * stall, with or without a window manager's event */
TEST(launch_tk_idle_on_its_loop_condition_is_not_a_launch_stall)
{
	setup(true);
	app_connects(T0 + MS);
	server_reads(T0 + MS + 1000);
	futex_wait(T0 + 2 * MS, APP, TCL_COND);
	block(T0 + 2 * MS + 100, APP);
	x_send(T0 + 3 * MS); /* the reply to its map: Expose */
	wake(T0 + 3 * MS + 100, APP);
	app_read(T0 + 3 * MS + 200, APP);
	futex_wait(T0 + 4 * MS, APP, TCL_COND + 4);
	block(T0 + 4 * MS + 100, APP);
	tick_until(T0 + 5 * MS, T0 + 5 * SEC);
	ASSERT_EQ(rec.nstalls, 0);
	teardown();
}

/* a service started inside the stream that talks to the display (an
 * accessibility launcher sets a property on the root window) and is then
 * stopped (SIGSTOP): a root cause, not an app launching */
TEST(a_stopped_process_is_no_launch_stall)
{
	setup(true);
	app_connects(T0 + MS);
	futex_wait(T0 + 2 * MS, APP, APP_LOCK);
	struct argus_event e = ev(T0 + 2 * MS + 100, ARGUS_EV_SCHED_SWITCH, APP, APP);
	e.sched_switch.prev_state = 4; /* __TASK_STOPPED */
	feed(e);
	tick_until(T0 + 3 * MS, T0 + 5 * SEC);
	ASSERT_EQ(rec.nstalls, 0);
	teardown();
}

/* libdbus's blocking call polls the bus socket alone: a launch stall;
 * a poll on its own wake-up eventfd alone is its loop (Qt's dispatcher) */
static void launch_poll_on(uint8_t kind, uint64_t obj)
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

TEST(launch_blocked_in_a_poll_on_a_bus_socket_fires)
{
	setup(true);
	launch_poll_on(ARGUS_OBJ_UNIX, 0xffff000000007000ull);
	ASSERT_EQ(rec.nstalls, 1);
	ASSERT_EQ(rec.stalls[0].cause, ARGUS_CAUSE_LAUNCH);
	teardown();
}

TEST(launch_idle_in_a_poll_on_its_wakeup_eventfd_is_not_a_launch_stall)
{
	setup(true);
	launch_poll_on(ARGUS_OBJ_EVENTFD, 0xffff000000008000ull);
	ASSERT_EQ(rec.nstalls, 0);
	teardown();
}

/* GTK's synchronous GDBus call at start-up: the main thread wakes its
 * gdbus thread through that thread's eventfd (the default capture: the
 * send after the wake-up, same ts, noret) and polls the call's own eventfd
 * alone, waiting for the worker's answer (bench/realapps r12). No launch
 * rule takes that wait now (the hand-off rule drew false alarms on
 * dconf-service and was removed: docs/evaluation.md); the same poll with no
 * hand-off before it is the loop's idle wait, never a launch stall */
enum { GDBUS = 22 };
static const uint64_t GDBUS_EFD = 0xffff000000009000ull, CALL_EFD = 0xffff00000000a000ull;

static void launch_after_handoff(bool handoff)
{
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

/* the same hand-off by a worker thread of an app whose main thread has a
 * window (the server sent it an event): no launch stall of the worker */
TEST(a_worker_of_an_app_with_a_window_is_never_launching)
{
	setup(true);
	app_connects(T0 + MS / 2);
	server_reads(T0 + MS / 2 + 100);
	x_send(T0 + MS / 2 + 150);       /* the reply */
	tool_request(T0 + MS / 2 + 200); /* the server serves another client */
	x_send(T0 + MS / 2 + 300);       /* then an event to the app: a window */
	app_read(T0 + MS / 2 + 400, APP);
	sys_enter(T0 + MS / 2 + 450, APP, 7, -1); /* back in its loop */
	block(T0 + MS / 2 + 460, APP);
	/* a worker (GDBUS here stands for dconf's), a UI-thread candidate of
	 * a connection with no event, hands off and polls its own eventfd */
	ipc(T0 + MS / 2 + 500, ARGUS_EV_IPC_SEND, OTHER, 0xffff00000000b000ull, ARGUS_OBJ_DISPLAY,
	    12); /* its own connection, no event on it */
	struct argus_event w = ev(T0 + MS, ARGUS_EV_SCHED_WAKEUP, APP, OTHER);
	w.wakeup.wakee_pid = APP;
	w.wakeup.wakee_tid = GDBUS;
	feed(w);
	struct argus_event e = ev(T0 + MS, ARGUS_EV_IPC_SEND, APP, OTHER);
	e.flags = ARGUS_F_NORET;
	e.ipc.obj = GDBUS_EFD;
	e.ipc.obj_kind = ARGUS_OBJ_EVENTFD;
	e.ipc.ret = 8;
	feed(e);
	e = ev(T0 + 2 * MS, ARGUS_EV_SYS_ENTER, APP, OTHER);
	e.sys_enter.nr = 7;
	e.sys_enter.arg0 = -1;
	e.sys_enter.fd = 9;
	e.sys_enter.obj = CALL_EFD;
	e.sys_enter.obj_kind = ARGUS_OBJ_EVENTFD;
	feed(e);
	block(T0 + 2 * MS + 100, OTHER);
	tick_until(T0 + 3 * MS, T0 + 5 * SEC);
	ASSERT_EQ(rec.nstalls, 0);
	teardown();
}

TEST(launch_idle_on_its_eventfd_without_a_handoff_is_not_a_launch_stall)
{
	setup(true);
	launch_after_handoff(false);
	ASSERT_EQ(rec.nstalls, 0);
	teardown();
}

TEST(launch_idle_in_poll_is_not_a_launch_stall)
{
	setup(true);
	app_connects(T0 + MS);
	sys_enter(T0 + 2 * MS, APP, 7, -1);
	block(T0 + 2 * MS + 100, APP);
	tick_until(T0 + 3 * MS, T0 + 5 * SEC);
	ASSERT_EQ(rec.nstalls, 0);
	teardown();
}

TEST(threshold_is_configurable)
{
	memset(&rec, 0, sizeof(rec));
	struct argus_trigger_opts o;
	argus_trigger_opts_default(&o);
	ASSERT_U64_EQ(o.stall_ns, 2 * SEC);
	o.stall_ns = 500 * MS;
	struct argus_trigger_cb cb = {on_stall, on_end, on_lag, &rec};
	ASSERT_EQ(argus_trigger_new(&t, &o, &cb), 0);
	struct argus_event e = ev(T0 - SEC, ARGUS_EV_COMM, XPID, XPID);
	strcpy(e.comm.comm, "Xorg");
	e.comm.is_process = 1;
	feed(e);
	app_started();
	one_click(T0 + MS, 700 * MS);
	ASSERT_EQ(rec.nstalls, 1);
	teardown();
}

TEST(non_display_sockets_are_ignored)
{
	setup(false);
	struct argus_event e = ev(T0 + MS, ARGUS_EV_IPC_SEND, 30, 30); /* not a server */
	e.ipc.obj = 0x1;
	e.ipc.peer_obj = CLI_SOCK;
	e.ipc.obj_kind = ARGUS_OBJ_UNIX;
	feed(e);
	app_read(T0 + 2 * MS, OTHER);
	struct argus_ui_thread u[2];
	ASSERT_EQ(argus_trigger_ui_threads(t, u, 2), 0);
	ASSERT(argus_display_server_comm("Xwayland"));
	ASSERT(!argus_display_server_comm("gedit"));
	teardown();
}

TEST(threads_are_named_apart_from_their_process)
{
	setup(true);
	/* a thread starts with its creator's name, then renames itself */
	struct argus_event e = ev(T0 + MS, ARGUS_EV_THREAD_NEW, APP, APP);
	e.fork.child_pid = APP;
	e.fork.child_tid = OTHER;
	strcpy(e.fork.comm, "gedit");
	feed(e);
	ASSERT_STR_EQ(argus_trigger_thread_comm(t, OTHER), "gedit");
	e = ev(T0 + 2 * MS, ARGUS_EV_COMM, APP, OTHER);
	strcpy(e.comm.comm, "gedit-spell");
	feed(e);
	ASSERT_STR_EQ(argus_trigger_thread_comm(t, OTHER), "gedit-spell");
	/* the process keeps its name; its main thread's is the process's */
	ASSERT_STR_EQ(argus_trigger_comm(t, APP), "gedit");
	ASSERT_STR_EQ(argus_trigger_thread_comm(t, APP), "gedit");
	/* a thread seen in no naming record has no name */
	ASSERT_STR_EQ(argus_trigger_thread_comm(t, 999), "");
	/* the main thread renamed is the process renamed (is_process) */
	e = ev(T0 + 3 * MS, ARGUS_EV_COMM, APP, APP);
	strcpy(e.comm.comm, "gedit2");
	e.comm.is_process = 1;
	feed(e);
	ASSERT_STR_EQ(argus_trigger_comm(t, APP), "gedit2");
	ASSERT_STR_EQ(argus_trigger_thread_comm(t, APP), "gedit2");
	ASSERT_STR_EQ(argus_trigger_thread_comm(t, OTHER), "gedit-spell");
	teardown();
}

/* the server reads a request of another client (pid 30's end) */
static void server_reads_other(uint64_t ts)
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
static void round_trip_waited(uint64_t ts, uint64_t wait_ns)
{
	app_connects(ts); /* the request */
	server_reads(ts + 1000);
	server_reads_other(ts + 2000);
	struct argus_event e = ev(ts + 3000, ARGUS_EV_SYS_ENTER, APP, APP);
	e.sys_enter.nr = 7;
	e.sys_enter.arg0 = -1;
	e.sys_enter.fd = 3;
	e.sys_enter.obj = CLI_SOCK;
	e.sys_enter.obj_kind = ARGUS_OBJ_UNIX;
	feed(e);
	block(ts + 4000, APP);
	x_send(ts + wait_ns);
	wake(ts + wait_ns + 1000, APP);
	app_read(ts + wait_ns + 2000, APP);
}

/* Seven apps starting at once under load (argus bench quiet): a Qt app's
 * main thread read replies, its waits all round trips to the server (one
 * 112 ms), then built its windows for 5 s while the server wrote to it.
 * Never idle in its loop yet: starting up, no stall. Once it has idled in
 * its loop, the same 3 s of work with input waiting is one. */
TEST(an_app_starting_up_under_load_is_no_stall)
{
	setup(true);
	app_connects(T0 + MS);
	server_reads(T0 + MS + 1000);
	x_send(T0 + MS + 2000); /* the set-up reply */
	app_read(T0 + MS + 3000, APP);
	round_trip_waited(T0 + 10 * MS, 112 * MS);
	round_trip_waited(T0 + 130 * MS, 5 * MS);
	server_reads_other(T0 + 199 * MS);
	x_send(T0 + 200 * MS); /* an event while it builds its windows */
	tick_until(T0 + 201 * MS, T0 + 5 * SEC);
	ASSERT_EQ(rec.nstalls, 0);
	/* ready: idle in its loop (a poll on several fds) */
	app_read(T0 + 5 * SEC, APP);
	sys_enter(T0 + 5 * SEC + 1000, APP, 7, -1);
	block(T0 + 5 * SEC + 2000, APP);
	tick_until(T0 + 5 * SEC + 10 * MS, T0 + 6 * SEC);
	ASSERT_EQ(rec.nstalls, 0);
	key_event(T0 + 6 * SEC);
	wake(T0 + 6 * SEC + 5000, APP);
	app_read(T0 + 6 * SEC + 10000, APP);
	x_send(T0 + 6100 * MS);
	tick_until(T0 + 6101 * MS, T0 + 9 * SEC);
	ASSERT_EQ(rec.nstalls, 1);
	ASSERT_EQ(rec.stalls[0].cause, ARGUS_CAUSE_INPUT);
	teardown();
}

/* Replies are no events, also when the server read another client's
 * request before it wrote them, and when one reply comes in two writes
 * (X's connection set-up): a client that only gets replies has no
 * window and is never the stalled app, though it leaves one unread. */
TEST(replies_written_after_another_clients_request_are_no_events)
{
	setup(false);
	app_connects(T0 + MS);
	server_reads(T0 + MS + 1000);
	server_reads_other(T0 + MS + 2000);
	x_send(T0 + MS + 3000); /* the set-up reply, in two writes */
	x_send(T0 + MS + 4000);
	app_read(T0 + MS + 5000, APP);
	sys_enter(T0 + 2 * MS, APP, 7, -1); /* idle in its loop */
	block(T0 + 2 * MS + 1000, APP);
	wake(T0 + 500 * MS, APP);
	round_trip_waited(T0 + 501 * MS, MS);
	app_connects(T0 + 510 * MS); /* a request whose answer it leaves */
	server_reads(T0 + 510 * MS + 1000);
	server_reads_other(T0 + 510 * MS + 2000);
	x_send(T0 + 510 * MS + 3000);
	x_send(T0 + 510 * MS + 4000);
	tick_until(T0 + 511 * MS, T0 + 4 * SEC);
	ASSERT_EQ(rec.nstalls, 0);
	/* an event (written while serving another client, nothing asked
	 * since its last write) gives it a window: now it is an app */
	server_reads_other(T0 + 4 * SEC);
	x_send(T0 + 4 * SEC + 1000);
	tick_until(T0 + 4 * SEC + 2000, T0 + 7 * SEC);
	ASSERT_EQ(rec.nstalls, 1);
	teardown();
}

/* A daemon's client (pid 50, "argus stream") connects at the address the
 * kernel reused from a GUI client's closed display connection, whose end
 * was not seen (its exit record lost), then waits for the daemon's
 * messages in a read: it has no display connection, never a stall (a live
 * run named "argus stream" as a stalled app, from its 2 s read). */
enum { STREAMER = 50, DAEMON = 60 };
static const uint64_t DAEMON_END = 0xffff000000007000ull;

TEST(a_socket_at_a_closed_display_connections_address_is_a_new_one)
{
	setup(false);
	one_click(T0 + 10 * MS, 5 * MS);
	sys_enter(T0 + 100 * MS, APP, 7, 10 * SEC);
	block(T0 + 100 * MS + 1000, APP);
	/* gedit is gone (unseen); a new client connects at its address */
	struct argus_event e = ev(T0 + 200 * MS, ARGUS_EV_PROC_EXEC, STREAMER, STREAMER);
	strcpy(e.exec.comm, "argus");
	feed(e);
	e = ev(T0 + 201 * MS, ARGUS_EV_SYS_ENTER, STREAMER, STREAMER);
	e.sys_enter.nr = 42; /* connect */
	e.sys_enter.obj = CLI_SOCK;
	e.sys_enter.peer_obj = DAEMON_END;
	e.sys_enter.obj_kind = ARGUS_OBJ_UNIX;
	e.sys_enter.arg0 = DAEMON;
	feed(e);
	tool_ipc(T0 + 201 * MS, ARGUS_EV_IPC_SEND, STREAMER, CLI_SOCK, DAEMON_END);
	tool_ipc(T0 + 202 * MS, ARGUS_EV_IPC_RECV, STREAMER, CLI_SOCK, DAEMON_END);
	e = ev(T0 + 203 * MS, ARGUS_EV_SYS_ENTER, STREAMER, STREAMER);
	e.sys_enter.nr = 0; /* read */
	feed(e);
	e = ev(T0 + 203 * MS + 1000, ARGUS_EV_SCHED_SWITCH, STREAMER, STREAMER);
	e.sched_switch.prev_state = 1;
	feed(e);
	tick_until(T0 + 204 * MS, T0 + 2300 * MS);
	tool_ipc(T0 + 2300 * MS, ARGUS_EV_IPC_RECV, STREAMER, CLI_SOCK, DAEMON_END);
	tick_until(T0 + 2301 * MS, T0 + 6 * SEC);
	for (int i = 0; i < rec.nstalls && i < 8; i++)
		ASSERT_MSG(strcmp(rec.stalls[i].comm, "argus"), "stall %d names %s", i,
		           rec.stalls[i].comm);
	teardown();
}

TEST_MAIN(TEST_ENTRY(finds_ui_thread_by_display_connection),
          TEST_ENTRY(long_running_handler_fires_once_and_records_end),
          TEST_ENTRY(short_handlers_are_lags_not_stalls), TEST_ENTRY(idle_ui_thread_never_fires),
          TEST_ENTRY(blocked_in_poll_on_another_fd_with_nothing_pending_never_fires),
          TEST_ENTRY(input_unread_while_blocked_in_poll_fires_long_wait),
          TEST_ENTRY(input_read_before_its_send_was_stamped_is_not_pending),
          TEST_ENTRY(input_sent_while_a_read_found_nothing_stays_pending),
          TEST_ENTRY(yield_loop_is_classified),
          TEST_ENTRY(dispatch_without_input_fires_dispatch_cause),
          TEST_ENTRY(input_queued_during_a_stall_counts_from_its_end),
          TEST_ENTRY(tk_loop_waits_on_a_condition_and_a_stall_ends_there),
          TEST_ENTRY(a_handler_futex_woken_late_is_not_the_loop_wait),
          TEST_ENTRY(launch_stall_fires_when_blocked_before_first_input),
          TEST_ENTRY(launch_stall_fires_after_replies_were_read),
          TEST_ENTRY(input_pending_at_a_launch_stalls_end_is_the_same_hang),
          TEST_ENTRY(launch_is_over_once_the_server_sends_an_event),
          TEST_ENTRY(launch_tk_idle_on_its_loop_condition_is_not_a_launch_stall),
          TEST_ENTRY(a_stopped_process_is_no_launch_stall),
          TEST_ENTRY(launch_blocked_in_a_poll_on_a_bus_socket_fires),
          TEST_ENTRY(launch_idle_in_a_poll_on_its_wakeup_eventfd_is_not_a_launch_stall),
          TEST_ENTRY(launch_idle_in_poll_is_not_a_launch_stall),
          TEST_ENTRY(launch_idle_on_its_eventfd_without_a_handoff_is_not_a_launch_stall),
          TEST_ENTRY(a_worker_of_an_app_with_a_window_is_never_launching),
          TEST_ENTRY(a_windowless_x_client_sleeping_after_its_start_is_no_launch_stall),
          TEST_ENTRY(a_bus_daemon_the_x_server_talks_to_is_never_the_stalled_app),
          TEST_ENTRY(threshold_is_configurable), TEST_ENTRY(non_display_sockets_are_ignored),
          TEST_ENTRY(threads_are_named_apart_from_their_process),
          TEST_ENTRY(qt_relay_idle_and_typing_never_fires),
          TEST_ENTRY(qt_main_thread_hung_after_the_relay_fires_on_it),
          TEST_ENTRY(default_capture_qt_main_thread_hung_after_the_relay_fires_on_it),
          TEST_ENTRY(zero_timeout_polls_that_find_work_are_not_a_yield_loop),
          TEST_ENTRY(one_hang_with_a_brief_return_is_one_stall),
          TEST_ENTRY(a_windowless_x_client_is_never_the_stalled_app),
          TEST_ENTRY(a_dispatching_reader_hands_its_input_to_no_worker),
          TEST_ENTRY(a_hung_handler_that_looks_at_the_connection_is_one_stall),
          TEST_ENTRY(busy_handler_that_pumps_events_fires_busy_without_a_wait),
          TEST_ENTRY(busy_work_in_chunks_is_one_stall),
          TEST_ENTRY(a_thread_kept_from_the_cpu_is_not_busy_without_a_wait),
          TEST_ENTRY(an_app_busy_starting_up_is_not_busy_without_a_wait),
          TEST_ENTRY(an_animating_idle_app_never_fires_busy_without_a_wait),
          TEST_ENTRY(busy_rule_does_not_fire_again_before_the_thread_waits),
          TEST_ENTRY(an_app_starting_up_under_load_is_no_stall),
          TEST_ENTRY(replies_written_after_another_clients_request_are_no_events),
          TEST_ENTRY(a_socket_at_a_closed_display_connections_address_is_a_new_one))
