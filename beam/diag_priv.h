/*
 * diag_priv.h - what the diagnosis's parts share (diagnose.c, diag_index.c,
 * rules.c, rule_compare.c, rule_peers.c): the window's per-thread index, the
 * samples, the candidate list, and the rules' common signature. Not
 * installed; beam.h is the stage's interface.
 */
#ifndef ARGUS_DIAG_PRIV_H
#define ARGUS_DIAG_PRIV_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "beam.h"
#include "idmap.h"

#define SAMPLES_PER_THREAD 1024

struct sample {
	uint64_t ts;
	uint32_t stack;
	bool chain; /* a whole call chain (ARGUS_UNWIND_DWARF) */
};

/* A thread's samples, oldest first from head - n: the ring grows by
 * doubling from SAMPLES_FIRST to SAMPLES_PER_THREAD (most threads of a
 * build or a message storm live for a few samples; a whole ring each was
 * 16 KiB written per new thread, kept for ever). */
#define SAMPLES_FIRST 8
struct sring {
	uint32_t tid, head, n, cap;
	uint64_t exited; /* the thread's exit record's time, 0 while it lives */
	struct sample *s;
};

/* An exited thread's samples stay this long (a stall ended by its app's
 * exit is diagnosed at that end, from them), then go. */
#define SAMPLES_KEEP_EXITED_NS 60000000000ull

struct argus_samples {
	struct idmap ix;
	struct sring *r;
	uint32_t n, cap, nexited;
	uint64_t next_sweep;
	bool waits; /* keeps the stacks of blocking waits instead */
};

struct tv {
	uint32_t tid, pid;
	uint64_t start;
	argus_vid vid;
};

struct ctx {
	const struct argus_graph_view *view;
	struct argus_beam_graph g;
	const struct argus_beam_params *p;
	const struct argus_symbolizer *sym;
	const struct argus_samples *samples;
	const struct argus_stall *stall;
	enum argus_algo algo;
	struct tv *tv; /* by thread, then start */
	struct tv *tt; /* by start: time-range scans */
	size_t ntv;
	struct argus_culprit cand[32];
	uint32_t ncand;
	argus_vid baseline;
	struct argus_path normal_path;
	bool has_normal;
	const char *rule;                 /* the rule running now: candidates it adds name it */
	struct argus_diagnosis *d;        /* rules_used: what dg_note records */
	const struct argus_diag_hints *h; /* a user's (never NULL: zeroes) */
};

/* One step of the search for a user watching it (hints' step). */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void dg_step(const struct ctx *c, const char *fmt, ...);

/* Record that a rule or branch decided something (once per diagnosis). */
void dg_note(const struct ctx *c, const char *rule);

/* the window's index (diag_index.c) */
int dg_build_index(struct ctx *c);
size_t dg_time_lower(const struct ctx *c, uint64_t ts);
void dg_thread_range(const struct ctx *c, uint32_t tid, size_t *lo, size_t *hi);
ssize_t dg_index_of(const struct ctx *c, const struct argus_vertex_info *v);
uint64_t dg_receivers_from(const struct ctx *c, size_t i);
argus_vid dg_successor(const struct ctx *c, const struct argus_vertex_info *v);
bool dg_similar(const struct ctx *c, const struct argus_vertex_info *x,
                const struct argus_vertex_info *y);
bool dg_other_call(const struct ctx *c, const struct argus_vertex_info *x,
                   const struct argus_vertex_info *y);
uint64_t dg_wait_len(const struct ctx *c, const struct argus_vertex_info *v, uint64_t now);
void dg_take_frame(struct argus_culprit *cu, const struct argus_frame *f);
void dg_name_vertex(const struct ctx *c, struct argus_culprit *cu, bool prefer_wait);
/* *whole (may be NULL): named from whole call chains (costly-function/
 * whole-chains), in whatever object: dg_name_vertex must not replace it. */
uint32_t dg_costly_function(const struct ctx *c, uint32_t pid, uint32_t tid, uint64_t from,
                            uint64_t to, struct argus_frame *out, uint32_t *nsamples, bool *whole);
/* The majority path of a busy segment (argus_majority_path) over the
 * samples dg_costly_function reads: whole call chains when most are. */
void dg_majority_path(const struct ctx *c, uint32_t pid, uint32_t tid, uint64_t from,
                      uint64_t to, char *out, size_t cap);
void dg_add_candidate(struct ctx *c, const struct argus_vertex_info *v, uint8_t reason,
                      int32_t penalty, uint32_t depth);
bool dg_in_chain(const uint32_t *chain, uint32_t n, uint32_t tid);

/* Where a rule is asked to explain a wait: the anomaly vertex's stall span
 * [from, now], the threads already blamed on the way (chain, the UI thread
 * first), the path penalty and depth so far. */
struct dg_args {
	uint64_t from, now;
	uint32_t *chain;
	uint32_t nchain;
	int32_t pen;
	uint32_t depth;
	bool spinning;    /* a yield loop: waits for a flag, not a wake-up */
	bool *loops_back; /* set when the answer's normal path leads back to chain[0] */
};

/* A rule adds the culprits it finds (dg_add_candidate) and returns how many
 * (0: it does not apply, the next rule is asked), -1 out of memory. */
typedef int (*dg_rule_fn)(struct ctx *c, const struct argus_vertex_info *a,
                          const struct dg_args *x);

/* the rules (rules.c lists them, with their principle, paper and cases) */
int dg_kernel_request(struct ctx *c, const struct argus_vertex_info *a, const struct dg_args *x);
int dg_ipc_peer(struct ctx *c, const struct argus_vertex_info *a, const struct dg_args *x);
int dg_compare(struct ctx *c, const struct argus_vertex_info *a, const struct dg_args *x);
int dg_handoff(struct ctx *c, const struct argus_vertex_info *a, const struct dg_args *x);
int dg_spin_peer(struct ctx *c, const struct argus_vertex_info *a, const struct dg_args *x);
int dg_sibling(struct ctx *c, const struct argus_vertex_info *a, const struct dg_args *x);
/* Algorithm 2's "behaves differently": a vertex of v's thread blocked long
 * in [from, now] where v (its normal counterpart) was not (rule_compare.c). */
bool dg_find_blocked(const struct ctx *c, const struct argus_vertex_info *v, uint64_t from,
                     uint64_t now, struct argus_vertex_info *out);

/* Explain wait a of class cls (an enum argus_stall_class) with the rules
 * that apply to it, in the table's order, until one finds a culprit: the
 * top of the diagnosis, and "the culprit of the culprit" (a culprit blocked
 * itself is explained as a LongWait). */
int dg_explain(struct ctx *c, const struct argus_vertex_info *a, unsigned cls,
               const struct dg_args *x);

#endif /* ARGUS_DIAG_PRIV_H */
