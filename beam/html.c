/*
 * html.c - a diagnosis as one self-contained HTML page (no scripts, no
 * external files; docs/report.md "HTML"): the one line, a timeline of the
 * threads involved (their scheduling states from the window's records,
 * each segment a box coloured by its part, the causal edges as arrows -
 * dashed when weak -, the stall and the root cause highlighted, a hover
 * title with each segment's stack), the normal run and the stalled run
 * side by side, the root cause's stack with source lines, the UI thread's
 * samples as a flame graph for a LongRunning stall, the commands that
 * diagnose it again, and the text report.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "beam.h"
#include "hashmap.h"

#define W 1100     /* timeline width */
#define LEFT 250   /* label column */
#define LANE 40    /* lane height */
#define TOP 34     /* above the first lane */
#define MAXLANES 48
#define COLS (W - LEFT - 20)

/* Scheduling states drawn under the segments, by priority in a column. */
enum { ST_NONE = 0, ST_SLEEP = 1, ST_RUNNABLE = 2, ST_RUNNING = 3 };
static const char *const state_fill[] = {NULL, "#e4e4e4", "#f3d36b", "#4caf50"};
static const char *const state_name[] = {NULL, "sleeping", "runnable", "running"};

struct lane {
	uint32_t pid, tid;
	uint8_t col[COLS]; /* state per pixel column */
	uint8_t cur;       /* state now, while reading the records */
	uint64_t since;
};

struct tl {
	FILE *out;
	const struct argus_report_ctx *c;
	const struct argus_symbolizer *sym;
	uint64_t t0, t1;
	double scale;
	struct lane *lane;
	uint32_t nl;
};

static void esc(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", out);
		else if (*s == '>')
			fputs("&gt;", out);
		else if (*s == '&')
			fputs("&amp;", out);
		else if (*s == '"')
			fputs("&quot;", out);
		else
			fputc(*s, out);
	}
}

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

static void who(const struct argus_report_ctx *c, uint32_t pid, uint32_t tid, char *buf,
                size_t cap)
{
	char t[ARGUS_COMM_LEN + 4];
	const char *comm = comm_of(c, pid);
	argus_thread_suffix(comm, thread_of(c, tid), t, sizeof(t));
	snprintf(buf, cap, "%s %u/%u%s", comm, pid, tid, t);
}

static double rel(const struct argus_report_ctx *c, uint64_t ts)
{
	return (double)(ts - (c && c->t0 <= ts ? c->t0 : 0)) / 1e9;
}

static double x_of(const struct tl *t, uint64_t ts)
{
	if (ts < t->t0)
		ts = t->t0;
	if (ts > t->t1)
		ts = t->t1;
	return LEFT + (double)(ts - t->t0) * t->scale;
}

/* Frames of a stack, innermost first, as "func (where)" lines. */
static void stack_lines(FILE *out, const struct argus_symbolizer *sym, uint32_t pid, uint32_t id,
                        unsigned max, bool html_list)
{
	const uint64_t *ips;
	uint32_t depth;
	if (!id || !sym || !sym->stack || !sym->stack(sym->arg, id, &ips, &depth))
		return;
	for (uint32_t i = 0; i < depth && i < max; i++) {
		struct argus_frame f;
		memset(&f, 0, sizeof(f));
		bool ok = sym->resolve && sym->resolve(sym->arg, pid, ips[i], &f) && f.func[0];
		char line[400];
		if (ok)
			snprintf(line, sizeof(line), "%s (%s)", f.func, f.srcline);
		else
			snprintf(line, sizeof(line), "0x%" PRIx64, ips[i]);
		if (html_list) {
			fprintf(out, "<li class=\"%s\">", ok && !f.system ? "app" : "sys");
			esc(out, line);
			fputs("</li>\n", out);
		} else {
			fputs("\n  ", out);
			esc(out, line);
		}
	}
}

