/*
 * test_issues_signature.c - an issue's signature is stable across runs
 * (docs/issues.md "The signature"): the same hang in two runs - other pids
 * and thread ids, other load addresses (ASLR), other addresses sampled,
 * another start, another build - is one issue with two sessions, and two
 * different hangs are two issues.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "issues.h"
#include "lagtrace.h"
#include "session.h"
#include "synth.h"
#include "test.h"

static char dir[256];

static void tmpdir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/argus-issues-sig-XXXXXX");
	ASSERT(mkdtemp(dir));
}

static void cleanup(void)
{
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ASSERT_EQ(system(cmd), 0);
}

static struct argus_issues *open_db(void)
{
	char path[300], err[512];
	snprintf(path, sizeof(path), "%s/issues.db", dir);
	struct argus_issues *db;
	int e = argus_issues_open(&db, path, false, err, sizeof(err));
	ASSERT_MSG(e == 0, "%s", err);
	return db;
}

static void import(struct argus_issues *db, const char *trace)
{
	char err[512];
	struct argus_issues_import_result r;
	int e = argus_issues_import(db, trace, "erin", &r, err, sizeof(err));
	ASSERT_MSG(e == 0, "import %s: %d (%s)", trace, e, err);
}

static struct argus_issue_summary *list(struct argus_issues *db, size_t *n)
{
	char err[512];
	struct argus_issue_summary *v;
	int e = argus_issues_list(db, NULL, ARGUS_ISSUES_BY_OCCURRENCES, &v, n, err, sizeof(err));
	ASSERT_MSG(e == 0, "%s", err);
	for (size_t i = 0; i < *n; i++)
		printf("issue %lld %s %s %s [%s] occ %llu sessions %llu\n", (long long)v[i].id,
		       v[i].app, v[i].kind, v[i].landmark, v[i].frames,
		       (unsigned long long)v[i].occurrences, (unsigned long long)v[i].sessions);
	return v;
}

/* The pids of an issue's latest occurrences, from its page (JSON). */
static size_t pids_of(struct argus_issues *db, int64_t id, unsigned *pids, size_t cap)
{
	char *buf = NULL, err[512];
	size_t len = 0, n = 0;
	FILE *m = open_memstream(&buf, &len);
	ASSERT_EQ(argus_issues_show_json(db, id, m, err, sizeof(err)), 0);
	fclose(m);
	char *occ = strstr(buf, "\"latest_occurrences\":[");
	ASSERT(occ);
	char *end = strchr(occ, ']');
	ASSERT(end);
	*end = 0;
	for (const char *p = occ; n < cap && (p = strstr(p, "\"pid\":")); p += 6) {
		unsigned v = (unsigned)strtoul(p + 6, NULL, 10);
		bool seen = false;
		for (size_t i = 0; i < n; i++)
			seen = seen || pids[i] == v;
		if (!seen)
			pids[n++] = v;
	}
	free(buf);
	return n;
}

/* Two synthetic desktops (other seeds: other pids and thread ids, other
 * timing, the injected hangs in other processes' numbers): each stall is
 * one issue keyed by its root cause's function and process, with both
 * sessions, in both desktops' pids; so is the hooked dispatch each hang
 * happened in (seconds long: the hangs'), whatever few samples fell in
 * it. */
