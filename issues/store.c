/*
 * store.c - the issue store: the SQLite file, its schema (docs/issues.md),
 * sessions, and the one write of an occurrence into its issue.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmdline.h"
#include "store_priv.h"

/* Schema 2's table: what the size cap dropped (cap.c). */
#define EVICTED_DDL                                                                                \
	"CREATE TABLE evicted(id INTEGER PRIMARY KEY CHECK(id = 1), issues INTEGER NOT NULL,"      \
	" occurrences INTEGER NOT NULL)"

/* Schema 3's table: a busy stall issue's majority paths (the join of a
 * stall whose answer lies on them, or on whose path its answer lies). */
#define PATHS_DDL                                                                                  \
	"CREATE TABLE issue_paths(issue INTEGER NOT NULL, func TEXT NOT NULL,"                     \
	" PRIMARY KEY(issue, func)) WITHOUT ROWID"

/* The schema, version ARGUS_ISSUES_SCHEMA (docs/issues.md). */
static const char *const schema[] = {
    "CREATE TABLE sessions(id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, kind TEXT NOT NULL,"
    " source TEXT NOT NULL, host TEXT NOT NULL, user TEXT, started INTEGER NOT NULL)",
    "CREATE TABLE issues(id INTEGER PRIMARY KEY, signature TEXT NOT NULL UNIQUE,"
    " kind TEXT NOT NULL, app TEXT NOT NULL, landmark TEXT NOT NULL, name TEXT NOT NULL,"
    " frames TEXT NOT NULL, exe TEXT NOT NULL DEFAULT '',"
    " occurrences INTEGER NOT NULL DEFAULT 0,"
    " incl_sum INTEGER NOT NULL DEFAULT 0, incl_min INTEGER, incl_max INTEGER NOT NULL DEFAULT 0,"
    " excl_sum INTEGER NOT NULL DEFAULT 0, excl_min INTEGER, excl_max INTEGER NOT NULL DEFAULT 0,"
    " samples INTEGER NOT NULL DEFAULT 0, contexts INTEGER NOT NULL DEFAULT 0,"
    " contexts_dropped INTEGER NOT NULL DEFAULT 0,"
    " first_seen INTEGER NOT NULL, last_seen INTEGER NOT NULL)",
    "CREATE INDEX issues_app ON issues(app)",
    "CREATE TABLE latency_bins(issue INTEGER NOT NULL, which INTEGER NOT NULL,"
    " bin INTEGER NOT NULL, count INTEGER NOT NULL,"
    " PRIMARY KEY(issue, which, bin)) WITHOUT ROWID",
    "CREATE TABLE occurrences(id INTEGER PRIMARY KEY, issue INTEGER NOT NULL,"
    " session INTEGER NOT NULL, at INTEGER NOT NULL, start_ns INTEGER NOT NULL,"
    " incl_ns INTEGER NOT NULL, excl_ns INTEGER NOT NULL, pid INTEGER NOT NULL,"
    " tid INTEGER NOT NULL, samples INTEGER NOT NULL, version TEXT NOT NULL,"
    " user TEXT NOT NULL, unended INTEGER NOT NULL DEFAULT 0)",
    "CREATE INDEX occurrences_issue ON occurrences(issue, id)",
    "CREATE TABLE issue_sessions(issue INTEGER NOT NULL, session INTEGER NOT NULL,"
    " occurrences INTEGER NOT NULL, PRIMARY KEY(issue, session)) WITHOUT ROWID",
    "CREATE TABLE issue_users(issue INTEGER NOT NULL, user TEXT NOT NULL,"
    " occurrences INTEGER NOT NULL, PRIMARY KEY(issue, user)) WITHOUT ROWID",
    "CREATE TABLE issue_versions(issue INTEGER NOT NULL, version TEXT NOT NULL,"
    " occurrences INTEGER NOT NULL, PRIMARY KEY(issue, version)) WITHOUT ROWID",
    "CREATE TABLE cct(issue INTEGER NOT NULL, context TEXT NOT NULL, samples INTEGER NOT NULL,"
    " PRIMARY KEY(issue, context)) WITHOUT ROWID",
    "CREATE TABLE diagnoses(id INTEGER PRIMARY KEY, issue INTEGER NOT NULL,"
    " session INTEGER NOT NULL, at INTEGER NOT NULL, summary TEXT NOT NULL, report TEXT)",
    "CREATE INDEX diagnoses_issue ON diagnoses(issue, id)",
    /* schema 2 */
    EVICTED_DDL,
    /* schema 3 */
    PATHS_DDL,
};
/* The statement that takes schema N - 1 to N (an older argus's file). */
static const char *const upgrade[] = {
    [2] = EVICTED_DDL,
    [3] = PATHS_DDL,
};

