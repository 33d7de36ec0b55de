/*
 * bench_overhead.c - `argus bench overhead [--rounds N] [--idle S] -- CMD`:
 * what tracing costs a workload. CMD runs alternately with no tracing, under
 * `argus record --all`, and under `perf record -a -e sched:sched_switch
 * -e sched:sched_waking` (the peer), N rounds each (default 5); medians of
 * wall time and the ratios to the untraced run are printed, and the CPU
 * time the command and the tracer used while it ran (on a machine shared
 * with other work, wall time follows what the others do; CPU time much
 * less). The tracer's CPU time covers its process only: BPF programs and
 * perf's in-kernel event output run in the traced tasks and count in the
 * command's CPU time. --idle S also
 * measures what an idle machine pays: busy CPU time (/proc/stat) over S
 * seconds with and without argus recording. --floor adds a fourth mode: an
 * empty program on the syscall exit tracepoint (syscall_floor.bpf.c), the
 * part of the cost that any syscall tracer pays on this kernel.
 */
#include <errno.h>
#include <fcntl.h>
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
#include "syscall_floor.skel.h"

enum mode { MODE_NONE, MODE_ARGUS, MODE_PERF, MODE_FLOOR, MODE_COUNT };
static const char *const mode_names[] = {"untraced", "argus record", "perf record",
                                         "empty sys_exit"};

struct overhead_opts {
	unsigned rounds;
	unsigned idle_s;
	const char *argus;
	const char *argus_opt; /* one extra option for argus record, e.g. --no-recv-enter */
	bool floor;            /* also run MODE_FLOOR */
	char **cmd;
	char tmpdir[64];
};

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
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

/* CPU time of a process's main thread in seconds (ns resolution, unlike
 * /proc/PID/stat's ticks); 0 when it cannot be read. */
static double sched_cpu_seconds(pid_t pid)
{
	char path[64];
	unsigned long long ns = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &ns) != 1)
		ns = 0;
	fclose(f);
	return (double)ns / 1e9;
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

/* Start a tracer and return once it traces (argus: --ready-fd; perf: it
 * says nothing, so a settle delay). */
