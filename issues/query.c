/*
 * query.c - reading the issue store: latency distributions, the ranked
 * list, and the links between issues with similar calling-context trees.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store_priv.h"

/* ---- distributions ---- */

static uint64_t quantile(const int *bins, const int64_t *counts, size_t n, uint64_t total,
                         double q, uint64_t lo, uint64_t hi)
{
	uint64_t rank = (uint64_t)ceil(q * (double)total), acc = 0;
	if (rank < 1)
		rank = 1;
	if (rank >= total) /* the largest: exact */
		return hi;
	for (size_t i = 0; i < n; i++) {
		acc += (uint64_t)counts[i];
		if (acc >= rank) {
			uint64_t v = store_bin_value(bins[i]);
			return v < lo ? lo : v > hi ? hi : v;
		}
	}
	return hi;
}

int store_dist(struct argus_issues *db, int64_t issue, int which, struct argus_latency_dist *d,
               char *err, size_t ecap)
{
	static const char qi[] = "SELECT occurrences, incl_sum, incl_min, incl_max, excl_sum,"
	                         " excl_min, excl_max FROM issues WHERE id = ?";
	static const char qb[] =
	    "SELECT bin, count FROM latency_bins WHERE issue = ? AND which = ? ORDER BY bin";
	memset(d, 0, sizeof(*d));
	sqlite3_stmt *st = store_stmt(db, qi, err, ecap, "i", issue);
	if (!st)
		return ARGUS_ISSUES_EIO;
	int rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_reset(st);
		if (rc == SQLITE_DONE) {
			snprintf(err, ecap, "%s: no issue %lld", db->path, (long long)issue);
			return ARGUS_ISSUES_ENOENT;
		}
		return store_fail(db, rc, "reading an issue", err, ecap);
	}
	int c = which ? 4 : 1;
	d->count = (uint64_t)sqlite3_column_int64(st, 0);
	double sum = (double)sqlite3_column_int64(st, c);
	d->min = (uint64_t)sqlite3_column_int64(st, c + 1);
	d->max = (uint64_t)sqlite3_column_int64(st, c + 2);
	d->mean = d->count ? sum / (double)d->count : 0;
	sqlite3_reset(st);
	int bins[1024];
	int64_t counts[1024];
	size_t n = 0;
	st = store_stmt(db, qb, err, ecap, "ii", issue, (int64_t)which);
	if (!st)
		return ARGUS_ISSUES_EIO;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && n < 1024) {
		bins[n] = sqlite3_column_int(st, 0);
		counts[n++] = sqlite3_column_int64(st, 1);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return store_fail(db, rc, "reading a distribution", err, ecap);
	d->q1 = quantile(bins, counts, n, d->count, 0.25, d->min, d->max);
	d->median = quantile(bins, counts, n, d->count, 0.5, d->min, d->max);
	d->q3 = quantile(bins, counts, n, d->count, 0.75, d->min, d->max);
	d->p90 = quantile(bins, counts, n, d->count, 0.9, d->min, d->max);
	return 0;
}

/* ---- the list ---- */

bool argus_issue_sort_parse(const char *s, enum argus_issue_sort *out)
{
	static const char *const names[] = {"latency", "occurrences", "users", "recent"};
	for (unsigned i = 0; i < 4; i++)
		if (!strcmp(s, names[i])) {
			*out = (enum argus_issue_sort)i;
			return true;
		}
	return false;
}

static int by_id(const struct argus_issue_summary *x, const struct argus_issue_summary *y)
{
	return x->id < y->id ? -1 : x->id > y->id;
}

static int by_key(uint64_t kx, uint64_t ky, const struct argus_issue_summary *x,
                  const struct argus_issue_summary *y)
{
	return kx != ky ? (kx > ky ? -1 : 1) : by_id(x, y);
}

static int by_latency(const void *a, const void *b)
{
	const struct argus_issue_summary *x = a, *y = b;
	return by_key(x->incl.p90, y->incl.p90, x, y);
}

static int by_occurrences(const void *a, const void *b)
{
	const struct argus_issue_summary *x = a, *y = b;
	return by_key(x->occurrences, y->occurrences, x, y);
}

static int by_users(const void *a, const void *b)
{
	const struct argus_issue_summary *x = a, *y = b;
	return by_key(x->users, y->users, x, y);
}

