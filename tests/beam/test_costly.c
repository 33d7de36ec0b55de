/*
 * test_costly.c - the costly function of a busy segment
 * (argus_costly_function) on hand-made sets of sampled stacks: one stray
 * sample does not move the answer out to a caller, a real second hot spot
 * does, and few samples must all agree.
 */
#include <string.h>

#include "beam.h"
#include "test.h"

/* Application functions at 0x1000 * k (k = 1..), 0x1000 bytes each; frames
 * at LIB and above are in a shared library (not named). */
#define LIB 0x7f0000000000ULL
static const char *const funcs[] = {NULL,     "main",           "event_loop", "on_key",
                                    "reflow", "measure_glyphs", "on_signal",  "thread_main"};
enum { MAIN = 1, LOOP, ON_KEY, REFLOW, MEASURE, ON_SIGNAL, THREAD_MAIN };

#define MAXSTACKS 128
struct fake {
	uint64_t ips[MAXSTACKS][8]; /* innermost first */
	uint32_t depth[MAXSTACKS];
	uint32_t n;
};

/* Named system functions at SYS + 0x1000 * k (a distribution's libraries) */
#define SYS 0x7e0000000000ULL
static const char *const sysfuncs[] = {NULL,
                                       "__libc_start_call_main",
                                       "gtk_main",
                                       "g_closure_invoke",
                                       "pango_layout_get_iter",
                                       "pango_shape",
                                       "munmap"};
enum { LIBC_START = 1, GTK_MAIN, CLOSURE, PANGO_ITER, PANGO_SHAPE, MUNMAP };
#define SAT(k, off) (SYS + (uint64_t)(k)*0x1000 + (off))

static bool fake_resolve(void *arg, uint32_t pid, uint64_t ip, struct argus_frame *f)
{
	(void)arg;
	(void)pid;
	if (ip >= SYS && ip < LIB) {
		uint64_t j = (ip - SYS) / 0x1000;
		if (!j || j >= sizeof(sysfuncs) / sizeof(sysfuncs[0]))
			return false;
		*f = (struct argus_frame){.system = true};
		snprintf(f->func, sizeof(f->func), "%s", sysfuncs[j]);
		snprintf(f->object, sizeof(f->object), "%s",
		         j == LIBC_START ? "libc.so.6" : "libsys.so");
		snprintf(f->srcline, sizeof(f->srcline), "libsys.so+0x%llx",
		         (unsigned long long)(ip & 0xfff));
		return true;
	}
	uint64_t k = ip / 0x1000;
	if (ip >= LIB || !k || k >= sizeof(funcs) / sizeof(funcs[0]))
		return false;
	*f = (struct argus_frame){.system = false};
	snprintf(f->func, sizeof(f->func), "%s", funcs[k]);
	snprintf(f->srcline, sizeof(f->srcline), "app.c:%llu", (unsigned long long)(ip & 0xfff));
	snprintf(f->object, sizeof(f->object), "app");
	return true;
}

static bool fake_stack(void *arg, uint32_t id, const uint64_t **ips, uint32_t *depth)
{
	struct fake *f = arg;
	if (!id || id > f->n)
		return false;
	*ips = f->ips[id - 1];
	*depth = f->depth[id - 1];
	return true;
}

/* A stack from its frames, outermost first: function k at offset off (the
 * return address within it; samples in a loop differ in the innermost). */
static uint32_t add(struct fake *f, uint32_t n, const uint64_t *outer_first)
{
	ASSERT(f->n < MAXSTACKS);
	uint32_t id = ++f->n;
	for (uint32_t i = 0; i < n; i++)
		f->ips[id - 1][i] = outer_first[n - 1 - i];
	f->depth[id - 1] = n;
	return id;
}

#define AT(k, off) ((uint64_t)(k)*0x1000 + (off))

struct run {
	char func[128];
	uint32_t held;
};

static struct run costly(struct fake *f, const uint32_t *ids, uint32_t n)
{
	struct argus_beam_params p;
	argus_beam_params_default(&p);
	struct argus_symbolizer sym = {fake_resolve, fake_stack, f};
	struct run r;
	struct argus_frame fr;
	r.held = argus_costly_function(&sym, 42, ids, n, p.costly_share, p.costly_min_samples, &fr);
	snprintf(r.func, sizeof(r.func), "%s", fr.func);
	return r;
}

