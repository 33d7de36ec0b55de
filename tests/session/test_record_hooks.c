/*
 * test_record_hooks.c - `argus record --hooks -- CMD` (label "live"): one
 * trace file holds the kernel's records of a hooked GLib program (its
 * sched_switch records) and its hooks' records (the idle post and its run),
 * merged by time; and --hooks without a command is a usage error.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "event.h"
#include "test.h"

static const char *argus_bin(void)
{
	const char *b = getenv("ARGUS_BIN");
	if (!b || access(b, X_OK) != 0)
		SKIP("ARGUS_BIN is not set to the argus binary");
	return b;
}

/* Run argv with stdout / stderr to files; its exit code. */
static int run(char *const argv[], const char *out, const char *err)
{
	pid_t pid = fork();
	if (pid == 0) {
		int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (o < 0 || e < 0)
			_exit(126);
		dup2(o, 1);
		dup2(e, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	int status;
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* "key=value" printed by the program (decimal). */
static bool key_of(const char *path, const char *key, unsigned long long *v)
{
	FILE *f = fopen(path, "r");
	char line[256];
	size_t kl = strlen(key);
	bool found = false;
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, kl) && line[kl] == '=') {
			*v = strtoull(line + kl + 1, NULL, 0);
			found = true;
		}
	if (f)
		fclose(f);
	return found;
}

TEST(record_hooks_writes_kernel_and_hook_records_of_the_command)
{
	const char *bin = argus_bin();
	if (geteuid() != 0)
		SKIP("needs root for eBPF tracing");
	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0)
		SKIP("kernel has no BTF at /sys/kernel/btf/vmlinux");
	char trace[128], out[128], err[128];
	snprintf(trace, sizeof(trace), "/tmp/argus-test-rechooks-%d.argus", (int)getpid());
	snprintf(out, sizeof(out), "/tmp/argus-test-rechooks-%d.out", (int)getpid());
	snprintf(err, sizeof(err), "/tmp/argus-test-rechooks-%d.err", (int)getpid());
	char *argv[] = {(char *)bin, "record",           "--hooks", "-o", trace,
	                "--",        (char *)HOOKS_PROG, "idle",    NULL};
	ASSERT_EQ(run(argv, out, err), 0);
	unsigned long long post_tid = 0, run_tid = 0;
	ASSERT(key_of(out, "post_tid", &post_tid) && key_of(out, "run_tid", &run_tid));

	struct argus_trace_reader *r;
	struct argus_trace_error te;
	ASSERT_MSG(argus_trace_open(&r, trace, &te) == 0, "%s", te.msg);
	const struct argus_event *e;
	uint32_t pid = 0;
	size_t hook = 0, n = 0, switches = 0;
	bool post = false, run_begin = false, ordered = true;
	uint64_t last = 0;
	int rc;
	/* the command's pid: what its hook records carry */
	while ((rc = argus_trace_next(r, &e, &te)) == 1) {
		n++;
		if (e->ts < last)
			ordered = false;
		last = e->ts;
		if (!(e->flags & ARGUS_F_HOOK))
			continue;
		hook++;
		pid = e->pid;
		if (e->type == ARGUS_EV_ASYNC_POST && e->tid == post_tid)
			post = true;
		if (e->type == ARGUS_EV_ASYNC_RUN_BEGIN && e->tid == run_tid)
			run_begin = true;
	}
	ASSERT_EQ(rc, 0);
	argus_trace_close(r);
	ASSERT_MSG(hook > 0, "no hook records in %zu", n);
	ASSERT(post && run_begin);
	ASSERT(ordered);
	/* kernel records of the same process */
	ASSERT_EQ(argus_trace_open(&r, trace, &te), 0);
	while (argus_trace_next(r, &e, &te) == 1)
		if (e->type == ARGUS_EV_SCHED_SWITCH && !(e->flags & ARGUS_F_HOOK) &&
		    (e->pid == pid || e->sched_switch.next_pid == pid))
			switches++;
	argus_trace_close(r);
	ASSERT_MSG(switches > 0, "no sched_switch of pid %u in %zu records", pid, n);
	unlink(trace);
	unlink(out);
	unlink(err);
}

TEST(record_hooks_needs_a_command)
{
	const char *bin = argus_bin();
	char out[128], err[128];
	snprintf(out, sizeof(out), "/tmp/argus-test-rechooks-u-%d.out", (int)getpid());
	snprintf(err, sizeof(err), "/tmp/argus-test-rechooks-u-%d.err", (int)getpid());
	char *argv[] = {(char *)bin, "record", "--hooks", "-o", "/tmp/never.argus", NULL};
	ASSERT_EQ(run(argv, out, err), 2);
	unlink(out);
	unlink(err);
}

TEST_MAIN(TEST_ENTRY(record_hooks_writes_kernel_and_hook_records_of_the_command),
          TEST_ENTRY(record_hooks_needs_a_command))
