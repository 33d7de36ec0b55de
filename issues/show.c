/*
 * show.c - one issue: its distribution, sessions, users, versions, latest
 * occurrences, its calling-context tree (text tree, JSON, an HTML icicle
 * chart), similar issues and the latest diagnoses of its stalls.
 */
#include <stdlib.h>
#include <string.h>

#include "store_priv.h"

/* ---- the calling-context tree ---- */

struct cnode {
	char *label;
	uint64_t w, self;
	struct cnode *kid;
	size_t nkid, ckid;
};

static struct cnode *child(struct cnode *n, const char *label, size_t len)
{
	for (size_t i = 0; i < n->nkid; i++)
		if (strlen(n->kid[i].label) == len && !memcmp(n->kid[i].label, label, len))
			return &n->kid[i];
	if (n->nkid == n->ckid) {
		size_t nc = n->ckid ? n->ckid * 2 : 4;
		struct cnode *nk = realloc(n->kid, nc * sizeof(*nk));
		if (!nk)
			return NULL;
		n->kid = nk;
		n->ckid = nc;
	}
	struct cnode *c = &n->kid[n->nkid];
	memset(c, 0, sizeof(*c));
	c->label = strndup(label, len);
	if (!c->label)
		return NULL;
	n->nkid++;
	return c;
}

static int cmp_w(const void *a, const void *b)
{
	const struct cnode *x = a, *y = b;
	return x->w != y->w ? (x->w > y->w ? -1 : 1) : strcmp(x->label, y->label);
}

static void tree_sort(struct cnode *n)
{
	if (n->nkid > 1)
		qsort(n->kid, n->nkid, sizeof(*n->kid), cmp_w);
	for (size_t i = 0; i < n->nkid; i++)
		tree_sort(&n->kid[i]);
}

static void tree_build(const struct cct_set *c, struct cnode *root)
{
	memset(root, 0, sizeof(*root));
	root->label = strdup("(all samples)");
	for (size_t i = 0; i < c->n; i++) {
		struct cnode *n = root;
		root->w += c->w[i];
		for (const char *p = c->ctx[i]; n && *p;) {
			const char *e = strchr(p, ';');
			size_t len = e ? (size_t)(e - p) : strlen(p);
			n = child(n, p, len);
			if (n)
				n->w += c->w[i];
			p += len + (e ? 1 : 0);
		}
		if (n)
			n->self += c->w[i];
	}
	tree_sort(root);
}

static void tree_free(struct cnode *n)
{
	for (size_t i = 0; i < n->nkid; i++)
		tree_free(&n->kid[i]);
	free(n->kid);
	free(n->label);
}

#define TREE_MIN_SHARE 0.01 /* the text tree leaves out nodes under 1 % */

static void tree_text(const struct cnode *n, uint64_t total, int depth, FILE *out)
{
	for (size_t i = 0; i < n->nkid; i++) {
		const struct cnode *k = &n->kid[i];
		if ((double)k->w < TREE_MIN_SHARE * (double)total) {
			fprintf(out, "  %*s... %zu smaller\n", 14 + 2 * depth, "", n->nkid - i);
			break;
		}
		fprintf(out, "  %5.1f%% %6llu  %*s%s\n", 100.0 * (double)k->w / (double)total,
		        (unsigned long long)k->w, 2 * depth, "", k->label);
		if (depth < 64)
			tree_text(k, total, depth + 1, out);
	}
}

static void tree_json(const struct cnode *n, FILE *out)
{
	fprintf(out, "{\"name\":");
	json_str(out, n->label);
	fprintf(out, ",\"samples\":%llu,\"self\":%llu,\"children\":[", (unsigned long long)n->w,
	        (unsigned long long)n->self);
	for (size_t i = 0; i < n->nkid; i++) {
		if (i)
			fputc(',', out);
		tree_json(&n->kid[i], out);
	}
	fprintf(out, "]}");
}

/* the heaviest path: the heaviest child at each level, down to a node whose
 * own samples outweigh it */
static size_t heaviest(const struct cnode *n, const struct cnode **path, size_t cap)
{
	size_t k = 0;
	while (n->nkid && n->kid[0].w > n->self && k < cap) {
		n = &n->kid[0];
		path[k++] = n;
	}
	return k;
}

/* ---- the rest of the page ---- */

struct page {
	struct argus_issue_summary s;
	char signature[1024], exe[64];
	uint64_t contexts_dropped;
	struct cct_set cct;
	struct cnode tree;
	struct argus_issue_link sim[8];
	size_t nsim;
	struct argus_issue_summary simsum[8];
};