/* main -> event_loop -> on_key -> reflow -> measure_glyphs, sampled in a
 * loop of measure_glyphs (a different address each time). */
static uint32_t hot(struct fake *f, uint32_t i)
{
	uint64_t s[] = {AT(MAIN, 0x40), AT(LOOP, 0x80), AT(ON_KEY, 0x20), AT(REFLOW, 0x60),
	                AT(MEASURE, 0x10 + (i * 8) % 0x200)};
	return add(f, 5, s);
}

TEST(a_stray_sample_does_not_move_the_answer_to_a_caller)
{
	struct fake f = {0};
	uint32_t ids[60];
	for (uint32_t i = 0; i < 59; i++)
		ids[i] = hot(&f, i);
	/* one sample taken in a signal handler run from the event loop */
	uint64_t stray[] = {AT(MAIN, 0x40), AT(LOOP, 0x80), AT(ON_SIGNAL, 0x30)};
	ids[59] = add(&f, 3, stray);
	struct run r = costly(&f, ids, 60);
	ASSERT_STR_EQ(r.func, "measure_glyphs");
	ASSERT_EQ(r.held, 59);
	/* the paper's every-sample rule says event_loop */
	struct argus_symbolizer sym = {fake_resolve, fake_stack, &f};
	struct argus_frame fr;
	ASSERT_EQ(argus_costly_function(&sym, 42, ids, 60, 1.0, 0, &fr), 60);
	ASSERT_STR_EQ(fr.func, "event_loop");
}

TEST(a_stray_sample_with_another_outermost_frame)
{
	struct fake f = {0};
	uint32_t ids[70];
	for (uint32_t i = 0; i < 69; i++)
		ids[i] = hot(&f, i);
	/* a stack unwound from another root (a tail call lost the caller):
	 * no frame at all is common to every sample */
	uint64_t stray[] = {AT(THREAD_MAIN, 0x10), AT(REFLOW, 0x90)};
	ids[69] = add(&f, 2, stray);
	struct run r = costly(&f, ids, 70);
	ASSERT_STR_EQ(r.func, "measure_glyphs");
	ASSERT_EQ(r.held, 69);
}

TEST(a_callee_holding_most_but_not_all_samples_is_not_the_answer)
{
	/* the caller does the costly thing (maps and unmaps a surface per
	 * tile); the page faults land in the callee that fills it: 93 of 100
	 * samples, the rest in the caller's other calls. Not strays. */
	struct fake f = {0};
	uint32_t ids[100];
	for (uint32_t i = 0; i < 100; i++) {
		uint64_t a[] = {AT(MAIN, 0x40), AT(LOOP, 0x80), AT(ON_KEY, 0x20), AT(REFLOW, 0x60),
		                i % 16 ? AT(MEASURE, 0x10 + i) : LIB + 0x3000 + i};
		ids[i] = add(&f, 5, a);
	}
	struct run r = costly(&f, ids, 100);
	ASSERT_STR_EQ(r.func, "reflow");
	ASSERT_EQ(r.held, 100);
}

TEST(a_frame_pointer_sample_beside_the_callee_is_tolerated_within_the_share)
{
	/* 119 of 120 samples in the callee, one in a library function under
	 * reflow. On a frame-pointer stack that sample may have lost the
	 * callee's own frame (the library has no frame pointers: the walk
	 * goes from its ip to reflow), so it is not known to be reflow's
	 * other work, and the share tolerates it; whole chains tell
	 * (callback_names_the_loop_whose_callee_holds_all_but_its_rare_unmaps) */
	struct fake f = {0};
	uint32_t ids[120];
	for (uint32_t i = 0; i < 120; i++) {
		uint64_t a[] = {AT(MAIN, 0x40), AT(LOOP, 0x80), AT(ON_KEY, 0x20), AT(REFLOW, 0x60),
		                i != 77 ? AT(MEASURE, 0x10 + i) : LIB + 0x3000};
		ids[i] = add(&f, 5, a);
	}
	struct run r = costly(&f, ids, 120);
	ASSERT_STR_EQ(r.func, "measure_glyphs");
	ASSERT_EQ(r.held, 119);
}

