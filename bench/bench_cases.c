/*
 * The runner and table of a corpus of live hang cases, shared by `argus
 * bench zoo` (bench_zoo.c: the bug zoo's programs) and `argus bench
 * realapps` (bench_realapps.c: unmodified Debian apps): argus against the
 * baselines, printed in the layout of the paper's Table 4 (methods by rows,
 * cases by columns, root cause right at top-1 / top-3), with argus's
 * seconds from the stall's start to the desktop notification and the live
 * daemon's false stalls.
 *
 * The cases run through bench/zoo/run-case.sh --json (a private desktop,
 * the live daemon, argus record, the case's program or launch.sh and its
 * driver, the baselines' snapshots during the hang; bench/zoo/README.md),
 * one JSON object per case, read here. The cases (and programs) are found
 * through the source and build trees this argus was built from, or
 * --cases-dir / --bin-dir.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_cases.h"
#include "cmdline.h"
#include "jsonline.h"

#define ZOO_CASES_MAX 64
#define ZOO_NAME_MAX  64

/* A yes / no that may also not apply (the method could not run). */
enum zoo_mark { ZOO_NA = -1, ZOO_NO = 0, ZOO_YES = 1 };

/* The rows of the table: the method's key in run-case.sh's JSON. */
static const struct {
	const char *key, *label;
} zoo_methods[] = {
    {"live", "argus (live daemon)"},
    {"argus", "argus (replay of the trace)"},
    {"critical_path", "critical path"},
    {"no_weak_edges", "no weak edges"},
    {"stack_snapshot", "stack snapshot (eu-stack)"},
    {"perf", "perf top functions"},
    {"offwaketime", "offwaketime (BCC or perf)"},
};
#define ZOO_NMETHODS (sizeof(zoo_methods) / sizeof(zoo_methods[0]))

struct zoo_result {
	char name[ZOO_NAME_MAX];
	bool ran;
	enum zoo_mark top1[ZOO_NMETHODS], top3[ZOO_NMETHODS];
	double notify_s, detect_s; /* < 0: none */
	char answer[160];          /* argus's top-1 in the replay, "comm thread function" */
	char live[160];            /* the live daemon's top-1, "comm thread function" */
	int false_stalls;          /* the live daemon's other stalls of the desktop */
	char false_list[512];
	char offwake_na[256]; /* why offwaketime did not run */
};

struct zoo_run {
	const struct bench_corpus *corpus;
	char zoo_dir[4096], bin_dir[4096], argus[4096];
	bool quick, keep, no_baselines, syscalls;
	char cases[ZOO_CASES_MAX][ZOO_NAME_MAX];
	int ncases;
	struct zoo_result res[ZOO_CASES_MAX];
};

static void usage(const struct bench_corpus *c, FILE *f)
{
	fprintf(f,
	        "usage: argus bench %s [--quick] [--keep] [--no-baselines] [--syscalls]\n"
	        "       %*s [--cases-dir DIR]\n"
	        "       %*s %s[CASE...]\n"
	        "  runs %s live (every case, the --quick ones, or those\n"
	        "  named) and prints argus against the baselines as in the paper's Table 4\n"
	        "  --quick         the cases whose truth file says quick=1\n"
	        "  --keep          keep each case's scratch folder (trace, JSON, snapshots)\n"
	        "  --no-baselines  argus alone: no stack snapshot, perf or offwaketime\n"
	        "  --syscalls      argus start and record with per-call capture (--syscalls)\n"
	        "  --cases-dir DIR the cases (default %s)\n",
	        c->name, (int)strlen(c->name) + 12, "", (int)strlen(c->name) + 12, "", c->bin_dir ? "[--bin-dir DIR] " : "",
	        c->what, *c->cases_dir ? c->cases_dir : "none built in");
	if (c->bin_dir)
		fprintf(f, "  --bin-dir DIR   the cases' programs (default %s)\n",
		        *c->bin_dir ? c->bin_dir : "none built in");
	fprintf(f,
	        "  exit 0 when argus's top-1 (%s) is right on every case run, 1 otherwise;\n"
	        "  needs root (eBPF), Xvfb, xdotool, dbus-daemon, python3\n",
	        c->score_live ? "the live daemon's" : "the replay's");
}

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The value of key in a case's truth file (key=value lines), into out. */
static bool truth_value(const char *case_dir, const char *key, char *out, size_t cap)
{
	char path[4200], line[512];
	snprintf(path, sizeof(path), "%s/truth", case_dir);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	size_t klen = strlen(key);
	bool found = false;
	while (!found && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, klen) && line[klen] == '=') {
			snprintf(out, cap, "%s", line + klen + 1);
			out[strcspn(out, "\r\n")] = 0;
			found = true;
		}
	}
	fclose(f);
	return found;
}