static uint32_t seg_stack(const struct argus_vertex_info *v)
{
	return (v->flags & ARGUS_VF_WAITED) && v->wait_stack ? v->wait_stack : v->stack_last;
}

static int lane_of(struct tl *t, uint32_t pid, uint32_t tid)
{
	for (uint32_t i = 0; i < t->nl; i++)
		if (t->lane[i].tid == tid)
			return (int)i;
	if (t->nl == MAXLANES)
		return -1;
	struct lane *l = &t->lane[t->nl];
	memset(l, 0, sizeof(*l));
	l->pid = pid;
	l->tid = tid;
	return (int)t->nl++;
}

/* ---- scheduling states from the records ---- */

static void mark_cols(struct tl *t, struct lane *l, uint64_t a, uint64_t b, uint8_t st)
{
	if (!st || b < t->t0 || a > t->t1)
		return;
	int c0 = (int)(x_of(t, a) - LEFT), c1 = (int)(x_of(t, b) - LEFT);
	for (int c = c0 < 0 ? 0 : c0; c <= c1 && c < COLS; c++)
		if (l->col[c] < st)
			l->col[c] = st;
}

static void set_state(struct tl *t, uint32_t tid, uint64_t ts, uint8_t st)
{
	for (uint32_t i = 0; i < t->nl; i++) {
		struct lane *l = &t->lane[i];
		if (l->tid != tid)
			continue;
		mark_cols(t, l, l->since ? l->since : ts, ts, l->cur);
		l->cur = st;
		l->since = ts;
	}
}

static void on_record(void *arg, const struct argus_event *ev)
{
	struct tl *t = arg;
	if (ev->type == ARGUS_EV_SCHED_SWITCH) {
		set_state(t, ev->tid, ev->ts, ev->sched_switch.prev_state ? ST_SLEEP : ST_RUNNABLE);
		set_state(t, ev->sched_switch.next_tid, ev->ts, ST_RUNNING);
	} else if (ev->type == ARGUS_EV_SCHED_WAKEUP || ev->type == ARGUS_EV_SCHED_WAKEUP_NEW) {
		set_state(t, ev->wakeup.wakee_tid, ev->ts, ST_RUNNABLE);
	}
}

static void read_states(struct tl *t, const struct argus_report_records *rec)
{
	if (!rec || !rec->each)
		return;
	rec->each(rec->arg, t->t0, t->t1, on_record, t);
	for (uint32_t i = 0; i < t->nl; i++)
		if (t->lane[i].since)
			mark_cols(t, &t->lane[i], t->lane[i].since, t->t1, t->lane[i].cur);
}

static void draw_states(struct tl *t, uint32_t k)
{
	const struct lane *l = &t->lane[k];
	for (int c = 0; c < COLS;) {
		int e = c;
		while (e < COLS && l->col[e] == l->col[c])
			e++;
		if (l->col[c])
			fprintf(t->out,
			        "<rect class=\"state %s\" x=\"%d\" y=\"%u\" width=\"%d\" height=\"6\" "
			        "fill=\"%s\"/>\n",
			        state_name[l->col[c]], LEFT + c, TOP + k * LANE + 30, e - c,
			        state_fill[l->col[c]]);
		c = e;
	}
}

/* ---- the timeline ---- */

struct seg {
	const struct argus_vertex_info *v;
	const char *cls;  /* anomaly, root, path, candidate, normal */
	const char *fill; /* box colour */
};

