/*
 * test_kext_live.c - the eBPF tracer against real processes (label "live"):
 * waits' entries, yields and zero-timeout polls in the default capture, clone
 * flags of forks and threads, drops under a burst into tiny rings, argus
 * never tracing itself, the comm filter, and the privilege / BTF errors. The
 * IPC records are test_kext_ipc_live.c's, the stacks test_kext_stacks_live.c's.
 */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <pty.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <termios.h>

#include "collect.h"
#include "tracer.h"

/* ---- waits: entry when blocked, else entry and exit at the exit ------------ */
static void poll_child(void *arg)
{
	(void)arg;
	int p[2];
	struct pollfd pfd;

	if (pipe(p) || write(p[1], "x", 1) != 1)
		_exit(1);
	pfd = (struct pollfd){.fd = p[0], .events = POLLIN};
	if (poll(&pfd, 1, 1000) != 1) /* ready: returns at once */
		_exit(1);
	if (poll(NULL, 0, 50) != 0) /* nothing to wait for: blocks 50 ms */
		_exit(1);
}

TEST(waits_have_entries_blocked_or_not)
{
	struct argus_kext_opts o = {.pid_filter = true, .no_samples = true, .syscalls = true};
	struct collector c;
	const struct argus_event *enter[2] = {0}, *exit_[2] = {0};
	int ne = 0, nx = 0;
	bool switched = false;

	require_live();
	struct gated_child g = collect_child(&c, &o, poll_child, NULL);

	for (size_t i = 0; i < c.n; i++) {
		const struct argus_event *e = &c.ev[i];

		if (e->pid != (uint32_t)g.pid)
			continue;
		if (e->type == ARGUS_EV_SYS_ENTER && e->sys_enter.nr == SYS_poll && ne < 2)
			enter[ne++] = e;
		else if (e->type == ARGUS_EV_SYS_EXIT && e->sys_exit.nr == SYS_poll && nx < 2)
			exit_[nx++] = e;
		else if (e->type == ARGUS_EV_SCHED_SWITCH && ne == 2 && nx == 1)
			switched = true; /* the second poll blocked */
	}
	ASSERT_EQ(ne, 2);
	ASSERT_EQ(nx, 2);
	/* the ready poll: entry and exit together, timeout 1 s, no duration */
	ASSERT_EQ(enter[0]->sys_enter.arg0, 1000000000ll);
	ASSERT_EQ(enter[0]->ts, exit_[0]->ts);
	ASSERT_EQ(exit_[0]->sys_exit.ret, 1);
	ASSERT_EQ(exit_[0]->sys_exit.dur_ns, 0);
	/* the blocking poll: its entry when it blocked, timed from there */
	ASSERT_EQ(enter[1]->sys_enter.arg0, 50000000ll);
	ASSERT(switched);
	ASSERT(exit_[1]->ts > enter[1]->ts);
	ASSERT_MSG(exit_[1]->sys_exit.dur_ns >= 40000000ull &&
	               exit_[1]->sys_exit.dur_ns < 1000000000ull,
	           "dur %llu", (unsigned long long)exit_[1]->sys_exit.dur_ns);
	collector_free(&c);
}

/* ---- the default capture: spins that never block ----------------------------
 * A yield that finds no other task never switches (sched_switch does not see
 * it): sched_exit_tp does. A zero-timeout poll never reaches the scheduler:
 * the samples that hit it stand for it. */
#define YIELDS 2000

static void yield_child(void *arg)
{
	(void)arg;
	for (int i = 0; i < YIELDS; i++) {
		struct timespec t0, t;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		do /* a little work between yields, as a yield loop does */
			clock_gettime(CLOCK_MONOTONIC, &t);
		while ((t.tv_sec - t0.tv_sec) * 1000000000l + t.tv_nsec - t0.tv_nsec < 20000);
		sched_yield();
	}
}

/* Whether a switch to pid is among the records stamped like c->ev[i] (the
 * collector's sort leaves records of one time in any order). */
static bool switched_in_at(const struct collector *c, size_t i, uint32_t pid)
{
	size_t a = i, b = i;

	while (a > 0 && c->ev[a - 1].ts == c->ev[i].ts)
		a--;
	while (b + 1 < c->n && c->ev[b + 1].ts == c->ev[i].ts)
		b++;
	for (size_t k = a; k <= b; k++)
		if (c->ev[k].type == ARGUS_EV_SCHED_SWITCH && c->ev[k].sched_switch.next_pid == pid)
			return true;
	return false;
}

