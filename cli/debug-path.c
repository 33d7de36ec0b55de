/*
 * debug-path.c - `path V` and `pick N` of `argus debug -i`: the wake-up path
 * walked back from V the way the interactive Argus paper does it (001,
 * section 2.1.2): a vertex with exactly one inter-thread incoming edge, or
 * none but an edge from its own thread, follows it; one with two or more
 * inter-thread incoming edges lists them and the user picks one. The path
 * ends at a UI vertex, a vertex with no incoming edge, or one already on it;
 * then it is the normal path Algorithm 2 examines (the diagnosis is run
 * again with it).
 */
#include <inttypes.h>
#include <string.h>

#include "cli.h"
#include "debug_priv.h"

static const char *strength_name(int s)
{
	return s == ARGUS_STRONG ? "strong" : s == ARGUS_BOOSTED ? "boosted" : "weak";
}

static bool on_path(const struct argus_path *p, argus_vid v)
{
	for (uint32_t i = 0; i < p->n; i++)
		if (p->v[i] == v)
			return true;
	return false;
}

/* Add the vertex src, reached over edge e from the path's last vertex. */
static void extend(struct dbg *g, const struct argus_edge_info *e)
{
	const struct argus_session_opts *so = argus_session_get_opts(g->s);
	struct argus_path *p = &g->path;
	p->edge[p->n - 1] = *e;
	p->v[p->n++] = e->src;
	p->penalty += so->beam.a * e->strength + so->beam.b;
}

static void finish(struct dbg *g, const char *why)
{
	struct argus_path *p = &g->path;
	g->walking = false;
	g->path_done = true;
	p->ended = true;
	fprintf(g->out, "path ends (%s): %u vertices, penalty %d\n", why, p->n, p->penalty);
	for (uint32_t i = 0; i < p->n; i++) {
		struct argus_vertex_info v;
		fprintf(g->out, "  %2u ", i);
		if (dbg_vertex(g, p->v[i], &v))
			dbg_vertex_line(g, &v);
		else
			fprintf(g->out, ARGUS_VID_FMT " (evicted)\n", ARGUS_VID_ARGS(p->v[i]));
	}
	const struct argus_diagnosis *d = dbg_current(g);
	if (!d || d->stall.cls == ARGUS_STALL_LONG_RUNNING)
		return;
	fprintf(g->out, "the comparison again, with this path as the normal path:\n");
	if (dbg_rediagnose(g, g->d ? g->d->anomaly : 0, false) == 0)
		dbg_print_diagnosis(g, g->d, true);
}

/* Walk from the path's last vertex until it ends or a pick is needed. */
static int walk(struct dbg *g)
{
	struct argus_path *p = &g->path;
	while (p->n < ARGUS_PATH_MAX) {
		argus_vid at = p->v[p->n - 1];
		struct argus_vertex_info v;
		if (!dbg_vertex(g, at, &v)) {
			finish(g, "a vertex left the window");
			return 0;
		}
		if ((v.flags & ARGUS_VF_UI) && p->n > 1) {
			finish(g, "UI input");
			return 0;
		}
		struct argus_edge_info in[64], inter[16], intra = {0};
		size_t n = argus_graph_in_edges(&g->view, at, in, 64), ninter = 0;
		bool have_intra = false;
		for (size_t i = 0; i < n && i < 64; i++) {
			struct argus_vertex_info s;
			if (on_path(p, in[i].src) || !dbg_vertex(g, in[i].src, &s))
				continue;
			if (s.tid == v.tid) {
				if (!have_intra || in[i].ts > intra.ts)
					intra = in[i];
				have_intra = true;
				continue;
			}
			/* one choice per source vertex: its strongest edge (an IPC
			 * send also wakes the reader: two edges, one cause) */
			size_t k = 0;
			while (k < ninter && inter[k].src != in[i].src)
				k++;
			if (k < ninter) {
				if (in[i].strength < inter[k].strength)
					inter[k] = in[i];
			} else if (ninter < 16) {
				inter[ninter++] = in[i];
			}
		}
		if (ninter == 1 || (!ninter && have_intra)) {
			extend(g, ninter ? &inter[0] : &intra);
			continue;
		}
		if (!ninter) {
			finish(g, "no incoming edge");
			return 0;
		}
		/* the paper's consulting step */
		memcpy(g->choices, inter, ninter * sizeof(inter[0]));
		g->nchoices = ninter;
		g->walking = true;
		fprintf(g->out, "at ");
		dbg_vertex_line(g, &v);
		fprintf(g->out, "%zu inter-thread incoming edges; pick one:\n", ninter);
		for (size_t i = 0; i < ninter; i++) {
			struct argus_vertex_info s;
			dbg_vertex(g, inter[i].src, &s);
			fprintf(g->out, "  %zu %s %s at +%.6f s from ", i + 1,
			        argus_edge_kind_name(inter[i].kind),
			        strength_name(inter[i].strength),
			        (double)(inter[i].ts - g->res.t0) / 1e9);
			dbg_vertex_line(g, &s);
		}
		return 0;
	}
	finish(g, "the longest path kept");
	return 0;
}

int dbg_cmd_path(struct dbg *g, int argc, char **argv)
{
	const struct argus_diagnosis *d = dbg_current(g);
	if (!d)
		return -1;
	argus_vid start = 0;
	if (argc == 2) {
		if (!dbg_vid(g, argv[1], &start))
			return -1;
	} else if (g->d && g->d->has_normal_path && g->d->normal_path.n) {
		start = g->d->normal_path.v[0];
	} else {
		start = g->d ? g->d->anomaly : 0;
	}
	if (!start) {
		dbg_err(g, "path: no vertex to start from (give one)");
		return -1;
	}
	memset(&g->path, 0, sizeof(g->path));
	g->path.v[0] = start;
	g->path.n = 1;
	g->path_done = false;
	return walk(g);
}

int dbg_cmd_pick(struct dbg *g, int argc, char **argv)
{
	(void)argc;
	uint64_t k;
	if (!g->walking) {
		dbg_err(g, "pick: no path waits for a choice (path V first)");
		return -1;
	}
	if (!cli_parse_u64(argv[1], 1, g->nchoices, &k)) {
		dbg_err(g, "pick: '%s' is not one of 1..%zu", argv[1], g->nchoices);
		return -1;
	}
	g->walking = false;
	extend(g, &g->choices[k - 1]);
	return walk(g);
}
