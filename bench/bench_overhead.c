/*
 * bench_overhead.c - `argus bench overhead [--rounds N] [--idle S] -- CMD`:
 * what tracing costs a workload. CMD runs alternately with no tracing, under
 * the daemon as users run it (`argus start`: tracer, merge, graph, trigger,
 * diagnosis, flight recorder), under `argus record --all`, and under the
 * peers that capture the same: `perf record -a -e sched:sched_switch -e
 * sched:sched_waking`, and the same plus raw_syscalls enter / exit (what
 * per-call capture, `--syscalls`, captures), N rounds each (default 5);
 * medians of wall time and the ratios to the untraced run are printed, and
 * the CPU time the command and the tracer used while it ran (on a machine
 * shared with other work, wall time follows what the others do; CPU time
 * much less). The tracer's CPU time covers its process (all its threads):
 * BPF programs and perf's in-kernel event output run in the traced tasks
 * and count in the command's CPU time. --syscalls adds the two argus rows
 * with per-call capture. --idle S also measures what an idle machine pays:
 * busy CPU time (/proc/stat) over S seconds without argus, under argus
 * start and under argus record. --floor adds a mode: an empty program on
 * the syscall exit tracepoint (syscall_floor.bpf.c), the part of the cost
 * that any syscall tracer pays on this kernel. --metrics: CMD prints its
 * own figures on stdout, lines "metric NAME VALUE", and each one's median
 * per row is printed as well (an app's CPU time is not the command's);
 * --desktop runs bench/desktop/desktop.sh that way: a GTK3 app used by a
 * scripted user while a build runs.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "progstats.h"
#include "syscall_floor.skel.h"

/* The rows, in the order each round runs them. */
enum mode {
	MODE_NONE,
	MODE_START,
	MODE_RECORD,
	MODE_START_SYS,
	MODE_RECORD_SYS,
	MODE_PERF,
	MODE_PERF_SYS,
	MODE_FLOOR,
	MODE_COUNT
};
static const char *const mode_names[] = {
    "untraced",          "argus start", "argus record",        "start --syscalls",
    "record --syscalls", "perf sched",  "perf sched+syscalls", "empty sys_exit"};

struct overhead_opts {
	unsigned rounds;
	unsigned idle_s;
	const char *argus;
	const char *argus_opt; /* one extra option for the argus rows, e.g. --no-recv-enter */
	bool floor;            /* also run MODE_FLOOR */
	bool syscalls;         /* also run MODE_START_SYS, MODE_RECORD_SYS */
	bool metrics;          /* CMD prints "metric NAME VALUE" lines */
	bool prog_stats;       /* the kernel's BPF run-time statistics on (progstats.c) */
	bool meter;            /* argus rows with --meter; CMD's "pid NAME PID" lines */
	char **cmd;
	char tmpdir[64];
};

static bool mode_on(const struct overhead_opts *o, enum mode m)
{
	if (m == MODE_FLOOR)
		return o->floor;
	if (m == MODE_START_SYS || m == MODE_RECORD_SYS)
		return o->syscalls;
	return true;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* argv in a child, its stdout to out (NULL: /dev/null). */
static pid_t spawn_to(char *const argv[], bool quiet, const char *out)
{
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		int fd = out ? open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600) : null;

		if (fd >= 0)
			dup2(fd, 1);
		if (null >= 0 && quiet)
			dup2(null, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	return pid;
}

static pid_t spawn(char *const argv[], int keep_fd, bool quiet)
{
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0) {
			dup2(null, 1);
			if (quiet)
				dup2(null, 2);
		}
		(void)keep_fd;
		execvp(argv[0], argv);
		_exit(127);
	}
	return pid;
}

/* argv in a child, its stdout to /dev/null and its stderr to log (the
 * tracer's summary of what it lost). */
