/*
 * test_kext_ipc_live.c - the eBPF tracer's IPC records against real
 * processes (label "live"): object identity and peers for pipes, unix
 * socketpairs, named sockets, loopback TCP (v4, v6, v4-mapped), ptys and
 * eventfd; futex wait / wake pairing; timerfd arm -> fire -> read; in both
 * captures (per-call and the default one) where they differ.
 */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <pty.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <termios.h>
#include <time.h>

#include "collect.h"
#include "tracer.h"

#define ROUNDS 40

static bool is_ipc(const struct argus_event *e, uint16_t type, uint32_t pid, uint8_t kind)
{
	return e->type == type && e->pid == pid && e->ipc.obj_kind == kind;
}

/* Sends of `from` on kind objects (*sends), and how many of them a later
 * receive of `to` matches: on the send's peer object, naming the send's
 * object as its peer. */
static size_t peer_matched(const struct collector *c, pid_t from, pid_t to, uint8_t kind,
                           size_t *sends)
{
	size_t matched = 0;

	*sends = 0;
	for (size_t i = 0; i < c->n; i++) {
		const struct argus_event *s = &c->ev[i];

		if (!is_ipc(s, ARGUS_EV_IPC_SEND, from, kind))
			continue;
		++*sends;
		if (!s->ipc.peer_obj)
			continue;
		ASSERT(s->ipc.peer_obj != s->ipc.obj);
		for (size_t j = i + 1; j < c->n; j++) {
			const struct argus_event *r = &c->ev[j];

			if (is_ipc(r, ARGUS_EV_IPC_RECV, to, kind) &&
			    r->ipc.obj == s->ipc.peer_obj && r->ipc.peer_obj == s->ipc.obj) {
				matched++;
				break;
			}
		}
	}
	return matched;
}

/* ---- pipe ping-pong between two processes -------------------------------- */
struct pingpong {
	int a2b[2], b2a[2];
};

/* Both ends on one CPU (pin_cpu0): every read blocks, so every reply is a
 * wake-up. */
static void pong(void *arg)
{
	struct pingpong *pp = arg;
	char b;

	pin_cpu0();
	for (int i = 0; i < ROUNDS; i++) {
		if (read(pp->a2b[0], &b, 1) != 1 || write(pp->b2a[1], &b, 1) != 1)
			_exit(1);
	}
}

static void ping(void *arg)
{
	struct pingpong *pp = arg;
	char b = 'x';

	pin_cpu0();
	for (int i = 0; i < ROUNDS; i++) {
		/* the reader asleep in its read before the write: the default
		 * capture sees a send through the wake-up it makes, and with
		 * another task on the CPU, the writer woken by the reply could
		 * preempt the reader before its next read in every round (one
		 * make test saw 0 of 40) */
		usleep(2000);
		if (write(pp->a2b[1], &b, 1) != 1 || read(pp->b2a[0], &b, 1) != 1)
			_exit(1);
	}
}

