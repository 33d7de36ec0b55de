/*
 * rule_compare.c - Algorithm 2, subgraph comparison (Argus, ATC 2021,
 * section 6.2): a baseline (an earlier vertex of the stalled thread, similar
 * to it, that behaved differently), the normal causal path that ended its
 * wait (Algorithm 1), and in the stall the thread on that path that did not
 * do its part; recursively for a culprit blocked itself. rules.c lists the
 * branches with the cases that decide them.
 */
#include <stdlib.h>
#include <string.h>

#include "diag_priv.h"

/* FindSimilarVertices + GetBaseLine: the latest earlier vertex of the
 * thread, similar to a, that behaved differently (its wait ended quickly,
 * or its segment was short for a spinning one). */
/* Whether the diagnosis follows edge e: every edge, or only strong ones for
 * the no-weak-edges baseline (which drops weak edges wherever argus follows
 * edges, not in the beam search alone). */
static bool followed(const struct ctx *c, const struct argus_edge_info *e)
{
	return !c->p->no_weak_edges || e->strength == ARGUS_STRONG;
}

/* Edge kinds that carry a request (not a timer or a bare wake-up). */
static bool is_request(unsigned kind)
{
	return kind == ARGUS_EDGE_IPC || kind == ARGUS_EDGE_DBUS || kind == ARGUS_EDGE_ASYNC ||
	       kind == ARGUS_EDGE_SIGNAL || kind == ARGUS_EDGE_FLAG;
}

/* Processes the vertex sent a request to that was already received (a
 * strong edge from it into a vertex of another process in [a, now]). */
static uint32_t asked_pids(const struct ctx *c, const struct argus_vertex_info *a, uint64_t now,
                           uint32_t *pids, uint32_t cap)
{
	uint32_t n = 0;
	ssize_t ai = dg_index_of(c, a);
	if (ai < 0)
		return 0;
	for (size_t i = dg_time_lower(c, dg_receivers_from(c, (size_t)ai));
	     i < c->ntv && c->tt[i].start <= now && n < cap; i++) {
		if (c->tt[i].tid == a->tid)
			continue;
		struct argus_edge_info in[16];
		size_t ne = argus_graph_in_edges(c->view, c->tt[i].vid, in, 16);
		for (size_t k = 0; k < ne && k < 16; k++)
			if (in[k].src == a->id && is_request(in[k].kind) && followed(c, &in[k])) {
				pids[n++] = c->tt[i].pid;
				break;
			}
	}
	return n;
}

/* Whether the vertex b woke into was woken by one of pids (strong edge). */
static bool answered_by(const struct ctx *c, argus_vid woke, const uint32_t *pids, uint32_t n)
{
	struct argus_edge_info in[16];
	size_t ne = argus_graph_in_edges(c->view, woke, in, 16);
	for (size_t k = 0; k < ne && k < 16; k++) {
		struct argus_vertex_info src;
		if (in[k].strength != ARGUS_STRONG || !argus_graph_vertex(c->view, in[k].src, &src))
			continue;
		for (uint32_t i = 0; i < n; i++)
			if (src.pid == pids[i])
				return true;
	}
	return false;
}

/* How a baseline candidate is matched to the stalled vertex a. */
enum match {
	MATCH_SIGNATURE, /* similar events, not known to block at another call site */
	MATCH_STACK,     /* blocked at the same call site (wait stack) */
	MATCH_PEERS,     /* any shape: answered by the peers a asked (checked below) */
};

/* Baselines passed over (cut_in_batch): at most MAX_PASSED, tried in turn. */
#define MAX_PASSED 3

struct passed {
	argus_vid id[MAX_PASSED];
	uint32_t n;
};

static bool was_passed(const struct passed *ps, argus_vid id)
{
	for (uint32_t i = 0; ps && i < ps->n; i++)
		if (ps->id[i] == id)
			return true;
	return false;
}

/* The latest vertex of a's thread before it (index ai, the thread's first
 * at lo) that behaved differently, matched to a by how, not passed over. */
