/* argus diagnose FILE: a session over a trace file (session/): the graph,
 * the stall trigger and the diagnosis; print one diagnosis per stall
 * (docs/diagnosis.md, docs/report.md). */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "debug_priv.h"
#include "event.h"
#include "session.h"

static const char diagnose_usage[] =
    "usage: argus diagnose [--algo beam|critical-path] [--no-weak-edges] [--json]\n"
    "                      [--rule-off NAME[,NAME]] [--perfetto OUT] [--chrome-json OUT]\n"
    "                      [--html OUT]\n"
    "                      [--threshold DUR] [--notify] [--truth] FILE\n"
    "       argus diagnose --rules\n"
    "\n"
    "Replay an .argus trace through the annotated trace graph and the stall trigger\n"
    "(input or a dispatch not finished for --threshold, default 2s) and diagnose each\n"
    "stall the moment it fires: beam search (Algorithm 1) and subgraph comparison\n"
    "(Algorithm 2), or a baseline (--algo critical-path, --no-weak-edges). Prints\n"
    "one text report per stall, or with --json one JSON object per line\n"
    "(docs/report.schema.json). --perfetto writes a Perfetto trace of each stall's\n"
    "window (scheduling, segments, causal edges as flows, stall and root cause,\n"
    "CPU samples; open it in ui.perfetto.dev or trace_processor); --chrome-json\n"
    "the causal paths alone as legacy Chrome trace JSON; --html a self-contained\n"
    "page per stall: timeline, normal vs stalled run, stacks. --notify sends each\n"
    "diagnosis as a desktop notification on the session bus. --truth compares the\n"
    "root causes with a synthetic trace's ground truth (one line per truth record).\n"
    "--rules prints the diagnosis rules (name, stall classes, principle, paper, cases);\n"
    "--rule-off leaves the named rules (those with a function: ipc-peer, compare,\n"
    "handoff, ...) out of the diagnosis, to see which cases need them (ablation).\n"
    "\n"
    "User rules (docs/debug.md \"Rules\") are read from /etc/argus/rules and\n"
    "~/.config/argus/rules.\n"
    "\n"
    "exit status: 0 ok, 1 --truth found a miss, 2 usage, 5 the file had faults\n"
    "(what was intact was used), 6 cannot open, read or write, 7 written by a newer\n"
    "argus, 9 out of memory, 11 a rules file is malformed.\n";

static int truth_check(const char *path, const struct argus_session_result *res)
{
	struct argus_trace_reader *r;
	struct argus_trace_error err;
	if (argus_trace_open(&r, path, &err))
		return ARGUS_EXIT_IO;
	const struct argus_event *e;
	while (argus_trace_next(r, &e, &err) != 0)
		;
	const struct argus_truth *t;
	size_t n = argus_trace_truths(r, &t);
	int misses = 0;
	for (size_t i = 0; i < n; i++) {
		const char *kind = argus_anomaly_kind_name(t[i].kind);
		const char *fn = argus_trace_string(r, t[i].root_func_str);
		const struct argus_diagnosis *hit;
		int v = argus_truth_check(res->d, res->n, &t[i], &hit);
		if (!t[i].ui_tid) {
			printf("truth %-16s decoy %u: %s\n", kind, t[i].root_tid,
			       v == ARGUS_TRUTH_DECOY_FIRED ? "FIRED (wrong)" : "no stall (right)");
			misses += v != ARGUS_TRUTH_RIGHT;
			continue;
		}
		printf("truth %-16s ui %u root %u %s: %s", kind, t[i].ui_tid, t[i].root_tid,
		       fn ? fn : "?",
		       v == ARGUS_TRUTH_NO_STALL ? "NO STALL FIRED"
		       : v == ARGUS_TRUTH_RIGHT  ? "top-1 right"
		                                 : "top-1 WRONG");
		if (hit)
			printf(" (argus: %u/%u %s, %s)", hit->root.v.pid, hit->root.v.tid,
			       hit->root.func[0] ? hit->root.func : "?",
			       argus_root_reason_name(hit->root.reason));
		putchar('\n');
		misses += v != ARGUS_TRUTH_RIGHT;
	}
	argus_trace_close(r);
	return misses ? ARGUS_EXIT_FAIL : ARGUS_EXIT_OK;
}

