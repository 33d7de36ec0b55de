/*
 * test_graph_edges.c - each edge rule of the graph (IPC request / reply,
 * D-Bus, async post, timers, flags, futexes, wake-ups without communication,
 * idle polls) on a tiny hand-written trace showing the paper's pattern,
 * asserting the exact edges (docs/graph.md, the edge rule table). The split
 * rules are test_graph_rules.c's.
 */
#include "graph_fixture.h"

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

/* Thread 71 armed a timer in its first segment and its fire woke it: a
 * strong timer edge into the second, and the wake-up is not counted as an
 * interrupt's. */
static void timer_woke_its_armer(const struct argus_event *ev, size_t n)
{
	struct fixture f;
	run(&f, NULL, ev, n);
	argus_vid a = seg(&f, 71, 0), b = seg(&f, 71, 1);
	int s = 0;
	ASSERT_EQ(edge(&f, b, a, ARGUS_EDGE_TIMER, &s), 1);
	ASSERT_EQ(s, ARGUS_STRONG);
	ASSERT_U64_EQ(f.st.wakeups_irq, 0);
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
	timer_woke_its_armer(ev, N(ev));
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

/* A blocking call's own timeout as the kernel tracer writes it now: no arm
 * nor cancel, a fire (kind SLEEPER) naming the thread it wakes. The graph
 * gets the edges the arm / fire pairs above give. */
static struct argus_event sleeper_fire(uint64_t ts, uint32_t pid, uint32_t tid, uint64_t obj)
{
	struct argus_event e = ev_obj(ts, ARGUS_EV_TIMER_FIRE, pid, tid, obj);
	e.timer.kind = ARGUS_TIMER_SLEEPER;
	e.flags = ARGUS_F_HARDIRQ;
	e.cpu = 1;
	return e;
}

TEST(sleeper_fire_edge_from_the_blocked_segment)
{
	/* clang-format off */
	struct argus_event ev[] = {
		ev_sys_enter(1 * MS, 70, 71, T_NANOSLEEP),
		ev_switch(3 * MS, 70, 71, 1, 0, 0),
		sleeper_fire(5 * MS, 70, 71, 0x77),
		ev_wakeup(6 * MS, 0, 0, 70, 71, ARGUS_F_HARDIRQ),
		ev_sys_exit(8 * MS, 70, 71, T_NANOSLEEP, 0),
	};
	/* clang-format on */
	ev[3].cpu = 1;
	timer_woke_its_armer(ev, N(ev));
}

TEST(sleeper_fire_idle_poll_timeout_no_edge)
{
	/* clang-format off */
	struct argus_event ev[] = {
		ev_sys_enter(1 * MS, 70, 71, T_EPOLL_WAIT),
		ev_switch(3 * MS, 70, 71, 1, 0, 0),
		sleeper_fire(5 * MS, 70, 71, 0x66),
		ev_wakeup(6 * MS, 0, 0, 70, 71, ARGUS_F_HARDIRQ),
		ev_sys_exit(8 * MS, 70, 71, T_EPOLL_WAIT, 0),
	};
	/* clang-format on */
	ev[3].cpu = 1;
	struct fixture f;
	run(&f, NULL, ev, N(ev));
	ASSERT_EQ(in_count(&f, seg(&f, 71, 1)), 0);
	ASSERT_U64_EQ(f.st.left_out[ARGUS_LEFTOUT_IDLE_WAIT], 1);
	done(&f);
}

TEST(sleeper_fire_idle_poll_woken_meanwhile_edge)
{
	/* clang-format off */
	struct argus_event ev[] = {
		ev_sys_enter(1 * MS, 70, 71, T_EPOLL_WAIT),
		ev_switch(3 * MS, 70, 71, 1, 0, 0),
		ev_sys_enter(4 * MS, 10, 11, T_WRITE),
		ev_wakeup(5 * MS, 10, 11, 70, 71, 0),
		ev_switch(7 * MS, 70, 71, 1, 0, 0),
		sleeper_fire(9 * MS, 70, 71, 0x66),
		ev_wakeup(10 * MS, 0, 0, 70, 71, ARGUS_F_HARDIRQ),
		ev_sys_exit(11 * MS, 70, 71, T_EPOLL_WAIT, 0),
	};
	/* clang-format on */
	ev[6].cpu = 1;
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

TEST_MAIN(TEST_ENTRY(edge_ipc_request_reply), TEST_ENTRY(edge_dbus_request_reply),
          TEST_ENTRY(edge_async_post_run), TEST_ENTRY(edge_timer_arm_fire),
          TEST_ENTRY(edge_timer_unarmed_no_edge), TEST_ENTRY(edge_flag_write_read),
          TEST_ENTRY(futex_cond_signal_strong), TEST_ENTRY(futex_mutex_handoff_weak),
          TEST_ENTRY(futex_broadcast_weak), TEST_ENTRY(futex_unknown_weak),
          TEST_ENTRY(futex_wake_without_entry_record),
          TEST_ENTRY(futex_wait_record_is_the_wait_entry), TEST_ENTRY(wakeup_no_communication_weak),
          TEST_ENTRY(cond_wait_timed_out_no_edge), TEST_ENTRY(timer_idle_poll_timeout_no_edge),
          TEST_ENTRY(timer_idle_poll_woken_meanwhile_edge),
          TEST_ENTRY(sleeper_fire_edge_from_the_blocked_segment),
          TEST_ENTRY(sleeper_fire_idle_poll_timeout_no_edge),
          TEST_ENTRY(sleeper_fire_idle_poll_woken_meanwhile_edge),
          TEST_ENTRY(edge_ipc_send_stamped_after_recv))
