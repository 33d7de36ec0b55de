/*
 * test_graph_window.c - the sliding window: eviction by slice invalidates
 * handles detectably, the memory cap shortens the window and says so, and
 * every edge is an incoming edge of its later vertex, never backwards.
 */
#include "graph_events.h"
#include "test.h"

/* A small busy system: n rounds of a pipe ping-pong between two threads, a
 * futex hand-off, a timer sleep and an async post, step ns apart. */
static size_t workload(struct argus_event *ev, size_t cap, uint64_t t0, uint64_t step)
{
	size_t n = 0;
	uint64_t t = t0;
#define ADD(e)                                                                                     \
	do {                                                                                       \
		if (n < cap)                                                                       \
			ev[n++] = (e);                                                             \
		t += step;                                                                         \
	} while (0)
	while (n + 24 <= cap) {
		ADD(ev_sys_enter(t, 20, 21, T_READ));
		ADD(ev_switch(t, 20, 21, 1, 0, 0));
		ADD(ev_sys_enter(t, 10, 11, T_WRITE));
		ADD(ev_ipc(t, true, 10, 11, 0x11, 0, ARGUS_OBJ_PIPE, 8));
		ADD(ev_wakeup(t, 10, 11, 20, 21, 0));
		ADD(ev_sys_exit(t, 10, 11, T_WRITE, 8));
		ADD(ev_ipc(t, false, 20, 21, 0x11, 0, ARGUS_OBJ_PIPE, 8));
		ADD(ev_sys_exit(t, 20, 21, T_READ, 8));
		ADD(ev_obj(t, ARGUS_EV_ASYNC_POST, 20, 21, 0x55));
		ADD(ev_obj(t, ARGUS_EV_ASYNC_RUN_BEGIN, 10, 12, 0x55));
		ADD(ev_obj(t, ARGUS_EV_ASYNC_RUN_END, 10, 12, 0x55));
		ADD(ev_sys_enter(t, 10, 11, T_FUTEX));
		ADD(ev_switch(t, 10, 11, 1, 0, 0));
		ADD(ev_sys_enter(t, 20, 21, T_FUTEX));
		ADD(ev_wakeup(t, 20, 21, 10, 11, 0));
		ADD(ev_futex_wake(t, 20, 21, 0xF, 1));
		ADD(ev_sys_exit(t, 20, 21, T_FUTEX, 1));
		ADD(ev_sys_exit(t, 10, 11, T_FUTEX, 0));
		ADD(ev_sys_enter(t, 20, 21, T_NANOSLEEP));
		ADD(ev_obj(t, ARGUS_EV_TIMER_ARM, 20, 21, 0x77));
		ADD(ev_switch(t, 20, 21, 1, 0, 0));
		struct argus_event fire = ev_obj(t, ARGUS_EV_TIMER_FIRE, 0, 0, 0x77);
		fire.flags = ARGUS_F_HARDIRQ;
		ADD(fire);
		ADD(ev_wakeup(t, 0, 0, 20, 21, ARGUS_F_HARDIRQ));
		ADD(ev_sys_exit(t, 20, 21, T_NANOSLEEP, 0));
	}
#undef ADD
	return n;
}

TEST(edges_incoming_never_backwards)
{
	static struct argus_event ev[24 * 200];
	size_t n = workload(ev, 24 * 200, 1 * MS, 1000);
	struct argus_graph *g;
	ASSERT_EQ(argus_graph_new(&g, NULL), 0);
	ASSERT_EQ(argus_graph_ingest(g, ev, n), 0);
	argus_graph_flush(g);
	struct argus_graph_stats st;
	argus_graph_get_stats(g, &st);
	struct argus_graph_view v;
	argus_graph_view_begin(g, &v);
	uint64_t total = 0;
	int kinds = 0;
	bool seen[ARGUS_EDGE_KIND_MAX] = {0};
	struct argus_edge_info e[64];
	struct argus_vertex_info dst, src;
	for (argus_vid id = argus_graph_next_vertex(&v, 0); id;
	     id = argus_graph_next_vertex(&v, id)) {
		ASSERT(argus_graph_vertex(&v, id, &dst));
		size_t k = argus_graph_in_edges(&v, id, e, 64);
		ASSERT(k <= 64);
		total += k;
		for (size_t i = 0; i < k; i++) {
			ASSERT_U64_EQ(e[i].dst, id);
			ASSERT(e[i].src != id);
			ASSERT(argus_graph_vertex(&v, e[i].src, &src));
			ASSERT_MSG(e[i].ts >= src.start && e[i].ts <= dst.end,
			           "edge %s at %llu outside [%llu, %llu]",
			           argus_edge_kind_name(e[i].kind), (unsigned long long)e[i].ts,
			           (unsigned long long)src.start, (unsigned long long)dst.end);
			ASSERT(src.start <= dst.end);
			if (!seen[e[i].kind])
				kinds++;
			seen[e[i].kind] = true;
		}
	}
	ASSERT_U64_EQ(total, st.edges);
	ASSERT(seen[ARGUS_EDGE_IPC] && seen[ARGUS_EDGE_ASYNC] && seen[ARGUS_EDGE_TIMER] &&
	       seen[ARGUS_EDGE_FUTEX] && seen[ARGUS_EDGE_ADJACENT]);
	argus_graph_view_end(&v);
	argus_graph_free(g);
}