/* b2 before b10: cases in the order */
static int cmp_name(const void *a, const void *b)
{
	return strverscmp(a, b);
}

/* Every case of the zoo (a folder with a truth file), or the quick ones. */
static int list_cases(struct zoo_run *r)
{
	DIR *d = opendir(r->zoo_dir);
	if (!d) {
		cli_error(r->corpus->name, "cannot read %s: %s (--cases-dir)", r->zoo_dir,
		          strerror(errno));
		return ARGUS_EXIT_IO;
	}
	struct dirent *e;
	while ((e = readdir(d)) && r->ncases < ZOO_CASES_MAX) {
		char dir[4400], quick[16];
		size_t len = strlen(e->d_name);
		if (e->d_name[0] == '.' || len >= ZOO_NAME_MAX)
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", r->zoo_dir, e->d_name);
		if (!truth_value(dir, "program", quick, sizeof(quick)))
			continue;
		if (r->quick &&
		    !(truth_value(dir, "quick", quick, sizeof(quick)) && !strcmp(quick, "1")))
			continue;
		memcpy(r->cases[r->ncases++], e->d_name, len + 1); /* fits: len checked above */
	}
	closedir(d);
	qsort(r->cases, (size_t)r->ncases, ZOO_NAME_MAX, cmp_name);
	return ARGUS_EXIT_OK;
}

static enum zoo_mark json_mark(const char *obj, const char *key)
{
	const char *v = jsonline_at(obj, key);
	if (v && !strncmp(v, "true", 4))
		return ZOO_YES;
	if (v && !strncmp(v, "false", 5))
		return ZOO_NO;
	return ZOO_NA;
}

static double json_secs(const char *obj, const char *key)
{
	const char *v = jsonline_at(obj, key);
	char *end;
	double d = v ? strtod(v, &end) : -1;
	return v && end != v ? d : -1;
}

static struct zoo_result *result_of(struct zoo_run *r, const char *name)
{
	for (int i = 0; i < r->ncases; i++)
		if (!strcmp(r->cases[i], name))
			return &r->res[i];
	return NULL;
}

static void take_line(struct zoo_run *r, const char *line)
{
	char name[ZOO_NAME_MAX];
	jsonline_str(line, "case", name, sizeof(name));
	struct zoo_result *z = result_of(r, name);
	if (!z)
		return;
	z->ran = true;
	for (size_t m = 0; m < ZOO_NMETHODS; m++) {
		char k[64];
		snprintf(k, sizeof(k), "%s_top1", zoo_methods[m].key);
		z->top1[m] = json_mark(line, k);
		snprintf(k, sizeof(k), "%s_top3", zoo_methods[m].key);
		z->top3[m] = json_mark(line, k);
	}
	z->notify_s = json_secs(line, "notify_s");
	z->detect_s = json_secs(line, "detect_offline_s");
	jsonline_str(line, "argus_answer", z->answer, sizeof(z->answer));
	jsonline_str(line, "live_answer", z->live, sizeof(z->live));
	/* "false_stalls":["app pid/tid +S s", ...]: counted by its strings */
	const char *fs = jsonline_at(line, "false_stalls");
	z->false_stalls = -1;
	if (fs && *fs == '[') {
		const char *end = strchr(fs, ']');
		size_t n = end ? (size_t)(end - fs - 1) : 0;
		/* the strings without their quotes */
		size_t o = 0;
		for (size_t q = 0; q < n && o + 1 < sizeof(z->false_list); q++)
			if (fs[1 + q] != '"')
				z->false_list[o++] = fs[1 + q];
		z->false_list[o] = 0;
		z->false_stalls = 0;
		for (const char *q = fs + 1; end && q < end; q++)
			z->false_stalls += *q == '"';
		z->false_stalls /= 2;
	}
	jsonline_str(line, "offwaketime_na", z->offwake_na, sizeof(z->offwake_na));
	char notify[96] = "no notification seen", by[16] = "";
	jsonline_str(line, "notify_by", by, sizeof(by));
	if (z->notify_s >= 0)
		snprintf(notify, sizeof(notify), "notified %.2f s after the stall's start%s",
		         z->notify_s, !strcmp(by, "window") ? " (argus's own window)" : "");
	int k = r->corpus->score_live ? 0 : 1;
	printf("%-22s argus %s (%s: %s), %s\n", name, z->top1[k] == ZOO_YES ? "right" : "wrong",
	       k == 0 ? "live" : "replay",
	       *(k == 0 ? z->live : z->answer) ? (k == 0 ? z->live : z->answer) : "no stall",
	       notify);
	fflush(stdout);
}

