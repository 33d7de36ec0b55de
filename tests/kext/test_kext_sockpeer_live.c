/*
 * test_kext_sockpeer_live.c - the default capture names who listens where a
 * unix socket connected (label "live"; kext/sockpeer.bpf.c): a connect that
 * does not block has no record of its own there, so the connecting end's
 * first send carries one (SYS_ENTER connect with the listener's pid in arg0,
 * its SYS_EXIT marked ARGUS_F_NORET), once per socket; the server's end of
 * a connection and socket pairs never do.
 */
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>

#include "collect.h"

static struct sockaddr_un outer; /* where the test process itself listens */

static int connect_to(const struct sockaddr_un *a)
{
	int s = socket(AF_UNIX, SOCK_STREAM, 0);

	if (s < 0 || connect(s, (const struct sockaddr *)a, sizeof(*a)))
		_exit(2);
	return s;
}

/* The traced child: two connections to the test's listener (never accepted
 * while the child runs, as a stopped bus's), a connection to a listener of
 * its own that it accepts and answers on, and a socket pair. */
static void client_main(void *arg)
{
	struct sockaddr_un own = {.sun_family = AF_UNIX};
	int sp[2];

	(void)arg;
	int c1 = connect_to(&outer), c2 = connect_to(&outer);
	for (int i = 0; i < 3; i++)
		if (write(c1, "AUTH", 4) != 4)
			_exit(3);
	if (write(c2, "x", 1) != 1)
		_exit(3);
	/* the path is ours and short; %.96s keeps gcc sure it fits */
	snprintf(own.sun_path, sizeof(own.sun_path), "%.96s-own", outer.sun_path);
	unlink(own.sun_path);
	int l = socket(AF_UNIX, SOCK_STREAM, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&own, sizeof(own)) || listen(l, 1))
		_exit(4);
	int c3 = connect_to(&own), s3 = accept(l, NULL, NULL);
	if (s3 < 0 || write(s3, "hello", 5) != 5 || write(c3, "hi", 2) != 2 ||
	    write(s3, "again", 5) != 5)
		_exit(5);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp) || write(sp[0], "p", 1) != 1)
		_exit(6);
	unlink(own.sun_path);
}

struct conn {
	uint64_t obj, peer, ts;
	int64_t listener;
	bool exit_seen;
};

TEST(default_capture_names_the_listener_at_a_clients_first_send)
{
	struct argus_kext_opts o = {.pid_filter = true, .no_samples = true};
	struct conn conns[8] = {0};
	struct collector c;
	int nconn = 0, nsend = 0;

	require_live();
	outer.sun_family = AF_UNIX;
	snprintf(outer.sun_path, sizeof(outer.sun_path), "/tmp/argus-test-sockpeer-%d", getpid());
	unlink(outer.sun_path);
	int l = socket(AF_UNIX, SOCK_STREAM, 0);
	ASSERT(l >= 0);
	ASSERT(bind(l, (struct sockaddr *)&outer, sizeof(outer)) == 0 && listen(l, 4) == 0);
	struct gated_child g = collect_child(&c, &o, client_main, NULL);

	for (size_t i = 0; i < c.n; i++) {
		const struct argus_event *e = &c.ev[i];

		if (e->pid != (uint32_t)g.pid)
			continue;
		if (e->type == ARGUS_EV_SYS_ENTER && e->sys_enter.nr == SYS_connect) {
			ASSERT(nconn < 8);
			ASSERT_EQ(e->sys_enter.obj_kind, ARGUS_OBJ_UNIX);
			conns[nconn++] = (struct conn){.obj = e->sys_enter.obj,
			                               .peer = e->sys_enter.peer_obj,
			                               .ts = e->ts,
			                               .listener = e->sys_enter.arg0};
		}
	}
	for (size_t i = 0; i < c.n; i++) {
		const struct argus_event *e = &c.ev[i];

		if (e->pid != (uint32_t)g.pid)
			continue;
		for (int k = 0; k < nconn; k++) {
			if (e->type == ARGUS_EV_SYS_EXIT && e->sys_exit.nr == SYS_connect &&
			    e->sys_exit.obj == conns[k].obj) {
				ASSERT(e->flags & ARGUS_F_NORET);
				ASSERT_EQ(e->ts, conns[k].ts);
				conns[k].exit_seen = true;
			}
			/* the record comes with the first send: none earlier */
			if (e->type == ARGUS_EV_IPC_SEND && e->ipc.obj == conns[k].obj)
				ASSERT(e->ts >= conns[k].ts);
		}
		if (e->type == ARGUS_EV_IPC_SEND && e->ipc.obj_kind == ARGUS_OBJ_UNIX)
			nsend++;
	}
	/* c1, c2 to the test's listener, c3 to the child's own; not the
	 * accepted end s3 (it sent twice), not the socket pair */
	ASSERT_MSG(nconn == 3, "%d connect records, %d unix sends", nconn, nsend);
	ASSERT_EQ(conns[0].listener, (int64_t)getpid());
	ASSERT_EQ(conns[1].listener, (int64_t)getpid());
	ASSERT_EQ(conns[2].listener, (int64_t)g.pid);
	ASSERT(conns[0].obj != conns[1].obj && conns[0].peer && conns[1].peer && conns[2].peer);
	for (int k = 0; k < nconn; k++)
		ASSERT(conns[k].exit_seen);
	close(l);
	unlink(outer.sun_path);
	collector_free(&c);
}

/* per-call capture records connect itself, with its real return */
TEST(per_call_capture_has_no_stand_in_connect)
{
	struct argus_kext_opts o = {.pid_filter = true, .no_samples = true, .syscalls = true};
	struct collector c;
	int n = 0;

	require_live();
	outer.sun_family = AF_UNIX;
	snprintf(outer.sun_path, sizeof(outer.sun_path), "/tmp/argus-test-sockpeer-%d", getpid());
	unlink(outer.sun_path);
	int l = socket(AF_UNIX, SOCK_STREAM, 0);
	ASSERT(l >= 0);
	ASSERT(bind(l, (struct sockaddr *)&outer, sizeof(outer)) == 0 && listen(l, 4) == 0);
	struct gated_child g = collect_child(&c, &o, client_main, NULL);
	for (size_t i = 0; i < c.n; i++) {
		const struct argus_event *e = &c.ev[i];

		if (e->pid == (uint32_t)g.pid && e->type == ARGUS_EV_SYS_EXIT &&
		    e->sys_exit.nr == SYS_connect) {
			ASSERT(!(e->flags & ARGUS_F_NORET));
			n++;
		}
	}
	ASSERT_EQ(n, 3);
	close(l);
	unlink(outer.sun_path);
	collector_free(&c);
}

TEST_MAIN(TEST_ENTRY(default_capture_names_the_listener_at_a_clients_first_send),
          TEST_ENTRY(per_call_capture_has_no_stand_in_connect))
