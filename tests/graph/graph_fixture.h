/*
 * graph_fixture.h - what test_graph_rules.c and test_graph_edges.c share: a
 * graph built from a tiny hand-written trace, and its segments and edges.
 */
#ifndef ARGUS_TEST_GRAPH_FIXTURE_H
#define ARGUS_TEST_GRAPH_FIXTURE_H

#include "graph_events.h"
#include "test.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

struct fixture {
	struct argus_graph *g;
	struct argus_graph_view v;
	struct argus_graph_stats st;
};

static inline void run(struct fixture *f, const struct argus_graph_opts *o,
                       const struct argus_event *ev, size_t n)
{
	ASSERT_EQ(argus_graph_new(&f->g, o), 0);
	ASSERT_EQ(argus_graph_ingest(f->g, ev, n), 0);
	argus_graph_flush(f->g);
	argus_graph_get_stats(f->g, &f->st);
	argus_graph_view_begin(f->g, &f->v);
	/* the hand-written traces are in time order, except where a test says so */
	uint64_t late = 0;
	for (size_t i = 0; i < n; i++)
		late += (ev[i].flags & ARGUS_F_LATE) != 0;
	ASSERT_U64_EQ(f->st.events_late, late);
}

static inline void done(struct fixture *f)
{
	argus_graph_view_end(&f->v);
	argus_graph_free(f->g);
}

/* The segments of one thread, in order. */
static inline size_t segs(struct fixture *f, uint32_t tid, argus_vid *out, size_t cap)
{
	size_t n = 0;
	struct argus_vertex_info x;
	for (argus_vid id = argus_graph_next_vertex(&f->v, 0); id;
	     id = argus_graph_next_vertex(&f->v, id))
		if (argus_graph_vertex(&f->v, id, &x) && x.tid == tid && n < cap)
			out[n++] = id;
	return n;
}

static inline argus_vid seg(struct fixture *f, uint32_t tid, size_t i)
{
	argus_vid s[16];
	size_t n = segs(f, tid, s, 16);
	ASSERT_MSG(i < n, "thread %u has %zu segments, wanted #%zu", tid, n, i);
	return s[i];
}

static inline size_t in_count(struct fixture *f, argus_vid dst)
{
	return argus_graph_in_edges(&f->v, dst, NULL, 0);
}

/* Edges into dst from src of a kind; strength returned through *s. */
static inline int edge(struct fixture *f, argus_vid dst, argus_vid src, int kind, int *s)
{
	struct argus_edge_info e[32];
	size_t n = argus_graph_in_edges(&f->v, dst, e, 32);
	int hits = 0;
	for (size_t i = 0; i < n && i < 32; i++) {
		if (e[i].src == src && e[i].kind == kind) {
			hits++;
			if (s)
				*s = e[i].strength;
		}
	}
	return hits;
}

static inline int kind_count(struct fixture *f, argus_vid dst, int kind)
{
	struct argus_edge_info e[32];
	size_t n = argus_graph_in_edges(&f->v, dst, e, 32);
	int hits = 0;
	for (size_t i = 0; i < n && i < 32; i++)
		hits += e[i].kind == kind;
	return hits;
}

#endif
