/*
 * graph_window.c - the sliding window: time slices that own their vertices
 * and edges, evicted whole (never object by object), and the views readers
 * pin while the writer goes on.
 *
 * Reclamation: the writer unpublishes an evicted slice (its ring slot goes
 * NULL, oldest_gen moves on), then frees it once no view is open. A reader
 * counts itself in before it loads any slot, so with sequentially consistent
 * operations on both sides either the writer sees the reader, or the reader
 * sees the slot already empty.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "graph_internal.h"

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct gbody *slot_body(struct argus_graph *g, uint32_t gen)
{
	struct gbody *b = atomic_load(&g->slots[gen % NSLOTS].body);
	return b && b->gen == gen ? b : NULL;
}

struct gbody *gw_newest(struct argus_graph *g)
{
	return slot_body(g, atomic_load_explicit(&g->newest_gen, memory_order_relaxed));
}

static struct gbody *body_new(struct argus_graph *g, uint32_t gen, uint64_t ts)
{
	struct gbody *b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->gen = gen;
	b->t0 = ts;
	atomic_init(&b->t1, ts);
	atomic_init(&b->nverts, 0);
	b->bytes = sizeof(*b);
	g->bytes_live += b->bytes;
	return b;
}

static void body_free(struct gbody *b)
{
	for (uint32_t i = 0; i < VDIR && b->dir[i]; i++)
		free(b->dir[i]);
	for (struct gblock *k = b->blocks, *n; k; k = n) {
		n = k->next;
		free(k);
	}
	free(b);
}

/* Open the next slice. Returns false when out of memory (the current slice
 * then keeps growing). */
static bool open_slice(struct argus_graph *g, uint64_t ts)
{
	uint32_t newest = atomic_load_explicit(&g->newest_gen, memory_order_relaxed);
	uint32_t oldest = atomic_load_explicit(&g->oldest_gen, memory_order_relaxed);
	bool empty = !slot_body(g, newest);
	uint32_t gen = empty ? newest : newest + 1;
	if (!empty && gen - oldest >= NSLOTS - 1) {
		/* the ring is full: the oldest slice goes early */
		g->st.cap_hits++;
		gw_evict(g);
	}
	struct gbody *b = body_new(g, gen, ts);
	if (!b)
		return false;
	atomic_store(&g->slots[gen % NSLOTS].body, b);
	atomic_store(&g->newest_gen, gen);
	return true;
}

void gw_maybe_rotate(struct argus_graph *g, uint64_t ts)
{
	struct gbody *b = gw_newest(g);
	if (!b) {
		open_slice(g, ts);
		return;
	}
	atomic_store_explicit(&b->t1, ts, memory_order_relaxed);
	/* a slice ends with its time, or early when it alone holds an eighth of
	 * the cap: the cap then evicts in small enough steps */
	if (ts - b->t0 >= g->slice_ns || b->bytes > g->opts.mem_cap / 8)
		open_slice(g, ts);
}

argus_vid gw_new_vertex(struct argus_graph *g, uint64_t ts, struct gvertex **out)
{
	struct gbody *b = gw_newest(g);
	if (!b || atomic_load_explicit(&b->nverts, memory_order_relaxed) >= VCHUNK * VDIR) {
		if (!open_slice(g, ts))
			return 0;
		b = gw_newest(g);
	}
	uint32_t idx = atomic_load_explicit(&b->nverts, memory_order_relaxed);
	if (idx % VCHUNK == 0 && !b->dir[idx / VCHUNK]) {
		struct gvertex *c = malloc(sizeof(struct gvertex) * VCHUNK);
		if (!c)
			return 0;
		b->dir[idx / VCHUNK] = c;
		b->bytes += sizeof(struct gvertex) * VCHUNK;
		g->bytes_live += sizeof(struct gvertex) * VCHUNK;
	}
	struct gvertex *v = &b->dir[idx / VCHUNK][idx % VCHUNK];
	memset(v, 0, sizeof(*v));
	v->start = ts;
	atomic_init(&v->end, ts);
	atomic_init(&v->in, NULL);
	atomic_init(&v->wait, (uint64_t)ARGUS_WAIT_NONE << 48 | (uint64_t)0xffff << 32);
	*out = v;
	return vid_make(b->gen, idx);
}

