/*
 * stream_priv.h - what the daemon's parts share (not a public header):
 * the string / stack tables, JSON stream clients, the flight recorder and
 * the control protocol. daemon.c owns the root object.
 */
#ifndef ARGUS_STREAM_PRIV_H
#define ARGUS_STREAM_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <uv.h>

#include "hashmap.h"
#include "stream.h"

/* The JSON stream's own version (docs/json-stream.md): bumped when a line's
 * shape changes incompatibly; records inside follow ARGUS_SCHEMA_VERSION. */
#define ARGUS_STREAM_VERSION 1

#define STREAM_SOCK       "stream.sock"
#define CONTROL_SOCK      "control.sock"
#define HOOKS_SOCK        "hooks.sock"
#define ARGUS_HOOKS_DIR   "/run/argus-hooks"
#define HOOK_RING_RECORDS 16384 /* 1 MiB per hooked thread */

/* ---- tables.c ----------------------------------------------------------- */

struct tab_entry {
	char *data; /* string bytes (NUL-terminated copy) or ips */
	size_t len; /* bytes */
	uint32_t depth;
	uint64_t hash;
};

struct tab {
	struct tab_entry *ent;
	size_t n, cap;
	struct argus_hmap index; /* content hash -> id */
	uint64_t bytes, refused;
};

uint32_t tab_string(struct tab *t, const char *s, size_t len);
uint32_t tab_stack(struct tab *t, const uint64_t *ips, uint32_t depth);
const struct tab_entry *tab_get(const struct tab *t, uint32_t id);
void tab_free(struct tab *t);

/* ---- recorder.c: the flight recorder ------------------------------------ */

struct recorder;

struct rec_opts {
	const char *dir;
	uint64_t span_ns;       /* keep at least this much event time */
	uint64_t max_bytes;     /* and never more than this on disk */
	uint64_t chunk_span_ns; /* event time per chunk file */
	long gid;               /* group that may read; -1 = root only */
};

struct rec_stats {
	uint64_t chunks, bytes;
	uint64_t first_ts, last_ts; /* span on disk (0 when empty) */
	uint64_t events, errors, deleted;
	uint64_t lost; /* records not written (a write failed: a full disk) */
	uint64_t rewritten; /* records of a failed write written again in a new chunk */
	uint64_t
	    room; /* bytes the recording may take now (below --keep-bytes when the disk is full) */
};

int rec_open(struct recorder **r, const struct rec_opts *o, const struct tab *strings,
             const struct tab *stacks, char *err, size_t errlen);
int rec_events(struct recorder *r, const struct argus_event *ev, size_t n);
void rec_string(struct recorder *r, uint32_t id); /* new table entries */
void rec_stack(struct recorder *r, uint32_t id);
void rec_map(struct recorder *r, const struct argus_map *m);
void rec_build_id(struct recorder *r, const struct argus_build_id *b);
int rec_flush(struct recorder *r);
void rec_close(struct recorder *r);
void rec_get_stats(const struct recorder *r, struct rec_stats *st);

/* Chunk file names: SEQ-FIRST-LAST.argus when closed, SEQ-FIRST.open.argus
 * while written (or left by a crash). */
struct rec_chunk {
	uint64_t seq, first, last; /* last = 0 for an open chunk */
	uint64_t bytes;
	bool open;
	char name[96];
};
/* List the chunks in dir, oldest first. */
int rec_list(const char *dir, struct rec_chunk **out, size_t *n);

/* ---- request.c: a stream client's request line and filter -------------- */

#define STREAM_MAX_PIDS 64
#define STREAM_WHY_MAX  160 /* bytes of a refusal's reason */

struct stream_filter {
	unsigned kinds; /* bits of stream_kind_bit: the line kinds wanted */
	bool all_types;
	uint64_t types[512 / 64];
	uint32_t pids[STREAM_MAX_PIDS];
	unsigned npids;
};

/* "event" 0, "stall" 1, "diagnosis" 2; -1 for anything else. */
int stream_kind_bit(const char *name);
/* Parse "stream v=1 types=a,b pids=1,2 kinds=k,k" (line is cut up); false
 * with a reason (at most whylen bytes) on anything else. */
bool stream_request_parse(struct stream_filter *f, char *line, char *why, size_t whylen);
/* Whether a record passes the filter (drop records always do). */
bool stream_filter_wants(const struct stream_filter *f, const struct argus_event *ev);
/* Whether a published line of kind_bit about pid (0 = none) passes. */
bool stream_filter_wants_line(const struct stream_filter *f, int kind_bit, uint32_t pid);
/* The refusal line {"kind":"error","message":"..."} and its newline, the
 * reason escaped as a JSON string whatever its bytes; returns its length. */
size_t stream_error_line(const char *why, char *out, size_t cap);

/* ---- clients.c: JSON stream clients ------------------------------------- */

struct client;
struct client_set {
	struct client *head;
	uint32_t next_id;
	uint64_t queue_limit; /* bytes per client */
	uint64_t connected_total, drops_total;
	uint64_t delivered; /* records handed to clients_deliver so far */
	uv_loop_t *loop;
	const struct tab *strings; /* for string fields in JSON */
};

/* Adopt an accepted, permitted connection fd (owned from here). */
void clients_adopt(struct client_set *cs, int fd);
/* Queue records for every client that wants them; never blocks. */
void clients_deliver(struct client_set *cs, const struct argus_event *ev, size_t n);
/* Queue one non-record line (kind != "event") for every client that wants
 * it; json without the newline. */
