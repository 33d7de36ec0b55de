/*
 * tsym.c - symbols from a trace's tables (or tables held elsewhere: the
 * session's pushed ones), and the check of diagnoses against a synthetic
 * trace's ground truth.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "beam.h"
#include "elffile.h"
#include "event.h"

/* ---- symbols from the trace's tables ---- */

struct tmap {
	uint32_t pid;
	uint64_t start, end, pgoff;
	uint32_t path_str;
	bool system; /* argus_system_code */
};

struct argus_tsym {
	/* where string and stack ids resolve: a trace reader, or a session's
	 * pushed tables */
	const char *(*string)(const void *arg, uint32_t id);
	bool (*stack)(const void *arg, uint32_t id, struct argus_stack *out);
	const void *arg;
	struct tmap *maps;
	size_t nmaps;
	struct argus_symbol *syms;
	size_t nsyms;
	struct argus_elffiles *files; /* the maps' files on disk, read when asked */
	/* the process a pid was forked from (0 = unknown): a process forked
	 * and not exec'd has its parent's layout, and no maps of its own */
	uint32_t (*parent)(void *arg, uint32_t pid);
	void *parent_arg;
	/* the build ids the trace recorded (a copy, by path_str): a file on
	 * disk names frames only while it is that build */
	struct argus_build_id *bids;
	size_t nbids;
};