/* The caller fills the vertex, then publishes it. */
void gw_publish_vertex(struct argus_graph *g, argus_vid id)
{
	struct gbody *b = slot_body(g, vid_gen(id));
	atomic_store_explicit(&b->nverts, vid_idx(id) + 1, memory_order_release);
}

struct gvertex *gw_vertex(struct argus_graph *g, argus_vid id)
{
	if (!id)
		return NULL;
	uint32_t gen = vid_gen(id), idx = vid_idx(id);
	uint32_t oldest = atomic_load_explicit(&g->oldest_gen, memory_order_relaxed);
	uint32_t newest = atomic_load_explicit(&g->newest_gen, memory_order_relaxed);
	if (gen - oldest > newest - oldest)
		return NULL;
	struct gbody *b = slot_body(g, gen);
	if (!b || idx >= atomic_load_explicit(&b->nverts, memory_order_relaxed))
		return NULL;
	return &b->dir[idx / VCHUNK][idx % VCHUNK];
}

struct gedge *gw_new_edge(struct argus_graph *g)
{
	struct gbody *b = gw_newest(g);
	if (!b)
		return NULL;
	if (b->bump_end - b->bump < (ptrdiff_t)sizeof(struct gedge)) {
		struct gblock *k = malloc(EDGE_BLOCK);
		if (!k)
			return NULL;
		k->next = b->blocks;
		k->size = EDGE_BLOCK;
		b->blocks = k;
		b->bump = (char *)(k + 1);
		b->bump_end = (char *)k + EDGE_BLOCK;
		b->bytes += EDGE_BLOCK;
		g->bytes_live += EDGE_BLOCK;
	}
	struct gedge *e = (struct gedge *)b->bump;
	b->bump += sizeof(struct gedge);
	b->nedges++;
	return e;
}

/* Evict the oldest slice (never the newest). */
static void evict_one(struct argus_graph *g)
{
	uint64_t t = mono_ns();
	uint32_t oldest = atomic_load_explicit(&g->oldest_gen, memory_order_relaxed);
	struct gbody *b = slot_body(g, oldest);
	atomic_store(&g->slots[oldest % NSLOTS].body, NULL);
	atomic_store(&g->oldest_gen, oldest + 1);
	if (b) {
		g->bytes_live -= b->bytes;
		b->retired_next = g->retired;
		g->retired = b;
	}
	g->st.slices_evicted++;
	gframes_decay(g);
	gw_reclaim(g);
	uint64_t d = mono_ns() - t;
	g->st.evict_ns += d;
	if (d > g->st.evict_max_ns)
		g->st.evict_max_ns = d;
}

void gw_evict(struct argus_graph *g)
{
	uint32_t oldest = atomic_load_explicit(&g->oldest_gen, memory_order_relaxed);
	uint32_t newest = atomic_load_explicit(&g->newest_gen, memory_order_relaxed);
	if (oldest != newest)
		evict_one(g);
}

/* Evict what fell out of the window, and what the memory cap cannot hold. */
void gw_check_window(struct argus_graph *g)
{
	uint64_t now = atomic_load_explicit(&g->now, memory_order_relaxed);
	for (;;) {
		uint32_t oldest = atomic_load_explicit(&g->oldest_gen, memory_order_relaxed);
		uint32_t newest = atomic_load_explicit(&g->newest_gen, memory_order_relaxed);
		if (oldest == newest) {
			/* nothing left to evict: what holds the cap is the
			 * matching tables (a flood of keys never matched) */
			if (gw_bytes(g) > g->opts.mem_cap)
				gr_drop_tables(g);
			break;
		}
		struct gbody *b = slot_body(g, oldest);
		uint64_t t1 = b ? atomic_load_explicit(&b->t1, memory_order_relaxed) : 0;
		if (now > g->opts.window_ns && t1 < now - g->opts.window_ns) {
			evict_one(g);
		} else if (gw_bytes(g) > g->opts.mem_cap) {
			g->st.cap_hits++;
			g->st.window_shortened = true;
			evict_one(g);
			/* the slice's entries in the matching tables go with it:
			 * their room counts toward the cap too */
			gr_sweep_tables(g);
		} else {
			break;
		}
	}
	if (g->st.window_shortened) {
		/* the cap no longer binds once the held span reaches the window */
		uint32_t oldest = atomic_load_explicit(&g->oldest_gen, memory_order_relaxed);
		struct gbody *b = slot_body(g, oldest);
		if (b && now - b->t0 >= g->opts.window_ns)
			g->st.window_shortened = false;
	}
}

