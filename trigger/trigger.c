/*
 * trigger.c - GUI discovery and the stall trigger (docs/diagnosis.md).
 *
 * State per UI thread: the input pending on its display connection (sent by
 * the server, not yet read), the episode it is handling (input read or a
 * dispatch begun, not yet back in its loop), and on-CPU / blocked / yield
 * counters of that episode for the classification.
 */
#include <stdlib.h>
#include <string.h>

#include "event.h"
#include "idmap.h"
#include "syscalls.h"
#include "trigger.h"

#define CHECK_EVERY_NS 1000000ULL /* thresholds are checked each 1 ms of event time */
#define NO_NR          0xffff

struct proc {
	uint32_t pid;
	char comm[ARGUS_COMM_LEN];
	bool server;    /* a display server */
	bool exec_seen; /* started inside the stream: launch stalls apply */
	bool mapped;    /* first window mapped */
	bool gui;
};

/* The name of a thread other than a process's main one (the main thread's
 * is the process's). Kept after exit like process names: a report may name
 * a thread that is gone; a reused tid overwrites it. */
struct tname {
	uint32_t tid;
	char comm[ARGUS_COMM_LEN];
};

struct conn {
	uint64_t obj;           /* the client's end */
	uint32_t reader;        /* UI thread index + 1, 0 = not read yet */
	uint64_t pending_since; /* oldest unread input, 0 = none */
	uint64_t last_send;     /* the server's latest send to it */
};

struct uthr {
	uint32_t pid, tid;
	uint64_t conn;
	bool hooks, input_seen;
	bool dead;      /* exited: never fires again */
	uint32_t depth; /* dispatch / async-run nesting */
	uint64_t pending_since, busy_since;
	uint64_t resumed; /* when its last stall ended: older input counts from here */
	uint8_t busy_cause;
	bool fired;
	struct argus_stall stall;
	/* scheduling state */
	bool on_cpu, blocked;
	uint64_t on_since, blocked_since;
	uint16_t last_nr, wait_nr;
	/* episode counters */
	uint64_t ep_start, oncpu_acc, blocked_acc;
	uint32_t yields, zero_polls;
};

struct argus_trigger {
	struct argus_trigger_opts o;
	struct argus_trigger_cb cb;
	struct argus_trigger_stats st;
	struct idmap pid_ix, tid_ix, conn_ix, tname_ix;
	struct proc *procs;
	uint32_t nprocs, cprocs;
	struct tname *tnames;
	uint32_t ntnames, ctnames;
	struct uthr *uts;
	uint32_t nuts, cuts;
	struct conn *conns;
	uint32_t nconns, cconns;
	uint64_t now, next_check, next_id;
	bool oom; /* a table could not grow: some app is not tracked */
};

void argus_trigger_opts_default(struct argus_trigger_opts *o)
{
	o->stall_ns = 2000000000ULL;
	o->launch_ns = 2000000000ULL;
	o->lag_ns = 100000000ULL;
	o->yield_min = 20;
}

const char *argus_stall_class_name(unsigned cls)
{
	switch (cls) {
	case ARGUS_STALL_LONG_RUNNING:
		return "long_running";
	case ARGUS_STALL_LONG_WAIT:
		return "long_wait";
	case ARGUS_STALL_YIELD_LOOP:
		return "yield_loop";
	}
	return "unknown";
}

const char *argus_stall_cause_name(unsigned cause)
{
	switch (cause) {
	case ARGUS_CAUSE_INPUT:
		return "input";
	case ARGUS_CAUSE_DISPATCH:
		return "dispatch";
	case ARGUS_CAUSE_LAUNCH:
		return "launch";
	}
	return "unknown";
}

/* X servers: every unix socket they write to a client is a display
 * connection. Wayland compositors also speak D-Bus, so for them only sockets
 * the kernel side marked as display count. */
static const char *const x_servers[] = {"Xorg",   "X",     "Xvfb", "Xwayland",
                                        "Xephyr", "Xnest", "Xvnc", NULL};
static const char *const compositors[] = {"weston",      "sway",     "kwin_wayland", "mutter",
                                          "gnome-shell", "Hyprland", "labwc",        "wayfire",
                                          "cage",        NULL};

