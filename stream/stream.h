/*
 * stream.h - the ordered event stream: merge of all sources by timestamp.
 *
 * Each source (one per CPU ring, one per hook ring) pushes records roughly in
 * time order. The merge releases a record once every source has passed its
 * time, or has been quiet for at most max_delay_ns (the watermark), so a
 * quiet CPU never stalls the stream. A record older than what was already
 * released is late: counted, flagged ARGUS_F_LATE and delivered, never
 * silently reordered or dropped.
 * Stage order: includes ringbuf/ and event/ only.
 */
#ifndef ARGUS_STREAM_H
#define ARGUS_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "ringbuf.h"

struct argus_merge;

struct argus_merge_stats {
	uint64_t pushed, released, late;
	uint64_t buffered; /* held, waiting for the watermark */
	uint64_t watermark_ns;
};

/* max_delay_ns: how long a quiet source may hold back the others. */
int argus_merge_new(struct argus_merge **m, unsigned nsources, uint64_t max_delay_ns);
void argus_merge_free(struct argus_merge *m);
/* Memory bound: above this many held records the merge releases the oldest
 * without waiting for the watermark (0 = default, 4 Mi records). */
void argus_merge_set_max_buffered(struct argus_merge *m, uint64_t max_records);

/* Add records of source src; now_ns = CLOCK_MONOTONIC at arrival. */
int argus_merge_push(struct argus_merge *m, unsigned src, const struct argus_event *ev, size_t n,
                     uint64_t now_ns);
/* Declare src drained as of now_ns (it has nothing older than now - delay). */
void argus_merge_quiet(struct argus_merge *m, unsigned src, uint64_t now_ns);

/* Release up to max records in timestamp order; returns the count. */
size_t argus_merge_pop(struct argus_merge *m, struct argus_event *out, size_t max, uint64_t now_ns);
/* Release everything held (end of input), in order. */
size_t argus_merge_drain(struct argus_merge *m, struct argus_event *out, size_t max);

void argus_merge_get_stats(const struct argus_merge *m, struct argus_merge_stats *st);

/* ---- the daemon: `argus start` (docs/daemon.md) ----------------------- */

struct argus_daemon;

/* What a kernel source contributes besides its rings (kext/ fills this in;
 * stream/ does not depend on kext). Callbacks may be NULL. */
struct argus_daemon_source {
	/* Finish merged records in stream order before consumers see them;
	 * extra records and table entries go to sink. */
	int (*decode)(void *arg, struct argus_event *ev, size_t n, const struct argus_sink *sink);
	/* DROP records for losses not reported yet (ts = now_ns). */
	size_t (*drop_records)(void *arg, struct argus_event *out, size_t max, uint64_t now_ns);
	/* Optional: a process connected a hook ring (its SO_PEERCRED pid). */
	void (*hooked)(void *arg, uint32_t pid);
	/* Optional: the source's own counters for status json, as the members
	 * of one object ("a":1,"b":2), at most cap bytes; returns the length. */
	int (*status)(void *arg, char *buf, size_t cap);
	/* Optional: finer tracing of one process (`argus trace-more`, below)
	 * on or off: what is ARGUS_MORE_STACKS and / or ARGUS_MORE_SYSCALLS.
	 * Returns 0, or an ARGUS_MORE_E* with one line in err. */
	int (*more)(void *arg, uint32_t pid, unsigned what, bool on, char *err, size_t errlen);
	void *arg;
};

struct argus_daemon_opts {
	const char *run_dir;         /* sockets; NULL = /run/argus */
	const char *rec_dir;         /* flight recorder; NULL = /var/lib/argus/recorder, "" = off */
	uint64_t rec_span_ns;        /* 0 = 5 min */
	uint64_t rec_bytes;          /* 0 = 2 GiB */
	uint64_t chunk_span_ns;      /* 0 = 10 s */
	uint64_t max_delay_ns;       /* merge watermark delay; 0 = 50 ms */
	uint64_t client_queue_bytes; /* per JSON client; 0 = 8 MiB */
	long group;              /* gid that may also use the sockets and files; -1 = root only */
	unsigned max_hook_rings; /* shared-memory rings from hooks; 0 = 64 */
	const char *hooks_dir;   /* hook ring socket; NULL = /run/argus-hooks, "" = off */
	bool no_rt; /* the loop at normal priority (default: nice -20 asleep, SCHED_FIFO 1
	             * awake; docs/daemon.md "Priority") */
};

