/*
 * beam.c - Algorithm 1 (beam search with lookback) and the critical-path
 * baseline, over any struct argus_beam_graph.
 */
#include <stdlib.h>
#include <string.h>

#include "beam.h"
#include "idmap.h"

#define IN_EDGES_MAX 64 /* incoming edges examined per vertex */

/* The one place every diagnosis parameter gets its default. */
void argus_beam_params_default(struct argus_beam_params *p)
{
	memset(p, 0, sizeof(*p));
	p->width = 5;
	p->lookback = 5;
	p->a = 3;
	p->b = 2;
	p->max_depth = ARGUS_PATH_MAX - 1;
	p->max_states = 4096;
	p->no_weak_edges = false;
	p->sim_len = 0.2;
	p->sim_dist = 0.4;
	p->max_similar = 65536;
	p->max_recurse = 8;
	p->long_wait_ns = 500000000ULL;
	p->costly_share = 0.98;
	p->costly_min_samples = 10;
	p->chain_share = 0.5;
}

static bool view_vertex(void *arg, argus_vid id, struct argus_vertex_info *out)
{
	return argus_graph_vertex(arg, id, out);
}

static size_t view_in_edges(void *arg, argus_vid id, struct argus_edge_info *out, size_t cap)
{
	return argus_graph_in_edges(arg, id, out, cap);
}

struct argus_beam_graph argus_beam_graph_of_view(const struct argus_graph_view *v)
{
	struct argus_beam_graph g = {view_vertex, view_in_edges, (void *)v};
	return g;
}

struct node {
	argus_vid vid;
	int32_t parent; /* node index, -1 = the start */
	uint32_t depth; /* edges from the start */
	int32_t penalty;
	uint32_t order;              /* creation order: stable sorting */
	struct argus_edge_info edge; /* the edge that reached it (dst = parent) */
};

struct search {
	const struct argus_beam_graph *g;
	const struct argus_beam_params *p;
	struct node *nodes;
	size_t n, cap;
	struct idmap visited;
};

static int32_t add_node(struct search *s, argus_vid vid, int32_t parent,
                        const struct argus_edge_info *e, int32_t penalty)
{
	if (s->n == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 256;
		struct node *nn = realloc(s->nodes, ncap * sizeof(*nn));
		if (!nn)
			return -1;
		s->nodes = nn;
		s->cap = ncap;
	}
	struct node *nd = &s->nodes[s->n];
	memset(nd, 0, sizeof(*nd));
	nd->vid = vid;
	nd->parent = parent;
	nd->depth = parent >= 0 ? s->nodes[parent].depth + 1 : 0;
	nd->penalty = penalty;
	nd->order = (uint32_t)s->n;
	if (e)
		nd->edge = *e;
	return (int32_t)s->n++;
}

static int32_t edge_penalty(const struct argus_beam_params *p, int8_t strength)
{
	return p->a * strength + p->b;
}

/* Incoming edges a path may take: source still in the window, weak ones
 * left out for the no-weak-edges baseline. */
static size_t usable_edges(const struct search *s, argus_vid vid, struct argus_edge_info *out)
{
	struct argus_edge_info in[IN_EDGES_MAX];
	size_t n = s->g->in_edges(s->g->arg, vid, in, IN_EDGES_MAX), k = 0;
	if (n > IN_EDGES_MAX)
		n = IN_EDGES_MAX;
	for (size_t i = 0; i < n; i++) {
		struct argus_vertex_info src;
		if (s->p->no_weak_edges && in[i].strength != ARGUS_STRONG)
			continue;
		if (!in[i].src || in[i].src == vid || !s->g->vertex(s->g->arg, in[i].src, &src))
			continue;
		out[k++] = in[i];
	}
	return k;
}

