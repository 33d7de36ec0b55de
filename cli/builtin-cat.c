/* argus cat FILE: the events of a trace, one line each (text or NDJSON). */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "event.h"

static const char cat_usage[] =
    "usage: argus cat [--json] [--from T] [--to T] [--pid P] [--help] FILE\n"
    "\n"
    "Print the events of an .argus trace in file order, one line each. FILE \"-\"\n"
    "reads standard input.\n"
    "\n"
    "  --json       one JSON object per line (NDJSON, docs/events.md); string-table\n"
    "               ids are resolved to text\n"
    "  --from T     only events with ts >= T\n"
    "  --to T       only events with ts <= T\n"
    "  --pid P      only events of process P (the record's pid)\n"
    "\n"
    "T is absolute CLOCK_MONOTONIC nanoseconds (\"123456789000\") or relative to the\n"
    "trace start in the header with a unit (\"+1.5s\", \"+250ms\"). Chunks outside\n"
    "--from/--to are not decompressed.\n"
    "\n"
    "Text lines: TS +REL cpuN PID/TID TYPE key=value ... (the fields of the JSON\n"
    "encoding). Every fault is one line on stderr: \"FILE: offset N: what\"; the\n"
    "events of intact chunks are still printed.\n"
    "\n"
    "exit status: 0 ok, 2 usage, 5 the file had faults, 6 cannot open, read or\n"
    "write, 7 written by a newer argus, 9 out of memory.\n";

static const char *resolve(void *arg, uint32_t id)
{
	return argus_trace_string(arg, id);
}

/*
 * The text form of a JSON-encoded record: the common fields become a
 * fixed prefix, the rest "key=value" with the JSON value as it is.
 */
static size_t json_to_text(const struct argus_event *e, const char *js, size_t n, uint64_t start,
                           char *out, size_t cap)
{
	const char *name = argus_event_type_name(e->type);
	char tname[16];
	if (!name) {
		snprintf(tname, sizeof(tname), "type%u", e->type);
		name = tname;
	}
	uint64_t rel = e->ts >= start ? e->ts - start : start - e->ts;
	int k = snprintf(out, cap,
	                 "%" PRIu64 " %c%" PRIu64 ".%09" PRIu64 " cpu%u %" PRIu32 "/%" PRIu32 " %s",
	                 e->ts, e->ts >= start ? '+' : '-', rel / 1000000000u, rel % 1000000000u,
	                 e->cpu, e->pid, e->tid, name);
	if (k < 0 || (size_t)k >= cap)
		return 0;
	size_t o = (size_t)k;
	/* walk the top-level "key":value pairs; skip the five common ones */
	size_t i = 1, field = 0;
	while (i < n && js[i] != '}') {
		if (js[i] == ',') {
			i++;
			continue;
		}
		size_t key = i + 1, key_end = key;
		while (key_end < n && js[key_end] != '"')
			key_end++;
		size_t v = key_end + 2, v_end = v;
		int depth = 0;
		bool str = false;
		for (; v_end < n; v_end++) {
			char c = js[v_end];
			if (str) {
				if (c == '\\')
					v_end++;
				else if (c == '"')
					str = false;
				continue;
			}
			if (c == '"')
				str = true;
			else if (c == '[' || c == '{')
				depth++;
			else if ((c == ']' || c == '}') && depth)
				depth--;
			else if ((c == ',' || c == '}') && !depth)
				break;
		}
		if (v_end > n)
			v_end = n;
		if (field++ >= 5 && v <= v_end) {
			size_t need = 1 + (key_end - key) + 1 + (v_end - v);
			if (o + need + 1 >= cap)
				break;
			out[o++] = ' ';
			memcpy(out + o, js + key, key_end - key);
			o += key_end - key;
			out[o++] = '=';
			memcpy(out + o, js + v, v_end - v);
			o += v_end - v;
		}
		i = v_end;
	}
	return o;
}

