/*
 * test_trigger_launch.c - the stall trigger on hand-built event sequences
 * (trigger_fixture.h): launch stalls: an app blocked before its first window.
 */
#include "trigger_fixture.h"

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

TEST(launch_blocked_in_a_poll_on_a_bus_socket_fires)
{
	setup(true);
	launch_poll_on(ARGUS_OBJ_UNIX, 0xffff000000007000ull);
	ASSERT_EQ(rec.nstalls, 1);
	ASSERT_EQ(rec.stalls[0].cause, ARGUS_CAUSE_LAUNCH);
	teardown();
}

TEST(a_connect_at_a_closed_display_connections_address_is_a_new_connection)
{
	setup(true);
	app_connects(T0 + MS);
	/* the second X connection: the app asks, the server answers, it reads */
	struct argus_event e = ev(T0 + 10 * MS, ARGUS_EV_IPC_SEND, APP, APP);
	e.ipc.obj = REUSED_SOCK;
	e.ipc.peer_obj = SRV_SOCK2;
	e.ipc.obj_kind = ARGUS_OBJ_DISPLAY;
	feed(e);
	e = ev(T0 + 11 * MS, ARGUS_EV_IPC_SEND, XPID, XPID);
	e.ipc.obj = SRV_SOCK2;
	e.ipc.peer_obj = REUSED_SOCK;
	e.ipc.obj_kind = ARGUS_OBJ_UNIX;
	e.ipc.ret = 32;
	feed(e);
	e = ev(T0 + 12 * MS, ARGUS_EV_IPC_RECV, APP, APP);
	e.ipc.obj = REUSED_SOCK;
	e.ipc.peer_obj = SRV_SOCK2;
	e.ipc.obj_kind = ARGUS_OBJ_UNIX;
	e.ipc.ret = 32;
	feed(e);
	/* closed; the bus connection gets its address (connect record at its
	 * first send, the listener's pid in arg0) */
	e = ev(T0 + 20 * MS, ARGUS_EV_SYS_ENTER, APP, APP);
	e.sys_enter.nr = 42;
	e.sys_enter.obj = REUSED_SOCK;
	e.sys_enter.peer_obj = SRV_SOCK2;
	e.sys_enter.obj_kind = ARGUS_OBJ_UNIX;
	e.sys_enter.arg0 = 30;
	e.sys_enter.fd = 8;
	feed(e);
	e = ev(T0 + 20 * MS, ARGUS_EV_SYS_EXIT, APP, APP);
	e.sys_exit.nr = 42;
	feed(e);
	e = ev(T0 + 20 * MS, ARGUS_EV_IPC_SEND, APP, APP);
	e.ipc.obj = REUSED_SOCK;
	e.ipc.peer_obj = SRV_SOCK2;
	e.ipc.obj_kind = ARGUS_OBJ_UNIX;
	e.ipc.ret = 128;
	feed(e);
	/* the blocking call: a poll on that socket alone */
	e = ev(T0 + 21 * MS, ARGUS_EV_SYS_ENTER, APP, APP);
	e.sys_enter.nr = 7;
	e.sys_enter.arg0 = 25 * (int64_t)SEC;
	e.sys_enter.fd = 8;
	e.sys_enter.obj = REUSED_SOCK;
	e.sys_enter.peer_obj = SRV_SOCK2;
	e.sys_enter.obj_kind = ARGUS_OBJ_UNIX;
	feed(e);
	block(T0 + 21 * MS + 100, APP);
	tick_until(T0 + 22 * MS, T0 + 3 * SEC);
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

/* A windowless service that hands a call to its gdbus thread and waits is
 * no app launching: its bus socket is not a display connection, though an
 * X client's closed one had its address (argus bench quiet: 6 false launch
 * stalls of dconf-service, docs/evaluation.md "trig3") */
TEST(a_service_on_a_closed_x_clients_socket_address_is_never_launching)
{
	setup(true);
	launch_after_handoff_from(true, true);
	ASSERT_EQ(rec.nstalls, 0);
	teardown();
}

TEST(launch_waiting_for_its_dbus_thread_after_a_handoff_fires)
{
	setup(true);
	launch_after_handoff(true);
	ASSERT_EQ(rec.nstalls, 1);
	ASSERT_EQ(rec.stalls[0].cause, ARGUS_CAUSE_LAUNCH);
	teardown();
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

/* a syscall entry with the object it waits on (the default capture names
 * it) */
static void enter_on(uint64_t ts, uint16_t nr, uint8_t kind)
{
	struct argus_event e = ev(ts, ARGUS_EV_SYS_ENTER, APP, APP);
	e.sys_enter.nr = nr;
	e.sys_enter.fd = 0;
	e.sys_enter.obj = 0xffff000000008000ull;
	e.sys_enter.obj_kind = kind;
	feed(e);
}

/* a windowless X client started in the stream (a script with a display
 * connection: a withdrawn Tk root, xdotool, xprop) connects, reads its
 * replies, then blocks in nr on an object of that kind for 5 s */
static void windowless_client_blocks_in(uint16_t nr, uint8_t kind)
{
	setup(true);
	app_connects(T0 + MS);
	server_reads(T0 + MS + 1000);
	x_send(T0 + MS + 2000); /* the reply */
	app_read(T0 + MS + 3000, APP);
	enter_on(T0 + 2 * MS, nr, kind);
	block(T0 + 2 * MS + 100, APP);
	tick_until(T0 + 3 * MS, T0 + 5 * SEC);
}

/* a script that ran a program and waits for it (wait4): no app's launch,
 * whatever the program does */
TEST(a_windowless_client_waiting_for_its_child_is_no_launch_stall)
{
	windowless_client_blocks_in(61 /* wait4 */, ARGUS_OBJ_NONE);
	ASSERT_EQ(rec.nstalls, 0);
	teardown();
	windowless_client_blocks_in(247 /* waitid */, ARGUS_OBJ_NONE);
	ASSERT_EQ(rec.nstalls, 0);
	teardown();
}

/* a script reading its input (a pipe, a terminal) is no app launching; the
 * same read on a socket to a peer is a call waiting for its answer, and a
 * launch stall */
TEST(a_windowless_client_reading_its_input_is_no_launch_stall)
{
	windowless_client_blocks_in(0 /* read */, ARGUS_OBJ_PIPE);
	ASSERT_EQ(rec.nstalls, 0);
	teardown();
	windowless_client_blocks_in(0, ARGUS_OBJ_PTY);
	ASSERT_EQ(rec.nstalls, 0);
	teardown();
	windowless_client_blocks_in(45 /* recvfrom */, ARGUS_OBJ_UNIX);
	ASSERT_EQ(rec.nstalls, 1);
	ASSERT_EQ(rec.stalls[0].cause, ARGUS_CAUSE_LAUNCH);
	teardown();
}

/* a windowless client that has run for a while (a headless browser given
 * DISPLAY, a test program) and only then waits on a lock for 5 s: a launch
 * is a start-up, and this one is over without a window; the same wait
 * right after its start is a launch stall (launch_stall_fires_after_replies_were_read) */
TEST(a_client_that_blocks_long_after_its_start_is_no_launch_stall)
{
	setup(true);
	app_connects(T0 + MS);
	server_reads(T0 + MS + 1000);
	x_send(T0 + MS + 2000);
	app_read(T0 + MS + 3000, APP);
	sys_enter(T0 + 2 * MS, APP, 7, -1); /* its loop's poll */
	block(T0 + 2 * MS + 100, APP);
	tick_until(T0 + 3 * MS, T0 + 11 * SEC);
	wake(T0 + 11 * SEC, APP);
	futex_wait(T0 + 11 * SEC + MS, APP, APP_LOCK);
	block(T0 + 11 * SEC + 2 * MS, APP);
	tick_until(T0 + 11 * SEC + 3 * MS, T0 + 16 * SEC);
	ASSERT_EQ(rec.nstalls, 0);
	teardown();
}

/* Under a storm the records come late: the live tick has moved the
 * trigger's time past them. A launch fires at the tick; the thread's
 * wake-up, recorded before it, comes next and ends the stall at once
 * ("ended after 0.00 s"), then its next wait, also from before the tick:
 * a stall's end resumes the thread, so that wait counts from the end and
 * fires no second stall of the same start (argus bench storm: zoo-b6 and
 * dunst notified twice). */
TEST(late_records_after_a_launch_stalls_end_fire_no_stall_of_the_same_start)
{
	setup(true);
	app_connects(T0 + MS);
	futex_wait(T0 + 2 * MS, APP, APP_LOCK);
	block(T0 + 2 * MS + 100, APP);
	argus_trigger_advance(t, T0 + 5 * SEC); /* the live tick */
	ASSERT_EQ(rec.nstalls, 1);
	ASSERT_EQ(rec.stalls[0].cause, ARGUS_CAUSE_LAUNCH);
	wake(T0 + 2500 * MS, APP); /* late */
	ASSERT_EQ(rec.nends, 1);
	futex_wait(T0 + 2600 * MS, APP, APP_LOCK); /* late too */
	block(T0 + 2600 * MS + 100, APP);
	tick_until(T0 + 2700 * MS, T0 + 2800 * MS);
	argus_trigger_advance(t, T0 + 5100 * MS);
	ASSERT_EQ(rec.nstalls, 1);
	/* still blocked 2 s after that end: a stall of its own */
	argus_trigger_advance(t, T0 + 7100 * MS);
	ASSERT_EQ(rec.nstalls, 2);
	ASSERT(rec.stalls[1].since >= rec.ends[0].end);
	teardown();
}

/* Pids come round again (pid_max is 32 768 on a 2-CPU machine): a new
 * process at the pid of one that mapped a window and exited starts without
 * that window, and its UI thread is its own, not the exited one's: a launch
 * stall fires as for any app */
TEST(a_new_process_at_an_exited_ones_pid_is_launching_like_any)
{
	setup(true);
	app_connects(T0 + MS);
	struct argus_event e = ev(T0 + 2 * MS, ARGUS_EV_UI_INPUT, APP, APP);
	e.ui.kind = ARGUS_UI_MAP; /* its first window is up */
	e.ui.obj = CLI_SOCK;
	feed(e);
	feed(ev(T0 + SEC, ARGUS_EV_PROC_EXIT, APP, APP));
	e = ev(T0 + 2 * SEC, ARGUS_EV_PROC_FORK, OTHER, OTHER);
	e.fork.child_pid = APP;
	e.fork.child_tid = APP;
	strcpy(e.fork.comm, "sh");
	feed(e);
	e = ev(T0 + 2 * SEC + MS, ARGUS_EV_PROC_EXEC, APP, APP);
	strcpy(e.exec.comm, "gedit");
	feed(e);
	app_connects(T0 + 2 * SEC + 2 * MS);
	futex_wait(T0 + 2 * SEC + 3 * MS, APP, APP_LOCK);
	block(T0 + 2 * SEC + 3 * MS + 100, APP);
	tick_until(T0 + 2 * SEC + 4 * MS, T0 + 4500 * MS);
	ASSERT_EQ(rec.nstalls, 1);
	ASSERT_EQ(rec.stalls[0].cause, ARGUS_CAUSE_LAUNCH);
	ASSERT_EQ(rec.stalls[0].pid, APP);
	teardown();
}

/* a display read, a poll or a switch of thread tid of process pid */
static void task_ipc(uint64_t ts, uint16_t type, uint32_t pid, uint32_t tid, uint64_t obj,
                     uint64_t peer, int64_t ret)
{
	struct argus_event e = ev(ts, type, pid, tid);
	e.ipc.obj = obj;
	e.ipc.peer_obj = peer;
	e.ipc.obj_kind = ARGUS_OBJ_UNIX;
	e.ipc.ret = ret;
	feed(e);
}

static void task_polls(uint64_t ts, uint32_t pid, uint32_t tid)
{
	struct argus_event e = ev(ts, ARGUS_EV_SYS_ENTER, pid, tid);
	e.sys_enter.nr = 7;
	e.sys_enter.arg0 = -1;
	e.sys_enter.fd = -1;
	feed(e);
	e = ev(ts + 1000, ARGUS_EV_SCHED_SWITCH, pid, tid);
	e.sched_switch.prev_state = 1;
	feed(e);
}

/* Tids come round too: a thread of an exited process read its display
 * (tid 22 of pid 21); a new process gets pid 22 and its main thread reads
 * its own display connection, then leaves input unread: the stall is the
 * new process's, not the exited one's */
TEST(a_ui_thread_at_an_exited_threads_tid_belongs_to_its_new_process)
{
	enum { OLD = 21, OLD_UI = 22 };
	const uint64_t cli2 = 0xffff000000007000ull, srv2 = 0xffff000000007800ull;
	setup(true);
	task_ipc(T0 + MS, ARGUS_EV_IPC_SEND, XPID, XPID, SRV_SOCK, CLI_SOCK, 32);
	task_ipc(T0 + 2 * MS, ARGUS_EV_IPC_RECV, OLD, OLD_UI, CLI_SOCK, SRV_SOCK, 32);
	task_polls(T0 + 3 * MS, OLD, OLD_UI);
	feed(ev(T0 + SEC, ARGUS_EV_PROC_EXIT, OLD, OLD));
	struct argus_event e = ev(T0 + 2 * SEC, ARGUS_EV_PROC_FORK, APP, APP);
	e.fork.child_pid = OLD_UI;
	e.fork.child_tid = OLD_UI;
	strcpy(e.fork.comm, "geany");
	feed(e);
	/* its first events, read; back in its loop; then input it leaves */
	uint64_t t1 = T0 + 2 * SEC + 10 * MS;
	task_ipc(t1, ARGUS_EV_IPC_SEND, XPID, XPID, srv2, cli2, 32);
	task_ipc(t1 + MS, ARGUS_EV_IPC_RECV, OLD_UI, OLD_UI, cli2, srv2, 32);
	task_ipc(t1 + 2 * MS, ARGUS_EV_IPC_RECV, OLD_UI, OLD_UI, cli2, srv2, -11);
	task_polls(t1 + 3 * MS, OLD_UI, OLD_UI);
	task_ipc(t1 + SEC, ARGUS_EV_IPC_SEND, XPID, XPID, srv2, cli2, 32);
	tick_until(t1 + SEC + MS, t1 + 3500 * MS);
	ASSERT_EQ(rec.nstalls, 1);
	ASSERT_EQ(rec.stalls[0].pid, OLD_UI);
	ASSERT_EQ(rec.stalls[0].tid, OLD_UI);
	teardown();
}

TEST_MAIN(TEST_ENTRY(launch_stall_fires_when_blocked_before_first_input),
          TEST_ENTRY(launch_stall_fires_after_replies_were_read),
          TEST_ENTRY(input_pending_at_a_launch_stalls_end_is_the_same_hang),
          TEST_ENTRY(launch_is_over_once_the_server_sends_an_event),
          TEST_ENTRY(launch_tk_idle_on_its_loop_condition_is_not_a_launch_stall),
          TEST_ENTRY(a_stopped_process_is_no_launch_stall),
          TEST_ENTRY(launch_blocked_in_a_poll_on_a_bus_socket_fires),
          TEST_ENTRY(a_connect_at_a_closed_display_connections_address_is_a_new_connection),
          TEST_ENTRY(launch_idle_in_a_poll_on_its_wakeup_eventfd_is_not_a_launch_stall),
          TEST_ENTRY(a_service_on_a_closed_x_clients_socket_address_is_never_launching),
          TEST_ENTRY(launch_waiting_for_its_dbus_thread_after_a_handoff_fires),
          TEST_ENTRY(a_worker_of_an_app_with_a_window_is_never_launching),
          TEST_ENTRY(launch_idle_on_its_eventfd_without_a_handoff_is_not_a_launch_stall),
          TEST_ENTRY(launch_idle_in_poll_is_not_a_launch_stall),
          TEST_ENTRY(a_windowless_client_waiting_for_its_child_is_no_launch_stall),
          TEST_ENTRY(a_windowless_client_reading_its_input_is_no_launch_stall),
          TEST_ENTRY(a_client_that_blocks_long_after_its_start_is_no_launch_stall),
          TEST_ENTRY(late_records_after_a_launch_stalls_end_fire_no_stall_of_the_same_start),
          TEST_ENTRY(a_new_process_at_an_exited_ones_pid_is_launching_like_any),
          TEST_ENTRY(a_ui_thread_at_an_exited_threads_tid_belongs_to_its_new_process))