static void pipe_pingpong_matches_write_to_read_in(bool syscalls)
{
	struct argus_kext_opts o = {.pid_filter = true, .no_samples = true, .syscalls = syscalls};
	struct collector c;
	struct pingpong pp;

	require_live();
	ASSERT(pipe(pp.a2b) == 0 && pipe(pp.b2a) == 0);
	collector_start(&c, &o);
	struct gated_child b = spawn_gated(pong, &pp);
	struct gated_child a = spawn_gated(ping, &pp);
	trace_and_go(&c, &b);
	trace_and_go(&c, &a);
	ASSERT_EQ(wait_child(&c, a.pid), 0);
	ASSERT_EQ(wait_child(&c, b.pid), 0);
	collector_finish(&c);

	/* every write of a to the a2b pipe is read by b from the same object */
	size_t sends = 0, matched = 0, woken = 0;
	uint64_t obj = 0;
	for (size_t i = 0; i < c.n; i++) {
		const struct argus_event *s = &c.ev[i];

		if (!is_ipc(s, ARGUS_EV_IPC_SEND, a.pid, ARGUS_OBJ_PIPE) || s->ipc.fd != pp.a2b[1])
			continue;
		ASSERT_EQ(s->ipc.ret, 1);
		/* without per-call capture the count asked for, not the return */
		ASSERT_EQ(!!(s->flags & ARGUS_F_NORET), !syscalls);
		ASSERT(s->ipc.obj != 0);
		ASSERT(obj == 0 || obj == s->ipc.obj);
		obj = s->ipc.obj;
		sends++;
		for (size_t j = i + 1; j < c.n; j++) {
			const struct argus_event *r = &c.ev[j];

			if (is_ipc(r, ARGUS_EV_IPC_RECV, b.pid, ARGUS_OBJ_PIPE) &&
			    r->ipc.obj == s->ipc.obj) {
				matched++;
				break;
			}
		}
	}
	/* the reader's wake-ups come from the writer, and only from it */
	size_t others = 0;
	for (size_t i = 0; i < c.n; i++) {
		const struct argus_event *w = &c.ev[i];

		if (w->type != ARGUS_EV_SCHED_WAKEUP || w->wakeup.wakee_tid != (uint32_t)b.pid)
			continue;
		if (w->tid == (uint32_t)a.pid)
			woken++;
		else if (w->tid != (uint32_t)b.pid && w->pid != 0 && !(w->flags & ARGUS_F_KTHREAD))
			others++; /* (kernel threads move it between CPUs) */
	}
	ASSERT_EQ(others, 0);
	if (syscalls) {
		ASSERT_EQ(sends, ROUNDS);
		ASSERT_EQ(matched, ROUNDS);
	} else {
		/* only writes that wake the reader: with the writer's pause
		 * nearly all do, but a reader kept off the CPU longer than the
		 * pause finds the byte there before it sleeps (no wake-up, no
		 * record), so only some are asked */
		ASSERT_MSG(sends >= 1 && sends <= ROUNDS, "%zu sends seen", sends);
		ASSERT_EQ(matched, sends);
	}
	ASSERT_MSG(woken >= 1, "no read was woken by the writer");
	collector_free(&c);
}

/* ---- unix socketpair across fork: peer_obj ------------------------------- */
static int sp[2];

static void sock_child(void *arg)
{
	(void)arg;
	char b[8];

	for (int i = 0; i < 10; i++) {
		if (recv(sp[1], b, sizeof(b), 0) <= 0 || send(sp[1], "pong", 4, 0) != 4)
			_exit(1);
	}
}

static void sock_parent_side(void *arg)
{
	(void)arg;
	char b[8];

	for (int i = 0; i < 10; i++) {
		if (send(sp[0], "ping", 4, 0) != 4 || recv(sp[0], b, sizeof(b), 0) <= 0)
			_exit(1);
	}
}

TEST(unix_socketpair_send_names_receivers_socket)
{
	struct argus_kext_opts o = {.pid_filter = true, .no_samples = true, .syscalls = true};
	struct collector c;

	require_live();
	ASSERT(socketpair(AF_UNIX, SOCK_STREAM, 0, sp) == 0);
	collector_start(&c, &o);
	struct gated_child b = spawn_gated(sock_child, NULL);
	struct gated_child a = spawn_gated(sock_parent_side, NULL);
	trace_and_go(&c, &b);
	trace_and_go(&c, &a);
	ASSERT_EQ(wait_child(&c, a.pid), 0);
	ASSERT_EQ(wait_child(&c, b.pid), 0);
	collector_finish(&c);

	size_t sends, matched = peer_matched(&c, a.pid, b.pid, ARGUS_OBJ_UNIX, &sends);

	ASSERT_EQ(sends, 10);
	ASSERT_EQ(matched, 10);
	collector_free(&c);
}

/* ---- a stream read in full-buffer reads: one record per run --------------- */
#define RUN_READS 200
#define RUN_BYTES 100

static void run_writer(void *arg)
{
	(void)arg;
	char b[RUN_BYTES] = {0};

	for (int i = 0; i < RUN_READS; i++)
		if (write(sp[0], b, sizeof(b)) != (ssize_t)sizeof(b))
			_exit(1);
}

static void run_reader(void *arg)
{
	(void)arg;
	char b[RUN_BYTES];

	for (int i = 0; i < RUN_READS; i++)
		if (read(sp[1], b, sizeof(b)) != (ssize_t)sizeof(b))
			_exit(1);
}

/* The reader finds all the data waiting: its reads merge into IPC_RECV runs
 * (calls and bytes add up, far fewer records than reads); the writer's
 * sends are one record each, none lost. */