static void draw_seg(struct tl *t, const struct seg *s)
{
	const struct argus_vertex_info *v = s->v;
	int k = lane_of(t, v->pid, v->tid);
	if (k < 0)
		return;
	double x = x_of(t, v->start), w = x_of(t, v->end) - x;
	if (w < 2)
		w = 2;
	bool root = !strcmp(s->cls, "root");
	fprintf(t->out,
	        "<rect class=\"seg %s\" x=\"%.1f\" y=\"%u\" width=\"%.1f\" height=\"20\" "
	        "fill=\"%s\"%s><title>",
	        s->cls, x, TOP + k * LANE + 6, w, s->fill,
	        root ? " stroke=\"#000\" stroke-width=\"2\"" : "");
	char b[96];
	who(t->c, v->pid, v->tid, b, sizeof(b));
	esc(t->out, b);
	const char *sc = v->wait_nr != 0xffff ? argus_syscall_name(v->wait_nr) : NULL;
	fprintf(t->out, " (%s)\n+%.6f..+%.6f s, %.1f ms on CPU", s->cls, rel(t->c, v->start),
	        rel(t->c, v->end), v->oncpu_ns / 1e6);
	if (v->flags & ARGUS_VF_WAITED)
		fprintf(t->out, ", then waited in %s %.1f ms", sc ? sc : "?", v->wait_ns / 1e6);
	stack_lines(t->out, t->sym, v->pid, seg_stack(v), 16, false);
	fputs("</title></rect>\n", t->out);
	if (v->flags & ARGUS_VF_WAITED) {
		uint64_t we = v->wait_ns ? v->end + v->wait_ns : t->t1;
		/* the root cause's wait is what the stall waited for: filled */
		fprintf(t->out,
		        "<rect class=\"wait%s\" x=\"%.1f\" y=\"%u\" width=\"%.1f\" height=\"10\" "
		        "fill=\"%s\" fill-opacity=\"0.35\" stroke=\"%s\" stroke-dasharray=\"3,2\">"
		        "<title>waiting in %s</title></rect>\n",
		        root ? " root" : "", x_of(t, v->end), TOP + k * LANE + 11,
		        x_of(t, we) - x_of(t, v->end) + 1, root ? s->fill : "none", s->fill,
		        sc ? sc : "?");
	}
}

static void draw_edges(struct tl *t, const struct argus_path *p, const struct argus_vertex_info *pv)
{
	for (uint32_t i = 0; i + 1 < p->n; i++) {
		const struct argus_vertex_info *src = &pv[i + 1], *dst = &pv[i];
		int ks = lane_of(t, src->pid, src->tid), kd = lane_of(t, dst->pid, dst->tid);
		if (ks < 0 || kd < 0)
			continue;
		int st = p->edge[i].strength;
		const char *name = st < 0 ? "strong" : st > 0 ? "weak" : "boosted";
		fprintf(t->out,
		        "<line class=\"edge %s\" x1=\"%.1f\" y1=\"%u\" x2=\"%.1f\" y2=\"%u\" "
		        "stroke=\"%s\" stroke-width=\"1.5\" marker-end=\"url(#arrow)\"%s><title>%s "
		        "%s edge</title></line>\n",
		        name, x_of(t, p->edge[i].ts), TOP + (unsigned)ks * LANE + 16, x_of(t, dst->start),
		        TOP + (unsigned)kd * LANE + 16, st > 0 ? "#777" : "#222",
		        st > 0 ? " stroke-dasharray=\"5,3\"" : "", name,
		        argus_edge_kind_name(p->edge[i].kind));
	}
}

/* An SVG timeline of segs over [t0, t1], the path's edges as arrows;
 * with stall: its bar on the UI thread's lane. */
