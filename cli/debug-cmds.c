/*
 * debug-cmds.c - the commands of `argus debug -i` as a table (name,
 * arguments, one line of help, handler), and their handlers but path and
 * pick (debug-path.c). docs/debug.md describes each with real output.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "debug_priv.h"

static int cmd_help(struct dbg *g, int argc, char **argv);

static int cmd_quit(struct dbg *g, int argc, char **argv)
{
	(void)argc, (void)argv;
	g->quit = true;
	return 0;
}

static int cmd_stalls(struct dbg *g, int argc, char **argv)
{
	(void)argc, (void)argv;
	for (size_t i = 0; i < g->nstalls; i++) {
		const struct argus_diagnosis *d = &g->res.d[g->stalls[i]];
		char line[512];
		argus_report_oneline(d, line, sizeof(line));
		fprintf(g->out, "%c%zu %s %u/%u %s: %s\n", i == g->cur ? '*' : ' ', i + 1,
		        argus_stall_class_name(d->stall.cls), d->stall.pid, d->stall.tid,
		        d->stall.comm, line);
	}
	fprintf(g->out, "%zu stall%s\n", g->nstalls, g->nstalls == 1 ? "" : "s");
	return 0;
}

static int cmd_stall(struct dbg *g, int argc, char **argv)
{
	if (argc == 2) {
		uint64_t n;
		if (!cli_parse_u64(argv[1], 1, g->nstalls ? g->nstalls : 1, &n) || !g->nstalls) {
			dbg_err(g, "no stall '%s' (1..%zu)", argv[1], g->nstalls);
			return -1;
		}
		g->cur = (size_t)n - 1;
		/* hints belong to one stall */
		g->baseline = 0;
		g->walking = g->path_done = false;
		g->path.n = 0;
		g->rerun_valid = false;
	}
	const struct argus_diagnosis *d = dbg_current(g);
	if (!d)
		return -1;
	g->d = g->rerun_valid ? &g->rerun : &g->res.d[g->stalls[g->cur]];
	dbg_print_diagnosis(g, g->d, true);
	return 0;
}

static int cmd_show(struct dbg *g, int argc, char **argv)
{
	(void)argc;
	argus_vid id;
	struct argus_vertex_info v;
	if (!dbg_vid(g, argv[1], &id) || !dbg_vertex(g, id, &v))
		return -1;
	dbg_vertex_line(g, &v);
	if (v.prev)
		fprintf(g->out, "  previous " ARGUS_VID_FMT "\n", ARGUS_VID_ARGS(v.prev));
	if (v.nsys)
		fprintf(g->out, "  %u system calls, longest %s %.3f ms\n", v.nsys,
		        v.long_sys_nr != 0xffff ? argus_syscall_name(v.long_sys_nr) : "?",
		        (double)v.long_sys_ns / 1e6);
	fprintf(g->out, "  signature");
	for (uint16_t i = 0; i < v.nsig && i < ARGUS_SIG_MAX; i++)
		fprintf(g->out, " %04x", v.sig[i]);
	fprintf(g->out, "%s\n", v.nsig > ARGUS_SIG_MAX ? " ..." : "");
	return 0;
}

static void print_stack(struct dbg *g, const char *what, uint32_t pid, uint32_t id)
{
	struct argus_symbolizer sym = {0};
	if (g->fv)
		sym = argus_session_file_view_symbolizer(g->fv);
	const uint64_t *ips;
	uint32_t depth;
	if (!id || !sym.stack || !sym.stack(sym.arg, id, &ips, &depth)) {
		fprintf(g->out, "  %s: %s\n", what, id ? "not in the trace's tables" : "none");
		return;
	}
	fprintf(g->out, "  %s (stack %u):\n", what, id);
	for (uint32_t i = 0; i < depth; i++) {
		struct argus_frame f;
		if (sym.resolve && sym.resolve(sym.arg, pid, ips[i], &f))
			fprintf(g->out, "    #%u %s %s%s%s\n", i, f.func[0] ? f.func : "?",
			        f.srcline, f.system ? " [system]" : "", "");
		else
			fprintf(g->out, "    #%u 0x%" PRIx64 "\n", i, ips[i]);
	}
}