static int load(struct argus_issues *db, int64_t id, struct page *p, char *err, size_t ecap)
{
	static const char q[] =
	    "SELECT signature, exe, contexts_dropped FROM issues WHERE id = ?";
	memset(p, 0, sizeof(*p));
	struct argus_issue_summary *v;
	size_t n;
	int e = store_list(db, NULL, id, ARGUS_ISSUES_BY_LATENCY, &v, &n, err, ecap);
	if (e)
		return e;
	if (!n) {
		free(v);
		snprintf(err, ecap, "%s: no issue %lld", db->path, (long long)id);
		return ARGUS_ISSUES_ENOENT;
	}
	p->s = v[0];
	free(v);
	sqlite3_stmt *st = store_stmt(db, q, err, ecap, "i", id);
	if (!st)
		return ARGUS_ISSUES_EIO;
	if (sqlite3_step(st) == SQLITE_ROW) {
		const unsigned char *t = sqlite3_column_text(st, 0);
		snprintf(p->signature, sizeof(p->signature), "%s", t ? (const char *)t : "");
		t = sqlite3_column_text(st, 1);
		snprintf(p->exe, sizeof(p->exe), "%s", t ? (const char *)t : "");
		p->contexts_dropped = (uint64_t)sqlite3_column_int64(st, 2);
	}
	sqlite3_reset(st);
	if ((e = store_cct(db, id, &p->cct, err, ecap)))
		return e;
	tree_build(&p->cct, &p->tree);
	if ((e = argus_issues_similar(db, id, p->sim, 8, &p->nsim, err, ecap)))
		return e;
	for (size_t i = 0; i < p->nsim; i++) {
		if ((e = store_list(db, NULL, p->sim[i].id, ARGUS_ISSUES_BY_LATENCY, &v, &n, err,
		                    ecap)))
			return e;
		if (n)
			p->simsum[i] = v[0];
		free(v);
	}
	return 0;
}

static void unload(struct page *p)
{
	cct_set_free(&p->cct);
	tree_free(&p->tree);
}

/* Rows of a query on the issue, one callback per row. */
static int rows(struct argus_issues *db, const char *sql, int64_t id, char *err, size_t ecap,
                void (*row)(sqlite3_stmt *st, void *arg, int k), void *arg)
{
	sqlite3_stmt *st = store_stmt(db, sql, err, ecap, "i", id);
	if (!st)
		return ARGUS_ISSUES_EIO;
	int rc, k = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		row(st, arg, k++);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : store_fail(db, rc, "reading an issue", err, ecap);
}

static const char q_versions[] = "SELECT version, occurrences FROM issue_versions WHERE issue = ?"
                                 " ORDER BY occurrences DESC, version";
static const char q_users[] = "SELECT user, occurrences FROM issue_users WHERE issue = ?"
                              " ORDER BY occurrences DESC, user";
static const char q_sessions[] =
    "SELECT s.id, s.kind, s.source, s.host, i.occurrences, s.started FROM issue_sessions i"
    " JOIN sessions s ON s.id = i.session WHERE i.issue = ? ORDER BY s.id";
static const char q_occ[] =
    "SELECT at, incl_ns, excl_ns, pid, tid, samples, version, user, session, unended"
    " FROM occurrences WHERE issue = ? ORDER BY id DESC LIMIT 10";
static const char q_diag[] =
    "SELECT at, summary, report FROM diagnoses WHERE issue = ? ORDER BY id DESC LIMIT 3";

static const char *ctext(sqlite3_stmt *st, int c)
{
	const unsigned char *t = sqlite3_column_text(st, c);
	return t ? (const char *)t : "";
}

static void text_count(sqlite3_stmt *st, void *arg, int k)
{
	fprintf(arg, "%s%s (%lld)", k ? ", " : " ", ctext(st, 0),
	        (long long)sqlite3_column_int64(st, 1));
}

static void text_session(sqlite3_stmt *st, void *arg, int k)
{
	(void)k;
	char w[32];
	when_text((uint64_t)sqlite3_column_int64(st, 5), w, sizeof(w));
	fprintf(arg, "    #%lld %s %s on %s, %s: %lld occurrence(s)\n",
	        (long long)sqlite3_column_int64(st, 0), ctext(st, 1), ctext(st, 2), ctext(st, 3), w,
	        (long long)sqlite3_column_int64(st, 4));
}