static bool in_list(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (!strcmp(*list, s))
			return true;
	return false;
}

bool argus_display_server_comm(const char *comm)
{
	return in_list(x_servers, comm) || in_list(compositors, comm);
}

/* poll, select, ppoll, pselect6, the epoll waits (event/syscalls.h) */
static bool poll_family(unsigned nr)
{
	return argus_syscall_wait(nr) == ARGUS_SYSW_POLL;
}

static void *grow(void *p, uint32_t *cap, size_t elem)
{
	uint32_t ncap = *cap ? *cap * 2 : 16;
	void *q = realloc(p, (size_t)ncap * elem);
	if (q)
		*cap = ncap;
	return q;
}

static struct proc *proc_get(struct argus_trigger *t, uint32_t pid, bool create)
{
	uint32_t *ix = idmap_get(&t->pid_ix, pid);
	if (ix)
		return &t->procs[*ix];
	if (!create || !pid)
		return NULL;
	if (t->nprocs == t->cprocs) {
		struct proc *p = grow(t->procs, &t->cprocs, sizeof(*p));
		if (!p)
			return t->oom = true, NULL;
		t->procs = p;
	}
	if (!idmap_put(&t->pid_ix, pid, t->nprocs))
		return t->oom = true, NULL;
	struct proc *p = &t->procs[t->nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	return p;
}

static void proc_name(struct proc *p, const char *comm)
{
	if (!p)
		return;
	memcpy(p->comm, comm, ARGUS_COMM_LEN);
	p->comm[ARGUS_COMM_LEN - 1] = 0;
	p->server = argus_display_server_comm(p->comm);
}

static void thread_name(struct argus_trigger *t, uint32_t pid, uint32_t tid, const char *comm)
{
	if (!tid || tid == pid)
		return; /* the main thread: its name is the process's */
	uint32_t *ix = idmap_get(&t->tname_ix, tid);
	if (!ix) {
		if (t->ntnames == t->ctnames) {
			struct tname *n = grow(t->tnames, &t->ctnames, sizeof(*n));
			if (!n) {
				t->oom = true;
				return;
			}
			t->tnames = n;
		}
		if (!idmap_put(&t->tname_ix, tid, t->ntnames)) {
			t->oom = true;
			return;
		}
		ix = idmap_get(&t->tname_ix, tid);
		t->tnames[t->ntnames++].tid = tid;
	}
	memcpy(t->tnames[*ix].comm, comm, ARGUS_COMM_LEN);
	t->tnames[*ix].comm[ARGUS_COMM_LEN - 1] = 0;
}

static struct uthr *uthr_get(struct argus_trigger *t, uint32_t tid)
{
	uint32_t *ix = idmap_get(&t->tid_ix, tid);
	return ix ? &t->uts[*ix] : NULL;
}

static struct uthr *uthr_make(struct argus_trigger *t, uint32_t pid, uint32_t tid)
{
	struct uthr *u = uthr_get(t, tid);
	if (u || !tid)
		return u;
	if (t->nuts == t->cuts) {
		struct uthr *n = grow(t->uts, &t->cuts, sizeof(*n));
		if (!n)
			return t->oom = true, NULL;
		t->uts = n;
	}
	if (!idmap_put(&t->tid_ix, tid, t->nuts))
		return t->oom = true, NULL;
	u = &t->uts[t->nuts++];
	memset(u, 0, sizeof(*u));
	u->pid = pid;
	u->tid = tid;
	u->last_nr = u->wait_nr = NO_NR;
	u->on_cpu = true; /* it just produced an event */
	u->on_since = t->now;
	struct proc *p = proc_get(t, pid, true);
	if (p && !p->gui) {
		p->gui = true;
		t->st.gui_processes++;
	}
	t->st.ui_threads = t->nuts;
	return u;
}

static struct conn *conn_get(struct argus_trigger *t, uint64_t obj, bool create)
{
	uint32_t *ix = idmap_get(&t->conn_ix, obj);
	if (ix)
		return &t->conns[*ix];
	if (!create || !obj)
		return NULL;
	if (t->nconns == t->cconns) {
		struct conn *n = grow(t->conns, &t->cconns, sizeof(*n));
		if (!n)
			return t->oom = true, NULL;
		t->conns = n;
	}
	if (!idmap_put(&t->conn_ix, obj, t->nconns))
		return t->oom = true, NULL;
	struct conn *c = &t->conns[t->nconns++];
	memset(c, 0, sizeof(*c));
	c->obj = obj;
	return c;
}

static uint64_t episode_start(const struct uthr *u)
{
	uint64_t a = u->pending_since, b = u->busy_since;
	if (!a)
		return b;
	if (!b)
		return a;
	return a < b ? a : b;
}

/* Counters restart when an episode starts (and keep running through it). */
static void episode_begin(struct argus_trigger *t, struct uthr *u)
{
	u->ep_start = t->now;
	u->oncpu_acc = u->blocked_acc = 0;
	u->yields = u->zero_polls = 0;
	if (u->on_cpu)
		u->on_since = t->now;
	if (u->blocked)
		u->blocked_since = t->now;
}

static void set_busy(struct argus_trigger *t, struct uthr *u, uint64_t since, uint8_t cause)
{
	bool idle = !episode_start(u);
	if (since < u->resumed)
		since = u->resumed;
	if (!u->busy_since || since < u->busy_since) {
		u->busy_since = since;
		u->busy_cause = cause;
	}
	if (idle)
		episode_begin(t, u);
}

static void set_pending(struct argus_trigger *t, struct uthr *u, uint64_t since)
{
	bool idle = !episode_start(u);
	if (since < u->resumed)
		since = u->resumed;
	if (!u->pending_since || since < u->pending_since)
		u->pending_since = since;
	if (idle)
		episode_begin(t, u);
}

/* The UI thread is back in its loop with nothing pending. */
static void episode_end(struct argus_trigger *t, struct uthr *u)
{
	uint64_t start = episode_start(u);
	if (u->fired && u->stall.cause == ARGUS_CAUSE_LAUNCH)
		start = u->stall.since;
	if (!start && !u->fired)
		return;
	if (u->fired) {
		u->stall.end = t->now;
		t->st.stalls_ended++;
		if (t->cb.stall_end)
			t->cb.stall_end(t->cb.arg, &u->stall);
	}
	if (start && t->now - start >= t->o.lag_ns) {
		struct argus_lag l = {.pid = u->pid, .tid = u->tid, .start = start, .end = t->now};
		t->st.lags++;
		if (t->cb.lag)
			t->cb.lag(t->cb.arg, &l);
	}
	u->pending_since = u->busy_since = 0;
	u->fired = false;
}

static void maybe_end(struct argus_trigger *t, struct uthr *u)
{
	if (!u->pending_since && !u->depth)
		episode_end(t, u);
}

/* The UI thread is back in its event loop. A stall ends here; input that
 * queued up during it counts from now (the app answers again). */
static void loop_back(struct argus_trigger *t, struct uthr *u)
{
	if (u->fired && u->stall.cause != ARGUS_CAUSE_LAUNCH) {
		bool queued = u->pending_since != 0;
		episode_end(t, u);
		u->resumed = t->now;
		if (queued)
			set_pending(t, u, t->now);
		return;
	}
	if (!u->pending_since)
		episode_end(t, u);
	u->busy_since = 0;
}

static void fire(struct argus_trigger *t, struct uthr *u, uint64_t since, uint8_t cause)
{
	struct argus_stall *s = &u->stall;
	struct proc *p = proc_get(t, u->pid, false);
	memset(s, 0, sizeof(*s));
	s->id = ++t->next_id;
	s->pid = u->pid;
	s->tid = u->tid;
	if (p)
		memcpy(s->comm, p->comm, sizeof(s->comm));
	s->since = since;
	s->detected = t->now;
	s->cause = cause;
	s->blocked = u->blocked;
	s->wait_nr = u->blocked ? u->wait_nr : NO_NR;
	s->oncpu_ns = u->oncpu_acc + (u->on_cpu ? t->now - u->on_since : 0);
	s->blocked_ns = u->blocked_acc + (u->blocked ? t->now - u->blocked_since : 0);
	s->yields = u->yields;
	s->zero_polls = u->zero_polls;
	uint64_t span = t->now - u->ep_start;
	if (cause != ARGUS_CAUSE_LAUNCH && u->yields + u->zero_polls >= t->o.yield_min)
		s->cls = ARGUS_STALL_YIELD_LOOP;
	else if (u->blocked || s->blocked_ns * 2 >= span)
		s->cls = ARGUS_STALL_LONG_WAIT;
	else
		s->cls = ARGUS_STALL_LONG_RUNNING;
	u->fired = true;
	t->st.stalls++;
	if (t->cb.stall)
		t->cb.stall(t->cb.arg, s);
}

static void check(struct argus_trigger *t, struct uthr *u)
{
	if (u->fired || u->dead)
		return;
	uint64_t start = episode_start(u);
	if (start && t->now >= start + t->o.stall_ns) {
		uint8_t cause = ARGUS_CAUSE_INPUT;
		if (u->busy_since == start)
			cause = u->busy_cause;
		fire(t, u, start, cause);
		return;
	}
	struct proc *p = proc_get(t, u->pid, false);
	if (!start && p && p->exec_seen && !p->mapped && !u->input_seen && u->blocked &&
	    !poll_family(u->wait_nr) && t->now >= u->blocked_since + t->o.launch_ns) {
		episode_begin(t, u);
		u->blocked_since = u->ep_start - t->o.launch_ns;
		u->ep_start = u->blocked_since;
		fire(t, u, u->blocked_since, ARGUS_CAUSE_LAUNCH);
	}
}

static void check_all(struct argus_trigger *t)
{
	for (uint32_t i = 0; i < t->nuts; i++)
		check(t, &t->uts[i]);
	t->next_check = t->now + CHECK_EVERY_NS;
}

/* The thread consumed input from its display connection. */
static void consume(struct argus_trigger *t, struct uthr *u, uint64_t since)
{
	u->input_seen = true;
	uint64_t from = since ? since : t->now;
	if (u->pending_since && u->pending_since < from)
		from = u->pending_since;
	u->pending_since = 0;
	struct conn *c = conn_get(t, u->conn, false);
	if (c)
		c->pending_since = 0;
	set_busy(t, u, from, ARGUS_CAUSE_INPUT);
}

static void on_ipc(struct argus_trigger *t, const struct argus_event *ev)
{
	struct proc *p = proc_get(t, ev->pid, false);
	uint8_t kind = ev->ipc.obj_kind;
	bool server = p && p->server;
	if (server && ev->type == ARGUS_EV_IPC_SEND) {
		bool display = kind == ARGUS_OBJ_DISPLAY ||
		               ((kind == ARGUS_OBJ_UNIX || kind == ARGUS_OBJ_SOCKETPAIR) &&
		                in_list(x_servers, p->comm));
		if (!display || !ev->ipc.peer_obj)
			return;
		struct conn *c = conn_get(t, ev->ipc.peer_obj, true);
		if (!c)
			return;
		t->st.display_sends++;
		c->last_send = ev->ts;
		if (!c->pending_since)
			c->pending_since = ev->ts;
		if (c->reader && !t->uts[c->reader - 1].dead)
			set_pending(t, &t->uts[c->reader - 1], c->pending_since);
		return;
	}
	if (server)
		return;
	struct conn *c = conn_get(t, ev->ipc.obj, kind == ARGUS_OBJ_DISPLAY);
	if (!c)
		return;
	struct uthr *u = uthr_get(t, ev->tid);
	if (ev->type == ARGUS_EV_IPC_SEND) {
		/* a client talking to the server: a GUI process, and (until a
		 * reader shows up) its UI thread candidate for launch stalls */
		if (!u && !c->reader) {
			u = uthr_make(t, ev->pid, ev->tid);
			if (u)
				u->conn = c->obj;
		}
		return;
	}
	if (!u)
		u = uthr_make(t, ev->pid, ev->tid);
	if (!u)
		return;
	u->conn = c->obj;
	u->dead = false;
	c->reader = (uint32_t)(u - t->uts) + 1;
	if (ev->ipc.ret > 0) {
		consume(t, u, c->pending_since);
		return;
	}
	/* a read that found nothing (EAGAIN), begun after the server's latest
	 * send had ended: what it sent was read already (records are stamped
	 * at syscall exit, so a receive can come before the send it read) */
	bool read_already = c->pending_since && ev->ts - ev->ipc.dur_ns >= c->last_send;
	if (read_already)
		c->pending_since = u->pending_since = 0;
	/* the connection is drained, the thread is back in its loop (no hooks
	 * to say so) */
	if ((!u->hooks && u->busy_since) || (read_already && !u->busy_since))
		maybe_end(t, u);
}

/* A UI thread (or its process) exited: whatever it had pending is gone
 * with it; a stall it was in ends here. */
static void on_exit_of(struct argus_trigger *t, struct uthr *u)
{
	if (u->fired)
		episode_end(t, u);
	u->pending_since = u->busy_since = 0;
	u->fired = false;
	u->depth = 0;
	u->dead = true;
	struct conn *c = conn_get(t, u->conn, false);
	if (c && c->reader == (uint32_t)(u - t->uts) + 1) {
		c->reader = 0;
		c->pending_since = 0;
	}
}

static void on_event(struct argus_trigger *t, const struct argus_event *ev)
{
	struct uthr *u;
	switch (ev->type) {
	case ARGUS_EV_PROC_FORK:
		proc_name(proc_get(t, ev->fork.child_pid, true), ev->fork.comm);
		return;
	case ARGUS_EV_THREAD_NEW: /* named after its creator until it renames itself */
		thread_name(t, ev->fork.child_pid, ev->fork.child_tid, ev->fork.comm);
		return;
	case ARGUS_EV_PROC_EXEC: {
		struct proc *p = proc_get(t, ev->pid, true);
		proc_name(p, ev->exec.comm);
		if (p)
			p->exec_seen = true;
		return;
	}
	case ARGUS_EV_COMM:
		if (ev->comm.is_process || ev->pid == ev->tid)
			proc_name(proc_get(t, ev->pid, true), ev->comm.comm);
		else
			thread_name(t, ev->pid, ev->tid, ev->comm.comm);
		return;
	case ARGUS_EV_IPC_SEND:
	case ARGUS_EV_IPC_RECV:
		on_ipc(t, ev);
		return;
	case ARGUS_EV_THREAD_EXIT:
		if ((u = uthr_get(t, ev->tid)))
			on_exit_of(t, u);
		return;
	case ARGUS_EV_PROC_EXIT:
		for (uint32_t i = 0; i < t->nuts; i++)
			if (t->uts[i].pid == ev->pid)
				on_exit_of(t, &t->uts[i]);
		return;
	case ARGUS_EV_UI_INPUT:
		u = uthr_make(t, ev->pid, ev->tid);
		if (!u)
			return;
		u->dead = false;
		if (ev->ui.obj && !u->conn)
			u->conn = ev->ui.obj;
		if (ev->ui.kind == ARGUS_UI_MAP) {
			struct proc *p = proc_get(t, ev->pid, true);
			if (p)
				p->mapped = true;
			return;
		}
		consume(t, u, ev->ui.pending_since_ns);
		return;
	case ARGUS_EV_SCHED_SWITCH:
		if ((u = uthr_get(t, ev->tid))) {
			if (u->on_cpu && episode_start(u))
				u->oncpu_acc += ev->ts - u->on_since;
			u->on_cpu = false;
			if (ev->sched_switch.prev_state != 0) {
				u->blocked = true;
				u->blocked_since = ev->ts;
				u->wait_nr = u->last_nr;
			}
		}
		if ((u = uthr_get(t, ev->sched_switch.next_tid))) {
			if (u->blocked && episode_start(u))
				u->blocked_acc += ev->ts - u->blocked_since;
			u->blocked = false;
			u->on_cpu = true;
			u->on_since = ev->ts;
			if (u->fired && u->stall.cause == ARGUS_CAUSE_LAUNCH)
				episode_end(t, u);
		}
		return;
	case ARGUS_EV_SCHED_WAKEUP:
		if ((u = uthr_get(t, ev->wakeup.wakee_tid)) && u->blocked) {
			if (episode_start(u))
				u->blocked_acc += ev->ts - u->blocked_since;
			u->blocked = false;
			if (u->fired && u->stall.cause == ARGUS_CAUSE_LAUNCH)
				episode_end(t, u);
		}
		return;
	default:
		break;
	}
	if (!(u = uthr_get(t, ev->tid)))
		return;
	switch (ev->type) {
	case ARGUS_EV_SYS_ENTER: {
		unsigned nr = ev->sys_enter.nr;
		u->last_nr = (uint16_t)nr;
		if (nr == ARGUS_NR_sched_yield)
			u->yields++;
		else if (poll_family(nr) && ev->sys_enter.arg0 == 0)
			u->zero_polls++;
		else if (poll_family(nr) && !u->hooks && u->busy_since)
			/* no hooks: a waiting poll is the loop (input still
			 * unread keeps the episode going) */
			maybe_end(t, u);
		return;
	}
	case ARGUS_EV_FUTEX_WAIT:
		u->last_nr = ARGUS_NR_futex;
		return;
	case ARGUS_EV_SYS_EXIT:
		u->last_nr = NO_NR;
		return;
	case ARGUS_EV_DISPATCH_BEGIN:
	case ARGUS_EV_ASYNC_RUN_BEGIN:
		u->hooks = true;
		if (!u->depth++)
			set_busy(t, u, ev->ts, ARGUS_CAUSE_DISPATCH);
		return;
	case ARGUS_EV_DISPATCH_END:
	case ARGUS_EV_ASYNC_RUN_END:
		u->hooks = true;
		if (u->depth)
			u->depth--;
		if (!u->depth)
			loop_back(t, u);
		return;
	case ARGUS_EV_LOOP_ITER_BEGIN:
	case ARGUS_EV_LOOP_ITER_END:
		u->hooks = true;
		u->depth = 0;
		loop_back(t, u);
		return;
	default:
		return;
	}
}

int argus_trigger_new(struct argus_trigger **tp, const struct argus_trigger_opts *opts,
                      const struct argus_trigger_cb *cb)
{
	struct argus_trigger *t = calloc(1, sizeof(*t));
	if (!t)
		return -1;
	if (opts)
		t->o = *opts;
	else
		argus_trigger_opts_default(&t->o);
	if (cb)
		t->cb = *cb;
	*tp = t;
	return 0;
}

void argus_trigger_free(struct argus_trigger *t)
{
	if (!t)
		return;
	idmap_free(&t->pid_ix);
	idmap_free(&t->tid_ix);
	idmap_free(&t->conn_ix);
	idmap_free(&t->tname_ix);
	free(t->procs);
	free(t->tnames);
	free(t->uts);
	free(t->conns);
	free(t);
}

void argus_trigger_advance(struct argus_trigger *t, uint64_t now)
{
	if (now > t->now)
		t->now = now;
	if (t->now >= t->next_check)
		check_all(t);
}

int argus_trigger_feed(struct argus_trigger *t, const struct argus_event *ev, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		argus_trigger_advance(t, ev[i].ts);
		t->st.events++;
		on_event(t, &ev[i]);
		struct uthr *u = uthr_get(t, ev[i].tid);
		if (u)
			check(t, u);
	}
	return t->oom ? -1 : 0;
}

void argus_trigger_get_stats(const struct argus_trigger *t, struct argus_trigger_stats *st)
{
	*st = t->st;
}

size_t argus_trigger_ui_threads(const struct argus_trigger *t, struct argus_ui_thread *out,
                                size_t cap)
{
	for (uint32_t i = 0; i < t->nuts && i < cap; i++) {
		out[i].pid = t->uts[i].pid;
		out[i].tid = t->uts[i].tid;
		out[i].conn = t->uts[i].conn;
		out[i].hooks = t->uts[i].hooks;
	}
	return t->nuts;
}

const char *argus_trigger_comm(const struct argus_trigger *t, uint32_t pid)
{
	uint32_t *ix = idmap_get(&t->pid_ix, pid);
	return ix ? t->procs[*ix].comm : "";
}

const char *argus_trigger_thread_comm(const struct argus_trigger *t, uint32_t tid)
{
	uint32_t *ix = idmap_get(&t->tname_ix, tid);
	if (ix)
		return t->tnames[*ix].comm;
	return argus_trigger_comm(t, tid); /* a main thread (tid = pid), or "" */
}
