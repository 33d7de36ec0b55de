/*
 * perfetto.c - diagnoses as a native Perfetto trace: a stream of
 * TracePacket messages (beam/perfetto_trace.proto, Perfetto's own field
 * numbers) encoded with protobuf-c. docs/report.md says what is in it.
 *
 * Per diagnosis, over its window (argus_report_window): the scheduling of
 * every CPU as ftrace sched_switch / sched_waking / sched_wakeup_new events
 * (Perfetto derives thread states and its critical path from them), the
 * processes and threads seen (ProcessTree), a track per thread on the
 * causal path, the normal path and the candidates with each segment as a
 * slice, the causal edges as flows from an instant at the edge's source
 * event to the effect's slice (strong / weak / boosted in the instant's
 * name and category), the stall and the root cause as slices on tracks of
 * their own, and the CPU samples as PerfSample packets with interned
 * callstacks.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "perfetto_priv.h"

/* ---- writing packets ---- */

static void put_varint(FILE *out, uint64_t v)
{
	do {
		uint8_t b = v & 0x7f;
		v >>= 7;
		fputc(b | (v ? 0x80 : 0), out);
	} while (v);
}

/* One packet as field 1 of Trace (the file is a Trace message). */
void pw_emit(struct pw *w, Packet *p)
{
	p->has_trusted_packet_sequence_id = 1;
	p->trusted_packet_sequence_id = SEQ;
	if (w->first) {
		p->has_sequence_flags = 1;
		p->sequence_flags = SEQ_CLEARED;
		w->first = false;
	}
	size_t len = perfetto__protos__trace_packet__get_packed_size(p);
	uint8_t *buf = malloc(len ? len : 1);
	if (!buf) {
		w->failed = true;
		return;
	}
	perfetto__protos__trace_packet__pack(p, buf);
	fputc(0x0a, w->out); /* field 1, length-delimited */
	put_varint(w->out, len);
	if (fwrite(buf, 1, len, w->out) != len)
		w->failed = true;
	free(buf);
	w->n->packets++;
}

/* ---- names ---- */

const char *pw_comm(const struct argus_report_ctx *c, uint32_t pid)
{
	const char *s = c && c->comm ? c->comm(c->arg, pid) : NULL;
	return s ? s : "";
}

const char *pw_thread(const struct argus_report_ctx *c, uint32_t tid)
{
	const char *s = c && c->thread ? c->thread(c->arg, tid) : NULL;
	return s ? s : "";
}


/* ---- tracks ---- */

static void track(struct pw *w, uint64_t uuid, uint64_t parent, uint32_t pid, uint32_t tid,
                  const char *name)
{
	bool fresh;
	if (!argus_hmap_put(&w->tracks, uuid, &fresh)) {
		w->failed = true;
		return;
	}
	if (!fresh)
		return;
	Packet p = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	Perfetto__Protos__TrackDescriptor td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
	Perfetto__Protos__ProcessDescriptor pd = PERFETTO__PROTOS__PROCESS_DESCRIPTOR__INIT;
	Perfetto__Protos__ThreadDescriptor thd = PERFETTO__PROTOS__THREAD_DESCRIPTOR__INIT;
	char buf[ARGUS_COMM_LEN + 1];
	td.has_uuid = 1;
	td.uuid = uuid;
	if (parent) {
		td.has_parent_uuid = 1;
		td.parent_uuid = parent;
	}
	if (tid) {
		thd.has_pid = thd.has_tid = 1;
		thd.pid = (int32_t)pid;
		thd.tid = (int32_t)tid;
		const char *t = pw_thread(w->c, tid);
		snprintf(buf, sizeof(buf), "%s", *t ? t : pw_comm(w->c, pid));
		thd.thread_name = buf;
		td.thread = &thd;
		w->n->threads++;
	} else if (name) {
		td.name = (char *)name;
	} else {
		pd.has_pid = 1;
		pd.pid = (int32_t)pid;
		snprintf(buf, sizeof(buf), "%s", pw_comm(w->c, pid));
		pd.process_name = buf;
		td.process = &pd;
	}
	p.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_DESCRIPTOR;
	p.track_descriptor = &td;
	pw_emit(w, &p);
}

