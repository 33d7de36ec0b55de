/*
 * test_issues.c - the issue store (issues/, docs/issues.md): lags of trace
 * files imported as sessions become issues keyed by names, never pids or
 * addresses; an injected lag is its own issue with the right landmark and
 * calling-context tree; issues sharing a slow function are linked; a
 * damaged or locked store gives one clear error, and a session writing to
 * a locked store goes on.
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "issues.h"
#include "lagtrace.h"
#include "synth.h"
#include "test.h"

static char dir[256];

static void tmpdir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/argus-issues-XXXXXX");
	ASSERT(mkdtemp(dir));
}

static void cleanup(void)
{
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ASSERT_EQ(system(cmd), 0);
}

static struct argus_issues *open_db(const char *name)
{
	char path[300], err[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	struct argus_issues *db;
	int e = argus_issues_open(&db, path, false, err, sizeof(err));
	ASSERT_MSG(e == 0, "%s", err);
	return db;
}

static void import(struct argus_issues *db, const char *trace, int want)
{
	char err[512];
	struct argus_issues_import_result r;
	int e = argus_issues_import(db, trace, "alice", &r, err, sizeof(err));
	ASSERT_MSG(e == want, "import %s: %d (%s)", trace, e, err);
}

static struct argus_issue_summary *list(struct argus_issues *db, size_t *n)
{
	char err[512];
	struct argus_issue_summary *v;
	int e = argus_issues_list(db, NULL, ARGUS_ISSUES_BY_OCCURRENCES, &v, n, err, sizeof(err));
	ASSERT_MSG(e == 0, "%s", err);
	for (size_t i = 0; i < *n; i++)
		printf("issue %lld %s %s %s [%s] occ %llu sessions %llu median %.1f ms\n",
		       (long long)v[i].id, v[i].app, v[i].landmark, v[i].name, v[i].frames,
		       (unsigned long long)v[i].occurrences, (unsigned long long)v[i].sessions,
		       (double)v[i].incl.median / 1e6);
	return v;
}

static const struct argus_issue_summary *find(const struct argus_issue_summary *v, size_t n,
                                              const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

/* A user's hour: short key presses (not lags), a save that checksums for
 * 180 ms, 230 ms and 290 ms. */
static const struct lt_episode save_lags[] = {
    {.at = 100 * LT_MS, .handler_ns = 20 * LT_MS, .frames = {"on_key", "layout_text"}},
    {.at = 300 * LT_MS, .handler_ns = 180 * LT_MS, .frames = {"on_save", "slow_checksum"}},
    {.at = 700 * LT_MS, .handler_ns = 30 * LT_MS, .frames = {"on_key", "layout_text"}},
    {.at = 900 * LT_MS, .handler_ns = 230 * LT_MS, .frames = {"on_save", "slow_checksum"}},
    {.at = 1400 * LT_MS, .handler_ns = 40 * LT_MS, .frames = {"on_key", "measure_glyph"}},
    {.at = 1600 * LT_MS, .handler_ns = 290 * LT_MS, .frames = {"on_save", "slow_checksum"}},
};

/* The same lags in two runs (other pids, other load addresses, other
 * addresses sampled inside each function, another start): one issue with
 * two sessions; importing a run again adds nothing. The runs' two builds
 * are the issue's versions (the build id is no part of the key). */
