/*
 * graph.c - the writer: events in, segments and annotated edges out.
 *
 * Two tables drive it, each row citing the paper (000 = "Argus", USENIX ATC
 * 2021, 001 = the Argus workshop paper with patterns P1-P8):
 *   split_rules[]  which events cut a thread's execution into segments;
 *   edge_rules[]   the strength of every edge kind (Table 1).
 * docs/graph.md shows both tables and the cases they leave out.
 */
#include <stdlib.h>
#include <string.h>

#include "graph_internal.h"

void gw_publish_vertex(struct argus_graph *g, argus_vid id);
void gw_check_window(struct argus_graph *g);

/* ---- the split rules ---- */

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

struct split_rule {
	uint16_t type;
	uint8_t action;
	const char *paper;
};

static const struct split_rule split_rules[] = {
	{ARGUS_EV_SCHED_SWITCH, SA_END_IF_BLOCKING,
	 "000 s5: split at the entry of a blocking wait; 001 s2.1.1 end (2)"},
	{ARGUS_EV_SCHED_WAKEUP, SA_BEGIN_WAKEE, "001 s2.1.1 begin (2): the return from a wait"},
	{ARGUS_EV_SCHED_WAKEUP_NEW, SA_BEGIN_WAKEE, "001 s2.1.1 begin (1): the beginning of a thread"},
	{ARGUS_EV_DISPATCH_BEGIN, SA_CUT_BEGIN, "000 s5: nested dispatch_callout tasks separated"},
	{ARGUS_EV_DISPATCH_END, SA_CUT_END, "000 s5: nested dispatch_callout tasks separated"},
	{ARGUS_EV_ASYNC_RUN_BEGIN, SA_CUT_BEGIN, "000 s5: each dispatched task is separated"},
	{ARGUS_EV_ASYNC_RUN_END, SA_CUT_END, "000 s5: each dispatched task is separated"},
	{ARGUS_EV_LOOP_ITER_BEGIN, SA_CUT_BEGIN, "001 P8: runloop begin / end points"},
	{ARGUS_EV_LOOP_ITER_END, SA_CUT_END, "001 P8: runloop begin / end points"},
	{ARGUS_EV_IPC_SEND, SA_CUT_NEW_PEER,
	 "000 s5: consecutive messages with non-overlapping peer sets; 001 P6"},
	{ARGUS_EV_IPC_RECV, SA_CUT_NEW_PEER,
	 "000 s2 piggyback, 001 P3: a send and a receive in one call"},
	{ARGUS_EV_IRQ_ENTRY, SA_SPLICE_IRQ, "001 P1: interrupt handling spliced away"},
	{ARGUS_EV_IRQ_EXIT, SA_SPLICE_IRQ, "001 P1: interrupt handling spliced away"},
	{ARGUS_EV_SOFTIRQ_ENTRY, SA_SPLICE_IRQ, "001 P1, P2: kernel work in a thread's context"},
	{ARGUS_EV_SOFTIRQ_EXIT, SA_SPLICE_IRQ, "001 P1, P2: kernel work in a thread's context"},
	{ARGUS_EV_THREAD_EXIT, SA_END_THREAD, "001 s2.1.1 end (1): the exit of a thread"},
	{ARGUS_EV_PROC_EXIT, SA_END_THREAD, "001 s2.1.1 end (1): the exit of a thread"},
	/* kernel worker threads (000 s5 kern_task): split by the rules above,
	 * and no adjacent edge joins their segments: see adjacent_rule(). */
};

/* ---- the edge rules (paper Table 1) ---- */

struct edge_rule {
	int8_t strength;
	const char *paper;
};

static const struct edge_rule edge_rules[ARGUS_EDGE_KIND_MAX] = {
	[ARGUS_EDGE_IPC] = {ARGUS_STRONG, "Table 1 strong 1: IPC message send and receive"},
	[ARGUS_EDGE_DBUS] = {ARGUS_STRONG, "Table 1 strong 1: IPC message send and receive"},
	[ARGUS_EDGE_REPLY] = {ARGUS_STRONG, "000 s5: received message -> its reply; 001 P7"},
	[ARGUS_EDGE_ASYNC] = {ARGUS_STRONG, "Table 1 strong 2: asynchronous calls (work queue)"},
	[ARGUS_EDGE_TIMER] = {ARGUS_STRONG, "Table 1 strong 2: delayed call; 001 s2.1.1 timers"},
	[ARGUS_EDGE_FLAG] = {ARGUS_STRONG, "Table 1 strong 4: data dependency; 001 P3-P5"},
	[ARGUS_EDGE_SIGNAL] = {ARGUS_STRONG, "Table 1 strong 3: direct wake-up on purpose"},
	[ARGUS_EDGE_BROADCAST] = {ARGUS_WEAK, "000 s5: wakes all waiters, not one: non-causal"},
	[ARGUS_EDGE_HANDOFF] = {ARGUS_WEAK, "Table 1 weak 1: non-causal wake-up; 001 P5"},
	[ARGUS_EDGE_FUTEX] = {ARGUS_WEAK, "Table 1 weak 1: wake-up of unknown intent"},
	[ARGUS_EDGE_WAKEUP] = {ARGUS_WEAK, "Table 1 weak 1: wake-up with no communication"},
	[ARGUS_EDGE_ADJACENT] = {ARGUS_WEAK,
				 "Table 1 weak 2, 3 (boosted: same task); 001 s2.1.1 fourth"},
};

static const char *const default_batch_comms[] = {"dbus-daemon", "dbus-broker", "Xorg",
						  "Xwayland", NULL};

/* x86-64 syscall numbers that matter to the rules. */
enum {
	NR_READ = 0,
	NR_POLL = 7,
	NR_PREAD64 = 17,
	NR_READV = 19,
	NR_SELECT = 23,
	NR_NANOSLEEP = 35,
	NR_RECVFROM = 45,
	NR_RECVMSG = 47,
	NR_WAIT4 = 61,
	NR_FUTEX = 202,
	NR_CLOCK_NANOSLEEP = 230,
	NR_EPOLL_WAIT = 232,
	NR_WAITID = 247,
	NR_PSELECT6 = 270,
	NR_PPOLL = 271,
	NR_EPOLL_PWAIT = 281,
	NR_RECVMMSG = 299,
	NR_EPOLL_PWAIT2 = 441,
	NR_FUTEX_WAITV = 449,
};

