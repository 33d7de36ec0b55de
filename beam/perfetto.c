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

#include "beam.h"
#include "hashmap.h"
#include "perfetto_trace.pb-c.h"

typedef Perfetto__Protos__TracePacket Packet;
typedef Perfetto__Protos__TrackEvent TrackEvent;
typedef Perfetto__Protos__FtraceEvent FtraceEvent;
typedef Perfetto__Protos__DebugAnnotation Annotation;

#define SEQ 1 /* the one packet sequence argus writes */
#define SEQ_CLEARED 1
#define SEQ_NEEDS_STATE 2
#define THREAD_UUID(tid) ((1ull << 40) | (tid))
#define PROCESS_UUID(pid) ((2ull << 40) | (pid))
#define STALL_UUID(id) ((3ull << 40) | (id))
#define ROOT_UUID(id) ((4ull << 40) | (id))
#define BUNDLE_MAX 512 /* ftrace events per bundle */
#define EV_FLOWS 4     /* flows an event starts or ends at most */
#define EV_ARGS 6

/* A track event before sorting. */
struct tev {
	uint64_t ts;
	uint8_t type;  /* PERFETTO__PROTOS__TRACK_EVENT__TYPE__* */
	uint8_t order; /* at equal ts: ends, begins, instants */
	uint64_t track;
	char name[200];
	const char *cat;
	uint64_t flows[EV_FLOWS], term[EV_FLOWS];
	uint8_t nflows, nterm;
	struct {
		const char *key;
		char s[160];
		int64_t i;
		bool is_int;
	} args[EV_ARGS];
	uint8_t nargs;
	uint32_t pid, stack; /* callstack: the stack id, 0 = none */
};

struct thr {
	uint32_t pid;
	char name[ARGUS_COMM_LEN + 1];
};

struct intern {
	char *s;
	uint64_t iid;
};

struct pw {
	FILE *out;
	const struct argus_report_ctx *c;
	const struct argus_symbolizer *sym;
	struct argus_perfetto_counts *n;
	bool failed, first;
	/* track events */
	struct tev *tev;
	size_t ntev, ctev;
	struct argus_hmap vslice; /* vid -> index of its begin event + 1 */
	struct argus_hmap tracks; /* thread / process / mark uuid -> 1 */
	uint64_t next_flow;
	/* records of the windows */
	struct argus_event *rec;
	size_t nrec, crec;
	uint64_t emitted_to; /* records up to here are out (windows overlap) */
	struct argus_hmap threads; /* tid -> struct thr */
	/* interning for the samples */
	struct argus_hmap fnames, mpaths; /* string hash -> struct intern */
	struct argus_hmap frames;         /* pid ^ ip hash -> iid */
	struct argus_hmap stacks;         /* (pid << 32 | stack id) -> iid */
	uint64_t next_iid;
};

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
static void emit(struct pw *w, Packet *p)
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

static const char *comm_of(const struct argus_report_ctx *c, uint32_t pid)
{
	const char *s = c && c->comm ? c->comm(c->arg, pid) : NULL;
	return s ? s : "";
}

static const char *thread_of(const struct argus_report_ctx *c, uint32_t tid)
{
	const char *s = c && c->thread ? c->thread(c->arg, tid) : NULL;
	return s ? s : "";
}

/* The name of a thread as the scheduler records carry it. */
static const char *sched_name(struct pw *w, uint32_t tid)
{
	const struct thr *t = argus_hmap_get(&w->threads, tid);
	if (t && t->name[0])
		return t->name;
	const char *s = thread_of(w->c, tid);
	return *s ? s : t ? comm_of(w->c, t->pid) : "";
}

static void see_thread(struct pw *w, uint32_t pid, uint32_t tid, const char *name, size_t cap)
{
	if (!tid)
		return; /* the idle task */
	bool fresh;
	struct thr *t = argus_hmap_put(&w->threads, tid, &fresh);
	if (!t) {
		w->failed = true;
		return;
	}
	if (pid)
		t->pid = pid;
	if (name && name[0]) {
		size_t k = strnlen(name, cap < ARGUS_COMM_LEN ? cap : ARGUS_COMM_LEN);
		memcpy(t->name, name, k);
		t->name[k] = 0;
	} else if (fresh) {
		const char *s = thread_of(w->c, tid);
		snprintf(t->name, sizeof(t->name), "%s", *s ? s : comm_of(w->c, pid));
	}
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
		const char *t = thread_of(w->c, tid);
		snprintf(buf, sizeof(buf), "%s", *t ? t : comm_of(w->c, pid));
		thd.thread_name = buf;
		td.thread = &thd;
		w->n->threads++;
	} else if (name) {
		td.name = (char *)name;
	} else {
		pd.has_pid = 1;
		pd.pid = (int32_t)pid;
		snprintf(buf, sizeof(buf), "%s", comm_of(w->c, pid));
		pd.process_name = buf;
		td.process = &pd;
	}
	p.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_DESCRIPTOR;
	p.track_descriptor = &td;
	emit(w, &p);
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
	emit(w, &p);
}

