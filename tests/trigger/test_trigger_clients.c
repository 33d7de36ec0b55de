/*
 * test_trigger_clients.c - the stall trigger on hand-built event sequences
 * (trigger_fixture.h): who can be the stalled app: windowless X clients, the X server's own bus connection, readers, a socket at a closed connection's address, replies that are no events, apps starting up under load.
 */
#include "trigger_fixture.h"

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

/* A windowless client (xdotool) exits, its end of file not seen by the
 * server; a fork server starts and gets a socketpair at the client's two
 * addresses (both ends: the kernel reused them, no connect record), then
 * waits in recvmsg for its parent. The connection ended with its process:
 * no launching app. */
TEST(a_socketpair_at_an_exited_clients_addresses_is_no_display_client)
{
	setup(true);
	app_connects(T0 + 10 * MS);
	server_reads(T0 + 10 * MS + 1000);
	x_send(T0 + 10 * MS + 2000);
	app_read(T0 + 10 * MS + 3000, APP);
	feed(ev(T0 + 20 * MS, ARGUS_EV_PROC_EXIT, APP, APP));
	struct argus_event e = ev(T0 + 200 * MS, ARGUS_EV_PROC_EXEC, STREAMER, STREAMER);
	strcpy(e.exec.comm, "forkserver");
	feed(e);
	tool_ipc(T0 + 201 * MS, ARGUS_EV_IPC_RECV, STREAMER, CLI_SOCK, SRV_SOCK);
	tool_ipc(T0 + 202 * MS, ARGUS_EV_IPC_SEND, STREAMER, CLI_SOCK, SRV_SOCK);
	e = ev(T0 + 203 * MS, ARGUS_EV_SYS_ENTER, STREAMER, STREAMER);
	e.sys_enter.nr = 47; /* recvmsg: its parent's next request */
	e.sys_enter.obj = CLI_SOCK;
	e.sys_enter.obj_kind = ARGUS_OBJ_UNIX;
	feed(e);
	e = ev(T0 + 203 * MS + 1000, ARGUS_EV_SCHED_SWITCH, STREAMER, STREAMER);
	e.sched_switch.prev_state = 1;
	feed(e);
	tick_until(T0 + 204 * MS, T0 + 6 * SEC);
	for (int i = 0; i < rec.nstalls && i < 8; i++)
		ASSERT_MSG(strcmp(rec.stalls[i].comm, "forkserver"), "stall %d names %s", i,
		           rec.stalls[i].comm);
	teardown();
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
	 * since its last write) that it reads gives it a window: now it is
	 * an app, and the next one it leaves unread is a stall */
	server_reads_other(T0 + 4 * SEC);
	x_send(T0 + 4 * SEC + 1000);
	tick_until(T0 + 4 * SEC + 2000, T0 + 7 * SEC);
	ASSERT_EQ(rec.nstalls, 0); /* unread: no window seen yet */
	wake(T0 + 7 * SEC, APP);
	app_read(T0 + 7 * SEC + 1000, APP);
	app_read_nothing(T0 + 7 * SEC + 2000, 500);
	sys_enter(T0 + 7 * SEC + 3000, APP, 7, -1);
	block(T0 + 7 * SEC + 4000, APP);
	server_reads_other(T0 + 8 * SEC);
	x_send(T0 + 8 * SEC + 1000);
	tick_until(T0 + 8 * SEC + 2000, T0 + 11 * SEC);
	ASSERT_EQ(rec.nstalls, 1);
	teardown();
}

/* A windowless X client (a script that opened a display connection, a
 * withdrawn Tk root) waits for a program it ran (wait4) while xdotool
 * remaps keys: the server writes the keymap's MappingNotify to every
 * client, this one too (an event: written while serving xdotool), and it
 * leaves them unread for seconds. It never read an event: no window, no
 * stall (live on 2026-11-26, /tmp/trig5-wl: `python3 ... blocked in wait4`
 * was a stall before). The app beside it that reads its events and then
 * hangs with a key unread still stalls. */