int argus_issues_exit(int err)
{
	switch (err) {
	case ARGUS_ISSUES_OK:
		return ARGUS_EXIT_OK;
	case ARGUS_ISSUES_ECORRUPT:
		return ARGUS_EXIT_BADINPUT;
	case ARGUS_ISSUES_EBUSY:
		return ARGUS_EXIT_BUSY;
	case ARGUS_ISSUES_EVERSION:
		return ARGUS_EXIT_VERSION;
	case ARGUS_ISSUES_ENOMEM:
		return ARGUS_EXIT_INTERNAL;
	case ARGUS_ISSUES_ENOENT:
		return ARGUS_EXIT_FAIL;
	default:
		return ARGUS_EXIT_IO;
	}
}

int store_fail(struct argus_issues *db, int rc, const char *what, char *err, size_t ecap)
{
	int prim = rc & 0xff, code;
	const char *why;
	switch (prim) {
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
	case SQLITE_FORMAT:
		code = ARGUS_ISSUES_ECORRUPT;
		why = "not an issue store, or damaged";
		break;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		code = ARGUS_ISSUES_EBUSY;
		why = "locked by another writer";
		break;
	case SQLITE_NOMEM:
		code = ARGUS_ISSUES_ENOMEM;
		why = "out of memory";
		break;
	case SQLITE_CANTOPEN:
	case SQLITE_PERM:
	case SQLITE_AUTH:
		code = ARGUS_ISSUES_EOPEN;
		why = "cannot open";
		break;
	default:
		code = ARGUS_ISSUES_EIO;
		why = "write failed";
	}
	if (err && ecap)
		snprintf(err, ecap, "%s: %s: %s (%s)", db ? db->path : "?", what, why,
		         db && db->db ? sqlite3_errmsg(db->db) : sqlite3_errstr(rc));
	return code;
}