static int cmd_stack(struct dbg *g, int argc, char **argv)
{
	(void)argc;
	argus_vid id;
	struct argus_vertex_info v;
	if (!dbg_vid(g, argv[1], &id) || !dbg_vertex(g, id, &v))
		return -1;
	dbg_vertex_line(g, &v);
	print_stack(g, "first", v.pid, v.stack_first);
	if (v.stack_last != v.stack_first)
		print_stack(g, "last", v.pid, v.stack_last);
	print_stack(g, "where its wait blocked", v.pid, v.wait_stack);
	return 0;
}

static const char *strength_name(int s)
{
	return s == ARGUS_STRONG ? "strong" : s == ARGUS_BOOSTED ? "boosted" : "weak";
}

static void edge_line(struct dbg *g, const char *dir, argus_vid other,
                      const struct argus_edge_info *e)
{
	struct argus_vertex_info o;
	bool known = dbg_vertex(g, other, &o);
	fprintf(g->out, "  %s " ARGUS_VID_FMT " %s %s at +%.6f s", dir, ARGUS_VID_ARGS(other),
	        argus_edge_kind_name(e->kind), strength_name(e->strength),
	        (double)(e->ts - g->res.t0) / 1e9);
	if (known)
		fprintf(g->out, " (%s %u/%u)\n", dbg_comm(g, o.pid), o.pid, o.tid);
	else
		fprintf(g->out, " (evicted)\n");
}

static int cmd_edges(struct dbg *g, int argc, char **argv)
{
	(void)argc;
	argus_vid id;
	struct argus_vertex_info v;
	if (!dbg_vid(g, argv[1], &id) || !dbg_vertex(g, id, &v))
		return -1;
	dbg_vertex_line(g, &v);
	struct argus_edge_info in[64];
	size_t n = argus_graph_in_edges(&g->view, id, in, 64);
	fprintf(g->out, " %zu incoming:\n", n);
	for (size_t i = 0; i < n && i < 64; i++)
		edge_line(g, "from", in[i].src, &in[i]);
	/* outgoing: the edges of later vertices whose source is v */
	size_t nout = 0;
	for (argus_vid x = argus_graph_next_vertex(&g->view, 0); x;
	     x = argus_graph_next_vertex(&g->view, x)) {
		size_t k = argus_graph_in_edges(&g->view, x, in, 64);
		for (size_t i = 0; i < k && i < 64; i++)
			if (in[i].src == id) {
				if (!nout++)
					fprintf(g->out, " outgoing:\n");
				edge_line(g, "to  ", x, &in[i]);
			}
	}
	if (!nout)
		fprintf(g->out, " 0 outgoing\n");
	return 0;
}

static int cmd_similar(struct dbg *g, int argc, char **argv)
{
	(void)argc;
	argus_vid id;
	if (!dbg_vid(g, argv[1], &id))
		return -1;
	struct argus_similar sim[20];
	const struct argus_session_opts *so = argus_session_get_opts(g->s);
	int n = argus_diag_similar(&g->view, id, &so->beam, sim, 20);
	if (n < 0) {
		dbg_err(g, "out of memory");
		return -1;
	}
	argus_vid base = g->d && g->d->baseline ? g->d->baseline : 0;
	for (int i = 0; i < n && i < 20; i++) {
		fprintf(g->out, "%2d distance %u/%u %s%s ", i + 1, sim[i].distance, sim[i].length,
		        sim[i].differs ? "normal " : "       ", sim[i].v.id == base ? "B" : " ");
		dbg_vertex_line(g, &sim[i].v);
	}
	fprintf(g->out,
	        "%d similar vertices (normal: its wait ended within %.3f s; B: the "
	        "baseline on screen)\n",
	        n, (double)so->beam.long_wait_ns / 1e9);
	return 0;
}

static int cmd_baseline(struct dbg *g, int argc, char **argv)
{
	(void)argc;
	argus_vid v, b;
	struct argus_vertex_info vi, bi;
	if (!dbg_vid(g, argv[1], &v) || !dbg_vid(g, argv[2], &b) || !dbg_vertex(g, v, &vi) ||
	    !dbg_vertex(g, b, &bi))
		return -1;
	if (bi.tid != vi.tid || bi.start >= vi.start) {
		dbg_err(g, "baseline " ARGUS_VID_FMT " is not an earlier vertex of thread %u",
		        ARGUS_VID_ARGS(b), vi.tid);
		return -1;
	}
	g->baseline = b;
	if (dbg_rediagnose(g, v, false))
		return -1;
	dbg_print_diagnosis(g, g->d, true);
	return 0;
}

