/*
 * graph_ingest.c - the writer's event handlers: what each record does to
 * the thread that made it, its segments and the matching tables. The rules
 * they apply are the two tables in graph.c (docs/graph.md).
 */
#include <stdlib.h>
#include <string.h>

#include "graph_internal.h"

/* ---- per-event bookkeeping of a segment ---- */

static uint8_t key_hash(const struct argus_event *ev)
{
	uint64_t k;
	switch (ev->type) {
	case ARGUS_EV_SYS_ENTER:
		k = ev->sys_enter.nr;
		break;
	case ARGUS_EV_SYS_EXIT:
	case ARGUS_EV_IPC_SEND:
	case ARGUS_EV_IPC_RECV:
		k = (uint64_t)ev->sys_exit.nr << 8 | ev->sys_exit.obj_kind;
		break;
	case ARGUS_EV_DBUS_SEND:
	case ARGUS_EV_DBUS_RECV:
		k = ev->dbus.member_str;
		break;
	case ARGUS_EV_DISPATCH_BEGIN:
	case ARGUS_EV_DISPATCH_END:
		k = ev->loop.callback;
		break;
	case ARGUS_EV_ASYNC_POST:
	case ARGUS_EV_ASYNC_RUN_BEGIN:
		k = ev->async.callback;
		break;
	case ARGUS_EV_TIMER_ARM:
	case ARGUS_EV_TIMER_FIRE:
		k = ev->timer.kind;
		break;
	default:
		k = 0;
	}
	return (uint8_t)mix64(k + 1);
}

static bool in_signature(uint16_t type)
{
	switch (type) {
	case ARGUS_EV_SCHED_SWITCH:
	case ARGUS_EV_SCHED_WAKEUP:
	case ARGUS_EV_SCHED_WAKEUP_NEW:
	case ARGUS_EV_STACK:
	case ARGUS_EV_CPU_SAMPLE:
	case ARGUS_EV_DROP:
	case ARGUS_EV_COMM:
	case ARGUS_EV_MMAP:
		return false;
	}
	return type < ARGUS_EV_IRQ_ENTRY || type > ARGUS_EV_SOFTIRQ_EXIT;
}

static void account(struct gvertex *v, const struct argus_event *ev, uint64_t ts)
{
	atomic_store_explicit(&v->end, ts, memory_order_relaxed);
	atomic_fetch_add_explicit(&v->nevents, 1, memory_order_relaxed);
	if (!in_signature(ev->type))
		return;
	uint16_t tok = (uint16_t)((ev->type & 0xff) << 8 | key_hash(ev));
	uint32_t h = atomic_load_explicit(&v->sig_hash, memory_order_relaxed);
	atomic_store_explicit(&v->sig_hash, (h ^ tok) * 16777619u + 1, memory_order_relaxed);
	uint16_t n = atomic_load_explicit(&v->nsig, memory_order_relaxed);
	if (n < ARGUS_SIG_MAX) {
		v->sig[n] = tok;
		atomic_store_explicit(&v->nsig, n + 1, memory_order_release);
	}
}

/* Events that complete a wait: they may still explain the wake-up. */
static bool completes_wait(uint16_t type)
{
	switch (type) {
	case ARGUS_EV_SYS_EXIT:
	case ARGUS_EV_IPC_RECV:
	case ARGUS_EV_COND_WAKE:
	case ARGUS_EV_SEM_WAIT:
	case ARGUS_EV_DBUS_RECV:
	case ARGUS_EV_FLAG_READ:
	case ARGUS_EV_TIMER_FIRE:
	case ARGUS_EV_STACK:
	case ARGUS_EV_CPU_SAMPLE:
	case ARGUS_EV_UI_INPUT:
	case ARGUS_EV_SCHED_SWITCH:
	case ARGUS_EV_ASYNC_RUN_BEGIN:
		return true;
	}
	return false;
}

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

/* ---- handlers ---- */