static pid_t spawn_log(char *const argv[], const char *log)
{
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		int lf = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (null >= 0)
			dup2(null, 1);
		if (lf >= 0)
			dup2(lf, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	return pid;
}

static int wait_exit_ru(pid_t pid, struct rusage *ru)
{
	int status;

	if (wait4(pid, &status, 0, ru) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int wait_exit(pid_t pid)
{
	struct rusage ru;

	return wait_exit_ru(pid, &ru);
}

static double ru_seconds(const struct rusage *ru)
{
	return (double)ru->ru_utime.tv_sec + ru->ru_utime.tv_usec / 1e6 +
	       (double)ru->ru_stime.tv_sec + ru->ru_stime.tv_usec / 1e6;
}

/* CPU time of a process, all its threads, in seconds (ns resolution,
 * unlike /proc/PID/stat's ticks); 0 when it cannot be read. Threads that
 * ended before are not counted: read it while they run. */
static double sched_cpu_seconds(pid_t pid)
{
	char path[96];
	unsigned long long ns, sum = 0;
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/schedstat", (int)pid, e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%llu", &ns) == 1)
			sum += ns;
		fclose(f);
	}
	closedir(d);
	return (double)sum / 1e9;
}

/* MODE_FLOOR's tracer: a child that attaches the empty sys_exit program,
 * says so on ready, and detaches at SIGINT. */
static pid_t start_floor(void)
{
	int p[2];
	char buf[8];

	if (pipe(p))
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		struct syscall_floor_bpf *skel;
		sigset_t set;
		int sig;

		close(p[0]);
		sigemptyset(&set);
		sigaddset(&set, SIGINT);
		sigprocmask(SIG_BLOCK, &set, NULL);
		/* a bench that dies takes the program with it: never left attached */
		prctl(PR_SET_PDEATHSIG, SIGINT);
		if (getppid() == 1)
			_exit(1);
		skel = syscall_floor_bpf__open_and_load();
		if (!skel || syscall_floor_bpf__attach(skel)) {
			fprintf(stderr,
			        "bench overhead: the empty sys_exit program did not attach\n");
			_exit(1);
		}
		if (write(p[1], "ready", 5) != 5)
			_exit(1);
		sigwait(&set, &sig);
		syscall_floor_bpf__destroy(skel);
		_exit(0);
	}
	close(p[1]);
	ssize_t n = pid > 0 ? read(p[0], buf, sizeof(buf)) : -1;
	close(p[0]);
	if (n <= 0) {
		if (pid > 0)
			wait_exit(pid);
		return -1;
	}
	return pid;
}

/* The daemon as a user runs it, in the bench's folder (its own sockets,
 * flight recorder and reports; no notifications), once it says it runs
 * (its stderr, in a file: a pipe left unread would stop it). */
static pid_t start_daemon(const struct overhead_opts *o, bool syscalls)
{
	char run[96], rec[96], rep[96], log[96], buf[512];
	const char *opt = syscalls ? "--syscalls" : o->argus_opt ? o->argus_opt : "--no-notify";

	snprintf(run, sizeof(run), "%s/run", o->tmpdir);
	snprintf(rec, sizeof(rec), "%s/rec", o->tmpdir);
	snprintf(rep, sizeof(rep), "%s/reports", o->tmpdir);
	snprintf(log, sizeof(log), "%s/start.log", o->tmpdir);
	/* the last round's log says "daemon running" until the child truncates
	 * it: read before that, the round began during the daemon's start-up
	 * and counted its CPU (1.3-1.8 s) as the tracer's */
	if (unlink(log) && errno != ENOENT) {
		fprintf(stderr, "bench overhead: %s: %s\n", log, strerror(errno));
		return -1;
	}
	char *argv[] = {(char *)o->argus,
	                "start",
	                "--run-dir",
	                run,
	                "--recorder",
	                rec,
	                "--reports",
	                rep,
	                "--hooks-dir",
	                "",
	                "--no-notify",
	                (char *)opt,
	                o->meter ? "--meter" : NULL,
	                NULL};
	pid_t pid = spawn_log(argv, log);
	if (pid < 0)
		return -1;
	for (int i = 0; i < 600; i++) { /* 30 s */
		FILE *f = fopen(log, "r");
		size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

		if (f)
			fclose(f);
		buf[n] = 0;
		if (strstr(buf, "daemon running"))
			return pid;
		if (waitpid(pid, NULL, WNOHANG) == pid) {
			fprintf(stderr, "bench overhead: argus start ended: %s", buf);
			return -1;
		}
		usleep(50000);
	}
	kill(pid, SIGINT);
	wait_exit(pid);
	return -1;
}

/* Start a tracer and return once it traces (argus: --ready-fd, or the
 * daemon's line; perf: it says nothing, so a settle delay). */
