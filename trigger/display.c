/*
 * display.c - the display connections, as the trigger sees them: which
 * thread reads each client's connection (its UI thread), what the server
 * writes to it (input pending, or replies to its requests), connects and
 * exits that retire a connection, and wake-ups on the objects the UI
 * threads wait on. The episodes and the stall rules are trigger.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "trigger_priv.h"

/* u reads connection c. Whichever thread waits reads (Xlib, xcb: a thread
 * waiting for a reply reads while the event thread polls), so input that
 * was pending for the last reader is read by this one: it must not stay
 * pending for that one. */
static void take_reader(struct argus_trigger *t, struct conn *c, struct uthr *u)
{
	uint32_t me = (uint32_t)(u - t->uts) + 1;
	if (c->reader && c->reader != me) {
		struct uthr *o = &t->uts[c->reader - 1];
		o->pending_since = 0;
		if (!o->busy_since && !o->depth)
			trg_episode_end(t, o);
	}
	c->reader = me;
}

/* An eventfd or pipe of a GUI process. Its reader is learned from reads;
 * a display reader that only reads (it never wrote a request: it neither
 * draws nor dispatches) and, with input read and not yet back in its loop,
 * writes one that another thread of its process reads relays the input to
 * that thread (Qt: QXcbEventQueue reads X, wakes the main thread, which
 * dispatches): the episode is that thread's too, until it is back in its
 * loop. A GTK main thread waking its GDBus worker hands it nothing. */
static uint32_t *learn_reader(struct argus_trigger *t, uint64_t obj, uint32_t pid, uint32_t tid)
{
	uint32_t *ix = idmap_get(&t->waker_ix, obj);
	if (!ix) {
		if (t->nwakers == t->cwakers) {
			struct waker *n = trg_grow(t->wakers, &t->cwakers, sizeof(*n));
			if (!n) {
				t->oom = true;
				return NULL;
			}
			t->wakers = n;
		}
		if (!idmap_put(&t->waker_ix, obj, t->nwakers)) {
			t->oom = true;
			return NULL;
		}
		ix = idmap_get(&t->waker_ix, obj);
		t->wakers[t->nwakers++].obj = obj;
	}
	t->wakers[*ix].pid = pid;
	t->wakers[*ix].tid = tid;
	return ix;
}

void trg_on_wake_obj(struct argus_trigger *t, const struct argus_event *ev)
{
	struct proc *p = trg_proc_get(t, ev->pid, false);
	if (!p || !p->gui || !ev->ipc.obj)
		return;
	if (ev->type == ARGUS_EV_IPC_RECV) {
		if (ev->ipc.ret > 0)
			learn_reader(t, ev->ipc.obj, ev->pid, ev->tid);
		return;
	}
	uint32_t *ix = idmap_get(&t->waker_ix, ev->ipc.obj);
	/* the default capture sees a read only when it blocks (an eventfd
	 * read after a poll never does): a send written after the wake-up it
	 * made (ARGUS_F_NORET, same ts) names the thread that reads */
	if ((ev->flags & ARGUS_F_NORET) && t->wake_ts == ev->ts && t->wake_waker == ev->tid &&
	    t->wake_pid == ev->pid)
		ix = learn_reader(t, ev->ipc.obj, t->wake_pid, t->wake_tid);
	struct uthr *u = trg_uthr_get(t, ev->tid);
	if (!ix || !u)
		return;
	const struct waker *w = &t->wakers[*ix];
	if (w->pid != ev->pid || w->tid == ev->tid)
		return;
	u->handed = true;
	if (u->asks || !u->busy_since || u->busy_cause != ARGUS_CAUSE_INPUT)
		return;
	uint64_t since = u->busy_since, conn = u->conn;
	struct uthr *v = trg_uthr_make(t, w->pid, w->tid); /* may move u */
	if (!v)
		return;
	if (!v->conn)
		v->conn = conn;
	v->dead = false;
	v->input_seen = true;
	trg_set_busy(t, v, since, ARGUS_CAUSE_INPUT);
}

