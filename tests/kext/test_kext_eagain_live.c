/*
 * test_kext_eagain_live.c - the default capture leaves out a receive that
 * finds nothing (EAGAIN) when it repeats its CPU's last EAGAIN record, the
 * same thread's on the same socket, with nothing between (label "live"; kext/sock.bpf.c, docs/kext.md "Receives
 * that find nothing again"): a non-blocking read loop on a named unix
 * connection gives one record, not one per call; a read after the other end
 * wrote is recorded, and so is the EAGAIN after it; another thread's read
 * of the socket between makes the next one recorded again; a hooked
 * process keeps them all, and so does per-call capture (`--syscalls`).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "collect.h"

#define RUN 200 /* EAGAIN reads in a row */

/* The child's socket pair over a path: its client end (non-blocking, the
 * end read) and the accepted end (the one that writes). */
struct conn_pair {
	int c, s;
};

static struct conn_pair connect_pair(void)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	struct conn_pair p;

	snprintf(a.sun_path, sizeof(a.sun_path), "/tmp/argus-test-eagain-%d", getpid());
	unlink(a.sun_path);
	int l = socket(AF_UNIX, SOCK_STREAM, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1))
		_exit(4);
	p.c = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (p.c < 0 || connect(p.c, (struct sockaddr *)&a, sizeof(a)))
		_exit(4);
	p.s = accept(l, NULL, NULL);
	if (p.s < 0)
		_exit(4);
	close(l);
	unlink(a.sun_path);
	return p;
}

static void eagain_run(int fd)
{
	char b[64];

	for (int i = 0; i < RUN; i++)
		if (read(fd, b, sizeof(b)) != -1 || errno != EAGAIN)
			_exit(5);
}

/* RUN EAGAIN reads, the other end writes, a read that finds it, RUN more. */
static void child_loop(void *arg)
{
	struct conn_pair p = connect_pair();
	char b[64];

	(void)arg;
	eagain_run(p.c);
	if (write(p.s, "x", 1) != 1 || read(p.c, b, sizeof(b)) != 1)
		_exit(6);
	eagain_run(p.c);
}

/* Two threads, one socket: A reads (EAGAIN) while B, on the other CPU,
 * reads it once between A's runs; A spins meanwhile (no call, no switch:
 * only B's record on the socket says something happened). */
struct two {
	int fd;
	atomic_int step;
};

static void pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	sched_setaffinity(0, sizeof(s), &s); /* best effort */
}

static void *reader_b(void *arg)
{
	struct two *t = arg;
	char b[8];

	pin(1);
	while (atomic_load(&t->step) != 1)
		;
	if (read(t->fd, b, sizeof(b)) != -1)
		_exit(7);
	atomic_store(&t->step, 2);
	return NULL;
}

static void child_two(void *arg)
{
	struct conn_pair p = connect_pair();
	struct two t = {.fd = p.c};
	pthread_t b;

	(void)arg;
	pin(0);
	if (pthread_create(&b, NULL, reader_b, &t))
		_exit(8);
	usleep(20000); /* B is spinning on its CPU */
	eagain_run(p.c);
	atomic_store(&t.step, 1);
	while (atomic_load(&t.step) != 2)
		;
	eagain_run(p.c);
	pthread_join(b, NULL);
}

/* The child's EAGAIN and data receives on the socket its first write names
 * (the client end: the accepted end's send has it as peer). */
struct counts {
	int eagain_before, eagain_after, data;
};

static struct counts count_loop(const struct collector *c, pid_t pid)
{
	struct counts n = {0};
	uint64_t sock = 0;
	bool sent = false;

	for (size_t i = 0; i < c->n; i++) {
		const struct argus_event *e = &c->ev[i];

		if (e->pid != (uint32_t)pid)
			continue;
		if (e->type == ARGUS_EV_IPC_SEND && e->ipc.obj_kind == ARGUS_OBJ_UNIX) {
			sock = e->ipc.peer_obj;
			sent = true;
		}
	}
	ASSERT_MSG(sock, "no send on the connection");
	sent = false;
	for (size_t i = 0; i < c->n; i++) {
		const struct argus_event *e = &c->ev[i];

		if (e->pid != (uint32_t)pid)
			continue;
		if (e->type == ARGUS_EV_IPC_SEND && e->ipc.peer_obj == sock)
			sent = true;
		if (e->type != ARGUS_EV_IPC_RECV || e->ipc.obj != sock)
			continue;
		if (e->ipc.ret == -EAGAIN)
			*(sent ? &n.eagain_after : &n.eagain_before) += 1;
		else if (e->ipc.ret == 1)
			n.data++;
	}
	return n;
}