static int by_recent(const void *a, const void *b)
{
	const struct argus_issue_summary *x = a, *y = b;
	return by_key(x->last_seen, y->last_seen, x, y);
}

/* per enum argus_issue_sort */
static int (*const sorts[])(const void *, const void *) = {by_latency, by_occurrences, by_users,
                                                           by_recent};

static void col_text(sqlite3_stmt *st, int c, char *buf, size_t cap)
{
	const unsigned char *t = sqlite3_column_text(st, c);
	snprintf(buf, cap, "%s", t ? (const char *)t : "");
}

int argus_issues_list(struct argus_issues *db, const char *app, enum argus_issue_sort sort,
                      struct argus_issue_summary **out, size_t *nout, char *err, size_t ecap)
{
	return store_list(db, app, 0, sort, out, nout, err, ecap);
}

int store_list(struct argus_issues *db, const char *app, int64_t id, enum argus_issue_sort sort,
               struct argus_issue_summary **out, size_t *nout, char *err, size_t ecap)
{
	static const char q[] =
	    "SELECT id, kind, app, landmark, name, frames, occurrences, samples, first_seen,"
	    " last_seen, (SELECT count(*) FROM issue_sessions WHERE issue = issues.id),"
	    " (SELECT count(*) FROM issue_users WHERE issue = issues.id)"
	    " FROM issues WHERE (?1 IS NULL OR app = ?1) AND (?2 = 0 OR id = ?2) ORDER BY id";
	*out = NULL;
	*nout = 0;
	sqlite3_stmt *st = store_stmt(db, q, err, ecap, "ti", app, id);
	if (!st)
		return ARGUS_ISSUES_EIO;
	struct argus_issue_summary *v = NULL;
	size_t n = 0, cap = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 64;
			struct argus_issue_summary *nv = realloc(v, nc * sizeof(*v));
			if (!nv) {
				sqlite3_reset(st);
				free(v);
				snprintf(err, ecap, "out of memory");
				return ARGUS_ISSUES_ENOMEM;
			}
			v = nv;
			cap = nc;
		}
		struct argus_issue_summary *s = &v[n++];
		memset(s, 0, sizeof(*s));
		s->id = sqlite3_column_int64(st, 0);
		col_text(st, 1, s->kind, sizeof(s->kind));
		col_text(st, 2, s->app, sizeof(s->app));
		col_text(st, 3, s->landmark, sizeof(s->landmark));
		col_text(st, 4, s->name, sizeof(s->name));
		col_text(st, 5, s->frames, sizeof(s->frames));
		s->occurrences = (uint64_t)sqlite3_column_int64(st, 6);
		s->samples = (uint64_t)sqlite3_column_int64(st, 7);
		s->first_seen = (uint64_t)sqlite3_column_int64(st, 8);
		s->last_seen = (uint64_t)sqlite3_column_int64(st, 9);
		s->sessions = (uint64_t)sqlite3_column_int64(st, 10);
		s->users = (uint64_t)sqlite3_column_int64(st, 11);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		free(v);
		return store_fail(db, rc, "reading the issues", err, ecap);
	}
	for (size_t i = 0; i < n; i++) {
		int e;
		if ((e = store_dist(db, v[i].id, 0, &v[i].incl, err, ecap)) ||
		    (e = store_dist(db, v[i].id, 1, &v[i].excl, err, ecap))) {
			free(v);
			return e;
		}
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), sorts[(unsigned)sort < 4 ? (unsigned)sort : 0]);
	*out = v;
	*nout = n;
	return 0;
}

void ms_text(uint64_t ns, char *buf, size_t cap)
{
	if (ns >= 10000000000ull)
		snprintf(buf, cap, "%.0f s", (double)ns / 1e9);
	else if (ns >= 1000000000ull)
		snprintf(buf, cap, "%.1f s", (double)ns / 1e9);
	else
		snprintf(buf, cap, "%.0f ms", (double)ns / 1e6);
}

void when_text(uint64_t unix_ns, char *buf, size_t cap)
{
	time_t t = (time_t)(unix_ns / 1000000000ull);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, cap, "%Y-%m-%d %H:%M", &tm);
}

