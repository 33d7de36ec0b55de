/*
 * test_diagnose_costly.c - the costly function of a LongRunning stall from
 * the UI thread's sampled stacks through argus_diagnose: the innermost
 * application function on at least 98 % of those, taken during the stall,
 * that reach application code. A few samples outside the hot function (the
 * handler's set-up) must not hide it, samples taken in a shared library without frame pointers (the
 * library ip, the application caller found on the stack, then garbage) must still count for their
 * caller, and two helpers sharing the time name the function that calls both.
 */
#include <stdlib.h>
#include <string.h>

#include "../graph/graph_events.h"
#include "beam.h"
#include "test.h"

enum { APP = 100, TOOL = 300 };

/* Application code: one 0x100-byte function per name; anything else is a
 * shared library (unnamed). */
static const char *const funcs[] = {
    "main",    "on_key",   "page_load", "gc_collect",      "a11y_describe",
    "compute", "helper_a", "helper_b",  "composite_tiles", "clear_tile"};
enum {
	F_MAIN,
	F_ON_KEY,
	F_PAGE_LOAD,
	F_GC_COLLECT,
	F_A11Y,
	F_COMPUTE,
	F_HELPER_A,
	F_HELPER_B,
	F_COMPOSITE,
	F_CLEAR_TILE
};
#define AT(f)  (0x400000ull + (uint64_t)(f)*0x100 + 0x10)
#define LIB(k) (0x7f0000001000ull + (uint64_t)(k)*0x40)

struct stacks {
	uint64_t ips[64][8];
	uint32_t depth[64];
	uint32_t n;
};

static bool resolve(void *arg, uint32_t pid, uint64_t ip, struct argus_frame *f)
{
	(void)arg;
	(void)pid;
	if (ip < 0x400000 || ip >= 0x400000 + 0x100 * (sizeof(funcs) / sizeof(funcs[0])))
		return false;
	*f = (struct argus_frame){.system = false};
	snprintf(f->func, sizeof(f->func), "%s", funcs[(ip - 0x400000) / 0x100]);
	snprintf(f->srcline, sizeof(f->srcline), "app.c:1");
	snprintf(f->object, sizeof(f->object), "app");
	return true;
}

static bool stack(void *arg, uint32_t id, const uint64_t **ips, uint32_t *depth)
{
	struct stacks *s = arg;
	if (!id || id > s->n)
		return false;
	*ips = s->ips[id - 1];
	*depth = s->depth[id - 1];
	return true;
}

/* a stack id for frames (innermost first) */
static uint32_t intern(struct stacks *s, const uint64_t *ips, uint32_t depth)
{
	ASSERT(s->n < 64 && depth <= 8);
	memcpy(s->ips[s->n], ips, depth * sizeof(*ips));
	s->depth[s->n] = depth;
	return ++s->n;
}

/* The UI thread reads a key at 1 s and stays on CPU; samples every 20 ms
 * from 0.99 s (the first before the key was read), each with the stack id ids[k % nids] (a
 * pattern). Returns the costly function argus names ("" for none). */
static void costly(struct stacks *s, const uint32_t *ids, size_t nids, char *out, size_t cap)
{
	struct argus_graph *g;
	struct argus_samples *smp;
	ASSERT_EQ(argus_graph_new(&g, NULL), 0);
	ASSERT_EQ(argus_samples_new(&smp), 0);
	uint64_t since = 1 * SEC;
	struct argus_event ev[8];
	size_t n = 0;
	ev[n++] = ev_comm(1, APP, APP, "demo-app");
	ev[n++] = ev_comm(2, TOOL, TOOL, "xdotool");
	ev[n++] = ev_sys_enter(since - 2 * MS, APP, APP, T_EPOLL_WAIT);
	ev[n++] = ev_switch(since - 1 * MS, APP, APP, 1, TOOL, TOOL);
	ev[n++] = ev_wakeup(since, TOOL, TOOL, APP, APP, 0);
	ev[n++] = ev_sys_exit(since + 1000, APP, APP, T_EPOLL_WAIT, 1);
	ASSERT_EQ(argus_graph_ingest(g, ev, n), 0);
	for (size_t k = 0; k < 90; k++) {
		struct argus_event e =
		    ev_base(since - 10 * MS + k * 20 * MS, ARGUS_EV_CPU_SAMPLE, APP, APP);
		e.stack.ustack = ids[k % nids];
		e.stack.kind = ARGUS_STACK_SAMPLE;
		argus_samples_feed(smp, &e, 1);
	}
	struct argus_stall st = {.id = 1,
	                         .pid = APP,
	                         .tid = APP,
	                         .since = since,
	                         .detected = since + 2 * SEC,
	                         .cls = ARGUS_STALL_LONG_RUNNING};
	struct argus_symbolizer sym = {.resolve = resolve, .stack = stack, .arg = s};
	struct argus_graph_view v;
	argus_graph_view_begin(g, &v);
	struct argus_beam_params p;
	argus_beam_params_default(&p);
	struct argus_diagnosis *d = malloc(sizeof(*d));
	ASSERT(d);
	ASSERT_EQ(argus_diagnose(&v, &st, &p, ARGUS_ALGO_BEAM, smp, &sym, NULL, NULL, NULL, d), 0);
	argus_graph_view_end(&v);
	printf("%u samples: costly function '%s'\n", d->samples, d->costly_func);
	ASSERT(d->samples > 0);
	snprintf(out, cap, "%s", d->costly_func);
	free(d);
	argus_samples_free(smp);
	argus_graph_free(g);
}