TEST(a_hang_in_two_runs_with_other_pids_is_one_issue_per_landmark)
{
	tmpdir();
	char t[2][300];
	for (int k = 0; k < 2; k++) {
		snprintf(t[k], sizeof(t[k]), "%s/s%d.argus", dir, k + 1);
		struct argus_synth_opts so;
		argus_synth_opts_default(&so);
		so.events = 400000;
		so.seed = (uint64_t)k + 1;
		struct argus_trace_writer *w;
		struct argus_trace_error te;
		ASSERT_EQ(argus_trace_writer_open(&w, t[k], NULL, NULL, &te), 0);
		struct argus_sink ws = argus_trace_writer_sink(w);
		ASSERT_EQ(argus_synth_run(&so, &ws, NULL), 0);
		ASSERT_EQ(argus_trace_writer_close(w, &te), 0);
	}
	struct argus_issues *db = open_db();
	import(db, t[0]);
	import(db, t[1]);
	size_t n, stalls = 0, hangs = 0;
	struct argus_issue_summary *v = list(db, &n);
	for (size_t i = 0; i < n; i++) {
		bool stall = !strcmp(v[i].kind, "stall");
		if (!stall && v[i].incl.max < 1000 * LT_MS)
			continue; /* a lag of one desktop, not an injected hang */
		stalls += stall;
		hangs += !stall;
		ASSERT_MSG(v[i].sessions == 2, "%s %s of %s in %llu session(s)", v[i].landmark,
		           v[i].frames, v[i].app, (unsigned long long)v[i].sessions);
		ASSERT(!strstr(v[i].frames, "0x"));
		unsigned pids[8];
		ASSERT_EQ(pids_of(db, v[i].id, pids, 8), 2); /* two runs, two pids */
	}
	ASSERT(stalls >= 3);
	ASSERT(hangs >= stalls);
	free(v);
	argus_issues_close(db);
	cleanup();
}

/* A handler that blocks in a read for 300 ms; in one of the runs one
 * on-CPU sample falls in a helper just before it blocks. The lag is its
 * wait (the sample is 10 ms of 300): both runs key it by the wait's stack,
 * one issue with two sessions, not an issue per stray sample. */
TEST(a_waiting_lag_is_keyed_by_its_wait_not_by_a_stray_sample)
{
	tmpdir();
	char t1[300], t2[300];
	snprintf(t1, sizeof(t1), "%s/run1.argus", dir);
	snprintf(t2, sizeof(t2), "%s/run2.argus", dir);
	static const struct lt_episode plain[] = {
	    {.at = 100 * LT_MS,
	     .handler_ns = 300 * LT_MS,
	     .frames = {"cmd_open", "parse_file"},
	     .waits = true},
	};
	static const struct lt_episode stray[] = {
	    {.at = 100 * LT_MS,
	     .handler_ns = 300 * LT_MS,
	     .frames = {"cmd_open", "parse_file"},
	     .waits = true,
	     .stray = "tokenize"},
	};
	struct lt_run r1 = {.seed = 2, .ep = plain, .nep = 1};
	struct lt_run r2 = {.seed = 13, .ep = stray, .nep = 1};
	lt_write(t1, &r1);
	lt_write(t2, &r2);
	struct argus_issues *db = open_db();
	import(db, t1);
	import(db, t2);
	size_t n;
	struct argus_issue_summary *v = list(db, &n);
	ASSERT_EQ(n, 1);
	ASSERT_STR_EQ(v[0].frames, "parse_file;cmd_open;main");
	ASSERT_U64_EQ(v[0].sessions, 2);
	ASSERT_U64_EQ(v[0].samples, 1); /* the stray is in its tree all the same */
	free(v);
	argus_issues_close(db);
	cleanup();
}

/* Three 120 ms lags of one key handler (12 samples each, in layout_text
 * under on_key); in the second, one sample is in a library function that
 * layout_text called, and the frame-pointer walk through that library
 * (no frame pointers) lost layout_text: the sample names on_key only. The
 * lag holds few samples, so one such sample must not move its key to the
 * caller: one issue of three occurrences, not two issues. */
TEST(a_sample_that_lost_its_frame_does_not_split_a_handlers_lags)
{
	tmpdir();
	char t[300];
	snprintf(t, sizeof(t), "%s/run.argus", dir);
	static const struct lt_episode eps[] = {
	    {.at = 100 * LT_MS, .handler_ns = 120 * LT_MS, .frames = {"on_key", "layout_text"}},
	    {.at = 700 * LT_MS,
	     .handler_ns = 120 * LT_MS,
	     .frames = {"on_key", "layout_text"},
	     .lost_in = "memcpy_impl",
	     .lost_at = 4},
	    {.at = 1400 * LT_MS, .handler_ns = 120 * LT_MS, .frames = {"on_key", "layout_text"}},
	};
	struct lt_run r = {.seed = 5, .ep = eps, .nep = 3};
	lt_write(t, &r);
	struct argus_issues *db = open_db();
	import(db, t);
	size_t n;
	struct argus_issue_summary *v = list(db, &n);
	ASSERT_EQ(n, 1);
	ASSERT_STR_EQ(v[0].frames, "layout_text;on_key;main");
	ASSERT_U64_EQ(v[0].occurrences, 3);
	ASSERT_U64_EQ(v[0].samples, 36); /* the lost sample is in its tree all the same */
	free(v);
	argus_issues_close(db);
	cleanup();
}

