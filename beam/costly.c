/*
 * costly.c - the costly function of a busy segment from its sampled stacks
 * (docs/diagnosis.md, "The costly function").
 *
 * The Argus paper (000, section 6.3) takes the longest common sequence of
 * frames of the stacks sampled in the vertex and names its top frame. Held
 * by every sample, that sequence is cut short by one stray sample (taken in
 * a signal handler, a tail call, an unrelated frame) and the answer moves
 * out to a caller. Here the sequence is the heaviest path of the samples'
 * calling-context tree, outermost frame first, followed while the frame is
 * held by at least a share (0.98) of the samples; below a minimum number of
 * samples every sample must hold it, as in the paper, since one sample of a
 * few cannot be told a stray from a second hot spot. The share tolerates
 * strays, not a caller's own other work: a callee that takes 85-95 % of its
 * caller's samples is not the costly function (docs/diagnosis.md). A share
 * above one half makes the path unique: at each depth at most one function
 * can reach it, found in one pass by majority vote.
 */
#include <stdlib.h>
#include <string.h>

#include "beam.h"

#define FUNC_CAP 128

struct frame_key {
	uint64_t ip;
	bool named; /* resolved: compared by function, else by address */
	char func[FUNC_CAP];
};

/* Frames in the same function: samples taken inside a loop differ in the
 * innermost address, not in the function; frames no symbol names (shared
 * libraries) only by address. */
static bool same_frame(const struct frame_key *a, const struct frame_key *b)
{
	if (a->named != b->named)
		return false;
	return a->named ? !strcmp(a->func, b->func) : a->ip == b->ip;
}

uint32_t argus_costly_function(const struct argus_symbolizer *sym, uint32_t pid,
                               const uint32_t *stacks, uint32_t n, double share,
                               uint32_t min_samples, char *func, size_t cap)
{
	if (cap)
		*func = 0;
	if (!sym || !sym->stack || !sym->resolve || !n)
		return 0;
	const uint64_t **ips = calloc(n, sizeof(*ips));
	uint32_t *depth = calloc(n, sizeof(*depth));
	uint32_t *alive = calloc(n, sizeof(*alive));
	struct frame_key *key = calloc(n, sizeof(*key));
	uint32_t support = 0;
	if (!ips || !depth || !alive || !key)
		goto out;
	uint32_t nalive = 0;
	for (uint32_t i = 0; i < n; i++)
		if (sym->stack(sym->arg, stacks[i], &ips[i], &depth[i]) && depth[i])
			alive[nalive++] = i;
	uint32_t total = nalive;
	if (share < 0.5)
		share = 0.5;
	if (share > 1)
		share = 1;
	/* need = ceil(share x total), robust to 0.9 x 10 = 9.000...01 */
	double x = share * total - 1e-9;
	uint32_t need = (uint32_t)x;
	if (need < x)
		need++;
	if (total < min_samples)
		need = total;
	if (!need)
		goto out;
	for (uint32_t level = 0; nalive >= need; level++) {
		/* this depth's frame of each sample still on the path */
		uint32_t m = 0;
		for (uint32_t k = 0; k < nalive; k++) {
			uint32_t i = alive[k];
			if (depth[i] <= level)
				continue;
			struct frame_key *f = &key[m];
			char sl[FUNC_CAP];
			f->ip = ips[i][depth[i] - 1 - level];
			f->named = sym->resolve(sym->arg, pid, f->ip, f->func, sizeof(f->func), sl,
			                        sizeof(sl));
			alive[m++] = i;
		}
		if (m < need)
			break;
		/* the only function that can reach need > half: majority vote */
		uint32_t cand = 0, votes = 0;
		for (uint32_t k = 0; k < m; k++) {
			if (!votes)
				cand = k, votes = 1;
			else if (same_frame(&key[cand], &key[k]))
				votes++;
			else
				votes--;
		}
		struct frame_key best = key[cand];
		uint32_t held = 0;
		for (uint32_t k = 0; k < m; k++)
			if (same_frame(&best, &key[k]))
				alive[held++] = alive[k];
		if (held < need)
			break;
		nalive = held;
		/* the innermost application frame of the path so far */
		if (best.named) {
			snprintf(func, cap, "%s", best.func);
			support = held;
		}
	}
out:
	free(ips);
	free(depth);
	free(alive);
	free(key);
	return support;
}