static void thread_track(struct pw *w, uint32_t pid, uint32_t tid)
{
	track(w, PROCESS_UUID(pid), 0, pid, 0, NULL);
	track(w, THREAD_UUID(tid), PROCESS_UUID(pid), pid, tid, NULL);
}

/* ---- track events ---- */

static struct tev *tev_add(struct pw *w, uint64_t ts, unsigned type, uint64_t track,
                           const char *cat)
{
	if (w->ntev == w->ctev) {
		size_t nc = w->ctev ? 2 * w->ctev : 256;
		struct tev *n = realloc(w->tev, nc * sizeof(*n));
		if (!n) {
			w->failed = true;
			return NULL;
		}
		w->tev = n;
		w->ctev = nc;
	}
	struct tev *e = &w->tev[w->ntev++];
	memset(e, 0, sizeof(*e));
	e->ts = ts;
	e->type = (uint8_t)type;
	e->order = type == PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END     ? 0
	           : type == PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN ? 1
	                                                                           : 2;
	e->track = track;
	e->cat = cat;
	return e;
}

static void arg_str(struct tev *e, const char *key, const char *s)
{
	if (e && e->nargs < EV_ARGS) {
		e->args[e->nargs].key = key;
		snprintf(e->args[e->nargs++].s, sizeof(e->args[0].s), "%s", s);
	}
}

static void arg_int(struct tev *e, const char *key, int64_t v)
{
	if (e && e->nargs < EV_ARGS) {
		e->args[e->nargs].key = key;
		e->args[e->nargs].is_int = true;
		e->args[e->nargs++].i = v;
	}
}

/* The innermost application frame of a stack (else its innermost named
 * frame); false when none is named. */
static bool stack_frame(struct pw *w, uint32_t pid, uint32_t stack, struct argus_frame *out)
{
	const uint64_t *ips;
	uint32_t depth;
	if (!stack || !w->sym || !w->sym->stack || !w->sym->resolve ||
	    !w->sym->stack(w->sym->arg, stack, &ips, &depth))
		return false;
	bool any = false;
	for (uint32_t i = 0; i < depth; i++) {
		struct argus_frame f;
		memset(&f, 0, sizeof(f));
		if (!w->sym->resolve(w->sym->arg, pid, ips[i], &f) || !f.func[0])
			continue;
		if (!any || (out->system && !f.system))
			*out = f;
		any = true;
		if (!f.system)
			break;
	}
	return any;
}

/* One segment as a slice on its thread's track (once per vertex). */
static void seg_slice(struct pw *w, const struct argus_vertex_info *v, const char *role)
{
	if (!v->id || argus_hmap_get(&w->vslice, v->id))
		return;
	thread_track(w, v->pid, v->tid);
	uint64_t end = v->end > v->start ? v->end : v->start + 1;
	uint32_t stack = (v->flags & ARGUS_VF_WAITED) && v->wait_stack ? v->wait_stack
	                                                               : v->stack_last;
	struct argus_frame f;
	bool named = stack_frame(w, v->pid, stack, &f);
	const char *sc = v->wait_nr != 0xffff ? argus_syscall_name(v->wait_nr) : NULL;
	struct tev *e = tev_add(w, v->start, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN,
	                        THREAD_UUID(v->tid), "argus.segment");
	if (!e)
		return;
	if (v->flags & ARGUS_VF_WAITED)
		snprintf(e->name, sizeof(e->name), "%s: waits in %s%s%s", role, sc ? sc : "?",
		         named ? " in " : "", named ? f.func : "");
	else
		snprintf(e->name, sizeof(e->name), "%s: runs %.1f ms%s%s", role, v->oncpu_ns / 1e6,
		         named ? " in " : "", named ? f.func : "");
	arg_str(e, "path", role);
	arg_int(e, "vertex", (int64_t)v->id);
	arg_int(e, "oncpu_ns", (int64_t)v->oncpu_ns);
	if (v->flags & ARGUS_VF_WAITED) {
		arg_str(e, "wait_syscall", sc ? sc : "?");
		arg_int(e, "wait_ns", (int64_t)v->wait_ns);
	}
	if (named)
		arg_str(e, "where", f.srcline);
	e->pid = v->pid;
	e->stack = stack;
	if (!argus_hmap_set_u64(&w->vslice, v->id, w->ntev)) {
		w->failed = true;
		return;
	}
	tev_add(w, end, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END, THREAD_UUID(v->tid),
	        "argus.segment");
	w->n->slices++;
}

