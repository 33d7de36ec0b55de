/* argus start with the real eBPF tracer: records of a process we run reach
 * a JSON stream client, status shows per-CPU kernel rings, and stop is
 * clean. Needs root and BPF (label "live"). The writer's pipe has no
 * reader: its sends wake nobody, so the daemon runs with per-call capture
 * (--syscalls), which records every one. */
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>

#include "daemon_fixture.h"

TEST(kernel_records_reach_a_stream_client)
{
	const char *bin = getenv("ARGUS_BIN");
	if (!bin || access(bin, X_OK))
		SKIP("ARGUS_BIN (the argus binary) is not set or not built");
	if (geteuid() != 0)
		SKIP("needs root to load the eBPF tracer");
	char base[64] = "/tmp/argus-test-XXXXXX", run[96], rec[96], hooks[96];
	ASSERT(mkdtemp(base));
	snprintf(run, sizeof(run), "%s/run", base);
	snprintf(rec, sizeof(rec), "%s/rec", base);
	snprintf(hooks, sizeof(hooks), "%s/hooks", base);
	pid_t d = fork();
	if (d == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 2);
		execl(bin, bin, "start", "--run-dir", run, "--recorder", rec, "--hooks-dir", hooks,
		      "--no-samples", "--syscalls", "--issues-db", "", (char *)NULL);
		_exit(127);
	}
	bool up = false;
	for (int i = 0; i < 1000 && !up; i++) {
		int st;
		if (waitpid(d, &st, WNOHANG) == d) {
			if (WIFEXITED(st) && (WEXITSTATUS(st) == 3 || WEXITSTATUS(st) == 4))
				SKIP("the kernel tracer cannot load here (argus start exit %d)",
				     WEXITSTATUS(st));
			TEST_FAIL_("argus start exited early (status %d)", st);
		}
		up = argus_daemon_request(run, "status", -1) == 0;
		if (!up)
			usleep(10000);
	}
	ASSERT(up);
	/* a child that writes to a pipe once told to */
	int go[2], data[2];
	ASSERT_EQ(pipe(go), 0);
	ASSERT_EQ(pipe(data), 0);
	pid_t w = fork();
	if (w == 0) {
		char c;
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		for (int i = 0; i < 200; i++)
			if (write(data[1], "x", 1) != 1)
				_exit(1);
		_exit(0);
	}
	int a = fx_connect(run, "stream.sock");
	ASSERT(a >= 0);
	char req[128], line[4096];
	int n = snprintf(req, sizeof(req), "stream v=1 types=ipc_send pids=%d\n", (int)w);
	ASSERT_EQ(write(a, req, (size_t)n), n);
	ASSERT(fx_line(a, line, sizeof(line), 3000)); /* hello */
	ASSERT_EQ(write(go[1], "g", 1), 1);
	char pidkey[32];
	snprintf(pidkey, sizeof(pidkey), "\"pid\":%d,", (int)w);
	int seen = 0;
	while (seen < 10 && fx_line(a, line, sizeof(line), 5000)) {
		ASSERT_CONTAINS(line, "\"type\":\"ipc_send\"");
		ASSERT_CONTAINS(line, pidkey);
		seen++;
	}
	ASSERT_MSG(seen == 10, "only %d ipc_send records of the writer arrived", seen);
	waitpid(w, NULL, 0);
	int mfd = memfd_create("status", 0);
	ASSERT_EQ(argus_daemon_request(run, "status", mfd), 0);
	char text[16384] = "";
	ASSERT(pread(mfd, text, sizeof(text) - 1, 0) > 0);
	close(mfd);
	ASSERT_CONTAINS(text, "cpu  0");
	ASSERT_CONTAINS(text, "ipc_send");
	close(a);
	kill(d, SIGTERM);
	int st;
	ASSERT_EQ(waitpid(d, &st, 0), d);
	ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	char cmd[160];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", base);
}

TEST_MAIN(TEST_ENTRY(kernel_records_reach_a_stream_client))