/* ---- scheduling ---- */

static void keep_record(void *arg, const struct argus_event *ev)
{
	struct pw *w = arg;
	if (ev->ts <= w->emitted_to && w->emitted_to)
		return;
	if (ev->type != ARGUS_EV_SCHED_SWITCH && ev->type != ARGUS_EV_SCHED_WAKEUP &&
	    ev->type != ARGUS_EV_SCHED_WAKEUP_NEW && ev->type != ARGUS_EV_CPU_SAMPLE)
		return;
	if (w->nrec == w->crec) {
		size_t nc = w->crec ? 2 * w->crec : 4096;
		struct argus_event *n = realloc(w->rec, nc * sizeof(*n));
		if (!n) {
			w->failed = true;
			return;
		}
		w->rec = n;
		w->crec = nc;
	}
	w->rec[w->nrec++] = *ev;
	if (ev->type == ARGUS_EV_SCHED_SWITCH) {
		see_thread(w, ev->pid, ev->tid, NULL, 0);
		see_thread(w, ev->sched_switch.next_pid, ev->sched_switch.next_tid,
		           ev->sched_switch.next_comm, sizeof(ev->sched_switch.next_comm));
	} else if (ev->type != ARGUS_EV_CPU_SAMPLE) {
		see_thread(w, ev->pid, ev->tid, NULL, 0);
		see_thread(w, ev->wakeup.wakee_pid, ev->wakeup.wakee_tid, NULL, 0);
	}
}

static void emit_process_tree(struct pw *w, uint64_t ts)
{
	size_t n = w->threads.len, np = 0, nt = 0, pos = 0;
	if (!n)
		return;
	Perfetto__Protos__ProcessTree__Thread *th = calloc(n, sizeof(*th));
	Perfetto__Protos__ProcessTree__Thread **thp = calloc(n, sizeof(*thp));
	Perfetto__Protos__ProcessTree__Process *pr = calloc(n, sizeof(*pr));
	Perfetto__Protos__ProcessTree__Process **prp = calloc(n, sizeof(*prp));
	char(*pnames)[ARGUS_COMM_LEN + 1] = calloc(n, sizeof(*pnames));
	char **cmd = calloc(n, sizeof(*cmd));
	struct argus_hmap seen = {0};
	if (!th || !thp || !pr || !prp || !pnames || !cmd) {
		w->failed = true;
		goto out;
	}
	uint64_t tid;
	struct thr *t;
	while ((t = argus_hmap_next(&w->threads, &pos, &tid))) {
		perfetto__protos__process_tree__thread__init(&th[nt]);
		th[nt].has_tid = 1;
		th[nt].tid = (int32_t)tid;
		if (t->pid) {
			th[nt].has_tgid = 1;
			th[nt].tgid = (int32_t)t->pid;
		}
		th[nt].name = t->name;
		thp[nt] = &th[nt];
		nt++;
		bool fresh;
		if (!t->pid || !argus_hmap_put(&seen, t->pid, &fresh) || !fresh)
			continue;
		perfetto__protos__process_tree__process__init(&pr[np]);
		pr[np].has_pid = 1;
		pr[np].pid = (int32_t)t->pid;
		const char *c = comm_of(w->c, t->pid);
		snprintf(pnames[np], sizeof(pnames[np]), "%s", *c ? c : t->pid == tid ? t->name : "");
		cmd[np] = pnames[np];
		pr[np].n_cmdline = 1;
		pr[np].cmdline = &cmd[np];
		prp[np] = &pr[np];
		np++;
	}
	Packet p = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	Perfetto__Protos__ProcessTree tree = PERFETTO__PROTOS__PROCESS_TREE__INIT;
	tree.n_processes = np;
	tree.processes = prp;
	tree.n_threads = nt;
	tree.threads = thp;
	p.has_timestamp = 1;
	p.timestamp = ts;
	p.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_PROCESS_TREE;
	p.process_tree = &tree;
	emit(w, &p);
out:
	argus_hmap_free(&seen);
	free(th);
	free(thp);
	free(pr);
	free(prp);
	free(pnames);
	free(cmd);
}