void clients_publish(struct client_set *cs, const char *kind, uint32_t pid, const char *json);
/* Text / JSON status lines of each client into buf. */
size_t clients_status(const struct client_set *cs, char *buf, size_t cap, bool json);
unsigned clients_count(const struct client_set *cs);
/* Try to send what is queued, then close every client. */
void clients_close_all(struct client_set *cs);

/* ---- more.c: finer tracing of one process (argus trace-more) ------------ */

struct more_entry {
	uint32_t pid;
	unsigned what;               /* enum argus_more_what bits */
	uint64_t since_ns, until_ns; /* CLOCK_MONOTONIC */
	bool until_stall;            /* also ends when its next stall ends (no for=) */
	char comm[16];
};
struct more_set {
	struct more_entry e[ARGUS_MORE_MAX_PIDS];
	unsigned n;
	uint64_t asked, ended;
};

struct argus_daemon;
/* The reply to a "more ..." control line (malloc'ed, newline-terminated). */
char *more_request(struct argus_daemon *d, const char *line);
/* Ends what is due at now (its time, its process gone); every tick. */
void more_sweep(struct argus_daemon *d, uint64_t now);
/* Everything off (the daemon stops). */
void more_all_off(struct argus_daemon *d);
/* A hook ring just added at slot: its process may have asked for hooks. */
void more_ring_added(struct argus_daemon *d, unsigned slot);
/* Status lines (text: "  pid P (comm): ... until ...\n" each) or the
 * members of a JSON array; returns the length written. */
size_t more_status(const struct argus_daemon *d, char *buf, size_t cap, bool json);

/* ---- daemon.c: the root object ----------------------------------------- */

#define TICK_MS          5
#define TICK_IDLE_MS     40  /* the longest period a quiet machine backs off to */
#define TICK_QUIET_MS    200 /* ... when no consumer waits on time (tick hook) */
#define TICK_FEW         256 /* a tick that reads fewer records per TICK_MS backs off */
#define MAX_SINKS        8
#define NTYPES           (ARGUS_EV_TYPE_MAX + 1) /* last slot: unknown types */
#define MAX_KERNEL_RINGS 1024

struct hook_conn;

struct argus_daemon {
	struct argus_daemon_opts o;
	char run_dir[1024], rec_dir[1024], hooks_dir[1024];
	uv_loop_t loop;
	uv_timer_t tick, second;
	uint64_t tick_ms;    /* the tick's period now: TICK_MS, longer while little comes */
	uint64_t read_total; /* records read from the rings */
	uv_prepare_t asleep; /* the loop's priority (daemon.c, loop_priority) */
	uv_check_t awake;
	bool rt;             /* the loop runs SCHED_FIFO right now */
	uv_signal_t sigint, sigterm;
	uv_pipe_t ctl, strm, hooks;
	bool ctl_bound, strm_bound, hooks_bound, stopping, running;

	/* kernel rings at [0, nkernel), hook rings after (NULL = free slot) */
	struct argus_ring **rings;
	unsigned nkernel, nrings, max_rings;
	pid_t *ring_owner;               /* hook rings from the socket: the producing process */
	struct argus_hook_guard *guards; /* of those rings (hookguard.c) */
	uint64_t *drops_reported;        /* per ring, what DROP records already said */
	unsigned drop_src;               /* merge source of daemon-made records */
	struct argus_merge *merge;
	struct argus_daemon_source src;
	struct argus_sink sinks[MAX_SINKS];
	unsigned nsinks;
	struct argus_sink dsink; /* what decode writes to */
	bool (*tick_fn)(void *arg, uint64_t stream_ns);
	void *tick_arg;
	int (*status_fn)(void *arg, char *buf, size_t cap); /* the diagnosis's part */
	void *status_arg;
	uint64_t merge_peak; /* the most records the merge ever held */
	struct client_set cs;
	struct recorder *rec;
	struct tab strings, stacks;
	struct argus_event *buf, *out;

	uint64_t start_ns, total, by_type[NTYPES], prev_by_type[NTYPES], rate[NTYPES];
	uint64_t prev_total, rate_total, max_lag_ns;
	uint64_t hooks_connected, hooks_refused;
	/* hook records refused / re-attributed to the ring's owner (rings gone) */
	uint64_t hook_recs_refused, hook_recs_retid;
	struct hook_conn *hook_conns;
	struct more_set more; /* argus trace-more (more.c) */
};

/* status.c: the reply to "status" / "status json" (malloc'ed). */
char *daemon_status(struct argus_daemon *d, bool json);
/* hooksock.c: the socket in-process hooks get their rings from. */
int hooks_listen(struct argus_daemon *d, char *err, size_t errlen);
void hooks_close(struct argus_daemon *d);
/* daemon.c: read one ring into the merge (all of it when final). */
void daemon_read_ring(struct argus_daemon *d, unsigned i, uint64_t now);
void daemon_close_cb_noop(uv_handle_t *h);
/* daemon.c: DROP records for ring losses not reported yet. */
void daemon_ring_drops(struct argus_daemon *d, uint64_t now);

/* ---- shared helpers ----------------------------------------------------- */

uint64_t mono_now_ns(void);
/* Whether a peer on this unix socket may talk to the daemon: root, the
 * daemon's own user, or a member of gid. */
bool peer_allowed(int fd, long gid);

#endif /* ARGUS_STREAM_PRIV_H */
