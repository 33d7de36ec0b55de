/*
 * test_graph_rules.c - each split rule and each edge rule of the graph on a
 * tiny hand-written trace showing the paper's pattern, asserting the exact
 * vertices and edges (docs/graph.md, the two rule tables).
 */
#include "graph_events.h"
#include "test.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

struct fixture {
	struct argus_graph *g;
	struct argus_graph_view v;
	struct argus_graph_stats st;
};

static void run(struct fixture *f, const struct argus_graph_opts *o, const struct argus_event *ev,
                size_t n)
{
	ASSERT_EQ(argus_graph_new(&f->g, o), 0);
	ASSERT_EQ(argus_graph_ingest(f->g, ev, n), 0);
	argus_graph_flush(f->g);
	argus_graph_get_stats(f->g, &f->st);
	argus_graph_view_begin(f->g, &f->v);
	/* the hand-written traces are in time order, except where a test says so */
	uint64_t late = 0;
	for (size_t i = 0; i < n; i++)
		late += (ev[i].flags & ARGUS_F_LATE) != 0;
	ASSERT_U64_EQ(f->st.events_late, late);
}

static void done(struct fixture *f)
{
	argus_graph_view_end(&f->v);
	argus_graph_free(f->g);
}

/* The segments of one thread, in order. */
static size_t segs(struct fixture *f, uint32_t tid, argus_vid *out, size_t cap)
{
	size_t n = 0;
	struct argus_vertex_info x;
	for (argus_vid id = argus_graph_next_vertex(&f->v, 0); id;
	     id = argus_graph_next_vertex(&f->v, id))
		if (argus_graph_vertex(&f->v, id, &x) && x.tid == tid && n < cap)
			out[n++] = id;
	return n;
}

static argus_vid seg(struct fixture *f, uint32_t tid, size_t i)
{
	argus_vid s[16];
	size_t n = segs(f, tid, s, 16);
	ASSERT_MSG(i < n, "thread %u has %zu segments, wanted #%zu", tid, n, i);
	return s[i];
}

static size_t in_count(struct fixture *f, argus_vid dst)
{
	return argus_graph_in_edges(&f->v, dst, NULL, 0);
}

/* Edges into dst from src of a kind; strength returned through *s. */
static int edge(struct fixture *f, argus_vid dst, argus_vid src, int kind, int *s)
{
	struct argus_edge_info e[32];
	size_t n = argus_graph_in_edges(&f->v, dst, e, 32);
	int hits = 0;
	for (size_t i = 0; i < n && i < 32; i++) {
		if (e[i].src == src && e[i].kind == kind) {
			hits++;
			if (s)
				*s = e[i].strength;
		}
	}
	return hits;
}

static int kind_count(struct fixture *f, argus_vid dst, int kind)
{
	struct argus_edge_info e[32];
	size_t n = argus_graph_in_edges(&f->v, dst, e, 32);
	int hits = 0;
	for (size_t i = 0; i < n && i < 32; i++)
		hits += e[i].kind == kind;
	return hits;
}

/* ---- split rules ---- */

/* A blocking wait ends a segment; the next begins at the wake-up. */
TEST(split_blocking_wait)
{
	/* clang-format off */
	struct argus_event ev[] = {
		ev_sys_enter(1 * MS, 10, 11, T_FUTEX),
		ev_switch(2 * MS, 10, 11, 1, 0, 0),
		ev_sys_enter(3 * MS, 20, 21, T_WRITE),
		ev_wakeup(4 * MS, 20, 21, 10, 11, 0),
		ev_sys_exit(5 * MS, 20, 21, T_WRITE, 1),
		ev_sys_exit(6 * MS, 10, 11, T_FUTEX, -110),
	};
	/* clang-format on */
	struct fixture f;
	run(&f, NULL, ev, N(ev));
	argus_vid s[4];
	ASSERT_EQ(segs(&f, 11, s, 4), 2);
	struct argus_vertex_info a, b;
	ASSERT(argus_graph_vertex(&f.v, s[0], &a));
	ASSERT(argus_graph_vertex(&f.v, s[1], &b));
	ASSERT_U64_EQ(a.start, 1 * MS);
	ASSERT_U64_EQ(a.end, 2 * MS);
	ASSERT(a.flags & ARGUS_VF_WAITED);
	ASSERT_EQ(a.wait_kind, ARGUS_WAIT_FUTEX);
	ASSERT_EQ(a.wait_ret, -110);
	ASSERT_U64_EQ(a.wait_ns, 2 * MS);
	ASSERT_U64_EQ(b.start, 4 * MS);
	ASSERT_EQ(b.split, ARGUS_SPLIT_WAKEUP);
	ASSERT_U64_EQ(b.prev, s[0]);
	ASSERT_EQ(segs(&f, 21, s, 4), 1);
	done(&f);
}

/* A wait whose wake-up left no record (a timeout's interrupt, missed) lasts
 * until the thread runs again. */
/* SIGSTOP: the switch-out's prev_state has __TASK_STOPPED (4); a plain
 * sleep (1) does not */
TEST(stopped_segment_is_flagged)
{
	/* clang-format off */
	struct argus_event ev[] = {
		ev_sys_enter(1 * MS, 10, 11, T_FUTEX),
		ev_switch(2 * MS, 10, 11, 1, 0, 0),
		ev_wakeup(3 * MS, 20, 21, 10, 11, 0),
		ev_switch(4 * MS, 10, 11, 4, 0, 0),
		ev_wakeup(9 * MS, 20, 21, 10, 11, 0),
	};
	/* clang-format on */
	struct fixture f;
	run(&f, NULL, ev, N(ev));
	argus_vid s[4];
	ASSERT_EQ(segs(&f, 11, s, 4), 3);
	struct argus_vertex_info a, b;
	ASSERT(argus_graph_vertex(&f.v, s[0], &a));
	ASSERT(argus_graph_vertex(&f.v, s[1], &b));
	ASSERT(!(a.flags & ARGUS_VF_STOPPED));
	ASSERT(b.flags & ARGUS_VF_STOPPED);
	ASSERT(b.flags & ARGUS_VF_WAITED);
	done(&f);
}

/* a send names the thread last seen reading where it went (a stopped
 * service's socket: it read there before it stopped), so a request no one
 * read still has a reader to blame; a one-fd poll on a peer socket is a
 * read wait */
TEST(send_names_the_reader_of_its_destination)
{
	const uint64_t A = 0xa000, B = 0xb000;
	/* clang-format off */
	struct argus_event ev[] = {
		ev_ipc(1 * MS, true, 10, 11, A, B, ARGUS_OBJ_UNIX, 8),
		ev_ipc(2 * MS, false, 20, 21, B, A, ARGUS_OBJ_UNIX, 8), /* 21 reads B */
		ev_ipc(5 * MS, true, 10, 11, A, B, ARGUS_OBJ_UNIX, 8),  /* unread */
		ev_sys_enter(6 * MS, 10, 11, 7),
		ev_switch(7 * MS, 10, 11, 1, 0, 0),
	};
	/* clang-format on */
	ev[3].sys_enter.obj = A;
	ev[3].sys_enter.obj_kind = ARGUS_OBJ_UNIX;
	struct fixture f;
	run(&f, NULL, ev, N(ev));
	argus_vid s[4];
	size_t n = segs(&f, 11, s, 4);
	ASSERT(n >= 1);
	struct argus_vertex_info last;
	ASSERT(argus_graph_vertex(&f.v, s[n - 1], &last));
	ASSERT_EQ(last.send_reader, 21);
	ASSERT(last.flags & ARGUS_VF_WAITED);
	ASSERT_EQ(last.wait_kind, ARGUS_WAIT_READ);
	done(&f);
}

