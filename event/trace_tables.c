/*
 * The trace reader's tables: string, stack, map, build-id, symbol and truth
 * tables loaded from their blocks (each fault costs only its block), the
 * lookups over them, and the reader's small containers and fault list.
 * Format: docs/trace-format.md.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_read_priv.h"

static const char *const kind_names[] = {
    [TF_EVENTS] = "event chunk",        [TF_STRINGS] = "string table",
    [TF_STACKS] = "stack table",        [TF_MAPS] = "map table",
    [TF_BUILD_IDS] = "build-id table",  [TF_SYMBOLS] = "symbol table",
    [TF_TRUTHS] = "ground-truth table", [TF_INDEX] = "index",
    [TF_TRAILER] = "trailer",
};

const char *tr_kind_name(unsigned k)
{
	return k < sizeof(kind_names) / sizeof(kind_names[0]) && kind_names[k] ? kind_names[k]
	                                                                       : "unknown block";
}

/* ---- small containers ---- */

void *tr_vec_push(struct vec *v, size_t item)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 16;
		void *p = realloc(v->p, cap * item);
		if (!p)
			return NULL;
		v->p = p;
		v->cap = cap;
	}
	return (uint8_t *)v->p + v->n++ * item;
}

void *tr_arena_alloc(struct argus_trace_reader *r, size_t n)
{
	n = (n + 7) & ~(size_t)7;
	struct arena_blk *b = r->arena;
	if (!b || b->cap - b->used < n) {
		size_t cap = n > ARENA_BLOCK ? n : ARENA_BLOCK;
		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->next = r->arena;
		b->used = 0;
		b->cap = cap;
		r->arena = b;
	}
	void *p = b->data + b->used;
	b->used += n;
	return p;
}

/* ---- faults ---- */