static bool scan_baseline(const struct ctx *c, const struct argus_vertex_info *a, ssize_t ai,
                          size_t lo, bool spinning, const uint32_t *pids, uint32_t npids,
                          enum match how, const struct passed *ps, struct argus_vertex_info *out)
{
	uint32_t seen = 0;
	for (ssize_t i = ai - 1; i >= (ssize_t)lo && seen < c->p->max_similar; i--, seen++) {
		struct argus_vertex_info v;
		if (was_passed(ps, c->tv[i].vid) || !argus_graph_vertex(c->view, c->tv[i].vid, &v))
			continue;
		if (how == MATCH_SIGNATURE && (!dg_similar(c, a, &v) || dg_other_call(c, a, &v)))
			continue;
		if (how == MATCH_STACK && (!v.wait_stack || dg_other_call(c, a, &v)))
			continue;
		if (spinning) {
			if (v.end - v.start < c->p->long_wait_ns)
				return *out = v, true;
			continue;
		}
		if ((v.flags & ARGUS_VF_WAITED) && v.wait_kind == a->wait_kind && v.wait_ns &&
		    v.wait_ns < c->p->long_wait_ns &&
		    (!npids || answered_by(c, dg_successor(c, &v), pids, npids)))
			return *out = v, true;
	}
	return false;
}

static bool find_baseline(const struct ctx *c, const struct argus_vertex_info *a, bool spinning,
                          uint64_t now, const struct passed *ps, struct argus_vertex_info *out)
{
	/* the paper compares the peers of connection events: a baseline of a
	 * wait answers the same peers the stalled vertex asked. Not for a
	 * futex wait: a thread of its own process ends it, whatever the vertex
	 * sent before it blocked (a display server's request, say) */
	uint32_t pids[8];
	uint32_t npids =
	    spinning || a->wait_kind == ARGUS_WAIT_FUTEX ? 0 : asked_pids(c, a, now, pids, 8);
	ssize_t ai = dg_index_of(c, a);
	if (ai < 0)
		return false;
	size_t lo, hi;
	dg_thread_range(c, a->tid, &lo, &hi);
	/* by signature first; then by where the wait blocked (what a segment
	 * did before it blocked depends on timing - whether an earlier call
	 * blocked and split it -, the call site does not); then any shape
	 * answered by the peers a asked (the input that led to the wait read
	 * in another batch, a key's press and release together, changes the
	 * segment's shape, not whom it waits for) */
	if (scan_baseline(c, a, ai, lo, spinning, pids, npids, MATCH_SIGNATURE, ps, out)) {
		dg_note(c, "compare/baseline-by-signature");
		return true;
	}
	if (!spinning && a->wait_stack &&
	    scan_baseline(c, a, ai, lo, spinning, pids, npids, MATCH_STACK, ps, out)) {
		dg_note(c, "compare/baseline-by-wait-stack");
		return true;
	}
	if (npids && scan_baseline(c, a, ai, lo, spinning, pids, npids, MATCH_PEERS, ps, out)) {
		dg_note(c, "compare/baseline-by-peers-asked");
		return true;
	}
	return false;
}

/* The call v's thread rests in after v on the normal run: v's own wait, or,
 * when a split (a new peer, a wake-up) cut v short, the wait the thread went
 * on to; 0xffff = none seen. A worker thread relaying a reply (GDBus's)
 * reads, is cut at its send to a new peer, and only then waits in poll. */
static uint16_t normal_wait_nr(const struct ctx *c, const struct argus_vertex_info *v)
{
	if (v->flags & ARGUS_VF_WAITED)
		return v->wait_nr;
	ssize_t vi = dg_index_of(c, v);
	if (vi < 0)
		return 0xffff;
	for (size_t i = (size_t)vi + 1; i < c->ntv && i <= (size_t)vi + 8 && c->tv[i].tid == v->tid;
	     i++) {
		struct argus_vertex_info x;
		if (!argus_graph_vertex(c->view, c->tv[i].vid, &x))
			break;
		if (x.flags & ARGUS_VF_WAITED)
			return x.wait_nr;
	}
	return 0xffff;
}

/* In [from, now]: a vertex of v's thread blocked long where v (its normal
 * counterpart) was not, or in another wait: it did not do its part because
 * it waited itself. */
