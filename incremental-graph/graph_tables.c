/*
 * graph_tables.c - the writer's private tables: matching maps (kernel object
 * or hook key -> the vertex that did the first half of a pair), the stack
 * table, and call-stack frame frequencies for the low-frequency symbol rule.
 * All on the one hash table (event/hashmap.h); nothing here is seen by readers.
 */
#include <stdlib.h>
#include <string.h>

#include "graph_internal.h"

/* Grow-aware put: table growth counts toward the graph's memory. */
static void *put_counted(uint64_t *bytes, struct argus_hmap *m, uint64_t key, bool *fresh)
{
	size_t before = argus_hmap_bytes(m);
	void *v = argus_hmap_put(m, key, fresh);
	*bytes += argus_hmap_bytes(m) - before;
	return v;
}

struct gref *gmap_get(struct gmap *m, uint64_t key)
{
	return key ? argus_hmap_get(&m->h, key) : NULL;
}

struct gref *gmap_put(struct argus_graph *g, struct gmap *m, uint64_t key)
{
	if (!key) { /* never found again: a fresh record each time */
		memset(&m->zero, 0, sizeof(m->zero));
		return &m->zero;
	}
	if (!m->h.vsize)
		argus_hmap_init(&m->h, sizeof(struct gref), 64);
	/* growing allocates twice the table's slots while the old ones are
	 * still there: when that would take the graph over its cap, the
	 * table's older entries go first (counted), all of them if need be,
	 * and it grows only if it still must */
	if (m->h.cap && argus_hmap_full(&m->h) && !argus_hmap_get(&m->h, key) &&
	    gw_bytes(g) + 2 * argus_hmap_bytes(&m->h) > g->opts.mem_cap) {
		uint64_t now = atomic_load_explicit(&g->now, memory_order_relaxed);
		uint64_t before = now > g->slice_ns / 2 ? now - g->slice_ns / 2 : 0;
		g->st.table_drops += gmap_drop_before(g, m, before);
		if (m->h.cap && argus_hmap_full(&m->h) &&
		    gw_bytes(g) + 2 * argus_hmap_bytes(&m->h) > g->opts.mem_cap)
			g->st.table_drops += gmap_drop_before(g, m, UINT64_MAX);
	}
	return put_counted(&g->bytes_tables, &m->h, key, NULL);
}

void gmap_del(struct gmap *m, uint64_t key)
{
	if (key)
		argus_hmap_del(&m->h, key);
}

/* Drop entries whose vertices have all left the window, and give their
 * room back (the table's bytes count toward the graph's cap: a flood of
 * keys seen once, a storm's, would otherwise hold the cap forever). */
void gmap_sweep(struct argus_graph *g, struct gmap *m, uint32_t oldest_gen)
{
	size_t pos = 0;
	uint64_t key;
	struct gref *r;
	while ((r = argus_hmap_next(&m->h, &pos, &key))) {
		bool live = false;
		for (uint32_t k = 0; k < r->n && k < 2; k++)
			if (vid_gen(r->src[k]) - oldest_gen < (1u << 31))
				live = true;
		if (!live) {
			argus_hmap_del(&m->h, key);
			pos--; /* a shifted entry may now sit there */
		}
	}
	size_t before = argus_hmap_bytes(&m->h);
	if (argus_hmap_shrink(&m->h))
		g->bytes_tables -= before - argus_hmap_bytes(&m->h);
}

/* Drop entries none of whose halves is at or after t (all when t is past
 * every one), give the room back; the number dropped. */
uint64_t gmap_drop_before(struct argus_graph *g, struct gmap *m, uint64_t t)
{
	size_t pos = 0;
	uint64_t key, n = 0;
	struct gref *r;
	while ((r = argus_hmap_next(&m->h, &pos, &key))) {
		bool recent = false;
		for (uint32_t k = 0; k < r->n && k < 2; k++)
			if (r->ts[k] >= t)
				recent = true;
		if (!recent) {
			argus_hmap_del(&m->h, key);
			pos--;
			n++;
		}
	}
	size_t before = argus_hmap_bytes(&m->h);
	if (argus_hmap_shrink(&m->h))
		g->bytes_tables -= before - argus_hmap_bytes(&m->h);
	return n;
}

void gmap_free(struct gmap *m)
{
	argus_hmap_free(&m->h);
}

/* ---- stacks ---- */

const struct gstack *gstack_get(const struct argus_graph *g, uint32_t id)
{
	return id ? argus_hmap_get(&g->stacks, id) : NULL;
}

