/*
 * test_beam_search.c - Algorithm 1 and the critical-path baseline on
 * hand-built graphs (struct argus_beam_graph over a small edge list).
 * Vertex ids are small integers; edges are (src -> dst, strength).
 */
#include <string.h>

#include "beam.h"
#include "test.h"

#define MAXV 256
#define MAXE 1024

struct hg {
	uint32_t flags[MAXV];
	struct argus_edge_info e[MAXE];
	size_t ne;
	uint64_t in_calls;
};

static struct hg G;

static bool hg_vertex(void *arg, argus_vid id, struct argus_vertex_info *out)
{
	struct hg *g = arg;
	if (!id || id >= MAXV)
		return false;
	memset(out, 0, sizeof(*out));
	out->id = id;
	out->tid = (uint32_t)id;
	out->flags = g->flags[id];
	return true;
}

static size_t hg_in(void *arg, argus_vid id, struct argus_edge_info *out, size_t cap)
{
	struct hg *g = arg;
	size_t n = 0;
	g->in_calls++;
	for (size_t i = 0; i < g->ne; i++)
		if (g->e[i].dst == id) {
			if (n < cap)
				out[n] = g->e[i];
			n++;
		}
	return n;
}

static struct argus_beam_graph graph(void)
{
	struct argus_beam_graph g = {hg_vertex, hg_in, &G};
	return g;
}

static void reset(void)
{
	memset(&G, 0, sizeof(G));
}

static void edge(argus_vid src, argus_vid dst, int strength, uint64_t ts)
{
	G.e[G.ne++] = (struct argus_edge_info){
	    .src = src, .dst = dst, .ts = ts, .kind = ARGUS_EDGE_IPC, .strength = (int8_t)strength};
}

static struct argus_beam_params params(void)
{
	struct argus_beam_params p;
	argus_beam_params_default(&p);
	return p;
}

TEST(defaults_are_the_papers)
{
	struct argus_beam_params p = params();
	ASSERT_EQ(p.width, 5);
	ASSERT_EQ(p.lookback, 5);
	ASSERT_EQ(p.a, 3);
	ASSERT_EQ(p.b, 2);
	ASSERT(!p.no_weak_edges);
}

TEST(chain_of_strong_edges_ends_at_no_incoming_edge)
{
	reset();
	edge(2, 1, ARGUS_STRONG, 10);
	edge(3, 2, ARGUS_STRONG, 9);
	edge(4, 3, ARGUS_WEAK, 8);
	struct argus_beam_graph g = graph();
	struct argus_beam_params p = params();
	struct argus_path out[5];
	ASSERT_EQ(argus_beam_search(&g, 1, &p, out, 5, NULL), 1);
	ASSERT_EQ(out[0].n, 4);
	ASSERT_U64_EQ(out[0].v[3], 4);
	ASSERT(out[0].ended);
	/* penalty: 2 strong (3*-1+2 each) + 1 weak (3*1+2) = -2 + 5 */
	ASSERT_EQ(out[0].penalty, 3);
}

TEST(path_ends_at_ui_vertex)
{
	reset();
	edge(2, 1, ARGUS_STRONG, 10);
	edge(3, 2, ARGUS_STRONG, 9); /* 3 consumed UI input */
	edge(4, 3, ARGUS_STRONG, 8);
	G.flags[3] = ARGUS_VF_UI;
	struct argus_beam_graph g = graph();
	struct argus_beam_params p = params();
	struct argus_path out[5];
	ASSERT_EQ(argus_beam_search(&g, 1, &p, out, 5, NULL), 1);
	ASSERT_EQ(out[0].n, 3);
	ASSERT_U64_EQ(out[0].v[2], 3);
	ASSERT(out[0].ended);
}

TEST(start_vertex_being_ui_does_not_end_the_search)
{
	reset();
	G.flags[1] = ARGUS_VF_UI;
	edge(2, 1, ARGUS_STRONG, 10);
	struct argus_beam_graph g = graph();
	struct argus_beam_params p = params();
	struct argus_path out[5];
	ASSERT_EQ(argus_beam_search(&g, 1, &p, out, 5, NULL), 1);
	ASSERT_EQ(out[0].n, 2);
}