bool dg_find_blocked(const struct ctx *c, const struct argus_vertex_info *v, uint64_t from,
                     uint64_t now, struct argus_vertex_info *out)
{
	size_t lo, hi;
	uint16_t rest = normal_wait_nr(c, v);
	dg_thread_range(c, v->tid, &lo, &hi);
	for (size_t i = lo; i < hi; i++) {
		struct argus_vertex_info x;
		if (c->tv[i].start > now || !argus_graph_vertex(c->view, c->tv[i].vid, &x))
			continue;
		uint64_t w = dg_wait_len(c, &x, now);
		if (!w || x.end > now)
			continue;
		/* blocked this long inside [from, now] */
		uint64_t b0 = x.end > from ? x.end : from, b1 = x.end + w < now ? x.end + w : now;
		if (b1 <= b0 || b1 - b0 < c->p->long_wait_ns)
			continue;
		/* in the same call it normally waits in: idle as usual */
		/* (two known, different wait stacks are two calls: every
		 * futex wait is one syscall) */
		if (rest != 0xffff && x.wait_nr == rest &&
		    !((v->flags & ARGUS_VF_WAITED) && dg_other_call(c, &x, v))) {
			dg_note(c, "compare/rest-call");
			continue;
		}
		*out = x;
		return true;
	}
	return false;
}

/* Whether x ran inside [from, now]: a thread that took the job before the
 * waiter blocked and is still at it began before the stall. */
static bool ran_in(const struct argus_vertex_info *x, uint64_t from, uint64_t now)
{
	return x->start <= now && x->end >= from;
}

/* In [from, now]: a vertex of v's thread similar to v - it ran as it does
 * normally, yet the waiter was not woken (a missing wake-up). */
static bool find_similar(const struct ctx *c, const struct argus_vertex_info *v, uint64_t from,
                         uint64_t now, struct argus_vertex_info *out)
{
	size_t lo, hi;
	dg_thread_range(c, v->tid, &lo, &hi);
	for (size_t i = lo; i < hi; i++) {
		struct argus_vertex_info x;
		if (c->tv[i].start > now || !argus_graph_vertex(c->view, c->tv[i].vid, &x) ||
		    !ran_in(&x, from, now))
			continue;
		if (dg_similar(c, &x, v)) {
			*out = x;
			return true;
		}
	}
	return false;
}

/* More on-CPU time, or (equal, e.g. not yet accounted) a longer span. */
static bool more_work(const struct argus_vertex_info *x, const struct argus_vertex_info *y)
{
	if (x->oncpu_ns != y->oncpu_ns)
		return x->oncpu_ns > y->oncpu_ns;
	return x->end - x->start > y->end - y->start;
}

/* The vertex of process pid in [from, now] that received the stalled
 * vertex's request (a strong edge from it): a pool hands a job to whichever
 * worker is free, so the thread of the normal run may not be the one. */
static bool asked_vertex(const struct ctx *c, uint32_t pid, argus_vid asked_by, uint64_t from,
                         uint64_t now, struct argus_vertex_info *out)
{
	bool found = false;
	for (size_t i = dg_time_lower(c, from); i < c->ntv && c->tt[i].start <= now; i++) {
		if (c->tt[i].pid != pid)
			continue;
		struct argus_edge_info in[16];
		struct argus_vertex_info x;
		size_t n = argus_graph_in_edges(c->view, c->tt[i].vid, in, 16);
		for (size_t k = 0; k < n && k < 16; k++) {
			if (in[k].src != asked_by || !is_request(in[k].kind) ||
			    !followed(c, &in[k]) || !argus_graph_vertex(c->view, c->tt[i].vid, &x))
				continue;
			/* several (a wake-up, then the job it runs): the one
			 * that worked most */
			if (!found || more_work(&x, out))
				*out = x;
			found = true;
			break;
		}
	}
	return found;
}

/* Algorithm 2's VertexInThread, when no vertex of the thread in the stall
 * is similar to its normal one: the one that did the most work. */
static bool vertex_in_thread(const struct ctx *c, const struct argus_vertex_info *v, uint64_t from,
                             uint64_t now, struct argus_vertex_info *out)
{
	size_t lo, hi;
	bool found = false;
	dg_thread_range(c, v->tid, &lo, &hi);
	for (size_t i = lo; i < hi; i++) {
		struct argus_vertex_info x;
		if (c->tv[i].start > now || !argus_graph_vertex(c->view, c->tv[i].vid, &x) ||
		    !ran_in(&x, from, now))
			continue;
		if (!found || more_work(&x, out)) {
			*out = x;
			found = true;
		}
	}
	return found;
}