/* Free evicted slices once no view can reach them. */
void gw_reclaim(struct argus_graph *g)
{
	if (!g->retired || atomic_load(&g->readers) != 0)
		return;
	for (struct gbody *b = g->retired, *n; b; b = n) {
		n = b->retired_next;
		body_free(b);
	}
	g->retired = NULL;
}

void gw_free_all(struct argus_graph *g)
{
	for (unsigned i = 0; i < NSLOTS; i++) {
		struct gbody *b = atomic_load(&g->slots[i].body);
		if (b)
			body_free(b);
	}
	for (struct gbody *b = g->retired, *n; b; b = n) {
		n = b->retired_next;
		body_free(b);
	}
}

uint64_t gw_bytes(const struct argus_graph *g)
{
	return g->bytes_live + g->bytes_tables + g->stacks_bytes;
}

void gw_fill_stats(struct argus_graph *g, struct argus_graph_stats *st)
{
	uint32_t oldest = atomic_load_explicit(&g->oldest_gen, memory_order_relaxed);
	uint32_t newest = atomic_load_explicit(&g->newest_gen, memory_order_relaxed);
	st->events_held = st->vertices_held = st->edges_held = 0;
	uint64_t t0 = 0;
	for (uint32_t gen = oldest; gen - oldest <= newest - oldest; gen++) {
		struct gbody *b = slot_body(g, gen);
		if (!b)
			continue;
		if (!t0)
			t0 = b->t0;
		st->events_held += b->events;
		st->vertices_held += atomic_load_explicit(&b->nverts, memory_order_relaxed);
		st->edges_held += b->nedges;
	}
	st->bytes_held = gw_bytes(g);
	st->mem_cap = g->opts.mem_cap;
	st->window_ns = g->opts.window_ns;
	st->now = atomic_load_explicit(&g->now, memory_order_relaxed);
	st->window_held_ns = t0 && st->now > t0 ? st->now - t0 : 0;
}

/* ---- readers ---- */

struct vsnap {
	struct gbody *body;
	uint32_t nverts;
};

void argus_graph_view_begin(struct argus_graph *g, struct argus_graph_view *v)
{
	memset(v, 0, sizeof(*v));
	v->g = g;
	atomic_fetch_add(&g->readers, 1);
	v->now = atomic_load(&g->now);
	v->oldest_gen = atomic_load(&g->oldest_gen);
	v->newest_gen = atomic_load(&g->newest_gen);
	uint32_t n = v->newest_gen - v->oldest_gen + 1;
	if (n > NSLOTS)
		n = NSLOTS;
	struct vsnap *s = calloc(n, sizeof(*s));
	if (!s) {
		v->newest_gen = v->oldest_gen - 1; /* an empty view */
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		struct gbody *b = slot_body(g, v->oldest_gen + i);
		if (!b)
			continue;
		s[i].body = b;
		s[i].nverts = atomic_load_explicit(&b->nverts, memory_order_acquire);
	}
	v->snap = s;
}

void argus_graph_view_end(struct argus_graph_view *v)
{
	if (!v->g)
		return;
	free(v->snap);
	atomic_fetch_sub(&v->g->readers, 1);
	v->g = NULL;
	v->snap = NULL;
}

static const struct gvertex *view_vertex(const struct argus_graph_view *v, argus_vid id)
{
	if (!id || !v->snap)
		return NULL;
	uint32_t gen = vid_gen(id), idx = vid_idx(id);
	if (gen - v->oldest_gen > v->newest_gen - v->oldest_gen)
		return NULL;
	const struct vsnap *s = &((const struct vsnap *)v->snap)[gen - v->oldest_gen];
	if (!s->body || idx >= s->nverts)
		return NULL;
	return &s->body->dir[idx / VCHUNK][idx % VCHUNK];
}

