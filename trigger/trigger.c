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

#include "trigger_priv.h"

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
	if (u->on_cpu) {
		/* the busy window's time on CPU so far is kept: on_since
		 * restarts for the episode's counters only */
		uint64_t os = u->on_since > u->busy_from ? u->on_since : u->busy_from;
		if (u->busy_from && t->now > os)
			u->busy_oncpu += t->now - os;
		u->on_since = t->now;
	}
	if (u->blocked)
		u->blocked_since = t->now;
}

void trg_set_busy(struct argus_trigger *t, struct uthr *u, uint64_t since, uint8_t cause)
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

void trg_set_pending(struct argus_trigger *t, struct uthr *u, uint64_t since)
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
static void episode_end_at(struct argus_trigger *t, struct uthr *u, uint64_t now)
{
	uint64_t start = episode_start(u);
	u->wait_at = 0;
	if (u->fired && u->sat)
		return; /* busy without a wait: it ends when the thread waits */
	if (u->fired && u->stall.cause == ARGUS_CAUSE_LAUNCH)
		start = u->stall.since;
	if (!start && !u->fired)
		return;
	if (u->fired) {
		u->stall.end = now;
		/* input that came during the stall and is still waiting (a
		 * launch stall ends when the thread runs again, before it reads
		 * what the server sent meanwhile) counts from here: one hang,
		 * one stall */
		u->resumed = now;
		t->st.stalls_ended++;
		if (t->cb.stall_end)
			t->cb.stall_end(t->cb.arg, &u->stall);
		/* the thread must wait before the busy rule can fire again:
		 * the same hang may go on after an early end */
		u->busy_from = t->now;
		u->busy_blocked = 0;
		u->busy_yields = 0;
		u->busy_probation = true;
	}
	if (start && now - start >= t->o.lag_ns) {
		struct argus_lag l = {.pid = u->pid, .tid = u->tid, .start = start, .end = now};
		t->st.lags++;
		if (t->cb.lag)
			t->cb.lag(t->cb.arg, &l);
	}
	u->pending_since = u->busy_since = 0;
	u->fired = false;
}

void trg_episode_end(struct argus_trigger *t, struct uthr *u)
{
	episode_end_at(t, u, t->now);
}

/* A stalled thread without hooks entered a waiting poll at u->wait_at: it
 * is back in its loop if the poll waits (it blocks, times out, or took
 * time); one that returns at once with work ready is the same work going
 * on (Qt's processEvents between phases), the same stall. */
static void wait_settled(struct argus_trigger *t, struct uthr *u, bool waited)
{
	uint64_t at = u->wait_at;
	u->wait_at = 0;
	if (waited && !u->pending_since && !u->depth)
		episode_end_at(t, u, at);
}

void trg_maybe_end(struct argus_trigger *t, struct uthr *u)
{
	if (!u->pending_since && !u->depth)
		trg_episode_end(t, u);
}

/* The UI thread is back in its event loop. A stall ends here; input that
 * queued up during it counts from now (the app answers again). */
static void loop_back(struct argus_trigger *t, struct uthr *u)
{
	if (u->fired && u->stall.cause != ARGUS_CAUSE_LAUNCH) {
		/* back for a moment with input still waiting: between phases of
		 * the same work, the same stall; it ends once that input is
		 * handled too */
		if (u->pending_since) {
			u->busy_since = 0;
			return;
		}
		trg_episode_end(t, u);
		u->resumed = t->now;
		return;
	}
	if (!u->pending_since)
		trg_episode_end(t, u);
	u->busy_since = 0;
}

static void fire(struct argus_trigger *t, struct uthr *u, uint64_t since, uint8_t cause)
{
	struct argus_stall *s = &u->stall;
	struct proc *p = trg_proc_get(t, u->pid, false);
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
	if (u->sat) {
		/* busy without a wait: on CPU (or runnable) since busy_from */
		uint64_t os = u->on_since > since ? u->on_since : since;
		s->blocked_ns = u->busy_blocked;
		s->oncpu_ns = u->busy_oncpu + (u->on_cpu && t->now > os ? t->now - os : 0);
		s->yields = u->busy_yields;
		s->zero_polls = 0;
		s->cls = u->busy_yields >= t->o.yield_min ? ARGUS_STALL_YIELD_LOOP
		                                          : ARGUS_STALL_LONG_RUNNING;
	}
	u->fired = true;
	t->st.stalls++;
	if (t->cb.stall)
		t->cb.stall(t->cb.arg, s);
}

