/*
 * test_graph_rules.c - each split rule of the graph, adjacent edges and
 * symbols, and the graph's handling of late records and drops, on tiny
 * hand-written traces showing the paper's pattern, asserting the exact
 * vertices and edges (docs/graph.md, the split rule table). The edge rules
 * are test_graph_edges.c's.
 */
#include "graph_fixture.h"

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

/* What an interrupt from 2 to 4 ms into thread 91's segment (0-6 ms) that
 * wakes thread 81 leaves in the graph: no wake-up edge, one segment of 91,
 * flagged, its on-CPU time without the interrupt's. */
static void irq_spliced(const struct argus_event *ev, size_t n)
{
	struct fixture f;
	run(&f, NULL, ev, n);
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
	irq_spliced(ev, N(ev));
}

/* The kernel tracer writes one record per interrupt, at its outermost
 * exit, with the time since the entry: the same splice as an entry/exit
 * pair (irq_splice_no_edge), and the wake-up an armed timer makes in a
 * later interrupt is not scoped to this one. */
TEST(irq_exit_carries_its_time)
{
	struct argus_event ex = ev_irq(4 * MS, false, 0, 90, 91);
	ex.irq.dur_ns = 2 * MS;
	/* clang-format off */
	struct argus_event ev[] = {
		ev_sys_enter(0, 80, 81, T_READ),
		ev_switch(1, 80, 81, 1, 0, 0),
		ev_switch(0 * MS + 2, 0, 0, 0, 90, 91),
		ev_sys_enter(1 * MS, 90, 91, T_WRITE),
		ev_wakeup(3 * MS, 90, 91, 80, 81, ARGUS_F_HARDIRQ),
		ex,
		ev_sys_exit(5 * MS, 90, 91, T_WRITE, 1),
		ev_switch(6 * MS + 2, 90, 91, 0, 0, 0),
		ev_sys_exit(7 * MS, 80, 81, T_READ, 1),
	};
	/* clang-format on */
	irq_spliced(ev, N(ev));
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

/* The low-frequency threshold is the 10th percentile of the frames'
 * counts, however large they are. Thread 31 runs `heavy` segments on a
 * 30-frame stack (10), `mid` of them also on [0x6000] (11); thread 11's two
 * segments are on [0x6000, 0x5000] (12). 31 frames counted: the percentile
 * (index 3) is `heavy`; 0x6000, seen mid + 2 times, is rare at or below it. */
static void percentile_case(struct fixture *f, int heavy, int mid)
{
	static struct argus_event ev[4 * 100 + 8];
	size_t n = 0;
	uint64_t t = 1 * MS;
	for (int i = 0; i < heavy; i++) {
		ev[n++] = ev_obj(t++, ARGUS_EV_CPU_SAMPLE, 30, 31, 10);
		if (i < mid)
			ev[n++] = ev_obj(t++, ARGUS_EV_CPU_SAMPLE, 30, 31, 11);
		ev[n++] = ev_switch(t++, 30, 31, 1, 0, 0);
		ev[n++] = ev_wakeup(t++, 0, 0, 30, 31, ARGUS_F_HARDIRQ);
	}
	ev[n++] = ev_sys_enter(t++, 10, 11, T_READ);
	ev[n++] = ev_obj(t++, ARGUS_EV_CPU_SAMPLE, 10, 11, 12);
	ev[n++] = ev_switch(t++, 10, 11, 1, 0, 0);
	ev[n++] = ev_wakeup(t++, 0, 0, 10, 11, ARGUS_F_HARDIRQ);
	ev[n++] = ev_sys_exit(t++, 10, 11, T_READ, 1);
	ev[n++] = ev_obj(t++, ARGUS_EV_CPU_SAMPLE, 10, 11, 12);
	ASSERT_EQ(argus_graph_new(&f->g, NULL), 0);
	uint64_t deep[30], one[] = {0x6000}, two[] = {0x6000, 0x5000};
	for (int i = 0; i < 30; i++)
		deep[i] = 0x5000 + 0x10 * (uint64_t)i;
	argus_graph_add_stack(f->g, 10, deep, 30);
	argus_graph_add_stack(f->g, 11, one, 1);
	argus_graph_add_stack(f->g, 12, two, 2);
	ASSERT_EQ(argus_graph_ingest(f->g, ev, n), 0);
	argus_graph_flush(f->g);
	argus_graph_get_stats(f->g, &f->st);
	argus_graph_view_begin(f->g, &f->v);
}

/* thread 11's adjacent edge: its strength (9: none) */
static int percentile_edge(int heavy, int mid)
{
	struct fixture f;
	percentile_case(&f, heavy, mid);
	int s = 9;
	if (edge(&f, seg(&f, 11, 1), seg(&f, 11, 0), ARGUS_EDGE_ADJACENT, &s) != 1)
		s = 9;
	done(&f);
	return s;
}

TEST(adjacent_rare_threshold_is_the_10th_percentile)
{
	/* counts below 64 (the histogram's) and above (sorted) */
	ASSERT_EQ(percentile_edge(40, 36), ARGUS_BOOSTED); /* 38 <= 40 */
	ASSERT_EQ(percentile_edge(40, 40), ARGUS_WEAK);    /* 42 > 40 */
	ASSERT_EQ(percentile_edge(70, 64), ARGUS_BOOSTED); /* 66 <= 70 */
	ASSERT_EQ(percentile_edge(70, 69), ARGUS_WEAK);    /* 71 > 70 */
	ASSERT_EQ(percentile_edge(100, 97), ARGUS_BOOSTED);
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

TEST_MAIN(TEST_ENTRY(split_blocking_wait), TEST_ENTRY(stopped_segment_is_flagged),
          TEST_ENTRY(send_names_the_reader_of_its_destination),
          TEST_ENTRY(split_wait_without_wakeup_record),
          TEST_ENTRY(wait_stack_of_the_same_place_carried), TEST_ENTRY(split_dispatch_hooks),
          TEST_ENTRY(split_batch_daemon), TEST_ENTRY(adjacent_left_out_known_batching),
          TEST_ENTRY(split_piggyback_send_recv), TEST_ENTRY(irq_splice_no_edge),
          TEST_ENTRY(irq_exit_carries_its_time), TEST_ENTRY(kworker_segments_alone),
          TEST_ENTRY(adjacent_weak_shared_common_symbol),
          TEST_ENTRY(adjacent_boosted_shared_rare_symbol),
          TEST_ENTRY(adjacent_rare_threshold_is_the_10th_percentile),
          TEST_ENTRY(adjacent_left_out_no_shared_symbol), TEST_ENTRY(adjacent_left_out_idle_wait),
          TEST_ENTRY(ui_input_marks_vertex), TEST_ENTRY(split_loop_iteration),
          TEST_ENTRY(split_thread_exit), TEST_ENTRY(late_event_clamped),
          TEST_ENTRY(source_drops_counted))
