/*
 * Hook records end to end: what libargus-hooks.so records in a real GLib
 * program becomes the graph edges the paper's Table 1 asks for (an async
 * post -> run, a condition signal -> the woken waiter, a data flag write ->
 * read: all strong). The record-level checks are in test_hooks.c.
 */
#include <signal.h>

#include "graph.h"
#include "hooks_fixture.h"
#include "test.h"

#define PROG HOOKS_PROG

/* Replay what `argus run` recorded through the graph, as the daemon would. */
static void graph_of(const struct run_result *r, struct argus_graph_stats *st)
{
	struct argus_graph_opts o;
	struct argus_graph *g;
	argus_graph_opts_default(&o);
	ASSERT_EQ(argus_graph_new(&g, &o), 0);
	ASSERT_EQ(argus_graph_ingest(g, r->ev, r->n), 0);
	argus_graph_flush(g);
	argus_graph_get_stats(g, st);
	argus_graph_free(g);
}

static void need_argus(void)
{
	if (!getenv("ARGUS_BIN"))
		SKIP("ARGUS_BIN not set (run through ctest)");
}

TEST(idle_posted_from_a_worker_is_a_strong_async_edge)
{
	need_argus();
	struct run_result r;
	const char *cmd[] = {PROG, "idle", NULL};
	ASSERT_EQ(fx_argus_run(NULL, cmd, 20, NULL, &r), 0);
	struct argus_graph_stats st;
	graph_of(&r, &st);
	ASSERT_MSG(st.by_kind[ARGUS_EDGE_ASYNC] >= 1, "no async edge from %zu records", r.n);
	ASSERT(st.strong >= st.by_kind[ARGUS_EDGE_ASYNC]);
	free(r.ev);
}

TEST(cond_signal_to_a_waiter_is_a_strong_edge)
{
	need_argus();
	struct run_result r;
	const char *cmd[] = {PROG, "cond", NULL};
	ASSERT_EQ(fx_argus_run(NULL, cmd, 20, NULL, &r), 0);
	struct argus_graph_stats st;
	graph_of(&r, &st);
	ASSERT_MSG(st.by_kind[ARGUS_EDGE_SIGNAL] >= 1, "no signal edge from %zu records", r.n);
	/* the mutex hand-off in the same program is not taken for a signal */
	ASSERT_EQ(st.by_kind[ARGUS_EDGE_BROADCAST], 0);
	free(r.ev);
}

TEST(flag_write_then_read_is_a_strong_edge)
{
	need_argus();
	char path[] = "/tmp/argus-hooks-flags.XXXXXX";
	int fd = mkstemp(path);
	dprintf(fd, "ready_flag 4 rw\n");
	close(fd);
	struct run_result r;
	const char *opts[] = {"--flags", path, NULL};
	const char *cmd[] = {PROG, "flag", NULL};
	int rc = fx_argus_run(opts, cmd, 20, NULL, &r);
	unlink(path);
	ASSERT_EQ(rc, 0);
	if (strstr(r.err, "perf_event_open") || strstr(r.err, "watchpoints do not fire"))
		SKIP("hardware breakpoints unavailable: %s", r.err);
	struct argus_graph_stats st;
	graph_of(&r, &st);
	ASSERT_MSG(st.by_kind[ARGUS_EDGE_FLAG] >= 1, "no flag edge from %zu records", r.n);
	free(r.ev);
}

TEST_MAIN(TEST_ENTRY(idle_posted_from_a_worker_is_a_strong_async_edge),
          TEST_ENTRY(cond_signal_to_a_waiter_is_a_strong_edge),
          TEST_ENTRY(flag_write_then_read_is_a_strong_edge))
