/*
 * debug-session.c - the interactive diagnosis' session (docs/debug.md): a
 * trace through the daemon's code (a session, session/) with the user's
 * rules, the graph of the whole trace kept for the user's questions, the
 * current stall and the hints the user gave for it (a baseline, a walked
 * path), and the command loop: libedit on a terminal, plain lines from a
 * script or a pipe. The commands are debug-cmds.c's table.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <editline/readline.h>

#include "cli.h"
#include "debug_priv.h"

void dbg_err(struct dbg *g, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fflush(g->out);
	fprintf(stderr, "argus debug: %s\n", msg);
}

/* ---- opening a trace ---- */

static int open_session(struct dbg *g)
{
	struct argus_session_opts so = g->o.so;
	dbg_rules_apply(&g->rules, &so.graph);
	if (argus_session_new(&g->s, &so) || argus_session_collect(g->s, &g->res)) {
		cli_error("debug", "out of memory");
		return ARGUS_EXIT_INTERNAL;
	}
	struct argus_trace_error err;
	int rc = argus_session_run_file(g->s, g->o.file, &err);
	if (rc < 0) {
		cli_error("debug", "%s", err.msg[0] ? err.msg : "cannot read the trace");
		return cli_trace_exit(rc);
	}
	if (rc == 1)
		cli_error("debug", "%s (%" PRIu64 " faults; what was intact was used)", err.msg,
		          g->res.faults);
	if (argus_session_file_view_open(&g->fv, g->o.file, &err)) {
		g->fv = NULL; /* frames unnamed, exports without the records */
		cli_error("debug", "%s: %s (frames are not named)", g->o.label, err.msg);
	}
	argus_graph_flush(argus_session_graph(g->s));
	argus_graph_view_begin(argus_session_graph(g->s), &g->view);
	g->have_view = true;
	g->stalls = malloc((g->res.n ? g->res.n : 1) * sizeof(*g->stalls));
	if (!g->stalls) {
		cli_error("debug", "out of memory");
		return ARGUS_EXIT_INTERNAL;
	}
	g->nstalls = 0;
	for (size_t i = 0; i < g->res.n; i++)
		if (!g->o.pid || g->res.d[i].stall.pid == g->o.pid)
			g->stalls[g->nstalls++] = i;
	if (g->cur >= g->nstalls)
		g->cur = 0;
	g->d = g->nstalls ? &g->res.d[g->stalls[g->cur]] : NULL;
	g->rerun_valid = false;
	return ARGUS_EXIT_OK;
}

static void close_session(struct dbg *g)
{
	if (g->have_view)
		argus_graph_view_end(&g->view);
	g->have_view = false;
	argus_session_file_view_close(g->fv);
	g->fv = NULL;
	argus_session_free(g->s); /* the collector with it */
	g->s = NULL;
	argus_session_result_free(&g->res);
	free(g->stalls);
	g->stalls = NULL;
	g->d = NULL;
}

int dbg_open(struct dbg *g, const struct dbg_opts *o)
{
	memset(g, 0, sizeof(*g));
	g->o = *o;
	g->out = stdout;
	char err[4200];
	int rc = dbg_rules_load_all(&g->rules, true, err, sizeof(err));
	if (rc) {
		cli_error("debug", "%s", err);
		return rc;
	}
	return open_session(g);
}

void dbg_close(struct dbg *g)
{
	close_session(g);
}

int dbg_reload(struct dbg *g)
{
	size_t cur = g->cur;
	close_session(g);
	g->cur = cur;
	/* the graph changed: vertex handles and the hints with them */
	g->baseline = 0;
	g->walking = g->path_done = false;
	g->path.n = 0;
	return open_session(g);
}

/* ---- what the commands share ---- */

const char *dbg_comm(struct dbg *g, uint32_t pid)
{
	const char *c = argus_session_comm(g->s, pid);
	return c && *c ? c : "?";
}

const struct argus_diagnosis *dbg_current(struct dbg *g)
{
	if (!g->nstalls) {
		dbg_err(g, "%s: no stall%s", g->o.label, g->o.pid ? " of that pid" : "");
		return NULL;
	}
	return &g->res.d[g->stalls[g->cur]];
}