TEST(same_lag_in_two_runs_is_one_issue_with_two_sessions)
{
	tmpdir();
	char t1[300], t2[300];
	snprintf(t1, sizeof(t1), "%s/run1.argus", dir);
	snprintf(t2, sizeof(t2), "%s/run2.argus", dir);
	struct lt_run r1 = {.seed = 1, .ep = save_lags, .nep = 6, .build = 0xab};
	struct lt_run r2 = {.seed = 9, .ep = save_lags, .nep = 6, .build = 0xcd};
	lt_write(t1, &r1);
	lt_write(t2, &r2);
	struct argus_issues *db = open_db("issues.db");
	import(db, t1, 0);
	import(db, t2, 0);
	import(db, t1, 1); /* the same recording again: skipped */
	size_t n;
	struct argus_issue_summary *v = list(db, &n);
	ASSERT_EQ(n, 1);
	ASSERT_STR_EQ(v[0].app, "demo-app");
	ASSERT_STR_EQ(v[0].name, "slow_checksum");
	ASSERT_U64_EQ(v[0].occurrences, 6);
	ASSERT_U64_EQ(v[0].sessions, 2);
	ASSERT_U64_EQ(v[0].users, 1);
	/* no pid, no address in what keys it */
	ASSERT(!strstr(v[0].frames, "0x"));
	ASSERT_STR_EQ(v[0].frames, "slow_checksum;on_save;main");
	/* the two builds are the issue's two versions */
	char *buf = NULL, err[512];
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	ASSERT_EQ(argus_issues_show_json(db, v[0].id, m, err, sizeof(err)), 0);
	fclose(m);
	ASSERT_CONTAINS(buf, "{\"name\":\"abababababababababababababababababababab\",\"occurrences\":3}");
	ASSERT_CONTAINS(buf, "{\"name\":\"cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd\",\"occurrences\":3}");
	free(buf);
	free(v);
	argus_issues_close(db);
	cleanup();
}

/* Lags of 180-290 ms injected into a handler: an issue of their own (the
 * short presses are none), landmark ui-episode (no hooks), named by the
 * injected function, which ends the tree's heaviest path; the
 * distribution is the injected one. A handler that waits instead is named
 * by its wait's stack. */
TEST(injected_lag_is_its_own_issue_with_its_landmark_and_heaviest_path)
{
	tmpdir();
	char t[300];
	snprintf(t, sizeof(t), "%s/run.argus", dir);
	static const struct lt_episode eps[] = {
	    {.at = 100 * LT_MS, .handler_ns = 180 * LT_MS, .frames = {"on_save", "slow_checksum"}},
	    {.at = 500 * LT_MS, .handler_ns = 230 * LT_MS, .frames = {"on_save", "slow_checksum"}},
	    {.at = 900 * LT_MS, .handler_ns = 290 * LT_MS, .frames = {"on_save", "slow_checksum"}},
	    {.at = 1400 * LT_MS, .handler_ns = 150 * LT_MS, .frames = {"on_click", "layout_text"}},
	    {.at = 1700 * LT_MS, .handler_ns = 30 * LT_MS, .frames = {"on_key", "measure_glyph"}},
	    {.at = 1800 * LT_MS, .handler_ns = 160 * LT_MS, .frames = {"cmd_open", "parse_file"},
	     .waits = true},
	};
	struct lt_run r = {.seed = 3, .ep = eps, .nep = 6};
	lt_write(t, &r);
	struct argus_issues *db = open_db("issues.db");
	import(db, t, 0);
	size_t n;
	struct argus_issue_summary *v = list(db, &n);
	ASSERT_EQ(n, 3);
	/* a lag without samples: named by the stack of its wait */
	const struct argus_issue_summary *w = find(v, n, "parse_file");
	ASSERT(w);
	ASSERT_STR_EQ(w->frames, "parse_file;cmd_open;main");
	ASSERT_U64_EQ(w->samples, 0);
	const struct argus_issue_summary *s = find(v, n, "slow_checksum");
	ASSERT(s);
	ASSERT_STR_EQ(s->landmark, "ui-episode");
	ASSERT_STR_EQ(s->kind, "lag");
	ASSERT_U64_EQ(s->occurrences, 3);
	/* episode = input to the poll: the handler's time (+30 us) */
	ASSERT(s->incl.max >= 290 * LT_MS && s->incl.max < 291 * LT_MS);
	ASSERT(s->incl.min >= 180 * LT_MS && s->incl.min < 181 * LT_MS);
	ASSERT(s->incl.median > 226 * LT_MS && s->incl.median < 235 * LT_MS);
	ASSERT(s->samples >= 65);
	ASSERT(find(v, n, "layout_text"));
	ASSERT(!find(v, n, "measure_glyph")); /* 30 ms: imperceptible */
	char *buf = NULL, err[512];
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int e = argus_issues_show_json(db, s->id, m, err, sizeof(err));
	fclose(m);
	ASSERT_MSG(e == 0, "%s", err);
	ASSERT_CONTAINS(buf, "\"heaviest_path\":[\"main\",\"toolkit_run\",\"toolkit_dispatch\","
	                     "\"on_save\",\"slow_checksum\"]");
	ASSERT_CONTAINS(buf, "\"landmark\":\"ui-episode\"");
	free(buf);
	free(v);
	argus_issues_close(db);
	cleanup();
}

