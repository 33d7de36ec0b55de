/*
 * tables.c - the pushed source's tables: the strings, stacks, maps and
 * symbols a producer interns, kept so frames symbolize from them; with
 * live_symbols, what they do not name is looked up in the running
 * process's ELF / DWARF.
 */
#include <stdlib.h>
#include <string.h>

#include "session_priv.h"

static uint64_t fnv(const void *p, size_t n, uint64_t salt)
{
	const unsigned char *b = p;
	uint64_t h = 0xcbf29ce484222325ULL ^ salt;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h ? h : 1;
}

static void *grow(void *p, uint32_t *cap, size_t elem)
{
	uint32_t nc = *cap ? *cap * 2 : 64;
	void *q = realloc(p, (size_t)nc * elem);
	if (q)
		*cap = nc;
	return q;
}

static uint32_t dx_string(void *arg, const char *str, size_t len)
{
	struct ptables *dx = &((struct argus_session *)arg)->pt;
	/* equal strings, equal ids: probe by hash, compare the text */
	for (uint64_t salt = 0; salt < 8; salt++) {
		uint64_t h = fnv(str, len, salt);
		uint32_t *id = idmap_get(&dx->str_ix, h);
		if (id) {
			const char *t = dx->strs[*id - 1];
			if (strlen(t) == len && !memcmp(t, str, len))
				return *id;
			continue;
		}
		if (dx->nstr == dx->cstr) {
			char **n = grow(dx->strs, &dx->cstr, sizeof(*n));
			if (!n)
				return 0;
			dx->strs = n;
		}
		char *copy = malloc(len + 1);
		if (!copy)
			return 0;
		memcpy(copy, str, len);
		copy[len] = 0;
		if (!idmap_put(&dx->str_ix, h, dx->nstr + 1)) {
			free(copy);
			return 0;
		}
		dx->strs[dx->nstr++] = copy;
		return dx->nstr;
	}
	return 0;
}

static uint32_t dx_stack(void *arg, const uint64_t *ips, uint32_t depth)
{
	struct argus_session *s = arg;
	struct ptables *dx = &s->pt;
	if (depth > ARGUS_STACK_MAX_DEPTH)
		depth = ARGUS_STACK_MAX_DEPTH;
	for (uint64_t salt = 0; salt < 8; salt++) {
		uint64_t h = fnv(ips, depth * sizeof(*ips), salt);
		uint32_t *id = idmap_get(&dx->stk_ix, h);
		if (id) {
			const struct pstack *t = &dx->stk[*id - 1];
			if (t->depth == depth && !memcmp(t->ips, ips, depth * sizeof(*ips)))
				return *id;
			continue;
		}
		if (dx->nstk == dx->cstk) {
			struct pstack *n = grow(dx->stk, &dx->cstk, sizeof(*n));
			if (!n)
				return 0;
			dx->stk = n;
		}
		uint64_t *copy = malloc((depth ? depth : 1) * sizeof(*ips));
		if (!copy)
			return 0;
		if (depth)
			memcpy(copy, ips, depth * sizeof(*ips));
		if (!idmap_put(&dx->stk_ix, h, dx->nstk + 1)) {
			free(copy);
			return 0;
		}
		dx->stk[dx->nstk++] = (struct pstack){copy, depth};
		argus_graph_add_stack(s->g, dx->nstk, copy, depth);
		return dx->nstk;
	}
	return 0;
}

static int dx_map(void *arg, const struct argus_map *m)
{
	struct ptables *dx = &((struct argus_session *)arg)->pt;
	if (dx->nmaps == dx->cmaps) {
		size_t nc = dx->cmaps ? dx->cmaps * 2 : 64;
		struct argus_map *n = realloc(dx->maps, nc * sizeof(*n));
		if (!n)
			return -1;
		dx->maps = n;
		dx->cmaps = nc;
	}
	dx->maps[dx->nmaps++] = *m;
	dx->tsym_dirty = true;
	return 0;
}

static int dx_symbol(void *arg, const struct argus_symbol *sy)
{
	struct ptables *dx = &((struct argus_session *)arg)->pt;
	if (dx->nsyms == dx->csyms) {
		size_t nc = dx->csyms ? dx->csyms * 2 : 256;
		struct argus_symbol *n = realloc(dx->syms, nc * sizeof(*n));
		if (!n)
			return -1;
		dx->syms = n;
		dx->csyms = nc;
	}
	dx->syms[dx->nsyms++] = *sy;
	dx->tsym_dirty = true;
	return 0;
}

