/*
 * rule_peers.c - the expected waker by IPC identity: the thread that
 * received the request a blocked reader (or a spinning thread) is waiting
 * to be answered for. rules.c lists the rules with their cases.
 */
#include <stdlib.h>
#include <string.h>

#include "diag_priv.h"

/* ---- the expected waker by IPC identity ---- */

/* The vertex that received the last IPC request a's thread sent before it
 * blocked in a read: a itself, or the segments before it that ended in the
 * same read call (a spurious wake-up - e.g. the peer reading the request
 * wakes the writer on the same socket - cuts the wait in two). */
static bool asked_by(const struct ctx *c, const struct argus_vertex_info *a, uint64_t now,
                     struct argus_vertex_info *out, bool wakes);

static bool ipc_asked(const struct ctx *c, const struct argus_vertex_info *a, uint64_t now,
                      struct argus_vertex_info *out)
{
	return asked_by(c, a, now, out, false);
}

/* wakes: a wake-up of another thread counts as the request too (a write to
 * a thread's wake-up eventfd whose read the default capture does not see:
 * it does not block after the poll that woke it) */
static bool asked_by(const struct ctx *c, const struct argus_vertex_info *a, uint64_t now,
                     struct argus_vertex_info *out, bool wakes)
{
	ssize_t ai = dg_index_of(c, a);
	if (ai < 0)
		return false;
	size_t lo, hi;
	dg_thread_range(c, a->tid, &lo, &hi);
	for (ssize_t i = ai; i >= (ssize_t)lo && i > ai - 4; i--) {
		struct argus_vertex_info s;
		if (!argus_graph_vertex(c->view, c->tv[i].vid, &s))
			break;
		/* the earlier segments of one split read (a spinning a has none) */
		if (i < ai && (!(a->flags & ARGUS_VF_WAITED) || !(s.flags & ARGUS_VF_WAITED) ||
		               s.wait_nr != a->wait_nr || s.wait_ns >= c->p->long_wait_ns))
			break;
		uint64_t best = 0;
		bool found = false;
		for (size_t k = dg_time_lower(c, dg_receivers_from(c, (size_t)i));
		     k < c->ntv && c->tt[k].start <= now; k++) {
			if (c->tt[k].tid == a->tid)
				continue;
			struct argus_edge_info in[16];
			size_t ne = argus_graph_in_edges(c->view, c->tt[k].vid, in, 16);
			for (size_t e = 0; e < ne && e < 16; e++) {
				bool wake = wakes && in[e].kind == ARGUS_EDGE_WAKEUP;
				if (in[e].src != s.id ||
				    (!wake && (in[e].strength != ARGUS_STRONG ||
				               (in[e].kind != ARGUS_EDGE_IPC &&
				                in[e].kind != ARGUS_EDGE_DBUS))) ||
				    (found && in[e].ts < best) ||
				    !argus_graph_vertex(c->view, c->tt[k].vid, out))
					continue;
				best = in[e].ts;
				found = true;
			}
		}
		if (found) {
			if (i < ai)
				dg_note(c, "ipc-peer/split-read");
			return true;
		}
	}
	return false;
}

/* The peer thread of x in [from, now]: blocked long there (out = where), or
 * silent for as long at detection (it neither ran nor answered: stuck in a
 * call whose switch-out record was lost; out = its last vertex). */
static bool peer_stuck(const struct ctx *c, const struct argus_vertex_info *x, uint64_t from,
                       uint64_t now, struct argus_vertex_info *out, bool *silent)
{
	size_t lo, hi;
	bool any = false;
	dg_thread_range(c, x->tid, &lo, &hi);
	*silent = false;
	for (size_t i = lo; i < hi && c->tv[i].start <= now; i++) {
		struct argus_vertex_info v;
		if (c->tv[i].start < x->start || !argus_graph_vertex(c->view, c->tv[i].vid, &v))
			continue;
		uint64_t w = dg_wait_len(c, &v, now);
		uint64_t b0 = v.end > from ? v.end : from, b1 = v.end + w < now ? v.end + w : now;
		if (w && v.end <= now && b1 > b0 && b1 - b0 >= c->p->long_wait_ns)
			return *out = v, true;
		*out = v;
		any = true;
	}
	if (any && out->end < now && now - out->end >= c->p->long_wait_ns &&
	    !(out->flags & ARGUS_VF_WAITED)) {
		dg_note(c, "ipc-peer/silent-peer");
		return *silent = true;
	}
	return false;
}

/* Whether v's last send went unread until now: its expected reader (the
 * thread last seen reading where it went, v->send_reader) has no vertex
 * that took it (a strong IPC or D-Bus edge from v). out = that reader's
 * latest vertex at now, where it is instead. */
