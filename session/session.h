/*
 * session.h - libargus-session: one driver from a source of records to the
 * diagnosis' outputs (docs/session.md).
 *
 * A session owns a source - a trace file, records pushed through a struct
 * argus_sink (the daemon's merge, `argus synth`), or the live kernel tracer
 * (argus_live) - and fans every record out to the graph, the on-CPU
 * samples and the stall trigger through a per-type table. When the trigger
 * fires, the stall is diagnosed on the graph as it is then (beam/), and
 * the result goes to the session sinks attached: an in-memory collection,
 * report files, notifications, JSON stream lines.
 */
#ifndef ARGUS_SESSION_H
#define ARGUS_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "beam.h"
#include "event.h"
#include "graph.h"
#include "kext.h"
#include "stream.h"
#include "trigger.h"

/* ---- the session ---- */

/* Consumers a record can go to (argus_session_opts.consumers). */
enum argus_session_consumer {
	ARGUS_SESSION_GRAPH = 1,
	ARGUS_SESSION_SAMPLES = 2,
	ARGUS_SESSION_TRIGGER = 4, /* and the diagnosis it fires */
	ARGUS_SESSION_HISTORY = 8, /* kept for reports (opts.history_bytes) */
	ARGUS_SESSION_ALL = 15,
};

struct argus_session_opts {
	struct argus_trigger_opts trigger;
	struct argus_beam_params beam;
	struct argus_graph_opts graph;
	enum argus_algo algo;
	unsigned consumers; /* ARGUS_SESSION_* mask; default all */
	/* pushed records: what the pushed tables do not name is looked up in
	 * the running process's ELF / DWARF (a file source decides itself:
	 * a trace of this boot does, a synthetic or older one does not) */
	bool live_symbols;
	/* hooked dispatches at least this long are landmarks (3 ms: the
	 * shadow stack's online filter, LagHunter's); only with a sink that
	 * takes landmarks */
	uint64_t landmark_ns;
	/* scheduling and CPU samples kept for the reports (the Perfetto trace
	 * of a stall): at most this many bytes (0 = none kept, the default) and
	 * history_ns behind the newest record (0 = no time limit) */
	uint64_t history_bytes;
	uint64_t history_ns;
	/* called once per process the trigger learns is an app (a display
	 * client with a UI thread), in the session's thread, within a tick of
	 * learning it: argus start turns full stacks on for it
	 * (argus_kext_full_stacks), so a busy stall's samples carry whole call
	 * chains from its first occurrence on. NULL = none. */
	void (*app)(void *arg, uint32_t pid);
	void *app_arg;
	/* called in the session's thread when yields should be watched (on:
	 * a UI thread has left an episode unanswered for
	 * ARGUS_SESSION_YIELD_WATCH_NS) and when not (off: none has for
	 * ARGUS_SESSION_YIELD_CALM_NS): argus start then has the kernel see
	 * the yields that never switch (argus_kext_watch_yields), which cost
	 * every schedule() of the machine while seen. NULL = none. */
	void (*yields)(void *arg, bool on);
	void *yields_arg;
};
#define ARGUS_SESSION_YIELD_WATCH_NS 100000000ull  /* 100 ms: a perceptible lag */
#define ARGUS_SESSION_YIELD_CALM_NS  1000000000ull /* 1 s */
void argus_session_opts_default(struct argus_session_opts *o);

struct argus_session_stats {
	uint64_t events;         /* records fanned out */
	uint64_t faults;         /* damaged parts of a file source */
	uint64_t diagnoses;      /* stalls diagnosed */
	uint64_t stalls_dropped; /* more than 8 stalls fired at one record: not diagnosed */
	uint64_t t0;             /* first record's time */
	uint64_t landmarks;      /* hooked dispatches kept as landmarks */
	struct argus_trigger_stats trigger;
};

/* A lag: an episode of a UI thread of at least lag_ns (100 ms), stalled or
 * not (docs/diagnosis.md), with what the session knows of it then. Valid
 * during the call. */
