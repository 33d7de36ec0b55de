/*
 * bench_landmarks.c - `argus bench hooks --landmarks`: what the toolkit
 * landmark hooks (docs/hooks.md "Landmarks": GObject signal emissions, GTK
 * events, paint, Qt deliveries and signals) cost per event in a real GTK3
 * and a real Qt5 program.
 *
 * Each program (bench/hooks/lm_gtk.c under a private Xvfb, lm_qt.cpp on Qt's
 * offscreen platform) dispatches each kind of event as fast as it can and
 * prints the CPU time its dispatching thread spent on each (the other jobs
 * of a shared machine do not count in it); it runs in three modes,
 * alternating, round after round:
 *
 *   off   no hook library
 *   on    libargus-hooks.so preloaded with rings (as `argus run` gives them),
 *         drained here: the default filter (3 ms), so these short landmarks
 *         cost two clock reads and no record
 *   all   the same with ARGUS_HOOK_LANDMARK_NS=0: every landmark is a record
 *
 * and the medians over the rounds are printed: events/s per mode, ns per
 * event, and what the hooks add per event.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../hooks/hooks.h"
#include "ringbuf.h"

#include "bench.h"

#define LM_KINDS  8
#define LM_ROUNDS 31
#define LM_RINGS  16

enum lm_mode { LM_OFF, LM_ON, LM_ALL, LM_MODES };
static const char *const lm_mode_name[LM_MODES] = {"off", "on", "all"};

struct lm_kind {
	char name[24];
	uint64_t count;
	double ns_per[LM_MODES][LM_ROUNDS]; /* ns per event, per round */
	int n[LM_MODES];
};

struct lm_prog {
	const char *label, *path;
	const char *const *env; /* NAME=VALUE for the program */
	struct lm_kind kind[LM_KINDS];
	int nkinds;
	uint64_t records[LM_MODES], drops[LM_MODES]; /* summed over rounds */
};

static uint64_t lm_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct lm_kind *kind_of(struct lm_prog *p, const char *name)
{
	for (int i = 0; i < p->nkinds; i++)
		if (!strcmp(p->kind[i].name, name))
			return &p->kind[i];
	if (p->nkinds == LM_KINDS)
		return NULL;
	struct lm_kind *k = &p->kind[p->nkinds++];
	memset(k, 0, sizeof(*k));
	snprintf(k->name, sizeof(k->name), "%s", name);
	return k;
}