static bool unread_send(const struct ctx *c, const struct argus_vertex_info *v, uint64_t now,
                        struct argus_vertex_info *out)
{
	uint32_t r = v->send_reader;
	if (!r || r == v->tid)
		return false;
	size_t lo, hi;
	bool any = false;
	dg_thread_range(c, r, &lo, &hi);
	for (size_t i = lo; i < hi && c->tv[i].start <= now; i++) {
		struct argus_vertex_info x;
		if (!argus_graph_vertex(c->view, c->tv[i].vid, &x))
			continue;
		if (x.start >= v->start) {
			struct argus_edge_info in[16];
			size_t ne = argus_graph_in_edges(c->view, x.id, in, 16);
			for (size_t e = 0; e < ne && e < 16; e++)
				if (in[e].src == v->id &&
				    (in[e].kind == ARGUS_EDGE_IPC || in[e].kind == ARGUS_EDGE_DBUS))
					return false; /* read */
		}
		*out = x;
		any = true;
	}
	return any;
}

/* A request no one has read yet waits for the thread that reads its
 * destination: the last one seen receiving there. From v (the waiter's own
 * segment, or the segment of a broker that received the request) and the
 * segments of v's thread after it until it waits again (a bus daemon reads
 * a message, then forwards it): the first send still unread names that
 * reader; stopped or blocked, it is the culprit (a blocked one explained in
 * turn), else it ran and did not read. Returns the culprits found (0: no
 * unread send), -1 out of memory. */
static int unread_request(struct ctx *c, const struct argus_vertex_info *v,
                          const struct dg_args *args, int32_t pen)
{
	uint64_t now = args->now;
	uint32_t *chain = args->chain, nchain = args->nchain, depth = args->depth;
	ssize_t vi = dg_index_of(c, v);
	if (vi < 0)
		return 0;
	for (size_t i = (size_t)vi;
	     i < c->ntv && i < (size_t)vi + 4 && c->tv[i].tid == v->tid && c->tv[i].start <= now;
	     i++) {
		struct argus_vertex_info w, s;
		if (!argus_graph_vertex(c->view, c->tv[i].vid, &w))
			break;
		if (unread_send(c, &w, now, &s) && !dg_in_chain(chain, nchain, s.tid)) {
			dg_note(c, "ipc-peer/unread-request");
			bool blocked = (s.flags & ARGUS_VF_WAITED) && s.end <= now;
			int sub = 0;
			bool loop = false;
			if (blocked && !(s.flags & ARGUS_VF_STOPPED) &&
			    depth + 1 < c->p->max_recurse && nchain < 32) {
				chain[nchain] = s.tid;
				struct dg_args y = {s.start, now,       chain, nchain + 1,
				                    pen,     depth + 1, false, &loop};
				sub = dg_explain(c, &s, ARGUS_STALL_LONG_WAIT, &y);
				if (sub < 0)
					return -1;
			}
			if (!sub)
				dg_add_candidate(c, &s,
				                 !blocked ? ARGUS_ROOT_MISSING_WAKE
				                 : loop   ? ARGUS_ROOT_DEADLOCK
				                          : ARGUS_ROOT_BLOCKED,
				                 pen, depth);
			return 1;
		}
		if (i > (size_t)vi && (w.flags & ARGUS_VF_WAITED))
			break; /* waiting again: what it sent is sent */
	}
	return 0;
}

/* A LongWait in a read on an IPC object: the thread at the other end -
 * the one that received the request and owes the answer - is the expected
 * waker. Blocked itself, it is the culprit (recursively: the culprit of the
 * culprit); this holds with no earlier normal run to compare with. Returns
 * the culprits found (0: the rule does not apply), -1 out of memory. */
int dg_ipc_peer(struct ctx *c, const struct argus_vertex_info *a, const struct dg_args *args)
{
	uint64_t from = args->from, now = args->now;
	uint32_t *chain = args->chain, nchain = args->nchain, depth = args->depth;
	int32_t pen0 = args->pen;
	struct argus_vertex_info x, s;
	bool silent;
	int32_t pen = pen0 + c->p->a * ARGUS_STRONG + c->p->b;
	if (a->wait_kind != ARGUS_WAIT_READ || !(a->flags & ARGUS_VF_WAITED))
		return 0;
	if (!ipc_asked(c, a, now, &x)) /* no one took the request */
		return unread_request(c, a, args, pen);
	if (dg_in_chain(chain, nchain, x.tid))
		return 0;
	/* the one that took it passed it on, and that is still unread */
	int fw = unread_request(c, &x, args, pen + c->p->a * ARGUS_STRONG + c->p->b);
	if (fw)
		return fw;
	if (!peer_stuck(c, &x, from, now, &s, &silent))
		return 0;
	int sub = 0;
	bool loop = false;
	if (!silent && depth + 1 < c->p->max_recurse && nchain < 32) {
		chain[nchain] = s.tid;
		struct dg_args y = {s.start, now, chain, nchain + 1, pen, depth + 1, false, &loop};
		sub = dg_explain(c, &s, ARGUS_STALL_LONG_WAIT, &y);
		if (sub < 0)
			return -1;
	}
	if (!sub)
		dg_add_candidate(c, &s, loop ? ARGUS_ROOT_DEADLOCK : ARGUS_ROOT_BLOCKED, pen,
		                 depth);
	return 1;
}