struct argus_session_lag {
	struct argus_lag lag;
	char comm[ARGUS_COMM_LEN]; /* the app (process name), "" unknown */
	bool hooks;                /* dispatch hooks seen on the thread */
	const uint32_t *stacks;    /* stack ids sampled on the thread inside it, oldest first */
	uint32_t nstacks;
	const uint32_t *waits; /* stack ids of the thread's blocking waits inside it */
	uint32_t nwaits;
	const struct argus_symbolizer *sym; /* names their frames */
};

/* A hooked dispatch (a GLib source, a Qt event) of at least landmark_ns,
 * measured by the thread's shadow stack of dispatches, or a toolkit
 * landmark the hooks kept (a signal emission, paint, a Qt event delivery or
 * signal: a landmark record). Valid during the call. */
struct argus_session_landmark {
	const char *landmark; /* "handler" (a dispatch), "signal", "gtk-event", "paint",
	                         "qt-event", "qt-signal" */
	uint32_t pid, tid;
	char comm[ARGUS_COMM_LEN];
	uint64_t begin, end;
	uint64_t incl_ns; /* end - begin */
	uint64_t excl_ns; /* minus the dispatches and landmarks nested in it */
	uint32_t depth;   /* 0: outermost */
	uint64_t dispatch; /* the source's dispatch function (an address in pid) */
	uint64_t callback; /* the callback it ran (async_run_begin; a landmark's
	                      handler), 0 = not known */
	const char *source; /* the source's name, "" = none */
	const uint32_t *stacks; /* samples inside it, not inside a nested landmark */
	uint32_t nstacks;
	const uint32_t *waits; /* stacks of its thread's waits inside it (with lag sinks) */
	uint32_t nwaits;
	const struct argus_symbolizer *sym;
};

/* Where results go; any callback may be NULL. Called in the thread that
 * feeds the session, in stream order. */
struct argus_session_sink {
	void (*stall)(void *arg,
	              const struct argus_stall *s); /* fired, just before its diagnosis */
	void (*diagnosis)(void *arg, const struct argus_diagnosis *d); /* d valid during the call */
	void (*stall_end)(void *arg, const struct argus_stall *s);
	/* a LongRunning stall ended (after its stall_end): its diagnosis again
	 * over the whole stall (d->stall.detected = its end), where the time
	 * went from its start to its end; d valid during the call */
	void (*final)(void *arg, const struct argus_diagnosis *d);
	void (*fault)(void *arg, const struct argus_trace_error *e);  /* a file source's fault */
	void (*end)(void *arg, const struct argus_session_stats *st); /* the source ended */
	/* a lag ended (after the stall_end and diagnosis of a stall it holds) */
	void (*lag)(void *arg, const struct argus_session_lag *l);
	/* a hooked dispatch of at least landmark_ns ended */
	void (*landmark)(void *arg, const struct argus_session_landmark *l);
	void *arg;
};

struct argus_session;
int argus_session_new(struct argus_session **s, const struct argus_session_opts *o);
void argus_session_free(struct argus_session *s);
/* At most 8 sinks; 0, or -1 when full. */
int argus_session_add_sink(struct argus_session *s, const struct argus_session_sink *k);

/* Source: a trace file ("-" = standard input), read to its end; then the
 * sinks' end. Returns 0, a negative ARGUS_TRACE_E* when it cannot be
 * opened or memory ran out (err set), or 1 when it had faults (what was
 * intact was used; err = the last). */
int argus_session_run_file(struct argus_session *s, const char *path,
                           struct argus_trace_error *err);

/* Source: records pushed by a producer (tables interned before the records
 * that use them). argus_session_tick lets stream time pass without records
 * (the trigger fires on a quiet stream); argus_session_end when the
 * producer is done. */
struct argus_sink argus_session_sink(struct argus_session *s);
void argus_session_tick(struct argus_session *s, uint64_t now);
/* Whether the session waits on time: a stall could fire or end, or a
 * diagnosis or lag is waiting, with no further record (the trigger's
 * argus_trigger_waiting). A live producer may tick it less often while not. */
bool argus_session_waits_on_time(const struct argus_session *s);
void argus_session_end(struct argus_session *s);

void argus_session_get_stats(const struct argus_session *s, struct argus_session_stats *st);
/* Names the trigger knows now ("" when unknown); arg is the session. */
const char *argus_session_comm(void *s, uint32_t pid);
const char *argus_session_thread_comm(void *s, uint32_t tid);
struct argus_graph *argus_session_graph(struct argus_session *s);
/* The records kept (opts.history_bytes) as a report's source, and the time
 * of the oldest held (0 when none); valid while s lives. */
