/*
 * graph.h - libargus-graph: the annotated trace graph, built online.
 *
 * Events (merged in timestamp order) go in through one writer; vertices
 * (execution segments of one thread) and annotated edges come out over a
 * sliding window kept in memory. Readers (diagnosis) open a view and read a
 * consistent window while the writer goes on. docs/graph.md describes the
 * split rules, the edge rules, the window and the stats.
 */
#ifndef ARGUS_GRAPH_H
#define ARGUS_GRAPH_H

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "argus_event.h"
#include "event.h"

/* A vertex handle: (slice generation << 32) | (index + 1); 0 = none. A
 * handle to an evicted vertex is detectably invalid (argus_graph_vertex()
 * returns false), never dangling. */
typedef uint64_t argus_vid;
/* How a user sees and types a handle: "GEN.INDEX" (argus debug -i). */
#define ARGUS_VID_FMT     "%" PRIu32 ".%" PRIu32
#define ARGUS_VID_ARGS(v) (uint32_t)((uint64_t)(v) >> 32), (uint32_t)(v)

/* Edge strengths, as the beam-search penalty adds them (paper Table 1). */
enum argus_strength {
	ARGUS_STRONG = -1,
	ARGUS_BOOSTED = 0,
	ARGUS_WEAK = 1,
};

enum argus_edge_kind {
	ARGUS_EDGE_IPC = 0,       /* send -> receive on one kernel object */
	ARGUS_EDGE_DBUS = 1,      /* D-Bus message send -> receive */
	ARGUS_EDGE_REPLY = 2,     /* request received -> its reply sent */
	ARGUS_EDGE_ASYNC = 3,     /* async post -> run */
	ARGUS_EDGE_TIMER = 4,     /* timer arm -> fire */
	ARGUS_EDGE_FLAG = 5,      /* data-flag write -> read */
	ARGUS_EDGE_SIGNAL = 6,    /* cond signal / sem post / futex wake with intent */
	ARGUS_EDGE_BROADCAST = 7, /* cond broadcast wake-up */
	ARGUS_EDGE_HANDOFF = 8,   /* mutex hand-off wake-up */
	ARGUS_EDGE_FUTEX = 9,     /* futex wake-up of unknown intent */
	ARGUS_EDGE_WAKEUP = 10,   /* wake-up with no communication */
	ARGUS_EDGE_ADJACENT = 11, /* consecutive segments of one thread */
	ARGUS_EDGE_KIND_MAX = 12,
};
const char *argus_edge_kind_name(unsigned kind);

/* Why a weak edge between adjacent segments was left out (paper Table 1,
 * section 5; Figure 10's categories). */
enum argus_leftout {
	ARGUS_LEFTOUT_KWORKER = 0,       /* kernel worker: each segment stands alone */
	ARGUS_LEFTOUT_NO_SHARED_SYM = 1, /* call stacks share no frame */
	ARGUS_LEFTOUT_IDLE_WAIT = 2,     /* split at an event-loop idle wait */
	ARGUS_LEFTOUT_KNOWN_BATCH = 3,   /* split at a known batching boundary */
	ARGUS_LEFTOUT_MAX = 4,
};
const char *argus_leftout_name(unsigned rule);

/* Why a segment began (the split rule that cut it; docs/graph.md table). */
enum argus_split {
	ARGUS_SPLIT_FIRST = 0,    /* first event seen of the thread */
	ARGUS_SPLIT_WAKEUP = 1,   /* blocking wait ended, woken */
	ARGUS_SPLIT_DISPATCH = 2, /* event-loop dispatch / iteration / async run boundary */
	ARGUS_SPLIT_BATCH = 3,    /* IPC with a disjoint peer set (batch loop, piggyback) */
	ARGUS_SPLIT_EVICTED = 4,  /* the open segment's slice left the window */
	ARGUS_SPLIT_MAX = 5,
};
const char *argus_split_name(unsigned split);

/* Vertex flags. */
enum argus_vertex_flag {
	ARGUS_VF_OPEN = 1 << 0,     /* still growing (the thread's current segment) */
	ARGUS_VF_UI = 1 << 1,       /* the thread consumed UI input in it */
	ARGUS_VF_KWORKER = 1 << 2,  /* kernel worker thread */
	ARGUS_VF_IRQ = 1 << 3,      /* interrupt work was cut out of it */
	ARGUS_VF_WAITED = 1 << 4,   /* it ended at a blocking wait */
	ARGUS_VF_DISPATCH = 1 << 5, /* it is one dispatch / async run */
	ARGUS_VF_STOPPED = 1 << 6,  /* it ended stopped: SIGSTOP, or a tracer's stop */
	ARGUS_VF_KREQ = 1 << 7,     /* the kernel sent a request to a user-space server
	                               for it (FUSE): its wait may be that answer's */
};