/* A yield loop spins on a flag some thread should set; its writes are seen
 * only with hooks (flag edges). Without them, the thread that received the
 * spinning segment's last request owes it the answer: blocked in another
 * call than the one it took the request from, it is the culprit (diagnosed
 * again for its own); back in that call, it ran and did not answer (a
 * missing wake-up, at the vertex that received the request). Returns the
 * culprits found (0: no request of it was received), -1 out of memory. */
int dg_spin_peer(struct ctx *c, const struct argus_vertex_info *a, const struct dg_args *args)
{
	uint64_t now = args->now;
	uint32_t *chain = args->chain, nchain = args->nchain;
	struct argus_vertex_info x, idle, s;
	if (!ipc_asked(c, a, now, &x) || dg_in_chain(chain, nchain, x.tid))
		return 0;
	int32_t pen = c->p->a * ARGUS_STRONG + c->p->b;
	ssize_t xi = dg_index_of(c, &x);
	size_t lo, hi;
	dg_thread_range(c, x.tid, &lo, &hi);
	/* the vertex before x ended in the wait the request came to */
	if (xi > (ssize_t)lo && argus_graph_vertex(c->view, c->tv[xi - 1].vid, &idle) &&
	    dg_find_blocked(c, &idle, x.start, now, &s)) {
		int sub = 0;
		bool loop = false;
		if (c->p->max_recurse > 1 && nchain < 32) {
			chain[nchain] = s.tid;
			struct dg_args y = {s.start, now, chain, nchain + 1, pen, 1, false, &loop};
			sub = dg_explain(c, &s, ARGUS_STALL_LONG_WAIT, &y);
			if (sub < 0)
				return -1;
		}
		if (!sub)
			dg_add_candidate(c, &s, loop ? ARGUS_ROOT_DEADLOCK : ARGUS_ROOT_BLOCKED,
			                 pen, 1);
		return 1;
	}
	dg_add_candidate(c, &x, ARGUS_ROOT_MISSING_WAKE, pen, 0);
	return 1;
}

/* A thread blocked in the kernel on a request the kernel sent for it to a
 * user-space server (a FUSE daemon: ARGUS_VF_KREQ) waits for the thread
 * that serves that connection, as a reader of an IPC object waits for its
 * peer: the request is a send to the connection, and the server thread
 * last seen ending a request there is its reader (unread_request). Returns
 * the culprits found (0: the rule does not apply), -1 out of memory. */
int dg_kernel_request(struct ctx *c, const struct argus_vertex_info *a, const struct dg_args *args)
{
	if (!(a->flags & ARGUS_VF_WAITED) || !(a->flags & ARGUS_VF_KREQ))
		return 0;
	return unread_request(c, a, args, args->pen + c->p->a * ARGUS_STRONG + c->p->b);
}

/* A thread that handed its request to another thread of its own process
 * (a D-Bus or I/O thread: GDBus's sync call, Qt's D-Bus thread) and waits
 * for it - not in a read of an IPC object: on a wake-up fd or a futex - waits
 * for what that thread asked in turn: its request, or the one a broker took
 * from it and passed on, still unread names its reader (unread_request).
 * Returns the culprits found (0: the rule does not apply), -1 out of
 * memory. */
