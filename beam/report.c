/*
 * report.c - a diagnosis as terminal text, as JSON (docs/report.schema.json)
 * and as a legacy Chrome-trace JSON with flow arrows along the causal path
 * (docs/report.md; the native Perfetto trace is perfetto.c).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "beam.h"

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

void argus_thread_suffix(const char *comm, const char *thread, char *buf, size_t cap)
{
	/* most threads keep their process's name: say it only when it differs */
	if (thread && *thread && (!comm || strcmp(comm, thread)))
		snprintf(buf, cap, " (%s)", thread);
	else if (cap)
		*buf = 0;
}

/* "comm pid/tid" or "comm pid/tid (thread)". */
static void who_str(const struct argus_report_ctx *c, const struct argus_vertex_info *v, char *buf,
                    size_t cap)
{
	char t[ARGUS_COMM_LEN + 4];
	const char *comm = comm_of(c, v->pid);
	argus_thread_suffix(comm, thread_of(c, v->tid), t, sizeof(t));
	snprintf(buf, cap, "%s %u/%u%s", comm, v->pid, v->tid, t);
}

static double rel(const struct argus_report_ctx *c, uint64_t ts)
{
	return (double)(ts - (c && c->t0 <= ts ? c->t0 : 0)) / 1e9;
}

/* JSON string body with escapes. */
static void jstr(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			fprintf(out, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(out, "\\u%04x", ch);
		else
			fputc(ch, out);
	}
	fputc('"', out);
}

void argus_report_oneline(const struct argus_diagnosis *d, char *buf, size_t cap)
{
	uint64_t end = d->stall.end ? d->stall.end : d->stall.detected;
	snprintf(buf, cap, "%s stalled %.1f s: %s", d->stall.comm,
	         (double)(end - d->stall.since) / 1e9,
	         d->summary[0] ? d->summary : "root cause not found");
}

static void text_vertex(FILE *out, const struct argus_report_ctx *c,
                        const struct argus_vertex_info *v)
{
	const char *sc = v->wait_nr != 0xffff ? argus_syscall_name(v->wait_nr) : NULL;
	char who[64];
	who_str(c, v, who, sizeof(who));
	fprintf(out, "%s +%.6f..+%.6f s, %.1f ms on CPU", who, rel(c, v->start), rel(c, v->end),
	        v->oncpu_ns / 1e6);
	if (v->flags & ARGUS_VF_STOPPED)
		fprintf(out, ", then stopped%s", v->wait_ns ? "" : " (still stopped)");
	else if (v->flags & ARGUS_VF_WAITED)
		fprintf(out, ", then waited in %s%s", sc ? sc : "?",
		        v->wait_ns ? "" : " (still waiting)");
	if (v->wait_ns)
		fprintf(out, " %.1f ms", v->wait_ns / 1e6);
	if (v->flags & ARGUS_VF_UI)
		fputs(", UI input", out);
}

static void text_path(FILE *out, const struct argus_report_ctx *c, const struct argus_path *p,
                      const struct argus_vertex_info *pv)
{
	for (uint32_t i = 0; i < p->n; i++) {
		fprintf(out, "    %s", i ? "<- " : "   ");
		text_vertex(out, c, &pv[i]);
		if (i + 1 < p->n)
			fprintf(out, "   [%s %s]", argus_edge_kind_name(p->edge[i].kind),
			        p->edge[i].strength < 0   ? "strong"
			        : p->edge[i].strength > 0 ? "weak"
			                                  : "boosted");
		fputc('\n', out);
	}
	fprintf(out, "    penalty %d%s\n", p->penalty, p->ended ? "" : " (cut: beam or depth)");
}