/* Wait kinds (how a segment's ending wait blocked). */
enum argus_wait_kind {
	ARGUS_WAIT_NONE = 0,
	ARGUS_WAIT_FUTEX = 1, /* futex / cond / sem / mutex */
	ARGUS_WAIT_POLL = 2,  /* poll, select, epoll */
	ARGUS_WAIT_READ = 3,  /* read / recv on an IPC object */
	ARGUS_WAIT_SLEEP = 4, /* nanosleep, clock_nanosleep */
	ARGUS_WAIT_CHILD = 5, /* wait4 / waitid */
	ARGUS_WAIT_OTHER = 6, /* another syscall, or none known */
};

#define ARGUS_SIG_MAX 12

/* A copy of one vertex, as a reader sees it. */
struct argus_vertex_info {
	argus_vid id;
	argus_vid prev; /* the thread's previous segment (may be evicted) */
	uint32_t pid, tid;
	uint64_t start, end; /* end = last event so far while open */
	uint64_t oncpu_ns;   /* on-CPU time, interrupt work excluded */
	uint32_t flags;      /* enum argus_vertex_flag */
	uint8_t split;       /* enum argus_split: why it began */
	uint8_t wait_kind;   /* enum argus_wait_kind of the ending wait */
	uint16_t wait_nr;    /* syscall number of the ending wait, 0xffff = none */
	int32_t wait_ret;    /* the wait's return value (errno < 0), once known */
	uint64_t wait_ns;    /* how long the ending wait lasted, once woken */
	uint32_t nevents;
	uint32_t sig_hash;           /* hash of the whole event-type signature */
	uint16_t nsig;               /* tokens in sig (the first ARGUS_SIG_MAX) */
	uint16_t sig[ARGUS_SIG_MAX]; /* (type << 8) | 8-bit hash of the key attribute */
	uint32_t nsys;               /* system calls */
	uint64_t sys_set;            /* bit (nr % 64) per syscall made */
	uint16_t long_sys_nr;        /* longest syscall */
	uint64_t long_sys_ns;
	uint32_t stack_first, stack_last; /* user stack ids, 0 = none */
	uint32_t wait_stack; /* user stack id where its ending wait blocked, 0 = none */
	uint32_t
	    send_reader; /* the thread last seen reading where its last send went (a unix
	                  * connection not read yet: its listener's, see docs/graph.md),
	                  * 0 = unknown */
};

struct argus_edge_info {
	argus_vid src;   /* the earlier vertex (may be evicted: check) */
	argus_vid dst;   /* the vertex holding the edge */
	uint64_t ts;     /* time of the source event (send, post, arm, ...) */
	uint8_t kind;    /* enum argus_edge_kind */
	int8_t strength; /* enum argus_strength */
};

struct argus_graph_opts {
	uint64_t window_ns; /* default 5 min */
	uint64_t mem_cap;   /* bytes; default 1 GiB */
	uint32_t slices;    /* time slices per window; default 20 */
	/* Process names whose IPC batch splits are known batching loops
	 * (adjacent edges left out). NULL = the default list. */
	const char *const *known_batch_comms;
	/* A user's rules (docs/debug.md "Rules"), NULL-terminated lists, NULL =
	 * none: more process names whose batch splits are known batching loops
	 * (with the defaults), and process names whose threads' wake-ups are
	 * no edge (a wake-up source that is not a cause). */
	const char *const *user_batch_comms;
	const char *const *ignore_wake_comms;
};
void argus_graph_opts_default(struct argus_graph_opts *opts);

