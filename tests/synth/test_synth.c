/* argus synth: determinism, counts, consistency, ground truth, ambiguity. */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "synth_check.h"
#include "tests/test.h"

static struct ck *run(uint64_t seed, uint64_t events, double amb, uint32_t anomalies, bool store,
                      struct argus_synth_stats *st)
{
	struct argus_synth_opts o;
	argus_synth_opts_default(&o);
	o.seed = seed;
	o.events = events;
	o.ambiguous = amb;
	o.anomalies = anomalies;
	struct ck *c = ck_new(store);
	struct argus_sink s = ck_sink(c);
	int r = argus_synth_run(&o, &s, st);
	ASSERT_EQ(r, 0);
	return c;
}

TEST(options_are_validated)
{
	struct argus_synth_opts o;
	argus_synth_opts_default(&o);
	ASSERT(argus_synth_opts_check(&o) == NULL);
	o.events = 999;
	ASSERT(argus_synth_opts_check(&o) != NULL);
	o.events = 50000001;
	ASSERT(argus_synth_opts_check(&o) != NULL);
	argus_synth_opts_default(&o);
	o.apps = 0;
	ASSERT(argus_synth_opts_check(&o) != NULL);
	argus_synth_opts_default(&o);
	o.cpus = 65;
	ASSERT(argus_synth_opts_check(&o) != NULL);
	argus_synth_opts_default(&o);
	o.ambiguous = 0.95;
	ASSERT(argus_synth_opts_check(&o) != NULL);
	o.ambiguous = 0.0 / 0.0;
	ASSERT(argus_synth_opts_check(&o) != NULL);
	struct argus_sink none = {0};
	ASSERT_EQ(argus_synth_run(&o, &none, NULL), ARGUS_SYNTH_EINVAL);
}

TEST(anomaly_list_parses)
{
	uint32_t m = 0;
	const char *bad;
	ASSERT_EQ(argus_synth_parse_anomalies("all", &m, &bad), 0);
	ASSERT_EQ(m, ARGUS_SYNTH_ANOMALIES_ALL);
	ASSERT_EQ(argus_synth_parse_anomalies("none", &m, &bad), 0);
	ASSERT_EQ(m, 0);
	ASSERT_EQ(argus_synth_parse_anomalies("long_running,decoys", &m, &bad), 0);
	ASSERT_EQ(m, ARGUS_SYNTH_ANOMALY(ARGUS_ANOMALY_LONG_RUNNING) |
	                 ARGUS_SYNTH_ANOMALY(ARGUS_ANOMALY_DECOY_IDLE) |
	                 ARGUS_SYNTH_ANOMALY(ARGUS_ANOMALY_DECOY_BUSY));
	ASSERT_EQ(argus_synth_parse_anomalies("yield_loop,bogus", &m, &bad), -1);
	ASSERT_STR_EQ(bad, "bogus");
	ASSERT_EQ(argus_synth_parse_anomalies("", &m, &bad), -1);
}

TEST(same_seed_same_bytes_other_seed_differs)
{
	struct argus_synth_stats st;
	struct ck *a = run(7, 200000, 0.4, ARGUS_SYNTH_ANOMALIES_ALL, false, &st);
	struct ck *b = run(7, 200000, 0.4, ARGUS_SYNTH_ANOMALIES_ALL, false, &st);
	struct ck *c = run(8, 200000, 0.4, ARGUS_SYNTH_ANOMALIES_ALL, false, &st);
	ASSERT_U64_EQ(a->hash, b->hash);
	ASSERT(a->hash != c->hash);
	ck_free(a);
	ck_free(b);
	ck_free(c);
}

TEST(exact_event_counts)
{
	static const uint64_t counts[] = {1000, 1001, 54321, 2000000};
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		struct argus_synth_stats st;
		struct ck *c = run(3, counts[i], 0.4, ARGUS_SYNTH_ANOMALIES_ALL, false, &st);
		ASSERT_U64_EQ(c->n, counts[i]);
		ASSERT_U64_EQ(st.events, counts[i]);
		ASSERT_MSG(c->errors == 0, "%s", c->first_error);
		ck_free(c);
	}
}

