/*
 * collect.h - what the kext tests share: load the tracer for a pid filter,
 * run workloads in child processes that start on a signal, and collect every
 * record from the per-CPU rings (libbpf's ring_buffer, independent of
 * ringbuf/), sorted by time.
 */
#ifndef ARGUS_TEST_KEXT_COLLECT_H
#define ARGUS_TEST_KEXT_COLLECT_H

#include <bpf/libbpf.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kext.h"
#include "test.h"

struct collector {
	struct argus_kext *k;
	struct ring_buffer *rb;
	struct argus_event *ev;
	size_t n, cap;
	struct argus_event drops[64]; /* DROP records taken by collector_finish */
	size_t ndrops;
};

static int collect_one(void *ctx, void *data, size_t size)
{
	struct collector *c = ctx;

	/* an entry holds one or more records written together */
	if (!size || size % sizeof(struct argus_event))
		return 0;
	for (size_t off = 0; off < size; off += sizeof(struct argus_event)) {
		if (c->n == c->cap) {
			c->cap = c->cap ? c->cap * 2 : 4096;
			c->ev = realloc(c->ev, c->cap * sizeof(*c->ev));
			if (!c->ev)
				abort();
		}
		memcpy(&c->ev[c->n++], (char *)data + off, sizeof(struct argus_event));
	}
	return 0;
}

static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Skip (never pass) where live tracing cannot run. */
static inline void require_live(void)
{
	if (geteuid() != 0)
		SKIP("needs root for eBPF tracing");
	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0)
		SKIP("kernel has no BTF at /sys/kernel/btf/vmlinux");
}

/* Load and attach with opts (pid filter on unless opts says otherwise). */
static inline void collector_start(struct collector *c, struct argus_kext_opts *opts)
{
	char err[512];
	int rc;

	memset(c, 0, sizeof(*c));
	rc = argus_kext_open(&c->k, opts, err, sizeof(err));
	if (rc == ARGUS_KEXT_EPRIV || rc == ARGUS_KEXT_ENOSUPPORT)
		SKIP("%s", err);
	ASSERT_MSG(rc == 0, "argus_kext_open: %s", err);
	rc = argus_kext_start(c->k, err, sizeof(err));
	ASSERT_MSG(rc == 0, "argus_kext_start: %s", err);
	for (unsigned cpu = 0; cpu < argus_kext_ncpus(c->k); cpu++) {
		int fd = argus_kext_ring_fd(c->k, cpu);

		if (!c->rb)
			c->rb = ring_buffer__new(fd, collect_one, c, NULL);
		else
			ASSERT(ring_buffer__add(c->rb, fd, collect_one, c) == 0);
		ASSERT(c->rb);
	}
}

static inline void collector_drain(struct collector *c)
{
	ring_buffer__consume(c->rb);
}

static int cmp_ts(const void *a, const void *b)
{
	const struct argus_event *x = a, *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* Stop the tracer and take everything: the rings, and the records the
 * tracer still held (as argus record does). */
static inline void collector_finish(struct collector *c)
{
	struct argus_event rest[64];
	size_t n;

	argus_kext_stop(c->k);
	collector_drain(c);
	while ((n = argus_kext_drop_records(c->k, rest, 64, mono_ns())) > 0)
		for (size_t i = 0; i < n; i++)
			if (rest[i].type != ARGUS_EV_DROP)
				collect_one(c, &rest[i], sizeof(rest[i]));
			else if (c->ndrops < 64)
				c->drops[c->ndrops++] = rest[i];
	qsort(c->ev, c->n, sizeof(*c->ev), cmp_ts);
	if (getenv("ARGUS_TEST_DUMP")) { /* debugging aid: the records as JSON */
		char line[1024];

		for (size_t i = 0; i < c->n; i++) {
			argus_event_to_json(&c->ev[i], NULL, line, sizeof(line));
			fprintf(stderr, "%s\n", line);
		}
	}
}

static inline void collector_free(struct collector *c)
{
	ring_buffer__free(c->rb);
	argus_kext_close(c->k);
	free(c->ev);
	memset(c, 0, sizeof(*c));
}

/* Pin the calling process to CPU 0 (a child's workload, to share a CPU
 * with another); exits 2 when it cannot. */
static inline void pin_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		_exit(2);
}

/* This process and a child it forks hand a byte back and forth over two
 * pipes n times (each hand-off a wake-up, and a switch when the other is
 * not running yet); exits 1 on a failed read or write. */
static inline void pipe_handoffs(int n)
{
	int a[2], b[2];
	char c = 0;

	if (pipe(a) || pipe(b))
		_exit(1);
	pid_t p = fork();
	if (p < 0)
		_exit(1);
	for (int i = 0; i < n; i++) {
		if (p == 0) {
			if (read(a[0], &c, 1) != 1 || write(b[1], &c, 1) != 1)
				_exit(1);
		} else if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1) {
			_exit(1);
		}
	}
	if (p == 0)
		_exit(0);
	waitpid(p, NULL, 0);
}

/* A child that waits for the go signal before running fn. */
struct gated_child {
	pid_t pid;
	int go_fd;
};

static inline struct gated_child spawn_gated(void (*fn)(void *), void *arg)
{
	struct gated_child g;
	int p[2];

	if (pipe(p))
		abort();
	g.pid = fork();
	if (g.pid == 0) {
		char b;

		/* a test that fails leaves at once: its children with it */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(p[1]);
		if (read(p[0], &b, 1) != 1)
			_exit(3);
		close(p[0]);
		fn(arg);
		_exit(0);
	}
	close(p[0]);
	g.go_fd = p[1];
	return g;
}

static inline void trace_and_go(struct collector *c, struct gated_child *g)
{
	ASSERT(argus_kext_add_pid(c->k, g->pid) == 0);
	ASSERT(write(g->go_fd, "g", 1) == 1);
	close(g->go_fd);
}

/* Wait for the child while draining the rings; returns its exit status. */
static inline int wait_child(struct collector *c, pid_t pid)
{
	int status = 0;
	bool done = false;

	for (int i = 0; i < 5000 && !done; i++) {
		done = waitpid(pid, &status, WNOHANG) == pid;
		collector_drain(c);
		if (!done)
			usleep(2000);
	}
	if (!done) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		return -1;
	}
	usleep(20000); /* let the exit records land */
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The usual test: trace one gated child running fn from start to exit and
 * take every record (collector_start ... collector_finish). */
static inline struct gated_child collect_child(struct collector *c, struct argus_kext_opts *opts,
                                               void (*fn)(void *), void *arg)
{
	collector_start(c, opts);
	struct gated_child g = spawn_gated(fn, arg);
	trace_and_go(c, &g);
	ASSERT_EQ(wait_child(c, g.pid), 0);
	collector_finish(c);
	return g;
}

/* A child's workload: a 20 ms timerfd, armed and read once. */
static inline void child_timerfd_20ms(void *arg)
{
	(void)arg;
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	struct itimerspec its = {.it_value = {.tv_nsec = 20 * 1000 * 1000}};
	uint64_t n;

	if (fd < 0 || timerfd_settime(fd, 0, &its, NULL) || read(fd, &n, 8) != 8)
		_exit(1);
}

#endif /* ARGUS_TEST_KEXT_COLLECT_H */
