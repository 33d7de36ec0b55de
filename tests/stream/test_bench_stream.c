/* `argus bench stream` runs to completion on a small input and refuses junk. */
#include "test.h"

int argus_bench_stream(int argc, char **argv);

TEST(small_run_completes)
{
	char *argv[] = {"stream", "--events", "200000", "--sources", "4", "--no-pin", NULL};
	ASSERT_EQ(argus_bench_stream(6, argv), 0);
}

TEST(bad_argument_is_a_usage_error)
{
	char *argv[] = {"stream", "--events", "lots", NULL};
	ASSERT_EQ(argus_bench_stream(3, argv), 2);
	char *argv2[] = {"stream", "--frobnicate", NULL};
	ASSERT_EQ(argus_bench_stream(2, argv2), 2);
}

TEST_MAIN(TEST_ENTRY(small_run_completes), TEST_ENTRY(bad_argument_is_a_usage_error))
