/*
 * diag_user.c - what a user at `argus debug -i` asks the diagnosis for
 * (docs/debug.md): the steps of the search as lines, and the vertices
 * similar to one (Algorithm 2's FindSimilarVertices, the baseline
 * candidates, scored). The hints themselves are read where the search
 * decides (diagnose.c, rules.c, rule_compare.c).
 */
#include <stdlib.h>
#include <string.h>

#include "diag_priv.h"

void dg_step(const struct ctx *c, const char *fmt, ...)
{
	if (!c->h || !c->h->step)
		return;
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	c->h->step(c->h->step_arg, line);
}

/* The signature's edit distance (the same as dg_similar's measure). */
static uint32_t sig_distance(const struct argus_vertex_info *x, const struct argus_vertex_info *y,
                             uint32_t *len)
{
	uint32_t nx = x->nsig < ARGUS_SIG_MAX ? x->nsig : ARGUS_SIG_MAX;
	uint32_t ny = y->nsig < ARGUS_SIG_MAX ? y->nsig : ARGUS_SIG_MAX;
	uint32_t row[ARGUS_SIG_MAX + 1];
	*len = nx > ny ? nx : ny;
	for (uint32_t j = 0; j <= ny; j++)
		row[j] = j;
	for (uint32_t i = 1; i <= nx; i++) {
		uint32_t diag = row[0];
		row[0] = i;
		for (uint32_t j = 1; j <= ny; j++) {
			uint32_t up = row[j];
			uint32_t best = diag + (x->sig[i - 1] != y->sig[j - 1]);
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[ny];
}

static int cmp_similar(const void *a, const void *b)
{
	const struct argus_similar *x = a, *y = b;
	if (x->distance != y->distance)
		return x->distance < y->distance ? -1 : 1;
	return x->v.start > y->v.start ? -1 : x->v.start < y->v.start;
}

int argus_diag_similar(const struct argus_graph_view *view, argus_vid id,
                       const struct argus_beam_params *p, struct argus_similar *out, size_t cap)
{
	struct argus_vertex_info a;
	if (!argus_graph_vertex(view, id, &a))
		return 0;
	struct ctx c = {.view = view, .p = p};
	struct argus_similar *all = NULL;
	size_t n = 0, acap = 0;
	for (argus_vid v = argus_graph_next_vertex(view, 0); v;
	     v = argus_graph_next_vertex(view, v)) {
		struct argus_vertex_info x;
		if (v == id || !argus_graph_vertex(view, v, &x) || x.tid != a.tid ||
		    x.start >= a.start || !dg_similar(&c, &a, &x))
			continue;
		if (n == acap) {
			size_t nc = acap ? acap * 2 : 64;
			struct argus_similar *na = realloc(all, nc * sizeof(*na));
			if (!na) {
				free(all);
				return -1;
			}
			all = na;
			acap = nc;
		}
		struct argus_similar *s = &all[n++];
		s->v = x;
		s->distance = sig_distance(&a, &x, &s->length);
		/* as the baseline search asks it: for a wait, one that ended
		 * quickly; for a vertex that did not wait (a spinning loop's), a
		 * short segment */
		s->differs =
		    (a.flags & ARGUS_VF_WAITED)
		        ? (x.flags & ARGUS_VF_WAITED) && x.wait_ns && x.wait_ns < p->long_wait_ns
		        : x.end - x.start < p->long_wait_ns;
	}
	if (n)
		qsort(all, n, sizeof(*all), cmp_similar);
	for (size_t i = 0; i < n && i < cap; i++)
		out[i] = all[i];
	free(all);
	return (int)n;
}