/* Two commands of one app calling the same slow parser are linked as
 * similar; a command drawing tiles is not. */
TEST(two_commands_calling_the_same_slow_function_are_linked)
{
	tmpdir();
	char t[300];
	snprintf(t, sizeof(t), "%s/run.argus", dir);
	static const struct lt_episode eps[] = {
	    {.at = 100 * LT_MS, .handler_ns = 200 * LT_MS, .frames = {"cmd_open", "parse_file",
	                                                               "tokenize"}},
	    {.at = 500 * LT_MS, .handler_ns = 250 * LT_MS, .frames = {"cmd_import", "parse_file",
	                                                               "tokenize"}},
	    {.at = 900 * LT_MS, .handler_ns = 220 * LT_MS, .frames = {"cmd_draw", "render_tiles",
	                                                               "blend_row"}},
	};
	struct lt_run r = {.seed = 4, .ep = eps, .nep = 3};
	lt_write(t, &r);
	struct argus_issues *db = open_db("issues.db");
	import(db, t, 0);
	size_t n;
	struct argus_issue_summary *v = list(db, &n);
	ASSERT_EQ(n, 3); /* two commands: two issues, however alike */
	int64_t open_id = 0, import_id = 0, draw_id = 0;
	for (size_t i = 0; i < n; i++) {
		if (strstr(v[i].frames, "cmd_open"))
			open_id = v[i].id;
		if (strstr(v[i].frames, "cmd_import"))
			import_id = v[i].id;
		if (strstr(v[i].frames, "cmd_draw"))
			draw_id = v[i].id;
	}
	ASSERT(open_id && import_id && draw_id);
	struct argus_issue_link l[8];
	size_t nl;
	char err[512];
	ASSERT_EQ(argus_issues_similar(db, open_id, l, 8, &nl, err, sizeof(err)), 0);
	for (size_t i = 0; i < nl; i++)
		printf("similar to #%lld: #%lld distance %.3f\n", (long long)open_id,
		       (long long)l[i].id, l[i].distance);
	ASSERT_EQ(nl, 1);
	ASSERT(l[0].id == import_id);
	ASSERT(l[0].distance < 0.3);
	ASSERT_EQ(argus_issues_similar(db, draw_id, l, 8, &nl, err, sizeof(err)), 0);
	ASSERT_EQ(nl, 0);
	free(v);
	argus_issues_close(db);
	cleanup();
}

/* The distance itself: a tree from itself 0, from a disjoint one 1,
 * symmetric, and scale-free (twice the samples, the same tree). */
