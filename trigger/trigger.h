/*
 * trigger.h - libargus-trigger: finds GUI apps and their UI threads by their
 * connection to the display server, and fires once per stall (input or a
 * dispatch not finished for 2 s, or a launch blocked for 2 s) on the merged
 * event stream. Time comes from the events, so the same code runs on a live
 * stream and on a trace file. docs/diagnosis.md describes the rules.
 */
#ifndef ARGUS_TRIGGER_H
#define ARGUS_TRIGGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "argus_event.h"

struct argus_trigger_opts {
	uint64_t stall_ns;  /* input / dispatch unfinished this long: a stall (2 s) */
	uint64_t launch_ns; /* UI thread blocked this long before its first input (2 s) */
	uint64_t lag_ns;    /* a UI episode at least this long is a lag (100 ms) */
	uint32_t yield_min; /* yields + zero-timeout polls in a stall: a yield loop (20) */
};
void argus_trigger_opts_default(struct argus_trigger_opts *o);

enum argus_stall_class {
	ARGUS_STALL_LONG_RUNNING = 1, /* UI thread mostly on CPU (or runnable) */
	ARGUS_STALL_LONG_WAIT = 2,    /* UI thread blocked */
	ARGUS_STALL_YIELD_LOOP = 3,   /* spinning: yields, zero-timeout polls */
};
const char *argus_stall_class_name(unsigned cls);

enum argus_stall_cause {
	ARGUS_CAUSE_INPUT = 0,    /* input delivered to the display connection */
	ARGUS_CAUSE_DISPATCH = 1, /* a dispatch began (hooks) */
	ARGUS_CAUSE_LAUNCH = 2,   /* blocked before the first input / window */
};
const char *argus_stall_cause_name(unsigned cause);

struct argus_stall {
	uint64_t id; /* 1, 2, ... in firing order */
	uint32_t pid, tid;
	char comm[ARGUS_COMM_LEN];     /* the app (process name) */
	uint64_t since;                /* input delivered / dispatch began / blocked */
	uint64_t detected;             /* since + threshold: when it fired */
	uint64_t end;                  /* UI thread back in its loop; 0 = still stalled */
	uint8_t cls;                   /* enum argus_stall_class, at detection */
	uint8_t cause;                 /* enum argus_stall_cause */
	bool blocked;                  /* UI thread blocked at detection */
	uint16_t wait_nr;              /* syscall it blocked in, 0xffff = none */
	uint64_t oncpu_ns, blocked_ns; /* in [since, detected] */
	uint32_t yields, zero_polls;
};

struct argus_lag {
	uint32_t pid, tid;
	uint64_t start, end;
};

struct argus_ui_thread {
	uint32_t pid, tid;
	uint64_t conn; /* the client's display socket */
	bool hooks;    /* dispatch hooks seen on it */
};

/* Callbacks run inside argus_trigger_feed, at the event that crossed the
 * threshold (stall) or ended the episode (stall_end, lag). Any may be NULL. */
struct argus_trigger_cb {
	void (*stall)(void *arg, const struct argus_stall *s);
	void (*stall_end)(void *arg, const struct argus_stall *s);
	void (*lag)(void *arg, const struct argus_lag *l);
	void *arg;
};

struct argus_trigger_stats {
	uint64_t events;
	uint32_t gui_processes, ui_threads;
	uint64_t stalls, stalls_ended, lags;
	uint64_t display_sends; /* input deliveries seen from display servers */
	/* entries kept: processes (running, or exited in the last 10 min),
	 * threads named apart from their process, display connections, UI
	 * threads (of the processes kept), readers learnt (wakers) */
	uint32_t procs_kept, threads_named, conns_kept, ui_kept, wakers_kept;
};

struct argus_trigger;

/* opts NULL = defaults. Returns 0 or -1 (out of memory). */
int argus_trigger_new(struct argus_trigger **t, const struct argus_trigger_opts *opts,
                      const struct argus_trigger_cb *cb);
void argus_trigger_free(struct argus_trigger *t);

/* Feed events in time order. Returns 0, or -1 once a table could not grow
 * (out of memory: an app may go untracked; what is tracked goes on). */
int argus_trigger_feed(struct argus_trigger *t, const struct argus_event *ev, size_t n);
/* Let time pass without events (live: a timer tick). */
void argus_trigger_advance(struct argus_trigger *t, uint64_t now);
/* Whether time alone (no further event) could fire or end a stall: some UI
 * thread has input or a dispatch pending, a busy window open, a stall
 * going on, or has not waited in its loop yet (a launch). False on a
 * desktop whose apps all sit in their loops: a live caller may then let
 * time pass in coarser steps until the next events. */
bool argus_trigger_waiting(const struct argus_trigger *t);

/* The oldest start of what a UI thread has left unanswered: an episode
 * going on (input or a dispatch pending, a busy window) or a stall fired
 * and not ended; 0 = none. */
uint64_t argus_trigger_oldest_episode(const struct argus_trigger *t);

void argus_trigger_get_stats(const struct argus_trigger *t, struct argus_trigger_stats *st);
/* The UI threads alive (their exit not seen), oldest first, up to cap;
 * returns how many there are. */
size_t argus_trigger_ui_threads(const struct argus_trigger *t, struct argus_ui_thread *out,
                                size_t cap);
/* Name of a process seen in the stream ("" when unknown). */
const char *argus_trigger_comm(const struct argus_trigger *t, uint32_t pid);
/* Name of a thread seen in the stream: its own (thread_new, comm records),
 * the process's for a main thread, "" when unknown. */
const char *argus_trigger_thread_comm(const struct argus_trigger *t, uint32_t tid);
/* Whether a process name is a display server's (Xorg, Xwayland, ...). */
bool argus_display_server_comm(const char *comm);

#endif /* ARGUS_TRIGGER_H */
