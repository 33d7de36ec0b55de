/*
 * bench_storm.c - `argus bench storm`: the daemon as `argus start` runs it
 * (this binary, forked: merge, graph, trigger, diagnosis, recorder) under
 * a storm for a while: hooked threads of this process flooding their hook
 * rings, kernel load (perf bench sched messaging in a loop) unless
 * --no-kernel, two JSON stream clients, one reading slowly. Prints per
 * stage what was offered, recorded and lost, and whether they add up
 * exactly; the daemon's peak RSS beside its configured bounds. With --hang
 * CASE, a bug zoo case runs in the middle of the storm against this daemon
 * (argus bench zoo --no-baselines CASE, told through ARGUS_DAEMON_RUN to use
 * it): its table says whether the daemon saw the hang, how long the
 * notification took and whether it named the root cause.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cmdline.h"
#include "stream.h"

#define MAX_PRODUCERS 16

struct producer {
	pthread_t th;
	const char *sock;
	atomic_bool *stop, *hold;
	double rate;               /* records/s offered */
	uint64_t offered, written; /* records tried, records the ring took */
	int rc;
};

struct reader {
	pthread_t th;
	int fd;
	bool slow;
	atomic_bool *stop;
	uint64_t lines, events;
	unsigned id; /* the daemon's client id, from the hello line */
};

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void *produce(void *arg)
{
	struct producer *p = arg;
	struct argus_ring *r;
	int s;
	if ((p->rc = argus_ring_connect(p->sock, &r, &s)))
		return NULL;
	struct argus_event e = {0};
	e.pid = e.tid = (uint32_t)getpid(); /* the daemon knows better anyway */
	e.type = ARGUS_EV_COND_SIGNAL;
	uint64_t n = 0, t0 = now_ns();
	while (!atomic_load_explicit(p->stop, memory_order_relaxed)) {
		if ((n & 1023) == 0) { /* paced: offered at the rate asked */
			uint64_t due = t0 + (uint64_t)(n / p->rate * 1e9), t = now_ns();
			if (due > t)
				usleep((useconds_t)((due - t) / 1000));
		}
		e.ts = (n & 63) ? e.ts + 1 : now_ns();
		e.sync.obj = n++;
		p->offered++;
		p->written += (unsigned)argus_ring_write(r, &e);
	}
	/* stay connected until the daemon's counts were read: a ring that is
	 * gone leaves the status */
	while (atomic_load(p->hold))
		usleep(10000);
	argus_ring_close(r);
	close(s);
	return NULL;
}

static void *read_stream(void *arg)
{
	struct reader *rd = arg;
	static const char ev[] = "{\"kind\":\"event\"";
	const int evlen = (int)sizeof(ev) - 1;
	char buf[65536];
	int pos = 0; /* matched so far of the line's start; -1 = not an event line */
	for (;;) {
		if (rd->slow)
			usleep(20000); /* 64 KiB per 20 ms at most: about 3 MiB/s */
		struct pollfd p = {.fd = rd->fd, .events = POLLIN};
		if (poll(&p, 1, 200) <= 0) {
			if (atomic_load(rd->stop))
				break;
			continue;
		}
		ssize_t k = read(rd->fd, buf, sizeof(buf));
		if (k <= 0)
			break;
		if (!rd->lines) {
			char *h = memmem(buf, (size_t)k, "\"client\":", 9);
			if (h && h + 9 < buf + k)
				rd->id = (unsigned)strtoul(h + 9, NULL, 10);
		}
		for (ssize_t i = 0; i < k; i++) {
			if (buf[i] == '\n') {
				rd->lines++;
				pos = 0;
			} else if (pos >= 0 && pos < evlen) {
				pos = buf[i] == ev[pos] ? pos + 1 : -1;
				if (pos == evlen)
					rd->events++;
			}
		}
	}
	return NULL;
}

static int connect_stream(const char *run)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int len = snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/stream.sock", run);
	if (len < 0 || (size_t)len >= sizeof(sa.sun_path))
		return -1; /* a run directory too long for a socket path */
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	const char *req = "stream v=1 kinds=event\n";
	if (write(fd, req, strlen(req)) != (ssize_t)strlen(req)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The daemon's "status json" reply (malloc'ed) or NULL. */