struct argus_report_records argus_session_records(struct argus_session *s);
uint64_t argus_session_records_from(const struct argus_session *s);
/* The session's symbols now (for reports written from a sink). */
struct argus_symbolizer argus_session_symbolizer(struct argus_session *s);

/* Diagnose stall st again on the session's graph as it is now (after a
 * file source ended: the whole window, the records after the stall too),
 * with a user's hints (NULL = none; argus debug -i). sym names frames
 * (NULL = the session's own). Returns 0, -1 out of memory. */
int argus_session_rediagnose(struct argus_session *s, const struct argus_stall *st,
                             const struct argus_diag_hints *h,
                             const struct argus_symbolizer *sym, struct argus_diagnosis *out);
/* The session's options (its beam parameters, its algorithm). */
const struct argus_session_opts *argus_session_get_opts(const struct argus_session *s);

/* A trace file read again for reports: the records of any span (the
 * Perfetto trace's scheduling and samples) and the file's symbols. Returns
 * 0 or a negative ARGUS_TRACE_E* (err set). */
struct argus_session_file_view;
int argus_session_file_view_open(struct argus_session_file_view **v, const char *path,
                                 struct argus_trace_error *err);
struct argus_report_records argus_session_file_view_records(struct argus_session_file_view *v);
struct argus_symbolizer argus_session_file_view_symbolizer(struct argus_session_file_view *v);
void argus_session_file_view_close(struct argus_session_file_view *v);

/* ---- sinks ---- */

/* In memory: every diagnosis in firing order, with the names of the
 * processes and threads it mentions as they were when it was made. */
struct argus_session_result {
	struct argus_diagnosis *d;
	size_t n;
	struct argus_trigger_stats trigger;
	uint64_t events, faults;
	uint64_t t0;                    /* first event time */
	char comms[64][ARGUS_COMM_LEN]; /* names of the processes diagnosed */
	uint32_t comm_pids[64];
	uint32_t ncomms;
	char threads[256][ARGUS_COMM_LEN]; /* names of the threads diagnosed */
	uint32_t thread_tids[256];
	uint32_t nthreads;
	struct argus_trace_error err; /* the last fault */
	bool oom;                     /* a diagnosis was not kept */
	void *collector_;             /* the sink's state (private) */
};
/* Attach; res is zeroed and filled as the session runs. */
int argus_session_collect(struct argus_session *s, struct argus_session_result *res);
void argus_session_result_free(struct argus_session_result *res);
const char *argus_session_result_comm(void *res, uint32_t pid);
const char *argus_session_result_thread_comm(void *res, uint32_t tid);
/* A file through a full session into res: argus_session_run_file's codes. */
int argus_session_diagnose_file(const char *path, const struct argus_session_opts *o,
                                struct argus_session_result *res);

/* Reports, notifications and JSON stream lines (what `argus start` does
 * with a stall, docs/daemon.md "Diagnosis"). publish (may be NULL) gets
 * the "stall" / "diagnosis" lines; it is called in the session's thread. */
#define ARGUS_REPORTS_DIR "/var/lib/argus/reports"
#define ARGUS_USER_REPORTS_DIR "/var/lib/argus/user-reports"
struct argus_report_sink_opts {
	const char *reports_dir; /* NULL = ARGUS_REPORTS_DIR, "" = no report files */
	const char *notify_bus;  /* D-Bus address; NULL = the stalled app's session bus */
	bool no_notify;
	/* who may read the reports: root only (directory 0700, files 0600),
	 * or also this group (0750 / 0640) when group_set */
	bool group_set;
	gid_t group;
	const char *name; /* for messages: "argus NAME: ..." */
	/* the copies the stalled app's owner may open when that is not root
	 * (docs/daemon.md "Report copies for the app's owner"): DIR/UID/, other
	 * users' processes redacted. NULL = ARGUS_USER_REPORTS_DIR with the
	 * default reports_dir, else reports_dir + "-users"; "" = none */
	const char *user_reports_dir;
	/* who owns pid (tests); NULL = /proc/PID/status. false: unknown */
	bool (*owner)(void *arg, uint32_t pid, uid_t *uid, gid_t *gid);
	void *owner_arg;
	void (*publish)(void *arg, const char *kind, uint32_t pid, const char *json);
	void *publish_arg;
	/* each notification (tests): the one-line answer and the page it opens,
	 * instead of the session bus's notifier; sent before the reports are
	 * written (docs/daemon.md) */
	void (*notify)(void *arg, const char *body, const char *report);
	void *notify_arg;
};
struct argus_report_sink;
int argus_report_sink_new(struct argus_report_sink **rs, struct argus_session *s,
                          const struct argus_report_sink_opts *o, char *err, size_t ecap);
