/*
 * graph_tables.c - the writer's private tables: matching maps (kernel object
 * or hook key -> the vertex that did the first half of a pair), the stack
 * table, and call-stack frame frequencies for the low-frequency symbol rule.
 * Open addressing, linear probing; nothing here is seen by readers.
 */
#include <stdlib.h>
#include <string.h>

#include "graph_internal.h"

static size_t slot_of(const struct gmap *m, uint64_t key)
{
	return mix64(key) & (m->cap - 1);
}

struct gref *gmap_get(struct gmap *m, uint64_t key)
{
	if (!m->cap || !key)
		return NULL;
	for (size_t i = slot_of(m, key);; i = (i + 1) & (m->cap - 1)) {
		if (m->e[i].key == key)
			return &m->e[i];
		if (!m->e[i].key)
			return NULL;
	}
}

static bool grow(struct argus_graph *g, struct gmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64;
	struct gref *e = calloc(cap, sizeof(*e));
	if (!e)
		return false;
	struct gmap n = {e, cap, 0};
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->e[i].key)
			continue;
		size_t j = slot_of(&n, m->e[i].key);
		while (n.e[j].key)
			j = (j + 1) & (cap - 1);
		n.e[j] = m->e[i];
		n.len++;
	}
	g->bytes_tables += (cap - m->cap) * sizeof(*e);
	free(m->e);
	*m = n;
	return true;
}

struct gref *gmap_put(struct argus_graph *g, struct gmap *m, uint64_t key)
{
	struct gref *r = gmap_get(m, key);
	if (r)
		return r;
	if ((m->len + 1) * 2 > m->cap && !grow(g, m))
		return NULL;
	size_t i = slot_of(m, key);
	while (m->e[i].key)
		i = (i + 1) & (m->cap - 1);
	memset(&m->e[i], 0, sizeof(m->e[i]));
	m->e[i].key = key;
	m->len++;
	return &m->e[i];
}

/* Backward-shift deletion keeps probe chains intact without tombstones. */
void gmap_del(struct gmap *m, uint64_t key)
{
	struct gref *r = gmap_get(m, key);
	if (!r)
		return;
	size_t i = (size_t)(r - m->e);
	for (size_t j = (i + 1) & (m->cap - 1); m->e[j].key; j = (j + 1) & (m->cap - 1)) {
		size_t home = slot_of(m, m->e[j].key);
		/* move e[j] into the hole at i when its home is not in (i, j] */
		if (((j - home) & (m->cap - 1)) >= ((j - i) & (m->cap - 1))) {
			m->e[i] = m->e[j];
			i = j;
		}
	}
	m->e[i].key = 0;
	m->len--;
}

/* Drop entries whose vertices have all left the window. */
void gmap_sweep(struct argus_graph *g, struct gmap *m, uint32_t oldest_gen)
{
	(void)g;
	for (size_t i = 0; i < m->cap;) {
		struct gref *r = &m->e[i];
		bool live = false;
		for (uint32_t k = 0; r->key && k < r->n && k < 2; k++)
			if (vid_gen(r->src[k]) - oldest_gen < (1u << 31))
				live = true;
		if (r->key && !live) {
			gmap_del(m, r->key);
			continue; /* a shifted entry may now sit at i */
		}
		i++;
	}
}

void gmap_free(struct gmap *m)
{
	free(m->e);
	memset(m, 0, sizeof(*m));
}

/* ---- stacks ---- */

static size_t stack_slot(const struct argus_graph *g, uint32_t id)
{
	return mix64(id) & (g->stacks_cap - 1);
}

const struct gstack *gstack_get(const struct argus_graph *g, uint32_t id)
{
	if (!g->stacks_cap || !id)
		return NULL;
	for (size_t i = stack_slot(g, id);; i = (i + 1) & (g->stacks_cap - 1)) {
		if (g->stacks[i].id == id)
			return &g->stacks[i];
		if (!g->stacks[i].id)
			return NULL;
	}
}

bool gstack_add(struct argus_graph *g, uint32_t id, const uint64_t *ips, uint32_t depth)
{
	if (!id || gstack_get(g, id))
		return true;
	if ((g->stacks_len + 1) * 2 > g->stacks_cap) {
		size_t cap = g->stacks_cap ? g->stacks_cap * 2 : 256;
		struct gstack *n = calloc(cap, sizeof(*n));
		if (!n)
			return false;
		for (size_t i = 0; i < g->stacks_cap; i++) {
			if (!g->stacks[i].id)
				continue;
			size_t j = mix64(g->stacks[i].id) & (cap - 1);
			while (n[j].id)
				j = (j + 1) & (cap - 1);
			n[j] = g->stacks[i];
		}
		g->stacks_bytes += (cap - g->stacks_cap) * sizeof(*n);
		free(g->stacks);
		g->stacks = n;
		g->stacks_cap = cap;
	}
	if (depth > ARGUS_STACK_MAX_DEPTH)
		depth = ARGUS_STACK_MAX_DEPTH;
	uint64_t *copy = malloc(depth * sizeof(*copy) + 1);
	if (!copy)
		return false;
	memcpy(copy, ips, depth * sizeof(*copy));
	size_t i = stack_slot(g, id);
	while (g->stacks[i].id)
		i = (i + 1) & (g->stacks_cap - 1);
	g->stacks[i] = (struct gstack){id, depth, copy};
	g->stacks_len++;
	g->stacks_bytes += depth * sizeof(*copy);
	return true;
}