TEST(default_capture_sees_every_yield)
{
	struct argus_kext_opts o = {.pid_filter = true, .no_samples = true};
	struct collector c;
	unsigned enters = 0, exits = 0, unseen = 0;
	bool out = false; /* the child left the CPU and was not seen back yet */
	uint64_t out_ts = 0;

	require_live();
	if (libbpf_find_vmlinux_btf_id("sched_exit_tp", BPF_TRACE_RAW_TP) <= 0)
		SKIP("this kernel has no sched_exit_tp tracepoint (Linux < 6.16)");
	struct gated_child g = collect_child(&c, &o, yield_child, NULL);

	for (size_t i = 0; i < c.n; i++) {
		const struct argus_event *e = &c.ev[i];

		if (e->type == ARGUS_EV_SCHED_SWITCH && e->sched_switch.next_pid == (uint32_t)g.pid)
			out = false;
		if (e->pid != (uint32_t)g.pid)
			continue;
		if (e->type == ARGUS_EV_SCHED_SWITCH) {
			out = true;
			out_ts = e->ts;
			continue;
		}
		/* running again, and no switch brought it back (the records of
		 * a switch's own entry share its time) */
		if (out && e->ts != out_ts && !switched_in_at(&c, i, (uint32_t)g.pid)) {
			unseen++;
			out = false;
		}
		if (e->type == ARGUS_EV_SYS_ENTER && e->sys_enter.nr == SYS_sched_yield)
			enters++;
		else if (e->type == ARGUS_EV_SYS_EXIT && e->sys_exit.nr == SYS_sched_yield)
			exits++;
	}
	/* A yield preempted before it reaches schedule() can be written twice.
	 * A kernel may run tasks whose tracepoints never fire (this machine's
	 * hides its own guest agent: a switch from the agent's thread back to
	 * the child is not seen); each such resume leaves the yield it ended
	 * without its end, and the next yield still gets its entry (a call
	 * marked blocked when its thread leaves the CPU again is a new one). */
	ASSERT_MSG(enters >= YIELDS && enters <= YIELDS + YIELDS / 100,
	           "%u yields seen of %d, %u resumes not seen", enters, YIELDS, unseen);
	/* every yield's end too, unless records were lost - then counted (a
	 * make test run once saw 1999 ends of 2000) */
	uint64_t lost = 0;
	for (unsigned cpu = 0; cpu < argus_kext_ncpus(c.k); cpu++)
		lost += argus_kext_ring_drops(c.k, cpu);
	if (!lost && !unseen)
		ASSERT_EQ(exits, enters);
	ASSERT_MSG(exits <= enters + unseen && exits + lost + unseen >= enters,
	           "%u yields ended of %u, %llu records lost, %u resumes not seen", exits, enters,
	           (unsigned long long)lost, unseen);
	/* a few (the agent runs briefly); a switch-in never written would
	 * leave every yield that switched unseen */
	ASSERT_MSG(unseen <= YIELDS / 100, "%u resumes not seen", unseen);
	collector_free(&c);
}

/* The child's yield entries; *quiet: those no switch of it came with (a
 * yield that found no other task: sched_exit_tp's). */
static unsigned yield_enters(const struct collector *c, pid_t pid, unsigned *quiet)
{
	unsigned n = 0;
	*quiet = 0;
	for (size_t i = 0; i < c->n; i++) {
		const struct argus_event *e = &c->ev[i];
		if (e->pid != (uint32_t)pid || e->type != ARGUS_EV_SYS_ENTER ||
		    e->sys_enter.nr != SYS_sched_yield)
			continue;
		n++;
		bool switched = false;
		for (size_t j = i; j > 0 && c->ev[j - 1].ts == e->ts && !switched; j--)
			switched = c->ev[j - 1].type == ARGUS_EV_SCHED_SWITCH &&
			           c->ev[j - 1].pid == e->pid;
		for (size_t j = i + 1; j < c->n && c->ev[j].ts == e->ts && !switched; j++)
			switched = c->ev[j].type == ARGUS_EV_SCHED_SWITCH && c->ev[j].pid == e->pid;
		*quiet += !switched;
	}
	return n;
}

/* argus start's capture (yields_on_demand): a yield that never switches is
 * seen while yields are watched only, and then every one. */
