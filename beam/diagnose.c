/*
 * diagnose.c - one stall -> one diagnosis (docs/diagnosis.md).
 *
 * LongRunning: the anomaly vertex is the root; the causal path back to the
 * UI input (Algorithm 1) and the costly function (the innermost
 * application function on most of the segment's sampled stacks).
 * LongWait and yield loops: Algorithm 2. A baseline (an earlier, similar
 * vertex of the same thread that behaved differently), the normal causal
 * path that ended its wait (Algorithm 1 from the vertex it woke into, or the
 * baseline itself for a flag loop), and in the stall, the thread on that
 * path that did not do its part; recursively for a culprit that is itself
 * blocked (the culprit of the culprit). Candidates rank by path penalty.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "beam.h"
#include "idmap.h"

/* ---- on-CPU samples per thread ---- */

#define SAMPLES_PER_THREAD 512

struct sample {
	uint64_t ts;
	uint32_t stack;
};

struct sring {
	uint32_t tid, head, n;
	struct sample s[SAMPLES_PER_THREAD];
};

struct argus_samples {
	struct idmap ix;
	struct sring *r;
	uint32_t n, cap;
	bool waits; /* keeps the stacks of blocking waits instead */
};

int argus_samples_new(struct argus_samples **s)
{
	*s = calloc(1, sizeof(**s));
	return *s ? 0 : -1;
}

int argus_samples_new_waits(struct argus_samples **s)
{
	int rc = argus_samples_new(s);
	if (!rc)
		(*s)->waits = true;
	return rc;
}

void argus_samples_free(struct argus_samples *s)
{
	if (!s)
		return;
	idmap_free(&s->ix);
	free(s->r);
	free(s);
}

void argus_samples_feed(struct argus_samples *s, const struct argus_event *ev, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!ev[i].stack.ustack)
			continue;
		if (s->waits ? ev[i].type != ARGUS_EV_STACK || ev[i].stack.kind != ARGUS_STACK_WAIT
		             : ev[i].type != ARGUS_EV_CPU_SAMPLE)
			continue;
		uint32_t *ix = idmap_get(&s->ix, ev[i].tid);
		if (!ix) {
			if (s->n == s->cap) {
				uint32_t nc = s->cap ? s->cap * 2 : 16;
				struct sring *nr = realloc(s->r, nc * sizeof(*nr));
				if (!nr)
					continue; /* no memory: this sample is not kept */
				s->r = nr;
				s->cap = nc;
			}
			if (!idmap_put(&s->ix, ev[i].tid, s->n))
				continue;
			memset(&s->r[s->n], 0, sizeof(s->r[0]));
			s->r[s->n].tid = ev[i].tid;
			ix = idmap_get(&s->ix, ev[i].tid);
			s->n++;
		}
		struct sring *r = &s->r[*ix];
		r->s[r->head] = (struct sample){ev[i].ts, ev[i].stack.ustack};
		r->head = (r->head + 1) % SAMPLES_PER_THREAD;
		if (r->n < SAMPLES_PER_THREAD)
			r->n++;
	}
}

size_t argus_samples_range(const struct argus_samples *s, uint32_t tid, uint64_t from,
                           uint64_t to, uint32_t *stacks, uint64_t *ts, size_t cap)
{
	size_t n = 0;
	uint32_t *ix = s ? idmap_get(&s->ix, tid) : NULL;
	if (!ix)
		return 0;
	const struct sring *r = &s->r[*ix];
	/* oldest first */
	for (uint32_t k = 0; k < r->n && n < cap; k++) {
		const struct sample *x =
		    &r->s[(r->head + SAMPLES_PER_THREAD - r->n + k) % SAMPLES_PER_THREAD];
		if (x->ts >= from && x->ts <= to && x->stack) {
			if (ts)
				ts[n] = x->ts;
			stacks[n++] = x->stack;
		}
	}
	return n;
}

/* ---- names ---- */

const char *argus_algo_name(unsigned algo)
{
	return algo == ARGUS_ALGO_CRITICAL_PATH ? "critical-path" : "beam";
}

const char *argus_root_reason_name(unsigned r)
{
	static const char *const names[] = {"none",           "busy",     "blocked",
	                                    "missing_wakeup", "deadlock", "path_end"};
	return r < sizeof(names) / sizeof(names[0]) ? names[r] : "unknown";
}

/* ---- the per-thread index of the window ---- */

struct tv {
	uint32_t tid, pid;
	uint64_t start;
	argus_vid vid;
};

struct ctx {
	const struct argus_graph_view *view;
	struct argus_beam_graph g;
	const struct argus_beam_params *p;
	const struct argus_symbolizer *sym;
	const struct argus_samples *samples;
	const struct argus_stall *stall;
	enum argus_algo algo;
	struct tv *tv; /* by thread, then start */
	struct tv *tt; /* by start: time-range scans */
	size_t ntv;
	struct argus_culprit cand[32];
	uint32_t ncand;
	argus_vid baseline;
	struct argus_path normal_path;
	bool has_normal;
};

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static int cmp_start(const void *a, const void *b)
{
	const struct tv *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->vid < y->vid ? -1 : x->vid > y->vid;
}

