/*
 * argus bench zoo: the bug zoo's cases live, argus against the baselines,
 * printed in the layout of the paper's Table 4 (methods by rows, cases by
 * columns, root cause right at top-1 / top-3), with argus's seconds from
 * the stall's start to the desktop notification.
 *
 * The cases run through bench/zoo/run-case.sh --json (a private desktop,
 * the live daemon, argus record, the case's program and driver, the
 * baselines' snapshots during the hang; bench/zoo/README.md), one JSON
 * object per case, read here. The zoo's sources and programs are found
 * through the source and build trees this argus was built from, or
 * --zoo-dir / --bin-dir.
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

#include "bench.h"
#include "cmdline.h"
#include "jsonline.h"

#ifndef ARGUS_ZOO_SRC_DIR
#define ARGUS_ZOO_SRC_DIR ""
#endif
#ifndef ARGUS_ZOO_BIN_DIR
#define ARGUS_ZOO_BIN_DIR ""
#endif

#define ZOO_CASES_MAX 64
#define ZOO_NAME_MAX  64

/* A yes / no that may also not apply (the method could not run). */
enum zoo_mark { ZOO_NA = -1, ZOO_NO = 0, ZOO_YES = 1 };

/* The rows of the table: the method's key in run-case.sh's JSON. */
static const struct {
	const char *key, *label;
} zoo_methods[] = {
    {"argus", "argus"},
    {"critical_path", "critical path"},
    {"no_weak_edges", "no weak edges"},
    {"stack_snapshot", "stack snapshot (eu-stack)"},
    {"perf", "perf top functions"},
    {"offwaketime", "offwaketime (BCC)"},
};
#define ZOO_NMETHODS (sizeof(zoo_methods) / sizeof(zoo_methods[0]))

struct zoo_result {
	char name[ZOO_NAME_MAX];
	bool ran;
	enum zoo_mark top1[ZOO_NMETHODS], top3[ZOO_NMETHODS];
	double notify_s, detect_s; /* < 0: none */
	char answer[160];          /* argus's top-1, "comm function" */
	char offwake_na[256];      /* why offwaketime did not run */
};

struct zoo_run {
	char zoo_dir[4096], bin_dir[4096], argus[4096];
	bool quick, keep, no_baselines, syscalls;
	char cases[ZOO_CASES_MAX][ZOO_NAME_MAX];
	int ncases;
	struct zoo_result res[ZOO_CASES_MAX];
};

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: argus bench zoo [--quick] [--keep] [--no-baselines] [--syscalls]\n"
	        "                       [--zoo-dir DIR] [--bin-dir DIR] [CASE...]\n"
	        "  runs the bug zoo's cases live (every case, the --quick ones, or those\n"
	        "  named) and prints argus against the baselines as in the paper's Table 4\n"
	        "  --quick         the cases whose truth file says quick=1\n"
	        "  --keep          keep each case's scratch folder (trace, JSON, snapshots)\n"
	        "  --no-baselines  argus alone: no stack snapshot, perf or offwaketime\n"
	        "  --syscalls      argus start and record with per-call capture (--syscalls)\n"
	        "  --zoo-dir DIR   the zoo's sources (default %s)\n"
	        "  --bin-dir DIR   the zoo's programs (default %s)\n"
	        "  exit 0 when argus's top-1 is right on every case run, 1 otherwise;\n"
	        "  needs root (eBPF), Xvfb, xdotool, dbus-daemon, python3\n",
	        *ARGUS_ZOO_SRC_DIR ? ARGUS_ZOO_SRC_DIR : "none built in",
	        *ARGUS_ZOO_BIN_DIR ? ARGUS_ZOO_BIN_DIR : "none built in");
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
		cli_error("bench zoo", "cannot read %s: %s (--zoo-dir)", r->zoo_dir,
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
	jsonline_str(line, "offwaketime_na", z->offwake_na, sizeof(z->offwake_na));
	char notify[64] = "no notification seen";
	if (z->notify_s >= 0)
		snprintf(notify, sizeof(notify), "notified %.2f s after the stall's start",
		         z->notify_s);
	printf("%-20s argus %s (%s), %s\n", name, z->top1[0] == ZOO_YES ? "right" : "wrong",
	       *z->answer ? z->answer : "no stall", notify);
	fflush(stdout);
}

/* run-case.sh over the cases; its JSON lines into r->res. Its exit status. */
static int run_cases(struct zoo_run *r)
{
	char *argv[ZOO_CASES_MAX + 16];
	char script[4200], dirs[ZOO_CASES_MAX][4200];
	int n = 0;
	snprintf(script, sizeof(script), "%s/run-case.sh", r->zoo_dir);
	argv[n++] = "sh";
	argv[n++] = script;
	argv[n++] = "--json";
	argv[n++] = "--argus";
	argv[n++] = r->argus;
	argv[n++] = "--bin-dir";
	argv[n++] = r->bin_dir;
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
	printf("(seconds from the stall's start: to the live daemon's desktop notification; to\n"
	       " the detection argus diagnose replays on the recorded trace)\n\n");
	for (int i = 0; i < r->ncases; i++)
		printf("%-*s %s%s%s\n", w, id[i], r->cases[i],
		       r->res[i].ran ? ": argus named " : "",
		       r->res[i].ran ? (*r->res[i].answer ? r->res[i].answer : "no stall")
		                     : ": did not run");
	/* each different reason once */
	for (int i = 0; i < r->ncases; i++) {
		bool seen = false;
		for (int j = 0; j < i; j++)
			seen |= !strcmp(r->res[j].offwake_na, r->res[i].offwake_na);
		if (r->res[i].ran && *r->res[i].offwake_na && !seen)
			printf("offwaketime n/a: %s\n", r->res[i].offwake_na);
	}
}