TEST(yields_on_demand_are_seen_while_watched)
{
	struct argus_kext_opts o = {
	    .pid_filter = true, .no_samples = true, .yields_on_demand = true};
	struct collector c;
	unsigned quiet;

	require_live();
	if (libbpf_find_vmlinux_btf_id("sched_exit_tp", BPF_TRACE_RAW_TP) <= 0)
		SKIP("this kernel has no sched_exit_tp tracepoint (Linux < 6.16)");
	struct gated_child g = collect_child(&c, &o, yield_child, NULL);
	unsigned unwatched = yield_enters(&c, g.pid, &quiet);
	collector_free(&c);
	/* the yields that switched are seen from the switch, the others not */
	ASSERT_MSG(quiet == 0, "%u of %u yields seen unwatched did not switch", quiet, unwatched);

	collector_start(&c, &o);
	ASSERT_EQ(argus_kext_watch_yields(c.k, true), 0);
	ASSERT_EQ(argus_kext_watch_yields(c.k, false), 0);
	ASSERT_EQ(argus_kext_watch_yields(c.k, true), 0); /* off and on again */
	g = spawn_gated(yield_child, NULL);
	trace_and_go(&c, &g);
	ASSERT_EQ(wait_child(&c, g.pid), 0);
	collector_finish(&c);
	/* after argus_kext_stop a watch changes nothing */
	ASSERT_EQ(argus_kext_watch_yields(c.k, true), 0);
	unsigned watched = yield_enters(&c, g.pid, &quiet);
	collector_free(&c);
	ASSERT_MSG(watched >= YIELDS && watched <= YIELDS + YIELDS / 100, "%u yields seen of %d",
	           watched, YIELDS);
	printf("unwatched: %u of %d yields seen (they switched); watched: %u, %u without a "
	       "switch\n",
	       unwatched, YIELDS, watched, quiet);
}

static void zero_poll_child(void *arg)
{
	(void)arg;
	int p[2];
	struct timespec t0, t;

	if (pipe(p))
		_exit(1);
	struct pollfd pfd = {.fd = p[0], .events = POLLIN};
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		if (poll(&pfd, 1, 0) != 0) /* nothing ever comes */
			_exit(1);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000l + t.tv_nsec - t0.tv_nsec < 800000000l);
}

TEST(default_capture_samples_zero_timeout_polls)
{
	struct argus_kext_opts o = {.pid_filter = true};
	struct collector c;
	unsigned polls = 0, samples = 0, bad = 0;

	require_live();
	struct gated_child g = collect_child(&c, &o, zero_poll_child, NULL);

	for (size_t i = 0; i < c.n; i++) {
		const struct argus_event *e = &c.ev[i];

		if (e->pid != (uint32_t)g.pid)
			continue;
		if (e->type == ARGUS_EV_CPU_SAMPLE)
			samples++;
		if (e->type != ARGUS_EV_SYS_ENTER || e->sys_enter.nr != SYS_poll)
			continue;
		polls++;
		/* entry, stand-in exit (no return value seen), the sample */
		if (i + 2 >= c.n || e->sys_enter.arg0 != 0 ||
		    c.ev[i + 1].type != ARGUS_EV_SYS_EXIT || !(c.ev[i + 1].flags & ARGUS_F_NORET) ||
		    c.ev[i + 1].sys_exit.ret != 0 || c.ev[i + 2].type != ARGUS_EV_CPU_SAMPLE ||
		    c.ev[i + 2].ts != e->ts || (e->flags & (ARGUS_F_HARDIRQ | ARGUS_F_SOFTIRQ)))
			bad++;
	}
	/* 0.8 s at 49 Hz: ~39 samples, most of them inside the poll */
	ASSERT_MSG(polls >= 5, "%u zero-timeout polls sampled of %u samples", polls, samples);
	ASSERT_EQ(bad, 0);
	collector_free(&c);
}

/* ---- loopback TCP across fork: peer_obj ------------------------------------ */
/* ---- clone flags of proc_fork / thread_new ----------------------------------- */
static void *thread_returns(void *arg)
{
	return arg;
}

static void forks_and_threads(void *arg)
{
	(void)arg;
	pthread_t th;
	pid_t p;

	if (pthread_create(&th, NULL, thread_returns, NULL) || pthread_join(th, NULL))
		_exit(1);
	p = fork();
	if (p == 0)
		_exit(0);
	if (p < 0 || waitpid(p, NULL, 0) != p)
		_exit(1);
	p = vfork();
	if (p == 0)
		_exit(0);
	if (p < 0 || waitpid(p, NULL, 0) != p)
		_exit(1);
}

