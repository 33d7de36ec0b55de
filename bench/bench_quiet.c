/*
 * argus bench quiet: the false-alarm benchmark. Ordinary use of unmodified
 * apps side by side (GTK3, GTK4, Qt5, Tk), nothing hanging, under the live
 * daemon; how many "pinwheel root cause found" notifications argus sent,
 * and what a ping probe saw of the apps' responsiveness meanwhile.
 *
 * bench/quiet/run-quiet.sh sets up the private desktop, the daemon, the
 * probe (bench/quiet/pingprobe) and the apps, drives them and leaves its
 * files in a scratch folder, read here: apps, driven, probe.txt (the
 * probe's _NET_WM_PING figures per window), live.ndjson (the daemon's stall
 * and diagnosis lines) and notify.log (the Notify calls on the desktop's
 * session bus, seen by dbus-monitor). The figures are printed, not judged:
 * exit 0 whenever it ran.
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

#ifndef ARGUS_QUIET_SRC_DIR
#define ARGUS_QUIET_SRC_DIR ""
#endif
#ifndef ARGUS_QUIET_BIN_DIR
#define ARGUS_QUIET_BIN_DIR ""
#endif

#define QUIET_APPS_MAX 16
#define QUIET_NOTE_MAX 512

struct quiet_app {
	char name[64], toolkit[16];
	unsigned pid;
	bool window;
	/* the probe's figures over the app's windows */
	int nwin, nping;
	unsigned long sent, answered;
	double max_ms, longest_ms;
	unsigned hangs;
	int stalls; /* stall lines of argus about this pid */
};

/* One notification or diagnosis: the process argus named and its text. */
struct quiet_note {
	char app[64];
	unsigned pid;
	char text[400];
};

struct quiet_run {
	char work[4096], src_dir[4096], bin_dir[4096], argus[4096];
	double minutes;
	bool keep, no_probe;
	struct quiet_app apps[QUIET_APPS_MAX];
	int napps;
	double driven_s;
	int rounds, actions, saved;
	bool probed;
	unsigned interval_ms, hang_ms;
	struct quiet_app other; /* windows of no started app */
	struct quiet_note notes[QUIET_NOTE_MAX], diags[QUIET_NOTE_MAX];
	int nnotes, ndiags, nstalls, nreports;
};

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: argus bench quiet [--minutes N] [--keep] [--no-probe] [--quiet-dir DIR]\n"
	        "                         [--bin-dir DIR]\n"
	        "  ordinary use of unmodified apps side by side (gedit, geany: GTK3;\n"
	        "  gnome-text-editor: GTK4; juffed, pcmanfm-qt, lximage-qt: Qt5; idle: Tk)\n"
	        "  on a private desktop under argus start, nothing hanging; prints the\n"
	        "  notifications argus sent and what a _NET_WM_PING probe saw meanwhile\n"
	        "  --minutes N     drive the apps N minutes (default 10; fractions too)\n"
	        "  --keep          keep the scratch folder (reports, stream, probe, logs) and\n"
	        "                  record the run (the daemon's recorder in DIR/recorder)\n"
	        "  --no-probe      no ping probe (its pings are X events the apps read)\n"
	        "  --quiet-dir DIR run-quiet.sh's folder (default %s)\n"
	        "  --bin-dir DIR   pingprobe's folder (default %s)\n"
	        "  exit 0 when it ran (the figures say how it went); 3 not root, 4 an app\n"
	        "  or tool missing (scripts/install-deps.sh), 1 the desktop or the daemon\n"
	        "  did not come up\n",
	        *ARGUS_QUIET_SRC_DIR ? ARGUS_QUIET_SRC_DIR : "none built in",
	        *ARGUS_QUIET_BIN_DIR ? ARGUS_QUIET_BIN_DIR : "none built in");
}

static FILE *open_in(const struct quiet_run *r, const char *name)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/%s", r->work, name);
	return fopen(path, "re");
}

static unsigned json_uint(const char *obj, const char *key)
{
	const char *v = jsonline_at(obj, key);
	return v ? (unsigned)strtoul(v, NULL, 10) : 0;
}

