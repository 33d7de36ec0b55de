/*
 * graph_internal.h - what the graph's source files share: the window (time
 * slices holding vertices and edges), the writer's tables, thread states.
 *
 * Concurrency: one writer mutates; readers hold a view. Fields a reader may
 * read while the writer changes them are C11 atomics; everything else is
 * written before it is published (release) and never written again.
 */
#ifndef ARGUS_GRAPH_INTERNAL_H
#define ARGUS_GRAPH_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "graph.h"
#include "hashmap.h"
#include "syscalls.h" /* ARGUS_SYSCALLS, ARGUS_NR_<name>: trace numbering */

/* Vertices live in chunks of a slice; a slice holds at most VCHUNK * VDIR
 * vertices, then the next slice opens early. */
#define VCHUNK 1024
#define VDIR   1024
/* Slots of the slice ring; at most NSLOTS - 1 slices are alive. */
#define NSLOTS     512
#define EDGE_BLOCK (256 * 1024)

struct gedge {
	argus_vid src;
	struct gedge *next; /* older incoming edge of the same vertex */
	uint64_t ts;
	uint8_t kind;
	int8_t strength;
};

struct gvertex {
	uint64_t start;
	argus_vid prev;
	uint32_t pid, tid;
	uint8_t split;
	_Atomic uint32_t flags;
	_Atomic uint64_t end;
	_Atomic uint64_t oncpu_ns;
	_Atomic(struct gedge *) in;
	_Atomic uint64_t sys_set;
	_Atomic uint64_t long_sys; /* nr << 48 | ns (48 bits) */
	_Atomic uint64_t wait;     /* kind << 48 | nr << 32 | (uint32_t)ret */
	_Atomic uint64_t wait_ns;
	_Atomic uint32_t nevents;
	_Atomic uint32_t sig_hash;
	_Atomic uint32_t nsys;
	_Atomic uint16_t nsig;
	_Atomic uint32_t stack_first, stack_last;
	_Atomic uint32_t wait_stack;
	_Atomic uint32_t send_reader; /* who reads where its last send went (tid), 0 = unknown */
	uint16_t sig[ARGUS_SIG_MAX];  /* sig[i] is written once, before nsig > i */
};

struct gblock {
	struct gblock *next;
	size_t size;
};

/* One time slice: its vertices, and the edges added while it was newest. */
struct gbody {
	uint32_t gen;
	uint64_t t0;         /* first event time */
	_Atomic uint64_t t1; /* last event time while newest */
	_Atomic uint32_t nverts;
	struct gvertex *dir[VDIR]; /* dir[i] written before nverts > i * VCHUNK */
	struct gblock *blocks;     /* edge arena */
	char *bump, *bump_end;
	uint64_t bytes; /* writer only */
	uint64_t events, nedges;
	struct gbody *retired_next;
};

/* An entry of the writer's matching tables (send -> receive, post -> run...). */
struct gref {
	union {
		struct {
			argus_vid src[2];
			uint64_t ts[2];
		};
		struct gthread *thread; /* the threads table */
	};
	uint32_t n;   /* sources in src (or 1 for single-valued tables) */
	uint32_t aux; /* table-specific */
};

/* key (0 never stored) -> gref; zero is what a put of key 0 returns, unkept */
struct gmap {
	struct argus_hmap h;
	struct gref zero;
};

struct gstack {
	uint32_t depth;
	uint64_t *ips;
};

enum { INTENT_NONE, INTENT_SIGNAL, INTENT_BROADCAST, INTENT_HANDOFF };

#define MAX_PEERS  4
#define MAX_WAKEES 4