TEST(cct_distance_is_a_weighted_multiset_distance)
{
	const char *a[] = {"main;run;cmd_a;slow;inner", "main;run;cmd_a;other"};
	const uint32_t wa[] = {9, 1}, wa2[] = {18, 2};
	const char *b[] = {"main;run;cmd_b;slow;inner"};
	const uint32_t wb[] = {5};
	const char *c[] = {"x;y;z"};
	const uint32_t wc[] = {3};
	double same = argus_cct_distance(a, wa, 2, a, wa2, 2);
	double ab = argus_cct_distance(a, wa, 2, b, wb, 1);
	double ba = argus_cct_distance(b, wb, 1, a, wa, 2);
	double ac = argus_cct_distance(a, wa, 2, c, wc, 1);
	printf("same %.3f ab %.3f ba %.3f ac %.3f\n", same, ab, ba, ac);
	ASSERT(same < 1e-9);
	ASSERT(ab > 0.05 && ab < 0.4);
	ASSERT(ab - ba < 1e-9 && ba - ab < 1e-9);
	ASSERT(ac > 0.999);
	ASSERT(argus_cct_distance(a, wa, 2, c, wc, 0) == 1.0);
}

static int run_cli(const char *args, char *out, size_t cap)
{
	const char *bin = getenv("ARGUS_BIN");
	if (!bin)
		SKIP("ARGUS_BIN not set (run through ctest)");
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "%s %s 2>&1", bin, args);
	FILE *p = popen(cmd, "r");
	ASSERT(p);
	size_t n = fread(out, 1, cap - 1, p);
	out[n] = 0;
	int st = pclose(p);
	printf("$ argus %s -> %d\n%s", args, WEXITSTATUS(st), out);
	return WEXITSTATUS(st);
}

/* Not an issue store: a file of junk, another SQLite database. One line
 * naming the file, exit 5; nothing is written to it. */
