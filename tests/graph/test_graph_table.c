/*
 * test_graph_table.c - the graph's event table is whole: every split action
 * is some row's, every row that splits or adds an edge cites the paper, and
 * a type with no row is only counted (docs/graph.md, the event rules).
 */
#include "graph_internal.h"
#include "test.h"

TEST(rows_cite_the_paper)
{
	for (uint16_t t = 0; t < ARGUS_EV_TYPE_MAX; t++) {
		const struct event_rule *r = gr_event_rule(t);
		ASSERT(r && r->handle);
		ASSERT_MSG(r->edge == EDGE_NONE || r->edge < ARGUS_EDGE_KIND_MAX, "type %u", t);
		if (r->split != SA_NONE || r->edge != EDGE_NONE)
			ASSERT_MSG(r->paper && r->paper[0], "type %u names a rule, no paper", t);
	}
}

TEST(every_split_action_has_a_row)
{
	unsigned seen = 0;
	for (uint16_t t = 0; t < ARGUS_EV_TYPE_MAX; t++)
		seen |= 1u << gr_event_rule(t)->split;
	for (unsigned a = SA_END_IF_BLOCKING; a <= SA_END_THREAD; a++)
		ASSERT_MSG(seen & 1u << a, "split action %u is no row's", a);
}

TEST(types_without_a_row_are_plain)
{
	const struct event_rule *plain = gr_event_rule(ARGUS_EV_MACOS_FIRST);
	ASSERT(plain->split == SA_NONE && plain->edge == EDGE_NONE && plain->flags == 0);
	ASSERT(gr_event_rule(ARGUS_EV_TYPE_MAX - 2) == plain); /* 127: no type */
	ASSERT(gr_event_rule(ARGUS_EV_SCHED_SWITCH)->split == SA_END_IF_BLOCKING);
	ASSERT(gr_event_rule(ARGUS_EV_IPC_RECV)->edge == ARGUS_EDGE_IPC);
}

TEST_MAIN(TEST_ENTRY(rows_cite_the_paper), TEST_ENTRY(every_split_action_has_a_row),
          TEST_ENTRY(types_without_a_row_are_plain))
