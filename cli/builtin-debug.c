/*
 * builtin-debug.c - `argus debug [--at TIME] [--pid P] [FILE]`: diagnose
 * stalls offline with the daemon's code (a session, session/), from a trace
 * file or, with no FILE, from the flight recorder's last minutes, and print
 * the stalls asked for (docs/diagnosis.md "argus debug").
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "debug_priv.h"
#include "event.h"
#include "session.h"
#include "stream.h"

static const char debug_usage[] =
    "usage: argus debug [--at TIME] [--pid P] [--recorder DIR] [--last DUR]\n"
    "                   [--threshold DUR] [--algo A] [--json] [FILE]\n"
    "       argus debug -i [--commands CMDFILE] [--system] [--pid P] [--recorder DIR]\n"
    "                   [--last DUR] [--threshold DUR] [--algo A] [FILE]\n"
    "\n"
    "Diagnose stalls offline with the same code as the daemon: replay FILE, or with\n"
    "no FILE the flight recorder's last --last (default 5m) from --recorder DIR\n"
    "(default " ARGUS_REC_DIR "), through the graph, the stall trigger\n"
    "(--threshold, default 2s) and the diagnosis (--algo beam, the default, or\n"
    "the critical-path baseline). --pid P keeps the stalls of\n"
    "process P; --at TIME (ns, or +REL from the trace start, e.g. +12.5s) keeps\n"
    "the one stall covering TIME, or the nearest to it; with neither, every stall.\n"
    "Prints a text report per stall, or with --json one JSON object per line\n"
    "(docs/report.schema.json).\n"
    "\n"
    "-i: an interactive session over the same stalls and the graph of the whole\n"
    "trace (docs/debug.md): stalls, stall N, show/stack/edges/similar V,\n"
    "baseline V B, path V and pick N, why V, rule add|del|list, export, help.\n"
    "Line editing and history on a terminal; otherwise (or with --commands) the\n"
    "commands are read one a line from standard input (or CMDFILE) and echoed.\n"
    "User rules: ~/.config/argus/rules and /etc/argus/rules (docs/debug.md);\n"
    "rule add / del change the first, with --system the second (the one the\n"
    "daemon, argus start, reads again when it changes).\n"
    "\n"
    "exit status: 0 ok, 1 no stall matched, 2 usage, 3 recorder not readable by\n"
    "this user, 5 the input had faults (what was intact was used), 6 cannot open\n"
    "or read (no flight recorder), 7 written by a newer argus, 9 out of memory,\n"
    "11 a rules file is malformed. With -i: 1 when a command failed (the session\n"
    "went on).\n";

struct debug_args {
	const char *file, *rec_dir, *at_arg;
	const char *commands; /* -i: commands from this file */
	uint64_t last_ns;
	uint32_t pid; /* 0 = every process */
	bool json;
	bool interactive;
	bool system; /* -i: rule add / del change the system's rules file */
};

/* Distance from t to a stall's span [since, end]; an unended stall reaches
 * to its detection at least. */
static uint64_t stall_distance(const struct argus_stall *s, uint64_t t)
{
	uint64_t end = s->end > s->detected ? s->end : s->detected;
	if (t < s->since)
		return s->since - t;
	return t > end ? t - end : 0;
}

/* Indexes of the diagnoses to print, in firing order; returns how many. */
static size_t select_stalls(const struct argus_session_result *res, const struct debug_args *a,
                            bool has_at, uint64_t at, size_t *pick)
{
	size_t n = 0, best = SIZE_MAX;
	uint64_t best_dist = UINT64_MAX;
	for (size_t i = 0; i < res->n; i++) {
		const struct argus_stall *s = &res->d[i].stall;
		if (a->pid && s->pid != a->pid)
			continue;
		if (!has_at) {
			pick[n++] = i;
			continue;
		}
		uint64_t dist = stall_distance(s, at);
		if (dist < best_dist) {
			best_dist = dist;
			best = i;
		}
	}
	if (has_at && best != SIZE_MAX)
		pick[n++] = best;
	return n;
}

/* The recorder's last span into a temporary trace at tmp. Returns an exit
 * code; *damaged when some chunk was unreadable (the rest was dumped). */