/* "f;caller;caller2" -> "f < caller < caller2" */
void chain_text(const char *frames, char *buf, size_t cap)
{
	size_t len = 0;
	for (const char *p = frames; *p && len + 4 < cap; p++) {
		if (*p == ';') {
			len += (size_t)snprintf(buf + len, cap - len, " < ");
			continue;
		}
		buf[len++] = *p;
	}
	buf[len < cap ? len : cap - 1] = 0;
}

void argus_issues_print_list(const struct argus_issue_summary *v, size_t n, FILE *out)
{
	fprintf(out, "%4s  %-15s %-10s %-40s %5s %4s %5s %8s %8s %8s  %s\n", "ID", "APP", "LANDMARK",
	        "CAUSE (innermost first)", "OCC", "SESS", "USERS", "MEDIAN", "P90", "MAX",
	        "LAST SEEN (UTC)");
	for (size_t i = 0; i < n; i++) {
		const struct argus_issue_summary *s = &v[i];
		char cause[400], med[16], p90[16], mx[16], last[32];
		chain_text(s->frames, cause, sizeof(cause));
		if (strlen(cause) > 40)
			strcpy(cause + 37, "...");
		ms_text(s->incl.median, med, sizeof(med));
		ms_text(s->incl.p90, p90, sizeof(p90));
		ms_text(s->incl.max, mx, sizeof(mx));
		when_text(s->last_seen, last, sizeof(last));
		fprintf(out, "%4lld  %-15.15s %-10s %-40s %5llu %4llu %5llu %8s %8s %8s  %s\n",
		        (long long)s->id, s->app, s->landmark, cause, (unsigned long long)s->occurrences,
		        (unsigned long long)s->sessions, (unsigned long long)s->users, med, p90, mx,
		        last);
	}
	if (!n)
		fprintf(out, "(no issues)\n");
}

void json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

void json_dist(FILE *out, const struct argus_latency_dist *d)
{
	fprintf(out,
	        "{\"count\":%llu,\"mean_ns\":%.0f,\"min_ns\":%llu,\"q1_ns\":%llu,\"median_ns\":%llu,"
	        "\"q3_ns\":%llu,\"p90_ns\":%llu,\"max_ns\":%llu}",
	        (unsigned long long)d->count, d->mean, (unsigned long long)d->min,
	        (unsigned long long)d->q1, (unsigned long long)d->median, (unsigned long long)d->q3,
	        (unsigned long long)d->p90, (unsigned long long)d->max);
}

void json_summary(FILE *out, const struct argus_issue_summary *s)
{
	fprintf(out, "{\"id\":%lld,\"kind\":", (long long)s->id);
	json_str(out, s->kind);
	fprintf(out, ",\"app\":");
	json_str(out, s->app);
	fprintf(out, ",\"landmark\":");
	json_str(out, s->landmark);
	fprintf(out, ",\"name\":");
	json_str(out, s->name);
	fprintf(out, ",\"frames\":[");
	char f[400];
	snprintf(f, sizeof(f), "%s", s->frames);
	char *save = NULL;
	int k = 0;
	for (char *t = strtok_r(f, ";", &save); t; t = strtok_r(NULL, ";", &save), k++) {
		if (k)
			fputc(',', out);
		json_str(out, t);
	}
	fprintf(out,
	        "],\"occurrences\":%llu,\"sessions\":%llu,\"users\":%llu,\"samples\":%llu,"
	        "\"first_seen_ns\":%llu,\"last_seen_ns\":%llu,\"inclusive\":",
	        (unsigned long long)s->occurrences, (unsigned long long)s->sessions,
	        (unsigned long long)s->users, (unsigned long long)s->samples,
	        (unsigned long long)s->first_seen, (unsigned long long)s->last_seen);
	json_dist(out, &s->incl);
	fprintf(out, ",\"exclusive\":");
	json_dist(out, &s->excl);
	fputc('}', out);
}

void argus_issues_print_list_json(const struct argus_issue_summary *v, size_t n, FILE *out)
{
	fputc('[', out);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputc(',', out);
		fputs("\n ", out);
		json_summary(out, &v[i]);
	}
	fputs("\n]\n", out);
}

/* ---- similar issues ---- */

