/*
 * trigger_priv.h - the trigger's tables (processes, thread names, UI
 * threads, display connections, relay objects), shared by trigger.c (the
 * rules) and tables.c (lookups and names). Not installed.
 */
#ifndef ARGUS_TRIGGER_PRIV_H
#define ARGUS_TRIGGER_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "idmap.h"
#include "syscalls.h"
#include "trigger.h"

#define CHECK_EVERY_NS 1000000ULL /* thresholds are checked each 1 ms of event time */
#define NO_NR          0xffff
/* input read this soon after it ended a wait: it woke the loop (a busy
 * machine delays the notifier's signal and the wake-up by tens of ms) */
#define LOOP_WAKE_NS 250000000ULL
/* a busy window is judged once this old: blocked more than a quarter of it,
 * the thread waited (docs/diagnosis.md "Busy without a wait") */
#define BUSY_JUDGE_NS 100000000ULL
/* a read can come this long before the record of the write it took (the
 * server preempted between its write and the tracepoint); bytes read past
 * the written ones for longer are no late write's */
#define LATE_WRITE_NS 100000000ULL
/* a launch is a start-up: a UI thread that blocks this long after its
 * process's exec is no app launching (an app blocks on a service in its
 * first seconds: realapps' launch cases 0.1-0.35 s after exec; a windowless
 * client running for minutes - a headless browser, a test program - that
 * blocks later never maps a window) */
#define LAUNCH_WITHIN_NS 10000000000ULL
/* exited processes and threads keep their names this long (reports name
 * the graph's last five minutes), then leave their tables (trg_sweep, at
 * most once a SWEEP_EVERY_NS of event time) */
#define KEEP_EXITED_NS 600000000000ULL
#define SWEEP_EVERY_NS 60000000000ULL

struct proc {
	uint32_t pid;
	char comm[ARGUS_COMM_LEN];
	bool server;    /* a display server */
	bool exec_seen; /* started inside the stream: launch stalls apply */
	uint64_t exec_ts;
	bool mapped; /* first window mapped */
	bool gui;
	uint64_t last_request; /* a server: the client end whose request it read last */
	uint64_t last_sent;    /* a server: the client end it wrote to since, 0 none */
	uint64_t exited;       /* its exit record's time; 0 = running */
};

/* The name of a thread other than a process's main one (the main thread's
 * is the process's). Kept after exit like process names: a report may name
 * a thread that is gone; a reused tid overwrites it. */
struct tname {
	uint32_t tid;
	char comm[ARGUS_COMM_LEN];
	uint64_t exited; /* its exit record's time; 0 = running */
};

struct conn {
	uint64_t obj;           /* the client's end */
	uint32_t reader;        /* UI thread index + 1, 0 = not read yet */
	uint64_t pending_since; /* oldest unread input, 0 = none */
	uint64_t last_send;     /* the server's latest send to it */
	uint64_t asked;         /* the server's latest read of a request from it */
	bool events;            /* it read what the server wrote unasked: it has a window */
	bool unread_event;      /* the server wrote it an event it has not read yet */
	uint64_t events_at;     /* when it read its first event */
	bool last_event;        /* the server's latest write to it was an event */
	/* bytes the server wrote and its readers read, once a read that found
	 * nothing has lined them up (bytes_known): a server write whose bytes
	 * were all read already is none pending, whatever the stamps' order */
	uint64_t sent_bytes, read_bytes;
	uint64_t ahead_at; /* the read that took the count past the written one, 0 = none */
	bool bytes_known;
};

/* Who reads an eventfd or pipe of a GUI process: the thread a display
 * reader wakes when it relays input (Qt's QXcbEventQueue wakes the main
 * thread's dispatcher). */
struct waker {
	uint64_t obj;
	uint32_t pid, tid;
};

