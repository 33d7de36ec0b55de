/*
 * test_diagnose_synth.c - the whole offline diagnosis (graph + trigger +
 * Algorithms 1 and 2) on synthetic desktops with ground truth: every
 * injected anomaly kind is diagnosed at top-1 and the decoys never fire;
 * the baselines run on the same traces.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "session.h"
#include "synth.h"
#include "test.h"

/* Small traces keep the test fast: at 5000 records/s every anomaly fits in
 * 400 k records. */
#define EVENTS 400000
#define RATE   5000

static char path[64];

static void make_trace(uint64_t seed)
{
	snprintf(path, sizeof(path), "/tmp/argus-test-diag-%d-%llu.argus", (int)getpid(),
	         (unsigned long long)seed);
	struct argus_synth_opts so;
	argus_synth_opts_default(&so);
	so.seed = seed;
	so.events = EVENTS;
	so.rate = RATE;
	struct argus_trace_writer *w;
	struct argus_trace_error err;
	struct argus_trace_meta meta;
	argus_trace_meta_init(&meta, "test_diagnose_synth");
	meta.flags |= ARGUS_TRACE_F_SYNTH;
	ASSERT_EQ(argus_trace_writer_open(&w, path, &meta, NULL, &err), 0);
	struct argus_sink sink = argus_trace_writer_sink(w);
	struct argus_synth_stats st;
	ASSERT_EQ(argus_synth_run(&so, &sink, &st), 0);
	ASSERT_EQ(argus_trace_writer_close(w, &err), 0);
	ASSERT_EQ(st.skipped, 0);
}

/* The truth records of the trace at path. */
static size_t truths(struct argus_trace_reader **r, const struct argus_truth **t)
{
	struct argus_trace_error err;
	const struct argus_event *e;
	ASSERT_EQ(argus_trace_open(r, path, &err), 0);
	while (argus_trace_next(*r, &e, &err) != 0)
		;
	return argus_trace_truths(*r, t);
}

/* The name the trace gives thread tid (its last thread_new / comm record),
 * "" when none: what a report should call it. */
static void thread_name_in_trace(uint32_t tid, char *out)
{
	struct argus_trace_reader *r;
	struct argus_trace_error err;
	const struct argus_event *e;
	*out = 0;
	ASSERT_EQ(argus_trace_open(&r, path, &err), 0);
	while (argus_trace_next(r, &e, &err) > 0) {
		if (e->type == ARGUS_EV_THREAD_NEW && e->fork.child_tid == tid)
			memcpy(out, e->fork.comm, ARGUS_COMM_LEN);
		else if (e->type == ARGUS_EV_COMM && e->tid == tid)
			memcpy(out, e->comm.comm, ARGUS_COMM_LEN);
	}
	out[ARGUS_COMM_LEN - 1] = 0;
	argus_trace_close(r);
}

/* A root cause in a thread other than its process's main one is reported
 * under the process's name with the thread's own beside it: in the one line
 * and in the JSON vertex. */
static unsigned check_thread_names(const struct argus_session_result *res,
                                   const struct argus_truth *t, const struct argus_diagnosis *hit)
{
	if (!hit || t->root_tid == t->root_pid || hit->root.v.tid != t->root_tid)
		return 0;
	char want[ARGUS_COMM_LEN], line[512], *json = NULL, key[64];
	thread_name_in_trace(t->root_tid, want);
	ASSERT_MSG(want[0], "thread %u has no name in the trace", t->root_tid);
	ASSERT_STR_EQ(argus_session_result_thread_comm((void *)res, t->root_tid), want);
	const char *proc = argus_session_result_comm((void *)res, t->root_pid);
	ASSERT(proc[0]);
	argus_report_oneline(hit, line, sizeof(line));
	if (strcmp(proc, want)) {
		char who[64];
		snprintf(who, sizeof(who), "%s %u/%u (%s) ", proc, t->root_pid, t->root_tid, want);
		ASSERT_CONTAINS(line, who);
	}
	size_t len = 0;
	FILE *m = open_memstream(&json, &len);
	ASSERT(m);
	struct argus_report_ctx ctx = {argus_session_result_comm, (void *)res, res->t0,
	                               argus_session_result_thread_comm, NULL};
	argus_report_json(hit, &ctx, m);
	fclose(m);
	snprintf(key, sizeof(key), "\"comm\":\"%s\",\"thread\":\"%s\"", proc, want);
	const char *root = strstr(json, "\"root_cause\":{");
	ASSERT(root);
	ASSERT_CONTAINS(root, key);
	free(json);
	return 1;
}

