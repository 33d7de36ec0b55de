/*
 * builtin-issues.c - `argus issues`: the issue store (docs/issues.md): the
 * ranked list, one issue, and trace files imported into it.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "hooks.h"
#include "issues.h"

static const char issues_usage[] =
    "usage: argus issues [--db PATH] [--app NAME] [--sort KEY] [--json]\n"
    "       argus issues show [--db PATH] [--json] [--html OUT] ID\n"
    "       argus issues import [--db PATH] [--user NAME] TRACE...\n"
    "       argus issues prune [--db PATH] ID SYMBOL -- CMD ARGS...\n"
    "\n"
    "Every perceptible lag (a UI episode of 100 ms or more) and every stall argus\n"
    "sees - the daemon as they end, or a trace file imported - is an occurrence of\n"
    "an issue: the same app, landmark and cause (top application frames; for a\n"
    "stall the root cause's process and function) in any session is one issue.\n"
    "\n"
    "  (no command)   the issues, ranked: latency (p90, default), occurrences,\n"
    "                 users or recent (last seen); --app keeps one app's\n"
    "  show ID        one issue: latency distribution, sessions, users, versions,\n"
    "                 the calling-context tree of its samples, similar issues,\n"
    "                 latest occurrences and diagnoses; --json, or --html OUT (a\n"
    "                 page with an icicle chart of the tree)\n"
    "  import TRACE   a trace file's lags and stalls as one session (a trace\n"
    "                 imported before is skipped); --user names its user\n"
    "                 (default: you)\n"
    "  prune ID SYMBOL -- CMD\n"
    "                 LagHunter's call pruning: run CMD twice under `argus record\n"
    "                 --hooks` (as root), the second time with SYMBOL made to return\n"
    "                 at once (the hooks' --prune), and compare the latency of the\n"
    "                 issue's landmark in the two runs; CMD must repeat the action\n"
    "                 that lags by itself (a script, a driver)\n"
    "\n"
    "options:\n"
    "      --db PATH    the store (default " ARGUS_ISSUES_DB ")\n"
    "  -h, --help       this text\n"
    "\n"
    "Exit codes: docs/cli.md (5: the store is damaged or not one, 10: locked).\n";

static int fail(int e, const char *err)
{
	cli_error("issues", "%s", err);
	return argus_issues_exit(e);
}

static int list(const char *dbpath, const char *app, enum argus_issue_sort sort, bool json)
{
	char err[1024];
	struct argus_issues *db;
	int e = argus_issues_open(&db, dbpath, true, err, sizeof(err));
	if (e)
		return fail(e, err);
	struct argus_issue_summary *v;
	size_t n;
	e = argus_issues_list(db, app, sort, &v, &n, err, sizeof(err));
	if (!e) {
		if (json)
			argus_issues_print_list_json(v, n, stdout);
		else
			argus_issues_print_list(v, n, stdout);
		free(v);
		uint64_t ei, eo;
		if (!json && !app && !argus_issues_evicted(db, &ei, &eo, err, sizeof(err)) && ei)
			printf("(%llu older issues, %llu occurrences, dropped by the store's size cap)\n",
			       (unsigned long long)ei, (unsigned long long)eo);
	}
	argus_issues_close(db);
	return e ? fail(e, err) : ARGUS_EXIT_OK;
}

static int show(const char *dbpath, const char *ids, bool json, const char *html)
{
	char err[1024];
	uint64_t id;
	if (!cli_parse_u64(ids, 1, INT64_MAX, &id)) {
		cli_error("issues", "show: '%s' is not an issue id", ids);
		return ARGUS_EXIT_USAGE;
	}
	struct argus_issues *db;
	int e = argus_issues_open(&db, dbpath, true, err, sizeof(err));
	if (e)
		return fail(e, err);
	if (html) {
		FILE *f = fopen(html, "w");
		if (!f) {
			argus_issues_close(db);
			cli_error("issues", "%s: cannot write: %m", html);
			return ARGUS_EXIT_IO;
		}
		e = argus_issues_show_html(db, (int64_t)id, f, err, sizeof(err));
		if (fclose(f) && !e) {
			argus_issues_close(db);
			cli_error("issues", "%s: cannot write: %m", html);
			return ARGUS_EXIT_IO;
		}
	} else if (json)
		e = argus_issues_show_json(db, (int64_t)id, stdout, err, sizeof(err));
	else
		e = argus_issues_show(db, (int64_t)id, stdout, err, sizeof(err));
	argus_issues_close(db);
	return e ? fail(e, err) : ARGUS_EXIT_OK;
}

static int import(const char *dbpath, const char *user, int n, char **paths)
{
	char err[1024];
	struct argus_issues *db;
	int e = argus_issues_open(&db, dbpath, false, err, sizeof(err));
	if (e)
		return fail(e, err);
	int rc = ARGUS_EXIT_OK;
	for (int i = 0; i < n; i++) {
		struct argus_issues_import_result r;
		e = argus_issues_import(db, paths[i], user, &r, err, sizeof(err));
		if (e == 1) {
			fprintf(stderr, "argus issues: %s: imported before (session #%lld), skipped\n",
			        paths[i], (long long)r.session);
			continue;
		}
		if (e <= -100) { /* the trace's own error */
			cli_error("issues", "%s", err);
			rc = cli_trace_exit(e + 100);
			continue;
		}
		if (e < 0) {
			rc = fail(e, err);
			break;
		}
		fprintf(stderr,
		        "argus issues: %s: session #%lld: %llu events, %llu lag(s), %llu stall(s),"
		        " %llu hooked landmark(s) (%llu lag(s) held by one)\n",
		        paths[i], (long long)r.session, (unsigned long long)r.events,
		        (unsigned long long)r.st.lags, (unsigned long long)r.st.stalls,
		        (unsigned long long)r.st.handlers, (unsigned long long)r.st.in_landmarks);
	}
	argus_issues_close(db);
	return rc;
}