static int cmp_map(const void *a, const void *b)
{
	const struct tmap *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct argus_symbol *x = a, *y = b;
	if (x->path_str != y->path_str)
		return x->path_str < y->path_str ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

int argus_tsym_new_tables(struct argus_tsym **sp, const struct argus_map *m, size_t nm,
                          const struct argus_symbol *sy, size_t ns,
                          const char *(*string)(const void *arg, uint32_t id),
                          bool (*stack)(const void *arg, uint32_t id, struct argus_stack *out),
                          const void *arg)
{
	struct argus_tsym *s = calloc(1, sizeof(*s));
	if (!s)
		return -1;
	s->string = string;
	s->stack = stack;
	s->arg = arg;
	s->maps = calloc(nm ? nm : 1, sizeof(*s->maps));
	s->syms = malloc((ns ? ns : 1) * sizeof(*s->syms));
	if (!s->maps || !s->syms) {
		argus_tsym_free(s);
		return -1;
	}
	for (size_t i = 0; i < nm; i++) {
		const char *path = string(arg, m[i].path_str);
		s->maps[i] = (struct tmap){m[i].pid,   m[i].start,    m[i].end,
		                           m[i].pgoff, m[i].path_str, argus_system_code(path)};
	}
	s->nmaps = nm;
	if (ns)
		memcpy(s->syms, sy, ns * sizeof(*sy));
	s->nsyms = ns;
	qsort(s->maps, s->nmaps, sizeof(*s->maps), cmp_map);
	qsort(s->syms, s->nsyms, sizeof(*s->syms), cmp_sym);
	*sp = s;
	return 0;
}

/* The new entries, by their index (qsort_r's context). */
struct by_index {
	const unsigned char *add;
	size_t sz;
	int (*cmp)(const void *, const void *);
};

static int cmp_index(const void *x, const void *y, void *arg)
{
	const struct by_index *b = arg;
	size_t i = *(const size_t *)x, j = *(const size_t *)y;
	int c = b->cmp(b->add + i * b->sz, b->add + j * b->sz);
	return c ? c : i < j ? -1 : i > j;
}

/* Sorts nadd new entries of size sz stably (each one's index breaks ties,
 * as the tables' order does) and merges them after the nall sorted ones,
 * which come first among equals: the order one stable sort of all gives,
 * without sorting again what was sorted. */
static int merge_sorted(void **all, size_t nall, const void *add, size_t nadd, size_t sz,
                        int (*cmp)(const void *, const void *))
{
	if (!nadd)
		return 0;
	unsigned char *grown = realloc(*all, (nall + nadd) * sz);
	size_t *order = malloc(nadd * sizeof(*order));
	if (grown)
		*all = grown;
	if (!grown || !order) {
		free(order);
		return -1;
	}
	for (size_t i = 0; i < nadd; i++)
		order[i] = i;
	struct by_index b = {add, sz, cmp};
	qsort_r(order, nadd, sizeof(*order), cmp_index, &b);
	/* from the back: the larger of the two tails, the new one on ties */
	size_t i = nall, j = nadd, k = nall + nadd;
	while (j > 0) {
		const unsigned char *y = b.add + order[j - 1] * sz;
		if (i > 0 && cmp(grown + (i - 1) * sz, y) > 0) {
			memmove(grown + (k - 1) * sz, grown + (i - 1) * sz, sz);
			i--;
		} else {
			memcpy(grown + (k - 1) * sz, y, sz);
			j--;
		}
		k--;
	}
	free(order);
	return 0;
}

int argus_tsym_add_tables(struct argus_tsym *s, const struct argus_map *m, size_t nm,
                          const struct argus_symbol *sy, size_t ns)
{
	struct tmap *add = malloc((nm ? nm : 1) * sizeof(*add));
	if (!add)
		return -1;
	for (size_t i = 0; i < nm; i++) {
		const char *path = s->string(s->arg, m[i].path_str);
		add[i] = (struct tmap){m[i].pid,   m[i].start,    m[i].end,
		                       m[i].pgoff, m[i].path_str, argus_system_code(path)};
	}
	void *maps = s->maps, *syms = s->syms;
	int rc = merge_sorted(&maps, s->nmaps, add, nm, sizeof(*add), cmp_map);
	s->maps = maps;
	free(add);
	if (rc)
		return -1;
	s->nmaps += nm;
	rc = merge_sorted(&syms, s->nsyms, sy, ns, sizeof(*sy), cmp_sym);
	s->syms = syms;
	if (rc)
		return -1;
	s->nsyms += ns;
	return 0;
}

static const char *reader_string(const void *arg, uint32_t id)
{
	return argus_trace_string(arg, id);
}

static bool reader_stack(const void *arg, uint32_t id, struct argus_stack *out)
{
	return argus_trace_stack(arg, id, out);
}

int argus_tsym_new(struct argus_tsym **sp, const struct argus_trace_reader *r)
{
	const struct argus_map *m;
	size_t nm = argus_trace_maps(r, &m);
	const struct argus_symbol *sy;
	size_t ns = argus_trace_symbols(r, &sy);
	if (argus_tsym_new_tables(sp, m, nm, sy, ns, reader_string, reader_stack, r))
		return -1;
	const struct argus_build_id *b;
	size_t nb = argus_trace_build_ids(r, &b);
	return argus_tsym_set_build_ids(*sp, b, nb);
}

int argus_tsym_set_build_ids(struct argus_tsym *s, const struct argus_build_id *b, size_t n)
{
	free(s->bids);
	s->bids = NULL;
	s->nbids = 0;
	if (!n)
		return 0;
	if (!(s->bids = malloc(n * sizeof(*b))))
		return -1;
	memcpy(s->bids, b, n * sizeof(*b));
	s->nbids = n;
	return 0;
}

void argus_tsym_free(struct argus_tsym *s)
{
	if (!s)
		return;
	argus_elffiles_free(s->files);
	free(s->bids);
	free(s->maps);
	free(s->syms);
	free(s);
}

void argus_tsym_set_parent(struct argus_tsym *s, uint32_t (*parent)(void *arg, uint32_t pid),
                           void *arg)
{
	s->parent = parent;
	s->parent_arg = arg;
}

/* The first map of pid or later (index into maps). */
static size_t first_of(const struct argus_tsym *s, uint32_t pid)
{
	size_t a = 0, b = s->nmaps;
	while (a < b) {
		size_t m = (a + b) / 2;
		if (s->maps[m].pid < pid)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

static const struct tmap *find_map_of(const struct argus_tsym *s, uint32_t pid, uint64_t ip)
{
	size_t a = 0, b = s->nmaps;
	while (a < b) { /* first map of pid with start > ip */
		size_t m = (a + b) / 2;
		const struct tmap *x = &s->maps[m];
		if (x->pid < pid || (x->pid == pid && x->start <= ip))
			a = m + 1;
		else
			b = m;
	}
	if (!a)
		return NULL;
	const struct tmap *x = &s->maps[a - 1];
	return x->pid == pid && ip >= x->start && ip < x->end ? x : NULL;
}

/* The map of ip in pid's layout: pid's own maps, or, when the trace holds
 * none of pid's (forked, not exec'd: the tracer reads no layout for it),
 * its parent's, and so on up. */
static const struct tmap *find_map(const struct argus_tsym *s, uint32_t pid, uint64_t ip)
{
	for (int hop = 0; hop < 16 && pid; hop++) {
		const struct tmap *m = find_map_of(s, pid, ip);
		if (m)
			return m;
		size_t i = first_of(s, pid);
		if ((i < s->nmaps && s->maps[i].pid == pid) || !s->parent)
			return NULL; /* its own layout, without ip */
		uint32_t pp = s->parent(s->parent_arg, pid);
		pid = pp != pid ? pp : 0;
	}
	return NULL;
}

/* A frame named without debug info: where = object+offset into the function. */
static void put_frame(struct argus_frame *out, const char *name, const char *path, uint64_t in,
                      bool system)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	argus_func_name(name, out->func, sizeof(out->func));
	snprintf(out->srcline, sizeof(out->srcline), "%s+0x%llx", path ? path : "?",
	         (unsigned long long)in);
	snprintf(out->object, sizeof(out->object), "%s", slash ? slash + 1 : path ? path : "?");
	out->system = system;
}

static bool tsym_resolve(void *arg, uint32_t pid, uint64_t ip, struct argus_frame *out)
{
	const struct argus_tsym *s = arg;
	const struct tmap *m = find_map(s, pid, ip);
	if (!m)
		return false;
	uint64_t off = ip - m->start + m->pgoff;
	size_t a = 0, b = s->nsyms;
	while (a < b) { /* first symbol after (path, off) */
		size_t k = (a + b) / 2;
		const struct argus_symbol *y = &s->syms[k];
		if (y->path_str < m->path_str || (y->path_str == m->path_str && y->offset <= off))
			a = k + 1;
		else
			b = k;
	}
	if (!a)
		return false;
	const struct argus_symbol *y = &s->syms[a - 1];
	if (y->path_str != m->path_str || off >= y->offset + (y->size ? y->size : 1))
		return false;
	const char *name = s->string(s->arg, y->name_str);
	const char *path = s->string(s->arg, m->path_str);
	if (!name)
		return false;
	put_frame(out, name, path, off - y->offset, m->system);
	return true;
}

static bool tsym_stack(void *arg, uint32_t id, const uint64_t **ips, uint32_t *depth)
{
	const struct argus_tsym *s = arg;
	struct argus_stack st;
	if (!s->stack(s->arg, id, &st))
		return false;
	*ips = st.ips;
	*depth = st.depth;
	return true;
}

struct argus_symbolizer argus_tsym_symbolizer(struct argus_tsym *s)
{
	struct argus_symbolizer y = {tsym_resolve, tsym_stack, s};
	return y;
}

/* What neither the trace's tables nor a live process name: the file the
 * trace's map names, as it is on disk now (the symbol table only). */
static bool files_resolve(void *arg, uint32_t pid, uint64_t ip, struct argus_frame *out)
{
	struct argus_tsym *s = arg;
	const struct tmap *m = find_map(s, pid, ip);
	if (!m || (!s->files && argus_elffiles_new(&s->files)))
		return false;
	const char *path = s->string(s->arg, m->path_str);
	uint64_t in = 0, off = ip - m->start + m->pgoff;
	const struct argus_build_id *b = NULL;
	for (size_t i = 0; i < s->nbids && !b; i++)
		if (s->bids[i].path_str == m->path_str)
			b = &s->bids[i];
	const char *name = argus_elffiles_name(s->files, path, b ? b->id : NULL,
	                                       b ? b->len : 0, off, &in);
	if (!name)
		return false;
	put_frame(out, name, path, in, m->system);
	return true;
}

struct argus_symbolizer argus_tsym_files_symbolizer(struct argus_tsym *s)
{
	struct argus_symbolizer y = {files_resolve, tsym_stack, s};
	return y;
}

/* The named segment (with its wait) overlaps the truth's root-cause span. */
static bool names_root(const struct argus_diagnosis *d, const struct argus_truth *t)
{
	if (!d->ncandidates || d->root.v.tid != t->root_tid)
		return false;
	const struct argus_vertex_info *v = &d->root.v;
	uint64_t end = v->end + v->wait_ns;
	if ((v->flags & ARGUS_VF_WAITED) && !v->wait_ns && d->stall.detected > end)
		end = d->stall.detected;
	return v->start <= t->root_end && end >= t->root_start;
}

int argus_truth_check(const struct argus_diagnosis *ds, size_t n, const struct argus_truth *t,
                      const struct argus_diagnosis **hit)
{
	*hit = NULL;
	for (size_t k = 0; k < n; k++) {
		const struct argus_diagnosis *d = &ds[k];
		if (!t->ui_tid) {
			if (d->stall.tid == t->root_tid) {
				*hit = d;
				return ARGUS_TRUTH_DECOY_FIRED;
			}
			continue;
		}
		if (d->stall.tid == t->ui_tid && d->stall.since <= t->stall_end &&
		    d->stall.detected >= t->stall_start) {
			*hit = d;
			return names_root(d, t) ? ARGUS_TRUTH_RIGHT : ARGUS_TRUTH_WRONG;
		}
	}
	return t->ui_tid ? ARGUS_TRUTH_NO_STALL : ARGUS_TRUTH_RIGHT;
}
