/*
 * graph_ingest.c - the writer's event handlers: what each record does to
 * the thread that made it, its segments and the matching tables.
 *
 * One table drives it: event_rules[] (at the end) gives each event type its
 * handler, the split action and the edge kind that handler applies, and the
 * paper's rule for both (000 = "Argus", USENIX ATC 2021, 001 = the Argus
 * workshop paper with patterns P1-P8). gr_ingest_one() looks the row up and
 * calls its handler; nothing else decides by event type. The strength of
 * each edge kind is edge_rules[] in graph.c (docs/graph.md).
 */
#include <stdlib.h>
#include <string.h>

#include "graph_stages.h"

static void attach_stack(struct argus_graph *g, struct gthread *t, argus_vid id, uint32_t stack)
{
	struct gvertex *v = gw_vertex(g, id);
	if (!v || !stack)
		return;
	if (!atomic_load_explicit(&v->stack_first, memory_order_relaxed))
		atomic_store_explicit(&v->stack_first, stack, memory_order_relaxed);
	atomic_store_explicit(&v->stack_last, stack, memory_order_relaxed);
	gframes_count(g, stack);
	if (t->adj_dst == id)
		gr_adjacent_rule(g, t, false);
}

/* Remember the first half of a pair: key -> the current segment. */
struct gref *gr_remember(struct argus_graph *g, struct gmap *m, uint64_t key, argus_vid src,
                         uint64_t ts, uint32_t aux)
{
	if (!key)
		return NULL;
	struct gref *r = gmap_put(g, m, key);
	if (!r) {
		g->oom = true;
		return NULL;
	}
	r->src[0] = src;
	r->ts[0] = ts;
	r->n = 1;
	r->aux = aux;
	return r;
}

/* ---- scheduling and interrupts (no thread stage) ---- */

static void on_switch(struct ictx *x)
{
	struct argus_graph *g = x->g;
	const struct argus_event *ev = x->ev;
	const struct argus_ev_sched_switch *p = &ev->sched_switch;
	struct gcpu *c = x->c;
	uint64_t ts = x->ts;
	if (ev->tid) {
		struct gthread *t = gr_thread_get(g, ev->tid);
		if (!t)
			return;
		if (!t->pid)
			t->pid = ev->pid;
		struct gvertex *v = gw_vertex(g, t->cur);
		if (t->on_cpu && v && c) {
			uint64_t irq = c->irq_ns - t->irq_ns_at_in;
			uint64_t d = ts - t->oncpu_since;
			d = d > irq ? d - irq : 0;
			atomic_fetch_add_explicit(&v->oncpu_ns, d, memory_order_relaxed);
		}
		t->on_cpu = false;
		if (v)
			gr_account(v, x);
		if (p->prev_state != 0) {
			/* no stack record at this block: it blocked where it did
			 * last time (the kext writes a stack per new place) */
			if (v && t->wait_stack && !t->wait_stack_fresh) {
				attach_stack(g, t, t->cur, t->wait_stack);
				atomic_store_explicit(&v->wait_stack, t->wait_stack,
				                      memory_order_relaxed);
			}
			t->wait_stack_fresh = false;
			if (v)
				gr_close_segment(g, t, ts, true);
			/* __TASK_STOPPED, __TASK_TRACED: not waiting for anyone,
			 * stopped until a SIGCONT or its tracer lets it go */
			if (v && (p->prev_state & 0xc))
				atomic_fetch_or_explicit(&v->flags, ARGUS_VF_STOPPED,
				                         memory_order_relaxed);
			t->blocked = true;
			t->cut_pending = false;
			/* an event loop waiting for work, between dispatches */
			t->idle_wait =
			    gr_thread_wait_kind(t) == ARGUS_WAIT_POLL && t->dispatch_depth == 0;
		}
	}
	if (p->next_tid) {
		struct gthread *n = gr_thread_get(g, p->next_tid);
		if (!n)
			return;
		if (!n->pid)
			n->pid = p->next_pid;
		n->on_cpu = true;
		n->oncpu_since = ts;
		n->irq_ns_at_in = c ? c->irq_ns : 0;
		n->cpu = ev->cpu;
	}
}