/* A process with a window: it mapped one (hooks), or it read an event the
 * server sent it. A client without one (xdotool, xprop, a script's helper)
 * gets replies to its requests, and events every client gets (a keymap's
 * MappingNotify after xdotool remaps a key): a windowless script blocked
 * in wait4 left those unread and was taken for a stalled app. Input it
 * leaves unread is no app's stall. */
static bool windowed(const struct argus_trigger *t, const struct uthr *u)
{
	uint32_t *ix = idmap_get(&t->pid_ix, u->pid);
	if (ix && t->procs[*ix].mapped)
		return true;
	ix = idmap_get(&t->conn_ix, u->conn);
	return ix && t->conns[*ix].events;
}

/* A poll on one socket to another process (not the display): waiting for a
 * peer's answer (libdbus's blocking call), not for the loop's sources. */
static bool polls_a_peer(const struct uthr *u)
{
	uint8_t k = u->wait_pkind;
	return u->wait_pobj && u->wait_pobj != u->conn &&
	       (k == ARGUS_OBJ_UNIX || k == ARGUS_OBJ_SOCKETPAIR || k == ARGUS_OBJ_TCP);
}

/* A poll on its own wake-up object alone (an eventfd, a pipe) right after
 * it woke another thread of its process through that thread's: a call
 * handed to a worker, waiting for its answer (GTK's synchronous GDBus
 * call: the main thread wakes its gdbus thread, which talks to the bus,
 * and polls the call's private context), not its loop's idle wait. */
static bool awaits_a_worker(const struct uthr *u)
{
	uint8_t k = u->wait_pkind;
	return u->wait_handed && u->wait_pobj && (k == ARGUS_OBJ_EVENTFD || k == ARGUS_OBJ_PIPE);
}

/* Launch: a process started in the stream, connected to the display, no
 * window yet (no map from the hooks, no event from the server), its UI
 * thread blocked: not in its loop's wait, which looks the same before a
 * window manager or a user sends it anything: a poll on several fds or on
 * its own wake-up fd, or its loop's futex (threaded Tcl). A poll on one
 * socket to a peer counts, and one on its own wake-up fd right after it
 * handed a call to a worker (awaits_a_worker). A sleep does not. Replies it read do not end the
 * launch: every toolkit reads some before its first window. A stopped thread (SIGSTOP, a debugger)
 * waits for no one: a service stopped at start-up is a root cause, not an app launching. */
static bool launching(const struct argus_trigger *t, const struct uthr *u)
{
	uint32_t *ix = idmap_get(&t->pid_ix, u->pid);
	const struct proc *p = ix ? &t->procs[*ix] : NULL;
	if (!p || !p->exec_seen || u->stopped || windowed(t, u))
		return false;
	/* launch is the process's: once a thread of it has a window, no
	 * thread of it is launching (a worker's hand-off to the gdbus thread,
	 * geany's dconf worker in argus bench quiet) */
	for (uint32_t i = 0; i < t->nuts; i++)
		if (t->uts[i].pid == u->pid && &t->uts[i] != u && windowed(t, &t->uts[i]))
			return false;
	/* a start-up: blocked within LAUNCH_WITHIN_NS of its exec */
	if (u->blocked_since > p->exec_ts + LAUNCH_WITHIN_NS)
		return false;
	/* a sleep waits for no one: a scripted X client's delay (xdotool
	 * sleep, key --delay) before any window, not a launch blocked on a
	 * service; a wait for a child (wait4, waitid) is a script or a
	 * launcher waiting for a program it ran, and a read of a pipe, a
	 * terminal or a file a script reading its input: an app's start-up
	 * waits for a service (a socket's peer, a worker, a lock) */
	unsigned w = argus_syscall_wait(u->wait_nr);
	if (w == ARGUS_SYSW_SLEEP || w == ARGUS_SYSW_CHILD)
		return false;
	if (w == ARGUS_SYSW_READ && u->wait_okind != ARGUS_OBJ_UNIX &&
	    u->wait_okind != ARGUS_OBJ_SOCKETPAIR && u->wait_okind != ARGUS_OBJ_TCP &&
	    u->wait_okind != ARGUS_OBJ_DISPLAY)
		return false;
	if (poll_family(u->wait_nr))
		return polls_a_peer(u) || awaits_a_worker(u);
	if (u->wait_nr == ARGUS_NR_futex &&
	    (same_cond(u->wait_futex, u->loop_futex) || same_cond(u->wait_futex, u->cand_futex)))
		return false;
	return true;
}