bool gstack_add(struct argus_graph *g, uint32_t id, const uint64_t *ips, uint32_t depth)
{
	if (!id || gstack_get(g, id))
		return true;
	if (depth > ARGUS_STACK_MAX_DEPTH)
		depth = ARGUS_STACK_MAX_DEPTH;
	uint64_t *copy = malloc(depth * sizeof(*copy) + 1);
	if (!copy)
		return false;
	memcpy(copy, ips, depth * sizeof(*copy));
	if (!g->stacks.vsize)
		argus_hmap_init(&g->stacks, sizeof(struct gstack), 256);
	struct gstack *s = put_counted(&g->stacks_bytes, &g->stacks, id, NULL);
	if (!s) {
		free(copy);
		return false;
	}
	*s = (struct gstack){depth, copy};
	g->stacks_bytes += depth * sizeof(*copy);
	return true;
}

/* ---- frame frequencies ---- */

static uint32_t *frame_get(struct argus_graph *g, uint64_t ip, bool add)
{
	if (!ip)
		return NULL;
	if (!add)
		return argus_hmap_get(&g->frames, ip);
	if (!g->frames.vsize)
		argus_hmap_init(&g->frames, sizeof(uint32_t), 256);
	bool fresh = false;
	uint32_t *count = put_counted(&g->bytes_tables, &g->frames, ip, &fresh);
	if (count && fresh)
		g->frame_hist[0]++; /* a new frame's count is 0 */
	return count;
}

/* A frame's count goes from was to now: its histogram bucket follows. */
static void frame_hist_move(struct argus_graph *g, uint32_t was, uint32_t now)
{
	if (was < FRAME_HIST)
		g->frame_hist[was]--;
	if (now < FRAME_HIST)
		g->frame_hist[now]++;
}

/* A set of one stack's frames (at most IPSET_MAX), open addressing at
 * half load: whether two stacks share a frame and which frames of a stack
 * repeat, in time linear in their depths - comparing every pair took
 * depth x depth compares (16 k for two full stacks) at every adjacent edge,
 * sample and wait stack. */
#define IPSET_MAX  (ARGUS_STACK_MAX_DEPTH + 1)
#define IPSET_BITS 8
struct ipset {
	uint64_t ip[1u << IPSET_BITS];
	bool used[1u << IPSET_BITS];
};

static void ipset_clear(struct ipset *set)
{
	memset(set->used, 0, sizeof(set->used));
}

/* Adds ip; false when it was there already. */
static bool ipset_add(struct ipset *set, uint64_t ip)
{
	uint32_t mask = (1u << IPSET_BITS) - 1;
	uint32_t h = (uint32_t)((ip * 0x9e3779b97f4a7c15ull) >> (64 - IPSET_BITS));
	for (;; h = (h + 1) & mask) {
		if (!set->used[h]) {
			set->used[h] = true;
			set->ip[h] = ip;
			return true;
		}
		if (set->ip[h] == ip)
			return false;
	}
}

static bool ipset_has(const struct ipset *set, uint64_t ip)
{
	uint32_t mask = (1u << IPSET_BITS) - 1;
	uint32_t h = (uint32_t)((ip * 0x9e3779b97f4a7c15ull) >> (64 - IPSET_BITS));
	for (; set->used[h]; h = (h + 1) & mask)
		if (set->ip[h] == ip)
			return true;
	return false;
}

/* A segment referenced this stack: each distinct frame counts once (at its
 * first place in the stack). */
void gframes_count(struct argus_graph *g, uint32_t stack_id)
{
	const struct gstack *s = gstack_get(g, stack_id);
	if (!s)
		return;
	struct ipset set;
	bool small = s->depth <= IPSET_MAX;
	if (small)
		ipset_clear(&set);
	for (uint32_t i = 0; i < s->depth; i++) {
		bool dup = small ? !ipset_add(&set, s->ips[i]) : false;
		for (uint32_t k = 0; !small && k < i && !dup; k++)
			dup = s->ips[k] == s->ips[i];
		uint32_t *count = dup ? NULL : frame_get(g, s->ips[i], true);
		if (count && *count < UINT32_MAX) {
			frame_hist_move(g, *count, *count + 1);
			(*count)++;
		}
	}
	g->rare_dirty = true;
}

