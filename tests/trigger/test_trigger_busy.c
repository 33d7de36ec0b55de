/*
 * test_trigger_busy.c - the stall trigger on hand-built event sequences
 * (trigger_fixture.h): busy without a wait, and a Tk loop that waits on a condition.
 */
#include "trigger_fixture.h"

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
	round_trip(T0 + 2501 * MS, 2 * MS); /* a poll for a reply: 2 ms */
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

/* Work that began before any event came (a file's layout run from an idle
 * callback once the file loaded: the Open's key was read and the thread
 * waited a frame before the work began): the user's first key 0.7 s into
 * it finds the thread already busy. The hang counts from when the thread
 * stopped waiting, not from that key: a key at 0.7 s and one at 1.7 s each
 * wait under 2 s, yet nothing was answered for 2.5 s (bench/realapps r11:
 * geany busy 2.5 s, keys at 0.73 s and 1.75 s into it, no stall before).
 * Without any event in it the same work is nobody's stall. */
TEST(busy_work_an_event_finds_counts_from_its_start)
{
	for (int with_key = 1; with_key >= 0; with_key--) {
		setup_started();
		app_connects(T0 + MS);
		first_input(T0 + 10 * MS);
		const uint64_t B = T0 + 300 * MS;
		/* then idle in its loop, a frame each 16 ms */
		for (uint64_t ts = T0 + 100 * MS; ts < B; ts += 16 * MS) {
			wake(ts, APP);
			app_connects(ts + 500000);
			sys_enter(ts + 1000000, APP, 7, 14);
			block(ts + 1010000, APP);
		}
		wake(B, APP); /* its poll's timeout: no event */
		for (uint64_t ts = B + 10 * MS; ts < B + 2500 * MS; ts += 10 * MS) {
			if (with_key && (ts - B) % (1000 * MS) == 700 * MS) {
				key_event(ts);
				app_read(ts + 2000, APP);
			}
			round_trip(ts + 3000, 300000);
		}
		sys_enter(B + 2500 * MS, APP, 7, -1); /* back in its loop */
		block(B + 2500 * MS + 1000, APP);
		tick_until(B + 2501 * MS, B + 4 * SEC);
		if (!with_key) {
			ASSERT_EQ(rec.nstalls, 0);
			teardown();
			continue;
		}
		ASSERT_EQ(rec.nstalls, 1);
		ASSERT_EQ(rec.stalls[0].tid, APP);
		ASSERT_EQ(rec.stalls[0].cls, ARGUS_STALL_LONG_RUNNING);
		/* from the work's start, give or take the window that still
		 * held the last frames' waits (judged 100 ms old): not the key's */
		ASSERT(rec.stalls[0].since >= B);
		ASSERT(rec.stalls[0].since <= B + 100 * MS);
		ASSERT(rec.stalls[0].detected >= rec.stalls[0].since + 2000 * MS);
		ASSERT(rec.stalls[0].detected <= B + 2150 * MS);
		ASSERT_EQ(rec.nends, 1);
		ASSERT(rec.ends[0].end >= B + 2400 * MS);
		teardown();
	}
}

/* An app animating from its first window on (GTK 4's blinking cursor: a
 * frame each 16 ms, its loop's poll waiting the rest) never waits 100 ms in
 * one go, yet it is idle in its loop: half of each 100 ms in its loop's
 * wait. Its 3 s hang on a file's layout, with round trips and keys read
 * (bench/realapps r7, gnome-text-editor: not seen in 2 of 3 runs), is a
 * stall. */
