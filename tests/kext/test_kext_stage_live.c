/*
 * test_kext_stage_live.c - records gathered per CPU (label "live";
 * kext/stage.bpf.c, docs/kext.md "Rings, wake-ups and losses"): the
 * default capture writes a CPU's records to its ring in batches. A record
 * still reaches the ring while the thread it is about sleeps, whether its
 * CPU goes idle or stays busy with an untraced task, and what is still
 * gathered when tracing stops is handed out, not lost.
 */
#include <sys/mman.h>

#include "collect.h"

#define SHORT_SLEEPS 20

/* An untraced task that keeps CPU 0 busy: the traced child's CPU never
 * goes idle, so only the age of what it gathered gets it written. */
static pid_t spin_cpu0(void)
{
	pid_t p = fork();

	if (p == 0) {
		/* a failed assertion leaves the test at once: no spinner stays */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pin_cpu0();
		for (;;)
			__asm__ volatile("" ::: "memory");
	}
	return p;
}

struct sleeper {
	int say_fd;                 /* written once the short sleeps are done */
	bool pin;                   /* on CPU 0, with the spinner */
	volatile uint64_t long_from; /* shared: when the long sleep began */
};

static void sleep_us(long us)
{
	struct timespec ts = {.tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000};

	nanosleep(&ts, NULL);
}

static void sleeper_main(void *arg)
{
	struct sleeper *s = arg;

	if (s->pin)
		pin_cpu0();
	for (int i = 0; i < SHORT_SLEEPS; i++)
		sleep_us(200);
	s->long_from = mono_ns();
	if (write(s->say_fd, "s", 1) != 1)
		_exit(1);
	sleep_us(1500000);
}

/* The thread's blocking switches from `from` on. */
static size_t blocks_of(const struct collector *c, pid_t tid, uint64_t from)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n; i++)
		if (c->ev[i].type == ARGUS_EV_SCHED_SWITCH && c->ev[i].tid == (uint32_t)tid &&
		    c->ev[i].sched_switch.prev_state && c->ev[i].ts >= from)
			n++;
	return n;
}

/* Its sleeps' timeouts that fired: one a sleep, however the sleep was
 * scheduled (one preempted between arming its timer and blocking may find
 * the timer fired and never block). */
static size_t fires_of(const struct collector *c, pid_t tid)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n; i++)
		if (c->ev[i].type == ARGUS_EV_TIMER_FIRE && c->ev[i].tid == (uint32_t)tid &&
		    c->ev[i].timer.kind == ARGUS_TIMER_SLEEPER)
			n++;
	return n;
}

/* The child's short sleeps (their timeouts' fires) and the block at its
 * long one are read from the rings, the tracer still running, before the
 * long sleep ends. */