void trg_on_ipc(struct argus_trigger *t, const struct argus_event *ev)
{
	struct proc *p = trg_proc_get(t, ev->pid, false);
	uint8_t kind = ev->ipc.obj_kind;
	bool server = p && p->server;
	bool display =
	    server &&
	    (kind == ARGUS_OBJ_DISPLAY ||
	     ((kind == ARGUS_OBJ_UNIX || kind == ARGUS_OBJ_SOCKETPAIR) && trg_x_server(p->comm))) &&
	    ev->ipc.peer_obj && !idmap_get(&t->dialed_ix, ev->ipc.obj);
	struct uthr *h = trg_uthr_get(t, ev->tid);
	if (h)
		h->handed = false; /* on_wake_obj says whether this send hands off */
	if (server && ev->type == ARGUS_EV_IPC_SEND) {
		if (!display)
			return;
		struct conn *c = trg_conn_get(t, ev->ipc.peer_obj, true);
		if (!c)
			return;
		t->st.display_sends++;
		/* written while serving another client (or a device), to a
		 * client that sent no request since the server's previous
		 * write to it: an event, not a reply; only a client with a
		 * window gets those. A server that reads several clients'
		 * requests before it flushes their replies (seven apps
		 * starting at once) writes a reply after another client's
		 * request: the request read since that client's previous
		 * write says it is a reply. A write right after one to the
		 * same client, nothing read between, is the rest of that one
		 * (X's connection set-up reply comes in two). */
		bool event = p->last_sent == c->obj
		                 ? c->last_event
		                 : p->last_request != c->obj && c->asked <= c->last_send;
		c->last_send = ev->ts;
		c->last_event = event;
		p->last_sent = c->obj;
		if (event)
			c->unread_event = true;
		/* records are stamped at syscall exit: the reads that took
		 * these bytes can come before this write's record, and the
		 * reader then sleeps with nothing pending */
		c->sent_bytes += ev->ipc.ret > 0 ? (uint64_t)ev->ipc.ret : 0;
		bool read = c->bytes_known && c->read_bytes >= c->sent_bytes &&
		            ev->ts <= c->ahead_at + LATE_WRITE_NS;
		if (!read && c->read_bytes > c->sent_bytes)
			c->read_bytes = c->sent_bytes; /* a write argus did not count */
		if (c->read_bytes <= c->sent_bytes)
			c->ahead_at = 0;
		if (!c->pending_since && !read)
			c->pending_since = ev->ts;
		if (c->reader && !t->uts[c->reader - 1].dead) {
			struct uthr *r = &t->uts[c->reader - 1];
			if (!read)
				trg_set_pending(t, r, c->pending_since);
			if (event && !r->busy_from)
				trg_busy_open(r, ev->ts, false);
			if (event)
				r->busy_evt = true;
		}
		return;
	}
	if (server) {
		/* the end of the file: the client closed this connection (it
		 * exited, whether or not its exit was seen, or it was one of
		 * several: libatspi opens one to read a property and closes
		 * it); what it had pending is gone with it, its reader stays */
		if (ev->type == ARGUS_EV_IPC_RECV && ev->ipc.ret == 0 && ev->ipc.peer_obj &&
		    display) {
			trg_conn_forget(t, ev->ipc.peer_obj);
			return;
		}
		if (ev->type == ARGUS_EV_IPC_RECV && ev->ipc.ret > 0 && ev->ipc.peer_obj) {
			p->last_request = ev->ipc.peer_obj;
			p->last_sent = 0;
			struct conn *c = display ? trg_conn_get(t, ev->ipc.peer_obj, true) : NULL;
			if (c)
				c->asked = ev->ts;
		}
		return;
	}
	if (kind == ARGUS_OBJ_EVENTFD || kind == ARGUS_OBJ_PIPE) {
		trg_on_wake_obj(t, ev);
		return;
	}
	struct conn *c = trg_conn_get(t, ev->ipc.obj, kind == ARGUS_OBJ_DISPLAY);
	if (!c)
		return;
	struct uthr *u = trg_uthr_get(t, ev->tid);
	if (ev->type == ARGUS_EV_IPC_SEND) {
		/* a client talking to the server: a GUI process, and (until a
		 * reader shows up) its UI thread candidate for launch stalls */
		if (!u && !c->reader) {
			u = trg_uthr_make(t, ev->pid, ev->tid);
			if (u)
				u->conn = c->obj;
		}
		if (u) {
			u->asks = true;
			u->sent_req = true;
		}
		return;
	}
	if (!u)
		u = trg_uthr_make(t, ev->pid, ev->tid);
	if (!u)
		return;
	u->conn = c->obj;
	u->dead = false;
	take_reader(t, c, u);
	if (ev->ipc.ret > 0) {
		c->read_bytes += (uint64_t)ev->ipc.ret;
		if (c->read_bytes > c->sent_bytes && !c->ahead_at)
			c->ahead_at = ev->ts;
		trg_consume(t, u, c->pending_since);
		return;
	}
	/* a read that found nothing (EAGAIN), begun after the server's latest
	 * send had ended: what it sent was read already (records are stamped
	 * at syscall exit, so a receive can come before the send it read) */
	bool drained = ev->ts - ev->ipc.dur_ns >= c->last_send;
	bool read_already = c->pending_since && drained;
	/* nothing left to read: every byte written was read; bytes read past
	 * them are writes whose records are still to come (the first such read
	 * lines the counts up: what was read before argus saw the connection
	 * is no write of its) */
	if (drained && (!c->bytes_known || c->read_bytes < c->sent_bytes)) {
		c->read_bytes = c->sent_bytes;
		c->ahead_at = 0;
		c->bytes_known = true;
	}
	if (read_already)
		c->pending_since = u->pending_since = 0;
	/* the connection is drained, the thread is back in its loop (no hooks
	 * to say so); a stalled one may only be looking (gtk_events_pending
	 * in a long handler): its stall ends at its loop's wait */
	if (u->fired && u->stall.cause != ARGUS_CAUSE_LAUNCH)
		return;
	if ((!u->hooks && u->busy_since) || (read_already && !u->busy_since))
		trg_maybe_end(t, u);
}

