/*
 * test_hooks.c - libargus-hooks.so in real GLib / pthread programs under
 * `argus run`: async post -> run pairing, condition signal vs mutex
 * hand-off, GDBus call -> reply by serial, data flags, pruning, drops,
 * inertness without a consumer, and argus run's handling of bad input.
 */
#include "hooks_fixture.h"
#include "test.h"

static const char *const PROG = HOOKS_PROG;

static bool obj_is(const struct argus_event *e, uint64_t v)
{
	return e->async.obj == v;
}

static bool sync_obj_is(const struct argus_event *e, uint64_t v)
{
	return e->sync.obj == v;
}

static bool tid_is(const struct argus_event *e, uint64_t v)
{
	return e->tid == v;
}

static const struct argus_event *check_post_run(const char *mode, unsigned kind,
                                                struct run_result *out)
{
	struct run_result r;
	const char *cmd[] = {PROG, mode, NULL};
	ASSERT_EQ(fx_argus_run(NULL, cmd, 20, NULL, &r), 0);
	uint64_t post_tid, run_tid;
	ASSERT(fx_key(&r, "post_tid", &post_tid) && fx_key(&r, "run_tid", &run_tid));
	const struct argus_event *post = fx_find(&r, ARGUS_EV_ASYNC_POST, tid_is, post_tid);
	ASSERT_MSG(post, "no async_post from the worker (%zu events)", r.n);
	ASSERT_EQ(post->async.kind, kind);
	ASSERT(post->flags & ARGUS_F_HOOK);
	const struct argus_event *run =
	    fx_find(&r, ARGUS_EV_ASYNC_RUN_BEGIN, obj_is, post->async.obj);
	ASSERT_MSG(run, "no async_run_begin with the post's obj");
	ASSERT_EQ(run->tid, run_tid);
	ASSERT_EQ(run->async.kind, kind);
	ASSERT(run->ts >= post->ts);
	ASSERT(fx_find(&r, ARGUS_EV_ASYNC_RUN_END, obj_is, post->async.obj));
	/* both name the callback that runs */
	uint64_t cb;
	ASSERT(fx_key(&r, "callback", &cb));
	ASSERT_U64_EQ(post->async.callback, cb);
	ASSERT_U64_EQ(run->async.callback, cb);
	/* the run sits inside its source's dispatch, inside a loop iteration */
	ASSERT(fx_count(&r, ARGUS_EV_DISPATCH_BEGIN) >= 1);
	ASSERT(fx_count(&r, ARGUS_EV_LOOP_ITER_BEGIN) >= 1);
	ASSERT_EQ(fx_count(&r, ARGUS_EV_LOOP_ITER_BEGIN), fx_count(&r, ARGUS_EV_LOOP_ITER_END));
	*out = r;
	return post;
}

TEST(idle_post_pairs_with_its_run)
{
	struct run_result r;
	const struct argus_event *post = check_post_run("idle", ARGUS_ASYNC_IDLE, &r);
	ASSERT_U64_EQ(post->async.delay_ns, 0);
	free(r.ev);
}

TEST(invoke_post_pairs_with_its_run)
{
	struct run_result r;
	check_post_run("invoke", ARGUS_ASYNC_INVOKE, &r);
	free(r.ev);
}

TEST(timeout_post_pairs_with_its_run_and_says_its_delay)
{
	struct run_result r;
	const struct argus_event *post = check_post_run("timeout", ARGUS_ASYNC_TIMEOUT, &r);
	ASSERT_U64_EQ(post->async.delay_ns, 30000000);
	free(r.ev);
}

/* A work item posted by the main thread runs on another thread, paired by
 * the item (GThreadPool) or the GTask. */