/* The writer's state of one thread. */
struct gthread {
	uint32_t tid, pid;
	argus_vid cur;  /* open segment, 0 while blocked */
	argus_vid last; /* the segment before cur (or the one that ended at the wait) */
	bool seen, kworker, blocked, on_cpu;
	bool idle_wait; /* blocked in a poll-family wait outside a dispatch */
	/* another thread woke this wait and it waited on (the poll did not ask
	 * for what the waker did): its timeout is the deferred answer */
	bool woken_in_wait;
	bool cut_pending; /* a dispatch ended: the next event opens a segment */
	uint8_t dispatch_depth;
	uint8_t loop_thread; /* seen run-loop hooks */
	/* adjacent edge last -> cur waiting for its stacks */
	argus_vid adj_src, adj_dst;
	uint8_t adj_reason; /* ARGUS_LEFTOUT_* the split implies, or 0xff = none */
	/* weak wake-up waiting to learn whether communication explains it */
	argus_vid wake_src;
	uint64_t wake_ts;
	uint8_t wake_kind;
	int8_t wake_strength;
	bool wake_pending;
	/* the syscall in progress */
	bool in_sys;
	bool sys_peer; /* a poll on one socket to a peer: a wait for its answer */
	uint16_t sys_nr;
	uint64_t sys_ts;
	uint32_t sys_seq;
	uint64_t wait_obj;  /* the IPC object the call waits on (a poll of one fd), 0 none */
	argus_vid wait_vid; /* segment that ended at this thread's blocking wait */
	uint64_t wait_at;
	/* the last wait stack: a thread that blocks where it blocked before
	 * gets no new one, the last still applies (docs/kext.md) */
	uint32_t wait_stack;
	bool wait_stack_fresh; /* one came for the wait now beginning */
	/* on-CPU accounting */
	uint64_t oncpu_since;
	uint64_t irq_ns_at_in;
	uint16_t cpu;
	/* IPC peer set of cur (batch-loop rule) */
	uint64_t peers[MAX_PEERS];
	uint8_t npeers;
	bool sent;
	bool answered;        /* cur sent after its last receive */
	argus_vid batch_prev; /* segment before a batch split, within one call */
	uint32_t batch_seq;
	uint64_t prev_peers[MAX_PEERS];
	uint8_t nprev_peers;
	/* synchronisation intent announced by hooks (cond signal, sem post...) */
	uint8_t intent;
	uint32_t wakees[MAX_WAKEES];
	uint8_t nwakees;
	char comm[ARGUS_COMM_LEN];
	bool batch_known;  /* process is a known batching loop */
	bool wake_ignored; /* a user's rule: its wake-ups are no edge */
};

struct gcpu {
	uint32_t irq_depth;
	uint64_t irq_since;
	uint64_t irq_ns;     /* total interrupt time on this CPU */
	argus_vid timer_src; /* arming vertex of a timer firing in this irq */
	uint64_t timer_ts;
};

/* frame counts kept in a histogram (graph_tables.c) */
#define FRAME_HIST 64

struct argus_graph {
	struct argus_graph_opts opts;
	uint64_t slice_ns;
	const char *const *batch_comms;

	/* the window */
	struct {
		_Atomic(struct gbody *) body;
	} slots[NSLOTS];
	_Atomic uint32_t oldest_gen, newest_gen; /* live slices: oldest..newest */
	_Atomic uint64_t now;
	_Atomic uint64_t readers;
	struct gbody *retired; /* writer only: waiting for readers to leave */
	uint64_t bytes_live;   /* bodies alive */
	uint64_t bytes_tables;
	uint32_t swept_gen; /* oldest slice when the tables were last swept */

	/* writer state */
	struct gmap threads; /* key tid + 1 -> thread */
	struct gmap ipc, async, timer, flag, cond, sem, dbus, reply;
	struct gmap ipc_wait; /* receives no send explained yet: key -> receiver */
	/* IPC object -> the segment (src[0]) and thread (ts[0]) last receiving on it */
	struct gmap obj_reader;
	/* unix connections not accepted yet: the client's peer end -> the
	 * listener's pid (ts[0]); and a listener's pid -> the thread seen
	 * reading a connection made to it (ts[0]: a daemon that forked after
	 * listen() serves from its child) */
	struct gmap listener;
	struct gcpu *cpus;
	size_t ncpus;
	struct argus_hmap stacks; /* id -> gstack */
	uint64_t stacks_bytes;
	struct argus_hmap frames; /* ip -> uint32_t count */
	/* how many frames have each count below FRAME_HIST: the 10th
	 * percentile without sorting every count (graph_tables.c) */
	uint32_t frame_hist[FRAME_HIST];
	uint32_t rare_threshold;
	bool rare_dirty;
	uint64_t rare_at;
	uint64_t last_ts;
	uint64_t since_check;
	bool oom;

	struct argus_graph_stats st; /* writer's copy */
	pthread_mutex_t st_lock;
	struct argus_graph_stats st_pub; /* published under st_lock */
};