static uint8_t wait_kind_of(bool in_sys, uint16_t nr)
{
	if (!in_sys)
		return ARGUS_WAIT_OTHER;
	switch (nr) {
	case NR_FUTEX:
	case NR_FUTEX_WAITV:
		return ARGUS_WAIT_FUTEX;
	case NR_POLL:
	case NR_SELECT:
	case NR_PSELECT6:
	case NR_PPOLL:
	case NR_EPOLL_WAIT:
	case NR_EPOLL_PWAIT:
	case NR_EPOLL_PWAIT2:
		return ARGUS_WAIT_POLL;
	case NR_READ:
	case NR_PREAD64:
	case NR_READV:
	case NR_RECVFROM:
	case NR_RECVMSG:
	case NR_RECVMMSG:
		return ARGUS_WAIT_READ;
	case NR_NANOSLEEP:
	case NR_CLOCK_NANOSLEEP:
		return ARGUS_WAIT_SLEEP;
	case NR_WAIT4:
	case NR_WAITID:
		return ARGUS_WAIT_CHILD;
	}
	return ARGUS_WAIT_OTHER;
}

/* ---- names ---- */

const char *argus_edge_kind_name(unsigned kind)
{
	static const char *const n[ARGUS_EDGE_KIND_MAX] = {
		"ipc",     "dbus",  "reply", "async",  "timer",  "flag",
		"signal", "broadcast", "handoff", "futex", "wakeup", "adjacent"};
	return kind < ARGUS_EDGE_KIND_MAX ? n[kind] : NULL;
}

const char *argus_leftout_name(unsigned rule)
{
	static const char *const n[ARGUS_LEFTOUT_MAX] = {"kernel_worker", "no_shared_symbol",
							  "idle_wait", "known_batching"};
	return rule < ARGUS_LEFTOUT_MAX ? n[rule] : NULL;
}

const char *argus_split_name(unsigned split)
{
	static const char *const n[ARGUS_SPLIT_MAX] = {"first", "wakeup", "dispatch", "batch",
						       "evicted"};
	return split < ARGUS_SPLIT_MAX ? n[split] : NULL;
}

/* ---- threads, CPUs ---- */

static struct gthread *thread_get(struct argus_graph *g, uint32_t tid)
{
	struct gref *r = gmap_get(&g->threads, (uint64_t)tid + 1);
	if (r)
		return r->thread;
	struct gthread *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	r = gmap_put(g, &g->threads, (uint64_t)tid + 1);
	if (!r) {
		free(t);
		return NULL;
	}
	t->tid = tid;
	t->adj_reason = 0xff;
	r->thread = t;
	g->bytes_tables += sizeof(*t);
	g->st.threads++;
	return t;
}

static void thread_drop(struct argus_graph *g, struct gthread *t)
{
	gmap_del(&g->threads, (uint64_t)t->tid + 1);
	g->bytes_tables -= sizeof(*t);
	g->st.threads--;
	free(t);
}

static struct gcpu *cpu_get(struct argus_graph *g, uint16_t cpu)
{
	if (cpu >= g->ncpus) {
		size_t n = (size_t)cpu + 1 > g->ncpus * 2 ? (size_t)cpu + 1 : g->ncpus * 2;
		struct gcpu *c = realloc(g->cpus, n * sizeof(*c));
		if (!c)
			return NULL;
		memset(c + g->ncpus, 0, (n - g->ncpus) * sizeof(*c));
		g->bytes_tables += (n - g->ncpus) * sizeof(*c);
		g->cpus = c;
		g->ncpus = n;
	}
	return &g->cpus[cpu];
}

static bool is_kworker_comm(const char *c)
{
	return !strncmp(c, "kworker", 7) || !strncmp(c, "ksoftirqd", 9);
}

static void set_comm(struct argus_graph *g, struct gthread *t, const char *comm)
{
	memcpy(t->comm, comm, ARGUS_COMM_LEN);
	t->comm[ARGUS_COMM_LEN - 1] = 0;
	if (is_kworker_comm(t->comm))
		t->kworker = true;
	t->batch_known = false;
	for (const char *const *c = g->batch_comms; *c; c++)
		if (!strncmp(t->comm, *c, ARGUS_COMM_LEN - 1))
			t->batch_known = true;
}

/* ---- edges ---- */

static void add_edge(struct argus_graph *g, argus_vid dst, argus_vid src, uint8_t kind,
		     int8_t strength, uint64_t ts)
{
	struct gvertex *d = gw_vertex(g, dst);
	struct gvertex *s = gw_vertex(g, src);
	if (!d || !s || src == dst)
		return;
	/* never backwards: the source event precedes the later vertex's end */
	if (ts < s->start)
		ts = s->start;
	/* one edge per (source, kind): a cond wake after its futex wake adds nothing */
	int seen = 0;
	for (struct gedge *x = atomic_load_explicit(&d->in, memory_order_relaxed); x && seen < 8;
	     x = x->next, seen++)
		if (x->src == src && x->kind == kind)
			return;
	struct gedge *e = gw_new_edge(g);
	if (!e) {
		g->oom = true;
		return;
	}
	e->src = src;
	e->ts = ts;
	e->kind = kind;
	e->strength = strength;
	e->next = atomic_load_explicit(&d->in, memory_order_relaxed);
	atomic_store_explicit(&d->in, e, memory_order_release);
	g->st.edges++;
	g->st.by_kind[kind]++;
	if (strength == ARGUS_STRONG)
		g->st.strong++;
	else if (strength == ARGUS_WEAK)
		g->st.weak++;
	else
		g->st.boosted++;
}

static void add_rule_edge(struct argus_graph *g, argus_vid dst, argus_vid src, uint8_t kind,
			  uint64_t ts)
{
	add_edge(g, dst, src, kind, edge_rules[kind].strength, ts);
}

/* Publish the wake-up edge that no communication explained (weak). */
static void wake_publish(struct argus_graph *g, struct gthread *t)
{
	if (!t->wake_pending)
		return;
	t->wake_pending = false;
	add_edge(g, t->cur ? t->cur : t->last, t->wake_src, t->wake_kind, t->wake_strength,
		 t->wake_ts);
}

/* A communication edge into the thread's current segment; when it comes
 * from the vertex whose wake-up opened the segment, it explains that
 * wake-up, which is then not an edge of its own. */
