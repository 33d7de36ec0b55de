/*
 * test_report_sink.c - what `argus start` writes per stall (session/
 * reports.c, docs/daemon.md): a synthetic desktop pushed into a session
 * set up as the daemon's (records kept for the reports) with the report
 * sink; every stall gets its text, JSON, HTML and Perfetto reports side by
 * side, and each Perfetto trace decodes with `protoc --decode` against
 * beam/perfetto_trace.proto and matches its JSON report (threads, slices,
 * flows, marks; tests/beam/perfetto_check.py), with scheduling and samples
 * from the session's history.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "session.h"
#include "synth.h"
#include "test.h"

TEST(daemon_reports_include_a_perfetto_trace_per_stall)
{
	const char *src = getenv("ARGUS_SRC");
	if (!src)
		SKIP("ARGUS_SRC not set (run through ctest)");
	if (system("command -v protoc >/dev/null && command -v python3 >/dev/null") != 0)
		SKIP("protoc (protobuf-compiler) or python3 missing: scripts/install-deps.sh");
	char dir[64];
	snprintf(dir, sizeof(dir), "/tmp/argus-report-sink-XXXXXX");
	ASSERT(mkdtemp(dir));

	struct argus_session_opts o;
	argus_session_opts_default(&o);
	o.history_bytes = 64ull << 20; /* as the daemon (session/daemon.c) */
	o.history_ns = o.graph.window_ns;
	struct argus_session *s;
	ASSERT_EQ(argus_session_new(&s, &o), 0);
	struct argus_report_sink_opts ro = {.reports_dir = dir, .no_notify = true, .name = "test"};
	struct argus_report_sink *rs;
	char err[256];
	ASSERT_EQ(argus_report_sink_new(&rs, s, &ro, err, sizeof(err)), 0);
	struct argus_synth_opts so;
	argus_synth_opts_default(&so);
	so.seed = 2;
	so.events = 300000;
	so.rate = 5000;
	struct argus_sink sink = argus_session_sink(s);
	ASSERT_EQ(argus_synth_run(&so, &sink, NULL), 0);
	argus_session_end(s);
	struct argus_session_stats st;
	argus_session_get_stats(s, &st);
	ASSERT(argus_session_records_from(s) > 0);
	argus_report_sink_free(rs);
	argus_session_free(s);
	ASSERT(st.diagnoses >= 3);

	/* one of each per stall */
	unsigned n[4] = {0};
	static const char *ext[4] = {".txt", ".json", ".html", ".pftrace"};
	DIR *d = opendir(dir);
	ASSERT(d);
	struct dirent *e;
	char names[64][256];
	unsigned nn = 0;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		for (int k = 0; k < 4; k++)
			if (l > strlen(ext[k]) && !strcmp(e->d_name + l - strlen(ext[k]), ext[k])) {
				n[k]++;
				if (k == 1 && nn < 64)
					snprintf(names[nn++], sizeof(names[0]), "%.*s", (int)(l - 5),
					         e->d_name);
			}
	}
	closedir(d);
	ASSERT_U64_EQ(n[0], st.diagnoses);
	ASSERT_U64_EQ(n[1], st.diagnoses);
	ASSERT_U64_EQ(n[2], st.diagnoses);
	ASSERT_U64_EQ(n[3], st.diagnoses);
	for (unsigned i = 0; i < nn; i++) {
		char cmd[2048];
		snprintf(cmd, sizeof(cmd),
		         "protoc --decode=perfetto.protos.Trace -I%s/beam %s/beam/perfetto_trace.proto "
		         "< %s/%s.pftrace > %s/t.txt && python3 %s/tests/beam/perfetto_check.py "
		         "%s/%s.json %s/t.txt --sched",
		         src, src, dir, names[i], dir, src, dir, names[i], dir);
		int rc = system(cmd);
		ASSERT_MSG(WIFEXITED(rc) && WEXITSTATUS(rc) == 0, "%s.pftrace: see above", names[i]);
	}
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ASSERT_EQ(system(cmd), 0);
}

TEST_MAIN(TEST_ENTRY(daemon_reports_include_a_perfetto_trace_per_stall))