static const char *strength_name(int strength)
{
	return strength < 0 ? "strong" : strength > 0 ? "weak" : "boosted";
}

/* A causal edge: an instant at its source event on the cause's thread
 * starts a flow that ends at the effect's slice. */
static void edge_flow(struct pw *w, const struct argus_vertex_info *src,
                      const struct argus_vertex_info *dst, const struct argus_edge_info *ed)
{
	uint64_t *di = argus_hmap_get(&w->vslice, dst->id);
	if (!di || !argus_hmap_get(&w->vslice, src->id))
		return;
	struct tev *d = &w->tev[*di - 1];
	if (d->nterm == EV_FLOWS)
		return;
	uint64_t ts = ed->ts < src->start ? src->start : ed->ts > src->end ? src->end : ed->ts;
	struct tev *e = tev_add(w, ts, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT,
	                        THREAD_UUID(src->tid),
	                        ed->strength < 0   ? "argus.edge.strong"
	                        : ed->strength > 0 ? "argus.edge.weak"
	                                           : "argus.edge.boosted");
	if (!e)
		return;
	d = &w->tev[*di - 1]; /* tev_add may have moved it */
	uint64_t id = ++w->next_flow;
	snprintf(e->name, sizeof(e->name), "%s %s edge", strength_name(ed->strength),
	         argus_edge_kind_name(ed->kind));
	arg_str(e, "kind", argus_edge_kind_name(ed->kind));
	arg_str(e, "strength", strength_name(ed->strength));
	e->flows[e->nflows++] = id;
	d->term[d->nterm++] = id;
	w->n->flows++;
}

static void path_slices(struct pw *w, const struct argus_path *p,
                        const struct argus_vertex_info *pv, const char *role)
{
	for (uint32_t i = 0; i < p->n; i++)
		seg_slice(w, &pv[i], i == 0 && !strcmp(role, "causal") ? "anomaly" : role);
}

static void path_flows(struct pw *w, const struct argus_path *p, const struct argus_vertex_info *pv)
{
	for (uint32_t i = 0; i + 1 < p->n; i++)
		edge_flow(w, &pv[i + 1], &pv[i], &p->edge[i]);
}

static void mark(struct pw *w, uint64_t uuid, uint32_t pid, const char *track_name,
                 uint64_t start, uint64_t end, const char *name, const char *cat,
                 const char *summary, uint32_t stack)
{
	track(w, PROCESS_UUID(pid), 0, pid, 0, NULL);
	track(w, uuid, PROCESS_UUID(pid), pid, 0, track_name);
	struct tev *e =
	    tev_add(w, start, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN, uuid, cat);
	if (!e)
		return;
	snprintf(e->name, sizeof(e->name), "%s", name);
	arg_str(e, "summary", summary);
	e->pid = pid;
	e->stack = stack;
	tev_add(w, end > start ? end : start + 1, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END,
	        uuid, cat);
	w->n->slices++;
}

static void diagnosis_events(struct pw *w, const struct argus_diagnosis *d)
{
	char line[512], name[200];
	argus_report_oneline(d, line, sizeof(line));
	path_slices(w, &d->path, d->path_v, "causal");
	if (d->has_normal_path)
		path_slices(w, &d->normal_path, d->normal_v, "normal");
	for (uint32_t i = 0; i < d->ncandidates; i++)
		seg_slice(w, &d->candidates[i].v, i ? "candidate" : "root cause");
	path_flows(w, &d->path, d->path_v);
	if (d->has_normal_path)
		path_flows(w, &d->normal_path, d->normal_v);
	thread_track(w, d->stall.pid, d->stall.tid);
	uint64_t end = d->stall.end ? d->stall.end : d->stall.detected;
	snprintf(name, sizeof(name), "STALL %s %.1f s (%s)", d->stall.comm,
	         (double)(end - d->stall.since) / 1e9, argus_stall_class_name(d->stall.cls));
	mark(w, STALL_UUID(d->stall.id), d->stall.pid, "argus: stall", d->stall.since, end, name,
	     "argus.stall", line, 0);
	if (d->ncandidates) {
		const struct argus_culprit *k = &d->candidates[0];
		snprintf(name, sizeof(name), "ROOT CAUSE %s%s%s", argus_root_reason_name(k->reason),
		         k->func[0] ? " in " : "", k->func);
		uint32_t stack = (k->v.flags & ARGUS_VF_WAITED) && k->v.wait_stack ? k->v.wait_stack
		                                                                   : k->v.stack_last;
		mark(w, ROOT_UUID(d->stall.id), k->v.pid, "argus: root cause", k->v.start,
		     k->v.end + k->v.wait_ns, name, "argus.root_cause", line, stack);
	}
}

