/*
 * issues.h - libargus-issues: the issue store (docs/issues.md).
 *
 * Every perceptible lag (a UI episode of 100 ms or more) and every stall
 * argus sees becomes an occurrence of an issue in an embedded SQLite
 * database (WAL mode). Equivalent lags of all sessions and users share one
 * issue, keyed by a stable signature: the app, the landmark and the top
 * application frames of the cause (for a stall: the diagnosed root cause's
 * process and function) - names only, never pids or addresses. Per issue:
 * its latency distribution, occurrences (details of the latest N, counts
 * exact), sessions, users, versions, the calling-context tree of the
 * samples taken inside its occurrences, the diagnoses of its stalls, and
 * links to issues whose trees are similar (LagHunter, paper 002).
 *
 * Writers: a session sink (the daemon's session, `argus issues import`).
 * Readers: the list, one issue's page (text, JSON, HTML).
 */
#ifndef ARGUS_ISSUES_H
#define ARGUS_ISSUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "session.h"

#define ARGUS_ISSUES_DB           "/var/lib/argus/issues.db"
#define ARGUS_ISSUES_OCCURRENCES  100  /* occurrence details kept per issue */
#define ARGUS_ISSUES_CONTEXTS     4096 /* calling contexts kept per issue */
#define ARGUS_ISSUES_DIAGNOSES    10   /* stall diagnoses kept per issue */
#define ARGUS_ISSUES_SCHEMA       3    /* PRAGMA user_version */
#define ARGUS_ISSUES_MAX_BYTES    (256ull << 20) /* the size cap's default */
#define ARGUS_ISSUES_SIMILAR_MAX  0.6  /* links: CCT distance at most this */
#define ARGUS_ISSUES_HANDLER_NS   100000000ull /* hooked dispatches: perceptible */

enum argus_issues_err {
	ARGUS_ISSUES_OK = 0,
	ARGUS_ISSUES_EOPEN = -1,    /* cannot open or create the file */
	ARGUS_ISSUES_ECORRUPT = -2, /* not an issue store, or damaged */
	ARGUS_ISSUES_EBUSY = -3,    /* locked by another writer past the wait */
	ARGUS_ISSUES_EVERSION = -4, /* written by a newer argus (schema) */
	ARGUS_ISSUES_ENOMEM = -5,
	ARGUS_ISSUES_ENOENT = -6, /* no such issue */
	ARGUS_ISSUES_EIO = -7,    /* a write failed (disk full, read-only) */
};
/* The exit code of an error (docs/cli.md). */
int argus_issues_exit(int err);

struct argus_issues;
/* Open (create unless readonly) the store at path (NULL = ARGUS_ISSUES_DB).
 * Returns 0 or an error with one line in err naming the file. */
int argus_issues_open(struct argus_issues **db, const char *path, bool readonly, char *err,
                      size_t ecap);
void argus_issues_close(struct argus_issues *db);
/* The size cap (default ARGUS_ISSUES_MAX_BYTES; 0 = none): past it, each
 * write drops whole issues, the one last seen longest ago first, down to
 * nine tenths of the cap; they are counted (argus_issues_evicted). */
void argus_issues_set_max_bytes(struct argus_issues *db, uint64_t max);
/* What the cap dropped so far: issues and their occurrences. */
int argus_issues_evicted(struct argus_issues *db, uint64_t *issues, uint64_t *occurrences,
                         char *err, size_t ecap);
const char *argus_issues_path(const struct argus_issues *db);

/* One transaction around many writes (an import); nested calls count. */
int argus_issues_begin(struct argus_issues *db, char *err, size_t ecap);
int argus_issues_commit(struct argus_issues *db, char *err, size_t ecap);

/* A session of the store: one run of the daemon, one imported trace. */
struct argus_issues_session {
	const char *key;    /* unique (a trace: its boot id, start and host) */
	const char *kind;   /* "daemon", "import" */
	const char *source; /* the trace's path, "live" */
	const char *host;
	const char *user;  /* NULL = the owner of each app */
	uint64_t started;  /* unix ns */
};
/* 0 = a new session (*id set), 1 = the key exists (*id = it), < 0 error. */
int argus_issues_add_session(struct argus_issues *db, const struct argus_issues_session *s,
                             int64_t *id, char *err, size_t ecap);

/* One occurrence of an issue, as the sink writes it. */
struct argus_issue_occurrence {
	const char *kind;     /* "lag", "stall" */
	const char *app;      /* the app: its process name */
	const char *landmark; /* "ui-episode", "dispatch", "handler", "stall" */
	const char *name;     /* what names the issue: the cause's innermost function */
	const char *frames;   /* top application frames of the cause, innermost first, ";" */
	const char *exe;      /* the executable's file name ("" unknown) */
	const char *version;  /* build id of the executable, hex ("" unknown) */
	const char *user;     /* "" unknown */
	uint64_t at;          /* unix ns of its start */
	uint64_t start_ns;    /* stream time of its start */
	uint64_t incl_ns, excl_ns;
	uint32_t pid, tid;
	bool unended; /* a stall still on at the session's end */
	/* calling contexts of its samples: outermost first, ";"-joined, each
	 * with its number of samples */
	const char *const *contexts;
	const uint32_t *weights;
	uint32_t ncontexts;
	/* a busy stall: the functions more than half of its root's samples
	 * hold, innermost first, ";"-joined (argus_diagnosis.majority), NULL
	 * none. It joins a stall issue of the same app and root process whose
	 * answer is one of them, or whose own hold its answer */
	const char *majority;
	const char *diagnosis;      /* a stall's one-line root cause, NULL none */
	const char *diagnosis_json; /* its report (docs/report.md), NULL none */
};
/* The signature an occurrence joins ("app|landmark|frames"). */
void argus_issue_signature(const struct argus_issue_occurrence *o, char *buf, size_t cap);
/* Add it to its issue (created on first sight); *issue = its id. */
int argus_issues_add(struct argus_issues *db, int64_t session,
                     const struct argus_issue_occurrence *o, int64_t *issue, char *err,
                     size_t ecap);