TEST(an_app_animating_since_its_start_that_hangs_fires_busy_without_a_wait)
{
	setup(false);
	app_connects(T0 + MS);
	first_input(T0 + 10 * MS);
	const uint64_t B = T0 + 2 * SEC;
	for (uint64_t ts = T0 + 20 * MS; ts < B; ts += 16 * MS) {
		wake(ts, APP);
		app_connects(ts + 500000); /* the frame drawn */
		sys_enter(ts + 2 * MS, APP, 7, 14);
		block(ts + 2 * MS + 10000, APP);
	}
	ASSERT_EQ(rec.nstalls, 0);
	key_event(B); /* the Open */
	wake(B + 5000, APP);
	app_read(B + 10000, APP);
	for (uint64_t ts = B + 10 * MS; ts < B + 3000 * MS; ts += 10 * MS) {
		if ((ts - B) % (500 * MS) == 0) {
			key_event(ts);
			app_read(ts + 2000, APP);
		}
		round_trip(ts + 3000, 70000); /* 70 us of each 10 ms waited */
	}
	ASSERT_EQ(rec.nstalls, 1);
	ASSERT_EQ(rec.stalls[0].cls, ARGUS_STALL_LONG_RUNNING);
	ASSERT(rec.stalls[0].since >= B - 100 * MS);
	ASSERT(rec.stalls[0].since <= B + 100 * MS);
	ASSERT(rec.stalls[0].detected <= B + 2150 * MS);
	teardown();
}

/* An app busy in its loop, not in one handler: frames of 150 ms on CPU
 * (round trips 10 % of them), its loop's own wait of 5 ms between them, the
 * keys and the probe's pings read and answered between frames. It waits a
 * tenth of the time, never in one go; yet its loop comes round each 155 ms
 * and blocks there with nothing ready. argus bench quiet, 2026-11-28:
 * gnome-text-editor starting under load ran 54 % of 2 s, blocked 15 % (12 loop
 * waits of 4-11 ms), its pings answered within 68 ms: a false stall. */
TEST(an_app_whose_loop_comes_round_between_busy_frames_is_no_stall)
{
	setup_started();
	const uint64_t B = T0 + 300 * MS;
	app_reads_a_key(B);
	for (uint64_t f = B + 10 * MS; f < B + 5 * SEC; f += 155 * MS) {
		key_event(f);
		app_read(f + 2000, APP);
		for (uint64_t ts = f + 5 * MS; ts < f + 150 * MS; ts += 10 * MS)
			round_trip(ts, MS);
		poll_loop(f + 150 * MS, 5 * MS);
		block(f + 150 * MS + 1000, APP);
		wake(f + 155 * MS - 1000, APP);
	}
	tick_until(B + 5 * SEC, B + 6 * SEC);
	ASSERT_EQ(rec.nstalls, 0);
	teardown();
}

/* A handler's round trips poll the display connection alone, and xcb
 * polls it again when the first poll's wake-up brought part of the reply:
 * that second poll follows no request, yet it is no loop of the app's
 * (bench/realapps r11, geany: such polls closed the busy window that the
 * loop's own waits close, and its 2.04 s hang was missed). */
TEST(a_round_trips_second_poll_is_not_the_loop_coming_round)
{
	setup_started();
	const uint64_t B = T0 + 300 * MS;
	app_reads_a_key(B);
	for (uint64_t ts = B + 10 * MS; ts < B + 3000 * MS; ts += 10 * MS) {
		if ((ts - B) % (500 * MS) == 0) {
			key_event(ts);
			app_read(ts + 2000, APP);
		}
		round_trip(ts + 3000, 100000);
		poll_display(ts + 200000); /* the rest of the reply: no request before */
		block(ts + 201000, APP);
		x_send(ts + 300000);
		wake(ts + 301000, APP);
		app_read(ts + 302000, APP);
	}
	ASSERT_EQ(rec.nstalls, 1);
	ASSERT_EQ(rec.stalls[0].cls, ARGUS_STALL_LONG_RUNNING);
	ASSERT(rec.stalls[0].detected <= B + 2150 * MS);
	teardown();
}

/* A long line drawn frame after frame, each frame 1.6 s of layout (round
 * trips only) and its loop's poll of 5 ms between them: the loop comes
 * round, but input waits 1.6 s at a time, and back to back that is one
 * freeze (bench/realapps r11, geany on this machine: stretches of 1.64 and
 * 0.9 s; any loop wait closing the window lost it). */
