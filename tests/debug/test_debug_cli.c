/*
 * test_debug_cli.c - `argus debug` as a user runs it on a small synthetic
 * desktop: every stall, --pid, --at (absolute and +REL), a flight recorder
 * directory, and its errors (exit codes of docs/cli.md).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_run.h"
#include "event.h"
#include "test.h"

static char dir[64], trace[128];
static const char *bin;

/* One diagnosis line of --json output: the stall's id, pid and span. */
struct stall_line {
	unsigned id, pid;
	uint64_t since, end;
};

static int run(const char *args, char **out)
{
	char cmd[1024];
	int n = snprintf(cmd, sizeof(cmd), "%s %s", bin, args);
	ASSERT_MSG(n >= 0 && (size_t)n < sizeof(cmd), "command too long: %s", args);
	return cli_run(cmd, dir, out, 1 << 20);
}

static void cleanup(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (dir[0] && system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

static void setup(void)
{
	bin = getenv("ARGUS_BIN");
	if (!bin || access(bin, X_OK) != 0)
		SKIP("ARGUS_BIN not set (run through ctest)");
	if (dir[0])
		return;
	snprintf(dir, sizeof(dir), "/tmp/argus-debug-cli-XXXXXX");
	ASSERT(mkdtemp(dir));
	atexit(cleanup);
	snprintf(trace, sizeof(trace), "%s/t.argus", dir);
	char args[256];
	snprintf(args, sizeof(args), "synth -o %s -n 400k --rate 5000 -s 2", trace);
	ASSERT_EQ(run(args, NULL), 0);
}

/* Parse `argus debug --json` output: one stall per line. */
static size_t parse(const char *out, struct stall_line *s, size_t cap)
{
	size_t n = 0;
	for (const char *l = out; l && *l && n < cap; l = strchr(l, '\n'), l = l ? l + 1 : l) {
		const char *st = strstr(l, "\"stall\":{");
		const char *nl = strchr(l, '\n');
		if (!st || (nl && st > nl))
			continue;
		unsigned long long since, end;
		const char *p = strstr(st, "\"pid\":"), *a = strstr(st, "\"since\":"),
		           *e = strstr(st, "\"end\":");
		ASSERT(p && a && e);
		ASSERT_EQ(sscanf(st, "\"stall\":{\"id\":%u", &s[n].id), 1);
		ASSERT_EQ(sscanf(p, "\"pid\":%u", &s[n].pid), 1);
		ASSERT_EQ(sscanf(a, "\"since\":%llu", &since), 1);
		ASSERT_EQ(sscanf(e, "\"end\":%llu", &end), 1);
		s[n].since = since;
		s[n].end = end;
		n++;
	}
	return n;
}

static size_t all_stalls(struct stall_line *s, size_t cap)
{
	char args[256], *out;
	snprintf(args, sizeof(args), "debug --json %s", trace);
	ASSERT_EQ(run(args, &out), 0);
	size_t n = parse(out, s, cap);
	free(out);
	ASSERT_MSG(n >= 4, "only %zu stalls in the synthetic trace", n);
	return n;
}

TEST(file_without_selection_reports_every_stall)
{
	setup();
	char args[256], *out;
	snprintf(args, sizeof(args), "debug %s", trace);
	ASSERT_EQ(run(args, &out), 0);
	ASSERT_CONTAINS(out, "stall 1: ");
	const char *sum = strstr(out, "400000 events, ");
	ASSERT(sum);
	unsigned stalls = 0, shown = 0;
	ASSERT_EQ(sscanf(sum, "400000 events, %u stalls, %u shown", &stalls, &shown), 2);
	/* a root cause in a worker thread is named by process and thread */
	ASSERT_CONTAINS(out, "(pool-1) ran its part but did not wake the waiting thread");
	free(out);
	ASSERT(stalls >= 4);
	ASSERT_EQ(shown, stalls);
}

TEST(pid_keeps_only_that_process_stalls)
{
	setup();
	struct stall_line all[32], got[32];
	size_t n = all_stalls(all, 32);
	unsigned pid = all[0].pid;
	size_t want = 0;
	for (size_t i = 0; i < n; i++)
		want += all[i].pid == pid;
	ASSERT(want < n); /* the filter has something to leave out */
	char args[256], *out;
	snprintf(args, sizeof(args), "debug --json --pid %u %s", pid, trace);
	ASSERT_EQ(run(args, &out), 0);
	size_t k = parse(out, got, 32);
	free(out);
	ASSERT_EQ(k, want);
	for (size_t i = 0; i < k; i++)
		ASSERT_EQ(got[i].pid, pid);
}

TEST(at_absolute_picks_the_covering_stall)
{
	setup();
	struct stall_line all[32], got[4];
	size_t n = all_stalls(all, 32);
	const struct stall_line *want = &all[n / 2];
	char args[256], *out;
	snprintf(args, sizeof(args), "debug --json --at %" PRIu64 " %s",
	         want->since + (want->end - want->since) / 2, trace);
	ASSERT_EQ(run(args, &out), 0);
	size_t k = parse(out, got, 4);
	free(out);
	ASSERT_EQ(k, 1);
	ASSERT_EQ(got[0].id, want->id);
}

TEST(at_relative_picks_the_nearest_stall)
{
	setup();
	struct stall_line all[32], got[4];
	size_t n = all_stalls(all, 32);
	/* the trace start, as +REL counts from it */
	struct argus_trace_reader *r;
	struct argus_trace_error err;
	const struct argus_event *e;
	ASSERT_EQ(argus_trace_open(&r, trace, &err), 0);
	ASSERT_EQ(argus_trace_next(r, &e, &err), 1);
	uint64_t t0 = e->ts;
	argus_trace_close(r);
	/* 100 ms after stall 2 ended, well before stall 3 began: stall 2 */
	ASSERT(all[2].since > all[1].end + 1000000000ull);
	uint64_t rel_ms = (all[1].end - t0) / 1000000 + 100;
	char args[256], *out;
	snprintf(args, sizeof(args), "debug --json --at +%" PRIu64 "ms %s", rel_ms, trace);
	ASSERT_EQ(run(args, &out), 0);
	size_t k = parse(out, got, 4);
	free(out);
	ASSERT_EQ(k, 1);
	ASSERT_EQ(got[0].id, all[1].id);
	(void)n;
}

TEST(pid_and_at_combine)
{
	setup();
	struct stall_line all[32], got[4];
	size_t n = all_stalls(all, 32);
	/* the last stall of the first stall's process, asked for at time 0 */
	unsigned pid = all[0].pid;
	char args[256], *out;
	snprintf(args, sizeof(args), "debug --json --pid %u --at %" PRIu64 " %s", pid,
	         all[n - 1].end + (uint64_t)1000000000000, trace);
	ASSERT_EQ(run(args, &out), 0);
	size_t k = parse(out, got, 4);
	free(out);
	ASSERT_EQ(k, 1);
	ASSERT_EQ(got[0].pid, pid);
	unsigned last = 0;
	for (size_t i = 0; i < n; i++)
		if (all[i].pid == pid)
			last = all[i].id;
	ASSERT_EQ(got[0].id, last);
}

TEST(pid_without_stalls_exits_1)
{
	setup();
	char args[256], *out;
	snprintf(args, sizeof(args), "debug --pid 4000000 %s", trace);
	ASSERT_EQ(run(args, &out), 1);
	ASSERT_CONTAINS(out, "argus debug:");
	ASSERT_CONTAINS(out, "no stall of pid 4000000");
	free(out);
}

TEST(flight_recorder_directory_is_diagnosed)
{
	setup();
	/* a recorder directory as the daemon leaves it: one chunk still open */
	char rec[128], args[512], *out;
	snprintf(rec, sizeof(rec), "%s/rec", dir);
	snprintf(args, sizeof(args), "mkdir -p %s && cp %s %s/1-0.open.argus", rec, trace, rec);
	ASSERT_EQ(system(args), 0);
	struct stall_line all[32], got[32];
	size_t n = all_stalls(all, 32);
	snprintf(args, sizeof(args), "debug --json --recorder %s", rec);
	ASSERT_EQ(run(args, &out), 0);
	size_t k = parse(out, got, 32);
	free(out);
	ASSERT_EQ(k, n);
	for (size_t i = 0; i < k; i++) {
		ASSERT_EQ(got[i].pid, all[i].pid);
		ASSERT_U64_EQ(got[i].since, all[i].since);
	}
	/* the temporary dump (in TMPDIR) is removed afterwards */
	ASSERT_EQ(setenv("TMPDIR", rec, 1), 0);
	snprintf(args, sizeof(args), "debug --recorder %s --pid %u", rec, all[0].pid);
	ASSERT_EQ(run(args, NULL), 0);
	unsetenv("TMPDIR");
	snprintf(args, sizeof(args), "ls %s | grep -q argus-debug-", rec);
	ASSERT_MSG(system(args) != 0, "a temporary dump was left in %s", rec);
}

TEST(missing_or_empty_recorder_exits_6)
{
	setup();
	char args[256], *out;
	snprintf(args, sizeof(args), "debug --recorder %s/none", dir);
	ASSERT_EQ(run(args, &out), 6);
	ASSERT_CONTAINS(out, "argus debug: no flight recorder at");
	free(out);
	snprintf(args, sizeof(args), "sh -c 'mkdir -p %s/empty'", dir);
	ASSERT_EQ(system(args), 0);
	snprintf(args, sizeof(args), "debug --recorder %s/empty", dir);
	ASSERT_EQ(run(args, &out), 6);
	ASSERT_CONTAINS(out, "is empty");
	free(out);
}

TEST(damaged_file_uses_what_was_intact_and_exits_5)
{
	setup();
	char bad[160], args[512], *out;
	snprintf(bad, sizeof(bad), "%s/bad.argus", dir);
	snprintf(args, sizeof(args), "sh -c 'head -c 600000 %s > %s'", trace, bad);
	ASSERT_EQ(system(args), 0);
	snprintf(args, sizeof(args), "debug %s", bad);
	ASSERT_EQ(run(args, &out), 5);
	ASSERT_CONTAINS(out, "stall 1:");
	ASSERT_CONTAINS(out, "what was intact was used");
	free(out);
	ASSERT_EQ(run("debug /nonexistent/t.argus", NULL), 6);
}

TEST(bad_usage_exits_2)
{
	setup();
	ASSERT_EQ(run("debug --pid x t.argus", NULL), 2);
	ASSERT_EQ(run("debug --pid 0 t.argus", NULL), 2);
	ASSERT_EQ(run("debug --at soon t.argus", NULL), 2);
	ASSERT_EQ(run("debug --at", NULL), 2);
	ASSERT_EQ(run("debug --threshold -1 t.argus", NULL), 2);
	ASSERT_EQ(run("debug a.argus b.argus", NULL), 2);
	ASSERT_EQ(run("debug --recorder /tmp a.argus", NULL), 2);
	ASSERT_EQ(run("debug --bogus", NULL), 2);
	char *out;
	ASSERT_EQ(run("debug --help", &out), 0);
	ASSERT_CONTAINS(out, "usage: argus debug");
	free(out);
}

TEST_MAIN(TEST_ENTRY(file_without_selection_reports_every_stall),
          TEST_ENTRY(pid_keeps_only_that_process_stalls),
          TEST_ENTRY(at_absolute_picks_the_covering_stall),
          TEST_ENTRY(at_relative_picks_the_nearest_stall), TEST_ENTRY(pid_and_at_combine),
          TEST_ENTRY(pid_without_stalls_exits_1),
          TEST_ENTRY(flight_recorder_directory_is_diagnosed),
          TEST_ENTRY(missing_or_empty_recorder_exits_6),
          TEST_ENTRY(damaged_file_uses_what_was_intact_and_exits_5), TEST_ENTRY(bad_usage_exits_2))