static void check_pool_run(const char *mode, const char *key, unsigned kind,
                           const char *const *opts)
{
	struct run_result r;
	const char *cmd[] = {PROG, mode, NULL};
	ASSERT_EQ(fx_argus_run(opts, cmd, 20, NULL, &r), 0);
	uint64_t obj;
	ASSERT(fx_key(&r, key, &obj));
	const struct argus_event *post = fx_find(&r, ARGUS_EV_ASYNC_POST, obj_is, obj);
	const struct argus_event *run = fx_find(&r, ARGUS_EV_ASYNC_RUN_BEGIN, obj_is, obj);
	ASSERT_MSG(post && run, "post %p run %p (%zu events)", (void *)post, (void *)run, r.n);
	ASSERT_EQ(post->async.kind, kind);
	ASSERT_EQ(run->async.kind, kind);
	ASSERT_EQ(post->tid, post->pid); /* pushed by the main thread */
	ASSERT(run->tid != post->tid);   /* run by a worker */
	ASSERT(run->ts >= post->ts);
	ASSERT(fx_find(&r, ARGUS_EV_ASYNC_RUN_END, obj_is, obj));
	free(r.ev);
}

TEST(thread_pool_push_pairs_with_its_run)
{
	check_pool_run("pool", "item0", ARGUS_ASYNC_THREADPOOL, NULL);
}

/* Three threads, one ring of their own: the others share ring 0. */
TEST(threads_beyond_the_rings_share_one)
{
	const char *opts[] = {"--rings", "2", NULL};
	check_pool_run("pool", "item0", ARGUS_ASYNC_THREADPOOL, opts);
}

TEST(task_run_in_thread_pairs_with_its_run)
{
	check_pool_run("task", "task", ARGUS_ASYNC_TASK, NULL);
}

TEST(cond_signal_told_from_mutex_handoff)
{
	struct run_result r;
	const char *cmd[] = {PROG, "cond", NULL};
	ASSERT_EQ(fx_argus_run(NULL, cmd, 20, NULL, &r), 0);
	uint64_t cond, mtx;
	ASSERT(fx_key(&r, "cond", &cond) && fx_key(&r, "handoff_mutex", &mtx));
	const struct argus_event *sig = fx_find(&r, ARGUS_EV_COND_SIGNAL, sync_obj_is, cond);
	const struct argus_event *wait = fx_find(&r, ARGUS_EV_COND_WAIT, sync_obj_is, cond);
	const struct argus_event *wake = fx_find(&r, ARGUS_EV_COND_WAKE, sync_obj_is, cond);
	ASSERT_MSG(sig && wait && wake, "signal %p wait %p wake %p", (void *)sig, (void *)wait,
	           (void *)wake);
	ASSERT(sig->tid != wait->tid && wake->tid == wait->tid);
	ASSERT(wait->ts < sig->ts && sig->ts <= wake->ts);
	const struct argus_event *h = fx_find(&r, ARGUS_EV_MUTEX_HANDOFF, sync_obj_is, mtx);
	ASSERT_MSG(h, "no mutex_handoff for the contended unlock");
	ASSERT_EQ(h->pid, h->tid); /* the main thread unlocked it */
	/* neither is mistaken for the other */
	ASSERT(!fx_find(&r, ARGUS_EV_COND_SIGNAL, sync_obj_is, mtx));
	ASSERT(!fx_find(&r, ARGUS_EV_MUTEX_HANDOFF, sync_obj_is, cond));
	free(r.ev);
}

static bool flag_by(const struct argus_event *e, uint64_t tid)
{
	return e->tid == tid && e->flag.value == 1;
}