TEST(stream_is_consistent)
{
	/* global order, one CPU per thread, switches from the running thread,
	 * wake-ups of blocked threads only, every receive after its send, every
	 * futex wake-up after a wait, async runs after posts, timers fire armed,
	 * dispatches nest */
	struct argus_synth_stats st;
	struct ck *c = run(11, 600000, 0.4, ARGUS_SYNTH_ANOMALIES_ALL, false, &st);
	ASSERT_MSG(c->errors == 0, "%" PRIu64 " faults, first: %s", c->errors, c->first_error);
	ASSERT_U64_EQ(c->ipc_unpaired, 0);
	ASSERT_U64_EQ(c->futex_unpaired, 0);
	ASSERT_U64_EQ(c->async_unpaired, 0);
	ASSERT_U64_EQ(c->timer_unarmed, 0);
	for (uint32_t tid = 0; tid < CK_TIDS; tid++)
		ASSERT_MSG(c->dispatch_depth[tid] <= 1, "tid %u: %d dispatches open", tid,
		           c->dispatch_depth[tid]);
	/* everything the model promises is there */
	static const uint16_t must[] = {
	    ARGUS_EV_PROC_FORK,
	    ARGUS_EV_THREAD_NEW,
	    ARGUS_EV_PROC_EXEC,
	    ARGUS_EV_COMM,
	    ARGUS_EV_MMAP,
	    ARGUS_EV_SCHED_SWITCH,
	    ARGUS_EV_SCHED_WAKEUP,
	    ARGUS_EV_SYS_ENTER,
	    ARGUS_EV_SYS_EXIT,
	    ARGUS_EV_IPC_SEND,
	    ARGUS_EV_IPC_RECV,
	    ARGUS_EV_FUTEX_WAIT,
	    ARGUS_EV_FUTEX_WAKE,
	    ARGUS_EV_TIMER_ARM,
	    ARGUS_EV_TIMER_FIRE,
	    ARGUS_EV_TIMER_CANCEL,
	    ARGUS_EV_IRQ_ENTRY,
	    ARGUS_EV_IRQ_EXIT,
	    ARGUS_EV_SOFTIRQ_ENTRY,
	    ARGUS_EV_SOFTIRQ_EXIT,
	    ARGUS_EV_STACK,
	    ARGUS_EV_CPU_SAMPLE,
	    ARGUS_EV_UI_INPUT,
	    ARGUS_EV_LOOP_ITER_BEGIN,
	    ARGUS_EV_LOOP_ITER_END,
	    ARGUS_EV_DISPATCH_BEGIN,
	    ARGUS_EV_DISPATCH_END,
	    ARGUS_EV_ASYNC_POST,
	    ARGUS_EV_ASYNC_RUN_BEGIN,
	    ARGUS_EV_ASYNC_RUN_END,
	    ARGUS_EV_COND_WAIT,
	    ARGUS_EV_COND_WAKE,
	    ARGUS_EV_COND_SIGNAL,
	    ARGUS_EV_COND_BROADCAST,
	    ARGUS_EV_MUTEX_HANDOFF,
	    ARGUS_EV_DBUS_SEND,
	    ARGUS_EV_DBUS_RECV,
	    ARGUS_EV_FLAG_WRITE,
	    ARGUS_EV_FLAG_READ,
	};
	for (size_t i = 0; i < sizeof(must) / sizeof(must[0]); i++)
		ASSERT_MSG(c->types[must[i]] > 0, "no %s record", argus_event_type_name(must[i]));
	ck_free(c);
}

