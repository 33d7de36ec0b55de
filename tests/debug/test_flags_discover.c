/*
 * test_flags_discover.c - `argus flags discover` on a process spinning on a
 * flag (spin_flag.c, built without sanitizers so that its loop is its own):
 * the flag's address is found from the instructions alone (the program
 * prints it, and the test compares after), and written as a data-flag file
 * line; a process that does not exist, and bad usage, get their exit codes.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"

static const char *bin;

static void need_bin(void)
{
	bin = getenv("ARGUS_BIN");
	if (!bin || access(bin, X_OK) != 0)
		SKIP("ARGUS_BIN not set (run through ctest)");
}

static int sh(const char *cmd)
{
	int st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Run discover on spin_flag (with "work" as its argument when work): its
 * exit status, its output in out, the flag's address in addr, the -o
 * file's text in file. SKIPs when the program is missing or ptrace is not
 * allowed. */
static int discover(bool work, const char *opts, char *addr, size_t acap, char *out, size_t ocap,
                    char *file, size_t fcap)
{
	need_bin();
	const char *spin = getenv("SPIN_FLAG_BIN");
	if (!spin || access(spin, X_OK) != 0)
		SKIP("SPIN_FLAG_BIN not set (run through ctest)");
	int fd[2];
	ASSERT_EQ(pipe(fd), 0);
	pid_t p = fork();
	ASSERT(p >= 0);
	if (!p) {
		dup2(fd[1], 1);
		close(fd[0]);
		execl(spin, spin, work ? "work" : (char *)NULL, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	addr[0] = 0;
	ssize_t n = read(fd[0], addr, acap - 1);
	close(fd[0]);
	ASSERT(n > 2);
	addr[strcspn(addr, "\n")] = 0;
	usleep(200000); /* in its loop */
	char dir[] = "/tmp/argus-flags-XXXXXX", cmd[512];
	ASSERT(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd),
	         "%s flags discover --pid %d --steps 20000 %s -o %s/flags >%s/out 2>&1", bin,
	         (int)p, opts, dir, dir);
	int rc = sh(cmd);
	kill(p, SIGKILL);
	waitpid(p, NULL, 0);
	char path[128];
	out[0] = file[0] = 0;
	snprintf(path, sizeof(path), "%s/out", dir);
	FILE *f = fopen(path, "r");
	ASSERT(f);
	size_t k = fread(out, 1, ocap - 1, f);
	out[k] = 0;
	fclose(f);
	snprintf(path, sizeof(path), "%s/flags", dir);
	f = fopen(path, "r");
	if (f) {
		k = fread(file, 1, fcap - 1, f);
		file[k] = 0;
		fclose(f);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	if (rc == 3)
		SKIP("not allowed to ptrace here: %s", out);
	return rc;
}

TEST(the_flag_of_a_yield_loop_is_found)
{
	char addr[64], out[65536], file[256];
	int rc = discover(false, "", addr, sizeof(addr), out, sizeof(out), file, sizeof(file));
	ASSERT_MSG(rc == 0, "exit %d: %s", rc, out);
	char want[128];
	snprintf(want, sizeof(want), "1 flag %s (4 bytes, value 0)", addr);
	ASSERT_MSG(strstr(out, want), "the top candidate is not the flag %s:\n%s", addr, out);
	snprintf(want, sizeof(want), "\n%s 4 w\n", addr);
	ASSERT_MSG(strstr(file, want), "flag file:\n%s", file);
}

/* A loop that computes about 100 us a turn before its yield (B13's shape):
 * 20000 instructions stepped one by one do not reach three turns, so
 * stepping every instruction finds no flag; stepping after each return from
 * sched_yield, the work run freely, finds it. */
TEST(the_flag_of_a_loop_with_work_is_found_after_its_yields)
{
	char addr[64], out[65536], file[256];
	int rc = discover(true, "--after-yield 0", addr, sizeof(addr), out, sizeof(out), file,
	                  sizeof(file));
	ASSERT_MSG(rc == 1, "stepping every instruction: exit %d: %s", rc, out);
	rc = discover(true, "", addr, sizeof(addr), out, sizeof(out), file, sizeof(file));
	ASSERT_MSG(rc == 0, "exit %d: %s", rc, out);
	char want[128];
	snprintf(want, sizeof(want), "1 flag %s (4 bytes, value 0)", addr);
	ASSERT_MSG(strstr(out, want), "the top candidate is not the flag %s:\n%s", addr, out);
	ASSERT_CONTAINS(out, "returns from sched_yield");
}

TEST(errors_get_their_exit_codes)
{
	need_bin();
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "%s flags discover --pid 99999999999 >/dev/null 2>&1", bin);
	ASSERT_EQ(sh(cmd), 2); /* out of range */
	snprintf(cmd, sizeof(cmd), "%s flags discover --pid 4000000 >/dev/null 2>&1", bin);
	ASSERT_EQ(sh(cmd), 1); /* no such thread */
	snprintf(cmd, sizeof(cmd), "%s flags discover --pid 1 --for 0 >/dev/null 2>&1", bin);
	ASSERT_EQ(sh(cmd), 2);
	snprintf(cmd, sizeof(cmd), "%s flags discover >/dev/null 2>&1", bin);
	ASSERT_EQ(sh(cmd), 2);
	snprintf(cmd, sizeof(cmd), "%s flags frob >/dev/null 2>&1", bin);
	ASSERT_EQ(sh(cmd), 2);
	snprintf(cmd, sizeof(cmd), "%s flags --help >/dev/null 2>&1", bin);
	ASSERT_EQ(sh(cmd), 0);
}

TEST_MAIN(TEST_ENTRY(the_flag_of_a_yield_loop_is_found),
          TEST_ENTRY(the_flag_of_a_loop_with_work_is_found_after_its_yields),
          TEST_ENTRY(errors_get_their_exit_codes))