static int dump_recorder(const struct debug_args *a, char *tmp, size_t cap, bool *damaged)
{
	const char *td = getenv("TMPDIR");
	snprintf(tmp, cap, "%s/argus-debug-XXXXXX", td && *td ? td : "/tmp");
	int fd = mkstemp(tmp);
	if (fd < 0) {
		cli_error("debug", "cannot create a temporary file in %s: %s",
		          td && *td ? td : "/tmp", strerror(errno));
		tmp[0] = 0;
		return ARGUS_EXIT_IO;
	}
	close(fd);
	/* A running daemon seals its open chunk first; without one the files
	 * on disk are all there is. */
	argus_daemon_request(NULL, "flush", -1);
	struct argus_dump_stats st;
	char err[512];
	int rc = argus_recorder_dump(a->rec_dir, a->last_ns, tmp, &st, err, sizeof(err));
	if (rc == -ENOENT && !strstr(err, "empty")) {
		cli_error("debug",
		          "no flight recorder at %s (is `argus start` running? or give a FILE)",
		          a->rec_dir);
		return ARGUS_EXIT_IO;
	}
	if (rc) {
		cli_error("debug", "%s", err);
		return rc == -EACCES || rc == -EPERM ? ARGUS_EXIT_PRIV : ARGUS_EXIT_IO;
	}
	if (st.chunks_bad || st.faults) {
		cli_error("debug",
		          "%s: %" PRIu64 " chunk files unreadable, %" PRIu64
		          " faults: what was intact is diagnosed",
		          a->rec_dir, st.chunks_bad, st.faults);
		*damaged = true;
	}
	return ARGUS_EXIT_OK;
}

static int parse_args(int argc, char **argv, struct debug_args *a, struct argus_session_opts *o)
{
	static const struct option opts[] = {{"at", required_argument, NULL, 'A'},
	                                     {"pid", required_argument, NULL, 'p'},
	                                     {"recorder", required_argument, NULL, 'r'},
	                                     {"last", required_argument, NULL, 'l'},
	                                     {"threshold", required_argument, NULL, 't'},
	                                     {"json", no_argument, NULL, 'j'},
	                                     {"help", no_argument, NULL, 'h'},
	                                     {"interactive", no_argument, NULL, 'i'},
	                                     {"commands", required_argument, NULL, 'c'},
	                                     {"system", no_argument, NULL, 'S'},
	                                     {"algo", required_argument, NULL, 'a'},
	                                     {0}};
	uint64_t v;
	optind = 1;
	opterr = 0;
	for (int c; (c = getopt_long(argc, argv, ":hi", opts, NULL)) != -1;) {
		switch (c) {
		case 'h':
			fputs(debug_usage, stdout);
			return -1;
		case 'A':
			a->at_arg = optarg; /* parsed once the trace start is known */
			break;
		case 'p':
			if (!cli_parse_u64(optarg, 1, UINT32_MAX, &v)) {
				cli_error("debug", "bad --pid '%s'", optarg);
				return ARGUS_EXIT_USAGE;
			}
			a->pid = (uint32_t)v;
			break;
		case 'r':
			a->rec_dir = optarg;
			break;
		case 'l':
			if (!cli_parse_duration(optarg, &a->last_ns) || !a->last_ns) {
				cli_error("debug", "bad --last '%s'", optarg);
				return ARGUS_EXIT_USAGE;
			}
			break;
		case 't':
			if (!cli_parse_duration(optarg, &o->trigger.stall_ns) ||
			    !o->trigger.stall_ns) {
				cli_error("debug", "bad --threshold '%s'", optarg);
				return ARGUS_EXIT_USAGE;
			}
			o->trigger.launch_ns = o->trigger.stall_ns;
			break;
		case 'j':
			a->json = true;
			break;
		case 'i':
			a->interactive = true;
			break;
		case 'c':
			a->commands = optarg;
			break;
		case 'S':
			a->system = true;
			break;
		case 'a':
			if (!strcmp(optarg, "beam"))
				o->algo = ARGUS_ALGO_BEAM;
			else if (!strcmp(optarg, "critical-path"))
				o->algo = ARGUS_ALGO_CRITICAL_PATH;
			else {
				cli_error("debug", "bad --algo '%s' (beam or critical-path)",
				          optarg);
				return ARGUS_EXIT_USAGE;
			}
			break;
		default:
			cli_error("debug",
			          "unknown option or missing value '%s' (see argus debug --help)",
			          argv[optind - 1]);
			return ARGUS_EXIT_USAGE;
		}
	}
	if (argc - optind > 1) {
		cli_error("debug", "expects at most one FILE (see argus debug --help)");
		return ARGUS_EXIT_USAGE;
	}
	a->file = argc - optind == 1 ? argv[optind] : NULL;
	if (a->file && a->rec_dir) {
		cli_error("debug", "give a FILE or --recorder DIR, not both");
		return ARGUS_EXIT_USAGE;
	}
	if ((a->commands || a->system) && !a->interactive) {
		cli_error("debug", "%s goes with -i", a->commands ? "--commands" : "--system");
		return ARGUS_EXIT_USAGE;
	}
	if (a->interactive && (a->json || a->at_arg)) {
		cli_error("debug", "-i takes no --json or --at (the session picks stalls)");
		return ARGUS_EXIT_USAGE;
	}
	if (a->interactive && a->file && !strcmp(a->file, "-")) {
		cli_error("debug", "-i reads its commands from standard input: give a trace FILE");
		return ARGUS_EXIT_USAGE;
	}
	if (a->at_arg) { /* syntax now; the value needs the trace start */
		if (!cli_parse_time(a->at_arg, 0, &v)) {
			cli_error("debug", "bad --at '%s' (ns, or +REL like +12.5s)", a->at_arg);
			return ARGUS_EXIT_USAGE;
		}
	}
	if (!a->rec_dir)
		a->rec_dir = ARGUS_REC_DIR;
	return ARGUS_EXIT_OK;
}