static void on_wakeup(struct ictx *x)
{
	struct argus_graph *g = x->g;
	const struct argus_event *ev = x->ev;
	struct gcpu *c = x->c;
	uint64_t ts = x->ts;
	bool irq = x->irq;
	struct gthread *w = gr_thread_get(g, ev->wakeup.wakee_tid);
	if (!w)
		return;
	if (!w->pid)
		w->pid = ev->wakeup.wakee_pid;
	if (w->cur && gw_vertex(g, w->cur))
		return; /* not blocked: nothing begins */
	bool idle_wait = w->blocked && w->idle_wait;
	struct gvertex *last = gw_vertex(g, w->last);
	if (last && w->wait_vid == w->last)
		atomic_store_explicit(&last->wait_ns, ts - w->wait_at, memory_order_relaxed);
	uint8_t split = w->seen ? ARGUS_SPLIT_WAKEUP : ARGUS_SPLIT_FIRST;
	argus_vid dst =
	    gr_open_segment(g, w, ts, split, idle_wait ? ARGUS_LEFTOUT_IDLE_WAIT : 0xff, 0);
	if (!dst)
		return;
	/* a timer a thread armed, firing in this interrupt: strong; except the
	 * timeout of the thread's own idle poll, which is no task's cause,
	 * unless another thread woke the poll meanwhile and it waited on: a
	 * loop that defers what it was woken for (GLib's file monitor batches
	 * inotify events this way) answers it at the timeout */
	if (c && c->timer_src && (irq || !ev->tid) &&
	    !(idle_wait && c->timer_src == w->last && !w->woken_in_wait)) {
		gr_add_rule_edge(g, dst, c->timer_src, ARGUS_EDGE_TIMER, c->timer_ts);
		return;
	}
	if (irq || !ev->tid) {
		g->st.wakeups_irq++; /* 001 P1, P2: not the thread's intent */
		return;
	}
	struct gthread *k = gr_thread_get(g, ev->tid);
	if (!k)
		return;
	if (ev->flags & ARGUS_F_KTHREAD)
		k->kworker = true;
	if (k->kworker) {
		g->st.wakeups_kernel++; /* 000 s5 kernel task delegate; 001 P2 */
		gr_wake_from_sends(g, w, dst);
		return;
	}
	if (k->wake_ignored) {
		g->st.wakeups_ignored++; /* a user's rule: 001 P1, P2 */
		return;
	}
	if (!k->pid)
		k->pid = ev->pid;
	argus_vid src = gr_cur_segment(g, k, ts);
	w->woken_in_wait = idle_wait;
	w->wake_pending = true;
	w->wake_src = src;
	w->wake_ts = ts;
	w->wake_kind = k->in_sys && k->sys_nr == ARGUS_NR_futex ? ARGUS_EDGE_FUTEX : x->rule->edge;
	w->wake_strength = ARGUS_WEAK;
	if (k->nwakees < MAX_WAKEES)
		k->wakees[k->nwakees++] = w->tid;
}

/* The interrupted thread's segment: interrupt work was cut out of it. */
static void irq_flag(struct ictx *x)
{
	struct gref *r = x->ev->tid ? gmap_get(&x->g->threads, (uint64_t)x->ev->tid + 1) : NULL;
	struct gvertex *v = r ? gw_vertex(x->g, r->thread->cur) : NULL;
	if (v)
		atomic_fetch_or_explicit(&v->flags, ARGUS_VF_IRQ, memory_order_relaxed);
}

/* An entry record: written by older kernel tracers only (the exit now
 * carries the interrupt's time, dur_ns). */
static void on_irq_entry(struct ictx *x)
{
	struct gcpu *c = x->c;
	if (!c)
		return;
	if (c->irq_depth++ == 0)
		c->irq_since = x->ts;
	irq_flag(x);
}