static void on_switch(struct argus_graph *g, const struct argus_event *ev, struct gcpu *c,
                      uint64_t ts)
{
	const struct argus_ev_sched_switch *p = &ev->sched_switch;
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
			account(v, ev, ts);
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
			t->blocked = true;
			t->cut_pending = false;
			/* an event loop waiting for work, between dispatches */
			t->idle_wait = gr_wait_kind_of(t->in_sys, t->sys_nr) == ARGUS_WAIT_POLL &&
			               t->dispatch_depth == 0;
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

static void on_wakeup(struct argus_graph *g, const struct argus_event *ev, struct gcpu *c, bool irq,
                      uint64_t ts)
{
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
		return;
	}
	if (!k->pid)
		k->pid = ev->pid;
	argus_vid src = gr_cur_segment(g, k, ts);
	w->woken_in_wait = idle_wait;
	w->wake_pending = true;
	w->wake_src = src;
	w->wake_ts = ts;
	w->wake_kind =
	    k->in_sys && k->sys_nr == ARGUS_NR_futex ? ARGUS_EDGE_FUTEX : ARGUS_EDGE_WAKEUP;
	w->wake_strength = ARGUS_WEAK;
	if (k->nwakees < MAX_WAKEES)
		k->wakees[k->nwakees++] = w->tid;
}

/* The waker's futex call returned: its intent (from hooks) decides the
 * strength of the wake-ups it made (strong only for a signal to a waiter). */
static void on_futex_wake(struct argus_graph *g, struct gthread *k, const struct argus_event *ev)
{
	uint8_t kind;
	if (k->intent == INTENT_SIGNAL && ev->futex.ret <= 1)
		kind = ARGUS_EDGE_SIGNAL;
	else if (k->intent == INTENT_BROADCAST || ev->futex.ret > 1)
		kind = ARGUS_EDGE_BROADCAST;
	else if (k->intent == INTENT_HANDOFF)
		kind = ARGUS_EDGE_HANDOFF;
	else
		kind = ARGUS_EDGE_FUTEX;
	for (uint8_t i = 0; i < k->nwakees; i++) {
		struct gref *r = gmap_get(&g->threads, (uint64_t)k->wakees[i] + 1);
		struct gthread *w = r ? r->thread : NULL;
		if (!w || !w->wake_pending || w->wake_src != k->cur)
			continue;
		w->wake_kind = kind;
		w->wake_strength = gr_edge_strength(kind);
		if (kind != ARGUS_EDGE_FUTEX)
			gr_wake_publish(g, w); /* decided; unknown stays open for a hook */
	}
	k->intent = INTENT_NONE;
}

static bool peer_in(const uint64_t *set, uint8_t n, uint64_t x)
{
	for (uint8_t i = 0; i < n; i++)
		if (set[i] == x)
			return true;
	return false;
}

/* A send recorded after the receive that consumed it: IPC records are
 * stamped at syscall exit, and the receiver can return first. The send's
 * call began before the receive ended, so the edge is not backwards. */
static bool ipc_late_send(struct argus_graph *g, struct gthread *t, uint64_t key, argus_vid src)
{
	struct gref *w = gmap_get(&g->ipc_wait, key);
	if (!w)
		return false;
	argus_vid rv = w->src[0];
	uint64_t rts = w->ts[0];
	gmap_del(&g->ipc_wait, key);
	struct gvertex *r = gw_vertex(g, rv);
	if (!r || rv == src || !t->in_sys || t->sys_ts > rts)
		return false;
	struct gref *tr = gmap_get(&g->threads, (uint64_t)r->tid + 1);
	struct gthread *rt = tr ? tr->thread : NULL;
	if (rt && rt->wake_pending && rt->wake_src == src && rt->cur == rv) {
		rt->wake_pending = false;
		g->st.wakeups_merged++;
	}
	gr_add_rule_edge(g, rv, src, ARGUS_EDGE_IPC, t->sys_ts);
	return true;
}