TEST(stream_reads_merge_into_runs_and_sends_are_all_kept)
{
	struct argus_kext_opts o = {.pid_filter = true, .no_samples = true, .syscalls = true};
	struct collector c;
	size_t recs = 0, calls = 0, sends = 0;
	int64_t bytes = 0, sent = 0;

	require_live();
	ASSERT(socketpair(AF_UNIX, SOCK_STREAM, 0, sp) == 0);
	collector_start(&c, &o);
	struct gated_child w = spawn_gated(run_writer, NULL);
	trace_and_go(&c, &w);
	ASSERT_EQ(wait_child(&c, w.pid), 0);
	struct gated_child r = spawn_gated(run_reader, NULL);
	trace_and_go(&c, &r);
	ASSERT_EQ(wait_child(&c, r.pid), 0);
	collector_finish(&c);
	close(sp[0]);
	close(sp[1]);

	for (size_t i = 0; i < c.n; i++) {
		const struct argus_event *e = &c.ev[i];

		if (is_ipc(e, ARGUS_EV_IPC_RECV, r.pid, ARGUS_OBJ_UNIX)) {
			ASSERT(e->ipc.calls >= 1);
			recs++;
			calls += e->ipc.calls;
			bytes += e->ipc.ret;
			ASSERT_EQ(e->ipc.dur_ns, 0); /* never left the CPU */
		} else if (is_ipc(e, ARGUS_EV_IPC_SEND, w.pid, ARGUS_OBJ_UNIX)) {
			ASSERT_EQ(e->ipc.calls, 1);
			sends++;
			sent += e->ipc.ret;
		}
	}
	ASSERT_EQ(calls, RUN_READS);
	ASSERT_EQ(bytes, RUN_READS * RUN_BYTES);
	ASSERT_MSG(recs >= 1 && recs <= RUN_READS / 10, "%zu records for %d reads", recs,
	           RUN_READS);
	ASSERT_EQ(sends, RUN_READS);
	ASSERT_EQ(sent, RUN_READS * RUN_BYTES);
	collector_free(&c);
}

/* ---- a server's sends to a client are stamped exactly ---------------------- */
static int named_srv; /* the server's end of a connection to a bound path */

static void named_sender(void *arg)
{
	(void)arg;
	for (int i = 0; i < 5; i++)
		if (write(named_srv, "ev", 2) != 2)
			_exit(1);
}

/* Sends on a socket with a bound address (a display server's, a bus's) never
 * share a batch's time: a client's read must not look newer than an event
 * the server wrote after it. Each has its own clock read. */
static void sends_on_a_named_socket_are_each_stamped_in(bool syscalls)
{
	struct argus_kext_opts o = {.pid_filter = true, .no_samples = true, .syscalls = syscalls};
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	struct collector c;
	uint64_t last = 0;
	int n = 0;

	require_live();
	snprintf(a.sun_path, sizeof(a.sun_path), "/tmp/argus-test-named-%d", getpid());
	unlink(a.sun_path);
	int l = socket(AF_UNIX, SOCK_STREAM, 0), cl = socket(AF_UNIX, SOCK_STREAM, 0);
	ASSERT(l >= 0 && cl >= 0);
	ASSERT(bind(l, (struct sockaddr *)&a, sizeof(a)) == 0 && listen(l, 1) == 0);
	ASSERT(connect(cl, (struct sockaddr *)&a, sizeof(a)) == 0);
	named_srv = accept(l, NULL, NULL);
	ASSERT(named_srv >= 0);
	struct gated_child g = collect_child(&c, &o, named_sender, NULL);
	for (size_t i = 0; i < c.n; i++) {
		const struct argus_event *e = &c.ev[i];

		if (!is_ipc(e, ARGUS_EV_IPC_SEND, g.pid, ARGUS_OBJ_UNIX))
			continue;
		ASSERT_MSG(e->ts > last, "send %d stamped %llu after %llu", n,
		           (unsigned long long)e->ts, (unsigned long long)last);
		last = e->ts;
		n++;
	}
	ASSERT_EQ(n, 5);
	close(named_srv);
	close(cl);
	close(l);
	unlink(a.sun_path);
	collector_free(&c);
}

/* ---- empty reads: the first of a run is written ----------------------------
 * A client draining its display connection reads until EAGAIN, then asks
 * again (xcb, then GDK's XPending): in the default capture a run of empty
 * reads of one socket with no other socket record of the thread between is
 * written once, and again once TRACER_EAGAIN_NS has passed. */
static int empty_cl; /* the client's end of a connection to a bound path */