static void on_irq_exit(struct ictx *x)
{
	struct gcpu *c = x->c;
	uint64_t dur = x->ev->irq.dur_ns;
	if (dur && c && c->irq_depth == 0) {
		/* the outermost exit, with the time since the outermost entry */
		c->irq_ns += dur;
		c->timer_src = 0;
		irq_flag(x);
		return;
	}
	if (c && c->irq_depth > 0 && --c->irq_depth == 0) {
		c->irq_ns += x->ts - c->irq_since;
		c->timer_src = 0;
	}
}

static void on_drop(struct ictx *x)
{
	x->g->st.source_drops += x->ev->drop.count;
}

/* ---- timers: a kernel timer record passes its edge to the interrupt ---- */

/* Whether a timer record was made by the kernel rather than the thread. */
static bool timer_kernel(const struct ictx *x)
{
	return x->irq || !x->ev->tid || (x->ev->flags & ARGUS_F_KTHREAD);
}

static void on_timer_arm(struct ictx *x)
{
	if (timer_kernel(x))
		return; /* a kernel re-arm keeps the thread that armed it */
	struct gthread *t = gr_thread_enter(x);
	argus_vid cur;
	if (t && gr_segment_of(x, t, &cur))
		gr_remember(x->g, &x->g->timer, x->ev->timer.obj, cur, x->ts, 0);
}

/* A blocking call's timeout (kind SLEEPER, fire only): armed by the thread
 * the header names just before it blocked, so in the segment that ended at
 * that block (its last), or in its current one if it has not blocked yet;
 * the edge's time is that segment's end, a few microseconds after the arm. */
static argus_vid sleeper_src(struct ictx *x, uint64_t *ts)
{
	struct gref *r = x->ev->tid ? gmap_get(&x->g->threads, (uint64_t)x->ev->tid + 1) : NULL;
	struct gthread *t = r ? r->thread : NULL;
	if (!t)
		return 0;
	argus_vid src = t->cur ? t->cur : t->last;
	struct gvertex *v = gw_vertex(x->g, src);
	if (!v)
		return 0;
	*ts = t->cur ? x->ts : atomic_load_explicit(&v->end, memory_order_relaxed);
	return src;
}

static void on_timer_fire(struct ictx *x)
{
	struct argus_graph *g = x->g;
	if (x->ev->timer.kind == ARGUS_TIMER_SLEEPER) {
		uint64_t ts = 0;
		argus_vid src = sleeper_src(x, &ts);
		if (src && x->c) {
			x->c->timer_src = src;
			x->c->timer_ts = ts;
		}
		return;
	}
	struct gref *r = gmap_get(&g->timer, x->ev->timer.obj);
	if (timer_kernel(x)) {
		if (!r || !gw_vertex(g, r->src[0]))
			return;
		if (x->c) {
			/* the wake-ups of this interrupt carry the edge */
			x->c->timer_src = r->src[0];
			x->c->timer_ts = r->ts[0];
			return;
		}
	}
	/* fired in the thread itself (a GSource timeout, a timerfd read) */
	struct gthread *t = gr_thread_enter(x);
	argus_vid cur;
	if (t && gr_segment_of(x, t, &cur))
		gr_match_edge(x, t, &g->timer, x->ev->timer.obj);
}

static void on_timer_cancel(struct ictx *x)
{
	gmap_del(&x->g->timer, x->ev->timer.obj);
	if (timer_kernel(x))
		return;
	struct gthread *t = gr_thread_enter(x);
	argus_vid cur;
	if (t)
		gr_segment_of(x, t, &cur);
}

/* ---- a thread's life ---- */

/* Any record with nothing of its own to do: counted in the segment. */
static void on_plain(struct ictx *x)
{
	struct gthread *t = gr_thread_of(x);
	argus_vid cur;
	if (t)
		gr_segment_of(x, t, &cur);
}