static void timeline(FILE *out, const struct argus_report_ctx *c,
                     const struct argus_symbolizer *sym, const struct argus_report_records *rec,
                     const struct seg *segs, uint32_t nsegs, const struct argus_path *p,
                     const struct argus_vertex_info *pv, const struct argus_diagnosis *stall,
                     const char *cls, unsigned width_pct)
{
	struct tl t = {.out = out, .c = c, .sym = sym, .t0 = UINT64_MAX};
	t.lane = calloc(MAXLANES, sizeof(*t.lane));
	if (!t.lane)
		return;
	if (stall)
		lane_of(&t, stall->stall.pid, stall->stall.tid);
	for (uint32_t i = 0; i < nsegs; i++) {
		lane_of(&t, segs[i].v->pid, segs[i].v->tid);
		if (segs[i].v->start < t.t0)
			t.t0 = segs[i].v->start;
		uint64_t e = segs[i].v->end + segs[i].v->wait_ns;
		if (e > t.t1)
			t.t1 = e;
	}
	uint64_t send = 0;
	if (stall) {
		send = stall->stall.end ? stall->stall.end : stall->stall.detected;
		if (stall->stall.since < t.t0)
			t.t0 = stall->stall.since;
		if (send > t.t1)
			t.t1 = send;
	}
	if (t.t0 == UINT64_MAX)
		t.t0 = t.t1;
	uint64_t margin = (t.t1 - t.t0) / 50;
	t.t0 = t.t0 > margin ? t.t0 - margin : 0;
	t.t1 += margin + 1;
	t.scale = (double)COLS / (double)(t.t1 - t.t0);
	read_states(&t, rec);
	fprintf(out,
	        "<svg class=\"%s\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %u\" "
	        "width=\"%u%%\" font-family=\"sans-serif\" font-size=\"12\">\n"
	        "<defs><marker id=\"arrow\" markerWidth=\"8\" markerHeight=\"8\" refX=\"8\" "
	        "refY=\"4\" orient=\"auto\"><path d=\"M0,0 L8,4 L0,8 z\" fill=\"#222\"/></marker>"
	        "</defs>\n",
	        cls, W, TOP + t.nl * LANE + 30, width_pct);
	for (uint32_t k = 0; k < t.nl; k++) {
		char b[96];
		who(c, t.lane[k].pid, t.lane[k].tid, b, sizeof(b));
		fprintf(out, "<text class=\"lane\" x=\"4\" y=\"%u\">", TOP + k * LANE + 20);
		esc(out, b);
		fprintf(out,
		        "</text>\n<line x1=\"%d\" x2=\"%d\" y1=\"%u\" y2=\"%u\" stroke=\"#ccc\"/>\n",
		        LEFT, W - 10, TOP + k * LANE + 16, TOP + k * LANE + 16);
		draw_states(&t, k);
	}
	int sk = stall ? lane_of(&t, stall->stall.pid, stall->stall.tid) : -1;
	if (stall)
		fprintf(out,
		        "<rect class=\"stall-bar\" x=\"%.1f\" y=\"%u\" width=\"%.1f\" height=\"%u\" "
		        "fill=\"#d32f2f\" fill-opacity=\"0.18\" stroke=\"#d32f2f\"><title>stall: %.2f s "
		        "(%s)</title></rect>\n",
		        x_of(&t, stall->stall.since), TOP + (unsigned)sk * LANE + 2,
		        x_of(&t, send) - x_of(&t, stall->stall.since) + 1, LANE - 4,
		        (double)(send - stall->stall.since) / 1e9,
		        argus_stall_class_name(stall->stall.cls));
	for (uint32_t i = 0; i < nsegs; i++)
		draw_seg(&t, &segs[i]);
	if (p)
		draw_edges(&t, p, pv);
	if (stall) /* the label over everything, above the lane */
		fprintf(out,
		        "<text x=\"%.1f\" y=\"%u\" fill=\"#b71c1c\" font-weight=\"bold\">STALL %.2f "
		        "s</text>\n",
		        x_of(&t, stall->stall.since) + 4, TOP + (unsigned)sk * LANE - 2,
		        (double)(send - stall->stall.since) / 1e9);
	fprintf(out,
	        "<text x=\"%d\" y=\"%u\">+%.3f s</text><text x=\"%d\" y=\"%u\" "
	        "text-anchor=\"end\">+%.3f s</text>\n</svg>\n",
	        LEFT, TOP + t.nl * LANE + 20, rel(c, t.t0), W - 10, TOP + t.nl * LANE + 20,
	        rel(c, t.t1));
	free(t.lane);
}