/* The scheduler records of one CPU, in bundles. */
static void emit_cpu(struct pw *w, uint16_t cpu)
{
	FtraceEvent fe[BUNDLE_MAX], *fep[BUNDLE_MAX];
	Perfetto__Protos__SchedSwitchFtraceEvent sw[BUNDLE_MAX];
	Perfetto__Protos__SchedWakingFtraceEvent wk[BUNDLE_MAX];
	Perfetto__Protos__SchedWakeupNewFtraceEvent wn[BUNDLE_MAX];
	static const size_t NAME = ARGUS_COMM_LEN + 1;
	char(*names)[2][ARGUS_COMM_LEN + 1] = malloc(BUNDLE_MAX * sizeof(*names));
	if (!names) {
		w->failed = true;
		return;
	}
	size_t k = 0;
	for (size_t i = 0; i <= w->nrec; i++) {
		const struct argus_event *ev = i < w->nrec ? &w->rec[i] : NULL;
		if (k && (!ev || k == BUNDLE_MAX)) {
			Packet p = PERFETTO__PROTOS__TRACE_PACKET__INIT;
			Perfetto__Protos__FtraceEventBundle b = PERFETTO__PROTOS__FTRACE_EVENT_BUNDLE__INIT;
			b.has_cpu = 1;
			b.cpu = cpu;
			b.n_event = k;
			b.event = fep;
			p.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_FTRACE_EVENTS;
			p.ftrace_events = &b;
			emit(w, &p);
			k = 0;
		}
		if (!ev || ev->cpu != cpu || ev->type == ARGUS_EV_CPU_SAMPLE)
			continue;
		perfetto__protos__ftrace_event__init(&fe[k]);
		fe[k].has_timestamp = fe[k].has_pid = 1;
		fe[k].timestamp = ev->ts;
		fe[k].pid = ev->tid;
		if (ev->type == ARGUS_EV_SCHED_SWITCH) {
			const struct argus_ev_sched_switch *s = &ev->sched_switch;
			Perfetto__Protos__SchedSwitchFtraceEvent *m = &sw[k];
			perfetto__protos__sched_switch_ftrace_event__init(m);
			snprintf(names[k][0], NAME, "%s", ev->tid ? sched_name(w, ev->tid) : "swapper");
			size_t nl = strnlen(s->next_comm, ARGUS_COMM_LEN);
			memcpy(names[k][1], s->next_comm, nl);
			names[k][1][nl] = 0;
			if (!nl)
				snprintf(names[k][1], NAME, "%s",
				         s->next_tid ? sched_name(w, s->next_tid) : "swapper");
			m->prev_comm = names[k][0];
			m->next_comm = names[k][1];
			m->has_prev_pid = m->has_prev_prio = m->has_prev_state = 1;
			m->has_next_pid = m->has_next_prio = 1;
			m->prev_pid = (int32_t)ev->tid;
			m->prev_prio = (int32_t)s->prev_prio;
			m->prev_state = s->prev_state;
			m->next_pid = (int32_t)s->next_tid;
			m->next_prio = (int32_t)s->next_prio;
			fe[k].event_case = PERFETTO__PROTOS__FTRACE_EVENT__EVENT_SCHED_SWITCH;
			fe[k].sched_switch = m;
		} else {
			const struct argus_ev_wakeup *u = &ev->wakeup;
			snprintf(names[k][0], NAME, "%s", sched_name(w, u->wakee_tid));
			if (ev->type == ARGUS_EV_SCHED_WAKEUP) {
				Perfetto__Protos__SchedWakingFtraceEvent *m = &wk[k];
				perfetto__protos__sched_waking_ftrace_event__init(m);
				m->comm = names[k][0];
				m->has_pid = m->has_prio = m->has_success = m->has_target_cpu = 1;
				m->pid = (int32_t)u->wakee_tid;
				m->prio = (int32_t)u->wakee_prio;
				m->success = 1;
				m->target_cpu = (int32_t)u->target_cpu;
				fe[k].event_case = PERFETTO__PROTOS__FTRACE_EVENT__EVENT_SCHED_WAKING;
				fe[k].sched_waking = m;
			} else {
				Perfetto__Protos__SchedWakeupNewFtraceEvent *m = &wn[k];
				perfetto__protos__sched_wakeup_new_ftrace_event__init(m);
				m->comm = names[k][0];
				m->has_pid = m->has_prio = m->has_success = m->has_target_cpu = 1;
				m->pid = (int32_t)u->wakee_tid;
				m->prio = (int32_t)u->wakee_prio;
				m->success = 1;
				m->target_cpu = (int32_t)u->target_cpu;
				fe[k].event_case = PERFETTO__PROTOS__FTRACE_EVENT__EVENT_SCHED_WAKEUP_NEW;
				fe[k].sched_wakeup_new = m;
			}
		}
		fep[k] = &fe[k];
		k++;
		w->n->sched++;
	}
	free(names);
}