static char *status_json(const char *run)
{
	int mfd = memfd_create("status", 0);
	if (mfd < 0)
		return NULL;
	char *buf = NULL;
	if (argus_daemon_request(run, "status json", mfd) == 0) {
		off_t len = lseek(mfd, 0, SEEK_END);
		buf = malloc((size_t)len + 1);
		if (buf) {
			ssize_t k = pread(mfd, buf, (size_t)len, 0);
			buf[k > 0 ? k : 0] = '\0';
		}
	}
	close(mfd);
	return buf;
}

/* The number after "key": at or after from (0 when absent). */
static uint64_t num_after(const char *from, const char *key)
{
	const char *p = from ? strstr(from, key) : NULL;
	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

/* Peak and current RSS of pid, from /proc (kB). */
static void rss_of(pid_t pid, uint64_t *hwm, uint64_t *rss)
{
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "re");
	*hwm = *rss = 0;
	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "VmHWM:", 6))
			*hwm = strtoull(line + 6, NULL, 10);
		if (!strncmp(line, "VmRSS:", 6))
			*rss = strtoull(line + 6, NULL, 10);
	}
	if (f)
		fclose(f);
}

/* `argus bench zoo --no-baselines CASE` against the daemon at run (its
 * recorder rec), its output to out: the zoo runner's ARGUS_DAEMON_RUN. */
static pid_t start_hang(const char *name, const char *run, const char *rec, const char *out,
                        bool keep)
{
	fflush(stdout);
	pid_t p = fork();
	if (p == 0) {
		/* its desktop and driver: one group to stop, and a session of
		 * their own, as a user's desktop session is: the kernel's
		 * autogroup scheduling gives them a group's share of the CPUs
		 * beside the load's (see where the load starts) */
		setsid();
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		setenv("ARGUS_DAEMON_RUN", run, 1);
		setenv("ARGUS_DAEMON_RECORDER", rec, 1);
		if (keep) /* the case's files too (the trace dumped from the recorder) */
			execl("/proc/self/exe", "argus", "bench", "zoo", "--no-baselines", "--keep",
			      name, (char *)NULL);
		else
			execl("/proc/self/exe", "argus", "bench", "zoo", "--no-baselines", name,
			      (char *)NULL);
		_exit(127);
	}
	return p;
}

/* The daemon's peak RSS beside the sum of its configured bounds, and each
 * bounded stage's own peak beside its bound (from the last status: the
 * peaks are the daemon's own); the heap at the highest RSS seen. */