TEST(eviction_invalidates_handles)
{
	struct argus_graph_opts o;
	argus_graph_opts_default(&o);
	o.window_ns = 10 * SEC;
	o.slices = 10;
	struct argus_graph *g;
	ASSERT_EQ(argus_graph_new(&g, &o), 0);
	struct argus_event first = ev_sys_enter(0, 10, 11, T_WRITE);
	ASSERT_EQ(argus_graph_ingest(g, &first, 1), 0);
	struct argus_graph_view v;
	argus_graph_view_begin(g, &v);
	argus_vid old = argus_graph_next_vertex(&v, 0);
	struct argus_vertex_info x;
	ASSERT(argus_graph_vertex(&v, old, &x));
	argus_graph_view_end(&v);
	for (uint64_t t = 100 * MS; t <= 25 * SEC; t += 100 * MS) {
		struct argus_event e = ev_sys_enter(t, 20, 21, T_WRITE);
		ASSERT_EQ(argus_graph_ingest(g, &e, 1), 0);
	}
	argus_graph_view_begin(g, &v);
	ASSERT(!argus_graph_vertex(&v, old, &x));
	ASSERT_EQ(argus_graph_in_edges(&v, old, NULL, 0), 0);
	argus_graph_view_end(&v);
	/* the thread's open segment left the window: its next event opens anew */
	struct argus_event again = ev_sys_enter(25 * SEC + 1, 10, 11, T_WRITE);
	ASSERT_EQ(argus_graph_ingest(g, &again, 1), 0);
	argus_graph_view_begin(g, &v);
	bool found = false;
	for (argus_vid id = argus_graph_next_vertex(&v, 0); id;
	     id = argus_graph_next_vertex(&v, id))
		if (argus_graph_vertex(&v, id, &x) && x.tid == 11) {
			ASSERT_EQ(x.split, ARGUS_SPLIT_EVICTED);
			found = true;
		}
	ASSERT(found);
	argus_graph_view_end(&v);
	struct argus_graph_stats st;
	argus_graph_get_stats(g, &st);
	ASSERT(st.slices_evicted >= 14);
	ASSERT(st.window_held_ns <= 11 * SEC);
	ASSERT(!st.window_shortened);
	argus_graph_free(g);
}

TEST(memory_cap_shortens_window)
{
	struct argus_graph_opts o;
	argus_graph_opts_default(&o);
	o.mem_cap = 4 << 20;
	struct argus_graph *g;
	ASSERT_EQ(argus_graph_new(&g, &o), 0);
	static struct argus_event ev[24 * 1000];
	uint64_t t0 = 0;
	/* 240 s of trace, 2.4 M events: far more than 4 MiB holds */
	for (int round = 0; round < 100; round++) {
		size_t n = workload(ev, 24 * 1000, t0, 100000);
		ASSERT_EQ(argus_graph_ingest(g, ev, n), 0);
		t0 = ev[n - 1].ts + 100000;
	}
	struct argus_graph_stats st;
	argus_graph_get_stats(g, &st);
	ASSERT(st.window_shortened);
	ASSERT(st.cap_hits > 0);
	ASSERT(st.window_held_ns < st.window_ns);
	ASSERT_MSG(st.bytes_held <= o.mem_cap, "held %llu", (unsigned long long)st.bytes_held);
	ASSERT(st.events_held < st.events);
	argus_graph_free(g);
}

