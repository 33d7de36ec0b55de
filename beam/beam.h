/*
 * beam.h - libargus-beam: diagnosis of a stall on the annotated trace graph.
 *
 * argus_beam_search() is Algorithm 1 of the Argus paper (000, section 6.1):
 * beam search backwards from a vertex over incoming edges, penalty a*E+b per
 * edge. argus_critical_path() is the baseline (follow the latest waker).
 * argus_diagnose() (diagnose.c) runs the whole diagnosis of one stall:
 * anomaly vertex, Algorithm 2 (subgraph comparison, the culprit of the
 * culprit) for LongWait and yield loops, the costly function for
 * LongRunning. docs/diagnosis.md describes it, docs/report.md its output.
 */
#ifndef ARGUS_BEAM_H
#define ARGUS_BEAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "graph.h"
#include "trigger.h"

/* Every tunable of the diagnosis, with its one default in
 * argus_beam_params_default() (beam.c). */
struct argus_beam_params {
	uint32_t width;      /* beam width: paths kept and returned (5) */
	uint32_t lookback;   /* steps between prunings (5) */
	int32_t a, b;        /* penalty per edge: a * strength + b (3, 2) */
	uint32_t max_depth;  /* edges in a path at most (64) */
	uint32_t max_states; /* live states at most between prunings (4096) */
	bool no_weak_edges;  /* baseline: follow strong edges only */
	/* subgraph comparison */
	double sim_len;        /* similar: signatures differ in length by <= 20 % */
	double sim_dist;       /* similar: edit distance <= 0.4 x length */
	uint32_t max_similar;  /* earlier vertices of the thread examined (65536) */
	uint32_t max_recurse;  /* culprit-of-the-culprit depth (8) */
	uint64_t long_wait_ns; /* a wait this long in the stall is "blocked" (500 ms) */
	/* costly function (argus_costly_function) */
	double costly_share;         /* held by this share of the samples at least (0.98) */
	uint32_t costly_min_samples; /* fewer samples: held by every one (10) */
	/* rules not asked (ablation: argus diagnose --rule-off): names of
	 * rules with a function (argus diagnose --rules), comma-separated;
	 * "" = every rule */
	char rules_off[256];
	double chain_share; /* whole call chains: held by more than this share (0.5) */
};
void argus_beam_params_default(struct argus_beam_params *p);

/* What the search reads: a vertex and its incoming edges. The graph view
 * provides one (argus_beam_graph_of_view); tests build their own. */
struct argus_beam_graph {
	bool (*vertex)(void *arg, argus_vid id, struct argus_vertex_info *out);
	size_t (*in_edges)(void *arg, argus_vid id, struct argus_edge_info *out, size_t cap);
	void *arg;
};
struct argus_beam_graph argus_beam_graph_of_view(const struct argus_graph_view *v);

#define ARGUS_PATH_MAX 65 /* max_depth + 1 vertices */

/* A causal path, v[0] = the start vertex, v[i] reached from v[i-1] over
 * edge[i-1] (an incoming edge of v[i-1] whose source is v[i]). */
struct argus_path {
	uint32_t n; /* vertices */
	int32_t penalty;
	bool ended; /* reached a UI vertex or one with no incoming edge */
	argus_vid v[ARGUS_PATH_MAX];
	struct argus_edge_info edge[ARGUS_PATH_MAX - 1];
};

struct argus_beam_stats {
	uint64_t steps, expanded, pruned, capped, visited_skips;
};

/* Algorithm 1. Writes up to cap paths sorted by increasing penalty; returns
 * how many (<= width), or -1 when out of memory. */
int argus_beam_search(const struct argus_beam_graph *g, argus_vid start,
                      const struct argus_beam_params *p, struct argus_path *out, size_t cap,
                      struct argus_beam_stats *st);

/* Critical path: from start, repeatedly the incoming edge with the latest
 * source time (strong first on ties), to a UI vertex or no incoming edge.
 * Returns 1 (one path). */
int argus_critical_path(const struct argus_beam_graph *g, argus_vid start,
                        const struct argus_beam_params *p, struct argus_path *out);

/* ---- diagnosis of one stall ---- */

