/*
 * diag_index.c - the diagnosis's view of the window: the on-CPU samples per
 * thread, the per-thread and by-time indexes of the vertices, similarity,
 * wait lengths, symbols of a culprit, the candidate list.
 */
#include <stdlib.h>
#include <string.h>

#include "diag_priv.h"

/* ---- on-CPU samples per thread ---- */

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
	for (uint32_t i = 0; i < s->n; i++)
		free(s->r[i].s);
	idmap_free(&s->ix);
	free(s->r);
	free(s);
}

/* The rings of threads that exited SAMPLES_KEEP_EXITED_NS before now go
 * (the last ring takes a freed one's slot); looked for once a second. */
static void samples_sweep(struct argus_samples *s, uint64_t now)
{
	if (!s->nexited || now < s->next_sweep)
		return;
	s->next_sweep = now + 1000000000ull;
	for (uint32_t i = 0; i < s->n;) {
		struct sring *r = &s->r[i];
		if (!r->exited || now < r->exited + SAMPLES_KEEP_EXITED_NS) {
			i++;
			continue;
		}
		idmap_del(&s->ix, r->tid);
		free(r->s);
		s->nexited--;
		if (i != --s->n) {
			*r = s->r[s->n];
			/* overwrites a key it holds: cannot fail */
			idmap_put(&s->ix, r->tid, i);
		}
	}
}

static void samples_exit(struct argus_samples *s, const struct argus_event *ev)
{
	uint32_t *ix = idmap_get(&s->ix, ev->tid);
	if (ix && !s->r[*ix].exited) {
		s->r[*ix].exited = ev->ts ? ev->ts : 1;
		s->nexited++;
	}
}

/* One more sample of r (none when there is no memory for its first). */
static void ring_push(struct sring *r, struct sample x)
{
	if (r->n == r->cap && r->cap < SAMPLES_PER_THREAD) {
		uint32_t nc = r->cap ? r->cap * 2 : SAMPLES_FIRST;
		struct sample *ns = realloc(r->s, nc * sizeof(*ns));
		if (ns) { /* full and in order: the next goes after the last */
			r->s = ns;
			r->head = r->n;
			r->cap = nc;
		} else if (!r->cap) {
			return;
		} /* else the oldest is overwritten, as in a full ring */
	}
	r->s[r->head] = x;
	r->head = (r->head + 1) % r->cap;
	if (r->n < r->cap)
		r->n++;
}

void argus_samples_feed(struct argus_samples *s, const struct argus_event *ev, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (ev[i].type == ARGUS_EV_THREAD_EXIT || ev[i].type == ARGUS_EV_PROC_EXIT) {
			samples_exit(s, &ev[i]);
			samples_sweep(s, ev[i].ts);
			continue;
		}
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
			s->r[s->n] = (struct sring){.tid = ev[i].tid};
			ix = idmap_get(&s->ix, ev[i].tid);
			s->n++;
		}
		struct sring *r = &s->r[*ix];
		if (r->exited) { /* the tid is another thread's now */
			r->exited = 0;
			s->nexited--;
		}
		ring_push(r, (struct sample){ev[i].ts, ev[i].stack.ustack,
		                             ev[i].stack.unwind == ARGUS_UNWIND_DWARF});
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
		const struct sample *x = &r->s[(r->head + r->cap - r->n + k) % r->cap];
		if (x->ts >= from && x->ts <= to && x->stack) {
			if (ts)
				ts[n] = x->ts;
			stacks[n++] = x->stack;
		}
	}
	return n;
}

size_t argus_samples_range_full(const struct argus_samples *s, uint32_t tid, uint64_t from,
                                uint64_t to, uint32_t *stacks, size_t cap)
{
	size_t n = 0;
	uint32_t *ix = s ? idmap_get(&s->ix, tid) : NULL;
	if (!ix)
		return 0;
	const struct sring *r = &s->r[*ix];
	for (uint32_t k = 0; k < r->n && n < cap; k++) {
		const struct sample *x = &r->s[(r->head + r->cap - r->n + k) % r->cap];
		if (x->ts >= from && x->ts <= to && x->stack && x->chain)
			stacks[n++] = x->stack;
	}
	return n;
}

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
int dg_build_index(struct ctx *c)
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
size_t dg_time_lower(const struct ctx *c, uint64_t ts)
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
void dg_thread_range(const struct ctx *c, uint32_t tid, size_t *lo, size_t *hi)
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