TEST(split_wait_without_wakeup_record)
{
	/* clang-format off */
	struct argus_event ev[] = {
		ev_sys_enter(1 * MS, 10, 11, T_EPOLL_WAIT),
		ev_switch(2 * MS, 10, 11, 1, 0, 0),
		ev_sys_exit(1502 * MS, 10, 11, T_EPOLL_WAIT, 0),
	};
	/* clang-format on */
	struct fixture f;
	run(&f, NULL, ev, N(ev));
	struct argus_vertex_info a;
	ASSERT(argus_graph_vertex(&f.v, seg(&f, 11, 0), &a));
	ASSERT(a.flags & ARGUS_VF_WAITED);
	ASSERT_U64_EQ(a.wait_ns, 1500 * MS);
	done(&f);
}

/* The kext writes a wait stack only for a new place: a thread that blocks
 * where it blocked before keeps that stack. */
TEST(wait_stack_of_the_same_place_carried)
{
	/* clang-format off */
	struct argus_event ev[] = {
		ev_sys_enter(1 * MS, 10, 11, T_READ),
		ev_obj(2 * MS, ARGUS_EV_STACK, 10, 11, 77),
		ev_switch(2 * MS, 10, 11, 1, 0, 0),
		ev_wakeup(3 * MS, 20, 21, 10, 11, 0),
		ev_sys_exit(4 * MS, 10, 11, T_READ, 1),
		ev_sys_enter(5 * MS, 10, 11, T_READ),
		ev_switch(6 * MS, 10, 11, 1, 0, 0),
	};
	/* clang-format on */
	struct fixture f;
	run(&f, NULL, ev, N(ev));
	struct argus_vertex_info a, b;
	ASSERT(argus_graph_vertex(&f.v, seg(&f, 11, 0), &a));
	ASSERT(argus_graph_vertex(&f.v, seg(&f, 11, 1), &b));
	ASSERT_EQ(a.stack_last, 77);
	ASSERT_EQ(b.stack_first, 77);
	ASSERT_EQ(b.stack_last, 77);
	done(&f);
}

/* Event-loop dispatch begin / end cut segments (000 s5, 001 P8); the
 * adjacent edge between dispatches is a known batching API: left out. */
TEST(split_dispatch_hooks)
{
	/* clang-format off */
	struct argus_event ev[] = {
		ev_obj(1 * MS, ARGUS_EV_DISPATCH_BEGIN, 10, 11, 1),
		ev_sys_enter(2 * MS, 10, 11, T_WRITE),
		ev_sys_exit(3 * MS, 10, 11, T_WRITE, 1),
		ev_obj(4 * MS, ARGUS_EV_DISPATCH_END, 10, 11, 1),
		ev_obj(5 * MS, ARGUS_EV_DISPATCH_BEGIN, 10, 11, 2),
		ev_sys_enter(6 * MS, 10, 11, T_WRITE),
		ev_obj(7 * MS, ARGUS_EV_DISPATCH_END, 10, 11, 2),
	};
	/* clang-format on */
	struct fixture f;
	run(&f, NULL, ev, N(ev));
	argus_vid s[4];
	ASSERT_EQ(segs(&f, 11, s, 4), 2);
	struct argus_vertex_info a, b;
	ASSERT(argus_graph_vertex(&f.v, s[0], &a));
	ASSERT(argus_graph_vertex(&f.v, s[1], &b));
	ASSERT_U64_EQ(a.start, 1 * MS);
	ASSERT_U64_EQ(a.end, 4 * MS);
	ASSERT_U64_EQ(b.start, 5 * MS);
	ASSERT_U64_EQ(b.end, 7 * MS);
	ASSERT(a.flags & ARGUS_VF_DISPATCH);
	ASSERT(b.flags & ARGUS_VF_DISPATCH);
	ASSERT_EQ(in_count(&f, s[1]), 0);
	ASSERT_U64_EQ(f.st.left_out[ARGUS_LEFTOUT_KNOWN_BATCH], 1);
	done(&f);
}

/* The batching daemon (000 Figure 1, 001 P6): one loop serves client A and
 * client C without blocking; the requests land in separate segments, each
 * connected to its own client only. */
static void batch_daemon(struct fixture *f, const char *daemon_comm)
{
	/* clang-format off */
	struct argus_event ev[] = {
		ev_comm(0, 30, 31, daemon_comm),
		ev_ipc(1 * MS, true, 10, 11, 0xA0, 0xDA, ARGUS_OBJ_UNIX, 8),
		ev_ipc(2 * MS, true, 40, 41, 0xC0, 0xDC, ARGUS_OBJ_UNIX, 8),
		ev_ipc(3 * MS, false, 30, 31, 0xDA, 0xA0, ARGUS_OBJ_UNIX, 8),
		ev_ipc(4 * MS, true, 30, 31, 0xDA, 0xA0, ARGUS_OBJ_UNIX, 8),
		ev_ipc(5 * MS, false, 30, 31, 0xDC, 0xC0, ARGUS_OBJ_UNIX, 8),
		ev_ipc(6 * MS, true, 30, 31, 0xDC, 0xC0, ARGUS_OBJ_UNIX, 8),
		ev_ipc(7 * MS, false, 10, 11, 0xA0, 0xDA, ARGUS_OBJ_UNIX, 8),
		ev_ipc(8 * MS, false, 40, 41, 0xC0, 0xDC, ARGUS_OBJ_UNIX, 8),
	};
	/* clang-format on */
	run(f, NULL, ev, N(ev));
}

TEST(split_batch_daemon)
{
	struct fixture f;
	batch_daemon(&f, "fontd");
	argus_vid d[4];
	ASSERT_EQ(segs(&f, 31, d, 4), 2);
	struct argus_vertex_info x;
	ASSERT(argus_graph_vertex(&f.v, d[1], &x));
	ASSERT_EQ(x.split, ARGUS_SPLIT_BATCH);
	ASSERT_U64_EQ(x.start, 5 * MS);
	argus_vid a = seg(&f, 11, 0), c = seg(&f, 41, 0);
	int s = 0;
	ASSERT_EQ(edge(&f, d[0], a, ARGUS_EDGE_IPC, &s), 1);
	ASSERT_EQ(s, ARGUS_STRONG);
	ASSERT_EQ(edge(&f, d[1], c, ARGUS_EDGE_IPC, NULL), 1);
	ASSERT_EQ(edge(&f, d[1], a, ARGUS_EDGE_IPC, NULL), 0);
	ASSERT_EQ(edge(&f, a, d[0], ARGUS_EDGE_IPC, NULL), 1);
	ASSERT_EQ(edge(&f, a, d[1], ARGUS_EDGE_IPC, NULL), 0);
	ASSERT_EQ(edge(&f, c, d[1], ARGUS_EDGE_IPC, NULL), 1);
	ASSERT_EQ(edge(&f, c, d[0], ARGUS_EDGE_IPC, NULL), 0);
	/* a suspicious batch split keeps a weak adjacent edge (Table 1 weak 3) */
	ASSERT_EQ(edge(&f, d[1], d[0], ARGUS_EDGE_ADJACENT, &s), 1);
	ASSERT_EQ(s, ARGUS_WEAK);
	done(&f);
}