enum argus_algo {
	ARGUS_ALGO_BEAM = 0,          /* Algorithms 1 + 2 */
	ARGUS_ALGO_CRITICAL_PATH = 1, /* baseline: latest waker back */
};
const char *argus_algo_name(unsigned algo);

/* Why a vertex was named as the root cause. */
enum argus_root_reason {
	ARGUS_ROOT_NONE = 0,
	ARGUS_ROOT_BUSY = 1,         /* the UI thread computed (LongRunning) */
	ARGUS_ROOT_BLOCKED = 2,      /* blocked itself, nothing further to blame */
	ARGUS_ROOT_MISSING_WAKE = 3, /* ran as in normal runs but did not wake the waiter */
	ARGUS_ROOT_DEADLOCK = 4,     /* blocked on the stalled thread itself */
	ARGUS_ROOT_PATH_END = 5,     /* end of the causal path (baselines) */
};
const char *argus_root_reason_name(unsigned r);

/* Whether the ELF object at path is system runtime code (the system library
 * directories, their module folders, the vDSO, argus's hooks) rather than
 * the application's (the executable, its own libraries and plugins, /opt,
 * a build tree). The rule's tables: appcode.c; docs/diagnosis.md. */
bool argus_system_code(const char *path);

/* A named frame. */
struct argus_frame {
	char func[128];
	char srcline[128]; /* file:line, else object+offset or the object's path */
	char object[64];   /* file name of the ELF object holding the frame */
	bool system;       /* in system runtime code (argus_system_code) */
};

/* Symbols: resolves an instruction address of a process to a named frame,
 * in any object (system libraries too). NULL = addresses only. */
struct argus_symbolizer {
	bool (*resolve)(void *arg, uint32_t pid, uint64_t ip, struct argus_frame *out);
	/* Frames of a stack id (innermost first); false when unknown. */
	bool (*stack)(void *arg, uint32_t id, const uint64_t **ips, uint32_t *depth);
	void *arg;
};

/* On-CPU samples the diagnosis keeps per thread (for LongRunning's costly
 * function): feed every CPU_SAMPLE record through argus_samples_feed, and
 * the THREAD_EXIT and PROC_EXIT records: an exited thread's samples go a
 * minute (of record time) after its exit. */
struct argus_samples;
int argus_samples_new(struct argus_samples **s);
/* The same store for the user stacks of blocking waits (STACK records of
 * kind ARGUS_STACK_WAIT) instead of CPU samples. */
int argus_samples_new_waits(struct argus_samples **s);
void argus_samples_free(struct argus_samples *s);
void argus_samples_feed(struct argus_samples *s, const struct argus_event *ev, size_t n);
/* The stack ids sampled on tid in [from, to] that are still kept (the last
 * 1024 per thread), oldest first, and their times when ts is not NULL;
 * returns how many were written (<= cap). */
size_t argus_samples_range(const struct argus_samples *s, uint32_t tid, uint64_t from,
                           uint64_t to, uint32_t *stacks, uint64_t *ts, size_t cap);
/* The same, only the samples whose stacks are whole call chains (unwound
 * from a full stack: stack.unwind ARGUS_UNWIND_DWARF). */
size_t argus_samples_range_full(const struct argus_samples *s, uint32_t tid, uint64_t from,
                                uint64_t to, uint32_t *stacks, size_t cap);

/* The costly function of a busy segment (the Argus paper's longest common
 * sequence of the sampled stacks, section 6.3, made robust to stray
 * samples): the innermost function held by at least share (> 1/2) of the
 * stacks - by all of them when there are fewer than min_samples -, counted
 * per function (name and object), not frame position. Application
 * functions first, among the stacks that reach application code; then
 * system ones. Stack ids resolve through sym->stack, frames of pid through
 * sym->resolve. out->func "" when none; returns the stacks holding it. */
uint32_t argus_costly_function(const struct argus_symbolizer *sym, uint32_t pid,
                               const uint32_t *stacks, uint32_t n, double share,
                               uint32_t min_samples, struct argus_frame *out);