/* `argus record --hooks -o trace -- cmd`, SYMBOL pruned when prune is set */
static int record_run(const char *trace, const char *prune, char **cmd)
{
	size_t n = 0;
	while (cmd[n])
		n++;
	char **av = calloc(n + 7, sizeof(*av));
	if (!av)
		return ARGUS_EXIT_INTERNAL;
	const char *head[] = {"argus", "record", "--hooks", "-o", trace, "--"};
	for (size_t i = 0; i < 6; i++)
		av[i] = (char *)head[i];
	for (size_t i = 0; i < n; i++)
		av[6 + i] = cmd[i];
	fflush(NULL);
	pid_t p = fork();
	if (p == 0) {
		if (prune)
			setenv(ARGUS_HOOK_ENV_PRUNE, prune, 1);
		else
			unsetenv(ARGUS_HOOK_ENV_PRUNE);
		execv("/proc/self/exe", av);
		_exit(127);
	}
	free(av);
	int st;
	if (p < 0 || waitpid(p, &st, 0) != p)
		return ARGUS_EXIT_INTERNAL;
	return WIFEXITED(st) ? WEXITSTATUS(st) : ARGUS_EXIT_FAIL;
}

static void dist_line(const char *what, const struct argus_latency_dist *d)
{
	if (!d->count) {
		printf("  %s: no occurrence (none of 100 ms or more)\n", what);
		return;
	}
	printf("  %s: %llu occurrence(s), median %.0f ms, p90 %.0f ms, max %.0f ms\n", what,
	       (unsigned long long)d->count, (double)d->median / 1e6, (double)d->p90 / 1e6,
	       (double)d->max / 1e6);
}

static int prune(const char *dbpath, const char *ids, const char *symbol, char **cmd)
{
	char err[1024];
	uint64_t id;
	if (!cli_parse_u64(ids, 1, INT64_MAX, &id)) {
		cli_error("issues", "prune: '%s' is not an issue id", ids);
		return ARGUS_EXIT_USAGE;
	}
	struct argus_issues *db;
	int e = argus_issues_open(&db, dbpath, true, err, sizeof(err));
	if (e)
		return fail(e, err);
	struct argus_issue_summary *v, issue = {0};
	size_t n;
	e = argus_issues_list(db, NULL, ARGUS_ISSUES_BY_LATENCY, &v, &n, err, sizeof(err));
	argus_issues_close(db);
	if (e)
		return fail(e, err);
	for (size_t i = 0; i < n; i++)
		if (v[i].id == (int64_t)id)
			issue = v[i];
	free(v);
	if (!issue.id) {
		cli_error("issues", "prune: no issue %llu", (unsigned long long)id);
		return ARGUS_EXIT_FAIL;
	}
	char dir[] = "/tmp/argus-prune-XXXXXX", before[64], after[64], store[64];
	if (!mkdtemp(dir)) {
		cli_error("issues", "prune: cannot make a scratch folder: %m");
		return ARGUS_EXIT_IO;
	}
	snprintf(before, sizeof(before), "%s/before.argus", dir);
	snprintf(after, sizeof(after), "%s/pruned.argus", dir);
	snprintf(store, sizeof(store), "%s/issues.db", dir);
	printf("issue %lld: %s, landmark %s: %s\n", (long long)issue.id, issue.app, issue.landmark,
	       issue.name);
	int rc = record_run(before, NULL, cmd);
	if (rc > ARGUS_EXIT_FAIL) {
		cli_error("issues", "prune: the run without pruning failed (argus record: exit %d)",
		          rc);
		return rc;
	}
	rc = record_run(after, symbol, cmd);
	if (rc > ARGUS_EXIT_FAIL) {
		cli_error("issues", "prune: the run with %s pruned failed (argus record: exit %d)",
		          symbol, rc);
		return rc;
	}
	if ((e = argus_issues_open(&db, store, false, err, sizeof(err))))
		return fail(e, err);
	struct argus_issues_import_result ra, rb;
	struct argus_latency_dist da, db2;
	/* a hooked landmark (a handler, a signal, paint, a Qt event): by its name */
	bool hooked = strcmp(issue.landmark, "ui-episode") && strcmp(issue.landmark, "dispatch") &&
	              strcmp(issue.landmark, "stall");
	const char *name = hooked ? issue.name : NULL;
	if ((e = argus_issues_import(db, before, "prune", &ra, err, sizeof(err))) < 0 ||
	    (e = argus_issues_import(db, after, "prune", &rb, err, sizeof(err))) < 0 ||
	    (e = argus_issues_landmark_latency(db, ra.session, issue.app, issue.landmark, name, &da,
	                                       err, sizeof(err))) ||
	    (e = argus_issues_landmark_latency(db, rb.session, issue.app, issue.landmark, name,
	                                       &db2, err, sizeof(err)))) {
		argus_issues_close(db);
		return e <= -100 ? (cli_error("issues", "%s", err), cli_trace_exit(e + 100))
		                 : fail(e, err);
	}
	argus_issues_close(db);
	char what[160];
	dist_line("without pruning", &da);
	snprintf(what, sizeof(what), "with %s pruned", symbol);
	dist_line(what, &db2);
	if (!da.count)
		printf("  the landmark did not lag in the run without pruning: nothing to compare\n");
	else if (!db2.count)
		printf("  pruning %s removes the landmark's perceptible latency: the call causes it\n",
		       symbol);
	else if (db2.median * 2 <= da.median)
		printf("  pruning %s cuts the median from %.0f to %.0f ms: the call causes much of it\n",
		       symbol, (double)da.median / 1e6, (double)db2.median / 1e6);
	else
		printf("  pruning %s leaves the latency (median %.0f -> %.0f ms): it is not the cause\n",
		       symbol, (double)da.median / 1e6, (double)db2.median / 1e6);
	printf("  traces and their store: %s\n", dir);
	return da.count ? ARGUS_EXIT_OK : ARGUS_EXIT_FAIL;
}

