/*
 * test_perfetto.c - the native Perfetto trace (`argus diagnose --perfetto`,
 * docs/report.md) read by a real protobuf consumer: `protoc --decode`
 * against the project's schema subset (beam/perfetto_trace.proto) decodes
 * every file written, and the thread tracks, segment slices, flows, stall
 * and root-cause marks match the JSON reports of the same diagnoses
 * (tests/beam/perfetto_check.py); the scheduler events and samples are in.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "event.h"
#include "test.h"

static char dir[64];
static const char *bin, *src;

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	int st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void setup(void)
{
	bin = getenv("ARGUS_BIN");
	src = getenv("ARGUS_SRC");
	if (!bin || access(bin, X_OK) != 0 || !src)
		SKIP("ARGUS_BIN / ARGUS_SRC not set (run through ctest)");
	if (system("command -v protoc >/dev/null && command -v python3 >/dev/null") != 0)
		SKIP("protoc (protobuf-compiler) or python3 missing: scripts/install-deps.sh");
	snprintf(dir, sizeof(dir), "/tmp/argus-perfetto-XXXXXX");
	ASSERT(mkdtemp(dir));
}

static void teardown(void)
{
	if (sh("rm -rf %s", dir) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

/* Diagnose a synthetic desktop (seed, extra synth flags) with --json and
 * --perfetto, decode the trace, compare. */
static void check_seed(const char *seed, const char *extra)
{
	char t[128];
	snprintf(t, sizeof(t), "%s/t.argus", dir);
	ASSERT_EQ(sh("%s synth -o %s -n 300k --rate 5000 -s %s %s >/dev/null", bin, t, seed, extra),
	          0);
	int rc = sh("%s diagnose --json --perfetto %s/t.pftrace %s/t.argus > %s/r.jsonl", bin, dir,
	            dir, dir);
	ASSERT_EQ(rc, 0);
	rc = sh("protoc --decode=perfetto.protos.Trace -I%s/beam %s/beam/perfetto_trace.proto "
	        "< %s/t.pftrace > %s/t.txt",
	        src, src, dir, dir);
	ASSERT_MSG(rc == 0, "protoc could not decode the trace");
	rc = sh("python3 %s/tests/beam/perfetto_check.py %s/r.jsonl %s/t.txt --sched --samples", src, dir, dir);
	ASSERT_MSG(rc == 0, "the trace does not match the reports (see above)");
}

TEST(trace_decodes_and_matches_the_reports)
{
	setup();
	check_seed("2", "");
	teardown();
}

TEST(trace_of_another_desktop_matches_too)
{
	setup();
	check_seed("7", "--apps 4 --cpus 2");
	teardown();
}

TEST(no_stall_gives_an_empty_trace)
{
	setup();
	char t[128];
	snprintf(t, sizeof(t), "%s/t.argus", dir);
	/* no anomalies injected: nothing to report, a valid empty trace */
	ASSERT_EQ(sh("%s synth -o %s -n 50k -a none 2>/dev/null", bin, t), 0);
	ASSERT_EQ(sh("%s diagnose --perfetto %s/e.pftrace %s > /dev/null", bin, dir, t), 0);
	ASSERT_EQ(sh("protoc --decode=perfetto.protos.Trace -I%s/beam %s/beam/perfetto_trace.proto "
	             "< %s/e.pftrace > /dev/null",
	             src, src, dir),
	          0);
	teardown();
}

/* `argus dump --perfetto`: a span of the flight recorder (here a chunk
 * made of a synthetic desktop) as a Perfetto trace with no diagnosis: the
 * scheduling and the samples, decoded by protoc. */
TEST(dump_writes_a_span_of_the_recorder_as_a_perfetto_trace)
{
	setup();
	char t[128], chunk[256];
	snprintf(t, sizeof(t), "%s/t.argus", dir);
	ASSERT_EQ(sh("%s synth -o %s -n 100k --rate 5000 -s 3 2>/dev/null && mkdir %s/rec", bin, t,
	             dir),
	          0);
	/* the recorder's chunk names carry their span */
	struct argus_trace_reader *r;
	struct argus_trace_error err;
	ASSERT_EQ(argus_trace_open(&r, t, &err), 0);
	const struct argus_event *e;
	uint64_t first = 0, last = 0;
	while (argus_trace_next(r, &e, &err) > 0) {
		if (!first)
			first = e->ts;
		last = e->ts;
	}
	argus_trace_close(r);
	snprintf(chunk, sizeof(chunk), "%s/rec/1-%llu-%llu.argus", dir, (unsigned long long)first,
	         (unsigned long long)last);
	ASSERT_EQ(rename(t, chunk), 0);
	ASSERT_EQ(sh("%s dump --run-dir %s/none --recorder %s/rec --last 10m -o %s/d.argus "
	             "--perfetto %s/d.pftrace 2>/dev/null",
	             bin, dir, dir, dir, dir),
	          0);
	ASSERT_EQ(sh(": > %s/none.jsonl && protoc --decode=perfetto.protos.Trace -I%s/beam "
	             "%s/beam/perfetto_trace.proto < %s/d.pftrace > %s/d.txt",
	             dir, src, src, dir, dir),
	          0);
	ASSERT_EQ(sh("python3 %s/tests/beam/perfetto_check.py %s/none.jsonl %s/d.txt --sched "
	             "--samples",
	             src, dir, dir),
	          0);
	teardown();
}

TEST_MAIN(TEST_ENTRY(trace_decodes_and_matches_the_reports),
          TEST_ENTRY(dump_writes_a_span_of_the_recorder_as_a_perfetto_trace),
          TEST_ENTRY(trace_of_another_desktop_matches_too), TEST_ENTRY(no_stall_gives_an_empty_trace))