/* The same on whole call chains (samples with full stacks, unwound with
 * the binaries' CFI): the innermost function with a symbol, in any object,
 * held by more than share of the stacks (all of them below min_samples):
 * the rule the realapps truth is written by (docs/diagnosis.md "Full
 * stacks"). */
uint32_t argus_costly_chain(const struct argus_symbolizer *sym, uint32_t pid,
                            const uint32_t *stacks, uint32_t n, double share, uint32_t min_samples,
                            struct argus_frame *out);

/* On whole call chains: the innermost application function that system
 * code called back (a handler under the toolkit's loop; not main above it),
 * held by share of the chains that reach one, as argus_costly_function
 * counts, or one phase of the handler: a stretch of consecutive chains
 * (stacks in time order, oldest first), share of them holding it, that
 * holds most of those chains; out->func "" when no chain reaches one or
 * none is held so. */
uint32_t argus_costly_callback(const struct argus_symbolizer *sym, uint32_t pid,
                               const uint32_t *stacks, uint32_t n, double share,
                               uint32_t min_samples, struct argus_frame *out);

/* The functions with a symbol, in any object, that more than half of the
 * stacks hold, innermost first (fewer stacks hold a callee than its
 * caller), ";"-joined into out; the outermost that do not fit are left
 * out. Returns how many were written. */
size_t argus_majority_path(const struct argus_symbolizer *sym, uint32_t pid,
                           const uint32_t *stacks, uint32_t n, char *out, size_t cap);

#define ARGUS_DIAG_CANDIDATES 5

struct argus_culprit {
	argus_vid vid;
	struct argus_vertex_info v;
	uint8_t reason;  /* enum argus_root_reason */
	int32_t penalty; /* of the path that named it (lower = more likely) */
	uint32_t depth;  /* culprit-of-the-culprit level (0 = directly) */
	/* its innermost application frame; when its stacks hold none, the
	 * innermost named frame (system set); func "" when unknown */
	char func[128];
	char srcline[128];
	char object[64];  /* ELF object of the frame */
	bool system;      /* no application frame: func is system runtime code */
	const char *rule; /* the rule that named it (argus_diag_rule_at), static */
};

/* A diagnosis rule as data (rules.c): its name, the stall classes it
 * explains (bit 1 << enum argus_stall_class), the principle in one
 * sentence, the paper section it implements or extends, and the cases it
 * decides. docs/diagnosis.md "Rules". */
struct argus_diag_rule {
	const char *name;
	unsigned classes;
	const char *principle, *paper, *cases;
	bool asked; /* a rule asked in turn (not a branch inside one) */
};
/* The i-th rule of the table, NULL past its end. */
const struct argus_diag_rule *argus_diag_rule_at(size_t i);

struct argus_diagnosis {
	struct argus_stall stall;
	uint8_t algo;
	bool no_weak_edges;
	argus_vid anomaly;
	struct argus_vertex_info anomaly_v;
	argus_vid baseline;        /* Algorithm 2's baseline vertex, 0 = none */
	struct argus_culprit root; /* vid 0 = none found */
	uint32_t ncandidates;
	struct argus_culprit candidates[ARGUS_DIAG_CANDIDATES]; /* ranked, [0] = root */
	struct argus_path path; /* the causal path: anomaly back to the root / UI input */
	struct argus_vertex_info path_v[ARGUS_PATH_MAX]; /* its vertices */
	bool has_normal_path;
	struct argus_path normal_path; /* baseline's path in a normal run */
	struct argus_vertex_info normal_v[ARGUS_PATH_MAX];
	char costly_func[128];   /* LongRunning: argus_costly_function of the anomaly segment */
	uint32_t samples;        /* samples in the anomaly segment */
	uint32_t costly_samples; /* of them, those holding costly_func */
	/* a busy root cause (costly_func, or a busy root's own function): the
	 * functions more than half of the same samples hold, innermost first,
	 * ";"-joined (argus_majority_path), "" = none: the issue store joins
	 * two busy stalls whose answers lie on each other's (docs/issues.md) */
	char majority[512];
	uint64_t diagnose_ns;    /* time the diagnosis took */
	uint64_t vertices_indexed;
	char summary[256]; /* "<root cause in one line>" */
	/* the rules and branches (argus_diag_rule_at names) the diagnosis used,
	 * in the order first used, static strings */
	const char *rules_used[12];
	uint32_t nrules_used;
};

