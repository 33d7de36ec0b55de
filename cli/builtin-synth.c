/*
 * builtin-synth.c - `argus synth`: write a synthetic desktop trace with
 * injected anomalies and their ground truth (docs/synth.md).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "synth.h"

static const char synth_usage[] =
    "usage: argus synth -o FILE|- [options]\n"
    "\n"
    "Write a deterministic synthetic desktop trace (.argus) with injected UI\n"
    "stalls and their ground truth. \"-o -\" writes to standard output (a pipe).\n"
    "\n"
    "options:\n"
    "  -o, --output FILE    where to write; - for standard output (not a terminal)\n"
    "  -n, --events N       exact number of records, 1000..50000000 (k, M suffixes;\n"
    "                       default 1M)\n"
    "  -s, --seed S         PRNG seed, 0..2^64-1 (default 1): same options and seed\n"
    "                       give the same bytes\n"
    "  -a, --anomalies LIST all, none, or a comma list of long_running,\n"
    "                       long_wait_chain, circular_timeout, missing_wakeup,\n"
    "                       yield_loop, decoy_idle, decoy_busy, decoys (default all)\n"
    "      --apps N         GUI applications, 1..16 (default 4)\n"
    "      --cpus N         CPUs, 1..64 (default 4)\n"
    "      --ambiguous R    share of ambiguous wake-up edges, 0..0.9 (default 0.4)\n"
    "      --rate N         desktop activity in records per second of trace time,\n"
    "                       2000..500000 (k suffix; default 30k)\n"
    "  -h, --help           this text\n"
    "\n"
    "Prints a one-line summary to standard error. Exit codes: docs/cli.md.\n";

/* A count with an optional decimal k / M / G suffix: "20M", "1500", "2.5k". */
static bool parse_count(const char *s, uint64_t *out)
{
	char *end;
	if (!s || !*s || *s == '-' || *s == '+')
		return false;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0)
		return false;
	double scale = 1;
	if (*end == 'k' || *end == 'K')
		scale = 1e3, end++;
	else if (*end == 'M')
		scale = 1e6, end++;
	else if (*end == 'G')
		scale = 1e9, end++;
	if (*end || v * scale >= 1.8e19 || v * scale != floor(v * scale))
		return false;
	*out = (uint64_t)(v * scale);
	return true;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int cmd_synth(int argc, char **argv)
{
	enum { OPT_APPS = 256, OPT_CPUS, OPT_AMB, OPT_RATE };
	static const struct option opts[] = {{"help", no_argument, NULL, 'h'},
	                                     {"output", required_argument, NULL, 'o'},
	                                     {"events", required_argument, NULL, 'n'},
	                                     {"seed", required_argument, NULL, 's'},
	                                     {"anomalies", required_argument, NULL, 'a'},
	                                     {"apps", required_argument, NULL, OPT_APPS},
	                                     {"cpus", required_argument, NULL, OPT_CPUS},
	                                     {"ambiguous", required_argument, NULL, OPT_AMB},
	                                     {"rate", required_argument, NULL, OPT_RATE},
	                                     {0}};
	struct argus_synth_opts o;
	argus_synth_opts_default(&o);
	const char *out = NULL, *bad;
	uint64_t v;
	char *end;
	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":ho:n:s:a:", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(synth_usage, stdout);
			return ARGUS_EXIT_OK;
		case 'o':
			out = optarg;
			break;
		case 'n':
			if (!parse_count(optarg, &v) || v < ARGUS_SYNTH_MIN_EVENTS ||
			    v > ARGUS_SYNTH_MAX_EVENTS) {
				cli_error("synth",
				          "--events: '%s' is not a count within 1000..50000000",
				          optarg);
				return ARGUS_EXIT_USAGE;
			}
			o.events = v;
			break;
		case 's':
			if (!cli_parse_u64(optarg, 0, UINT64_MAX, &o.seed)) {
				cli_error("synth", "--seed: '%s' is not an unsigned 64-bit number",
				          optarg);
				return ARGUS_EXIT_USAGE;
			}
			break;
		case 'a':
			if (argus_synth_parse_anomalies(optarg, &o.anomalies, &bad)) {
				cli_error(
				    "synth",
				    "--anomalies: unknown anomaly '%s' (see argus synth --help)",
				    bad);
				return ARGUS_EXIT_USAGE;
			}
			break;
		case OPT_APPS:
			if (!cli_parse_u64(optarg, 1, ARGUS_SYNTH_MAX_APPS, &v)) {
				cli_error("synth", "--apps: '%s' is not a number within 1..%d",
				          optarg, ARGUS_SYNTH_MAX_APPS);
				return ARGUS_EXIT_USAGE;
			}
			o.apps = (uint32_t)v;
			break;
		case OPT_CPUS:
			if (!cli_parse_u64(optarg, 1, ARGUS_SYNTH_MAX_CPUS, &v)) {
				cli_error("synth", "--cpus: '%s' is not a number within 1..%d",
				          optarg, ARGUS_SYNTH_MAX_CPUS);
				return ARGUS_EXIT_USAGE;
			}
			o.cpus = (uint32_t)v;
			break;
		case OPT_AMB:
			errno = 0;
			o.ambiguous = strtod(optarg, &end);
			if (errno || end == optarg || *end ||
			    !(o.ambiguous >= 0 && o.ambiguous <= 0.9)) {
				cli_error("synth", "--ambiguous: '%s' is not a share within 0..0.9",
				          optarg);
				return ARGUS_EXIT_USAGE;
			}
			break;
		case OPT_RATE:
			if (!parse_count(optarg, &v) || v < 2000 || v > 500000) {
				cli_error("synth", "--rate: '%s' is not a rate within 2000..500000",
				          optarg);
				return ARGUS_EXIT_USAGE;
			}
			o.rate = (uint32_t)v;
			break;
		case ':':
			cli_error("synth", "option '%s' needs a value (see argus synth --help)",
			          argv[optind - 1]);
			return ARGUS_EXIT_USAGE;
		default:
			cli_error("synth", "unknown option '%s' (see argus synth --help)",
			          argv[optind - 1]);
			return ARGUS_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		cli_error("synth", "unexpected argument '%s' (see argus synth --help)",
		          argv[optind]);
		return ARGUS_EXIT_USAGE;
	}
	if (!out || !*out) {
		cli_error("synth", "missing -o FILE (or -o - for standard output)");
		return ARGUS_EXIT_USAGE;
	}
	bool to_stdout = !strcmp(out, "-");
	if (to_stdout && isatty(STDOUT_FILENO)) {
		cli_error("synth",
		          "refusing to write a binary trace to a terminal (use -o FILE or a pipe)");
		return ARGUS_EXIT_USAGE;
	}
	const char *why = argus_synth_opts_check(&o);
	if (why) {
		cli_error("synth", "%s", why);
		return ARGUS_EXIT_USAGE;
	}

	/* the header depends only on the options: same options, same bytes */
	struct argus_trace_meta meta;
	char producer[64];
	snprintf(producer, sizeof(producer), "argus synth seed=%llu", (unsigned long long)o.seed);
	argus_trace_meta_init(&meta, producer);
	memset(meta.boot_id, 0, sizeof(meta.boot_id));
	memcpy(meta.boot_id, &o.seed, sizeof(o.seed));
	meta.start_mono_ns = o.start_ns;
	meta.start_real_ns = 0;
	snprintf(meta.host, sizeof(meta.host), "synthetic");
	snprintf(meta.kernel, sizeof(meta.kernel), "synthetic");
	meta.flags |= ARGUS_TRACE_F_SYNTH;

	struct argus_trace_writer *w;
	struct argus_trace_error err;
	int rc = to_stdout
	             ? argus_trace_writer_fdopen(&w, STDOUT_FILENO, "<stdout>", &meta, NULL, &err)
	             : argus_trace_writer_open(&w, out, &meta, NULL, &err);
	if (rc) {
		cli_error("synth", "%s", err.msg);
		return rc == ARGUS_TRACE_ENOMEM ? ARGUS_EXIT_INTERNAL : ARGUS_EXIT_IO;
	}
	struct argus_sink sink = argus_trace_writer_sink(w);
	struct argus_synth_stats st;
	double t0 = now_s();
	int r = argus_synth_run(&o, &sink, &st);
	int crc = argus_trace_writer_close(w, &err);
	double secs = now_s() - t0;
	if (crc) {
		cli_error("synth", "%s", err.msg);
		return crc == ARGUS_TRACE_ENOMEM ? ARGUS_EXIT_INTERNAL : ARGUS_EXIT_IO;
	}
	if (r == ARGUS_SYNTH_ENOMEM) {
		cli_error("synth", "out of memory");
		return ARGUS_EXIT_INTERNAL;
	}
	if (r) {
		cli_error("synth", "writing %s failed", to_stdout ? "<stdout>" : out);
		return ARGUS_EXIT_IO;
	}
	fprintf(
	    stderr,
	    "argus synth: %llu events, %u anomalies injected (%u did not fit), %.1f s of desktop "
	    "(%u processes, %u threads, %.0f%% ambiguous wake-ups), %.2f s to %s\n",
	    (unsigned long long)st.events, st.injected, st.skipped,
	    (double)(st.last_ts - st.first_ts) / 1e9, st.processes, st.threads,
	    st.wakeups ? 100.0 * (double)st.wakeups_ambiguous / (double)st.wakeups : 0.0, secs,
	    to_stdout ? "<stdout>" : out);
	return ARGUS_EXIT_OK;
}
