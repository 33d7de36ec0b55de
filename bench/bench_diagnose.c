/*
 * argus bench diagnose: how long a stall takes from detection to a finished
 * report, and beam search alone on a large graph.
 *
 * argus synth streams a desktop straight into a session fed by pushed
 * records (session/: graph + samples + trigger + diagnosis, what `argus
 * start` runs), one record at a time. The clock starts when the record that
 * fires the trigger is handed over and stops when the diagnosis' JSON and
 * text reports are written (to memory): detection to report. The window is
 * sized to hold N records (window = N / rate) and twice N are generated, so
 * the stalls of the second half are diagnosed over a full window; only
 * those count. Beam search alone: the window grows (never evicts) until it
 * holds 1.68 M vertices (the paper's largest graph), then Algorithm 1 runs
 * from every anomaly vertex the diagnoses found, several times each.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "cmdline.h"
#include "session.h"
#include "synth.h"

#define BEAM_VERTICES 1680000ull /* the paper's largest graph */
#define CPU_EVERY     256
#define SPREAD        1000 /* start vertices spread over the window */

struct dx_run {
	struct argus_session *dx;
	struct argus_sink inner;
	uint64_t t_rec; /* when the current record was handed over */
	uint64_t c_rec; /* this thread's CPU time at most CPU_EVERY records before */
	uint64_t nrec;
	uint64_t min_held;      /* a diagnosis counts when the window holds this many */
	uint64_t stop_vertices; /* stop feeding once the window holds this many (0 = never) */
	bool stopped;
	uint64_t fed;
	uint64_t *lat, *cpu, *diag, *held; /* per counted diagnosis: ns, ns, ns, events */
	size_t nlat, caplat;
	uint64_t diagnoses;
	argus_vid anomaly[256];
	size_t nanomaly;
	int failed;
};

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static void on_diagnosis(void *arg, const struct argus_diagnosis *d)
{
	struct dx_run *r = arg;
	struct argus_report_ctx ctx = {argus_session_comm, r->dx, 0, argus_session_thread_comm,
	                               NULL};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f) {
		r->failed = 1;
		return;
	}
	argus_report_json(d, &ctx, f);
	argus_report_text(d, &ctx, f);
	fclose(f);
	uint64_t done = mono_ns(), cdone = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	free(buf);
	r->diagnoses++;
	if (d->anomaly && r->nanomaly < sizeof(r->anomaly) / sizeof(r->anomaly[0]))
		r->anomaly[r->nanomaly++] = d->anomaly;
	struct argus_graph_stats gs;
	argus_graph_get_stats(argus_session_graph(r->dx), &gs);
	if (gs.events_held < r->min_held)
		return;
	if (r->nlat == r->caplat) {
		size_t nc = r->caplat ? r->caplat * 2 : 64;
		uint64_t *a = realloc(r->lat, nc * sizeof(*a)), *b, *c, *u;
		if (a)
			r->lat = a;
		u = realloc(r->cpu, nc * sizeof(*u));
		if (u)
			r->cpu = u;
		b = realloc(r->diag, nc * sizeof(*b));
		if (b)
			r->diag = b;
		c = realloc(r->held, nc * sizeof(*c));
		if (c)
			r->held = c;
		if (!a || !b || !c || !u) {
			r->failed = 1;
			return;
		}
		r->caplat = nc;
	}
	r->lat[r->nlat] = done - r->t_rec;
	r->cpu[r->nlat] = cdone - r->c_rec;
	r->diag[r->nlat] = d->diagnose_ns;
	r->held[r->nlat++] = gs.events_held;
}

static int run_events(void *arg, const struct argus_event *ev, size_t n)
{
	struct dx_run *r = arg;
	for (size_t i = 0; i < n && !r->stopped; i++) {
		/* The CPU clock is a system call (about 1 us): read it every
		 * CPU_EVERY records, so the CPU figure also counts the ingest of
		 * up to that many records before the one that fired (~0.1 ms). */
		if (!(r->nrec++ % CPU_EVERY))
			r->c_rec = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		r->t_rec = mono_ns();
		if (r->inner.events(r->inner.arg, &ev[i], 1))
			return -1;
		if (r->stop_vertices && !(++r->fed & 4095)) {
			struct argus_graph_stats gs;
			argus_graph_get_stats(argus_session_graph(r->dx), &gs);
			r->stopped = gs.vertices_held >= r->stop_vertices;
		}
	}
	return r->failed ? -1 : 0;
}