static pid_t start_tracer(const struct overhead_opts *o, enum mode m)
{
	char path[128], fdarg[16];

	if (m == MODE_FLOOR)
		return start_floor();
	if (m == MODE_START || m == MODE_START_SYS)
		return start_daemon(o, m == MODE_START_SYS);

	if (m == MODE_RECORD || m == MODE_RECORD_SYS) {
		const char *opt = m == MODE_RECORD_SYS ? "--syscalls"
		                  : o->argus_opt       ? o->argus_opt
		                                       : "--all";
		int p[2];
		char buf[8], log[96];

		if (pipe(p))
			return -1;
		snprintf(log, sizeof(log), "%s/record.log", o->tmpdir);
		snprintf(path, sizeof(path), "%s/argus.argus", o->tmpdir);
		snprintf(fdarg, sizeof(fdarg), "%d", p[1]);
		char *argv[] = {(char *)o->argus,
		                "record",
		                "-o",
		                path,
		                "--all",
		                (char *)opt,
		                "--ready-fd",
		                fdarg,
		                o->meter ? "--meter" : NULL,
		                NULL};
		pid_t pid = spawn_log(argv, log);
		close(p[1]);
		ssize_t n = read(p[0], buf, sizeof(buf));
		close(p[0]);
		if (n <= 0) {
			wait_exit(pid);
			return -1;
		}
		return pid;
	}
	snprintf(path, sizeof(path), "%s/perf.data", o->tmpdir);
	char *argv[] = {"perf",
	                "record",
	                "-a",
	                "-q",
	                "-e",
	                "sched:sched_switch",
	                "-e",
	                "sched:sched_waking",
	                "-o",
	                path,
	                m == MODE_PERF_SYS ? "-e" : NULL,
	                "raw_syscalls:sys_enter",
	                "-e",
	                "raw_syscalls:sys_exit",
	                NULL};
	pid_t pid = spawn(argv, -1, true);
	usleep(1500000);
	return pid;
}

/* SIGINT, again each second while the tracer runs (a daemon still starting
 * under a loaded machine has been seen to miss the first), SIGKILL after
 * 30 s. */
static int stop_tracer(pid_t pid)
{
	int status;

	for (int i = 0; i < 300; i++) {
		if (i % 10 == 0)
			kill(pid, SIGINT);
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		if (r < 0)
			return -1;
		usleep(100000);
	}
	kill(pid, SIGKILL);
	return wait_exit(pid);
}

#define MAX_METRICS 8

struct run_cost {
	double wall, cmd_cpu, tracer_cpu;
	double prog_s, prog_runs; /* tracing programs while CMD ran (--prog-stats) */
	struct prog_meter meter;  /* their time in the process CMD named (--meter) */
	struct prog_meter progs;  /* the tracing programs while CMD ran, per program */
	double metric[MAX_METRICS];
	/* what the tracer kept and lost (tracer_losses); counted false when
	 * its summary was not found */
	double kept, lost, shed;
	bool counted;
};

/* The names of CMD's metrics, in the order the first run printed them. */
struct metric_names {
	unsigned n;
	char name[MAX_METRICS][32];
};

/* The process CMD named on its stdout ("pid NAME PID"), 0 if none. */
static uint32_t named_pid(const char *path, char *name, size_t size)
{
	char line[256], n[32];
	unsigned long pid = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "pid %31s %lu", n, &pid) == 2) {
			snprintf(name, size, "%s", n);
			break;
		}
	fclose(f);
	return (uint32_t)pid;
}

/* Reads CMD's "metric NAME VALUE" lines from its stdout file into cost;
 * false when a metric is missing or new after the first run (the runs
 * would not compare). */
static bool read_metrics(const char *path, struct metric_names *names, struct run_cost *cost)
{
	bool seen[MAX_METRICS] = {false};
	char line[256], name[32];
	double v;
	FILE *f = fopen(path, "r");

	if (!f)
		return false;
	bool first = names->n == 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "metric %31s %lf", name, &v) != 2)
			continue;
		unsigned i = 0;
		while (i < names->n && strcmp(names->name[i], name))
			i++;
		if (i == names->n) {
			if (!first || names->n == MAX_METRICS)
				continue;
			snprintf(names->name[names->n++], sizeof(names->name[0]), "%s", name);
		}
		cost->metric[i] = v;
		seen[i] = true;
	}
	fclose(f);
	for (unsigned i = 0; i < names->n; i++)
		if (!seen[i])
			return false;
	return names->n > 0;
}