static sqlite3_stmt *stmt_v(struct argus_issues *db, const char *sql, char *err, size_t ecap,
                            const char *fmt, va_list ap)
{
	sqlite3_stmt *st = NULL;
	for (unsigned i = 0; i < db->ncache; i++)
		if (db->cache[i].sql == sql)
			st = db->cache[i].st;
	if (!st) {
		int rc = sqlite3_prepare_v3(db->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL);
		if (rc != SQLITE_OK) {
			store_fail(db, rc, "prepare", err, ecap);
			return NULL;
		}
		if (db->ncache < STMT_CACHE)
			db->cache[db->ncache++] = (struct stmt_slot){sql, st};
		else {
			sqlite3_finalize(db->cache[0].st); /* the oldest goes */
			memmove(&db->cache[0], &db->cache[1], sizeof(db->cache[0]) * (STMT_CACHE - 1));
			db->cache[STMT_CACHE - 1] = (struct stmt_slot){sql, st};
		}
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	int k = 1;
	for (const char *f = fmt; f && *f; f++, k++) {
		switch (*f) {
		case 'i':
			sqlite3_bind_int64(st, k, va_arg(ap, int64_t));
			break;
		case 'u':
			sqlite3_bind_int64(st, k, (int64_t)va_arg(ap, uint64_t));
			break;
		case 'd':
			sqlite3_bind_double(st, k, va_arg(ap, double));
			break;
		default: {
			const char *s = va_arg(ap, const char *);
			if (s)
				sqlite3_bind_text(st, k, s, -1, SQLITE_TRANSIENT);
			else
				sqlite3_bind_null(st, k);
		}
		}
	}
	return st;
}

sqlite3_stmt *store_stmt(struct argus_issues *db, const char *sql, char *err, size_t ecap,
                         const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sqlite3_stmt *st = stmt_v(db, sql, err, ecap, fmt, ap);
	va_end(ap);
	return st;
}

int store_exec(struct argus_issues *db, const char *sql, char *err, size_t ecap, const char *fmt,
               ...)
{
	va_list ap;
	va_start(ap, fmt);
	sqlite3_stmt *st = stmt_v(db, sql, err, ecap, fmt, ap);
	va_end(ap);
	if (!st)
		return ARGUS_ISSUES_EIO;
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return store_fail(db, rc, "write", err, ecap);
	return 0;
}

static int exec_raw(struct argus_issues *db, const char *sql, char *err, size_t ecap)
{
	int rc = sqlite3_exec(db->db, sql, NULL, NULL, NULL);
	return rc == SQLITE_OK ? 0 : store_fail(db, rc, db->txn ? "write" : "opening", err, ecap);
}

/* user_version 0 and no tables: a new file, given the schema */
static int check_schema(struct argus_issues *db, bool readonly, char *err, size_t ecap)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db->db, "PRAGMA user_version", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return store_fail(db, rc, "reading the schema version", err, ecap);
	rc = sqlite3_step(st);
	int version = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return store_fail(db, rc, "reading the schema version", err, ecap);
	if (version > ARGUS_ISSUES_SCHEMA) {
		snprintf(err, ecap, "%s: written by a newer argus (schema %d, this one reads %d)",
		         db->path, version, ARGUS_ISSUES_SCHEMA);
		return ARGUS_ISSUES_EVERSION;
	}
	rc = sqlite3_prepare_v2(db->db, "SELECT count(*) FROM sqlite_master", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return store_fail(db, rc, "reading the schema", err, ecap);
	rc = sqlite3_step(st);
	int tables = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return store_fail(db, rc, "reading the schema", err, ecap);
	db->version = version;
	/* an older schema reads as the newest with nothing evicted and no
	 * paths; opened for writing, it is upgraded */
	if (version == ARGUS_ISSUES_SCHEMA || (version >= 1 && readonly))
		return 0;
	if (version >= 1) {
		int e = exec_raw(db, "BEGIN IMMEDIATE", err, ecap);
		for (int v = version + 1; !e && v <= ARGUS_ISSUES_SCHEMA; v++)
			e = exec_raw(db, upgrade[v], err, ecap);
		char pv[64];
		snprintf(pv, sizeof(pv), "PRAGMA user_version = %d", ARGUS_ISSUES_SCHEMA);
		if (!e)
			e = exec_raw(db, pv, err, ecap);
		if (!e && !(e = exec_raw(db, "COMMIT", err, ecap)))
			db->version = ARGUS_ISSUES_SCHEMA;
		else
			sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
		return e;
	}
	if (version != 0 || tables != 0) {
		snprintf(err, ecap, "%s: not an issue store (another SQLite database)", db->path);
		return ARGUS_ISSUES_ECORRUPT;
	}
	if (readonly) {
		snprintf(err, ecap, "%s: an empty file, not an issue store yet", db->path);
		return ARGUS_ISSUES_ECORRUPT;
	}
	int e = exec_raw(db, "BEGIN IMMEDIATE", err, ecap);
	for (size_t i = 0; !e && i < sizeof(schema) / sizeof(schema[0]); i++)
		e = exec_raw(db, schema[i], err, ecap);
	char v[64];
	snprintf(v, sizeof(v), "PRAGMA user_version = %d", ARGUS_ISSUES_SCHEMA);
	if (!e)
		e = exec_raw(db, v, err, ecap);
	if (!e && !(e = exec_raw(db, "COMMIT", err, ecap))) {
		db->version = ARGUS_ISSUES_SCHEMA;
		return 0;
	}
	sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
	return e;
}

int argus_issues_open(struct argus_issues **out, const char *path, bool readonly, char *err,
                      size_t ecap)
{
	*out = NULL;
	struct argus_issues *db = calloc(1, sizeof(*db));
	if (!db) {
		snprintf(err, ecap, "out of memory");
		return ARGUS_ISSUES_ENOMEM;
	}
	snprintf(db->path, sizeof(db->path), "%s", path ? path : ARGUS_ISSUES_DB);
	int flags = SQLITE_OPEN_READWRITE | (readonly ? 0 : SQLITE_OPEN_CREATE);
	if (!readonly) { /* its directory (/var/lib/argus) on first use */
		char parent[sizeof(db->path)];
		snprintf(parent, sizeof(parent), "%s", db->path);
		char *slash = strrchr(parent, '/');
		if (slash && slash != parent) {
			*slash = 0;
			if (mkdir(parent, 0755) && errno != EEXIST) {
				snprintf(err, ecap, "%s: cannot create its directory: %s", db->path,
				         strerror(errno));
				free(db);
				return ARGUS_ISSUES_EOPEN;
			}
		}
	}
	int rc = sqlite3_open_v2(db->path, &db->db, flags, NULL);
	if (rc != SQLITE_OK && readonly) { /* no write access: read only */
		sqlite3_close(db->db);
		db->db = NULL;
		rc = sqlite3_open_v2(db->path, &db->db, SQLITE_OPEN_READONLY, NULL);
	}
	int e = 0;
	if (rc != SQLITE_OK) {
		snprintf(err, ecap, "%s: cannot open: %s", db->path,
		         db->db ? sqlite3_errmsg(db->db) : sqlite3_errstr(rc));
		e = ARGUS_ISSUES_EOPEN;
		goto fail;
	}
	sqlite3_extended_result_codes(db->db, 1);
	sqlite3_busy_timeout(db->db, 2000);
	/* WAL: readers (argus issues) never block the daemon's writes */
	if (!readonly && (e = exec_raw(db, "PRAGMA journal_mode=WAL", err, ecap)))
		goto fail;
	if ((e = exec_raw(db, "PRAGMA synchronous=NORMAL", err, ecap)) ||
	    (e = check_schema(db, readonly, err, ecap)))
		goto fail;
	db->max_bytes = readonly ? 0 : ARGUS_ISSUES_MAX_BYTES;
	*out = db;
	return 0;
fail:
	argus_issues_close(db);
	return e;
}

void argus_issues_close(struct argus_issues *db)
{
	if (!db)
		return;
	for (unsigned i = 0; i < db->ncache; i++)
		sqlite3_finalize(db->cache[i].st);
	sqlite3_close(db->db);
	free(db);
}

const char *argus_issues_path(const struct argus_issues *db)
{
	return db->path;
}

int argus_issues_begin(struct argus_issues *db, char *err, size_t ecap)
{
	if (db->txn++)
		return 0;
	int e = exec_raw(db, "BEGIN IMMEDIATE", err, ecap);
	if (e)
		db->txn = 0;
	return e;
}

int argus_issues_commit(struct argus_issues *db, char *err, size_t ecap)
{
	if (!db->txn || --db->txn)
		return 0;
	int e = exec_raw(db, "COMMIT", err, ecap);
	if (e)
		sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
	return e;
}

static void rollback(struct argus_issues *db)
{
	if (db->txn) {
		db->txn = 0;
		sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
	}
}

int argus_issues_add_session(struct argus_issues *db, const struct argus_issues_session *s,
                             int64_t *id, char *err, size_t ecap)
{
	static const char q[] = "SELECT id FROM sessions WHERE key = ?";
	static const char ins[] =
	    "INSERT INTO sessions(key, kind, source, host, user, started) VALUES(?,?,?,?,?,?)";
	sqlite3_stmt *st = store_stmt(db, q, err, ecap, "t", s->key);
	if (!st)
		return ARGUS_ISSUES_EIO;
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		sqlite3_reset(st);
		return 1;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return store_fail(db, rc, "reading the sessions", err, ecap);
	int e = store_exec(db, ins, err, ecap, "ttttti", s->key, s->kind ? s->kind : "import",
	                   s->source ? s->source : "", s->host ? s->host : "", s->user,
	                   (int64_t)s->started);
	if (e)
		return e;
	*id = sqlite3_last_insert_rowid(db->db);
	return 0;
}

void argus_issue_signature(const struct argus_issue_occurrence *o, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s|%s|%s", o->app, o->landmark, o->frames);
}

int store_bin(uint64_t ns)
{
	return ns < 1 ? 0 : (int)floor(log((double)ns) / log(1.02));
}

uint64_t store_bin_value(int bin)
{
	return (uint64_t)llround(exp((bin + 0.5) * log(1.02)));
}

/* Is f one of the ";"-joined names in path? */
static bool on_path(const char *path, const char *f, size_t flen)
{
	for (const char *p = path; p && *p;) {
		const char *e = strchr(p, ';');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n == flen && !strncmp(p, f, n))
			return true;
		p = e ? e + 1 : NULL;
	}
	return false;
}