TEST(corrupt_store_gives_one_clear_error)
{
	tmpdir();
	char path[300], args[400], out[4096], err[512];
	snprintf(path, sizeof(path), "%s/junk.db", dir);
	FILE *f = fopen(path, "w");
	ASSERT(f);
	for (int i = 0; i < 200; i++)
		fputs("this is not a database, just text that fills pages. ", f);
	fclose(f);
	struct argus_issues *db;
	ASSERT_EQ(argus_issues_open(&db, path, false, err, sizeof(err)), ARGUS_ISSUES_ECORRUPT);
	ASSERT_CONTAINS(err, path);
	snprintf(args, sizeof(args), "issues --db %s", path);
	ASSERT_EQ(run_cli(args, out, sizeof(out)), 5);
	ASSERT_CONTAINS(out, "argus issues: ");
	ASSERT_CONTAINS(out, path);
	ASSERT(strchr(out, '\n') == out + strlen(out) - 1); /* one line */
	/* another program's database */
	snprintf(path, sizeof(path), "%s/other.db", dir);
	sqlite3 *o;
	ASSERT_EQ(sqlite3_open(path, &o), SQLITE_OK);
	ASSERT_EQ(sqlite3_exec(o, "CREATE TABLE t(x)", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(o);
	ASSERT_EQ(argus_issues_open(&db, path, false, err, sizeof(err)), ARGUS_ISSUES_ECORRUPT);
	ASSERT_CONTAINS(err, "not an issue store");
	cleanup();
}

/* Another writer holds the store: the import says so in one line (exit 10);
 * a session writing lags to it runs to its end, counting what it could
 * not write, with one message (the daemon goes on). */
TEST(locked_store_gives_one_clear_error_and_the_session_goes_on)
{
	tmpdir();
	char t[300], path[300], args[700], out[4096], err[512];
	snprintf(t, sizeof(t), "%s/run.argus", dir);
	struct lt_run r = {.seed = 5, .ep = save_lags, .nep = 6};
	lt_write(t, &r);
	struct argus_issues *db = open_db("issues.db");
	snprintf(path, sizeof(path), "%s/issues.db", dir);
	int64_t sid;
	struct argus_issues_session ss = {.key = "test", .kind = "daemon", .source = "live"};
	ASSERT_EQ(argus_issues_add_session(db, &ss, &sid, err, sizeof(err)), 0);
	sqlite3 *o;
	ASSERT_EQ(sqlite3_open(path, &o), SQLITE_OK);
	ASSERT_EQ(sqlite3_exec(o, "BEGIN EXCLUSIVE", NULL, NULL, NULL), SQLITE_OK);
	snprintf(args, sizeof(args), "issues import --db %s %s", path, t);
	ASSERT_EQ(run_cli(args, out, sizeof(out)), 10);
	ASSERT_CONTAINS(out, "locked");
	ASSERT(strchr(out, '\n') == out + strlen(out) - 1);
	struct argus_session *s;
	ASSERT_EQ(argus_session_new(&s, NULL), 0);
	struct argus_issue_sink *is;
	struct argus_issue_sink_opts so = {.db = db, .session = sid, .user = "bob", .name = "test"};
	ASSERT_EQ(argus_issue_sink_new(&is, s, &so, err, sizeof(err)), 0);
	struct argus_trace_error te;
	ASSERT_EQ(argus_session_run_file(s, t, &te), 0);
	struct argus_issue_sink_stats st;
	argus_issue_sink_get_stats(is, &st);
	ASSERT_U64_EQ(st.errors, 3);
	ASSERT_U64_EQ(st.lags, 0);
	ASSERT_EQ(st.last_error, ARGUS_ISSUES_EBUSY);
	/* the lock goes: the next lags are written */
	sqlite3_exec(o, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(o);
	argus_issue_sink_free(is);
	argus_session_free(s);
	ASSERT_EQ(argus_session_new(&s, NULL), 0);
	ASSERT_EQ(argus_issue_sink_new(&is, s, &so, err, sizeof(err)), 0);
	ASSERT_EQ(argus_session_run_file(s, t, &te), 0);
	argus_issue_sink_get_stats(is, &st);
	ASSERT_U64_EQ(st.errors, 0);
	ASSERT_U64_EQ(st.lags, 3);
	argus_issue_sink_free(is);
	argus_session_free(s);
	argus_issues_close(db);
	cleanup();
}

/* With hooks, each dispatch is a landmark measured by the thread's shadow
 * stack: a 300 ms handler whose last 120 ms ran a nested dispatch is an
 * issue of its callback (inclusive 300 ms, exclusive 178 ms, its tree
 * without the nested samples), the nested callback one of its own; a
 * 40 ms handler is kept by the 3 ms filter but is no issue (under
 * 100 ms). The 300 ms episode around the handler is its issue, not a
 * "dispatch" lag of its own. */
TEST(hooked_dispatches_are_landmarks_with_exclusive_latency)
{
	tmpdir();
	char t[300];
	snprintf(t, sizeof(t), "%s/run.argus", dir);
	static const struct lt_episode eps[] = {
	    {.at = 100 * LT_MS, .handler_ns = 300 * LT_MS, .frames = {"on_save", "slow_checksum"},
	     .hooked = true, .nested_ns = 120 * LT_MS, .nested = "idle_tick"},
	    {.at = 600 * LT_MS, .handler_ns = 40 * LT_MS, .frames = {"on_key", "layout_text"},
	     .hooked = true},
	};
	struct lt_run r = {.seed = 7, .ep = eps, .nep = 2};
	lt_write(t, &r);
	struct argus_issues *db = open_db("issues.db");
	char err[512];
	struct argus_issues_import_result res;
	ASSERT_EQ(argus_issues_import(db, t, "dan", &res, err, sizeof(err)), 0);
	ASSERT_U64_EQ(res.st.handlers, 2);
	/* the 300 ms episode is on_save's: one issue, not a second one keyed by
	 * its samples */
	ASSERT_U64_EQ(res.st.lags, 0);
	ASSERT_U64_EQ(res.st.in_landmarks, 1);
	size_t n;
	struct argus_issue_summary *v = list(db, &n);
	const struct argus_issue_summary *outer = NULL, *inner = NULL;
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(v[i].landmark, "handler") && !strcmp(v[i].name, "on_save"))
			outer = &v[i];
		if (!strcmp(v[i].landmark, "handler") && !strcmp(v[i].name, "idle_tick"))
			inner = &v[i];
		ASSERT(strcmp(v[i].landmark, "dispatch"));
	}
	ASSERT(outer && inner);
	ASSERT_EQ(n, 2);
	ASSERT(outer->incl.max > 299 * LT_MS && outer->incl.max < 301 * LT_MS);
	ASSERT(outer->excl.max > 176 * LT_MS && outer->excl.max < 181 * LT_MS); /* 300 - 122 */
	ASSERT(inner->incl.max >= 120 * LT_MS && inner->incl.max < 123 * LT_MS);
	ASSERT_U64_EQ(inner->incl.max, inner->excl.max);
	/* the outer tree holds none of the nested samples */
	ASSERT(outer->samples >= 16 && outer->samples <= 19);
	ASSERT(inner->samples >= 11 && inner->samples <= 13);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	ASSERT_EQ(argus_issues_show_json(db, outer->id, m, err, sizeof(err)), 0);
	fclose(m);
	ASSERT(!strstr(buf, "idle_tick"));
	ASSERT_CONTAINS(buf, "\"on_save\",\"slow_checksum\"]");
	free(buf);
	free(v);
	argus_issues_close(db);
	cleanup();
}

/* The hooks' landmark records (a GTK key handler's signal, a signal
 * nested in it) in two runs (other pids, addresses): the handler is one
 * gtk-event issue with two sessions, named by the handler (not the
 * address), exclusive latency without the nested signal, its tree without
 * the nested samples; the nested signal is a signal issue; the GDK
 * source's dispatch around both (its time all theirs) and the episode
 * around it are no issue of their own. */
TEST(toolkit_landmarks_are_issues_stable_across_runs)
{
	tmpdir();
	char t1[300], t2[300];
	snprintf(t1, sizeof(t1), "%s/run1.argus", dir);
	snprintf(t2, sizeof(t2), "%s/run2.argus", dir);
	static const struct lt_episode eps[] = {
	    {.at = 100 * LT_MS, .handler_ns = 300 * LT_MS, .frames = {"on_key", "layout_text"},
	     .hooked = true, .signal = "on_key", .nested_ns = 120 * LT_MS, .nested = "on_click"},
	};
	struct lt_run r1 = {.seed = 3, .ep = eps, .nep = 1};
	struct lt_run r2 = {.seed = 11, .ep = eps, .nep = 1};
	lt_write(t1, &r1);
	lt_write(t2, &r2);
	struct argus_issues *db = open_db("issues.db");
	char err[512];
	struct argus_issues_import_result res;
	ASSERT_EQ(argus_issues_import(db, t1, "dan", &res, err, sizeof(err)), 0);
	ASSERT_U64_EQ(res.st.handlers, 2);
	ASSERT_U64_EQ(res.st.lags, 0);
	ASSERT_U64_EQ(res.st.in_landmarks, 1);
	ASSERT_EQ(argus_issues_import(db, t2, "dan", &res, err, sizeof(err)), 0);
	size_t n;
	struct argus_issue_summary *v = list(db, &n);
	const struct argus_issue_summary *key = NULL, *sig = NULL;
	for (size_t i = 0; i < n; i++) {
		printf("issue %s %s [%s] sessions %llu\n", v[i].landmark, v[i].name, v[i].frames,
		       (unsigned long long)v[i].sessions);
		if (!strcmp(v[i].landmark, "gtk-event"))
			key = &v[i];
		if (!strcmp(v[i].landmark, "signal"))
			sig = &v[i];
	}
	ASSERT_EQ(n, 2);
	ASSERT(key && sig);
	ASSERT_STR_EQ(key->name, "on_key");
	ASSERT_STR_EQ(key->frames, "on_key");
	ASSERT_U64_EQ(key->sessions, 2);
	ASSERT_U64_EQ(key->occurrences, 2);
	ASSERT(key->incl.max > 298 * LT_MS && key->incl.max < 301 * LT_MS);
	ASSERT(key->excl.max > 175 * LT_MS && key->excl.max < 181 * LT_MS); /* minus 122 */
	ASSERT_STR_EQ(sig->frames, "on_click");
	ASSERT_U64_EQ(sig->sessions, 2);
	ASSERT(sig->incl.max >= 120 * LT_MS && sig->incl.max < 123 * LT_MS);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	ASSERT_EQ(argus_issues_show_json(db, key->id, m, err, sizeof(err)), 0);
	fclose(m);
	ASSERT(!strstr(buf, "on_click"));
	ASSERT_CONTAINS(buf, "\"on_key\",\"layout_text\"]");
	free(buf);
	free(v);
	argus_issues_close(db);
	cleanup();
}

static int by_signature(const void *a, const void *b)
{
	const struct argus_issue_summary *x = a, *y = b;
	int c = strcmp(x->app, y->app);
	if (!c)
		c = strcmp(x->landmark, y->landmark);
	return c ? c : strcmp(x->frames, y->frames);
}

/* The daemon's way (records pushed into a session, tables interned as
 * they come) and an import of the same desktop's trace file give the same
 * issues with the same counts. */
TEST(pushed_records_give_the_issues_of_the_trace_file)
{
	tmpdir();
	char t[300], err[512];
	snprintf(t, sizeof(t), "%s/synth.argus", dir);
	struct argus_synth_opts so;
	argus_synth_opts_default(&so);
	so.events = 400000;
	so.seed = 5;
	struct argus_trace_writer *w;
	struct argus_trace_error te;
	ASSERT_EQ(argus_trace_writer_open(&w, t, NULL, NULL, &te), 0);
	struct argus_sink ws = argus_trace_writer_sink(w);
	ASSERT_EQ(argus_synth_run(&so, &ws, NULL), 0);
	ASSERT_EQ(argus_trace_writer_close(w, &te), 0);
	struct argus_issues *a = open_db("file.db"), *b = open_db("pushed.db");
	import(a, t, 0);
	int64_t sid;
	struct argus_issues_session ss = {.key = "pushed", .kind = "daemon", .source = "live"};
	ASSERT_EQ(argus_issues_add_session(b, &ss, &sid, err, sizeof(err)), 0);
	struct argus_session *s;
	ASSERT_EQ(argus_session_new(&s, NULL), 0);
	struct argus_issue_sink *is;
	struct argus_issue_sink_opts io = {.db = b, .session = sid, .user = "alice", .name = "test"};
	ASSERT_EQ(argus_issue_sink_new(&is, s, &io, err, sizeof(err)), 0);
	struct argus_sink push = argus_session_sink(s);
	ASSERT_EQ(argus_synth_run(&so, &push, NULL), 0);
	argus_session_end(s);
	argus_issue_sink_free(is);
	argus_session_free(s);
	size_t na, nb;
	struct argus_issue_summary *va = list(a, &na), *vb = list(b, &nb);
	ASSERT(na >= 5);
	ASSERT_EQ(na, nb);
	qsort(va, na, sizeof(*va), by_signature);
	qsort(vb, nb, sizeof(*vb), by_signature);
	for (size_t i = 0; i < na; i++) {
		ASSERT_STR_EQ(va[i].frames, vb[i].frames);
		ASSERT_STR_EQ(va[i].landmark, vb[i].landmark);
		ASSERT_U64_EQ(va[i].occurrences, vb[i].occurrences);
		ASSERT_U64_EQ(va[i].samples, vb[i].samples);
		ASSERT_U64_EQ(va[i].incl.max, vb[i].incl.max);
	}
	free(va);
	free(vb);
	argus_issues_close(a);
	argus_issues_close(b);
	cleanup();
}

/* The commands: list (text, JSON, sorts, --app), show (text, JSON, HTML),
 * and their usage errors. */
TEST(cli_lists_shows_and_rejects_bad_arguments)
{
	tmpdir();
	char t[300], path[300], args[800], out[65536];
	snprintf(t, sizeof(t), "%s/run.argus", dir);
	snprintf(path, sizeof(path), "%s/issues.db", dir);
	struct lt_run r = {.seed = 6, .ep = save_lags, .nep = 6};
	lt_write(t, &r);
	snprintf(args, sizeof(args), "issues import --db %s --user carol %s", path, t);
	ASSERT_EQ(run_cli(args, out, sizeof(out)), 0);
	ASSERT_CONTAINS(out, "3 lag(s)");
	snprintf(args, sizeof(args), "issues --db %s --sort users", path);
	ASSERT_EQ(run_cli(args, out, sizeof(out)), 0);
	ASSERT_CONTAINS(out, "slow_checksum < on_save");
	snprintf(args, sizeof(args), "issues --db %s --app nosuchapp", path);
	ASSERT_EQ(run_cli(args, out, sizeof(out)), 0);
	ASSERT_CONTAINS(out, "(no issues)");
	snprintf(args, sizeof(args), "issues --db %s --json", path);
	ASSERT_EQ(run_cli(args, out, sizeof(out)), 0);
	ASSERT_CONTAINS(out, "\"name\":\"slow_checksum\"");
	snprintf(args, sizeof(args), "issues show --db %s 1", path);
	ASSERT_EQ(run_cli(args, out, sizeof(out)), 0);
	ASSERT_CONTAINS(out, "heaviest path:");
	ASSERT_CONTAINS(out, "carol (3)");
	snprintf(args, sizeof(args), "issues show --db %s --html %s/i.html 1", path, dir);
	ASSERT_EQ(run_cli(args, out, sizeof(out)), 0);
	snprintf(args, sizeof(args), "%s/i.html", dir);
	FILE *f = fopen(args, "r");
	ASSERT(f);
	size_t n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = 0;
	fclose(f);
	ASSERT_CONTAINS(out, "<svg");
	ASSERT_CONTAINS(out, "slow_checksum");
	snprintf(args, sizeof(args), "issues show --db %s 99", path);
	ASSERT_EQ(run_cli(args, out, sizeof(out)), 1);
	ASSERT_CONTAINS(out, "no issue 99");
	snprintf(args, sizeof(args), "issues --db %s --sort size", path);
	ASSERT_EQ(run_cli(args, out, sizeof(out)), 2);
	snprintf(args, sizeof(args), "issues frobnicate");
	ASSERT_EQ(run_cli(args, out, sizeof(out)), 2);
	snprintf(args, sizeof(args), "issues --db %s/none/x.db", dir);
	ASSERT_EQ(run_cli(args, out, sizeof(out)), 6);
	cleanup();
}

TEST_MAIN(TEST_ENTRY(same_lag_in_two_runs_is_one_issue_with_two_sessions),
          TEST_ENTRY(injected_lag_is_its_own_issue_with_its_landmark_and_heaviest_path),
          TEST_ENTRY(two_commands_calling_the_same_slow_function_are_linked),
          TEST_ENTRY(cct_distance_is_a_weighted_multiset_distance),
          TEST_ENTRY(hooked_dispatches_are_landmarks_with_exclusive_latency),
          TEST_ENTRY(toolkit_landmarks_are_issues_stable_across_runs),
          TEST_ENTRY(pushed_records_give_the_issues_of_the_trace_file),
          TEST_ENTRY(corrupt_store_gives_one_clear_error),
          TEST_ENTRY(locked_store_gives_one_clear_error_and_the_session_goes_on),
          TEST_ENTRY(cli_lists_shows_and_rejects_bad_arguments))