/* What the daemon saw while the command ran, from its log: the stalls it
 * diagnosed (each one's diagnosis and report cost CPU the round counts;
 * on a desktop workload, a stall is a false alarm) and its counts. */
static void daemon_said(const struct overhead_opts *o)
{
	char log[96], line[1024];
	snprintf(log, sizeof(log), "%s/start.log", o->tmpdir);
	FILE *f = fopen(log, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "argus start: stall ", 19) ||
		    !strncmp(line, "argus start: diagnosis: ", 24))
			fprintf(stderr, "  daemon: %s", line + 13);
	fclose(f);
}

/* The first line of path holding key, from key on; false if none. */
static bool line_with(const char *path, const char *key, char *out, size_t size)
{
	char line[1024];
	FILE *f = fopen(path, "r");
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *at = strstr(line, key);

		if (at) {
			snprintf(out, size, "%s", at);
			found = true;
		}
	}
	fclose(f);
	return found;
}

/* What the stopped tracer kept and lost: an argus row's own summary
 * ("lost: N (kernel rings; S of them shed ..."; argus record also says
 * how many it wrote), perf's from `perf report --stats` (SAMPLE events
 * kept; LOST events: the notices perf wrote of records it lost, each for
 * one or more). A row whose tracer loses records costs less for it: the
 * bench prints them beside the times. */
static void tracer_losses(const struct overhead_opts *o, enum mode m, struct run_cost *c)
{
	char path[128], out[128], text[256];
	unsigned long long a = 0, b = 0;

	if (m == MODE_START || m == MODE_START_SYS || m == MODE_RECORD || m == MODE_RECORD_SYS) {
		bool start = m == MODE_START || m == MODE_START_SYS;

		snprintf(path, sizeof(path), "%s/%s.log", o->tmpdir, start ? "start" : "record");
		if (!line_with(path, "lost: ", text, sizeof(text)) ||
		    sscanf(text, "lost: %llu (kernel rings; %llu", &a, &b) != 2)
			return;
		c->lost = (double)a;
		c->shed = (double)b;
		c->counted = true;
		if (!start && line_with(path, "argus record: ", text, sizeof(text)) &&
		    sscanf(text, "argus record: %llu records", &a) == 1)
			c->kept = (double)a;
		return;
	}
	if (m != MODE_PERF && m != MODE_PERF_SYS)
		return;
	snprintf(path, sizeof(path), "%s/perf.data", o->tmpdir);
	snprintf(out, sizeof(out), "%s/perf.stats", o->tmpdir);
	char *argv[] = {"perf", "report", "-i", path, "--stats", NULL};
	if (wait_exit(spawn_to(argv, true, out)) != 0)
		return;
	c->counted = true;
	if (line_with(out, "SAMPLE events:", text, sizeof(text)) &&
	    sscanf(text, "SAMPLE events: %llu", &a) == 1)
		c->kept = (double)a;
	if (line_with(out, "LOST events:", text, sizeof(text)) &&
	    sscanf(text, "LOST events: %llu", &b) == 1)
		c->lost = (double)b;
}

/* One timed run of CMD under mode m; wall < 0 on failure. */
static struct run_cost run_once(const struct overhead_opts *o, enum mode m,
                                struct metric_names *names)
{
	struct run_cost cost = {.wall = -1};
	pid_t tracer = 0;
	struct rusage ru;
	double t0, t1, c0 = 0;
	char out[96];