void argus_report_sink_free(struct argus_report_sink *rs);

/* ---- the daemon's sink: a session in its own thread ---- */

/* A sink that runs another sink in a worker thread: the producer's thread
 * only queues (at most max_bytes, 0 = 256 MiB, of queued messages: records
 * above it are dropped and counted; table entries are never dropped but
 * count, so records give way to them; while more than 8 MiB wait, each
 * process gets a share per 100 ms - half of what the worker took in the
 * last 100 ms divided among the processes that sent, 256 to 2 000 records -
 * the rest of a flood is shed and counted; an app's records never are:
 * argus_worker_favour). inner and tick run in the worker, in delivery order.
 * With a tick function the worker wakes at each argus_worker_tick (or once
 * 1 MiB waits), not at each batch: a producer with one ticks after it
 * delivers. */
struct argus_worker;
struct argus_worker_stats {
	uint64_t events;           /* records the inner sink got */
	uint64_t dropped;          /* records not queued (queue full, shed, out of memory) */
	uint64_t shed;             /* of those, a process's records above its share while the
	                              queue was behind (worker.c) */
	uint64_t table_losses;     /* string / stack entries lost (ids may be off after) */
	uint64_t inner_errors;     /* batches the inner sink failed */
	uint64_t queued_bytes;     /* what waits now (records, table entries, ticks) */
	uint64_t max_queued_bytes; /* the most that ever waited (<= max_bytes unless table
	                              entries alone went above it) */
};
int argus_worker_new(struct argus_worker **w, const struct argus_sink *inner,
                     void (*tick)(void *arg, uint64_t stream_ns), void *tick_arg,
                     uint64_t max_bytes);
struct argus_sink argus_worker_sink(struct argus_worker *w);
void argus_worker_tick(struct argus_worker *w, uint64_t stream_ns); /* at most one waits */
/* pid is an app (the trigger found its UI thread): its records are never
 * shed while the worker is behind (the newest 64 apps). Any thread. */
void argus_worker_favour(struct argus_worker *w, uint32_t pid);
void argus_worker_stop(struct argus_worker *w); /* run what is queued, end the thread */
void argus_worker_get_stats(struct argus_worker *w, struct argus_worker_stats *st);
void argus_worker_free(struct argus_worker *w);
/* The daemon's scheduling group: with autogroup scheduling (a kernel's
 * sched_autogroup_enabled, the CPU controller not splitting it) a session
 * is one group, weighed as one nice-0 task however many threads it has and
 * whatever their nice; a thread's nice only orders the group's own threads.
 * When the calling process leads its session (setsid: `argus start` from
 * systemd or the storm bench; never a terminal's session, which would lift
 * the user's jobs with it), the session's group gets `nice`
 * (/proc/self/autogroup). 0 done, 1 not a session leader or no autogroup,
 * -1 refused (errno; no CAP_SYS_NICE). */
int argus_worker_group_nice(int nice);

/* `argus start`'s diagnosis: a full session (live symbols) in a worker fed
 * by the daemon's merge, ticked with the stream's time, with a report sink
 * whose stream lines the daemon's thread publishes on its ticks. */