TEST(the_callers_own_bookkeeping_does_not_count_against_the_callee)
{
	/* a page load that collects whenever its allocator runs dry: 96 of
	 * 100 samples in the collector (measure_glyphs here), 4 in the
	 * caller's own allocation loop between the collections */
	struct fake f = {0};
	uint32_t ids[100];
	for (uint32_t i = 0; i < 100; i++) {
		uint64_t a[] = {AT(MAIN, 0x40), AT(LOOP, 0x80), AT(ON_KEY, 0x20),
		                AT(REFLOW, 0x60 + (i % 25 ? 0 : i)), AT(MEASURE, 0x10 + i)};
		ids[i] = add(&f, i % 25 ? 5 : 4, a);
	}
	struct run r = costly(&f, ids, 100);
	ASSERT_STR_EQ(r.func, "measure_glyphs");
	ASSERT_EQ(r.held, 96);
}

TEST(two_hot_spots_name_their_common_caller)
{
	struct fake f = {0};
	uint32_t ids[40];
	for (uint32_t i = 0; i < 40; i++) {
		uint64_t a[] = {AT(MAIN, 0x40), AT(LOOP, 0x80), AT(ON_KEY, 0x20),
		                i % 2 ? AT(REFLOW, 0x10 + i) : AT(MEASURE, 0x10 + i)};
		ids[i] = add(&f, 4, a);
	}
	struct run r = costly(&f, ids, 40);
	ASSERT_STR_EQ(r.func, "on_key");
	ASSERT_EQ(r.held, 40);
}

TEST(below_the_minimum_every_sample_must_agree)
{
	struct fake f = {0};
	uint32_t ids[6];
	for (uint32_t i = 0; i < 5; i++)
		ids[i] = hot(&f, i);
	uint64_t stray[] = {AT(MAIN, 0x40), AT(LOOP, 0x80), AT(ON_SIGNAL, 0x30)};
	ids[5] = add(&f, 3, stray);
	/* 5 of 6 is not evidence enough to call the sixth a stray, even at a
	 * share that would tolerate it */
	struct argus_symbolizer sym = {fake_resolve, fake_stack, &f};
	struct argus_frame fr;
	ASSERT_EQ(argus_costly_function(&sym, 42, ids, 6, 0.8, 10, &fr), 6);
	ASSERT_STR_EQ(fr.func, "event_loop");
	struct run r = costly(&f, ids, 6);
	ASSERT_STR_EQ(r.func, "event_loop");
	ASSERT_EQ(r.held, 6);
	/* without it, the five agree all the way down */
	r = costly(&f, ids, 5);
	ASSERT_STR_EQ(r.func, "measure_glyphs");
	ASSERT_EQ(r.held, 5);
}

TEST(library_frames_inside_the_function_are_passed_over)
{
	struct fake f = {0};
	uint32_t ids[12];
	for (uint32_t i = 0; i < 12; i++) {
		/* measure_glyphs calls into a library (memcpy, hashing) at
		 * different places; the event loop is library code too */
		uint64_t a[] = {AT(MAIN, 0x40), LIB + 0x5000, AT(ON_KEY, 0x20), AT(MEASURE, 0x44),
		                LIB + 0x9000 + i * 16};
		ids[i] = add(&f, 5, a);
	}
	struct run r = costly(&f, ids, 12);
	ASSERT_STR_EQ(r.func, "measure_glyphs");
	ASSERT_EQ(r.held, 12);
}

TEST(unknown_stacks_name_nothing)
{
	struct fake f = {0};
	uint32_t ids[3] = {7, 8, 9}; /* no such stacks */
	struct run r = costly(&f, ids, 3);
	ASSERT_STR_EQ(r.func, "");
	ASSERT_EQ(r.held, 0);
	r = costly(&f, ids, 0);
	ASSERT_STR_EQ(r.func, "");
	/* only library frames: nothing to name either */
	uint64_t lib[] = {LIB + 0x10, LIB + 0x20};
	ids[0] = add(&f, 2, lib);
	r = costly(&f, ids, 1);
	ASSERT_STR_EQ(r.func, "");
	ASSERT_EQ(r.held, 0);
}