#define ARGUS_RUN_DIR "/run/argus"
#define ARGUS_REC_DIR "/var/lib/argus/recorder"

int argus_daemon_new(struct argus_daemon **d, const struct argus_daemon_opts *o, char *err,
                     size_t errlen);
/* Add a kernel ring (owned by the daemon from here) before run. */
int argus_daemon_add_ring(struct argus_daemon *d, struct argus_ring *r);
void argus_daemon_set_source(struct argus_daemon *d, const struct argus_daemon_source *s);
/* Consumers (the graph builder, tests): get every merged record in order. */
int argus_daemon_add_sink(struct argus_daemon *d, const struct argus_sink *s);
/* Called on every tick after the records due were delivered, with the
 * stream time everything older than has been delivered (now minus the
 * merge delay): consumers that react to time passing without records (the
 * stall trigger) advance with it. fn returns whether it waits on time now
 * (a stall could fire with no further record): then a quiet daemon still
 * ticks every TICK_IDLE_MS (40 ms, half the merge delay at most); when it
 * does not, or with no hook, every TICK_QUIET_MS (200 ms) while few
 * records come. One hook; NULL clears it. */
void argus_daemon_set_tick(struct argus_daemon *d, bool (*fn)(void *arg, uint64_t stream_ns),
                           void *arg);
/* The members (without braces) of the status's "diagnosis" object: fn
 * writes them into buf (at most cap bytes) and returns their length, from
 * the daemon's thread. One hook; NULL clears it. */
void argus_daemon_set_status(struct argus_daemon *d, int (*fn)(void *arg, char *buf, size_t cap),
                             void *arg);
/* Send one JSON object to the stream clients that want its kind (not
 * "event": those are the records). json is a complete object without a
 * newline whose first member is "kind"; pid is matched against a client's
 * pids filter (0 = passes every pid filter). Never blocks: a full client
 * queue drops it and counts the drop. Call from the daemon's thread. */
void argus_daemon_publish(struct argus_daemon *d, const char *kind, uint32_t pid, const char *json);
/* Add a hook's shared-memory ring (owned from here); returns its source
 * id (>= 0) or -ENOSPC. Also while running. */
int argus_daemon_add_hook_ring(struct argus_daemon *d, struct argus_ring *r);
/* Text of a string-table id in records the daemon delivered (NULL = none). */
const char *argus_daemon_string(const struct argus_daemon *d, uint32_t id);
/* A stack-table id of those records (valid while the daemon lives). */
bool argus_daemon_stack(const struct argus_daemon *d, uint32_t id, struct argus_stack *out);
/* Bind the sockets, open the recorder and serve until `argus stop`,
 * SIGINT or SIGTERM; flushes everything on the way out. 0 = clean exit. */
int argus_daemon_run(struct argus_daemon *d, char *err, size_t errlen);
void argus_daemon_free(struct argus_daemon *d);

/* ---- finer tracing on demand: `argus trace-more` (more.c) ------------- */

/*
 * The control request "more pid=P [stacks=full] [syscalls] [hooks]
 * [for=DUR] | more pid=P off" (docs/daemon.md "Control protocol"): more
 * detail on one process until its next stall ends or DUR has passed (at
 * most ARGUS_MORE_MAX_NS; the default too), or no more of it (off).
 */