TEST(strong_path_ranks_before_weak_path)
{
	reset();
	edge(2, 1, ARGUS_WEAK, 10);   /* 1 <-weak- 2 */
	edge(3, 1, ARGUS_STRONG, 9);  /* 1 <-strong- 3 */
	edge(4, 1, ARGUS_BOOSTED, 8); /* 1 <-boosted- 4 */
	struct argus_beam_graph g = graph();
	struct argus_beam_params p = params();
	struct argus_path out[5];
	ASSERT_EQ(argus_beam_search(&g, 1, &p, out, 5, NULL), 3);
	ASSERT_U64_EQ(out[0].v[1], 3);
	ASSERT_U64_EQ(out[1].v[1], 4);
	ASSERT_U64_EQ(out[2].v[1], 2);
	ASSERT(out[0].penalty < out[1].penalty && out[1].penalty < out[2].penalty);
}

TEST(weak_edge_then_strong_chain_survives_lookback)
{
	/* the paper's example: a weak edge followed by strong ones beats a
	 * strong edge followed by weak ones, once the lookback has seen both */
	reset();
	edge(2, 1, ARGUS_WEAK, 10);
	for (argus_vid v = 2; v < 7; v++)
		edge(v + 1, v, ARGUS_STRONG, 10 - v);
	edge(20, 1, ARGUS_STRONG, 10);
	for (argus_vid v = 20; v < 25; v++)
		edge(v + 1, v, ARGUS_WEAK, 10);
	struct argus_beam_graph g = graph();
	struct argus_beam_params p = params();
	p.width = 1;
	struct argus_path out[1];
	ASSERT_EQ(argus_beam_search(&g, 1, &p, out, 1, NULL), 1);
	ASSERT_U64_EQ(out[0].v[1], 2);
}

TEST(beam_width_is_honoured)
{
	/* a fan-in of 20 sources, each with a chain behind it */
	reset();
	for (argus_vid s = 2; s < 22; s++) {
		edge(s, 1, ARGUS_WEAK, s);
		edge(s + 100, s, ARGUS_STRONG, s);
	}
	struct argus_beam_graph g = graph();
	struct argus_beam_params p = params();
	struct argus_path out[32];
	int n = argus_beam_search(&g, 1, &p, out, 32, NULL);
	ASSERT_EQ(n, 5);
	p.width = 3;
	ASSERT_EQ(argus_beam_search(&g, 1, &p, out, 32, NULL), 3);
}

TEST(lookback_prunes_every_l_steps)
{
	/* a binary tree 12 levels deep: without pruning the states would
	 * double each step; with lookback 2 they are cut back to the width */
	reset();
	argus_vid next = 2;
	argus_vid level[2048], nl = 1;
	level[0] = 1;
	for (int d = 0; d < 7; d++) {
		argus_vid nlev[2048], nn = 0;
		for (argus_vid i = 0; i < nl && next + 2 < MAXV; i++) {
			edge(next, level[i], ARGUS_STRONG, 1);
			edge(next + 1, level[i], ARGUS_WEAK, 1);
			nlev[nn++] = next;
			nlev[nn++] = next + 1;
			next += 2;
		}
		memcpy(level, nlev, nn * sizeof(nlev[0]));
		nl = nn;
	}
	struct argus_beam_graph g = graph();
	struct argus_beam_params p = params();
	struct argus_beam_stats st;
	struct argus_path out[8];
	p.lookback = 2;
	ASSERT(argus_beam_search(&g, 1, &p, out, 8, &st) > 0);
	ASSERT(st.pruned > 0);
	uint64_t pruned_l2 = st.pruned;
	p.lookback = 5;
	ASSERT(argus_beam_search(&g, 1, &p, out, 8, &st) > 0);
	ASSERT(st.pruned != pruned_l2);
	/* the best path is all strong */
	for (uint32_t i = 0; i + 1 < out[0].n; i++)
		ASSERT_EQ(out[0].edge[i].strength, ARGUS_STRONG);
}