struct argus_daemon_diag_opts {
	const char *reports_dir; /* NULL = ARGUS_REPORTS_DIR, "" = none */
	const char *user_reports_dir; /* argus_report_sink_opts.user_reports_dir */
	const char *notify_bus;
	bool no_notify;
	uint64_t stall_ns; /* stall threshold; 0 = the trigger's default (2 s) */
	/* called once with the daemon's session before it runs (NULL = none):
	 * later stages attach their sinks (the issue store); they run in its
	 * worker thread. Non-zero fails the attachment (err set by it). */
	int (*attach)(void *arg, struct argus_session *s, char *err, size_t ecap);
	void *attach_arg;
	bool group_set;    /* reports readable by this group too (argus start --group) */
	gid_t group;
	/* a user's graph rules (argus_graph_opts; /etc/argus/rules), NULL =
	 * none; they must outlive the attachment */
	const char *const *user_batch_comms;
	const char *const *ignore_wake_comms;
	/* argus_session_opts.app, .app_arg, .yields, .yields_arg */
	void (*app)(void *arg, uint32_t pid);
	void *app_arg;
	void (*yields)(void *arg, bool on);
	void *yields_arg;
	/* asked on the diagnosis thread about once a second (NULL = never):
	 * true with new lists in *batch and *ignore when the user's rules have
	 * changed (argus start: its rules file); the graph takes them at once
	 * (argus_graph_set_user_rules) and they must live until the next change */
	bool (*rules_changed)(void *arg, const char *const **batch, const char *const **ignore);
	void *rules_arg;
};
struct argus_daemon_diag;
int argus_daemon_diag_attach(struct argus_daemon_diag **dd, struct argus_daemon *d,
                             const struct argus_daemon_diag_opts *o, char *err, size_t ecap);
/* After the daemon stopped: finish the queue, one line of counts on stderr. */
void argus_daemon_diag_summary(struct argus_daemon_diag *dd);
void argus_daemon_diag_free(struct argus_daemon_diag *dd);

/* ---- the live kernel source (live.c) ---- */

/* kext -> one ring reader per CPU -> merge by time -> decode -> a sink,
 * until a signal, a duration or the traced command's exit. */
struct argus_live_opts {
	struct argus_kext_opts kext;
	uint64_t duration_ns; /* 0 = until a signal (or the command's exit) */
	char **cmd;           /* command to start and trace with its children; NULL = none */
	const char *name;     /* subcommand name for messages ("argus NAME: ...") */
	int ready_fd;         /* > 0: write "ready\n" here once tracing runs, then close */
	bool no_rt; /* keep the reader at normal priority (default: nice -20 asleep, SCHED_FIFO
	               awake) */
	/* with cmd: preload this libargus-hooks.so into it and merge its
	 * shared-memory rings with the kernel's (NULL = no hooks) */
	const char *hooks_lib;
};

struct argus_live_stats {
	uint64_t events;      /* records delivered to the sink */
	uint64_t ring_drops;  /* records the kernel rings lost */
	uint64_t ring_shed;   /* of them, shed outside the app set (kext.md "Shedding") */
	uint64_t stack_drops; /* user stacks the kernel could not keep */
	uint64_t nested;      /* tracer program runs the kernel skipped (ARGUS_DROP_NESTED) */
	uint64_t late;        /* records the merge released after their watermark */
	uint64_t hook_events; /* records read from the command's hook rings */
	uint64_t hook_drops;  /* records its hook rings lost */
	int cmd_status;       /* wait status of the command, -1 if none */
};

/* Errors of argus_live_open / argus_live_run: ARGUS_KEXT_E* (kext.h) for
 * the tracer's, else these. A message was printed. */
enum {
	ARGUS_LIVE_EINTERNAL = -100, /* out of memory, a system call failed */
	ARGUS_LIVE_ESINK = -101,     /* the sink failed (errno as it left it) */
};

struct argus_live;
int argus_live_open(struct argus_live **l, const struct argus_live_opts *o);
/* Feed sink until the end; then drain and count the drops. */
int argus_live_run(struct argus_live *l, const struct argus_sink *sink);
void argus_live_get_stats(const struct argus_live *l, struct argus_live_stats *st);
void argus_live_close(struct argus_live *l);

/* The kernel tracer as the daemon's source: its rings added to d. Returns
 * 0 or an ARGUS_KEXT_E* / ARGUS_LIVE_EINTERNAL with err set; *k is freed
 * by the caller after the daemon (its rings read kext's maps). */
int argus_live_daemon_source(struct argus_daemon *d, const struct argus_kext_opts *ko,
                             struct argus_kext **k, char *err, size_t ecap);

#endif /* ARGUS_SESSION_H */
