/* `argus trace-more`'s request ("more pid=P ...", docs/daemon.md "Finer
 * tracing on demand"): its parsing and errors, and the daemon's side with a
 * stand-in kernel source — what it asks of the source and of a process's
 * hook rings, until when, what `status` shows, and what ends it (its time,
 * a stall's end, off, the daemon stopping). The command's exit codes
 * against that daemon ($ARGUS_BIN). No root needed. */
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>

#include "daemon_fixture.h"
#include "ring_producer.h"

/* ---- the request line ---- */

TEST(more_requests_parse_and_format_round_trip)
{
	struct argus_more_req r, back;
	char why[256], line[256];
	ASSERT(argus_more_parse("more pid=42 stacks=full for=5s", &r, why, sizeof(why)));
	ASSERT_EQ(r.pid, 42u);
	ASSERT_EQ(r.what, (unsigned)ARGUS_MORE_STACKS);
	ASSERT_EQ(r.for_ns, 5000000000ull);
	ASSERT(!r.off);
	ASSERT(argus_more_parse("more syscalls pid=7 hooks stacks=full", &r, why, sizeof(why)));
	ASSERT_EQ(r.what, (unsigned)(ARGUS_MORE_STACKS | ARGUS_MORE_SYSCALLS | ARGUS_MORE_HOOKS));
	ASSERT_EQ(r.for_ns, 0ull);
	ASSERT(argus_more_parse("more pid=9 off", &r, why, sizeof(why)));
	ASSERT(r.off);
	/* what the command sends is what the daemon reads */
	struct argus_more_req reqs[] = {
	    {.pid = 1, .what = ARGUS_MORE_STACKS},
	    {.pid = 4194304, .what = ARGUS_MORE_HOOKS | ARGUS_MORE_SYSCALLS, .for_ns = 1},
	    {.pid = 3, .what = ARGUS_MORE_STACKS, .for_ns = ARGUS_MORE_MAX_NS},
	    {.pid = 5, .off = true},
	};
	for (size_t i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
		ASSERT(argus_more_format(&reqs[i], line, sizeof(line)) > 0);
		ASSERT_MSG(argus_more_parse(line, &back, why, sizeof(why)), "%s: %s", line, why);
		ASSERT_EQ(back.pid, reqs[i].pid);
		ASSERT_EQ(back.what, reqs[i].what);
		ASSERT_EQ(back.for_ns, reqs[i].for_ns);
		ASSERT_EQ(back.off, reqs[i].off);
	}
	ASSERT(argus_more_format(&reqs[0], line, 8) < 0);
}