/* dbus-daemon is a known batching loop: the split stays, the weak edge goes. */
TEST(adjacent_left_out_known_batching)
{
	struct fixture f;
	batch_daemon(&f, "dbus-daemon");
	argus_vid d[4];
	ASSERT_EQ(segs(&f, 31, d, 4), 2);
	ASSERT_EQ(edge(&f, d[1], d[0], ARGUS_EDGE_ADJACENT, NULL), 0);
	ASSERT_U64_EQ(f.st.left_out[ARGUS_LEFTOUT_KNOWN_BATCH], 1);
	done(&f);
}

/* Piggyback (000 Figure 2, 001 P3): one call receives C's request and sends
 * A's postponed reply; the reply stays with A's segment. */
TEST(split_piggyback_send_recv)
{
	/* clang-format off */
	struct argus_event ev[] = {
		ev_ipc(1 * MS, true, 10, 11, 0xA0, 0xDA, ARGUS_OBJ_UNIX, 8),
		ev_ipc(2 * MS, true, 40, 41, 0xC0, 0xDC, ARGUS_OBJ_UNIX, 8),
		ev_sys_enter(3 * MS, 30, 31, 47),
		ev_ipc(4 * MS, false, 30, 31, 0xDA, 0xA0, ARGUS_OBJ_UNIX, 8),
		ev_sys_exit(4 * MS, 30, 31, 47, 8),
		ev_sys_enter(5 * MS, 30, 31, 47),
		ev_ipc(6 * MS, false, 30, 31, 0xDC, 0xC0, ARGUS_OBJ_UNIX, 8),
		ev_ipc(6 * MS, true, 30, 31, 0xDA, 0xA0, ARGUS_OBJ_UNIX, 8),
		ev_sys_exit(6 * MS, 30, 31, 47, 8),
		ev_ipc(7 * MS, false, 10, 11, 0xA0, 0xDA, ARGUS_OBJ_UNIX, 8),
	};
	/* clang-format on */
	struct fixture f;
	run(&f, NULL, ev, N(ev));
	argus_vid d[4];
	ASSERT_EQ(segs(&f, 31, d, 4), 2);
	argus_vid a = seg(&f, 11, 0), c = seg(&f, 41, 0);
	ASSERT_EQ(edge(&f, a, d[0], ARGUS_EDGE_IPC, NULL), 1);
	ASSERT_EQ(edge(&f, a, d[1], ARGUS_EDGE_IPC, NULL), 0);
	ASSERT_EQ(edge(&f, d[1], c, ARGUS_EDGE_IPC, NULL), 1);
	done(&f);
}

/* Interrupt work is cut out (001 P1): a wake-up from the interrupt is no
 * edge, the interrupted segment is not split and its on-CPU time excludes
 * the interrupt. */
TEST(irq_splice_no_edge)
{
	/* clang-format off */
	struct argus_event ev[] = {
		ev_sys_enter(0, 80, 81, T_READ),
		ev_switch(1, 80, 81, 1, 0, 0),
		ev_switch(0 * MS + 2, 0, 0, 0, 90, 91),
		ev_sys_enter(1 * MS, 90, 91, T_WRITE),
		ev_irq(2 * MS, true, 0, 90, 91),
		ev_wakeup(3 * MS, 90, 91, 80, 81, ARGUS_F_HARDIRQ),
		ev_irq(4 * MS, false, 0, 90, 91),
		ev_sys_exit(5 * MS, 90, 91, T_WRITE, 1),
		ev_switch(6 * MS + 2, 90, 91, 0, 0, 0),
		ev_sys_exit(7 * MS, 80, 81, T_READ, 1),
	};
	/* clang-format on */
	struct fixture f;
	run(&f, NULL, ev, N(ev));
	argus_vid w = seg(&f, 81, 1);
	ASSERT_EQ(kind_count(&f, w, ARGUS_EDGE_WAKEUP), 0);
	ASSERT_U64_EQ(f.st.wakeups_irq, 1);
	argus_vid t[4];
	ASSERT_EQ(segs(&f, 91, t, 4), 1);
	struct argus_vertex_info x;
	ASSERT(argus_graph_vertex(&f.v, t[0], &x));
	ASSERT(x.flags & ARGUS_VF_IRQ);
	ASSERT_U64_EQ(x.oncpu_ns, 6 * MS - 2 * MS);
	done(&f);
}

/* Kernel worker threads (000 s5 kernel task): each segment stands alone,
 * and their wake-ups are no edges. */
TEST(kworker_segments_alone)
{
	/* clang-format off */
	struct argus_event ev[] = {
		ev_comm(0, 2, 100, "kworker/0:1"),
		ev_sys_enter(0, 80, 81, T_READ),
		ev_switch(1, 80, 81, 1, 0, 0),
		ev_wakeup(1 * MS, 0, 0, 2, 100, ARGUS_F_HARDIRQ),
		ev_wakeup(2 * MS, 2, 100, 80, 81, ARGUS_F_KTHREAD),
		ev_switch(3 * MS, 2, 100, 1, 0, 0),
		ev_wakeup(4 * MS, 0, 0, 2, 100, ARGUS_F_HARDIRQ),
		ev_switch(5 * MS, 2, 100, 1, 0, 0),
	};
	/* clang-format on */
	struct fixture f;
	run(&f, NULL, ev, N(ev));
	argus_vid k[4];
	ASSERT_EQ(segs(&f, 100, k, 4), 2);
	struct argus_vertex_info x;
	ASSERT(argus_graph_vertex(&f.v, k[1], &x));
	ASSERT(x.flags & ARGUS_VF_KWORKER);
	ASSERT_EQ(in_count(&f, k[1]), 0);
	ASSERT_U64_EQ(f.st.left_out[ARGUS_LEFTOUT_KWORKER], 1);
	ASSERT_EQ(kind_count(&f, seg(&f, 81, 1), ARGUS_EDGE_WAKEUP), 0);
	ASSERT_U64_EQ(f.st.wakeups_kernel, 1);
	done(&f);
}

/* ---- edge rules ---- */

/* A cross-process request / reply over a unix socket: strong both ways;
 * the wake-ups the messages caused are explained, not extra weak edges.
 * (IPC records replace sys_exit for their calls.) */