static int cmd_why(struct dbg *g, int argc, char **argv)
{
	argus_vid v = 0;
	if (argc == 2 && !dbg_vid(g, argv[1], &v))
		return -1;
	if (dbg_rediagnose(g, v, true))
		return -1;
	dbg_print_diagnosis(g, g->d, true);
	return 0;
}

static int cmd_export(struct dbg *g, int argc, char **argv)
{
	(void)argc;
	const char *what = argv[1], *out = argv[2];
	if (strcmp(what, "perfetto") && strcmp(what, "html") && strcmp(what, "dot")) {
		dbg_err(g, "export perfetto|html|dot OUT (not '%s')", what);
		return -1;
	}
	if ((!strcmp(what, "perfetto") || !strcmp(what, "html")) && !dbg_current(g))
		return -1;
	FILE *f = fopen(out, "w");
	if (!f) {
		dbg_err(g, "%s: cannot write: %m", out);
		return -1;
	}
	struct argus_report_ctx ctx = {argus_session_comm, g->s, g->res.t0,
	                               argus_session_thread_comm, g->o.file};
	struct argus_report_records rec = {0};
	struct argus_symbolizer sym = {0};
	if (g->fv) {
		rec = argus_session_file_view_records(g->fv);
		sym = argus_session_file_view_symbolizer(g->fv);
	}
	int rc = 0;
	if (!strcmp(what, "perfetto"))
		rc = argus_report_perfetto(g->d, 1, &ctx, g->fv ? &rec : NULL, g->fv ? &sym : NULL,
		                           f, NULL);
	else if (!strcmp(what, "html"))
		argus_report_html(g->d, 1, &ctx, g->fv ? &rec : NULL, g->fv ? &sym : NULL, f);
	else
		rc = argus_graph_export_dot(&g->view, f);
	if (fclose(f) || rc) {
		dbg_err(g, "%s: cannot write", out);
		return -1;
	}
	fprintf(g->out, "wrote %s\n", out);
	return 0;
}

static int need_rules_file(struct dbg *g)
{
	if (!g->o.rules_path) {
		dbg_err(g, "no rules file (HOME and XDG_CONFIG_HOME unset): rule not saved");
		return -1;
	}
	return 0;
}

static int cmd_rule(struct dbg *g, int argc, char **argv)
{
	const char *sub = argv[1];
	char err[4200];
	if (!strcmp(sub, "list")) {
		for (size_t i = 0; i < g->rules.n; i++) {
			char line[128];
			dbg_rule_format(&g->rules.r[i], line, sizeof(line));
			fprintf(g->out, "%zu %s\n", i + 1, line);
		}
		fprintf(g->out, "%zu rule%s%s%s\n", g->rules.n, g->rules.n == 1 ? "" : "s",
		        !g->o.rules_path ? ""
		        : g->o.system    ? "; rule add / del change the system's, "
		                         : "; the user's in ",
		        g->o.rules_path ? g->o.rules_path : "");
		return 0;
	}
	if (need_rules_file(g))
		return -1;
	/* one file alone is written (the user's, or with --system the
	 * system's): read it, change it, write it */
	struct dbg_rules mine = {0};
	if (dbg_rules_load(&mine, g->o.rules_path, err, sizeof(err))) {
		dbg_err(g, "%s", err);
		return -1;
	}
	char text[256] = "";
	if (!strcmp(sub, "add")) {
		for (int i = 2; i < argc; i++) {
			strncat(text, argv[i], sizeof(text) - strlen(text) - 2);
			if (i + 1 < argc)
				strcat(text, " ");
		}
		struct dbg_rule r;
		if (!dbg_rule_parse(text, &r, err, sizeof(err))) {
			dbg_err(g, "rule add: %s", err);
			return -1;
		}
		if (mine.n == DBG_RULES_MAX || g->rules.n == DBG_RULES_MAX) {
			dbg_err(g, "rule add: %d rules at most", DBG_RULES_MAX);
			return -1;
		}
		mine.r[mine.n++] = r;
		g->rules.r[g->rules.n++] = r;
	} else if (!strcmp(sub, "del")) {
		uint64_t k;
		if (argc != 3 || !cli_parse_u64(argv[2], 1, g->rules.n ? g->rules.n : 1, &k) ||
		    !g->rules.n) {
			dbg_err(g, "rule del N (1..%zu, as rule list numbers them)", g->rules.n);
			return -1;
		}
		struct dbg_rule gone = g->rules.r[k - 1];
		size_t j = 0;
		bool found = false;
		for (size_t i = 0; i < mine.n; i++) {
			if (!found && mine.r[i].kind == gone.kind &&
			    !strcmp(mine.r[i].comm, gone.comm)) {
				found = true;
				continue;
			}
			mine.r[j++] = mine.r[i];
		}
		if (!found) {
			dbg_err(g, "rule %" PRIu64 " is not in %s: not deleted here", k,
			        g->o.rules_path);
			return -1;
		}
		mine.n = j;
		memmove(&g->rules.r[k - 1], &g->rules.r[k],
		        (g->rules.n - k) * sizeof(g->rules.r[0]));
		g->rules.n--;
	} else {
		dbg_err(g, "rule add RULE | rule del N | rule list (not '%s')", sub);
		return -1;
	}
	if (dbg_rules_save(&mine, g->o.rules_path, err, sizeof(err))) {
		dbg_err(g, "%s", err);
		return -1;
	}
	fprintf(g->out, "saved %zu rule%s to %s; rebuilding the graph\n", mine.n,
	        mine.n == 1 ? "" : "s", g->o.rules_path);
	if (dbg_reload(g))
		return -1;
	fprintf(g->out, "%zu stall%s\n", g->nstalls, g->nstalls == 1 ? "" : "s");
	return g->nstalls ? cmd_stall(g, 1, argv) : 0;
}

