/*
 * test_trigger.c - the stall trigger on hand-built event sequences
 * (trigger_fixture.h): the basics: the UI thread found by its display connection, long running and long wait stalls, lags, pending input, yield loops, the threshold, names.
 */
#include "trigger_fixture.h"

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

/* the app wakes, reads 32 bytes at ts (then, drained, a read that finds
 * nothing) and polls with timeout (-1: none) */
static void read_then_poll(uint64_t ts, bool drained, int64_t timeout)
{
	wake(ts - 10000, APP);
	app_read(ts, APP);
	if (drained)
		app_read_nothing(ts + 1000, 500);
	sys_enter(ts + 2000, APP, 7, timeout);
	block(ts + 3000, APP);
}

TEST(input_read_before_its_send_was_stamped_needs_no_later_empty_read)
{
	setup(false);
	first_input(T0 + 10 * MS);
	/* the server's record is stamped after every read of the app: its
	 * read of those 32 bytes and the empty read after it (the server was
	 * preempted between its write and the tracepoint); the app sleeps in
	 * its poll and reads nothing more. The bytes say it read them. */
	read_then_poll(T0 + 100 * MS, true, -1);
	x_send(T0 + 100 * MS + 5000);
	tick_until(T0 + 101 * MS, T0 + 5 * SEC);
	ASSERT_EQ(rec.nstalls, 0);
	teardown();
}

TEST(input_after_the_bytes_line_up_is_pending)
{
	setup(false);
	first_input(T0 + 10 * MS);
	/* a write the app read, recorded late, then one it never reads */
	read_then_poll(T0 + 100 * MS, true, 10 * SEC);
	x_send(T0 + 100 * MS + 5000);
	x_send(T0 + 200 * MS);
	tick_until(T0 + 201 * MS, T0 + 3 * SEC);
	ASSERT_EQ(rec.nstalls, 1);
	ASSERT_U64_EQ(rec.stalls[0].since, T0 + 200 * MS);
	teardown();
}