static int cmp_states(const void *a, const void *b, void *arg)
{
	const struct node *nodes = arg;
	const struct node *x = &nodes[*(const int32_t *)a], *y = &nodes[*(const int32_t *)b];
	if (x->penalty != y->penalty)
		return x->penalty < y->penalty ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static void sort_states(struct search *s, int32_t *st, size_t n)
{
	if (n < 2)
		return;
	qsort_r(st, n, sizeof(*st), cmp_states, s->nodes);
}

static void to_path(const struct search *s, int32_t leaf, bool ended, struct argus_path *out)
{
	uint32_t depth = s->nodes[leaf].depth;
	memset(out, 0, sizeof(*out));
	out->n = depth + 1;
	out->penalty = s->nodes[leaf].penalty;
	out->ended = ended;
	for (int32_t i = leaf; i >= 0; i = s->nodes[i].parent) {
		uint32_t d = s->nodes[i].depth;
		out->v[d] = s->nodes[i].vid;
		if (d > 0)
			out->edge[d - 1] = s->nodes[i].edge;
	}
}

struct result {
	int32_t node;
	bool ended;
};

int argus_beam_search(const struct argus_beam_graph *g, argus_vid start,
                      const struct argus_beam_params *p, struct argus_path *out, size_t cap,
                      struct argus_beam_stats *stp)
{
	struct argus_beam_stats st = {0};
	struct argus_beam_params pc = *p;
	if (pc.max_depth > ARGUS_PATH_MAX - 1)
		pc.max_depth = ARGUS_PATH_MAX - 1;
	p = &pc;
	struct search s = {.g = g, .p = p};
	int32_t *cur = NULL, *next = NULL;
	size_t ncur = 0, nnext = 0, ccur = 0, cnext = 0;
	struct result *res = calloc(p->width + 1, sizeof(*res));
	size_t nres = 0;
	uint32_t width = p->width, steps = 0;
	int rc = -1;
	struct argus_vertex_info sv;

	if (!res)
		return -1;
	if (!g->vertex(g->arg, start, &sv)) {
		free(res);
		return 0;
	}
	int32_t root = add_node(&s, start, -1, NULL, 0);
	if (root < 0 || !idmap_put(&s.visited, start, 1))
		goto out;
	cur = malloc(sizeof(*cur) * 16);
	if (!cur)
		goto out;
	ccur = 16;
	cur[ncur++] = root;

	while (ncur && width > 0) {
		nnext = 0;
		st.steps++;
		sort_states(&s, cur, ncur);
		for (size_t i = 0; i < ncur; i++) {
			if (width == 0)
				break;
			int32_t si = cur[i];
			struct argus_vertex_info v;
			struct argus_edge_info in[IN_EDGES_MAX];
			size_t ne = 0;
			bool ui = false;
			if (g->vertex(g->arg, s.nodes[si].vid, &v))
				ui = s.nodes[si].depth > 0 && (v.flags & ARGUS_VF_UI);
			if (!ui && s.nodes[si].depth < p->max_depth)
				ne = usable_edges(&s, s.nodes[si].vid, in);
			/* a path ends at a UI vertex or one with no incoming edge
			 * (Algorithm 1 lines 11-14) */
			if (ui || ne == 0) {
				res[nres].node = si;
				res[nres].ended = ui || s.nodes[si].depth < p->max_depth;
				nres++;
				width--;
				continue;
			}
			/* the visited set: a vertex joins one path only, so no
			 * path loops and no work repeats; a state whose every
			 * source is taken ends here */
			size_t fresh = 0;
			for (size_t k = 0; k < ne; k++) {
				if (idmap_get(&s.visited, in[k].src))
					st.visited_skips++;
				else
					in[fresh++] = in[k];
			}
			if (!fresh) {
				res[nres].node = si;
				res[nres].ended = true;
				nres++;
				width--;
				continue;
			}
			ne = fresh;
			st.expanded++;
			for (size_t k = 0; k < ne; k++) {
				if (idmap_get(&s.visited, in[k].src)) {
					st.visited_skips++;
					continue;
				}
				if (!idmap_put(&s.visited, in[k].src, 1))
					goto out;
				int32_t pen = s.nodes[si].penalty + edge_penalty(p, in[k].strength);
				int32_t ni = add_node(&s, in[k].src, si, &in[k], pen);
				if (ni < 0)
					goto out;
				if (nnext == cnext) {
					size_t nc = cnext ? cnext * 2 : 16;
					int32_t *nn = realloc(next, nc * sizeof(*nn));
					if (!nn)
						goto out;
					next = nn;
					cnext = nc;
				}
				next[nnext++] = ni;
			}
		}
		/* curStates <- newStates */
		int32_t *tmp = cur;
		size_t tc = ccur;
		cur = next;
		ncur = nnext;
		ccur = cnext;
		next = tmp;
		cnext = tc;
		/* prune every lookback steps (lines 22-25); the state cap is a
		 * safety valve for pathological fan-in, counted */
		if (++steps >= p->lookback) {
			steps = 0;
			sort_states(&s, cur, ncur);
			if (ncur > width) {
				st.pruned += ncur - width;
				ncur = width;
			}
		} else if (ncur > p->max_states) {
			sort_states(&s, cur, ncur);
			st.capped += ncur - p->max_states;
			ncur = p->max_states;
		}
	}
	/* lines 27-28: what is still open joins the results */
	sort_states(&s, cur, ncur);
	for (size_t i = 0; i < ncur && width > 0; i++, width--) {
		res[nres].node = cur[i];
		res[nres].ended = false;
		nres++;
	}
	/* sort results by penalty */
	for (size_t i = 1; i < nres; i++)
		for (size_t j = i; j > 0; j--) {
			const struct node *x = &s.nodes[res[j - 1].node],
			                  *y = &s.nodes[res[j].node];
			if (x->penalty < y->penalty ||
			    (x->penalty == y->penalty && x->order <= y->order))
				break;
			struct result t = res[j];
			res[j] = res[j - 1];
			res[j - 1] = t;
		}
	for (size_t i = 0; i < nres && i < cap; i++)
		to_path(&s, res[i].node, res[i].ended, &out[i]);
	rc = (int)(nres < cap ? nres : cap);
out:
	free(cur);
	free(next);
	free(res);
	free(s.nodes);
	idmap_free(&s.visited);
	if (stp)
		*stp = st;
	return rc;
}

int argus_critical_path(const struct argus_beam_graph *g, argus_vid start,
                        const struct argus_beam_params *p, struct argus_path *out)
{
	struct argus_beam_params pc = *p;
	if (pc.max_depth > ARGUS_PATH_MAX - 1)
		pc.max_depth = ARGUS_PATH_MAX - 1;
	p = &pc;
	struct search s = {.g = g, .p = p};
	struct argus_vertex_info v;
	memset(out, 0, sizeof(*out));
	if (!g->vertex(g->arg, start, &v))
		return 0;
	out->v[0] = start;
	out->n = 1;
	idmap_put(&s.visited, start, 1);
	while (out->n <= p->max_depth) {
		argus_vid cur = out->v[out->n - 1];
		if (out->n > 1 && g->vertex(g->arg, cur, &v) && (v.flags & ARGUS_VF_UI)) {
			out->ended = true;
			break;
		}
		struct argus_edge_info in[IN_EDGES_MAX];
		size_t ne = usable_edges(&s, cur, in);
		int best = -1;
		for (size_t k = 0; k < ne; k++) {
			if (idmap_get(&s.visited, in[k].src))
				continue;
			if (best < 0 || in[k].ts > in[best].ts ||
			    (in[k].ts == in[best].ts && in[k].strength < in[best].strength))
				best = (int)k;
		}
		if (best < 0) {
			out->ended = true;
			break;
		}
		idmap_put(&s.visited, in[best].src, 1);
		out->edge[out->n - 1] = in[best];
		out->penalty += edge_penalty(p, in[best].strength);
		out->v[out->n++] = in[best].src;
	}
	idmap_free(&s.visited);
	return 1;
}
