/* argus bench storm's accounting (docs/cli.md "Benchmarks"): a short storm
 * without the kernel tracer; every stage's offered = recorded + lost must
 * add up against the daemon's own counts. Asserts the counts, not speed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"

TEST(storm_counts_add_up)
{
	const char *bin = getenv("ARGUS_BIN");
	if (!bin || access(bin, X_OK))
		SKIP("ARGUS_BIN (the argus binary) is not set or not built");
	if (geteuid() != 0)
		SKIP("argus start runs as root");
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "'%s' bench storm --seconds 3 --no-kernel --rate 200000 2>&1",
	         bin);
	FILE *p = popen(cmd, "r");
	ASSERT(p);
	char line[512];
	unsigned rows = 0, bad = 0;
	while (fgets(line, sizeof(line), p)) {
		fputs(line, stderr);
		if (strstr(line, " yes"))
			rows++;
		if (strstr(line, " NO"))
			bad++;
	}
	int st = pclose(p);
	ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ASSERT_EQ(bad, 0);
	ASSERT_EQ(rows, 5); /* hook rings, merge, recorder, two clients */
}

TEST_MAIN(TEST_ENTRY(storm_counts_add_up))
