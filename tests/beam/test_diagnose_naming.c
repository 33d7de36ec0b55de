/*
 * test_diagnose_naming.c - which frame names the root cause
 * (docs/diagnosis.md "Application code"): the innermost application frame,
 * also when it is in the app's own shared library and system library
 * frames sit inside it; the innermost named frame, marked as system
 * runtime, when the stacks hold no application frame. One app thread on
 * hand-written events: a LongWait in a sleep, a LongRunning loop sampled.
 */
#include <stdlib.h>

#include "../graph/graph_events.h"
#include "beam.h"
#include "test.h"

enum { APP = 100, OTHER = 900 };

/* The process's objects and functions: ip ranges of 0x100 bytes. */
static const struct fn {
	uint64_t ip;
	const char *name, *path;
} fns[] = {
    {0x7f0000001000, "clock_nanosleep", "/usr/lib/x86_64-linux-gnu/libc.so.6"},
    {0x7f0000002000, "sleep", "/usr/lib/x86_64-linux-gnu/libc.so.6"},
    {0x7f0000003000, "__memcpy_avx_unaligned", "/usr/lib/x86_64-linux-gnu/libc.so.6"},
    {0x7f0000004000, "__libc_start_main", "/usr/lib/x86_64-linux-gnu/libc.so.6"},
    {0x7f1000001000, "g_main_context_dispatch", "/usr/lib/x86_64-linux-gnu/libglib-2.0.so.0"},
    {0x7f2000001000, "plugin_scan_forever", "/opt/demo/plugins/libscan.so"},
    {0x555500001000, "on_key", "/opt/demo/bin/demo"},
    {0x555500002000, "main", "/opt/demo/bin/demo"},
};
#define NFNS (sizeof(fns) / sizeof(fns[0]))

/* Stacks, innermost first; ids 1.. */
static const uint64_t stacks[][5] = {
    /* 1: a sleep called from the key handler */
    {0x7f0000001010, 0x7f0000002020, 0x555500001030, 0x7f1000001040, 0x555500002050},
    /* 2: the same sleep with the frames below libc lost */
    {0x7f0000001010, 0x7f0000002020},
    /* 3-5: the plugin's loop, once inside libc's memcpy */
    {0x7f2000001010, 0x555500001030, 0x7f1000001040, 0x555500002050},
    {0x7f0000003010, 0x7f2000001080, 0x555500001030, 0x7f1000001040, 0x555500002050},
    {0x7f2000001044, 0x555500001030, 0x7f1000001040, 0x555500002050},
    /* 6-7: a loop entirely in libc */
    {0x7f0000003010, 0x7f0000004020},
    {0x7f0000003090, 0x7f0000004020},
};
static const uint32_t depths[] = {5, 2, 4, 5, 4, 2, 2};

static bool stub_resolve(void *arg, uint32_t pid, uint64_t ip, struct argus_frame *out)
{
	(void)arg;
	if (pid != APP)
		return false;
	for (size_t i = 0; i < NFNS; i++)
		if (ip >= fns[i].ip && ip < fns[i].ip + 0x100) {
			const char *slash = strrchr(fns[i].path, '/');
			snprintf(out->func, sizeof(out->func), "%s", fns[i].name);
			snprintf(out->srcline, sizeof(out->srcline), "%s+0x%llx", fns[i].path,
			         (unsigned long long)(ip - fns[i].ip));
			snprintf(out->object, sizeof(out->object), "%s", slash + 1);
			out->system = argus_system_code(fns[i].path);
			return true;
		}
	return false;
}

static bool stub_stack(void *arg, uint32_t id, const uint64_t **ips, uint32_t *depth)
{
	(void)arg;
	if (!id || id > sizeof(depths) / sizeof(depths[0]))
		return false;
	*ips = stacks[id - 1];
	*depth = depths[id - 1];
	return true;
}

static const char *comm_of(void *arg, uint32_t pid)
{
	(void)arg;
	return pid == APP ? "demo" : "?";
}

static struct argus_event ev_stack(uint64_t ts, uint16_t type, uint32_t stack)
{
	return ev_obj(ts, type, APP, APP, stack);
}

static void diagnose(const struct argus_event *ev, size_t n, const struct argus_stall *st,
                     struct argus_diagnosis *d)
{
	struct argus_graph *g;
	struct argus_samples *smp;
	ASSERT_EQ(argus_graph_new(&g, NULL), 0);
	ASSERT_EQ(argus_samples_new(&smp), 0);
	ASSERT_EQ(argus_graph_ingest(g, ev, n), 0);
	argus_samples_feed(smp, ev, n);
	struct argus_symbolizer sym = {stub_resolve, stub_stack, NULL};
	struct argus_graph_view v;
	argus_graph_view_begin(g, &v);
	struct argus_beam_params p;
	argus_beam_params_default(&p);
	int rc = argus_diagnose(&v, st, &p, ARGUS_ALGO_BEAM, smp, &sym, comm_of, NULL, NULL, d);
	argus_graph_view_end(&v);
	argus_samples_free(smp);
	argus_graph_free(g);
	ASSERT_EQ(rc, 0);
	printf("%s\n", d->summary);
}

/* The app thread sleeps from hang on, its stack at the wait given. */
static void sleep_with_stack(uint32_t stack, struct argus_diagnosis *d)
{
	uint64_t hang = SEC;
	struct argus_event ev[] = {
	    ev_comm(1, APP, APP, "demo"),
	    ev_switch(hang - 1000, OTHER, OTHER, 0, APP, APP),
	    ev_sys_enter(hang, APP, APP, T_NANOSLEEP),
	    ev_stack(hang + 1000, ARGUS_EV_STACK, stack),
	    ev_switch(hang + 2000, APP, APP, 1, OTHER, OTHER),
	};
	struct argus_stall st = {.id = 1,
	                         .pid = APP,
	                         .tid = APP,
	                         .since = hang,
	                         .detected = hang + 2 * SEC,
	                         .cls = ARGUS_STALL_LONG_WAIT,
	                         .blocked = true,
	                         .wait_nr = T_NANOSLEEP};
	diagnose(ev, sizeof(ev) / sizeof(ev[0]), &st, d);
}