static void check_seed(uint64_t seed)
{
	make_trace(seed);
	struct argus_session_opts o;
	argus_session_opts_default(&o);
	struct argus_session_result res;
	ASSERT_EQ(argus_session_diagnose_file(path, &o, &res), 0);
	struct argus_trace_reader *r;
	const struct argus_truth *t;
	size_t n = truths(&r, &t);
	ASSERT_EQ(n, 7);
	bool seen[8] = {0};
	unsigned helpers = 0;
	for (size_t i = 0; i < n; i++) {
		const struct argus_diagnosis *hit;
		int v = argus_truth_check(res.d, res.n, &t[i], &hit);
		ASSERT_MSG(v == ARGUS_TRUTH_RIGHT, "seed %llu %s: %s (argus named %u/%u)",
		           (unsigned long long)seed, argus_anomaly_kind_name(t[i].kind),
		           v == ARGUS_TRUTH_NO_STALL      ? "no stall fired"
		           : v == ARGUS_TRUTH_DECOY_FIRED ? "a decoy fired"
		                                          : "wrong top-1",
		           hit ? hit->root.v.pid : 0, hit ? hit->root.v.tid : 0);
		seen[t[i].kind] = true;
		helpers += check_thread_names(&res, &t[i], hit);
	}
	/* the missing wake-up's culprit is an app's worker thread */
	ASSERT_MSG(helpers >= 1, "seed %llu: no root cause in a helper thread",
	           (unsigned long long)seed);
	for (unsigned k = ARGUS_ANOMALY_LONG_RUNNING; k <= ARGUS_ANOMALY_DECOY_BUSY; k++)
		ASSERT_MSG(seen[k], "kind %s not injected", argus_anomaly_kind_name(k));
	/* every stall is on a UI thread, ended, and diagnosed with a root */
	for (size_t i = 0; i < res.n; i++) {
		ASSERT(res.d[i].stall.end > res.d[i].stall.since);
		ASSERT(res.d[i].ncandidates > 0);
		ASSERT(res.d[i].summary[0]);
	}
	argus_trace_close(r);
	argus_session_result_free(&res);
	unlink(path);
}

TEST(every_anomaly_kind_top1_seed1)
{
	check_seed(1);
}

TEST(every_anomaly_kind_top1_seed2)
{
	check_seed(2);
}

TEST(every_anomaly_kind_top1_seed3)
{
	check_seed(3);
}

TEST(classes_match_the_kinds)
{
	make_trace(4);
	struct argus_session_opts o;
	argus_session_opts_default(&o);
	struct argus_session_result res;
	ASSERT_EQ(argus_session_diagnose_file(path, &o, &res), 0);
	struct argus_trace_reader *r;
	const struct argus_truth *t;
	size_t n = truths(&r, &t);
	for (size_t i = 0; i < n; i++) {
		const struct argus_diagnosis *hit;
		argus_truth_check(res.d, res.n, &t[i], &hit);
		if (!t[i].ui_tid)
			continue;
		ASSERT(hit);
		unsigned want = t[i].kind == ARGUS_ANOMALY_LONG_RUNNING ? ARGUS_STALL_LONG_RUNNING
		                : t[i].kind == ARGUS_ANOMALY_YIELD_LOOP ? ARGUS_STALL_YIELD_LOOP
		                                                        : ARGUS_STALL_LONG_WAIT;
		ASSERT_MSG(hit->stall.cls == want, "%s classified %s",
		           argus_anomaly_kind_name(t[i].kind),
		           argus_stall_class_name(hit->stall.cls));
		if (t[i].kind == ARGUS_ANOMALY_LONG_RUNNING)
			ASSERT_CONTAINS(hit->costly_func, "_search_match_line");
		if (t[i].kind == ARGUS_ANOMALY_LONG_WAIT_CHAIN)
			ASSERT_STR_EQ(hit->root.func, "udisks_state_flush_to_disk");
		if (t[i].kind == ARGUS_ANOMALY_CIRCULAR_TIMEOUT)
			ASSERT_EQ(hit->root.reason, ARGUS_ROOT_DEADLOCK);
		if (t[i].kind == ARGUS_ANOMALY_MISSING_WAKEUP)
			ASSERT_EQ(hit->root.reason, ARGUS_ROOT_MISSING_WAKE);
	}
	argus_trace_close(r);
	argus_session_result_free(&res);
	unlink(path);
}

