/*
 * graph_comm.c - the handlers of event_rules[] (graph_ingest.c) for
 * syscalls and communication: IPC, futex wake-ups and the synchronisation
 * hooks, D-Bus. Each adds the edge kind its row names (docs/graph.md).
 */
#include <string.h>

#include "graph_stages.h"

/* ---- syscalls ---- */

static void sys_begin(struct ictx *x, struct gthread *t, struct gvertex *v, uint16_t nr)
{
	t->in_sys = true;
	t->sys_peer = false;
	t->woken_in_wait = false;
	t->sys_nr = nr;
	t->sys_ts = x->ts;
	t->sys_seq++;
	t->nwakees = 0;
	t->wait_obj = 0;
	atomic_fetch_add_explicit(&v->nsys, 1, memory_order_relaxed);
	atomic_fetch_or_explicit(&v->sys_set, 1ull << (nr % 64), memory_order_relaxed);
}

/* A wait on one IPC object (a poll of one fd) that has sends to it no
 * receive matched yet: the thread read them unseen (the default capture
 * sees no receive that finds data waiting, docs/kext.md) or waits with them
 * unread; either way its segment follows from their senders (Table 1
 * strong 1, as the receive would have made it). */
static void wait_on_object(struct ictx *x, struct gthread *t)
{
	const struct argus_ev_sys_enter *p = &x->ev->sys_enter;
	switch (p->obj_kind) {
	case ARGUS_OBJ_PIPE:
	case ARGUS_OBJ_UNIX:
	case ARGUS_OBJ_TCP:
	case ARGUS_OBJ_EVENTFD:
	case ARGUS_OBJ_SOCKETPAIR:
	case ARGUS_OBJ_DISPLAY:
	case ARGUS_OBJ_PTY:
		break;
	default:
		return;
	}
	t->wait_obj = p->obj;
	struct gref *r = p->obj ? gmap_get(&x->g->ipc, p->obj) : NULL;
	if (!r)
		return;
	for (uint32_t i = 0; i < r->n; i++)
		gr_add_comm_edge(x->g, t, r->src[i], x->rule->edge, r->ts[i]);
	r->n = 0;
}

/* A unix socket connected to a path (the kext gives the pid that listens
 * there): until a thread reads the connection's other end (end), what is
 * sent there is for the listener - the thread seen serving an earlier
 * connection to it, else its main thread. The connecting end (own) is a new
 * socket: what was known at its address belongs to a closed one the kernel
 * freed (a server end there would make its new reader the listener's
 * server). */
static void on_connect(struct argus_graph *g, argus_vid cur, uint64_t own, uint64_t end,
                       uint64_t pid)
{
	gmap_del(&g->listener, own);
	gmap_del(&g->obj_reader, own);
	struct gref *l = gmap_get(&g->listener, pid);
	uint64_t reader = l && l->n ? l->ts[0] : pid;
	struct gref *rd = gmap_put(g, &g->obj_reader, end);
	if (rd) {
		rd->src[0] = cur;
		rd->ts[0] = reader;
		rd->n = 1;
	}
	struct gref *e = gmap_put(g, &g->listener, end);
	if (e) {
		e->src[0] = cur;
		e->ts[0] = pid;
		e->n = 1;
	}
}

/* t reads end, a new reader there: if end is a connection made to a
 * listener, t serves that listener's connections. */
static void on_new_reader(struct argus_graph *g, argus_vid src, uint64_t end, uint32_t tid)
{
	struct gref *e = gmap_get(&g->listener, end);
	if (!e || !e->n)
		return;
	struct gref *l = gmap_put(g, &g->listener, e->ts[0]);
	if (l) {
		l->src[0] = src;
		l->ts[0] = tid;
		l->n = 1;
	}
}

void gr_on_sys_enter(struct ictx *x)
{
	struct gthread *t = gr_thread_of(x);
	argus_vid cur;
	struct gvertex *v = t ? gr_segment_of(x, t, &cur) : NULL;
	if (!v)
		return;
	sys_begin(x, t, v, x->ev->sys_enter.nr);
	uint8_t k = x->ev->sys_enter.obj_kind;
	const struct argus_event *ev = x->ev;
	if (ev->sys_enter.nr == ARGUS_NR_connect && k == ARGUS_OBJ_UNIX && ev->sys_enter.arg0 > 0 &&
	    ev->sys_enter.peer_obj)
		on_connect(x->g, cur, ev->sys_enter.obj, ev->sys_enter.peer_obj,
		           (uint64_t)ev->sys_enter.arg0);
	t->sys_peer = argus_syscall_wait(x->ev->sys_enter.nr) == ARGUS_SYSW_POLL &&
	              x->ev->sys_enter.obj &&
	              (k == ARGUS_OBJ_UNIX || k == ARGUS_OBJ_SOCKETPAIR || k == ARGUS_OBJ_TCP);
	wait_on_object(x, t);
}