/* The app thread runs from hang on, sampled every 10 ms on the stacks
 * given in turn. */
static void loop_with_samples(const uint32_t *stack, size_t nstack, struct argus_diagnosis *d)
{
	uint64_t hang = SEC;
	struct argus_event ev[3 + 200];
	size_t n = 0;
	ev[n++] = ev_comm(1, APP, APP, "demo");
	ev[n++] = ev_switch(hang - 1000, OTHER, OTHER, 0, APP, APP);
	for (size_t i = 0; i < 200; i++)
		ev[n++] =
		    ev_stack(hang + (i + 1) * 10 * MS, ARGUS_EV_CPU_SAMPLE, stack[i % nstack]);
	struct argus_stall st = {.id = 1,
	                         .pid = APP,
	                         .tid = APP,
	                         .since = hang,
	                         .detected = hang + 2 * SEC,
	                         .cls = ARGUS_STALL_LONG_RUNNING,
	                         .wait_nr = 0xffff,
	                         .oncpu_ns = 2 * SEC};
	diagnose(ev, n, &st, d);
}

static void report(const struct argus_diagnosis *d, char *text, size_t tcap, char *json,
                   size_t jcap)
{
	struct argus_report_ctx c = {comm_of, NULL, 0, NULL, NULL};
	FILE *f = fmemopen(text, tcap, "w");
	ASSERT(f);
	argus_report_text(d, &c, f);
	fclose(f);
	f = fmemopen(json, jcap, "w");
	ASSERT(f);
	argus_report_json(d, &c, f);
	fclose(f);
}

TEST(a_wait_in_libc_is_named_by_the_application_function_that_called_it)
{
	struct argus_diagnosis *d = calloc(1, sizeof(*d));
	ASSERT(d);
	sleep_with_stack(1, d);
	ASSERT(d->ncandidates);
	ASSERT_EQ(d->root.v.pid, APP);
	ASSERT_STR_EQ(d->root.func, "on_key");
	ASSERT_STR_EQ(d->root.object, "demo");
	ASSERT(!d->root.system);
	ASSERT_CONTAINS(d->summary, "in on_key (");
	free(d);
}

TEST(a_stack_of_system_frames_only_names_its_innermost_frame_as_system_runtime)
{
	struct argus_diagnosis *d = calloc(1, sizeof(*d));
	static char text[8192], json[16384];
	ASSERT(d);
	sleep_with_stack(2, d);
	ASSERT(d->ncandidates);
	ASSERT_STR_EQ(d->root.func, "clock_nanosleep");
	ASSERT_STR_EQ(d->root.object, "libc.so.6");
	ASSERT(d->root.system);
	ASSERT_CONTAINS(d->summary, "in clock_nanosleep (libc.so.6)");
	report(d, text, sizeof(text), json, sizeof(json));
	ASSERT_CONTAINS(text, "in clock_nanosleep (/usr/lib/x86_64-linux-gnu/libc.so.6+0x10; "
	                      "system runtime, no application frame)");
	ASSERT_CONTAINS(json, "\"function\":\"clock_nanosleep\"");
	ASSERT_CONTAINS(json, "\"object\":\"libc.so.6\",\"application\":false");
	free(d);
}

TEST(a_loop_in_the_apps_own_shared_library_is_the_costly_function)
{
	struct argus_diagnosis *d = calloc(1, sizeof(*d));
	static char text[8192], json[16384];
	ASSERT(d);
	/* the samples differ in the loop's address and once are inside
	 * memcpy: compared by function, their common sequence ends in the
	 * plugin's loop */
	const uint32_t loop[] = {3, 4, 5};
	loop_with_samples(loop, 3, d);
	ASSERT_STR_EQ(d->costly_func, "plugin_scan_forever");
	ASSERT(d->samples > 100);
	ASSERT(d->ncandidates);
	ASSERT_EQ(d->root.v.pid, APP);
	ASSERT_STR_EQ(d->root.func, "plugin_scan_forever");
	ASSERT_STR_EQ(d->root.object, "libscan.so");
	ASSERT(!d->root.system);
	report(d, text, sizeof(text), json, sizeof(json));
	ASSERT_CONTAINS(json, "\"object\":\"libscan.so\",\"application\":true");
	free(d);
}

TEST(a_loop_in_libc_alone_is_named_by_its_innermost_common_frame)
{
	struct argus_diagnosis *d = calloc(1, sizeof(*d));
	ASSERT(d);
	const uint32_t loop[] = {6, 7};
	loop_with_samples(loop, 2, d);
	ASSERT_STR_EQ(d->costly_func, "__memcpy_avx_unaligned");
	ASSERT(d->ncandidates);
	ASSERT_STR_EQ(d->root.func, "__memcpy_avx_unaligned");
	ASSERT(d->root.system);
	free(d);
}

TEST_MAIN(TEST_ENTRY(a_wait_in_libc_is_named_by_the_application_function_that_called_it),
          TEST_ENTRY(a_stack_of_system_frames_only_names_its_innermost_frame_as_system_runtime),
          TEST_ENTRY(a_loop_in_the_apps_own_shared_library_is_the_costly_function),
          TEST_ENTRY(a_loop_in_libc_alone_is_named_by_its_innermost_common_frame))