TEST(visited_set_prevents_loops)
{
	reset();
	edge(2, 1, ARGUS_STRONG, 10);
	edge(3, 2, ARGUS_STRONG, 9);
	edge(1, 3, ARGUS_STRONG, 8); /* a cycle 1 <- 2 <- 3 <- 1 */
	edge(2, 3, ARGUS_WEAK, 8);
	struct argus_beam_graph g = graph();
	struct argus_beam_params p = params();
	struct argus_path out[5];
	int n = argus_beam_search(&g, 1, &p, out, 5, NULL);
	ASSERT(n >= 1);
	for (int k = 0; k < n; k++) {
		ASSERT(out[k].n <= 3);
		for (uint32_t i = 0; i < out[k].n; i++)
			for (uint32_t j = i + 1; j < out[k].n; j++)
				ASSERT(out[k].v[i] != out[k].v[j]);
	}
	ASSERT(G.in_calls < 50);
}

TEST(no_weak_edges_baseline_ignores_weak_edges)
{
	reset();
	edge(2, 1, ARGUS_WEAK, 10);
	edge(3, 1, ARGUS_STRONG, 9);
	edge(4, 2, ARGUS_STRONG, 8);
	struct argus_beam_graph g = graph();
	struct argus_beam_params p = params();
	p.no_weak_edges = true;
	struct argus_path out[5];
	ASSERT_EQ(argus_beam_search(&g, 1, &p, out, 5, NULL), 1);
	ASSERT_U64_EQ(out[0].v[1], 3);
}

TEST(critical_path_follows_latest_waker)
{
	reset();
	edge(2, 1, ARGUS_STRONG, 10);
	edge(3, 1, ARGUS_WEAK, 20); /* the latest */
	edge(4, 3, ARGUS_WEAK, 5);
	struct argus_beam_graph g = graph();
	struct argus_beam_params p = params();
	struct argus_path out;
	ASSERT_EQ(argus_critical_path(&g, 1, &p, &out), 1);
	ASSERT_EQ(out.n, 3);
	ASSERT_U64_EQ(out.v[1], 3);
	ASSERT_U64_EQ(out.v[2], 4);
	ASSERT(out.ended);
}

TEST(evicted_or_missing_start_gives_no_path)
{
	reset();
	struct argus_beam_graph g = graph();
	struct argus_beam_params p = params();
	struct argus_path out[5];
	ASSERT_EQ(argus_beam_search(&g, 0, &p, out, 5, NULL), 0);
	edge(999, 1, ARGUS_STRONG, 1); /* a source outside the graph (evicted) */
	ASSERT_EQ(argus_beam_search(&g, 1, &p, out, 5, NULL), 1);
	ASSERT_EQ(out[0].n, 1);
}

TEST(depth_is_capped)
{
	reset();
	for (argus_vid v = 1; v < 200; v++)
		edge(v + 1, v, ARGUS_STRONG, 1);
	struct argus_beam_graph g = graph();
	struct argus_beam_params p = params();
	p.max_depth = 10;
	struct argus_path out[5];
	ASSERT_EQ(argus_beam_search(&g, 1, &p, out, 5, NULL), 1);
	ASSERT_EQ(out[0].n, 11);
	ASSERT(!out[0].ended);
}

TEST_MAIN(TEST_ENTRY(defaults_are_the_papers),
          TEST_ENTRY(chain_of_strong_edges_ends_at_no_incoming_edge),
          TEST_ENTRY(path_ends_at_ui_vertex),
          TEST_ENTRY(start_vertex_being_ui_does_not_end_the_search),
          TEST_ENTRY(strong_path_ranks_before_weak_path),
          TEST_ENTRY(weak_edge_then_strong_chain_survives_lookback),
          TEST_ENTRY(beam_width_is_honoured), TEST_ENTRY(lookback_prunes_every_l_steps),
          TEST_ENTRY(visited_set_prevents_loops),
          TEST_ENTRY(no_weak_edges_baseline_ignores_weak_edges),
          TEST_ENTRY(critical_path_follows_latest_waker),
          TEST_ENTRY(evicted_or_missing_start_gives_no_path), TEST_ENTRY(depth_is_capped))