/* Diagnose one stall on a view of the graph. samples and sym may be NULL.
 * comm(pid) names processes, thread(tid) threads (either may be NULL; both
 * get comm_arg). Returns 0, -1 out of memory. */
int argus_diagnose(const struct argus_graph_view *view, const struct argus_stall *stall,
                   const struct argus_beam_params *p, enum argus_algo algo,
                   const struct argus_samples *samples, const struct argus_symbolizer *sym,
                   const char *(*comm)(void *arg, uint32_t pid),
                   const char *(*thread)(void *arg, uint32_t tid), void *comm_arg,
                   struct argus_diagnosis *out);

/* What a user adds to a diagnosis (argus debug -i, docs/debug.md): the
 * paper's consulting steps. Any field may be left 0 / NULL. */
struct argus_diag_hints {
	argus_vid anomaly;  /* the anomaly vertex; 0 = the UI thread's in the stall */
	argus_vid baseline; /* Algorithm 2's baseline at the top; 0 = searched */
	/* the top's normal path (v[0] = the vertex the baseline's wait ended
	 * in, walked back from there); NULL = Algorithm 1 from it */
	const struct argus_path *normal_path;
	/* every step of the search, one line each (no newline); NULL = none */
	void (*step)(void *arg, const char *line);
	void *step_arg;
};
/* argus_diagnose with hints (NULL = none). With a baseline or a normal
 * path, the top level is explained by the comparison (Algorithm 2) alone. */
int argus_diagnose_hinted(const struct argus_graph_view *view, const struct argus_stall *stall,
                          const struct argus_beam_params *p, enum argus_algo algo,
                          const struct argus_samples *samples,
                          const struct argus_symbolizer *sym,
                          const char *(*comm)(void *arg, uint32_t pid),
                          const char *(*thread)(void *arg, uint32_t tid), void *comm_arg,
                          const struct argus_diag_hints *h, struct argus_diagnosis *out);

/* Algorithm 2's FindSimilarVertices for vertex id: the earlier vertices of
 * its thread with a similar event signature (p's sim_len, sim_dist), the
 * closest first (then the latest). */
struct argus_similar {
	struct argus_vertex_info v;
	uint32_t distance; /* edit distance of the signatures */
	uint32_t length;   /* the longer signature's length */
	bool differs;      /* behaved differently: its ending wait took < long_wait_ns
	                      (when id did not wait: the segment was that short) */
};
/* Writes up to cap, returns how many there are; -1 out of memory. */
int argus_diag_similar(const struct argus_graph_view *view, argus_vid id,
                       const struct argus_beam_params *p, struct argus_similar *out, size_t cap);

/* ---- reports (report.c; docs/report.md) ---- */

struct argus_report_ctx {
	const char *(*comm)(void *arg, uint32_t pid);
	void *arg;
	uint64_t t0; /* times are printed relative to this (trace start) */
	/* Thread names (may be NULL): a thread named other than its process
	 * is shown as "comm pid/tid (thread)". Gets arg. */
	const char *(*thread)(void *arg, uint32_t tid);
	/* The trace file the diagnoses came from (the HTML page's commands to
	 * diagnose again); NULL = the daemon's flight recorder. */
	const char *source;
};
/* " (thread)" when the thread's name is known and not its process's, else
 * "": how reports and the summary name a helper thread. */
void argus_thread_suffix(const char *comm, const char *thread, char *buf, size_t cap);
void argus_report_text(const struct argus_diagnosis *d, const struct argus_report_ctx *c,
                       FILE *out);
/* One JSON object (docs/report.schema.json), no trailing newline. */
void argus_report_json(const struct argus_diagnosis *d, const struct argus_report_ctx *c,
                       FILE *out);
/* Legacy Chrome trace JSON of the diagnoses' causal paths with flow
 * arrows: a complete {"traceEvents":[...]} document. */
void argus_report_chrome_json(const struct argus_diagnosis *d, size_t n,
                              const struct argus_report_ctx *c, FILE *out);