static void empty_reader(void *arg)
{
	struct timespec gap = {0, 3 * TRACER_EAGAIN_NS};
	char b[8];

	(void)arg;
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < 50; i++) /* a run: one record */
			if (recv(empty_cl, b, sizeof(b), MSG_DONTWAIT) != -1 || errno != EAGAIN)
				_exit(1);
		if (send(empty_cl, "q", 1, 0) != 1) /* a socket record: ends the run */
			_exit(1);
		for (int i = 0; i < 50; i++) /* the next run: one record */
			if (recv(empty_cl, b, sizeof(b), MSG_DONTWAIT) != -1 || errno != EAGAIN)
				_exit(1);
		nanosleep(&gap, NULL); /* past the time: the next empty read is written */
	}
}

static void empty_reads_in(bool syscalls, size_t want)
{
	struct argus_kext_opts o = {.pid_filter = true, .no_samples = true, .syscalls = syscalls};
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	struct collector c;
	size_t empty = 0, sends = 0;

	require_live();
	snprintf(a.sun_path, sizeof(a.sun_path), "/tmp/argus-test-empty-%d", getpid());
	unlink(a.sun_path);
	int l = socket(AF_UNIX, SOCK_STREAM, 0);
	empty_cl = socket(AF_UNIX, SOCK_STREAM, 0);
	ASSERT(l >= 0 && empty_cl >= 0);
	ASSERT(bind(l, (struct sockaddr *)&a, sizeof(a)) == 0 && listen(l, 1) == 0);
	ASSERT(connect(empty_cl, (struct sockaddr *)&a, sizeof(a)) == 0);
	int srv = accept(l, NULL, NULL);
	ASSERT(srv >= 0);
	struct gated_child g = collect_child(&c, &o, empty_reader, NULL);
	for (size_t i = 0; i < c.n; i++) {
		const struct argus_event *e = &c.ev[i];

		if (is_ipc(e, ARGUS_EV_IPC_RECV, g.pid, ARGUS_OBJ_UNIX) && e->ipc.ret == -EAGAIN)
			empty += e->ipc.calls;
		else if (is_ipc(e, ARGUS_EV_IPC_SEND, g.pid, ARGUS_OBJ_UNIX))
			sends++;
	}
	ASSERT_EQ(sends, 2);
	ASSERT_MSG(empty == want, "%zu empty reads written, %zu expected", empty, want);
	close(srv);
	close(empty_cl);
	close(l);
	unlink(a.sun_path);
	collector_free(&c);
}

/* A connected loopback TCP pair: fds[0] the connecting end (client family
 * cfam), fds[1] the accepted end (listener family lfam on laddr).
 * Returns -1 with errno when the address cannot be used. */