TEST(fork_and_thread_records_carry_clone_flags)
{
	struct argus_kext_opts o = {.pid_filter = true, .no_samples = true, .syscalls = true};
	struct collector c;
	const struct argus_event *thread = NULL, *forked = NULL, *vforked = NULL;

	require_live();
	struct gated_child g = collect_child(&c, &o, forks_and_threads, NULL);

	for (size_t i = 0; i < c.n; i++) {
		const struct argus_event *e = &c.ev[i];

		if (e->pid != (uint32_t)g.pid)
			continue;
		if (e->type == ARGUS_EV_THREAD_NEW && !thread)
			thread = e;
		if (e->type == ARGUS_EV_PROC_FORK && !forked)
			forked = e;
		else if (e->type == ARGUS_EV_PROC_FORK && !vforked)
			vforked = e;
	}
	ASSERT_MSG(thread, "no thread_new for pthread_create");
	ASSERT_MSG(forked && vforked, "no proc_fork for fork and vfork");
	uint64_t tf = thread->fork.clone_flags, ff = forked->fork.clone_flags;
	uint64_t vf = vforked->fork.clone_flags;
	ASSERT_MSG((tf & (CLONE_THREAD | CLONE_VM)) == (CLONE_THREAD | CLONE_VM),
	           "thread_new clone_flags %#" PRIx64, tf);
	ASSERT_MSG(!(ff & (CLONE_THREAD | CLONE_VM)) && (ff & 0xff) == SIGCHLD,
	           "fork's proc_fork clone_flags %#" PRIx64, ff);
	ASSERT_MSG((vf & (CLONE_VM | CLONE_VFORK)) == (CLONE_VM | CLONE_VFORK) &&
	               !(vf & CLONE_THREAD) && (vf & 0xff) == SIGCHLD,
	           "vfork's proc_fork clone_flags %#" PRIx64, vf);
	collector_free(&c);
}

/* ---- eventfd ---------------------------------------------------------------- */
/* ---- tiny rings under a burst: drops counted and reported ------------------- */
static void burst(void *arg)
{
	(void)arg;
	int p[2];
	char b = 0;

	if (pipe(p))
		_exit(1);
	for (int i = 0; i < 3000; i++)
		if (write(p[1], &b, 1) != 1 || read(p[0], &b, 1) != 1)
			_exit(1);
}

TEST(tiny_rings_count_and_report_drops)
{
	struct argus_kext_opts o = {
	    .pid_filter = true, .no_samples = true, .ring_bytes = 4096, .syscalls = true};
	struct collector c;

	require_live();
	collector_start(&c, &o);
	struct gated_child g = spawn_gated(burst, NULL);
	trace_and_go(&c, &g);
	int status;
	ASSERT(waitpid(g.pid, &status, 0) == g.pid); /* nobody reads meanwhile */
	collector_finish(&c);

	uint64_t total = 0;
	for (unsigned cpu = 0; cpu < argus_kext_ncpus(c.k); cpu++)
		total += argus_kext_ring_drops(c.k, cpu);
	ASSERT_MSG(total > 0, "6000 syscalls into 4 KiB rings lost nothing?");
	/* what was kept plus what was lost accounts for the burst */
	ASSERT(c.n + total >= 6000);

	/* the DROP records collector_finish took (with the held records) */
	uint64_t reported = 0;
	for (size_t i = 0; i < c.ndrops; i++) {
		ASSERT_EQ(c.drops[i].type, ARGUS_EV_DROP);
		if (c.drops[i].drop.source == ARGUS_DROP_KERNEL_RING)
			reported += c.drops[i].drop.count;
	}
	ASSERT_U64_EQ(reported, total);
	/* reported once: the next call has nothing new */
	struct argus_event drops[64];
	ASSERT_EQ(argus_kext_drop_records(c.k, drops, 64, mono_ns()), 0);
	collector_free(&c);
}

/* ---- system-wide: argus's own process never appears ------------------------- */
TEST(argus_never_traces_itself)
{
	struct argus_kext_opts o = {0};
	struct collector c;
	uint32_t self = getpid();
	int p[2];
	char b = 0;

	require_live();
	collector_start(&c, &o);
	ASSERT(pipe(p) == 0);
	for (int i = 0; i < 200; i++) {
		ASSERT(write(p[1], &b, 1) == 1 && read(p[0], &b, 1) == 1);
		if (i % 20 == 0)
			usleep(2000);
		collector_drain(&c);
	}
	collector_finish(&c);
	ASSERT_MSG(c.n > 0, "system-wide tracing recorded nothing");
	for (size_t i = 0; i < c.n; i++) {
		const struct argus_event *e = &c.ev[i];

		ASSERT_MSG(e->pid != self, "record type %u names argus (pid %u)", e->type, self);
		if (e->type == ARGUS_EV_SCHED_SWITCH)
			ASSERT(e->sched_switch.next_pid != self);
		if (e->type == ARGUS_EV_SCHED_WAKEUP || e->type == ARGUS_EV_SCHED_WAKEUP_NEW)
			ASSERT(e->wakeup.wakee_pid != self);
	}
	close(p[0]);
	close(p[1]);
	collector_free(&c);
}