static void add_comm_edge(struct argus_graph *g, struct gthread *t, argus_vid src, uint8_t kind,
			  uint64_t ts)
{
	if (!src || src == t->cur)
		return;
	if (t->wake_pending && t->wake_src == src) {
		t->wake_pending = false;
		g->st.wakeups_merged++;
	}
	add_rule_edge(g, t->cur, src, kind, ts);
}

static size_t stacks_of(const struct gvertex *v, uint32_t out[2])
{
	size_t n = 0;
	uint32_t a = atomic_load_explicit(&v->stack_first, memory_order_relaxed);
	uint32_t b = atomic_load_explicit(&v->stack_last, memory_order_relaxed);
	if (a)
		out[n++] = a;
	if (b && b != a)
		out[n++] = b;
	return n;
}

/* Decide the adjacent edge adj_src -> adj_dst (Table 1 weak 2 and 3, the
 * exclusions of section 5, boosted when a rare symbol is shared). Without
 * force it waits until the later segment has a stack to compare. */
static void adjacent_rule(struct argus_graph *g, struct gthread *t, bool force)
{
	if (!t->adj_dst)
		return;
	struct gvertex *a = gw_vertex(g, t->adj_src), *b = gw_vertex(g, t->adj_dst);
	if (!a || !b) {
		t->adj_dst = 0;
		return;
	}
	uint32_t sa[2], sb[2];
	size_t na = stacks_of(a, sa), nb = stacks_of(b, sb);
	bool known = true;
	for (size_t i = 0; i < na; i++)
		known = known && gstack_get(g, sa[i]);
	for (size_t i = 0; i < nb; i++)
		known = known && gstack_get(g, sb[i]);
	if (na && !nb && !force)
		return; /* wait for the later segment's stack */
	argus_vid src = t->adj_src, dst = t->adj_dst;
	uint8_t reason = t->adj_reason;
	t->adj_dst = 0;
	uint64_t ts = atomic_load_explicit(&a->end, memory_order_relaxed);
	if (reason == ARGUS_LEFTOUT_KWORKER) {
		g->st.left_out[reason]++;
		return;
	}
	if (na && nb && known) {
		bool rare;
		bool share = gframes_share(g, sa, na, sb, nb, &rare);
		if (rare) {
			add_edge(g, dst, src, ARGUS_EDGE_ADJACENT, ARGUS_BOOSTED, ts);
			return;
		}
		if (!share) {
			g->st.left_out[ARGUS_LEFTOUT_NO_SHARED_SYM]++;
			return;
		}
	}
	if (reason < ARGUS_LEFTOUT_MAX) {
		g->st.left_out[reason]++;
		return;
	}
	add_rule_edge(g, dst, src, ARGUS_EDGE_ADJACENT, ts);
}

/* ---- segments ---- */

static void close_segment(struct argus_graph *g, struct gthread *t, uint64_t ts, bool waited)
{
	struct gvertex *v = gw_vertex(g, t->cur);
	if (t->wake_pending)
		wake_publish(g, t);
	if (v) {
		atomic_store_explicit(&v->end, ts, memory_order_relaxed);
		uint32_t f = atomic_load_explicit(&v->flags, memory_order_relaxed) & ~ARGUS_VF_OPEN;
		if (waited) {
			f |= ARGUS_VF_WAITED;
			uint64_t w = (uint64_t)wait_kind_of(t->in_sys, t->sys_nr) << 48 |
				     (uint64_t)(t->in_sys ? t->sys_nr : 0xffff) << 32;
			atomic_store_explicit(&v->wait, w, memory_order_relaxed);
			t->wait_vid = t->cur;
			t->wait_at = ts;
		}
		atomic_store_explicit(&v->flags, f, memory_order_relaxed);
		t->last = t->cur;
	}
	t->cur = 0;
	t->npeers = 0;
	t->sent = false;
}

static argus_vid open_segment(struct argus_graph *g, struct gthread *t, uint64_t ts,
			      uint8_t split, uint8_t adj_reason, uint32_t flags)
{
	adjacent_rule(g, t, true);
	struct gvertex *v;
	argus_vid id = gw_new_vertex(g, ts, &v);
	if (!id) {
		g->oom = true;
		return 0;
	}
	v->pid = t->pid;
	v->tid = t->tid;
	v->split = split;
	v->prev = gw_vertex(g, t->last) ? t->last : 0;
	if (t->kworker)
		flags |= ARGUS_VF_KWORKER;
	atomic_store_explicit(&v->flags, flags | ARGUS_VF_OPEN, memory_order_relaxed);
	gw_publish_vertex(g, id);
	g->st.vertices++;
	g->st.splits[split]++;
	t->cur = id;
	t->seen = true;
	t->blocked = false;
	t->npeers = 0;
	t->sent = false;
	if (v->prev) {
		t->adj_src = v->prev;
		t->adj_dst = id;
		t->adj_reason = t->kworker ? ARGUS_LEFTOUT_KWORKER : adj_reason;
		adjacent_rule(g, t, false);
	}
	return id;
}

/* The thread's open segment, opened when events arrive without one (the
 * first event seen, a missed wake-up, or the segment left the window). */
static argus_vid cur_segment(struct argus_graph *g, struct gthread *t, uint64_t ts)
{
	if (t->cur && gw_vertex(g, t->cur))
		return t->cur;
	uint8_t reason = 0xff;
	uint8_t split;
	if (t->cur)
		split = ARGUS_SPLIT_EVICTED;
	else if (t->cut_pending)
		split = ARGUS_SPLIT_DISPATCH, reason = ARGUS_LEFTOUT_KNOWN_BATCH;
	else
		split = t->seen ? ARGUS_SPLIT_WAKEUP : ARGUS_SPLIT_FIRST;
	t->cur = 0;
	t->cut_pending = false;
	return open_segment(g, t, ts, split, reason, 0);
}

/* A cut without a wait: a dispatch begins, or a batch split. An empty
 * segment is not cut again (it becomes the new one). */
static void cut(struct argus_graph *g, struct gthread *t, uint64_t ts, uint8_t split,
		uint8_t reason, uint32_t flags)
{
	struct gvertex *v = gw_vertex(g, t->cur);
	if (v && atomic_load_explicit(&v->nevents, memory_order_relaxed) == 0) {
		atomic_fetch_or_explicit(&v->flags, flags, memory_order_relaxed);
		return;
	}
	if (v)
		close_segment(g, t, ts, false);
	open_segment(g, t, ts, split, reason, flags);
}

