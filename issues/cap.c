/*
 * cap.c - the issue store's size cap (docs/issues.md "Bounds"): when the
 * pages in use pass the cap, whole issues are dropped, the one seen
 * longest ago first, until the store is back under nine tenths of it; what
 * was dropped is counted in the evicted table (issues, occurrences), so
 * the totals stay exact. The issue just written is never dropped.
 */
#include <string.h>

#include "store_priv.h"

/* Pages in use (the free list excluded: SQLite reuses it) in bytes. */
static int used_bytes(struct argus_issues *db, uint64_t *out, char *err, size_t ecap)
{
	static const char *const q[] = {"PRAGMA page_count", "PRAGMA freelist_count",
	                                "PRAGMA page_size"};
	int64_t v[3];
	for (int i = 0; i < 3; i++) {
		sqlite3_stmt *st = store_stmt(db, q[i], err, ecap, "");
		if (!st)
			return ARGUS_ISSUES_EIO;
		int rc = sqlite3_step(st);
		v[i] = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
		sqlite3_reset(st);
		if (rc != SQLITE_ROW)
			return store_fail(db, rc, "reading the file's size", err, ecap);
	}
	*out = (uint64_t)(v[0] - v[1]) * (uint64_t)v[2];
	return 0;
}

void argus_issues_set_max_bytes(struct argus_issues *db, uint64_t max)
{
	db->max_bytes = max;
}

/* Drop one issue and everything of it, counted; 1 when there was none to
 * drop (only keep is left). */
static int drop_oldest(struct argus_issues *db, int64_t keep, char *err, size_t ecap)
{
	static const char pick[] =
	    "SELECT id, occurrences FROM issues WHERE id != ? ORDER BY last_seen, id LIMIT 1";
	static const char *const del[] = {
	    "DELETE FROM latency_bins WHERE issue = ?",   "DELETE FROM occurrences WHERE issue = ?",
	    "DELETE FROM issue_sessions WHERE issue = ?", "DELETE FROM issue_users WHERE issue = ?",
	    "DELETE FROM issue_versions WHERE issue = ?", "DELETE FROM cct WHERE issue = ?",
	    "DELETE FROM diagnoses WHERE issue = ?",      "DELETE FROM issue_paths WHERE issue = ?",
	    "DELETE FROM issues WHERE id = ?",
	};
	static const char count[] =
	    "INSERT INTO evicted(id, issues, occurrences) VALUES(1, 1, ?)"
	    " ON CONFLICT DO UPDATE SET issues = issues + 1, occurrences = occurrences + excluded.occurrences";
	sqlite3_stmt *st = store_stmt(db, pick, err, ecap, "i", keep);
	if (!st)
		return ARGUS_ISSUES_EIO;
	int rc = sqlite3_step(st);
	int64_t id = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	int64_t occ = rc == SQLITE_ROW ? sqlite3_column_int64(st, 1) : 0;
	sqlite3_reset(st);
	if (rc == SQLITE_DONE)
		return 1;
	if (rc != SQLITE_ROW)
		return store_fail(db, rc, "reading the issues", err, ecap);
	int e = 0;
	for (size_t i = 0; !e && i < sizeof(del) / sizeof(del[0]); i++)
		e = store_exec(db, del[i], err, ecap, "i", id);
	return e ? e : store_exec(db, count, err, ecap, "i", occ);
}

int store_enforce_cap(struct argus_issues *db, int64_t keep, char *err, size_t ecap)
{
	if (!db->max_bytes)
		return 0;
	uint64_t used;
	int e = used_bytes(db, &used, err, ecap);
	if (e || used <= db->max_bytes)
		return e;
	/* down to nine tenths, so the next writes do not drop one each */
	uint64_t goal = db->max_bytes / 10 * 9;
	for (unsigned n = 0; !e && used > goal && n < 100000; n++) {
		if ((e = drop_oldest(db, keep, err, ecap)) == 1)
			return 0; /* only the newest issue left: it stays */
		if (!e)
			e = used_bytes(db, &used, err, ecap);
	}
	return e;
}

int argus_issues_evicted(struct argus_issues *db, uint64_t *issues, uint64_t *occurrences,
                         char *err, size_t ecap)
{
	static const char q[] = "SELECT issues, occurrences FROM evicted WHERE id = 1";
	*issues = *occurrences = 0;
	if (db->version < 2)
		return 0; /* an older file, read only: nothing was ever evicted */
	sqlite3_stmt *st = store_stmt(db, q, err, ecap, "");
	if (!st)
		return ARGUS_ISSUES_EIO;
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*issues = (uint64_t)sqlite3_column_int64(st, 0);
		*occurrences = (uint64_t)sqlite3_column_int64(st, 1);
	}
	sqlite3_reset(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : store_fail(db, rc, "reading", err, ecap);
}