/* The value of key=value in a probe line ("" if absent; title= is last). */
static void kv(const char *line, const char *key, char *out, size_t cap)
{
	char pat[64];
	snprintf(pat, sizeof(pat), " %s=", key);
	const char *p = strstr(line, pat);
	out[0] = 0;
	if (!p)
		return;
	p += strlen(pat);
	size_t n = strcmp(key, "title") ? strcspn(p, " \n") : strcspn(p, "\n");
	snprintf(out, cap, "%.*s", (int)n, p);
}

static double kv_num(const char *line, const char *key)
{
	char v[64];
	kv(line, key, v, sizeof(v));
	return strtod(v, NULL);
}

static struct quiet_app *app_of(struct quiet_run *r, unsigned pid)
{
	for (int i = 0; i < r->napps; i++)
		if (r->apps[i].pid == pid)
			return &r->apps[i];
	return NULL;
}

static void read_apps(struct quiet_run *r)
{
	FILE *f = open_in(r, "apps");
	char line[512], up[8];
	while (f && fgets(line, sizeof(line), f) && r->napps < QUIET_APPS_MAX) {
		struct quiet_app *a = &r->apps[r->napps];
		memset(a, 0, sizeof(*a));
		if (sscanf(line, "%63s %15s %u %7s", a->name, a->toolkit, &a->pid, up) == 4) {
			a->window = !strcmp(up, "yes");
			r->napps++;
		}
	}
	if (f)
		fclose(f);
	f = open_in(r, "driven");
	if (f) {
		if (fscanf(f, "%lf %d %d %d", &r->driven_s, &r->rounds, &r->actions, &r->saved) !=
		    4)
			r->driven_s = 0;
		fclose(f);
	}
}

static void read_probe(struct quiet_run *r)
{
	FILE *f = open_in(r, "probe.txt");
	char line[1024];
	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "probe ", 5)) {
			r->probed = true;
			r->interval_ms = (unsigned)kv_num(line, "interval_ms");
			r->hang_ms = (unsigned)kv_num(line, "hang_ms");
			continue;
		}
		if (strncmp(line, "window ", 7))
			continue;
		struct quiet_app *a = app_of(r, (unsigned)kv_num(line, "pid"));
		if (!a)
			a = &r->other;
		char ping[8];
		kv(line, "ping", ping, sizeof(ping));
		a->nwin++;
		a->nping += !strcmp(ping, "yes");
		a->sent += (unsigned long)kv_num(line, "sent");
		a->answered += (unsigned long)kv_num(line, "answered");
		a->hangs += (unsigned)kv_num(line, "hangs");
		double m = kv_num(line, "max_ms"), l = kv_num(line, "longest_ms");
		a->max_ms = m > a->max_ms ? m : a->max_ms;
		a->longest_ms = l > a->longest_ms ? l : a->longest_ms;
	}
	if (f)
		fclose(f);
}

/* The daemon's stream: stall starts per app, and each diagnosis's one line. */
static void read_stream(struct quiet_run *r)
{
	FILE *f = open_in(r, "live.ndjson");
	char *line = NULL;
	size_t cap = 0;
	while (f && getline(&line, &cap, f) > 0) {
		if (strstr(line, "{\"kind\":\"stall\"") == line &&
		    strstr(line, "\"phase\":\"start\"")) {
			struct quiet_app *a = app_of(r, json_uint(line, "pid"));
			if (a)
				a->stalls++;
			r->nstalls++;
		} else if (strstr(line, "{\"kind\":\"diagnosis\"") == line &&
		           !strstr(line, "\"final\":true") && r->ndiags < QUIET_NOTE_MAX) {
			/* a busy stall's final diagnosis is the same stall again */
			struct quiet_note *n = &r->diags[r->ndiags++];
			jsonline_str(line, "summary", n->text, sizeof(n->text));
			/* the report's stall object: the app and its pid */
			const char *st = jsonline_at(line, "stall");
			jsonline_str(st ? st : line, "app", n->app, sizeof(n->app));
			n->pid = json_uint(st ? st : line, "pid");
		}
	}
	free(line);
	if (f)
		fclose(f);
}

/*
 * dbus-monitor's Notify calls: after each "method call" line its arguments,
 * one a line (`   string "..."`; a string goes on over lines up to its
 * closing quote). The fifth is the body: the one line, then
 * "report: DIR/STAMP-COMM-PID-ID.html" when there is a report.
 */
