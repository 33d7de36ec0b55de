/*
 * landmarks.c - hooked dispatches as landmarks (LagHunter, paper 002,
 * section 3.1): per thread a shadow stack of the dispatches the hooks
 * report (dispatch_begin / _end; the callback a GLib source runs comes with
 * async_run_begin), popped at each end: inclusive latency, exclusive
 * latency (minus the dispatches nested in it), and only those of at least
 * opts.landmark_ns (3 ms) go on to the sinks - the paper's online filter.
 * The hooks' own landmarks (signal emissions, paint, Qt event deliveries
 * and signals) come filtered already: one landmark record at the end of
 * each that lasted the hooks' threshold, with its begin, its nesting depth
 * and the time of the landmarks nested in it; a record nested in another
 * waits in the thread's pending spans until its parent's comes, and an
 * outermost one counts as nested in the dispatch around it.
 * Kept only while a sink takes landmarks (docs/session.md "Landmarks").
 */
#include <stdio.h>
#include <string.h>

#include "session_priv.h"

#define LM_DEPTH 16
#define LM_SPANS 8

struct lm_frame {
	uint64_t begin, child_ns;
	uint64_t dispatch, callback;
	uint32_t name_str;
	uint32_t nspans; /* kept landmarks nested in it: their samples are theirs */
	uint64_t span[LM_SPANS][2];
};

struct lm_stack {
	uint32_t depth, pid;
	struct lm_frame f[LM_DEPTH];
	uint32_t npend; /* hook landmarks kept, waiting for the one around them */
	struct {
		uint64_t begin, end;
		uint32_t depth;
	} pend[LM_SPANS];
};

static const char *const lm_names[] = {"signal", "gtk-event", "paint", "qt-event", "qt-signal"};

static struct lm_stack *stack_of(struct argus_session *s, uint32_t tid, bool make)
{
	if (!s->lm_init) {
		argus_hmap_init(&s->lm, sizeof(struct lm_stack), 16);
		s->lm_init = true;
	}
	struct lm_stack *st = argus_hmap_get(&s->lm, tid);
	if (st || !make)
		return st;
	bool fresh = false;
	st = argus_hmap_put(&s->lm, tid, &fresh);
	if (st && fresh)
		memset(st, 0, sizeof(*st));
	return st;
}

static bool in_spans(const struct lm_frame *f, uint64_t ts)
{
	for (uint32_t i = 0; i < f->nspans; i++)
		if (ts >= f->span[i][0] && ts <= f->span[i][1])
			return true;
	return false;
}

static void hand(struct argus_session *s, const struct argus_event *e, const struct lm_frame *f,
                 uint32_t depth, uint64_t incl, const char *landmark)
{
	uint32_t all[512], stacks[512], n = 0;
	uint64_t ts[512];
	/* the samples inside it, but not inside a kept nested landmark */
	size_t k = argus_samples_range(s->smp, e->tid, f->begin, e->ts, all, ts, 512);
	for (size_t i = 0; i < k; i++)
		if (!in_spans(f, ts[i]))
			stacks[n++] = all[i];
	uint32_t waits[256];
	uint32_t nw = (uint32_t)argus_samples_range(s->waits, e->tid, f->begin, e->ts, waits, NULL,
	                                            256);
	if (s->prepare && s->prepare(s))
		return;
	const char *src = f->name_str ? session_string(s, f->name_str) : NULL;
	struct argus_session_landmark l = {.landmark = landmark,
	                                   .pid = e->pid,
	                                   .tid = e->tid,
	                                   .begin = f->begin,
	                                   .end = e->ts,
	                                   .incl_ns = incl,
	                                   .excl_ns = incl > f->child_ns ? incl - f->child_ns : 0,
	                                   .depth = depth,
	                                   .dispatch = f->dispatch,
	                                   .callback = f->callback,
	                                   .source = src ? src : "",
	                                   .stacks = stacks,
	                                   .nstacks = n,
	                                   .waits = waits,
	                                   .nwaits = nw,
	                                   .sym = &s->sym};
	snprintf(l.comm, sizeof(l.comm), "%s", argus_trigger_comm(s->trig, e->pid));
	for (unsigned i = 0; i < s->nsinks; i++)
		if (s->sinks[i].landmark)
			s->sinks[i].landmark(s->sinks[i].arg, &l);
}