ssize_t dg_index_of(const struct ctx *c, const struct argus_vertex_info *v)
{
	size_t lo, hi;
	dg_thread_range(c, v->tid, &lo, &hi);
	for (size_t i = lo; i < hi; i++)
		if (c->tv[i].vid == v->id)
			return (ssize_t)i;
	return -1;
}

/* Where the receivers of the messages of the thread's vertex i begin: at
 * the start of the thread's vertex before it. A send is recorded at its
 * syscall's exit, and a batch split at a send begins the new segment there,
 * after the receiver the call already woke opened its segment. */
uint64_t dg_receivers_from(const struct ctx *c, size_t i)
{
	size_t lo, hi;
	dg_thread_range(c, c->tv[i].tid, &lo, &hi);
	return i > lo ? c->tv[i - 1].start : c->tv[i].start;
}

/* The thread's vertex after v (the one its wait woke into), 0 = none. */
argus_vid dg_successor(const struct ctx *c, const struct argus_vertex_info *v)
{
	ssize_t i = dg_index_of(c, v);
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

bool dg_similar(const struct ctx *c, const struct argus_vertex_info *x,
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

/* The frames of stack id that resolve to a function (up to cap). A word
 * that is no function's - a stray value a frame-pointer walk read as a
 * return address in a library built without frame pointers - says nothing
 * about where the call was made. */
static uint32_t code_frames(const struct ctx *c, uint32_t pid, uint32_t id, uint64_t *out,
                            uint32_t cap)
{
	const uint64_t *ips;
	uint32_t depth, n = 0;
	if (!c->sym->stack(c->sym->arg, id, &ips, &depth))
		return UINT32_MAX;
	for (uint32_t i = 0; i < depth && n < cap; i++) {
		struct argus_frame f;
		if (c->sym->resolve(c->sym->arg, pid, ips[i], &f))
			out[n++] = ips[i];
	}
	return n;
}

/* Two waits known to have blocked at different call sites: a syscall that
 * every wait uses (futex) tells calls apart only by where it was made, by
 * the frames of its wait stack that are code. */
bool dg_other_call(const struct ctx *c, const struct argus_vertex_info *x,
                   const struct argus_vertex_info *y)
{
	if (!x->wait_stack || !y->wait_stack || x->wait_stack == y->wait_stack)
		return false;
	if (!c->sym || !c->sym->stack || !c->sym->resolve)
		return true;
	uint64_t fx[32], fy[32];
	uint32_t nx = code_frames(c, x->pid, x->wait_stack, fx, 32);
	uint32_t ny = code_frames(c, y->pid, y->wait_stack, fy, 32);
	if (nx == UINT32_MAX || ny == UINT32_MAX || nx != ny)
		return true;
	return memcmp(fx, fy, nx * sizeof(fx[0])) != 0;
}

/* How long the vertex's ending wait lasted (so far, when still blocked). */
uint64_t dg_wait_len(const struct ctx *c, const struct argus_vertex_info *v, uint64_t now)
{
	if (!(v->flags & ARGUS_VF_WAITED))
		return 0;
	if (v->wait_ns)
		return v->wait_ns;
	return dg_successor(c, v) || now <= v->end ? 0 : now - v->end;
}

/* ---- symbols ---- */

void dg_take_frame(struct argus_culprit *cu, const struct argus_frame *f)
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
void dg_name_vertex(const struct ctx *c, struct argus_culprit *cu, bool prefer_wait)
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
				dg_take_frame(cu, &f);
				return;
			}
			if (!fallback.func[0])
				fallback = f;
		}
	}
	if (fallback.func[0] && !cu->func[0])
		dg_take_frame(cu, &fallback);
}