/* A busy stall that no issue's signature holds joins a stall issue of its
 * app and root process when either's answer lies on the other's majority
 * path: the two answers are a function and a caller of it that held most
 * of the samples in both runs - the diagnosis picks the innermost function
 * more than half hold, and a function near that line is the answer in one
 * run and its caller in the next (realapps r9). Two answers off each
 * other's paths are two hangs. *issue 0: none. */
static int join_by_path(struct argus_issues *db, const struct argus_issue_occurrence *o,
                        int64_t *issue, char *err, size_t ecap)
{
	static const char q[] =
	    "SELECT id, frames, EXISTS(SELECT 1 FROM issue_paths p WHERE p.issue = issues.id"
	    " AND p.func = ?) FROM issues WHERE kind = ? AND app = ? AND landmark = ?"
	    " AND frames LIKE ? ESCAPE '\\' ORDER BY id";
	*issue = 0;
	const char *at = strrchr(o->frames, '@');
	if (!o->majority || !at || db->version < 3)
		return 0;
	size_t alen = (size_t)(at - o->frames);
	char answer[400], like[400];
	snprintf(answer, sizeof(answer), "%.*s", (int)alen, o->frames);
	/* any answer "@" the same root process, LIKE's wildcards escaped */
	size_t k = 0;
	like[k++] = '%';
	for (const char *c = at; *c && k + 3 < sizeof(like); c++) {
		if (*c == '%' || *c == '_' || *c == '\\')
			like[k++] = '\\';
		like[k++] = *c;
	}
	like[k] = 0;
	sqlite3_stmt *st = store_stmt(db, q, err, ecap, "ttttt", answer, o->kind, o->app, o->landmark,
	                              like);
	if (!st)
		return ARGUS_ISSUES_EIO;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *fr = (const char *)sqlite3_column_text(st, 1);
		const char *fat = fr ? strrchr(fr, '@') : NULL;
		if (!fat || strcmp(fat, at))
			continue;
		if (sqlite3_column_int(st, 2) || on_path(o->majority, fr, (size_t)(fat - fr))) {
			*issue = sqlite3_column_int64(st, 0);
			break;
		}
	}
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return store_fail(db, rc, "reading the issues", err, ecap);
	return 0;
}