static uint32_t run_string(void *arg, const char *s, size_t len)
{
	struct dx_run *r = arg;
	return r->inner.intern_string ? r->inner.intern_string(r->inner.arg, s, len) : 0;
}

static uint32_t run_stack(void *arg, const uint64_t *ips, uint32_t depth)
{
	struct dx_run *r = arg;
	return r->inner.intern_stack ? r->inner.intern_stack(r->inner.arg, ips, depth) : 0;
}

static int run_map(void *arg, const struct argus_map *m)
{
	struct dx_run *r = arg;
	return r->inner.map ? r->inner.map(r->inner.arg, m) : 0;
}

static int run_build_id(void *arg, const struct argus_build_id *b)
{
	struct dx_run *r = arg;
	return r->inner.build_id ? r->inner.build_id(r->inner.arg, b) : 0;
}

static int run_symbol(void *arg, const struct argus_symbol *s)
{
	struct dx_run *r = arg;
	return r->inner.symbol ? r->inner.symbol(r->inner.arg, s) : 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[n / 2];
}

static uint64_t maximum(const uint64_t *v, size_t n)
{
	uint64_t m = 0;
	for (size_t i = 0; i < n; i++)
		m = v[i] > m ? v[i] : m;
	return m;
}

/* Feed events records of a synthetic desktop through a session whose
 * window is window_ns. r is set up here; the caller frees r->dx. */
static int feed(struct dx_run *r, uint64_t events, uint64_t window_ns, uint64_t seed, uint32_t rate)
{
	struct argus_session_opts o;
	argus_session_opts_default(&o);
	o.graph.window_ns = window_ns;
	o.graph.mem_cap = 8ull << 30; /* the window, not the cap, bounds what is held */
	struct argus_session_sink k = {.diagnosis = on_diagnosis, .arg = r};
	if (argus_session_new(&r->dx, &o) || argus_session_add_sink(r->dx, &k)) {
		fprintf(stderr, "argus bench diagnose: out of memory\n");
		return ARGUS_EXIT_INTERNAL;
	}
	r->inner = argus_session_sink(r->dx);
	struct argus_sink s = {run_events,   run_string, run_stack, run_map,
	                       run_build_id, run_symbol, NULL,      r};
	struct argus_synth_opts so;
	argus_synth_opts_default(&so);
	so.events = events;
	so.seed = seed;
	so.rate = rate;
	const char *why = argus_synth_opts_check(&so);
	if (why) {
		fprintf(stderr, "argus bench diagnose: %s\n", why);
		return ARGUS_EXIT_USAGE;
	}
	int rc = argus_synth_run(&so, &s, NULL);
	if (rc || r->failed) {
		fprintf(stderr, "argus bench diagnose: the run failed (%d)\n", rc);
		return ARGUS_EXIT_INTERNAL;
	}
	return ARGUS_EXIT_OK;
}

static void run_free(struct dx_run *r)
{
	argus_session_free(r->dx);
	free(r->lat);
	free(r->cpu);
	free(r->diag);
	free(r->held);
}