TEST(bytes_read_long_before_a_write_do_not_hide_it)
{
	setup(false);
	first_input(T0 + 10 * MS);
	/* a write argus did not count (its record lost): the app read 32
	 * bytes more than were written, and hangs later; the next write is no
	 * late record of that read's */
	read_then_poll(T0 + 100 * MS, false, 10 * SEC);
	x_send(T0 + 500 * MS);
	tick_until(T0 + 501 * MS, T0 + 3 * SEC);
	ASSERT_EQ(rec.nstalls, 1);
	ASSERT_U64_EQ(rec.stalls[0].since, T0 + 500 * MS);
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

/* Whether time alone could fire a stall (argus_trigger_waiting: a live
 * daemon ticks coarsely while not): not while the app sits in its loop,
 * from the input it has not read until it is back there, through a stall,
 * and while an app launches. */
TEST(waiting_on_time_only_while_a_stall_could_come)
{
	setup_started();
	tick_until(T0, T0 + SEC);
	ASSERT(!argus_trigger_waiting(t));
	one_click(T0 + SEC + 10 * MS, 50 * MS);
	ASSERT(argus_trigger_waiting(t)); /* just back in its poll */
	tick_until(T0 + SEC + 70 * MS, T0 + 2 * SEC);
	ASSERT(!argus_trigger_waiting(t));
	x_send(T0 + 2 * SEC + 10 * MS); /* unread while it waits */
	ASSERT(argus_trigger_waiting(t));
	tick_until(T0 + 2 * SEC + 20 * MS, T0 + 5 * SEC);
	ASSERT_EQ(rec.nstalls, 1);
	ASSERT(argus_trigger_waiting(t)); /* stalled */
	wake(T0 + 5 * SEC + 10 * MS, APP);
	hook(T0 + 5 * SEC + 15 * MS, ARGUS_EV_DISPATCH_BEGIN);
	app_read(T0 + 5 * SEC + 20 * MS, APP);
	hook(T0 + 5 * SEC + 30 * MS, ARGUS_EV_DISPATCH_END);
	sys_enter(T0 + 5 * SEC + 40 * MS, APP, 7, -1);
	block(T0 + 5 * SEC + 50 * MS, APP);
	tick_until(T0 + 5 * SEC + 60 * MS, T0 + 7 * SEC);
	ASSERT_EQ(rec.nends, 1);
	ASSERT(!argus_trigger_waiting(t));
	teardown();
	/* a process exec'd in the stream, connected, not yet in its loop */
	setup(true);
	app_connects(T0 + 10 * MS);
	tick_until(T0 + 20 * MS, T0 + SEC);
	ASSERT(argus_trigger_waiting(t));
	teardown();
}

/* An always-on daemon sees processes by the million (a build): an exited
 * one's names are kept ten minutes (reports name the graph's last five),
 * then leave the tables; a running app's stay */
TEST(exited_processes_leave_the_tables_after_ten_minutes)
{
	setup(false);
	enum { N = 2000 };
	for (uint32_t k = 0; k < N; k++) {
		uint64_t ts = T0 + (uint64_t)k * 600 * MS; /* 20 min in all */
		uint32_t pid = 1000 + k, tid = 100000 + k;
		struct argus_event e = ev(ts, ARGUS_EV_PROC_FORK, OTHER, OTHER);
		e.fork.child_pid = e.fork.child_tid = pid;
		strcpy(e.fork.comm, "cc1");
		feed(e);
		e = ev(ts + MS, ARGUS_EV_THREAD_NEW, pid, pid);
		e.fork.child_pid = pid;
		e.fork.child_tid = tid;
		strcpy(e.fork.comm, "cc1-worker");
		feed(e);
		feed(ev(ts + 2 * MS, ARGUS_EV_THREAD_EXIT, pid, tid));
		feed(ev(ts + 3 * MS, ARGUS_EV_PROC_EXIT, pid, pid));
	}
	struct argus_trigger_stats st;
	argus_trigger_get_stats(t, &st);
	/* at most the last 11 minutes' (10 kept + 1 between sweeps), of 2 000 */
	ASSERT_MSG(st.procs_kept <= 1150, "%u processes kept", st.procs_kept);
	ASSERT_MSG(st.threads_named <= 1150, "%u thread names kept", st.threads_named);
	ASSERT_STR_EQ(argus_trigger_comm(t, 1000 + N - 1), "cc1");
	ASSERT_STR_EQ(argus_trigger_thread_comm(t, 100000 + N - 1), "cc1-worker");
	ASSERT_STR_EQ(argus_trigger_comm(t, 1000 + N - 500), "cc1"); /* 5 min ago */
	ASSERT_STR_EQ(argus_trigger_comm(t, 1000), "");              /* 20 min ago */
	ASSERT_STR_EQ(argus_trigger_thread_comm(t, 100000), "");
	ASSERT_STR_EQ(argus_trigger_comm(t, APP), "gedit"); /* running */
	ASSERT_STR_EQ(argus_trigger_comm(t, XPID), "Xorg");
	teardown();
}

/* One short-lived GUI app: its UI thread reads input on its own display
 * connection, a worker of it reads an eventfd (a reader learnt), both exit */
static void gui_app_comes_and_goes(uint64_t ts, uint32_t k)
{
	uint32_t pid = 5000 + k;
	uint64_t srv = 0xffff000100000000ull + 0x1000ull * k, cli = srv + 0x800;
	struct argus_event e = ev(ts, ARGUS_EV_PROC_FORK, OTHER, OTHER);
	e.fork.child_pid = e.fork.child_tid = pid;
	strcpy(e.fork.comm, "xterm");
	feed(e);
	tool_ipc(ts + MS, ARGUS_EV_IPC_SEND, XPID, srv, cli);
	tool_ipc(ts + 2 * MS, ARGUS_EV_IPC_RECV, pid, cli, srv);
	e = ev(ts + 3 * MS, ARGUS_EV_IPC_RECV, pid, pid + 1);
	e.ipc.obj = 0xffff000200000000ull + 0x100ull * k;
	e.ipc.obj_kind = ARGUS_OBJ_EVENTFD;
	e.ipc.ret = 8;
	feed(e);
	feed(ev(ts + 4 * MS, ARGUS_EV_PROC_EXIT, pid, pid));
}

/* Every app a user opens adds a UI thread and the readers learnt in it:
 * those of processes that left the tables leave with them, and a running
 * app's connection still names its reader after the slots moved */
TEST(ui_threads_of_exited_apps_leave_the_tables_with_them)
{
	setup(false);
	x_send(T0 + MS);
	app_read(T0 + 2 * MS, APP);
	enum { N = 400 };
	for (uint32_t k = 0; k < N; k++)
		gui_app_comes_and_goes(T0 + SEC + (uint64_t)k * 3 * SEC, k); /* 20 min in all */
	struct argus_trigger_stats st;
	argus_trigger_get_stats(t, &st);
	/* the last 11 minutes' at most (10 kept + 1 between sweeps), of 400 */
	ASSERT_MSG(st.ui_kept <= 230, "%u UI threads kept", st.ui_kept);
	ASSERT_MSG(st.wakers_kept <= 230, "%u readers kept", st.wakers_kept);
	ASSERT_MSG(st.ui_kept >= 150, "%u UI threads kept", st.ui_kept); /* 5 min: kept */
	/* gedit's reader moved down: input it does not read is still a stall */
	uint64_t now = T0 + SEC + (uint64_t)N * 3 * SEC;
	app_read(now, APP);
	sys_enter(now + 10 * MS, APP, 7, 10 * SEC);
	block(now + 10 * MS + 1000, APP);
	x_send(now + 100 * MS);
	tick_until(now + 101 * MS, now + 3 * SEC);
	ASSERT_EQ(rec.nstalls, 1);
	ASSERT_EQ(rec.stalls[0].tid, APP);
	teardown();
}

/* A new process at an exited thread's tid is named as its process, not
 * as that thread */
TEST(a_process_at_an_exited_threads_tid_has_its_own_name)
{
	setup(false);
	struct argus_event e = ev(T0, ARGUS_EV_THREAD_NEW, APP, APP);
	e.fork.child_pid = APP;
	e.fork.child_tid = 555;
	strcpy(e.fork.comm, "gdbus");
	feed(e);
	feed(ev(T0 + MS, ARGUS_EV_THREAD_EXIT, APP, 555));
	e = ev(T0 + 2 * MS, ARGUS_EV_PROC_FORK, OTHER, OTHER);
	e.fork.child_pid = e.fork.child_tid = 555;
	strcpy(e.fork.comm, "xdotool");
	feed(e);
	ASSERT_STR_EQ(argus_trigger_thread_comm(t, 555), "xdotool");
	teardown();
}

TEST_MAIN(TEST_ENTRY(finds_ui_thread_by_display_connection),
          TEST_ENTRY(long_running_handler_fires_once_and_records_end),
          TEST_ENTRY(short_handlers_are_lags_not_stalls), TEST_ENTRY(idle_ui_thread_never_fires),
          TEST_ENTRY(blocked_in_poll_on_another_fd_with_nothing_pending_never_fires),
          TEST_ENTRY(input_unread_while_blocked_in_poll_fires_long_wait),
          TEST_ENTRY(input_read_before_its_send_was_stamped_is_not_pending),
          TEST_ENTRY(input_read_before_its_send_was_stamped_needs_no_later_empty_read),
          TEST_ENTRY(input_after_the_bytes_line_up_is_pending),
          TEST_ENTRY(bytes_read_long_before_a_write_do_not_hide_it),
          TEST_ENTRY(input_sent_while_a_read_found_nothing_stays_pending),
          TEST_ENTRY(yield_loop_is_classified),
          TEST_ENTRY(dispatch_without_input_fires_dispatch_cause),
          TEST_ENTRY(input_queued_during_a_stall_counts_from_its_end),
          TEST_ENTRY(threshold_is_configurable), TEST_ENTRY(non_display_sockets_are_ignored),
          TEST_ENTRY(threads_are_named_apart_from_their_process),
          TEST_ENTRY(waiting_on_time_only_while_a_stall_could_come),
          TEST_ENTRY(exited_processes_leave_the_tables_after_ten_minutes),
          TEST_ENTRY(ui_threads_of_exited_apps_leave_the_tables_with_them),
          TEST_ENTRY(a_process_at_an_exited_threads_tid_has_its_own_name))