void argus_report_text(const struct argus_diagnosis *d, const struct argus_report_ctx *c, FILE *out)
{
	const struct argus_stall *s = &d->stall;
	char line[512];
	argus_report_oneline(d, line, sizeof(line));
	fprintf(out, "stall %" PRIu64 ": %s\n", s->id, line);
	fprintf(out, "  app %s pid %u, UI thread %u; %s stall (%s) from +%.6f s, detected +%.6f s",
	        s->comm, s->pid, s->tid, argus_stall_class_name(s->cls),
	        argus_stall_cause_name(s->cause), rel(c, s->since), rel(c, s->detected));
	if (s->end)
		fprintf(out, ", ended +%.6f s (%.3f s)\n", rel(c, s->end),
		        (double)(s->end - s->since) / 1e9);
	else
		fputs(", still stalled at the end of the trace\n", out);
	fprintf(out, "  algorithm %s%s; diagnosed in %.1f ms over %" PRIu64 " vertices\n",
	        argus_algo_name(d->algo), d->no_weak_edges ? " (no weak edges)" : "",
	        d->diagnose_ns / 1e6, d->vertices_indexed);
	if (d->anomaly) {
		fputs("  anomaly vertex: ", out);
		text_vertex(out, c, &d->anomaly_v);
		fputc('\n', out);
	}
	if (d->costly_func[0])
		fprintf(out, "  costly function: %s (in %u of %u samples)\n", d->costly_func,
		        d->costly_samples, d->samples);
	if (d->nrules_used) {
		fputs("  rules used:", out);
		for (uint32_t i = 0; i < d->nrules_used; i++)
			fprintf(out, "%s %s", i ? "," : "", d->rules_used[i]);
		fputc('\n', out);
	}
	for (uint32_t i = 0; i < d->ncandidates; i++) {
		const struct argus_culprit *k = &d->candidates[i];
		fprintf(out, "  %s %u: %s, penalty %d, level %u, rule %s: ",
		        i ? "candidate" : "ROOT CAUSE", i + 1, argus_root_reason_name(k->reason),
		        k->penalty, k->depth, k->rule ? k->rule : "?");
		text_vertex(out, c, &k->v);
		if (k->func[0]) {
			fprintf(out, "; in %s (%s", k->func, k->srcline);
			if (k->object[0] && !strstr(k->srcline, k->object))
				fprintf(out, ", %s", k->object);
			fputs(k->system ? "; system runtime, no application frame)" : ")", out);
		}
		fputc('\n', out);
	}
	if (d->path.n) {
		fputs("  causal path (anomaly first):\n", out);
		text_path(out, c, &d->path, d->path_v);
	}
	if (d->has_normal_path) {
		fputs("  normal run's causal path (from the baseline):\n", out);
		text_path(out, c, &d->normal_path, d->normal_v);
	}
}

static void json_vertex(FILE *out, const struct argus_report_ctx *c,
                        const struct argus_vertex_info *v)
{
	fprintf(out, "{\"id\":%" PRIu64 ",\"pid\":%u,\"tid\":%u,\"comm\":", v->id, v->pid, v->tid);
	jstr(out, comm_of(c, v->pid));
	fputs(",\"thread\":", out);
	jstr(out, thread_of(c, v->tid));
	fprintf(out,
	        ",\"start\":%" PRIu64 ",\"end\":%" PRIu64 ",\"oncpu_ns\":%" PRIu64
	        ",\"waited\":%s,\"wait_syscall\":",
	        v->start, v->end, v->oncpu_ns, v->flags & ARGUS_VF_WAITED ? "true" : "false");
	const char *sc = v->wait_nr != 0xffff ? argus_syscall_name(v->wait_nr) : NULL;
	if (sc)
		jstr(out, sc);
	else
		fputs("null", out);
	fprintf(out, ",\"wait_ns\":%" PRIu64 ",\"wait_ret\":%d,\"ui\":%s,\"stopped\":%s}",
	        v->wait_ns, v->wait_ret, v->flags & ARGUS_VF_UI ? "true" : "false",
	        v->flags & ARGUS_VF_STOPPED ? "true" : "false");
}

static void json_path(FILE *out, const struct argus_report_ctx *c, const struct argus_path *p,
                      const struct argus_vertex_info *pv)
{
	fprintf(out, "{\"penalty\":%d,\"ended\":%s,\"vertices\":[", p->penalty,
	        p->ended ? "true" : "false");
	for (uint32_t i = 0; i < p->n; i++) {
		if (i)
			fputc(',', out);
		json_vertex(out, c, &pv[i]);
	}
	fputs("],\"edges\":[", out);
	for (uint32_t i = 0; i + 1 < p->n; i++)
		fprintf(out, "%s{\"kind\":\"%s\",\"strength\":%d,\"ts\":%" PRIu64 "}", i ? "," : "",
		        argus_edge_kind_name(p->edge[i].kind), p->edge[i].strength, p->edge[i].ts);
	fputs("]}", out);
}