TEST(repeated_eagain_reads_give_one_record)
{
	struct argus_kext_opts o = {.pid_filter = true, .no_samples = true};
	struct argus_kext_stats st;
	struct collector c;

	require_live();
	struct gated_child g = collect_child(&c, &o, child_loop, NULL);
	struct counts n = count_loop(&c, g.pid);
	argus_kext_get_stats(c.k, &st);
	fprintf(stderr, "  EAGAIN records %d before the write, %d after; left out %llu\n",
	        n.eagain_before, n.eagain_after, (unsigned long long)st.eagain_left);
	/* one each, or a few more where an interrupt's record or a
	 * preemption came between (each starts the run again) */
	ASSERT(n.eagain_before >= 1 && n.eagain_before <= RUN / 10);
	ASSERT_EQ(n.data, 1);
	ASSERT(n.eagain_after >= 1 && n.eagain_after <= RUN / 10);
	ASSERT(st.eagain_left >= (uint64_t)(2 * RUN - n.eagain_before - n.eagain_after));
	collector_free(&c);
}

TEST(another_threads_read_between_keeps_the_next_eagain)
{
	struct argus_kext_opts o = {.pid_filter = true, .no_samples = true};
	struct collector c;
	uint64_t sock = 0, b_ts = 0;
	int a_after = 0;

	require_live();
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP("needs two CPUs (the threads spin on their own)");
	struct gated_child g = collect_child(&c, &o, child_two, NULL);
	/* B's record: the EAGAIN of a thread that is not the process's main */
	for (size_t i = 0; i < c.n; i++) {
		const struct argus_event *e = &c.ev[i];

		if (e->pid == (uint32_t)g.pid && e->tid != e->pid && e->type == ARGUS_EV_IPC_RECV &&
		    e->ipc.ret == -EAGAIN) {
			sock = e->ipc.obj;
			b_ts = e->ts;
		}
	}
	ASSERT_MSG(sock, "no EAGAIN record of the second thread");
	for (size_t i = 0; i < c.n; i++) {
		const struct argus_event *e = &c.ev[i];

		if (e->tid == (uint32_t)g.pid && e->type == ARGUS_EV_IPC_RECV &&
		    e->ipc.obj == sock && e->ts > b_ts)
			a_after++;
	}
	ASSERT_MSG(a_after >= 1, "main thread's EAGAIN after B's read: %d records", a_after);
	collector_free(&c);
}

/* hooks that connected to the daemon make their process a seed of the app
 * set (argus_kext_appset_add): its hook records cut segments the kernel
 * does not see, so every EAGAIN read is written */
TEST(a_hooked_process_keeps_every_eagain)
{
	struct argus_kext_opts o = {.pid_filter = true, .no_samples = true};
	struct collector c;

	require_live();
	collector_start(&c, &o);
	struct gated_child g = spawn_gated(child_loop, NULL);
	ASSERT(argus_kext_appset_add(c.k, g.pid) == 0);
	trace_and_go(&c, &g);
	ASSERT_EQ(wait_child(&c, g.pid), 0);
	collector_finish(&c);
	struct counts n = count_loop(&c, g.pid);
	ASSERT_EQ(n.eagain_before, RUN);
	ASSERT_EQ(n.eagain_after, RUN);
	collector_free(&c);
}

TEST(per_call_capture_keeps_every_eagain)
{
	struct argus_kext_opts o = {.pid_filter = true, .no_samples = true, .syscalls = true};
	struct argus_kext_stats st;
	struct collector c;

	require_live();
	struct gated_child g = collect_child(&c, &o, child_loop, NULL);
	struct counts n = count_loop(&c, g.pid);
	argus_kext_get_stats(c.k, &st);
	ASSERT_EQ(n.eagain_before, RUN);
	ASSERT_EQ(n.eagain_after, RUN);
	ASSERT_EQ(n.data, 1);
	ASSERT_EQ(st.eagain_left, 0);
	collector_free(&c);
}

TEST_MAIN(TEST_ENTRY(repeated_eagain_reads_give_one_record),
          TEST_ENTRY(another_threads_read_between_keeps_the_next_eagain),
          TEST_ENTRY(a_hooked_process_keeps_every_eagain),
          TEST_ENTRY(per_call_capture_keeps_every_eagain))
