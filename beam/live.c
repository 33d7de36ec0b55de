/*
 * live.c - the always-on diagnoser: a struct argus_sink that a producer
 * (the daemon's merged stream, `argus synth`) writes to. Every record goes
 * to the graph, the sample store and the trigger; a stall is diagnosed the
 * moment it fires and handed to a callback (the notification, the JSON
 * stream). It keeps the string, stack, map and symbol tables the producer
 * interns, so frames symbolize from them; with live_symbols, what they do
 * not name is looked up in the running process's ELF / DWARF.
 */
#include <stdlib.h>
#include <string.h>

#include "beam.h"
#include "idmap.h"

struct dstack {
	uint64_t *ips;
	uint32_t depth;
};

struct argus_diagnoser {
	struct argus_offline_opts o;
	struct argus_diagnoser_cb cb;
	bool live_symbols;
	struct argus_graph *g;
	struct argus_trigger *trig;
	struct argus_samples *smp;
	/* the producer's tables; ids are 1-based indexes */
	char **strs;
	uint32_t nstr, cstr;
	struct idmap str_ix; /* hash -> id */
	struct dstack *stk;
	uint32_t nstk, cstk;
	struct idmap stk_ix;
	struct argus_map *maps;
	size_t nmaps, cmaps;
	struct argus_symbol *syms;
	size_t nsyms, csyms;
	struct argus_tsym *tsym; /* rebuilt when maps / symbols changed */
	bool tsym_dirty;
	struct argus_elfsym *elf;
	struct argus_stall fired[8];
	uint32_t nfired;
	struct argus_diagnoser_stats st;
	struct argus_diagnosis d; /* scratch: large */
};

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