static void check_episode(struct argus_trigger *t, struct uthr *u);
void trg_busy_open(struct uthr *u, uint64_t at, bool probation);

/* u waits in its loop for the first time: its start-up is over; input
 * still waiting and work still going on count from here (a stall is the
 * app's, not its start-up's) */
static void started(struct uthr *u, uint64_t ts)
{
	u->looped = true;
	u->resumed = ts;
	if (u->pending_since && u->pending_since < ts)
		u->pending_since = ts;
	if (u->busy_since && u->busy_since < ts)
		u->busy_since = ts;
	if (u->busy_from && u->busy_from < ts)
		trg_busy_open(u, ts, u->busy_probation);
}

/* The wait u is blocked in is its loop's: a poll that is no round trip
 * (the display connection alone right after its own request) nor a call to
 * a peer, or its loop's futex (threaded Tcl). Not another futex: xcb hands
 * a reply to the thread waiting for it through one (Qt's main thread), a
 * thread starting up waits for its helpers on others. */
static bool loop_wait(const struct uthr *u)
{
	if (poll_family(u->wait_nr))
		return !(u->wait_pobj == u->conn && u->sent_req) && !polls_a_peer(u);
	return u->wait_nr == ARGUS_NR_futex &&
	       (same_cond(u->wait_futex, u->loop_futex) || same_cond(u->wait_futex, u->cand_futex));
}

/* Busy without a wait (docs/diagnosis.md): a UI thread that has not waited
 * for stall_ns - blocked at most a quarter of the time, never lag_ns in one
 * go - while an event came to it (someone waits for it) is stalled, whatever it read
 * or polled meanwhile (events pumped inside the work, the toolkit's round
 * trips to the server end no hang). Threads with hooks say where their
 * dispatches end; a reader that never draws relays; a thread never idle in
 * its loop yet is starting up. Judged in windows: the one an event opened,
 * then (a stall fired, or on probation after another stall's end)
 * consecutive windows of stall_ns / 4. */
void trg_busy_open(struct uthr *u, uint64_t at, bool probation)
{
	u->busy_from = at;
	u->busy_blocked = 0;
	u->busy_oncpu = 0;
	u->busy_yields = 0;
	u->busy_probation = probation;
	u->busy_evt = false;
}

/* The wait u blocked in was its loop's, with the display connection among
 * what it waits for: a poll on several fds (GLib's and Qt's loops poll their
 * wake-up fd and the connection), an epoll or select wait, or its loop's
 * futex. Not a poll on one fd: xcb waiting for a reply polls the connection
 * alone, also when a poll before it took the reply's first bytes and no
 * request came between (sent_req, loop_wait's test, is then false). */
static bool loop_came_round(const struct uthr *u)
{
	if (!u->wait_loop)
		return false;
	if (u->wait_nr != ARGUS_NR_poll && u->wait_nr != ARGUS_NR_ppoll)
		return true;
	/* traces of before the count: a poll's object names its one fd */
	return u->wait_pnfds > 1 || (!u->wait_pnfds && !u->wait_pobj);
}

/* a wait of u ended at ts: the part inside the window counts; one of
 * lag_ns shows it idle in its loop (it has started up) */