TEST(baselines_run_on_the_same_trace)
{
	make_trace(1);
	struct argus_session_opts o;
	argus_session_opts_default(&o);
	struct argus_session_result beam, cp, nw;
	ASSERT_EQ(argus_session_diagnose_file(path, &o, &beam), 0);
	o.algo = ARGUS_ALGO_CRITICAL_PATH;
	ASSERT_EQ(argus_session_diagnose_file(path, &o, &cp), 0);
	o.algo = ARGUS_ALGO_BEAM;
	o.beam.no_weak_edges = true;
	ASSERT_EQ(argus_session_diagnose_file(path, &o, &nw), 0);
	/* the same stalls, each diagnosed by every algorithm */
	ASSERT_EQ(cp.n, beam.n);
	ASSERT_EQ(nw.n, beam.n);
	for (size_t i = 0; i < cp.n; i++) {
		ASSERT_EQ(cp.d[i].algo, ARGUS_ALGO_CRITICAL_PATH);
		ASSERT(cp.d[i].path.n >= 1);
		ASSERT(nw.d[i].no_weak_edges);
		for (uint32_t k = 0; k + 1 < nw.d[i].path.n; k++)
			ASSERT_EQ(nw.d[i].path.edge[k].strength, ARGUS_STRONG);
	}
	argus_session_result_free(&beam);
	argus_session_result_free(&cp);
	argus_session_result_free(&nw);
	unlink(path);
}

TEST(stall_on_an_empty_window_names_nothing)
{
	struct argus_graph *g;
	ASSERT_EQ(argus_graph_new(&g, NULL), 0);
	struct argus_graph_view v;
	argus_graph_view_begin(g, &v);
	struct argus_stall st = {.id = 1,
	                         .pid = 5,
	                         .tid = 5,
	                         .since = 1,
	                         .detected = 2000000001,
	                         .cls = ARGUS_STALL_LONG_WAIT};
	struct argus_beam_params p;
	argus_beam_params_default(&p);
	struct argus_diagnosis *d = malloc(sizeof(*d));
	ASSERT(d);
	int rc = argus_diagnose(&v, &st, &p, ARGUS_ALGO_BEAM, NULL, NULL, NULL, NULL, NULL, d);
	argus_graph_view_end(&v);
	argus_graph_free(g);
	ASSERT_EQ(rc, 0);
	ASSERT_EQ(d->ncandidates, 0);
	ASSERT_CONTAINS(d->summary, "no segment");
	free(d);
}

TEST(missing_file_is_an_error_not_a_crash)
{
	struct argus_session_opts o;
	argus_session_opts_default(&o);
	struct argus_session_result res;
	ASSERT(argus_session_diagnose_file("/nonexistent/x.argus", &o, &res) < 0);
	ASSERT(res.err.msg[0]);
	argus_session_result_free(&res);
}

TEST_MAIN(TEST_ENTRY(every_anomaly_kind_top1_seed1), TEST_ENTRY(every_anomaly_kind_top1_seed2),
          TEST_ENTRY(every_anomaly_kind_top1_seed3), TEST_ENTRY(classes_match_the_kinds),
          TEST_ENTRY(baselines_run_on_the_same_trace),
          TEST_ENTRY(stall_on_an_empty_window_names_nothing),
          TEST_ENTRY(missing_file_is_an_error_not_a_crash))