int dg_handoff(struct ctx *c, const struct argus_vertex_info *a, const struct dg_args *args)
{
	uint64_t now = args->now;
	struct argus_vertex_info x, y, r;
	if (!(a->flags & ARGUS_VF_WAITED))
		return 0;
	/* the hand-off may end the segment before the wait's when the thread
	 * ran on without waiting between (cut there by a timer it armed: the
	 * poll's timeout) */
	/* the wait's own segment first, with its wake-ups: an earlier segment
	 * that ended in a short wait of the same call (a poll) is taken for
	 * part of a split read by ipc_asked, and its request to the display
	 * server is not the hand-off (realapps r12, live 08:00) */
	bool asked = (asked_by(c, a, now, &x, true) && x.pid == a->pid && x.tid != a->tid) ||
	             ipc_asked(c, a, now, &x) || asked_by(c, a, now, &x, true);
	ssize_t ai = dg_index_of(c, a);
	size_t lo, hi;
	dg_thread_range(c, a->tid, &lo, &hi);
	if (!asked && ai > (ssize_t)lo && argus_graph_vertex(c->view, c->tv[ai - 1].vid, &r) &&
	    !(r.flags & ARGUS_VF_WAITED) && r.end == a->start)
		asked = asked_by(c, &r, now, &x, true);
	if (!asked || x.pid != a->pid || x.tid == a->tid ||
	    dg_in_chain(args->chain, args->nchain, x.tid))
		return 0;
	int32_t pen = args->pen + c->p->a * ARGUS_STRONG + c->p->b;
	/* the relay's first request after the hand-off: it may first take
	 * locks the waiter passes it (short futex waits: GLib's, between the
	 * wake-up and the send; realapps r12), so its segments are followed
	 * until one that waited long */
	ssize_t xi = dg_index_of(c, &x);
	for (size_t i = (size_t)(xi < 0 ? 0 : xi);
	     xi >= 0 && i < c->ntv && i < (size_t)xi + 8 && c->tv[i].tid == x.tid &&
	     c->tv[i].start <= now;
	     i++) {
		struct argus_vertex_info w;
		if (!argus_graph_vertex(c->view, c->tv[i].vid, &w))
			break;
		int n = unread_request(c, &w, args, pen); /* the relay's own request unread */
		if (n)
			return n;
		if (ipc_asked(c, &w, now, &y) && y.start >= x.start) {
			if (dg_in_chain(args->chain, args->nchain, y.tid))
				return 0;
			return unread_request(c, &y, args, pen + c->p->a * ARGUS_STRONG + c->p->b);
		}
		if ((w.flags & ARGUS_VF_WAITED) && dg_wait_len(c, &w, now) >= c->p->long_wait_ns)
			break;
	}
	return 0;
}

/* The wait of thread tid that covers most of [from, now], at least
 * long_wait_ns of it: a read of an IPC object (a poll on one socket to a
 * peer reads as one). */
static bool sibling_reads(const struct ctx *c, uint32_t tid, uint64_t from, uint64_t now,
                          struct argus_vertex_info *out)
{
	size_t lo, hi;
	uint64_t best = 0;
	dg_thread_range(c, tid, &lo, &hi);
	for (size_t i = lo; i < hi && c->tv[i].start <= now; i++) {
		struct argus_vertex_info v;
		if (!argus_graph_vertex(c->view, c->tv[i].vid, &v) || v.end > now)
			continue;
		uint64_t w = dg_wait_len(c, &v, now);
		uint64_t b0 = v.end > from ? v.end : from, b1 = v.end + w < now ? v.end + w : now;
		if (!w || b1 <= b0 || b1 - b0 < c->p->long_wait_ns || b1 - b0 <= best)
			continue;
		best = b1 - b0;
		*out = v;
	}
	return best && out->wait_kind == ARGUS_WAIT_READ;
}

/* A futex wait that no request and no earlier run explains waits for a
 * thread of its own process (a futex is woken from inside the process):
 * one blocked all along reading another process's answer - the D-Bus
 * thread an app's main thread waits for at start-up (Qt's
 * QDBusConnection, GLib's g_bus_get_sync) - is explained in turn, as
 * ipc-peer explains a read. Returns the culprits found (0: no such
 * thread), -1 out of memory. */
int dg_sibling(struct ctx *c, const struct argus_vertex_info *a, const struct dg_args *args)
{
	if (a->wait_kind != ARGUS_WAIT_FUTEX || !(a->flags & ARGUS_VF_WAITED) ||
	    args->nchain >= 32 || args->depth + 1 >= c->p->max_recurse)
		return 0;
	int32_t pen = args->pen + c->p->a * ARGUS_WEAK + c->p->b;
	uint32_t last = 0;
	for (size_t i = 0; i < c->ntv; i++) {
		uint32_t tid = c->tv[i].tid;
		if (c->tv[i].pid != a->pid || tid == last || tid == a->tid ||
		    dg_in_chain(args->chain, args->nchain, tid))
			continue;
		last = tid;
		struct argus_vertex_info s;
		if (!sibling_reads(c, tid, args->from, args->now, &s))
			continue;
		args->chain[args->nchain] = tid;
		bool loop = false;
		struct dg_args y = {args->from, args->now, args->chain, args->nchain + 1,
		                    pen,        args->depth + 1, false, &loop};
		int n = dg_ipc_peer(c, &s, &y);
		if (n)
			return n;
	}
	return 0;
}