bool dbg_vertex(struct dbg *g, argus_vid id, struct argus_vertex_info *v)
{
	return argus_graph_vertex(&g->view, id, v);
}

/* A vertex as typed: GEN.INDEX, or a name for one of the current stall's
 * (anomaly, root, baseline, cN = the N-th candidate). */
bool dbg_vid(struct dbg *g, const char *s, argus_vid *out)
{
	const struct argus_diagnosis *d = g->d;
	argus_vid v = 0;
	if (d && !strcmp(s, "anomaly"))
		v = d->anomaly;
	else if (d && !strcmp(s, "root"))
		v = d->root.vid;
	else if (d && !strcmp(s, "baseline"))
		v = g->baseline ? g->baseline : d->baseline;
	else if (d && s[0] == 'c' && isdigit((unsigned char)s[1])) {
		unsigned long k = strtoul(s + 1, NULL, 10);
		if (k >= 1 && k <= d->ncandidates)
			v = d->candidates[k - 1].vid;
	} else {
		char *e;
		errno = 0;
		unsigned long gen = strtoul(s, &e, 10);
		if (!errno && *e == '.' && isdigit((unsigned char)e[1]) && gen <= UINT32_MAX) {
			unsigned long ix = strtoul(e + 1, &e, 10);
			if (!errno && !*e && ix <= UINT32_MAX)
				v = ((argus_vid)gen << 32) | ix;
		}
	}
	struct argus_vertex_info x;
	if (!v || !argus_graph_vertex(&g->view, v, &x)) {
		dbg_err(g,
		        "no vertex '%s' in the window (GEN.INDEX as printed, or anomaly, root, "
		        "baseline, c1..c%d)",
		        s, ARGUS_DIAG_CANDIDATES);
		return false;
	}
	*out = v;
	return true;
}

static double rel(struct dbg *g, uint64_t t)
{
	return t >= g->res.t0 ? (double)(t - g->res.t0) / 1e9 : -(double)(g->res.t0 - t) / 1e9;
}

void dbg_vertex_line(struct dbg *g, const struct argus_vertex_info *v)
{
	char wait[96] = "";
	if (v->flags & ARGUS_VF_WAITED)
		snprintf(wait, sizeof(wait), ", then waited %.3f s in %s", (double)v->wait_ns / 1e9,
		         v->wait_nr != 0xffff ? argus_syscall_name(v->wait_nr) : "?");
	fprintf(g->out,
	        ARGUS_VID_FMT
	        " %s %u/%u +%.6f s..+%.6f s, %.3f ms on CPU, %u events, began at %s%s%s\n",
	        ARGUS_VID_ARGS(v->id), dbg_comm(g, v->pid), v->pid, v->tid, rel(g, v->start),
	        rel(g, v->end), (double)v->oncpu_ns / 1e6, v->nevents, argus_split_name(v->split),
	        v->flags & ARGUS_VF_UI ? ", UI input" : "", wait);
}

static void culprit_line(struct dbg *g, const char *tag, const struct argus_culprit *c)
{
	fprintf(g->out, "  %s " ARGUS_VID_FMT " %s %u/%u %s%s%s, penalty %d, depth %u (%s)\n", tag,
	        ARGUS_VID_ARGS(c->vid), dbg_comm(g, c->v.pid), c->v.pid, c->v.tid,
	        argus_root_reason_name(c->reason), c->func[0] ? " in " : "", c->func, c->penalty,
	        c->depth, c->rule ? c->rule : "-");
}

void dbg_print_diagnosis(struct dbg *g, const struct argus_diagnosis *d, bool candidates)
{
	char line[512];
	argus_report_oneline(d, line, sizeof(line));
	fprintf(g->out, "stall %" PRIu64 ": %s\n", d->stall.id, line);
	fprintf(g->out, "  %s, %u/%u, +%.3f s..%s%.3f s\n", argus_stall_class_name(d->stall.cls),
	        d->stall.pid, d->stall.tid, rel(g, d->stall.since),
	        d->stall.end ? "+" : "(detected) +",
	        rel(g, d->stall.end ? d->stall.end : d->stall.detected));
	if (d->anomaly)
		fprintf(g->out, "  anomaly " ARGUS_VID_FMT "\n", ARGUS_VID_ARGS(d->anomaly));
	if (d->baseline)
		fprintf(g->out, "  baseline " ARGUS_VID_FMT "%s\n", ARGUS_VID_ARGS(d->baseline),
		        g->baseline == d->baseline ? " (given)" : "");
	for (uint32_t i = 0; candidates && i < d->ncandidates; i++) {
		char tag[16];
		snprintf(tag, sizeof(tag), "c%u", i + 1);
		culprit_line(g, tag, &d->candidates[i]);
	}
	if (!d->ncandidates)
		fprintf(g->out, "  no candidate\n");
}

