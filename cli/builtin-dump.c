/*
 * builtin-dump.c - `argus dump --last 5m -o FILE`: the flight recorder's
 * last span as one self-contained trace file; with --perfetto OUT also as a
 * Perfetto trace (scheduling, processes and threads, CPU samples).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "session.h"
#include "stream.h"

int cmd_dump(int argc, char **argv)
{
	const char *run_dir = NULL, *rec_dir = ARGUS_REC_DIR, *out = NULL, *perfetto = NULL;
	uint64_t last = 300ull * 1000000000ull;
	for (int i = 1; i < argc; i += 2) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			printf("usage: argus dump [--last DURATION] -o FILE [--perfetto OUT] "
			       "[--recorder DIR] [--run-dir DIR]\n"
			       "  write the flight recorder's last DURATION (default 5m) as a "
			       "trace file;\n"
			       "  --perfetto: also as a Perfetto trace (scheduling, threads, CPU "
			       "samples)\n");
			return ARGUS_EXIT_OK;
		} else if (!v) {
			cli_error("dump", "unknown or incomplete option '%s' (see --help)", a);
			return ARGUS_EXIT_USAGE;
		} else if (!strcmp(a, "--last")) {
			if (!cli_parse_duration(v, &last) || !last) {
				cli_error("dump", "--last: bad duration '%s'", v);
				return ARGUS_EXIT_USAGE;
			}
		} else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
			out = v;
		} else if (!strcmp(a, "--perfetto")) {
			perfetto = v;
		} else if (!strcmp(a, "--recorder")) {
			rec_dir = v;
		} else if (!strcmp(a, "--run-dir")) {
			run_dir = v;
		} else {
			cli_error("dump", "unknown option '%s' (see --help)", a);
			return ARGUS_EXIT_USAGE;
		}
	}
	if (!out) {
		cli_error("dump", "-o FILE is required");
		return ARGUS_EXIT_USAGE;
	}
	/* A running daemon seals what it holds first; without one the files
	 * on disk are all there is (after a crash too). */
	argus_daemon_request(run_dir, "flush", -1);
	struct argus_dump_stats st;
	char err[512];
	int rc = argus_recorder_dump(rec_dir, last, out, &st, err, sizeof(err));
	if (rc) {
		cli_error("dump", "%s", err);
		if (rc == -EACCES || rc == -EPERM)
			return ARGUS_EXIT_PRIV;
		return rc == -ENOENT && strstr(err, "empty") ? ARGUS_EXIT_FAIL : ARGUS_EXIT_IO;
	}
	fprintf(stderr,
	        "argus dump: %" PRIu64 " events, %.3f s (ts %" PRIu64 " .. %" PRIu64
	        ") from %" PRIu64 " chunks to %s\n",
	        st.events, (st.to_ns - st.from_ns) / 1e9, st.from_ns, st.to_ns, st.chunks_read,
	        out);
	if (st.torn)
		fprintf(stderr,
		        "argus dump: a chunk left open by a crash ends inside a block: read up to"
		        " there\n");
	if (perfetto) {
		struct argus_session_file_view *view;
		struct argus_trace_error terr;
		FILE *f = NULL;
		int vr = argus_session_file_view_open(&view, out, &terr);
		if (vr) {
			cli_error("dump", "%s: %s", out, terr.msg);
			return cli_trace_exit(vr);
		}
		struct argus_report_records rec = argus_session_file_view_records(view);
		struct argus_symbolizer sym = argus_session_file_view_symbolizer(view);
		struct argus_perfetto_counts pc;
		f = fopen(perfetto, "we");
		int wr = f ? argus_report_perfetto_span(st.from_ns, st.to_ns, NULL, &rec, &sym, f, &pc)
		           : -1;
		if (f && fclose(f))
			wr = -1;
		argus_session_file_view_close(view);
		if (wr) {
			cli_error("dump", "%s: cannot write", perfetto);
			return ARGUS_EXIT_IO;
		}
		fprintf(stderr,
		        "argus dump: %s: Perfetto trace, %" PRIu64 " scheduler events, %" PRIu64
		        " samples\n",
		        perfetto, pc.sched, pc.samples);
	}
	if (st.chunks_bad || st.faults) {
		cli_error("dump",
		          "%" PRIu64 " chunk files unreadable, %" PRIu64
		          " faults: what was intact was written",
		          st.chunks_bad, st.faults);
		return ARGUS_EXIT_BADINPUT;
	}
	return ARGUS_EXIT_OK;
}