/* ---- frame frequencies ---- */

static struct gframe *frame_get(struct argus_graph *g, uint64_t ip, bool add)
{
	if (add && (g->frames_len + 1) * 2 > g->frames_cap) {
		size_t cap = g->frames_cap ? g->frames_cap * 2 : 256;
		struct gframe *n = calloc(cap, sizeof(*n));
		if (!n)
			return NULL;
		for (size_t i = 0; i < g->frames_cap; i++) {
			if (!g->frames[i].ip)
				continue;
			size_t j = mix64(g->frames[i].ip) & (cap - 1);
			while (n[j].ip)
				j = (j + 1) & (cap - 1);
			n[j] = g->frames[i];
		}
		g->bytes_tables += (cap - g->frames_cap) * sizeof(*n);
		free(g->frames);
		g->frames = n;
		g->frames_cap = cap;
	}
	if (!g->frames_cap || !ip)
		return NULL;
	size_t i = mix64(ip) & (g->frames_cap - 1);
	for (;; i = (i + 1) & (g->frames_cap - 1)) {
		if (g->frames[i].ip == ip)
			return &g->frames[i];
		if (!g->frames[i].ip)
			break;
	}
	if (!add)
		return NULL;
	g->frames[i].ip = ip;
	g->frames[i].count = 0;
	g->frames_len++;
	return &g->frames[i];
}

/* A segment referenced this stack: each distinct frame counts once. */
void gframes_count(struct argus_graph *g, uint32_t stack_id)
{
	const struct gstack *s = gstack_get(g, stack_id);
	if (!s)
		return;
	for (uint32_t i = 0; i < s->depth; i++) {
		bool dup = false;
		for (uint32_t k = 0; k < i && !dup; k++)
			dup = s->ips[k] == s->ips[i];
		struct gframe *f = dup ? NULL : frame_get(g, s->ips[i], true);
		if (f && f->count < UINT32_MAX)
			f->count++;
	}
	g->rare_dirty = true;
}

/* Frequencies are over the window: age them as slices leave it. */
void gframes_decay(struct argus_graph *g)
{
	uint32_t n = g->opts.slices ? g->opts.slices : 1;
	for (size_t i = 0; i < g->frames_cap; i++)
		if (g->frames[i].ip)
			g->frames[i].count -= g->frames[i].count / n;
	g->rare_dirty = true;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* The count at the 10th percentile of distinct frames: frames at or below
 * it are "low-frequency" (paper section 5: bottom 10 %). Recomputed when
 * stale, at most once per 4096 events (65536 on a large table). */
static uint32_t rare_threshold(struct argus_graph *g)
{
	if (!g->rare_dirty)
		return g->rare_threshold;
	uint64_t every = g->frames_len > 4096 ? 65536 : 4096;
	if (g->st.events >= every && g->st.events - g->rare_at < every)
		return g->rare_threshold;
	uint32_t *c = malloc(g->frames_len * sizeof(*c) + 1);
	if (!c)
		return g->rare_threshold;
	size_t n = 0;
	for (size_t i = 0; i < g->frames_cap; i++)
		if (g->frames[i].ip)
			c[n++] = g->frames[i].count;
	qsort(c, n, sizeof(*c), cmp_u32);
	/* a shared frame is seen at least twice: the threshold is never below 2 */
	g->rare_threshold = n && c[n / 10] > 2 ? c[n / 10] : 2;
	free(c);
	g->rare_dirty = false;
	g->rare_at = g->st.events;
	return g->rare_threshold;
}

/* Whether stacks a[] and b[] share a frame; *rare when a shared frame is
 * low-frequency. Stacks with unknown frames are skipped. */
bool gframes_share(struct argus_graph *g, const uint32_t *a, size_t na, const uint32_t *b,
                   size_t nb, bool *rare)
{
	bool share = false;
	*rare = false;
	uint32_t thr = rare_threshold(g);
	for (size_t i = 0; i < na; i++) {
		const struct gstack *sa = gstack_get(g, a[i]);
		for (size_t j = 0; sa && j < nb; j++) {
			const struct gstack *sb = gstack_get(g, b[j]);
			for (uint32_t x = 0; sb && x < sa->depth; x++) {
				for (uint32_t y = 0; y < sb->depth; y++) {
					if (sa->ips[x] != sb->ips[y])
						continue;
					share = true;
					struct gframe *f = frame_get(g, sa->ips[x], false);
					if (f && f->count <= thr)
						*rare = true;
				}
			}
		}
	}
	return share;
}

void gtables_free(struct argus_graph *g)
{
	struct gmap *maps[] = {&g->ipc, &g->async, &g->timer, &g->flag,    &g->cond,
	                       &g->sem, &g->dbus,  &g->reply, &g->ipc_wait};
	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++)
		gmap_free(maps[i]);
	for (size_t i = 0; i < g->stacks_cap; i++)
		free(g->stacks[i].ips);
	free(g->stacks);
	free(g->frames);
}