static void on_ipc(struct argus_graph *g, struct gthread *t, const struct argus_event *ev,
                   uint64_t ts)
{
	const struct argus_ev_sys_exit *p = &ev->ipc;
	bool send = ev->type == ARGUS_EV_IPC_SEND;
	/* the connection, the same from both ends: a peer of the segment */
	uint64_t conn = p->peer_obj ? p->obj ^ p->peer_obj : p->obj;
	argus_vid src = 0;
	if (send && t->batch_prev && t->batch_seq == t->sys_seq &&
	    peer_in(t->prev_peers, t->nprev_peers, conn)) {
		/* piggyback: this send belongs to the segment before the split */
		src = gw_vertex(g, t->batch_prev) ? t->batch_prev : 0;
	} else if (t->npeers && !peer_in(t->peers, t->npeers, conn) && (!send || t->sent)) {
		argus_vid prev = t->cur;
		memcpy(t->prev_peers, t->peers, sizeof(t->peers));
		t->nprev_peers = t->npeers;
		/* in a known batching loop a receive from a new peer begins the
		 * next item once the segment before it has sent (its forward or
		 * answer). A segment that only read has its output in the
		 * segments after it (a bus daemon reads a batch, then writes
		 * it), and a send to a second new peer begins no item: those
		 * cuts keep a weak edge back */
		gr_cut(g, t, ts, ARGUS_SPLIT_BATCH,
		       t->batch_known && !send && t->answered ? ARGUS_LEFTOUT_KNOWN_BATCH : 0xff,
		       0);
		t->batch_prev = prev;
		t->batch_seq = t->sys_seq;
	}
	if (!src) {
		if (!peer_in(t->peers, t->npeers, conn)) {
			if (t->npeers == MAX_PEERS)
				memmove(t->peers, t->peers + 1,
				        (MAX_PEERS - 1) * sizeof(t->peers[0]));
			else
				t->npeers++;
			t->peers[t->npeers - 1] = conn;
		}
		if (send)
			t->sent = t->answered = true;
		else if (p->ret > 0)
			t->answered = false;
		src = t->cur;
	}
	if (p->ret <= 0)
		return;
	if (send) {
		uint64_t key = p->peer_obj ? p->peer_obj : p->obj;
		if (ipc_late_send(g, t, key, src))
			return;
		struct gref *r = gmap_put(g, &g->ipc, key);
		if (!r)
			return;
		if (r->n && r->src[r->n - 1] == src)
			return;
		if (r->n == 2) {
			r->src[0] = r->src[1];
			r->ts[0] = r->ts[1];
			r->n = 1;
		}
		r->src[r->n] = src;
		r->ts[r->n++] = ts;
		return;
	}
	if (p->obj_kind == ARGUS_OBJ_DISPLAY) {
		struct gvertex *v = gw_vertex(g, t->cur);
		if (v)
			atomic_fetch_or_explicit(&v->flags, ARGUS_VF_UI, memory_order_relaxed);
	}
	struct gref *r = gmap_get(&g->ipc, p->obj);
	if (!r || !r->n) {
		/* the sender's record may still come: it is stamped at its exit */
		struct gref *w = gmap_put(g, &g->ipc_wait, p->obj);
		if (w) {
			w->src[0] = t->cur;
			w->ts[0] = ts;
			w->n = 1;
		}
		return;
	}
	for (uint32_t i = 0; i < r->n; i++)
		gr_add_comm_edge(g, t, r->src[i], ARGUS_EDGE_IPC, r->ts[i]);
	r->n = 0;
}

