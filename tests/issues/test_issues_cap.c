/*
 * test_issues_cap.c - the issue store's size cap (docs/issues.md
 * "Bounds"): past the cap the issues last seen longest ago are dropped
 * whole and counted, so the kept issues plus the dropped ones account for
 * every issue and occurrence written; the store stays under its cap; an
 * old issue seen again and again is recent and stays.
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "issues.h"
#include "test.h"

#define ISSUES  400
#define OCC     3
#define CTX     40
#define CAP     (512u << 10)
#define SEC     1000000000ull
#define T0      (1700000000ull * SEC)

static void occurrence(struct argus_issues *db, int64_t session, int i, uint64_t at)
{
	static char ctx[CTX][160];
	static const char *cp[CTX];
	static uint32_t w[CTX];
	for (int c = 0; c < CTX; c++) {
		snprintf(ctx[c], sizeof(ctx[c]),
		         "main;g_main_loop_run;on_event_%d;handler_%d;compute_%d_%d;inner_loop_%d", i,
		         i, i, c, c);
		cp[c] = ctx[c];
		w[c] = 1 + (uint32_t)c % 5;
	}
	char name[64], frames[128];
	snprintf(name, sizeof(name), "compute_%d", i);
	snprintf(frames, sizeof(frames), "compute_%d;handler_%d", i, i);
	struct argus_issue_occurrence o = {
	    .kind = "lag",
	    .app = "editor",
	    .landmark = "ui-episode",
	    .name = name,
	    .frames = frames,
	    .exe = "editor",
	    .version = "",
	    .user = "alice",
	    .at = at,
	    .start_ns = at - T0,
	    .incl_ns = 150000000,
	    .excl_ns = 150000000,
	    .pid = 1000,
	    .tid = 1000,
	    .contexts = cp,
	    .weights = w,
	    .ncontexts = CTX,
	};
	int64_t issue;
	char err[512];
	int e = argus_issues_add(db, session, &o, &issue, err, sizeof(err));
	ASSERT_MSG(e == 0, "%s", err);
}

/* Pages in use, as the cap counts them. */
static uint64_t used(const char *path)
{
	sqlite3 *s;
	ASSERT_EQ(sqlite3_open_v2(path, &s, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	int64_t v[3];
	const char *q[] = {"PRAGMA page_count", "PRAGMA freelist_count", "PRAGMA page_size"};
	for (int i = 0; i < 3; i++) {
		sqlite3_stmt *st;
		ASSERT_EQ(sqlite3_prepare_v2(s, q[i], -1, &st, NULL), SQLITE_OK);
		ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
		v[i] = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	sqlite3_close(s);
	return (uint64_t)(v[0] - v[1]) * (uint64_t)v[2];
}

TEST(past_the_size_cap_the_oldest_issues_are_dropped_and_counted)
{
	char dir[64] = "/tmp/argus-issues-cap-XXXXXX", path[128], err[512];
	ASSERT(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/issues.db", dir);
	struct argus_issues *db;
	ASSERT_MSG(argus_issues_open(&db, path, false, err, sizeof(err)) == 0, "%s", err);
	argus_issues_set_max_bytes(db, CAP);
	struct argus_issues_session ses = {
	    .key = "cap-test", .kind = "import", .source = "test", .host = "h", .started = T0};
	int64_t session;
	ASSERT_EQ(argus_issues_add_session(db, &ses, &session, err, sizeof(err)), 0);
	/* issue i is seen at T0 + i s, OCC times; issue 0 again every 20 s:
	 * recent, never the oldest */
	uint64_t again = 0;
	for (int i = 0; i < ISSUES; i++) {
		for (int k = 0; k < OCC; k++)
			occurrence(db, session, i, T0 + (uint64_t)i * SEC + (uint64_t)k);
		if (i && i % 20 == 0) {
			occurrence(db, session, 0, T0 + (uint64_t)i * SEC + 5);
			again++;
		}
	}
	uint64_t ev_issues, ev_occ;
	ASSERT_EQ(argus_issues_evicted(db, &ev_issues, &ev_occ, err, sizeof(err)), 0);
	struct argus_issue_summary *v;
	size_t n;
	ASSERT_EQ(argus_issues_list(db, NULL, ARGUS_ISSUES_BY_RECENT, &v, &n, err, sizeof(err)),
	          0);
	argus_issues_close(db);
	uint64_t kept_occ = 0;
	int oldest_kept = ISSUES, newest_dropped = -1;
	bool seen[ISSUES] = {false};
	for (size_t i = 0; i < n; i++) {
		int k = atoi(v[i].name + strlen("compute_"));
		ASSERT(k >= 0 && k < ISSUES);
		seen[k] = true;
		kept_occ += v[i].occurrences;
		if (k && k < oldest_kept)
			oldest_kept = k;
	}
	for (int k = 1; k < ISSUES; k++)
		if (!seen[k])
			newest_dropped = k;
	printf("cap %u KiB: %zu issues kept (%llu occurrences), %llu dropped (%llu occurrences), "
	       "%llu KiB in use\n",
	       CAP >> 10, n, (unsigned long long)kept_occ, (unsigned long long)ev_issues,
	       (unsigned long long)ev_occ, (unsigned long long)(used(path) >> 10));
	ASSERT_MSG(ev_issues > 0, "nothing dropped: the test did not pass the cap");
	ASSERT_EQ(n + ev_issues, (size_t)ISSUES);
	ASSERT_EQ(kept_occ + ev_occ, (uint64_t)ISSUES * OCC + again);
	ASSERT_MSG(newest_dropped < oldest_kept, "dropped %d, kept %d: not the oldest first",
	           newest_dropped, oldest_kept);
	ASSERT_MSG(seen[0], "the issue seen again and again was dropped");
	ASSERT_MSG(seen[ISSUES - 1], "the newest issue was dropped");
	ASSERT_MSG(used(path) <= CAP, "%llu bytes in use, cap %u",
	           (unsigned long long)used(path), CAP);
	free(v);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ASSERT_EQ(system(cmd), 0);
}

TEST_MAIN(TEST_ENTRY(past_the_size_cap_the_oldest_issues_are_dropped_and_counted))