static const struct dbg_cmd cmds[] = {
    {"stalls", "", "the stalls and their automatic diagnoses (* = current)", 0, 0, cmd_stalls},
    {"stall", "[N]", "make stall N current; its diagnosis and ranked candidates", 0, 1, cmd_stall},
    {"show", "V", "a vertex: thread, span, CPU, events, its wait, its signature", 1, 1, cmd_show},
    {"stack", "V", "a vertex's stacks: first, last, where its wait blocked", 1, 1, cmd_stack},
    {"edges", "V", "a vertex's incoming and outgoing edges, kinds and strengths", 1, 1, cmd_edges},
    {"similar", "V", "earlier vertices of V's thread similar to it: the baseline candidates", 1, 1,
     cmd_similar},
    {"baseline", "V B", "compare stalled vertex V with baseline B (Algorithm 2 again)", 2, 2,
     cmd_baseline},
    {"path", "[V]", "walk the wake-up path back from V (default: the normal path's start)", 0, 1,
     dbg_cmd_path},
    {"pick", "N", "follow the N-th incoming edge listed by path", 1, 1, dbg_cmd_pick},
    {"why", "[V]", "the culprit search (Algorithm 2) from V, every step printed", 0, 1, cmd_why},
    {"rule", "add RULE | del N | list", "a user rule: split batch COMM, ignore wakeup COMM", 1, 8,
     cmd_rule},
    {"export", "perfetto|html|dot OUT", "the stall on screen (dot: the whole graph) to OUT", 2, 2,
     cmd_export},
    {"help", "", "this list", 0, 0, cmd_help},
    {"quit", "", "end the session", 0, 0, cmd_quit},
};

const struct dbg_cmd *dbg_cmd_at(size_t i)
{
	return i < sizeof(cmds) / sizeof(cmds[0]) ? &cmds[i] : NULL;
}

const struct dbg_cmd *dbg_cmd_find(const char *name)
{
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(cmds[i].name, name))
			return &cmds[i];
	return NULL;
}

static int cmd_help(struct dbg *g, int argc, char **argv)
{
	(void)argc, (void)argv;
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		char head[64];
		snprintf(head, sizeof(head), "%s %s", cmds[i].name, cmds[i].args);
		fprintf(g->out, "  %-32s %s\n", head, cmds[i].help);
	}
	fprintf(g->out,
	        "  V is a vertex as printed (GEN.INDEX), or anomaly, root, baseline, "
	        "c1..c%d\n",
	        ARGUS_DIAG_CANDIDATES);
	return 0;
}