/* One run of the program in a mode: its lines into p, the records drained. */
static int lm_run(struct lm_prog *p, enum lm_mode m, const char *lib, const char *scale, int round)
{
	struct argus_ring *rings[LM_RINGS] = {0};
	int fds[LM_RINGS], out[2];
	char spec[LM_RINGS * 16] = "";
	size_t len = 0;
	int nr = m == LM_OFF ? 0 : LM_RINGS, rc = 0;
	for (int i = 0; i < nr; i++) {
		if (argus_ring_create_shm(&rings[i], 1u << 16, &fds[i])) {
			nr = i;
			rc = -ENOMEM;
			goto out;
		}
		len += (size_t)snprintf(spec + len, sizeof(spec) - len, "%s%d:-1", i ? "," : "",
		                        fds[i]);
	}
	if (pipe(out)) {
		rc = -errno;
		goto out;
	}
	pid_t pid = fork();
	if (pid == 0) {
		close(out[0]);
		dup2(out[1], 1);
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 2);
		for (const char *const *e = p->env; *e; e++)
			putenv((char *)*e);
		setenv(ARGUS_HOOK_ENV_SOCKET, "", 1);
		unsetenv("LD_PRELOAD");
		if (nr) {
			for (int i = 0; i < nr; i++)
				fcntl(fds[i], F_SETFD, 0);
			setenv("LD_PRELOAD", lib, 1);
			setenv(ARGUS_HOOK_ENV_RINGS, spec, 1);
			if (m == LM_ALL)
				setenv(ARGUS_HOOK_ENV_LANDMARK_NS, "0", 1);
		}
		execl(p->path, p->path, scale, (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	static struct argus_event buf[4096];
	char text[2048];
	size_t tlen = 0;
	uint64_t t0 = lm_now();
	int st = 0;
	bool done = false;
	while (!done) {
		for (int i = 0; i < nr; i++) {
			size_t n;
			while ((n = argus_ring_read(rings[i], buf, 4096)))
				p->records[m] += n;
		}
		ssize_t r = read(out[0], text + tlen, sizeof(text) - 1 - tlen);
		if (r > 0)
			tlen += (size_t)r;
		if (waitpid(pid, &st, WNOHANG) == pid)
			done = true;
		else if (lm_now() - t0 > 120000000000ull) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			done = true;
		} else
			poll(NULL, 0, 1);
	}
	ssize_t r;
	while ((r = read(out[0], text + tlen, sizeof(text) - 1 - tlen)) > 0)
		tlen += (size_t)r;
	close(out[0]);
	text[tlen] = 0;
	for (int i = 0; i < nr; i++) {
		size_t n;
		while ((n = argus_ring_read(rings[i], buf, 4096)))
			p->records[m] += n;
		p->drops[m] += argus_ring_drops(rings[i]);
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		rc = -EIO;
		goto out;
	}
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[24];
		unsigned long long count, ns;
		if (sscanf(line, "%23s %llu %llu", name, &count, &ns) != 3 || !count)
			continue;
		struct lm_kind *k = kind_of(p, name);
		if (!k || round >= LM_ROUNDS)
			continue;
		k->count = count;
		k->ns_per[m][k->n[m]++] = (double)ns / (double)count;
	}
out:
	for (int i = 0; i < nr; i++) {
		argus_ring_close(rings[i]);
		close(fds[i]);
	}
	return rc;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(const double *v, int n)
{
	double s[LM_ROUNDS];
	memcpy(s, v, (size_t)n * sizeof(double));
	qsort(s, (size_t)n, sizeof(double), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static void lm_print(const struct lm_prog *p, int rounds)
{
	printf("%s: medians of %d rounds (modes alternating), the dispatching thread's CPU ns "
	       "per event and events per CPU second:\n",
	       p->label, rounds);
	printf("  %-10s %9s %9s %9s %11s %11s %11s %10s %10s  %s\n", "kind", "off ns", "on ns",
	       "all ns", "off ev/s", "on ev/s", "all ev/s", "on +ns", "all +ns",
	       "off ns min-max");
	for (int i = 0; i < p->nkinds; i++) {
		const struct lm_kind *k = &p->kind[i];
		double med[LM_MODES];
		bool ok = true;
		for (int m = 0; m < LM_MODES; m++) {
			ok = ok && k->n[m] > 0;
			med[m] = k->n[m] ? median(k->ns_per[m], k->n[m]) : 0;
		}
		if (!ok)
			continue;
		double lo = k->ns_per[LM_OFF][0], hi = lo;
		for (int r = 1; r < k->n[LM_OFF]; r++) {
			lo = k->ns_per[LM_OFF][r] < lo ? k->ns_per[LM_OFF][r] : lo;
			hi = k->ns_per[LM_OFF][r] > hi ? k->ns_per[LM_OFF][r] : hi;
		}
		printf("  %-10s %9.0f %9.0f %9.0f %11.0f %11.0f %11.0f %+10.1f %+10.1f  %.0f-%.0f\n",
		       k->name, med[LM_OFF], med[LM_ON], med[LM_ALL], 1e9 / med[LM_OFF],
		       1e9 / med[LM_ON], 1e9 / med[LM_ALL], med[LM_ON] - med[LM_OFF],
		       med[LM_ALL] - med[LM_OFF], lo, hi);
	}
	printf("  records drained per round: on %.0f, all %.0f; dropped: on %llu, all %llu\n",
	       (double)p->records[LM_ON] / rounds, (double)p->records[LM_ALL] / rounds,
	       (unsigned long long)p->drops[LM_ON], (unsigned long long)p->drops[LM_ALL]);
}

static bool lm_exe(const char *path)
{
	return path && access(path, X_OK) == 0;
}

int argus_bench_hooks_landmarks(const char *lib, int rounds, int scale, const char *bin_dir)
{
	char gtk[PATH_MAX], qt[PATH_MAX], sc[16], display[16], denv[32];
	if (rounds < 1)
		rounds = 1;
	if (rounds > LM_ROUNDS)
		rounds = LM_ROUNDS;
	snprintf(sc, sizeof(sc), "%d", scale > 0 ? scale : 1);
	snprintf(gtk, sizeof(gtk), "%s/bench_lm_gtk", bin_dir);
	snprintf(qt, sizeof(qt), "%s/bench_lm_qt", bin_dir);
	int d = 160 + getpid() % 90;
	snprintf(display, sizeof(display), ":%d", d);
	snprintf(denv, sizeof(denv), "DISPLAY=%s", display);
	static const char *const qt_env[] = {"QT_QPA_PLATFORM=offscreen", "NO_AT_BRIDGE=1", NULL};
	const char *gtk_env[] = {denv, "GDK_BACKEND=x11", "NO_AT_BRIDGE=1", NULL};
	static struct lm_prog progs[2];
	memset(progs, 0, sizeof(progs));
	progs[0] =
	    (struct lm_prog){.label = "GTK3 (bench_lm_gtk, Xvfb)", .path = gtk, .env = gtk_env};
	progs[1] =
	    (struct lm_prog){.label = "Qt5 (bench_lm_qt, offscreen)", .path = qt, .env = qt_env};
	bool have_x = system("command -v Xvfb >/dev/null") == 0;
	pid_t x = -1;
	if (lm_exe(gtk) && have_x) {
		x = fork();
		if (x == 0) {
			int null = open("/dev/null", O_WRONLY);
			dup2(null, 1);
			dup2(null, 2);
			execlp("Xvfb", "Xvfb", display, "-nolisten", "tcp", "-screen", "0",
			       "640x480x24", (char *)NULL);
			_exit(127);
		}
		sleep(1);
	}
	int ran = 0;
	for (int i = 0; i < 2; i++) {
		struct lm_prog *p = &progs[i];
		if (!lm_exe(p->path) || (i == 0 && x < 0)) {
			printf("%s: not run (%s)\n", p->label,
			       !lm_exe(p->path)
			           ? "not built: its toolkit's headers were not installed"
			           : "no Xvfb");
			continue;
		}
		int failed = 0;
		for (int r = 0; r < rounds; r++)
			for (int m = 0; m < LM_MODES; m++) {
				/* alternate the order so no mode always runs first */
				enum lm_mode mm = (enum lm_mode)((m + r) % LM_MODES);
				if (lm_run(p, mm, lib, sc, r)) {
					if (!failed++)
						fprintf(
						    stderr,
						    "argus bench hooks: %s %s round %d failed\n",
						    p->label, lm_mode_name[mm], r + 1);
				}
			}
		lm_print(p, rounds);
		ran++;
	}
	if (x > 0) {
		kill(x, SIGTERM);
		waitpid(x, NULL, 0);
	}
	return ran ? 0 : 4;
}
