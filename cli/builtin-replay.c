/* argus replay FILE: feed a trace file through the pipeline the daemon runs
 * live (the annotated trace graph), offline: a session (session/) whose
 * only consumer is the graph; --graph prints the paper's Table 5 figures
 * and the window; --dot / --json export the graph (docs/graph.md). */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "event.h"
#include "graph.h"
#include "session.h"

static const char replay_usage[] =
    "usage: argus replay [--graph] [--window DUR] [--cap SIZE] [--dot OUT] [--json OUT] FILE\n"
    "\n"
    "Replay an .argus trace through the pipeline the daemon runs live: the annotated\n"
    "trace graph, segments (vertices) and strong / weak / boosted edges over a\n"
    "sliding window (default 5m, memory cap 1G). Prints a one-line summary; --graph\n"
    "prints one \"name value\" per line instead: events, vertices, edges total /\n"
    "strong / weak / boosted (the paper's Table 5), edges by kind, adjacent weak\n"
    "edges left out by each rule, splits by rule, and the window held at the end.\n"
    "--dot and --json export the window at the end (\"-\" = standard output).\n"
    "\n"
    "exit status: 0 ok, 2 usage, 5 the file had faults (what was intact was used),\n"
    "6 cannot open, read or write, 7 written by a newer argus, 9 out of memory.\n";

/* A fault is reported as it is met; the replay goes on with what is intact. */
static void on_fault(void *arg, const struct argus_trace_error *e)
{
	int *status = arg;
	cli_error("replay", "%s", e->msg);
	*status = e->code == ARGUS_TRACE_ENOMEM ? ARGUS_EXIT_INTERNAL : ARGUS_EXIT_BADINPUT;
}

static int export(const struct argus_graph_view *v, const char *path, bool json)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
	if (!f) {
		cli_error("replay", "%s: cannot write", path);
		return ARGUS_EXIT_IO;
	}
	int rc = json ? argus_graph_export_json(v, f) : argus_graph_export_dot(v, f);
	if (f != stdout && fclose(f))
		rc = -1;
	if (rc) {
		cli_error("replay", "%s: write failed", path);
		return ARGUS_EXIT_IO;
	}
	return ARGUS_EXIT_OK;
}

static void summary(const char *path, const struct argus_graph_stats *st, bool figures)
{
	if (figures) {
		printf("file %s\n", path);
		argus_graph_print_stats(st, stdout);
		return;
	}
	printf("%s: %" PRIu64 " events, %" PRIu64 " vertices, %" PRIu64 " edges (%" PRIu64
	       " strong, %" PRIu64 " weak, %" PRIu64 " boosted); window %.1f s, %" PRIu64
	       " events held%s\n",
	       path, st->events, st->vertices, st->edges, st->strong, st->weak, st->boosted,
	       st->window_held_ns / 1e9, st->events_held,
	       st->window_shortened ? " (shortened by the memory cap)" : "");
}

int cmd_replay(int argc, char **argv)
{
	static const struct option opts[] = {{"graph", no_argument, NULL, 'g'},
	                                     {"window", required_argument, NULL, 'w'},
	                                     {"cap", required_argument, NULL, 'c'},
	                                     {"dot", required_argument, NULL, 'd'},
	                                     {"json", required_argument, NULL, 'j'},
	                                     {"help", no_argument, NULL, 'h'},
	                                     {0}};
	struct argus_session_opts so;
	argus_session_opts_default(&so);
	so.consumers = ARGUS_SESSION_GRAPH;
	struct argus_graph_opts go = so.graph;
	const char *dot = NULL, *json = NULL;
	bool figures = false;
	optind = 1;
	opterr = 0;
	for (int c; (c = getopt_long(argc, argv, ":h", opts, NULL)) != -1;) {
		switch (c) {
		case 'h':
			fputs(replay_usage, stdout);
			return ARGUS_EXIT_OK;
		case 'g':
			figures = true;
			break;
		case 'w':
			if (!cli_parse_duration(optarg, &go.window_ns) || !go.window_ns) {
				cli_error("replay", "bad --window '%s'", optarg);
				return ARGUS_EXIT_USAGE;
			}
			break;
		case 'c':
			if (!cli_parse_size(optarg, &go.mem_cap) || !go.mem_cap) {
				cli_error("replay", "bad --cap '%s'", optarg);
				return ARGUS_EXIT_USAGE;
			}
			break;
		case 'd':
			dot = optarg;
			break;
		case 'j':
			json = optarg;
			break;
		default:
			cli_error("replay",
			          "unknown option or missing value '%s' (see argus replay --help)",
			          argv[optind - 1]);
			return ARGUS_EXIT_USAGE;
		}
	}
	const char *path = cli_one_file("replay", argc, argv, optind);
	if (!path)
		return ARGUS_EXIT_USAGE;
	so.graph = go;
	struct argus_session *s;
	int status = ARGUS_EXIT_OK;
	if (argus_session_new(&s, &so)) {
		cli_error("replay", "out of memory");
		return ARGUS_EXIT_INTERNAL;
	}
	struct argus_session_sink sink = {.fault = on_fault, .arg = &status};
	argus_session_add_sink(s, &sink);
	struct argus_trace_error err;
	int rc = argus_session_run_file(s, path, &err);
	if (rc < 0) {
		struct argus_session_stats sst;
		argus_session_get_stats(s, &sst);
		if (!sst.events && !sst.faults) { /* not opened */
			cli_error("replay", "%s", err.msg);
			argus_session_free(s);
			return cli_trace_exit(rc);
		}
		if (rc == ARGUS_TRACE_ENOMEM && status != ARGUS_EXIT_INTERNAL)
			cli_error("replay", "out of memory");
		status = ARGUS_EXIT_INTERNAL;
	}
	struct argus_graph *g = argus_session_graph(s);
	argus_graph_flush(g);
	struct argus_graph_stats st;
	argus_graph_get_stats(g, &st);
	summary(path, &st, figures);
	struct argus_graph_view v;
	argus_graph_view_begin(g, &v);
	if (dot && (rc = export(&v, dot, false)) != ARGUS_EXIT_OK)
		status = rc;
	if (json && (rc = export(&v, json, true)) != ARGUS_EXIT_OK)
		status = rc;
	argus_graph_view_end(&v);
	argus_session_free(s);
	return status;
}