/* ---- whole call chains (argus_costly_chain: full stacks) ---- */
static struct run chain(struct fake *f, const uint32_t *ids, uint32_t n)
{
	struct argus_beam_params p;
	argus_beam_params_default(&p);
	struct argus_symbolizer sym = {fake_resolve, fake_stack, f};
	struct run r;
	struct argus_frame fr;
	r.held = argus_costly_chain(&sym, 42, ids, n, p.chain_share, p.costly_min_samples, &fr);
	snprintf(r.func, sizeof(r.func), "%s", fr.func);
	return r;
}

TEST(whole_chains_name_the_innermost_function_under_a_majority)
{
	struct fake f = {0};
	uint32_t ids[60];
	/* 35 samples in measure_glyphs (under reflow), 25 in a library that
	 * reflow calls itself (no symbol there) */
	for (uint32_t i = 0; i < 35; i++)
		ids[i] = hot(&f, i);
	for (uint32_t i = 35; i < 60; i++) {
		uint64_t s[] = {AT(MAIN, 0x40), AT(LOOP, 0x80), AT(ON_KEY, 0x20), AT(REFLOW, 0x90),
		                LIB + 0x100 + i};
		ids[i] = add(&f, 5, s);
	}
	struct run r = chain(&f, ids, 60);
	ASSERT_STR_EQ(r.func, "measure_glyphs");
	ASSERT_EQ(r.held, 35);
	/* the 0.98 rule on the same stacks names the caller */
	ASSERT_STR_EQ(costly(&f, ids, 60).func, "reflow");
}

TEST(whole_chains_without_a_majority_below_name_the_caller)
{
	struct fake f = {0};
	uint32_t ids[60];
	/* 28 of 60 in measure_glyphs: not more than half */
	for (uint32_t i = 0; i < 28; i++)
		ids[i] = hot(&f, i);
	for (uint32_t i = 28; i < 60; i++) {
		uint64_t s[] = {AT(MAIN, 0x40), AT(LOOP, 0x80), AT(ON_KEY, 0x20), AT(REFLOW, 0x90),
		                LIB + 0x100 + i};
		ids[i] = add(&f, 5, s);
	}
	struct run r = chain(&f, ids, 60);
	ASSERT_STR_EQ(r.func, "reflow");
	ASSERT_EQ(r.held, 60);
}

TEST(whole_chains_look_return_addresses_up_inside_the_call)
{
	struct fake f = {0};
	uint32_t ids[20];
	/* reflow's call is its last instruction: the return address is the
	 * first byte of the next function (measure_glyphs) */
	for (uint32_t i = 0; i < 20; i++) {
		uint64_t s[] = {AT(MAIN, 0x40), AT(LOOP, 0x80), AT(MEASURE, 0),
		                AT(ON_SIGNAL, 0x10 + i)};
		ids[i] = add(&f, 4, s);
	}
	struct argus_symbolizer sym = {fake_resolve, fake_stack, &f};
	struct argus_frame fr;
	ASSERT_EQ(argus_costly_chain(&sym, 42, ids, 20, 0.99, 0, &fr), 20);
	ASSERT_STR_EQ(fr.func, "on_signal");
	/* innermost frame without a symbol: the caller is reflow, not
	 * measure_glyphs */
	uint64_t only[] = {AT(MAIN, 0x40), AT(LOOP, 0x80), AT(MEASURE, 0), LIB + 4};
	uint32_t one = add(&f, 4, only);
	ASSERT_EQ(argus_costly_chain(&sym, 42, &one, 1, 0.5, 0, &fr), 1);
	ASSERT_STR_EQ(fr.func, "reflow");
}

/* ---- the app's handlers first on whole chains (argus_costly_callback) ---- */
static struct run callback(struct fake *f, const uint32_t *ids, uint32_t n)
{
	struct argus_beam_params p;
	argus_beam_params_default(&p);
	struct argus_symbolizer sym = {fake_resolve, fake_stack, f};
	struct run r;
	struct argus_frame fr;
	r.held = argus_costly_callback(&sym, 42, ids, n, p.costly_share, p.costly_min_samples, &fr);
	snprintf(r.func, sizeof(r.func), "%s", fr.func);
	return r;
}