int argus_bench_zoo(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"quick", no_argument, 0, 'q'},
	    {"keep", no_argument, 0, 'k'},
	    {"no-baselines", no_argument, 0, 'n'},
	    {"syscalls", no_argument, 0, 's'},
	    {"zoo-dir", required_argument, 0, 'z'},
	    {"bin-dir", required_argument, 0, 'b'},
	    {"help", no_argument, 0, 'h'},
	    {0, 0, 0, 0},
	};
	struct zoo_run *r = calloc(1, sizeof(*r));
	if (!r)
		return ARGUS_EXIT_INTERNAL;
	snprintf(r->zoo_dir, sizeof(r->zoo_dir), "%s", ARGUS_ZOO_SRC_DIR);
	snprintf(r->bin_dir, sizeof(r->bin_dir), "%s", ARGUS_ZOO_BIN_DIR);
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
			snprintf(r->bin_dir, sizeof(r->bin_dir), "%s", optarg);
			bin_dir_given = true;
			break;
		case 'h':
			usage(stdout);
			free(r);
			return ARGUS_EXIT_OK;
		default:
			usage(stderr);
			free(r);
			return ARGUS_EXIT_USAGE;
		}
	}
	if (!is_dir(r->zoo_dir)) {
		cli_error("bench zoo", "no bug zoo at '%s' (--zoo-dir: bench/zoo of the sources)",
		          r->zoo_dir);
		free(r);
		return ARGUS_EXIT_USAGE;
	}
	if (!is_dir(r->bin_dir)) {
		/* the default folder is missing when the build had no GTK3 */
		cli_error("bench zoo",
		          "no zoo programs at '%s' (cmake --build BUILD --target zoo; --bin-dir)",
		          r->bin_dir);
		free(r);
		return bin_dir_given ? ARGUS_EXIT_USAGE : ARGUS_EXIT_NOSUPPORT;
	}
	if (optind < argc) {
		if (r->quick) {
			cli_error("bench zoo", "--quick and case names: one or the other");
			free(r);
			return ARGUS_EXIT_USAGE;
		}
		for (int i = optind; i < argc && r->ncases < ZOO_CASES_MAX; i++) {
			char dir[4400], prog[64];
			snprintf(dir, sizeof(dir), "%s/%s", r->zoo_dir, argv[i]);
			if (strlen(argv[i]) >= ZOO_NAME_MAX || strchr(argv[i], '/') ||
			    !truth_value(dir, "program", prog, sizeof(prog))) {
				cli_error("bench zoo", "no case '%s' in %s", argv[i], r->zoo_dir);
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
		cli_error("bench zoo", "no cases%s in %s", r->quick ? " with quick=1" : "",
		          r->zoo_dir);
		free(r);
		return ARGUS_EXIT_USAGE;
	}
	if (geteuid() != 0) {
		printf("skipped: the zoo traces live and needs root\n");
		free(r);
		return ARGUS_EXIT_PRIV;
	}
	ssize_t len = readlink("/proc/self/exe", r->argus, sizeof(r->argus) - 1);
	if (len <= 0) {
		cli_error("bench zoo", "cannot find this argus (/proc/self/exe)");
		free(r);
		return ARGUS_EXIT_INTERNAL;
	}
	r->argus[len] = 0;
	for (int i = 0; i < r->ncases; i++)
		r->res[i].notify_s = r->res[i].detect_s = -1;

	int st = run_cases(r);
	int ran = 0, right = 0;
	for (int i = 0; i < r->ncases; i++) {
		ran += r->res[i].ran;
		right += r->res[i].ran && r->res[i].top1[0] == ZOO_YES;
	}
	if (st == 77 && ran == 0) {
		free(r);
		return ARGUS_EXIT_NOSUPPORT; /* run-case.sh said why */
	}
	print_table(r);
	printf("\nargus top-1 right on %d of %d cases (%d run)\n", right, r->ncases, ran);
	printf("reproduce: argus bench zoo%s%s%s", r->quick ? " --quick" : "",
	       r->no_baselines ? " --no-baselines" : "", r->syscalls ? " --syscalls" : "");
	if (optind < argc)
		for (int i = 0; i < r->ncases; i++)
			printf(" %s", r->cases[i]);
	printf("\n");
	rc = right == r->ncases ? ARGUS_EXIT_OK : ARGUS_EXIT_FAIL;
	if (st < 0 || st == 127) {
		cli_error("bench zoo", "cannot run %s", "sh run-case.sh");
		rc = ARGUS_EXIT_INTERNAL;
	}
	free(r);
	return rc;
}