struct argus_graph_stats {
	uint64_t events;       /* ingested */
	uint64_t events_late;  /* out of order (time clamped) */
	uint64_t source_drops; /* records lost at sources (DROP events) */
	uint64_t vertices;     /* created since start */
	uint64_t edges;        /* total = strong + weak + boosted */
	uint64_t strong, weak, boosted;
	uint64_t by_kind[ARGUS_EDGE_KIND_MAX];
	uint64_t left_out[ARGUS_LEFTOUT_MAX]; /* adjacent weak edges left out */
	uint64_t splits[ARGUS_SPLIT_MAX];
	uint64_t wakeups_irq;     /* wake-ups from interrupt context: no edge */
	uint64_t wakeups_kernel;  /* wake-ups by kernel threads: no edge */
	uint64_t wakeups_merged;  /* weak wake-ups that a strong edge explained */
	uint64_t wakeups_ignored; /* wake-ups by a source a user's rule ignores: no edge */
	/* the window */
	uint64_t events_held, vertices_held, edges_held;
	uint64_t bytes_held; /* memory of the window and the writer's tables */
	uint64_t mem_cap;
	uint64_t window_ns;      /* configured */
	uint64_t window_held_ns; /* span actually held (oldest slice start .. now) */
	uint64_t cap_hits;       /* slices evicted early because of the memory cap */
	uint64_t table_drops;    /* matching-table entries dropped because of the cap, the
	                            window being down to its newest slice */
	bool window_shortened;   /* the cap is holding the window below window_ns */
	uint64_t slices_evicted;
	uint64_t evict_ns;     /* time spent evicting, total */
	uint64_t evict_max_ns; /* longest single eviction */
	uint64_t threads;      /* threads tracked */
	uint64_t now;          /* newest event time */
};

struct argus_graph;

int argus_graph_new(struct argus_graph **g, const struct argus_graph_opts *opts);
void argus_graph_free(struct argus_graph *g);
/* Change a user's rules (argus_graph_opts.user_batch_comms and
 * ignore_wake_comms; the lists must outlive the graph or the next change):
 * every thread known is looked at again, and the events ingested from then
 * on follow them (the edges already made stay). Writer only: call it from
 * the thread that ingests (argus start's daemon reloads its rules file so). */
void argus_graph_set_user_rules(struct argus_graph *g, const char *const *user_batch_comms,
                                const char *const *ignore_wake_comms);

/* ---- the writer (one thread) ---- */

/* Ingest events in timestamp order. Returns 0, or -1 when out of memory
 * (nothing already in the window is lost). */
int argus_graph_ingest(struct argus_graph *g, const struct argus_event *ev, size_t n);
/* Make a stack's frames known (for the shared / low-frequency symbol
 * rules). id is what STACK events carry. */
void argus_graph_add_stack(struct argus_graph *g, uint32_t id, const uint64_t *ips, uint32_t depth);
/* Publish what is still pending (weak wake-ups, adjacent edges) as if the
 * trace ended here; ingestion may continue afterwards. */
void argus_graph_flush(struct argus_graph *g);
/* A sink feeding the graph (events, stacks); valid while g lives. */
struct argus_sink argus_graph_sink(struct argus_graph *g);

/* ---- any thread ---- */

void argus_graph_get_stats(struct argus_graph *g, struct argus_graph_stats *st);
/* Paper Table 5 figures plus the window, one "name value" per line. */
void argus_graph_print_stats(const struct argus_graph_stats *st, FILE *out);

/* ---- readers ---- */

/* A view pins the window: nothing it can reach is freed until view_end.
 * Several readers may hold views at once; the writer never waits for them. */
struct argus_graph_view {
	struct argus_graph *g;
	uint64_t now;        /* newest event time when the view began */
	uint32_t oldest_gen; /* slices in the view */
	uint32_t newest_gen;
	void *snap; /* the pinned slices (private) */
};
void argus_graph_view_begin(struct argus_graph *g, struct argus_graph_view *v);
void argus_graph_view_end(struct argus_graph_view *v);

/* Copy a vertex; false when the handle is 0, invalid or evicted. */
bool argus_graph_vertex(const struct argus_graph_view *v, argus_vid id,
                        struct argus_vertex_info *out);
/* A vertex's process, thread and start alone: what an index of the window
 * needs, without copying the whole vertex. false as argus_graph_vertex. */
bool argus_graph_vertex_key(const struct argus_graph_view *v, argus_vid id, uint32_t *pid,
                            uint32_t *tid, uint64_t *start);
/* Incoming edges of a vertex (every edge is incoming on its later vertex).
 * Copies up to cap, returns how many there are (0 when evicted). */
size_t argus_graph_in_edges(const struct argus_graph_view *v, argus_vid id,
                            struct argus_edge_info *out, size_t cap);
/* Iterate vertices in creation order: first with prev = 0; 0 at the end. */
argus_vid argus_graph_next_vertex(const struct argus_graph_view *v, argus_vid prev);

/* Export the view: Graphviz dot, or JSON (docs/graph.md). */
int argus_graph_export_dot(const struct argus_graph_view *v, FILE *out);
int argus_graph_export_json(const struct argus_graph_view *v, FILE *out);

#endif /* ARGUS_GRAPH_H */
