/*
 * test_diagnoser_live.c - the always-on diagnosis as the daemon uses it: a
 * session fed by pushed records (session/). `argus synth` writes straight into it (no
 * file); each stall is diagnosed as it fires, and the diagnoses name the
 * ground truth's root causes (truth records come through the same sink).
 */
#include <stdlib.h>
#include <string.h>

#include "session.h"
#include "synth.h"
#include "test.h"

struct got {
	struct argus_stall stall[32];
	struct argus_culprit root[32];
	char line[32][256];
	int n, ends;
	struct argus_truth truth[16];
	int ntruth;
	struct argus_sink inner;
};

static void on_diag(void *arg, const struct argus_diagnosis *d)
{
	struct got *g = arg;
	if (g->n < 32) {
		g->stall[g->n] = d->stall;
		g->root[g->n] = d->root;
		argus_report_oneline(d, g->line[g->n], sizeof(g->line[0]));
	}
	g->n++;
}

static void on_end(void *arg, const struct argus_stall *s)
{
	struct got *g = arg;
	(void)s;
	g->ends++;
}

/* tee: the diagnoser's sink plus the truth records for the test */
static int tee_truth(void *arg, const struct argus_truth *t)
{
	struct got *g = arg;
	if (g->ntruth < 16)
		g->truth[g->ntruth++] = *t;
	return 0;
}
static int tee_events(void *arg, const struct argus_event *ev, size_t n)
{
	struct got *g = arg;
	return g->inner.events(g->inner.arg, ev, n);
}
static uint32_t tee_string(void *arg, const char *s, size_t len)
{
	struct got *g = arg;
	return g->inner.intern_string(g->inner.arg, s, len);
}
static uint32_t tee_stack(void *arg, const uint64_t *ips, uint32_t depth)
{
	struct got *g = arg;
	return g->inner.intern_stack(g->inner.arg, ips, depth);
}
static int tee_map(void *arg, const struct argus_map *m)
{
	struct got *g = arg;
	return g->inner.map(g->inner.arg, m);
}
static int tee_symbol(void *arg, const struct argus_symbol *s)
{
	struct got *g = arg;
	return g->inner.symbol(g->inner.arg, s);
}

TEST(synth_into_the_diagnoser_names_every_root_cause)
{
	static struct got g;
	memset(&g, 0, sizeof(g));
	struct argus_session *dx;
	struct argus_session_sink k = {.diagnosis = on_diag, .stall_end = on_end, .arg = &g};
	ASSERT_EQ(argus_session_new(&dx, NULL), 0);
	ASSERT_EQ(argus_session_add_sink(dx, &k), 0);
	g.inner = argus_session_sink(dx);
	struct argus_sink tee = {tee_events, tee_string, tee_stack, tee_map,
	                         NULL,       tee_symbol, tee_truth, &g};
	struct argus_synth_opts so;
	argus_synth_opts_default(&so);
	so.events = 400000;
	so.rate = 5000;
	so.seed = 5;
	ASSERT_EQ(argus_synth_run(&so, &tee, NULL), 0);
	struct argus_session_stats st;
	argus_session_get_stats(dx, &st);
	argus_session_free(dx);
	ASSERT_U64_EQ(st.events, 400000);
	ASSERT_EQ(g.ntruth, 7);
	ASSERT(g.n >= 5);
	ASSERT_EQ(g.ends, g.n);
	for (int i = 0; i < g.ntruth; i++) {
		const struct argus_truth *t = &g.truth[i];
		int hit = -1;
		for (int k = 0; k < g.n && k < 32; k++) {
			if (!t->ui_tid) {
				ASSERT_MSG(g.stall[k].tid != t->root_tid, "decoy %u fired",
				           t->root_tid);
				continue;
			}
			if (hit < 0 && g.stall[k].tid == t->ui_tid &&
			    g.stall[k].since <= t->stall_end &&
			    g.stall[k].detected >= t->stall_start)
				hit = k;
		}
		if (!t->ui_tid)
			continue;
		ASSERT_MSG(hit >= 0, "%s: no stall", argus_anomaly_kind_name(t->kind));
		ASSERT_MSG(g.root[hit].v.tid == t->root_tid, "%s: named %u, truth %u (%s)",
		           argus_anomaly_kind_name(t->kind), g.root[hit].v.tid, t->root_tid,
		           g.line[hit]);
	}
	/* symbols came through the sink's tables */
	bool named = false;
	for (int k = 0; k < g.n && k < 32; k++)
		if (strstr(g.line[k], "udisks_state_flush_to_disk"))
			named = true;
	ASSERT(named);
}

TEST_MAIN(TEST_ENTRY(synth_into_the_diagnoser_names_every_root_cause))
