/*
 * graph_stages.h - the stages every thread record goes through, shared by
 * the handlers of event_rules[] (graph_ingest.c, graph_comm.c): inline, as
 * they run for nearly every record.
 */
#ifndef ARGUS_GRAPH_STAGES_H
#define ARGUS_GRAPH_STAGES_H

#include "graph_internal.h"

/* ---- per-event bookkeeping of a segment ---- */

static inline uint8_t gr_key_hash(const struct ictx *x)
{
	const struct argus_event *ev = x->ev;
	uint64_t k;
	switch (x->rule->key) {
	case KEY_SYS_NR:
		k = ev->sys_enter.nr;
		break;
	case KEY_SYS_OBJ:
		k = (uint64_t)ev->sys_exit.nr << 8 | ev->sys_exit.obj_kind;
		break;
	case KEY_DBUS_MEMBER:
		k = ev->dbus.member_str;
		break;
	case KEY_LOOP_CB:
		k = ev->loop.callback;
		break;
	case KEY_ASYNC_CB:
		k = ev->async.callback;
		break;
	case KEY_TIMER_KIND:
		k = ev->timer.kind;
		break;
	default:
		k = 0;
	}
	return (uint8_t)mix64(k + 1);
}

/* Count the record in segment v: its end, events, signature token. */
static inline void gr_account(struct gvertex *v, const struct ictx *x)
{
	atomic_store_explicit(&v->end, x->ts, memory_order_relaxed);
	atomic_fetch_add_explicit(&v->nevents, 1, memory_order_relaxed);
	if (x->rule->flags & ER_NO_SIG)
		return;
	uint16_t tok = (uint16_t)((x->ev->type & 0xff) << 8 | gr_key_hash(x));
	uint32_t h = atomic_load_explicit(&v->sig_hash, memory_order_relaxed);
	atomic_store_explicit(&v->sig_hash, (h ^ tok) * 16777619u + 1, memory_order_relaxed);
	uint16_t n = atomic_load_explicit(&v->nsig, memory_order_relaxed);
	if (n < ARGUS_SIG_MAX) {
		v->sig[n] = tok;
		atomic_store_explicit(&v->nsig, n + 1, memory_order_release);
	}
}

/* ---- the stages a thread's record goes through ---- */

/* The record's thread, and what any record of it does first. */
static inline struct gthread *gr_thread_enter(struct ictx *x)
{
	struct argus_graph *g = x->g;
	const struct argus_event *ev = x->ev;
	struct gthread *t = gr_thread_get(g, ev->tid);
	if (!t) {
		g->oom = true;
		return NULL;
	}
	if (!t->pid)
		t->pid = ev->pid;
	if (ev->flags & ARGUS_F_KTHREAD)
		t->kworker = true;
	if (t->wake_pending && !(x->rule->flags & ER_COMPLETES_WAIT))
		gr_wake_publish(g, t);
	/* The wake-ups a thread makes belong to the call it is in. A futex wake
	 * is reported only at its exit (no entry record), so its wakees are
	 * those made since the thread's previous own event; a mutex_handoff
	 * hook record may follow it and relabel them. */
	if (!t->in_sys && !(x->rule->flags & ER_KEEPS_WAKEES))
		t->nwakees = 0;
	return t;
}

/* The thread of a record made in thread context; NULL for interrupt work. */
static inline struct gthread *gr_thread_of(struct ictx *x)
{
	if (x->irq || !x->ev->tid)
		return NULL; /* 001 P1: interrupt work is not the interrupted segment's */
	return gr_thread_enter(x);
}

/* The thread's current segment, with the record counted in it. */
static inline struct gvertex *gr_segment_of(struct ictx *x, struct gthread *t, argus_vid *cur)
{
	*cur = gr_cur_segment(x->g, t, x->ts);
	struct gvertex *v = gw_vertex(x->g, *cur);
	if (v)
		gr_account(v, x);
	return v;
}

/* The edge from the segment a matching table remembers for key. */
static inline void gr_match_edge(struct ictx *x, struct gthread *t, struct gmap *m, uint64_t key)
{
	struct gref *r = gmap_get(m, key);
	if (r && gw_vertex(x->g, r->src[0]))
		gr_add_comm_edge(x->g, t, r->src[0], x->rule->edge, r->ts[0]);
}

#endif /* ARGUS_GRAPH_STAGES_H */