static void read_notifications(struct quiet_run *r)
{
	FILE *f = open_in(r, "notify.log");
	char line[2048];
	int arg = -1; /* the argument being read; -1 outside a call */
	bool open_body = false;
	struct quiet_note *n = NULL;
	while (f && fgets(line, sizeof(line), f)) {
		size_t len = strcspn(line, "\n");
		bool closes = len > 0 && line[len - 1] == '"';
		if (open_body) {
			if (!strncmp(line, "report: ", 8) && n) {
				/* the pid: the next-to-last '-' field of the name */
				char *p = strrchr(line, '.');
				int dashes = 0;
				while (p && p > line && dashes < 2)
					if (*--p == '-')
						dashes++;
				if (dashes == 2)
					n->pid = (unsigned)strtoul(p + 1, NULL, 10);
			}
			open_body = !closes;
			continue;
		}
		if (!strncmp(line, "method call", 11)) {
			n = r->nnotes < QUIET_NOTE_MAX ? &r->notes[r->nnotes++] : NULL;
			if (n)
				memset(n, 0, sizeof(*n));
			arg = 0;
			continue;
		}
		if (arg < 0 || line[0] != ' ')
			continue;
		if (arg < 4) {
			arg++; /* app name, id, icon, summary */
			continue;
		}
		const char *s = strstr(line, "string \"");
		if (s && n) {
			snprintf(n->text, sizeof(n->text), "%.*s",
			         (int)(line + len - (s + 8) - closes), s + 8);
			sscanf(n->text, "%63s", n->app);
		}
		open_body = !closes;
		arg = -1;
	}
	if (f)
		fclose(f);
}

/* The JSON reports the daemon wrote (one per diagnosis). */
static void count_reports(struct quiet_run *r)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/reports", r->work);
	DIR *d = opendir(path);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		size_t n = strlen(e->d_name);
		r->nreports += n > 5 && !strcmp(e->d_name + n - 5, ".json");
	}
	if (d)
		closedir(d);
}

