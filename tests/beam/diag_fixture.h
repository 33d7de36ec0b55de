/*
 * diag_fixture.h - what the rule tests over synthetic graphs share: one
 * stall diagnosed as the daemon does (beam, default parameters), and
 * whether a rule took part in the answer.
 */
#ifndef ARGUS_TEST_DIAG_FIXTURE_H
#define ARGUS_TEST_DIAG_FIXTURE_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "beam.h"
#include "test.h"

/* Diagnose st over g (its records ingested), then free g; prints the
 * summary, as a report's first line. base (may be NULL): the top
 * baseline's vertex, zeroed when there is none. */
static inline void diag_run_base(struct argus_graph *g, const struct argus_stall *st,
                                 struct argus_diagnosis *d, struct argus_vertex_info *base)
{
	struct argus_graph_view v;
	argus_graph_view_begin(g, &v);
	struct argus_beam_params p;
	argus_beam_params_default(&p);
	ASSERT_EQ(argus_diagnose(&v, st, &p, ARGUS_ALGO_BEAM, NULL, NULL, NULL, NULL, NULL, d), 0);
	if (base && (!d->baseline || !argus_graph_vertex(&v, d->baseline, base)))
		memset(base, 0, sizeof(*base));
	argus_graph_view_end(&v);
	argus_graph_free(g);
	printf("%s\n", d->summary);
}

static inline void diag_run(struct argus_graph *g, const struct argus_stall *st,
                            struct argus_diagnosis *d)
{
	diag_run_base(g, st, d, NULL);
}

/* The root cause's thread (0: no candidate) of a launch stall: thread tid
 * of pid blocked in call wait_nr from since, seen at detected, over the n
 * records ev. */
static inline uint32_t diag_launch_root(const struct argus_event *ev, size_t n, uint32_t pid,
                                        uint32_t tid, uint64_t since, uint64_t detected,
                                        uint32_t wait_nr, struct argus_diagnosis *d)
{
	struct argus_graph *g;
	ASSERT_EQ(argus_graph_new(&g, NULL), 0);
	ASSERT_EQ(argus_graph_ingest(g, ev, n), 0);
	struct argus_stall st = {.id = 1,
	                         .pid = pid,
	                         .tid = tid,
	                         .since = since,
	                         .detected = detected,
	                         .cls = ARGUS_STALL_LONG_WAIT,
	                         .cause = ARGUS_CAUSE_LAUNCH,
	                         .blocked = true,
	                         .wait_nr = wait_nr};
	diag_run(g, &st, d);
	return d->ncandidates ? d->root.v.tid : 0;
}

/* Whether rule is among the rules the answer used (rules_used). */
static inline bool diag_rule_used(const struct argus_diagnosis *d, const char *rule)
{
	for (uint32_t i = 0; i < d->nrules_used; i++)
		if (!strcmp(d->rules_used[i], rule))
			return true;
	return false;
}

#endif /* ARGUS_TEST_DIAG_FIXTURE_H */