/* A display server's connect to another's listener (the kext names the
 * listener's pid): the server is that connection's client (Xorg's to the
 * system bus, to logind), so what it sends there is no display traffic and
 * the peer - a bus daemon - is no GUI app. */
void trg_on_connect(struct argus_trigger *t, const struct argus_event *ev)
{
	if (ev->sys_enter.nr != ARGUS_NR_connect || !ev->sys_enter.obj)
		return;
	/* A connect makes a new socket: a display connection known at that
	 * address was another one's, closed (the kernel reuses the memory);
	 * what it had pending or who read it is not this socket's (a daemon's
	 * client at a dead GUI client's address was taken for a stalled app) */
	trg_conn_forget(t, ev->sys_enter.obj);
	struct proc *p = trg_proc_get(t, ev->pid, false);
	if (!(p && p->server))
		idmap_del(&t->dialed_ix, ev->sys_enter.obj);
	if (ev->sys_enter.arg0 <= 0 || (uint64_t)ev->sys_enter.arg0 == ev->pid)
		return;
	if (p && p->server && !idmap_put(&t->dialed_ix, ev->sys_enter.obj, 1))
		t->oom = true;
}

/* A UI thread (or its process) exited: whatever it had pending is gone
 * with it; a stall it was in ends here. */
void trg_on_exit_of(struct argus_trigger *t, struct uthr *u)
{
	u->sat = false;
	u->busy_from = 0;
	if (u->fired)
		trg_episode_end(t, u);
	u->pending_since = u->busy_since = 0;
	u->fired = false;
	u->depth = 0;
	u->dead = true;
	struct conn *c = trg_conn_get(t, u->conn, false);
	if (c && c->reader == (uint32_t)(u - t->uts) + 1) {
		c->reader = 0;
		c->pending_since = 0;
	}
}
