/*
 * offline.c - symbols from a trace's tables, and `argus diagnose FILE`'s
 * pipeline: every record goes to the graph, the samples and the trigger, in
 * file order; a stall is diagnosed the moment the trigger fires, on the
 * graph as it is then (what the daemon does live).
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
	/* where string and stack ids resolve: a trace reader, or the live
	 * diagnoser's own tables */
	const char *(*string)(const void *arg, uint32_t id);
	bool (*stack)(const void *arg, uint32_t id, struct argus_stack *out);
	const void *arg;
	struct tmap *maps;
	size_t nmaps;
	struct argus_symbol *syms;
	size_t nsyms;
	struct argus_elffiles *files; /* the maps' files on disk, read when asked */
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
	return argus_tsym_new_tables(sp, m, nm, sy, ns, reader_string, reader_stack, r);
}

void argus_tsym_free(struct argus_tsym *s)
{
	if (!s)
		return;
	argus_elffiles_free(s->files);
	free(s->maps);
	free(s->syms);
	free(s);
}

static const struct tmap *find_map(const struct argus_tsym *s, uint32_t pid, uint64_t ip)
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

/* A frame named without debug info: where = object+offset into the function. */
static void put_frame(struct argus_frame *out, const char *name, const char *path, uint64_t in,
                      bool system)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	snprintf(out->func, sizeof(out->func), "%s", name);
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
	const char *name = argus_elffiles_name(s->files, path, off, &in);
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

/* A trace of this boot whose processes may still run: what the trace's
 * own tables do not name, the live processes' ELF / DWARF may. */
struct chain {
	struct argus_symbolizer first, live, files;
	bool has_live;
};

static bool chain_resolve(void *arg, uint32_t pid, uint64_t ip, struct argus_frame *out)
{
	struct chain *c = arg;
	if (c->first.resolve(c->first.arg, pid, ip, out))
		return true;
	if (c->has_live && c->live.resolve(c->live.arg, pid, ip, out))
		return true;
	return c->files.resolve && c->files.resolve(c->files.arg, pid, ip, out);
}

static bool chain_stack(void *arg, uint32_t id, const uint64_t **ips, uint32_t *depth)
{
	struct chain *c = arg;
	return c->first.stack(c->first.arg, id, ips, depth);
}

static bool same_boot(const struct argus_trace_reader *r)
{
	struct argus_trace_meta here;
	const struct argus_trace_meta *m = argus_trace_get_meta(r);
	argus_trace_meta_init(&here, "argus");
	return m && !(m->flags & ARGUS_TRACE_F_SYNTH) &&
	       !memcmp(here.boot_id, m->boot_id, sizeof(here.boot_id));
}

/* ---- the offline pipeline ---- */

void argus_offline_opts_default(struct argus_offline_opts *o)
{
	memset(o, 0, sizeof(*o));
	argus_trigger_opts_default(&o->trigger);
	argus_beam_params_default(&o->beam);
	argus_graph_opts_default(&o->graph);
	o->algo = ARGUS_ALGO_BEAM;
}

struct run {
	struct argus_offline *res;
	struct argus_trigger *trig;
	struct argus_stall fired[8];
	uint32_t nfired;
};

static void on_stall(void *arg, const struct argus_stall *s)
{
	struct run *r = arg;
	if (r->nfired < 8)
		r->fired[r->nfired++] = *s;
}

static void on_stall_end(void *arg, const struct argus_stall *s)
{
	struct run *r = arg;
	for (size_t i = 0; i < r->res->n; i++)
		if (r->res->d[i].stall.id == s->id)
			r->res->d[i].stall.end = s->end;
	for (uint32_t i = 0; i < r->nfired; i++)
		if (r->fired[i].id == s->id)
			r->fired[i].end = s->end;
}

const char *argus_offline_comm(void *arg, uint32_t pid)
{
	const struct argus_offline *res = arg;
	for (uint32_t i = 0; i < res->ncomms; i++)
		if (res->comm_pids[i] == pid)
			return res->comms[i];
	return "";
}

const char *argus_offline_thread_comm(void *arg, uint32_t tid)
{
	const struct argus_offline *res = arg;
	for (uint32_t i = 0; i < res->nthreads; i++)
		if (res->thread_tids[i] == tid)
			return res->threads[i];
	return "";
}

static const char *trigger_comm(void *arg, uint32_t pid)
{
	return argus_trigger_comm(arg, pid);
}

static const char *trigger_thread_comm(void *arg, uint32_t tid)
{
	return argus_trigger_thread_comm(arg, tid);
}

/* The names of a vertex's process and thread as they were at the diagnosis
 * (the trigger that knows them is gone when the reports are written). */
static void remember_comm(struct argus_offline *res, struct argus_trigger *t,
                          const struct argus_vertex_info *v)
{
	if (v->pid && !*argus_offline_comm(res, v->pid) && res->ncomms < 64) {
		res->comm_pids[res->ncomms] = v->pid;
		snprintf(res->comms[res->ncomms++], ARGUS_COMM_LEN, "%s",
		         argus_trigger_comm(t, v->pid));
	}
	if (v->tid && !*argus_offline_thread_comm(res, v->tid) && res->nthreads < 256) {
		res->thread_tids[res->nthreads] = v->tid;
		snprintf(res->threads[res->nthreads++], ARGUS_COMM_LEN, "%s",
		         argus_trigger_thread_comm(t, v->tid));
	}
}