/* The edge that ended the wait before vertex id: its latest incoming edge
 * from another thread at or before its start (a wake-up, a signal, a
 * message); false when none. */
static bool waker_edge(const struct ctx *c, argus_vid id, struct argus_edge_info *out)
{
	struct argus_vertex_info v, src;
	struct argus_edge_info in[16];
	if (!argus_graph_vertex(c->view, id, &v))
		return false;
	size_t ne = argus_graph_in_edges(c->view, id, in, 16);
	bool found = false;
	for (size_t k = 0; k < ne && k < 16; k++) {
		if (in[k].kind == ARGUS_EDGE_ADJACENT || in[k].ts > v.start ||
		    !followed(c, &in[k]) || !argus_graph_vertex(c->view, in[k].src, &src) ||
		    src.tid == v.tid)
			continue;
		if (!found || in[k].ts > out->ts) {
			*out = in[k];
			found = true;
		}
	}
	return found;
}

/* Put vertex id, reached over edge e, in front of path p. */
static void prepend(const struct ctx *c, struct argus_path *p, argus_vid id,
                    const struct argus_edge_info *e)
{
	uint32_t n = p->n < ARGUS_PATH_MAX ? p->n : ARGUS_PATH_MAX - 1;
	memmove(&p->v[1], &p->v[0], n * sizeof(p->v[0]));
	if (n > 0)
		memmove(&p->edge[1], &p->edge[0],
		        (n < ARGUS_PATH_MAX - 1 ? n : ARGUS_PATH_MAX - 2) * sizeof(p->edge[0]));
	p->v[0] = id;
	p->edge[0] = *e;
	p->n = n + 1;
	p->penalty += c->p->a * e->strength + c->p->b;
}

/* The normal paths of baseline base (Algorithm 1 from what ended its wait);
 * -1 out of memory, -2 its thread has no later vertex. */
static int baseline_paths(struct ctx *c, const struct argus_vertex_info *base, bool spinning,
                          uint32_t depth, bool given, struct argus_path *paths)
{
	dg_step(c, "depth %u: baseline " ARGUS_VID_FMT " (%u/%u, waited %.3f s)%s", depth,
	        ARGUS_VID_ARGS(base->id), base->pid, base->tid, (double)base->wait_ns / 1e9,
	        given ? " (given)" : "");
	argus_vid target = spinning ? base->id : dg_successor(c, base);
	if (!target) {
		dg_step(c, "depth %u: the baseline's thread has no later vertex", depth);
		return -2;
	}
	struct argus_edge_info wake;
	int np;
	if (depth == 0 && c->h->normal_path && c->h->normal_path->n) {
		dg_note(c, "compare/normal-path-given");
		paths[0] = *c->h->normal_path;
		np = 1;
	} else if (!spinning && waker_edge(c, target, &wake)) {
		dg_note(c, "compare/normal-path-from-the-waker");
		/* the normal path starts with what ended the baseline's wait, not
		 * with whatever else its answer segment went on to receive */
		np = argus_beam_search(&c->g, wake.src, c->p, paths, 8, NULL);
		for (int k = 0; k < np; k++)
			prepend(c, &paths[k], target, &wake);
	} else {
		np = argus_beam_search(&c->g, target, c->p, paths, 8, NULL);
	}
	return np;
}

/* Whether some normal path holds a thread blocked in the stall (pass 1
 * below would find a culprit there). */
static bool finds_blocked(const struct ctx *c, const struct argus_path *paths, int np,
                          const struct dg_args *x)
{
	for (int k = 0; k < np; k++)
		for (uint32_t i = 1; i < paths[k].n; i++) {
			struct argus_vertex_info v, s;
			if (!argus_graph_vertex(c->view, paths[k].v[i], &v) ||
			    dg_in_chain(x->chain, x->nchain, v.tid))
				break;
			if (dg_find_blocked(c, &v, x->from, x->now, &s))
				return true;
		}
	return false;
}

/* Whether the baseline's normal paths do not say who answered its wait:
 * the best one ends at a segment a batch split began that nothing but its
 * own thread's previous segment leads to - a loop that read a batch (a bus
 * daemon's wake-up reading several clients) and then wrote its forwards,
 * the forward cut off from the read it passes on - and no path holds a
 * thread blocked in the stall. The culprit would then be the batching loop
 * itself, blamed as a missing wake-up for the cut alone. */