/* ---- flame graph of the UI thread's samples (LongRunning) ---- */

#define FG_NODES 2048
#define FG_DEPTH 48
struct fg_node {
	char func[128];
	uint32_t parent, count, first_child, next;
};
struct fg {
	struct fg_node *n;
	uint32_t nn, samples, tid;
	uint64_t from, to;
	const struct argus_symbolizer *sym;
	struct argus_hmap leaf; /* stack id -> its innermost node (named once) */
};

static uint32_t fg_child(struct fg *g, uint32_t parent, const char *func)
{
	for (uint32_t c = g->n[parent].first_child; c; c = g->n[c].next)
		if (!strcmp(g->n[c].func, func))
			return c;
	if (g->nn == FG_NODES)
		return 0;
	uint32_t c = g->nn++;
	memset(&g->n[c], 0, sizeof(g->n[c]));
	snprintf(g->n[c].func, sizeof(g->n[c].func), "%s", func);
	g->n[c].parent = parent;
	g->n[c].next = g->n[parent].first_child;
	g->n[parent].first_child = c;
	return c;
}

static void fg_sample(void *arg, const struct argus_event *ev)
{
	struct fg *g = arg;
	const uint64_t *ips;
	uint32_t depth;
	if (ev->type != ARGUS_EV_CPU_SAMPLE || ev->tid != g->tid || !ev->stack.ustack || !g->sym ||
	    !g->sym->stack || !g->sym->stack(g->sym->arg, ev->stack.ustack, &ips, &depth))
		return;
	g->samples++;
	g->n[0].count++;
	uint64_t *known = argus_hmap_get(&g->leaf, ev->stack.ustack);
	if (known) { /* a stack seen before: count along its nodes */
		for (uint32_t c = (uint32_t)*known; c; c = g->n[c].parent)
			g->n[c].count++;
		return;
	}
	uint32_t at = 0;
	uint32_t n = depth < FG_DEPTH ? depth : FG_DEPTH;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t ip = ips[n - 1 - i]; /* outermost first */
		struct argus_frame f;
		memset(&f, 0, sizeof(f));
		if (!g->sym->resolve || !g->sym->resolve(g->sym->arg, ev->pid, ip, &f) || !f.func[0])
			snprintf(f.func, sizeof(f.func), "0x%" PRIx64, ip);
		uint32_t c = fg_child(g, at, f.func);
		if (!c)
			return;
		g->n[c].count++;
		at = c;
	}
	argus_hmap_set_u64(&g->leaf, ev->stack.ustack, at); /* no memory: named again next time */
}

static void fg_draw(FILE *out, const struct fg *g, uint32_t node, double x, double w,
                    unsigned depth)
{
	static const char *const fills[] = {"#e8743b", "#f0a04b", "#e05a47", "#f3c05a", "#d9893b"};
	if (node) {
		fprintf(out,
		        "<g class=\"frame\"><rect x=\"%.1f\" y=\"%u\" width=\"%.1f\" height=\"17\" "
		        "fill=\"%s\" stroke=\"#fff\"/><title>",
		        x, depth * 18, w, fills[depth % 5]);
		esc(out, g->n[node].func);
		fprintf(out, ": %u of %u samples</title>", g->n[node].count, g->samples);
		if (w > 40) {
			char shown[96];
			size_t fit = (size_t)(w / 7);
			snprintf(shown, sizeof(shown), "%.*s", (int)(fit < 95 ? fit : 95),
			         g->n[node].func);
			fprintf(out, "<text x=\"%.1f\" y=\"%u\" font-size=\"11\">", x + 3,
			        depth * 18 + 13);
			esc(out, shown);
			fputs("</text>", out);
		}
		fputs("</g>\n", out);
	}
	double cx = x;
	for (uint32_t c = g->n[node].first_child; c; c = g->n[c].next) {
		double cw = w * g->n[c].count / (g->n[node].count ? g->n[node].count : 1);
		if (cw >= 0.5)
			fg_draw(out, g, c, cx, cw, node ? depth + 1 : depth);
		cx += cw;
	}
}