	snprintf(out, sizeof(out), "%s/cmd.out", o->tmpdir);
	if (m != MODE_NONE) {
		tracer = start_tracer(o, m);
		if (tracer < 0)
			return cost;
		c0 = sched_cpu_seconds(tracer);
	}
	struct prog_meter p0;
	if (o->prog_stats)
		prog_stats_by_name(&p0);
	t0 = now_s();
	int rc = wait_exit_ru(spawn_to(o->cmd, false, o->metrics || o->meter ? out : NULL), &ru);
	t1 = now_s();
	cost.cmd_cpu = ru_seconds(&ru);
	if (o->prog_stats) { /* before the tracer stops: its programs' totals go with them */
		prog_stats_by_name(&cost.progs);
		prog_meter_sub(&cost.progs, &p0);
		cost.prog_s = cost.progs.ns / 1e9;
		cost.prog_runs = cost.progs.runs;
	}
	if (o->meter && tracer > 0 && m != MODE_PERF && m != MODE_PERF_SYS) {
		uint32_t pid = named_pid(out, cost.meter.task, sizeof(cost.meter.task));
		if (pid && prog_meter_add(pid, &cost.meter))
			fprintf(stderr, "bench overhead: --meter: %s loaded no meter\n",
			        mode_names[m]);
	}
	if (tracer > 0)
		cost.tracer_cpu = sched_cpu_seconds(tracer) - c0;
	if (tracer > 0 && stop_tracer(tracer) != 0 && m != MODE_PERF && m != MODE_PERF_SYS)
		fprintf(stderr, "bench overhead: %s did not stop cleanly\n", mode_names[m]);
	if (tracer > 0 && (m == MODE_START || m == MODE_START_SYS))
		daemon_said(o);
	if (tracer > 0)
		tracer_losses(o, m, &cost);
	if (rc == 0 && o->metrics && !read_metrics(out, names, &cost)) {
		fprintf(stderr, "bench overhead: the command printed no (or other) metric lines\n");
		rc = 1;
	}
	if (rc == 0)
		cost.wall = t1 - t0;
	return cost;
}

/* Busy CPU seconds of the whole machine from /proc/stat. */
static double busy_seconds(void)
{
	unsigned long long v[10] = {0};
	FILE *f = fopen("/proc/stat", "r");
	double hz = (double)sysconf(_SC_CLK_TCK);

	if (!f)
		return 0;
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
	           &v[4], &v[5], &v[6], &v[7]) != 8) {
		fclose(f);
		return 0;
	}
	fclose(f);
	/* user nice system (idle iowait) irq softirq steal */
	return (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / hz;
}

/* Busy CPU of the machine over o->idle_s seconds under tracer mode m (a
 * fraction of one core), and the tracer's own CPU while tracing. */
static bool idle_under(const struct overhead_opts *o, enum mode m, double *busy, double *self,
                       double *prog)
{
	pid_t tracer = start_tracer(o, m);

	if (tracer < 0) {
		fprintf(stderr, "bench overhead: %s did not start\n", mode_names[m]);
		return false;
	}
	sleep(1); /* past start-up: the tracer's first /proc walk, its threads */
	struct prog_meter p0, p1;
	if (o->prog_stats)
		prog_stats_by_name(&p0);
	double c0 = sched_cpu_seconds(tracer), b0 = busy_seconds(), t0 = now_s();
	sleep(o->idle_s);
	double wall = now_s() - t0;
	*busy = (busy_seconds() - b0) / wall;
	*self = (sched_cpu_seconds(tracer) - c0) / wall;
	*prog = 0;
	if (o->prog_stats) {
		prog_stats_by_name(&p1);
		*prog = (p1.ns - p0.ns) / 1e9 / wall;
	}
	stop_tracer(tracer);
	return true;
}

static void idle_cost(const struct overhead_opts *o)
{
	static const enum mode modes[] = {MODE_START, MODE_RECORD};
	double b0 = busy_seconds(), t0 = now_s();

	sleep(o->idle_s);
	double base = (busy_seconds() - b0) / (now_s() - t0);
	printf("idle machine, %u s each:\n", o->idle_s);
	printf("  busy CPU without argus     %6.2f %% of one core\n", base * 100);
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		double busy, self, prog;

		if (!idle_under(o, modes[i], &busy, &self, &prog))
			continue;
		printf("  busy CPU, %-16s %6.2f %% of one core (difference %+.2f %%); its own "
		       "process %.2f %%",
		       mode_names[modes[i]], busy * 100, (busy - base) * 100, self * 100);
		if (o->prog_stats)
			printf("; its BPF programs %.3f %%", prog * 100);
		putchar('\n');
	}
	printf("  (its own process: user space, all threads; the BPF programs run in the\n"
	       "  traced tasks and count in busy CPU)\n");
}

/* The meter's rows: the argus rows' programs in the process CMD named, as
 * a share of its CPU when CMD prints it as metric NAME_cpu. */