static int add_paths(struct argus_issues *db, int64_t issue,
                     const struct argus_issue_occurrence *o, char *err, size_t ecap)
{
	static const char ins[] = "INSERT OR IGNORE INTO issue_paths(issue, func) VALUES(?, ?)";
	if (!o->majority || db->version < 3)
		return 0;
	int e = 0;
	char f[256];
	for (const char *p = o->majority; !e && p && *p;) {
		const char *end = strchr(p, ';');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		snprintf(f, sizeof(f), "%.*s", (int)n, p);
		e = store_exec(db, ins, err, ecap, "it", issue, f);
		p = end ? end + 1 : NULL;
	}
	return e;
}

static int add_issue_row(struct argus_issues *db, const struct argus_issue_occurrence *o,
                         const char *sig, int64_t *issue, char *err, size_t ecap)
{
	static const char q[] = "SELECT id FROM issues WHERE signature = ?";
	static const char ins[] =
	    "INSERT INTO issues(signature, kind, app, landmark, name, frames, exe, first_seen,"
	    " last_seen) VALUES(?,?,?,?,?,?,?,?,?)";
	sqlite3_stmt *st = store_stmt(db, q, err, ecap, "t", sig);
	if (!st)
		return ARGUS_ISSUES_EIO;
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*issue = sqlite3_column_int64(st, 0);
		sqlite3_reset(st);
		return 0;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return store_fail(db, rc, "reading the issues", err, ecap);
	int e = join_by_path(db, o, issue, err, ecap);
	if (e || *issue)
		return e;
	e = store_exec(db, ins, err, ecap, "tttttttuu", sig, o->kind, o->app, o->landmark,
	                   o->name, o->frames, o->exe ? o->exe : "", o->at, o->at);
	*issue = sqlite3_last_insert_rowid(db->db);
	return e;
}

