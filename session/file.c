/*
 * file.c - a trace file as the session's source: its records in file
 * order, its own tables for stacks and symbols (and, for a trace of this
 * boot, the live processes' ELF / DWARF, then the files on disk).
 */
#include <stdlib.h>
#include <string.h>

#include "session_priv.h"

/* What the trace's tables do not name: the live process (a trace of this
 * boot whose processes may still run), then the file its map names. */
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

/* A streamed file carries its tables between chunks, so a stack may be
 * written after the records that name it: read the file once through for
 * its complete tables (not possible on standard input: NULL). */
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

int argus_session_run_file(struct argus_session *s, const char *path, struct argus_trace_error *err)
{
	struct argus_trace_reader *r, *tables = NULL;
	struct argus_tsym *sym = NULL;
	struct argus_elfsym *elf = NULL;
	memset(err, 0, sizeof(*err));
	int rc = argus_trace_open(&r, path, err);
	if (rc)
		return rc;
	tables = open_tables(path);
	const struct argus_trace_reader *tr = tables ? tables : r;
	struct chain ch = {0};
	if (argus_tsym_new(&sym, tr)) {
		rc = ARGUS_TRACE_ENOMEM;
		goto out;
	}
	argus_tsym_set_parent(sym, session_parent, s);
	ch.first = argus_tsym_symbolizer(sym);
	ch.files = argus_tsym_files_symbolizer(sym);
	if (same_boot(r) && argus_elfsym_new(&elf, &ch.first) == 0) {
		ch.live = argus_elfsym_symbolizer(elf);
		ch.has_live = true;
	}
	s->sym = (struct argus_symbolizer){chain_resolve, chain_stack, &ch};
	s->stacks = tr;
	s->prepare = NULL;
	const struct argus_event *e;
	int n;
	while ((n = argus_trace_next(r, &e, err)) != 0) {
		if (n < 0) {
			session_fault(s, err);
			if (n == ARGUS_TRACE_ENOMEM) {
				rc = n;
				break;
			}
			continue;
		}
		if (session_feed(s, e)) {
			rc = ARGUS_TRACE_ENOMEM;
			break;
		}
	}
	if (!rc && s->st.faults)
		rc = 1;
	argus_session_end(s);
out:
	/* the symbolizer lived on this stack: back to the pushed tables' */
	s->sym = (struct argus_symbolizer){ptables_resolve, ptables_stack_of, s};
	s->stacks = NULL;
	s->prepare = ptables_prepare;
	argus_elfsym_free(elf);
	argus_tsym_free(sym);
	if (tables)
		argus_trace_close(tables);
	argus_trace_close(r);
	return rc;
}

/* ---- a trace file read again for a report (argus_session_file_view) ---- */

struct argus_session_file_view {
	char *path;
	struct argus_trace_reader *r, *tables;
	struct argus_tsym *sym;
	struct argus_elfsym *elf;
	struct chain ch;
};

int argus_session_file_view_open(struct argus_session_file_view **out, const char *path,
                                 struct argus_trace_error *err)
{
	struct argus_session_file_view *v = calloc(1, sizeof(*v));
	memset(err, 0, sizeof(*err));
	if (!v)
		return ARGUS_TRACE_ENOMEM;
	int rc = argus_trace_open(&v->r, path, err);
	if (rc) {
		free(v);
		return rc;
	}
	v->tables = open_tables(path);
	v->path = strdup(path);
	if (!v->path || argus_tsym_new(&v->sym, v->tables ? v->tables : v->r)) {
		argus_session_file_view_close(v);
		return ARGUS_TRACE_ENOMEM;
	}
	v->ch.first = argus_tsym_symbolizer(v->sym);
	v->ch.files = argus_tsym_files_symbolizer(v->sym);
	if (same_boot(v->r) && argus_elfsym_new(&v->elf, &v->ch.first) == 0) {
		v->ch.live = argus_elfsym_symbolizer(v->elf);
		v->ch.has_live = true;
	}
	*out = v;
	return 0;
}

static void view_each(void *arg, uint64_t from, uint64_t to,
                      void (*fn)(void *fn_arg, const struct argus_event *ev), void *fn_arg)
{
	struct argus_session_file_view *v = arg;
	struct argus_trace_reader *r;
	struct argus_trace_error err;
	const struct argus_event *e;
	int n;
	/* a range is set before the first record: a reader per span */
	if (!strcmp(v->path, "-") || argus_trace_open(&r, v->path, &err))
		return;
	argus_trace_set_range(r, from, to);
	while ((n = argus_trace_next(r, &e, &err)) != 0)
		if (n > 0 && e->ts >= from && e->ts <= to)
			fn(fn_arg, e);
		else if (n == ARGUS_TRACE_ENOMEM)
			break;
	argus_trace_close(r);
}

struct argus_report_records argus_session_file_view_records(struct argus_session_file_view *v)
{
	return (struct argus_report_records){view_each, v};
}

struct argus_symbolizer argus_session_file_view_symbolizer(struct argus_session_file_view *v)
{
	return (struct argus_symbolizer){chain_resolve, chain_stack, &v->ch};
}

void argus_session_file_view_close(struct argus_session_file_view *v)
{
	if (!v)
		return;
	argus_elfsym_free(v->elf);
	argus_tsym_free(v->sym);
	if (v->tables)
		argus_trace_close(v->tables);
	argus_trace_close(v->r);
	free(v->path);
	free(v);
}