/* run-case.sh over the cases; its JSON lines into r->res. Its exit status. */
static int run_cases(struct zoo_run *r)
{
	char *argv[ZOO_CASES_MAX + 16];
	char script[4200], dirs[ZOO_CASES_MAX][4200];
	int n = 0;
	snprintf(script, sizeof(script), "%s", r->corpus->runner);
	argv[n++] = "sh";
	argv[n++] = script;
	argv[n++] = "--json";
	argv[n++] = "--argus";
	argv[n++] = r->argus;
	if (r->corpus->bin_dir) {
		argv[n++] = "--bin-dir";
		argv[n++] = r->bin_dir;
	}
	if (r->corpus->score_live) {
		argv[n++] = "--score";
		argv[n++] = "live";
	}
	if (r->keep)
		argv[n++] = "--keep";
	if (r->no_baselines)
		argv[n++] = "--no-baselines";
	if (r->syscalls)
		argv[n++] = "--syscalls";
	for (int i = 0; i < r->ncases; i++) {
		snprintf(dirs[i], sizeof(dirs[i]), "%s/%s", r->zoo_dir, r->cases[i]);
		argv[n++] = dirs[i];
	}
	argv[n] = NULL;
	int fd[2];
	if (pipe(fd))
		return -1;
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execvp("sh", argv);
		_exit(127);
	}
	close(fd[1]);
	FILE *in = fdopen(fd[0], "r");
	char line[16384];
	while (in && fgets(line, sizeof(line), in)) {
		if (line[0] == '{')
			take_line(r, line);
		else
			fputs(line, stdout); /* "skipped: ..." and the like */
	}
	if (in)
		fclose(in);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static const char *mark_str(enum zoo_mark m)
{
	return m == ZOO_YES ? "Y" : m == ZOO_NO ? "N" : "-";
}

/* Table 4: methods by rows, cases by columns (named by their id, the part
 * before the first '-'; the legend below names them in full). */