/* --rule-off LIST: rules of the table that are asked in turn, appended to
 * p->rules_off; false (the error said) for a name that is no such rule. */
static bool cli_rules_off(struct argus_beam_params *p, const char *list)
{
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", list);
	for (char *save = NULL, *n = strtok_r(buf, ",", &save); n;
	     n = strtok_r(NULL, ",", &save)) {
		const struct argus_diag_rule *r;
		size_t i = 0;
		while ((r = argus_diag_rule_at(i)) && strcmp(r->name, n))
			i++;
		if (!r || !r->asked) {
			cli_error("diagnose",
			          "--rule-off '%s': no rule of that name is asked in turn (argus "
			          "diagnose --rules: ipc-peer, compare, handoff, ...)",
			          n);
			return false;
		}
		size_t len = strlen(p->rules_off);
		if (len + strlen(n) + 2 > sizeof(p->rules_off)) {
			cli_error("diagnose", "--rule-off: too many rules");
			return false;
		}
		snprintf(p->rules_off + len, sizeof(p->rules_off) - len, "%s%s", len ? "," : "", n);
	}
	return true;
}

/* The rule table (beam/rules.c), as docs/diagnosis.md "Rules" shows it. */
static void print_rules(void)
{
	static const char *const cls[] = {"", "long_running", "long_wait", "yield_loop"};
	const struct argus_diag_rule *r;
	for (size_t i = 0; (r = argus_diag_rule_at(i)); i++) {
		printf("%s  [", r->name);
		const char *sep = "";
		for (unsigned k = 1; k < 4; k++)
			if (r->classes & (1u << k)) {
				printf("%s%s", sep, cls[k]);
				sep = " ";
			}
		printf("]\n  %s\n  paper: %s\n  cases: %s\n\n", r->principle, r->paper,
		       r->cases[0] ? r->cases : "(none)");
	}
}

