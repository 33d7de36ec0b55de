/* `argus trace-more` against the real daemon (`argus start`, the eBPF
 * tracer): two busy processes A and B; after `argus trace-more --pid A
 * --stacks full --for 5s`, A's samples carry full DWARF stacks (a
 * cpu_sample record with "unwind":1) and B's none; once the 5 s are up (status says
 * so), A's samples are back to frame pointers. Needs root and BPF (label
 * "live"); $ARGUS_BIN is the argus binary. */
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "daemon_fixture.h"

/* A busy program built as distributions build theirs (tests/kext/nofp_prog.c:
 * no frame pointers): the kernel's frame-pointer walk of its samples stops
 * at the ip, the decoder's DWARF unwind finds main -> nofp_outer ->
 * nofp_middle -> nofp_hot, and only then says "unwind":1 (kext/decode.c:
 * a full stack replaces one more than twice shorter). */
static pid_t spinner(void)
{
	pid_t p = fork();
	if (p == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		execl(NOFP_PROG, NOFP_PROG, "30", (char *)NULL);
		_exit(127);
	}
	return p;
}

struct counts {
	unsigned samples[2], dwarf[2]; /* [0] A, [1] B */
};

static uint64_t field_u64(const char *line, const char *key)
{
	const char *p = strstr(line, key);
	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

/* Read cpu_sample records until mono time `until`; count those stamped in
 * [from, until) per process. */
static void read_until(int fd, pid_t a, pid_t b, uint64_t from, uint64_t until, struct counts *c)
{
	char line[4096];
	while (fx_now() < until) {
		if (!fx_line(fd, line, sizeof(line), 100))
			continue;
		if (!strstr(line, "\"type\":\"cpu_sample\""))
			continue;
		uint64_t ts = field_u64(line, "\"ts\":");
		uint32_t pid = (uint32_t)field_u64(line, "\"pid\":");
		if (ts < from || ts >= until || (pid != (uint32_t)a && pid != (uint32_t)b))
			continue;
		int i = pid == (uint32_t)b;
		c->samples[i]++;
		if (strstr(line, "\"unwind\":1"))
			c->dwarf[i]++;
	}
}

static int run_cmd(const char *bin, const char *args, char *out, size_t cap)
{
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "'%s' %s 2>&1", bin, args);
	FILE *p = popen(cmd, "r");
	if (!p)
		return -1;
	size_t n = fread(out, 1, cap - 1, p);
	out[n] = '\0';
	int st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void status_text(const char *run, char *buf, size_t cap)
{
	int mfd = memfd_create("status", 0);
	buf[0] = '\0';
	if (argus_daemon_request(run, "status", mfd) == 0) {
		ssize_t n = pread(mfd, buf, cap - 1, 0);
		buf[n > 0 ? n : 0] = '\0';
	}
	close(mfd);
}

TEST(full_stacks_for_one_pid_only_and_only_for_the_time_asked)
{
	const char *bin = getenv("ARGUS_BIN");
	if (!bin || access(bin, X_OK))
		SKIP("ARGUS_BIN (the argus binary) is not set or not built");
	if (geteuid() != 0)
		SKIP("needs root to load the eBPF tracer");
	char base[64] = "/tmp/argus-test-XXXXXX", run[96], hooks[96], log[96];
	ASSERT(mkdtemp(base));
	snprintf(run, sizeof(run), "%s/run", base);
	snprintf(hooks, sizeof(hooks), "%s/hooks", base);
	snprintf(log, sizeof(log), "%s/daemon.log", base);
	pid_t d = fork();
	if (d == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 2);
		execl(bin, bin, "start", "--run-dir", run, "--no-recorder", "--hooks-dir", hooks,
		      "--no-diagnose", "--issues-db", "", (char *)NULL);
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
	pid_t a = spinner(), b = spinner();
	int s = fx_connect(run, "stream.sock");
	ASSERT(s >= 0);
	char req[160], line[4096], out[2048], st[65536];
	int n = snprintf(req, sizeof(req), "stream v=1 kinds=event types=cpu_sample pids=%d,%d\n",
	                 (int)a, (int)b);
	ASSERT_EQ(write(s, req, (size_t)n), n);
	ASSERT(fx_line(s, line, sizeof(line), 3000)); /* hello */
	ASSERT_CONTAINS(line, "\"kind\":\"hello\"");

	/* before: both sampled, neither with full stacks */
	struct counts before = {0}, during = {0}, after = {0};
	uint64_t t = fx_now();
	read_until(s, a, b, t, t + 1500000000ull, &before);

	char args[256];
	snprintf(args, sizeof(args), "trace-more --pid %d --stacks full --for 5s --run-dir %s",
	         (int)a, run);
	uint64_t t_req = fx_now();
	int code = run_cmd(bin, args, out, sizeof(out));
	uint64_t t_ok = fx_now();
	ASSERT_MSG(code == 0, "trace-more exit %d: %s", code, out);
	ASSERT_CONTAINS(out, "full stacks until");
	status_text(run, st, sizeof(st));
	char pidline[64];
	snprintf(pidline, sizeof(pidline), "  pid %d (", (int)a);
	ASSERT_CONTAINS(st, "trace-more: 1 process");
	ASSERT_CONTAINS(st, pidline);

	/* during: the 5 s asked, from the reply on */
	read_until(s, a, b, t_ok, t_req + 5000000000ull, &during);

	/* the daemon ends it on its own */
	uint64_t t_off = 0;
	for (int i = 0; i < 300 && !t_off; i++) {
		status_text(run, st, sizeof(st));
		if (strstr(st, "trace-more: none"))
			t_off = fx_now();
		else
			usleep(10000);
	}
	ASSERT_MSG(t_off, "status still shows trace-more 3 s after its time: %s", st);
	ASSERT_MSG(t_off - t_req < 5000000000ull + 1000000000ull, "ended %.2f s after the request",
	           (t_off - t_req) / 1e9);
	read_until(s, a, b, t_off, t_off + 2500000000ull, &after);
	fprintf(stderr,
	        "samples (dwarf): before A %u (%u) B %u (%u); during A %u (%u) B %u (%u); "
	        "after A %u (%u) B %u (%u)\n",
	        before.samples[0], before.dwarf[0], before.samples[1], before.dwarf[1],
	        during.samples[0], during.dwarf[0], during.samples[1], during.dwarf[1],
	        after.samples[0], after.dwarf[0], after.samples[1], after.dwarf[1]);
	close(s);
	kill(a, SIGKILL);
	kill(b, SIGKILL);
	waitpid(a, NULL, 0);
	waitpid(b, NULL, 0);
	kill(d, SIGTERM);
	int ds;
	ASSERT_EQ(waitpid(d, &ds, 0), d);
	ASSERT(WIFEXITED(ds) && WEXITSTATUS(ds) == 0);

	ASSERT_MSG(before.samples[0] > 0 && before.samples[1] > 0, "A or B never sampled before");
	ASSERT_EQ(before.dwarf[0] + before.dwarf[1], 0u);
	ASSERT_MSG(during.dwarf[0] >= 5, "A: %u of %u samples with full stacks in the 5 s",
	           during.dwarf[0], during.samples[0]);
	ASSERT_MSG(during.dwarf[0] * 10 >= during.samples[0] * 8,
	           "A: only %u of %u samples with full stacks", during.dwarf[0], during.samples[0]);
	ASSERT_MSG(during.samples[1] > 0, "B never sampled during");
	ASSERT_MSG(during.dwarf[1] == 0, "B: %u full stacks", during.dwarf[1]);
	ASSERT_MSG(after.samples[0] > 0, "A never sampled after");
	ASSERT_MSG(after.dwarf[0] == 0, "A: %u full stacks after its time", after.dwarf[0]);
	char log_text[8192] = "";
	FILE *lf = fopen(log, "r");
	if (lf) {
		size_t ln = fread(log_text, 1, sizeof(log_text) - 1, lf);
		log_text[ln] = '\0';
		fclose(lf);
	}
	ASSERT_CONTAINS(log_text, "full stacks off (its time is up)");
	char cmd[160];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", base);
}

TEST_MAIN(TEST_ENTRY(full_stacks_for_one_pid_only_and_only_for_the_time_asked))