TEST(flag_written_by_one_thread_read_by_another)
{
	char path[] = "/tmp/argus-hooks-flags.XXXXXX";
	int fd = mkstemp(path);
	dprintf(fd, "# the flag the worker sets\nready_flag 4 rw\n");
	close(fd);
	struct run_result r;
	const char *opts[] = {"--flags", path, NULL};
	const char *cmd[] = {PROG, "flag", NULL};
	int st = fx_argus_run(opts, cmd, 20, NULL, &r);
	unlink(path);
	ASSERT_EQ(st, 0);
	if (strstr(r.err, "perf_event_open") || strstr(r.err, "watchpoints do not fire"))
		SKIP("hardware breakpoints unavailable: %s", r.err);
	uint64_t flag, writer, reader;
	ASSERT(fx_key(&r, "flag", &flag) && fx_key(&r, "writer_tid", &writer) &&
	       fx_key(&r, "reader_tid", &reader));
	const struct argus_event *w = fx_find(&r, ARGUS_EV_FLAG_WRITE, flag_by, writer);
	const struct argus_event *rd = fx_find(&r, ARGUS_EV_FLAG_READ, flag_by, reader);
	ASSERT_MSG(w, "no flag_write by the writer (%zu events) %s", r.n, r.err);
	ASSERT_MSG(rd, "no flag_read of the new value by the reader");
	ASSERT_U64_EQ(w->flag.addr, flag);
	ASSERT_EQ(w->flag.len, 4);
	ASSERT(rd->ts > w->ts);
	free(r.ev);
}

TEST(more_than_four_flags_said_up_front)
{
	char path[] = "/tmp/argus-hooks-flags.XXXXXX";
	int fd = mkstemp(path);
	for (int i = 0; i < 5; i++)
		dprintf(fd, "0x%x 4 w\n", 0x1000 + 8 * i);
	close(fd);
	struct run_result r;
	const char *opts[] = {"--flags", path, NULL};
	const char *cmd[] = {"/bin/true", NULL};
	int st = fx_argus_run(opts, cmd, 20, NULL, &r);
	unlink(path);
	ASSERT_EQ(st, 0);
	ASSERT_CONTAINS(r.err, "5 data flags asked");
	ASSERT_CONTAINS(r.err, "4 debug registers");
	free(r.ev);
}

TEST(bad_flag_line_rejected_with_its_place)
{
	char path[] = "/tmp/argus-hooks-flags.XXXXXX";
	int fd = mkstemp(path);
	dprintf(fd, "ready_flag 4 rw\nready_flag 3 w\n");
	close(fd);
	struct run_result r;
	const char *opts[] = {"--flags", path, NULL};
	const char *cmd[] = {"/bin/true", NULL};
	int st = fx_argus_run(opts, cmd, 20, NULL, &r);
	ASSERT_EQ(st, 5); /* ARGUS_EXIT_BADINPUT */
	char where[128];
	snprintf(where, sizeof(where), "%s:2:", path);
	unlink(path);
	ASSERT_CONTAINS(r.err, where);
	free(r.ev);
}

TEST(pruning_a_hanging_function_removes_the_hang)
{
	struct run_result r;
	const char *cmd[] = {PROG, "hang", NULL};
	/* unpruned: still hanging when its 1 s alarm fires */
	ASSERT_EQ(fx_argus_run(NULL, cmd, 20, NULL, &r), 128 + SIGALRM);
	free(r.ev);
	const char *opts[] = {"--prune", "hang_forever", NULL};
	ASSERT_EQ(fx_argus_run(opts, cmd, 20, NULL, &r), 0);
	ASSERT_CONTAINS(r.out, "hang_forever returned");
	ASSERT(r.seconds < 1.0);
	free(r.ev);
}

TEST(unknown_prune_symbol_reported)
{
	struct run_result r;
	const char *opts[] = {"--prune", "no_such_function_xyz", NULL};
	const char *cmd[] = {PROG, "idle", NULL};
	ASSERT_EQ(fx_argus_run(opts, cmd, 20, NULL, &r), 0);
	ASSERT_CONTAINS(r.err, "no_such_function_xyz: symbol not found");
	free(r.ev);
}

TEST(full_ring_drops_are_counted)
{
	struct run_result r;
	const char *opts[] = {"--rings", "1", "--ring-size", "2", NULL};
	const char *cmd[] = {PROG, "cond", NULL};
	ASSERT_EQ(fx_argus_run(opts, cmd, 20, NULL, &r), 0);
	const struct argus_event *d = fx_find(&r, ARGUS_EV_DROP, NULL, 0);
	ASSERT_MSG(d, "no drop record (%zu events): %s", r.n, r.err);
	ASSERT_EQ(d->drop.source, ARGUS_DROP_HOOK_RING);
	ASSERT(d->drop.count >= 1);
	ASSERT(!strstr(r.err, " 0 dropped"));
	free(r.ev);
}

