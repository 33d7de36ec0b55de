/*
 * test_graph_cli.c - `argus replay --graph FILE`: the offline path (trace file ->
 * the same ingest), its figures, its exports, and a damaged file.
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "event.h"
#include "graph_events.h"
#include "test.h"

static char dir[] = "/tmp/argus-graph-cli-XXXXXX";

/* A request / reply over a pipe pair and a timer sleep. */
static void write_trace(const char *path)
{
	/* clang-format off */
	struct argus_event ev[] = {
		ev_sys_enter(1 * MS, 20, 21, T_READ),
		ev_switch(2 * MS, 20, 21, 1, 0, 0),
		ev_ipc(3 * MS, true, 10, 11, 0x11, 0, ARGUS_OBJ_PIPE, 8),
		ev_wakeup(4 * MS, 10, 11, 20, 21, 0),
		ev_ipc(5 * MS, false, 20, 21, 0x11, 0, ARGUS_OBJ_PIPE, 8),
		ev_sys_exit(5 * MS, 20, 21, T_READ, 8),
		ev_ipc(6 * MS, true, 20, 21, 0x22, 0, ARGUS_OBJ_PIPE, 8),
		ev_ipc(7 * MS, false, 10, 11, 0x22, 0, ARGUS_OBJ_PIPE, 8),
	};
	/* clang-format on */
	struct argus_trace_writer *w;
	struct argus_trace_error err;
	ASSERT_MSG(argus_trace_writer_open(&w, path, NULL, NULL, &err) == 0, "%s", err.msg);
	ASSERT_EQ(argus_trace_write(w, ev, sizeof(ev) / sizeof(ev[0])), 0);
	ASSERT_MSG(argus_trace_writer_close(w, &err) == 0, "%s", err.msg);
}

/* Run argus with args; output into buf; returns the exit status. */
static int run_argus(const char *args, char *buf, size_t cap)
{
	const char *bin = getenv("ARGUS_BIN");
	if (!bin || access(bin, X_OK))
		SKIP("ARGUS_BIN not set or not executable");
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "%s %s 2>&1", bin, args);
	FILE *p = popen(cmd, "r");
	ASSERT(p);
	size_t n = fread(buf, 1, cap - 1, p);
	buf[n] = 0;
	int st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

TEST(replay_graph_figures_and_exports)
{
	ASSERT(mkdtemp(dir));
	char path[256], args[1024];
	snprintf(path, sizeof(path), "%s/t.argus", dir);
	write_trace(path);
	static char out[16384];
	snprintf(args, sizeof(args), "replay --graph --json %s/g.json --dot %s/g.dot %s", dir, dir,
	         path);
	ASSERT_EQ(run_argus(args, out, sizeof(out)), 0);
	ASSERT_CONTAINS(out, "events 8\n");
	ASSERT_CONTAINS(out, "edges_ipc 2\n");
	ASSERT_CONTAINS(out, "edges_strong 2\n");
	ASSERT_CONTAINS(out, "wakeups_merged 1\n");
	snprintf(args, sizeof(args), "%s/g.json", dir);
	FILE *f = fopen(args, "r");
	ASSERT(f);
	size_t n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = 0;
	fclose(f);
	ASSERT_CONTAINS(out, "\"kind\":\"ipc\",\"strength\":-1");
	snprintf(args, sizeof(args), "rm -rf %s", dir);
	ASSERT_EQ(system(args), 0);
}

TEST(replay_damaged_file)
{
	char tmpl[] = "/tmp/argus-graph-bad-XXXXXX";
	int fd = mkstemp(tmpl);
	ASSERT(fd >= 0);
	ASSERT_EQ(write(fd, "not a trace at all\n", 19), 19);
	close(fd);
	static char out[4096];
	char args[512];
	snprintf(args, sizeof(args), "replay --graph %s", tmpl);
	int rc = run_argus(args, out, sizeof(out));
	unlink(tmpl);
	ASSERT_EQ(rc, 5);
	ASSERT_CONTAINS(out, "argus replay: ");
	ASSERT_CONTAINS(out, tmpl);
}

TEST_MAIN(TEST_ENTRY(replay_graph_figures_and_exports), TEST_ENTRY(replay_damaged_file))