static void on_fork(struct ictx *x)
{
	struct gthread *t = gr_thread_of(x);
	if (!t)
		return;
	struct gthread *ch = gr_thread_get(x->g, x->ev->fork.child_tid);
	if (ch) {
		ch->pid = x->ev->fork.child_pid;
		gr_set_comm(x->g, ch, x->ev->fork.comm);
	}
	argus_vid cur;
	gr_segment_of(x, t, &cur);
}

static void on_exec(struct ictx *x)
{
	struct gthread *t = gr_thread_of(x);
	if (!t)
		return;
	gr_set_comm(x->g, t, x->ev->exec.comm);
	argus_vid cur;
	gr_segment_of(x, t, &cur);
}

static void on_comm(struct ictx *x)
{
	struct gthread *t = gr_thread_of(x);
	if (t)
		gr_set_comm(x->g, t, x->ev->comm.comm);
}

/* A mapping: nothing for the graph but the thread's first record. */
static void on_mmap(struct ictx *x)
{
	gr_thread_of(x);
}

static void on_thread_exit(struct ictx *x)
{
	struct gthread *t = gr_thread_of(x);
	if (!t)
		return;
	if (t->cur)
		gr_close_segment(x->g, t, x->ts, false);
	gr_adjacent_rule(x->g, t, true);
	gr_thread_drop(x->g, t);
}

static void on_stack(struct ictx *x)
{
	struct gthread *t = gr_thread_of(x);
	if (!t)
		return;
	const struct argus_ev_stack *s = &x->ev->stack;
	/* a wait stack of a blocked thread belongs to the segment that waited */
	attach_stack(x->g, t, t->cur ? t->cur : t->last, s->ustack);
	if (s->kind == ARGUS_STACK_WAIT && s->ustack) {
		struct gvertex *w = gw_vertex(x->g, t->cur ? t->cur : t->last);
		if (w)
			atomic_store_explicit(&w->wait_stack, s->ustack, memory_order_relaxed);
		t->wait_stack = s->ustack;
		/* before the switch it is this wait's; after, the last one's */
		t->wait_stack_fresh = t->cur != 0;
	}
}

static void on_cpu_sample(struct ictx *x)
{
	struct gthread *t = gr_thread_of(x);
	argus_vid cur;
	if (t && gr_segment_of(x, t, &cur))
		attach_stack(x->g, t, cur, x->ev->stack.ustack);
}

static void on_ui_input(struct ictx *x)
{
	struct gthread *t = gr_thread_of(x);
	argus_vid cur;
	struct gvertex *v = t ? gr_segment_of(x, t, &cur) : NULL;
	if (v)
		atomic_fetch_or_explicit(&v->flags, ARGUS_VF_UI, memory_order_relaxed);
}

/* ---- event loops: a dispatch, an iteration, an async run ---- */

/* Its begin cuts the thread's execution; dispatches and runs nest. */
static struct gthread *loop_begin(struct ictx *x, uint32_t vflags, bool nests)
{
	struct gthread *t = gr_thread_of(x);
	if (!t)
		return NULL;
	t->loop_thread = true;
	gr_cut(x->g, t, x->ts, ARGUS_SPLIT_DISPATCH, ARGUS_LEFTOUT_KNOWN_BATCH, vflags);
	if (nests && t->dispatch_depth < 255)
		t->dispatch_depth++;
	return t;
}

static void on_iter_begin(struct ictx *x)
{
	struct gthread *t = loop_begin(x, 0, false);
	argus_vid cur;
	if (t)
		gr_segment_of(x, t, &cur);
}

static void on_dispatch_begin(struct ictx *x)
{
	struct gthread *t = loop_begin(x, ARGUS_VF_DISPATCH, true);
	argus_vid cur;
	if (t)
		gr_segment_of(x, t, &cur);
}

static void on_async_run_begin(struct ictx *x)
{
	struct gthread *t = loop_begin(x, ARGUS_VF_DISPATCH, true);
	argus_vid cur;
	if (t && gr_segment_of(x, t, &cur))
		gr_match_edge(x, t, &x->g->async, x->ev->async.obj);
}