/* What a session says of a trace's first stall: its costly function at
 * detection and in its final diagnosis (over the whole stall). */
struct answers {
	char detected[128], final[128];
	char detected_path[512], final_path[512]; /* argus_diagnosis.majority */
};

static void on_diag(void *arg, const struct argus_diagnosis *d)
{
	struct answers *a = arg;
	if (!a->detected[0]) {
		snprintf(a->detected, sizeof(a->detected), "%s", d->costly_func);
		snprintf(a->detected_path, sizeof(a->detected_path), "%s", d->majority);
	}
}

static void on_final_diag(void *arg, const struct argus_diagnosis *d)
{
	struct answers *a = arg;
	if (!a->final[0]) {
		snprintf(a->final, sizeof(a->final), "%s", d->costly_func);
		snprintf(a->final_path, sizeof(a->final_path), "%s", d->majority);
	}
}

static void answers_of(const char *trace, struct answers *a)
{
	memset(a, 0, sizeof(*a));
	struct argus_session_opts o;
	argus_session_opts_default(&o);
	struct argus_session *s;
	ASSERT_EQ(argus_session_new(&s, &o), 0);
	struct argus_session_sink k = {.diagnosis = on_diag, .final = on_final_diag, .arg = a};
	ASSERT_EQ(argus_session_add_sink(s, &k), 0);
	struct argus_trace_error err;
	ASSERT_EQ(argus_session_run_file(s, trace, &err), 0);
	argus_session_free(s);
	printf("%s: at detection %s (path %s), final %s (path %s)\n", trace, a->detected,
	       a->detected_path, a->final, a->final_path);
}

/* A key handler that works in phases, sampled as whole call chains (full
 * stacks): it parses the file for its first 2.4 s - the stall is detected
 * 2 s into it, so its answer at detection names the parsing phase - and
 * lays the text out for the next 3.6 s, most of the stall. The two runs
 * parse differently (parse_file, then tokenize under it), so their answers
 * at detection differ; their final diagnoses both name layout_text, the
 * answer the user's notification ends with. The store keys the stall by
 * that final answer (issues/sink.c on_final): one issue with two sessions,
 * not one issue per detection-time answer. */
