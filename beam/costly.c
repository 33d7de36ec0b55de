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
 * share tolerates strays, not a caller's other callees: on whole chains,
 * a callee whose direct caller has samples in another callee (its system
 * calls) leaves the caller accountable however few they are, as under the
 * paper's rule (on frame-pointer stacks such a sample may have lost the
 * callee's frame, and counts against it within the share); the caller's
 * own bookkeeping between the calls does not count against the callee.
 *
 * Samples are counted per function (name and object), not per frame
 * position: a sample taken in a shared library without frame pointers
 * carries the application frame that called it (docs/kext.md, sp_ret) and
 * little or garbage beyond. Application functions are looked for first,
 * among the samples that reach application code (one that does not says
 * nothing about which application function ran); then system ones
 * (docs/diagnosis.md, "Application code").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "beam.h"

enum { MAX_FUNCS = 256, MAX_STACKS = 1024, MAX_DEPTH = 64 };

/* The stacks as lists of function indices (one kind: application or
 * system), innermost first, each function once. */
struct fsets {
	uint32_t nf;
	struct argus_frame frame[MAX_FUNCS];
	uint32_t count[MAX_FUNCS];                 /* stacks holding it */
	uint64_t held[MAX_FUNCS][MAX_STACKS / 64]; /* which stacks hold it */
	uint32_t ns;
	uint16_t fn[MAX_STACKS][MAX_DEPTH];
	uint8_t nfn[MAX_STACKS];
	uint8_t pos[MAX_STACKS][MAX_DEPTH]; /* each function's frame index in the raw stack */
	int16_t caller[MAX_FUNCS];          /* direct_callers, on whole chains only */
	/* whole chains, unwound with the binaries' CFI: no frame is lost, so a
	 * sample beside a function is its caller's other work (in_sibling);
	 * a frame-pointer walk through a library without them may have lost
	 * the function's own frame there */
	bool exact;
	int16_t
	    self[MAX_STACKS]; /* the function the sample's ip is in when it is of this kind, -1 */
};

static int find(struct fsets *t, const struct argus_frame *f)
{
	for (uint32_t i = 0; i < t->nf; i++)
		if (!strcmp(t->frame[i].func, f->func) && !strcmp(t->frame[i].object, f->object))
			return (int)i;
	if (t->nf == MAX_FUNCS)
		return -1;
	t->frame[t->nf] = *f;
	t->count[t->nf] = 0;
	memset(t->held[t->nf], 0, sizeof(t->held[0]));
	return (int)t->nf++;
}

static bool holds(const struct fsets *t, uint32_t s, uint32_t f)
{
	return t->held[f][s / 64] >> (s % 64) & 1;
}

/* Each function's direct caller (the next frame of the raw stack) on most
 * of its stacks, -1 = none (called through system code, or from different
 * callers). */
static void direct_callers(struct fsets *t)
{
	_Static_assert(MAX_FUNCS <= INT16_MAX, "caller indices fit");
	uint32_t lead[MAX_FUNCS] = {0}, votes[MAX_FUNCS] = {0};
	/* the majority candidate by pairing off (Boyer-Moore), then its count */
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t s = 0; s < t->ns; s++)
			for (uint32_t i = 0; i + 1 < t->nfn[s]; i++) {
				uint32_t g = t->fn[s][i], c = t->fn[s][i + 1];
				if (t->pos[s][i + 1] != t->pos[s][i] + 1)
					continue;
				if (pass) {
					votes[g] += t->caller[g] == (int16_t)c;
				} else if (!lead[g]) {
					t->caller[g] = (int16_t)c;
					lead[g] = 1;
				} else if (t->caller[g] == (int16_t)c) {
					lead[g]++;
				} else {
					lead[g]--;
				}
			}
		if (!pass)
			for (uint32_t g = 0; g < t->nf; g++)
				if (!lead[g])
					t->caller[g] = -1;
	}
	for (uint32_t g = 0; g < t->nf; g++)
		if (votes[g] * 2 <= t->count[g])
			t->caller[g] = -1;
}

/* Whether stack s, a whole chain, is in another callee of g's direct
 * caller than g: it holds the caller, not g, and its innermost frame is
 * not the caller's own code (a system call, a second helper). That is the
 * caller's other work, no stray. */
static bool in_sibling(const struct fsets *t, uint32_t s, uint32_t g)
{
	if (!t->exact)
		return false;
	int c = t->caller[g];
	return c >= 0 && holds(t, s, (uint32_t)c) && !holds(t, s, g) && t->self[s] != c;
}

/* Whole chains: the frames of an application function that system code
 * called (a system frame lies outward of it, and an application frame
 * beyond that: the app's handler under the toolkit's loop), innermost
 * first; the app's frames above its loop (_start, main: the C library's
 * start-up code between them is no loop) are not. */