static size_t first_rec_at(const struct ck *c, uint64_t ts)
{
	size_t lo = 0, hi = c->nrec;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (c->rec[mid].ts < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Inputs the UI thread tid handled (one ui_input each) that showed the mark
 * `what` of a record type before ts: earlier runs of the same interaction. */
static unsigned episodes_before(const struct ck *c, uint32_t tid, uint16_t type, uint32_t what,
                                uint64_t ts)
{
	unsigned n = 0;
	uint64_t input = UINT64_MAX, counted = UINT64_MAX;
	for (size_t i = 0; i < c->nrec && c->rec[i].ts < ts; i++) {
		const struct ck_rec *r = &c->rec[i];
		if (r->tid != tid)
			continue;
		if (r->type == ARGUS_EV_UI_INPUT)
			input = r->what;
		else if (r->type == type && r->what == what && input != counted) {
			n++;
			counted = input;
		}
	}
	return n;
}

/* The last mark of a type by tid within [from, to]; 0 when none. */
static uint32_t mark_in(const struct ck *c, uint32_t tid, uint16_t type, uint64_t from, uint64_t to)
{
	uint32_t what = 0;
	for (size_t i = first_rec_at(c, from); i < c->nrec && c->rec[i].ts <= to; i++)
		if (c->rec[i].tid == tid && c->rec[i].type == type)
			what = c->rec[i].what;
	return what;
}

/* Each truth record is true to the stream; returns the set of kinds seen. */
static unsigned check_truths(const struct ck *c)
{
	unsigned seen = 0;
	for (size_t i = 0; i < c->ntruth; i++) {
		const struct argus_truth *t = &c->truth[i];
		ASSERT(t->kind >= 1 && t->kind <= 7);
		seen |= 1u << t->kind;
		ASSERT_MSG(c->named[t->root_tid], "root tid %u never named", t->root_tid);
		ASSERT(t->root_start <= t->root_end && t->stall_start <= t->stall_end);
		ASSERT(t->root_func_str != 0 && t->desc_str != 0);
		/* the root-cause thread acts inside its span */
		bool acts = false;
		for (size_t k = first_rec_at(c, t->root_start - 50000);
		     k < c->nrec && c->rec[k].ts <= t->root_end + 50000; k++)
			acts |= c->rec[k].tid == t->root_tid;
		ASSERT_MSG(acts, "root tid %u silent in its span (kind %u)", t->root_tid, t->kind);
		struct ck_time rt = ck_thread_time(c, t->root_tid, t->root_start, t->root_end);
		uint64_t rspan = t->root_end - t->root_start;
		if (t->kind >= ARGUS_ANOMALY_DECOY_IDLE) {
			ASSERT_EQ(t->ui_pid, 0);
			ASSERT(rspan >= 2000000000ULL);
			if (t->kind == ARGUS_ANOMALY_DECOY_IDLE)
				ASSERT_MSG(rt.blocked >= rspan * 9 / 10, "decoy idle not idle");
			else
				ASSERT_MSG(rt.run + rt.ready >= rspan * 9 / 10,
				           "decoy busy not busy");
			continue;
		}
		ASSERT_MSG(c->named[t->ui_tid], "ui tid %u never named", t->ui_tid);
		uint64_t span = t->stall_end - t->stall_start;
		ASSERT_MSG(span >= 2000000000ULL, "stall of kind %u lasts only %" PRIu64 " ns",
		           t->kind, span);
		struct ck_time ut = ck_thread_time(c, t->ui_tid, t->stall_start, t->stall_end);
		uint32_t mark;
		unsigned base;
		switch (t->kind) {
		case ARGUS_ANOMALY_LONG_RUNNING:
			ASSERT_MSG(ut.run + ut.ready >= span * 9 / 10,
			           "long_running UI not on CPU");
			ASSERT(t->root_tid == t->ui_tid);
			mark = mark_in(c, t->ui_tid, ARGUS_EV_CPU_SAMPLE, t->stall_start,
			               t->stall_end);
			ASSERT(mark != 0);
			base = episodes_before(c, t->ui_tid, ARGUS_EV_CPU_SAMPLE, mark,
			                       t->stall_start);
			break;
		case ARGUS_ANOMALY_YIELD_LOOP:
			ASSERT_MSG(ut.run + ut.ready >= span * 9 / 10,
			           "yield loop UI not spinning");
			ASSERT(t->root_tid != t->ui_tid);
			base = episodes_before(c, t->ui_tid, ARGUS_EV_SYS_ENTER, 1, t->stall_start);
			break;
		default: /* the waits */
			ASSERT_MSG(ut.blocked >= span * 8 / 10,
			           "kind %u: UI blocked %" PRIu64 " of %" PRIu64, t->kind,
			           ut.blocked, span);
			ASSERT(t->root_tid != t->ui_tid);
			mark = mark_in(c, t->ui_tid, ARGUS_EV_STACK, t->stall_start, t->stall_end);
			ASSERT(mark != 0);
			base = episodes_before(c, t->ui_tid, ARGUS_EV_STACK, mark, t->stall_start);
			break;
		}
		ASSERT_MSG(base >= 3, "kind %u: only %u normal runs before the anomaly", t->kind,
		           base);
	}
	return seen;
}

TEST(every_anomaly_has_true_ground_truth)
{
	struct argus_synth_stats st;
	struct ck *c = run(5, 1500000, 0.4, ARGUS_SYNTH_ANOMALIES_ALL, true, &st);
	ASSERT_MSG(c->errors == 0, "%s", c->first_error);
	ASSERT_EQ(st.injected, 7);
	ASSERT_EQ(c->ntruth, 7);
	ASSERT_EQ(check_truths(c), ARGUS_SYNTH_ANOMALIES_ALL);
	ck_free(c);
}

TEST(long_traces_repeat_the_anomalies)
{
	/* one round of every kind per 12 s of desktop per kind, each with fresh
	 * baselines before it */
	struct argus_synth_opts o;
	argus_synth_opts_default(&o);
	o.seed = 6;
	o.events = 3000000;
	o.rate = 10000;
	struct ck *c = ck_new(true);
	struct argus_sink s = ck_sink(c);
	struct argus_synth_stats st;
	ASSERT_EQ(argus_synth_run(&o, &s, &st), 0);
	ASSERT_MSG(c->errors == 0, "%s", c->first_error);
	ASSERT_EQ(c->ntruth, st.injected);
	ASSERT_MSG(st.injected >= 18, "only %u anomalies in 3 rounds", st.injected);
	for (unsigned k = 1; k <= 7; k++)
		ASSERT(st.per_kind[k] >= 2);
	ASSERT_EQ(check_truths(c), ARGUS_SYNTH_ANOMALIES_ALL);
	ck_free(c);
}

TEST(extreme_shapes_stay_consistent)
{
	static const struct {
		uint32_t apps, cpus, rate;
	} shapes[] = {{1, 1, 30000}, {16, 64, 30000}, {2, 3, 2000}, {4, 2, 200000}};
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		struct argus_synth_opts o;
		argus_synth_opts_default(&o);
		o.events = 1500000;
		o.apps = shapes[i].apps;
		o.cpus = shapes[i].cpus;
		o.rate = shapes[i].rate;
		struct ck *c = ck_new(false);
		struct argus_sink s = ck_sink(c);
		struct argus_synth_stats st;
		ASSERT_EQ(argus_synth_run(&o, &s, &st), 0);
		printf("apps %u cpus %u rate %u: %" PRIu64
		       " events over %.1f s, %u anomalies, %u skipped\n",
		       o.apps, o.cpus, o.rate, c->n, (double)(st.last_ts - st.first_ts) / 1e9,
		       st.injected, st.skipped);
		ASSERT_MSG(c->errors == 0, "shape %zu: %s", i, c->first_error);
		ASSERT_U64_EQ(c->n, o.events);
		ASSERT_EQ(c->ntruth, st.injected);
		ASSERT(st.injected >= 1);
		ck_free(c);
	}
}

TEST(no_anomalies_no_truth)
{
	struct argus_synth_stats st;
	struct ck *c = run(5, 300000, 0.4, 0, false, &st);
	ASSERT_EQ(c->ntruth, 0);
	ASSERT_EQ(st.injected, 0);
	ck_free(c);
}

TEST(small_budget_skips_anomalies_and_says_so)
{
	struct argus_synth_stats st;
	struct ck *c = run(5, 5000, 0.4, ARGUS_SYNTH_ANOMALIES_ALL, false, &st);
	ASSERT_EQ(st.injected + st.skipped, 7);
	ASSERT_EQ(c->ntruth, st.injected);
	ck_free(c);
}

TEST(ambiguous_share_follows_the_option)
{
	/* docs/synth.md: a thread-context sched_wakeup is unambiguous when the
	 * waker's next record is a send the wakee then receives, or a one-waiter
	 * futex wake on the wakee's futex that is not a mutex hand-off */
	static const double want[] = {0.0, 0.2, 0.4, 0.6};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct argus_synth_stats st;
		struct ck *c = run(21, 400000, want[i], ARGUS_SYNTH_ANOMALIES_ALL, false, &st);
		ASSERT(c->wake_total > 1000);
		double got = (double)c->wake_amb / (double)c->wake_total;
		printf("ambiguous share: asked %.2f, measured %.4f of %" PRIu64 " wake-up edges\n",
		       want[i], got, c->wake_total);
		ASSERT_MSG(got > want[i] - 0.03 && got < want[i] + 0.03, "asked %.2f got %.4f",
		           want[i], got);
		ck_free(c);
	}
}

