/*
 * test_graph_user_rules.c - a user's rules changed while the graph is
 * built (argus_graph_set_user_rules: argus start reading its rules file
 * again): the threads already known follow the new rules from then on, and
 * the edges made before stay.
 */
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "graph_events.h"
#include "test.h"

/* Thread 21 (comm "beat") wakes thread 11's futex wait twice: before and
 * after `ignore wakeup beat` is set, then after it is taken away. */
TEST(ignore_wakeup_set_while_ingesting)
{
	struct argus_graph *g;
	ASSERT_EQ(argus_graph_new(&g, NULL), 0);
	struct argus_event head[] = {ev_comm(0, 20, 21, "beat")};
	ASSERT_EQ(argus_graph_ingest(g, head, 1), 0);
	static const char *const ignore[] = {"beat", NULL};
	for (int round = 0; round < 3; round++) {
		if (round == 1)
			argus_graph_set_user_rules(g, NULL, ignore);
		if (round == 2)
			argus_graph_set_user_rules(g, NULL, NULL);
		uint64_t t = (uint64_t)(round + 1) * 100 * MS;
		struct argus_event ev[] = {
		    ev_sys_enter(t + 1 * MS, 10, 11, T_FUTEX),
		    ev_switch(t + 2 * MS, 10, 11, 1, 0, 0),
		    ev_sys_enter(t + 3 * MS, 20, 21, T_FUTEX),
		    ev_wakeup(t + 4 * MS, 20, 21, 10, 11, 0),
		    ev_sys_exit(t + 5 * MS, 20, 21, T_FUTEX, 1),
		    ev_sys_exit(t + 6 * MS, 10, 11, T_FUTEX, 0),
		};
		ASSERT_EQ(argus_graph_ingest(g, ev, sizeof(ev) / sizeof(ev[0])), 0);
		argus_graph_flush(g);
		struct argus_graph_stats st;
		argus_graph_get_stats(g, &st);
		/* rounds 0 and 2 wake with an edge; round 1's wake-up is ignored */
		ASSERT_U64_EQ(st.wakeups_ignored, round >= 1 ? 1 : 0);
	}
	/* thread 11's segments that began at a wake-up: the edges of rounds 0
	 * and 2 come from thread 21, round 1's from nobody */
	struct argus_graph_view v;
	argus_graph_view_begin(g, &v);
	int from_beat = 0;
	struct argus_vertex_info x;
	for (argus_vid id = argus_graph_next_vertex(&v, 0); id;
	     id = argus_graph_next_vertex(&v, id)) {
		if (!argus_graph_vertex(&v, id, &x) || x.tid != 11 || x.start < 100 * MS)
			continue;
		struct argus_edge_info e[8];
		size_t n = argus_graph_in_edges(&v, id, e, 8);
		for (size_t i = 0; i < n && i < 8; i++) {
			struct argus_vertex_info s;
			if (argus_graph_vertex(&v, e[i].src, &s) && s.tid == 21)
				from_beat++;
		}
	}
	argus_graph_view_end(&v);
	argus_graph_free(g);
	ASSERT_EQ(from_beat, 2);
}

TEST_MAIN(TEST_ENTRY(ignore_wakeup_set_while_ingesting))