/* The calling contexts, bounded per issue: new ones beyond the cap are
 * counted, not kept. */
static int add_cct(struct argus_issues *db, int64_t issue, const struct argus_issue_occurrence *o,
                   char *err, size_t ecap)
{
	static const char upd[] =
	    "UPDATE cct SET samples = samples + ? WHERE issue = ? AND context = ?";
	static const char ins[] = "INSERT INTO cct(issue, context, samples) SELECT ?, ?, ?"
	                          " FROM issues WHERE id = ? AND contexts < ?";
	static const char cnt[] = "UPDATE issues SET contexts = contexts + ?,"
	                          " contexts_dropped = contexts_dropped + ? WHERE id = ?";
	int e = 0;
	for (uint32_t i = 0; !e && i < o->ncontexts; i++) {
		int64_t w = o->weights[i];
		if ((e = store_exec(db, upd, err, ecap, "iit", w, issue, o->contexts[i])))
			break;
		if (sqlite3_changes(db->db))
			continue;
		if ((e = store_exec(db, ins, err, ecap, "itiii", issue, o->contexts[i], w, issue,
		                    (int64_t)ARGUS_ISSUES_CONTEXTS)))
			break;
		bool kept = sqlite3_changes(db->db) > 0;
		e = store_exec(db, cnt, err, ecap, "iii", (int64_t)kept, kept ? 0 : w, issue);
	}
	return e;
}