static int bench_window(uint64_t n, uint64_t seed, uint32_t rate)
{
	struct dx_run r = {.min_held = n * 9 / 10};
	uint64_t window_ns = n * 1000000000ull / rate;
	uint64_t t0 = mono_ns();
	int rc = feed(&r, 2 * n, window_ns, seed, rate);
	double wall = (mono_ns() - t0) / 1e9;
	if (!rc) {
		uint64_t held = median(r.held, r.nlat), dmed;
		uint64_t lmax = maximum(r.lat, r.nlat), dmax = maximum(r.diag, r.nlat);
		uint64_t lmed = median(r.lat, r.nlat);
		dmed = median(r.diag, r.nlat);
		uint64_t cmax = maximum(r.cpu, r.nlat), cmed = median(r.cpu, r.nlat);
		printf("window %5.1f M events (%.0f s at %u/s): %zu stalls over a full window"
		       " (of %" PRIu64 "), median %.2f M events held\n",
		       n / 1e6, window_ns / 1e9, rate, r.nlat, r.diagnoses, held / 1e6);
		printf("  detection_to_report_ms  median %8.2f  max %8.2f\n", lmed / 1e6,
		       lmax / 1e6);
		printf("  detection_to_report_cpu_ms median %5.2f  max %8.2f  (this thread's CPU"
		       " time: preemption left out)\n",
		       cmed / 1e6, cmax / 1e6);
		printf("  diagnosis_alone_ms      median %8.2f  max %8.2f\n", dmed / 1e6,
		       dmax / 1e6);
		printf("  (run: %.1f s wall, synth + ingest + trigger + diagnoses)\n", wall);
		if (!r.nlat)
			printf("  no stall fired over a full window: use more events or a lower "
			       "--rate\n");
	}
	run_free(&r);
	return rc;
}

/* Algorithm 1 alone from the anomaly vertices of a window that holds
 * vertices (or everything events records make, when fewer). */
static int bench_beam(uint64_t vertices, uint64_t events, uint64_t seed, uint32_t rate,
                      unsigned reps)
{
	struct dx_run r = {.stop_vertices = vertices};
	int rc = feed(&r, events, 24 * 3600 * 1000000000ull, seed, rate);
	if (rc) {
		run_free(&r);
		return rc;
	}
	struct argus_graph *g = argus_session_graph(r.dx);
	struct argus_graph_stats gs;
	argus_graph_get_stats(g, &gs);
	struct argus_graph_view v;
	argus_graph_view_begin(g, &v);
	struct argus_beam_graph bg = argus_beam_graph_of_view(&v);
	struct argus_beam_params p;
	argus_beam_params_default(&p);
	struct argus_path *paths = calloc(p.width, sizeof(*paths));
	uint64_t *t = calloc(r.nanomaly * reps + 1, sizeof(*t));
	size_t nt = 0;
	uint64_t steps = 0, expanded = 0;
	for (size_t i = 0; paths && t && i < r.nanomaly; i++) {
		struct argus_vertex_info vi;
		if (!argus_graph_vertex(&v, r.anomaly[i], &vi))
			continue; /* evicted: cannot happen with this window */
		for (unsigned k = 0; k < reps; k++) {
			struct argus_beam_stats st = {0};
			uint64_t t0 = mono_ns();
			int n = argus_beam_search(&bg, r.anomaly[i], &p, paths, p.width, &st);
			t[nt++] = mono_ns() - t0;
			if (n < 0)
				rc = ARGUS_EXIT_INTERNAL;
			steps += st.steps;
			expanded += st.expanded;
		}
	}
	/* The anomaly vertices' paths are short on synthetic desktops: also
	 * search from vertices spread evenly over the whole window. */
	uint64_t *ts = calloc(SPREAD, sizeof(*ts));
	size_t nts = 0;
	uint64_t exp_spread = 0, step = gs.vertices_held / SPREAD + 1, k = 0;
	for (argus_vid id = argus_graph_next_vertex(&v, 0); ts && paths && id && nts < SPREAD;
	     id = argus_graph_next_vertex(&v, id)) {
		if (k++ % step)
			continue;
		struct argus_beam_stats st = {0};
		uint64_t t0 = mono_ns();
		if (argus_beam_search(&bg, id, &p, paths, p.width, &st) < 0)
			rc = ARGUS_EXIT_INTERNAL;
		ts[nts++] = mono_ns() - t0;
		exp_spread += st.expanded;
	}
	argus_graph_view_end(&v);
	printf("beam search alone: %.2f M vertices, %.2f M edges, %.2f M events held;"
	       " %zu searches (%zu anomaly vertices x %u)\n",
	       gs.vertices_held / 1e6, gs.edges_held / 1e6, gs.events_held / 1e6, nt,
	       nt / (reps ? reps : 1), reps);
	uint64_t tmax = maximum(t, nt);
	printf("  beam_search_us          median %8.1f  max %8.1f  (%.0f states expanded per"
	       " search)\n",
	       median(t, nt) / 1e3, tmax / 1e3, nt ? (double)expanded / nt : 0.0);
	uint64_t smax = maximum(ts, nts);
	printf("  beam_search_us (from %zu vertices spread over the window) median %8.1f  max"
	       " %8.1f  (%.0f states expanded per search)\n",
	       nts, median(ts, nts) / 1e3, smax / 1e3, nts ? (double)exp_spread / nts : 0.0);
	free(ts);
	(void)steps;
	if (!nt)
		printf("  no anomaly vertex: no stall fired\n");
	if (vertices != UINT64_MAX && gs.vertices_held < vertices)
		printf("  (the window holds fewer than %.2f M vertices: use more --beam-events)\n",
		       vertices / 1e6);
	free(paths);
	free(t);
	run_free(&r);
	return rc;
}