/* ---- --comm: only processes of that name ------------------------------------ */
static void named_io(void *arg)
{
	int p[2];
	char b = 0;

	prctl(PR_SET_NAME, (const char *)arg);
	if (pipe(p))
		_exit(1);
	for (int i = 0; i < 20; i++)
		if (write(p[1], &b, 1) != 1 || read(p[0], &b, 1) != 1)
			_exit(1);
}

TEST(comm_filter_keeps_only_that_name)
{
	struct argus_kext_opts o = {
	    .comm = "kext-wanted", .no_samples = true, .no_irqs = true, .syscalls = true};
	struct collector c;

	require_live();
	collector_start(&c, &o);
	struct gated_child want = spawn_gated(named_io, "kext-wanted");
	struct gated_child other = spawn_gated(named_io, "kext-other");
	ASSERT(write(want.go_fd, "g", 1) == 1 && write(other.go_fd, "g", 1) == 1);
	close(want.go_fd);
	close(other.go_fd);
	ASSERT_EQ(wait_child(&c, want.pid), 0);
	ASSERT_EQ(wait_child(&c, other.pid), 0);
	collector_finish(&c);

	size_t wanted = 0;
	for (size_t i = 0; i < c.n; i++) {
		const struct argus_event *e = &c.ev[i];

		/* the other process appears only where it meets the wanted one */
		bool meets =
		    (e->type == ARGUS_EV_SCHED_SWITCH &&
		     e->sched_switch.next_pid == (uint32_t)want.pid) ||
		    ((e->type == ARGUS_EV_SCHED_WAKEUP || e->type == ARGUS_EV_SCHED_WAKEUP_NEW) &&
		     e->wakeup.wakee_pid == (uint32_t)want.pid);
		ASSERT_MSG(e->pid != (uint32_t)other.pid || meets,
		           "record type %u of the other name", e->type);
		if (e->pid == (uint32_t)want.pid && e->type == ARGUS_EV_IPC_SEND)
			wanted++;
	}
	ASSERT_EQ(wanted, 20);
	collector_free(&c);
}

/* ---- errors: one clear line and a distinct status --------------------------- */
TEST(missing_btf_is_nosupport)
{
	struct argus_kext_opts o = {.btf_path = "/nonexistent/vmlinux"};
	struct argus_kext *k = NULL;
	char err[512];

	require_live();
	ASSERT_EQ(argus_kext_open(&k, &o, err, sizeof(err)), ARGUS_KEXT_ENOSUPPORT);
	ASSERT(k == NULL);
	ASSERT_CONTAINS(err, "BTF");
	ASSERT(strchr(err, '\n') == NULL);
}

TEST(unprivileged_is_epriv)
{
	require_live();
	pid_t pid = fork();
	if (pid == 0) {
		struct argus_kext *k = NULL;
		char err[512];

		if (setgid(65534) || setuid(65534))
			_exit(2);
		int rc = argus_kext_open(&k, NULL, err, sizeof(err));
		_exit(rc == ARGUS_KEXT_EPRIV && strstr(err, "CAP_BPF") ? 0 : 1);
	}
	int status;
	ASSERT(waitpid(pid, &status, 0) == pid);
	ASSERT(WIFEXITED(status));
	ASSERT_EQ(WEXITSTATUS(status), 0);
}

TEST_MAIN(TEST_ENTRY(waits_have_entries_blocked_or_not),
          TEST_ENTRY(fork_and_thread_records_carry_clone_flags),
          TEST_ENTRY(tiny_rings_count_and_report_drops), TEST_ENTRY(argus_never_traces_itself),
          TEST_ENTRY(comm_filter_keeps_only_that_name), TEST_ENTRY(missing_btf_is_nosupport),
          TEST_ENTRY(unprivileged_is_epriv), TEST_ENTRY(default_capture_sees_every_yield),
          TEST_ENTRY(yields_on_demand_are_seen_while_watched),
          TEST_ENTRY(default_capture_samples_zero_timeout_polls))