/* Both indexes in O(n): vertices come in creation order, which is their
 * start order (a segment is created when it begins; checked, sorted when
 * not); the per-thread index is a stable counting sort of it by thread.
 * The window can hold millions of vertices: count them first and allocate
 * once (growing by doubling copied and faulted in far more memory), and
 * read only the key of each (copying whole vertices was half the cost). */
static int build_index(struct ctx *c)
{
	size_t cap = 0;
	bool in_order = true;
	for (argus_vid id = argus_graph_next_vertex(c->view, 0); id;
	     id = argus_graph_next_vertex(c->view, id))
		cap++;
	c->tt = malloc((cap ? cap : 1) * sizeof(*c->tt));
	if (!c->tt)
		return -1;
	for (argus_vid id = argus_graph_next_vertex(c->view, 0); id && c->ntv < cap;
	     id = argus_graph_next_vertex(c->view, id)) {
		struct tv t = {.vid = id};
		if (!argus_graph_vertex_key(c->view, id, &t.pid, &t.tid, &t.start))
			continue;
		if (c->ntv && t.start < c->tt[c->ntv - 1].start)
			in_order = false;
		c->tt[c->ntv++] = t;
	}
	if (!in_order)
		qsort(c->tt, c->ntv, sizeof(*c->tt), cmp_start);
	c->tv = malloc((c->ntv ? c->ntv : 1) * sizeof(*c->tv));
	if (!c->tv)
		return -1;
	/* threads in tid order, each thread's vertices in start order */
	struct idmap ix = {0};
	uint32_t *tids = NULL, *count = NULL, nt = 0, ct = 0;
	int rc = -1;
	for (size_t i = 0; i < c->ntv; i++) {
		uint32_t *k = idmap_get(&ix, c->tt[i].tid);
		if (k) {
			count[*k]++;
			continue;
		}
		if (nt == ct) {
			ct = ct ? ct * 2 : 256;
			uint32_t *nt1 = realloc(tids, ct * sizeof(*tids));
			uint32_t *nc1 = nt1 ? realloc(count, ct * sizeof(*count)) : NULL;
			if (nt1)
				tids = nt1;
			if (!nc1)
				goto out;
			count = nc1;
		}
		if (!idmap_put(&ix, c->tt[i].tid, nt))
			goto out;
		tids[nt] = c->tt[i].tid;
		count[nt++] = 1;
	}
	/* order threads by tid: sort the (few) tids, then prefix sums */
	uint32_t *order = malloc((nt ? nt : 1) * sizeof(*order));
	if (!order)
		goto out;
	if (nt)
		memcpy(order, tids, nt * sizeof(*order));
	qsort(order, nt, sizeof(*order), cmp_u32);
	size_t pos = 0;
	for (uint32_t i = 0; i < nt; i++) {
		uint32_t k = *idmap_get(&ix, order[i]);
		uint32_t n = count[k];
		count[k] = (uint32_t)pos;
		pos += n;
	}
	free(order);
	for (size_t i = 0; i < c->ntv; i++)
		c->tv[count[*idmap_get(&ix, c->tt[i].tid)]++] = c->tt[i];
	rc = 0;
out:
	free(tids);
	free(count);
	idmap_free(&ix);
	return rc;
}