/* What a Perfetto trace (and the HTML timeline) shows beyond the diagnosis:
 * the records of a span of time - scheduling and CPU samples - from a trace
 * file or the daemon's recent history. each() calls fn for every record
 * with from <= ts <= to, in time order. */
struct argus_report_records {
	void (*each)(void *arg, uint64_t from, uint64_t to,
	             void (*fn)(void *fn_arg, const struct argus_event *ev), void *fn_arg);
	void *arg;
};
/* The span a report shows: from the normal run's start or 10 s before the
 * stall, whichever is earlier, to the stall's end (its detection while it
 * lasts). */
void argus_report_window(const struct argus_diagnosis *d, uint64_t *from, uint64_t *to);
/* A self-contained HTML page (html.c; no scripts, no external files): per
 * diagnosis the one line, a timeline of the threads involved (scheduling
 * states from rec, segments, causal edges, stall, root cause; hover for
 * stacks), the normal and the stalled run side by side, the root cause's
 * stack, a flame graph of the UI thread's samples for LongRunning, the
 * commands to diagnose again, the text report. rec and sym may be NULL. */
void argus_report_html(const struct argus_diagnosis *d, size_t n, const struct argus_report_ctx *c,
                       const struct argus_report_records *rec, const struct argus_symbolizer *sym,
                       FILE *out);
/* What a Perfetto trace holds (the tests compare them with the report). */
struct argus_perfetto_counts {
	uint64_t packets;
	uint64_t threads; /* thread tracks */
	uint64_t slices;  /* segments + stall and root-cause marks */
	uint64_t flows;   /* causal edges */
	uint64_t sched;   /* ftrace scheduler events */
	uint64_t samples; /* CPU samples */
};
/* The diagnoses as a native Perfetto trace (TracePacket stream,
 * beam/perfetto_trace.proto; docs/report.md). rec (records of the windows)
 * and sym (names of the samples' and segments' frames) may be NULL. counts
 * may be NULL. Returns 0, or -1 when out of memory or the write failed. */
int argus_report_perfetto(const struct argus_diagnosis *d, size_t n,
                          const struct argus_report_ctx *c, const struct argus_report_records *rec,
                          const struct argus_symbolizer *sym, FILE *out,
                          struct argus_perfetto_counts *counts);
/* The same for a span of records with no diagnosis (`argus dump
 * --perfetto`): the scheduling, the processes and threads, the samples. */
int argus_report_perfetto_span(uint64_t from, uint64_t to, const struct argus_report_ctx *c,
                               const struct argus_report_records *rec,
                               const struct argus_symbolizer *sym, FILE *out,
                               struct argus_perfetto_counts *counts);
/* A copy for a viewer who is not root (redact.c): every process for which
 * mine(arg, pid) is false keeps its name and pid and loses its frames -
 * function, source line, object, stack ids - and the summary says
 * "[redacted]" where it named them. */
void argus_diagnosis_redact(struct argus_diagnosis *d, bool (*mine)(void *arg, uint32_t pid),
                            void *arg);
/* "<app> stalled N.N s: <root cause>" - the notification body. */
void argus_report_oneline(const struct argus_diagnosis *d, char *buf, size_t cap);

/* The desktop notification, summary "pinwheel root cause found", on the
 * session bus (DBUS_SESSION_BUS_ADDRESS). Returns 0, or -1 with a reason. */
int argus_notify(const char *body, const char *report_path, char *err, size_t ecap);
/* The notifier of one user session (the caller's session bus): reads
 * notifications from fd, one a line - the body, then optionally, each
 * after ARGUS_NOTIFY_SEP: the report path, a key (the stall: a later line
 * with the same key replaces that notification on screen), the app's X
 * display and its Xauthority file -, sends each and runs `opener REPORT`
 * (NULL = xdg-open) when its default action ("Open report") is taken. A
 * line the notification server has not answered within 0.5 s, or could
 * not take, is also shown as an X window of its own on the display (NULL:
 * DISPLAY), until clicked or answered (docs/daemon.md). A notification
 * waits for its answer up to timeout_s (0 = 600); the notifier returns
 * once fd is closed and none waits, or after timeout_s with none waiting.
 * Returns 0, or -1 with a reason (no bus address, an opener that could
 * not run). */