static void print_table(const struct zoo_run *r)
{
	char id[ZOO_CASES_MAX][ZOO_NAME_MAX];
	int w = 4;
	for (int i = 0; i < r->ncases; i++) {
		snprintf(id[i], sizeof(id[i]), "%.*s", (int)strcspn(r->cases[i], "-"), r->cases[i]);
		if ((int)strlen(id[i]) + 1 > w)
			w = (int)strlen(id[i]) + 1;
	}
	printf("\nroot cause right at top-1/top-3 (Y right, N wrong, - could not run)\n");
	printf("%-34s", "");
	for (int i = 0; i < r->ncases; i++)
		printf(" %-*s", i + 1 < r->ncases ? w : 0, id[i]);
	printf("\n");
	for (size_t m = 0; m < ZOO_NMETHODS; m++) {
		printf("%-34s", zoo_methods[m].label);
		for (int i = 0; i < r->ncases; i++) {
			char cell[16] = "n/a";
			if (r->res[i].ran)
				snprintf(cell, sizeof(cell), "%s/%s", mark_str(r->res[i].top1[m]),
				         mark_str(r->res[i].top3[m]));
			printf(" %-*s", i + 1 < r->ncases ? w : 0, cell);
		}
		printf("\n");
	}
	static const char *const rows[] = {"argus: s to notification (live)",
	                                   "argus: s to detection (trace)"};
	for (int k = 0; k < 2; k++) {
		printf("%-34s", rows[k]);
		for (int i = 0; i < r->ncases; i++) {
			double s = k == 0 ? r->res[i].notify_s : r->res[i].detect_s;
			char cell[16] = "-";
			if (r->res[i].ran && s >= 0)
				snprintf(cell, sizeof(cell), "%.2f", s);
			printf(" %-*s", i + 1 < r->ncases ? w : 0, cell);
		}
		printf("\n");
	}
	printf("%-34s", "false stalls (live)");
	for (int i = 0; i < r->ncases; i++) {
		char cell[16] = "-";
		if (r->res[i].ran && r->res[i].false_stalls >= 0)
			snprintf(cell, sizeof(cell), "%d", r->res[i].false_stalls);
		printf(" %-*s", i + 1 < r->ncases ? w : 0, cell);
	}
	printf("\n(seconds from the stall's start: to the live daemon's notification, the desktop's\n"
	       " or argus's own window when the bus was late, whichever showed first; to the\n"
	       " detection argus diagnose replays on the recorded trace. False stalls: the\n"
	       " live daemon's stalls of the case's desktop other than the hang's)\n\n");
	for (int i = 0; i < r->ncases; i++) {
		const struct zoo_result *z = &r->res[i];
		if (!z->ran) {
			printf("%-*s %s: did not run\n", w, id[i], r->cases[i]);
			continue;
		}
		printf("%-*s %s: live %s; replay %s\n", w, id[i], r->cases[i],
		       *z->live ? z->live : "no stall", *z->answer ? z->answer : "no stall");
		if (z->false_stalls > 0)
			printf("%-*s   false stalls: %s\n", w, "", z->false_list);
	}
	/* each different reason once */
	for (int i = 0; i < r->ncases; i++) {
		bool seen = false;
		for (int j = 0; j < i; j++)
			seen |= !strcmp(r->res[j].offwake_na, r->res[i].offwake_na);
		if (r->res[i].ran && *r->res[i].offwake_na && !seen)
			printf("offwaketime n/a: %s\n", r->res[i].offwake_na);
	}
}

