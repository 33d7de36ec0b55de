/*
 * bench_hooks.c - `argus bench hooks`: what a hooked call costs.
 *
 *  1. ns per call of an interposed function (pthread_cond_signal with no
 *     waiter) from libargus-hooks.so: plain libc, hooks inert (no consumer),
 *     hooks recording into a shared-memory ring that this process drains.
 *     Each mode runs in its own child (the library reads its configuration
 *     when it is loaded).
 *  2. ns per call through an inline hook (trampoline + relay) against the
 *     same function unhooked.
 *  3. with --gtk: CPU time of gtk3-widget-factory driven by xdotool under
 *     Xvfb, hooks off vs on, alternating; the rings are drained here, as
 *     `argus run` does, and that CPU is reported apart.
 *  4. with --landmarks: the toolkit landmark hooks per event in a GTK3 and
 *     a Qt5 program (bench_landmarks.c).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../hooks/hooks.h"
#include "inline_hook.h"
#include "ringbuf.h"

#include "bench.h"
#include "cmdline.h"

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

enum mode { MODE_LIBC, MODE_INERT, MODE_CONSUMER };

/* In a child: time `iters` calls of pthread_cond_signal as the mode has
 * it; writes ns per call (double) to fd. */
static void child_measure(enum mode m, const char *lib, uint64_t iters, int fd)
{
	int (*fn)(pthread_cond_t *) = pthread_cond_signal;
	if (m != MODE_LIBC) {
		void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			fprintf(stderr, "argus bench hooks: %s\n", dlerror());
			_exit(1);
		}
		*(void **)&fn = dlsym(h, "pthread_cond_signal");
	}
	pthread_cond_t c = PTHREAD_COND_INITIALIZER;
	for (uint64_t i = 0; i < iters / 10; i++) /* warm up */
		fn(&c);
	uint64_t t0 = now_ns();
	for (uint64_t i = 0; i < iters; i++)
		fn(&c);
	double ns = (double)(now_ns() - t0) / (double)iters;
	ssize_t w = write(fd, &ns, sizeof(ns));
	_exit(w == sizeof(ns) ? 0 : 1);
}

/* Run one mode in a child; for MODE_CONSUMER drain its ring meanwhile. */
static int measure(enum mode m, const char *lib, uint64_t iters, double *ns, uint64_t *got,
                   uint64_t *drops)
{
	struct argus_ring *ring = NULL;
	int ring_fd = -1, p[2];
	*got = *drops = 0;
	if (pipe(p))
		return -errno;
	if (m == MODE_CONSUMER) {
		int rc = argus_ring_create_shm(&ring, 1u << 16, &ring_fd);
		if (rc)
			return rc;
	}
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		if (ring) {
			char spec[64];
			fcntl(ring_fd, F_SETFD, 0);
			fcntl(argus_ring_wait_fd(ring), F_SETFD, 0);
			/* no wake-up fd: the drain polls (see builtin-run.c) */
			snprintf(spec, sizeof(spec), "%d:-1", ring_fd);
			setenv(ARGUS_HOOK_ENV_RINGS, spec, 1);
		} else {
			unsetenv(ARGUS_HOOK_ENV_RINGS);
		}
		child_measure(m, lib, iters, p[1]);
	}
	close(p[1]);
	static struct argus_event buf[4096];
	int st = 0;
	for (;;) {
		if (ring) {
			size_t n;
			while ((n = argus_ring_read(ring, buf, 4096)))
				*got += n;
		}
		if (waitpid(pid, &st, ring ? WNOHANG : 0) == pid)
			break;
		if (ring) {
			struct pollfd pf = {.fd = argus_ring_wait_fd(ring), .events = POLLIN};
			poll(&pf, 1, 1);
		}
	}
	if (ring) {
		size_t n;
		while ((n = argus_ring_read(ring, buf, 4096)))
			*got += n;
		*drops = argus_ring_drops(ring);
		argus_ring_close(ring);
		close(ring_fd);
	}
	ssize_t r = read(p[0], ns, sizeof(*ns));
	close(p[0]);
	return WIFEXITED(st) && !WEXITSTATUS(st) && r == sizeof(*ns) ? 0 : -EIO;
}

/* ---- inline hook cost ---- */

static volatile uint64_t sink;

static __attribute__((noinline)) uint64_t bench_target(uint64_t x)
{
	sink += x;
	return sink ^ x;
}

static uint64_t (*bench_orig)(uint64_t);
static uint64_t bench_replacement(uint64_t x)
{
	return bench_orig(x);
}