static void print_memory(const char *st, const char *at_peak, uint64_t peak_kb, unsigned nprod,
                         bool kernel)
{
	const double mib = 1048576.0;
	const char *mem = strstr(st, "\"memory\":"), *dg = strstr(st, "\"diagnosis\":");
	uint64_t merge_peak = num_after(mem, "\"merge_peak_bytes\":");
	uint64_t merge_cap = (4ull << 20) * sizeof(struct argus_event);
	uint64_t q_peak = num_after(dg, "\"queued_peak_bytes\":");
	uint64_t q_cap = num_after(dg, "\"queue_cap_bytes\":");
	uint64_t g_peak = num_after(dg, "\"graph_peak_bytes\":");
	uint64_t g_cap = num_after(dg, "\"graph_cap_bytes\":");
	uint64_t c_cap = 8ull << 20, c_peak[2] = {0, 0};
	const char *c = strstr(st, "\"clients\":[");
	for (int i = 0; i < 2 && c && (c = strstr(c, "\"queued_peak_bytes\":")); i++, c++)
		c_peak[i] = num_after(c, "\"queued_peak_bytes\":");
	/* kernel rings: what the status says of their sizes */
	uint64_t rings = 0;
	for (const char *p = strstr(st, "\"rings\":["); p && (p = strstr(p, "\"size_bytes\":")); p++)
		rings += num_after(p, "\"size_bytes\":");
	uint64_t history = 64ull << 20; /* the reports' records (session/daemon.c) */
	uint64_t sum = merge_cap + q_cap + g_cap + 2 * c_cap + rings + history;
	printf("  daemon peak RSS %.1f MiB, the sum of its bounds %.1f MiB: %s\n", peak_kb / 1024.0,
	       sum / mib, peak_kb * 1024 <= sum ? "under" : "ABOVE");
	printf("  %-34s %14s %14s\n", "bounded stage", "peak MiB", "bound MiB");
	printf("  %-34s %14.1f %14.1f\n", "merge (held records)", merge_peak / mib, merge_cap / mib);
	printf("  %-34s %14.1f %14.1f\n", "diagnosis queue", q_peak / mib, q_cap / mib);
	printf("  %-34s %14.1f %14.1f  (cap hits %" PRIu64 ")\n", "graph window", g_peak / mib,
	       g_cap / mib, num_after(dg, "\"graph_cap_hits\":"));
	for (int i = 0; i < 2; i++)
		printf("  client %d queue %-19s %14.1f %14.1f\n", i + 1, "", c_peak[i] / mib,
		       c_cap / mib);
	printf("  %-34s %14s %14.1f  (%s%u hook rings, mapped)\n", "rings", "", rings / mib,
	       kernel ? "kernel rings and " : "", nprod);
	printf("  %-34s %14s %14.1f\n", "records kept for reports", "", history / mib);
	const char *pm = at_peak ? strstr(at_peak, "\"memory\":") : NULL;
	if (pm)
		printf("  at the highest RSS seen (%.1f MiB): heap allocated %.1f MiB, resident %.1f "
		       "MiB; string and stack tables %.1f MiB\n",
		       num_after(pm, "\"rss_bytes\":") / mib,
		       num_after(pm, "\"heap_allocated_bytes\":") / mib,
		       num_after(pm, "\"heap_resident_bytes\":") / mib,
		       num_after(pm, "\"table_bytes\":") / mib);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: argus bench storm [--seconds N] [--producers P] [--rate R] [--no-kernel | --no-load]"
	           " [--hang CASE [--hang-limit S]] [--keep]\n"
	           "  the daemon as argus start runs it, P hooked threads (default 2) writing R\n"
	           "  records/s each (default 1000000) into their hook rings, perf bench sched "
	           "messaging -g 40 in a loop unless --no-kernel (no kernel\n"
	           "  tracer either) or --no-load (the tracer on),\n"
	           "  two stream clients (one slow), for N seconds (default 60); prints offered,\n"
	           "  recorded and lost per stage and the daemon's peak RSS; --hang CASE runs that\n"
	           "  bug zoo case (bench/zoo/) against the daemon from the storm's middle (the\n"
	           "  storm lasts until it is done, at most S s (default 360) after its start) and\n"
	           "  prints its row; --keep leaves the\n"
	           "  scratch directory (daemon.log, the recording) in /tmp\n");
}