/* A futex wait's entry record is futex_wait. */
void gr_on_futex_wait(struct ictx *x)
{
	struct gthread *t = gr_thread_of(x);
	argus_vid cur;
	struct gvertex *v = t ? gr_segment_of(x, t, &cur) : NULL;
	if (v)
		sys_begin(x, t, v, ARGUS_NR_futex);
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
	t->wait_obj = 0;
	t->in_sys = false;
	t->woken_in_wait = false;
}

/* A thread waiting on one IPC object (wait_on_object) woken by a kernel
 * worker: a pty write's worker wakes the reader, and the write itself is
 * the send to that object no receive matched yet: its edge goes to the
 * segment the wake-up began (Table 1 strong 1, as the receive would). */
void gr_wake_from_sends(struct argus_graph *g, struct gthread *w, argus_vid dst)
{
	struct gref *r = w->wait_obj ? gmap_get(&g->ipc, w->wait_obj) : NULL;
	if (!r)
		return;
	for (uint32_t i = 0; i < r->n; i++)
		if (r->src[i] != dst)
			gr_add_rule_edge(g, dst, r->src[i], ARGUS_EDGE_IPC, r->ts[i]);
	r->n = 0;
}

/* The waker's futex call returned: its intent (from hooks) decides the
 * strength of the wake-ups it made (strong only for a signal to a waiter). */
static void futex_wake(struct argus_graph *g, struct gthread *k, const struct argus_event *ev)
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

void gr_on_sys_exit(struct ictx *x)
{
	struct gthread *t = gr_thread_of(x);
	argus_vid cur;
	struct gvertex *v = t ? gr_segment_of(x, t, &cur) : NULL;
	if (v)
		sys_done(x->g, t, v, cur, x->ev);
}

void gr_on_futex_wake(struct ictx *x)
{
	struct gthread *t = gr_thread_of(x);
	argus_vid cur;
	if (t && gr_segment_of(x, t, &cur))
		futex_wake(x->g, t, x->ev);
}

/* ---- IPC ---- */

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
static bool ipc_late_send(struct argus_graph *g, struct gthread *t, uint64_t key, argus_vid src,
                          uint8_t kind)
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
	gr_add_rule_edge(g, rv, src, kind, t->sys_ts);
	return true;
}

/* The peer-set rule (batch loops, piggyback) and the send -> receive match
 * of p (an IPC record's payload, or a kernel request's as one). */
