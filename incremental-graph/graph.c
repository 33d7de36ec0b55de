/*
 * graph.c - the writer: events in, segments and annotated edges out.
 *
 * Two tables drive it, each row citing the paper (000 = "Argus", USENIX ATC
 * 2021, 001 = the Argus workshop paper with patterns P1-P8):
 *   event_rules[]  (graph_ingest.c) each event type's handler, the split
 *                  action and the edge kind it applies;
 *   edge_rules[]   the strength of every edge kind (Table 1).
 * docs/graph.md shows both tables and the cases they leave out.
 */
#include <stdlib.h>
#include <string.h>

#include "graph_internal.h"

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

static const char *const default_batch_comms[] = {"dbus-daemon", "dbus-broker", "Xorg", "Xwayland",
                                                  NULL};

/* two enums of one meaning: compared as ints (gcc's -Wenum-compare) */
#define SAME_WAIT(k) ((int)ARGUS_WAIT_##k == (int)ARGUS_SYSW_##k)
_Static_assert(SAME_WAIT(FUTEX) && SAME_WAIT(POLL) && SAME_WAIT(READ) && SAME_WAIT(SLEEP) &&
                   SAME_WAIT(CHILD) && SAME_WAIT(OTHER),
               "wait kinds are the syscall table's wait column (event/syscalls.h)");
#undef SAME_WAIT

uint8_t gr_wait_kind_of(bool in_sys, uint16_t nr)
{
	return in_sys ? (uint8_t)argus_syscall_wait(nr) : ARGUS_WAIT_OTHER;
}

uint8_t gr_thread_wait_kind(const struct gthread *t)
{
	uint8_t k = gr_wait_kind_of(t->in_sys, t->sys_nr);
	return k == ARGUS_WAIT_POLL && t->sys_peer ? ARGUS_WAIT_READ : k;
}

int8_t gr_edge_strength(uint8_t kind)
{
	return edge_rules[kind].strength;
}

/* ---- names ---- */