static struct argus_trace_reader *open_tables(const char *path)
{
	struct argus_trace_reader *t;
	struct argus_trace_error err;
	const struct argus_event *e;
	int rc;
	if (!strcmp(path, "-") || argus_trace_open(&t, path, &err))
		return NULL;
	while ((rc = argus_trace_next(t, &e, &err)) != 0)
		if (rc == ARGUS_TRACE_ENOMEM)
			break;
	return t;
}

int argus_diagnose_file(const char *path, const struct argus_offline_opts *o,
                        struct argus_offline *res)
{
	struct argus_trace_reader *r, *tables = NULL;
	struct argus_graph *g = NULL;
	struct argus_samples *smp = NULL;
	struct argus_tsym *sym = NULL;
	struct argus_elfsym *elf = NULL;
	struct run run = {.res = res};
	memset(res, 0, sizeof(*res));
	int rc = argus_trace_open(&r, path, &res->err);
	if (rc)
		return rc;
	tables = open_tables(path);
	const struct argus_trace_reader *tr = tables ? tables : r;
	struct argus_trigger_cb cb = {on_stall, on_stall_end, NULL, &run};
	if (argus_graph_new(&g, &o->graph) || argus_samples_new(&smp) ||
	    argus_trigger_new(&run.trig, &o->trigger, &cb) || argus_tsym_new(&sym, tr)) {
		rc = ARGUS_TRACE_ENOMEM;
		goto out;
	}
	struct chain ch = {.first = argus_tsym_symbolizer(sym),
	                   .files = argus_tsym_files_symbolizer(sym)};
	if (same_boot(r) && argus_elfsym_new(&elf, &ch.first) == 0) {
		ch.live = argus_elfsym_symbolizer(elf);
		ch.has_live = true;
	}
	struct argus_symbolizer sy = {chain_resolve, chain_stack, &ch};
	const struct argus_event *e;
	size_t dcap = 0;
	rc = 0;
	int n;
	while ((n = argus_trace_next(r, &e, &res->err)) != 0) {
		if (n < 0) {
			res->faults++;
			if (n == ARGUS_TRACE_ENOMEM) {
				rc = n;
				break;
			}
			continue;
		}
		if (!res->events++)
			res->t0 = e->ts;
		if ((e->type == ARGUS_EV_STACK || e->type == ARGUS_EV_CPU_SAMPLE) &&
		    e->stack.ustack) {
			struct argus_stack st;
			if (argus_trace_stack(tr, e->stack.ustack, &st))
				argus_graph_add_stack(g, e->stack.ustack, st.ips, st.depth);
		}
		if (argus_graph_ingest(g, e, 1)) {
			rc = ARGUS_TRACE_ENOMEM;
			break;
		}
		argus_samples_feed(smp, e, 1);
		argus_trigger_feed(run.trig, e, 1);
		for (uint32_t i = 0; i < run.nfired; i++) {
			if (res->n == dcap) {
				size_t nc = dcap ? dcap * 2 : 8;
				struct argus_diagnosis *nd = realloc(res->d, nc * sizeof(*nd));
				if (!nd) {
					rc = ARGUS_TRACE_ENOMEM;
					goto out;
				}
				res->d = nd;
				dcap = nc;
			}
			struct argus_graph_view v;
			argus_graph_view_begin(g, &v);
			int dr = argus_diagnose(&v, &run.fired[i], &o->beam, o->algo, smp, &sy,
			                        trigger_comm, trigger_thread_comm, run.trig,
			                        &res->d[res->n]);
			argus_graph_view_end(&v);
			if (dr) {
				rc = ARGUS_TRACE_ENOMEM;
				goto out;
			}
			struct argus_diagnosis *d = &res->d[res->n++];
			const struct argus_vertex_info ui = {.pid = d->stall.pid,
			                                     .tid = d->stall.tid};
			remember_comm(res, run.trig, &ui);
			if (d->anomaly)
				remember_comm(res, run.trig, &d->anomaly_v);
			for (uint32_t k = 0; k < d->ncandidates; k++)
				remember_comm(res, run.trig, &d->candidates[k].v);
			for (uint32_t k = 0; k < d->path.n; k++)
				remember_comm(res, run.trig, &d->path_v[k]);
			for (uint32_t k = 0; d->has_normal_path && k < d->normal_path.n; k++)
				remember_comm(res, run.trig, &d->normal_v[k]);
		}
		run.nfired = 0;
	}
	if (!rc && res->faults)
		rc = 1;
out:
	if (run.trig)
		argus_trigger_get_stats(run.trig, &res->trigger);
	argus_trigger_free(run.trig);
	argus_elfsym_free(elf);
	argus_tsym_free(sym);
	argus_samples_free(smp);
	argus_graph_free(g);
	if (tables)
		argus_trace_close(tables);
	argus_trace_close(r);
	return rc;
}

void argus_offline_free(struct argus_offline *res)
{
	free(res->d);
	res->d = NULL;
	res->n = 0;
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

int argus_truth_check(const struct argus_offline *res, const struct argus_truth *t,
                      const struct argus_diagnosis **hit)
{
	*hit = NULL;
	for (size_t k = 0; k < res->n; k++) {
		const struct argus_diagnosis *d = &res->d[k];
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
