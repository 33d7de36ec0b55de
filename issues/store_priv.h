/*
 * store_priv.h - what the issue store's files share (not installed).
 */
#ifndef ARGUS_ISSUES_STORE_PRIV_H
#define ARGUS_ISSUES_STORE_PRIV_H

#include <sqlite3.h>

#include "issues.h"

#define STMT_CACHE 48

struct argus_issues {
	sqlite3 *db;
	char path[4096];
	int txn; /* nesting of argus_issues_begin */
	int version;        /* the file's schema (1 has no evicted table) */
	uint64_t max_bytes; /* the size cap, 0 = none (cap.c) */
	struct stmt_slot {
		const char *sql; /* the caller's static string: the key */
		sqlite3_stmt *st;
	} cache[STMT_CACHE];
	unsigned ncache;
};

/* A SQLite result code as an ARGUS_ISSUES_E*, with one line in err. */
int store_fail(struct argus_issues *db, int rc, const char *what, char *err, size_t ecap);

/* A cached statement for sql (a static string), reset, with the values of
 * fmt bound in order: 'i' int64_t, 'u' uint64_t (as int64), 't' const char *
 * (NULL binds NULL), 'd' double. NULL when it cannot be prepared (err set). */
sqlite3_stmt *store_stmt(struct argus_issues *db, const char *sql, char *err, size_t ecap,
                         const char *fmt, ...);
/* Run a statement that returns no rows: 0 or an error. */
int store_exec(struct argus_issues *db, const char *sql, char *err, size_t ecap, const char *fmt,
               ...);

/* Under the size cap again after a write: the oldest issues other than
 * keep dropped and counted (cap.c). Inside the write's transaction. */
int store_enforce_cap(struct argus_issues *db, int64_t keep, char *err, size_t ecap);

/* histogram bins of 2 % */
int store_bin(uint64_t ns);
uint64_t store_bin_value(int bin);
/* The distribution of an issue's latencies (which: 0 inclusive, 1 exclusive). */
int store_dist(struct argus_issues *db, int64_t issue, int which,
               struct argus_latency_dist *d, char *err, size_t ecap);

/* A calling-context tree loaded from the store. */
struct cct_set {
	char **ctx;
	uint32_t *w;
	size_t n, cap;
};
int store_cct(struct argus_issues *db, int64_t issue, struct cct_set *c, char *err, size_t ecap);
void cct_set_free(struct cct_set *c);

/* The list, or one issue (id != 0). */
int store_list(struct argus_issues *db, const char *app, int64_t id, enum argus_issue_sort sort,
               struct argus_issue_summary **out, size_t *nout, char *err, size_t ecap);
/* Text and JSON pieces (query.c) */
void ms_text(uint64_t ns, char *buf, size_t cap);
void when_text(uint64_t unix_ns, char *buf, size_t cap);
void chain_text(const char *frames, char *buf, size_t cap); /* "a;b" -> "a < b" */
void json_summary(FILE *out, const struct argus_issue_summary *s);
void json_str(FILE *out, const char *s);
void json_dist(FILE *out, const struct argus_latency_dist *d);

#endif /* ARGUS_ISSUES_STORE_PRIV_H */