TEST(inert_without_a_consumer)
{
	struct run_result r;
	char *argv[] = {(char *)PROG, "idle", NULL};
	char env[512];
	snprintf(env, sizeof(env), "LD_PRELOAD=%s", HOOKS_LIB);
	setenv("ARGUS_HOOK_SOCKET", "", 1); /* not a running daemon's either */
	ASSERT_EQ(fx_spawn(argv, 20, env, &r), 0);
	ASSERT_CONTAINS(r.out, "run_tid=");
	ASSERT_EQ(r.err[0], 0); /* not a word from the hooks */
}

TEST(command_missing_is_a_usage_error)
{
	struct run_result r;
	char *argv[] = {getenv("ARGUS_BIN"), "run", "--record", "/tmp/argus-hooks-unused", NULL};
	ASSERT_EQ(fx_spawn(argv, 20, NULL, &r), 2);
	ASSERT_CONTAINS(r.err, "no command given");
}

TEST(sigterm_is_passed_on_and_the_file_completed)
{
	char trace[] = "/tmp/argus-hooks-trace.XXXXXX", out[] = "/tmp/argus-hooks-out.XXXXXX";
	close(mkstemp(trace));
	close(mkstemp(out));
	char *argv[] = {getenv("ARGUS_BIN"), "run",  "--record", trace, "--",
	                (char *)PROG,        "hang", NULL};
	pid_t pid = fx_start(argv, out);
	usleep(300000); /* well inside the program's 1 s hang */
	kill(pid, SIGTERM);
	int st = fx_wait(pid, 10);
	struct argus_trace_reader *rd;
	struct argus_trace_error err;
	int rc = argus_trace_open(&rd, trace, &err);
	unlink(trace);
	unlink(out);
	ASSERT_EQ(st, 128 + SIGTERM); /* the command's own end */
	ASSERT_MSG(rc == 0, "%s", err.msg);
	struct argus_trace_health h;
	argus_trace_get_health(rd, &h);
	ASSERT(h.indexed); /* closed properly, not cut off */
	argus_trace_close(rd);
}

TEST(exit_status_of_the_command_passed_on)
{
	struct run_result r;
	const char *cmd[] = {"/bin/sh", "-c", "exit 3", NULL};
	ASSERT_EQ(fx_argus_run(NULL, cmd, 20, NULL, &r), 3);
	free(r.ev);
}

TEST_MAIN(TEST_ENTRY(idle_post_pairs_with_its_run), TEST_ENTRY(invoke_post_pairs_with_its_run),
          TEST_ENTRY(timeout_post_pairs_with_its_run_and_says_its_delay),
          TEST_ENTRY(thread_pool_push_pairs_with_its_run),
          TEST_ENTRY(task_run_in_thread_pairs_with_its_run),
          TEST_ENTRY(threads_beyond_the_rings_share_one),
          TEST_ENTRY(cond_signal_told_from_mutex_handoff),
          TEST_ENTRY(flag_written_by_one_thread_read_by_another),
          TEST_ENTRY(more_than_four_flags_said_up_front),
          TEST_ENTRY(bad_flag_line_rejected_with_its_place),
          TEST_ENTRY(pruning_a_hanging_function_removes_the_hang),
          TEST_ENTRY(unknown_prune_symbol_reported), TEST_ENTRY(full_ring_drops_are_counted),
          TEST_ENTRY(inert_without_a_consumer), TEST_ENTRY(command_missing_is_a_usage_error),
          TEST_ENTRY(exit_status_of_the_command_passed_on),
          TEST_ENTRY(sigterm_is_passed_on_and_the_file_completed))