/* ---- the writer: a session sink ---- */

struct argus_issue_sink_opts {
	struct argus_issues *db;
	int64_t session;      /* argus_issues_add_session's id */
	const char *user;     /* NULL = the owner of the app's process (live) */
	int64_t real_offset;  /* unix ns = stream ns + this */
	const char *name;     /* "argus NAME: ..." in messages */
	/* the daemon: users and versions (build ids) from the running processes */
	bool live;
	/* an import: versions from this trace's build-id table (NULL = none) */
	const char *versions_from;
	/* hooked dispatches (landmark "handler") kept from this latency on;
	 * 0 = ARGUS_ISSUES_HANDLER_NS */
	uint64_t handler_ns;
};
struct argus_issue_sink_stats {
	uint64_t lags, stalls, handlers; /* occurrences written */
	uint64_t in_landmarks; /* hooked episodes not written: a landmark written holds them */
	uint64_t errors;       /* writes that failed (one message for the first) */
	int last_error;        /* enum argus_issues_err */
};
struct argus_issue_sink;
/* Attach to s (its lags, stalls, diagnoses and end). */
int argus_issue_sink_new(struct argus_issue_sink **is, struct argus_session *s,
                         const struct argus_issue_sink_opts *o, char *err, size_t ecap);
void argus_issue_sink_get_stats(const struct argus_issue_sink *is,
                                struct argus_issue_sink_stats *st);
void argus_issue_sink_free(struct argus_issue_sink *is);

/* A trace file into the store as one session. 0 imported, 1 already
 * imported (nothing written), < 0 an ARGUS_ISSUES_E* (err set), or a
 * trace error ARGUS_TRACE_E* - 100 (trace_err set). */
struct argus_issues_import_result {
	int64_t session;
	struct argus_issue_sink_stats st;
	uint64_t events;
	struct argus_trace_error trace_err;
};
int argus_issues_import(struct argus_issues *db, const char *path, const char *user,
                        struct argus_issues_import_result *res, char *err, size_t ecap);

/* ---- readers ---- */

/* A latency distribution (ns): exact count, mean and max; quartiles and
 * p90 from a histogram of 2 % bins (within 1 % of the true value). */
struct argus_latency_dist {
	uint64_t count;
	double mean;
	uint64_t min, q1, median, q3, p90, max;
};

struct argus_issue_summary {
	int64_t id;
	char kind[8], app[64], landmark[16], name[128], frames[400];
	uint64_t occurrences, sessions, users, samples;
	uint64_t first_seen, last_seen; /* unix ns */
	struct argus_latency_dist incl, excl;
};

enum argus_issue_sort {
	ARGUS_ISSUES_BY_LATENCY = 0, /* p90 inclusive, longest first */
	ARGUS_ISSUES_BY_OCCURRENCES,
	ARGUS_ISSUES_BY_USERS,
	ARGUS_ISSUES_BY_RECENT,
};
/* Parse "latency" ... "recent"; false when unknown. */
bool argus_issue_sort_parse(const char *s, enum argus_issue_sort *out);

/* The issues (of app when non-NULL), sorted; *out malloc'ed. */
int argus_issues_list(struct argus_issues *db, const char *app, enum argus_issue_sort sort,
                      struct argus_issue_summary **out, size_t *n, char *err, size_t ecap);
void argus_issues_print_list(const struct argus_issue_summary *v, size_t n, FILE *out);
void argus_issues_print_list_json(const struct argus_issue_summary *v, size_t n, FILE *out);

/* Similar issues: the weighted multiset distance between calling-context
 * trees (0 = the same, 1 = nothing shared), nearest first. */
struct argus_issue_link {
	int64_t id;
	double distance;
};
int argus_issues_similar(struct argus_issues *db, int64_t id, struct argus_issue_link *out,
                         size_t cap, size_t *n, char *err, size_t ecap);
/* The distance itself over two trees given as calling contexts (outermost
 * first, ";"-joined) with sample counts. */
double argus_cct_distance(const char *const *ca, const uint32_t *wa, size_t na,
                          const char *const *cb, const uint32_t *wb, size_t nb);

/* The latency of a landmark in one session: every occurrence kept of the
 * app's issues at landmark (and named name, when not NULL) - what `argus
 * issues prune` compares before and after. Exact (from the occurrences'
 * details, the latest 100 per issue). */
int argus_issues_landmark_latency(struct argus_issues *db, int64_t session, const char *app,
                                  const char *landmark, const char *name,
                                  struct argus_latency_dist *d, char *err, size_t ecap);

/* One issue: text (distribution, occurrences, the CCT as a tree, similar
 * issues, the latest diagnoses), JSON, or a self-contained HTML page. */
int argus_issues_show(struct argus_issues *db, int64_t id, FILE *out, char *err, size_t ecap);
int argus_issues_show_json(struct argus_issues *db, int64_t id, FILE *out, char *err,
                           size_t ecap);
int argus_issues_show_html(struct argus_issues *db, int64_t id, FILE *out, char *err,
                           size_t ecap);

#endif /* ARGUS_ISSUES_H */
