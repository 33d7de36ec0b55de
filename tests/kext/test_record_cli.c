/*
 * test_record_cli.c - `argus record` and `argus stream --json` as a user runs
 * them (label "live"): a traced command round-trips through a trace file and
 * `argus info`, SIGINT ends a recording cleanly, JSON lines come out live,
 * a user without privileges gets one line and ARGUS_EXIT_PRIV, the default
 * capture attaches no syscall tracepoint program (--syscalls does), and
 * `argus bench overhead --floor` measures under the empty sys_exit program
 * and leaves nothing attached.
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
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

static void require_live(void)
{
	if (geteuid() != 0)
		SKIP("needs root for eBPF tracing");
	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0)
		SKIP("kernel has no BTF at /sys/kernel/btf/vmlinux");
}

/* Start argv with stdout/stderr to files; uid >= 0 drops privileges. */
static pid_t start(char *const argv[], const char *out, const char *err, int uid)
{
	pid_t pid = fork();

	if (pid == 0) {
		int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (o < 0 || e < 0)
			_exit(126);
		dup2(o, 1);
		dup2(e, 2);
		if (uid >= 0 && (setgid(uid) || setuid(uid)))
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

static int finish(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, n + 1);
	if (buf && fread(buf, 1, n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static void tmp_path(char *buf, size_t len, const char *what)
{
	snprintf(buf, len, "/tmp/argus-test-kext-%d-%s", (int)getpid(), what);
}

TEST(record_command_round_trips_through_a_trace_file)
{
	char trace[128], out[128], err[128];
	const char *bin = argus_bin();

	require_live();
	tmp_path(trace, sizeof(trace), "cmd.argus");
	tmp_path(out, sizeof(out), "out");
	tmp_path(err, sizeof(err), "err");
	/* cat waits in its read: the default capture sees the write that
	 * wakes it and the read that ends (a pipe read that finds data
	 * waiting is seen only with --syscalls) */
	char *argv[] = {(char *)bin, "record",  "-o", trace,
	                "--",        "/bin/sh", "-c", "(sleep 0.05; echo hello) | cat >/dev/null",
	                NULL};
	pid_t argus = start(argv, out, err, -1);
	ASSERT_EQ(finish(argus), 0);

	struct argus_trace_reader *r;
	struct argus_trace_error te;
	ASSERT_MSG(argus_trace_open(&r, trace, &te) == 0, "%s", te.msg);
	const struct argus_event *ev;
	bool exec_sh = false, pipe_io = false;
	uint32_t sh_pid = 0;
	size_t n = 0;
	int rc;
	while ((rc = argus_trace_next(r, &ev, &te)) == 1) {
		n++;
		ASSERT_MSG(ev->pid != (uint32_t)argus, "argus traced itself (type %u)", ev->type);
		if (ev->type == ARGUS_EV_PROC_EXEC && !strcmp(ev->exec.comm, "sh")) {
			const char *exe = argus_trace_string(r, ev->exec.exe_str);

			exec_sh = exe && strstr(exe, "sh");
			sh_pid = ev->pid;
		}
		if ((ev->type == ARGUS_EV_IPC_SEND || ev->type == ARGUS_EV_IPC_RECV) &&
		    ev->ipc.obj_kind == ARGUS_OBJ_PIPE)
			pipe_io = true;
	}
	ASSERT_EQ(rc, 0);
	ASSERT(n > 10);
	ASSERT_MSG(exec_sh, "no PROC_EXEC of sh naming its executable");
	ASSERT_MSG(pipe_io, "no IPC record on the pipe of echo | cat");
	/* the maps of the traced shell, with build ids of what it mapped */
	const struct argus_map *maps;
	size_t nmaps = argus_trace_maps(r, &maps), sh_maps = 0;
	for (size_t i = 0; i < nmaps; i++)
		sh_maps += maps[i].pid == sh_pid;
	ASSERT_MSG(sh_maps > 0, "no executable mappings of the traced shell");
	const struct argus_build_id *ids;
	ASSERT(argus_trace_build_ids(r, &ids) > 0);
	argus_trace_close(r);

	/* argus info reads it back */
	char *iargv[] = {(char *)bin, "info", trace, NULL};
	ASSERT_EQ(finish(start(iargv, out, err, -1)), 0);
	char *text = slurp(out);
	ASSERT_CONTAINS(text, "proc_exec");
	free(text);
	unlink(trace);
	unlink(out);
	unlink(err);
}

TEST(sigint_ends_a_recording_with_a_complete_file)
{
	char trace[128], out[128], err[128];
	const char *bin = argus_bin();

	require_live();
	tmp_path(trace, sizeof(trace), "int.argus");
	tmp_path(out, sizeof(out), "out");
	tmp_path(err, sizeof(err), "err");
	/* SIGINT once it traces (--ready-fd: attaching takes longer than a
	 * fixed wait under the sanitizers), after records have come */
	int rp[2];
	ASSERT_EQ(pipe(rp), 0);
	char *argv[] = {(char *)bin, "record", "-o", trace, "--all", "--ready-fd", "3", NULL};
	pid_t argus = fork();
	ASSERT(argus >= 0);
	if (argus == 0) {
		int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0 || dup2(rp[1], 3) < 0)
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	close(rp[1]);
	struct pollfd pfd = {.fd = rp[0], .events = POLLIN};
	ASSERT_MSG(poll(&pfd, 1, 30000) == 1, "argus record never said it was ready");
	close(rp[0]);
	usleep(300000);
	kill(argus, SIGINT);
	ASSERT_EQ(finish(argus), 0);

	struct argus_trace_reader *r;
	struct argus_trace_error te;
	struct argus_trace_health h;
	const struct argus_event *ev;
	size_t n = 0;
	ASSERT_MSG(argus_trace_open(&r, trace, &te) == 0, "%s", te.msg);
	while (argus_trace_next(r, &ev, &te) == 1)
		n++;
	argus_trace_get_health(r, &h);
	ASSERT(n > 0);
	ASSERT(h.indexed);
	ASSERT_EQ(h.faults, 0);
	argus_trace_close(r);
	char *msg = slurp(err);
	ASSERT_CONTAINS(msg, "records to");
	/* every loss is named, the kernel's skipped program runs too */
	ASSERT_CONTAINS(msg, "program runs skipped (nested)");
	free(msg);
	unlink(trace);
	unlink(out);
	unlink(err);
}

TEST(stream_json_prints_live_records)
{
	char out[128], err[128];
	const char *bin = argus_bin();

	require_live();
	tmp_path(out, sizeof(out), "stream.json");
	tmp_path(err, sizeof(err), "err");
	char *argv[] = {(char *)bin,
	                "stream",
	                "--json",
	                "--",
	                "/bin/sh",
	                "-c",
	                "(sleep 0.05; echo hi) | cat >/dev/null",
	                NULL};
	ASSERT_EQ(finish(start(argv, out, err, -1)), 0);
	char *text = slurp(out);
	ASSERT(text);
	size_t lines = 0;
	for (char *p = text; (p = strchr(p, '\n')); p++)
		lines++;
	ASSERT(lines > 5);
	ASSERT(text[0] == '{');
	ASSERT_CONTAINS(text, "\"type\":\"proc_exec\"");
	ASSERT_CONTAINS(text, "\"obj_kind\":\"pipe\"");
	free(text);
	unlink(out);
	unlink(err);
}

TEST(unprivileged_record_says_what_is_missing)
{
	char out[128], err[128], trace[128];
	const char *bin = argus_bin();

	require_live(); /* root is needed to become someone else */
	tmp_path(out, sizeof(out), "out");
	tmp_path(err, sizeof(err), "err");
	tmp_path(trace, sizeof(trace), "nobody.argus");
	char *argv[] = {(char *)bin, "record", "-o", trace, "--duration", "1s", NULL};
	ASSERT_EQ(finish(start(argv, out, err, 65534)), 3 /* ARGUS_EXIT_PRIV */);
	char *msg = slurp(err);
	ASSERT(msg);
	ASSERT_CONTAINS(msg, "CAP_BPF");
	ASSERT(strchr(msg, '\n') == msg + strlen(msg) - 1); /* one line */
	free(msg);
	unlink(out);
	unlink(err);
	unlink(trace);
}

/* --floor runs the command under the empty sys_exit program, and only in
 * that mode: the command itself looks for the program in each mode. The
 * program is gone afterwards (left on sys_exit, it would slow every call). */
TEST(bench_overhead_floor_attaches_only_for_its_mode)
{
	char out[128], err[128], seen[128], script[512];
	const char *bin = argus_bin();
	const char *find = "bpftool prog show name floor_sys_exit | grep -q floor_sys_exit";

	require_live();
	if (system("command -v perf >/dev/null 2>&1") != 0)
		SKIP("perf is not installed (the bench's peer)");
	if (system("command -v bpftool >/dev/null 2>&1") != 0)
		SKIP("bpftool is not installed");
	tmp_path(out, sizeof(out), "bench-out");
	tmp_path(err, sizeof(err), "bench-err");
	tmp_path(seen, sizeof(seen), "bench-seen");
	unlink(seen);
	snprintf(script, sizeof(script), "if %s; then echo on >> %s; else echo off >> %s; fi", find,
	         seen, seen);
	char *argv[] = {(char *)bin, "bench", "overhead", "--rounds", "1", "--floor",
	                "--",        "sh",    "-c",       script,     NULL};
	ASSERT_EQ(finish(start(argv, out, err, -1)), 0);
	char *o = slurp(out), *modes = slurp(seen);
	ASSERT(o && modes);
	ASSERT_CONTAINS(o, "empty sys_exit");
	/* untraced, argus start, argus record, perf sched, perf sched+syscalls,
	 * empty sys_exit */
	ASSERT_STR_EQ(modes, "off\noff\noff\noff\noff\non\n");
	/* the kernel frees a detached program a little later */
	bool gone = false;
	for (int i = 0; i < 50 && !gone; i++) {
		gone = system(find) != 0;
		if (!gone)
			usleep(100 * 1000);
	}
	ASSERT_MSG(gone, "the empty sys_exit program is still loaded 5 s after the bench");
	free(o);
	free(modes);
	unlink(out);
	unlink(err);
	unlink(seen);
}

/* Which of the tracer's syscall-exit and socket programs are attached while
 * `argus record [OPT] -- CMD` runs CMD: "sys" and / or "sock" lines. */
static char *programs_under_record(const char *opt)
{
	char out[128], err[128], seen[128], trace[128], script[1024];
	const char *bin = argus_bin();

	tmp_path(out, sizeof(out), "progs-out");
	tmp_path(err, sizeof(err), "progs-err");
	tmp_path(seen, sizeof(seen), "progs-seen");
	tmp_path(trace, sizeof(trace), "progs.argus");
	unlink(seen);
	snprintf(script, sizeof(script),
	         "touch %s; bpftool prog show name sys_exit | grep -q sys_exit && echo sys >> %s; "
	         "bpftool prog show name sock_recv_length | grep -q sock_recv && echo sock >> %s; "
	         "true",
	         seen, seen, seen);
	char *argv[] = {(char *)bin, "record", "-o", trace,  (char *)opt,
	                "--",        "sh",     "-c", script, NULL};
	if (!opt) {
		argv[4] = "--";
		argv[5] = "sh";
		argv[6] = "-c";
		argv[7] = script;
		argv[8] = NULL;
	}
	int rc = finish(start(argv, out, err, -1));
	char *r = rc == 0 ? slurp(seen) : NULL;
	unlink(out);
	unlink(err);
	unlink(seen);
	unlink(trace);
	return r;
}

/* The default capture puts no program on a syscall tracepoint (every
 * syscall of every task would pay for it); --syscalls does, and leaves the
 * socket tracepoints off (its syscall exit records those calls). */
TEST(default_capture_attaches_no_syscall_tracepoint)
{
	require_live();
	if (system("command -v bpftool >/dev/null 2>&1") != 0)
		SKIP("bpftool is not installed");
	if (system("bpftool prog show name sys_exit 2>/dev/null | grep -q sys_exit") == 0)
		SKIP("another tracer's sys_exit program is loaded");
	char *def = programs_under_record(NULL), *sys = programs_under_record("--syscalls");
	ASSERT(def && sys);
	ASSERT_STR_EQ(def, "sock\n");
	ASSERT_STR_EQ(sys, "sys\n");
	free(def);
	free(sys);
}

TEST(usage_errors_exit_2)
{
	char out[128], err[128];
	const char *bin = argus_bin();

	tmp_path(out, sizeof(out), "out");
	tmp_path(err, sizeof(err), "err");
	char *no_out[] = {(char *)bin, "record", NULL};
	ASSERT_EQ(finish(start(no_out, out, err, -1)), 2);
	char *bad_pid[] = {(char *)bin, "record", "-o", "/tmp/x.argus", "--pid", "abc", NULL};
	ASSERT_EQ(finish(start(bad_pid, out, err, -1)), 2);
	char *bad_opt[] = {(char *)bin, "stream", "--json", "--bogus", NULL};
	ASSERT_EQ(finish(start(bad_opt, out, err, -1)), 2);
	unlink(out);
	unlink(err);
}

TEST_MAIN(TEST_ENTRY(record_command_round_trips_through_a_trace_file),
          TEST_ENTRY(sigint_ends_a_recording_with_a_complete_file),
          TEST_ENTRY(stream_json_prints_live_records),
          TEST_ENTRY(unprivileged_record_says_what_is_missing), TEST_ENTRY(usage_errors_exit_2),
          TEST_ENTRY(bench_overhead_floor_attaches_only_for_its_mode),
          TEST_ENTRY(default_capture_attaches_no_syscall_tracepoint))