TEST(edge_ipc_request_reply)
{
	/* clang-format off */
	struct argus_event ev[] = {
		ev_sys_enter(1 * MS, 20, 21, T_READ),
		ev_switch(2 * MS, 20, 21, 1, 0, 0),
		ev_sys_enter(3 * MS, 10, 11, T_WRITE),
		ev_ipc(4 * MS, true, 10, 11, 0xC0, 0x50, ARGUS_OBJ_UNIX, 10),
		ev_wakeup(5 * MS, 10, 11, 20, 21, 0),
		ev_sys_enter(7 * MS, 10, 11, T_READ),
		ev_switch(8 * MS, 10, 11, 1, 0, 0),
		ev_ipc(9 * MS, false, 20, 21, 0x50, 0xC0, ARGUS_OBJ_UNIX, 10),
		ev_sys_enter(11 * MS, 20, 21, T_WRITE),
		ev_ipc(12 * MS, true, 20, 21, 0x50, 0xC0, ARGUS_OBJ_UNIX, 4),
		ev_wakeup(13 * MS, 20, 21, 10, 11, 0),
		ev_ipc(15 * MS, false, 10, 11, 0xC0, 0x50, ARGUS_OBJ_UNIX, 4),
	};
	/* clang-format on */
	struct fixture f;
	run(&f, NULL, ev, N(ev));
	argus_vid c0 = seg(&f, 11, 0), c1 = seg(&f, 11, 1);
	argus_vid s0 = seg(&f, 21, 0), s1 = seg(&f, 21, 1);
	int s = 0;
	ASSERT_EQ(edge(&f, s1, c0, ARGUS_EDGE_IPC, &s), 1);
	ASSERT_EQ(s, ARGUS_STRONG);
	ASSERT_EQ(edge(&f, c1, s1, ARGUS_EDGE_IPC, &s), 1);
	ASSERT_EQ(s, ARGUS_STRONG);
	ASSERT_EQ(kind_count(&f, s1, ARGUS_EDGE_WAKEUP), 0);
	ASSERT_EQ(kind_count(&f, c1, ARGUS_EDGE_WAKEUP), 0);
	ASSERT_EQ(in_count(&f, s1), 2); /* the IPC edge and the adjacent one */
	ASSERT_EQ(edge(&f, s1, s0, ARGUS_EDGE_ADJACENT, NULL), 1);
	ASSERT_U64_EQ(f.st.wakeups_merged, 2);
	/* the receive that ended the wait reports its result on the waiting segment */
	struct argus_vertex_info x;
	ASSERT(argus_graph_vertex(&f.v, s0, &x));
	ASSERT_EQ(x.wait_kind, ARGUS_WAIT_READ);
	ASSERT_EQ(x.wait_ret, 10);
	done(&f);
}

/* D-Bus (001 P7): the call, its reply sent by another thread of the service
 * (request -> reply, strong), and the reply's delivery. */
TEST(edge_dbus_request_reply)
{
	/* clang-format off */
	struct argus_event ev[] = {
		ev_dbus(1 * MS, true, 10, 11, 0x111, 1, 7, 0, 5),
		ev_dbus(2 * MS, false, 20, 21, 0x222, 1, 7, 0, 5),
		ev_dbus(3 * MS, true, 20, 22, 0x222, 2, 9, 7, 0),
		ev_dbus(4 * MS, false, 10, 11, 0x111, 2, 9, 7, 0),
	};
	/* clang-format on */
	struct fixture f;
	run(&f, NULL, ev, N(ev));
	argus_vid caller = seg(&f, 11, 0), recv = seg(&f, 21, 0), reply = seg(&f, 22, 0);
	int s = 0;
	ASSERT_EQ(edge(&f, recv, caller, ARGUS_EDGE_DBUS, &s), 1);
	ASSERT_EQ(s, ARGUS_STRONG);
	ASSERT_EQ(edge(&f, reply, recv, ARGUS_EDGE_REPLY, &s), 1);
	ASSERT_EQ(s, ARGUS_STRONG);
	ASSERT_EQ(edge(&f, caller, reply, ARGUS_EDGE_DBUS, &s), 1);
	done(&f);
}

/* Async post -> run: strong, into the run's own segment (the published
 * research code never formed this edge). */
TEST(edge_async_post_run)
{
	/* clang-format off */
	struct argus_event ev[] = {
		ev_sys_enter(1 * MS, 60, 61, T_WRITE),
		ev_obj(2 * MS, ARGUS_EV_ASYNC_POST, 50, 51, 0x99),
		ev_obj(3 * MS, ARGUS_EV_ASYNC_RUN_BEGIN, 60, 61, 0x99),
		ev_sys_enter(4 * MS, 60, 61, T_WRITE),
		ev_obj(5 * MS, ARGUS_EV_ASYNC_RUN_END, 60, 61, 0x99),
	};
	/* clang-format on */
	struct fixture f;
	run(&f, NULL, ev, N(ev));
	argus_vid l[4];
	ASSERT_EQ(segs(&f, 61, l, 4), 2);
	argus_vid p = seg(&f, 51, 0);
	int s = 0;
	ASSERT_EQ(edge(&f, l[1], p, ARGUS_EDGE_ASYNC, &s), 1);
	ASSERT_EQ(s, ARGUS_STRONG);
	ASSERT_EQ(in_count(&f, l[1]), 1);
	ASSERT_EQ(in_count(&f, l[0]), 0);
	done(&f);
}

/* A timer the thread armed (nanosleep) fires in an interrupt and wakes it:
 * strong timer edge from the arming segment. */
TEST(edge_timer_arm_fire)
{
	/* clang-format off */
	struct argus_event ev[] = {
		ev_sys_enter(1 * MS, 70, 71, T_NANOSLEEP),
		ev_obj(2 * MS, ARGUS_EV_TIMER_ARM, 70, 71, 0x77),
		ev_switch(3 * MS, 70, 71, 1, 0, 0),
		ev_irq(4 * MS, true, 1, 0, 0),
		ev_obj(5 * MS, ARGUS_EV_TIMER_FIRE, 0, 0, 0x77),
		ev_wakeup(6 * MS, 0, 0, 70, 71, ARGUS_F_HARDIRQ),
		ev_irq(7 * MS, false, 1, 0, 0),
		ev_sys_exit(8 * MS, 70, 71, T_NANOSLEEP, 0),
	};
	/* clang-format on */
	ev[4].cpu = ev[5].cpu = 1;
	ev[4].flags = ev[5].flags = ARGUS_F_HARDIRQ;
	struct fixture f;
	run(&f, NULL, ev, N(ev));
	argus_vid a = seg(&f, 71, 0), b = seg(&f, 71, 1);
	int s = 0;
	ASSERT_EQ(edge(&f, b, a, ARGUS_EDGE_TIMER, &s), 1);
	ASSERT_EQ(s, ARGUS_STRONG);
	ASSERT_U64_EQ(f.st.wakeups_irq, 0);
	done(&f);
}