int bench_cases_main(const struct bench_corpus *corpus, int argc, char **argv)
{
	static const struct option opts[] = {
	    {"quick", no_argument, 0, 'q'},
	    {"keep", no_argument, 0, 'k'},
	    {"no-baselines", no_argument, 0, 'n'},
	    {"syscalls", no_argument, 0, 's'},
	    {"cases-dir", required_argument, 0, 'z'},
	    {"zoo-dir", required_argument, 0, 'z'}, /* bench zoo's older name */
	    {"bin-dir", required_argument, 0, 'b'},
	    {"help", no_argument, 0, 'h'},
	    {0, 0, 0, 0},
	};
	struct zoo_run *r = calloc(1, sizeof(*r));
	if (!r)
		return ARGUS_EXIT_INTERNAL;
	const char *name = corpus->name;
	r->corpus = corpus;
	snprintf(r->zoo_dir, sizeof(r->zoo_dir), "%s", corpus->cases_dir);
	snprintf(r->bin_dir, sizeof(r->bin_dir), "%s", corpus->bin_dir ? corpus->bin_dir : "");
	int c, rc = ARGUS_EXIT_OK;
	bool bin_dir_given = false;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'q':
			r->quick = true;
			break;
		case 'k':
			r->keep = true;
			break;
		case 'n':
			r->no_baselines = true;
			break;
		case 's':
			r->syscalls = true;
			break;
		case 'z':
			snprintf(r->zoo_dir, sizeof(r->zoo_dir), "%s", optarg);
			break;
		case 'b':
			if (!corpus->bin_dir) {
				usage(corpus, stderr);
				free(r);
				return ARGUS_EXIT_USAGE;
			}
			snprintf(r->bin_dir, sizeof(r->bin_dir), "%s", optarg);
			bin_dir_given = true;
			break;
		case 'h':
			usage(corpus, stdout);
			free(r);
			return ARGUS_EXIT_OK;
		default:
			usage(corpus, stderr);
			free(r);
			return ARGUS_EXIT_USAGE;
		}
	}
	if (!is_dir(r->zoo_dir)) {
		cli_error(name, "no cases at '%s' (--cases-dir: bench/%s of the sources)",
		          r->zoo_dir, name);
		free(r);
		return ARGUS_EXIT_USAGE;
	}
	if (corpus->bin_dir && !is_dir(r->bin_dir)) {
		/* the default folder is missing when the build had no GTK3 */
		cli_error(name,
		          "no zoo programs at '%s' (cmake --build BUILD --target zoo; --bin-dir)",
		          r->bin_dir);
		free(r);
		return bin_dir_given ? ARGUS_EXIT_USAGE : ARGUS_EXIT_NOSUPPORT;
	}
	if (optind < argc) {
		if (r->quick) {
			cli_error(name, "--quick and case names: one or the other");
			free(r);
			return ARGUS_EXIT_USAGE;
		}
		for (int i = optind; i < argc && r->ncases < ZOO_CASES_MAX; i++) {
			char dir[4400], prog[64];
			snprintf(dir, sizeof(dir), "%s/%s", r->zoo_dir, argv[i]);
			if (strlen(argv[i]) >= ZOO_NAME_MAX || strchr(argv[i], '/') ||
			    !truth_value(dir, "program", prog, sizeof(prog))) {
				cli_error(name, "no case '%s' in %s", argv[i], r->zoo_dir);
				free(r);
				return ARGUS_EXIT_USAGE;
			}
			snprintf(r->cases[r->ncases++], ZOO_NAME_MAX, "%s", argv[i]);
		}
	} else if ((rc = list_cases(r)) != ARGUS_EXIT_OK) {
		free(r);
		return rc;
	}
	if (r->ncases == 0) {
		cli_error(name, "no cases%s in %s", r->quick ? " with quick=1" : "", r->zoo_dir);
		free(r);
		return ARGUS_EXIT_USAGE;
	}
	if (geteuid() != 0) {
		printf("skipped: bench %s traces live and needs root\n", name);
		free(r);
		return ARGUS_EXIT_PRIV;
	}
	ssize_t len = readlink("/proc/self/exe", r->argus, sizeof(r->argus) - 1);
	if (len <= 0) {
		cli_error(name, "cannot find this argus (/proc/self/exe)");
		free(r);
		return ARGUS_EXIT_INTERNAL;
	}
	r->argus[len] = 0;
	for (int i = 0; i < r->ncases; i++)
		r->res[i].notify_s = r->res[i].detect_s = -1;

	int st = run_cases(r);
	int ran = 0, right = 0, right_other = 0, fs = 0;
	int k = corpus->score_live ? 0 : 1; /* zoo_methods: the row that decides */
	for (int i = 0; i < r->ncases; i++) {
		ran += r->res[i].ran;
		right += r->res[i].ran && r->res[i].top1[k] == ZOO_YES;
		right_other += r->res[i].ran && r->res[i].top1[1 - k] == ZOO_YES;
		fs += r->res[i].ran && r->res[i].false_stalls > 0 ? r->res[i].false_stalls : 0;
	}
	if (st == 77 && ran == 0) {
		free(r);
		return ARGUS_EXIT_NOSUPPORT; /* run-case.sh said why */
	}
	print_table(r);
	printf("\nargus top-1 right on %d of %d cases (%d run), %s; %s: %d; false stalls: %d\n",
	       right, r->ncases, ran, k == 0 ? "live daemon" : "replay",
	       k == 0 ? "replay" : "live daemon", right_other, fs);
	printf("reproduce: argus bench %s%s%s%s", name, r->quick ? " --quick" : "",
	       r->no_baselines ? " --no-baselines" : "", r->syscalls ? " --syscalls" : "");
	if (optind < argc)
		for (int i = 0; i < r->ncases; i++)
			printf(" %s", r->cases[i]);
	printf("\n");
	rc = right == r->ncases ? ARGUS_EXIT_OK : ARGUS_EXIT_FAIL;
	if (st < 0 || st == 127) {
		cli_error(name, "cannot run %s", "sh run-case.sh");
		rc = ARGUS_EXIT_INTERNAL;
	}
	free(r);
	return rc;
}