TEST(a_windowless_client_that_leaves_broadcast_events_unread_is_no_app)
{
	setup_started(); /* the app: it read its window's events */
	struct argus_event e = ev(T0, ARGUS_EV_COMM, TOOL, TOOL);
	strcpy(e.comm.comm, "python3");
	e.comm.is_process = 1;
	feed(e);
	tool_request(T0 + MS); /* it connects and reads its replies */
	tool_ipc(T0 + MS + 30000, ARGUS_EV_IPC_RECV, TOOL, TOOL_CLI, TOOL_SRV);
	/* its loop's wait once (Tk's update()): it has started up */
	e = ev(T0 + MS + 40000, ARGUS_EV_SYS_ENTER, TOOL, TOOL);
	e.sys_enter.nr = 7;
	e.sys_enter.arg0 = 10;
	e.sys_enter.fd = -1;
	feed(e);
	e = ev(T0 + MS + 50000, ARGUS_EV_SCHED_SWITCH, TOOL, TOOL);
	e.sched_switch.prev_state = 1;
	feed(e);
	e = ev(T0 + MS + 500000, ARGUS_EV_SCHED_SWITCH, 0, 0);
	e.sched_switch.next_pid = TOOL;
	e.sched_switch.next_tid = TOOL;
	feed(e);
	e = ev(T0 + 2 * MS, ARGUS_EV_SYS_ENTER, TOOL, TOOL);
	e.sys_enter.nr = 61; /* wait4 */
	e.sys_enter.fd = -1;
	feed(e);
	e = ev(T0 + 2 * MS + 100, ARGUS_EV_SCHED_SWITCH, TOOL, TOOL);
	e.sched_switch.prev_state = 1;
	feed(e);
	/* a key remapped: MappingNotify to every client, after the
	 * request of another (xdotool's) */
	for (uint64_t k = 1; k <= 3; k++) {
		server_reads_other(T0 + k * SEC);
		tool_ipc(T0 + k * SEC + 1000, ARGUS_EV_IPC_SEND, XPID, TOOL_SRV, TOOL_CLI);
		x_send(T0 + k * SEC + 2000);
		/* the app reads it and is back in its loop */
		wake(T0 + k * SEC + 3000, APP);
		app_read(T0 + k * SEC + 4000, APP);
		app_read_nothing(T0 + k * SEC + 5000, 500);
		sys_enter(T0 + k * SEC + 6000, APP, 7, -1);
		block(T0 + k * SEC + 7000, APP);
	}
	tick_until(T0 + 3 * SEC + MS, T0 + 8 * SEC);
	ASSERT_EQ(rec.nstalls, 0);
	/* the app hangs in a handler with a key unread */
	x_send(T0 + 8 * SEC);
	wake(T0 + 8 * SEC + 1000, APP);
	app_read(T0 + 8 * SEC + 2000, APP);
	futex_wait(T0 + 8 * SEC + 3000, APP, APP_LOCK);
	block(T0 + 8 * SEC + 4000, APP);
	x_send(T0 + 8200 * MS);
	tick_until(T0 + 8200 * MS + 1000, T0 + 11 * SEC);
	ASSERT_EQ(rec.nstalls, 1);
	ASSERT_STR_EQ(rec.stalls[0].comm, "gedit");
	teardown();
}

/* A GUI client exits and its exit record is lost (a full ring): the
 * server's read of its connection's end of file says it is gone, and
 * the input the server had just written to it is no stall of a dead app. */
TEST(a_client_whose_connection_the_server_read_closed_never_stalls)
{
	setup(false);
	one_click(T0 + 10 * MS, 5 * MS);
	sys_enter(T0 + 100 * MS, APP, 7, 10 * SEC);
	block(T0 + 100 * MS + 1000, APP);
	x_send(T0 + 200 * MS); /* an event to it as it exits */
	struct argus_event r = ev(T0 + 210 * MS, ARGUS_EV_IPC_RECV, XPID, XPID);
	r.ipc.obj = SRV_SOCK;
	r.ipc.peer_obj = CLI_SOCK;
	r.ipc.obj_kind = ARGUS_OBJ_UNIX;
	r.ipc.ret = 0; /* the end of the file */
	feed(r);
	tick_until(T0 + 211 * MS, T0 + 4 * SEC);
	ASSERT_EQ(rec.nstalls, 0);
	teardown();
}

TEST_MAIN(TEST_ENTRY(a_windowless_x_client_is_never_the_stalled_app),
          TEST_ENTRY(a_windowless_x_client_sleeping_after_its_start_is_no_launch_stall),
          TEST_ENTRY(a_bus_daemon_the_x_server_talks_to_is_never_the_stalled_app),
          TEST_ENTRY(a_dispatching_reader_hands_its_input_to_no_worker),
          TEST_ENTRY(a_hung_handler_that_looks_at_the_connection_is_one_stall),
          TEST_ENTRY(a_socket_at_a_closed_display_connections_address_is_a_new_one),
          TEST_ENTRY(an_app_starting_up_under_load_is_no_stall),
          TEST_ENTRY(replies_written_after_another_clients_request_are_no_events),
          TEST_ENTRY(a_client_whose_connection_the_server_read_closed_never_stalls),
          TEST_ENTRY(a_windowless_client_that_leaves_broadcast_events_unread_is_no_app),
          TEST_ENTRY(a_socketpair_at_an_exited_clients_addresses_is_no_display_client))
