/*
 * test_diagnose_stray_frames.c - wait stacks unwound by frame pointers
 * through a library built without them: the innermost frame is right (the
 * wait's own ip), the next one is whatever word sat on the stack, a heap
 * pointer that is no function's. Two waits at one call site then get
 * different stack ids; they must still compare as one call, or the earlier
 * quick wait is no baseline and the stall is answered with the wait itself
 * (zoo B14b: a miss in about one live run in four named the UI thread's
 * own __poll).
 *
 * The UI thread (APP) wakes a helper (HELPER) and polls for its answer;
 * three times the helper answers within a millisecond, the fourth time it
 * sleeps: it is the root cause.
 */
#include <stdlib.h>

#include "../graph/graph_events.h"
#include "beam.h"
#include "test.h"

enum { APP = 100, HELPER = 200, T_POLL = 7 };

#define POLL_IP 0x7f0000001010ull /* __poll in libc */

/* wait stacks, innermost first: the poll, then a stray word (1..4) */
static const uint64_t stacks[][2] = {
    {POLL_IP, 0x555500a00040ull},
    {POLL_IP, 0x555500b13370ull},
    {POLL_IP, 0x555500c00080ull},
    {POLL_IP, 0x555500d2a0c0ull},
};

static bool stub_resolve(void *arg, uint32_t pid, uint64_t ip, struct argus_frame *out)
{
	(void)arg;
	if (pid != APP || ip < 0x7f0000001000ull || ip >= 0x7f0000001100ull)
		return false;
	snprintf(out->func, sizeof(out->func), "__poll");
	snprintf(out->srcline, sizeof(out->srcline), "libc.so.6+0x10");
	snprintf(out->object, sizeof(out->object), "libc.so.6");
	out->system = true;
	return true;
}

static bool stub_stack(void *arg, uint32_t id, const uint64_t **ips, uint32_t *depth)
{
	(void)arg;
	if (!id || id > sizeof(stacks) / sizeof(stacks[0]))
		return false;
	*ips = stacks[id - 1];
	*depth = 2;
	return true;
}

static const char *comm_of(void *arg, uint32_t pid)
{
	(void)arg;
	return pid == APP ? "demo-app" : pid == HELPER ? "slow-helper" : "?";
}

struct trace {
	struct argus_event ev[256];
	size_t n;
};

static void add(struct trace *t, struct argus_event e)
{
	ASSERT(t->n < sizeof(t->ev) / sizeof(t->ev[0]));
	t->ev[t->n++] = e;
}

/* One call at ts: the app wakes the helper and polls (wait stack id); the
 * helper works work_ns (a sleep when long) and wakes the app. */
static void call(struct trace *t, uint64_t ts, uint32_t stack, uint64_t work_ns)
{
	add(t, ev_wakeup(ts, APP, APP, HELPER, HELPER, 0));
	add(t, ev_sys_enter(ts + 1000, APP, APP, T_POLL));
	add(t, ev_obj(ts + 2000, ARGUS_EV_STACK, APP, APP, stack));
	add(t, ev_switch(ts + 3000, APP, APP, 1, HELPER, HELPER));
	add(t, ev_sys_exit(ts + 4000, HELPER, HELPER, T_POLL, 1));
	add(t, ev_sys_enter(ts + 5000, HELPER, HELPER, T_NANOSLEEP));
	add(t, ev_switch(ts + 6000, HELPER, HELPER, 1, 0, 0));
	uint64_t a = ts + 7000 + work_ns;
	add(t, ev_sys_exit(a, HELPER, HELPER, T_NANOSLEEP, 0));
	add(t, ev_wakeup(a + 1000, HELPER, HELPER, APP, APP, 0));
	add(t, ev_sys_enter(a + 2000, HELPER, HELPER, T_POLL));
	add(t, ev_switch(a + 3000, HELPER, HELPER, 1, APP, APP));
	add(t, ev_sys_exit(a + 4000, APP, APP, T_POLL, 1));
}

TEST(a_stray_frame_does_not_make_two_waits_two_calls)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct argus_diagnosis *d = calloc(1, sizeof(*d));
	ASSERT(t && d);
	add(t, ev_comm(1, APP, APP, "demo-app"));
	add(t, ev_comm(2, HELPER, HELPER, "slow-helper"));
	call(t, 100 * MS, 1, 300000);
	call(t, 400 * MS, 2, 300000);
	call(t, 700 * MS, 3, 300000);
	uint64_t hang = SEC;
	call(t, hang, 4, 4 * SEC);
	struct argus_stall st = {.id = 1,
	                         .pid = APP,
	                         .tid = APP,
	                         .since = hang,
	                         .detected = hang + 2 * SEC,
	                         .cls = ARGUS_STALL_LONG_WAIT,
	                         .blocked = true,
	                         .wait_nr = T_POLL};
	size_t n = 0;
	while (n < t->n && t->ev[n].ts <= st.detected)
		n++;
	struct argus_graph *g;
	struct argus_samples *waits;
	ASSERT_EQ(argus_graph_new(&g, NULL), 0);
	ASSERT_EQ(argus_samples_new_waits(&waits), 0);
	ASSERT_EQ(argus_graph_ingest(g, t->ev, n), 0);
	argus_samples_feed(waits, t->ev, n);
	struct argus_symbolizer sym = {stub_resolve, stub_stack, NULL};
	struct argus_graph_view v;
	argus_graph_view_begin(g, &v);
	struct argus_beam_params p;
	argus_beam_params_default(&p);
	ASSERT_EQ(argus_diagnose(&v, &st, &p, ARGUS_ALGO_BEAM, NULL, &sym, comm_of, NULL, NULL, d),
	          0);
	argus_graph_view_end(&v);
	argus_samples_free(waits);
	argus_graph_free(g);
	printf("%s\n", d->summary);
	ASSERT(d->ncandidates);
	ASSERT_EQ(d->root.v.pid, HELPER);
	ASSERT(d->baseline);
	free(d);
	free(t);
}

TEST_MAIN(TEST_ENTRY(a_stray_frame_does_not_make_two_waits_two_calls))