struct uthr {
	uint32_t pid, tid;
	uint64_t conn;
	bool hooks, input_seen;
	bool zero_poll;   /* in a zero-timeout poll */
	bool asks;        /* it wrote requests to the display: it draws, dispatches */
	uint64_t wait_at; /* stalled, entered a waiting poll then: it ends there if it waits */
	bool dead;        /* exited: never fires again */
	uint32_t depth;   /* dispatch / async-run nesting */
	uint64_t pending_since, busy_since;
	uint64_t resumed; /* when its last stall ended: older input counts from here */
	uint8_t busy_cause;
	bool fired;
	struct argus_stall stall;
	/* scheduling state */
	bool on_cpu, blocked;
	bool stopped; /* blocked stopped (SIGSTOP, a tracer): waiting for no one */
	uint64_t on_since, blocked_since;
	uint16_t last_nr, wait_nr;
	uint64_t last_futex, wait_futex; /* the futex word of the last / blocking futex wait */
	/* the one object a poll on one fd waits on (0 = several fds, none) */
	uint64_t last_pobj, wait_pobj;
	uint8_t last_pkind, wait_pkind;
	/* when it last came back from its loop's own wait (loop_came_round) */
	uint64_t round_at;
	/* how many fds that poll watched (poll, ppoll; 0 unknown) */
	uint32_t last_pnfds, wait_pnfds;
	/* the object kind of the call it blocked in (any call; 0 unknown) */
	uint8_t last_okind, wait_okind;
	/* its last send woke another thread of its process through that
	 * thread's wake-up object (handed), and so when it blocked */
	bool handed, wait_handed;
	/* Its loop's wait when that is a futex (threaded Tcl: the main thread
	 * waits on a condition its notifier thread signals): the futex it sat
	 * in before reading input, twice in a row. 0 = its loop polls. */
	uint64_t loop_futex, cand_futex;
	/* Busy without a wait: a window open since busy_from (the thread ran
	 * again after a wait that closed the last one, or an event came to
	 * it while it waited), blocked busy_blocked ns in it (ended waits);
	 * 0 = no window.
	 * busy_probation: the window after a stall's end, which only re-arms
	 * the rule (the thread must wait before it can fire again). sat: the
	 * fired stall is this rule's. */
	uint64_t busy_from, busy_blocked, wait_since;
	uint64_t busy_oncpu; /* on CPU in the window (switches out so far) */
	uint32_t busy_yields;
	/* busy_evt: an event came in the window (the window opens when the
	 * thread stops waiting; it can fire only once someone waits for it) */
	bool busy_probation, sat, busy_evt;
	/* idle in its loop once: it has started up. A wait of lag_ns in one
	 * go, or half of a stretch of lag_ns in its loop's own wait (idle_from:
	 * the stretch's first loop wait, idle_loop: loop-wait time in it) */
	bool idle_once;
	bool wait_loop; /* the wait it is blocked in is its loop's (loop_wait), no call */
	uint64_t idle_from, idle_loop;
	bool looped;   /* waited in its loop once (loop_wait): it has started up */
	bool sent_req; /* wrote a request to the display, not waited since */
	/* episode counters */
	uint64_t ep_start, oncpu_acc, blocked_acc;
	uint32_t yields, zero_polls;
};

struct argus_trigger {
	struct argus_trigger_opts o;
	struct argus_trigger_cb cb;
	struct argus_trigger_stats st;
	struct idmap pid_ix, tid_ix, conn_ix, tname_ix, waker_ix;
	struct idmap dialed_ix; /* sockets a display server connected itself */
	struct proc *procs;
	uint32_t nprocs, cprocs;
	struct tname *tnames;
	uint32_t ntnames, ctnames;
	struct uthr *uts;
	uint32_t nuts, cuts;
	struct conn *conns;
	uint32_t nconns, cconns;
	struct waker *wakers;
	uint32_t nwakers, cwakers;
	uint64_t now, next_check, next_id, next_sweep;
	/* the latest wake-up: a waker's call written after it (the default
	 * capture's NORET send) woke this thread */
	uint64_t wake_ts;
	uint32_t wake_waker, wake_pid, wake_tid;
	bool oom; /* a table could not grow: some app is not tracked */
};

/* poll, select, ppoll, pselect6, the epoll waits (event/syscalls.h) */
static inline bool poll_family(unsigned nr)
{
	return argus_syscall_wait(nr) == ARGUS_SYSW_POLL;
}

/* Whether futex words a and b belong to one condition variable: glibc's
 * waits on __g_signals[0] or [1] (one 8-byte aligned pair) by the group it
 * joined, so one thread's waits on one condition alternate between two
 * adjacent words. */
static inline bool same_cond(uint64_t a, uint64_t b)
{
	return a && b && (a & ~7ull) == (b & ~7ull);
}

/* tables.c */
void *trg_grow(void *p, uint32_t *cap, size_t elem);
struct proc *trg_proc_get(struct argus_trigger *t, uint32_t pid, bool create);
void trg_proc_name(struct proc *p, const char *comm);
void trg_thread_name(struct argus_trigger *t, uint32_t pid, uint32_t tid, const char *comm);
struct uthr *trg_uthr_get(struct argus_trigger *t, uint32_t tid);
struct uthr *trg_uthr_make(struct argus_trigger *t, uint32_t pid, uint32_t tid);
void trg_task_new(struct argus_trigger *t, uint32_t pid, uint32_t tid, bool process);
void trg_exited(struct argus_trigger *t, uint32_t pid, uint32_t tid, uint64_t ts);
void trg_sweep(struct argus_trigger *t);
struct conn *trg_conn_get(struct argus_trigger *t, uint64_t obj, bool create);
void trg_conn_forget(struct argus_trigger *t, uint64_t obj);
bool trg_x_server(const char *comm); /* an X server (not a compositor) */

/* trigger.c: the episodes, for display.c */
void trg_episode_end(struct argus_trigger *t, struct uthr *u);
void trg_set_pending(struct argus_trigger *t, struct uthr *u, uint64_t since);
void trg_set_busy(struct argus_trigger *t, struct uthr *u, uint64_t since, uint8_t cause);
void trg_maybe_end(struct argus_trigger *t, struct uthr *u);
void trg_busy_open(struct uthr *u, uint64_t at, bool probation);
void trg_consume(struct argus_trigger *t, struct uthr *u, uint64_t since);

/* display.c: the display connections' records */
void trg_on_wake_obj(struct argus_trigger *t, const struct argus_event *ev);
void trg_on_ipc(struct argus_trigger *t, const struct argus_event *ev);
void trg_on_connect(struct argus_trigger *t, const struct argus_event *ev);
void trg_on_exit_of(struct argus_trigger *t, struct uthr *u);

#endif /* ARGUS_TRIGGER_PRIV_H */
