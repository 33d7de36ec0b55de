/*
 * costly.c - the costly function of a busy segment from its sampled stacks
 * (docs/diagnosis.md, "LongRunning").
 *
 * The Argus paper (000, section 6.3) takes the longest common sequence of
 * frames of the stacks sampled in the vertex and names its top frame. Held
 * by every sample, that sequence is cut short by one stray sample (taken in
 * a signal handler, in the handler's set-up) and the answer moves out to a
 * caller. Here a function is on the path when at least a share (0.98) of
 * the samples hold it - all of them below a minimum number of samples, as
 * in the paper, since one sample of a few cannot be told a stray from a
 * second hot spot - and the costly function is the innermost such one. The
 * share tolerates strays, not a caller's own other work: a callee that
 * takes 85-95 % of its caller's samples leaves the caller accountable.
 *
 * Samples are counted per function (name and object), not per frame
 * position: a sample taken in a shared library without frame pointers
 * carries the application frame that called it (docs/kext.md, sp_ret) and
 * little or garbage beyond. Application functions are looked for first,
 * among the samples that reach application code (one that does not says
 * nothing about which application function ran); then system ones
 * (docs/diagnosis.md, "Application code").
 */
#include <stdlib.h>
#include <string.h>

#include "beam.h"

enum { MAX_FUNCS = 256 };

/* The functions the stacks name, and on how many stacks each is. */
struct fcount {
	uint32_t n;
	struct argus_frame frame[MAX_FUNCS];
	uint32_t stacks[MAX_FUNCS]; /* stacks holding it */
	uint32_t votes[MAX_FUNCS];  /* stacks on which it is the innermost on the path */
};

static int find(struct fcount *t, const struct argus_frame *f, bool add)
{
	for (uint32_t i = 0; i < t->n; i++)
		if (!strcmp(t->frame[i].func, f->func) && !strcmp(t->frame[i].object, f->object))
			return (int)i;
	if (!add || t->n == MAX_FUNCS)
		return -1;
	t->frame[t->n] = *f;
	t->stacks[t->n] = t->votes[t->n] = 0;
	return (int)t->n++;
}

/* One pass over the stacks for the functions of one kind (system or not):
 * pass 0 counts, pass 1 has each stack vote for its innermost function held
 * by need stacks. Returns the stacks with a frame of the kind. */
static uint32_t walk(const struct argus_symbolizer *sym, uint32_t pid, const uint32_t *stacks,
                     uint32_t n, bool system, int pass, uint32_t need, struct fcount *t)
{
	uint32_t with = 0;
	for (uint32_t k = 0; k < n; k++) {
		const uint64_t *ips;
		uint32_t depth;
		if (!sym->stack(sym->arg, stacks[k], &ips, &depth))
			continue;
		uint64_t seen[MAX_FUNCS / 64] = {0};
		bool any = false;
		for (uint32_t i = 0; i < depth; i++) {
			struct argus_frame f;
			if (!sym->resolve(sym->arg, pid, ips[i], &f) || f.system != system)
				continue;
			int fi = find(t, &f, pass == 0);
			if (fi < 0 || (seen[fi / 64] >> (fi % 64) & 1))
				continue;
			seen[fi / 64] |= 1ull << (fi % 64);
			any = true;
			if (pass == 0) {
				t->stacks[fi]++;
			} else if (t->stacks[fi] >= need) {
				t->votes[fi]++;
				break;
			}
		}
		with += any;
	}
	return with;
}

uint32_t argus_costly_function(const struct argus_symbolizer *sym, uint32_t pid,
                               const uint32_t *stacks, uint32_t n, double share,
                               uint32_t min_samples, struct argus_frame *out)
{
	memset(out, 0, sizeof(*out));
	if (!sym || !sym->stack || !sym->resolve || !n)
		return 0;
	if (share < 0.5)
		share = 0.5;
	if (share > 1)
		share = 1;
	struct fcount *t = malloc(sizeof(*t));
	if (!t)
		return 0;
	uint32_t support = 0;
	for (int system = 0; system < 2 && !support; system++) {
		t->n = 0;
		uint32_t with = walk(sym, pid, stacks, n, system, 0, 0, t);
		/* need = ceil(share x with), robust to 0.9 x 10 = 9.000...01 */
		double x = share * with - 1e-9;
		uint32_t need = (uint32_t)x;
		if (need < x)
			need++;
		if (with < min_samples)
			need = with;
		if (!need)
			continue;
		walk(sym, pid, stacks, n, system, 1, need, t);
		int best = -1;
		for (uint32_t i = 0; i < t->n; i++)
			if (t->votes[i] && (best < 0 || t->votes[i] > t->votes[best]))
				best = (int)i;
		if (best >= 0) {
			*out = t->frame[best];
			support = t->stacks[best];
		}
	}
	free(t);
	return support;
}
