/*
 * builtin-report.c - `argus report`: the daemon's diagnoses, as perf's
 * record / report pair has it (docs/report.md "argus report"). Without N,
 * the list, newest first: number, time, app, duration, root cause, report
 * path. With N, that report: its text, JSON, the HTML page (opened), or the
 * Perfetto trace copied out. The reports are the files `argus start`
 * writes (session/reports.c): STAMP-APP-PID-ID.{txt,json,html,pftrace}.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "event.h"
#include "jsonline.h"
#include "session.h"

static const char report_usage[] =
    "usage: argus report [--dir DIR] [--json]\n"
    "       argus report [--dir DIR] N [--json | --html | --perfetto OUT]\n"
    "\n"
    "List the diagnoses the daemon (argus start) wrote, newest first: number, time,\n"
    "app, how long it stalled, the root cause in one line and the report's path\n"
    "(--json: one object per line). With N (1 = the newest): print that report's\n"
    "text, or with --json its JSON object (docs/report.schema.json); --html opens\n"
    "its page (xdg-open; without a display its path is printed); --perfetto OUT\n"
    "writes its Perfetto trace to OUT (- = standard output) for ui.perfetto.dev or\n"
    "trace_processor. DIR: the daemon's reports directory (default\n"
    "/var/lib/argus/reports, argus start --reports DIR).\n"
    "\n"
    "exit status: 0 ok, 1 no report N, 2 usage, 3 the directory is not readable by\n"
    "this user, 6 cannot read or write a file.\n";

struct entry {
	char base[256]; /* file name without the extension */
	char stamp[16]; /* YYYYMMDD-HHMMSS */
	uint64_t id;
};

/* Newest first: the stamp, then the stall's number. */
static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c = strcmp(y->stamp, x->stamp);
	if (c)
		return c;
	return x->id < y->id ? 1 : x->id > y->id ? -1 : strcmp(y->base, x->base);
}

/* The reports in dir (by their JSON file); -errno when unreadable. */
static int list_dir(const char *dir, struct entry **out, size_t *n)
{
	DIR *d = opendir(dir);
	if (!d)
		return -errno;
	size_t cap = 0;
	*out = NULL;
	*n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l < 6 || l - 5 >= sizeof((*out)->base) || strcmp(e->d_name + l - 5, ".json"))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			struct entry *m = realloc(*out, cap * sizeof(**out));
			if (!m) {
				closedir(d);
				return -ENOMEM;
			}
			*out = m;
		}
		struct entry *r = &(*out)[*n];
		memset(r, 0, sizeof(*r));
		memcpy(r->base, e->d_name, l - 5);
		snprintf(r->stamp, sizeof(r->stamp), "%.15s", r->base);
		const char *dash = strrchr(r->base, '-');
		r->id = dash ? strtoull(dash + 1, NULL, 10) : 0;
		(*n)++;
	}
	closedir(d);
	qsort(*out, *n, sizeof(**out), entry_cmp);
	return 0;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t n = 0, cap = 0;
	for (;;) {
		if (n + 4096 + 1 > cap) {
			cap = cap ? 2 * cap : 65536;
			char *m = realloc(buf, cap);
			if (!m) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = m;
		}
		size_t k = fread(buf + n, 1, 4096, f);
		n += k;
		if (k < 4096)
			break;
	}
	bool err = ferror(f);
	fclose(f);
	if (err) {
		free(buf);
		return NULL;
	}
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

static void json_esc(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		if ((unsigned char)*s >= 0x20)
			putchar(*s);
	}
	putchar('"');
}

static int list(const char *dir, const struct entry *r, size_t n, bool json)
{
	if (!json) {
		if (!n) {
			printf("no diagnoses in %s\n", dir);
			return ARGUS_EXIT_OK;
		}
		printf("%3s  %-19s  %-15s  %9s  %s\n", "N", "time", "app", "stalled", "root cause");
	}
	for (size_t i = 0; i < n; i++) {
		char path[1200];
		snprintf(path, sizeof(path), "%s/%s.json", dir, r[i].base);
		char *js = slurp(path, NULL);
		if (!js)
			continue; /* removed while listing */
		char summary[512], app[64];
		jsonline_str(js, "summary", summary, sizeof(summary));
		const char *st = jsonline_at(js, "stall");
		jsonline_str(st ? st : js, "app", app, sizeof(app));
		const char *dur = st ? jsonline_at(st, "duration_ns") : NULL;
		bool ongoing = !dur || !strncmp(dur, "null", 4);
		double secs = ongoing ? 0 : strtod(dur, NULL) / 1e9;
		/* the root cause: the one line after "APP stalled N.N s: " */
		const char *root = strstr(summary, " s: ");
		root = root ? root + 4 : summary;
		snprintf(path, sizeof(path), "%s/%s.html", dir, r[i].base);
		if (access(path, R_OK) != 0)
			snprintf(path, sizeof(path), "%s/%s.json", dir, r[i].base);
		const char *s = r[i].stamp;
		char when[32];
		snprintf(when, sizeof(when), "%.4s-%.2s-%.2s %.2s:%.2s:%.2s", s, s + 4, s + 6, s + 9,
		         s + 11, s + 13);
		if (json) {
			printf("{\"n\":%zu,\"time\":", i + 1);
			json_esc(when);
			printf(",\"app\":");
			json_esc(app);
			if (ongoing)
				printf(",\"duration_ns\":null");
			else
				printf(",\"duration_ns\":%.0f", secs * 1e9);
			printf(",\"summary\":");
			json_esc(summary);
			printf(",\"report\":");
			json_esc(path);
			printf("}\n");
		} else {
			char d[16];
			if (ongoing)
				snprintf(d, sizeof(d), "ongoing");
			else
				snprintf(d, sizeof(d), "%.1f s", secs);
			printf("%3zu  %-19s  %-15s  %9s  %s\n     %s\n", i + 1, when, app, d, root, path);
		}
		free(js);
	}
	return ARGUS_EXIT_OK;
}