static void delivered_while_asleep(bool busy_cpu)
{
	struct argus_kext_opts o = {.pid_filter = true, .no_samples = true};
	struct collector c;
	int say[2];
	char b;

	require_live();
	if (busy_cpu && sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP("one CPU: the spinner would starve the test");
	ASSERT(pipe(say) == 0);
	struct sleeper *s =
	    mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT(s != MAP_FAILED);
	s->say_fd = say[1];
	s->pin = busy_cpu;
	pid_t spinner = busy_cpu ? spin_cpu0() : 0;

	collector_start(&c, &o);
	struct gated_child g = spawn_gated(sleeper_main, s);
	close(say[1]);
	trace_and_go(&c, &g);
	ASSERT(read(say[0], &b, 1) == 1);
	uint64_t said = mono_ns();
	size_t fires = 0, long_block = 0;
	/* the long sleep lasts 1.5 s: a second from its start it still runs */
	while (mono_ns() - said < 1000000000ull) {
		collector_drain(&c);
		fires = fires_of(&c, g.pid);
		long_block = blocks_of(&c, g.pid, s->long_from);
		if (fires >= SHORT_SLEEPS && long_block)
			break;
		usleep(5000);
	}
	uint64_t took = mono_ns() - said;
	int alive = waitpid(g.pid, NULL, WNOHANG) == 0;
	fprintf(stderr, "%s CPU: %zu timeouts and %zu block read %.1f ms after the long sleep began\n",
	        busy_cpu ? "busy" : "idle", fires, long_block, took / 1e6);
	/* a timeout's fire the kernel did not run the program for (a hard
	 * timer inside hrtimer_expire_entry's run for a soft one) is counted,
	 * not written: it is no record the stage kept back */
	uint64_t nested = argus_kext_prog_misses(c.k);
	ASSERT_MSG(fires + nested >= SHORT_SLEEPS,
	           "%zu of %d timeouts read while the thread slept (%llu program runs skipped)",
	           fires, SHORT_SLEEPS, (unsigned long long)nested);
	ASSERT_MSG(long_block, "the block at the long sleep not read while the thread slept");
	ASSERT(alive);
	kill(g.pid, SIGKILL);
	waitpid(g.pid, NULL, 0);
	if (spinner) {
		kill(spinner, SIGKILL);
		waitpid(spinner, NULL, 0);
	}
	collector_finish(&c);
	collector_free(&c);
	close(say[0]);
	munmap(s, 4096);
}

TEST(delivered_while_asleep_when_its_cpu_idles)
{
	delivered_while_asleep(false);
}

TEST(delivered_while_asleep_when_its_cpu_stays_busy)
{
	delivered_while_asleep(true);
}

/* Short sleeps counted in shared memory, on a CPU kept busy (so what is
 * gathered waits for the tick): every sleep counted before the tracer
 * stops has its timeout's fire among the records taken at the stop, and
 * nothing is lost. The fire, not the block: a sleeper preempted between
 * arming its timer and blocking (the spinner shares its CPU) may find the
 * timer fired when it runs again and never block, but its timer fires
 * once for every sleep. */
static volatile long *counted;

static void counter_main(void *arg)
{
	(void)arg;
	pin_cpu0();
	for (;;) {
		sleep_us(150);
		__atomic_add_fetch(counted, 1, __ATOMIC_SEQ_CST);
	}
}

TEST(stop_hands_out_what_is_gathered)
{
	struct argus_kext_opts o = {.pid_filter = true, .no_samples = true};
	struct argus_event rest[64];
	struct collector c;
	size_t n, staged = 0, fires = 0;
	uint64_t lost = 0;

	require_live();
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP("one CPU: the spinner would starve the test");
	counted = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT(counted != MAP_FAILED);
	pid_t spinner = spin_cpu0();

	collector_start(&c, &o);
	struct gated_child g = spawn_gated(counter_main, NULL);
	trace_and_go(&c, &g);
	usleep(300000);
	long before = __atomic_load_n(counted, __ATOMIC_SEQ_CST);
	argus_kext_stop(c.k);
	kill(g.pid, SIGKILL);
	waitpid(g.pid, NULL, 0);
	kill(spinner, SIGKILL);
	waitpid(spinner, NULL, 0);
	collector_drain(&c);
	while ((n = argus_kext_drop_records(c.k, rest, 64, mono_ns())) > 0)
		for (size_t i = 0; i < n; i++)
			if (rest[i].type != ARGUS_EV_DROP) {
				collect_one(&c, &rest[i], sizeof(rest[i]));
				staged++;
			}
	for (unsigned cpu = 0; cpu < argus_kext_ncpus(c.k); cpu++)
		lost += argus_kext_ring_drops(c.k, cpu);
	fires = fires_of(&c, g.pid);
	fprintf(stderr,
	        "%ld sleeps counted before the stop, %zu timeouts fired, %zu blocks, %zu records "
	        "taken at it, %llu lost\n",
	        before, fires, blocks_of(&c, g.pid, 0), staged, (unsigned long long)lost);
	ASSERT(before > 100);
	ASSERT_EQ(lost, 0);
	ASSERT_MSG(fires >= (size_t)before, "%zu timeouts fired for %ld sleeps", fires, before);
	collector_free(&c);
	munmap((void *)counted, 4096);
}

TEST_MAIN(TEST_ENTRY(delivered_while_asleep_when_its_cpu_idles),
          TEST_ENTRY(delivered_while_asleep_when_its_cpu_stays_busy),
          TEST_ENTRY(stop_hands_out_what_is_gathered))