/* ---- rules and primitives (graph.c), used by the handlers (graph_ingest.c) ---- */

/* What an event type does to segments: the split column of event_rules[]
 * (graph_ingest.c), which its handler applies. */
enum split_action {
	SA_NONE = 0,
	SA_END_IF_BLOCKING, /* sched_switch away with prev_state != running */
	SA_BEGIN_WAKEE,     /* sched_wakeup: the wakee's next segment begins */
	SA_CUT_BEGIN,       /* a dispatch / iteration / async run begins */
	SA_CUT_END,         /* ... ends: the loop's own work is a new segment */
	SA_CUT_NEW_PEER,    /* IPC with a peer outside the segment's peer set */
	SA_SPLICE_IRQ,      /* interrupt work: cut out, never a segment */
	SA_END_THREAD,      /* thread exit ends its last segment */
};

/* ---- the event rules (graph_ingest.c) and their handlers ---- */

/* The key attribute of a record's signature token. */
enum sig_key {
	KEY_NONE = 0,
	KEY_SYS_NR,      /* sys_enter.nr */
	KEY_SYS_OBJ,     /* sys_exit.nr << 8 | obj_kind (sys_exit, IPC) */
	KEY_DBUS_MEMBER, /* dbus.member_str */
	KEY_LOOP_CB,     /* loop.callback */
	KEY_ASYNC_CB,    /* async.callback */
	KEY_TIMER_KIND,  /* timer.kind */
};

/* Row flags. */
enum {
	ER_NO_SIG = 1 << 0,         /* not in a segment's signature (scheduling, bookkeeping) */
	ER_COMPLETES_WAIT = 1 << 1, /* may complete a wait: may still explain the wake-up */
	ER_KEEPS_WAKEES = 1 << 2,   /* the wake-ups since the thread's last event stay its own */
	ER_TIMER_SRC = 1 << 3,      /* may hand its timer to this interrupt's wake-ups */
	ER_TASK_CONTEXT = 1 << 4,   /* never in interrupt context (a context switch) */
};

#define EDGE_NONE 0xff

struct ictx;

/* One row of event_rules[]. */
struct event_rule {
	void (*handle)(struct ictx *x);
	uint8_t split; /* enum split_action the handler applies */
	uint8_t edge;  /* ARGUS_EDGE_* it adds (its first choice), or EDGE_NONE */
	uint8_t key;   /* enum sig_key */
	uint8_t flags; /* ER_* */
	const char *paper;
};

/* One record being ingested. */
struct ictx {
	struct argus_graph *g;
	const struct argus_event *ev;
	const struct event_rule *rule;
	struct gcpu *c; /* its CPU, NULL when out of memory */
	uint64_t ts;
	bool irq; /* in interrupt context */
};

int8_t gr_edge_strength(uint8_t kind); /* graph.c edge_rules[] */
uint8_t gr_wait_kind_of(bool in_sys, uint16_t nr);
/* The kind of the wait thread t is in: a poll on one socket to a peer is a
 * read of that socket's answer. */
uint8_t gr_thread_wait_kind(const struct gthread *t);
struct gthread *gr_thread_get(struct argus_graph *g, uint32_t tid);
void gr_thread_drop(struct argus_graph *g, struct gthread *t);
struct gcpu *gr_cpu_get(struct argus_graph *g, uint16_t cpu);
void gr_set_comm(struct argus_graph *g, struct gthread *t, const char *comm);
void gr_add_edge(struct argus_graph *g, argus_vid dst, argus_vid src, uint8_t kind, int8_t strength,
                 uint64_t ts);
void gr_add_rule_edge(struct argus_graph *g, argus_vid dst, argus_vid src, uint8_t kind,
                      uint64_t ts);
void gr_wake_publish(struct argus_graph *g, struct gthread *t);
void gr_add_comm_edge(struct argus_graph *g, struct gthread *t, argus_vid src, uint8_t kind,
                      uint64_t ts);
void gr_adjacent_rule(struct argus_graph *g, struct gthread *t, bool force);
void gr_close_segment(struct argus_graph *g, struct gthread *t, uint64_t ts, bool waited);
argus_vid gr_open_segment(struct argus_graph *g, struct gthread *t, uint64_t ts, uint8_t split,
                          uint8_t adj_reason, uint32_t flags);