/* LongRunning: the costly function of the stacks sampled on the thread in
 * [from, to] (argus_costly_function). Returns the samples holding it. */
uint32_t dg_costly_function(const struct ctx *c, uint32_t pid, uint32_t tid, uint64_t from,
                            uint64_t to, struct argus_frame *out, uint32_t *nsamples, bool *whole)
{
	if (whole)
		*whole = false;
	uint32_t stacks[SAMPLES_PER_THREAD], n = 0;
	*nsamples = 0;
	memset(out, 0, sizeof(*out));
	if (!c->samples || !c->sym || !c->sym->stack)
		return 0;
	n = (uint32_t)argus_samples_range(c->samples, tid, from, to, stacks, NULL,
	                                  SAMPLES_PER_THREAD);
	*nsamples = n;
	/* most samples whole call chains: the truth's rule on them (costly-chain) */
	uint32_t chains[SAMPLES_PER_THREAD];
	uint32_t nc = (uint32_t)argus_samples_range_full(c->samples, tid, from, to, chains,
	                                                 SAMPLES_PER_THREAD);
	if (nc && nc * 2 > n) {
		/* the app's own handlers first, as on frame-pointer stacks */
		uint32_t held = argus_costly_callback(c->sym, pid, chains, nc, c->p->costly_share,
		                                      c->p->costly_min_samples, out);
		if (out->func[0]) {
			dg_note(c, "costly-function/app-callback");
			*nsamples = nc;
			if (whole)
				*whole = true;
			return held;
		}
		held = argus_costly_chain(c->sym, pid, chains, nc, c->p->chain_share,
		                                   c->p->costly_min_samples, out);
		if (out->func[0]) {
			dg_note(c, "costly-function/whole-chains");
			*nsamples = nc;
			if (whole)
				*whole = true;
			return held;
		}
	}
	return argus_costly_function(c->sym, pid, stacks, n, c->p->costly_share,
	                             c->p->costly_min_samples, out);
}

void dg_majority_path(const struct ctx *c, uint32_t pid, uint32_t tid, uint64_t from,
                      uint64_t to, char *out, size_t cap)
{
	uint32_t stacks[SAMPLES_PER_THREAD], chains[SAMPLES_PER_THREAD];
	if (cap)
		out[0] = 0;
	if (!c->samples || !c->sym || !c->sym->stack)
		return;
	uint32_t n = (uint32_t)argus_samples_range(c->samples, tid, from, to, stacks, NULL,
	                                           SAMPLES_PER_THREAD);
	uint32_t nc = (uint32_t)argus_samples_range_full(c->samples, tid, from, to, chains,
	                                                 SAMPLES_PER_THREAD);
	if (nc && nc * 2 > n)
		argus_majority_path(c->sym, pid, chains, nc, out, cap);
	else
		argus_majority_path(c->sym, pid, stacks, n, out, cap);
}

/* ---- Algorithm 2 ---- */

void dg_add_candidate(struct ctx *c, const struct argus_vertex_info *v, uint8_t reason,
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
	cu->rule = c->rule;
	dg_step(c, "candidate " ARGUS_VID_FMT " (%u/%u): %s, penalty %d, depth %u, by %s",
	        ARGUS_VID_ARGS(v->id), v->pid, v->tid, argus_root_reason_name(reason), penalty,
	        depth, c->rule ? c->rule : "?");
}

void dg_note(const struct ctx *c, const char *rule)
{
	struct argus_diagnosis *d = c->d;
	if (!d)
		return;
	for (uint32_t i = 0; i < d->nrules_used; i++)
		if (!strcmp(d->rules_used[i], rule))
			return;
	if (d->nrules_used < sizeof(d->rules_used) / sizeof(d->rules_used[0]))
		d->rules_used[d->nrules_used++] = rule;
}

bool dg_in_chain(const uint32_t *chain, uint32_t n, uint32_t tid)
{
	for (uint32_t i = 0; i < n; i++)
		if (chain[i] == tid)
			return true;
	return false;
}