#define ARGUS_NOTIFY_SEP '\x1f'
int argus_notifier_run(int fd, unsigned timeout_s, const char *opener, char *err, size_t ecap);

/* ---- symbols (tsym.c, symelf.c) ---- */

/* The name a user sees for function symbol sym (funcname.c): without its
 * symbol version, and a C++ name demangled without its parameter list
 * ("FL_DocLayout::fillLayouts"). */
void argus_func_name(const char *sym, char *out, size_t cap);

struct argus_trace_reader;

/* Symbols from a trace's own tables (maps, symbols, stacks): resolves the
 * frames the tables name, in any object. */
struct argus_tsym;
int argus_tsym_new(struct argus_tsym **s, const struct argus_trace_reader *r);
/* The same over tables held elsewhere (the session's pushed ones). */
int argus_tsym_new_tables(struct argus_tsym **s, const struct argus_map *maps, size_t nmaps,
                          const struct argus_symbol *syms, size_t nsyms,
                          const char *(*string)(const void *arg, uint32_t id),
                          bool (*stack)(const void *arg, uint32_t id, struct argus_stack *out),
                          const void *arg);
/* Adds tables' entries that came since (a session's maps and symbols
 * pushed after it was made): sorted into the others, as one
 * argus_tsym_new_tables over all of them would. Returns 0, -1 out of
 * memory (the table is then as before, or holds the maps only). */
int argus_tsym_add_tables(struct argus_tsym *s, const struct argus_map *maps, size_t nmaps,
                          const struct argus_symbol *syms, size_t nsyms);
void argus_tsym_free(struct argus_tsym *s);
/* Where a process forked and not exec'd finds its layout: parent(arg, pid)
 * is the pid it was forked from, 0 unknown (the session's PROC_FORK
 * records). A pid with no maps of its own resolves through its parent's,
 * so it is named the same live and from a trace read after it exited. */
void argus_tsym_set_parent(struct argus_tsym *s, uint32_t (*parent)(void *arg, uint32_t pid),
                           void *arg);
/* The build ids the trace recorded of its files (argus_tsym_new sets the
 * reader's): the files symbolizer names from a file on disk only while it
 * is the build that ran. Returns 0, -1 out of memory. */
int argus_tsym_set_build_ids(struct argus_tsym *s, const struct argus_build_id *ids, size_t n);
struct argus_symbolizer argus_tsym_symbolizer(struct argus_tsym *s);
/* For frames the tables do not name: the ELF file a map names, as it is on
 * disk now (symbol tables, no source lines, build id not checked) - what
 * names a trace's frames once its processes have exited. */
struct argus_symbolizer argus_tsym_files_symbolizer(struct argus_tsym *s);

/* Symbols of live processes: ELF symbol tables and DWARF file:line through
 * elfutils (build-id aware: separate debug info is found by build id), one
 * session per process, cached. Stack ids resolve through stacks (may be
 * NULL). resolve() names frames of every object, system libraries by their
 * ELF symbol tables. */
struct argus_elfsym;
int argus_elfsym_new(struct argus_elfsym **s, const struct argus_symbolizer *stacks);
void argus_elfsym_free(struct argus_elfsym *s);
struct argus_symbolizer argus_elfsym_symbolizer(struct argus_elfsym *s);

/* A diagnosis run against one ground-truth record (synthetic traces): a UI
 * anomaly is right when a stall fired on its UI thread in its span and the
 * top-1 root cause is the truth's thread in a segment overlapping the
 * truth's span; a decoy is right when nothing fired on its thread. */
enum argus_truth_result {
	ARGUS_TRUTH_RIGHT = 0,
	ARGUS_TRUTH_WRONG = 1,       /* fired, another root cause at top-1 */
	ARGUS_TRUTH_NO_STALL = 2,    /* nothing fired for a UI anomaly */
	ARGUS_TRUTH_DECOY_FIRED = 3, /* a stall on a decoy's thread */
};
int argus_truth_check(const struct argus_diagnosis *d, size_t n, const struct argus_truth *t,
                      const struct argus_diagnosis **hit);

#endif /* ARGUS_BEAM_H */