int store_cct(struct argus_issues *db, int64_t issue, struct cct_set *c, char *err, size_t ecap)
{
	static const char q[] = "SELECT context, samples FROM cct WHERE issue = ?";
	memset(c, 0, sizeof(*c));
	sqlite3_stmt *st = store_stmt(db, q, err, ecap, "i", issue);
	if (!st)
		return ARGUS_ISSUES_EIO;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (c->n == c->cap) {
			size_t nc = c->cap ? c->cap * 2 : 64;
			char **nx = realloc(c->ctx, nc * sizeof(*nx));
			if (nx)
				c->ctx = nx;
			uint32_t *nw = nx ? realloc(c->w, nc * sizeof(*nw)) : NULL;
			if (!nw) {
				sqlite3_reset(st);
				cct_set_free(c);
				snprintf(err, ecap, "out of memory");
				return ARGUS_ISSUES_ENOMEM;
			}
			c->w = nw;
			c->cap = nc;
		}
		const unsigned char *t = sqlite3_column_text(st, 0);
		c->ctx[c->n] = strdup(t ? (const char *)t : "");
		c->w[c->n++] = (uint32_t)sqlite3_column_int64(st, 1);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		cct_set_free(c);
		return store_fail(db, rc, "reading a calling-context tree", err, ecap);
	}
	return 0;
}

void cct_set_free(struct cct_set *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->ctx[i]);
	free(c->ctx);
	free(c->w);
	memset(c, 0, sizeof(*c));
}

struct node_w {
	const char *label; /* points into a context */
	size_t len;
	double w;
};

static int cmp_node(const void *a, const void *b)
{
	const struct node_w *x = a, *y = b;
	size_t m = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->label, y->label, m);
	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* The tree as a multiset of its functions, each weighted by its samples, a
 * frame k calls away from a sample's innermost one counting 2^-k: what ran
 * weighs most, the loop and dispatch frames every sample holds almost
 * nothing. Normalized to the tree's samples; merged by label. */
static struct node_w *nodes_of(const char *const *ctx, const uint32_t *w, size_t n, size_t *nn)
{
	size_t cap = 0, k = 0;
	double total = 0;
	for (size_t i = 0; i < n; i++) {
		total += w[i];
		for (const char *p = ctx[i]; *p; p++)
			cap += *p == ';';
		cap++;
	}
	struct node_w *v = malloc((cap ? cap : 1) * sizeof(*v));
	if (!v)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const char *starts[ARGUS_STACK_MAX_DEPTH + 2];
		size_t nf = 0;
		const char *p = ctx[i];
		starts[nf++] = p;
		for (; *p; p++)
			if (*p == ';' && nf < ARGUS_STACK_MAX_DEPTH + 1)
				starts[nf++] = p + 1;
		for (size_t f = 0; f < nf; f++) {
			const char *end = strchr(starts[f], ';');
			size_t len = end ? (size_t)(end - starts[f]) : strlen(starts[f]);
			double depth = (double)(nf - 1 - f);
			v[k++] = (struct node_w){starts[f], len, w[i] * pow(0.5, depth) / total};
		}
	}
	if (k > 1)
		qsort(v, k, sizeof(*v), cmp_node);
	size_t m = 0;
	for (size_t i = 0; i < k; i++) {
		if (m && !cmp_node(&v[m - 1], &v[i]))
			v[m - 1].w += v[i].w;
		else
			v[m++] = v[i];
	}
	*nn = m;
	return v;
}

double argus_cct_distance(const char *const *ca, const uint32_t *wa, size_t na,
                          const char *const *cb, const uint32_t *wb, size_t nb)
{
	size_t n1 = 0, n2 = 0;
	if (!na || !nb)
		return 1.0;
	struct node_w *a = nodes_of(ca, wa, na, &n1), *b = nodes_of(cb, wb, nb, &n2);
	double mn = 0, mx = 0;
	size_t i = 0, j = 0;
	while (a && b && (i < n1 || j < n2)) {
		int c = i == n1 ? 1 : j == n2 ? -1 : cmp_node(&a[i], &b[j]);
		if (c < 0)
			mx += a[i++].w;
		else if (c > 0)
			mx += b[j++].w;
		else {
			mn += fmin(a[i].w, b[j].w);
			mx += fmax(a[i].w, b[j].w);
			i++, j++;
		}
	}
	free(a);
	free(b);
	return mx > 0 ? 1.0 - mn / mx : 1.0;
}