/* A kernel timer nobody armed wakes a thread from an interrupt: no edge. */
TEST(edge_timer_unarmed_no_edge)
{
	/* clang-format off */
	struct argus_event ev[] = {
		ev_sys_enter(1 * MS, 70, 71, T_READ),
		ev_switch(3 * MS, 70, 71, 1, 0, 0),
		ev_obj(5 * MS, ARGUS_EV_TIMER_FIRE, 0, 0, 0x78),
		ev_wakeup(6 * MS, 0, 0, 70, 71, ARGUS_F_HARDIRQ),
	};
	/* clang-format on */
	ev[2].flags = ev[3].flags = ARGUS_F_HARDIRQ;
	struct fixture f;
	run(&f, NULL, ev, N(ev));
	argus_vid b = seg(&f, 71, 1);
	ASSERT_EQ(kind_count(&f, b, ARGUS_EDGE_TIMER), 0);
	ASSERT_EQ(kind_count(&f, b, ARGUS_EDGE_WAKEUP), 0);
	ASSERT_U64_EQ(f.st.wakeups_irq, 1);
	done(&f);
}

/* A shared data flag (001 P4, P5): write -> read, strong. */
TEST(edge_flag_write_read)
{
	/* clang-format off */
	struct argus_event ev[] = {
		ev_obj(1 * MS, ARGUS_EV_FLAG_WRITE, 10, 12, 0xF1),
		ev_obj(2 * MS, ARGUS_EV_FLAG_READ, 10, 11, 0xF1),
	};
	/* clang-format on */
	struct fixture f;
	run(&f, NULL, ev, N(ev));
	int s = 0;
	ASSERT_EQ(edge(&f, seg(&f, 11, 0), seg(&f, 12, 0), ARGUS_EDGE_FLAG, &s), 1);
	ASSERT_EQ(s, ARGUS_STRONG);
	done(&f);
}

/* A condition signal to a waiter: strong, one edge (futex wake and cond
 * wake-up are the same causality). */
TEST(futex_cond_signal_strong)
{
	/* clang-format off */
	struct argus_event ev[] = {
		ev_obj(1 * MS, ARGUS_EV_COND_WAIT, 10, 11, 0xC),
		ev_sys_enter(2 * MS, 10, 11, T_FUTEX),
		ev_switch(3 * MS, 10, 11, 1, 0, 0),
		ev_obj(4 * MS, ARGUS_EV_COND_SIGNAL, 10, 12, 0xC),
		ev_sys_enter(5 * MS, 10, 12, T_FUTEX),
		ev_wakeup(6 * MS, 10, 12, 10, 11, 0),
		ev_futex_wake(7 * MS, 10, 12, 0xF, 1),
		ev_sys_exit(8 * MS, 10, 12, T_FUTEX, 1),
		ev_sys_exit(9 * MS, 10, 11, T_FUTEX, 0),
		ev_obj(10 * MS, ARGUS_EV_COND_WAKE, 10, 11, 0xC),
	};
	/* clang-format on */
	struct fixture f;
	run(&f, NULL, ev, N(ev));
	argus_vid w = seg(&f, 11, 1), sg = seg(&f, 12, 0);
	int s = 0;
	ASSERT_EQ(edge(&f, w, sg, ARGUS_EDGE_SIGNAL, &s), 1);
	ASSERT_EQ(s, ARGUS_STRONG);
	ASSERT_EQ(kind_count(&f, w, ARGUS_EDGE_FUTEX), 0);
	ASSERT_EQ(kind_count(&f, w, ARGUS_EDGE_WAKEUP), 0);
	ASSERT_U64_EQ(f.st.strong, 1);
	done(&f);
}

/* A mutex hand-off wakes a waiter without intent (001 P5): weak. */
TEST(futex_mutex_handoff_weak)
{
	/* clang-format off */
	struct argus_event ev[] = {
		ev_sys_enter(1 * MS, 10, 11, T_FUTEX),
		ev_switch(2 * MS, 10, 11, 1, 0, 0),
		ev_sys_enter(3 * MS, 10, 12, T_FUTEX),
		ev_wakeup(4 * MS, 10, 12, 10, 11, 0),
		ev_futex_wake(5 * MS, 10, 12, 0xF, 1),
		ev_obj(6 * MS, ARGUS_EV_MUTEX_HANDOFF, 10, 12, 0x4D),
		ev_sys_exit(7 * MS, 10, 12, T_FUTEX, 1),
		ev_sys_exit(8 * MS, 10, 11, T_FUTEX, 0),
	};
	/* clang-format on */
	struct fixture f;
	run(&f, NULL, ev, N(ev));
	int s = 0;
	ASSERT_EQ(edge(&f, seg(&f, 11, 1), seg(&f, 12, 0), ARGUS_EDGE_HANDOFF, &s), 1);
	ASSERT_EQ(s, ARGUS_WEAK);
	ASSERT_U64_EQ(f.st.strong, 0);
	done(&f);
}

/* A broadcast wakes every waiter: weak edges. */
TEST(futex_broadcast_weak)
{
	/* clang-format off */
	struct argus_event ev[] = {
		ev_sys_enter(1 * MS, 10, 11, T_FUTEX),
		ev_switch(2 * MS, 10, 11, 1, 0, 0),
		ev_sys_enter(2 * MS + 1, 10, 13, T_FUTEX),
		ev_switch(2 * MS + 2, 10, 13, 1, 0, 0),
		ev_obj(3 * MS, ARGUS_EV_COND_BROADCAST, 10, 12, 0xC),
		ev_sys_enter(4 * MS, 10, 12, T_FUTEX),
		ev_wakeup(5 * MS, 10, 12, 10, 11, 0),
		ev_wakeup(5 * MS + 1, 10, 12, 10, 13, 0),
		ev_futex_wake(6 * MS, 10, 12, 0xF, 2),
		ev_sys_exit(7 * MS, 10, 12, T_FUTEX, 2),
		ev_obj(8 * MS, ARGUS_EV_COND_WAKE, 10, 11, 0xC),
		ev_obj(8 * MS + 1, ARGUS_EV_COND_WAKE, 10, 13, 0xC),
	};
	/* clang-format on */
	struct fixture f;
	run(&f, NULL, ev, N(ev));
	argus_vid b = seg(&f, 12, 0);
	int s = 0;
	ASSERT_EQ(edge(&f, seg(&f, 11, 1), b, ARGUS_EDGE_BROADCAST, &s), 1);
	ASSERT_EQ(s, ARGUS_WEAK);
	ASSERT_EQ(edge(&f, seg(&f, 13, 1), b, ARGUS_EDGE_BROADCAST, &s), 1);
	ASSERT_EQ(s, ARGUS_WEAK);
	ASSERT_U64_EQ(f.st.strong, 0);
	done(&f);
}