static void print_step(void *arg, const char *line)
{
	struct dbg *g = arg;
	fprintf(g->out, "  . %s\n", line);
}

int dbg_rediagnose(struct dbg *g, argus_vid anomaly, bool verbose)
{
	const struct argus_diagnosis *d = dbg_current(g);
	if (!d)
		return -1;
	struct argus_diag_hints h = {.anomaly = anomaly, .baseline = g->baseline};
	if (g->path_done && g->path.n)
		h.normal_path = &g->path;
	if (verbose) {
		h.step = print_step;
		h.step_arg = g;
	}
	struct argus_symbolizer sym;
	if (g->fv)
		sym = argus_session_file_view_symbolizer(g->fv);
	struct argus_stall st = d->stall;
	if (argus_session_rediagnose(g->s, &st, &h, g->fv ? &sym : NULL, &g->rerun)) {
		dbg_err(g, "out of memory");
		return -1;
	}
	g->rerun_valid = true;
	g->d = &g->rerun;
	return 0;
}

/* ---- the command loop ---- */

int dbg_exec(struct dbg *g, const char *line)
{
	char buf[1024];
	snprintf(buf, sizeof(buf), "%s", line);
	char *argv[16];
	int argc = 0;
	for (char *s = buf, *w; argc < 16 && (w = strtok_r(s, " \t\r\n", &s));)
		argv[argc++] = w;
	if (!argc || argv[0][0] == '#')
		return 0;
	const struct dbg_cmd *c = dbg_cmd_find(argv[0]);
	if (!c) {
		dbg_err(g, "unknown command '%s' (help lists them)", argv[0]);
		return 1;
	}
	if (argc - 1 < c->min_args || argc - 1 > c->max_args) {
		dbg_err(g, "usage: %s %s", c->name, c->args);
		return 1;
	}
	int rc = c->fn(g, argc, argv);
	fflush(g->out);
	return rc ? 1 : 0;
}

static char *history_path(char *buf, size_t cap)
{
	char rules[4096];
	if (!dbg_rules_user_path(rules, sizeof(rules)))
		return NULL;
	char *slash = strrchr(rules, '/');
	*slash = 0;
	snprintf(buf, cap, "%s/debug_history", rules);
	return buf;
}

int dbg_repl(struct dbg *g, FILE *in)
{
	int failed = 0;
	if (isatty(fileno(in)) && isatty(STDOUT_FILENO)) {
		char hist[4200];
		const char *hp = history_path(hist, sizeof(hist));
		/* libedit: the editor first, then its history */
		rl_instream = in;
		rl_outstream = g->out;
		rl_initialize();
		using_history();
		if (hp)
			read_history(hp);
		fprintf(g->out, "%zu stall%s in %s; `help` lists the commands\n", g->nstalls,
		        g->nstalls == 1 ? "" : "s", g->o.label);
		while (!g->quit) {
			char *l = readline("argus> ");
			if (!l)
				break;
			if (*l)
				add_history(l);
			failed |= dbg_exec(g, l);
			free(l);
		}
		if (hp && !dbg_make_parent(hp)) {
			stifle_history(1000);
			write_history(hp); /* not written: no history next time, no more */
		}
		return failed;
	}
	char line[1024];
	while (!g->quit && fgets(line, sizeof(line), in)) {
		/* a script echoes its commands so the output reads as a session */
		line[strcspn(line, "\r\n")] = 0;
		const char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			continue;
		fprintf(g->out, "argus> %s\n", p);
		failed |= dbg_exec(g, p);
	}
	return failed;
}