static void text_occ(sqlite3_stmt *st, void *arg, int k)
{
	(void)k;
	char w[32], incl[16];
	when_text((uint64_t)sqlite3_column_int64(st, 0), w, sizeof(w));
	ms_text((uint64_t)sqlite3_column_int64(st, 1), incl, sizeof(incl));
	fprintf(arg, "    %s  %8s  pid %lld tid %lld  %lld samples  session #%lld  %s  %s%s\n", w,
	        incl, (long long)sqlite3_column_int64(st, 3), (long long)sqlite3_column_int64(st, 4),
	        (long long)sqlite3_column_int64(st, 5), (long long)sqlite3_column_int64(st, 8),
	        ctext(st, 7), ctext(st, 6), sqlite3_column_int(st, 9) ? "  (still on at the end)" : "");
}

static void text_diag(sqlite3_stmt *st, void *arg, int k)
{
	(void)k;
	char w[32];
	when_text((uint64_t)sqlite3_column_int64(st, 0), w, sizeof(w));
	fprintf(arg, "    %s  %s\n", w, ctext(st, 1));
}

static void text_dist(FILE *out, const char *what, const struct argus_latency_dist *d)
{
	char v[7][16];
	const uint64_t x[7] = {(uint64_t)d->mean, d->min, d->q1, d->median, d->q3, d->p90, d->max};
	for (int i = 0; i < 7; i++)
		ms_text(x[i], v[i], sizeof(v[i]));
	fprintf(out, "    %-10s %7llu %8s %8s %8s %8s %8s %8s %8s\n", what,
	        (unsigned long long)d->count, v[0], v[1], v[2], v[3], v[4], v[5], v[6]);
}

int argus_issues_show(struct argus_issues *db, int64_t id, FILE *out, char *err, size_t ecap)
{
	struct page *p = malloc(sizeof(*p));
	if (!p) {
		snprintf(err, ecap, "out of memory");
		return ARGUS_ISSUES_ENOMEM;
	}
	int e = load(db, id, p, err, ecap);
	if (e)
		goto done;
	const struct argus_issue_summary *s = &p->s;
	char cause[400], first[32], last[32];
	chain_text(s->frames, cause, sizeof(cause));
	when_text(s->first_seen, first, sizeof(first));
	when_text(s->last_seen, last, sizeof(last));
	fprintf(out, "issue %lld: %s %s in %s: %s\n", (long long)s->id, s->kind, s->landmark, s->app,
	        s->name);
	fprintf(out, "  cause: %s\n  signature: %s\n", cause, p->signature);
	if (p->exe[0])
		fprintf(out, "  executable: %s\n", p->exe);
	fprintf(out, "  %llu occurrence(s) in %llu session(s), %llu user(s); first seen %s,"
	             " last seen %s (UTC)\n",
	        (unsigned long long)s->occurrences, (unsigned long long)s->sessions,
	        (unsigned long long)s->users, first, last);
	fprintf(out, "  versions:");
	if ((e = rows(db, q_versions, id, err, ecap, text_count, out)))
		goto done;
	fprintf(out, "\n  users:");
	if ((e = rows(db, q_users, id, err, ecap, text_count, out)))
		goto done;
	fprintf(out, "\n\n  latency %14s %8s %8s %8s %8s %8s %8s %8s\n", "count", "mean", "min", "q1",
	        "median", "q3", "p90", "max");
	text_dist(out, "inclusive", &s->incl);
	text_dist(out, "exclusive", &s->excl);
	fprintf(out, "\n  sessions:\n");
	if ((e = rows(db, q_sessions, id, err, ecap, text_session, out)))
		goto done;
	fprintf(out, "\n  calling-context tree (%llu samples%s):\n",
	        (unsigned long long)p->tree.w, p->contexts_dropped ? ", some contexts not kept" : "");
	if (!p->tree.w)
		fprintf(out, "    (no samples inside its occurrences)\n");
	tree_text(&p->tree, p->tree.w ? p->tree.w : 1, 0, out);
	const struct cnode *path[128];
	size_t np = heaviest(&p->tree, path, 128);
	if (np) {
		fprintf(out, "  heaviest path:");
		for (size_t i = 0; i < np; i++)
			fprintf(out, "%s%s", i ? " > " : " ", path[i]->label);
		fputc('\n', out);
	}
	fprintf(out, "\n  similar issues (calling-context tree distance, 0 = the same):\n");
	if (!p->nsim)
		fprintf(out, "    (none within %.2f)\n", ARGUS_ISSUES_SIMILAR_MAX);
	for (size_t i = 0; i < p->nsim; i++) {
		chain_text(p->simsum[i].frames, cause, sizeof(cause));
		fprintf(out, "    #%lld  distance %.2f  %s %s in %s: %s\n", (long long)p->sim[i].id,
		        p->sim[i].distance, p->simsum[i].kind, p->simsum[i].landmark, p->simsum[i].app,
		        cause);
	}
	fprintf(out, "\n  latest occurrences:\n");
	if ((e = rows(db, q_occ, id, err, ecap, text_occ, out)))
		goto done;
	if (!strcmp(s->kind, "stall")) {
		fprintf(out, "\n  latest diagnoses:\n");
		e = rows(db, q_diag, id, err, ecap, text_diag, out);
	}
done:
	if (p)
		unload(p);
	free(p);
	return e;
}