static uint32_t called_back(const struct argus_symbolizer *sym, uint32_t pid, const uint64_t *ips,
                            uint32_t depth, bool *cb)
{
	int state = 0; /* from the outermost: 0 none yet, 1 app seen, 2 then system */
	uint32_t nb = 0, nout = 0;
	char outer[4][128]; /* the app's functions above the loop */
	for (uint32_t j = depth; j-- > 0;) {
		struct argus_frame f;
		cb[j] = false;
		if (!ips[j] || !sym->resolve(sym->arg, pid, j ? ips[j] - 1 : ips[j], &f))
			continue;
		if (f.system) {
			/* the C library's start-up code calling main is no loop */
			if (state == 1 && strncmp(f.object, "libc.so", 7) &&
			    strncmp(f.object, "libc-", 5))
				state = 2;
			continue;
		}
		if (state < 2) {
			state = 1;
			if (nout < 4)
				snprintf(outer[nout++], sizeof(outer[0]), "%s", f.func);
			continue;
		}
		/* a name seen above the loop is no handler: a stripped
		 * executable's static functions resolve to the symbol before
		 * them (main) */
		bool above = false;
		for (uint32_t o = 0; o < nout && !above; o++)
			above = !strcmp(outer[o], f.func);
		if (!above) {
			cb[j] = true;
			nb++;
		}
	}
	return nb;
}

/* The stacks with a frame of the kind (system or not) into t; with
 * callbacks, the application frames system code called only (whole
 * chains: return addresses looked up inside the call). */
static void collect_frames(const struct argus_symbolizer *sym, uint32_t pid, const uint32_t *stacks,
                           uint32_t n, bool system, bool callbacks, struct fsets *t)
{
	t->nf = t->ns = 0;
	t->exact = callbacks;
	for (uint32_t k = 0; k < n && t->ns < MAX_STACKS; k++) {
		const uint64_t *ips;
		uint32_t depth;
		bool cb[MAX_DEPTH * 2];
		if (!sym->stack(sym->arg, stacks[k], &ips, &depth))
			continue;
		if (callbacks) {
			if (depth > MAX_DEPTH * 2)
				depth = MAX_DEPTH * 2;
			if (!called_back(sym, pid, ips, depth, cb))
				continue;
		}
		uint32_t s = t->ns;
		t->nfn[s] = 0;
		t->self[s] = -1;
		for (uint32_t i = 0; i < depth && t->nfn[s] < MAX_DEPTH; i++) {
			struct argus_frame f;
			if (callbacks && !cb[i])
				continue;
			uint64_t ip = callbacks && i ? ips[i] - 1 : ips[i];
			if (!sym->resolve(sym->arg, pid, ip, &f) || f.system != system)
				continue;
			int fi = find(t, &f);
			if (fi < 0 || holds(t, s, (uint32_t)fi))
				continue;
			if (i == 0)
				t->self[s] = (int16_t)fi;
			t->pos[s][t->nfn[s]] = (uint8_t)(i < 255 ? i : 255);
			t->fn[s][t->nfn[s]++] = (uint16_t)fi;
			t->held[fi][s / 64] |= 1ull << (s % 64);
			t->count[fi]++;
		}
		if (t->nfn[s])
			t->ns++;
	}
	if (t->exact)
		direct_callers(t);
}

static void collect(const struct argus_symbolizer *sym, uint32_t pid, const uint32_t *stacks,
                    uint32_t n, bool system, struct fsets *t)
{
	collect_frames(sym, pid, stacks, n, system, false, t);
}

/* Of n stacks, how many must hold a function: ceil(share x n), robust to
 * 0.9 x 10 = 9.000...01; all of them below min_samples. */
static uint32_t need_of(double share, uint32_t n, uint32_t min_samples)
{
	double x = share * n - 1e-9;
	uint32_t need = (uint32_t)x;
	if (need < x)
		need++;
	return n < min_samples ? n : need;
}

/* Whether g is held by enough of the stacks lo..hi-1 (in time order). A
 * sample in the own code of a function that calls g (one on most of g's
 * stacks) - its bookkeeping between the calls - does not count against g,
 * up to a tenth of the samples; one in another callee of g's direct caller
 * (a system call, a second helper: in_sibling) rules g out, for the share
 * tolerates strays, not the caller's other work. */