static bool has_display(void)
{
	const char *x = getenv("DISPLAY"), *w = getenv("WAYLAND_DISPLAY");
	return (x && *x) || (w && *w);
}

static int show(const char *dir, const struct entry *r, int mode, const char *out)
{
	char path[1200];
	static const char *const ext[] = {"txt", "json", "html", "pftrace"};
	snprintf(path, sizeof(path), "%s/%s.%s", dir, r->base, ext[mode]);
	if (mode == 2) {
		if (access(path, R_OK) != 0) {
			cli_error("report", "%s: cannot read", path);
			return ARGUS_EXIT_IO;
		}
		if (!has_display()) {
			printf("%s\n", path);
			return ARGUS_EXIT_OK;
		}
		pid_t pid = fork();
		if (pid == 0) {
			const char *opener = getenv("ARGUS_OPEN");
			execlp(opener && *opener ? opener : "xdg-open",
			       opener && *opener ? opener : "xdg-open", path, (char *)NULL);
			_exit(127);
		}
		int st = 0;
		if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
			cli_error("report", "could not open %s (xdg-open); the page is there", path);
			return ARGUS_EXIT_FAIL;
		}
		printf("%s\n", path);
		return ARGUS_EXIT_OK;
	}
	size_t len = 0;
	char *buf = slurp(path, &len);
	if (!buf) {
		cli_error("report", "%s: cannot read (%s)", path, strerror(errno));
		return ARGUS_EXIT_IO;
	}
	FILE *f = stdout;
	if (mode == 3 && strcmp(out, "-")) {
		f = fopen(out, "we");
		if (!f) {
			cli_error("report", "%s: cannot write (%s)", out, strerror(errno));
			free(buf);
			return ARGUS_EXIT_IO;
		}
	}
	bool ok = fwrite(buf, 1, len, f) == len;
	if (f != stdout)
		ok &= fclose(f) == 0;
	else
		ok &= fflush(f) == 0;
	free(buf);
	if (!ok) {
		cli_error("report", "%s: write failed", mode == 3 ? out : "standard output");
		return ARGUS_EXIT_IO;
	}
	if (mode == 3 && f != stdout)
		fprintf(stderr, "argus report: %s: Perfetto trace of %s (open it in ui.perfetto.dev)\n",
		        out, r->base);
	return ARGUS_EXIT_OK;
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {{"dir", required_argument, NULL, 'd'},
	                                     {"json", no_argument, NULL, 'j'},
	                                     {"html", no_argument, NULL, 'H'},
	                                     {"perfetto", required_argument, NULL, 'p'},
	                                     {"help", no_argument, NULL, 'h'},
	                                     {0}};
	const char *dir = ARGUS_REPORTS_DIR, *out = NULL;
	int mode = 0; /* text, json, html, perfetto */
	bool json = false;
	optind = 1;
	opterr = 0;
	for (int c; (c = getopt_long(argc, argv, ":h", opts, NULL)) != -1;) {
		switch (c) {
		case 'h':
			fputs(report_usage, stdout);
			return ARGUS_EXIT_OK;
		case 'd':
			dir = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'H':
			mode = 2;
			break;
		case 'p':
			mode = 3;
			out = optarg;
			break;
		default:
			cli_error("report", "unknown option or missing value '%s' (see argus report --help)",
			          argv[optind - 1]);
			return ARGUS_EXIT_USAGE;
		}
	}
	if (json && mode) {
		cli_error("report", "--json, --html and --perfetto: one at a time");
		return ARGUS_EXIT_USAGE;
	}
	uint64_t n = 0;
	if (optind < argc) {
		if (optind + 1 < argc || !cli_parse_u64(argv[optind], 1, 1000000000, &n)) {
			cli_error("report", "bad report number '%s' (1 = the newest)", argv[optind]);
			return ARGUS_EXIT_USAGE;
		}
	} else if (mode) {
		cli_error("report", "--html and --perfetto need a report number N");
		return ARGUS_EXIT_USAGE;
	}
	struct entry *r = NULL;
	size_t nr = 0;
	int rc = list_dir(dir, &r, &nr);
	if (rc == -EACCES || rc == -EPERM) {
		cli_error("report", "%s: not readable by this user", dir);
		return ARGUS_EXIT_PRIV;
	}
	if (rc == -ENOENT && !n) {
		printf("no diagnoses in %s (the daemon has written none)\n", dir);
		return ARGUS_EXIT_OK;
	}
	if (rc) {
		cli_error("report", "%s: %s", dir, strerror(-rc));
		return rc == -ENOMEM ? ARGUS_EXIT_INTERNAL : ARGUS_EXIT_IO;
	}
	int status;
	if (!n) {
		status = list(dir, r, nr, json);
	} else if (n > nr) {
		cli_error("report", "no report %" PRIu64 " (%zu in %s)", n, nr, dir);
		status = ARGUS_EXIT_FAIL;
	} else {
		status = show(dir, &r[n - 1], json ? 1 : mode, out);
	}
	free(r);
	return status;
}