static const char *tab_string(const void *arg, uint32_t id)
{
	const struct ptables *dx = &((const struct argus_session *)arg)->pt;
	return id && id <= dx->nstr ? dx->strs[id - 1] : NULL;
}

const char *session_string(const struct argus_session *s, uint32_t id)
{
	return s->stacks ? argus_trace_string(s->stacks, id) : tab_string(s, id);
}

static bool tab_stack(const void *arg, uint32_t id, struct argus_stack *out)
{
	const struct ptables *dx = &((const struct argus_session *)arg)->pt;
	if (!id || id > dx->nstk)
		return false;
	out->id = id;
	out->ips = dx->stk[id - 1].ips;
	out->depth = dx->stk[id - 1].depth;
	return true;
}

/* Frames: the producer's tables first, then the live process. */
bool ptables_resolve(void *arg, uint32_t pid, uint64_t ip, struct argus_frame *out)
{
	struct argus_session *s = arg;
	struct ptables *dx = &s->pt;
	if (dx->tsym) {
		struct argus_symbolizer t = argus_tsym_symbolizer(dx->tsym);
		if (t.resolve(t.arg, pid, ip, out))
			return true;
	}
	if (dx->elf) {
		struct argus_symbolizer e = argus_elfsym_symbolizer(dx->elf);
		return e.resolve(e.arg, pid, ip, out);
	}
	return false;
}

bool ptables_stack_of(void *arg, uint32_t id, const uint64_t **ips, uint32_t *depth)
{
	struct argus_stack st;
	if (!tab_stack(arg, id, &st))
		return false;
	*ips = st.ips;
	*depth = st.depth;
	return true;
}

/* Before a diagnosis (and every lag): the symbol table over the maps and
 * symbols so far. The ones pushed since the last are sorted into it: the
 * maps are never dropped (an always-on daemon's grow by each exec), and
 * sorting them all again at each lag took longer the longer it ran. */
int ptables_prepare(struct argus_session *s)
{
	struct ptables *dx = &s->pt;
	if (!dx->tsym_dirty)
		return 0;
	if (!dx->tsym) {
		if (argus_tsym_new_tables(&dx->tsym, NULL, 0, NULL, 0, tab_string, tab_stack, s))
			return -1;
		argus_tsym_set_parent(dx->tsym, session_parent, s);
		dx->tsym_maps = dx->tsym_syms = 0;
	}
	/* none pushed yet: the tables are NULL, and NULL + 0 is undefined */
	if (argus_tsym_add_tables(dx->tsym, dx->maps ? dx->maps + dx->tsym_maps : NULL,
	                          dx->nmaps - dx->tsym_maps,
	                          dx->syms ? dx->syms + dx->tsym_syms : NULL,
	                          dx->nsyms - dx->tsym_syms)) {
		argus_tsym_free(dx->tsym); /* made again whole next time */
		dx->tsym = NULL;
		return -1;
	}
	dx->tsym_maps = dx->nmaps;
	dx->tsym_syms = dx->nsyms;
	dx->tsym_dirty = false;
	return 0;
}

void ptables_free(struct ptables *dx)
{
	argus_tsym_free(dx->tsym);
	argus_elfsym_free(dx->elf);
	for (uint32_t i = 0; i < dx->nstr; i++)
		free(dx->strs[i]);
	free(dx->strs);
	for (uint32_t i = 0; i < dx->nstk; i++)
		free(dx->stk[i].ips);
	free(dx->stk);
	idmap_free(&dx->str_ix);
	idmap_free(&dx->stk_ix);
	free(dx->maps);
	free(dx->syms);
}

static int push_events(void *arg, const struct argus_event *ev, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (session_feed(arg, &ev[i]))
			return -1;
	return 0;
}

struct argus_sink argus_session_sink(struct argus_session *s)
{
	struct argus_sink k = {.events = push_events,
	                       .intern_string = dx_string,
	                       .intern_stack = dx_stack,
	                       .map = dx_map,
	                       .symbol = dx_symbol,
	                       .arg = s};
	return k;
}