static unsigned fg_depth(const struct fg *g, uint32_t node)
{
	unsigned d = 0;
	for (uint32_t c = g->n[node].first_child; c; c = g->n[c].next) {
		unsigned k = fg_depth(g, c);
		if (k > d)
			d = k;
	}
	return d + (node ? 1 : 0);
}

static void flame(FILE *out, const struct argus_diagnosis *d, const struct argus_symbolizer *sym,
                  const struct argus_report_records *rec)
{
	if (d->stall.cls != ARGUS_STALL_LONG_RUNNING || !rec || !rec->each)
		return;
	struct fg g = {.sym = sym, .tid = d->stall.tid};
	g.n = calloc(FG_NODES, sizeof(*g.n));
	if (!g.n)
		return;
	g.nn = 1;
	rec->each(rec->arg, d->stall.since, d->stall.end ? d->stall.end : d->stall.detected,
	          fg_sample, &g);
	if (g.samples) {
		fprintf(out,
		        "<h3>Where the UI thread spent the stall: %u CPU samples</h3>\n"
		        "<div class=\"flame\"><svg class=\"flamegraph\" "
		        "xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %u\" width=\"100%%\" "
		        "font-family=\"sans-serif\">\n",
		        g.samples, W, fg_depth(&g, 0) * 18 + 2);
		fg_draw(out, &g, 0, 0, W, 0);
		fputs("</svg></div>\n<p class=\"note\">Outermost frame at the top; width = share "
		      "of the samples; hover for the counts.</p>\n",
		      out);
	}
	argus_hmap_free(&g.leaf);
	free(g.n);
}

/* ---- one stall ---- */

static void path_list(FILE *out, const struct argus_report_ctx *c, const struct argus_path *p,
                      const struct argus_vertex_info *pv)
{
	fputs("<ol class=\"steps\">\n", out);
	for (uint32_t i = 0; i < p->n; i++) {
		/* a long path: its first steps, the rest folded */
		if (i == 8 && p->n > 12)
			fprintf(out, "</ol><details><summary>%u more steps</summary><ol start=\"9\">\n",
			        p->n - 8);
		const struct argus_vertex_info *v = &pv[i];
		char b[96];
		who(c, v->pid, v->tid, b, sizeof(b));
		fputs("<li>", out);
		esc(out, b);
		const char *sc = v->wait_nr != 0xffff ? argus_syscall_name(v->wait_nr) : NULL;
		fprintf(out, ": %.1f ms on CPU", v->oncpu_ns / 1e6);
		if (v->flags & ARGUS_VF_WAITED)
			fprintf(out, ", then waited in %s %.1f ms", sc ? sc : "?", v->wait_ns / 1e6);
		if (i + 1 < p->n)
			fprintf(out, " <span class=\"edge\">&larr; %s %s</span>",
			        p->edge[i].strength < 0   ? "strong"
			        : p->edge[i].strength > 0 ? "weak"
			                                  : "boosted",
			        argus_edge_kind_name(p->edge[i].kind));
		fputs("</li>\n", out);
	}
	fputs(p->n > 12 ? "</ol></details>\n" : "</ol>\n", out);
}