static void json_culprit(FILE *out, const struct argus_report_ctx *c, const struct argus_culprit *k)
{
	fprintf(out, "{\"reason\":\"%s\",\"penalty\":%d,\"level\":%u,\"function\":",
	        argus_root_reason_name(k->reason), k->penalty, k->depth);
	if (k->func[0])
		jstr(out, k->func);
	else
		fputs("null", out);
	fputs(",\"where\":", out);
	if (k->srcline[0])
		jstr(out, k->srcline);
	else
		fputs("null", out);
	fputs(",\"object\":", out);
	if (k->func[0] && k->object[0])
		jstr(out, k->object);
	else
		fputs("null", out);
	fprintf(out, ",\"application\":%s", k->func[0] && !k->system ? "true" : "false");
	fputs(",\"rule\":", out);
	if (k->rule)
		jstr(out, k->rule);
	else
		fputs("null", out);
	fputs(",\"vertex\":", out);
	json_vertex(out, c, &k->v);
	fputc('}', out);
}

void argus_report_json(const struct argus_diagnosis *d, const struct argus_report_ctx *c, FILE *out)
{
	const struct argus_stall *s = &d->stall;
	char line[512];
	argus_report_oneline(d, line, sizeof(line));
	fputs("{\"version\":1,\"summary\":", out);
	jstr(out, line);
	fprintf(out, ",\"stall\":{\"id\":%" PRIu64 ",\"app\":", s->id);
	jstr(out, s->comm);
	fprintf(out,
	        ",\"pid\":%u,\"tid\":%u,\"class\":\"%s\",\"cause\":\"%s\",\"since\":%" PRIu64
	        ",\"detected\":%" PRIu64 ",\"end\":",
	        s->pid, s->tid, argus_stall_class_name(s->cls), argus_stall_cause_name(s->cause),
	        s->since, s->detected);
	if (s->end)
		fprintf(out, "%" PRIu64 ",\"duration_ns\":%" PRIu64, s->end, s->end - s->since);
	else
		fputs("null,\"duration_ns\":null", out);
	fprintf(out,
	        ",\"oncpu_ns\":%" PRIu64 ",\"blocked_ns\":%" PRIu64
	        ",\"yields\":%u,\"zero_polls\":%u},",
	        s->oncpu_ns, s->blocked_ns, s->yields, s->zero_polls);
	fprintf(out,
	        "\"algorithm\":\"%s\",\"no_weak_edges\":%s,\"diagnose_ns\":%" PRIu64
	        ",\"anomaly\":",
	        argus_algo_name(d->algo), d->no_weak_edges ? "true" : "false", d->diagnose_ns);
	if (d->anomaly)
		json_vertex(out, c, &d->anomaly_v);
	else
		fputs("null", out);
	fputs(",\"costly_function\":", out);
	if (d->costly_func[0])
		jstr(out, d->costly_func);
	else
		fputs("null", out);
	fputs(",\"majority_path\":[", out);
	for (const char *m = d->majority; *m;) { /* ";"-joined, innermost first */
		const char *e = strchr(m, ';');
		size_t n = e ? (size_t)(e - m) : strlen(m);
		char f[256];
		snprintf(f, sizeof(f), "%.*s", (int)n, m);
		if (m != d->majority)
			fputc(',', out);
		jstr(out, f);
		m = e ? e + 1 : m + n;
	}
	fputs("],\"rules_used\":[", out);
	for (uint32_t i = 0; i < d->nrules_used; i++) {
		if (i)
			fputc(',', out);
		jstr(out, d->rules_used[i]);
	}
	fputs("],\"root_cause\":", out);
	if (d->ncandidates)
		json_culprit(out, c, &d->candidates[0]);
	else
		fputs("null", out);
	fputs(",\"candidates\":[", out);
	for (uint32_t i = 0; i < d->ncandidates; i++) {
		if (i)
			fputc(',', out);
		json_culprit(out, c, &d->candidates[i]);
	}
	fputs("],\"path\":", out);
	json_path(out, c, &d->path, d->path_v);
	fputs(",\"normal_path\":", out);
	if (d->has_normal_path)
		json_path(out, c, &d->normal_path, d->normal_v);
	else
		fputs("null", out);
	fputc('}', out);
}