static bool cut_in_batch(const struct ctx *c, const struct argus_path *paths, int np,
                         const struct dg_args *x)
{
	struct argus_vertex_info v;
	if (np < 1 || !paths[0].n || !argus_graph_vertex(c->view, paths[0].v[paths[0].n - 1], &v) ||
	    v.split != ARGUS_SPLIT_BATCH)
		return false;
	struct argus_edge_info in[16];
	size_t ne = argus_graph_in_edges(c->view, v.id, in, 16);
	for (size_t k = 0; k < ne && k < 16; k++)
		if (in[k].kind != ARGUS_EDGE_ADJACENT)
			return false;
	return !finds_blocked(c, paths, np, x);
}

/* Algorithm 2 on anomaly vertex a over [x->from, x->now]; x->chain = the
 * threads already blamed on the way (a's first). Adds candidates; returns
 * how many culprits it found, -1 out of memory. *x->loops_back: a normal
 * path of a's answer leads back to the stalled thread (it waits on it: a
 * deadlock). */
int dg_compare(struct ctx *c, const struct argus_vertex_info *a, const struct dg_args *x)
{
	uint64_t from = x->from, now = x->now;
	uint32_t *chain = x->chain, nchain = x->nchain, depth = x->depth;
	int32_t pen0 = x->pen;
	bool spinning = x->spinning, *loops_back = x->loops_back;
	struct argus_vertex_info base;
	bool user_base = depth == 0 && c->h->baseline;
	if (user_base) {
		if (!argus_graph_vertex(c->view, c->h->baseline, &base)) {
			dg_step(c,
			        "depth 0: the baseline given, " ARGUS_VID_FMT
			        ", is not in the window",
			        ARGUS_VID_ARGS(c->h->baseline));
			return 0;
		}
		dg_note(c, "compare/baseline-given");
	} else if (!find_baseline(c, a, spinning, now, NULL, &base)) {
		dg_step(c,
		        "depth %u: no baseline: no earlier similar vertex of %u that behaved "
		        "differently",
		        depth, a->tid);
		return 0;
	}
	struct argus_path paths[8];
	int np = baseline_paths(c, &base, spinning, depth, user_base, paths);
	if (np < 0)
		return np == -2 ? 0 : -1;
	/* a baseline whose normal path was cut off in a batch: the one before
	 * it that behaved the same way, up to MAX_PASSED of them; none whole,
	 * the newest stands */
	bool given_path = depth == 0 && c->h->normal_path && c->h->normal_path->n;
	struct passed ps = {.n = 0};
	struct argus_vertex_info first = base;
	bool whole = user_base || given_path || !cut_in_batch(c, paths, np, x);
	while (!whole && ps.n < MAX_PASSED) {
		dg_step(c,
		        "depth %u: baseline " ARGUS_VID_FMT
		        " passed over: its normal path ends in a batch, cut off from its cause",
		        depth, ARGUS_VID_ARGS(base.id));
		ps.id[ps.n++] = base.id;
		if (!find_baseline(c, a, spinning, now, &ps, &base))
			break;
		np = baseline_paths(c, &base, spinning, depth, false, paths);
		if (np == -1)
			return -1;
		whole = np >= 0 && !cut_in_batch(c, paths, np, x);
	}
	if (ps.n && whole) {
		dg_note(c, "compare/whole-baseline");
	} else if (ps.n) {
		base = first;
		np = baseline_paths(c, &base, spinning, depth, false, paths);
		if (np < 0)
			return np == -2 ? 0 : -1;
	}
	/* a spinning loop waits for its flag: the paths through the flag's
	 * writer, when the baseline has one */
	bool flag_seen = false;
	if (spinning) {
		int k = 0;
		for (int i = 0; i < np; i++)
			if (paths[i].n > 1 && paths[i].edge[0].kind == ARGUS_EDGE_FLAG)
				paths[k++] = paths[i];
		if (k)
			np = k;
		flag_seen = k > 0;
	}
	for (int k = 0; k < np; k++) {
		char line[400];
		int o =
		    snprintf(line, sizeof(line), "depth %u: normal path %d (penalty %d):", depth,
		             k + 1, paths[k].penalty);
		for (uint32_t i = 0; i < paths[k].n && o > 0 && (size_t)o < sizeof(line); i++)
			o += snprintf(line + o, sizeof(line) - (size_t)o, "%s" ARGUS_VID_FMT,
			              i ? " <- " : " ", ARGUS_VID_ARGS(paths[k].v[i]));
		dg_step(c, "%s", line);
	}
	if (depth == 0) {
		c->baseline = base.id;
		if (np > 0) {
			c->normal_path = paths[0];
			c->has_normal = true;
		}
	}
	if (spinning && !flag_seen) {
		/* the flag's writer is unseen: who owes the spinner its answer */
		int r = dg_spin_peer(c, a, x);
		if (r)
			return r;
	}
	int found = 0;
	/* pass 1: on each normal path, a thread that is blocked itself
	 * (recurse on it); pass 2, only when no path has one: a thread that
	 * ran but did not wake. Per path, a path that ended where another had
	 * already taken its source (a relay's batch) would name the relay as
	 * a missing wake-up, at a lower penalty than the blocked thread
	 * further along the path that took it. */
	for (int pass = 1; pass <= 2 && !found; pass++) {
		for (int k = 0; k < np; k++) {
			int32_t pen = pen0;
			bool hit = false;
			for (uint32_t i = 1; i < paths[k].n && !hit; i++) {
				pen += c->p->a * paths[k].edge[i - 1].strength + c->p->b;
				struct argus_vertex_info v, s;
				if (!argus_graph_vertex(c->view, paths[k].v[i], &v))
					break;
				/* beyond a thread of the chain the normal path is what
				 * led to the request, not to its answer */
				if (dg_in_chain(chain, nchain, v.tid)) {
					dg_step(c,
					        "depth %u: pass %d: " ARGUS_VID_FMT
					        " is thread %u, already blamed: path %d stops",
					        depth, pass, ARGUS_VID_ARGS(v.id), v.tid, k + 1);
					if (depth > 0 && v.tid == chain[0] && loops_back)
						*loops_back = true;
					break;
				}
				if (pass == 2) {
					bool pool = asked_vertex(c, v.pid, a->id, from, now, &s);
					if (pool)
						dg_note(c, "compare/pool-worker");
					if (pool || find_similar(c, &v, from, now, &s) ||
					    vertex_in_thread(c, &v, from, now, &s)) {
						if (s.start < from)
							dg_note(c, "compare/started-before");
						dg_step(
						    c,
						    "depth %u: pass 2: thread %u of the normal "
						    "path: %u/%u ran in the stall (" ARGUS_VID_FMT
						    ") but did not wake",
						    depth, v.tid, s.pid, s.tid,
						    ARGUS_VID_ARGS(s.id));
						dg_add_candidate(c, &s, ARGUS_ROOT_MISSING_WAKE,
						                 pen, depth);
						hit = true;
					}
					continue;
				}
				if (!dg_find_blocked(c, &v, from, now, &s)) {
					dg_step(c,
					        "depth %u: pass 1: thread %u (" ARGUS_VID_FMT
					        ") was not blocked in the stall",
					        depth, v.tid, ARGUS_VID_ARGS(v.id));
					continue;
				}
				dg_step(c,
				        "depth %u: pass 1: thread %u blocked in the stall "
				        "at " ARGUS_VID_FMT
				        " (%.3f s): the culprit of the culprit is asked",
				        depth, v.tid, ARGUS_VID_ARGS(s.id),
				        (double)s.wait_ns / 1e9);
				hit = true;
				/* threads before it on the path ran: one of them would
				 * have been a missing wake-up in pass 2 */
				if (i > 1)
					dg_note(c, "compare/relay-thread");
				/* the culprit of the culprit */
				int sub = 0;
				bool loop = false;
				if (depth + 1 < c->p->max_recurse && nchain < 32) {
					chain[nchain] = s.tid;
					struct dg_args y = {s.start, now,       chain, nchain + 1,
					                    pen,     depth + 1, false, &loop};
					sub = dg_explain(c, &s, ARGUS_STALL_LONG_WAIT, &y);
					if (sub < 0)
						return -1;
				}
				if (!sub)
					dg_add_candidate(
					    c, &s, loop ? ARGUS_ROOT_DEADLOCK : ARGUS_ROOT_BLOCKED,
					    pen, depth);
			}
			if (hit)
				found++;
		}
	}
	return found;
}