static bool qualifies_in(const struct fsets *t, uint32_t g, double share, uint32_t min_samples,
                         uint32_t lo, uint32_t hi)
{
	uint32_t neutral = 0, count = 0;
	for (uint32_t s = lo; s < hi; s++) {
		if (in_sibling(t, s, g))
			return false;
		if (holds(t, s, g))
			count++;
		if (t->self[s] < 0 || holds(t, s, g))
			continue;
		uint32_t f = (uint32_t)t->self[s], co = 0;
		for (uint32_t w = 0; w < MAX_STACKS / 64; w++)
			co += (uint32_t)__builtin_popcountll(t->held[g][w] & t->held[f][w]);
		neutral += co * 2 > t->count[g];
	}
	if (neutral * 10 > hi - lo)
		neutral = 0;
	uint32_t need = need_of(share, hi - lo - neutral, min_samples);
	return need && count >= need;
}

static bool qualifies(const struct fsets *t, uint32_t g, double share, uint32_t min_samples)
{
	return qualifies_in(t, g, share, min_samples, 0, t->ns);
}

/* A phase of the handler (docs/diagnosis.md "A handler that works in
 * phases"): a stretch of consecutive stacks (they are in time order), share
 * of them holding g and none in another callee of g's direct caller, that
 * holds most of all the stacks, while g holds at most half of the stacks
 * outside it; the handler's other phases, before and after it, and g's
 * other calls (a later, smaller invocation) do not count against it. */
static bool qualifies_phase(const struct fsets *t, uint32_t g, double share, uint32_t min_samples)
{
	if (t->count[g] * 2 <= t->ns)
		return false;
	uint32_t pre[MAX_STACKS + 1], sib[MAX_STACKS + 1];
	pre[0] = sib[0] = 0;
	for (uint32_t s = 0; s < t->ns; s++) {
		pre[s + 1] = pre[s] + holds(t, s, g);
		sib[s + 1] = sib[s] + in_sibling(t, s, g);
	}
	for (uint32_t lo = 0; lo < t->ns; lo++) {
		if (!holds(t, lo, g))
			continue;
		for (uint32_t hi = t->ns; hi > lo; hi--) {
			uint32_t in = pre[hi] - pre[lo];
			if (in * 2 <= t->ns)
				break; /* shorter stretches hold fewer */
			if (!holds(t, hi - 1, g) || sib[hi] != sib[lo])
				continue;
			/* outside the stretch the handler did other things: g
			 * holding most of those chains too is a loop's steady
			 * work between its caller's other calls, no phase */
			uint32_t out_n = t->ns - (hi - lo), out_g = t->count[g] - in;
			if (in >= need_of(share, hi - lo, min_samples) && out_g * 2 <= out_n)
				return true;
		}
	}
	return false;
}

/* Each stack votes for its innermost qualifying function (votes zeroed);
 * the most voted is *out. Returns its sample count, 0 = none. */
static uint32_t elect(const struct fsets *t, const bool *ok, uint32_t *votes,
                      struct argus_frame *out)
{
	for (uint32_t f = 0; f < t->nf; f++)
		votes[f] = 0;
	for (uint32_t s = 0; s < t->ns; s++)
		for (uint32_t i = 0; i < t->nfn[s]; i++)
			if (ok[t->fn[s][i]]) {
				votes[t->fn[s][i]]++;
				break;
			}
	int best = -1;
	for (uint32_t f = 0; f < t->nf; f++)
		if (votes[f] && (best < 0 || votes[f] > votes[best]))
			best = (int)f;
	if (best < 0)
		return 0;
	*out = t->frame[best];
	return t->count[best];
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
	struct fsets *t = malloc(sizeof(*t));
	uint32_t *votes = calloc(MAX_FUNCS, sizeof(*votes));
	bool *ok = calloc(MAX_FUNCS, sizeof(*ok));
	uint32_t support = 0;
	for (int system = 0; t && votes && ok && system < 2 && !support; system++) {
		collect(sym, pid, stacks, n, system, t);
		for (uint32_t f = 0; f < t->nf; f++)
			ok[f] = qualifies(t, f, share, min_samples);
		support = elect(t, ok, votes, out);
	}
	free(t);
	free(votes);
	free(ok);
	return support;
}

/*
 * Whole call chains (full stacks, docs/diagnosis.md "Full stacks"): the
 * rule the realapps truth is written by, from perf's DWARF call graphs -
 * the innermost function with a symbol under which more than `share` of
 * the samples lie (all of them below min_samples), in any object. Frames
 * past the first are return addresses: looked up one byte back, inside
 * the call (a call that ends a function would name the next one).
 */