/* ---- per-event bookkeeping of a segment ---- */

static uint8_t key_hash(const struct argus_event *ev)
{
	uint64_t k;
	switch (ev->type) {
	case ARGUS_EV_SYS_ENTER:
		k = ev->sys_enter.nr;
		break;
	case ARGUS_EV_SYS_EXIT:
	case ARGUS_EV_IPC_SEND:
	case ARGUS_EV_IPC_RECV:
		k = (uint64_t)ev->sys_exit.nr << 8 | ev->sys_exit.obj_kind;
		break;
	case ARGUS_EV_DBUS_SEND:
	case ARGUS_EV_DBUS_RECV:
		k = ev->dbus.member_str;
		break;
	case ARGUS_EV_DISPATCH_BEGIN:
	case ARGUS_EV_DISPATCH_END:
		k = ev->loop.callback;
		break;
	case ARGUS_EV_ASYNC_POST:
	case ARGUS_EV_ASYNC_RUN_BEGIN:
		k = ev->async.callback;
		break;
	case ARGUS_EV_TIMER_ARM:
	case ARGUS_EV_TIMER_FIRE:
		k = ev->timer.kind;
		break;
	default:
		k = 0;
	}
	return (uint8_t)mix64(k + 1);
}

static bool in_signature(uint16_t type)
{
	switch (type) {
	case ARGUS_EV_SCHED_SWITCH:
	case ARGUS_EV_SCHED_WAKEUP:
	case ARGUS_EV_SCHED_WAKEUP_NEW:
	case ARGUS_EV_STACK:
	case ARGUS_EV_CPU_SAMPLE:
	case ARGUS_EV_DROP:
	case ARGUS_EV_COMM:
	case ARGUS_EV_MMAP:
		return false;
	}
	return type < ARGUS_EV_IRQ_ENTRY || type > ARGUS_EV_SOFTIRQ_EXIT;
}

static void account(struct gvertex *v, const struct argus_event *ev, uint64_t ts)
{
	atomic_store_explicit(&v->end, ts, memory_order_relaxed);
	atomic_fetch_add_explicit(&v->nevents, 1, memory_order_relaxed);
	if (!in_signature(ev->type))
		return;
	uint16_t tok = (uint16_t)((ev->type & 0xff) << 8 | key_hash(ev));
	uint32_t h = atomic_load_explicit(&v->sig_hash, memory_order_relaxed);
	atomic_store_explicit(&v->sig_hash, (h ^ tok) * 16777619u + 1, memory_order_relaxed);
	uint16_t n = atomic_load_explicit(&v->nsig, memory_order_relaxed);
	if (n < ARGUS_SIG_MAX) {
		v->sig[n] = tok;
		atomic_store_explicit(&v->nsig, n + 1, memory_order_release);
	}
}

/* Events that complete a wait: they may still explain the wake-up. */
static bool completes_wait(uint16_t type)
{
	switch (type) {
	case ARGUS_EV_SYS_EXIT:
	case ARGUS_EV_IPC_RECV:
	case ARGUS_EV_COND_WAKE:
	case ARGUS_EV_SEM_WAIT:
	case ARGUS_EV_DBUS_RECV:
	case ARGUS_EV_FLAG_READ:
	case ARGUS_EV_TIMER_FIRE:
	case ARGUS_EV_STACK:
	case ARGUS_EV_CPU_SAMPLE:
	case ARGUS_EV_UI_INPUT:
	case ARGUS_EV_SCHED_SWITCH:
	case ARGUS_EV_ASYNC_RUN_BEGIN:
		return true;
	}
	return false;
}

static void attach_stack(struct argus_graph *g, struct gthread *t, argus_vid id, uint32_t stack)
{
	struct gvertex *v = gw_vertex(g, id);
	if (!v || !stack)
		return;
	if (!atomic_load_explicit(&v->stack_first, memory_order_relaxed))
		atomic_store_explicit(&v->stack_first, stack, memory_order_relaxed);
	atomic_store_explicit(&v->stack_last, stack, memory_order_relaxed);
	gframes_count(g, stack);
	if (t->adj_dst == id)
		adjacent_rule(g, t, false);
}

/* ---- handlers ---- */

static void on_switch(struct argus_graph *g, const struct argus_event *ev, struct gcpu *c,
		      uint64_t ts)
{
	const struct argus_ev_sched_switch *p = &ev->sched_switch;
	if (ev->tid) {
		struct gthread *t = thread_get(g, ev->tid);
		if (!t)
			return;
		if (!t->pid)
			t->pid = ev->pid;
		struct gvertex *v = gw_vertex(g, t->cur);
		if (t->on_cpu && v && c) {
			uint64_t irq = c->irq_ns - t->irq_ns_at_in;
			uint64_t d = ts - t->oncpu_since;
			d = d > irq ? d - irq : 0;
			atomic_fetch_add_explicit(&v->oncpu_ns, d, memory_order_relaxed);
		}
		t->on_cpu = false;
		if (v)
			account(v, ev, ts);
		if (p->prev_state != 0) {
			if (v)
				close_segment(g, t, ts, true);
			t->blocked = true;
			t->cut_pending = false;
			/* an event loop waiting for work, between dispatches */
			t->idle_wait = wait_kind_of(t->in_sys, t->sys_nr) == ARGUS_WAIT_POLL &&
				       t->dispatch_depth == 0;
		}
	}
	if (p->next_tid) {
		struct gthread *n = thread_get(g, p->next_tid);
		if (!n)
			return;
		if (!n->pid)
			n->pid = p->next_pid;
		n->on_cpu = true;
		n->oncpu_since = ts;
		n->irq_ns_at_in = c ? c->irq_ns : 0;
		n->cpu = ev->cpu;
	}
}

