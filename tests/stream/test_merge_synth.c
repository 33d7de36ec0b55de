/* The merge on a synthetic desktop trace (argus synth): split by CPU,
 * delivered per CPU in bursts with CPU-dependent lag, merged back: same
 * records, in time order, none late. */
#include <stdlib.h>

#include "stream.h"
#include "synth.h"
#include "test.h"

#define NCPU 4
#define MS   1000000ull

struct collect {
	struct argus_event *ev;
	size_t n, cap;
};

static int collect_events(void *arg, const struct argus_event *ev, size_t n)
{
	struct collect *c = arg;
	if (c->n + n > c->cap) {
		size_t cap = (c->n + n) * 2;
		struct argus_event *p = realloc(c->ev, cap * sizeof(*p));
		if (!p)
			return -1;
		c->ev = p;
		c->cap = cap;
	}
	memcpy(c->ev + c->n, ev, n * sizeof(*ev));
	c->n += n;
	return 0;
}

static uint32_t intern_any(void *arg, const char *s, size_t len)
{
	(void)arg, (void)s, (void)len;
	return 1;
}

static uint32_t intern_stack_any(void *arg, const uint64_t *ips, uint32_t depth)
{
	(void)arg, (void)ips, (void)depth;
	return 1;
}

static int cmp_ev(const void *a, const void *b)
{
	const struct argus_event *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return memcmp(x, y, sizeof(*x));
}

TEST(synthetic_trace_split_by_cpu_merges_back_in_order)
{
	struct argus_synth_opts o;
	argus_synth_opts_default(&o);
	o.events = 200000;
	o.cpus = NCPU;
	o.start_ns = 1000 * MS;
	struct collect c = {0};
	struct argus_sink sink = {.events = collect_events,
	                          .intern_string = intern_any,
	                          .intern_stack = intern_stack_any,
	                          .arg = &c};
	ASSERT_EQ(argus_synth_run(&o, &sink, NULL), 0);
	ASSERT(c.n >= 200000);

	/* per-CPU streams, each in the generator's order */
	struct argus_event *cpu[NCPU];
	size_t ncpu[NCPU] = {0}, pos[NCPU] = {0};
	for (int k = 0; k < NCPU; k++)
		ASSERT((cpu[k] = malloc(c.n * sizeof(struct argus_event))));
	for (size_t i = 0; i < c.n; i++) {
		unsigned k = c.ev[i].cpu % NCPU;
		cpu[k][ncpu[k]++] = c.ev[i];
	}
	struct argus_merge *m;
	ASSERT_EQ(argus_merge_new(&m, NCPU, 100 * MS), 0);
	struct argus_event *out = malloc(c.n * sizeof(*out));
	ASSERT(out);
	size_t got = 0;
	uint64_t first = c.ev[0].ts, last = c.ev[c.n - 1].ts;
	ASSERT(last - first > 1000 * MS); /* long enough to exercise the watermark */
	for (uint64_t now = first, step = 0; got < c.n; now += 2 * MS, step++) {
		for (int k = 0; k < NCPU; k++) {
			/* CPU k delivers what it made until now - k*20 ms, in bursts */
			uint64_t lag = (uint64_t)k * 20 * MS;
			if (k == 3 && step % 15 != 0)
				continue; /* one CPU delivers only every 30 ms */
			size_t start = pos[k];
			while (pos[k] < ncpu[k] && cpu[k][pos[k]].ts + lag <= now)
				pos[k]++;
			if (pos[k] > start)
				ASSERT_EQ(
				    argus_merge_push(m, k, cpu[k] + start, pos[k] - start, now), 0);
		}
		size_t n;
		while ((n = argus_merge_pop(m, out + got, c.n - got, now)) > 0)
			got += n;
		ASSERT(now < last + 10000 * MS); /* everything comes out in bounded time */
	}
	struct argus_merge_stats st;
	argus_merge_get_stats(m, &st);
	ASSERT_U64_EQ(st.late, 0);
	for (size_t i = 1; i < got; i++)
		ASSERT_MSG(out[i - 1].ts <= out[i].ts, "out of order at %zu", i);
	/* the same records: compare as sorted multisets */
	qsort(c.ev, c.n, sizeof(*c.ev), cmp_ev);
	qsort(out, got, sizeof(*out), cmp_ev);
	ASSERT_EQ(memcmp(c.ev, out, c.n * sizeof(*out)), 0);
	argus_merge_free(m);
	for (int k = 0; k < NCPU; k++)
		free(cpu[k]);
	free(out);
	free(c.ev);
}

TEST_MAIN(TEST_ENTRY(synthetic_trace_split_by_cpu_merges_back_in_order))
