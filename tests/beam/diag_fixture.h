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
 * summary, as a report's first line. */
static inline void diag_run(struct argus_graph *g, const struct argus_stall *st,
                            struct argus_diagnosis *d)
{
	struct argus_graph_view v;
	argus_graph_view_begin(g, &v);
	struct argus_beam_params p;
	argus_beam_params_default(&p);
	ASSERT_EQ(argus_diagnose(&v, st, &p, ARGUS_ALGO_BEAM, NULL, NULL, NULL, NULL, NULL, d), 0);
	argus_graph_view_end(&v);
	argus_graph_free(g);
	printf("%s\n", d->summary);
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