/* A flood of keys seen once (posts never run: a storm's hooked producers
 * signal a new object each time), all in one long segment: the matching
 * table alone would hold 200 MB; its oldest entries are dropped, counted,
 * before it grows past the cap (growing holds old and new slots at once),
 * and their room is given back, so the cap holds. */
TEST(a_flood_of_unmatched_keys_stays_under_the_cap)
{
	struct argus_graph_opts o;
	argus_graph_opts_default(&o);
	o.mem_cap = 4 << 20;
	struct argus_graph *g;
	ASSERT_EQ(argus_graph_new(&g, &o), 0);
	static struct argus_event ev[10000];
	uint64_t t = 1, obj = 1;
	/* 200 s of trace, 2 M posts of distinct objects, none of them run */
	uint64_t most = 0;
	for (int round = 0; round < 200; round++) {
		for (size_t i = 0; i < 10000; i++, t += 10000)
			ev[i] = ev_obj(t, ARGUS_EV_ASYNC_POST, 30, 31, obj++);
		ASSERT_EQ(argus_graph_ingest(g, ev, 10000), 0);
		struct argus_graph_stats st;
		argus_graph_get_stats(g, &st);
		most = st.bytes_held > most ? st.bytes_held : most;
	}
	struct argus_graph_stats st;
	argus_graph_get_stats(g, &st);
	ASSERT_MSG(most <= o.mem_cap, "held up to %llu of a cap of %llu", (unsigned long long)most,
	           (unsigned long long)o.mem_cap);
	ASSERT(st.table_drops > 0);    /* counted */
	ASSERT(st.events_held > 0);    /* the newest records stay */
	ASSERT(st.table_drops < 2000000); /* the recent entries stay too */
	argus_graph_free(g);
}

/* argus_graph_vertex_key agrees with argus_graph_vertex on every vertex and
 * fails like it on evicted and bad handles. */
TEST(vertex_key_matches_vertex)
{
	struct argus_graph_opts o;
	argus_graph_opts_default(&o);
	o.window_ns = 10 * SEC;
	o.slices = 10;
	struct argus_graph *g;
	ASSERT_EQ(argus_graph_new(&g, &o), 0);
	static struct argus_event ev[24 * 200];
	size_t n = workload(ev, 24 * 200, 1 * MS, 1000);
	ASSERT_EQ(argus_graph_ingest(g, ev, n), 0);
	struct argus_graph_view v;
	argus_graph_view_begin(g, &v);
	argus_vid old = argus_graph_next_vertex(&v, 0);
	size_t seen = 0;
	for (argus_vid id = old; id; id = argus_graph_next_vertex(&v, id)) {
		struct argus_vertex_info x;
		uint32_t pid, tid;
		uint64_t start;
		ASSERT(argus_graph_vertex(&v, id, &x));
		ASSERT(argus_graph_vertex_key(&v, id, &pid, &tid, &start));
		ASSERT_EQ(pid, x.pid);
		ASSERT_EQ(tid, x.tid);
		ASSERT_U64_EQ(start, x.start);
		seen++;
	}
	ASSERT(seen > 100);
	uint32_t pid, tid;
	uint64_t start;
	ASSERT(!argus_graph_vertex_key(&v, 0, &pid, &tid, &start));
	argus_graph_view_end(&v);
	for (uint64_t t = 100 * MS; t <= 25 * SEC; t += 100 * MS) {
		struct argus_event e = ev_sys_enter(t, 20, 21, T_WRITE);
		ASSERT_EQ(argus_graph_ingest(g, &e, 1), 0);
	}
	argus_graph_view_begin(g, &v);
	ASSERT(!argus_graph_vertex_key(&v, old, &pid, &tid, &start));
	argus_graph_view_end(&v);
	argus_graph_free(g);
}

TEST_MAIN(TEST_ENTRY(edges_incoming_never_backwards), TEST_ENTRY(eviction_invalidates_handles),
          TEST_ENTRY(memory_cap_shortens_window),
          TEST_ENTRY(a_flood_of_unmatched_keys_stays_under_the_cap), TEST_ENTRY(vertex_key_matches_vertex))