static void commands(FILE *out, const struct argus_diagnosis *d, const struct argus_report_ctx *c)
{
	fputs("<h3>Diagnose it again</h3>\n<pre class=\"commands\">", out);
	if (c && c->source) {
		fputs("argus diagnose ", out);
		esc(out, c->source);
		fprintf(out, "\nargus debug --pid %u --at %" PRIu64 " ", d->stall.pid, d->stall.since);
		esc(out, c->source);
		fputs("\nargus diagnose --perfetto stall.pftrace ", out);
		esc(out, c->source);
	} else {
		fprintf(out,
		        "argus debug --pid %u --at %" PRIu64 "      # the flight recorder's last "
		        "5 minutes\nargus dump --last 5m -o stall.argus && argus diagnose "
		        "--perfetto stall.pftrace --html stall.html stall.argus\nargus report",
		        d->stall.pid, d->stall.since);
	}
	fputs("</pre>\n", out);
}

static void one_stall(FILE *out, const struct argus_diagnosis *d, const struct argus_report_ctx *c,
                      const struct argus_report_records *rec, const struct argus_symbolizer *sym)
{
	char line[512];
	argus_report_oneline(d, line, sizeof(line));
	fprintf(out, "<section class=\"stall\" id=\"stall-%" PRIu64 "\">\n<h2>stall %" PRIu64 ": ",
	        d->stall.id, d->stall.id);
	esc(out, line);
	fputs("</h2>\n<p class=\"facts\">", out);
	uint64_t end = d->stall.end ? d->stall.end : d->stall.detected;
	fprintf(out,
	        "%s stall (%s) of the UI thread %u of %s %u from +%.3f s, %s %.2f s; diagnosed by "
	        "%s in %.1f ms.</p>\n",
	        argus_stall_class_name(d->stall.cls), argus_stall_cause_name(d->stall.cause),
	        d->stall.tid, d->stall.comm, d->stall.pid, rel(c, d->stall.since),
	        d->stall.end ? "lasting" : "still stalled after", (double)(end - d->stall.since) / 1e9,
	        argus_algo_name(d->algo), d->diagnose_ns / 1e6);
	/* the stalled run: the causal path, the candidates, the stall */
	struct seg segs[ARGUS_PATH_MAX + ARGUS_DIAG_CANDIDATES];
	uint32_t ns = 0;
	for (uint32_t i = 0; i < d->path.n; i++) {
		bool root = d->ncandidates && d->path_v[i].id == d->candidates[0].v.id;
		segs[ns++] = (struct seg){&d->path_v[i],
		                          root ? "root" : i == 0 ? "anomaly" : "path",
		                          root ? "#ff8f00" : i == 0 ? "#e53935" : "#1e88e5"};
	}
	for (uint32_t k = 0; k < d->ncandidates; k++) {
		bool seen = false;
		for (uint32_t i = 0; i < d->path.n; i++)
			seen |= d->path_v[i].id == d->candidates[k].v.id;
		if (!seen)
			segs[ns++] = (struct seg){&d->candidates[k].v, k ? "candidate" : "root",
			                          k ? "#ab47bc" : "#ff8f00"};
	}
	fputs("<h3>Timeline of the stalled run</h3>\n", out);
	timeline(out, c, sym, rec, segs, ns, &d->path, d->path_v, d, "timeline", 100);
	fputs("<p class=\"legend\"><span style=\"background:#e53935\"></span>anomaly (the UI "
	      "thread's segment) <span style=\"background:#ff8f00\"></span>root cause (and "
	      "its wait) "
	      "<span style=\"background:#1e88e5\"></span>causal path "
	      "<span style=\"background:#ab47bc\"></span>other candidates &nbsp; arrows: causal "
	      "edges, dashed = weak &nbsp; under each lane: <span style=\"background:#4caf50\">"
	      "</span>running <span style=\"background:#f3d36b\"></span>runnable "
	      "<span style=\"background:#e4e4e4\"></span>sleeping; hover a box for its stack</p>\n",
	      out);
	/* the normal run beside it */
	fputs("<div class=\"compare\"><div><h3>Normal run (the baseline)</h3>\n", out);
	if (d->has_normal_path) {
		struct seg ns2[ARGUS_PATH_MAX];
		for (uint32_t i = 0; i < d->normal_path.n; i++)
			ns2[i] = (struct seg){&d->normal_v[i], "normal", "#43a047"};
		timeline(out, c, sym, rec, ns2, d->normal_path.n, &d->normal_path, d->normal_v, NULL,
		         "timeline normal", 100);
		path_list(out, c, &d->normal_path, d->normal_v);
	} else {
		fputs(d->stall.cls == ARGUS_STALL_LONG_RUNNING
		          ? "<p>None: a LongRunning stall is explained by the UI thread's own work "
		            "(its samples below), not compared with a normal run.</p>\n"
		          : "<p>None: no earlier run of the UI thread similar to this one was in "
		            "the window, so the diagnosis followed the stalled run alone.</p>\n",
		      out);
	}
	fputs("</div><div><h3>Stalled run</h3>\n", out);
	path_list(out, c, &d->path, d->path_v);
	fputs("</div></div>\n", out);
	/* the root cause */
	if (d->ncandidates) {
		const struct argus_culprit *k = &d->candidates[0];
		char b[96];
		who(c, k->v.pid, k->v.tid, b, sizeof(b));
		fputs("<h3>Root cause</h3>\n<p class=\"root\"><b>", out);
		esc(out, b);
		fprintf(out, "</b>: %s", argus_root_reason_name(k->reason));
		if (k->func[0]) {
			fputs(" in <code>", out);
			esc(out, k->func);
			fputs("</code> (", out);
			esc(out, k->srcline);
			fputs(")", out);
		}
		fputs("</p>\n<ol class=\"stack\">\n", out);
		stack_lines(out, sym, k->v.pid, seg_stack(&k->v), 64, true);
		fputs("</ol>\n", out);
	}
	if (d->costly_func[0]) {
		fputs("<p>Costly function: <code>", out);
		esc(out, d->costly_func);
		fprintf(out, "</code> (in %u of %u samples)</p>\n", d->costly_samples, d->samples);
	}
	flame(out, d, sym, rec);
	commands(out, d, c);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (m) {
		argus_report_text(d, c, m);
		fclose(m);
		fputs("<details><summary>Text report</summary><pre>", out);
		esc(out, buf ? buf : "");
		fputs("</pre></details>\n", out);
	}
	free(buf);
	fputs("</section>\n", out);
}