static int tev_cmp(const void *a, const void *b)
{
	const struct tev *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (int)x->order - (int)y->order;
}

static void emit_tev(struct pw *w, const struct tev *e)
{
	Packet p = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	TrackEvent te = PERFETTO__PROTOS__TRACK_EVENT__INIT;
	Annotation an[EV_ARGS], *anp[EV_ARGS];
	char *cats[1] = {(char *)e->cat};
	Perfetto__Protos__TrackEvent__Callstack cs = PERFETTO__PROTOS__TRACK_EVENT__CALLSTACK__INIT;
	Perfetto__Protos__TrackEvent__Callstack__Frame fr[32], *frp[32];
	struct argus_frame names[32];
	p.has_timestamp = 1;
	p.timestamp = e->ts;
	te.has_type = 1;
	te.type = (Perfetto__Protos__TrackEvent__Type)e->type;
	te.has_track_uuid = 1;
	te.track_uuid = e->track;
	if (e->type != PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END) {
		te.name = (char *)e->name;
		te.n_categories = 1;
		te.categories = cats;
	}
	te.n_flow_ids = e->nflows;
	te.flow_ids = (uint64_t *)e->flows;
	te.n_terminating_flow_ids = e->nterm;
	te.terminating_flow_ids = (uint64_t *)e->term;
	for (unsigned i = 0; i < e->nargs; i++) {
		perfetto__protos__debug_annotation__init(&an[i]);
		an[i].name = (char *)e->args[i].key;
		if (e->args[i].is_int) {
			an[i].has_int_value = 1;
			an[i].int_value = e->args[i].i;
		} else {
			an[i].string_value = (char *)e->args[i].s;
		}
		anp[i] = &an[i];
	}
	te.n_debug_annotations = e->nargs;
	te.debug_annotations = anp;
	/* the segment's stack, inline, outermost first */
	const uint64_t *ips;
	uint32_t depth;
	if (e->stack && w->sym && w->sym->stack && w->sym->resolve &&
	    w->sym->stack(w->sym->arg, e->stack, &ips, &depth)) {
		uint32_t n = depth < 32 ? depth : 32;
		for (uint32_t i = 0; i < n; i++) {
			uint32_t k = n - 1 - i;
			perfetto__protos__track_event__callstack__frame__init(&fr[i]);
			memset(&names[i], 0, sizeof(names[i]));
			if (!w->sym->resolve(w->sym->arg, e->pid, ips[k], &names[i]) ||
			    !names[i].func[0])
				snprintf(names[i].func, sizeof(names[i].func), "0x%" PRIx64, ips[k]);
			fr[i].function_name = names[i].func;
			/* file:line when the object has DWARF (else object+offset:
			 * no source file) */
			char *colon = strrchr(names[i].srcline, ':');
			if (colon && colon[1] >= '0' && colon[1] <= '9' && !strchr(colon, '+')) {
				*colon = 0;
				fr[i].source_file = names[i].srcline;
				fr[i].has_line_number = 1;
				fr[i].line_number = (uint32_t)strtoul(colon + 1, NULL, 10);
			}
			frp[i] = &fr[i];
		}
		cs.n_frames = n;
		cs.frames = frp;
		if (n)
			te.callstack = &cs;
	}
	p.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_EVENT;
	p.track_event = &te;
	pw_emit(w, &p);
}

/* ---- the file ---- */