/* A futex wake with no hook saying why: weak. */
TEST(futex_unknown_weak)
{
	/* clang-format off */
	struct argus_event ev[] = {
		ev_sys_enter(1 * MS, 10, 11, T_FUTEX),
		ev_switch(2 * MS, 10, 11, 1, 0, 0),
		ev_sys_enter(3 * MS, 10, 12, T_FUTEX),
		ev_wakeup(4 * MS, 10, 12, 10, 11, 0),
		ev_futex_wake(5 * MS, 10, 12, 0xF, 1),
		ev_sys_exit(6 * MS, 10, 12, T_FUTEX, 1),
		ev_sys_exit(7 * MS, 10, 11, T_FUTEX, 0),
		ev_sys_enter(8 * MS, 10, 11, T_WRITE),
	};
	/* clang-format on */
	struct fixture f;
	run(&f, NULL, ev, N(ev));
	int s = 0;
	ASSERT_EQ(edge(&f, seg(&f, 11, 1), seg(&f, 12, 0), ARGUS_EDGE_FUTEX, &s), 1);
	ASSERT_EQ(s, ARGUS_WEAK);
	done(&f);
}

/* The kernel reports a futex wake only at its exit, with no entry record:
 * the wake-ups the waker made just before belong to that call. */
TEST(futex_wake_without_entry_record)
{
	/* clang-format off */
	struct argus_event ev[] = {
		ev_sys_enter(1 * MS, 10, 11, T_FUTEX),
		ev_switch(2 * MS, 10, 11, 1, 0, 0),
		ev_sys_enter(2 * MS + 1, 10, 13, T_FUTEX),
		ev_switch(2 * MS + 2, 10, 13, 1, 0, 0),
		ev_obj(3 * MS, ARGUS_EV_COND_SIGNAL, 10, 12, 0xC),
		ev_wakeup(4 * MS, 10, 12, 10, 11, 0),
		ev_futex_wake(5 * MS, 10, 12, 0xF, 1),
		ev_sys_exit(6 * MS, 10, 11, T_FUTEX, 0),
		ev_wakeup(7 * MS, 10, 12, 10, 13, 0),
		ev_wakeup(7 * MS + 1, 10, 12, 10, 13, 0),
		ev_futex_wake(8 * MS, 10, 12, 0xE, 2),
		ev_sys_exit(9 * MS, 10, 13, T_FUTEX, 0),
	};
	/* clang-format on */
	struct fixture f;
	run(&f, NULL, ev, N(ev));
	int s = 0;
	ASSERT_EQ(edge(&f, seg(&f, 11, 1), seg(&f, 12, 0), ARGUS_EDGE_SIGNAL, &s), 1);
	ASSERT_EQ(s, ARGUS_STRONG);
	ASSERT_EQ(edge(&f, seg(&f, 13, 1), seg(&f, 12, 0), ARGUS_EDGE_BROADCAST, &s), 1);
	ASSERT_EQ(s, ARGUS_WEAK);
	done(&f);
}

/* The kernel reports a futex wait's entry as a futex_wait record (no
 * sys_enter): the segment still ends in a futex wait, with its result. */
TEST(futex_wait_record_is_the_wait_entry)
{
	struct argus_event fw = ev_base(1 * MS, ARGUS_EV_FUTEX_WAIT, 10, 11);
	fw.futex.uaddr = 0xF;
	fw.futex.timeout_ns = -1;
	/* clang-format off */
	struct argus_event ev[] = {
		fw,
		ev_switch(2 * MS, 10, 11, 1, 0, 0),
		ev_wakeup(9 * MS, 10, 12, 10, 11, 0),
		ev_futex_wake(9 * MS + 1, 10, 12, 0xF, 1),
		ev_sys_exit(10 * MS, 10, 11, T_FUTEX, 0),
		ev_sys_enter(11 * MS, 10, 11, T_WRITE),
	};
	/* clang-format on */
	struct fixture f;
	run(&f, NULL, ev, N(ev));
	struct argus_vertex_info a;
	ASSERT(argus_graph_vertex(&f.v, seg(&f, 11, 0), &a));
	ASSERT_EQ(a.wait_kind, ARGUS_WAIT_FUTEX);
	ASSERT_EQ(a.wait_nr, T_FUTEX);
	ASSERT_EQ(a.wait_ret, 0);
	done(&f);
}

/* A wake-up with no communication: weak. */
TEST(wakeup_no_communication_weak)
{
	/* clang-format off */
	struct argus_event ev[] = {
		ev_sys_enter(1 * MS, 10, 11, T_READ),
		ev_switch(2 * MS, 10, 11, 1, 0, 0),
		ev_sys_enter(3 * MS, 20, 21, T_WRITE),
		ev_wakeup(4 * MS, 20, 21, 10, 11, 0),
		ev_sys_exit(5 * MS, 10, 11, T_READ, 0),
		ev_sys_enter(6 * MS, 10, 11, T_WRITE),
	};
	/* clang-format on */
	struct fixture f;
	run(&f, NULL, ev, N(ev));
	int s = 0;
	ASSERT_EQ(edge(&f, seg(&f, 11, 1), seg(&f, 21, 0), ARGUS_EDGE_WAKEUP, &s), 1);
	ASSERT_EQ(s, ARGUS_WEAK);
	done(&f);
}

/* ---- adjacent edges and symbols ---- */

/* Stacks: 1 = [rare, common, main], 2 = [other, common, main],
 * 3 = [elsewhere], 4 = [noise, common, main]. */
static void add_stacks(struct argus_graph *g)
{
	uint64_t s1[] = {0x1000, 0x9000, 0x9100}, s2[] = {0x2000, 0x9000, 0x9100};
	uint64_t s3[] = {0x3000, 0x3100}, s4[] = {0x4000, 0x9000, 0x9100};
	uint64_t s5[] = {0x2100, 0x9000, 0x9100};
	argus_graph_add_stack(g, 1, s1, 3);
	argus_graph_add_stack(g, 2, s2, 3);
	argus_graph_add_stack(g, 3, s3, 2);
	argus_graph_add_stack(g, 4, s4, 3);
	argus_graph_add_stack(g, 5, s5, 3);
}

/* Thread 11: segment with stack sa, blocking read, woken, segment with sb.
 * Thread 31 first runs 4 segments on stack 4, making "common" frequent. */
static void adjacent_case(struct fixture *f, uint32_t sa, uint32_t sb, uint16_t wait_nr)
{
	struct argus_event ev[64];
	size_t n = 0;
	uint64_t t = 1 * MS;
	for (int i = 0; i < 4; i++) {
		ev[n++] = ev_obj(t++, ARGUS_EV_CPU_SAMPLE, 30, 31, 4);
		ev[n++] = ev_switch(t++, 30, 31, 1, 0, 0);
		ev[n++] = ev_wakeup(t++, 0, 0, 30, 31, ARGUS_F_HARDIRQ);
	}
	ev[n++] = ev_sys_enter(t++, 10, 11, wait_nr);
	if (sa)
		ev[n++] = ev_obj(t++, ARGUS_EV_CPU_SAMPLE, 10, 11, sa);
	ev[n++] = ev_switch(t++, 10, 11, 1, 0, 0);
	ev[n++] = ev_wakeup(t++, 0, 0, 10, 11, ARGUS_F_HARDIRQ);
	ev[n++] = ev_sys_exit(t++, 10, 11, wait_nr, 1);
	if (sb)
		ev[n++] = ev_obj(t++, ARGUS_EV_CPU_SAMPLE, 10, 11, sb);
	ASSERT_EQ(argus_graph_new(&f->g, NULL), 0);
	add_stacks(f->g);
	ASSERT_EQ(argus_graph_ingest(f->g, ev, n), 0);
	argus_graph_flush(f->g);
	argus_graph_get_stats(f->g, &f->st);
	argus_graph_view_begin(f->g, &f->v);
}