static void on_wakeup(struct argus_graph *g, const struct argus_event *ev, struct gcpu *c,
		      bool irq, uint64_t ts)
{
	struct gthread *w = thread_get(g, ev->wakeup.wakee_tid);
	if (!w)
		return;
	if (!w->pid)
		w->pid = ev->wakeup.wakee_pid;
	if (w->cur && gw_vertex(g, w->cur))
		return; /* not blocked: nothing begins */
	bool idle_wait = w->blocked && w->idle_wait;
	struct gvertex *last = gw_vertex(g, w->last);
	if (last && w->wait_vid == w->last)
		atomic_store_explicit(&last->wait_ns, ts - w->wait_at, memory_order_relaxed);
	uint8_t split = w->seen ? ARGUS_SPLIT_WAKEUP : ARGUS_SPLIT_FIRST;
	argus_vid dst =
		open_segment(g, w, ts, split, idle_wait ? ARGUS_LEFTOUT_IDLE_WAIT : 0xff, 0);
	if (!dst)
		return;
	/* a timer a thread armed, firing in this interrupt: strong */
	if (c && c->timer_src && (irq || !ev->tid)) {
		add_rule_edge(g, dst, c->timer_src, ARGUS_EDGE_TIMER, c->timer_ts);
		return;
	}
	if (irq || !ev->tid) {
		g->st.wakeups_irq++; /* 001 P1, P2: not the thread's intent */
		return;
	}
	struct gthread *k = thread_get(g, ev->tid);
	if (!k)
		return;
	if (ev->flags & ARGUS_F_KTHREAD)
		k->kworker = true;
	if (k->kworker) {
		g->st.wakeups_kernel++; /* 000 s5 kernel task delegate; 001 P2 */
		return;
	}
	if (!k->pid)
		k->pid = ev->pid;
	argus_vid src = cur_segment(g, k, ts);
	w->wake_pending = true;
	w->wake_src = src;
	w->wake_ts = ts;
	w->wake_kind = k->in_sys && k->sys_nr == NR_FUTEX ? ARGUS_EDGE_FUTEX : ARGUS_EDGE_WAKEUP;
	w->wake_strength = ARGUS_WEAK;
	if (k->in_sys && k->nwakees < MAX_WAKEES)
		k->wakees[k->nwakees++] = w->tid;
}

/* The waker's futex call returned: its intent (from hooks) decides the
 * strength of the wake-ups it made (strong only for a signal to a waiter). */
static void on_futex_wake(struct argus_graph *g, struct gthread *k, const struct argus_event *ev)
{
	uint8_t kind;
	if (k->intent == INTENT_SIGNAL && ev->futex.ret <= 1)
		kind = ARGUS_EDGE_SIGNAL;
	else if (k->intent == INTENT_BROADCAST || ev->futex.ret > 1)
		kind = ARGUS_EDGE_BROADCAST;
	else if (k->intent == INTENT_HANDOFF)
		kind = ARGUS_EDGE_HANDOFF;
	else
		kind = ARGUS_EDGE_FUTEX;
	for (uint8_t i = 0; i < k->nwakees; i++) {
		struct gref *r = gmap_get(&g->threads, (uint64_t)k->wakees[i] + 1);
		struct gthread *w = r ? r->thread : NULL;
		if (!w || !w->wake_pending || w->wake_src != k->cur)
			continue;
		w->wake_kind = kind;
		w->wake_strength = edge_rules[kind].strength;
		if (kind != ARGUS_EDGE_FUTEX)
			wake_publish(g, w); /* decided; unknown stays open for a hook */
	}
	k->intent = INTENT_NONE;
}

static bool peer_in(const uint64_t *set, uint8_t n, uint64_t x)
{
	for (uint8_t i = 0; i < n; i++)
		if (set[i] == x)
			return true;
	return false;
}

static void on_ipc(struct argus_graph *g, struct gthread *t, const struct argus_event *ev,
		   uint64_t ts)
{
	const struct argus_ev_sys_exit *p = &ev->ipc;
	bool send = ev->type == ARGUS_EV_IPC_SEND;
	/* the connection, the same from both ends: a peer of the segment */
	uint64_t conn = p->peer_obj ? p->obj ^ p->peer_obj : p->obj;
	argus_vid src = 0;
	if (send && t->batch_prev && t->batch_seq == t->sys_seq &&
	    peer_in(t->prev_peers, t->nprev_peers, conn)) {
		/* piggyback: this send belongs to the segment before the split */
		src = gw_vertex(g, t->batch_prev) ? t->batch_prev : 0;
	} else if (t->npeers && !peer_in(t->peers, t->npeers, conn) && (!send || t->sent)) {
		argus_vid prev = t->cur;
		memcpy(t->prev_peers, t->peers, sizeof(t->peers));
		t->nprev_peers = t->npeers;
		cut(g, t, ts, ARGUS_SPLIT_BATCH, t->batch_known ? ARGUS_LEFTOUT_KNOWN_BATCH : 0xff,
		    0);
		t->batch_prev = prev;
		t->batch_seq = t->sys_seq;
	}
	if (!src) {
		if (!peer_in(t->peers, t->npeers, conn)) {
			if (t->npeers == MAX_PEERS)
				memmove(t->peers, t->peers + 1, (MAX_PEERS - 1) * sizeof(t->peers[0]));
			else
				t->npeers++;
			t->peers[t->npeers - 1] = conn;
		}
		if (send)
			t->sent = true;
		src = t->cur;
	}
	if (p->ret <= 0)
		return;
	if (send) {
		struct gref *r = gmap_put(g, &g->ipc, p->peer_obj ? p->peer_obj : p->obj);
		if (!r)
			return;
		if (r->n && r->src[r->n - 1] == src)
			return;
		if (r->n == 2) {
			r->src[0] = r->src[1];
			r->ts[0] = r->ts[1];
			r->n = 1;
		}
		r->src[r->n] = src;
		r->ts[r->n++] = ts;
		return;
	}
	if (p->obj_kind == ARGUS_OBJ_DISPLAY) {
		struct gvertex *v = gw_vertex(g, t->cur);
		if (v)
			atomic_fetch_or_explicit(&v->flags, ARGUS_VF_UI, memory_order_relaxed);
	}
	struct gref *r = gmap_get(&g->ipc, p->obj);
	if (!r)
		return;
	for (uint32_t i = 0; i < r->n; i++)
		add_comm_edge(g, t, r->src[i], ARGUS_EDGE_IPC, r->ts[i]);
	r->n = 0;
}

/* Remember the first half of a pair: key -> the current segment. */
static struct gref *remember(struct argus_graph *g, struct gmap *m, uint64_t key, argus_vid src,
			     uint64_t ts, uint32_t aux)
{
	if (!key)
		return NULL;
	struct gref *r = gmap_put(g, m, key);
	if (!r) {
		g->oom = true;
		return NULL;
	}
	r->src[0] = src;
	r->ts[0] = ts;
	r->n = 1;
	r->aux = aux;
	return r;
}