/* Every function with a symbol on each chain, in any object, once. */
static void collect_chains(const struct argus_symbolizer *sym, uint32_t pid,
                           const uint32_t *stacks, uint32_t n, struct fsets *t)
{
	t->nf = t->ns = 0;
	for (uint32_t k = 0; k < n && t->ns < MAX_STACKS; k++) {
		const uint64_t *ips;
		uint32_t depth, s = t->ns;
		if (!sym->stack(sym->arg, stacks[k], &ips, &depth))
			continue;
		t->nfn[s] = 0;
		for (uint32_t i = 0; i < depth && t->nfn[s] < MAX_DEPTH; i++) {
			struct argus_frame f;
			if (!ips[i] || !sym->resolve(sym->arg, pid, i ? ips[i] - 1 : ips[i], &f))
				continue;
			int fi = find(t, &f);
			if (fi < 0 || holds(t, s, (uint32_t)fi))
				continue;
			t->fn[s][t->nfn[s]++] = (uint16_t)fi;
			t->held[fi][s / 64] |= 1ull << (s % 64);
			t->count[fi]++;
		}
		t->ns++; /* a sample with no symbol at all still counts */
	}
}

uint32_t argus_costly_chain(const struct argus_symbolizer *sym, uint32_t pid,
                            const uint32_t *stacks, uint32_t n, double share, uint32_t min_samples,
                            struct argus_frame *out)
{
	memset(out, 0, sizeof(*out));
	if (!sym || !sym->stack || !sym->resolve || !n)
		return 0;
	struct fsets *t = malloc(sizeof(*t));
	uint32_t *votes = calloc(MAX_FUNCS, sizeof(*votes));
	bool *ok = calloc(MAX_FUNCS, sizeof(*ok));
	if (!t || !votes || !ok) {
		free(t);
		free(votes);
		free(ok);
		return 0;
	}
	collect_chains(sym, pid, stacks, n, t);
	/* more than share of them: 51 of 100 at 0.5 */
	uint32_t need = (uint32_t)(share * t->ns) + 1;
	if (need > t->ns || t->ns < min_samples)
		need = t->ns;
	for (uint32_t f = 0; f < t->nf; f++)
		ok[f] = t->count[f] >= need;
	uint32_t support = elect(t, ok, votes, out);
	free(t);
	free(votes);
	free(ok);
	return support;
}

/*
 * Whole call chains reach the app's own code wherever it is (docs/diagnosis.md
 * "Full stacks and the zoo"): the app's functions that system code called
 * back (handlers under the toolkit's loop, not main above it), held by
 * `share` of the chains that reach one - the costly-function rule, on the
 * frames a frame-pointer walk of a program built with them gives too. None
 * (a distribution binary whose code lives under the system's library
 * directories, or busy in library calls alone): out->func "".
 */
uint32_t argus_costly_callback(const struct argus_symbolizer *sym, uint32_t pid,
                               const uint32_t *stacks, uint32_t n, double share,
                               uint32_t min_samples, struct argus_frame *out)
{
	memset(out, 0, sizeof(*out));
	if (!sym || !sym->stack || !sym->resolve || !n)
		return 0;
	struct fsets *t = malloc(sizeof(*t));
	uint32_t *votes = calloc(MAX_FUNCS, sizeof(*votes));
	bool *ok = calloc(MAX_FUNCS, sizeof(*ok));
	uint32_t support = 0;
	if (t && votes && ok) {
		collect_frames(sym, pid, stacks, n, false, true, t);
		if (t->ns * 2 <= n) /* most chains never reach the app's handlers */
			t->ns = t->nf = 0;
		for (uint32_t f = 0; f < t->nf; f++)
			ok[f] = qualifies(t, f, share, min_samples) ||
			        qualifies_phase(t, f, share, min_samples);
		support = elect(t, ok, votes, out);
	}
	free(t);
	free(votes);
	free(ok);
	return support;
}

size_t argus_majority_path(const struct argus_symbolizer *sym, uint32_t pid,
                           const uint32_t *stacks, uint32_t n, char *out, size_t cap)
{
	if (cap)
		out[0] = 0;
	if (!sym || !sym->stack || !sym->resolve || !n || !cap)
		return 0;
	struct fsets *t = malloc(sizeof(*t));
	if (!t)
		return 0;
	collect_chains(sym, pid, stacks, n, t);
	/* the functions more than half hold, innermost first: a nested chain
	 * of callers holds more and more (insertion by count, ties in order) */
	uint16_t order[MAX_FUNCS];
	uint32_t nq = 0;
	for (uint32_t f = 0; f < t->nf; f++) {
		if (t->count[f] * 2 <= t->ns || !t->frame[f].func[0])
			continue;
		uint32_t j = nq++;
		for (; j > 0 && t->count[order[j - 1]] > t->count[f]; j--)
			order[j] = order[j - 1];
		order[j] = (uint16_t)f;
	}
	size_t len = 0, nout = 0;
	for (uint32_t k = 0; k < nq; k++) {
		int w = snprintf(out + len, cap - len, "%s%s", len ? ";" : "",
		                 t->frame[order[k]].func);
		if (w < 0 || (size_t)w >= cap - len) {
			out[len] = 0; /* the outermost callers do not fit: left out */
			break;
		}
		len += (size_t)w;
		nout++;
	}
	free(t);
	return nout;
}
