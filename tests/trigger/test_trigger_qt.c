/*
 * test_trigger_qt.c - the stall trigger on hand-built event sequences
 * (trigger_fixture.h): Qt's shape (an event thread relaying input to the main thread), zero-timeout polls, one hang with a brief return.
 */
#include "trigger_fixture.h"

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

TEST_MAIN(TEST_ENTRY(qt_relay_idle_and_typing_never_fires),
          TEST_ENTRY(qt_main_thread_hung_after_the_relay_fires_on_it),
          TEST_ENTRY(default_capture_qt_main_thread_hung_after_the_relay_fires_on_it),
          TEST_ENTRY(zero_timeout_polls_that_find_work_are_not_a_yield_loop),
          TEST_ENTRY(one_hang_with_a_brief_return_is_one_stall))