/* run-quiet.sh, its messages through; its exit status, -1 if it cannot run. */
static int run_script(const struct quiet_run *r)
{
	char script[4200], probe[4200], minutes[32];
	snprintf(script, sizeof(script), "%s/run-quiet.sh", r->src_dir);
	snprintf(probe, sizeof(probe), "%s/pingprobe", r->bin_dir);
	snprintf(minutes, sizeof(minutes), "%g", r->minutes);
	char *argv[16] = {"sh",  script,   "--argus",       (char *)r->argus, "--probe",
	                  probe, "--work", (char *)r->work, "--minutes",      minutes};
	int n = 10;
	if (r->no_probe)
		argv[n++] = "--no-probe";
	if (r->keep)
		argv[n++] = "--record"; /* the whole run, to replay offline */
	argv[n] = NULL;
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		execvp("sh", argv);
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void print_app_probe(const struct quiet_app *a, const char *name, const char *tk)
{
	printf("  %-18s %-5s ", name, tk);
	if (a->nwin == 0) {
		printf("no window seen\n");
	} else if (a->nping == 0) {
		printf("%d window%s, no ping support (no _NET_WM_PING): not probed\n", a->nwin,
		       a->nwin > 1 ? "s" : "");
	} else {
		printf("%d window%s (%d pinged)  sent %lu answered %lu  max %.1f ms  hangs %u",
		       a->nwin, a->nwin > 1 ? "s" : "", a->nping, a->sent, a->answered, a->max_ms,
		       a->hangs);
		if (a->hangs)
			printf(" (longest %.1f s)", a->longest_ms / 1e3);
		printf("\n");
	}
}

static void print_figures(const struct quiet_run *r)
{
	printf("apps started: %d\n", r->napps);
	for (int i = 0; i < r->napps; i++) {
		const struct quiet_app *a = &r->apps[i];
		printf("  %-18s %-5s pid %-7u window %s\n", a->name, a->toolkit, a->pid,
		       a->window ? "appeared" : "did NOT appear");
	}
	printf("driven: %.2f min (%d rounds, %d actions: typing, selecting, scrolling, menus,\n"
	       "        the Open dialog then Escape, saving; a click into each window first);\n"
	       "        %d editor files saved with a typed line in them\n",
	       r->driven_s / 60, r->rounds, r->actions, r->saved);

	unsigned long sent = 0, answered = 0;
	unsigned hangs = 0;
	for (int i = 0; i < r->napps; i++) {
		sent += r->apps[i].sent;
		answered += r->apps[i].answered;
		hangs += r->apps[i].hangs;
	}
	sent += r->other.sent;
	answered += r->other.answered;
	hangs += r->other.hangs;
	if (r->probed) {
		printf(
		    "probe: _NET_WM_PING every %u ms to each window that lists it; a real hang =\n"
		    "       a ping unanswered for %u ms or more\n",
		    r->interval_ms, r->hang_ms);
		printf("  pings sent %lu, answered %lu, real hangs %u\n", sent, answered, hangs);
		for (int i = 0; i < r->napps; i++)
			print_app_probe(&r->apps[i], r->apps[i].name, r->apps[i].toolkit);
		if (r->other.nwin)
			print_app_probe(&r->other, "(other windows)", "");
		/* each hang as the probe logged it when it saw it */
		FILE *f = open_in(r, "probe.log");
		char line[512];
		int shown = 0;
		while (f && fgets(line, sizeof(line), f))
			if (!strncmp(line, "pingprobe: hang: ", 17) && shown++ < 20)
				printf("  hang: %s", line + 17);
		if (f)
			fclose(f);
	} else {
		printf("probe: %s\n", r->no_probe ? "off (--no-probe)" : "no figures (probe.log)");
	}

	printf("notifications argus sent (Notify calls on the desktop's session bus): %d\n",
	       r->nnotes);
	for (int i = 0; i < r->nnotes; i++) {
		const struct quiet_note *n = &r->notes[i];
		const struct quiet_app *a = app_of((struct quiet_run *)r, n->pid);
		printf("  %3d. %s pid %u%s: \"%s\"\n", i + 1, n->app, n->pid,
		       a ? "" : " (not a started app)", n->text);
	}
	printf("stalls argus diagnosed (its JSON stream, any process on the machine): %d\n"
	       "  (%d reports written), by app:\n",
	       r->ndiags, r->nreports);
	for (int i = 0; i < r->napps; i++)
		if (r->apps[i].stalls)
			printf("  %-18s %d\n", r->apps[i].name, r->apps[i].stalls);
	for (int i = 0; i < r->ndiags; i++)
		if (!app_of((struct quiet_run *)r, r->diags[i].pid))
			printf("  not a started app: %s pid %u: \"%s\"\n", r->diags[i].app,
			       r->diags[i].pid, r->diags[i].text);

	if (!r->probed)
		printf("verdict: %d notifications (no probe: hangs not measured)\n", r->nnotes);
	else if (hangs == 0)
		printf("verdict: %d notifications while the probe saw no hang\n", r->nnotes);
	else
		printf("verdict: %d notifications; the probe saw %u real hang%s\n", r->nnotes,
		       hangs, hangs > 1 ? "s" : "");
	printf("reproduce: argus bench quiet --minutes %g%s\n", r->minutes,
	       r->no_probe ? " --no-probe" : "");
}

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int parse(struct quiet_run *r, int argc, char **argv)
{
	static const struct option opts[] = {
	    {"minutes", required_argument, 0, 'm'},
	    {"keep", no_argument, 0, 'k'},
	    {"no-probe", no_argument, 0, 'n'},
	    {"quiet-dir", required_argument, 0, 'q'},
	    {"bin-dir", required_argument, 0, 'b'},
	    {"help", no_argument, 0, 'h'},
	    {0, 0, 0, 0},
	};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		char *end;
		switch (c) {
		case 'm':
			r->minutes = strtod(optarg, &end);
			if (end == optarg || *end || !(r->minutes > 0) || r->minutes > 24 * 60) {
				fprintf(stderr,
				        "argus bench quiet: --minutes wants a number > 0, "
				        "not '%s'\n",
				        optarg);
				return ARGUS_EXIT_USAGE;
			}
			break;
		case 'k':
			r->keep = true;
			break;
		case 'n':
			r->no_probe = true;
			break;
		case 'q':
			snprintf(r->src_dir, sizeof(r->src_dir), "%s", optarg);
			break;
		case 'b':
			snprintf(r->bin_dir, sizeof(r->bin_dir), "%s", optarg);
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			usage(stderr);
			return ARGUS_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "argus bench quiet: unexpected argument '%s'\n", argv[optind]);
		return ARGUS_EXIT_USAGE;
	}
	return ARGUS_EXIT_OK;
}