TEST(adjacent_weak_shared_common_symbol)
{
	struct fixture f;
	adjacent_case(&f, 2, 5, T_READ);
	int s = 9;
	ASSERT_EQ(edge(&f, seg(&f, 11, 1), seg(&f, 11, 0), ARGUS_EDGE_ADJACENT, &s), 1);
	ASSERT_EQ(s, ARGUS_WEAK);
	done(&f);
}

TEST(adjacent_boosted_shared_rare_symbol)
{
	struct fixture f;
	adjacent_case(&f, 1, 1, T_READ);
	int s = 9;
	ASSERT_EQ(edge(&f, seg(&f, 11, 1), seg(&f, 11, 0), ARGUS_EDGE_ADJACENT, &s), 1);
	ASSERT_EQ(s, ARGUS_BOOSTED);
	done(&f);
}

TEST(adjacent_left_out_no_shared_symbol)
{
	struct fixture f;
	adjacent_case(&f, 2, 3, T_READ);
	ASSERT_EQ(in_count(&f, seg(&f, 11, 1)), 0);
	ASSERT_U64_EQ(f.st.left_out[ARGUS_LEFTOUT_NO_SHARED_SYM], 1);
	done(&f);
}

TEST(adjacent_left_out_idle_wait)
{
	struct fixture f;
	adjacent_case(&f, 0, 0, T_EPOLL_WAIT);
	ASSERT_EQ(in_count(&f, seg(&f, 11, 1)), 0);
	ASSERT_U64_EQ(f.st.left_out[ARGUS_LEFTOUT_IDLE_WAIT], 1);
	done(&f);
}

/* UI input marks the segment that consumed it. */
TEST(ui_input_marks_vertex)
{
	/* clang-format off */
	struct argus_event ev[] = {
		ev_sys_enter(1 * MS, 10, 10, T_READ),
		ev_base(2 * MS, ARGUS_EV_UI_INPUT, 10, 10),
	};
	/* clang-format on */
	struct fixture f;
	run(&f, NULL, ev, N(ev));
	struct argus_vertex_info x;
	ASSERT(argus_graph_vertex(&f.v, seg(&f, 10, 0), &x));
	ASSERT(x.flags & ARGUS_VF_UI);
	done(&f);
}

/* Run-loop iteration boundaries from hooks split segments (001 P8). */
TEST(split_loop_iteration)
{
	/* clang-format off */
	struct argus_event ev[] = {
		ev_obj(1 * MS, ARGUS_EV_LOOP_ITER_BEGIN, 10, 11, 0),
		ev_sys_enter(2 * MS, 10, 11, T_WRITE),
		ev_obj(3 * MS, ARGUS_EV_LOOP_ITER_END, 10, 11, 0),
		ev_obj(4 * MS, ARGUS_EV_LOOP_ITER_BEGIN, 10, 11, 0),
		ev_sys_enter(5 * MS, 10, 11, T_WRITE),
	};
	/* clang-format on */
	struct fixture f;
	run(&f, NULL, ev, N(ev));
	argus_vid s[4];
	ASSERT_EQ(segs(&f, 11, s, 4), 2);
	struct argus_vertex_info x;
	ASSERT(argus_graph_vertex(&f.v, s[1], &x));
	ASSERT_U64_EQ(x.start, 4 * MS);
	ASSERT_EQ(x.split, ARGUS_SPLIT_DISPATCH);
	done(&f);
}

/* Thread exit ends its last segment (001 s2.1.1 end (1)). */
TEST(split_thread_exit)
{
	/* clang-format off */
	struct argus_event ev[] = {
		ev_sys_enter(1 * MS, 10, 11, T_WRITE),
		ev_base(2 * MS, ARGUS_EV_THREAD_EXIT, 10, 11),
	};
	/* clang-format on */
	struct fixture f;
	run(&f, NULL, ev, N(ev));
	struct argus_vertex_info x;
	ASSERT(argus_graph_vertex(&f.v, seg(&f, 11, 0), &x));
	ASSERT(!(x.flags & ARGUS_VF_OPEN));
	ASSERT_U64_EQ(x.end, 2 * MS);
	ASSERT_U64_EQ(f.st.threads, 0);
	done(&f);
}

/* A condition wait that timed out was woken by nobody: no signal edge. */
TEST(cond_wait_timed_out_no_edge)
{
	/* clang-format off */
	struct argus_event ev[] = {
		ev_obj(1 * MS, ARGUS_EV_COND_SIGNAL, 10, 12, 0xC),
		ev_sys_enter(2 * MS, 10, 11, T_FUTEX),
		ev_obj(3 * MS, ARGUS_EV_COND_WAKE, 10, 11, 0xC),
	};
	/* clang-format on */
	ev[2].sync.ret = 110;
	struct fixture f;
	run(&f, NULL, ev, N(ev));
	ASSERT_EQ(kind_count(&f, seg(&f, 11, 0), ARGUS_EDGE_SIGNAL), 0);
	done(&f);
}

/* A record older than the newest seen is counted and its time clamped, so
 * no edge it makes goes backwards. */
TEST(late_event_clamped)
{
	/* clang-format off */
	struct argus_event ev[] = {
		ev_obj(5 * MS, ARGUS_EV_FLAG_WRITE, 10, 12, 0xF1),
		ev_obj(2 * MS, ARGUS_EV_FLAG_READ, 10, 11, 0xF1),
	};
	/* clang-format on */
	ev[1].flags = ARGUS_F_LATE;
	struct fixture f;
	run(&f, NULL, ev, N(ev));
	ASSERT_U64_EQ(f.st.events_late, 1);
	struct argus_edge_info e[4];
	argus_vid r = seg(&f, 11, 0);
	ASSERT_EQ(argus_graph_in_edges(&f.v, r, e, 4), 1);
	struct argus_vertex_info x;
	ASSERT(argus_graph_vertex(&f.v, r, &x));
	ASSERT(e[0].ts <= x.end);
	ASSERT_U64_EQ(x.start, 5 * MS);
	done(&f);
}

/* Records lost at a source are counted, not hidden. */
TEST(source_drops_counted)
{
	struct argus_event ev[] = {ev_base(1 * MS, ARGUS_EV_DROP, 0, 0)};
	ev[0].drop.count = 42;
	struct fixture f;
	run(&f, NULL, ev, N(ev));
	ASSERT_U64_EQ(f.st.source_drops, 42);
	done(&f);
}

/* The timeout of a thread's own idle poll is no task's cause: no timer edge
 * (and no adjacent one) across an event loop's idle wait. */