/* zoo B9's shape: the handler's loop (reflow) maps, faults in (its callee
 * measure_glyphs: 83 of 98) and unmaps, tile after tile, so the unmaps fall
 * between the callee's samples all along (as in B9's kept traces); whole
 * chains through the toolkit's loop up to main */
static uint32_t b9_chains(struct fake *f, uint32_t *ids)
{
	for (uint32_t i = 0; i < 98; i++) {
		bool unmap = i % 7 == 6 || i == 0; /* 15 of 98 */
		uint64_t in = !unmap ? AT(MEASURE, 0x10 + i) : SAT(MUNMAP, 0x10 + i);
		uint64_t s[] = {AT(THREAD_MAIN, 0x10), SAT(LIBC_START, 0x40),
		                AT(MAIN, 0x40),        SAT(GTK_MAIN, 0x80),
		                SAT(CLOSURE, 0x20),    AT(ON_KEY, 0x20),
		                AT(REFLOW, 0x60),      in};
		ids[i] = add(f, 8, s);
	}
	return 98;
}

TEST(callback_names_the_apps_loop_that_holds_nearly_all_not_its_callee)
{
	struct fake f = {0};
	uint32_t ids[98];
	uint32_t n = b9_chains(&f, ids);
	struct run r = callback(&f, ids, n);
	ASSERT_STR_EQ(r.func, "reflow");
	ASSERT_EQ(r.held, 98);
	/* the majority rule alone names the callee */
	ASSERT_STR_EQ(chain(&f, ids, n).func, "measure_glyphs");
}

/* zoo B9's shape where the faults cost most (kept traces of 2026-11-28):
 * 116 of 120 chains in the callee, the 4 unmaps late in the stall (at 69,
 * 92, 102, 106), so the first 69 chains, most of the stall, hold the
 * callee alone. Neither the share (the unmaps are the loop's other work)
 * nor a phase (the callee holds 47 of the 51 chains outside that stretch
 * too: the loop's steady work) names the callee */
TEST(callback_names_the_loop_whose_callee_holds_all_but_its_rare_unmaps)
{
	struct fake f = {0};
	uint32_t ids[120];
	for (uint32_t i = 0; i < 120; i++) {
		bool unmap = i == 69 || i == 92 || i == 102 || i == 106;
		uint64_t in = !unmap ? AT(MEASURE, 0x10 + i) : SAT(MUNMAP, 0x10 + i);
		uint64_t s[] = {SAT(LIBC_START, 0x40),
		                AT(MAIN, 0x40),
		                SAT(GTK_MAIN, 0x80),
		                SAT(CLOSURE, 0x20),
		                AT(ON_KEY, 0x20),
		                AT(REFLOW, 0x60),
		                in};
		ids[i] = add(&f, 7, s);
	}
	struct run r = callback(&f, ids, 120);
	ASSERT_STR_EQ(r.func, "reflow");
	ASSERT_EQ(r.held, 120);
}

/* zoo B3's shape: the handler (on_key) runs three phases one after the
 * other - builds a window (reflow into the toolkit: 3 chains), describes it
 * (reflow -> measure_glyphs: 47), lays it out (the toolkit under on_key:
 * 10) - then describes a small window (4 chains: the next key's, before the
 * thread waited). measure_glyphs holds 51 of 64 (not the 0.98 of all), and
 * every chain of its long phase: the phase is named, not the handler that
 * holds them all; its later short call does not stretch the phase over the
 * layout */
TEST(callback_names_the_handlers_phase_that_holds_most_of_the_chains)
{
	struct fake f = {0};
	uint32_t ids[64];
	for (uint32_t i = 0; i < 64; i++) {
		/* outermost first: libc's start code -> main -> the loop -> on_key */
		uint64_t s[8] = {SAT(LIBC_START, 0x40), AT(MAIN, 0x40), SAT(GTK_MAIN, 0x80),
		                 SAT(CLOSURE, 0x20), AT(ON_KEY, 0x20)};
		uint32_t d = 5;
		bool describe = (i >= 3 && i < 50) || i >= 60;
		if (i < 50 || i >= 60)
			s[d++] = AT(REFLOW, 0x60);
		if (describe) {
			s[d++] = AT(MEASURE, 0x30);
			s[d++] = SAT(PANGO_ITER, 0x10 + i);
		} else {
			s[d++] = SAT(PANGO_SHAPE, 0x10 + i);
		}
		ids[i] = add(&f, d, s);
	}
	struct run r = callback(&f, ids, 64);
	ASSERT_STR_EQ(r.func, "measure_glyphs");
	ASSERT_EQ(r.held, 51);
}