void argus_report_html(const struct argus_diagnosis *ds, size_t n, const struct argus_report_ctx *c,
                       const struct argus_report_records *rec, const struct argus_symbolizer *sym,
                       FILE *out)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<title>argus: ",
	      out);
	if (n == 1) {
		char line[512];
		argus_report_oneline(&ds[0], line, sizeof(line));
		esc(out, line);
	} else {
		fprintf(out, "%zu stalls", n);
	}
	fputs("</title>\n<style>\n"
	      "body{font-family:sans-serif;margin:1.5em 2em;color:#222}\n"
	      "h1{font-size:1.3em} h2{font-size:1.15em;background:#fdecea;padding:.4em;"
	      "border-left:6px solid #d32f2f} h3{font-size:1em;margin-top:1.4em}\n"
	      "pre{background:#f4f4f4;padding:.8em;overflow:auto}\n"
	      ".compare{display:flex;gap:2em} .compare>div{flex:1;min-width:0}\n"
	      ".legend span{display:inline-block;width:12px;height:12px;margin:0 4px 0 10px;"
	      "vertical-align:middle}\n"
	      "ol.stack li.app{font-weight:bold} ol.stack li.sys{color:#666}\n"
	      ".edge{color:#666} svg text.lane{font-size:12px}\n"
	      "</style></head><body>\n<h1>argus: stalls and their root causes</h1>\n",
	      out);
	if (!n)
		fputs("<p>No stall.</p>\n", out);
	for (size_t i = 0; i < n; i++)
		one_stall(out, &ds[i], c, rec, sym);
	fputs("</body></html>\n", out);
}