void argus_report_window(const struct argus_diagnosis *d, uint64_t *from, uint64_t *to)
{
	const uint64_t before = 10000000000ull; /* 10 s */
	uint64_t f = d->stall.since > before ? d->stall.since - before : 0;
	if (d->has_normal_path)
		for (uint32_t i = 0; i < d->normal_path.n; i++)
			if (d->normal_v[i].start < f)
				f = d->normal_v[i].start;
	for (uint32_t i = 0; i < d->path.n; i++)
		if (d->path_v[i].start < f)
			f = d->path_v[i].start;
	*from = f;
	*to = d->stall.end ? d->stall.end : d->stall.detected;
}

/* The diagnoses' windows, or with span (no diagnoses) [from, to]. */
static int perfetto_write(const struct argus_diagnosis *ds, size_t n,
                          const struct argus_report_ctx *c, const struct argus_report_records *rec,
                          const struct argus_symbolizer *sym, FILE *out,
                          struct argus_perfetto_counts *counts, const uint64_t *span)
{
	struct argus_perfetto_counts dummy;
	struct pw w = {.out = out, .c = c, .sym = sym, .n = counts ? counts : &dummy, .first = true};
	memset(w.n, 0, sizeof(*w.n));
	argus_hmap_init(&w.threads, sizeof(struct thr), 64);
	argus_hmap_init(&w.fnames, sizeof(struct intern), 64);
	argus_hmap_init(&w.mpaths, sizeof(struct intern), 16);
	/* the records of every window, once (windows of stalls close in time
	 * overlap) */
	uint64_t t_first = UINT64_MAX;
	if (span && rec && rec->each) {
		rec->each(rec->arg, span[0], span[1], pw_keep_record, &w);
		t_first = span[0];
	}
	for (size_t i = 0; i < n && rec && rec->each; i++) {
		uint64_t from, to;
		argus_report_window(&ds[i], &from, &to);
		if (from < t_first)
			t_first = from;
		if (w.emitted_to && from <= w.emitted_to)
			from = w.emitted_to + 1;
		if (from <= to) {
			rec->each(rec->arg, from, to, pw_keep_record, &w);
			w.emitted_to = to;
		}
	}
	for (size_t i = 0; i < n; i++)
		diagnosis_events(&w, &ds[i]);
	if (t_first == UINT64_MAX)
		t_first = n ? ds[0].stall.since : 0;
	pw_process_tree(&w, t_first);
	/* every CPU's scheduling */
	uint64_t cpus[1024 / 64] = {0};
	for (size_t i = 0; i < w.nrec; i++)
		if (w.rec[i].cpu < 1024)
			cpus[w.rec[i].cpu / 64] |= 1ull << (w.rec[i].cpu % 64);
	for (unsigned cpu = 0; cpu < 1024; cpu++)
		if (cpus[cpu / 64] & (1ull << (cpu % 64)))
			pw_cpu(&w, (uint16_t)cpu);
	if (w.ntev)
		qsort(w.tev, w.ntev, sizeof(*w.tev), tev_cmp);
	for (size_t i = 0; i < w.ntev; i++)
		emit_tev(&w, &w.tev[i]);
	for (size_t i = 0; i < w.nrec; i++)
		if (w.rec[i].type == ARGUS_EV_CPU_SAMPLE)
			pw_sample(&w, &w.rec[i]);
	free(w.tev);
	free(w.rec);
	argus_hmap_free(&w.vslice);
	argus_hmap_free(&w.tracks);
	argus_hmap_free(&w.threads);
	argus_hmap_free(&w.frames);
	argus_hmap_free(&w.stacks);
	pw_free_interns(&w.fnames);
	pw_free_interns(&w.mpaths);
	if (fflush(out) || ferror(out))
		w.failed = true;
	return w.failed ? -1 : 0;
}

int argus_report_perfetto(const struct argus_diagnosis *ds, size_t n,
                          const struct argus_report_ctx *c, const struct argus_report_records *rec,
                          const struct argus_symbolizer *sym, FILE *out,
                          struct argus_perfetto_counts *counts)
{
	return perfetto_write(ds, n, c, rec, sym, out, counts, NULL);
}

int argus_report_perfetto_span(uint64_t from, uint64_t to, const struct argus_report_ctx *c,
                               const struct argus_report_records *rec,
                               const struct argus_symbolizer *sym, FILE *out,
                               struct argus_perfetto_counts *counts)
{
	uint64_t span[2] = {from, to};
	return perfetto_write(NULL, 0, c, rec, sym, out, counts, span);
}
