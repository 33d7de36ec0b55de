/*
 * test_bench_ingest.c - `argus bench ingest` runs on a small synthetic trace
 * and prints its figures (the figures themselves are read, not asserted).
 */
#include <unistd.h>

#include "bench.h"
#include "test.h"

TEST(bench_ingest_small_run)
{
	fflush(stdout);
	char path[] = "/tmp/argus-bench-ingest-XXXXXX";
	int fd = mkstemp(path);
	ASSERT(fd >= 0);
	int saved = dup(1);
	ASSERT(dup2(fd, 1) == 1);
	char *argv[] = {"ingest", "--events", "20000", "--window", "10s", NULL};
	int rc = argus_bench_ingest(5, argv);
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
	ASSERT_CONTAINS(out, "ingest_events_per_s ");
	ASSERT_CONTAINS(out, "bytes_per_event_held ");
	ASSERT_CONTAINS(out, "events 20000\n");
}

TEST(bench_ingest_bad_option)
{
	char *argv[] = {"ingest", "--events", "lots", NULL};
	ASSERT_EQ(argus_bench_ingest(3, argv), 2);
}

TEST_MAIN(TEST_ENTRY(bench_ingest_small_run), TEST_ENTRY(bench_ingest_bad_option))