/* The end belongs to the dispatch; what follows is a new segment. */
static void loop_end(struct ictx *x, bool nests)
{
	struct gthread *t = gr_thread_of(x);
	if (!t)
		return;
	struct gvertex *v = gw_vertex(x->g, gr_cur_segment(x->g, t, x->ts));
	if (v)
		gr_account(v, x);
	gr_close_segment(x->g, t, x->ts, false);
	t->cut_pending = true;
	if (nests && t->dispatch_depth > 0)
		t->dispatch_depth--;
}

static void on_iter_end(struct ictx *x)
{
	loop_end(x, false);
}

static void on_dispatch_end(struct ictx *x)
{
	loop_end(x, true);
}

static void on_async_post(struct ictx *x)
{
	struct gthread *t = gr_thread_of(x);
	argus_vid cur;
	if (t && gr_segment_of(x, t, &cur))
		gr_remember(x->g, &x->g->async, x->ev->async.obj, cur, x->ts, 0);
}

static void on_flag_write(struct ictx *x)
{
	struct gthread *t = gr_thread_of(x);
	argus_vid cur;
	if (t && gr_segment_of(x, t, &cur))
		gr_remember(x->g, &x->g->flag, x->ev->flag.addr, cur, x->ts, 0);
}

static void on_flag_read(struct ictx *x)
{
	struct gthread *t = gr_thread_of(x);
	argus_vid cur;
	if (t && gr_segment_of(x, t, &cur))
		gr_match_edge(x, t, &x->g->flag, x->ev->flag.addr);
}

/* ---- the event rules ---- */

/* Each event type: its handler, the split action and the edge kind the
 * handler applies, and the paper's rule for them. A type with no row is
 * counted in its thread's segment (on_plain). The edge kinds' strengths
 * are edge_rules[] in graph.c. */
