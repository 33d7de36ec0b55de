/*
 * argus bench ingest: build the graph window from a synthetic desktop trace.
 *
 * argus synth streams its records straight into the graph (nothing on
 * disk); only the time inside argus_graph_ingest counts, so the figure is
 * the graph alone on one core. Records go in batches of 64; each batch is
 * timed, which gives the per-event latency distribution (batch time / 64,
 * eviction included where it happens; wall clock, so preemption on a busy
 * machine shows in the max: the CPU-time figures leave it out). Bytes per event held = the window's
 * memory (vertices, edges, tables, stacks) / events in the window.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench.h"
#include "cmdline.h"
#include "graph.h"
#include "synth.h"

#define BATCH 64

struct ingest_run {
	struct argus_graph *g;
	struct argus_sink graph;
	uint64_t ns;   /* inside argus_graph_ingest */
	uint32_t *lat; /* per batch, ns (wall clock: preemption included) */
	uint32_t *cpu; /* per batch, ns of this thread's CPU time */
	size_t nlat, caplat;
	int failed;
};

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int run_events(void *arg, const struct argus_event *ev, size_t n)
{
	struct ingest_run *r = arg;
	for (size_t i = 0; i < n; i += BATCH) {
		size_t k = n - i < BATCH ? n - i : BATCH;
		/* the CPU clock is a system call: read it outside the wall-clock span */
		uint64_t c = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		uint64_t t = clock_ns(CLOCK_MONOTONIC);
		if (argus_graph_ingest(r->g, ev + i, k) < 0)
			r->failed = 1;
		uint64_t d = clock_ns(CLOCK_MONOTONIC) - t;
		c = clock_ns(CLOCK_THREAD_CPUTIME_ID) - c;
		r->ns += d;
		if (k == BATCH && r->nlat < r->caplat) {
			r->cpu[r->nlat] = c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
			r->lat[r->nlat++] = d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
		}
	}
	return 0;
}

static uint32_t run_stack(void *arg, const uint64_t *ips, uint32_t depth)
{
	struct ingest_run *r = arg;
	return r->graph.intern_stack(r->graph.arg, ips, depth);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: argus bench ingest [--events N] [--seed N] [--apps N] "
	             "[--window DUR] [--cap SIZE]\n"
	             "  defaults: 20000000 events, seed 1, 4 apps, window 5m, cap 1G\n");
}