static double time_calls(uint64_t (*volatile fn)(uint64_t), uint64_t iters)
{
	uint64_t t0 = now_ns();
	for (uint64_t i = 0; i < iters; i++)
		fn(i);
	return (double)(now_ns() - t0) / (double)iters;
}

/* ---- GTK workload ---- */

static int sh(const char *cmd)
{
	int rc = system(cmd);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static double tv_s(struct timeval t)
{
	return (double)t.tv_sec + (double)t.tv_usec / 1e6;
}

/*
 * One scripted gtk3-widget-factory session: CPU seconds (user + sys) of
 * the application, and of this process draining its rings (*consumer_s).
 * Hooks on: the application gets 16 rings (as `argus run` gives) that this
 * process drains every 50 ms; off: no hook library at all.
 */
static double gtk_session(const char *lib, bool hooks, const char *display, int steps,
                          double *consumer_s, uint64_t *events)
{
	enum { NR = 16 };
	struct argus_ring *rings[NR] = {0};
	int fds[NR];
	char spec[NR * 16] = "";
	size_t len = 0;
	*consumer_s = 0;
	*events = 0;
	for (int i = 0; hooks && i < NR; i++) {
		if (argus_ring_create_shm(&rings[i], 16384, &fds[i]))
			return -1;
		len += (size_t)snprintf(spec + len, sizeof(spec) - len, "%s%d:-1", i ? "," : "",
		                        fds[i]);
	}
	struct rusage self0, self1;
	getrusage(RUSAGE_SELF, &self0);
	pid_t app = fork();
	if (app == 0) {
		setenv("DISPLAY", display, 1);
		setenv("GDK_BACKEND", "x11", 1);
		setenv("NO_AT_BRIDGE", "1", 1);
		setenv("ARGUS_HOOK_SOCKET", "", 1);
		if (hooks) {
			for (int i = 0; i < NR; i++)
				fcntl(fds[i], F_SETFD, 0);
			setenv("LD_PRELOAD", lib, 1);
			setenv(ARGUS_HOOK_ENV_RINGS, spec, 1);
		}
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		dup2(null, 2);
		execlp("gtk3-widget-factory", "gtk3-widget-factory", (char *)NULL);
		_exit(127);
	}
	pid_t drv = fork();
	if (drv == 0) {
		/* Tab through widgets, page through the notebook, move the
		 * pointer; then quit (ctrl+q). */
		char cmd[768];
		snprintf(
		    cmd, sizeof(cmd),
		    "export DISPLAY=%s; timeout 10 xdotool search --sync --onlyvisible --class "
		    "gtk3-widget-factory >/dev/null 2>&1; for i in $(seq %d); do xdotool "
		    "mousemove $((100 + i %% 300)) $((100 + i %% 200)) key Tab key "
		    "ctrl+Page_Down; done; xdotool key ctrl+q",
		    display, steps);
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		dup2(null, 2);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	static struct argus_event buf[4096];
	struct rusage ru;
	int st;
	uint64_t t0 = now_ns();
	double cpu = -1;
	for (;;) {
		for (int i = 0; hooks && i < NR; i++) {
			size_t n;
			while ((n = argus_ring_read(rings[i], buf, 4096)))
				*events += n;
		}
		if (wait4(app, &st, WNOHANG, &ru) == app) {
			cpu = tv_s(ru.ru_utime) + tv_s(ru.ru_stime);
			break;
		}
		if (now_ns() - t0 > 30000000000ull) {
			kill(app, SIGKILL);
			waitpid(app, &st, 0);
			break;
		}
		poll(NULL, 0, 50);
	}
	getrusage(RUSAGE_SELF, &self1);
	*consumer_s = tv_s(self1.ru_utime) + tv_s(self1.ru_stime) - tv_s(self0.ru_utime) -
	              tv_s(self0.ru_stime);
	kill(drv, SIGKILL);
	waitpid(drv, &st, 0);
	for (int i = 0; hooks && i < NR; i++) {
		argus_ring_close(rings[i]);
		close(fds[i]);
	}
	return cpu;
}

static int bench_gtk(const char *lib, int rounds, int steps)
{
	if (sh("command -v gtk3-widget-factory >/dev/null && command -v xdotool >/dev/null && "
	       "command -v Xvfb >/dev/null")) {
		fprintf(stderr,
		        "argus bench hooks --gtk: needs gtk3-widget-factory (gtk-3-examples), "
		        "xdotool and Xvfb\n");
		return 4;
	}
	char display[16];
	int d = 150 + getpid() % 100;
	snprintf(display, sizeof(display), ":%d", d);
	pid_t x = fork();
	if (x == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		dup2(null, 2);
		execlp("Xvfb", "Xvfb", display, "-nolisten", "tcp", "-screen", "0", "1280x1024x24",
		       (char *)NULL);
		_exit(127);
	}
	sleep(1);
	double off = 0, on = 0, cons = 0;
	uint64_t events = 0;
	int ok = 0;
	printf("gtk3-widget-factory, %d scripted steps per session, application CPU s "
	       "(user+sys), hooks off / on alternating:\n",
	       steps);
	for (int i = 0; i < rounds; i++) {
		double c0, c1;
		uint64_t e0, e1;
		double a = gtk_session(lib, false, display, steps, &c0, &e0);
		double b = gtk_session(lib, true, display, steps, &c1, &e1);
		printf("  round %d: off %.3f  on %.3f  (consumer %.3f, %llu records)\n", i + 1, a,
		       b, c1, (unsigned long long)e1);
		if (a > 0 && b > 0) {
			off += a;
			on += b;
			cons += c1;
			events += e1;
			ok++;
		}
	}
	kill(x, SIGTERM);
	waitpid(x, NULL, 0);
	if (!ok)
		return 1;
	printf("  mean: off %.3f s, on %.3f s: application overhead %+.2f %%; consumer %.3f s "
	       "(%+.2f %%), %.0f records per session\n",
	       off / ok, on / ok, 100.0 * (on - off) / off, cons / ok, 100.0 * cons / off,
	       (double)events / ok);
	return 0;
}

int argus_bench_hooks(int argc, char **argv)
{
	uint64_t iters = 20000000;
	bool gtk = false, landmarks = false;
	int rounds = 5, keys = 40, scale = 1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--iters") && i + 1 < argc)
			iters = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--gtk"))
			gtk = true;
		else if (!strcmp(argv[i], "--landmarks"))
			landmarks = true;
		else if (!strcmp(argv[i], "--scale") && i + 1 < argc)
			scale = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			rounds = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--steps") && i + 1 < argc)
			keys = atoi(argv[++i]);
		else {
			fprintf(stderr,
			        "usage: argus bench hooks [--iters N] [--gtk [--rounds N] "
			        "[--steps N]]\n"
			        "       argus bench hooks --landmarks [--rounds N] [--scale N]\n"
			        "  --landmarks: the toolkit landmark hooks' cost per event in a "
			        "GTK3 and a Qt5\n"
			        "  program (signals, events, paint), hooks off / on / every "
			        "landmark recorded,\n"
			        "  alternating; medians of the rounds (default 5)\n");
			return 2;
		}
	}
	if (!iters)
		iters = 1;
	char lib[PATH_MAX];
	if (!argus_hooks_lib_path(lib, sizeof(lib))) {
		fprintf(stderr, "argus bench hooks: %s not found (set ARGUS_HOOKS_LIB)\n",
		        ARGUS_HOOK_LIB_NAME);
		return 6;
	}
	if (landmarks)
		return argus_bench_hooks_landmarks(lib, rounds, scale, ARGUS_BENCH_HOOKS_BIN_DIR);
	static const char *const names[] = {"libc, no hooks", "hooks inert (no consumer)",
	                                    "hooks recording (ring drained)"};
	double ns[3];
	printf("pthread_cond_signal (no waiter), %llu calls each, ns per call:\n",
	       (unsigned long long)iters);
	for (int m = 0; m < 3; m++) {
		uint64_t got, drops;
		int rc = measure((enum mode)m, lib, iters, &ns[m], &got, &drops);
		if (rc) {
			fprintf(stderr, "argus bench hooks: %s: failed\n", names[m]);
			return 1;
		}
		printf("  %-32s %7.2f ns", names[m], ns[m]);
		if (m)
			printf("  (+%.2f ns)", ns[m] - ns[0]);
		if (m == MODE_CONSUMER)
			printf("  events %llu, dropped %llu", (unsigned long long)got,
			       (unsigned long long)drops);
		putchar('\n');
	}

	struct argus_hook_arena *a = argus_hook_arena_new();
	double plain = time_calls(bench_target, iters);
	int rc = argus_hook_install(a, (void *)bench_target, (void *)bench_replacement,
	                            (void **)&bench_orig);
	if (rc == 0) {
		double hooked = time_calls(bench_target, iters);
		printf("inline hook (relay + trampoline), ns per call: plain %.2f, hooked %.2f "
		       "(+%.2f ns)\n",
		       plain, hooked, hooked - plain);
	} else {
		printf("inline hook: cannot hook here: %s\n", strerror(-rc));
	}
	argus_hook_arena_free(a);
	if (gtk)
		return bench_gtk(lib, rounds, keys);
	return 0;
}