static uint64_t dbus_key(const struct argus_ev_dbus *d)
{
	return mix64(mix64((uint64_t)d->serial << 32 | d->reply_serial) ^
		     ((uint64_t)d->member_str << 32 | d->dest_str) ^ d->msg_type) | 1;
}

static void on_sync(struct argus_graph *g, struct gthread *t, const struct argus_event *ev,
		    argus_vid cur, uint64_t ts)
{
	const struct argus_ev_sync *s = &ev->sync;
	switch (ev->type) {
	case ARGUS_EV_COND_SIGNAL:
		t->intent = INTENT_SIGNAL;
		remember(g, &g->cond, s->obj, cur, ts, INTENT_SIGNAL);
		break;
	case ARGUS_EV_COND_BROADCAST:
		t->intent = INTENT_BROADCAST;
		remember(g, &g->cond, s->obj, cur, ts, INTENT_BROADCAST);
		break;
	case ARGUS_EV_SEM_POST:
		t->intent = INTENT_SIGNAL;
		remember(g, &g->sem, s->obj, cur, ts, INTENT_SIGNAL);
		break;
	case ARGUS_EV_MUTEX_HANDOFF:
		t->intent = INTENT_HANDOFF;
		/* the unlock came after its futex wake: relabel what it woke */
		for (uint8_t i = 0; i < t->nwakees; i++) {
			struct gref *r = gmap_get(&g->threads, (uint64_t)t->wakees[i] + 1);
			struct gthread *w = r ? r->thread : NULL;
			if (w && w->wake_pending && w->wake_src == cur &&
			    w->wake_kind == ARGUS_EDGE_FUTEX) {
				w->wake_kind = ARGUS_EDGE_HANDOFF;
				wake_publish(g, w);
			}
		}
		break;
	case ARGUS_EV_COND_WAKE: {
		struct gref *r = gmap_get(&g->cond, s->obj);
		if (!r || !gw_vertex(g, r->src[0]))
			break;
		uint8_t kind = r->aux == INTENT_BROADCAST ? ARGUS_EDGE_BROADCAST
							   : ARGUS_EDGE_SIGNAL;
		add_comm_edge(g, t, r->src[0], kind, r->ts[0]);
		if (r->aux == INTENT_SIGNAL)
			gmap_del(&g->cond, s->obj); /* a signal wakes one waiter */
		break;
	}
	case ARGUS_EV_SEM_WAIT: {
		struct gref *r = gmap_get(&g->sem, s->obj);
		if (!r || !gw_vertex(g, r->src[0]))
			break;
		add_comm_edge(g, t, r->src[0], ARGUS_EDGE_SIGNAL, r->ts[0]);
		gmap_del(&g->sem, s->obj);
		break;
	}
	}
}

static void on_thread_exit(struct argus_graph *g, struct gthread *t, uint64_t ts)
{
	if (t->cur)
		close_segment(g, t, ts, false);
	adjacent_rule(g, t, true);
	thread_drop(g, t);
}

static bool irq_context(const struct argus_event *ev, const struct gcpu *c)
{
	if (ev->flags & (ARGUS_F_HARDIRQ | ARGUS_F_SOFTIRQ))
		return true;
	return c && c->irq_depth > 0 && ev->type != ARGUS_EV_SCHED_SWITCH;
}