/* ---- JSON ---- */

static void json_count(sqlite3_stmt *st, void *arg, int k)
{
	fprintf(arg, "%s{\"name\":", k ? "," : "");
	json_str(arg, ctext(st, 0));
	fprintf(arg, ",\"occurrences\":%lld}", (long long)sqlite3_column_int64(st, 1));
}

static void json_session(sqlite3_stmt *st, void *arg, int k)
{
	fprintf(arg, "%s{\"id\":%lld,\"kind\":", k ? "," : "", (long long)sqlite3_column_int64(st, 0));
	json_str(arg, ctext(st, 1));
	fprintf(arg, ",\"source\":");
	json_str(arg, ctext(st, 2));
	fprintf(arg, ",\"host\":");
	json_str(arg, ctext(st, 3));
	fprintf(arg, ",\"occurrences\":%lld,\"started_ns\":%lld}",
	        (long long)sqlite3_column_int64(st, 4), (long long)sqlite3_column_int64(st, 5));
}

static void json_occ(sqlite3_stmt *st, void *arg, int k)
{
	fprintf(arg,
	        "%s{\"at_ns\":%lld,\"inclusive_ns\":%lld,\"exclusive_ns\":%lld,\"pid\":%lld,"
	        "\"tid\":%lld,\"samples\":%lld,\"version\":",
	        k ? "," : "", (long long)sqlite3_column_int64(st, 0),
	        (long long)sqlite3_column_int64(st, 1), (long long)sqlite3_column_int64(st, 2),
	        (long long)sqlite3_column_int64(st, 3), (long long)sqlite3_column_int64(st, 4),
	        (long long)sqlite3_column_int64(st, 5));
	json_str(arg, ctext(st, 6));
	fprintf(arg, ",\"user\":");
	json_str(arg, ctext(st, 7));
	fprintf(arg, ",\"session\":%lld,\"unended\":%s}", (long long)sqlite3_column_int64(st, 8),
	        sqlite3_column_int(st, 9) ? "true" : "false");
}

static void json_diag(sqlite3_stmt *st, void *arg, int k)
{
	fprintf(arg, "%s{\"at_ns\":%lld,\"summary\":", k ? "," : "",
	        (long long)sqlite3_column_int64(st, 0));
	json_str(arg, ctext(st, 1));
	const char *r = ctext(st, 2);
	fprintf(arg, ",\"report\":%s}", r[0] ? r : "null");
}

int argus_issues_show_json(struct argus_issues *db, int64_t id, FILE *out, char *err, size_t ecap)
{
	struct page *p = malloc(sizeof(*p));
	if (!p) {
		snprintf(err, ecap, "out of memory");
		return ARGUS_ISSUES_ENOMEM;
	}
	int e = load(db, id, p, err, ecap);
	if (e)
		goto done;
	fprintf(out, "{\"issue\":");
	json_summary(out, &p->s);
	fprintf(out, ",\"signature\":");
	json_str(out, p->signature);
	fprintf(out, ",\"executable\":");
	json_str(out, p->exe);
	fprintf(out, ",\"versions\":[");
	if ((e = rows(db, q_versions, id, err, ecap, json_count, out)))
		goto done;
	fprintf(out, "],\"users\":[");
	if ((e = rows(db, q_users, id, err, ecap, json_count, out)))
		goto done;
	fprintf(out, "],\"sessions\":[");
	if ((e = rows(db, q_sessions, id, err, ecap, json_session, out)))
		goto done;
	fprintf(out, "],\"latest_occurrences\":[");
	if ((e = rows(db, q_occ, id, err, ecap, json_occ, out)))
		goto done;
	fprintf(out, "],\"cct\":{\"samples\":%llu,\"heaviest_path\":[",
	        (unsigned long long)p->tree.w);
	const struct cnode *path[128];
	size_t np = heaviest(&p->tree, path, 128);
	for (size_t i = 0; i < np; i++) {
		if (i)
			fputc(',', out);
		json_str(out, path[i]->label);
	}
	fprintf(out, "],\"tree\":");
	tree_json(&p->tree, out);
	fprintf(out, "},\"similar\":[");
	for (size_t i = 0; i < p->nsim; i++) {
		fprintf(out, "%s{\"id\":%lld,\"distance\":%.4f,\"issue\":", i ? "," : "",
		        (long long)p->sim[i].id, p->sim[i].distance);
		json_summary(out, &p->simsum[i]);
		fputc('}', out);
	}
	fprintf(out, "],\"diagnoses\":[");
	if ((e = rows(db, q_diag, id, err, ecap, json_diag, out)))
		goto done;
	fprintf(out, "]}\n");
done:
	unload(p);
	free(p);
	return e;
}