bool argus_graph_vertex(const struct argus_graph_view *v, argus_vid id,
                        struct argus_vertex_info *out)
{
	const struct gvertex *x = view_vertex(v, id);
	if (!x)
		return false;
	memset(out, 0, sizeof(*out));
	out->id = id;
	out->prev = x->prev;
	out->pid = x->pid;
	out->tid = x->tid;
	out->start = x->start;
	out->end = atomic_load_explicit(&x->end, memory_order_relaxed);
	out->oncpu_ns = atomic_load_explicit(&x->oncpu_ns, memory_order_relaxed);
	out->flags = atomic_load_explicit(&x->flags, memory_order_relaxed);
	out->split = x->split;
	uint64_t w = atomic_load_explicit(&x->wait, memory_order_relaxed);
	out->wait_kind = (uint8_t)(w >> 48);
	out->wait_nr = (uint16_t)(w >> 32);
	out->wait_ret = (int32_t)(uint32_t)w;
	out->wait_ns = atomic_load_explicit(&x->wait_ns, memory_order_relaxed);
	out->nevents = atomic_load_explicit(&x->nevents, memory_order_relaxed);
	out->sig_hash = atomic_load_explicit(&x->sig_hash, memory_order_relaxed);
	out->nsig = atomic_load_explicit(&x->nsig, memory_order_acquire);
	memcpy(out->sig, x->sig, out->nsig * sizeof(x->sig[0]));
	out->nsys = atomic_load_explicit(&x->nsys, memory_order_relaxed);
	out->sys_set = atomic_load_explicit(&x->sys_set, memory_order_relaxed);
	uint64_t ls = atomic_load_explicit(&x->long_sys, memory_order_relaxed);
	out->long_sys_nr = ls ? (uint16_t)(ls >> 48) : 0xffff;
	out->long_sys_ns = ls & ((1ull << 48) - 1);
	out->stack_first = atomic_load_explicit(&x->stack_first, memory_order_relaxed);
	out->stack_last = atomic_load_explicit(&x->stack_last, memory_order_relaxed);
	out->wait_stack = atomic_load_explicit(&x->wait_stack, memory_order_relaxed);
	out->send_reader = atomic_load_explicit(&x->send_reader, memory_order_relaxed);
	return true;
}

bool argus_graph_vertex_key(const struct argus_graph_view *v, argus_vid id, uint32_t *pid,
                            uint32_t *tid, uint64_t *start)
{
	const struct gvertex *x = view_vertex(v, id);
	if (!x)
		return false;
	*pid = x->pid;
	*tid = x->tid;
	*start = x->start;
	return true;
}

size_t argus_graph_in_edges(const struct argus_graph_view *v, argus_vid id,
                            struct argus_edge_info *out, size_t cap)
{
	const struct gvertex *x = view_vertex(v, id);
	if (!x)
		return 0;
	size_t n = 0;
	for (const struct gedge *e = atomic_load_explicit(&x->in, memory_order_acquire); e;
	     e = e->next) {
		if (n < cap) {
			out[n].src = e->src;
			out[n].dst = id;
			out[n].ts = e->ts;
			out[n].kind = e->kind;
			out[n].strength = e->strength;
		}
		n++;
	}
	return n;
}

argus_vid argus_graph_next_vertex(const struct argus_graph_view *v, argus_vid prev)
{
	if (!v->snap)
		return 0;
	uint32_t gen = prev ? vid_gen(prev) : v->oldest_gen;
	uint32_t idx = prev ? vid_idx(prev) + 1 : 0;
	const struct vsnap *s = v->snap;
	for (; gen - v->oldest_gen <= v->newest_gen - v->oldest_gen; gen++, idx = 0) {
		const struct vsnap *x = &s[gen - v->oldest_gen];
		if (x->body && idx < x->nverts)
			return vid_make(gen, idx);
	}
	return 0;
}