static void ingest_one(struct argus_graph *g, const struct argus_event *ev)
{
	uint64_t ts = ev->ts;
	if (ts < g->last_ts) {
		g->st.events_late++;
		ts = g->last_ts; /* keep time monotonic: no edge goes backwards */
	}
	g->last_ts = ts;
	atomic_store_explicit(&g->now, ts, memory_order_relaxed);
	gw_maybe_rotate(g, ts);
	struct gbody *b = gw_newest(g);
	if (b)
		b->events++;
	g->st.events++;

	uint16_t type = ev->type;
	struct gcpu *c = cpu_get(g, ev->cpu);
	bool irq = irq_context(ev, c);
	if (c && !irq && type != ARGUS_EV_TIMER_FIRE)
		c->timer_src = 0;

	switch (type < ARGUS_EV_TYPE_MAX ? g->split_action[type] : SA_NONE) {
	case SA_SPLICE_IRQ:
		if (!c)
			return;
		if (type == ARGUS_EV_IRQ_ENTRY || type == ARGUS_EV_SOFTIRQ_ENTRY) {
			if (c->irq_depth++ == 0)
				c->irq_since = ts;
			struct gref *r = ev->tid ? gmap_get(&g->threads, (uint64_t)ev->tid + 1)
						 : NULL;
			struct gvertex *v = r ? gw_vertex(g, r->thread->cur) : NULL;
			if (v)
				atomic_fetch_or_explicit(&v->flags, ARGUS_VF_IRQ,
							 memory_order_relaxed);
		} else if (c->irq_depth > 0 && --c->irq_depth == 0) {
			c->irq_ns += ts - c->irq_since;
			c->timer_src = 0;
		}
		return;
	case SA_END_IF_BLOCKING:
		on_switch(g, ev, c, ts);
		return;
	case SA_BEGIN_WAKEE:
		on_wakeup(g, ev, c, irq, ts);
		return;
	}

	if (type == ARGUS_EV_DROP) {
		g->st.source_drops += ev->drop.count;
		return;
	}
	if (type == ARGUS_EV_TIMER_FIRE || type == ARGUS_EV_TIMER_ARM ||
	    type == ARGUS_EV_TIMER_CANCEL) {
		struct gref *r = gmap_get(&g->timer, ev->timer.obj);
		bool kernel = irq || !ev->tid || (ev->flags & ARGUS_F_KTHREAD);
		if (type == ARGUS_EV_TIMER_CANCEL) {
			gmap_del(&g->timer, ev->timer.obj);
			if (kernel)
				return;
		} else if (type == ARGUS_EV_TIMER_FIRE && (r && gw_vertex(g, r->src[0]))) {
			if (kernel && c) {
				/* the wake-ups of this interrupt carry the edge */
				c->timer_src = r->src[0];
				c->timer_ts = r->ts[0];
				return;
			}
		} else if (kernel) {
			return; /* a kernel re-arm keeps the thread that armed it */
		}
	} else if (irq || !ev->tid) {
		return; /* 001 P1: interrupt work is not the interrupted segment's */
	}

	struct gthread *t = thread_get(g, ev->tid);
	if (!t) {
		g->oom = true;
		return;
	}
	if (!t->pid)
		t->pid = ev->pid;
	if (ev->flags & ARGUS_F_KTHREAD)
		t->kworker = true;
	if (t->wake_pending && !completes_wait(type))
		wake_publish(g, t);

	switch (type) {
	case ARGUS_EV_PROC_FORK:
	case ARGUS_EV_THREAD_NEW: {
		struct gthread *ch = thread_get(g, ev->fork.child_tid);
		if (ch) {
			ch->pid = ev->fork.child_pid;
			set_comm(g, ch, ev->fork.comm);
		}
		break;
	}
	case ARGUS_EV_COMM:
		set_comm(g, t, ev->comm.comm);
		return;
	case ARGUS_EV_PROC_EXEC:
		set_comm(g, t, ev->exec.comm);
		break;
	case ARGUS_EV_THREAD_EXIT:
	case ARGUS_EV_PROC_EXIT:
		on_thread_exit(g, t, ts);
		return;
	case ARGUS_EV_MMAP:
		return;
	case ARGUS_EV_STACK:
		/* a wait stack of a blocked thread belongs to the segment that waited */
		attach_stack(g, t, t->cur ? t->cur : t->last, ev->stack.ustack);
		return;
	case ARGUS_EV_DISPATCH_BEGIN:
	case ARGUS_EV_LOOP_ITER_BEGIN:
	case ARGUS_EV_ASYNC_RUN_BEGIN:
		t->loop_thread = true;
		cut(g, t, ts, ARGUS_SPLIT_DISPATCH, ARGUS_LEFTOUT_KNOWN_BATCH,
		    type == ARGUS_EV_LOOP_ITER_BEGIN ? 0 : ARGUS_VF_DISPATCH);
		if (type != ARGUS_EV_LOOP_ITER_BEGIN && t->dispatch_depth < 255)
			t->dispatch_depth++;
		break;
	case ARGUS_EV_DISPATCH_END:
	case ARGUS_EV_LOOP_ITER_END:
	case ARGUS_EV_ASYNC_RUN_END: {
		/* the end belongs to the dispatch; what follows is a new segment */
		struct gvertex *v = gw_vertex(g, cur_segment(g, t, ts));
		if (v)
			account(v, ev, ts);
		close_segment(g, t, ts, false);
		t->cut_pending = true;
		if (type != ARGUS_EV_LOOP_ITER_END && t->dispatch_depth > 0)
			t->dispatch_depth--;
		return;
	}
	case ARGUS_EV_IPC_SEND:
	case ARGUS_EV_IPC_RECV:
		cur_segment(g, t, ts);
		on_ipc(g, t, ev, ts);
		break;
	}

	argus_vid cur = cur_segment(g, t, ts);
	struct gvertex *v = gw_vertex(g, cur);
	if (!v)
		return;
	account(v, ev, ts);

	switch (type) {
	case ARGUS_EV_SYS_ENTER: {
		uint16_t nr = ev->sys_enter.nr;
		t->in_sys = true;
		t->sys_nr = nr;
		t->sys_ts = ts;
		t->sys_seq++;
		t->nwakees = 0;
		atomic_fetch_add_explicit(&v->nsys, 1, memory_order_relaxed);
		atomic_fetch_or_explicit(&v->sys_set, 1ull << (nr % 64), memory_order_relaxed);
		break;
	}
	case ARGUS_EV_SYS_EXIT: {
		uint64_t dur = ev->sys_exit.dur_ns & ((1ull << 48) - 1);
		uint64_t ls = atomic_load_explicit(&v->long_sys, memory_order_relaxed);
		if (!ls || dur > (ls & ((1ull << 48) - 1)))
			atomic_store_explicit(&v->long_sys, (uint64_t)ev->sys_exit.nr << 48 | dur,
					      memory_order_relaxed);
		/* the result of the wait that ended the previous segment */
		struct gvertex *w = gw_vertex(g, t->wait_vid);
		if (w && t->wait_vid != cur) {
			uint64_t wv = atomic_load_explicit(&w->wait, memory_order_relaxed);
			wv = (wv & ~0xffffffffull) | (uint32_t)(int32_t)ev->sys_exit.ret;
			atomic_store_explicit(&w->wait, wv, memory_order_relaxed);
			t->wait_vid = 0;
		}
		t->in_sys = false;
		break;
	}
	case ARGUS_EV_FUTEX_WAKE:
		on_futex_wake(g, t, ev);
		break;
	case ARGUS_EV_COND_SIGNAL:
	case ARGUS_EV_COND_BROADCAST:
	case ARGUS_EV_SEM_POST:
	case ARGUS_EV_MUTEX_HANDOFF:
	case ARGUS_EV_COND_WAKE:
	case ARGUS_EV_SEM_WAIT:
		on_sync(g, t, ev, cur, ts);
		break;
	case ARGUS_EV_TIMER_ARM:
		remember(g, &g->timer, ev->timer.obj, cur, ts, 0);
		break;
	case ARGUS_EV_TIMER_FIRE: {
		/* fired in the thread itself (a GSource timeout, a timerfd read) */
		struct gref *r = gmap_get(&g->timer, ev->timer.obj);
		if (r && gw_vertex(g, r->src[0]))
			add_comm_edge(g, t, r->src[0], ARGUS_EDGE_TIMER, r->ts[0]);
		break;
	}
	case ARGUS_EV_ASYNC_POST:
		remember(g, &g->async, ev->async.obj, cur, ts, 0);
		break;
	case ARGUS_EV_ASYNC_RUN_BEGIN: {
		struct gref *r = gmap_get(&g->async, ev->async.obj);
		if (r && gw_vertex(g, r->src[0]))
			add_comm_edge(g, t, r->src[0], ARGUS_EDGE_ASYNC, r->ts[0]);
		break;
	}
	case ARGUS_EV_FLAG_WRITE:
		remember(g, &g->flag, ev->flag.addr, cur, ts, 0);
		break;
	case ARGUS_EV_FLAG_READ: {
		struct gref *r = gmap_get(&g->flag, ev->flag.addr);
		if (r && gw_vertex(g, r->src[0]))
			add_comm_edge(g, t, r->src[0], ARGUS_EDGE_FLAG, r->ts[0]);
		break;
	}
	case ARGUS_EV_DBUS_SEND: {
		const struct argus_ev_dbus *d = &ev->dbus;
		remember(g, &g->dbus, dbus_key(d), cur, ts, 0);
		if (d->reply_serial) {
			uint64_t k = mix64(d->conn ^ mix64(d->reply_serial)) | 1;
			struct gref *r = gmap_get(&g->reply, k);
			if (r && gw_vertex(g, r->src[0]))
				add_comm_edge(g, t, r->src[0], ARGUS_EDGE_REPLY, r->ts[0]);
			gmap_del(&g->reply, k);
		}
		break;
	}
	case ARGUS_EV_DBUS_RECV: {
		const struct argus_ev_dbus *d = &ev->dbus;
		uint64_t k = dbus_key(d);
		struct gref *r = gmap_get(&g->dbus, k);
		if (r && gw_vertex(g, r->src[0]))
			add_comm_edge(g, t, r->src[0], ARGUS_EDGE_DBUS, r->ts[0]);
		gmap_del(&g->dbus, k);
		if (d->msg_type == 1) /* a call: its reply depends on this segment */
			remember(g, &g->reply, mix64(d->conn ^ mix64(d->serial)) | 1, cur, ts, 0);
		break;
	}
	case ARGUS_EV_UI_INPUT:
		atomic_fetch_or_explicit(&v->flags, ARGUS_VF_UI, memory_order_relaxed);
		break;
	case ARGUS_EV_CPU_SAMPLE:
		attach_stack(g, t, cur, ev->stack.ustack);
		break;
	}
}