int argus_issues_similar(struct argus_issues *db, int64_t id, struct argus_issue_link *out,
                         size_t cap, size_t *nout, char *err, size_t ecap)
{
	static const char q[] = "SELECT id FROM issues WHERE id != ? AND samples > 0";
	*nout = 0;
	struct cct_set me;
	int e = store_cct(db, id, &me, err, ecap);
	if (e || !me.n) {
		cct_set_free(&me);
		return e;
	}
	int64_t *ids = NULL;
	size_t n = 0, icap = 0;
	sqlite3_stmt *st = store_stmt(db, q, err, ecap, "i", id);
	int rc = SQLITE_DONE;
	while (st && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == icap) {
			icap = icap ? icap * 2 : 64;
			int64_t *ni = realloc(ids, icap * sizeof(*ni));
			if (!ni)
				break;
			ids = ni;
		}
		ids[n++] = sqlite3_column_int64(st, 0);
	}
	if (st)
		sqlite3_reset(st);
	if (!st || (rc != SQLITE_DONE && rc != SQLITE_ROW))
		e = st ? store_fail(db, rc, "reading the issues", err, ecap) : ARGUS_ISSUES_EIO;
	for (size_t i = 0; !e && i < n; i++) {
		struct cct_set o;
		if ((e = store_cct(db, ids[i], &o, err, ecap)))
			break;
		double d = argus_cct_distance((const char *const *)me.ctx, me.w, me.n,
		                              (const char *const *)o.ctx, o.w, o.n);
		cct_set_free(&o);
		if (d > ARGUS_ISSUES_SIMILAR_MAX)
			continue;
		/* insertion into the nearest cap */
		size_t k = *nout < cap ? (*nout)++ : cap;
		while (k > 0 && out[k - 1].distance > d) {
			if (k < cap)
				out[k] = out[k - 1];
			k--;
		}
		if (k < cap)
			out[k] = (struct argus_issue_link){ids[i], d};
	}
	free(ids);
	cct_set_free(&me);
	return e;
}

/* ---- one landmark in one session (prune) ---- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

int argus_issues_landmark_latency(struct argus_issues *db, int64_t session, const char *app,
                                  const char *landmark, const char *name,
                                  struct argus_latency_dist *d, char *err, size_t ecap)
{
	static const char q[] =
	    "SELECT o.incl_ns FROM occurrences o JOIN issues i ON i.id = o.issue"
	    " WHERE o.session = ?1 AND i.app = ?2 AND i.landmark = ?3 AND (?4 IS NULL OR i.name = ?4)";
	memset(d, 0, sizeof(*d));
	sqlite3_stmt *st = store_stmt(db, q, err, ecap, "ittt", session, app, landmark, name);
	if (!st)
		return ARGUS_ISSUES_EIO;
	uint64_t *v = NULL;
	size_t n = 0, cap = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			uint64_t *nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				sqlite3_reset(st);
				free(v);
				snprintf(err, ecap, "out of memory");
				return ARGUS_ISSUES_ENOMEM;
			}
			v = nv;
		}
		v[n++] = (uint64_t)sqlite3_column_int64(st, 0);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		free(v);
		return store_fail(db, rc, "reading occurrences", err, ecap);
	}
	if (n) {
		qsort(v, n, sizeof(*v), cmp_u64);
		double sum = 0;
		for (size_t i = 0; i < n; i++)
			sum += (double)v[i];
		/* nearest rank */
		size_t r1 = (size_t)ceil(0.25 * (double)n), r2 = (size_t)ceil(0.5 * (double)n),
		       r3 = (size_t)ceil(0.75 * (double)n), r9 = (size_t)ceil(0.9 * (double)n);
		*d = (struct argus_latency_dist){.count = n,
		                                 .mean = sum / (double)n,
		                                 .min = v[0],
		                                 .q1 = v[r1 ? r1 - 1 : 0],
		                                 .median = v[r2 ? r2 - 1 : 0],
		                                 .q3 = v[r3 ? r3 - 1 : 0],
		                                 .p90 = v[r9 ? r9 - 1 : 0],
		                                 .max = v[n - 1]};
	}
	free(v);
	return 0;
}