int cmd_cat(int argc, char **argv)
{
	enum { OPT_FROM = 256, OPT_TO, OPT_PID };
	static const struct option opts[] = {{"help", no_argument, NULL, 'h'},
	                                     {"json", no_argument, NULL, 'j'},
	                                     {"from", required_argument, NULL, OPT_FROM},
	                                     {"to", required_argument, NULL, OPT_TO},
	                                     {"pid", required_argument, NULL, OPT_PID},
	                                     {0}};
	const char *from_s = NULL, *to_s = NULL;
	bool json = false, by_pid = false;
	uint64_t pid = 0;
	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":hj", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(cat_usage, stdout);
			return ARGUS_EXIT_OK;
		case 'j':
			json = true;
			break;
		case OPT_FROM:
			from_s = optarg;
			break;
		case OPT_TO:
			to_s = optarg;
			break;
		case OPT_PID:
			if (!cli_parse_u64(optarg, 0, UINT32_MAX, &pid)) {
				cli_error("cat", "--pid: '%s' is not a process id (0..%u)", optarg,
				          UINT32_MAX);
				return ARGUS_EXIT_USAGE;
			}
			by_pid = true;
			break;
		case ':':
			cli_error("cat", "option '%s' needs a value (see argus cat --help)",
			          argv[optind - 1]);
			return ARGUS_EXIT_USAGE;
		default:
			cli_error("cat", "unknown option '%s' (see argus cat --help)",
			          argv[optind - 1]);
			return ARGUS_EXIT_USAGE;
		}
	}
	const char *path = cli_one_file("cat", argc, argv, optind);
	if (!path)
		return ARGUS_EXIT_USAGE;
	/* times relative to the trace start need its header: check the syntax first */
	uint64_t from = 0, to = UINT64_MAX;
	if (from_s && !cli_parse_time(from_s, 0, &from)) {
		cli_error("cat", "--from: '%s' is not a time (ns, or +DURATION like +1.5s)",
		          from_s);
		return ARGUS_EXIT_USAGE;
	}
	if (to_s && !cli_parse_time(to_s, 0, &to)) {
		cli_error("cat", "--to: '%s' is not a time (ns, or +DURATION like +1.5s)", to_s);
		return ARGUS_EXIT_USAGE;
	}

	struct argus_trace_reader *r;
	struct argus_trace_error err;
	int rc = argus_trace_open(&r, path, &err);
	if (rc) {
		cli_error("cat", "%s", err.msg);
		return cli_trace_exit(rc);
	}
	uint64_t start = argus_trace_get_meta(r)->start_mono_ns;
	if ((from_s && !cli_parse_time(from_s, start, &from)) ||
	    (to_s && !cli_parse_time(to_s, start, &to))) {
		cli_error("cat", "--from/--to: time out of range for this trace");
		argus_trace_close(r);
		return ARGUS_EXIT_USAGE;
	}
	if (from > to) {
		cli_error("cat", "--from %s is after --to %s", from_s, to_s);
		argus_trace_close(r);
		return ARGUS_EXIT_USAGE;
	}
	argus_trace_set_range(r, from, to);

	static char obuf[1 << 20];
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	struct argus_json_ctx ctx = {.string = resolve, .arg = r};
	char js[4096], line[4608];
	const struct argus_event *e;
	int status = ARGUS_EXIT_OK;
	while ((rc = argus_trace_next(r, &e, &err)) != 0) {
		if (rc < 0) {
			fflush(stdout); /* keep the fault next to where it happened */
			cli_error("cat", "%s", err.msg);
			status =
			    rc == ARGUS_TRACE_ENOMEM ? ARGUS_EXIT_INTERNAL : ARGUS_EXIT_BADINPUT;
			continue;
		}
		if (by_pid && e->pid != pid)
			continue;
		size_t n = argus_event_to_json(e, &ctx, js, sizeof(js));
		if (n >= sizeof(js))
			n = sizeof(js) - 1;
		if (json) {
			js[n++] = '\n';
			fwrite(js, 1, n, stdout);
		} else {
			size_t k = json_to_text(e, js, n, start, line, sizeof(line) - 1);
			line[k++] = '\n';
			fwrite(line, 1, k, stdout);
		}
	}
	argus_trace_close(r);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		cli_error("cat", "cannot write output");
		return ARGUS_EXIT_IO;
	}
	return status;
}