static int null_events(void *arg, const struct argus_event *ev, size_t n)
{
	(void)ev;
	*(uint64_t *)arg += n;
	return 0;
}

TEST(generation_speed)
{
	uint64_t n = 0;
	struct argus_sink s = {.events = null_events, .arg = &n};
	struct argus_synth_opts o;
	argus_synth_opts_default(&o);
	o.events = 2000000;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	ASSERT_EQ(argus_synth_run(&o, &s, NULL), 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	double sec = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	ASSERT_U64_EQ(n, 2000000);
	printf("generation: %.1f M events/s into a null sink\n", (double)n / sec / 1e6);
}

static int failing_events(void *arg, const struct argus_event *ev, size_t n)
{
	(void)arg;
	(void)ev;
	(void)n;
	return -1;
}

TEST(sink_failure_is_reported)
{
	struct argus_sink s = {.events = failing_events};
	struct argus_synth_opts o;
	argus_synth_opts_default(&o);
	o.events = 100000;
	ASSERT_EQ(argus_synth_run(&o, &s, NULL), ARGUS_SYNTH_ESINK);
}

struct header_hash {
	uint64_t n, h;
};

static int header_events(void *arg, const struct argus_event *ev, size_t n)
{
	struct header_hash *hh = arg;
	for (size_t k = 0; k < n; k++) {
		const uint64_t *wd = (const uint64_t *)&ev[k];
		for (int i = 0; i < 3; i++)
			hh->h = ((hh->h ^ wd[i]) * 0x100000001b3ULL) ^ (hh->h >> 29);
	}
	hh->n += n;
	return 0;
}

TEST(round_trip_through_trace_file)
{
	char path[] = "/tmp/argus-synth-test-XXXXXX";
	int fd = mkstemp(path);
	ASSERT(fd >= 0);
	close(fd);
	struct argus_trace_writer *w;
	struct argus_trace_error err;
	ASSERT_MSG(argus_trace_writer_open(&w, path, NULL, NULL, &err) == 0, "%s", err.msg);
	struct argus_sink s = argus_trace_writer_sink(w);
	struct argus_synth_opts o;
	argus_synth_opts_default(&o);
	o.events = 700000;
	struct argus_synth_stats st;
	ASSERT_EQ(argus_synth_run(&o, &s, &st), 0);
	ASSERT_MSG(argus_trace_writer_close(w, &err) == 0, "%s", err.msg);

	struct ck *c = ck_new(false);
	struct argus_sink cs = ck_sink(c);
	ASSERT_EQ(argus_synth_run(&o, &cs, NULL), 0);
	ASSERT_MSG(c->errors == 0, "%s", c->first_error);

	struct argus_trace_reader *r;
	ASSERT_MSG(argus_trace_open(&r, path, &err) == 0, "%s", err.msg);
	const struct argus_event *ev;
	uint64_t n = 0, h = 0xcbf29ce484222325ULL;
	static struct {
		uint32_t pid, ustack;
	} st_seen[3000];
	size_t nseen = 0;
	int rc;
	while ((rc = argus_trace_next(r, &ev, &err)) == 1) {
		if ((ev->type == ARGUS_EV_STACK || ev->type == ARGUS_EV_CPU_SAMPLE) &&
		    nseen < 3000 && ev->stack.ustack)
			st_seen[nseen++].pid = ev->pid,
			st_seen[nseen - 1].ustack = ev->stack.ustack;
		/* header words only: table ids differ between sinks */
		const uint64_t *wd = (const uint64_t *)ev;
		for (int i = 0; i < 3; i++)
			h = ((h ^ wd[i]) * 0x100000001b3ULL) ^ (h >> 29);
		n++;
	}
	ASSERT_MSG(rc == 0, "%s", err.msg);
	ASSERT_U64_EQ(n, st.events);
	/* the same records as a run into memory */
	struct header_hash hh = {0, 0xcbf29ce484222325ULL};
	struct argus_sink ds = {.events = header_events, .arg = &hh};
	ASSERT_EQ(argus_synth_run(&o, &ds, NULL), 0);
	ASSERT_U64_EQ(hh.n, n);
	ASSERT_U64_EQ(h, hh.h);
	const struct argus_truth *tr;
	size_t nt = argus_trace_truths(r, &tr);
	ASSERT_EQ(nt, st.injected);
	ASSERT(nt > 0);
	ASSERT_STR_EQ(argus_anomaly_kind_name(tr[0].kind), "long_running");
	const char *fn = argus_trace_string(r, tr[0].root_func_str);
	ASSERT(fn && strstr(fn, "_search_match_line"));
	/* every stack resolves: frames inside a mapping of its process, on a symbol */
	const struct argus_symbol *syms;
	size_t nsyms = argus_trace_symbols(r, &syms);
	ASSERT(nsyms > 50);
	const struct argus_map *maps;
	size_t nmaps = argus_trace_maps(r, &maps);
	ASSERT(nseen > 1000);
	for (size_t i = 0; i < nseen; i++) {
		struct argus_stack stk;
		ASSERT(argus_trace_stack(r, st_seen[i].ustack, &stk));
		ASSERT(stk.depth >= 3);
		for (uint32_t f = 0; f < stk.depth; f++) {
			const struct argus_map *m = NULL;
			for (size_t k = 0; k < nmaps; k++)
				if (maps[k].pid == st_seen[i].pid && stk.ips[f] >= maps[k].start &&
				    stk.ips[f] < maps[k].end)
					m = &maps[k];
			ASSERT_MSG(m, "frame %u of stack %u (pid %u) is in no mapping", f,
			           st_seen[i].ustack, st_seen[i].pid);
			uint64_t off = stk.ips[f] - m->start + m->pgoff;
			bool named = false;
			for (size_t k = 0; k < nsyms && !named; k++)
				named = syms[k].path_str == m->path_str && off >= syms[k].offset &&
				        off < syms[k].offset + syms[k].size;
			ASSERT_MSG(named, "frame %u of stack %u has no symbol", f,
			           st_seen[i].ustack);
		}
	}
	argus_trace_close(r);
	unlink(path);
	ck_free(c);
}

TEST_MAIN(TEST_ENTRY(options_are_validated), TEST_ENTRY(anomaly_list_parses),
          TEST_ENTRY(same_seed_same_bytes_other_seed_differs), TEST_ENTRY(exact_event_counts),
          TEST_ENTRY(stream_is_consistent), TEST_ENTRY(every_anomaly_has_true_ground_truth),
          TEST_ENTRY(long_traces_repeat_the_anomalies), TEST_ENTRY(extreme_shapes_stay_consistent),
          TEST_ENTRY(no_anomalies_no_truth), TEST_ENTRY(small_budget_skips_anomalies_and_says_so),
          TEST_ENTRY(ambiguous_share_follows_the_option), TEST_ENTRY(generation_speed),
          TEST_ENTRY(sink_failure_is_reported), TEST_ENTRY(round_trip_through_trace_file))