/* Frequencies are over the window: age them as slices leave it. */
void gframes_decay(struct argus_graph *g)
{
	uint32_t n = g->opts.slices ? g->opts.slices : 1;
	size_t pos = 0;
	uint32_t *count;
	while ((count = argus_hmap_next(&g->frames, &pos, NULL))) {
		uint32_t was = *count;
		*count -= was / n;
		frame_hist_move(g, was, *count);
	}
	g->rare_dirty = true;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* The count at index n / 10 of the n frames' counts in ascending order;
 * from the histogram when it is below FRAME_HIST (nearly always: most
 * frames are seen a few times), else by sorting every count. */
static bool percentile10(struct argus_graph *g, uint32_t *out)
{
	size_t n = g->frames.len, seen = 0;
	if (!n) {
		*out = 0;
		return true;
	}
	for (uint32_t v = 0; v < FRAME_HIST; v++) {
		seen += g->frame_hist[v];
		if (seen > n / 10) {
			*out = v;
			return true;
		}
	}
	uint32_t *c = malloc(n * sizeof(*c) + 1);
	if (!c)
		return false;
	size_t k = 0, pos = 0;
	const uint32_t *count;
	while ((count = argus_hmap_next(&g->frames, &pos, NULL)))
		c[k++] = *count;
	qsort(c, k, sizeof(*c), cmp_u32);
	*out = c[n / 10];
	free(c);
	return true;
}

/* The count at the 10th percentile of distinct frames: frames at or below
 * it are "low-frequency" (paper section 5: bottom 10 %). Recomputed when
 * stale, at most once per 4096 events (65536 on a large table) once that
 * many have come; before, whenever it is stale (a start-up's first stacks
 * change it most) - a histogram lookup, not a sort of every count, since
 * a daemon's first 65536 records ask for it at every adjacent edge. */
static uint32_t rare_threshold(struct argus_graph *g)
{
	if (!g->rare_dirty)
		return g->rare_threshold;
	uint64_t every = g->frames.len > 4096 ? 65536 : 4096;
	if (g->st.events >= every && g->st.events - g->rare_at < every)
		return g->rare_threshold;
	uint32_t p;
	if (!percentile10(g, &p))
		return g->rare_threshold;
	/* a shared frame is seen at least twice: the threshold is never below 2 */
	g->rare_threshold = p > 2 ? p : 2;
	g->rare_dirty = false;
	g->rare_at = g->st.events;
	return g->rare_threshold;
}

/* A frame of sa that sb holds too (share); a low-frequency one (true: the
 * answer is known). */
static bool pair_share(struct argus_graph *g, const struct gstack *sa, const struct gstack *sb,
                       struct ipset *set, uint32_t thr, bool *share)
{
	bool small = sb->depth <= IPSET_MAX;
	if (small) {
		ipset_clear(set);
		for (uint32_t y = 0; y < sb->depth; y++)
			ipset_add(set, sb->ips[y]);
	}
	for (uint32_t x = 0; x < sa->depth; x++) {
		bool in = small && ipset_has(set, sa->ips[x]);
		for (uint32_t y = 0; !small && y < sb->depth && !in; y++)
			in = sa->ips[x] == sb->ips[y];
		if (!in)
			continue;
		*share = true;
		const uint32_t *count = frame_get(g, sa->ips[x], false);
		if (count && *count <= thr)
			return true;
	}
	return false;
}

/* Whether stacks a[] and b[] share a frame; *rare when a shared frame is
 * low-frequency. Stacks with unknown frames are skipped. */
bool gframes_share(struct argus_graph *g, const uint32_t *a, size_t na, const uint32_t *b,
                   size_t nb, bool *rare)
{
	bool share = false;
	*rare = false;
	uint32_t thr = rare_threshold(g);
	struct ipset set;
	for (size_t i = 0; i < na; i++) {
		const struct gstack *sa = gstack_get(g, a[i]);
		for (size_t j = 0; sa && j < nb; j++) {
			const struct gstack *sb = gstack_get(g, b[j]);
			if (sb && pair_share(g, sa, sb, &set, thr, &share)) {
				*rare = true;
				return true; /* shared, and rare: nothing changes either */
			}
		}
	}
	return share;
}

void gtables_free(struct argus_graph *g)
{
	struct gmap *maps[] = {&g->ipc, &g->async, &g->timer, &g->flag,     &g->cond,
	                       &g->sem, &g->dbus,  &g->reply, &g->ipc_wait, &g->obj_reader,
	                       &g->listener};
	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++)
		gmap_free(maps[i]);
	size_t pos = 0;
	struct gstack *s;
	while ((s = argus_hmap_next(&g->stacks, &pos, NULL)))
		free(s->ips);
	argus_hmap_free(&g->stacks);
	argus_hmap_free(&g->frames);
}