int cmd_diagnose(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"algo", required_argument, NULL, 'a'}, {"no-weak-edges", no_argument, NULL, 'w'},
	    {"json", no_argument, NULL, 'j'},       {"perfetto", required_argument, NULL, 'p'},
	    {"html", required_argument, NULL, 'H'}, {"threshold", required_argument, NULL, 't'},
	    {"chrome-json", required_argument, NULL, 'C'},
	    {"notify", no_argument, NULL, 'n'},     {"truth", no_argument, NULL, 'T'},
	    {"rules", no_argument, NULL, 'R'},      {"help", no_argument, NULL, 'h'},
	    {"rule-off", required_argument, NULL, 'O'},
	    {0}};
	struct argus_session_opts o;
	argus_session_opts_default(&o);
	const char *perfetto = NULL, *html = NULL, *chrome = NULL;
	bool json = false, notify = false, truth = false;
	optind = 1;
	opterr = 0;
	for (int c; (c = getopt_long(argc, argv, ":h", opts, NULL)) != -1;) {
		switch (c) {
		case 'h':
			fputs(diagnose_usage, stdout);
			return ARGUS_EXIT_OK;
		case 'a':
			if (!strcmp(optarg, "beam"))
				o.algo = ARGUS_ALGO_BEAM;
			else if (!strcmp(optarg, "critical-path"))
				o.algo = ARGUS_ALGO_CRITICAL_PATH;
			else {
				cli_error("diagnose", "bad --algo '%s' (beam or critical-path)",
				          optarg);
				return ARGUS_EXIT_USAGE;
			}
			break;
		case 'w':
			o.beam.no_weak_edges = true;
			break;
		case 'j':
			json = true;
			break;
		case 'p':
			perfetto = optarg;
			break;
		case 'H':
			html = optarg;
			break;
		case 'C':
			chrome = optarg;
			break;
		case 't':
			if (!cli_parse_duration(optarg, &o.trigger.stall_ns) ||
			    !o.trigger.stall_ns) {
				cli_error("diagnose", "bad --threshold '%s'", optarg);
				return ARGUS_EXIT_USAGE;
			}
			o.trigger.launch_ns = o.trigger.stall_ns;
			break;
		case 'n':
			notify = true;
			break;
		case 'T':
			truth = true;
			break;
		case 'R':
			print_rules();
			return ARGUS_EXIT_OK;
		case 'O':
			if (!cli_rules_off(&o.beam, optarg))
				return ARGUS_EXIT_USAGE;
			break;
		default:
			cli_error(
			    "diagnose",
			    "unknown option or missing value '%s' (see argus diagnose --help)",
			    argv[optind - 1]);
			return ARGUS_EXIT_USAGE;
		}
	}
	const char *path = cli_one_file("diagnose", argc, argv, optind);
	if (!path)
		return ARGUS_EXIT_USAGE;
	/* the user's rules and the system's (docs/debug.md "Rules") */
	struct dbg_rules rules = {0}; /* o.graph points into it while the session runs */
	char rerr[4200];
	int rrc = dbg_rules_load_all(&rules, true, rerr, sizeof(rerr));
	if (rrc) {
		cli_error("diagnose", "%s", rerr);
		return rrc;
	}
	dbg_rules_apply(&rules, &o.graph);
	struct argus_session_result res;
	int rc = argus_session_diagnose_file(path, &o, &res);
	int status = ARGUS_EXIT_OK;
	if (rc < 0) {
		cli_error("diagnose", "%s", res.err.msg[0] ? res.err.msg : "cannot read the trace");
		argus_session_result_free(&res);
		return cli_trace_exit(rc);
	}
	if (rc == 1) {
		cli_error("diagnose", "%s (%" PRIu64 " faults; what was intact was used)",
		          res.err.msg, res.faults);
		status = ARGUS_EXIT_BADINPUT;
	}
	struct argus_report_ctx ctx = {argus_session_result_comm, &res, res.t0,
	                               argus_session_result_thread_comm, path};
	for (size_t i = 0; i < res.n; i++) {
		if (json) {
			argus_report_json(&res.d[i], &ctx, stdout);
			putchar('\n');
		} else {
			argus_report_text(&res.d[i], &ctx, stdout);
			putchar('\n');
		}
		if (notify) {
			char line[512], err[256];
			argus_report_oneline(&res.d[i], line, sizeof(line));
			if (argus_notify(line, perfetto, err, sizeof(err))) {
				cli_error("diagnose", "notification not sent: %s", err);
				status = ARGUS_EXIT_FAIL;
			}
		}
	}
	if (!json)
		printf("%s: %" PRIu64 " events, %zu stalls (%" PRIu64
		       " ended), %u GUI processes, %" PRIu64 " lags >= 100 ms\n",
		       path, res.events, res.n, res.trigger.stalls_ended, res.trigger.gui_processes,
		       res.trigger.lags);
	/* the Perfetto trace and the page show the file's records around each
	 * stall: read again, span by span */
	struct argus_session_file_view *view = NULL;
	struct argus_report_records rec = {0};
	struct argus_symbolizer sym = {0};
	if ((perfetto || html) && res.n) {
		struct argus_trace_error err;
		if (argus_session_file_view_open(&view, path, &err) == 0) {
			rec = argus_session_file_view_records(view);
			sym = argus_session_file_view_symbolizer(view);
		}
	}
	for (int k = 0; k < 3; k++) {
		const char *out = k == 0 ? perfetto : k == 1 ? chrome : html;
		if (!out)
			continue;
		FILE *f = fopen(out, "we");
		if (!f) {
			cli_error("diagnose", "%s: cannot write", out);
			status = ARGUS_EXIT_IO;
			continue;
		}
		int wr = 0;
		if (k == 0)
			wr = argus_report_perfetto(res.d, res.n, &ctx, &rec, &sym, f, NULL);
		else if (k == 1)
			argus_report_chrome_json(res.d, res.n, &ctx, f);
		else
			argus_report_html(res.d, res.n, &ctx, &rec, &sym, f);
		if (fclose(f) || wr) {
			cli_error("diagnose", "%s: write failed", out);
			status = ARGUS_EXIT_IO;
		}
	}
	argus_session_file_view_close(view);
	if (truth && status == ARGUS_EXIT_OK)
		status = truth_check(path, &res);
	argus_session_result_free(&res);
	return status;
}