static void ipc(struct ictx *x, struct gthread *t, bool send, const struct argus_ev_sys_exit *p)
{
	struct argus_graph *g = x->g;
	uint64_t ts = x->ts;
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
		/* who should read it: the thread last seen reading there */
		struct gref *rd = gmap_get(&g->obj_reader, key);
		struct gvertex *sv = gw_vertex(g, src);
		if (sv)
			atomic_store_explicit(&sv->send_reader, rd ? (uint32_t)rd->ts[0] : 0,
			                      memory_order_relaxed);
		if (ipc_late_send(g, t, key, src, x->rule->edge))
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
	struct gref *rd = src ? gmap_put(g, &g->obj_reader, p->obj) : NULL;
	if (rd && (!rd->n || rd->ts[0] != t->tid))
		on_new_reader(g, src, p->obj, t->tid);
	if (rd) { /* swept with the receiving segment */
		rd->src[0] = src;
		rd->ts[0] = t->tid;
		rd->n = 1;
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
		gr_add_comm_edge(g, t, r->src[i], x->rule->edge, r->ts[i]);
	r->n = 0;
}

/* IPC records replace sys_exit for their calls. */
static void ipc_call(struct ictx *x, bool send)
{
	struct gthread *t = gr_thread_of(x);
	if (!t)
		return;
	gr_cur_segment(x->g, t, x->ts);
	ipc(x, t, send, &x->ev->ipc);
	argus_vid cur;
	struct gvertex *v = gr_segment_of(x, t, &cur);
	if (v)
		sys_done(x->g, t, v, cur, x->ev);
}

void gr_on_ipc_send(struct ictx *x)
{
	ipc_call(x, true);
}

void gr_on_ipc_recv(struct ictx *x)
{
	ipc_call(x, false);
}

/* A kernel request to a user-space server (FUSE): the thread it is for
 * sends to the connection (no call ends: it waits in the call that needed
 * it), the server thread that ends it receives there, so the connection's
 * reader is the server and a request it has not ended is an unread send
 * (docs/graph.md "Kernel requests"). */
static void kreq(struct ictx *x, bool send)
{
	struct gthread *t = gr_thread_of(x);
	const struct argus_ev_kreq *k = &x->ev->kreq;
	if (!t || !k->obj)
		return;
	struct argus_ev_sys_exit p = {.obj = k->obj, .ret = 1, .fd = -1, .nr = 0xffff,
	                              .obj_kind = k->obj_kind};
	gr_cur_segment(x->g, t, x->ts);
	ipc(x, t, send, &p); /* may cut a new segment: flag the one it went to */
	struct gvertex *v = send ? gw_vertex(x->g, t->cur) : NULL;
	if (v)
		atomic_fetch_or_explicit(&v->flags, ARGUS_VF_KREQ, memory_order_relaxed);
}

void gr_on_kreq_send(struct ictx *x)
{
	kreq(x, true);
}

void gr_on_kreq_end(struct ictx *x)
{
	kreq(x, false);
}

/* ---- synchronisation hooks: the intent of the wake-ups that follow ---- */

static void announce(struct ictx *x, struct gmap *m, uint8_t intent)
{
	struct gthread *t = gr_thread_of(x);
	argus_vid cur;
	if (!t || !gr_segment_of(x, t, &cur))
		return;
	t->intent = intent;
	gr_remember(x->g, m, x->ev->sync.obj, cur, x->ts, intent);
}

void gr_on_cond_signal(struct ictx *x)
{
	announce(x, &x->g->cond, INTENT_SIGNAL);
}

void gr_on_cond_broadcast(struct ictx *x)
{
	announce(x, &x->g->cond, INTENT_BROADCAST);
}

void gr_on_sem_post(struct ictx *x)
{
	announce(x, &x->g->sem, INTENT_SIGNAL);
}

/* The unlock came after its futex wake: relabel what it woke. */
void gr_on_mutex_handoff(struct ictx *x)
{
	struct gthread *t = gr_thread_of(x);
	argus_vid cur;
	if (!t || !gr_segment_of(x, t, &cur))
		return;
	t->intent = INTENT_HANDOFF;
	for (uint8_t i = 0; i < t->nwakees; i++) {
		struct gref *r = gmap_get(&x->g->threads, (uint64_t)t->wakees[i] + 1);
		struct gthread *w = r ? r->thread : NULL;
		if (w && w->wake_pending && w->wake_src == cur &&
		    w->wake_kind == ARGUS_EDGE_FUTEX) {
			w->wake_kind = x->rule->edge;
			gr_wake_publish(x->g, w);
		}
	}
}

/* A wait on a synchronisation object returned: its thread, and the entry
 * of m for the object (the waker's segment); NULL when the wait timed out
 * (nobody woke it) or no waker is known. */
static struct gref *woken_by(struct ictx *x, struct gmap *m, struct gthread **t)
{
	argus_vid cur;
	*t = gr_thread_of(x);
	if (!*t || !gr_segment_of(x, *t, &cur))
		return NULL;
	const struct argus_ev_sync *s = &x->ev->sync;
	struct gref *r = gmap_get(m, s->obj);
	if (s->ret != 0 || !r || !gw_vertex(x->g, r->src[0]))
		return NULL;
	return r;
}

void gr_on_cond_wake(struct ictx *x)
{
	struct gthread *t;
	struct gref *r = woken_by(x, &x->g->cond, &t);
	if (!r)
		return;
	uint8_t kind = r->aux == INTENT_BROADCAST ? ARGUS_EDGE_BROADCAST : x->rule->edge;
	gr_add_comm_edge(x->g, t, r->src[0], kind, r->ts[0]);
	if (r->aux == INTENT_SIGNAL)
		gmap_del(&x->g->cond, x->ev->sync.obj); /* a signal wakes one waiter */
}

void gr_on_sem_wait(struct ictx *x)
{
	struct gthread *t;
	struct gref *r = woken_by(x, &x->g->sem, &t);
	if (!r)
		return;
	gr_add_comm_edge(x->g, t, r->src[0], x->rule->edge, r->ts[0]);
	gmap_del(&x->g->sem, x->ev->sync.obj);
}

/* ---- D-Bus ---- */

static uint64_t dbus_key(const struct argus_ev_dbus *d)
{
	return mix64(mix64((uint64_t)d->serial << 32 | d->reply_serial) ^
	             ((uint64_t)d->member_str << 32 | d->dest_str) ^ d->msg_type) |
	       1;
}

/* A send; a reply also answers the call its segment received (row: reply). */
void gr_on_dbus_send(struct ictx *x)
{
	struct gthread *t = gr_thread_of(x);
	argus_vid cur;
	if (!t || !gr_segment_of(x, t, &cur))
		return;
	struct argus_graph *g = x->g;
	const struct argus_ev_dbus *d = &x->ev->dbus;
	gr_remember(g, &g->dbus, dbus_key(d), cur, x->ts, 0);
	if (d->reply_serial) {
		uint64_t k = mix64(d->conn ^ mix64(d->reply_serial)) | 1;
		gr_match_edge(x, t, &g->reply, k);
		gmap_del(&g->reply, k);
	}
}

void gr_on_dbus_recv(struct ictx *x)
{
	struct gthread *t = gr_thread_of(x);
	argus_vid cur;
	if (!t || !gr_segment_of(x, t, &cur))
		return;
	struct argus_graph *g = x->g;
	const struct argus_ev_dbus *d = &x->ev->dbus;
	uint64_t k = dbus_key(d);
	gr_match_edge(x, t, &g->dbus, k);
	gmap_del(&g->dbus, k);
	if (d->msg_type == 1) /* a call: its reply depends on this segment */
		gr_remember(g, &g->reply, mix64(d->conn ^ mix64(d->serial)) | 1, cur, x->ts, 0);
}