TEST(a_busy_stall_is_keyed_by_its_final_diagnosis_not_by_its_answer_at_detection)
{
	tmpdir();
	char t1[300], t2[300];
	snprintf(t1, sizeof(t1), "%s/run1.argus", dir);
	snprintf(t2, sizeof(t2), "%s/run2.argus", dir);
	static const struct lt_episode parse[] = {
	    {.at = 100 * LT_MS, .handler_ns = 30 * LT_MS, .frames = {"on_click"}},
	    {.at = 1000 * LT_MS,
	     .handler_ns = 6000 * LT_MS,
	     .frames = {"on_key", "cmd_open", "parse_file"},
	     .phase2_ns = 2400 * LT_MS,
	     .phase2 = {"on_key", "cmd_open", "layout_text"},
	     .chains = true,
	     .input2_ns = 50 * LT_MS},
	};
	static const struct lt_episode tokens[] = {
	    {.at = 100 * LT_MS, .handler_ns = 30 * LT_MS, .frames = {"on_click"}},
	    {.at = 1000 * LT_MS,
	     .handler_ns = 6000 * LT_MS,
	     .frames = {"on_key", "cmd_open", "parse_file", "tokenize"},
	     .phase2_ns = 2400 * LT_MS,
	     .phase2 = {"on_key", "cmd_open", "layout_text"},
	     .chains = true,
	     .input2_ns = 50 * LT_MS},
	};
	struct lt_run r1 = {.seed = 3, .ep = parse, .nep = 2};
	struct lt_run r2 = {.seed = 21, .ep = tokens, .nep = 2};
	lt_write(t1, &r1);
	lt_write(t2, &r2);
	/* the premise: the answers at detection differ, the final ones agree */
	struct answers a1, a2;
	answers_of(t1, &a1);
	answers_of(t2, &a2);
	ASSERT_STR_EQ(a1.detected, "parse_file");
	ASSERT_STR_EQ(a2.detected, "tokenize");
	ASSERT_STR_EQ(a1.final, "layout_text");
	ASSERT_STR_EQ(a2.final, "layout_text");
	struct argus_issues *db = open_db();
	import(db, t1);
	size_t n;
	struct argus_issue_summary *v = list(db, &n);
	size_t stalls = 0;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].kind, "stall")) {
			stalls++;
			ASSERT_STR_EQ(v[i].frames, "layout_text@demo-app");
			ASSERT_U64_EQ(v[i].sessions, 1);
		}
	ASSERT_EQ(stalls, 1);
	free(v);
	import(db, t2);
	v = list(db, &n);
	stalls = 0;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].kind, "stall")) {
			stalls++;
			ASSERT_STR_EQ(v[i].frames, "layout_text@demo-app");
			ASSERT_U64_EQ(v[i].sessions, 2);
			ASSERT_U64_EQ(v[i].occurrences, 2);
		}
	ASSERT_EQ(stalls, 1);
	free(v);
	argus_issues_close(db);
	cleanup();
}

/* One hang in two runs whose answer sits on the majority line the answer
 * is chosen on: the drawing's innermost function (blend_row, under
 * render_tiles) holds 52 % of one run's
 * chains and 48 % of the other's (as gnumeric's gnm_rendered_value_new held
 * 51-54 % of argus's runs and 49.4 % of perf's, realapps r9). The two final
 * answers differ; each lies on the other's majority path or holds the
 * other's answer on its own (issues/store.c join_by_path): one issue, two
 * sessions, in either order. */
TEST(a_busy_stall_whose_answer_sits_on_the_majority_line_is_one_issue)
{
	tmpdir();
	char t1[300], t2[300];
	snprintf(t1, sizeof(t1), "%s/run1.argus", dir);
	snprintf(t2, sizeof(t2), "%s/run2.argus", dir);
	static const struct lt_episode more[] = {
	    {.at = 100 * LT_MS, .handler_ns = 30 * LT_MS, .frames = {"on_click"}},
	    {.at = 1000 * LT_MS,
	     .handler_ns = 6000 * LT_MS,
	     .frames = {"on_key", "cmd_draw", "render_tiles", "blend_row"},
	     .phase2_ns = 3120 * LT_MS,
	     .phase2 = {"on_key", "cmd_draw", "render_tiles"},
	     .chains = true,
	     .input2_ns = 50 * LT_MS},
	};
	static const struct lt_episode fewer[] = {
	    {.at = 100 * LT_MS, .handler_ns = 30 * LT_MS, .frames = {"on_click"}},
	    {.at = 1000 * LT_MS,
	     .handler_ns = 6000 * LT_MS,
	     .frames = {"on_key", "cmd_draw", "render_tiles", "blend_row"},
	     .phase2_ns = 2880 * LT_MS,
	     .phase2 = {"on_key", "cmd_draw", "render_tiles"},
	     .chains = true,
	     .input2_ns = 50 * LT_MS},
	};
	struct lt_run r1 = {.seed = 5, .ep = more, .nep = 2};
	struct lt_run r2 = {.seed = 17, .ep = fewer, .nep = 2};
	lt_write(t1, &r1);
	lt_write(t2, &r2);
	struct answers a1, a2;
	answers_of(t1, &a1);
	answers_of(t2, &a2);
	/* the premise: the final answers flip at the line, and the caller
	 * holds most of the callee's run */
	ASSERT_STR_EQ(a1.final, "blend_row");
	ASSERT_STR_EQ(a2.final, "render_tiles");
	ASSERT(strstr(a1.final_path, "blend_row;render_tiles;cmd_draw;on_key") != NULL);
	ASSERT(strstr(a2.final_path, "blend_row") == NULL);
	/* either order: the caller's run first, then the callee's, and back */
	for (int order = 0; order < 2; order++) {
		struct argus_issues *db = open_db();
		import(db, order ? t2 : t1);
		import(db, order ? t1 : t2);
		size_t n;
		struct argus_issue_summary *v = list(db, &n);
		size_t stalls = 0;
		for (size_t i = 0; i < n; i++)
			if (!strcmp(v[i].kind, "stall")) {
				stalls++;
				/* named by the run that came first */
				ASSERT_STR_EQ(v[i].frames,
				              order ? "render_tiles@demo-app" : "blend_row@demo-app");
				ASSERT_U64_EQ(v[i].sessions, 2);
				ASSERT_U64_EQ(v[i].occurrences, 2);
			}
		ASSERT_EQ(stalls, 1);
		free(v);
		argus_issues_close(db);
		char db_path[300];
		snprintf(db_path, sizeof(db_path), "%s/issues.db", dir);
		unlink(db_path);
	}
	cleanup();
}