/* The collector on every sample but two in the page's own loop: one taken
 * before the key was read (not the stall's time), one stray among the 89
 * of the stall. */
TEST(one_sample_outside_the_hot_function_does_not_hide_it)
{
	struct stacks s = {0};
	const uint64_t hot[] = {AT(F_GC_COLLECT), AT(F_PAGE_LOAD), AT(F_ON_KEY), AT(F_MAIN)};
	const uint64_t setup[] = {AT(F_PAGE_LOAD), AT(F_ON_KEY), AT(F_MAIN)};
	uint32_t ids[90];
	ids[0] = intern(&s, setup, 3);
	ids[1] = intern(&s, hot, 4);
	for (int i = 2; i < 90; i++)
		ids[i] = ids[1];
	ids[45] = ids[0];
	char f[128];
	costly(&s, ids, 90, f, sizeof(f));
	ASSERT_STR_EQ(f, "gc_collect");
}

/* Samples in a library called from a recursive walk: the library ip, the
 * walk's frame (sp_ret, put back by the decoder), then garbage that
 * differs sample to sample; a few samples in the walk itself, whole. */
TEST(library_samples_with_garbage_beyond_the_caller_count_for_it)
{
	struct stacks s = {0};
	uint32_t ids[10];
	for (int i = 0; i < 8; i++) {
		const uint64_t lib[] = {LIB(i), AT(F_A11Y), 0xdead0000ull + (uint64_t)i * 8,
		                        LIB(100 + i)};
		ids[i] = intern(&s, lib, 1 + (uint32_t)(i % 4 ? 3 : 1));
	}
	const uint64_t whole[] = {AT(F_A11Y), AT(F_A11Y), AT(F_A11Y), AT(F_ON_KEY), AT(F_MAIN)};
	ids[8] = ids[9] = intern(&s, whole, 5);
	char f[128];
	costly(&s, ids, 10, f, sizeof(f));
	ASSERT_STR_EQ(f, "a11y_describe");
}

/* Two helpers share the time half and half: the function calling both. */
TEST(time_shared_by_two_callees_names_their_caller)
{
	struct stacks s = {0};
	const uint64_t a[] = {AT(F_HELPER_A), AT(F_COMPUTE), AT(F_ON_KEY), AT(F_MAIN)};
	const uint64_t b[] = {LIB(1), AT(F_HELPER_B), AT(F_COMPUTE), AT(F_ON_KEY), AT(F_MAIN)};
	uint32_t ids[2] = {intern(&s, a, 4), intern(&s, b, 5)};
	char f[128];
	costly(&s, ids, 2, f, sizeof(f));
	ASSERT_STR_EQ(f, "compute");
}

/* 17 of 20 samples page-faulting in clear_tile, 3 in munmap called by its
 * caller: clear_tile explains 85 % of the stall, its caller all of it. */
TEST(a_callee_on_most_but_not_nearly_all_samples_names_its_caller)
{
	struct stacks s = {0};
	const uint64_t fault[] = {AT(F_CLEAR_TILE), AT(F_COMPOSITE), AT(F_ON_KEY), AT(F_MAIN)};
	const uint64_t unmap[] = {LIB(7), AT(F_COMPOSITE), AT(F_ON_KEY), AT(F_MAIN)};
	uint32_t ids[20];
	for (int i = 0; i < 20; i++)
		ids[i] = i % 7 == 3 ? intern(&s, unmap, 4) : intern(&s, fault, 4);
	char f[128];
	costly(&s, ids, 20, f, sizeof(f));
	ASSERT_STR_EQ(f, "composite_tiles");
}

TEST_MAIN(TEST_ENTRY(one_sample_outside_the_hot_function_does_not_hide_it),
          TEST_ENTRY(a_callee_on_most_but_not_nearly_all_samples_names_its_caller),
          TEST_ENTRY(library_samples_with_garbage_beyond_the_caller_count_for_it),
          TEST_ENTRY(time_shared_by_two_callees_names_their_caller))
