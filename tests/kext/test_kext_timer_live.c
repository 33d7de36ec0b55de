/*
 * test_kext_timer_live.c - timer records in the default capture (label
 * "live"; kext/proc.bpf.c, docs/kext.md "Timers"): a blocking call's own
 * timeout (an hrtimer_sleeper, known by its callback and the thread it
 * names, no map entry) writes only its fire, naming that thread (kind
 * SLEEPER); a process's ITIMER_REAL (known by its callback and the process
 * it is in) is armed, cancelled and fired; a timerfd's hrtimer (marked in
 * the `timers` map at its arm) is armed and fired on the same object.
 */
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/time.h>
#include <sys/timerfd.h>

#include "collect.h"

static void *late_writer(void *arg)
{
	/* long enough for the poll to block first, also in a sanitizer build */
	struct timespec d = {.tv_nsec = 100 * 1000 * 1000};

	nanosleep(&d, NULL);
	if (write(*(int *)arg, "x", 1) != 1)
		_exit(1);
	return NULL;
}

/* The traced child: a poll whose timeout fires, then one that a write
 * from another thread ends first (its timer is cancelled). */
static void poll_timeouts_main(void *arg)
{
	(void)arg;
	int p[2];
	pthread_t t;

	poll(NULL, 0, 20);
	if (pipe(p) || pthread_create(&t, NULL, late_writer, &p[1]))
		_exit(1);
	struct pollfd pf = {.fd = p[0], .events = POLLIN};
	if (poll(&pf, 1, 5000) != 1)
		_exit(1);
	pthread_join(t, NULL);
}

TEST(poll_timeouts_fire_only)
{
	struct argus_kext_opts o = {.pid_filter = true, .no_samples = true};
	struct collector c;

	require_live();
	const struct argus_event *fire = NULL;
	size_t sleeper_arms = 0, fires = 0;
	uint64_t t0;
	struct gated_child g;
	/* The kernel does not run a program on a CPU where it is running
	 * already: a hard timer that expires while hrtimer_expire_entry runs
	 * for a soft one (interrupts on) is not written, only counted
	 * (docs/kext.md "Runs the kernel skipped"). A run without the fire
	 * and with skipped runs counted is tried again, twice at most; one
	 * without the fire and none skipped fails. */
	for (int attempt = 0;; attempt++) {
		t0 = mono_ns();
		g = collect_child(&c, &o, poll_timeouts_main, NULL);
		fires = 0;
		fire = NULL;
		for (size_t i = 0; i < c.n; i++) {
			const struct argus_event *e = &c.ev[i];

			if (e->type == ARGUS_EV_TIMER_FIRE && e->tid == (uint32_t)g.pid) {
				fires++;
				if (!fire)
					fire = e;
			}
		}
		uint64_t skipped = argus_kext_prog_misses(c.k);
		if (fire || !skipped || attempt == 2) {
			ASSERT_MSG(fire,
			           "no TIMER_FIRE of the first poll's timeout (%llu program runs "
			           "skipped)",
			           (unsigned long long)skipped);
			break;
		}
		fprintf(stderr, "no fire, %llu program runs skipped (nested): again\n",
		        (unsigned long long)skipped);
		collector_free(&c);
	}
	/* a sleeper is known at its fire alone: neither poll's arm nor the
	 * second one's cancel (a write ended it first) is written. Only the
	 * sleepers' (their function, hrtimer_wakeup): the kernel may arm a
	 * timer of its own while a child's thread is current (the deadline
	 * server's), which is that thread's record */
	for (size_t i = 0; i < c.n; i++) {
		const struct argus_event *e = &c.ev[i];

		if ((e->type == ARGUS_EV_TIMER_ARM || e->type == ARGUS_EV_TIMER_CANCEL) &&
		    e->timer.function == fire->timer.function)
			sleeper_arms++;
	}
	ASSERT_EQ(sleeper_arms, 0);
	ASSERT_EQ(fires, 1);
	ASSERT_EQ(fire->timer.kind, ARGUS_TIMER_SLEEPER);
	ASSERT(fire->timer.function != 0);
	ASSERT(fire->ts >= t0 + 15000000ull);
	/* the expiry runs in interrupt context; the header names the thread
	 * the timeout wakes */
	ASSERT(fire->flags & ARGUS_F_HARDIRQ);
	ASSERT_EQ(fire->pid, (uint32_t)g.pid);
	collector_free(&c);
}