/* Note a kept span in frame f (its samples are not f's). */
static void add_span(struct lm_frame *f, uint64_t begin, uint64_t end)
{
	if (f->nspans < LM_SPANS) {
		f->span[f->nspans][0] = begin;
		f->span[f->nspans][1] = end;
		f->nspans++;
	}
}

/* A landmark record: the hooks kept it (their threshold); its nested
 * ones came before it and wait in st->pend. */
static void hook_landmark(struct argus_session *s, struct lm_stack *st, const struct argus_event *e)
{
	const struct argus_ev_landmark *k = &e->landmark;
	if (k->kind >= sizeof(lm_names) / sizeof(lm_names[0]) || k->begin_ns > e->ts)
		return;
	uint64_t incl = e->ts - k->begin_ns;
	struct lm_frame f = {.begin = k->begin_ns, .child_ns = k->nested_ns, .callback = k->fn};
	uint32_t keep = 0;
	for (uint32_t i = 0; i < st->npend; i++)
		if (st->pend[i].depth > k->depth && st->pend[i].begin >= k->begin_ns)
			add_span(&f, st->pend[i].begin, st->pend[i].end);
		else
			st->pend[keep++] = st->pend[i];
	st->npend = keep;
	st->pid = e->pid;
	if (incl < s->o.landmark_ns)
		return; /* the hooks' threshold is lower than the session's */
	s->st.landmarks++;
	hand(s, e, &f, k->depth, incl, lm_names[k->kind]);
	if (k->depth > 0) {
		if (st->npend == LM_SPANS) /* full: the oldest goes */
			memmove(&st->pend[0], &st->pend[1], (LM_SPANS - 1) * sizeof(st->pend[0]));
		else
			st->npend++;
		st->pend[st->npend - 1].begin = k->begin_ns;
		st->pend[st->npend - 1].end = e->ts;
		st->pend[st->npend - 1].depth = k->depth;
	} else if (st->depth && st->depth <= LM_DEPTH && st->f[st->depth - 1].begin <= k->begin_ns) {
		/* in the dispatch around it: minus its time, not its samples */
		st->f[st->depth - 1].child_ns += incl;
		add_span(&st->f[st->depth - 1], k->begin_ns, e->ts);
	}
}

void session_landmark(struct argus_session *s, const struct argus_event *e)
{
	if (!(e->flags & ARGUS_F_HOOK))
		return;
	struct lm_stack *st;
	switch (e->type) {
	case ARGUS_EV_DISPATCH_BEGIN:
		if (!(st = stack_of(s, e->tid, true)))
			return;
		if (st->depth < LM_DEPTH)
			st->f[st->depth] = (struct lm_frame){.begin = e->ts,
			                                     .dispatch = e->loop.callback,
			                                     .name_str = e->loop.name_str};
		st->depth++; /* deeper than kept: counted, not measured */
		st->pid = e->pid;
		break;
	case ARGUS_EV_ASYNC_RUN_BEGIN:
		st = stack_of(s, e->tid, false);
		if (st && st->depth && st->depth <= LM_DEPTH && !st->f[st->depth - 1].callback)
			st->f[st->depth - 1].callback = e->async.callback;
		break;
	case ARGUS_EV_DISPATCH_END: {
		st = stack_of(s, e->tid, false);
		if (!st || !st->depth)
			return; /* its begin came before the source */
		uint32_t d = --st->depth;
		if (d >= LM_DEPTH)
			return;
		struct lm_frame f = st->f[d];
		uint64_t incl = e->ts > f.begin ? e->ts - f.begin : 0;
		bool kept = incl >= s->o.landmark_ns;
		if (d > 0) {
			struct lm_frame *p = &st->f[d - 1];
			p->child_ns += incl;
			if (kept)
				add_span(p, f.begin, e->ts);
		}
		if (kept) {
			s->st.landmarks++;
			hand(s, e, &f, d, incl, "handler");
		}
		break;
	}
	case ARGUS_EV_LANDMARK:
		if ((st = stack_of(s, e->tid, true)))
			hook_landmark(s, st, e);
		break;
	default:
		break;
	}
}

void session_landmarks_free(struct argus_session *s)
{
	if (s->lm_init)
		argus_hmap_free(&s->lm);
}