/* First entry of the time index starting at or after ts. */
static size_t time_lower(const struct ctx *c, uint64_t ts)
{
	size_t a = 0, b = c->ntv;
	while (a < b) {
		size_t m = (a + b) / 2;
		if (c->tt[m].start < ts)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

/* [lo, hi) of a thread's vertices in the index. */
static void thread_range(const struct ctx *c, uint32_t tid, size_t *lo, size_t *hi)
{
	size_t a = 0, b = c->ntv;
	while (a < b) {
		size_t m = (a + b) / 2;
		if (c->tv[m].tid < tid)
			a = m + 1;
		else
			b = m;
	}
	*lo = a;
	b = c->ntv;
	while (a < b) {
		size_t m = (a + b) / 2;
		if (c->tv[m].tid <= tid)
			a = m + 1;
		else
			b = m;
	}
	*hi = a;
}

static ssize_t index_of(const struct ctx *c, const struct argus_vertex_info *v)
{
	size_t lo, hi;
	thread_range(c, v->tid, &lo, &hi);
	for (size_t i = lo; i < hi; i++)
		if (c->tv[i].vid == v->id)
			return (ssize_t)i;
	return -1;
}

/* Where the receivers of the messages of the thread's vertex i begin: at
 * the start of the thread's vertex before it. A send is recorded at its
 * syscall's exit, and a batch split at a send begins the new segment there,
 * after the receiver the call already woke opened its segment. */
static uint64_t receivers_from(const struct ctx *c, size_t i)
{
	size_t lo, hi;
	thread_range(c, c->tv[i].tid, &lo, &hi);
	return i > lo ? c->tv[i - 1].start : c->tv[i].start;
}

/* The thread's vertex after v (the one its wait woke into), 0 = none. */
static argus_vid successor(const struct ctx *c, const struct argus_vertex_info *v)
{
	ssize_t i = index_of(c, v);
	if (i < 0 || (size_t)i + 1 >= c->ntv || c->tv[i + 1].tid != v->tid)
		return 0;
	return c->tv[i + 1].vid;
}

/* ---- similarity (event-type signature + parameter hashes) ---- */

static uint32_t edit_distance(const uint16_t *a, uint32_t na, const uint16_t *b, uint32_t nb)
{
	uint32_t row[ARGUS_SIG_MAX + 1];
	for (uint32_t j = 0; j <= nb; j++)
		row[j] = j;
	for (uint32_t i = 1; i <= na; i++) {
		uint32_t diag = row[0];
		row[0] = i;
		for (uint32_t j = 1; j <= nb; j++) {
			uint32_t up = row[j];
			uint32_t best = diag + (a[i - 1] != b[j - 1]);
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[nb];
}

static bool similar(const struct ctx *c, const struct argus_vertex_info *x,
                    const struct argus_vertex_info *y)
{
	if (x->pid != y->pid)
		return false;
	uint32_t nx = x->nsig < ARGUS_SIG_MAX ? x->nsig : ARGUS_SIG_MAX;
	uint32_t ny = y->nsig < ARGUS_SIG_MAX ? y->nsig : ARGUS_SIG_MAX;
	if (!nx || !ny)
		return nx == ny && x->sig_hash == y->sig_hash;
	uint32_t mx = nx > ny ? nx : ny;
	uint32_t diff = nx > ny ? nx - ny : ny - nx;
	if (diff > c->p->sim_len * mx)
		return false;
	return edit_distance(x->sig, nx, y->sig, ny) <= c->p->sim_dist * mx;
}

/* Two waits known to have blocked at different call sites: a syscall that
 * every wait uses (futex) tells calls apart only by where it was made. */
static bool other_call(const struct argus_vertex_info *x, const struct argus_vertex_info *y)
{
	return x->wait_stack && y->wait_stack && x->wait_stack != y->wait_stack;
}

/* How long the vertex's ending wait lasted (so far, when still blocked). */
static uint64_t wait_len(const struct ctx *c, const struct argus_vertex_info *v, uint64_t now)
{
	if (!(v->flags & ARGUS_VF_WAITED))
		return 0;
	if (v->wait_ns)
		return v->wait_ns;
	return successor(c, v) || now <= v->end ? 0 : now - v->end;
}

/* ---- symbols ---- */

static void take_frame(struct argus_culprit *cu, const struct argus_frame *f)
{
	snprintf(cu->func, sizeof(cu->func), "%s", f->func);
	snprintf(cu->srcline, sizeof(cu->srcline), "%s", f->srcline);
	snprintf(cu->object, sizeof(cu->object), "%s", f->object);
	cu->system = f->system;
}

/* The innermost application frame of the vertex's stacks (the one at its
 * wait first when prefer_wait); without one, the innermost named frame of
 * the first stack that has any (docs/diagnosis.md "Application code").
 * An application frame already found (the costly function) stays. */
static void name_vertex(const struct ctx *c, struct argus_culprit *cu, bool prefer_wait)
{
	uint32_t ids[2] = {prefer_wait ? cu->v.stack_last : cu->v.stack_first,
	                   prefer_wait ? cu->v.stack_first : cu->v.stack_last};
	if (!c->sym || !c->sym->stack || !c->sym->resolve || (cu->func[0] && !cu->system))
		return;
	struct argus_frame fallback = {.func = ""};
	for (int k = 0; k < 2; k++) {
		const uint64_t *ips;
		uint32_t depth;
		if (!ids[k] || !c->sym->stack(c->sym->arg, ids[k], &ips, &depth))
			continue;
		for (uint32_t i = 0; i < depth; i++) {
			struct argus_frame f;
			if (!c->sym->resolve(c->sym->arg, cu->v.pid, ips[i], &f))
				continue;
			if (!f.system) {
				take_frame(cu, &f);
				return;
			}
			if (!fallback.func[0])
				fallback = f;
		}
	}
	if (fallback.func[0] && !cu->func[0])
		take_frame(cu, &fallback);
}

/* LongRunning: the costly function of the stacks sampled on the thread in
 * [from, to] (argus_costly_function). Returns the samples holding it. */
static uint32_t costly_function(const struct ctx *c, uint32_t pid, uint32_t tid, uint64_t from,
                                uint64_t to, struct argus_frame *out, uint32_t *nsamples)
{
	uint32_t stacks[SAMPLES_PER_THREAD], n = 0;
	*nsamples = 0;
	memset(out, 0, sizeof(*out));
	if (!c->samples || !c->sym || !c->sym->stack)
		return 0;
	n = (uint32_t)argus_samples_range(c->samples, tid, from, to, stacks, NULL,
	                                  SAMPLES_PER_THREAD);
	*nsamples = n;
	return argus_costly_function(c->sym, pid, stacks, n, c->p->costly_share,
	                             c->p->costly_min_samples, out);
}

/* ---- Algorithm 2 ---- */

static void add_candidate(struct ctx *c, const struct argus_vertex_info *v, uint8_t reason,
                          int32_t penalty, uint32_t depth)
{
	for (uint32_t i = 0; i < c->ncand; i++)
		if (c->cand[i].vid == v->id) {
			if (penalty < c->cand[i].penalty)
				c->cand[i].penalty = penalty;
			return;
		}
	if (c->ncand == sizeof(c->cand) / sizeof(c->cand[0]))
		return;
	struct argus_culprit *cu = &c->cand[c->ncand++];
	memset(cu, 0, sizeof(*cu));
	cu->vid = v->id;
	cu->v = *v;
	cu->reason = reason;
	cu->penalty = penalty;
	cu->depth = depth;
}

/* FindSimilarVertices + GetBaseLine: the latest earlier vertex of the
 * thread, similar to a, that behaved differently (its wait ended quickly,
 * or its segment was short for a spinning one). */
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
	ssize_t ai = index_of(c, a);
	if (ai < 0)
		return 0;
	for (size_t i = time_lower(c, receivers_from(c, (size_t)ai));
	     i < c->ntv && c->tt[i].start <= now && n < cap; i++) {
		if (c->tt[i].tid == a->tid)
			continue;
		struct argus_edge_info in[16];
		size_t ne = argus_graph_in_edges(c->view, c->tt[i].vid, in, 16);
		for (size_t k = 0; k < ne && k < 16; k++)
			if (in[k].src == a->id && is_request(in[k].kind)) {
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

/* The latest vertex of a's thread before it (index ai, the thread's first
 * at lo) that behaved differently, matched to a by how. */
static bool scan_baseline(const struct ctx *c, const struct argus_vertex_info *a, ssize_t ai,
                          size_t lo, bool spinning, const uint32_t *pids, uint32_t npids,
                          enum match how, struct argus_vertex_info *out)
{
	uint32_t seen = 0;
	for (ssize_t i = ai - 1; i >= (ssize_t)lo && seen < c->p->max_similar; i--, seen++) {
		struct argus_vertex_info v;
		if (!argus_graph_vertex(c->view, c->tv[i].vid, &v))
			continue;
		if (how == MATCH_SIGNATURE && (!similar(c, a, &v) || other_call(a, &v)))
			continue;
		if (how == MATCH_STACK && v.wait_stack != a->wait_stack)
			continue;
		if (spinning) {
			if (v.end - v.start < c->p->long_wait_ns)
				return *out = v, true;
			continue;
		}
		if ((v.flags & ARGUS_VF_WAITED) && v.wait_kind == a->wait_kind && v.wait_ns &&
		    v.wait_ns < c->p->long_wait_ns &&
		    (!npids || answered_by(c, successor(c, &v), pids, npids)))
			return *out = v, true;
	}
	return false;
}

static bool find_baseline(const struct ctx *c, const struct argus_vertex_info *a, bool spinning,
                          uint64_t now, struct argus_vertex_info *out)
{
	/* the paper compares the peers of connection events: a baseline of a
	 * wait answers the same peers the stalled vertex asked. Not for a
	 * futex wait: a thread of its own process ends it, whatever the vertex
	 * sent before it blocked (a display server's request, say) */
	uint32_t pids[8];
	uint32_t npids =
	    spinning || a->wait_kind == ARGUS_WAIT_FUTEX ? 0 : asked_pids(c, a, now, pids, 8);
	ssize_t ai = index_of(c, a);
	if (ai < 0)
		return false;
	size_t lo, hi;
	thread_range(c, a->tid, &lo, &hi);
	/* by signature first; then by where the wait blocked (what a segment
	 * did before it blocked depends on timing - whether an earlier call
	 * blocked and split it -, the call site does not); then any shape
	 * answered by the peers a asked (the input that led to the wait read
	 * in another batch, a key's press and release together, changes the
	 * segment's shape, not whom it waits for) */
	return scan_baseline(c, a, ai, lo, spinning, pids, npids, MATCH_SIGNATURE, out) ||
	       (!spinning && a->wait_stack &&
	        scan_baseline(c, a, ai, lo, spinning, pids, npids, MATCH_STACK, out)) ||
	       (npids && scan_baseline(c, a, ai, lo, spinning, pids, npids, MATCH_PEERS, out));
}

static bool in_chain(const uint32_t *chain, uint32_t n, uint32_t tid)
{
	for (uint32_t i = 0; i < n; i++)
		if (chain[i] == tid)
			return true;
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
	ssize_t vi = index_of(c, v);
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
static bool find_blocked(const struct ctx *c, const struct argus_vertex_info *v, uint64_t from,
                         uint64_t now, struct argus_vertex_info *out)
{
	size_t lo, hi;
	uint16_t rest = normal_wait_nr(c, v);
	thread_range(c, v->tid, &lo, &hi);
	for (size_t i = lo; i < hi; i++) {
		struct argus_vertex_info x;
		if (c->tv[i].start > now || !argus_graph_vertex(c->view, c->tv[i].vid, &x))
			continue;
		uint64_t w = wait_len(c, &x, now);
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
		    !((v->flags & ARGUS_VF_WAITED) && other_call(&x, v)))
			continue;
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
	thread_range(c, v->tid, &lo, &hi);
	for (size_t i = lo; i < hi; i++) {
		struct argus_vertex_info x;
		if (c->tv[i].start > now || !argus_graph_vertex(c->view, c->tv[i].vid, &x) ||
		    !ran_in(&x, from, now))
			continue;
		if (similar(c, &x, v)) {
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
	for (size_t i = time_lower(c, from); i < c->ntv && c->tt[i].start <= now; i++) {
		if (c->tt[i].pid != pid)
			continue;
		struct argus_edge_info in[16];
		struct argus_vertex_info x;
		size_t n = argus_graph_in_edges(c->view, c->tt[i].vid, in, 16);
		for (size_t k = 0; k < n && k < 16; k++) {
			if (in[k].src != asked_by || !is_request(in[k].kind) ||
			    !argus_graph_vertex(c->view, c->tt[i].vid, &x))
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
	thread_range(c, v->tid, &lo, &hi);
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

static int ipc_peer(struct ctx *c, const struct argus_vertex_info *a, uint64_t from, uint64_t now,
                    uint32_t *chain, uint32_t nchain, int32_t pen0, uint32_t depth);
static int spin_peer(struct ctx *c, const struct argus_vertex_info *a, uint64_t now,
                     uint32_t *chain, uint32_t nchain);

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
		    !argus_graph_vertex(c->view, in[k].src, &src) || src.tid == v.tid)
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

/* Algorithm 2 on anomaly vertex a over [from, now]; chain = the threads
 * already blamed on the way (a's first). Adds candidates; returns how many
 * culprits it found, -1 out of memory. *loops_back: a normal path of a's
 * answer leads back to the stalled thread (it waits on it: a deadlock). */
static int compare(struct ctx *c, const struct argus_vertex_info *a, uint64_t from, uint64_t now,
                   uint32_t *chain, uint32_t nchain, int32_t pen0, uint32_t depth, bool spinning,
                   bool *loops_back)
{
	struct argus_vertex_info base;
	if (!find_baseline(c, a, spinning, now, &base))
		return 0;
	argus_vid target = spinning ? base.id : successor(c, &base);
	if (!target)
		return 0;
	struct argus_path paths[8];
	struct argus_edge_info wake;
	int np;
	if (!spinning && waker_edge(c, target, &wake)) {
		/* the normal path starts with what ended the baseline's wait, not
		 * with whatever else its answer segment went on to receive */
		np = argus_beam_search(&c->g, wake.src, c->p, paths, 8, NULL);
		for (int k = 0; k < np; k++)
			prepend(c, &paths[k], target, &wake);
	} else {
		np = argus_beam_search(&c->g, target, c->p, paths, 8, NULL);
	}
	if (np < 0)
		return -1;
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
	if (depth == 0) {
		c->baseline = base.id;
		if (np > 0) {
			c->normal_path = paths[0];
			c->has_normal = true;
		}
	}
	if (spinning && !flag_seen) {
		/* the flag's writer is unseen: who owes the spinner its answer */
		int r = spin_peer(c, a, now, chain, nchain);
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
				if (in_chain(chain, nchain, v.tid)) {
					if (depth > 0 && v.tid == chain[0] && loops_back)
						*loops_back = true;
					break;
				}
				if (pass == 2) {
					if (asked_vertex(c, v.pid, a->id, from, now, &s) ||
					    find_similar(c, &v, from, now, &s) ||
					    vertex_in_thread(c, &v, from, now, &s)) {
						add_candidate(c, &s, ARGUS_ROOT_MISSING_WAKE, pen,
						              depth);
						hit = true;
					}
					continue;
				}
				if (!find_blocked(c, &v, from, now, &s))
					continue;
				hit = true;
				/* the culprit of the culprit */
				int sub = 0;
				bool loop = false;
				if (depth + 1 < c->p->max_recurse && nchain < 32) {
					chain[nchain] = s.tid;
					sub = ipc_peer(c, &s, s.start, now, chain, nchain + 1, pen,
					               depth + 1);
					if (!sub)
						sub =
						    compare(c, &s, s.start, now, chain, nchain + 1,
						            pen, depth + 1, false, &loop);
					if (sub < 0)
						return -1;
				}
				if (!sub)
					add_candidate(
					    c, &s, loop ? ARGUS_ROOT_DEADLOCK : ARGUS_ROOT_BLOCKED,
					    pen, depth);
			}
			if (hit)
				found++;
		}
	}
	return found;
}

/* ---- the expected waker by IPC identity ---- */

/* The vertex that received the last IPC request a's thread sent before it
 * blocked in a read: a itself, or the segments before it that ended in the
 * same read call (a spurious wake-up - e.g. the peer reading the request
 * wakes the writer on the same socket - cuts the wait in two). */
static bool ipc_asked(const struct ctx *c, const struct argus_vertex_info *a, uint64_t now,
                      struct argus_vertex_info *out)
{
	ssize_t ai = index_of(c, a);
	if (ai < 0)
		return false;
	size_t lo, hi;
	thread_range(c, a->tid, &lo, &hi);
	for (ssize_t i = ai; i >= (ssize_t)lo && i > ai - 4; i--) {
		struct argus_vertex_info s;
		if (!argus_graph_vertex(c->view, c->tv[i].vid, &s))
			break;
		/* the earlier segments of one split read (a spinning a has none) */
		if (i < ai && (!(a->flags & ARGUS_VF_WAITED) || !(s.flags & ARGUS_VF_WAITED) ||
		               s.wait_nr != a->wait_nr || s.wait_ns >= c->p->long_wait_ns))
			break;
		uint64_t best = 0;
		bool found = false;
		for (size_t k = time_lower(c, receivers_from(c, (size_t)i));
		     k < c->ntv && c->tt[k].start <= now; k++) {
			if (c->tt[k].tid == a->tid)
				continue;
			struct argus_edge_info in[16];
			size_t ne = argus_graph_in_edges(c->view, c->tt[k].vid, in, 16);
			for (size_t e = 0; e < ne && e < 16; e++) {
				if (in[e].src != s.id || in[e].strength != ARGUS_STRONG ||
				    (in[e].kind != ARGUS_EDGE_IPC &&
				     in[e].kind != ARGUS_EDGE_DBUS) ||
				    (found && in[e].ts < best) ||
				    !argus_graph_vertex(c->view, c->tt[k].vid, out))
					continue;
				best = in[e].ts;
				found = true;
			}
		}
		if (found)
			return true;
	}
	return false;
}

/* The peer thread of x in [from, now]: blocked long there (out = where), or
 * silent for as long at detection (it neither ran nor answered: stuck in a
 * call whose switch-out record was lost; out = its last vertex). */
static bool peer_stuck(const struct ctx *c, const struct argus_vertex_info *x, uint64_t from,
                       uint64_t now, struct argus_vertex_info *out, bool *silent)
{
	size_t lo, hi;
	bool any = false;
	thread_range(c, x->tid, &lo, &hi);
	*silent = false;
	for (size_t i = lo; i < hi && c->tv[i].start <= now; i++) {
		struct argus_vertex_info v;
		if (c->tv[i].start < x->start || !argus_graph_vertex(c->view, c->tv[i].vid, &v))
			continue;
		uint64_t w = wait_len(c, &v, now);
		uint64_t b0 = v.end > from ? v.end : from, b1 = v.end + w < now ? v.end + w : now;
		if (w && v.end <= now && b1 > b0 && b1 - b0 >= c->p->long_wait_ns)
			return *out = v, true;
		*out = v;
		any = true;
	}
	if (any && out->end < now && now - out->end >= c->p->long_wait_ns &&
	    !(out->flags & ARGUS_VF_WAITED))
		return *silent = true;
	return false;
}

/* A LongWait in a read on an IPC object: the thread at the other end -
 * the one that received the request and owes the answer - is the expected
 * waker. Blocked itself, it is the culprit (recursively: the culprit of the
 * culprit); this holds with no earlier normal run to compare with. Returns
 * the culprits found (0: the rule does not apply), -1 out of memory. */
static int ipc_peer(struct ctx *c, const struct argus_vertex_info *a, uint64_t from, uint64_t now,
                    uint32_t *chain, uint32_t nchain, int32_t pen0, uint32_t depth)
{
	struct argus_vertex_info x, s;
	bool silent;
	if (a->wait_kind != ARGUS_WAIT_READ || !(a->flags & ARGUS_VF_WAITED) ||
	    !ipc_asked(c, a, now, &x) || in_chain(chain, nchain, x.tid) ||
	    !peer_stuck(c, &x, from, now, &s, &silent))
		return 0;
	int32_t pen = pen0 + c->p->a * ARGUS_STRONG + c->p->b;
	int sub = 0;
	bool loop = false;
	if (!silent && depth + 1 < c->p->max_recurse && nchain < 32) {
		chain[nchain] = s.tid;
		sub = ipc_peer(c, &s, s.start, now, chain, nchain + 1, pen, depth + 1);
		if (!sub)
			sub = compare(c, &s, s.start, now, chain, nchain + 1, pen, depth + 1, false,
			              &loop);
		if (sub < 0)
			return -1;
	}
	if (!sub)
		add_candidate(c, &s, loop ? ARGUS_ROOT_DEADLOCK : ARGUS_ROOT_BLOCKED, pen, depth);
	return 1;
}

/* A yield loop spins on a flag some thread should set; its writes are seen
 * only with hooks (flag edges). Without them, the thread that received the
 * spinning segment's last request owes it the answer: blocked in another
 * call than the one it took the request from, it is the culprit (diagnosed
 * again for its own); back in that call, it ran and did not answer (a
 * missing wake-up, at the vertex that received the request). Returns the
 * culprits found (0: no request of it was received), -1 out of memory. */
static int spin_peer(struct ctx *c, const struct argus_vertex_info *a, uint64_t now,
                     uint32_t *chain, uint32_t nchain)
{
	struct argus_vertex_info x, idle, s;
	if (!ipc_asked(c, a, now, &x) || in_chain(chain, nchain, x.tid))
		return 0;
	int32_t pen = c->p->a * ARGUS_STRONG + c->p->b;
	ssize_t xi = index_of(c, &x);
	size_t lo, hi;
	thread_range(c, x.tid, &lo, &hi);
	/* the vertex before x ended in the wait the request came to */
	if (xi > (ssize_t)lo && argus_graph_vertex(c->view, c->tv[xi - 1].vid, &idle) &&
	    find_blocked(c, &idle, x.start, now, &s)) {
		int sub = 0;
		bool loop = false;
		if (c->p->max_recurse > 1 && nchain < 32) {
			chain[nchain] = s.tid;
			sub = ipc_peer(c, &s, s.start, now, chain, nchain + 1, pen, 1);
			if (!sub)
				sub = compare(c, &s, s.start, now, chain, nchain + 1, pen, 1, false,
				              &loop);
			if (sub < 0)
				return -1;
		}
		if (!sub)
			add_candidate(c, &s, loop ? ARGUS_ROOT_DEADLOCK : ARGUS_ROOT_BLOCKED, pen,
			              1);
		return 1;
	}
	add_candidate(c, &x, ARGUS_ROOT_MISSING_WAKE, pen, 0);
	return 1;
}

/* ---- the anomaly vertex ---- */

/* The UI thread's segment overlapping the stall: for a LongWait the one
 * whose wait lasted longest (its wait covered the stall or timed out), else
 * the current one. */
static bool anomaly_vertex(const struct ctx *c, struct argus_vertex_info *out)
{
	size_t lo, hi;
	bool found = false;
	uint64_t best = 0;
	thread_range(c, c->stall->tid, &lo, &hi);
	for (size_t i = hi; i-- > lo;) {
		struct argus_vertex_info v;
		if (c->tv[i].start > c->stall->detected ||
		    !argus_graph_vertex(c->view, c->tv[i].vid, &v))
			continue;
		if (c->stall->cls != ARGUS_STALL_LONG_WAIT)
			return *out = v, true;
		uint64_t w = wait_len(c, &v, c->stall->detected);
		if (!found || w > best) {
			*out = v;
			best = w;
			found = true;
		}
		if (v.end + w < c->stall->since)
			break;
	}
	return found;
}

static int cmp_cand(const void *a, const void *b)
{
	const struct argus_culprit *x = a, *y = b;
	if (x->penalty != y->penalty)
		return x->penalty < y->penalty ? -1 : 1;
	if (x->depth != y->depth) /* deeper = the culprit of the culprit */
		return x->depth > y->depth ? -1 : 1;
	/* a thread seen blocked in the stall beats one that merely did not
	 * wake the waiter (an absence, inferred) */
	bool xb = x->reason == ARGUS_ROOT_BLOCKED || x->reason == ARGUS_ROOT_DEADLOCK;
	bool yb = y->reason == ARGUS_ROOT_BLOCKED || y->reason == ARGUS_ROOT_DEADLOCK;
	if (xb != yb)
		return xb ? -1 : 1;
	return x->vid < y->vid ? -1 : x->vid > y->vid; /* qsort is not stable */
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int argus_diagnose(const struct argus_graph_view *view, const struct argus_stall *stall,
                   const struct argus_beam_params *p, enum argus_algo algo,
                   const struct argus_samples *samples, const struct argus_symbolizer *sym,
                   const char *(*comm)(void *arg, uint32_t pid),
                   const char *(*thread)(void *arg, uint32_t tid), void *comm_arg,
                   struct argus_diagnosis *d)
{
	uint64_t t0 = mono_ns();
	struct ctx c = {
	    .view = view, .p = p, .sym = sym, .samples = samples, .stall = stall, .algo = algo};
	c.g = argus_beam_graph_of_view(view);
	memset(d, 0, sizeof(*d));
	d->stall = *stall;
	d->algo = (uint8_t)algo;
	d->no_weak_edges = p->no_weak_edges;
	if (build_index(&c) < 0) {
		free(c.tv);
		free(c.tt);
		return -1;
	}
	d->vertices_indexed = c.ntv;
	struct argus_vertex_info a;
	if (!anomaly_vertex(&c, &a)) {
		snprintf(d->summary, sizeof(d->summary),
		         "no segment of the UI thread in the window");
		goto done;
	}
	d->anomaly = a.id;
	d->anomaly_v = a;
	uint64_t now = stall->detected;

	if (algo == ARGUS_ALGO_CRITICAL_PATH) {
		argus_critical_path(&c.g, a.id, p, &d->path);
		/* the baseline names the segment that cost most on the path:
		 * the longest on CPU, or the longest wait (critical-path
		 * analysis' usual answer) */
		struct argus_vertex_info best, v;
		uint64_t cost = 0;
		bool have = false;
		for (uint32_t i = 0; i < d->path.n; i++) {
			if (!argus_graph_vertex(view, d->path.v[i], &v))
				continue;
			uint64_t w = wait_len(&c, &v, now);
			uint64_t k = v.oncpu_ns > w ? v.oncpu_ns : w;
			if (!have || k > cost) {
				best = v;
				cost = k;
				have = true;
			}
		}
		if (have)
			add_candidate(&c, &best,
			              best.oncpu_ns >= wait_len(&c, &best, now)
			                  ? ARGUS_ROOT_BUSY
			                  : ARGUS_ROOT_PATH_END,
			              d->path.penalty, 0);
	} else {
		struct argus_path paths[ARGUS_DIAG_CANDIDATES];
		int np = argus_beam_search(&c.g, a.id, p, paths, ARGUS_DIAG_CANDIDATES, NULL);
		if (np < 0) {
			free(c.tv);
			free(c.tt);
			return -1;
		}
		if (np > 0)
			d->path = paths[0];
		if (stall->cls == ARGUS_STALL_LONG_RUNNING) {
			add_candidate(&c, &a, ARGUS_ROOT_BUSY, 0, 0);
		} else {
			uint32_t chain[32] = {a.tid};
			/* the expected waker by IPC identity first; Algorithm 2
			 * when the rule does not apply */
			int r = stall->cls == ARGUS_STALL_YIELD_LOOP
			            ? 0
			            : ipc_peer(&c, &a, stall->since, now, chain, 1, 0, 0);
			if (r == 0)
				r = compare(&c, &a, stall->since, now, chain, 1, 0, 0,
				            stall->cls == ARGUS_STALL_YIELD_LOOP, NULL);
			/* a yield loop with nothing to compare with */
			if (r == 0 && stall->cls == ARGUS_STALL_YIELD_LOOP)
				r = spin_peer(&c, &a, now, chain, 1);
			if (r < 0) {
				free(c.tv);
				free(c.tt);
				return -1;
			}
			if (!c.ncand) /* nothing to compare with: the wait itself */
				add_candidate(&c, &a,
				              stall->cls == ARGUS_STALL_YIELD_LOOP
				                  ? ARGUS_ROOT_BUSY
				                  : ARGUS_ROOT_BLOCKED,
				              0, 0);
		}
	}
	qsort(c.cand, c.ncand, sizeof(c.cand[0]), cmp_cand);
	for (uint32_t i = 0; i < c.ncand && i < ARGUS_DIAG_CANDIDATES; i++) {
		struct argus_culprit *cu = &c.cand[i];
		bool waited = cu->reason == ARGUS_ROOT_BLOCKED || cu->reason == ARGUS_ROOT_DEADLOCK;
		uint32_t ns = 0;
		if (!waited) {
			uint64_t to =
			    cu->v.end > now || (cu->v.flags & ARGUS_VF_OPEN) ? now : cu->v.end;
			struct argus_frame f;
			costly_function(&c, cu->v.pid, cu->v.tid, cu->v.start, to, &f, &ns);
			if (f.func[0])
				take_frame(cu, &f);
		}
		name_vertex(&c, cu, waited);
		d->candidates[d->ncandidates++] = *cu;
	}
	d->baseline = c.baseline;
	if (c.has_normal) {
		d->normal_path = c.normal_path;
		d->has_normal_path = true;
	}
	for (uint32_t k = 0; k < d->path.n; k++)
		argus_graph_vertex(view, d->path.v[k], &d->path_v[k]);
	for (uint32_t k = 0; d->has_normal_path && k < d->normal_path.n; k++)
		argus_graph_vertex(view, d->normal_path.v[k], &d->normal_v[k]);
	if (stall->cls == ARGUS_STALL_LONG_RUNNING) {
		uint64_t to = now;
		/* the stall's time is what the costly function explains: not
		 * the handler's work before the input it left unread */
		uint64_t from = a.start > stall->since ? a.start : stall->since;
		struct argus_frame f;
		d->costly_samples = costly_function(&c, a.pid, a.tid, from, to, &f, &d->samples);
		snprintf(d->costly_func, sizeof(d->costly_func), "%s", f.func);
	}
	if (d->ncandidates) {
		d->root = d->candidates[0];
		const struct argus_culprit *r = &d->root;
		const char *pname = comm ? comm(comm_arg, r->v.pid) : NULL;
		char tname[ARGUS_COMM_LEN + 4], who[64];
		argus_thread_suffix(pname, thread ? thread(comm_arg, r->v.tid) : NULL, tname,
		                    sizeof(tname));
		snprintf(who, sizeof(who), "%s %u/%u%s", pname ? pname : "", r->v.pid, r->v.tid,
		         tname);
		const char *fn = r->func[0] ? r->func : (d->costly_func[0] ? d->costly_func : NULL);
		char in[200] = "";
		if (fn && r->func[0] && r->system) /* not the app's code: say whose */
			snprintf(in, sizeof(in), " in %s (%s)", fn, r->object);
		else if (fn)
			snprintf(in, sizeof(in), " in %s", fn);
		const char *sc = r->v.wait_nr != 0xffff ? argus_syscall_name(r->v.wait_nr) : NULL;
		int n; /* the length snprintf wanted, for truncation below */
		switch (r->reason) {
		case ARGUS_ROOT_BUSY:
			n = snprintf(d->summary, sizeof(d->summary), "%s busy on CPU%s", who, in);
			break;
		case ARGUS_ROOT_BLOCKED:
		case ARGUS_ROOT_DEADLOCK:
			n = snprintf(d->summary, sizeof(d->summary), "%s blocked%s (%s)%s", who, in,
			             sc ? sc : "wait",
			             r->reason == ARGUS_ROOT_DEADLOCK
			                 ? " waiting on the stalled app itself"
			                 : "");
			break;
		case ARGUS_ROOT_MISSING_WAKE:
			n = snprintf(d->summary, sizeof(d->summary),
			             "%s ran%s but did not wake the waiting thread", who,
			             fn ? in + 3 : " its part");
			break;
		default:
			n = snprintf(d->summary, sizeof(d->summary),
			             "%s%s (end of the causal path)", who, in);
		}
		/* a long function or object name: the one line ends in "..." so
		 * a reader sees it was cut (the report has the whole names) */
		if (n >= (int)sizeof(d->summary))
			memcpy(d->summary + sizeof(d->summary) - 4, "...", 4);
	}
done:
	free(c.tv);
	free(c.tt);
	d->diagnose_ns = mono_ns() - t0;
	return 0;
}