static void busy_unblock(struct argus_trigger *t, struct uthr *u, uint64_t ts)
{
	if (ts >= u->wait_since + t->o.lag_ns)
		u->idle_once = true;
	/* an app animating (a frame clock: GTK 4's blinking cursor) is idle
	 * between frames, a few ms at a time: half of a stretch of lag_ns
	 * spent in its loop's wait (no round trip, call or helper's futex) */
	if (u->wait_loop && ts > u->wait_since) {
		if (!u->idle_from || ts > u->idle_from + t->o.lag_ns) {
			u->idle_from = u->wait_since;
			u->idle_loop = 0;
		}
		u->idle_loop += ts - u->wait_since;
		if (u->idle_loop * 2 >= t->o.lag_ns)
			u->idle_once = true;
	}
	/* it blocked in its loop's own wait, entered inside the window, within
	 * half the threshold of its last time round: the loop came round with
	 * nothing ready, so what came before was handled, in time (an app busy
	 * in frames or idle steps answers between them); the window closes and
	 * a new one opens below. A loop that stayed away longer left input
	 * waiting that long: such stretches back to back are one freeze, the
	 * window goes on. A window an event opened during that wait keeps it:
	 * the work the event starts counts. A fired stall keeps its own end
	 * (busy_check). */
	if (loop_came_round(u)) {
		bool soon = u->round_at && u->wait_since >= u->round_at &&
		            u->wait_since - u->round_at < t->o.stall_ns / 2;
		if (soon && u->busy_from && u->wait_since >= u->busy_from &&
		    !(u->fired && u->sat)) {
			u->busy_from = 0;
			u->busy_probation = false;
		}
		u->round_at = ts;
	}
	uint64_t ws = u->wait_since > u->busy_from ? u->wait_since : u->busy_from;
	if (u->busy_from && ts > ws)
		u->busy_blocked += ts - ws;
	/* no window open (the last one saw it wait): one opens as it runs
	 * again, so an event that comes later finds the work already going
	 * on counted from its start, not from the event */
	if (!u->busy_from)
		trg_busy_open(u, ts, false);
}

static void busy_check(struct argus_trigger *t, struct uthr *u)
{
	uint64_t from = u->busy_from;
	if (!from || t->now < from)
		return;
	uint64_t el = t->now - from, ws = u->wait_since > from ? u->wait_since : from;
	uint64_t cur = u->blocked ? t->now - ws : 0, bl = u->busy_blocked + cur;
	if (cur >= t->o.lag_ns)
		u->idle_once = true;
	/* back in its loop: a wait of lag_ns in one go; before a stall, a
	 * quarter of the time waited; once stalled (or on probation after a
	 * stall), half of a window of stall_ns / 4: work that goes on in
	 * chunks (a layout validated in idle steps) stays one stall */
	bool rolling = u->busy_probation || (u->fired && u->sat);
	uint64_t win = rolling ? t->o.stall_ns / 4 : BUSY_JUDGE_NS;
	if (cur >= t->o.lag_ns || (el >= win && bl * (rolling ? 2 : 4) > el)) {
		if (u->fired && u->sat) {
			uint64_t at = cur >= t->o.lag_ns ? ws : from;
			u->sat = false;
			u->pending_since = 0;
			u->busy_since = u->stall.since;
			episode_end_at(t, u, at);
			u->resumed = at;
		}
		u->busy_from = 0;
		u->busy_probation = false;
		/* running now (it waited a quarter of the window in short
		 * waits, not one long one): the next window starts here */
		if (!u->blocked)
			trg_busy_open(u, t->now, false);
		return;
	}
	if (rolling && el >= win) {
		trg_busy_open(u, t->now, u->busy_probation);
		return;
	}
	/* a thread never yet idle in its loop (never a wait of lag_ns, or
	 * none in its loop's wait) is still starting up: the launch rule's;
	 * one that ran less than half the time waited for a
	 * CPU most of the rest: the machine's load, not its own work, kept it
	 * from its loop */
	uint64_t os = u->on_since > from ? u->on_since : from;
	uint64_t oncpu = u->busy_oncpu + (u->on_cpu && t->now > os ? t->now - os : 0);
	if (u->fired || el < t->o.stall_ns || !u->busy_evt || u->hooks || !u->asks ||
	    !u->idle_once || !u->looped || oncpu * 2 < el || !windowed(t, u))
		return;
	u->sat = true;
	fire(t, u, from, ARGUS_CAUSE_INPUT);
	trg_busy_open(u, t->now, false);
}

static void check(struct argus_trigger *t, struct uthr *u)
{
	if (u->dead)
		return;
	if (!u->fired)
		check_episode(t, u);
	busy_check(t, u);
}