enum argus_more_what {
	ARGUS_MORE_STACKS = 1,   /* full DWARF stacks of its threads' samples */
	ARGUS_MORE_SYSCALLS = 2, /* per-call syscall records */
	ARGUS_MORE_HOOKS = 4,    /* its hook rings: every toolkit landmark */
};
/* What a refusal was (the word after "error" in the reply). */
enum argus_more_err {
	ARGUS_MORE_EREFUSED = -1,  /* "error: ..." anything else */
	ARGUS_MORE_ENOPROC = -2,   /* "error noproc: ..." no such process */
	ARGUS_MORE_ENOHOOKS = -3,  /* "error nohooks: ..." not started with hooks */
	ARGUS_MORE_ENOSUPPORT = -4, /* "error nosupport: ..." this daemon cannot */
};
#define ARGUS_MORE_MAX_NS  (600ull * 1000000000ull) /* 10 min */
#define ARGUS_MORE_MAX_PIDS 16                       /* processes at once */
struct argus_more_req {
	uint32_t pid;
	unsigned what;   /* enum argus_more_what bits; 0 with off */
	uint64_t for_ns; /* 0 = not given: ARGUS_MORE_MAX_NS */
	bool off;
};
/* Parse a request line (without its newline); false with one line in why. */
bool argus_more_parse(const char *line, struct argus_more_req *r, char *why, size_t whylen);
/* The request line for r (no newline); its length, or < 0 when it does not fit. */
int argus_more_format(const struct argus_more_req *r, char *buf, size_t cap);
/* The reply's class: 0 for "ok...", else an enum argus_more_err. */
int argus_more_reply_class(const char *reply);
/* A stall of pid ended (the diagnosis says so, on the daemon's thread):
 * finer tracing asked of it until then ends. */
void argus_daemon_stall_ended(struct argus_daemon *d, uint32_t pid);

/* ---- records from hooked applications (hookguard.c) --------------------- */

/*
 * A hooked application writes its ring itself, so its records are made to
 * speak for it alone before they reach the merge (docs/daemon.md "Hook
 * records"): only the types hooks produce pass (others are refused), pid =
 * the ring's owner, a tid that is a live thread of another process becomes
 * the owner's pid, string ids are cleared, flags = hook (+ trunc when a
 * time from the future was pulled back to now), drop records count this
 * ring's losses. One guard per ring; zero it, then set pid and source_id.
 */
#define ARGUS_HOOK_GUARD_TIDS 8
struct argus_hook_guard {
	uint32_t pid;       /* the ring's owner (SO_PEERCRED) */
	uint32_t source_id; /* the ring's id, for its drop records */
	/* whether tid may be a thread of pid; NULL = argus_tid_not_foreign */
	bool (*tid_ok)(void *arg, uint32_t pid, uint32_t tid);
	void *tid_arg;
	uint32_t tids[ARGUS_HOOK_GUARD_TIDS]; /* threads verified, and when */
	uint64_t tids_at[ARGUS_HOOK_GUARD_TIDS];
	uint64_t refused, retid, clamped; /* records refused / re-attributed / pulled back */
};
/* Guard n records read at now, in place; returns how many were kept (in
 * order, at the front). */
size_t argus_hook_guard_apply(struct argus_hook_guard *g, struct argus_event *ev, size_t n,
                              uint64_t now);
bool argus_hook_type_allowed(unsigned type);
/* tid is a thread of pid (/proc/PID/task/TID), or no live task has that id
 * (a thread that has exited); false for a live thread of another process.
 * arg unused. */
bool argus_tid_not_foreign(void *arg, uint32_t pid, uint32_t tid);

/* ---- the flight recorder on disk (readable without the daemon) ---------- */

struct argus_dump_stats {
	uint64_t from_ns, to_ns; /* span written */
	uint64_t events, chunks_read, chunks_bad, faults;
	uint64_t torn; /* unfinished ends of chunks a crash left open (not faults) */
};

/* Write the last last_ns of the recording in dir as one self-contained
 * trace at out_path. The unfinished chunk is read up to its last flush. */
int argus_recorder_dump(const char *dir, uint64_t last_ns, const char *out_path,
                        struct argus_dump_stats *st, char *err, size_t errlen);

/* ---- clients of the daemon -------------------------------------------- */

/*
 * Send one control request ("status", "status json", "stop", "flush") to
 * the daemon at run_dir (NULL = default) and write the reply to out.
 * Returns 0, or -errno (-ENOENT / -ECONNREFUSED: not running, -EACCES).
 */
int argus_daemon_request(const char *run_dir, const char *req, int out_fd);

/* `argus stream` against the daemon: argv[0] = "stream"; [--types a,b]
 * [--pid N]... [--run-dir DIR]. Prints NDJSON to stdout; exit code per cli.h. */
int argus_stream_client_run(int argc, char **argv);
/* Whether a daemon's stream socket exists at run_dir (NULL = default). */
bool argus_daemon_present(const char *run_dir);

#endif /* ARGUS_STREAM_H */
