/* argus bench [NAME [ARGS]]: run one benchmark, or the short form of all. */
#include <stdio.h>
#include <string.h>

#include "../bench/bench.h"
#include "cli.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
} benches[] = {
    {"io", argus_bench_io, "write and read a synthetic trace: events/s, bytes/event"},
    {"stream", argus_bench_stream, "merge alone and merge + JSON encoding: events/s, one core"},
    {"ingest", argus_bench_ingest, "graph ingest: events/s, bytes per event held"},
    {"overhead", argus_bench_overhead, "a workload untraced / under argus / under perf record"},
    {"hooks", argus_bench_hooks, "ns per hooked call; a GTK3 workload with hooks on vs off"},
    {"diagnose", argus_bench_diagnose, "stall detection to report (1/5/20 M events); beam search"},
};

static void usage(FILE *f)
{
	fprintf(f, "usage: argus bench [NAME [ARGS]] [--quick]\n\n"
	           "With no NAME, runs the short form (--quick) of every benchmark.\n"
	           "`argus bench NAME --help` describes one. Benchmarks:\n");
	for (size_t i = 0; i < sizeof(benches) / sizeof(benches[0]); i++)
		fprintf(f, "  %-8s %s\n", benches[i].name, benches[i].summary);
}

int cmd_bench(int argc, char **argv)
{
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return ARGUS_EXIT_OK;
	}
	if (argc < 2 || !strcmp(argv[1], "--quick")) {
		int worst = ARGUS_EXIT_OK;
		for (size_t i = 0; i < sizeof(benches) / sizeof(benches[0]); i++) {
			char *args[] = {(char *)benches[i].name, "--quick", NULL};
			printf("== argus bench %s --quick ==\n", benches[i].name);
			fflush(stdout);
			int rc = benches[i].fn(2, args);
			if (rc != ARGUS_EXIT_OK)
				worst = rc;
		}
		return worst;
	}
	for (size_t i = 0; i < sizeof(benches) / sizeof(benches[0]); i++)
		if (!strcmp(argv[1], benches[i].name))
			return benches[i].fn(argc - 1, argv + 1);
	cli_error("bench", "unknown benchmark '%s' (see argus bench --help)", argv[1]);
	return ARGUS_EXIT_USAGE;
}
