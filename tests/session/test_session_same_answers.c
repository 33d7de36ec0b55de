/*
 * test_session_same_answers.c - one synthetic desktop with injected stalls,
 * diagnosed (a) from its trace file, as `argus diagnose FILE` does
 * (argus_session_diagnose_file), and (b) the way `argus start` diagnoses
 * live: the same records pushed by their producer (argus synth) into the
 * daemon's worker-thread sink (argus_worker) over a session's pushed
 * source, with ticks of the stream's time between batches. Both must find
 * the same stalls and name the same root causes (pid, tid, function,
 * reason, class). The daemon itself (root, BPF, sockets) is not started:
 * this is the library path its sink runs (session/daemon.c).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "session.h"
#include "synth.h"
#include "test.h"

#define EVENTS 400000
#define RATE   5000
#define MAXD   32

static void synth_opts(struct argus_synth_opts *so, uint64_t seed)
{
	argus_synth_opts_default(so);
	so->seed = seed;
	so->events = EVENTS;
	so->rate = RATE;
}

static void write_trace(const char *path, uint64_t seed)
{
	struct argus_synth_opts so;
	synth_opts(&so, seed);
	struct argus_trace_writer *w;
	struct argus_trace_error err;
	struct argus_trace_meta meta;
	argus_trace_meta_init(&meta, "test_session_same_answers");
	meta.flags |= ARGUS_TRACE_F_SYNTH;
	ASSERT_EQ(argus_trace_writer_open(&w, path, &meta, NULL, &err), 0);
	struct argus_sink sink = argus_trace_writer_sink(w);
	ASSERT_EQ(argus_synth_run(&so, &sink, NULL), 0);
	ASSERT_EQ(argus_trace_writer_close(w, &err), 0);
}

/* What the daemon's path found (written in the worker thread, read after
 * it stopped). */
struct live_got {
	struct argus_diagnosis *d;
	size_t n;
	uint64_t stalls_begun, ends;
};

static void on_stall(void *arg, const struct argus_stall *s)
{
	(void)s;
	((struct live_got *)arg)->stalls_begun++;
}

static void on_diag(void *arg, const struct argus_diagnosis *d)
{
	struct live_got *g = arg;
	if (g->n < MAXD)
		g->d[g->n] = *d;
	g->n++;
}

static void on_end(void *arg, const struct argus_stall *s)
{
	struct live_got *g = arg;
	for (size_t i = 0; i < g->n && i < MAXD; i++)
		if (g->d[i].stall.id == s->id)
			g->d[i].stall.end = s->end;
	g->ends++;
}

static void tick(void *arg, uint64_t stream_ns)
{
	argus_session_tick(arg, stream_ns);
}

/* The daemon's side of the worker: table entries get the daemon's ids (its
 * own tables number them; the worker's sink returns none), batches are
 * queued as the merge delivers them, and a tick of the stream's time (just before the batch's first
 * record: nothing earlier is pending) every few batches. */
struct feeder {
	struct argus_sink w;
	struct argus_worker *worker;
	uint64_t batches;
	/* the daemon's tables: equal entries, equal ids, numbered from 1 */
	char *str[4096];
	uint32_t nstr;
	uint64_t *stk[8192];
	uint32_t stk_depth[8192], nstk;
};

static int f_events(void *arg, const struct argus_event *ev, size_t n)
{
	struct feeder *f = arg;
	if (n && !(f->batches++ % 4) && ev[0].ts)
		argus_worker_tick(f->worker, ev[0].ts - 1);
	/* the daemon's merge delivers at the trace's pace; this feeder would
	 * outrun the worker by far, and a worker behind sheds a process's
	 * records above its share (worker.c): wait while 4 MiB wait, under the
	 * 8 MiB where shedding starts, so that nothing is lost and the two
	 * paths see the same records */
	for (;;) {
		struct argus_worker_stats ws;
		argus_worker_get_stats(f->worker, &ws);
		if (ws.queued_bytes < (4u << 20))
			break;
		nanosleep(&(struct timespec){0, 200000}, NULL);
	}
	return f->w.events(f->w.arg, ev, n);
}
static uint32_t f_string(void *arg, const char *s, size_t len)
{
	struct feeder *f = arg;
	f->w.intern_string(f->w.arg, s, len);
	for (uint32_t i = 0; i < f->nstr; i++)
		if (strlen(f->str[i]) == len && !memcmp(f->str[i], s, len))
			return i + 1;
	ASSERT(f->nstr < 4096);
	f->str[f->nstr] = strndup(s, len);
	return ++f->nstr;
}
static uint32_t f_stack(void *arg, const uint64_t *ips, uint32_t depth)
{
	struct feeder *f = arg;
	f->w.intern_stack(f->w.arg, ips, depth);
	for (uint32_t i = 0; i < f->nstk; i++)
		if (f->stk_depth[i] == depth && !memcmp(f->stk[i], ips, depth * sizeof(*ips)))
			return i + 1;
	ASSERT(f->nstk < 8192);
	f->stk[f->nstk] = malloc((depth ? depth : 1) * sizeof(*ips));
	memcpy(f->stk[f->nstk], ips, depth * sizeof(*ips));
	f->stk_depth[f->nstk] = depth;
	return ++f->nstk;
}
static int f_map(void *arg, const struct argus_map *m)
{
	struct feeder *f = arg;
	return f->w.map(f->w.arg, m);
}
static int f_symbol(void *arg, const struct argus_symbol *sy)
{
	struct feeder *f = arg;
	return f->w.symbol(f->w.arg, sy);
}