static const struct event_rule event_rules[ARGUS_EV_TYPE_MAX] = {
    /* processes and threads */
    [ARGUS_EV_NONE] = {on_plain, SA_NONE, EDGE_NONE, KEY_NONE, 0, NULL},
    [ARGUS_EV_PROC_FORK] = {on_fork, SA_NONE, EDGE_NONE, KEY_NONE, 0,
                            "Table 1 weak 2 kern_task, weak 3 known batching: the name says"},
    [ARGUS_EV_THREAD_NEW] = {on_fork, SA_NONE, EDGE_NONE, KEY_NONE, 0,
                             "Table 1 weak 2 kern_task, weak 3 known batching: the name says"},
    [ARGUS_EV_PROC_EXEC] = {on_exec, SA_NONE, EDGE_NONE, KEY_NONE, 0,
                            "Table 1 weak 2 kern_task, weak 3 known batching: the name says"},
    [ARGUS_EV_THREAD_EXIT] = {on_thread_exit, SA_END_THREAD, EDGE_NONE, KEY_NONE, 0,
                              "001 s2.1.1 end (1): the exit of a thread"},
    [ARGUS_EV_PROC_EXIT] = {on_thread_exit, SA_END_THREAD, EDGE_NONE, KEY_NONE, 0,
                            "001 s2.1.1 end (1): the exit of a thread"},
    [ARGUS_EV_COMM] = {on_comm, SA_NONE, EDGE_NONE, KEY_NONE, ER_NO_SIG,
                       "Table 1 weak 2 kern_task, weak 3 known batching: the name says"},
    [ARGUS_EV_MMAP] = {on_mmap, SA_NONE, EDGE_NONE, KEY_NONE, ER_NO_SIG, NULL},
    /* scheduling */
    [ARGUS_EV_SCHED_SWITCH] = {on_switch, SA_END_IF_BLOCKING, EDGE_NONE, KEY_NONE,
                               ER_NO_SIG | ER_COMPLETES_WAIT | ER_TASK_CONTEXT,
                               "000 s5: split at the entry of a blocking wait; 001 s2.1.1 end (2)"},
    [ARGUS_EV_SCHED_WAKEUP] = {on_wakeup, SA_BEGIN_WAKEE, ARGUS_EDGE_WAKEUP, KEY_NONE, ER_NO_SIG,
                               "001 s2.1.1 begin (2): the return from a wait; Table 1 weak 1"},
    [ARGUS_EV_SCHED_WAKEUP_NEW] = {on_wakeup, SA_BEGIN_WAKEE, ARGUS_EDGE_WAKEUP, KEY_NONE,
                                   ER_NO_SIG, "001 s2.1.1 begin (1): the beginning of a thread"},
    /* syscalls; IPC records replace sys_exit for their calls */
    [ARGUS_EV_SYS_ENTER] = {gr_on_sys_enter, SA_NONE, ARGUS_EDGE_IPC, KEY_SYS_NR, 0,
                            "Table 1 strong 1: a wait on one IPC object follows from its unread "
                            "sends"},
    [ARGUS_EV_SYS_EXIT] = {gr_on_sys_exit, SA_NONE, EDGE_NONE, KEY_SYS_OBJ, ER_COMPLETES_WAIT,
                           NULL},
    [ARGUS_EV_IPC_SEND] = {gr_on_ipc_send, SA_CUT_NEW_PEER, ARGUS_EDGE_IPC, KEY_SYS_OBJ, 0,
                           "000 s5: consecutive messages with non-overlapping peer sets; 001 "
                           "P6; Table 1 strong 1"},
    [ARGUS_EV_IPC_RECV] = {gr_on_ipc_recv, SA_CUT_NEW_PEER, ARGUS_EDGE_IPC, KEY_SYS_OBJ,
                           ER_COMPLETES_WAIT,
                           "000 s2 piggyback, 001 P3: a send and a receive in one call; "
                           "Table 1 strong 1"},
    [ARGUS_EV_KREQ_SEND] = {gr_on_kreq_send, SA_CUT_NEW_PEER, ARGUS_EDGE_IPC, KEY_NONE, 0,
                            "000 s4: the kernel's internal messages, not only system calls; Table 1 strong 1"},
    [ARGUS_EV_KREQ_END] = {gr_on_kreq_end, SA_CUT_NEW_PEER, ARGUS_EDGE_IPC, KEY_NONE, 0,
                           "000 s4: the kernel's internal messages, not only system calls; Table 1 strong 1"},
    /* futexes: the waker's hooks decide the kind of the wake-ups it made */
    [ARGUS_EV_FUTEX_WAIT] = {gr_on_futex_wait, SA_NONE, EDGE_NONE, KEY_NONE, 0, NULL},
    [ARGUS_EV_FUTEX_WAKE] = {gr_on_futex_wake, SA_NONE, ARGUS_EDGE_FUTEX, KEY_NONE, ER_KEEPS_WAKEES,
                             "Table 1 strong 3 (a signal), weak 1 (broadcast, hand-off, unknown)"},
    /* timers */
    [ARGUS_EV_TIMER_ARM] = {on_timer_arm, SA_NONE, EDGE_NONE, KEY_TIMER_KIND, 0,
                            "Table 1 strong 2: a delayed call, armed"},
    [ARGUS_EV_TIMER_FIRE] = {on_timer_fire, SA_NONE, ARGUS_EDGE_TIMER, KEY_TIMER_KIND,
                             ER_COMPLETES_WAIT | ER_TIMER_SRC,
                             "Table 1 strong 2: delayed call; 001 s2.1.1 timers"},
    [ARGUS_EV_TIMER_CANCEL] = {on_timer_cancel, SA_NONE, EDGE_NONE, KEY_NONE, 0, NULL},
    /* interrupts */
    [ARGUS_EV_IRQ_ENTRY] = {on_irq_entry, SA_SPLICE_IRQ, EDGE_NONE, KEY_NONE, ER_NO_SIG,
                            "001 P1: interrupt handling spliced away"},
    [ARGUS_EV_IRQ_EXIT] = {on_irq_exit, SA_SPLICE_IRQ, EDGE_NONE, KEY_NONE, ER_NO_SIG,
                           "001 P1: interrupt handling spliced away"},
    [ARGUS_EV_SOFTIRQ_ENTRY] = {on_irq_entry, SA_SPLICE_IRQ, EDGE_NONE, KEY_NONE, ER_NO_SIG,
                                "001 P1, P2: kernel work in a thread's context"},
    [ARGUS_EV_SOFTIRQ_EXIT] = {on_irq_exit, SA_SPLICE_IRQ, EDGE_NONE, KEY_NONE, ER_NO_SIG,
                               "001 P1, P2: kernel work in a thread's context"},
    /* stacks: the symbol rule of adjacent edges */
    [ARGUS_EV_STACK] = {on_stack, SA_NONE, EDGE_NONE, KEY_NONE, ER_NO_SIG | ER_COMPLETES_WAIT,
                        "Table 1 boosted weak; 000 s5: low-frequency symbols shared"},
    [ARGUS_EV_CPU_SAMPLE] = {on_cpu_sample, SA_NONE, EDGE_NONE, KEY_NONE,
                             ER_NO_SIG | ER_COMPLETES_WAIT,
                             "Table 1 boosted weak; 000 s5: low-frequency symbols shared"},
    [ARGUS_EV_UI_INPUT] = {on_ui_input, SA_NONE, EDGE_NONE, KEY_NONE, ER_COMPLETES_WAIT, NULL},
    /* event loops */
    [ARGUS_EV_LOOP_ITER_BEGIN] = {on_iter_begin, SA_CUT_BEGIN, EDGE_NONE, KEY_NONE, 0,
                                  "001 P8: runloop begin / end points"},
    [ARGUS_EV_LOOP_ITER_END] = {on_iter_end, SA_CUT_END, EDGE_NONE, KEY_NONE, 0,
                                "001 P8: runloop begin / end points"},
    [ARGUS_EV_DISPATCH_BEGIN] = {on_dispatch_begin, SA_CUT_BEGIN, EDGE_NONE, KEY_LOOP_CB, 0,
                                 "000 s5: nested dispatch_callout tasks separated"},
    [ARGUS_EV_DISPATCH_END] = {on_dispatch_end, SA_CUT_END, EDGE_NONE, KEY_LOOP_CB, 0,
                               "000 s5: nested dispatch_callout tasks separated"},
    [ARGUS_EV_ASYNC_POST] = {on_async_post, SA_NONE, EDGE_NONE, KEY_ASYNC_CB, 0,
                             "Table 1 strong 2: an asynchronous call, posted"},
    [ARGUS_EV_ASYNC_RUN_BEGIN] = {on_async_run_begin, SA_CUT_BEGIN, ARGUS_EDGE_ASYNC, KEY_ASYNC_CB,
                                  ER_COMPLETES_WAIT,
                                  "000 s5: each dispatched task is separated; Table 1 strong 2"},
    [ARGUS_EV_ASYNC_RUN_END] = {on_dispatch_end, SA_CUT_END, EDGE_NONE, KEY_NONE, 0,
                                "000 s5: each dispatched task is separated"},
    /* synchronisation hooks */
    [ARGUS_EV_COND_WAIT] = {on_plain, SA_NONE, EDGE_NONE, KEY_NONE, 0, NULL},
    [ARGUS_EV_COND_WAKE] = {gr_on_cond_wake, SA_NONE, ARGUS_EDGE_SIGNAL, KEY_NONE,
                            ER_COMPLETES_WAIT,
                            "Table 1 strong 3; 000 s5: a broadcast wakes all, weak"},
    [ARGUS_EV_COND_SIGNAL] = {gr_on_cond_signal, SA_NONE, EDGE_NONE, KEY_NONE, 0,
                              "Table 1 strong 3: direct wake-up on purpose"},
    [ARGUS_EV_COND_BROADCAST] = {gr_on_cond_broadcast, SA_NONE, EDGE_NONE, KEY_NONE, 0,
                                 "000 s5: wakes all waiters, not one"},
    [ARGUS_EV_SEM_WAIT] = {gr_on_sem_wait, SA_NONE, ARGUS_EDGE_SIGNAL, KEY_NONE, ER_COMPLETES_WAIT,
                           "Table 1 strong 3: direct wake-up on purpose"},
    [ARGUS_EV_SEM_POST] = {gr_on_sem_post, SA_NONE, EDGE_NONE, KEY_NONE, 0,
                           "Table 1 strong 3: direct wake-up on purpose"},
    [ARGUS_EV_MUTEX_HANDOFF] = {gr_on_mutex_handoff, SA_NONE, ARGUS_EDGE_HANDOFF, KEY_NONE,
                                ER_KEEPS_WAKEES, "Table 1 weak 1: non-causal wake-up; 001 P5"},
    /* D-Bus */
    [ARGUS_EV_DBUS_SEND] = {gr_on_dbus_send, SA_NONE, ARGUS_EDGE_REPLY, KEY_DBUS_MEMBER, 0,
                            "000 s5: received message -> its reply; 001 P7"},
    [ARGUS_EV_DBUS_RECV] = {gr_on_dbus_recv, SA_NONE, ARGUS_EDGE_DBUS, KEY_DBUS_MEMBER,
                            ER_COMPLETES_WAIT, "Table 1 strong 1: IPC message send and receive"},
    /* data flags (watchpoints) */
    [ARGUS_EV_FLAG_WRITE] = {on_flag_write, SA_NONE, EDGE_NONE, KEY_NONE, 0,
                             "Table 1 strong 4: data dependency, written"},
    [ARGUS_EV_FLAG_READ] = {on_flag_read, SA_NONE, ARGUS_EDGE_FLAG, KEY_NONE, ER_COMPLETES_WAIT,
                            "Table 1 strong 4: data dependency; 001 P3-P5"},
    [ARGUS_EV_DROP] = {on_drop, SA_NONE, EDGE_NONE, KEY_NONE, ER_NO_SIG, NULL},
};