TEST(stretches_of_a_second_or_more_between_loop_waits_are_one_stall)
{
	setup_started();
	const uint64_t B = T0 + 300 * MS;
	app_reads_a_key(B);
	for (uint64_t f = B + 10 * MS; f < B + 4 * SEC; f += 1605 * MS) {
		keyed_round_trips(B, f, f + 1600 * MS, 100000);
		poll_loop(f + 1600 * MS, 5 * MS);
		block(f + 1600 * MS + 1000, APP);
		wake(f + 1605 * MS - 1000, APP);
	}
	ASSERT_EQ(rec.nstalls, 1);
	ASSERT_EQ(rec.stalls[0].cls, ARGUS_STALL_LONG_RUNNING);
	ASSERT(rec.stalls[0].since <= B + 20 * MS);
	ASSERT(rec.stalls[0].detected <= B + 2150 * MS);
	teardown();
}

/* A hang on CPU that never switches out (long time slices) while it reads
 * the keys that come and polls the display connection for replies that are
 * there already: each key opens an episode of the episode rules; the busy
 * window's time on CPU goes on across them (bench/realapps r6, gedit: each
 * new episode restarted the count, seen 11.5 s late). */
TEST(busy_time_on_cpu_counts_across_episodes)
{
	setup_started();
	app_connects(T0 + MS);
	first_input(T0 + 10 * MS);
	const uint64_t B = T0 + 300 * MS;
	key_event(B);
	wake(B + 5000, APP);
	app_read(B + 10000, APP);
	for (uint64_t ts = B + 100 * MS; ts < B + 3000 * MS; ts += 100 * MS) {
		key_event(ts);
		app_read(ts + 2000, APP);
		app_connects(ts + 3000); /* a request; its reply is in at once */
		server_reads(ts + 3500);
		sys_enter(ts + 4000, APP, 7, -1);
		x_send(ts + 4500);
		sys_exit(ts + 5000, APP, 7, 1);
		app_read(ts + 6000, APP);
		tick_until(ts + 10 * MS, ts + 90 * MS);
	}
	ASSERT_EQ(rec.nstalls, 1);
	ASSERT_EQ(rec.stalls[0].cls, ARGUS_STALL_LONG_RUNNING);
	ASSERT(rec.stalls[0].since >= B - 100 * MS);
	ASSERT(rec.stalls[0].since <= B + 100 * MS);
	ASSERT(rec.stalls[0].detected <= B + 2150 * MS);
	ASSERT(rec.stalls[0].oncpu_ns >= 1900 * MS);
	teardown();
}

TEST_MAIN(TEST_ENTRY(busy_handler_that_pumps_events_fires_busy_without_a_wait),
          TEST_ENTRY(busy_work_in_chunks_is_one_stall),
          TEST_ENTRY(a_thread_kept_from_the_cpu_is_not_busy_without_a_wait),
          TEST_ENTRY(an_app_busy_starting_up_is_not_busy_without_a_wait),
          TEST_ENTRY(an_animating_idle_app_never_fires_busy_without_a_wait),
          TEST_ENTRY(busy_rule_does_not_fire_again_before_the_thread_waits),
          TEST_ENTRY(tk_loop_waits_on_a_condition_and_a_stall_ends_there),
          TEST_ENTRY(a_handler_futex_woken_late_is_not_the_loop_wait),
          TEST_ENTRY(busy_work_an_event_finds_counts_from_its_start),
          TEST_ENTRY(an_app_animating_since_its_start_that_hangs_fires_busy_without_a_wait),
          TEST_ENTRY(busy_time_on_cpu_counts_across_episodes),
          TEST_ENTRY(an_app_whose_loop_comes_round_between_busy_frames_is_no_stall),
          TEST_ENTRY(a_round_trips_second_poll_is_not_the_loop_coming_round),
          TEST_ENTRY(stretches_of_a_second_or_more_between_loop_waits_are_one_stall))