static void check_seed(uint64_t seed)
{
	char path[96];
	snprintf(path, sizeof(path), "/tmp/argus-test-same-%d-%llu.argus", (int)getpid(),
	         (unsigned long long)seed);
	write_trace(path, seed);

	/* (a) offline, from the file */
	struct argus_session_opts o;
	argus_session_opts_default(&o);
	struct argus_session_result res;
	ASSERT_EQ(argus_session_diagnose_file(path, &o, &res), 0);

	/* (b) the daemon's path: producer -> worker thread -> session */
	struct live_got g = {.d = calloc(MAXD, sizeof(struct argus_diagnosis))};
	ASSERT(g.d);
	struct argus_session *s;
	ASSERT_EQ(argus_session_new(&s, &o), 0);
	struct argus_session_sink k = {
	    .stall = on_stall, .diagnosis = on_diag, .stall_end = on_end, .arg = &g};
	ASSERT_EQ(argus_session_add_sink(s, &k), 0);
	struct argus_sink inner = argus_session_sink(s);
	static struct feeder f;
	memset(&f, 0, sizeof(f));
	ASSERT_EQ(argus_worker_new(&f.worker, &inner, tick, s, 0), 0);
	f.w = argus_worker_sink(f.worker);
	struct argus_sink feed = {.events = f_events,
	                          .intern_string = f_string,
	                          .intern_stack = f_stack,
	                          .map = f_map,
	                          .symbol = f_symbol,
	                          .arg = &f};
	struct argus_synth_opts so;
	synth_opts(&so, seed);
	ASSERT_EQ(argus_synth_run(&so, &feed, NULL), 0);
	argus_worker_stop(f.worker);
	struct argus_worker_stats ws;
	argus_worker_get_stats(f.worker, &ws);
	argus_worker_free(f.worker);
	for (uint32_t i = 0; i < f.nstr; i++)
		free(f.str[i]);
	for (uint32_t i = 0; i < f.nstk; i++)
		free(f.stk[i]);
	argus_session_end(s);
	struct argus_session_stats st;
	argus_session_get_stats(s, &st);
	argus_session_free(s);

	ASSERT_U64_EQ(ws.dropped, 0);
	ASSERT_U64_EQ(st.events, res.events);
	ASSERT_U64_EQ(st.trigger.stalls, res.trigger.stalls);
	ASSERT_U64_EQ(g.stalls_begun, g.n);
	ASSERT_MSG(g.n == res.n, "seed %llu: %zu stalls live, %zu from the file",
	           (unsigned long long)seed, g.n, res.n);
	ASSERT(res.n >= 5 && res.n <= MAXD);
	for (size_t i = 0; i < res.n; i++) {
		const struct argus_diagnosis *a = &res.d[i], *b = &g.d[i];
		ASSERT_EQ(a->stall.pid, b->stall.pid);
		ASSERT_EQ(a->stall.tid, b->stall.tid);
		ASSERT_EQ(a->stall.cls, b->stall.cls);
		ASSERT_EQ(a->stall.cause, b->stall.cause);
		ASSERT_U64_EQ(a->stall.since, b->stall.since);
		ASSERT_U64_EQ(a->stall.end, b->stall.end);
		ASSERT_MSG(a->root.v.pid == b->root.v.pid && a->root.v.tid == b->root.v.tid,
		           "stall %zu: root %u/%u from the file, %u/%u live", i, a->root.v.pid,
		           a->root.v.tid, b->root.v.pid, b->root.v.tid);
		ASSERT_STR_EQ(a->root.func, b->root.func);
		ASSERT_EQ(a->root.reason, b->root.reason);
		ASSERT_STR_EQ(a->costly_func, b->costly_func);
		ASSERT_EQ(a->ncandidates, b->ncandidates);
		ASSERT_EQ(a->path.n, b->path.n);
	}
	/* and they are right: the ground truth's named at top-1 */
	struct argus_trace_reader *r;
	struct argus_trace_error err;
	const struct argus_event *e;
	ASSERT_EQ(argus_trace_open(&r, path, &err), 0);
	while (argus_trace_next(r, &e, &err) != 0)
		;
	const struct argus_truth *t;
	size_t nt = argus_trace_truths(r, &t);
	ASSERT(nt > 0);
	for (size_t i = 0; i < nt; i++) {
		const struct argus_diagnosis *hit;
		ASSERT_EQ(argus_truth_check(g.d, g.n, &t[i], &hit), ARGUS_TRUTH_RIGHT);
	}
	argus_trace_close(r);
	argus_session_result_free(&res);
	free(g.d);
	unlink(path);
}

TEST(file_and_daemon_path_agree_seed1)
{
	check_seed(1);
}

TEST(file_and_daemon_path_agree_seed2)
{
	check_seed(2);
}

TEST_MAIN(TEST_ENTRY(file_and_daemon_path_agree_seed1),
          TEST_ENTRY(file_and_daemon_path_agree_seed2))
