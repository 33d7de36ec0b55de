/*
 * test_zoo_quick.c - the bug zoo's quick subset, live: bench/zoo/run-case.sh
 * runs each case (its GTK3 program under a private Xvfb, its xdotool driver,
 * `argus record --all`, `argus diagnose --json`) and scores argus's top-1
 * against the case's truth file. Labels "live", "gui"; skipped without root,
 * Xvfb, xdotool or python3 (the runner says which).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"

/* Runs the runner on one case; its output (table or reason) into out. */
static int run_case(const char *match, const char *name, char *out, size_t cap)
{
	const char *bin = getenv("ARGUS_BIN"), *src = getenv("ARGUS_SRC");
	const char *zoo = getenv("ARGUS_ZOO_BIN_DIR");
	char cmd[1024];
	snprintf(cmd, sizeof(cmd),
	         "timeout -k 5 120 sh %s/bench/zoo/run-case.sh --argus %s --bin-dir %s "
	         "--match %s %s/bench/zoo/%s 2>&1",
	         src, bin, zoo, match, src, name);
	FILE *p = popen(cmd, "r");
	if (!p)
		return -1;
	size_t n = fread(out, 1, cap - 1, p);
	while (n && out[n - 1] == '\n')
		n--;
	out[n] = 0;
	int st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Runs one case at --match function (process, class and function of the
 * top-1 root cause); skips with the runner's reason. */
#define CHECK_CASE(name)                                                                           \
	do {                                                                                       \
		const char *bin_ = getenv("ARGUS_BIN"), *src_ = getenv("ARGUS_SRC");               \
		if (!bin_ || access(bin_, X_OK) != 0 || !src_ || !getenv("ARGUS_ZOO_BIN_DIR"))     \
			SKIP("ARGUS_BIN, ARGUS_SRC or ARGUS_ZOO_BIN_DIR not set (run through "     \
			     "ctest)");                                                            \
		static char out_[1 << 16];                                                         \
		int rc_ = run_case("function", name, out_, sizeof(out_));                           \
		if (rc_ == 77)                                                                     \
			SKIP("%s",                                                                 \
			     strstr(out_, "skipped: ") ? strstr(out_, "skipped: ") + 9 : out_);    \
		ASSERT_MSG(rc_ == 0, "run-case.sh exit %d:\n%s", rc_, out_);                       \
	} while (0)

/* B6: the root cause is three processes away from the stalled UI thread,
 * asleep in svc_c_flush_slowly (inside libc's clock_nanosleep, whose
 * missing frame pointer hides that caller from the frame-pointer stack:
 * the wait's sp_ret puts it back). */
TEST(b6_service_chain_top1_names_the_sleeping_function)
{
	CHECK_CASE("b6-service-chain");
}

/* B5: a LongRunning stall in a (static) library function called from the
 * key handler: the costly function is zoo_hash_tokens (samples differ in
 * the innermost address, not in the function). */
TEST(b5_library_loop_top1_names_the_looping_function)
{
	CHECK_CASE("b5-library-loop");
}

TEST_MAIN(TEST_ENTRY(b6_service_chain_top1_names_the_sleeping_function),
          TEST_ENTRY(b5_library_loop_top1_names_the_looping_function))