/* Remember the first half of a pair: key -> the current segment. */
static struct gref *remember(struct argus_graph *g, struct gmap *m, uint64_t key, argus_vid src,
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

static uint64_t dbus_key(const struct argus_ev_dbus *d)
{
	return mix64(mix64((uint64_t)d->serial << 32 | d->reply_serial) ^
	             ((uint64_t)d->member_str << 32 | d->dest_str) ^ d->msg_type) |
	       1;
}

static void on_sync(struct argus_graph *g, struct gthread *t, const struct argus_event *ev,
                    argus_vid cur, uint64_t ts)
{
	const struct argus_ev_sync *s = &ev->sync;
	switch (ev->type) {
	case ARGUS_EV_COND_SIGNAL:
		t->intent = INTENT_SIGNAL;
		remember(g, &g->cond, s->obj, cur, ts, INTENT_SIGNAL);
		break;
	case ARGUS_EV_COND_BROADCAST:
		t->intent = INTENT_BROADCAST;
		remember(g, &g->cond, s->obj, cur, ts, INTENT_BROADCAST);
		break;
	case ARGUS_EV_SEM_POST:
		t->intent = INTENT_SIGNAL;
		remember(g, &g->sem, s->obj, cur, ts, INTENT_SIGNAL);
		break;
	case ARGUS_EV_MUTEX_HANDOFF:
		t->intent = INTENT_HANDOFF;
		/* the unlock came after its futex wake: relabel what it woke */
		for (uint8_t i = 0; i < t->nwakees; i++) {
			struct gref *r = gmap_get(&g->threads, (uint64_t)t->wakees[i] + 1);
			struct gthread *w = r ? r->thread : NULL;
			if (w && w->wake_pending && w->wake_src == cur &&
			    w->wake_kind == ARGUS_EDGE_FUTEX) {
				w->wake_kind = ARGUS_EDGE_HANDOFF;
				gr_wake_publish(g, w);
			}
		}
		break;
	case ARGUS_EV_COND_WAKE: {
		struct gref *r = gmap_get(&g->cond, s->obj);
		if (s->ret != 0 || !r || !gw_vertex(g, r->src[0])) /* timed out: nobody woke it */
			break;
		uint8_t kind =
		    r->aux == INTENT_BROADCAST ? ARGUS_EDGE_BROADCAST : ARGUS_EDGE_SIGNAL;
		gr_add_comm_edge(g, t, r->src[0], kind, r->ts[0]);
		if (r->aux == INTENT_SIGNAL)
			gmap_del(&g->cond, s->obj); /* a signal wakes one waiter */
		break;
	}
	case ARGUS_EV_SEM_WAIT: {
		struct gref *r = gmap_get(&g->sem, s->obj);
		if (s->ret != 0 || !r || !gw_vertex(g, r->src[0]))
			break;
		gr_add_comm_edge(g, t, r->src[0], ARGUS_EDGE_SIGNAL, r->ts[0]);
		gmap_del(&g->sem, s->obj);
		break;
	}
	}
}

/* A syscall returned: its duration, and the result of the wait that ended
 * the previous segment if this call was that wait. */
static void sys_done(struct argus_graph *g, struct gthread *t, struct gvertex *v, argus_vid cur,
                     const struct argus_event *ev)
{
	uint64_t dur = ev->sys_exit.dur_ns & ((1ull << 48) - 1);
	uint64_t ls = atomic_load_explicit(&v->long_sys, memory_order_relaxed);
	if (!ls || dur > (ls & ((1ull << 48) - 1)))
		atomic_store_explicit(&v->long_sys, (uint64_t)ev->sys_exit.nr << 48 | dur,
		                      memory_order_relaxed);
	struct gvertex *w = gw_vertex(g, t->wait_vid);
	if (w && t->wait_vid != cur) {
		uint64_t wv = atomic_load_explicit(&w->wait, memory_order_relaxed);
		wv = (wv & ~0xffffffffull) | (uint32_t)(int32_t)ev->sys_exit.ret;
		atomic_store_explicit(&w->wait, wv, memory_order_relaxed);
		/* its wake-up went unseen (say, a timeout's, whose interrupt
		 * left no record): the wait lasted until the thread ran again */
		if (!atomic_load_explicit(&w->wait_ns, memory_order_relaxed) &&
		    v->start > t->wait_at)
			atomic_store_explicit(&w->wait_ns, v->start - t->wait_at,
			                      memory_order_relaxed);
	}
	t->wait_vid = 0;
	t->in_sys = false;
	t->woken_in_wait = false;
}

static void on_thread_exit(struct argus_graph *g, struct gthread *t, uint64_t ts)
{
	if (t->cur)
		gr_close_segment(g, t, ts, false);
	gr_adjacent_rule(g, t, true);
	gr_thread_drop(g, t);
}

static bool irq_context(const struct argus_event *ev, const struct gcpu *c)
{
	if (ev->flags & (ARGUS_F_HARDIRQ | ARGUS_F_SOFTIRQ))
		return true;
	return c && c->irq_depth > 0 && ev->type != ARGUS_EV_SCHED_SWITCH;
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

	uint16_t type = ev->type;
	struct gcpu *c = gr_cpu_get(g, ev->cpu);
	bool irq = irq_context(ev, c);
	if (c && !irq && type != ARGUS_EV_TIMER_FIRE)
		c->timer_src = 0;

	switch (type < ARGUS_EV_TYPE_MAX ? g->split_action[type] : SA_NONE) {
	case SA_SPLICE_IRQ:
		if (!c)
			return;
		if (type == ARGUS_EV_IRQ_ENTRY || type == ARGUS_EV_SOFTIRQ_ENTRY) {
			if (c->irq_depth++ == 0)
				c->irq_since = ts;
			struct gref *r =
			    ev->tid ? gmap_get(&g->threads, (uint64_t)ev->tid + 1) : NULL;
			struct gvertex *v = r ? gw_vertex(g, r->thread->cur) : NULL;
			if (v)
				atomic_fetch_or_explicit(&v->flags, ARGUS_VF_IRQ,
				                         memory_order_relaxed);
		} else if (c->irq_depth > 0 && --c->irq_depth == 0) {
			c->irq_ns += ts - c->irq_since;
			c->timer_src = 0;
		}
		return;
	case SA_END_IF_BLOCKING:
		on_switch(g, ev, c, ts);
		return;
	case SA_BEGIN_WAKEE:
		on_wakeup(g, ev, c, irq, ts);
		return;
	}

	if (type == ARGUS_EV_DROP) {
		g->st.source_drops += ev->drop.count;
		return;
	}
	if (type == ARGUS_EV_TIMER_FIRE || type == ARGUS_EV_TIMER_ARM ||
	    type == ARGUS_EV_TIMER_CANCEL) {
		struct gref *r = gmap_get(&g->timer, ev->timer.obj);
		bool kernel = irq || !ev->tid || (ev->flags & ARGUS_F_KTHREAD);
		if (type == ARGUS_EV_TIMER_CANCEL) {
			gmap_del(&g->timer, ev->timer.obj);
			if (kernel)
				return;
		} else if (type == ARGUS_EV_TIMER_FIRE && (r && gw_vertex(g, r->src[0]))) {
			if (kernel && c) {
				/* the wake-ups of this interrupt carry the edge */
				c->timer_src = r->src[0];
				c->timer_ts = r->ts[0];
				return;
			}
		} else if (kernel) {
			return; /* a kernel re-arm keeps the thread that armed it */
		}
	} else if (irq || !ev->tid) {
		return; /* 001 P1: interrupt work is not the interrupted segment's */
	}

	struct gthread *t = gr_thread_get(g, ev->tid);
	if (!t) {
		g->oom = true;
		return;
	}
	if (!t->pid)
		t->pid = ev->pid;
	if (ev->flags & ARGUS_F_KTHREAD)
		t->kworker = true;
	if (t->wake_pending && !completes_wait(type))
		gr_wake_publish(g, t);
	/* The wake-ups a thread makes belong to the call it is in. A futex wake
	 * is reported only at its exit (no entry record), so its wakees are
	 * those made since the thread's previous own event; a mutex_handoff
	 * hook record may follow it and relabel them. */
	if (!t->in_sys && type != ARGUS_EV_FUTEX_WAKE && type != ARGUS_EV_MUTEX_HANDOFF)
		t->nwakees = 0;

	switch (type) {
	case ARGUS_EV_PROC_FORK:
	case ARGUS_EV_THREAD_NEW: {
		struct gthread *ch = gr_thread_get(g, ev->fork.child_tid);
		if (ch) {
			ch->pid = ev->fork.child_pid;
			gr_set_comm(g, ch, ev->fork.comm);
		}
		break;
	}
	case ARGUS_EV_COMM:
		gr_set_comm(g, t, ev->comm.comm);
		return;
	case ARGUS_EV_PROC_EXEC:
		gr_set_comm(g, t, ev->exec.comm);
		break;
	case ARGUS_EV_THREAD_EXIT:
	case ARGUS_EV_PROC_EXIT:
		on_thread_exit(g, t, ts);
		return;
	case ARGUS_EV_MMAP:
		return;
	case ARGUS_EV_STACK:
		/* a wait stack of a blocked thread belongs to the segment that waited */
		attach_stack(g, t, t->cur ? t->cur : t->last, ev->stack.ustack);
		if (ev->stack.kind == ARGUS_STACK_WAIT && ev->stack.ustack) {
			struct gvertex *w = gw_vertex(g, t->cur ? t->cur : t->last);
			if (w)
				atomic_store_explicit(&w->wait_stack, ev->stack.ustack,
				                      memory_order_relaxed);
			t->wait_stack = ev->stack.ustack;
			/* before the switch it is this wait's; after, the last one's */
			t->wait_stack_fresh = t->cur != 0;
		}
		return;
	case ARGUS_EV_DISPATCH_BEGIN:
	case ARGUS_EV_LOOP_ITER_BEGIN:
	case ARGUS_EV_ASYNC_RUN_BEGIN:
		t->loop_thread = true;
		gr_cut(g, t, ts, ARGUS_SPLIT_DISPATCH, ARGUS_LEFTOUT_KNOWN_BATCH,
		       type == ARGUS_EV_LOOP_ITER_BEGIN ? 0 : ARGUS_VF_DISPATCH);
		if (type != ARGUS_EV_LOOP_ITER_BEGIN && t->dispatch_depth < 255)
			t->dispatch_depth++;
		break;
	case ARGUS_EV_DISPATCH_END:
	case ARGUS_EV_LOOP_ITER_END:
	case ARGUS_EV_ASYNC_RUN_END: {
		/* the end belongs to the dispatch; what follows is a new segment */
		struct gvertex *v = gw_vertex(g, gr_cur_segment(g, t, ts));
		if (v)
			account(v, ev, ts);
		gr_close_segment(g, t, ts, false);
		t->cut_pending = true;
		if (type != ARGUS_EV_LOOP_ITER_END && t->dispatch_depth > 0)
			t->dispatch_depth--;
		return;
	}
	case ARGUS_EV_IPC_SEND:
	case ARGUS_EV_IPC_RECV:
		gr_cur_segment(g, t, ts);
		on_ipc(g, t, ev, ts);
		break;
	}

	argus_vid cur = gr_cur_segment(g, t, ts);
	struct gvertex *v = gw_vertex(g, cur);
	if (!v)
		return;
	account(v, ev, ts);

	switch (type) {
	case ARGUS_EV_SYS_ENTER:
	case ARGUS_EV_FUTEX_WAIT: { /* a futex wait's entry record is futex_wait */
		uint16_t nr = type == ARGUS_EV_FUTEX_WAIT ? ARGUS_NR_futex : ev->sys_enter.nr;
		t->in_sys = true;
		t->woken_in_wait = false;
		t->sys_nr = nr;
		t->sys_ts = ts;
		t->sys_seq++;
		t->nwakees = 0;
		atomic_fetch_add_explicit(&v->nsys, 1, memory_order_relaxed);
		atomic_fetch_or_explicit(&v->sys_set, 1ull << (nr % 64), memory_order_relaxed);
		break;
	}
	case ARGUS_EV_SYS_EXIT:
	case ARGUS_EV_IPC_SEND:
	case ARGUS_EV_IPC_RECV: /* IPC records replace sys_exit for their calls */
		sys_done(g, t, v, cur, ev);
		break;
	case ARGUS_EV_FUTEX_WAKE:
		on_futex_wake(g, t, ev);
		break;
	case ARGUS_EV_COND_SIGNAL:
	case ARGUS_EV_COND_BROADCAST:
	case ARGUS_EV_SEM_POST:
	case ARGUS_EV_MUTEX_HANDOFF:
	case ARGUS_EV_COND_WAKE:
	case ARGUS_EV_SEM_WAIT:
		on_sync(g, t, ev, cur, ts);
		break;
	case ARGUS_EV_TIMER_ARM:
		remember(g, &g->timer, ev->timer.obj, cur, ts, 0);
		break;
	case ARGUS_EV_TIMER_FIRE: {
		/* fired in the thread itself (a GSource timeout, a timerfd read) */
		struct gref *r = gmap_get(&g->timer, ev->timer.obj);
		if (r && gw_vertex(g, r->src[0]))
			gr_add_comm_edge(g, t, r->src[0], ARGUS_EDGE_TIMER, r->ts[0]);
		break;
	}
	case ARGUS_EV_ASYNC_POST:
		remember(g, &g->async, ev->async.obj, cur, ts, 0);
		break;
	case ARGUS_EV_ASYNC_RUN_BEGIN: {
		struct gref *r = gmap_get(&g->async, ev->async.obj);
		if (r && gw_vertex(g, r->src[0]))
			gr_add_comm_edge(g, t, r->src[0], ARGUS_EDGE_ASYNC, r->ts[0]);
		break;
	}
	case ARGUS_EV_FLAG_WRITE:
		remember(g, &g->flag, ev->flag.addr, cur, ts, 0);
		break;
	case ARGUS_EV_FLAG_READ: {
		struct gref *r = gmap_get(&g->flag, ev->flag.addr);
		if (r && gw_vertex(g, r->src[0]))
			gr_add_comm_edge(g, t, r->src[0], ARGUS_EDGE_FLAG, r->ts[0]);
		break;
	}
	case ARGUS_EV_DBUS_SEND: {
		const struct argus_ev_dbus *d = &ev->dbus;
		remember(g, &g->dbus, dbus_key(d), cur, ts, 0);
		if (d->reply_serial) {
			uint64_t k = mix64(d->conn ^ mix64(d->reply_serial)) | 1;
			struct gref *r = gmap_get(&g->reply, k);
			if (r && gw_vertex(g, r->src[0]))
				gr_add_comm_edge(g, t, r->src[0], ARGUS_EDGE_REPLY, r->ts[0]);
			gmap_del(&g->reply, k);
		}
		break;
	}
	case ARGUS_EV_DBUS_RECV: {
		const struct argus_ev_dbus *d = &ev->dbus;
		uint64_t k = dbus_key(d);
		struct gref *r = gmap_get(&g->dbus, k);
		if (r && gw_vertex(g, r->src[0]))
			gr_add_comm_edge(g, t, r->src[0], ARGUS_EDGE_DBUS, r->ts[0]);
		gmap_del(&g->dbus, k);
		if (d->msg_type == 1) /* a call: its reply depends on this segment */
			remember(g, &g->reply, mix64(d->conn ^ mix64(d->serial)) | 1, cur, ts, 0);
		break;
	}
	case ARGUS_EV_UI_INPUT:
		atomic_fetch_or_explicit(&v->flags, ARGUS_VF_UI, memory_order_relaxed);
		break;
	case ARGUS_EV_CPU_SAMPLE:
		attach_stack(g, t, cur, ev->stack.ustack);
		break;
	}
}