int argus_bench_ingest(int argc, char **argv)
{
	struct argus_synth_opts so;
	argus_synth_opts_default(&so);
	so.events = 20000000;
	struct argus_graph_opts go;
	argus_graph_opts_default(&go);
	static const struct option longopts[] = {{"events", required_argument, NULL, 'n'},
	                                         {"seed", required_argument, NULL, 's'},
	                                         {"apps", required_argument, NULL, 'a'},
	                                         {"window", required_argument, NULL, 'w'},
	                                         {"cap", required_argument, NULL, 'c'},
	                                         {"help", no_argument, NULL, 'h'},
	                                         {NULL, 0, NULL, 0}};
	optind = 1;
	for (int c; (c = getopt_long(argc, argv, "n:s:a:w:c:h", longopts, NULL)) != -1;) {
		uint64_t v;
		switch (c) {
		case 'n':
			if (!cli_parse_u64(optarg, ARGUS_SYNTH_MIN_EVENTS, ARGUS_SYNTH_MAX_EVENTS,
			                   &so.events))
				goto bad;
			break;
		case 's':
			if (!cli_parse_u64(optarg, 0, UINT64_MAX, &so.seed))
				goto bad;
			break;
		case 'a':
			if (!cli_parse_u64(optarg, 1, ARGUS_SYNTH_MAX_APPS, &v))
				goto bad;
			so.apps = (uint32_t)v;
			break;
		case 'w':
			if (!cli_parse_duration(optarg, &go.window_ns) || !go.window_ns)
				goto bad;
			break;
		case 'c':
			if (!cli_parse_size(optarg, &go.mem_cap) || !go.mem_cap)
				goto bad;
			break;
		case 'h':
			usage(stdout);
			return ARGUS_EXIT_OK;
		default:
			usage(stderr);
			return ARGUS_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		cli_error("bench ingest", "unexpected argument '%s'", argv[optind]);
		return ARGUS_EXIT_USAGE;
	}

	struct ingest_run r = {0};
	if (argus_graph_new(&r.g, &go) < 0)
		return ARGUS_EXIT_INTERNAL;
	r.graph = argus_graph_sink(r.g);
	r.caplat = so.events / BATCH + 1;
	r.lat = malloc(r.caplat * sizeof(*r.lat));
	r.cpu = malloc(r.caplat * sizeof(*r.cpu));
	if (!r.lat || !r.cpu) {
		free(r.lat);
		free(r.cpu);
		argus_graph_free(r.g);
		return ARGUS_EXIT_INTERNAL;
	}
	struct argus_sink sink = {.events = run_events, .intern_stack = run_stack, .arg = &r};
	struct argus_synth_stats ss;
	uint64_t wall = clock_ns(CLOCK_MONOTONIC);
	int rc = argus_synth_run(&so, &sink, &ss);
	wall = clock_ns(CLOCK_MONOTONIC) - wall;
	argus_graph_flush(r.g);
	if (rc != ARGUS_SYNTH_OK || r.failed) {
		cli_error("bench ingest", "%s", rc ? "synth failed" : "ingest ran out of memory");
		free(r.lat);
		free(r.cpu);
		argus_graph_free(r.g);
		return ARGUS_EXIT_INTERNAL;
	}
	struct argus_graph_stats st;
	argus_graph_get_stats(r.g, &st);
	qsort(r.lat, r.nlat, sizeof(*r.lat), cmp_u32);
	double p50 = r.nlat ? r.lat[r.nlat / 2] / (double)BATCH : 0;
	double p99 = r.nlat ? r.lat[r.nlat * 99 / 100] / (double)BATCH : 0;
	double pmax = r.nlat ? r.lat[r.nlat - 1] : 0;
	qsort(r.cpu, r.nlat, sizeof(*r.cpu), cmp_u32);
	double c99 = r.nlat ? r.cpu[r.nlat * 99 / 100] / (double)BATCH : 0;
	double cmax = r.nlat ? r.cpu[r.nlat - 1] : 0;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);

	printf("argus bench ingest --events %" PRIu64 " --seed %" PRIu64 " --apps %u"
	       " --window %.0fs --cap %" PRIu64 "\n",
	       so.events, so.seed, so.apps ? so.apps : 4, go.window_ns / 1e9, go.mem_cap);
	printf("input: argus_synth, %" PRIu64 " events over %.1f s of trace, %u threads\n",
	       ss.events, (ss.last_ts - ss.first_ts) / 1e9, ss.threads);
	printf("ingest_events_per_s %.0f\n", st.events / (r.ns / 1e9));
	printf("ingest_ns_per_event %.1f\n", (double)r.ns / (double)st.events);
	printf("latency_ns_per_event_p50 %.1f\n", p50);
	printf("latency_ns_per_event_p99 %.1f\n", p99);
	printf("latency_ns_max_batch_of_%d %.0f\n", BATCH, pmax);
	printf("cpu_ns_per_event_p99 %.1f\n", c99);
	printf("cpu_ns_max_batch_of_%d %.0f\n", BATCH, cmax);
	printf("bytes_per_event_held %.1f\n",
	       st.events_held ? (double)st.bytes_held / (double)st.events_held : 0.0);
	printf("events_held %" PRIu64 "\n", st.events_held);
	printf("bytes_held %" PRIu64 "\n", st.bytes_held);
	printf("vertices_held %" PRIu64 "\n", st.vertices_held);
	printf("edges_held %" PRIu64 "\n", st.edges_held);
	printf("slices_evicted %" PRIu64 "\n", st.slices_evicted);
	printf("evict_ns_total %" PRIu64 "\n", st.evict_ns);
	printf("evict_ns_max %" PRIu64 "\n", st.evict_max_ns);
	printf("evict_ns_per_slice %.0f\n",
	       st.slices_evicted ? (double)st.evict_ns / (double)st.slices_evicted : 0.0);
	printf("window_held_s %.1f\n", st.window_held_ns / 1e9);
	printf("window_shortened %d\n", st.window_shortened);
	printf("wall_s_with_synth %.2f\n", wall / 1e9);
	printf("max_rss_bytes %ld\n", ru.ru_maxrss * 1024L);
	printf("-- graph (paper Table 5 figures) --\n");
	argus_graph_print_stats(&st, stdout);
	free(r.lat);
	free(r.cpu);
	argus_graph_free(r.g);
	return ARGUS_EXIT_OK;
bad:
	cli_error("bench ingest", "bad value '%s'", optarg);
	return ARGUS_EXIT_USAGE;
}