/* Two different hangs of one app, neither answer on the other's majority
 * path (a drawing handler busy in blend_row, a key handler busy parsing),
 * stay two issues. */
TEST(two_busy_stalls_whose_answers_are_off_each_others_paths_are_two_issues)
{
	tmpdir();
	char t1[300], t2[300];
	snprintf(t1, sizeof(t1), "%s/run1.argus", dir);
	snprintf(t2, sizeof(t2), "%s/run2.argus", dir);
	static const struct lt_episode draw[] = {
	    {.at = 100 * LT_MS, .handler_ns = 30 * LT_MS, .frames = {"on_click"}},
	    {.at = 1000 * LT_MS,
	     .handler_ns = 6000 * LT_MS,
	     .frames = {"on_key", "cmd_draw", "render_tiles", "blend_row"},
	     .chains = true,
	     .input2_ns = 50 * LT_MS},
	};
	static const struct lt_episode parse[] = {
	    {.at = 100 * LT_MS, .handler_ns = 30 * LT_MS, .frames = {"on_click"}},
	    {.at = 1000 * LT_MS,
	     .handler_ns = 6000 * LT_MS,
	     .frames = {"on_key", "cmd_open", "parse_file", "tokenize"},
	     .chains = true,
	     .input2_ns = 50 * LT_MS},
	};
	struct lt_run r1 = {.seed = 5, .ep = draw, .nep = 2};
	struct lt_run r2 = {.seed = 17, .ep = parse, .nep = 2};
	lt_write(t1, &r1);
	lt_write(t2, &r2);
	struct argus_issues *db = open_db();
	import(db, t1);
	import(db, t2);
	size_t n;
	struct argus_issue_summary *v = list(db, &n);
	size_t stalls = 0;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].kind, "stall")) {
			stalls++;
			ASSERT(!strcmp(v[i].frames, "blend_row@demo-app") ||
			       !strcmp(v[i].frames, "tokenize@demo-app"));
			ASSERT_U64_EQ(v[i].sessions, 1);
		}
	ASSERT_EQ(stalls, 2);
	free(v);
	argus_issues_close(db);
	cleanup();
}

TEST_MAIN(TEST_ENTRY(a_hang_in_two_runs_with_other_pids_is_one_issue_per_landmark),
          TEST_ENTRY(a_waiting_lag_is_keyed_by_its_wait_not_by_a_stray_sample),
          TEST_ENTRY(a_sample_that_lost_its_frame_does_not_split_a_handlers_lags),
          TEST_ENTRY(a_busy_stall_is_keyed_by_its_final_diagnosis_not_by_its_answer_at_detection),
          TEST_ENTRY(a_busy_stall_whose_answer_sits_on_the_majority_line_is_one_issue),
          TEST_ENTRY(two_busy_stalls_whose_answers_are_off_each_others_paths_are_two_issues))