int argus_bench_quiet(int argc, char **argv)
{
	struct quiet_run *r = calloc(1, sizeof(*r));
	if (!r)
		return ARGUS_EXIT_INTERNAL;
	r->minutes = 10;
	snprintf(r->src_dir, sizeof(r->src_dir), "%s", ARGUS_QUIET_SRC_DIR);
	snprintf(r->bin_dir, sizeof(r->bin_dir), "%s", ARGUS_QUIET_BIN_DIR);
	int rc = parse(r, argc, argv);
	if (rc) {
		free(r);
		return rc < 0 ? ARGUS_EXIT_OK : rc;
	}
	char probe[4200];
	snprintf(probe, sizeof(probe), "%s/pingprobe", r->bin_dir);
	if (geteuid() != 0) {
		fprintf(stderr, "argus bench quiet: needs root (argus start traces with eBPF)\n");
		free(r);
		return ARGUS_EXIT_PRIV;
	}
	if (!is_dir(r->src_dir)) {
		fprintf(stderr, "argus bench quiet: no run-quiet.sh in '%s' (--quiet-dir)\n",
		        r->src_dir);
		free(r);
		return ARGUS_EXIT_USAGE;
	}
	if (!r->no_probe && access(probe, X_OK)) {
		fprintf(stderr,
		        "argus bench quiet: no ping probe at %s (built with libxcb1-dev and "
		        "libxcb-res0-dev, scripts/install-deps.sh; --bin-dir)\n",
		        probe);
		free(r);
		return ARGUS_EXIT_NOSUPPORT;
	}
	ssize_t len = readlink("/proc/self/exe", r->argus, sizeof(r->argus) - 1);
	if (len <= 0) {
		fprintf(stderr, "argus bench quiet: cannot find this argus (/proc/self/exe)\n");
		free(r);
		return ARGUS_EXIT_INTERNAL;
	}
	r->argus[len] = 0;
	const char *tmp = getenv("TMPDIR");
	snprintf(r->work, sizeof(r->work), "%s/argus-quiet-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(r->work)) {
		fprintf(stderr, "argus bench quiet: cannot make a scratch folder: %s\n",
		        strerror(errno));
		free(r);
		return ARGUS_EXIT_IO;
	}

	printf("argus bench quiet: %g min of ordinary use of apps side by side, nothing "
	       "hanging (scratch %s)\n",
	       r->minutes, r->work);
	int st = run_script(r);
	switch (st) {
	case 0:
		read_apps(r);
		read_probe(r);
		read_stream(r);
		read_notifications(r);
		count_reports(r);
		print_figures(r);
		rc = ARGUS_EXIT_OK;
		break;
	case 3:
		rc = ARGUS_EXIT_PRIV; /* run-quiet.sh said why */
		break;
	case 4:
		rc = ARGUS_EXIT_NOSUPPORT;
		break;
	case 5:
		fprintf(stderr, "argus bench quiet: the private desktop or argus start did not "
		                "come up (above)\n");
		rc = ARGUS_EXIT_FAIL;
		break;
	default:
		fprintf(stderr, "argus bench quiet: run-quiet.sh failed (exit %d)\n", st);
		rc = ARGUS_EXIT_INTERNAL;
	}
	/* nothing ran when a tool or root was missing: nothing to keep */
	if (r->keep || (rc != ARGUS_EXIT_OK && st != 3 && st != 4)) {
		printf("files in %s\n", r->work);
	} else {
		char *rm[] = {"rm", "-rf", r->work, NULL};
		pid_t pid = fork();
		if (pid == 0) {
			execvp("rm", rm);
			_exit(127);
		}
		while (pid > 0 && waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	free(r);
	return rc;
}