static int add_rows(struct argus_issues *db, int64_t session,
                    const struct argus_issue_occurrence *o, int64_t issue, char *err,
                    size_t ecap)
{
	static const char upd[] =
	    "UPDATE issues SET occurrences = occurrences + 1, incl_sum = incl_sum + ?1,"
	    " incl_min = min(coalesce(incl_min, ?1), ?1), incl_max = max(incl_max, ?1),"
	    " excl_sum = excl_sum + ?2, excl_min = min(coalesce(excl_min, ?2), ?2),"
	    " excl_max = max(excl_max, ?2), samples = samples + ?3,"
	    " first_seen = min(first_seen, ?4), last_seen = max(last_seen, ?4) WHERE id = ?5";
	static const char bin[] = "INSERT INTO latency_bins(issue, which, bin, count) VALUES(?,?,?,1)"
	                          " ON CONFLICT DO UPDATE SET count = count + 1";
	static const char occ[] =
	    "INSERT INTO occurrences(issue, session, at, start_ns, incl_ns, excl_ns, pid, tid,"
	    " samples, version, user, unended) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)";
	static const char trim[] =
	    "DELETE FROM occurrences WHERE issue = ?1 AND id <= (SELECT id FROM occurrences"
	    " WHERE issue = ?1 ORDER BY id DESC LIMIT 1 OFFSET ?2)";
	static const char ses[] =
	    "INSERT INTO issue_sessions(issue, session, occurrences) VALUES(?,?,1)"
	    " ON CONFLICT DO UPDATE SET occurrences = occurrences + 1";
	static const char usr[] = "INSERT INTO issue_users(issue, user, occurrences) VALUES(?,?,1)"
	                          " ON CONFLICT DO UPDATE SET occurrences = occurrences + 1";
	static const char ver[] =
	    "INSERT INTO issue_versions(issue, version, occurrences) VALUES(?,?,1)"
	    " ON CONFLICT DO UPDATE SET occurrences = occurrences + 1";
	static const char dia[] =
	    "INSERT INTO diagnoses(issue, session, at, summary, report) VALUES(?,?,?,?,?)";
	static const char dtrim[] =
	    "DELETE FROM diagnoses WHERE issue = ?1 AND id <= (SELECT id FROM diagnoses"
	    " WHERE issue = ?1 ORDER BY id DESC LIMIT 1 OFFSET ?2)";
	uint64_t samples = 0;
	for (uint32_t i = 0; i < o->ncontexts; i++)
		samples += o->weights[i];
	const char *version = o->version && o->version[0] ? o->version : "unknown";
	const char *user = o->user ? o->user : "";
	int e;
	if ((e = store_exec(db, upd, err, ecap, "uuuui", o->incl_ns, o->excl_ns, samples, o->at,
	                    issue)) ||
	    (e = store_exec(db, bin, err, ecap, "iii", issue, (int64_t)0,
	                    (int64_t)store_bin(o->incl_ns))) ||
	    (e = store_exec(db, bin, err, ecap, "iii", issue, (int64_t)1,
	                    (int64_t)store_bin(o->excl_ns))) ||
	    (e = store_exec(db, occ, err, ecap, "iiuuuuiiutti", issue, session, o->at, o->start_ns,
	                    o->incl_ns, o->excl_ns, (int64_t)o->pid, (int64_t)o->tid, samples,
	                    version, user, (int64_t)o->unended)) ||
	    (e = store_exec(db, trim, err, ecap, "ii", issue, (int64_t)ARGUS_ISSUES_OCCURRENCES)) ||
	    (e = store_exec(db, ses, err, ecap, "ii", issue, session)) ||
	    (user[0] && (e = store_exec(db, usr, err, ecap, "it", issue, user))) ||
	    (e = store_exec(db, ver, err, ecap, "it", issue, version)) ||
	    (e = add_cct(db, issue, o, err, ecap)))
		return e;
	if (o->diagnosis &&
	    ((e = store_exec(db, dia, err, ecap, "iiutt", issue, session, o->at, o->diagnosis,
	                     o->diagnosis_json)) ||
	     (e = store_exec(db, dtrim, err, ecap, "ii", issue, (int64_t)ARGUS_ISSUES_DIAGNOSES))))
		return e;
	return 0;
}

int argus_issues_add(struct argus_issues *db, int64_t session,
                     const struct argus_issue_occurrence *o, int64_t *issue, char *err,
                     size_t ecap)
{
	char sig[1024];
	argus_issue_signature(o, sig, sizeof(sig));
	int e = argus_issues_begin(db, err, ecap);
	if (e)
		return e;
	if ((e = add_issue_row(db, o, sig, issue, err, ecap)) ||
	    (e = add_paths(db, *issue, o, err, ecap)) ||
	    (e = add_rows(db, session, o, *issue, err, ecap)) ||
	    (e = store_enforce_cap(db, *issue, err, ecap))) {
		rollback(db);
		return e;
	}
	return argus_issues_commit(db, err, ecap);
}