static uint32_t dx_string(void *arg, const char *s, size_t len)
{
	struct argus_diagnoser *dx = arg;
	/* equal strings, equal ids: probe by hash, compare the text */
	for (uint64_t salt = 0; salt < 8; salt++) {
		uint64_t h = fnv(s, len, salt);
		uint32_t *id = idmap_get(&dx->str_ix, h);
		if (id) {
			const char *t = dx->strs[*id - 1];
			if (strlen(t) == len && !memcmp(t, s, len))
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
		memcpy(copy, s, len);
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
	struct argus_diagnoser *dx = arg;
	if (depth > ARGUS_STACK_MAX_DEPTH)
		depth = ARGUS_STACK_MAX_DEPTH;
	for (uint64_t salt = 0; salt < 8; salt++) {
		uint64_t h = fnv(ips, depth * sizeof(*ips), salt);
		uint32_t *id = idmap_get(&dx->stk_ix, h);
		if (id) {
			const struct dstack *t = &dx->stk[*id - 1];
			if (t->depth == depth && !memcmp(t->ips, ips, depth * sizeof(*ips)))
				return *id;
			continue;
		}
		if (dx->nstk == dx->cstk) {
			struct dstack *n = grow(dx->stk, &dx->cstk, sizeof(*n));
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
		dx->stk[dx->nstk++] = (struct dstack){copy, depth};
		argus_graph_add_stack(dx->g, dx->nstk, copy, depth);
		return dx->nstk;
	}
	return 0;
}

static int dx_map(void *arg, const struct argus_map *m)
{
	struct argus_diagnoser *dx = arg;
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

static int dx_symbol(void *arg, const struct argus_symbol *s)
{
	struct argus_diagnoser *dx = arg;
	if (dx->nsyms == dx->csyms) {
		size_t nc = dx->csyms ? dx->csyms * 2 : 256;
		struct argus_symbol *n = realloc(dx->syms, nc * sizeof(*n));
		if (!n)
			return -1;
		dx->syms = n;
		dx->csyms = nc;
	}
	dx->syms[dx->nsyms++] = *s;
	dx->tsym_dirty = true;
	return 0;
}

static const char *tab_string(const void *arg, uint32_t id)
{
	const struct argus_diagnoser *dx = arg;
	return id && id <= dx->nstr ? dx->strs[id - 1] : NULL;
}

static bool tab_stack(const void *arg, uint32_t id, struct argus_stack *out)
{
	const struct argus_diagnoser *dx = arg;
	if (!id || id > dx->nstk)
		return false;
	out->id = id;
	out->ips = dx->stk[id - 1].ips;
	out->depth = dx->stk[id - 1].depth;
	return true;
}

/* Frames: the producer's tables first, then the live process. */
static bool dx_resolve(void *arg, uint32_t pid, uint64_t ip, struct argus_frame *out)
{
	struct argus_diagnoser *dx = arg;
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

static bool dx_stack_of(void *arg, uint32_t id, const uint64_t **ips, uint32_t *depth)
{
	struct argus_stack st;
	if (!tab_stack(arg, id, &st))
		return false;
	*ips = st.ips;
	*depth = st.depth;
	return true;
}

static const char *dx_comm(void *arg, uint32_t pid)
{
	return argus_trigger_comm(arg, pid);
}

static const char *dx_thread_comm(void *arg, uint32_t tid)
{
	return argus_trigger_thread_comm(arg, tid);
}

static void on_stall(void *arg, const struct argus_stall *s)
{
	struct argus_diagnoser *dx = arg;
	if (dx->nfired < 8)
		dx->fired[dx->nfired++] = *s;
	else
		dx->st.stalls_dropped++;
}

static void on_stall_end(void *arg, const struct argus_stall *s)
{
	struct argus_diagnoser *dx = arg;
	if (dx->cb.stall_end)
		dx->cb.stall_end(dx->cb.arg, s);
}

static int diagnose_fired(struct argus_diagnoser *dx)
{
	if (dx->tsym_dirty) {
		argus_tsym_free(dx->tsym);
		dx->tsym = NULL;
		if (argus_tsym_new_tables(&dx->tsym, dx->maps, dx->nmaps, dx->syms, dx->nsyms,
		                          tab_string, tab_stack, dx))
			return -1;
		dx->tsym_dirty = false;
	}
	struct argus_symbolizer sy = {dx_resolve, dx_stack_of, dx};
	for (uint32_t i = 0; i < dx->nfired; i++) {
		struct argus_graph_view v;
		argus_graph_view_begin(dx->g, &v);
		int rc = argus_diagnose(&v, &dx->fired[i], &dx->o.beam, dx->o.algo, dx->smp, &sy,
		                        dx_comm, dx_thread_comm, dx->trig, &dx->d);
		argus_graph_view_end(&v);
		if (rc)
			return -1;
		dx->st.diagnoses++;
		if (dx->cb.diagnosis)
			dx->cb.diagnosis(dx->cb.arg, &dx->d);
	}
	dx->nfired = 0;
	return 0;
}

static int dx_events(void *arg, const struct argus_event *ev, size_t n)
{
	struct argus_diagnoser *dx = arg;
	for (size_t i = 0; i < n; i++) {
		if (argus_graph_ingest(dx->g, &ev[i], 1))
			return -1;
		argus_samples_feed(dx->smp, &ev[i], 1);
		argus_trigger_feed(dx->trig, &ev[i], 1);
		dx->st.events++;
		if (dx->nfired && diagnose_fired(dx))
			return -1;
	}
	return 0;
}

void argus_diagnoser_tick(struct argus_diagnoser *dx, uint64_t now)
{
	argus_trigger_advance(dx->trig, now);
	if (dx->nfired)
		diagnose_fired(dx);
}

int argus_diagnoser_new(struct argus_diagnoser **out, const struct argus_offline_opts *o,
                        bool live_symbols, const struct argus_diagnoser_cb *cb)
{
	struct argus_diagnoser *dx = calloc(1, sizeof(*dx));
	if (!dx)
		return -1;
	if (o)
		dx->o = *o;
	else
		argus_offline_opts_default(&dx->o);
	if (cb)
		dx->cb = *cb;
	dx->live_symbols = live_symbols;
	struct argus_trigger_cb tcb = {on_stall, on_stall_end, NULL, dx};
	if (argus_graph_new(&dx->g, &dx->o.graph) || argus_samples_new(&dx->smp) ||
	    argus_trigger_new(&dx->trig, &dx->o.trigger, &tcb) ||
	    (live_symbols && argus_elfsym_new(&dx->elf, NULL))) {
		argus_diagnoser_free(dx);
		return -1;
	}
	*out = dx;
	return 0;
}

void argus_diagnoser_free(struct argus_diagnoser *dx)
{
	if (!dx)
		return;
	argus_graph_free(dx->g);
	argus_trigger_free(dx->trig);
	argus_samples_free(dx->smp);
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
	free(dx);
}

struct argus_sink argus_diagnoser_sink(struct argus_diagnoser *dx)
{
	struct argus_sink s = {.events = dx_events,
	                       .intern_string = dx_string,
	                       .intern_stack = dx_stack,
	                       .map = dx_map,
	                       .symbol = dx_symbol,
	                       .arg = dx};
	return s;
}

void argus_diagnoser_get_stats(const struct argus_diagnoser *dx, struct argus_diagnoser_stats *st)
{
	*st = dx->st;
	argus_trigger_get_stats(dx->trig, &st->trigger);
}

const char *argus_diagnoser_comm(void *dx, uint32_t pid)
{
	return argus_trigger_comm(((struct argus_diagnoser *)dx)->trig, pid);
}

const char *argus_diagnoser_thread_comm(void *dx, uint32_t tid)
{
	return argus_trigger_thread_comm(((struct argus_diagnoser *)dx)->trig, tid);
}

struct argus_graph *argus_diagnoser_graph(struct argus_diagnoser *dx)
{
	return dx->g;
}