static void check_episode(struct argus_trigger *t, struct uthr *u)
{
	uint64_t start = episode_start(u);
	/* a thread without hooks that never waited in its loop yet is
	 * starting up (the replies it reads are no input): the launch rule's.
	 * Seven apps starting at once under load: a Qt main thread built its
	 * windows for 5 s after its last read, its event thread reading the
	 * replies for it. */
	/* a window seen only now (the first event read): what waited
	 * before was no app's input, it counts from here */
	uint64_t from = start;
	uint32_t *cx = idmap_get(&t->conn_ix, u->conn);
	if (cx && t->conns[*cx].events_at > from)
		from = t->conns[*cx].events_at;
	if (start && t->now >= from + t->o.stall_ns && windowed(t, u) && (u->hooks || u->looped)) {
		uint8_t cause = ARGUS_CAUSE_INPUT;
		if (u->busy_since == start)
			cause = u->busy_cause;
		fire(t, u, start, cause);
		return;
	}
	/* a reply read before the first window opened an episode that is no
	 * stall (no window): the launch rule decides. A stall's end resumes
	 * the thread: a wait recorded as begun before it (records late under
	 * load, the tick ahead of them) counts from that end, so no second
	 * stall of the same start */
	uint64_t blocked_from = u->blocked_since > u->resumed ? u->blocked_since : u->resumed;
	if (u->blocked && t->now >= blocked_from + t->o.launch_ns && launching(t, u)) {
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
void trg_consume(struct argus_trigger *t, struct uthr *u, uint64_t since)
{
	u->input_seen = true;
	/* the futex wait this input ended: input sent while the thread waited
	 * there, read within LOOP_WAKE_NS (its loop's wait is what input wakes
	 * it from; a handler's futex wait that a peer or a timeout ends later
	 * is not) */
	if (u->wait_nr == ARGUS_NR_futex && u->wait_futex && since && since >= u->blocked_since &&
	    t->now - since < LOOP_WAKE_NS) {
		if (same_cond(u->wait_futex, u->cand_futex))
			u->loop_futex = u->wait_futex;
		u->cand_futex = u->wait_futex;
	}
	uint64_t from = since ? since : t->now;
	if (u->pending_since && u->pending_since < from)
		from = u->pending_since;
	u->pending_since = 0;
	struct conn *c = trg_conn_get(t, u->conn, false);
	if (c) {
		c->pending_since = 0;
		/* the first event it reads shows a window (windowed()); what it
		 * left unread before was no app's input: it counts from here (a
		 * windowless script that reads a MappingNotify late is no stall) */
		if (c->unread_event && !c->events) {
			c->events = true;
			c->events_at = t->now;
		}
		c->unread_event = false;
	}
	trg_set_busy(t, u, from, ARGUS_CAUSE_INPUT);
}

static void on_event(struct argus_trigger *t, const struct argus_event *ev)
{
	struct uthr *u;
	switch (ev->type) {
	case ARGUS_EV_PROC_FORK:
		trg_task_new(t, ev->fork.child_pid, ev->fork.child_tid, true);
		trg_proc_name(trg_proc_get(t, ev->fork.child_pid, true), ev->fork.comm);
		return;
	case ARGUS_EV_THREAD_NEW: /* named after its creator until it renames itself */
		trg_task_new(t, ev->fork.child_pid, ev->fork.child_tid, false);
		trg_thread_name(t, ev->fork.child_pid, ev->fork.child_tid, ev->fork.comm);
		return;
	case ARGUS_EV_PROC_EXEC: {
		struct proc *p = trg_proc_get(t, ev->pid, true);
		trg_proc_name(p, ev->exec.comm);
		if (p) {
			p->exec_seen = true;
			p->exec_ts = ev->ts;
		}
		return;
	}
	case ARGUS_EV_COMM:
		if (ev->comm.is_process || ev->pid == ev->tid)
			trg_proc_name(trg_proc_get(t, ev->pid, true), ev->comm.comm);
		else
			trg_thread_name(t, ev->pid, ev->tid, ev->comm.comm);
		return;
	case ARGUS_EV_IPC_SEND:
	case ARGUS_EV_IPC_RECV:
		trg_on_ipc(t, ev);
		return;
	case ARGUS_EV_THREAD_EXIT:
		if ((u = trg_uthr_get(t, ev->tid)))
			trg_on_exit_of(t, u);
		trg_exited(t, 0, ev->tid, ev->ts);
		return;
	case ARGUS_EV_PROC_EXIT:
		/* its display connections end with it: the kernel may reuse both
		 * ends' memory for a socketpair at once (firefox's fork server
		 * and its parent got an exited xdotool's two addresses 0.27 s
		 * later, and no connect record says it: a realapps r2 trace of
		 * 2026-11-26 09:01 had the fork server as a launching app) */
		for (uint32_t i = 0; i < t->nuts; i++)
			if (t->uts[i].pid == ev->pid) {
				trg_on_exit_of(t, &t->uts[i]);
				trg_conn_forget(t, t->uts[i].conn);
			}
		trg_exited(t, ev->pid, ev->tid, ev->ts);
		return;
	case ARGUS_EV_UI_INPUT:
		u = trg_uthr_make(t, ev->pid, ev->tid);
		if (!u)
			return;
		u->dead = false;
		if (ev->ui.obj && !u->conn)
			u->conn = ev->ui.obj;
		if (ev->ui.kind == ARGUS_UI_MAP) {
			struct proc *p = trg_proc_get(t, ev->pid, true);
			if (p)
				p->mapped = true;
			return;
		}
		trg_consume(t, u, ev->ui.pending_since_ns);
		return;
	case ARGUS_EV_SCHED_SWITCH:
		if ((u = trg_uthr_get(t, ev->tid))) {
			if (u->on_cpu && episode_start(u))
				u->oncpu_acc += ev->ts - u->on_since;
			if (u->on_cpu && u->busy_from) {
				uint64_t os =
				    u->on_since > u->busy_from ? u->on_since : u->busy_from;
				if (ev->ts > os)
					u->busy_oncpu += ev->ts - os;
			}
			u->on_cpu = false;
			if (ev->sched_switch.prev_state != 0) {
				u->blocked = true;
				u->blocked_since = ev->ts;
				u->wait_since = ev->ts;
				/* __TASK_STOPPED, __TASK_TRACED */
				u->stopped = (ev->sched_switch.prev_state & 0xc) != 0;
				u->wait_nr = u->last_nr;
				u->wait_futex = u->last_nr == ARGUS_NR_futex ? u->last_futex : 0;
				u->wait_pobj = u->last_pobj;
				u->wait_pkind = u->last_pkind;
				u->wait_pnfds = u->last_pnfds;
				u->wait_okind = u->last_okind;
				u->wait_handed = u->handed;
				bool lw = loop_wait(u);
				/* idle there: not a call handed to a worker */
				u->wait_loop = lw && !awaits_a_worker(u);
				if (!u->looped && lw)
					started(u, ev->ts);
				u->sent_req = false;
				if (u->wait_at)
					wait_settled(t, u, true);
			}
		}
		if ((u = trg_uthr_get(t, ev->sched_switch.next_tid))) {
			if (u->blocked && episode_start(u))
				u->blocked_acc += ev->ts - u->blocked_since;
			if (u->blocked)
				busy_unblock(t, u, ev->ts);
			u->blocked = false;
			u->on_cpu = true;
			u->on_since = ev->ts;
			if (u->fired && u->stall.cause == ARGUS_CAUSE_LAUNCH)
				trg_episode_end(t, u);
		}
		return;
	case ARGUS_EV_SCHED_WAKEUP:
		t->wake_ts = ev->ts;
		t->wake_waker = ev->tid;
		t->wake_pid = ev->wakeup.wakee_pid;
		t->wake_tid = ev->wakeup.wakee_tid;
		if ((u = trg_uthr_get(t, ev->wakeup.wakee_tid)) && u->blocked) {
			if (episode_start(u))
				u->blocked_acc += ev->ts - u->blocked_since;
			busy_unblock(t, u, ev->ts);
			u->blocked = false;
			if (u->fired && u->stall.cause == ARGUS_CAUSE_LAUNCH)
				trg_episode_end(t, u);
		}
		return;
	default:
		break;
	}
	if (ev->type == ARGUS_EV_SYS_ENTER)
		trg_on_connect(t, ev);
	if (!(u = trg_uthr_get(t, ev->tid)))
		return;
	switch (ev->type) {
	case ARGUS_EV_SYS_ENTER: {
		unsigned nr = ev->sys_enter.nr;
		u->last_nr = (uint16_t)nr;
		u->last_pobj = poll_family(nr) ? ev->sys_enter.obj : 0;
		u->last_pkind = poll_family(nr) ? ev->sys_enter.obj_kind : 0;
		u->last_pnfds =
		    poll_family(nr) && ev->sys_enter.arg1 > 0 ? (uint32_t)ev->sys_enter.arg1 : 0;
		u->last_okind = ev->sys_enter.obj_kind;
		u->zero_poll = false;
		if (nr == ARGUS_NR_sched_yield) {
			u->yields++;
			u->busy_yields++;
		} else if (poll_family(nr) && ev->sys_enter.arg0 == 0)
			u->zero_poll = true; /* a spin if it finds nothing */
		else if (poll_family(nr) && !u->hooks && u->busy_since) {
			/* no hooks: a waiting poll is the loop (input still
			 * unread keeps the episode going) */
			if (u->fired && u->stall.cause != ARGUS_CAUSE_LAUNCH)
				u->wait_at = ev->ts;
			else
				trg_maybe_end(t, u);
		}
		return;
	}
	case ARGUS_EV_FUTEX_WAIT:
		u->last_nr = ARGUS_NR_futex;
		u->last_pobj = 0;
		u->last_pnfds = 0;
		u->last_okind = ARGUS_OBJ_FUTEX;
		u->last_futex = ev->futex.uaddr;
		/* a stalled thread whose loop waits on a futex: back in its
		 * loop if it waits there (settled at the switch or the exit) */
		if (same_cond(ev->futex.uaddr, u->loop_futex) && !u->hooks && u->fired &&
		    u->stall.cause != ARGUS_CAUSE_LAUNCH)
			u->wait_at = ev->ts;
		return;
	case ARGUS_EV_SYS_EXIT:
		u->last_nr = NO_NR;
		if (poll_family(ev->sys_exit.nr))
			u->handed = false; /* the answer came, or the wait ended */
		/* a zero-timeout poll that found work is a loop checking its
		 * sources between busy moments (Qt's, GLib's), not a spin */
		if (u->zero_poll && poll_family(ev->sys_exit.nr) && ev->sys_exit.ret == 0)
			u->zero_polls++;
		u->zero_poll = false;
		if (u->wait_at && poll_family(ev->sys_exit.nr))
			wait_settled(
			    t, u, ev->sys_exit.ret <= 0 || ev->sys_exit.dur_ns >= CHECK_EVERY_NS);
		else if (u->wait_at && ev->sys_exit.nr == ARGUS_NR_futex)
			wait_settled(t, u, ev->sys_exit.dur_ns >= CHECK_EVERY_NS);
		return;
	case ARGUS_EV_DISPATCH_BEGIN:
	case ARGUS_EV_ASYNC_RUN_BEGIN:
		u->hooks = true;
		if (!u->depth++)
			trg_set_busy(t, u, ev->ts, ARGUS_CAUSE_DISPATCH);
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
	idmap_free(&t->waker_ix);
	idmap_free(&t->dialed_ix);
	free(t->procs);
	free(t->tnames);
	free(t->uts);
	free(t->conns);
	free(t->wakers);
	free(t);
}

void argus_trigger_advance(struct argus_trigger *t, uint64_t now)
{
	if (now > t->now)
		t->now = now;
	if (t->now >= t->next_sweep)
		trg_sweep(t);
	if (t->now >= t->next_check)
		check_all(t);
}

bool argus_trigger_waiting(const struct argus_trigger *t)
{
	for (uint32_t i = 0; i < t->nuts; i++) {
		const struct uthr *u = &t->uts[i];
		if (!u->dead && (episode_start(u) || u->fired || u->busy_from || !u->looped))
			return true;
	}
	return false;
}

uint64_t argus_trigger_oldest_episode(const struct argus_trigger *t)
{
	uint64_t oldest = 0;
	for (uint32_t i = 0; i < t->nuts; i++) {
		const struct uthr *u = &t->uts[i];
		uint64_t at = u->dead ? 0 : u->fired ? u->stall.since : episode_start(u);
		if (at && (!oldest || at < oldest))
			oldest = at;
	}
	return oldest;
}

int argus_trigger_feed(struct argus_trigger *t, const struct argus_event *ev, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		argus_trigger_advance(t, ev[i].ts);
		t->st.events++;
		on_event(t, &ev[i]);
		struct uthr *u = trg_uthr_get(t, ev[i].tid);
		if (u)
			check(t, u);
	}
	return t->oom ? -1 : 0;
}

void argus_trigger_get_stats(const struct argus_trigger *t, struct argus_trigger_stats *st)
{
	*st = t->st;
	st->procs_kept = t->nprocs;
	st->threads_named = t->ntnames;
	st->conns_kept = t->nconns;
	st->ui_kept = t->nuts;
	st->wakers_kept = t->nwakers;
}