TEST(timer_idle_poll_timeout_no_edge)
{
	/* clang-format off */
	struct argus_event ev[] = {
		ev_sys_enter(1 * MS, 70, 71, T_EPOLL_WAIT),
		ev_obj(2 * MS, ARGUS_EV_TIMER_ARM, 70, 71, 0x66),
		ev_switch(3 * MS, 70, 71, 1, 0, 0),
		ev_obj(5 * MS, ARGUS_EV_TIMER_FIRE, 0, 0, 0x66),
		ev_wakeup(6 * MS, 0, 0, 70, 71, ARGUS_F_HARDIRQ),
		ev_sys_exit(8 * MS, 70, 71, T_EPOLL_WAIT, 0),
	};
	/* clang-format on */
	ev[3].flags = ARGUS_F_HARDIRQ;
	struct fixture f;
	run(&f, NULL, ev, N(ev));
	ASSERT_EQ(in_count(&f, seg(&f, 71, 1)), 0);
	ASSERT_U64_EQ(f.st.left_out[ARGUS_LEFTOUT_IDLE_WAIT], 1);
	done(&f);
}

/* A poll that another thread woke and that waited on (it did not ask for
 * what the waker did, as GLib's file monitor defers inotify events) answers
 * at its timeout: the timer edge is kept, back to the segment the waker
 * opened. */
TEST(timer_idle_poll_woken_meanwhile_edge)
{
	/* clang-format off */
	struct argus_event ev[] = {
		ev_sys_enter(1 * MS, 70, 71, T_EPOLL_WAIT),
		ev_obj(2 * MS, ARGUS_EV_TIMER_ARM, 70, 71, 0x66),
		ev_switch(3 * MS, 70, 71, 1, 0, 0),
		ev_sys_enter(4 * MS, 10, 11, T_WRITE),
		ev_wakeup(5 * MS, 10, 11, 70, 71, 0),
		ev_obj(6 * MS, ARGUS_EV_TIMER_CANCEL, 70, 71, 0x66),
		ev_obj(6 * MS, ARGUS_EV_TIMER_ARM, 70, 71, 0x66),
		ev_switch(7 * MS, 70, 71, 1, 0, 0),
		ev_obj(9 * MS, ARGUS_EV_TIMER_FIRE, 0, 0, 0x66),
		ev_wakeup(10 * MS, 0, 0, 70, 71, ARGUS_F_HARDIRQ),
		ev_sys_exit(11 * MS, 70, 71, T_EPOLL_WAIT, 0),
	};
	/* clang-format on */
	ev[8].flags = ARGUS_F_HARDIRQ;
	struct fixture f;
	run(&f, NULL, ev, N(ev));
	argus_vid woken = seg(&f, 71, 1), answer = seg(&f, 71, 2);
	int s = 0;
	ASSERT_EQ(edge(&f, answer, woken, ARGUS_EDGE_TIMER, &s), 1);
	ASSERT_EQ(s, ARGUS_STRONG);
	ASSERT_EQ(edge(&f, woken, seg(&f, 11, 0), ARGUS_EDGE_WAKEUP, NULL), 1);
	done(&f);
}

/* IPC records are stamped at syscall exit: the receiver may return before
 * the sender does. The send still explains the receive (and the wake-up). */
TEST(edge_ipc_send_stamped_after_recv)
{
	/* clang-format off */
	struct argus_event ev[] = {
		ev_sys_enter(1 * MS, 20, 21, T_READ),
		ev_switch(2 * MS, 20, 21, 1, 0, 0),
		ev_sys_enter(3 * MS, 10, 11, T_WRITE),
		ev_wakeup(4 * MS, 10, 11, 20, 21, 0),
		ev_ipc(5 * MS, false, 20, 21, 0x33, 0, ARGUS_OBJ_PIPE, 8),
		ev_ipc(6 * MS, true, 10, 11, 0x33, 0, ARGUS_OBJ_PIPE, 8),
	};
	/* clang-format on */
	struct fixture f;
	run(&f, NULL, ev, N(ev));
	argus_vid r = seg(&f, 21, 1), w = seg(&f, 11, 0);
	struct argus_edge_info e[4];
	int s = 0;
	ASSERT_EQ(edge(&f, r, w, ARGUS_EDGE_IPC, &s), 1);
	ASSERT_EQ(s, ARGUS_STRONG);
	ASSERT_EQ(kind_count(&f, r, ARGUS_EDGE_WAKEUP), 0);
	size_t n = argus_graph_in_edges(&f.v, r, e, 4);
	for (size_t i = 0; i < n && i < 4; i++)
		if (e[i].kind == ARGUS_EDGE_IPC)
			ASSERT_U64_EQ(e[i].ts,
			              3 * MS); /* the send's call began before the receive */
	done(&f);
}

TEST_MAIN(TEST_ENTRY(split_blocking_wait), TEST_ENTRY(stopped_segment_is_flagged),
          TEST_ENTRY(send_names_the_reader_of_its_destination),
          TEST_ENTRY(split_wait_without_wakeup_record),
          TEST_ENTRY(wait_stack_of_the_same_place_carried), TEST_ENTRY(split_dispatch_hooks),
          TEST_ENTRY(split_batch_daemon), TEST_ENTRY(adjacent_left_out_known_batching),
          TEST_ENTRY(split_piggyback_send_recv), TEST_ENTRY(irq_splice_no_edge),
          TEST_ENTRY(kworker_segments_alone), TEST_ENTRY(edge_ipc_request_reply),
          TEST_ENTRY(edge_dbus_request_reply), TEST_ENTRY(edge_async_post_run),
          TEST_ENTRY(edge_timer_arm_fire), TEST_ENTRY(edge_timer_unarmed_no_edge),
          TEST_ENTRY(edge_flag_write_read), TEST_ENTRY(futex_cond_signal_strong),
          TEST_ENTRY(futex_mutex_handoff_weak), TEST_ENTRY(futex_broadcast_weak),
          TEST_ENTRY(futex_unknown_weak), TEST_ENTRY(futex_wake_without_entry_record),
          TEST_ENTRY(futex_wait_record_is_the_wait_entry), TEST_ENTRY(wakeup_no_communication_weak),
          TEST_ENTRY(adjacent_weak_shared_common_symbol),
          TEST_ENTRY(adjacent_boosted_shared_rare_symbol),
          TEST_ENTRY(adjacent_left_out_no_shared_symbol), TEST_ENTRY(adjacent_left_out_idle_wait),
          TEST_ENTRY(ui_input_marks_vertex), TEST_ENTRY(split_loop_iteration),
          TEST_ENTRY(split_thread_exit), TEST_ENTRY(cond_wait_timed_out_no_edge),
          TEST_ENTRY(late_event_clamped), TEST_ENTRY(source_drops_counted),
          TEST_ENTRY(timer_idle_poll_timeout_no_edge),
          TEST_ENTRY(timer_idle_poll_woken_meanwhile_edge),
          TEST_ENTRY(edge_ipc_send_stamped_after_recv))