/* ---- samples ---- */

static uint64_t str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

static bool same_str(const void *val, void *arg)
{
	return !strcmp(((const struct intern *)val)->s, arg);
}

/* The iid of a string in table m; *fresh when new (to be emitted). */
static uint64_t intern_str(struct pw *w, struct argus_hmap *m, const char *s, bool *fresh)
{
	uint64_t key;
	struct intern *e = argus_hmap_find_by(m, str_hash(s), same_str, (void *)s, &key);
	*fresh = false;
	if (e)
		return e->iid;
	e = argus_hmap_put(m, key, NULL);
	char *dup = strdup(s);
	if (!e || !dup) {
		free(dup);
		w->failed = true;
		return 0;
	}
	e->s = dup;
	e->iid = ++w->next_iid;
	*fresh = true;
	return e->iid;
}

#define SAMPLE_FRAMES 64

static void emit_sample(struct pw *w, const struct argus_event *ev)
{
	const uint64_t *ips = NULL;
	uint32_t depth = 0;
	uint32_t id = ev->stack.ustack;
	Packet p = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	Perfetto__Protos__PerfSample ps = PERFETTO__PROTOS__PERF_SAMPLE__INIT;
	Perfetto__Protos__InternedData in = PERFETTO__PROTOS__INTERNED_DATA__INIT;
	Perfetto__Protos__InternedString fn[SAMPLE_FRAMES], mp[SAMPLE_FRAMES];
	Perfetto__Protos__InternedString *fnp[SAMPLE_FRAMES], *mpp[SAMPLE_FRAMES];
	Perfetto__Protos__Mapping map[SAMPLE_FRAMES], *mapp[SAMPLE_FRAMES];
	Perfetto__Protos__Frame fr[SAMPLE_FRAMES], *frp[SAMPLE_FRAMES];
	Perfetto__Protos__Callstack cs = PERFETTO__PROTOS__CALLSTACK__INIT, *csp = &cs;
	uint64_t frame_ids[SAMPLE_FRAMES], path_ids[SAMPLE_FRAMES];
	struct argus_frame names[SAMPLE_FRAMES];
	size_t nfn = 0, nmp = 0, nfr = 0;
	ps.has_cpu = ps.has_pid = ps.has_tid = ps.has_cpu_mode = 1;
	ps.cpu = ev->cpu;
	ps.pid = ev->pid;
	ps.tid = ev->tid;
	ps.cpu_mode = PERFETTO__PROTOS__PROFILING__CPU_MODE__MODE_USER;
	uint64_t skey = (uint64_t)ev->pid << 32 | id;
	uint64_t *known = id ? argus_hmap_get(&w->stacks, skey) : NULL;
	if (known) {
		ps.has_callstack_iid = 1;
		ps.callstack_iid = *known;
	} else if (id && w->sym && w->sym->stack && w->sym->stack(w->sym->arg, id, &ips, &depth) &&
	           depth) {
		uint32_t n = depth < SAMPLE_FRAMES ? depth : SAMPLE_FRAMES;
		for (uint32_t i = 0; i < n; i++) {
			uint64_t ip = ips[n - 1 - i]; /* outermost first */
			uint64_t fkey = ip * 0x9e3779b97f4a7c15ull ^ ev->pid;
			uint64_t *fid = argus_hmap_get(&w->frames, fkey);
			if (fid) {
				frame_ids[i] = *fid;
				continue;
			}
			struct argus_frame *f = &names[nfr];
			memset(f, 0, sizeof(*f));
			if (!w->sym->resolve || !w->sym->resolve(w->sym->arg, ev->pid, ip, f) ||
			    !f->func[0])
				snprintf(f->func, sizeof(f->func), "0x%" PRIx64, ip);
			bool fresh;
			uint64_t fnid = intern_str(w, &w->fnames, f->func, &fresh);
			if (fresh) {
				perfetto__protos__interned_string__init(&fn[nfn]);
				fn[nfn].has_iid = fn[nfn].has_str = 1;
				fn[nfn].iid = fnid;
				fn[nfn].str.data = (uint8_t *)f->func;
				fn[nfn].str.len = strlen(f->func);
				fnp[nfn] = &fn[nfn];
				nfn++;
			}
			const char *obj = f->object[0] ? f->object : "[unknown]";
			uint64_t mid = intern_str(w, &w->mpaths, obj, &fresh);
			if (fresh) {
				/* the mapping and its path share the iid */
				perfetto__protos__interned_string__init(&mp[nmp]);
				mp[nmp].has_iid = mp[nmp].has_str = 1;
				mp[nmp].iid = mid;
				mp[nmp].str.data = (uint8_t *)obj;
				mp[nmp].str.len = strlen(obj);
				mpp[nmp] = &mp[nmp];
				perfetto__protos__mapping__init(&map[nmp]);
				map[nmp].has_iid = 1;
				map[nmp].iid = mid;
				path_ids[nmp] = mid;
				map[nmp].n_path_string_ids = 1;
				map[nmp].path_string_ids = &path_ids[nmp];
				mapp[nmp] = &map[nmp];
				nmp++;
			}
			perfetto__protos__frame__init(&fr[nfr]);
			fr[nfr].has_iid = fr[nfr].has_function_name_id = 1;
			fr[nfr].has_mapping_id = fr[nfr].has_rel_pc = 1;
			fr[nfr].iid = ++w->next_iid;
			fr[nfr].function_name_id = fnid;
			fr[nfr].mapping_id = mid;
			fr[nfr].rel_pc = ip;
			frp[nfr] = &fr[nfr];
			frame_ids[i] = fr[nfr].iid;
			if (!argus_hmap_set_u64(&w->frames, fkey, fr[nfr].iid))
				w->failed = true;
			nfr++;
		}
		cs.has_iid = 1;
		cs.iid = ++w->next_iid;
		cs.n_frame_ids = n;
		cs.frame_ids = frame_ids;
		if (!argus_hmap_set_u64(&w->stacks, skey, cs.iid))
			w->failed = true;
		in.n_function_names = nfn;
		in.function_names = fnp;
		in.n_mapping_paths = nmp;
		in.mapping_paths = mpp;
		in.n_mappings = nmp;
		in.mappings = mapp;
		in.n_frames = nfr;
		in.frames = frp;
		in.n_callstacks = 1;
		in.callstacks = &csp;
		p.interned_data = &in;
		ps.has_callstack_iid = 1;
		ps.callstack_iid = cs.iid;
	}
	p.has_timestamp = 1;
	p.timestamp = ev->ts;
	p.has_sequence_flags = 1;
	p.sequence_flags = SEQ_NEEDS_STATE;
	p.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_PERF_SAMPLE;
	p.perf_sample = &ps;
	emit(w, &p);
	w->n->samples++;
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

static void free_interns(struct argus_hmap *m)
{
	size_t pos = 0;
	struct intern *e;
	while ((e = argus_hmap_next(m, &pos, NULL)))
		free(e->s);
	argus_hmap_free(m);
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
		rec->each(rec->arg, span[0], span[1], keep_record, &w);
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
			rec->each(rec->arg, from, to, keep_record, &w);
			w.emitted_to = to;
		}
	}
	for (size_t i = 0; i < n; i++)
		diagnosis_events(&w, &ds[i]);
	if (t_first == UINT64_MAX)
		t_first = n ? ds[0].stall.since : 0;
	emit_process_tree(&w, t_first);
	/* every CPU's scheduling */
	uint64_t cpus[1024 / 64] = {0};
	for (size_t i = 0; i < w.nrec; i++)
		if (w.rec[i].cpu < 1024)
			cpus[w.rec[i].cpu / 64] |= 1ull << (w.rec[i].cpu % 64);
	for (unsigned cpu = 0; cpu < 1024; cpu++)
		if (cpus[cpu / 64] & (1ull << (cpu % 64)))
			emit_cpu(&w, (uint16_t)cpu);
	if (w.ntev)
		qsort(w.tev, w.ntev, sizeof(*w.tev), tev_cmp);
	for (size_t i = 0; i < w.ntev; i++)
		emit_tev(&w, &w.tev[i]);
	for (size_t i = 0; i < w.nrec; i++)
		if (w.rec[i].type == ARGUS_EV_CPU_SAMPLE)
			emit_sample(&w, &w.rec[i]);
	free(w.tev);
	free(w.rec);
	argus_hmap_free(&w.vslice);
	argus_hmap_free(&w.tracks);
	argus_hmap_free(&w.threads);
	argus_hmap_free(&w.frames);
	argus_hmap_free(&w.stacks);
	free_interns(&w.fnames);
	free_interns(&w.mpaths);
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