int cmd_issues(int argc, char **argv)
{
	enum { OPT_DB = 256, OPT_APP, OPT_SORT, OPT_JSON, OPT_HTML, OPT_USER };
	static const struct option opts[] = {{"help", no_argument, NULL, 'h'},
	                                     {"db", required_argument, NULL, OPT_DB},
	                                     {"app", required_argument, NULL, OPT_APP},
	                                     {"sort", required_argument, NULL, OPT_SORT},
	                                     {"json", no_argument, NULL, OPT_JSON},
	                                     {"html", required_argument, NULL, OPT_HTML},
	                                     {"user", required_argument, NULL, OPT_USER},
	                                     {NULL, 0, NULL, 0}};
	const char *sub = argc > 1 && argv[1][0] != '-' ? argv[1] : NULL;
	if (sub && strcmp(sub, "show") && strcmp(sub, "import") && strcmp(sub, "prune")) {
		cli_error("issues", "unknown command '%s' (list, show, import, prune; see --help)",
		          sub);
		return ARGUS_EXIT_USAGE;
	}
	const char *dbpath = NULL, *app = NULL, *html = NULL, *user = NULL;
	enum argus_issue_sort sort = ARGUS_ISSUES_BY_LATENCY;
	bool json = false;
	int c;
	optind = sub ? 2 : 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(issues_usage, stdout);
			return ARGUS_EXIT_OK;
		case OPT_DB:
			dbpath = optarg;
			break;
		case OPT_APP:
			app = optarg;
			break;
		case OPT_SORT:
			if (!argus_issue_sort_parse(optarg, &sort)) {
				cli_error("issues", "--sort: '%s' is not latency, occurrences, users or "
				                    "recent", optarg);
				return ARGUS_EXIT_USAGE;
			}
			break;
		case OPT_JSON:
			json = true;
			break;
		case OPT_HTML:
			html = optarg;
			break;
		case OPT_USER:
			user = optarg;
			break;
		default:
			cli_error("issues", "unknown option '%s' (see --help)", argv[optind - 1]);
			return ARGUS_EXIT_USAGE;
		}
	}
	bool is_show = sub && !strcmp(sub, "show"), is_import = sub && !strcmp(sub, "import");
	if ((app && sub) || (html && !is_show) || (user && !is_import) ||
	    (json && is_import)) {
		cli_error("issues", "an option that does not go with %s (see --help)",
		          sub ? sub : "the list");
		return ARGUS_EXIT_USAGE;
	}
	int rest = argc - optind;
	if (sub && !strcmp(sub, "prune")) {
		if (rest < 3 || json || html || user || app) {
			cli_error("issues", "prune: ID SYMBOL -- CMD ARGS... expected");
			return ARGUS_EXIT_USAGE;
		}
		return prune(dbpath, argv[optind], argv[optind + 1], argv + optind + 2);
	}
	if (is_show) {
		if (rest != 1) {
			cli_error("issues", "show: one issue id expected");
			return ARGUS_EXIT_USAGE;
		}
		return show(dbpath, argv[optind], json, html);
	}
	if (is_import) {
		if (rest < 1) {
			cli_error("issues", "import: a trace file expected");
			return ARGUS_EXIT_USAGE;
		}
		return import(dbpath, user, rest, argv + optind);
	}
	if (rest) {
		cli_error("issues", "unexpected argument '%s'", argv[optind]);
		return ARGUS_EXIT_USAGE;
	}
	return list(dbpath, app, sort, json);
}