/* Types with no row, and those past the Linux range. */
static const struct event_rule plain_rule = {on_plain, SA_NONE, EDGE_NONE, KEY_NONE, 0, NULL};

const struct event_rule *gr_event_rule(uint16_t type)
{
	const struct event_rule *r = type < ARGUS_EV_TYPE_MAX ? &event_rules[type] : NULL;
	return r && r->handle ? r : &plain_rule;
}

static bool irq_context(const struct argus_event *ev, const struct event_rule *r,
                        const struct gcpu *c)
{
	if (ev->flags & (ARGUS_F_HARDIRQ | ARGUS_F_SOFTIRQ))
		return true;
	return c && c->irq_depth > 0 && !(r->flags & ER_TASK_CONTEXT);
}

void gr_ingest_one(struct argus_graph *g, const struct argus_event *ev)
{
	uint64_t ts = ev->ts;
	if (ts < g->last_ts) {
		g->st.events_late++;
		ts = g->last_ts; /* keep time monotonic: no edge goes backwards */
	}
	g->last_ts = ts;
	atomic_store_explicit(&g->now, ts, memory_order_relaxed);
	gw_maybe_rotate(g, ts);
	struct gbody *b = gw_newest(g);
	if (b)
		b->events++;
	g->st.events++;

	struct ictx x = {.g = g, .ev = ev, .rule = gr_event_rule(ev->type), .ts = ts};
	x.c = gr_cpu_get(g, ev->cpu);
	x.irq = irq_context(ev, x.rule, x.c);
	/* a timer's edge passes only to the wake-ups of the interrupt it fired in */
	if (x.c && !x.irq && !(x.rule->flags & ER_TIMER_SRC))
		x.c->timer_src = 0;
	x.rule->handle(&x);
}