static void print_meter(const struct overhead_opts *o, struct prog_meter *meters[],
                        double *metric[][MAX_METRICS], const struct metric_names *names)
{
	const char *task = meters[MODE_START][0].task;
	char cpu_name[40];
	const double *cpu[MODE_COUNT] = {NULL};

	if (!*task) {
		printf("--meter: the command named no process (a line \"pid NAME PID\")\n");
		return;
	}
	snprintf(cpu_name, sizeof(cpu_name), "%s_cpu", task);
	for (unsigned k = 0; k < names->n; k++)
		if (!strcmp(names->name[k], cpu_name))
			for (int m = 0; m < MODE_COUNT; m++)
				cpu[m] = metric[m][k];
	printf("median time of the tracing programs in the command's %s (pid line), by the "
	       "meter; then each program's mean a round, ms (a run):\n",
	       task);
	for (int m = 0; m < MODE_COUNT; m++)
		if (mode_on(o, (enum mode)m) && m != MODE_NONE && m != MODE_PERF &&
		    m != MODE_PERF_SYS && m != MODE_FLOOR)
			prog_meter_print(mode_names[m], meters[m], o->rounds, cpu[m]);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: argus bench overhead [--rounds N] [--idle S] [--floor] [--syscalls]\n"
	           "                            [--argus PATH] [--argus-opt OPTION] [--metrics]\n"
	           "                            [--prog-stats] [--meter]\n"
	           "                            [--desktop | -- CMD ARGS]\n"
	           "Runs CMD untraced, under the argus daemon (argus start), under argus record\n"
	           "--all (both with OPTION added), under perf record of sched_switch +\n"
	           "sched_waking and under perf record of those and raw_syscalls enter / exit,\n"
	           "alternating, N rounds each (default 5), and prints median wall times, CPU\n"
	           "times and ratios. --syscalls: also argus start and record with per-call\n"
	           "capture (--syscalls). --idle S: busy CPU of the machine over S seconds\n"
	           "without argus, under argus start and under argus record, and argus's own\n"
	           "CPU. --floor: also under an empty program on the syscall exit tracepoint,\n"
	           "what any syscall tracer pays on this kernel. --metrics: CMD prints lines\n"
	           "\"metric NAME VALUE\" on stdout; their medians are printed per row too.\n"
	           "--desktop: CMD is a GTK3 app (gedit) used by a scripted user while a C\n"
	           "build runs (bench/desktop/desktop.sh), with its metrics: the app's CPU\n"
	           "time, the build's wall and CPU time. --prog-stats: the kernel's BPF\n"
	           "run-time statistics on (two clock reads more per program run), and the\n"
	           "time the tracing programs ran is printed per row, and for --idle.\n"
	           "--meter: argus rows run with --meter, and the programs' time in the\n"
	           "process CMD names on stdout (a line \"pid NAME PID\") is printed per\n"
	           "row, as a share of its CPU when CMD prints metric NAME_cpu.\n"
	           "Needs root and perf.\n");
}