static void pf_slice(FILE *out, bool *first, const struct argus_report_ctx *c,
                     const struct argus_vertex_info *v, const char *name, const char *cat)
{
	fprintf(out, "%s\n{\"ph\":\"X\",\"pid\":%u,\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f,\"name\":",
	        *first ? "" : ",", v->pid, v->tid, (double)(v->start - c->t0) / 1e3,
	        (double)(v->end > v->start ? v->end - v->start : 1) / 1e3);
	jstr(out, name);
	fprintf(out, ",\"cat\":\"%s\",\"args\":{\"vertex\":%" PRIu64 "}}", cat, v->id);
	*first = false;
}

/* Process / thread names of a vertex's track (after a slice: never first). */
static void pf_names(FILE *out, const struct argus_report_ctx *c, const struct argus_vertex_info *v)
{
	fprintf(out, ",\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%u,\"args\":{\"name\":",
	        v->pid);
	jstr(out, comm_of(c, v->pid));
	fputs("}}", out);
	if (!*thread_of(c, v->tid))
		return;
	fprintf(out,
	        ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%u,\"tid\":%u,\"args\":{"
	        "\"name\":",
	        v->pid, v->tid);
	jstr(out, thread_of(c, v->tid));
	fputs("}}", out);
}

void argus_report_chrome_json(const struct argus_diagnosis *ds, size_t n,
                              const struct argus_report_ctx *c, FILE *out)
{
	bool first = true;
	uint64_t flow = 1;
	fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[", out);
	for (size_t i = 0; i < n; i++) {
		const struct argus_diagnosis *d = &ds[i];
		for (uint32_t k = 0; k < d->path.n; k++) {
			const struct argus_vertex_info *v = &d->path_v[k];
			char name[160];
			snprintf(name, sizeof(name), "%s%s", k == 0 ? "anomaly " : "",
			         comm_of(c, v->pid));
			pf_slice(out, &first, c, v, name, "causal_path");
			pf_names(out, c, v);
		}
		/* flow arrows from cause to effect: v[k+1] -> v[k] */
		for (uint32_t k = 0; k + 1 < d->path.n; k++, flow++) {
			const struct argus_vertex_info *src = &d->path_v[k + 1],
			                               *dst = &d->path_v[k];
			uint64_t ts = d->path.edge[k].ts;
			if (ts < src->start)
				ts = src->start;
			fprintf(out,
			        ",\n{\"ph\":\"s\",\"id\":%" PRIu64
			        ",\"pid\":%u,\"tid\":%u,\"ts\":%.3f,"
			        "\"name\":\"%s\",\"cat\":\"causal_path\"}",
			        flow, src->pid, src->tid, (double)(ts - c->t0) / 1e3,
			        argus_edge_kind_name(d->path.edge[k].kind));
			fprintf(out,
			        ",\n{\"ph\":\"f\",\"bp\":\"e\",\"id\":%" PRIu64
			        ",\"pid\":%u,\"tid\":%u,"
			        "\"ts\":%.3f,\"name\":\"%s\",\"cat\":\"causal_path\"}",
			        flow, dst->pid, dst->tid, (double)(dst->start - c->t0) / 1e3,
			        argus_edge_kind_name(d->path.edge[k].kind));
		}
		if (d->ncandidates) {
			char name[200];
			snprintf(name, sizeof(name), "ROOT CAUSE %s",
			         d->root.func[0] ? d->root.func : "");
			pf_slice(out, &first, c, &d->root.v, name, "root_cause");
			pf_names(out, c, &d->root.v);
		}
		/* the stall itself on the UI thread */
		uint64_t end = d->stall.end ? d->stall.end : d->stall.detected;
		fprintf(out,
		        "%s\n{\"ph\":\"X\",\"pid\":%u,\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f,\"name\":"
		        "\"stall %s\",\"cat\":\"stall\"}",
		        first ? "" : ",", d->stall.pid, d->stall.tid,
		        (double)(d->stall.since - c->t0) / 1e3,
		        (double)(end - d->stall.since) / 1e3, argus_stall_class_name(d->stall.cls));
		first = false;
	}
	fputs("\n]}\n", out);
}
