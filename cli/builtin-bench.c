/* argus bench [NAME [ARGS]]: run one benchmark, or the short form of all. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../bench/bench.h"
#include "cli.h"

#define QUICK_ARGS_MAX 16

/* Each benchmark with the arguments of its short form (`argus bench`). */
static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
	const char *const quick[QUICK_ARGS_MAX];
} benches[] = {
    {"io", argus_bench_io, "write and read a synthetic trace: events/s, bytes/event", {"--quick"}},
    {"stream",
     argus_bench_stream,
     "merge alone and merge + JSON encoding: events/s, one core",
     {"--events", "2000000"}},
    {"ingest",
     argus_bench_ingest,
     "graph ingest: events/s, bytes per event held",
     {"--events", "2000000"}},
    {"overhead",
     argus_bench_overhead,
     "a workload untraced / under argus / under perf record",
     {"--rounds", "5", "--", "taskset", "-c", "1", "perf", "bench", "sched", "pipe", "-l",
      "50000"}},
    {"hooks",
     argus_bench_hooks,
     "ns per hooked call; a GTK3 workload with hooks on vs off",
     {"--iters", "2000000"}},
    {"diagnose",
     argus_bench_diagnose,
     "stall detection to report (1/5/20 M events); beam search",
     {"--quick"}},
    {"zoo",
     argus_bench_zoo,
     "the bug zoo live: argus vs baselines (Table 4), s to notification",
     {"--quick"}},
    {"realapps",
     argus_bench_realapps,
     "unmodified apps' real hangs live: process, thread, function",
     {"--quick", "--no-baselines"}},
    {"storm",
     argus_bench_storm,
     "the daemon under a storm: offered / recorded / lost per stage, peak RSS",
     {"--seconds", "10"}},
    {"quiet",
     argus_bench_quiet,
     "false alarms: notifications over ordinary use of real apps, no hang",
     {"--minutes", "0.5"}},
};

#define NBENCH (sizeof(benches) / sizeof(benches[0]))

static void usage(FILE *f)
{
	fprintf(f, "usage: argus bench [NAME [ARGS]]\n\n"
	           "With no NAME, runs the short form of every benchmark (shown as it runs),\n"
	           "then a summary of them.\n"
	           "`argus bench NAME --help` describes one. Benchmarks:\n");
	for (size_t i = 0; i < NBENCH; i++)
		fprintf(f, "  %-8s %s\n", benches[i].name, benches[i].summary);
}

static int run_quick(size_t i)
{
	char *args[QUICK_ARGS_MAX + 2] = {(char *)benches[i].name};
	int n = 1;
	printf("== argus bench %s", benches[i].name);
	for (const char *const *a = benches[i].quick; *a && n <= QUICK_ARGS_MAX; a++) {
		args[n++] = (char *)*a;
		printf(" %s", *a);
	}
	printf(" ==\n");
	fflush(stdout);
	int rc = benches[i].fn(n, args);
	fflush(stdout);
	return rc;
}

static double mono_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* How a short form ended, for the summary. */
static const char *outcome(int rc)
{
	switch (rc) {
	case ARGUS_EXIT_OK:
		return "ok";
	case ARGUS_EXIT_PRIV:
		return "skipped: needs root";
	case ARGUS_EXIT_NOSUPPORT:
		return "skipped: cannot run here";
	case ARGUS_EXIT_FAIL:
		return "FAILED";
	default:
		return "ERROR";
	}
}

/* Every short form, then one summary; the worst failure is the exit status
 * (a benchmark that cannot run here is skipped, not failed). */
static int run_all(void)
{
	int rcs[NBENCH], worst = ARGUS_EXIT_OK;
	double secs[NBENCH];
	for (size_t i = 0; i < NBENCH; i++) {
		double t0 = mono_s();
		rcs[i] = run_quick(i);
		secs[i] = mono_s() - t0;
		printf("\n");
		if (rcs[i] != ARGUS_EXIT_OK && rcs[i] != ARGUS_EXIT_PRIV &&
		    rcs[i] != ARGUS_EXIT_NOSUPPORT && worst != ARGUS_EXIT_FAIL)
			worst = rcs[i] == ARGUS_EXIT_FAIL ? ARGUS_EXIT_FAIL : rcs[i];
	}
	printf("== summary ==\n");
	for (size_t i = 0; i < NBENCH; i++) {
		printf("  %-8s %6.1f s  %-26s argus bench %s", benches[i].name, secs[i],
		       outcome(rcs[i]), benches[i].name);
		for (const char *const *a = benches[i].quick; *a; a++)
			printf(" %s", *a);
		if (rcs[i] != ARGUS_EXIT_OK && rcs[i] != ARGUS_EXIT_FAIL &&
		    rcs[i] != ARGUS_EXIT_PRIV && rcs[i] != ARGUS_EXIT_NOSUPPORT)
			printf("  (exit %d)", rcs[i]);
		printf("\n");
	}
	return worst;
}

int cmd_bench(int argc, char **argv)
{
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return ARGUS_EXIT_OK;
	}
	if (argc < 2)
		return run_all();
	for (size_t i = 0; i < NBENCH; i++)
		if (!strcmp(argv[1], benches[i].name))
			return benches[i].fn(argc - 1, argv + 1);
	cli_error("bench", "unknown benchmark '%s' (see argus bench --help)", argv[1]);
	return ARGUS_EXIT_USAGE;
}