const char *argus_edge_kind_name(unsigned kind)
{
	static const char *const n[ARGUS_EDGE_KIND_MAX] = {
	    "ipc",    "dbus",      "reply",   "async", "timer",  "flag",
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

struct gthread *gr_thread_get(struct argus_graph *g, uint32_t tid)
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

void gr_thread_drop(struct argus_graph *g, struct gthread *t)
{
	gmap_del(&g->threads, (uint64_t)t->tid + 1);
	g->bytes_tables -= sizeof(*t);
	g->st.threads--;
	free(t);
}

struct gcpu *gr_cpu_get(struct argus_graph *g, uint16_t cpu)
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

void gr_set_comm(struct argus_graph *g, struct gthread *t, const char *comm)
{
	memcpy(t->comm, comm, ARGUS_COMM_LEN);
	t->comm[ARGUS_COMM_LEN - 1] = 0;
	if (is_kworker_comm(t->comm))
		t->kworker = true;
	t->batch_known = false;
	for (const char *const *c = g->batch_comms; *c; c++)
		if (!strncmp(t->comm, *c, ARGUS_COMM_LEN - 1))
			t->batch_known = true;
	/* a user's rules (graph.h) */
	for (const char *const *c = g->opts.user_batch_comms; c && *c; c++)
		if (!strncmp(t->comm, *c, ARGUS_COMM_LEN - 1))
			t->batch_known = true;
	t->wake_ignored = false;
	for (const char *const *c = g->opts.ignore_wake_comms; c && *c; c++)
		if (!strncmp(t->comm, *c, ARGUS_COMM_LEN - 1))
			t->wake_ignored = true;
}

void argus_graph_set_user_rules(struct argus_graph *g, const char *const *user_batch_comms,
                                const char *const *ignore_wake_comms)
{
	g->opts.user_batch_comms = user_batch_comms;
	g->opts.ignore_wake_comms = ignore_wake_comms;
	size_t pos = 0;
	struct gref *r;
	while ((r = argus_hmap_next(&g->threads.h, &pos, NULL))) {
		char comm[ARGUS_COMM_LEN];
		if (!r->thread || !r->thread->comm[0])
			continue;
		memcpy(comm, r->thread->comm, sizeof(comm));
		gr_set_comm(g, r->thread, comm);
	}
}

/* ---- edges ---- */

void gr_add_edge(struct argus_graph *g, argus_vid dst, argus_vid src, uint8_t kind, int8_t strength,
                 uint64_t ts)
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
	/* the later vertex reaches at least the edge's time before the edge shows */
	if (atomic_load_explicit(&d->end, memory_order_relaxed) < ts)
		atomic_store_explicit(&d->end, ts, memory_order_relaxed);
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

void gr_add_rule_edge(struct argus_graph *g, argus_vid dst, argus_vid src, uint8_t kind,
                      uint64_t ts)
{
	gr_add_edge(g, dst, src, kind, edge_rules[kind].strength, ts);
}

/* Publish the wake-up edge that no communication explained (weak). */
void gr_wake_publish(struct argus_graph *g, struct gthread *t)
{
	if (!t->wake_pending)
		return;
	t->wake_pending = false;
	gr_add_edge(g, t->cur ? t->cur : t->last, t->wake_src, t->wake_kind, t->wake_strength,
	            t->wake_ts);
}

/* A communication edge into the thread's current segment; when it comes
 * from the vertex whose wake-up opened the segment, it explains that
 * wake-up, which is then not an edge of its own. */
void gr_add_comm_edge(struct argus_graph *g, struct gthread *t, argus_vid src, uint8_t kind,
                      uint64_t ts)
{
	if (!src || src == t->cur)
		return;
	if (t->wake_pending && t->wake_src == src) {
		t->wake_pending = false;
		g->st.wakeups_merged++;
	}
	gr_add_rule_edge(g, t->cur, src, kind, ts);
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
void gr_adjacent_rule(struct argus_graph *g, struct gthread *t, bool force)
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
			gr_add_edge(g, dst, src, ARGUS_EDGE_ADJACENT, ARGUS_BOOSTED, ts);
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
	gr_add_rule_edge(g, dst, src, ARGUS_EDGE_ADJACENT, ts);
}

/* ---- segments ---- */

void gr_close_segment(struct argus_graph *g, struct gthread *t, uint64_t ts, bool waited)
{
	struct gvertex *v = gw_vertex(g, t->cur);
	if (t->wake_pending)
		gr_wake_publish(g, t);
	if (v) {
		atomic_store_explicit(&v->end, ts, memory_order_relaxed);
		uint32_t f = atomic_load_explicit(&v->flags, memory_order_relaxed) & ~ARGUS_VF_OPEN;
		if (waited) {
			f |= ARGUS_VF_WAITED;
			uint64_t w = (uint64_t)gr_thread_wait_kind(t) << 48 |
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
	t->answered = false;
}

argus_vid gr_open_segment(struct argus_graph *g, struct gthread *t, uint64_t ts, uint8_t split,
                          uint8_t adj_reason, uint32_t flags)
{
	gr_adjacent_rule(g, t, true);
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
	t->answered = false;
	if (v->prev) {
		t->adj_src = v->prev;
		t->adj_dst = id;
		t->adj_reason = t->kworker ? ARGUS_LEFTOUT_KWORKER : adj_reason;
		gr_adjacent_rule(g, t, false);
	}
	return id;
}

/* The thread's open segment, opened when events arrive without one (the
 * first event seen, a missed wake-up, or the segment left the window). */
argus_vid gr_cur_segment(struct argus_graph *g, struct gthread *t, uint64_t ts)
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
	return gr_open_segment(g, t, ts, split, reason, 0);
}

/* A cut without a wait: a dispatch begins, or a batch split. An empty
 * segment is not cut again (it becomes the new one). */
void gr_cut(struct argus_graph *g, struct gthread *t, uint64_t ts, uint8_t split, uint8_t reason,
            uint32_t flags)
{
	struct gvertex *v = gw_vertex(g, t->cur);
	if (v && atomic_load_explicit(&v->nevents, memory_order_relaxed) == 0) {
		atomic_fetch_or_explicit(&v->flags, flags, memory_order_relaxed);
		return;
	}
	if (v)
		gr_close_segment(g, t, ts, false);
	gr_open_segment(g, t, ts, split, reason, flags);
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
		g->opts.user_batch_comms = opts->user_batch_comms;
		g->opts.ignore_wake_comms = opts->ignore_wake_comms;
	}
	if (g->opts.slices > NSLOTS / 2)
		g->opts.slices = NSLOTS / 2;
	g->slice_ns = g->opts.window_ns / g->opts.slices;
	if (!g->slice_ns)
		g->slice_ns = 1;
	g->batch_comms =
	    g->opts.known_batch_comms ? g->opts.known_batch_comms : default_batch_comms;
	atomic_init(&g->oldest_gen, 1);
	atomic_init(&g->newest_gen, 1);
	pthread_mutex_init(&g->st_lock, NULL);
	*out = g;
	return 0;
}

void argus_graph_free(struct argus_graph *g)
{
	if (!g)
		return;
	size_t pos = 0;
	struct gref *r;
	while ((r = argus_hmap_next(&g->threads.h, &pos, NULL)))
		free(r->thread);
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

/* The matching tables' entries whose vertices all left the window go. */
void gr_sweep_tables(struct argus_graph *g)
{
	uint32_t oldest = atomic_load_explicit(&g->oldest_gen, memory_order_relaxed);
	struct gmap *maps[] = {&g->ipc, &g->async, &g->timer, &g->flag,     &g->cond,
	                       &g->sem, &g->dbus,  &g->reply, &g->ipc_wait, &g->obj_reader,
	                       &g->listener};
	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++)
		gmap_sweep(g, maps[i], oldest);
	g->swept_gen = oldest;
}

void gr_drop_tables(struct argus_graph *g)
{
	uint64_t now = atomic_load_explicit(&g->now, memory_order_relaxed);
	struct gmap *maps[] = {&g->ipc, &g->async, &g->timer, &g->flag,     &g->cond,
	                       &g->sem, &g->dbus,  &g->reply, &g->ipc_wait, &g->obj_reader,
	                       &g->listener};
	uint64_t before = now > g->slice_ns / 2 ? now - g->slice_ns / 2 : 0;
	for (int pass = 0; pass < 2 && gw_bytes(g) > g->opts.mem_cap; pass++) {
		for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++)
			g->st.table_drops += gmap_drop_before(g, maps[i], before);
		before = UINT64_MAX; /* not enough: every entry */
	}
}

int argus_graph_ingest(struct argus_graph *g, const struct argus_event *ev, size_t n)
{
	uint32_t evicted = atomic_load_explicit(&g->oldest_gen, memory_order_relaxed);
	for (size_t i = 0; i < n; i++) {
		gr_ingest_one(g, &ev[i]);
		if (++g->since_check >= 1024) {
			g->since_check = 0;
			gw_check_window(g);
		}
	}
	gw_check_window(g);
	uint32_t oldest = atomic_load_explicit(&g->oldest_gen, memory_order_relaxed);
	if (oldest != evicted && oldest != g->swept_gen)
		gr_sweep_tables(g);
	gw_reclaim(g);
	publish_stats(g);
	if (g->oom) {
		g->oom = false;
		return -1;
	}
	return 0;
}

void argus_graph_add_stack(struct argus_graph *g, uint32_t id, const uint64_t *ips, uint32_t depth)
{
	if (!gstack_add(g, id, ips, depth))
		g->oom = true;
}

void argus_graph_flush(struct argus_graph *g)
{
	size_t pos = 0;
	struct gref *r;
	while ((r = argus_hmap_next(&g->threads.h, &pos, NULL))) {
		struct gthread *t = r->thread;
		if (!t)
			continue;
		gr_wake_publish(g, t);
		gr_adjacent_rule(g, t, true);
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
	uint32_t id = (uint32_t)g->stacks.len + 1;
	while (gstack_get(g, id))
		id++;
	argus_graph_add_stack(g, id, ips, depth);
	return id;
}

struct argus_sink argus_graph_sink(struct argus_graph *g)
{
	return (struct argus_sink){.events = sink_events, .intern_stack = sink_stack, .arg = g};
}