static pid_t start_tracer(const struct overhead_opts *o, enum mode m)
{
	char path[128], fdarg[16];

	if (m == MODE_FLOOR)
		return start_floor();

	if (m == MODE_ARGUS) {
		int p[2];
		char buf[8];

		if (pipe(p))
			return -1;
		snprintf(path, sizeof(path), "%s/argus.argus", o->tmpdir);
		snprintf(fdarg, sizeof(fdarg), "%d", p[1]);
		char *argv[] = {(char *)o->argus, "record",     "-o",  path,
		                "--all",          "--ready-fd", fdarg, NULL};
		pid_t pid = spawn(argv, p[1], true);
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
	char *argv[] = {
	    "perf", "record", "-a", "-q", "-e", "sched:sched_switch", "-e", "sched:sched_waking",
	    "-o",   path,     NULL};
	pid_t pid = spawn(argv, -1, true);
	usleep(1500000);
	return pid;
}

static int stop_tracer(pid_t pid)
{
	kill(pid, SIGINT);
	return wait_exit(pid);
}

struct run_cost {
	double wall, cmd_cpu, tracer_cpu;
};

/* One timed run of CMD under mode m; wall < 0 on failure. */
static struct run_cost run_once(const struct overhead_opts *o, enum mode m)
{
	struct run_cost cost = {.wall = -1};
	pid_t tracer = 0;
	struct rusage ru;
	double t0, t1, c0 = 0;

	if (m != MODE_NONE) {
		tracer = start_tracer(o, m);
		if (tracer < 0)
			return cost;
		c0 = sched_cpu_seconds(tracer);
	}
	t0 = now_s();
	int rc = wait_exit_ru(spawn(o->cmd, -1, false), &ru);
	t1 = now_s();
	cost.cmd_cpu = ru_seconds(&ru);
	if (tracer > 0)
		cost.tracer_cpu = sched_cpu_seconds(tracer) - c0;
	if (tracer > 0 && stop_tracer(tracer) != 0 && m != MODE_PERF)
		fprintf(stderr, "bench overhead: %s did not stop cleanly\n", mode_names[m]);
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

/* utime + stime of a process in seconds, from /proc/PID/stat. */
static double proc_cpu_seconds(pid_t pid)
{
	char path[64], buf[1024];
	unsigned long long ut = 0, st = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')'); /* the name may hold spaces */
	if (!p ||
	    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return 0;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static void idle_cost(const struct overhead_opts *o)
{
	double b0 = busy_seconds(), t0 = now_s();

	sleep(o->idle_s);
	double base = (busy_seconds() - b0) / (now_s() - t0);
	pid_t tracer = start_tracer(o, MODE_ARGUS);
	if (tracer < 0) {
		fprintf(stderr, "bench overhead: argus record did not start\n");
		return;
	}
	struct rusage ru;
	double c0 = proc_cpu_seconds(tracer);
	b0 = busy_seconds();
	t0 = now_s();
	sleep(o->idle_s);
	double traced = (busy_seconds() - b0) / (now_s() - t0);
	double wall = now_s() - t0;
	double steady = proc_cpu_seconds(tracer) - c0;
	kill(tracer, SIGINT);
	int status;
	wait4(tracer, &status, 0, &ru);
	double self = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	              (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	printf("idle machine, %u s each:\n", o->idle_s);
	printf("  busy CPU without argus   %6.2f %% of one core\n", base * 100);
	printf("  busy CPU with argus      %6.2f %% of one core (difference %+.2f %%)\n",
	       traced * 100, (traced - base) * 100);
	printf("  argus process, tracing   %6.2f %% of one core (user space; the BPF programs\n"
	       "                           run in the traced tasks and count in busy CPU)\n",
	       steady / wall * 100);
	printf("  argus process, in all    %6.2f s CPU (incl. loading and the final flush)\n",
	       self);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: argus bench overhead [--rounds N] [--idle S] [--floor] [--argus PATH]\n"
	           "                            [--argus-opt OPTION] [-- CMD ARGS]\n"
	           "Runs CMD untraced, under argus record --all (or OPTION instead of --all) and\n"
	           "under perf record of sched_switch + sched_waking, alternating, N rounds each\n"
	           "(default 5), and prints median wall times and ratios. --idle S: busy CPU of\n"
	           "the machine over S seconds without and with argus recording, and argus's own\n"
	           "CPU. --floor: also under an empty program on the syscall exit tracepoint,\n"
	           "what any syscall tracer pays on this kernel. Needs root and perf.\n");
}

int argus_bench_overhead(int argc, char **argv)
{
	struct overhead_opts o = {.rounds = 5};
	double *times[MODE_COUNT], *cmd_cpu[MODE_COUNT], *tracer_cpu[MODE_COUNT];

	o.argus = getenv("ARGUS_BIN");
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
			o.rounds = (unsigned)strtoul(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--idle") && i + 1 < argc) {
			o.idle_s = (unsigned)strtoul(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--floor")) {
			o.floor = true;
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
	int rc = 0, nmodes = o.floor ? MODE_COUNT : MODE_FLOOR;
	if (o.cmd) {
		for (int m = 0; m < MODE_COUNT; m++) {
			times[m] = calloc(o.rounds, sizeof(double));
			cmd_cpu[m] = calloc(o.rounds, sizeof(double));
			tracer_cpu[m] = calloc(o.rounds, sizeof(double));
		}
		for (unsigned r = 0; r < o.rounds && !rc; r++) {
			for (int m = 0; m < nmodes; m++) {
				struct run_cost c = run_once(&o, (enum mode)m);

				times[m][r] = c.wall;
				cmd_cpu[m][r] = c.cmd_cpu;
				tracer_cpu[m][r] = c.tracer_cpu;
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
			double base = median(times[MODE_NONE], o.rounds);
			for (int m = 0; m < nmodes; m++) {
				double med = median(times[m], o.rounds);

				printf("  %-14s %9.3f s   x%.3f (%+.1f %%)\n", mode_names[m], med,
				       med / base, (med / base - 1) * 100);
			}
			printf(
			    "median CPU time while the command ran (command / tracer process):\n");
			double cbase = median(cmd_cpu[MODE_NONE], o.rounds);
			for (int m = 0; m < nmodes; m++) {
				double cc = median(cmd_cpu[m], o.rounds);
				double tc = median(tracer_cpu[m], o.rounds);

				printf("  %-14s %9.3f s + %6.3f s   x%.3f (%+.1f %%)\n",
				       mode_names[m], cc, tc, (cc + tc) / cbase,
				       ((cc + tc) / cbase - 1) * 100);
			}
		}
		for (int m = 0; m < MODE_COUNT; m++) {
			free(times[m]);
			free(cmd_cpu[m]);
			free(tracer_cpu[m]);
		}
	}
	if (!rc && o.idle_s)
		idle_cost(&o);
	char path[128];
	snprintf(path, sizeof(path), "%s/argus.argus", o.tmpdir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/perf.data", o.tmpdir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/perf.data.old", o.tmpdir);
	unlink(path);
	rmdir(o.tmpdir);
	return rc;
}