/* ---- HTML ---- */

static void html_str(FILE *out, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '&':
			fputs("&amp;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		default:
			fputc(*s, out);
		}
}

#define ICICLE_W 1000.0
#define ICICLE_H 18

/* An icicle chart: each calling context a bar as wide as its share of the
 * samples, its callees below it; hovering names it. */
static int icicle(const struct cnode *n, double x, double w, int depth, uint64_t total, FILE *out)
{
	int deepest = depth;
	if (depth > 0 && w >= 0.5) {
		unsigned h = 0;
		for (const char *c = n->label; *c; c++)
			h = h * 31 + (unsigned char)*c;
		fprintf(out,
		        "<g><title>%.1f%% (%llu samples, %llu self) ",
		        100.0 * (double)n->w / (double)total, (unsigned long long)n->w,
		        (unsigned long long)n->self);
		html_str(out, n->label);
		fprintf(out,
		        "</title><rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
		        "fill=\"hsl(%u,60%%,70%%)\" stroke=\"#fff\"/>",
		        x, (depth - 1) * ICICLE_H, w, ICICLE_H - 1, 20 + h % 40);
		if (w > 40) {
			fprintf(out, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\">",
			        x + 3, (depth - 1) * ICICLE_H + 13);
			char buf[96];
			snprintf(buf, sizeof(buf), "%.*s", (int)(w / 7), n->label);
			html_str(out, buf);
			fprintf(out, "</text>");
		}
		fprintf(out, "</g>\n");
	}
	double cx = x;
	for (size_t i = 0; i < n->nkid && depth < 64; i++) {
		double kw = n->w ? w * (double)n->kid[i].w / (double)n->w : 0;
		int d = icicle(&n->kid[i], cx, kw, depth + 1, total, out);
		if (d > deepest)
			deepest = d;
		cx += kw;
	}
	return deepest;
}

int argus_issues_show_html(struct argus_issues *db, int64_t id, FILE *out, char *err, size_t ecap)
{
	char *text = NULL, *svg = NULL;
	size_t tlen = 0, slen = 0;
	FILE *t = open_memstream(&text, &tlen);
	if (!t) {
		snprintf(err, ecap, "out of memory");
		return ARGUS_ISSUES_ENOMEM;
	}
	int e = argus_issues_show(db, id, t, err, ecap);
	fclose(t);
	struct page *p = e ? NULL : malloc(sizeof(*p));
	if (!e && (!p || (e = load(db, id, p, err, ecap)))) {
		if (!p) {
			snprintf(err, ecap, "out of memory");
			e = ARGUS_ISSUES_ENOMEM;
		}
	}
	FILE *s = !e ? open_memstream(&svg, &slen) : NULL;
	int depth = 0;
	if (s) {
		depth = icicle(&p->tree, 0, ICICLE_W, 0, p->tree.w ? p->tree.w : 1, s);
		fclose(s);
	}
	if (!e) {
		fprintf(out, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>argus issue "
		             "%lld</title>\n<style>body{font-family:sans-serif;margin:2em}"
		             "pre{background:#f6f6f6;padding:1em;overflow:auto}"
		             "svg text{pointer-events:none}</style></head><body>\n",
		        (long long)id);
		fprintf(out, "<h1>Issue %lld: ", (long long)id);
		html_str(out, p->s.app);
		fprintf(out, " &mdash; ");
		html_str(out, p->s.name);
		fprintf(out, "</h1>\n<h2>Calling-context tree (%llu samples; hover a bar)</h2>\n",
		        (unsigned long long)p->tree.w);
		fprintf(out, "<svg width=\"%.0f\" height=\"%d\" xmlns=\"http://www.w3.org/2000/svg\">\n%s"
		             "</svg>\n",
		        ICICLE_W, depth * ICICLE_H + 2, svg ? svg : "");
		fprintf(out, "<h2>Issue</h2>\n<pre>");
		html_str(out, text ? text : "");
		fprintf(out, "</pre>\n</body></html>\n");
	}
	if (p)
		unload(p);
	free(p);
	free(text);
	free(svg);
	return e;
}