TEST(bad_more_requests_are_refused_with_a_reason)
{
	static const struct {
		const char *line, *why;
	} bad[] = {
	    {"more", "no pid"},
	    {"more stacks=full", "no pid"},
	    {"more pid=0 stacks=full", "pid '0'"},
	    {"more pid=x stacks=full", "pid 'x'"},
	    {"more pid=4194305 stacks=full", "pid '4194305'"},
	    {"more pid=1 pid=2 stacks=full", "second pid"},
	    {"more pid=1", "nothing asked"},
	    {"more pid=1 stacks=fp", "only stacks=full"},
	    {"more pid=1 stacks=full for=5x", "for=5x"},
	    {"more pid=1 stacks=full for=0", "for=0"},
	    {"more pid=1 stacks=full for=11m", "at most 10m"},
	    {"more pid=1 stacks=full for=1s for=2s", "second duration"},
	    {"more pid=1 off stacks=full", "off takes nothing"},
	    {"more pid=1 off for=1s", "off takes nothing"},
	    {"more pid=1 frobnicate", "unknown word 'frobnicate'"},
	    {"less pid=1 stacks=full", "not a more request"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct argus_more_req r;
		char why[256] = "";
		ASSERT_MSG(!argus_more_parse(bad[i].line, &r, why, sizeof(why)), "took '%s'",
		           bad[i].line);
		ASSERT_MSG(strstr(why, bad[i].why), "'%s': reason '%s', not '%s'", bad[i].line, why,
		           bad[i].why);
		ASSERT(!strchr(why, '\n'));
	}
	char longline[400];
	memset(longline, 'a', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = '\0';
	struct argus_more_req r;
	char why[64];
	ASSERT(!argus_more_parse(longline, &r, why, sizeof(why)));
}

TEST(reply_classes_name_the_refusal)
{
	ASSERT_EQ(argus_more_reply_class("ok: pid 1 (x): full stacks until ..."), 0);
	ASSERT_EQ(argus_more_reply_class("error noproc: no process 5"), ARGUS_MORE_ENOPROC);
	ASSERT_EQ(argus_more_reply_class("error nohooks: process 5 ..."), ARGUS_MORE_ENOHOOKS);
	ASSERT_EQ(argus_more_reply_class("error nosupport: ..."), ARGUS_MORE_ENOSUPPORT);
	ASSERT_EQ(argus_more_reply_class("error: unknown word"), ARGUS_MORE_EREFUSED);
	ASSERT_EQ(argus_more_reply_class(""), ARGUS_MORE_EREFUSED);
}

/* ---- the daemon's side, with a stand-in source ---- */

struct fake_src {
	_Atomic unsigned on_calls, off_calls;
	_Atomic unsigned what_on; /* the bits on now, per the calls */
	_Atomic uint32_t last_pid;
	bool refuse_syscalls;
	_Atomic uint32_t end_stall_of; /* the tick calls argus_daemon_stall_ended */
	struct argus_daemon *d;
};

static int fake_more(void *arg, uint32_t pid, unsigned what, bool on, char *err, size_t cap)
{
	struct fake_src *f = arg;
	if (on && (what & ARGUS_MORE_SYSCALLS) && f->refuse_syscalls) {
		snprintf(err, cap, "per-call syscall records of one process: not here");
		return ARGUS_MORE_ENOSUPPORT;
	}
	f->last_pid = pid;
	if (on) {
		f->on_calls++;
		f->what_on |= what;
	} else {
		f->off_calls++;
		f->what_on &= ~what;
	}
	return 0;
}

static bool fake_tick(void *arg, uint64_t stream_ns)
{
	(void)stream_ns;
	struct fake_src *f = arg;
	uint32_t pid = atomic_exchange(&f->end_stall_of, 0);
	if (pid)
		argus_daemon_stall_ended(f->d, pid);
	return true; /* a stall's end is due any time */
}

/* fx_start with the source set before the daemon runs (src NULL: none,
 * as `argus start --no-kernel`). */
static void start_with(struct fixture *fx, struct fake_src *src)
{
	memset(fx, 0, sizeof(*fx));
	strcpy(fx->base, "/tmp/argus-test-XXXXXX");
	ASSERT(mkdtemp(fx->base));
	snprintf(fx->run, sizeof(fx->run), "%s/run", fx->base);
	snprintf(fx->hooks, sizeof(fx->hooks), "%s/hooks", fx->base);
	struct argus_daemon_opts o = {
	    .run_dir = fx->run, .hooks_dir = fx->hooks, .rec_dir = "", .group = -1};
	ASSERT_EQ(argus_daemon_new(&fx->d, &o, fx->err, sizeof(fx->err)), 0);
	if (src) {
		src->d = fx->d;
		struct argus_daemon_source s = {.more = fake_more, .arg = src};
		argus_daemon_set_source(fx->d, &s);
		argus_daemon_set_tick(fx->d, fake_tick, src);
	}
	ASSERT_EQ(pthread_create(&fx->thread, NULL, fx_run, fx), 0);
	for (int i = 0; i < 500; i++) {
		if (argus_daemon_request(fx->run, "status", -1) == 0)
			return;
		usleep(10000);
	}
	TEST_FAIL_("daemon did not come up: %s", fx->err);
}

static void stop(struct fixture *fx)
{
	ASSERT_EQ(argus_daemon_request(fx->run, "stop", -1), 0);
	pthread_join(fx->thread, NULL);
	ASSERT_MSG(fx->rc == 0, "daemon exit %d: %s", fx->rc, fx->err);
	argus_daemon_free(fx->d);
	fx_cleanup(fx);
}

/* One control request's reply. */
static void ask(struct fixture *fx, const char *req, char *buf, size_t cap)
{
	int mfd = memfd_create("reply", 0);
	ASSERT_EQ(argus_daemon_request(fx->run, req, mfd), 0);
	ssize_t n = pread(mfd, buf, cap - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	close(mfd);
}

static void status_text(struct fixture *fx, char *buf, size_t cap)
{
	ask(fx, "status", buf, cap);
}

/* A pid no process has now: a child that has been reaped. */
static pid_t gone_pid(void)
{
	pid_t p = fork();
	if (p == 0)
		_exit(0);
	waitpid(p, NULL, 0);
	return p;
}

TEST(the_source_is_asked_until_the_time_is_up_and_status_says_until_when)
{
	struct fixture fx;
	struct fake_src src = {0};
	start_with(&fx, &src);
	char req[128], reply[1024], st[65536];
	int me = (int)getpid();
	status_text(&fx, st, sizeof(st));
	ASSERT_CONTAINS(st, "trace-more: none");
	snprintf(req, sizeof(req), "more pid=%d stacks=full for=400ms", me);
	uint64_t t0 = fx_now();
	ask(&fx, req, reply, sizeof(reply));
	ASSERT_MSG(!strncmp(reply, "ok: ", 4), "reply: %s", reply);
	ASSERT_CONTAINS(reply, "full stacks until");
	ASSERT_CONTAINS(reply, "(0.4 s from now)");
	ASSERT_EQ(src.on_calls, 1u);
	ASSERT_EQ(src.what_on, (unsigned)ARGUS_MORE_STACKS);
	ASSERT_EQ(src.last_pid, (uint32_t)me);
	status_text(&fx, st, sizeof(st));
	char line[64];
	snprintf(line, sizeof(line), "  pid %d (", me);
	ASSERT_CONTAINS(st, "trace-more: 1 process\n");
	ASSERT_CONTAINS(st, line);
	ASSERT_CONTAINS(st, "): full stacks until ");
	ASSERT(fx_status(&fx, st, sizeof(st)) == 0);
	snprintf(line, sizeof(line), "\"more\":[{\"pid\":%d,", me);
	ASSERT_CONTAINS(st, line);
	ASSERT_CONTAINS(st, "\"stacks\":true,\"syscalls\":false,\"hooks\":false");
	ASSERT_CONTAINS(st, "\"until_stall\":false");
	/* its time is up: off within a tick or two */
	while (src.off_calls == 0 && fx_now() - t0 < 3000000000ull)
		usleep(5000);
	uint64_t took = fx_now() - t0;
	ASSERT_EQ(src.off_calls, 1u);
	ASSERT_EQ(src.what_on, 0u);
	ASSERT_MSG(took >= 400000000ull && took < 1500000000ull, "off after %.3f s", took / 1e9);
	status_text(&fx, st, sizeof(st));
	ASSERT_CONTAINS(st, "trace-more: none");
	stop(&fx);
}

TEST(a_stall_end_ends_a_request_without_for_and_off_ends_any)
{
	struct fixture fx;
	struct fake_src src = {0};
	start_with(&fx, &src);
	char req[128], reply[1024], st[65536];
	int me = (int)getpid();
	snprintf(req, sizeof(req), "more pid=%d stacks=full", me);
	ask(&fx, req, reply, sizeof(reply));
	ASSERT_MSG(!strncmp(reply, "ok: ", 4), "reply: %s", reply);
	ASSERT_CONTAINS(reply, "until its next stall ends, at most until");
	ASSERT(fx_status(&fx, st, sizeof(st)) == 0);
	ASSERT_CONTAINS(st, "\"until_stall\":true");
	/* another process's stall ends nothing */
	src.end_stall_of = (uint32_t)me + 1;
	usleep(100000);
	ASSERT_EQ(src.off_calls, 0u);
	src.end_stall_of = (uint32_t)me;
	for (int i = 0; i < 200 && !src.off_calls; i++)
		usleep(5000);
	ASSERT_EQ(src.off_calls, 1u);
	ASSERT_EQ(src.what_on, 0u);
	/* with --for a stall's end does not end it; off does */
	snprintf(req, sizeof(req), "more pid=%d stacks=full for=1m", me);
	ask(&fx, req, reply, sizeof(reply));
	ASSERT_MSG(!strncmp(reply, "ok: ", 4), "reply: %s", reply);
	src.end_stall_of = (uint32_t)me;
	usleep(100000);
	ASSERT_EQ(src.off_calls, 1u);
	snprintf(req, sizeof(req), "more pid=%d off", me);
	ask(&fx, req, reply, sizeof(reply));
	ASSERT_CONTAINS(reply, "ok: ");
	ASSERT_CONTAINS(reply, "finer tracing off");
	ASSERT_EQ(src.off_calls, 2u);
	ask(&fx, req, reply, sizeof(reply));
	ASSERT_CONTAINS(reply, "no finer tracing was on");
	/* a new request replaces the one before; the daemon stopping ends it */
	snprintf(req, sizeof(req), "more pid=%d stacks=full syscalls for=1m", me);
	ask(&fx, req, reply, sizeof(reply));
	ASSERT_EQ(src.what_on, (unsigned)(ARGUS_MORE_STACKS | ARGUS_MORE_SYSCALLS));
	snprintf(req, sizeof(req), "more pid=%d syscalls for=1m", me);
	ask(&fx, req, reply, sizeof(reply));
	ASSERT_MSG(!strncmp(reply, "ok: ", 4), "reply: %s", reply);
	ASSERT_EQ(src.what_on, (unsigned)ARGUS_MORE_SYSCALLS);
	stop(&fx);
	ASSERT_EQ(src.what_on, 0u);
}

TEST(refusals_name_what_and_change_nothing)
{
	struct fixture fx;
	struct fake_src src = {.refuse_syscalls = true};
	start_with(&fx, &src);
	char req[128], reply[1024];
	int me = (int)getpid();
	snprintf(req, sizeof(req), "more pid=%d stacks=full", (int)gone_pid());
	ask(&fx, req, reply, sizeof(reply));
	ASSERT_MSG(!strncmp(reply, "error noproc: no process ", 25), "reply: %s", reply);
	snprintf(req, sizeof(req), "more pid=%d hooks", me);
	ask(&fx, req, reply, sizeof(reply));
	ASSERT_MSG(!strncmp(reply, "error nohooks: ", 15), "reply: %s", reply);
	ASSERT_CONTAINS(reply, "was not started with hooks");
	snprintf(req, sizeof(req), "more pid=%d stacks=full syscalls for=5s", me);
	ask(&fx, req, reply, sizeof(reply));
	ASSERT_MSG(!strncmp(reply, "error nosupport: ", 17), "reply: %s", reply);
	ASSERT_EQ(src.on_calls, 0u); /* nothing was switched on */
	ask(&fx, "more pid=1 stacks=fp", reply, sizeof(reply));
	ASSERT_CONTAINS(reply, "error: stacks=fp: only stacks=full");
	ask(&fx, "more", reply, sizeof(reply));
	ASSERT_CONTAINS(reply, "error: unknown request"); /* "more" alone is no more request */
	ask(&fx, "frob", reply, sizeof(reply));
	ASSERT_CONTAINS(reply, "(status, stop, flush, more)");
	char st[65536];
	status_text(&fx, st, sizeof(st));
	ASSERT_CONTAINS(st, "trace-more: none");
	stop(&fx);
	/* without the kernel tracer: no stacks to give */
	start_with(&fx, NULL);
	snprintf(req, sizeof(req), "more pid=%d stacks=full", me);
	ask(&fx, req, reply, sizeof(reply));
	ASSERT_MSG(!strncmp(reply, "error nosupport: ", 17), "reply: %s", reply);
	ASSERT_CONTAINS(reply, "--no-kernel");
	stop(&fx);
}

TEST(a_hooked_process_is_asked_for_every_landmark_through_its_rings)
{
	struct fixture fx;
	struct fake_src src = {0};
	start_with(&fx, &src);
	char path[160], req[128], reply[1024];
	snprintf(path, sizeof(path), "%s/hooks.sock", fx.hooks);
	struct argus_ring_producer *p1, *p2;
	int s1, s2;
	ASSERT_EQ(argus_producer_connect(path, &p1, &s1, NULL), 0);
	ASSERT_EQ(argus_producer_asks(p1), 0u);
	int me = (int)getpid();
	snprintf(req, sizeof(req), "more pid=%d hooks for=1m", me);
	ask(&fx, req, reply, sizeof(reply));
	ASSERT_MSG(!strncmp(reply, "ok: ", 4), "reply: %s", reply);
	ASSERT_CONTAINS(reply, "every landmark until");
	ASSERT_EQ(argus_producer_asks(p1), ARGUS_RING_ASK_LANDMARKS);
	ASSERT_EQ(src.on_calls, 0u); /* the kernel source has nothing to do with it */
	/* a thread that connects later is asked too */
	ASSERT_EQ(argus_producer_connect(path, &p2, &s2, NULL), 0);
	ASSERT_EQ(argus_producer_asks(p2), ARGUS_RING_ASK_LANDMARKS);
	snprintf(req, sizeof(req), "more pid=%d off", me);
	ask(&fx, req, reply, sizeof(reply));
	ASSERT_CONTAINS(reply, "finer tracing off");
	ASSERT_EQ(argus_producer_asks(p1), 0u);
	ASSERT_EQ(argus_producer_asks(p2), 0u);
	argus_producer_close(p1);
	argus_producer_close(p2);
	close(s1);
	close(s2);
	stop(&fx);
}

/* A real hooked GLib program (tests/hooks/glib_prog.c signals: a signal
 * whose handler runs 1 ms, every 20 ms): its landmarks are below the hooks'
 * 3 ms, so none of those under 3 ms reach the daemon, until `more pid=P hooks` asks its rings
 * for every one; after the time asked, none again. */
static unsigned landmarks(int fd, uint64_t from, uint64_t until)
{
	char line[2048];
	unsigned n = 0;
	while (fx_now() < until) {
		if (!fx_line(fd, line, sizeof(line), 50))
			continue;
		if (!strstr(line, "\"type\":\"landmark\"") || !strstr(line, "\"begin_ns\":"))
			continue;
		uint64_t ts = strtoull(strstr(line, "\"ts\":") + 5, NULL, 10);
		uint64_t begin = strtoull(strstr(line, "\"begin_ns\":") + 11, NULL, 10);
		/* only those under the 3 ms: a loaded machine makes some
		 * 1 ms handlers last longer, and those are always sent */
		if (ts >= from && ts - begin < 3000000ull)
			n++;
	}
	return n;
}

TEST(a_hooked_programs_short_landmarks_come_only_while_asked)
{
#if defined(HOOKS_PROG) && defined(HOOKS_LIB)
	struct fixture fx;
	struct fake_src src = {0};
	start_with(&fx, &src);
	char sock[160], req[128], reply[1024], st[65536];
	snprintf(sock, sizeof(sock), "%s/hooks.sock", fx.hooks);
	pid_t c = fork();
	if (c == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		setenv("LD_PRELOAD", HOOKS_LIB, 1);
		setenv("ARGUS_HOOK_SOCKET", sock, 1);
		execl(HOOKS_PROG, HOOKS_PROG, "signals", "8", (char *)NULL);
		_exit(127);
	}
	int s = fx_connect(fx.run, "stream.sock");
	ASSERT(s >= 0);
	int n = snprintf(req, sizeof(req), "stream v=1 kinds=event pids=%d\n", (int)c);
	ASSERT_EQ(write(s, req, (size_t)n), n);
	ASSERT(fx_line(s, reply, sizeof(reply), 3000)); /* hello */
	/* its thread has a ring once its first records came */
	snprintf(req, sizeof(req), "more pid=%d hooks for=1500ms", (int)c);
	bool hooked = false;
	for (int i = 0; i < 300 && !hooked; i++) {
		fx_status(&fx, st, sizeof(st));
		static const char key[] = "\"hooks\":{\"connections\":";
		char *h = strstr(st, key);
		hooked = h && atoi(h + sizeof(key) - 1) > 0;
		if (!hooked)
			usleep(10000);
	}
	ASSERT_MSG(hooked, "the program never connected a hook ring");
	uint64_t t = fx_now();
	unsigned before = landmarks(s, t, t + 1000000000ull);
	uint64_t t_req = fx_now();
	ask(&fx, req, reply, sizeof(reply));
	uint64_t t_ok = fx_now();
	ASSERT_MSG(!strncmp(reply, "ok: ", 4), "reply: %s", reply);
	ASSERT_CONTAINS(reply, "every landmark until");
	unsigned during = landmarks(s, t_ok, t_req + 1500000000ull);
	uint64_t t_off = 0;
	for (int i = 0; i < 200 && !t_off; i++) {
		ask(&fx, "status", st, sizeof(st));
		if (strstr(st, "trace-more: none"))
			t_off = fx_now();
		else
			usleep(10000);
	}
	ASSERT(t_off);
	unsigned after = landmarks(s, t_off + 50000000ull, t_off + 1000000000ull);
	fprintf(stderr, "landmarks: before %u, during 1.5 s %u, after %u\n", before, during, after);
	close(s);
	kill(c, SIGKILL);
	waitpid(c, NULL, 0);
	stop(&fx);
	ASSERT_EQ(before, 0u);
	ASSERT_MSG(during >= 10, "only %u landmarks while asked (one every 20 ms)", during);
	ASSERT_EQ(after, 0u);
#else
	SKIP("the hooks' GLib test program is not built");
#endif
}

/* ---- the command's exit codes ---- */

static int run_cli(const char *args, char *out, size_t cap)
{
	const char *bin = getenv("ARGUS_BIN");
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "'%s' trace-more %s 2>&1", bin, args);
	FILE *p = popen(cmd, "r");
	if (!p)
		return -1;
	size_t n = fread(out, 1, cap - 1, p);
	out[n] = '\0';
	int st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

TEST(the_command_says_what_in_one_line_with_its_exit_code)
{
	const char *bin = getenv("ARGUS_BIN");
	if (!bin || access(bin, X_OK))
		SKIP("ARGUS_BIN (the argus binary) is not set or not built");
	struct fixture fx;
	struct fake_src src = {.refuse_syscalls = true};
	start_with(&fx, &src);
	char args[512], out[4096];
	int me = (int)getpid();
	static const struct {
		const char *args; /* %1$d: a live pid, %2$s: the run dir */
		int code;
		const char *says;
	} cases[] = {
	    {"--pid %1$d --run-dir %2$s --for 2s", 0, "full stacks until"},
	    {"--pid %1$d --run-dir %2$s --off", 0, "finer tracing off"},
	    {"--pid %1$d --run-dir %2$s --for 5x", 2, "argus trace-more: --for 5x: bad duration"},
	    {"--pid %1$d --run-dir %2$s --for 11m", 2, "bad duration"},
	    {"--pid %1$d --run-dir %2$s --stacks fp", 2, "--stacks fp: only --stacks full"},
	    {"--run-dir %2$s", 2, "which process? --pid P"},
	    {"--pid x%1$d --run-dir %2$s", 2, "not a process id"},
	    {"--pid %1$d --run-dir %2$s --off --for 1s", 2, "--off takes nothing but --pid"},
	    {"--pid %1$d --run-dir %2$s --hooks", 12, "argus trace-more: --hooks: process "},
	    {"--pid %1$d --run-dir %2$s --syscalls --for 1s", 4,
	     "argus trace-more: per-call syscall records"},
	    {"--pid %1$d --run-dir %2$s/nowhere", 8, "no daemon answers in"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		snprintf(args, sizeof(args), cases[i].args, me, fx.run);
#pragma GCC diagnostic pop
		int code = run_cli(args, out, sizeof(out));
		ASSERT_MSG(code == cases[i].code, "trace-more %s: exit %d, not %d: %s", args, code,
		           cases[i].code, out);
		ASSERT_MSG(strstr(out, cases[i].says), "trace-more %s: '%s' lacks '%s'", args, out,
		           cases[i].says);
		ASSERT_MSG(strchr(out, '\n') == out + strlen(out) - 1,
		           "trace-more %s: not one line: %s", args, out);
	}
	snprintf(args, sizeof(args), "--pid %d --run-dir %s", (int)gone_pid(), fx.run);
	ASSERT_EQ(run_cli(args, out, sizeof(out)), 2);
	ASSERT_CONTAINS(out, "no such process");
	stop(&fx);
}

TEST_MAIN(TEST_ENTRY(more_requests_parse_and_format_round_trip),
          TEST_ENTRY(bad_more_requests_are_refused_with_a_reason),
          TEST_ENTRY(reply_classes_name_the_refusal),
          TEST_ENTRY(the_source_is_asked_until_the_time_is_up_and_status_says_until_when),
          TEST_ENTRY(a_stall_end_ends_a_request_without_for_and_off_ends_any),
          TEST_ENTRY(refusals_name_what_and_change_nothing),
          TEST_ENTRY(a_hooked_process_is_asked_for_every_landmark_through_its_rings),
          TEST_ENTRY(a_hooked_programs_short_landmarks_come_only_while_asked),
          TEST_ENTRY(the_command_says_what_in_one_line_with_its_exit_code))