static void usage(FILE *out)
{
	fprintf(out,
	        "usage: argus bench diagnose [--quick] [--seed N] [--rate N] [--reps N]\n"
	        "                            [--beam-events N] [--window N]\n"
	        "  detection to finished report over windows of 1 M, 5 M and 20 M synthetic\n"
	        "  events (--quick: 1 M), and beam search alone on a window of 1.68 M vertices\n"
	        "  (--quick: the vertices 1 M events make). Defaults: seed 1, rate 30000,\n"
	        "  5 reps, 10 M beam events. --window N: only a window of N events.\n");
}

int argus_bench_diagnose(int argc, char **argv)
{
	static const struct option longopts[] = {{"quick", no_argument, NULL, 'q'},
	                                         {"seed", required_argument, NULL, 's'},
	                                         {"rate", required_argument, NULL, 'r'},
	                                         {"reps", required_argument, NULL, 'k'},
	                                         {"beam-events", required_argument, NULL, 'b'},
	                                         {"window", required_argument, NULL, 'w'},
	                                         {"help", no_argument, NULL, 'h'},
	                                         {0}};
	bool quick = false;
	uint64_t seed = 1, rate = 30000, reps = 5, beam_events = 10000000, only = 0;
	optind = 1;
	opterr = 0;
	for (int c; (c = getopt_long(argc, argv, "h", longopts, NULL)) != -1;) {
		switch (c) {
		case 'q':
			quick = true;
			break;
		case 's':
			if (!cli_parse_u64(optarg, 0, UINT64_MAX, &seed))
				goto bad;
			break;
		case 'r':
			if (!cli_parse_u64(optarg, 2000, 500000, &rate))
				goto bad;
			break;
		case 'k':
			if (!cli_parse_u64(optarg, 1, 1000, &reps))
				goto bad;
			break;
		case 'b':
			if (!cli_parse_u64(optarg, 1000, 10000000000ull, &beam_events))
				goto bad;
			break;
		case 'w':
			if (!cli_parse_u64(optarg, 1000, 1000000000, &only))
				goto bad;
			break;
		case 'h':
			usage(stdout);
			return ARGUS_EXIT_OK;
		default:
			goto bad;
		}
	}
	if (optind != argc)
		goto bad;
	if (only)
		printf("argus bench diagnose --window %" PRIu64 "\n", only);
	printf("argus bench diagnose%s --seed %" PRIu64 " --rate %" PRIu64 " --reps %" PRIu64
	       " --beam-events %" PRIu64 "\n",
	       quick ? " --quick" : "", seed, rate, reps, beam_events);
	fflush(stdout);
	static const uint64_t sizes[] = {1000000, 5000000, 20000000};
	int rc = ARGUS_EXIT_OK;
	if (only)
		return bench_window(only, seed, (uint32_t)rate);
	for (size_t i = 0; i < (quick ? 1 : 3) && !rc; i++) {
		rc = bench_window(sizes[i], seed, (uint32_t)rate);
		fflush(stdout);
	}
	if (!rc)
		rc = quick ? bench_beam(UINT64_MAX, 1000000, seed, (uint32_t)rate, (unsigned)reps)
		           : bench_beam(BEAM_VERTICES, beam_events, seed, (uint32_t)rate,
		                        (unsigned)reps);
	return rc;
bad:
	fprintf(stderr, "argus bench diagnose: bad option or value '%s'\n", argv[optind - 1]);
	usage(stderr);
	return ARGUS_EXIT_USAGE;
}