argus_vid gr_cur_segment(struct argus_graph *g, struct gthread *t, uint64_t ts);
void gr_cut(struct argus_graph *g, struct gthread *t, uint64_t ts, uint8_t split, uint8_t reason,
            uint32_t flags);
void gr_ingest_one(struct argus_graph *g, const struct argus_event *ev);
const struct event_rule *gr_event_rule(uint16_t type);
struct gref *gr_remember(struct argus_graph *g, struct gmap *m, uint64_t key, argus_vid src,
                         uint64_t ts, uint32_t aux);
/* handlers of syscalls and communication (graph_comm.c) */
void gr_on_sys_enter(struct ictx *x);
void gr_wake_from_sends(struct argus_graph *g, struct gthread *w, argus_vid dst);
void gr_on_sys_exit(struct ictx *x);
void gr_on_futex_wait(struct ictx *x);
void gr_on_futex_wake(struct ictx *x);
void gr_on_ipc_send(struct ictx *x);
void gr_on_ipc_recv(struct ictx *x);
void gr_on_kreq_send(struct ictx *x);
void gr_on_kreq_end(struct ictx *x);
void gr_on_cond_signal(struct ictx *x);
void gr_on_cond_broadcast(struct ictx *x);
void gr_on_sem_post(struct ictx *x);
void gr_on_mutex_handoff(struct ictx *x);
void gr_on_cond_wake(struct ictx *x);
void gr_on_sem_wait(struct ictx *x);
void gr_on_dbus_send(struct ictx *x);
void gr_on_dbus_recv(struct ictx *x);

/* window (graph_window.c) */
struct gbody *gw_newest(struct argus_graph *g);
struct gvertex *gw_vertex(struct argus_graph *g, argus_vid id); /* writer: NULL if evicted */
argus_vid gw_new_vertex(struct argus_graph *g, uint64_t ts, struct gvertex **out);
struct gedge *gw_new_edge(struct argus_graph *g);
void gw_maybe_rotate(struct argus_graph *g, uint64_t ts);
void gw_evict(struct argus_graph *g);
void gw_reclaim(struct argus_graph *g);
void gw_free_all(struct argus_graph *g);
void gw_publish_vertex(struct argus_graph *g, argus_vid id);
void gw_check_window(struct argus_graph *g);
uint64_t gw_bytes(const struct argus_graph *g);
void gw_fill_stats(struct argus_graph *g, struct argus_graph_stats *st);

static inline uint32_t vid_gen(argus_vid v)
{
	return (uint32_t)(v >> 32);
}
static inline uint32_t vid_idx(argus_vid v)
{
	return (uint32_t)v - 1;
}
static inline argus_vid vid_make(uint32_t gen, uint32_t idx)
{
	return ((uint64_t)gen << 32) | (uint64_t)(idx + 1);
}

/* tables (graph_tables.c) */
struct gref *gmap_get(struct gmap *m, uint64_t key);
struct gref *gmap_put(struct argus_graph *g, struct gmap *m, uint64_t key); /* NULL: no memory */
void gmap_del(struct gmap *m, uint64_t key);
void gmap_free(struct gmap *m);
void gmap_sweep(struct argus_graph *g, struct gmap *m, uint32_t oldest_gen);
void gr_sweep_tables(struct argus_graph *g); /* graph.c: every matching table */
uint64_t gmap_drop_before(struct argus_graph *g, struct gmap *m, uint64_t t);
/* graph.c: the cap holds and only the newest slice is left: matching
 * entries older than half a slice go, then all of them if that is not
 * enough (counted in table_drops) */
void gr_drop_tables(struct argus_graph *g);
bool gstack_add(struct argus_graph *g, uint32_t id, const uint64_t *ips, uint32_t depth);
const struct gstack *gstack_get(const struct argus_graph *g, uint32_t id);
void gframes_count(struct argus_graph *g, uint32_t stack_id);
void gframes_decay(struct argus_graph *g);
bool gframes_share(struct argus_graph *g, const uint32_t *a, size_t na, const uint32_t *b,
                   size_t nb, bool *rare);
void gtables_free(struct argus_graph *g);

static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

#endif /* ARGUS_GRAPH_INTERNAL_H */