static void print_selected(const struct argus_session_result *res, const size_t *pick, size_t n,
                           bool json)
{
	struct argus_report_ctx ctx = {argus_session_result_comm, (void *)res, res->t0,
	                               argus_session_result_thread_comm, NULL};
	for (size_t i = 0; i < n; i++) {
		if (json)
			argus_report_json(&res->d[pick[i]], &ctx, stdout);
		else
			argus_report_text(&res->d[pick[i]], &ctx, stdout);
		putchar('\n');
	}
}

/* -i: the session over path (docs/debug.md). */
static int interactive(const struct debug_args *a, const struct argus_session_opts *so,
                       const char *path)
{
	FILE *in = stdin;
	if (a->commands && !(in = fopen(a->commands, "r"))) {
		cli_error("debug", "%s: cannot read: %s", a->commands, strerror(errno));
		return ARGUS_EXIT_IO;
	}
	char rules[4096];
	const char *sys = getenv("ARGUS_SYSTEM_RULES"); /* tests: not /etc */
	if (a->system)
		snprintf(rules, sizeof(rules), "%s", sys && *sys ? sys : DBG_SYSTEM_RULES);
	struct dbg_opts o = {
	    .file = path,
	    .label = a->file ? a->file : a->rec_dir,
	    .pid = a->pid,
	    .rules_path = a->system || dbg_rules_user_path(rules, sizeof(rules)) ? rules : NULL,
	    .system = a->system,
	    .so = *so};
	struct dbg *g = calloc(1, sizeof(*g));
	if (!g) {
		cli_error("debug", "out of memory");
		if (in != stdin)
			fclose(in);
		return ARGUS_EXIT_INTERNAL;
	}
	int rc = dbg_open(g, &o);
	if (!rc)
		rc = dbg_repl(g, in) ? ARGUS_EXIT_FAIL : ARGUS_EXIT_OK;
	dbg_close(g);
	free(g);
	if (in != stdin)
		fclose(in);
	return rc;
}

int cmd_debug(int argc, char **argv)
{
	struct debug_args a = {.last_ns = 300ull * 1000000000ull};
	struct argus_session_opts o;
	argus_session_opts_default(&o);
	int status = parse_args(argc, argv, &a, &o);
	if (status)
		return status < 0 ? ARGUS_EXIT_OK : status;

	char tmp[4096] = "";
	bool damaged = false;
	const char *path = a.file;
	if (!path) {
		status = dump_recorder(&a, tmp, sizeof(tmp), &damaged);
		if (status) {
			if (tmp[0])
				unlink(tmp);
			return status;
		}
		path = tmp;
	}
	if (a.interactive) {
		status = interactive(&a, &o, path);
		if (tmp[0])
			unlink(tmp);
		return status ? status : damaged ? ARGUS_EXIT_BADINPUT : ARGUS_EXIT_OK;
	}
	struct argus_session_result res;
	int rc = argus_session_diagnose_file(path, &o, &res);
	if (tmp[0])
		unlink(tmp);
	const char *what = a.file ? a.file : a.rec_dir;
	if (rc < 0) {
		cli_error("debug", "%s", res.err.msg[0] ? res.err.msg : "cannot read the trace");
		argus_session_result_free(&res);
		return cli_trace_exit(rc);
	}
	if (rc == 1) {
		cli_error("debug", "%s (%" PRIu64 " faults; what was intact was used)", res.err.msg,
		          res.faults);
		damaged = true;
	}
	uint64_t at = 0;
	if (a.at_arg)
		cli_parse_time(a.at_arg, res.t0, &at);
	size_t *pick = malloc((res.n ? res.n : 1) * sizeof(*pick));
	if (!pick) {
		cli_error("debug", "out of memory");
		argus_session_result_free(&res);
		return ARGUS_EXIT_INTERNAL;
	}
	size_t n = select_stalls(&res, &a, a.at_arg != NULL, at, pick);
	print_selected(&res, pick, n, a.json);
	if (!a.json)
		printf("%s: %" PRIu64 " events, %zu stalls, %zu shown\n", what, res.events, res.n,
		       n);
	if (!n) {
		if (a.pid)
			cli_error("debug", "%s: no stall of pid %u in %zu stalls", what, a.pid,
			          res.n);
		else
			cli_error("debug", "%s: no stall found", what);
	}
	free(pick);
	argus_session_result_free(&res);
	if (damaged)
		return ARGUS_EXIT_BADINPUT;
	return n ? ARGUS_EXIT_OK : ARGUS_EXIT_FAIL;
}