void tr_add_fault(struct argus_trace_reader *r, int code, uint64_t off, const char *fmt, ...)
{
	r->health.faults++;
	if (r->nfaults >= MAX_FAULTS_KEPT)
		return;
	if (r->nfaults == r->faults_cap) {
		size_t cap = r->faults_cap ? r->faults_cap * 2 : 16;
		struct argus_trace_error *f = realloc(r->faults, cap * sizeof(*f));
		if (!f)
			return;
		r->faults = f;
		r->faults_cap = cap;
	}
	char what[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	/* keep undelivered faults in file order */
	size_t i = r->nfaults++;
	while (i > r->fault_next && r->faults[i - 1].offset > off) {
		r->faults[i] = r->faults[i - 1];
		i--;
	}
	tf_error(&r->faults[i], code, r->name, off, "%s", what);
}

/* ---- tables ---- */

static int cmp_u32(uint32_t a, uint32_t b)
{
	return a < b ? -1 : a > b;
}

static void load_strings(struct argus_trace_reader *r, uint64_t off, const uint8_t *p, size_t n,
                         uint32_t count)
{
	size_t pos = 0;
	for (uint32_t i = 0; i < count; i++) {
		struct tf_str_ent e;
		if (n - pos < sizeof(e)) {
			tr_add_fault(r, ARGUS_TRACE_ECORRUPT, off,
			             "string table ends inside entry %u", i);
			return;
		}
		memcpy(&e, p + pos, sizeof(e));
		pos += sizeof(e);
		if (e.len > n - pos) {
			tr_add_fault(r, ARGUS_TRACE_ECORRUPT, off,
			             "string %u longer than its table", e.id);
			return;
		}
		const struct strref *last =
		    r->strings.n ? (const struct strref *)r->strings.p + r->strings.n - 1 : NULL;
		if (!e.id || (last && e.id <= last->id)) {
			tr_add_fault(r, ARGUS_TRACE_ECORRUPT, off, "string id %u out of order",
			             e.id);
			return;
		}
		char *s = tr_arena_alloc(r, (size_t)e.len + 1);
		struct strref *ref = s ? tr_vec_push(&r->strings, sizeof(*ref)) : NULL;
		if (!ref) {
			tr_add_fault(r, ARGUS_TRACE_ENOMEM, off, "out of memory for strings");
			return;
		}
		memcpy(s, p + pos, e.len);
		s[e.len] = '\0';
		*ref = (struct strref){e.id, s};
		pos += e.len;
	}
	if (pos != n)
		tr_add_fault(r, ARGUS_TRACE_ECORRUPT, off, "string table has %zu trailing bytes",
		             n - pos);
}

static void load_stacks(struct argus_trace_reader *r, uint64_t off, const uint8_t *p, size_t n,
                        uint32_t count)
{
	size_t pos = 0;
	for (uint32_t i = 0; i < count; i++) {
		struct tf_stack_ent e;
		if (n - pos < sizeof(e)) {
			tr_add_fault(r, ARGUS_TRACE_ECORRUPT, off,
			             "stack table ends inside entry %u", i);
			return;
		}
		memcpy(&e, p + pos, sizeof(e));
		pos += sizeof(e);
		if (e.depth > ARGUS_STACK_MAX_DEPTH || (size_t)e.depth * 8 > n - pos) {
			tr_add_fault(r, ARGUS_TRACE_ECORRUPT, off, "stack %u has a bad depth %u",
			             e.id, e.depth);
			return;
		}
		const struct stackref *last =
		    r->stacks.n ? (const struct stackref *)r->stacks.p + r->stacks.n - 1 : NULL;
		if (!e.id || (last && e.id <= last->id)) {
			tr_add_fault(r, ARGUS_TRACE_ECORRUPT, off, "stack id %u out of order",
			             e.id);
			return;
		}
		uint64_t *ips = tr_arena_alloc(r, (size_t)e.depth * 8 + 8);
		struct stackref *ref = ips ? tr_vec_push(&r->stacks, sizeof(*ref)) : NULL;
		if (!ref) {
			tr_add_fault(r, ARGUS_TRACE_ENOMEM, off, "out of memory for stacks");
			return;
		}
		memcpy(ips, p + pos, (size_t)e.depth * 8);
		*ref = (struct stackref){e.id, e.depth, ips};
		pos += (size_t)e.depth * 8;
	}
	if (pos != n)
		tr_add_fault(r, ARGUS_TRACE_ECORRUPT, off, "stack table has %zu trailing bytes",
		             n - pos);
}

static void load_fixed(struct argus_trace_reader *r, uint64_t off, const struct tf_block *bh,
                       const uint8_t *p)
{
	static const size_t disk_size[] = {[TF_MAPS] = sizeof(struct tf_map),
	                                   [TF_BUILD_IDS] = sizeof(struct tf_build_id),
	                                   [TF_SYMBOLS] = sizeof(struct tf_symbol),
	                                   [TF_TRUTHS] = sizeof(struct tf_truth)};
	size_t unit = disk_size[bh->kind];
	if ((uint64_t)bh->count * unit != bh->raw_size) {
		tr_add_fault(r, ARGUS_TRACE_ECORRUPT, off, "%s size does not match its %u entries",
		             tr_kind_name(bh->kind), bh->count);
		return;
	}
	for (uint32_t i = 0; i < bh->count; i++, p += unit) {
		void *slot = NULL;
		switch (bh->kind) {
		case TF_MAPS: {
			struct tf_map d;
			memcpy(&d, p, sizeof(d));
			struct argus_map *m = slot = tr_vec_push(&r->maps, sizeof(*m));
			if (m)
				*m = (struct argus_map){.ts = d.ts,
				                        .pid = d.pid,
				                        .path_str = d.path_str,
				                        .start = d.start,
				                        .end = d.end,
				                        .pgoff = d.pgoff,
				                        .prot = d.prot};
			break;
		}
		case TF_BUILD_IDS: {
			struct tf_build_id d;
			memcpy(&d, p, sizeof(d));
			if (d.len > sizeof(d.id)) {
				tr_add_fault(r, ARGUS_TRACE_ECORRUPT, off, "build id of %u bytes",
				             d.len);
				return;
			}
			struct argus_build_id *b = slot = tr_vec_push(&r->build_ids, sizeof(*b));
			if (b) {
				memset(b, 0, sizeof(*b));
				b->path_str = d.path_str;
				b->len = d.len;
				memcpy(b->id, d.id, d.len);
			}
			break;
		}
		case TF_SYMBOLS: {
			struct tf_symbol d;
			memcpy(&d, p, sizeof(d));
			struct argus_symbol *s = slot = tr_vec_push(&r->symbols, sizeof(*s));
			if (s)
				*s = (struct argus_symbol){.path_str = d.path_str,
				                           .name_str = d.name_str,
				                           .offset = d.offset,
				                           .size = d.size};
			break;
		}
		case TF_TRUTHS: {
			struct tf_truth d;
			memcpy(&d, p, sizeof(d));
			struct argus_truth *t = slot = tr_vec_push(&r->truths, sizeof(*t));
			if (t) {
				memset(t, 0,
				       sizeof(*t)); /* padding too: records compare bytewise */
				t->kind = d.kind;
				t->ui_pid = d.ui_pid;
				t->ui_tid = d.ui_tid;
				t->stall_start = d.stall_start;
				t->stall_end = d.stall_end;
				t->root_pid = d.root_pid;
				t->root_tid = d.root_tid;
				t->root_start = d.root_start;
				t->root_end = d.root_end;
				t->root_func_str = d.root_func_str;
				t->desc_str = d.desc_str;
			}
			break;
		}
		}
		if (!slot) {
			tr_add_fault(r, ARGUS_TRACE_ENOMEM, off, "out of memory for tables");
			return;
		}
	}
}

void tr_load_table(struct argus_trace_reader *r, uint64_t off, const struct tf_block *bh)
{
	const uint8_t *p = tr_read_payload(r, off, bh);
	if (!p)
		return;
	switch (bh->kind) {
	case TF_STRINGS:
		load_strings(r, off, p, bh->raw_size, bh->count);
		break;
	case TF_STACKS:
		load_stacks(r, off, p, bh->raw_size, bh->count);
		break;
	default:
		load_fixed(r, off, bh, p);
		break;
	}
}

bool tr_is_table(unsigned kind)
{
	return kind >= TF_STRINGS && kind <= TF_TRUTHS;
}

/* ---- lookups ---- */

const char *argus_trace_string(const struct argus_trace_reader *r, uint32_t id)
{
	const struct strref *s = r->strings.p;
	size_t n = r->strings.n;
	if (!id || !n)
		return NULL;
	if (id <= n && s[id - 1].id == id) /* ids are dense when nothing was lost */
		return s[id - 1].s;
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp_u32(s[mid].id, id);
		if (!c)
			return s[mid].s;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

bool argus_trace_stack(const struct argus_trace_reader *r, uint32_t id, struct argus_stack *out)
{
	const struct stackref *s = r->stacks.p;
	size_t lo = 0, hi = r->stacks.n;
	while (id && lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp_u32(s[mid].id, id);
		if (!c) {
			out->id = id;
			out->depth = s[mid].depth;
			out->ips = s[mid].ips;
			return true;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

size_t argus_trace_maps(const struct argus_trace_reader *r, const struct argus_map **maps)
{
	*maps = r->maps.p;
	return r->maps.n;
}

size_t argus_trace_build_ids(const struct argus_trace_reader *r, const struct argus_build_id **ids)
{
	*ids = r->build_ids.p;
	return r->build_ids.n;
}

size_t argus_trace_symbols(const struct argus_trace_reader *r, const struct argus_symbol **syms)
{
	*syms = r->symbols.p;
	return r->symbols.n;
}

size_t argus_trace_truths(const struct argus_trace_reader *r, const struct argus_truth **t)
{
	*t = r->truths.p;
	return r->truths.n;
}

size_t argus_trace_string_count(const struct argus_trace_reader *r)
{
	return r->strings.n;
}

size_t argus_trace_stack_count(const struct argus_trace_reader *r)
{
	return r->stacks.n;
}

void argus_trace_get_health(const struct argus_trace_reader *r, struct argus_trace_health *h)
{
	*h = r->health;
}