static int tcp_pair(int lfam, const char *laddr, int cfam, const char *caddr, int fds[2])
{
	struct sockaddr_storage ss = {0};
	socklen_t len;
	int l = socket(lfam, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	if (l < 0)
		return -1;
	if (lfam == AF_INET) {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;

		a->sin_family = AF_INET;
		inet_pton(AF_INET, laddr, &a->sin_addr);
		len = sizeof(*a);
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;

		a->sin6_family = AF_INET6;
		inet_pton(AF_INET6, laddr, &a->sin6_addr);
		len = sizeof(*a);
	}
	if (bind(l, (struct sockaddr *)&ss, len) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&ss, &len)) {
		close(l);
		return -1;
	}
	in_port_t port = lfam == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
	                                 : ((struct sockaddr_in6 *)&ss)->sin6_port;
	memset(&ss, 0, sizeof(ss));
	if (cfam == AF_INET) {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;

		a->sin_family = AF_INET;
		a->sin_port = port;
		inet_pton(AF_INET, caddr, &a->sin_addr);
		len = sizeof(*a);
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = port;
		inet_pton(AF_INET6, caddr, &a->sin6_addr);
		len = sizeof(*a);
	}
	fds[0] = socket(cfam, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fds[0] < 0 || connect(fds[0], (struct sockaddr *)&ss, len) ||
	    (fds[1] = accept4(l, NULL, NULL, SOCK_CLOEXEC)) < 0) {
		close(l);
		return -1;
	}
	close(l);
	/* one segment per message, whatever Nagle and delayed ACKs would do */
	setsockopt(fds[0], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(fds[1], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return 0;
}

/* Sends of `from` whose peer_obj is the socket a later receive of `to`
 * read from (and that receive names the sender's socket as its peer). */
/* Ping-pong over the connection sp[] (a: sp[0], b: sp[1]) in two traced
 * processes; made_before: the connection predates tracing. */
static void tcp_pingpong(const char *what, int lfam, const char *laddr, int cfam, const char *caddr,
                         bool made_before)
{
	struct argus_kext_opts o = {.pid_filter = true, .no_samples = true, .syscalls = true};
	struct collector c;
	size_t ab_sends, ba_sends, ab, ba;

	require_live();
	if (made_before && tcp_pair(lfam, laddr, cfam, caddr, sp))
		SKIP("%s is not usable: %s", what, strerror(errno));
	collector_start(&c, &o);
	if (!made_before && tcp_pair(lfam, laddr, cfam, caddr, sp)) {
		collector_free(&c);
		SKIP("%s is not usable: %s", what, strerror(errno));
	}
	struct gated_child b = spawn_gated(sock_child, NULL);
	struct gated_child a = spawn_gated(sock_parent_side, NULL);
	trace_and_go(&c, &b);
	trace_and_go(&c, &a);
	ASSERT_EQ(wait_child(&c, a.pid), 0);
	ASSERT_EQ(wait_child(&c, b.pid), 0);
	collector_finish(&c);
	close(sp[0]);
	close(sp[1]);

	ab = peer_matched(&c, a.pid, b.pid, ARGUS_OBJ_TCP, &ab_sends);
	ba = peer_matched(&c, b.pid, a.pid, ARGUS_OBJ_TCP, &ba_sends);
	ASSERT_EQ(ab_sends, 10);
	ASSERT_EQ(ba_sends, 10);
	if (made_before) {
		/* paired once both ends made a call: at most the first
		 * message, sent before the other end was seen, has no peer */
		ASSERT_MSG(ab >= 9 && ba >= 9, "%s: matched %zu and %zu of 10", what, ab, ba);
	} else {
		/* paired in the handshake: every message */
		ASSERT_EQ(ab, 10);
		ASSERT_EQ(ba, 10);
	}
	collector_free(&c);
}

TEST(tcp_loopback_send_names_receivers_socket)
{
	tcp_pingpong("IPv4 loopback (127.0.0.1)", AF_INET, "127.0.0.1", AF_INET, "127.0.0.1",
	             false);
}

TEST(tcp_loopback6_send_names_receivers_socket)
{
	tcp_pingpong("IPv6 loopback (::1)", AF_INET6, "::1", AF_INET6, "::1", false);
}

/* An IPv6 socket connected to an IPv4 listener through ::ffff:127.0.0.1:
 * each end sees the connection in its own family. */
TEST(tcp_v4mapped_send_names_receivers_socket)
{
	tcp_pingpong("a v4-mapped IPv6 socket to 127.0.0.1", AF_INET, "127.0.0.1", AF_INET6,
	             "::ffff:127.0.0.1", false);
}

/* A connection made before tracing began is paired from the calls. */
TEST(tcp_connection_before_tracing_is_paired)
{
	tcp_pingpong("IPv4 loopback (127.0.0.1)", AF_INET, "127.0.0.1", AF_INET, "127.0.0.1", true);
}

/* ---- pseudo-terminal across fork: a child on a pty ------------------------ */
static int pty_master, pty_slave;

/* The child answers each line on the slave end, as a program on a terminal. */
static void pty_child(void *arg)
{
	(void)arg;
	char b[64];

	for (int i = 0; i < 5; i++) {
		if (read(pty_slave, b, sizeof(b)) <= 0 || write(pty_slave, "ok\n", 3) != 3)
			_exit(1);
	}
}

static void pty_parent_side(void *arg)
{
	(void)arg;
	char b[64];

	for (int i = 0; i < 5; i++) {
		if (write(pty_master, "go\n", 3) != 3 || read(pty_master, b, sizeof(b)) <= 0)
			_exit(1);
		usleep(2000);
	}
}

TEST(pty_write_names_the_other_ends_tty)
{
	struct argus_kext_opts o = {.pid_filter = true, .no_samples = true, .syscalls = true};
	struct collector c;
	struct termios raw;

	require_live();
	ASSERT(openpty(&pty_master, &pty_slave, NULL, NULL, NULL) == 0);
	/* raw: no echo, so each read gets exactly what the other end wrote */
	ASSERT(tcgetattr(pty_slave, &raw) == 0);
	cfmakeraw(&raw);
	ASSERT(tcsetattr(pty_slave, TCSANOW, &raw) == 0);
	collector_start(&c, &o);
	struct gated_child b = spawn_gated(pty_child, NULL);
	struct gated_child a = spawn_gated(pty_parent_side, NULL);
	trace_and_go(&c, &b);
	trace_and_go(&c, &a);
	ASSERT_EQ(wait_child(&c, a.pid), 0);
	ASSERT_EQ(wait_child(&c, b.pid), 0);
	collector_finish(&c);
	close(pty_master);
	close(pty_slave);

	/* each master write names the slave's tty as its peer, and the
	 * child's read of it is on that tty; and the other way round */
	size_t sends, answers, matched = peer_matched(&c, a.pid, b.pid, ARGUS_OBJ_PTY, &sends);

	peer_matched(&c, b.pid, a.pid, ARGUS_OBJ_PTY, &answers);
	ASSERT_EQ(sends, 5);
	ASSERT_EQ(matched, 5);
	ASSERT_EQ(answers, 5);
	collector_free(&c);
}

static int efd;

static void efd_writer(void *arg)
{
	(void)arg;
	uint64_t one = 1;

	for (int i = 0; i < 5; i++) {
		usleep(5000);
		if (write(efd, &one, 8) != 8)
			_exit(1);
	}
}

static void efd_reader(void *arg)
{
	(void)arg;
	uint64_t v;

	for (int got = 0; got < 5;) {
		if (read(efd, &v, 8) != 8)
			_exit(1);
		got += (int)v;
	}
}

TEST(eventfd_write_matches_read)
{
	struct argus_kext_opts o = {.pid_filter = true, .no_samples = true, .syscalls = true};
	struct collector c;

	require_live();
	efd = eventfd(0, EFD_CLOEXEC);
	ASSERT(efd >= 0);
	collector_start(&c, &o);
	struct gated_child r = spawn_gated(efd_reader, NULL);
	struct gated_child w = spawn_gated(efd_writer, NULL);
	trace_and_go(&c, &r);
	trace_and_go(&c, &w);
	ASSERT_EQ(wait_child(&c, w.pid), 0);
	ASSERT_EQ(wait_child(&c, r.pid), 0);
	collector_finish(&c);

	uint64_t sobj = 0, robj = 0;
	size_t sends = 0, recvs = 0;
	for (size_t i = 0; i < c.n; i++) {
		if (is_ipc(&c.ev[i], ARGUS_EV_IPC_SEND, w.pid, ARGUS_OBJ_EVENTFD)) {
			sobj = c.ev[i].ipc.obj;
			sends++;
		}
		if (is_ipc(&c.ev[i], ARGUS_EV_IPC_RECV, r.pid, ARGUS_OBJ_EVENTFD)) {
			robj = c.ev[i].ipc.obj;
			recvs++;
		}
	}
	ASSERT_EQ(sends, 5);
	ASSERT(recvs >= 1);
	ASSERT(sobj != 0);
	ASSERT_U64_EQ(sobj, robj);
	close(efd);
	collector_free(&c);
}

/* ---- condition variable: futex wake pairs with the waiter's wake-up -------- */
struct cv {
	pthread_mutex_t m;
	pthread_cond_t cond;
	int ready;
	pid_t waiter_tid;
};

static void *cv_waiter(void *arg)
{
	struct cv *cv = arg;

	pthread_mutex_lock(&cv->m);
	cv->waiter_tid = (pid_t)syscall(SYS_gettid);
	while (!cv->ready)
		pthread_cond_wait(&cv->cond, &cv->m);
	pthread_mutex_unlock(&cv->m);
	return NULL;
}

static void cv_main(void *arg)
{
	struct cv *cv = arg;
	pthread_t t;

	pthread_create(&t, NULL, cv_waiter, cv);
	usleep(50000); /* the waiter is asleep in the futex by now */
	pthread_mutex_lock(&cv->m);
	cv->ready = 1;
	pthread_cond_signal(&cv->cond);
	pthread_mutex_unlock(&cv->m);
	pthread_join(t, NULL);
}

static void condvar_futex_wake_pairs_with_waiters_wakeup_in(bool syscalls)
{
	struct argus_kext_opts o = {.pid_filter = true, .no_samples = true, .syscalls = syscalls};
	struct collector c;
	static struct cv cv = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};

	require_live();
	collector_start(&c, &o);
	struct gated_child g = spawn_gated(cv_main, &cv);
	trace_and_go(&c, &g);
	ASSERT_EQ(wait_child(&c, g.pid), 0);
	collector_finish(&c);

	/* the waiter's FUTEX_WAIT, then main's FUTEX_WAKE on the same word
	 * waking one thread, with main's sched_waking of the waiter inside it */
	const struct argus_event *wait = NULL, *wake = NULL;
	uint32_t waiter = 0;
	for (size_t i = 0; i < c.n; i++) {
		const struct argus_event *e = &c.ev[i];

		if (e->type == ARGUS_EV_FUTEX_WAIT && e->pid == (uint32_t)g.pid &&
		    e->tid != (uint32_t)g.pid && !wait) {
			wait = e;
			waiter = e->tid;
		}
		if (wait && e->type == ARGUS_EV_FUTEX_WAKE && e->tid == (uint32_t)g.pid &&
		    e->futex.uaddr == wait->futex.uaddr && e->futex.ret >= 1)
			wake = e;
	}
	ASSERT_MSG(wait, "no FUTEX_WAIT of the waiter thread");
	ASSERT_MSG(wake, "no FUTEX_WAKE on the waiter's futex word");
	bool paired = false;
	for (size_t i = 0; i < c.n; i++) {
		const struct argus_event *w = &c.ev[i];

		if (w->type == ARGUS_EV_SCHED_WAKEUP && w->tid == (uint32_t)g.pid &&
		    w->wakeup.wakee_tid == waiter && w->ts <= wake->ts &&
		    w->ts >= wake->ts - 50000000ull)
			paired = true;
	}
	ASSERT_MSG(paired, "no sched_waking of the waiter by the signaller inside the wake");
	collector_free(&c);
}

/* ---- timerfd: arm -> fire -> read on one object ----------------------------- */
TEST(timerfd_arm_fire_and_read_share_the_object)
{
	struct argus_kext_opts o = {.pid_filter = true, .no_samples = true, .syscalls = true};
	struct collector c;

	require_live();
	struct gated_child g = collect_child(&c, &o, child_timerfd_20ms, NULL);

	const struct argus_event *arm = NULL, *fire = NULL, *rd = NULL;
	for (size_t i = 0; i < c.n; i++) {
		const struct argus_event *e = &c.ev[i];

		if (e->type == ARGUS_EV_TIMER_ARM && e->pid == (uint32_t)g.pid &&
		    e->timer.kind == ARGUS_TIMER_TIMERFD)
			arm = e;
		if (arm && !fire && e->type == ARGUS_EV_TIMER_FIRE &&
		    e->timer.obj == arm->timer.obj)
			fire = e;
		if (fire && e->type == ARGUS_EV_IPC_RECV && e->ipc.obj_kind == ARGUS_OBJ_TIMERFD &&
		    e->ipc.obj == arm->timer.obj)
			rd = e;
	}
	ASSERT_MSG(arm, "no TIMER_ARM of the timerfd");
	ASSERT_MSG(fire, "no TIMER_FIRE of the timerfd's hrtimer");
	ASSERT_MSG(rd, "no read of the timerfd after it fired");
	ASSERT(arm->timer.expires_ns > arm->ts);
	ASSERT(fire->ts >= arm->ts + 15000000ull);
	/* the expiry runs in interrupt context and names no task */
	ASSERT(fire->flags & ARGUS_F_HARDIRQ);
	ASSERT_EQ(fire->pid, 0);
	/* arming it did not run in interrupt context */
	ASSERT_EQ(arm->flags & (ARGUS_F_HARDIRQ | ARGUS_F_SOFTIRQ), 0);
	collector_free(&c);
}

/* ---- both captures: per-call (--syscalls) and the default one ----------------
 * The default capture sees these without a syscall tracepoint: the pinned
 * ping-pong's reads all block (each write is seen where it wakes the reader,
 * each read where it resumes), sends on a named socket come from the socket
 * tracepoint, and a futex wake from the waker's registers at its wake-up. */
TEST(pipe_pingpong_matches_write_to_read)
{
	pipe_pingpong_matches_write_to_read_in(true);
}

TEST(default_capture_pipe_pingpong_matches_write_to_read)
{
	pipe_pingpong_matches_write_to_read_in(false);
}

TEST(sends_on_a_named_socket_are_each_stamped)
{
	sends_on_a_named_socket_are_each_stamped_in(true);
}

TEST(default_capture_sends_on_a_named_socket_are_each_stamped)
{
	sends_on_a_named_socket_are_each_stamped_in(false);
}

/* per-call capture writes every call */
TEST(empty_reads_are_each_written)
{
	empty_reads_in(true, 200);
}

/* two rounds of two runs */
TEST(default_capture_writes_the_first_empty_read_of_a_run)
{
	empty_reads_in(false, 4);
}

TEST(condvar_futex_wake_pairs_with_waiters_wakeup)
{
	condvar_futex_wake_pairs_with_waiters_wakeup_in(true);
}

TEST(default_capture_condvar_futex_wake_pairs_with_waiters_wakeup)
{
	condvar_futex_wake_pairs_with_waiters_wakeup_in(false);
}

/* ---- a poll's fds ------------------------------------------------------- */
static int poll_a[2], poll_b[2];

static void poller(void *arg)
{
	(void)arg;
	struct pollfd one = {.fd = poll_a[0], .events = POLLIN};
	struct pollfd two[2] = {{.fd = poll_a[0], .events = POLLIN},
	                        {.fd = poll_b[0], .events = POLLIN}};
	if (poll(&one, 1, 30) != 0 || poll(two, 2, 30) != 0) /* both time out, blocked */
		_exit(1);
}

/* A blocking poll's record gives its fd count (arg1), and a poll of one fd
 * names that fd's object, in both captures: the trigger tells a wait on a
 * service's socket (an app launching) and a round trip from its loop's
 * wait by them (with per-call capture the object was left out, and the
 * corpus's launch cases gave no stall). */
static void a_poll_names_its_one_fd_and_counts_its_fds_in(bool syscalls)
{
	struct argus_kext_opts o = {.pid_filter = true, .no_samples = true, .syscalls = syscalls};
	struct collector c;

	require_live();
	ASSERT(pipe(poll_a) == 0 && pipe(poll_b) == 0);
	collector_start(&c, &o);
	struct gated_child p = spawn_gated(poller, NULL);
	trace_and_go(&c, &p);
	ASSERT_EQ(wait_child(&c, p.pid), 0);
	collector_finish(&c);
	size_t one = 0, two = 0;
	for (size_t i = 0; i < c.n; i++) {
		const struct argus_event *e = &c.ev[i];
		if (e->type != ARGUS_EV_SYS_ENTER || e->pid != (uint32_t)p.pid ||
		    e->sys_enter.nr != ARGUS_NR_poll)
			continue;
		if (e->sys_enter.arg1 == 1) {
			ASSERT_EQ(e->sys_enter.fd, poll_a[0]);
			ASSERT_EQ(e->sys_enter.obj_kind, ARGUS_OBJ_PIPE);
			ASSERT(e->sys_enter.obj != 0);
			one++;
		} else if (e->sys_enter.arg1 == 2) {
			ASSERT_U64_EQ(e->sys_enter.obj, 0);
			two++;
		}
	}
	ASSERT_MSG(one == 1 && two == 1, "polls of one fd seen %zu, of two %zu", one, two);
	close(poll_a[0]);
	close(poll_a[1]);
	close(poll_b[0]);
	close(poll_b[1]);
	collector_free(&c);
}

TEST(a_poll_names_its_one_fd_and_counts_its_fds)
{
	a_poll_names_its_one_fd_and_counts_its_fds_in(true);
}

TEST(default_capture_a_poll_names_its_one_fd_and_counts_its_fds)
{
	a_poll_names_its_one_fd_and_counts_its_fds_in(false);
}

TEST_MAIN(TEST_ENTRY(pipe_pingpong_matches_write_to_read),
          TEST_ENTRY(unix_socketpair_send_names_receivers_socket),
          TEST_ENTRY(tcp_loopback_send_names_receivers_socket),
          TEST_ENTRY(tcp_loopback6_send_names_receivers_socket),
          TEST_ENTRY(tcp_v4mapped_send_names_receivers_socket),
          TEST_ENTRY(tcp_connection_before_tracing_is_paired),
          TEST_ENTRY(stream_reads_merge_into_runs_and_sends_are_all_kept),
          TEST_ENTRY(sends_on_a_named_socket_are_each_stamped),
          TEST_ENTRY(pty_write_names_the_other_ends_tty), TEST_ENTRY(eventfd_write_matches_read),
          TEST_ENTRY(condvar_futex_wake_pairs_with_waiters_wakeup),
          TEST_ENTRY(timerfd_arm_fire_and_read_share_the_object),
          TEST_ENTRY(default_capture_pipe_pingpong_matches_write_to_read),
          TEST_ENTRY(default_capture_sends_on_a_named_socket_are_each_stamped),
          TEST_ENTRY(empty_reads_are_each_written),
          TEST_ENTRY(default_capture_writes_the_first_empty_read_of_a_run),
          TEST_ENTRY(default_capture_condvar_futex_wake_pairs_with_waiters_wakeup),
          TEST_ENTRY(a_poll_names_its_one_fd_and_counts_its_fds),
          TEST_ENTRY(default_capture_a_poll_names_its_one_fd_and_counts_its_fds))