/* ---- public ---- */

void argus_graph_opts_default(struct argus_graph_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->window_ns = 300ull * 1000000000ull;
	o->mem_cap = 1ull << 30;
	o->slices = 20;
}

int argus_graph_new(struct argus_graph **out, const struct argus_graph_opts *opts)
{
	struct argus_graph *g = calloc(1, sizeof(*g));
	if (!g)
		return -1;
	argus_graph_opts_default(&g->opts);
	if (opts) {
		if (opts->window_ns)
			g->opts.window_ns = opts->window_ns;
		if (opts->mem_cap)
			g->opts.mem_cap = opts->mem_cap;
		if (opts->slices)
			g->opts.slices = opts->slices;
		g->opts.known_batch_comms = opts->known_batch_comms;
	}
	if (g->opts.slices > NSLOTS / 2)
		g->opts.slices = NSLOTS / 2;
	g->slice_ns = g->opts.window_ns / g->opts.slices;
	if (!g->slice_ns)
		g->slice_ns = 1;
	g->batch_comms = g->opts.known_batch_comms ? g->opts.known_batch_comms
						   : default_batch_comms;
	atomic_init(&g->oldest_gen, 1);
	atomic_init(&g->newest_gen, 1);
	pthread_mutex_init(&g->st_lock, NULL);
	for (size_t i = 0; i < sizeof(split_rules) / sizeof(split_rules[0]); i++)
		g->split_action[split_rules[i].type] = split_rules[i].action;
	*out = g;
	return 0;
}

void argus_graph_free(struct argus_graph *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->threads.cap; i++)
		if (g->threads.e[i].key)
			free(g->threads.e[i].thread);
	gmap_free(&g->threads);
	gtables_free(g);
	free(g->cpus);
	gw_free_all(g);
	pthread_mutex_destroy(&g->st_lock);
	free(g);
}

static void publish_stats(struct argus_graph *g)
{
	gw_fill_stats(g, &g->st);
	g->st.mem_cap = g->opts.mem_cap;
	pthread_mutex_lock(&g->st_lock);
	g->st_pub = g->st;
	pthread_mutex_unlock(&g->st_lock);
}

int argus_graph_ingest(struct argus_graph *g, const struct argus_event *ev, size_t n)
{
	uint32_t evicted = atomic_load_explicit(&g->oldest_gen, memory_order_relaxed);
	for (size_t i = 0; i < n; i++) {
		ingest_one(g, &ev[i]);
		if (++g->since_check >= 1024) {
			g->since_check = 0;
			gw_check_window(g);
		}
	}
	gw_check_window(g);
	uint32_t oldest = atomic_load_explicit(&g->oldest_gen, memory_order_relaxed);
	if (oldest != evicted) {
		struct gmap *maps[] = {&g->ipc, &g->async, &g->timer, &g->flag,
				       &g->cond, &g->sem, &g->dbus, &g->reply};
		for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++)
			gmap_sweep(g, maps[i], oldest);
	}
	gw_reclaim(g);
	publish_stats(g);
	if (g->oom) {
		g->oom = false;
		return -1;
	}
	return 0;
}

void argus_graph_add_stack(struct argus_graph *g, uint32_t id, const uint64_t *ips,
			   uint32_t depth)
{
	if (!gstack_add(g, id, ips, depth))
		g->oom = true;
}

void argus_graph_flush(struct argus_graph *g)
{
	for (size_t i = 0; i < g->threads.cap; i++) {
		struct gthread *t = g->threads.e[i].key ? g->threads.e[i].thread : NULL;
		if (!t)
			continue;
		wake_publish(g, t);
		adjacent_rule(g, t, true);
	}
	publish_stats(g);
}

void argus_graph_get_stats(struct argus_graph *g, struct argus_graph_stats *st)
{
	pthread_mutex_lock(&g->st_lock);
	*st = g->st_pub;
	pthread_mutex_unlock(&g->st_lock);
}

/* ---- the sink ---- */

static int sink_events(void *arg, const struct argus_event *ev, size_t n)
{
	return argus_graph_ingest(arg, ev, n);
}

static uint32_t sink_stack(void *arg, const uint64_t *ips, uint32_t depth)
{
	struct argus_graph *g = arg;
	/* ids are the writer's: the next free one (stacks are not deduplicated
	 * here; the producer interns them) */
	uint32_t id = (uint32_t)g->stacks_len + 1;
	while (gstack_get(g, id))
		id++;
	argus_graph_add_stack(g, id, ips, depth);
	return id;
}

struct argus_sink argus_graph_sink(struct argus_graph *g)
{
	return (struct argus_sink){.events = sink_events, .intern_stack = sink_stack, .arg = g};
}
