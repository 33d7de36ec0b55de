/*
 * test_bench_diagnose.c - `argus bench diagnose` runs its short form and
 * prints every figure (the figures themselves are read, not asserted), and
 * rejects bad options.
 */
#include <unistd.h>

#include "bench.h"
#include "test.h"

TEST(bench_diagnose_quick_prints_figures)
{
	fflush(stdout);
	char path[] = "/tmp/argus-bench-diagnose-XXXXXX";
	int fd = mkstemp(path);
	ASSERT(fd >= 0);
	int saved = dup(1);
	ASSERT(dup2(fd, 1) == 1);
	char *argv[] = {"diagnose", "--quick", "--reps", "2", NULL};
	int rc = argus_bench_diagnose(4, argv);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	static char out[16384];
	ssize_t n = pread(fd, out, sizeof(out) - 1, 0);
	close(fd);
	unlink(path);
	ASSERT_EQ(rc, 0);
	ASSERT(n > 0);
	out[n] = 0;
	ASSERT_CONTAINS(out, "argus bench diagnose --quick");
	ASSERT_CONTAINS(out, "window   1.0 M events");
	ASSERT_CONTAINS(out, "detection_to_report_ms  median");
	ASSERT_CONTAINS(out, "beam_search_us          median");
	/* stalls were diagnosed over a full window, so the figures mean something */
	ASSERT(!strstr(out, "no stall fired"));
	ASSERT(!strstr(out, "no anomaly vertex"));
}

TEST(bench_diagnose_bad_option)
{
	char *a1[] = {"diagnose", "--rate", "lots", NULL};
	ASSERT_EQ(argus_bench_diagnose(3, a1), 2);
	char *a2[] = {"diagnose", "extra", NULL};
	ASSERT_EQ(argus_bench_diagnose(2, a2), 2);
}

TEST_MAIN(TEST_ENTRY(bench_diagnose_quick_prints_figures), TEST_ENTRY(bench_diagnose_bad_option))