int argus_bench_overhead(int argc, char **argv)
{
	struct overhead_opts o = {.rounds = 5};
	double *times[MODE_COUNT], *cmd_cpu[MODE_COUNT], *tracer_cpu[MODE_COUNT];
	double *kept[MODE_COUNT], *lost[MODE_COUNT], *shed[MODE_COUNT];
	bool counted[MODE_COUNT] = {false};
	double *metric[MODE_COUNT][MAX_METRICS];
	struct metric_names names = {0};
	static char desktop_script[4200];
	char *desktop_cmd[] = {"sh", desktop_script, NULL};

	snprintf(desktop_script, sizeof(desktop_script), "%s/desktop.sh", ARGUS_DESKTOP_SRC_DIR);

	o.argus = getenv("ARGUS_BIN");
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
			o.rounds = (unsigned)strtoul(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--idle") && i + 1 < argc) {
			o.idle_s = (unsigned)strtoul(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--floor")) {
			o.floor = true;
		} else if (!strcmp(argv[i], "--syscalls")) {
			o.syscalls = true;
		} else if (!strcmp(argv[i], "--prog-stats")) {
			o.prog_stats = true;
		} else if (!strcmp(argv[i], "--meter")) {
			o.meter = true;
		} else if (!strcmp(argv[i], "--metrics")) {
			o.metrics = true;
		} else if (!strcmp(argv[i], "--desktop")) {
			o.metrics = true;
			o.cmd = desktop_cmd;
		} else if (!strcmp(argv[i], "--argus") && i + 1 < argc) {
			o.argus = argv[++i];
		} else if (!strcmp(argv[i], "--argus-opt") && i + 1 < argc) {
			o.argus_opt = argv[++i];
		} else if (!strcmp(argv[i], "--")) {
			o.cmd = i + 1 < argc ? &argv[i + 1] : NULL;
			break;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if ((!o.cmd && !o.idle_s) || o.rounds < 1 || o.rounds > 1000) {
		usage(stderr);
		return 2;
	}
	static char self[4096];
	if (!o.argus) {
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

		self[n > 0 ? n : 0] = 0;
		o.argus = self;
	}
	snprintf(o.tmpdir, sizeof(o.tmpdir), "/tmp/argus-bench-%d", (int)getpid());
	if (mkdir(o.tmpdir, 0700) && errno != EEXIST) {
		fprintf(stderr, "bench overhead: %s: %s\n", o.tmpdir, strerror(errno));
		return 6;
	}
	int rc = 0, stats_fd = -1;
	if (o.prog_stats && (stats_fd = prog_stats_on()) < 0) {
		fprintf(stderr,
		        "bench overhead: --prog-stats: the kernel refused BPF run-time "
		        "statistics (BPF_ENABLE_STATS): %s\n",
		        strerror(-stats_fd));
		nftw(o.tmpdir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
		return 5;
	}
	double *prog_s[MODE_COUNT], *prog_runs[MODE_COUNT];
	struct prog_meter *meters[MODE_COUNT], *progs[MODE_COUNT];
	if (o.cmd) {
		for (int m = 0; m < MODE_COUNT; m++) {
			times[m] = calloc(o.rounds, sizeof(double));
			cmd_cpu[m] = calloc(o.rounds, sizeof(double));
			tracer_cpu[m] = calloc(o.rounds, sizeof(double));
			kept[m] = calloc(o.rounds, sizeof(double));
			lost[m] = calloc(o.rounds, sizeof(double));
			shed[m] = calloc(o.rounds, sizeof(double));
			prog_s[m] = calloc(o.rounds, sizeof(double));
			prog_runs[m] = calloc(o.rounds, sizeof(double));
			meters[m] = calloc(o.rounds, sizeof(struct prog_meter));
			progs[m] = calloc(o.rounds, sizeof(struct prog_meter));
			for (int k = 0; k < MAX_METRICS; k++)
				metric[m][k] = calloc(o.rounds, sizeof(double));
		}
		for (unsigned r = 0; r < o.rounds && !rc; r++) {
			for (int m = 0; m < MODE_COUNT; m++) {
				if (!mode_on(&o, (enum mode)m))
					continue;
				struct run_cost c = run_once(&o, (enum mode)m, &names);

				for (int k = 0; k < MAX_METRICS; k++)
					metric[m][k][r] = c.metric[k];
				times[m][r] = c.wall;
				cmd_cpu[m][r] = c.cmd_cpu;
				tracer_cpu[m][r] = c.tracer_cpu;
				kept[m][r] = c.kept;
				lost[m][r] = c.lost;
				shed[m][r] = c.shed;
				counted[m] |= c.counted;
				prog_s[m][r] = c.prog_s;
				prog_runs[m][r] = c.prog_runs;
				meters[m][r] = c.meter;
				progs[m][r] = c.progs;
				/* each run as it ends: a long bench stopped early keeps them */
				fprintf(stderr, "round %u %-20s wall %.3f s, CPU %.3f + %.3f s",
				        r + 1, mode_names[m], c.wall, c.cmd_cpu, c.tracer_cpu);
				for (unsigned k = 0; k < names.n; k++)
					fprintf(stderr, ", %s %.3f", names.name[k], c.metric[k]);
				if (c.counted)
					fprintf(stderr, ", kept %.0f, lost %.0f (shed %.0f)",
					        c.kept, c.lost, c.shed);
				fputc('\n', stderr);
				if (times[m][r] < 0) {
					fprintf(stderr, "bench overhead: round %u %s failed\n",
					        r + 1, mode_names[m]);
					rc = 1;
					break;
				}
			}
		}
		if (!rc) {
			printf("command:");
			for (char **a = o.cmd; *a; a++)
				printf(" %s", *a);
			printf("\nrounds: %u each, alternating; median wall time:\n", o.rounds);
			double base = median_of(times[MODE_NONE], o.rounds);
			for (int m = 0; m < MODE_COUNT; m++) {
				if (!mode_on(&o, (enum mode)m))
					continue;
				double med = median_of(times[m], o.rounds);

				printf("  %-20s %9.3f s   x%.3f (%+.1f %%)\n", mode_names[m], med,
				       med / base, (med / base - 1) * 100);
			}
			double peer = median_of(times[MODE_PERF], o.rounds);
			printf(
			    "  argus start - perf sched: %+.1f points; argus record - perf sched: "
			    "%+.1f points\n",
			    (median_of(times[MODE_START], o.rounds) - peer) / base * 100,
			    (median_of(times[MODE_RECORD], o.rounds) - peer) / base * 100);
			printf(
			    "median CPU time while the command ran (command / tracer process):\n");
			double cbase = median_of(cmd_cpu[MODE_NONE], o.rounds);
			for (int m = 0; m < MODE_COUNT; m++) {
				if (!mode_on(&o, (enum mode)m))
					continue;
				double cc = median_of(cmd_cpu[m], o.rounds);
				double tc = median_of(tracer_cpu[m], o.rounds);

				printf("  %-20s %9.3f s + %6.3f s   x%.3f (%+.1f %%)\n",
				       mode_names[m], cc, tc, (cc + tc) / cbase,
				       ((cc + tc) / cbase - 1) * 100);
			}
			printf("records each tracer kept and lost, median a round (argus: its "
			       "records and the kernel rings' losses, shed ones among them; "
			       "perf: its samples and its notices of lost records; kept 0: not "
			       "said):\n");
			for (int m = 0; m < MODE_COUNT; m++) {
				if (!mode_on(&o, (enum mode)m) || !counted[m])
					continue;
				printf("  %-20s kept %12.0f   lost %10.0f   shed %10.0f\n",
				       mode_names[m], median_of(kept[m], o.rounds),
				       median_of(lost[m], o.rounds), median_of(shed[m], o.rounds));
			}
			if (o.prog_stats) {
				printf("median time of the machine's tracing programs while the "
				       "command "
				       "ran (the kernel's BPF statistics; part of the command's "
				       "CPU):\n");
				for (int m = 0; m < MODE_COUNT; m++) {
					if (!mode_on(&o, (enum mode)m))
						continue;
					double ps = median_of(prog_s[m], o.rounds);
					double pr = median_of(prog_runs[m], o.rounds);
					double cc = median_of(cmd_cpu[m], o.rounds);

					printf("  %-20s %9.3f s   %5.2f %% of the command's CPU, "
					       "%.0f runs, "
					       "%.0f ns a run\n",
					       mode_names[m], ps, cc > 0 ? ps / cc * 100 : 0, pr,
					       pr > 0 ? ps * 1e9 / pr : 0);
				}
				printf("the same, per program (the median; then each program's "
				       "mean a round, ms (a run); the statistics' own clock reads "
				       "are inside every run):\n");
				for (int m = 0; m < MODE_COUNT; m++)
					if (mode_on(&o, (enum mode)m) && m != MODE_NONE &&
					    m != MODE_PERF && m != MODE_PERF_SYS)
						prog_meter_print(mode_names[m], progs[m], o.rounds,
						                 cmd_cpu[m]);
			}
			if (o.meter)
				print_meter(&o, meters, metric, &names);
			for (unsigned k = 0; k < names.n; k++) {
				double mb = median_of(metric[MODE_NONE][k], o.rounds);

				printf("median %s (the command's own figure):\n", names.name[k]);
				for (int m = 0; m < MODE_COUNT; m++) {
					if (!mode_on(&o, (enum mode)m))
						continue;
					double mv = median_of(metric[m][k], o.rounds);

					printf("  %-20s %9.3f     x%.3f (%+.1f %%)\n",
					       mode_names[m], mv, mb > 0 ? mv / mb : 0,
					       mb > 0 ? (mv / mb - 1) * 100 : 0);
				}
			}
		}
		for (int m = 0; m < MODE_COUNT; m++) {
			free(times[m]);
			free(cmd_cpu[m]);
			free(tracer_cpu[m]);
			free(kept[m]);
			free(lost[m]);
			free(shed[m]);
			free(prog_s[m]);
			free(prog_runs[m]);
			free(meters[m]);
			free(progs[m]);
			for (int k = 0; k < MAX_METRICS; k++)
				free(metric[m][k]);
		}
	}
	if (!rc && o.idle_s)
		idle_cost(&o);
	if (stats_fd >= 0)
		close(stats_fd);
	nftw(o.tmpdir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	return rc;
}