/* realapps r11's shape: the app's own code is only main above the loop
 * (its drawing code is a library's, unnamed); pango_layout_get_iter holds
 * 50 of 60: no handler of the app's is called back, the majority decides */
TEST(callback_leaves_a_library_bound_stall_to_the_majority_rule)
{
	struct fake f = {0};
	uint32_t ids[60];
	for (uint32_t i = 0; i < 60; i++) {
		/* _start (THREAD_MAIN here) -> libc's start code -> main -> the loop */
		uint64_t lib[] = {AT(THREAD_MAIN, 0x10), SAT(LIBC_START, 0x40), AT(MAIN, 0x40),
		                  SAT(GTK_MAIN, 0x80),   SAT(CLOSURE, 0x20),    LIB + 0x500,
		                  SAT(PANGO_ITER, 0x30), LIB + 0x700 + i}; /* Pango's statics */
		uint64_t other[] = {AT(THREAD_MAIN, 0x10), SAT(LIBC_START, 0x40), AT(MAIN, 0x40),
		                    SAT(GTK_MAIN, 0x80),   SAT(CLOSURE, 0x20),    LIB + 0x600 + i};
		ids[i] = i < 50 ? add(&f, 8, lib) : add(&f, 6, other);
	}
	ASSERT_STR_EQ(callback(&f, ids, 60).func, "");
	ASSERT_STR_EQ(chain(&f, ids, 60).func, "pango_layout_get_iter");
}

/* a handler on a few chains only (10 of 60): not the stall's function */
TEST(callback_needs_most_chains_to_reach_a_handler)
{
	struct fake f = {0};
	uint32_t ids[60];
	for (uint32_t i = 0; i < 60; i++) {
		uint64_t h[] = {SAT(LIBC_START, 0x40), AT(MAIN, 0x40), SAT(GTK_MAIN, 0x80),
		                SAT(CLOSURE, 0x20), AT(ON_KEY, 0x20 + i)};
		uint64_t lib[] = {SAT(LIBC_START, 0x40), AT(MAIN, 0x40), SAT(GTK_MAIN, 0x80),
		                  SAT(PANGO_ITER, 0x30 + i)};
		ids[i] = i < 10 ? add(&f, 5, h) : add(&f, 4, lib);
	}
	ASSERT_STR_EQ(callback(&f, ids, 60).func, "");
}

TEST_MAIN(TEST_ENTRY(a_stray_sample_does_not_move_the_answer_to_a_caller),
          TEST_ENTRY(callback_names_the_apps_loop_that_holds_nearly_all_not_its_callee),
          TEST_ENTRY(callback_names_the_handlers_phase_that_holds_most_of_the_chains),
          TEST_ENTRY(callback_names_the_loop_whose_callee_holds_all_but_its_rare_unmaps),
          TEST_ENTRY(callback_leaves_a_library_bound_stall_to_the_majority_rule),
          TEST_ENTRY(callback_needs_most_chains_to_reach_a_handler),
          TEST_ENTRY(whole_chains_name_the_innermost_function_under_a_majority),
          TEST_ENTRY(whole_chains_without_a_majority_below_name_the_caller),
          TEST_ENTRY(whole_chains_look_return_addresses_up_inside_the_call),
          TEST_ENTRY(a_stray_sample_with_another_outermost_frame),
          TEST_ENTRY(a_callee_holding_most_but_not_all_samples_is_not_the_answer),
          TEST_ENTRY(a_frame_pointer_sample_beside_the_callee_is_tolerated_within_the_share),
          TEST_ENTRY(the_callers_own_bookkeeping_does_not_count_against_the_callee),
          TEST_ENTRY(two_hot_spots_name_their_common_caller),
          TEST_ENTRY(below_the_minimum_every_sample_must_agree),
          TEST_ENTRY(library_frames_inside_the_function_are_passed_over),
          TEST_ENTRY(unknown_stacks_name_nothing))