/* Not a sleeper: followed through the `timers` map from its arm. */
TEST(default_capture_timerfd_hrtimer_is_armed_and_fired)
{
	struct argus_kext_opts o = {.pid_filter = true, .no_samples = true};
	struct collector c;

	require_live();
	struct gated_child g = collect_child(&c, &o, child_timerfd_20ms, NULL);

	const struct argus_event *arm = NULL, *fire = NULL;
	for (size_t i = 0; i < c.n; i++) {
		const struct argus_event *e = &c.ev[i];

		if (!arm && e->type == ARGUS_EV_TIMER_ARM && e->pid == (uint32_t)g.pid &&
		    e->timer.expires_ns > e->ts + 15000000ull)
			arm = e;
		if (arm && !fire && e->type == ARGUS_EV_TIMER_FIRE &&
		    e->timer.obj == arm->timer.obj)
			fire = e;
	}
	ASSERT_MSG(arm, "no TIMER_ARM of the timerfd's hrtimer");
	ASSERT_MSG(fire, "no TIMER_FIRE of the timerfd's hrtimer");
	ASSERT_EQ(fire->timer.function, arm->timer.function);
	ASSERT(fire->ts >= arm->ts + 15000000ull);
	ASSERT(fire->flags & ARGUS_F_HARDIRQ);
	collector_free(&c);
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* ITIMER_REAL armed, then cancelled; armed again, then fired (SIGALRM). */
static void itimer_main(void *arg)
{
	(void)arg;
	struct itimerval v = {.it_value = {.tv_usec = 500000}}, z = {0};

	signal(SIGALRM, on_alarm);
	if (setitimer(ITIMER_REAL, &v, NULL) || setitimer(ITIMER_REAL, &z, NULL))
		_exit(1);
	v.it_value.tv_usec = 20000;
	if (setitimer(ITIMER_REAL, &v, NULL))
		_exit(1);
	pause();
}

TEST(itimer_real_is_armed_cancelled_and_fired)
{
	struct argus_kext_opts o = {.pid_filter = true, .no_samples = true};
	struct collector c;

	require_live();
	struct gated_child g = collect_child(&c, &o, itimer_main, NULL);

	/* the first arm is the 500 ms one; the rest are that timer's: the
	 * kernel may arm a timer of its own while the child is current (the
	 * deadline server's), a record of the child's too */
	const struct argus_event *arm1 = NULL, *cancel = NULL, *arm2 = NULL, *fire = NULL;
	for (size_t i = 0; i < c.n; i++) {
		const struct argus_event *e = &c.ev[i];

		if (e->type == ARGUS_EV_TIMER_ARM && e->pid == (uint32_t)g.pid) {
			if (!arm1 && e->timer.expires_ns > e->ts + 300000000ull &&
			    e->timer.expires_ns < e->ts + 700000000ull)
				arm1 = e;
			else if (cancel && !arm2 && e->timer.obj == arm1->timer.obj)
				arm2 = e;
		}
		if (arm1 && !cancel && e->type == ARGUS_EV_TIMER_CANCEL &&
		    e->timer.obj == arm1->timer.obj)
			cancel = e;
		if (arm2 && !fire && e->type == ARGUS_EV_TIMER_FIRE &&
		    e->timer.obj == arm2->timer.obj)
			fire = e;
	}
	ASSERT_MSG(arm1, "no TIMER_ARM of the first setitimer");
	ASSERT_MSG(cancel, "no TIMER_CANCEL of the itimer");
	ASSERT_MSG(arm2, "no TIMER_ARM of the second setitimer");
	ASSERT_MSG(fire, "no TIMER_FIRE of the itimer");
	ASSERT_EQ(arm2->timer.obj, arm1->timer.obj); /* the process's one timer */
	ASSERT_EQ(cancel->pid, (uint32_t)g.pid);
	ASSERT(fire->ts >= arm2->ts + 15000000ull);
	ASSERT(fire->flags & ARGUS_F_HARDIRQ);
	collector_free(&c);
}

TEST_MAIN(TEST_ENTRY(poll_timeouts_fire_only),
          TEST_ENTRY(default_capture_timerfd_hrtimer_is_armed_and_fired),
          TEST_ENTRY(itimer_real_is_armed_cancelled_and_fired))