int argus_bench_storm(int argc, char **argv)
{
	double seconds = 60;
	unsigned nprod = 2;
	double rate = 1e6;
	bool kernel = true, keep = false, kload = true;
	const char *hang = NULL;
	double hang_limit = 360; /* s: a case still running then is stopped */
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return ARGUS_EXIT_OK;
		} else if (!strcmp(a, "--seconds") && v && (seconds = atof(v)) > 0) {
			i++;
		} else if (!strcmp(a, "--producers") && v && (nprod = (unsigned)atoi(v)) > 0 &&
		           nprod <= MAX_PRODUCERS) {
			i++;
		} else if (!strcmp(a, "--rate") && v && (rate = atof(v)) > 0) {
			i++;
		} else if (!strcmp(a, "--hang") && v && *v && !strchr(v, '/')) {
			hang = v;
			i++;
		} else if (!strcmp(a, "--hang-limit") && v && (hang_limit = atof(v)) > 0) {
			i++;
		} else if (!strcmp(a, "--keep")) {
			keep = true;
		} else if (!strcmp(a, "--no-kernel")) {
			kernel = false;
		} else if (!strcmp(a, "--no-load")) {
			kload = false; /* the kernel tracer on, perf bench not run */
		} else {
			cli_error("bench storm", "bad argument '%s'", a);
			usage(stderr);
			return ARGUS_EXIT_USAGE;
		}
	}
	if (geteuid() != 0) {
		cli_error("bench storm", "argus start runs as root");
		return ARGUS_EXIT_PRIV;
	}
	char base[64] = "/tmp/argus-storm-XXXXXX";
	if (!mkdtemp(base)) {
		cli_error("bench storm", "cannot create a scratch directory: %s", strerror(errno));
		return ARGUS_EXIT_IO;
	}
	char run[128], rec[128], hooks[128], sock[160], reports[128], log[128], hang_out[128];
	snprintf(run, sizeof(run), "%s/run", base);
	snprintf(rec, sizeof(rec), "%s/rec", base);
	snprintf(hooks, sizeof(hooks), "%s/hooks", base);
	snprintf(sock, sizeof(sock), "%s/hooks.sock", hooks);
	snprintf(reports, sizeof(reports), "%s/reports", base);
	snprintf(log, sizeof(log), "%s/daemon.log", base);
	snprintf(hang_out, sizeof(hang_out), "%s/hang.out", base);
	char status_log[128];
	snprintf(status_log, sizeof(status_log), "%s/status.log", base);
	pid_t d = fork();
	if (d == 0) {
		/* a session of its own, as systemd or a terminal starts it: not
		 * in one scheduling group with the flooding threads below */
		setsid();
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		/* notifications only for a zoo hang: they go to its desktop */
		char *args[16] = {"argus",      "start", "--run-dir",   run,
		                  "--recorder", rec,     "--hooks-dir", hooks,
		                  "--reports",  reports};
		int na = 10;
		if (!hang)
			args[na++] = "--no-notify";
		if (!kernel)
			args[na++] = "--no-kernel";
		args[na] = NULL;
		execv("/proc/self/exe", args);
		_exit(127);
	}
	bool up = false;
	for (int i = 0; i < 1000 && !up; i++, usleep(10000))
		up = argus_daemon_request(run, "status", -1) == 0;
	if (!up) {
		kill(d, SIGKILL);
		waitpid(d, NULL, 0);
		cli_error("bench storm", "argus start did not come up (see %s)", log);
		return ARGUS_EXIT_INTERNAL;
	}
	atomic_bool stop = false, hold = true, rstop = false;
	struct reader rd[2] = {{.slow = false, .stop = &rstop}, {.slow = true, .stop = &rstop}};
	for (int i = 0; i < 2; i++) {
		rd[i].fd = connect_stream(run);
		if (rd[i].fd < 0 || pthread_create(&rd[i].th, NULL, read_stream, &rd[i])) {
			cli_error("bench storm", "cannot connect a stream client");
			return ARGUS_EXIT_INTERNAL;
		}
	}
	pid_t load = -1;
	if (kernel && kload) {
		load = fork();
		if (load == 0) {
			/* a session of its own, as a job a user starts from a
			 * terminal: with autogroup scheduling (the default on
			 * desktop kernels) its 800 processes share one group's
			 * weight instead of each weighing as much as the hang
			 * case's Xvfb, app and driver (which then starved: the
			 * case's window never came up, no hang started) */
			setsid();
			int null = open("/dev/null", O_WRONLY);
			dup2(null, 1);
			dup2(null, 2);
			execl("/bin/sh", "sh", "-c",
			      "while :; do perf bench sched messaging -g 40 -l 2000; done",
			      (char *)NULL);
			_exit(127);
		}
	}
	struct producer pr[MAX_PRODUCERS];
	for (unsigned i = 0; i < nprod; i++) {
		pr[i] = (struct producer){.sock = sock, .stop = &stop, .hold = &hold, .rate = rate};
		pthread_create(&pr[i].th, NULL, produce, &pr[i]);
	}
	uint64_t t0 = now_ns(), peak_kb = 0;
	char *st0 = status_json(run);
	uint64_t total0 = num_after(st0, "\"total\":");
	free(st0);
	pid_t hang_pid = -1;
	double hang_at = -1;
	int hang_st = 0;
	double hang_stopped = 0; /* s after its start that the case was stopped */
	/* the daemon's status when its RSS was highest (asked every 2 s): its
	 * heap then, beside the stages' own peaks the last status gives */
	char *st_peak = NULL;
	uint64_t st_peak_rss = 0, last_ask = 0;
	while (now_ns() - t0 < (uint64_t)(seconds * 1e9) || hang_pid > 0) {
		usleep(200000);
		if (hang && hang_at < 0 && now_ns() - t0 >= (uint64_t)(seconds / 2 * 1e9)) {
			hang_at = (now_ns() - t0) / 1e9;
			hang_pid = start_hang(hang, run, rec, hang_out, keep);
		}
		if (hang_pid > 0 && waitpid(hang_pid, &hang_st, WNOHANG) == hang_pid)
			hang_pid = -1;
		double since = (now_ns() - t0) / 1e9 - hang_at;
		if (hang_pid > 0 && since > hang_limit && !hang_stopped) {
			/* run-case.sh's trap stops its desktop and program */
			kill(-hang_pid, SIGTERM);
			hang_stopped = since;
		}
		if (hang_pid > 0 && hang_stopped && since > hang_stopped + 15)
			kill(-hang_pid, SIGKILL);
		uint64_t hwm, rss;
		rss_of(d, &hwm, &rss);
		if (hwm > peak_kb)
			peak_kb = hwm;
		if (now_ns() - last_ask >= 2000000000ull) {
			last_ask = now_ns();
			char *sj = status_json(run);
			if (sj && keep) { /* the daemon's status every 2 s, kept */
				FILE *sf = fopen(status_log, "ae");
				if (sf) {
					fprintf(sf, "%.1f %s", (now_ns() - t0) / 1e9, sj);
					fclose(sf);
				}
			}
			uint64_t r = num_after(sj ? strstr(sj, "\"memory\":") : NULL, "\"rss_bytes\":");
			if (sj && r >= st_peak_rss) {
				free(st_peak);
				st_peak = sj;
				st_peak_rss = r;
			} else {
				free(sj);
			}
		}
	}
	atomic_store(&stop, true);
	if (load > 0) {
		kill(-load, SIGKILL);
		waitpid(load, NULL, 0);
	}
	/* the rings drained, the merge released, the recorder flushed */
	usleep(500000);
	argus_daemon_request(run, "flush", -1);
	usleep(300000);
	char *st = status_json(run);
	double secs = (now_ns() - t0) / 1e9;
	atomic_store(&hold, false);
	for (unsigned i = 0; i < nprod; i++)
		pthread_join(pr[i].th, NULL);
	argus_daemon_request(run, "stop", -1);
	int wst = 0;
	waitpid(d, &wst, 0);
	atomic_store(&rstop, true);
	for (int i = 0; i < 2; i++) {
		pthread_join(rd[i].th, NULL);
		close(rd[i].fd);
	}
	uint64_t hwm, rss;
	rss_of(getpid(), &hwm, &rss);
	if (!st) {
		cli_error("bench storm", "no status from the daemon");
		return ARGUS_EXIT_INTERNAL;
	}

	/* hook rings: what the producers offered, what the rings took */
	uint64_t offered = 0, written = 0, ring_drops = 0, kdrops = 0;
	for (unsigned i = 0; i < nprod; i++) {
		offered += pr[i].offered;
		written += pr[i].written;
	}
	const char *rs = strstr(st, "\"rings\":["), *re = rs ? strstr(rs, "],\"recorder\"") : NULL;
	for (const char *p = rs; p && (p = strstr(p, "{\"source\":")) && p < re; p++) {
		const char *end = strchr(p, '}');
		const char *hook = strstr(p, "\"kind\":\"hook\"");
		uint64_t drops = num_after(p, "\"drops\":");
		if (hook && hook < end)
			ring_drops += drops;
		else
			kdrops += drops;
	}
	uint64_t hook_merged = num_after(strstr(st, "\"by_type\":"), "\"cond_signal\":");
	uint64_t total = num_after(st, "\"total\":");
	uint64_t drop_recs = num_after(strstr(st, "\"by_type\":"), "\"drop\":");
	uint64_t rec_events = num_after(strstr(st, "\"recorder\":"), "\"events\":");
	uint64_t rec_lost = num_after(strstr(st, "\"recorder\":"), "\"lost\":");
	printf(
	    "argus bench storm: %.1f s, %u hooked threads at %.0f records/s each, kernel load %s\n",
	    secs, nprod, rate,
	    !kernel ? "none (--no-kernel)"
	    : kload ? "perf bench sched messaging -g 40 (loop)"
	            : "none (--no-load: the kernel tracer on)");
	printf("  %-34s %14s %14s %14s  %s\n", "stage", "offered", "recorded", "lost", "adds up");
	printf("  %-34s %14" PRIu64 " %14" PRIu64 " %14" PRIu64 "  %s\n",
	       "hook rings (producers' count)", offered, written, offered - written,
	       offered - written == ring_drops ? "yes (= the daemon's ring drops)" : "NO");
	printf("  %-34s %14" PRIu64 " %14" PRIu64 " %14" PRIu64 "  %s\n",
	       "merge (hook records out)", written, hook_merged, written - hook_merged,
	       written == hook_merged ? "yes" : "NO");
	uint64_t kdelivered = total - hook_merged - drop_recs;
	printf("  %-34s %14" PRIu64 " %14" PRIu64 " %14" PRIu64 "  (offered = recorded + lost)\n",
	       "kernel rings (other records)", kdelivered + kdrops, kdelivered, kdrops);
	const char *src = strstr(st, "\"source\":{");
	if (src)
		printf("  %-34s %14s %14s %14" PRIu64 "  (kernel ring losses outside the app set of "
		       "%" PRIu64 " processes; the rest of the lost: app set and rings full)\n",
		       "  of which shed", "", "", num_after(src, "\"ring_shed\":"),
		       num_after(src, "\"appset\":"));
	printf("  %-34s %14" PRIu64 " %14" PRIu64 " %14" PRIu64 "  %s\n", "recorder", total,
	       rec_events, rec_lost, rec_events + rec_lost == total ? "yes" : "NO");
	for (int i = 0; i < 2; i++) {
		char key[32];
		snprintf(key, sizeof(key), "{\"id\":%u,", rd[i].id);
		const char *c = strstr(st, key);
		uint64_t sent = num_after(c, "\"sent\":"), drops = num_after(c, "\"drops\":");
		uint64_t del = num_after(c, "\"delivered\":");
		char name[64];
		snprintf(name, sizeof(name), "client %u (%s, read %" PRIu64 ")", rd[i].id,
		         rd[i].slow ? "slow" : "fast", rd[i].events);
		printf("  %-34s %14" PRIu64 " %14" PRIu64 " %14" PRIu64 "  %s\n", name, del, sent,
		       drops, c && sent + drops == del ? "yes" : "NO");
	}
	printf("  events: %" PRIu64 " delivered (%.2f M/s), %" PRIu64 " before the storm\n",
	       total - total0, (total - total0) / secs / 1e6, total0);
	print_memory(st, st_peak, peak_kb, nprod, kernel);
	free(st_peak);
	printf("  bench process peak RSS %.1f MiB; daemon exit %d%s%s\n", hwm / 1024.0,
	       WIFEXITED(wst) ? WEXITSTATUS(wst) : -1, keep ? "; kept " : "", keep ? base : "");
	if (hang) {
		printf("  zoo hang %s started %.1f s into the storm (argus bench zoo --no-baselines, "
		       "exit %d), against this daemon:\n",
		       hang, hang_at, WIFEXITED(hang_st) ? WEXITSTATUS(hang_st) : -1);
		if (hang_stopped)
			printf("    (the case was still running %.0f s after its start: stopped, "
			       "--hang-limit)\n",
			       hang_stopped);
		FILE *h = fopen(hang_out, "re");
		char line[1024];
		while (h && fgets(line, sizeof(line), h))
			printf("    %s", line);
		if (h)
			fclose(h);
	}
	if (!keep) {
		char cmd[160];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
		if (system(cmd))
			cli_error("bench storm", "could not remove %s", base);
	}
	free(st);
	return ARGUS_EXIT_OK;
}
