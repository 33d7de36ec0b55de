/*
 * test_kext_stacks_live.c - the eBPF tracer's stacks against real processes
 * (label "live"): a wait stack names the function that blocked, is walked
 * once per place (its frame chain, not its stack pointer; places that share
 * a stack are both kept; a function pointer left on the stack is not taken
 * for the caller; a frame pointer that points off the stack is not
 * followed), and a CPU sample inside libc names the function that
 * called it. The other records are test_kext_live.c's.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collect.h"
#include "tracer.h"

/* ---- a thread blocking inside a named function: the stack names it -------- */
static int block_pipe[2];

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifdef __SANITIZE_ADDRESS__
#define UNDER_ASAN 1
#endif

/* exported (ENABLE_EXPORTS) so dladdr can name it */
__attribute__((noinline)) void kext_test_blocking_function(void)
{
	char b;

#ifdef UNDER_ASAN
	/* ASan's read interceptor puts its own large frames between this
	 * function and the syscall, beyond the words the tracer scans */
	if (syscall(SYS_read, block_pipe[0], &b, 1) != 1)
		_exit(1);
#else
	if (read(block_pipe[0], &b, 1) != 1)
		_exit(1);
#endif
	__asm__ volatile("" ::: "memory"); /* keep the call from being a tail call */
}

static void blocking_main(void *arg)
{
	(void)arg;
	kext_test_blocking_function();
}

/* Traces a child that runs fn, which blocks reading block_pipe until the
 * parent writes it 100 ms in. */
static struct gated_child collect_blocked(struct collector *c, void (*fn)(void *))
{
	struct argus_kext_opts o = {.pid_filter = true, .no_samples = true, .syscalls = true};

	ASSERT(pipe(block_pipe) == 0);
	collector_start(c, &o);
	struct gated_child g = spawn_gated(fn, NULL);
	trace_and_go(c, &g);
	usleep(100000);
	ASSERT(write(block_pipe[1], "w", 1) == 1);
	ASSERT_EQ(wait_child(c, g.pid), 0);
	collector_finish(c);
	return g;
}

TEST(wait_stack_names_the_function_that_blocked)
{
	struct collector c;

	require_live();
	struct gated_child g = collect_blocked(&c, blocking_main);

	bool named = false, has_stack = false;
	for (size_t i = 0; i < c.n; i++) {
		const struct argus_event *e = &c.ev[i];
		Dl_info info;

		if (e->type != ARGUS_EV_STACK || e->pid != (uint32_t)g.pid)
			continue;
		has_stack = has_stack || e->stack.ustack != 0;
		/* the child is a fork of this process: same addresses */
		if (e->stack.sp_ret && dladdr((void *)(uintptr_t)(e->stack.sp_ret - 1), &info) &&
		    info.dli_sname && !strcmp(info.dli_sname, "kext_test_blocking_function"))
			named = true;
	}
	ASSERT_MSG(has_stack, "no STACK record with a user stack for the blocked child");
	ASSERT_MSG(named, "no STACK record whose sp_ret is in kext_test_blocking_function");
	collector_free(&c);
}

/* ---- a stale function pointer above the wait: not its caller -------------- */
#if defined(__x86_64__)
/* exported so dladdr can name them */
__attribute__((noinline)) void kext_test_decoy(void)
{
	__asm__ volatile("");
}

/* read(2) with kext_test_decoy's address pushed between the stack pointer
 * and the return address, where a libc function's dead slot can hold a
 * stale function pointer (a GLib closure's callback): a word inside the
 * executable's code that no call precedes */
long kext_test_read_with_decoy(int fd, char *buf);
__asm__(".text\n"
        ".globl kext_test_read_with_decoy\n"
        ".type kext_test_read_with_decoy,@function\n"
        "kext_test_read_with_decoy:\n"
        "	lea kext_test_decoy(%rip), %rax\n"
        "	push %rax\n"
        "	push %rax\n"
        "	xor %eax, %eax\n" /* SYS_read */
        "	mov $1, %edx\n"
        "	syscall\n"
        "	add $16, %rsp\n"
        "	ret\n"
        ".size kext_test_read_with_decoy, .-kext_test_read_with_decoy\n");

__attribute__((noinline)) void kext_test_decoy_waiter(void)
{
	char b;

	if (kext_test_read_with_decoy(block_pipe[0], &b) != 1)
		_exit(1);
	__asm__ volatile("" ::: "memory"); /* keep the call from being a tail call */
}

static void decoy_main(void *arg)
{
	(void)arg;
	kext_test_decoy_waiter();
}
#endif

TEST(a_function_pointer_on_the_stack_is_not_the_caller)
{
#if !defined(__x86_64__)
	SKIP("the decoy is x86-64 assembly");
#else
	struct collector c;

	require_live();
	struct gated_child g = collect_blocked(&c, decoy_main);

	unsigned waiter = 0, decoy = 0;
	for (size_t i = 0; i < c.n; i++) {
		const struct argus_event *e = &c.ev[i];
		Dl_info info;

		if (e->type != ARGUS_EV_STACK || e->pid != (uint32_t)g.pid || !e->stack.sp_ret)
			continue;
		decoy += e->stack.sp_ret == (uint64_t)(uintptr_t)kext_test_decoy;
		if (dladdr((void *)(uintptr_t)(e->stack.sp_ret - 1), &info) && info.dli_sname)
			waiter += !strcmp(info.dli_sname, "kext_test_decoy_waiter");
	}
	ASSERT_MSG(!decoy, "%u STACK records take the decoy's address for the caller", decoy);
	ASSERT_MSG(waiter, "no STACK record whose sp_ret is in kext_test_decoy_waiter");
	collector_free(&c);
#endif
}

/* ---- a thread blocking at two places in turn: each place's stacks walked once ---- */
static int place_pipe[2][2];

__attribute__((noinline)) void kext_test_place_a(void)
{
	char b;

	if (read(place_pipe[0][0], &b, 1) != 1)
		_exit(1);
	__asm__ volatile("" ::: "memory");
}

/* a larger frame than place_a's: the two reads' stack pointers differ
 * (a wait's place is its user ip and sp, and both wait at libc's read) */
__attribute__((noinline)) void kext_test_place_b(void)
{
	volatile char pad[256];
	char b;

	pad[0] = 0;
	if (read(place_pipe[1][0], &b, 1) != 1)
		_exit(1);
	__asm__ volatile("" ::: "memory");
	(void)pad[0];
}

static void two_places_main(void *arg)
{
	(void)arg;
	/* a volatile count: the loop is not unrolled (eight call sites, eight
	 * call chains: a place is the frame chain, not only the sp) */
	for (volatile int i = 0; i < 4; i++) {
		kext_test_place_a();
		kext_test_place_b();
	}
}

/* The decoder's stacks, interned by content: equal frames, equal id. */
#define FRAMES_TABLE 256 /* a sampled child's distinct stacks fit */

struct frames_table {
	uint64_t ips[FRAMES_TABLE][TRACER_STACK_DEPTH];
	uint32_t depth[FRAMES_TABLE], n;
};

static uint32_t intern_frames(void *arg, const uint64_t *ips, uint32_t depth)
{
	struct frames_table *t = arg;

	if (depth > TRACER_STACK_DEPTH)
		depth = TRACER_STACK_DEPTH;
	for (uint32_t i = 0; i < t->n; i++)
		if (t->depth[i] == depth && !memcmp(t->ips[i], ips, depth * sizeof(*ips)))
			return i + 1;
	if (t->n == FRAMES_TABLE)
		return 0;
	memcpy(t->ips[t->n], ips, depth * sizeof(*ips));
	t->depth[t->n] = depth;
	return ++t->n;
}

/* The raw STACK records of pid: walked, and reusing an earlier walk. */
static void count_stack_records(const struct collector *c, pid_t pid, unsigned *fresh,
                                unsigned *reused)
{
	*fresh = *reused = 0;
	for (size_t i = 0; i < c->n; i++) {
		const struct argus_event *e = &c->ev[i];

		if (e->type != ARGUS_EV_STACK || e->pid != (uint32_t)pid)
			continue;
		if (e->stack.depth == TRACER_STACK_REUSED)
			(*reused)++;
		else
			(*fresh)++;
	}
}

TEST(wait_stacks_walked_once_per_place)
{
	struct argus_kext_opts o = {.pid_filter = true, .no_samples = true};
	static struct frames_table t;
	struct collector c;

	require_live();
	ASSERT(pipe(place_pipe[0]) == 0 && pipe(place_pipe[1]) == 0);
	collector_start(&c, &o);
	struct gated_child g = spawn_gated(two_places_main, NULL);
	trace_and_go(&c, &g);
	for (int i = 0; i < 8; i++) { /* the child blocks at a, then b, in turn */
		usleep(30000);
		collector_drain(&c);
		ASSERT(write(place_pipe[i % 2][1], "w", 1) == 1);
	}
	ASSERT_EQ(wait_child(&c, g.pid), 0);
	collector_finish(&c);

	/* the raw records: 8 waits at 2 places, the last 6 reusing the walks */
	unsigned fresh, reused;
	count_stack_records(&c, g.pid, &fresh, &reused);
	ASSERT_MSG(fresh >= 2 && reused >= 4, "fresh %u, reused %u STACK records", fresh, reused);

	/* decoded: a reused record names the stack its place's walk found. The
	 * child blocks at a, then b, in turn: the k-th wait's stack is the
	 * (k-2)-th's. (Not told apart by sp_ret: in a sanitizer build both
	 * places return into the same read interceptor in the executable.) */
	struct argus_sink sink = {.intern_stack = intern_frames, .arg = &t};
	uint32_t ids[64];
	unsigned nids = 0, same = 0;
	argus_kext_decode(c.k, c.ev, c.n, &sink);
	for (size_t i = 0; i < c.n && nids < 64; i++) {
		const struct argus_event *e = &c.ev[i];

		if (e->type != ARGUS_EV_STACK || e->pid != (uint32_t)g.pid || !e->stack.ustack)
			continue;
		ASSERT(e->stack.depth != TRACER_STACK_REUSED);
		ids[nids++] = e->stack.ustack;
	}
	ASSERT_MSG(nids >= 2 && ids[0] != ids[1],
	           "%u decoded waits, the two places' stacks %u and %u", nids, nids ? ids[0] : 0,
	           nids > 1 ? ids[1] : 0);
	for (unsigned k = 2; k < nids; k++) {
		ASSERT_MSG(ids[k] == ids[k - 2], "a place's stack changed: %u, then %u", ids[k - 2],
		           ids[k]);
		same++;
	}
	ASSERT_MSG(same >= 4, "%u decoded waits at a place seen before", same);
	collector_free(&c);
}

/* ---- two places that share one stack: both kept ---- */
/* alloca makes the two waits' stack pointers differ while the frame chain
 * (this function's frame pointer, its caller) stays the same: two places,
 * one user stack, as a main loop's poll reached at several depths */
__attribute__((noinline)) void kext_test_place_shared(size_t pad)
{
	volatile char *p = __builtin_alloca(pad);
	char b;

	p[0] = 0;
	if (read(place_pipe[0][0], &b, 1) != 1)
		_exit(1);
	__asm__ volatile("" ::: "memory");
}

static void shared_places_main(void *arg)
{
	(void)arg;
	/* a volatile count: the loop is not unrolled into two call sites
	 * (two return addresses, two stacks) */
	for (volatile int i = 0; i < 8; i++)
		kext_test_place_shared(i % 2 ? 1024 : 32);
}

TEST(places_sharing_a_stack_are_both_kept)
{
	struct argus_kext_opts o = {.pid_filter = true, .no_samples = true};
	static struct frames_table t;
	struct collector c;

	require_live();
	ASSERT(pipe(place_pipe[0]) == 0);
	collector_start(&c, &o);
	struct gated_child g = spawn_gated(shared_places_main, NULL);
	trace_and_go(&c, &g);
	for (int i = 0; i < 8; i++) {
		usleep(30000);
		collector_drain(&c);
		ASSERT(write(place_pipe[0][1], "w", 1) == 1);
	}
	ASSERT_EQ(wait_child(&c, g.pid), 0);
	collector_finish(&c);

	unsigned fresh, reused;
	uint32_t first = 0;
	count_stack_records(&c, g.pid, &fresh, &reused);
	/* decoded, the eight waits name one stack: the places share it */
	struct argus_sink sink = {.intern_stack = intern_frames, .arg = &t};
	argus_kext_decode(c.k, c.ev, c.n, &sink);
	unsigned waits = 0;
	for (size_t i = 0; i < c.n; i++) {
		const struct argus_event *e = &c.ev[i];

		if (e->type != ARGUS_EV_STACK || e->pid != (uint32_t)g.pid || !e->stack.ustack)
			continue;
		first = first ? first : e->stack.ustack;
		ASSERT_MSG(e->stack.ustack == first, "the places' stacks differ: %u and %u", first,
		           e->stack.ustack);
		waits++;
	}
	ASSERT_MSG(waits >= 8, "%u decoded waits", waits);
	/* one walk at each place; a walk dropping the other place would make
	 * every wait a walk */
	ASSERT_MSG(fresh <= 3 && reused >= 5, "fresh %u, reused %u STACK records", fresh, reused);
	collector_free(&c);
}

/* ---- a place is the frame chain: many stack pointers, one walk; another chain, its own ---- */
#define DEPTHS 12 /* more than TRACER_WAIT_PLACES: stack pointers as places would all be walked */

/* a sibling of kext_test_place_shared at the same depth, called from
 * another call site: its own call chain */
__attribute__((noinline)) void kext_test_place_sibling(void)
{
	volatile char *p = __builtin_alloca(64);
	char b;

	p[0] = 0;
	if (read(place_pipe[0][0], &b, 1) != 1)
		_exit(1);
	__asm__ volatile("" ::: "memory");
}

static void many_depths_main(void *arg)
{
	(void)arg;
	for (volatile int i = 0; i < DEPTHS; i++) /* volatile: one call site */
		kext_test_place_shared(32 + 96 * (size_t)i);
	kext_test_place_sibling();
}

TEST(a_place_is_its_frame_chain_not_its_stack_pointer)
{
	struct argus_kext_opts o = {.pid_filter = true, .no_samples = true};
	static struct frames_table t;
	struct collector c;

	require_live();
	ASSERT(pipe(place_pipe[0]) == 0);
	collector_start(&c, &o);
	struct gated_child g = spawn_gated(many_depths_main, NULL);
	trace_and_go(&c, &g);
	for (int i = 0; i < DEPTHS + 1; i++) {
		usleep(30000);
		collector_drain(&c);
		ASSERT(write(place_pipe[0][1], "w", 1) == 1);
	}
	ASSERT_EQ(wait_child(&c, g.pid), 0);
	collector_finish(&c);

	/* the raw records: DEPTHS waits at DEPTHS stack pointers, one walk;
	 * the sibling's chain walked too */
	unsigned fresh, reused;
	count_stack_records(&c, g.pid, &fresh, &reused);
	ASSERT_MSG(fresh >= 2 && fresh <= 3 && reused >= DEPTHS - 2,
	           "fresh %u, reused %u STACK records", fresh, reused);

	/* decoded: the DEPTHS waits name one stack, the sibling's another */
	struct argus_sink sink = {.intern_stack = intern_frames, .arg = &t};
	uint32_t ids[DEPTHS + 1];
	unsigned n = 0;
	argus_kext_decode(c.k, c.ev, c.n, &sink);
	for (size_t i = 0; i < c.n && n < DEPTHS + 1; i++) {
		const struct argus_event *e = &c.ev[i];

		if (e->type == ARGUS_EV_STACK && e->pid == (uint32_t)g.pid && e->stack.ustack)
			ids[n++] = e->stack.ustack;
	}
	ASSERT_MSG(n == DEPTHS + 1, "%u decoded waits", n);
	for (unsigned k = 1; k < DEPTHS; k++)
		ASSERT_MSG(ids[k] == ids[0], "wait %u at another depth: stack %u, not %u", k,
		           ids[k], ids[0]);
	ASSERT_MSG(ids[DEPTHS] != ids[0], "the sibling's wait named the other chain's stack %u",
	           ids[0]);
	collector_free(&c);
}

/* ---- a thread on CPU inside libc: the sample names the function that called ---- */
/* exported (ENABLE_EXPORTS) so dladdr can name it; copies with libc's
 * memcpy, which keeps no frame pointer, for secs */
__attribute__((noinline)) void kext_test_copying_function(char *dst, const char *src, size_t n,
                                                          double secs)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 16; i++)
			memcpy(dst, src, n);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	__asm__ volatile("" ::: "memory"); /* keep the call from being a tail call */
}

static void copying_main(void *arg)
{
	(void)arg;
	size_t n = 1 << 20;
	char *a = calloc(1, n), *b = calloc(1, n);

	if (!a || !b)
		_exit(1);
	kext_test_copying_function(a, b, n, 0.6);
}

TEST(sample_in_libc_names_the_function_that_called_it)
{
	struct argus_kext_opts o = {.pid_filter = true};
	struct collector c;

#ifdef UNDER_ASAN
	/* ASan's memcpy is the executable's own code: no libc frame to repair */
	SKIP("memcpy is ASan's under a sanitizer build");
#endif
	require_live();
	struct gated_child g = collect_child(&c, &o, copying_main, NULL);

	unsigned samples = 0, named = 0;
	for (size_t i = 0; i < c.n; i++) {
		const struct argus_event *e = &c.ev[i];
		Dl_info info;

		if (e->type != ARGUS_EV_CPU_SAMPLE || e->pid != (uint32_t)g.pid)
			continue;
		samples++;
		/* the child is a fork of this process: same addresses */
		if (e->stack.sp_ret && dladdr((void *)(uintptr_t)(e->stack.sp_ret - 1), &info) &&
		    info.dli_sname && !strcmp(info.dli_sname, "kext_test_copying_function"))
			named++;
	}
	ASSERT_MSG(samples > 0, "no CPU_SAMPLE of the copying child");
	ASSERT_MSG(named > 0,
	           "no CPU_SAMPLE whose sp_ret is in kext_test_copying_function (%u samples)",
	           samples);
	collector_free(&c);
}

/* ---- a thread on CPU inside the vDSO: libc's wrapper, then its caller ---- */
static int vdso_hold[2]; /* the child waits here until its maps were read */

/* exported (ENABLE_EXPORTS) so dladdr can name it; reads the clock (the
 * vDSO, called through libc's clock_gettime) for secs */
__attribute__((noinline)) void kext_test_timing_function(double secs)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((double)(t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	__asm__ volatile("" ::: "memory"); /* keep the call from being a tail call */
}

static void timing_main(void *arg)
{
	char b;

	(void)arg;
	kext_test_timing_function(0.6);
	if (read(vdso_hold[0], &b, 1) != 1)
		_exit(1);
}

static int frame_named(const uint64_t *ips, uint32_t depth, const char *name)
{
	for (uint32_t i = 1; i < depth; i++) {
		Dl_info info;

		if (dladdr((void *)(uintptr_t)(ips[i] - 1), &info) && info.dli_sname &&
		    strstr(info.dli_sname, name))
			return (int)i;
	}
	return -1;
}

TEST(sample_in_the_vdso_puts_the_caller_after_libcs_wrapper)
{
	struct argus_kext_opts o = {.pid_filter = true};
	struct collector c;
	uint64_t vdso = getauxval(AT_SYSINFO_EHDR);

	if (!vdso)
		SKIP("no vDSO in this process");
	require_live();
	ASSERT(pipe(vdso_hold) == 0);
	collector_start(&c, &o);
	struct gated_child g = spawn_gated(timing_main, NULL);
	trace_and_go(&c, &g);
	for (int i = 0; i < 400; i++) { /* 0.8 s: the reads, then the wait */
		collector_drain(&c);
		usleep(2000);
	}
	collector_finish(&c);
	/* decoded while the child lives: its maps name the vDSO */
	static struct frames_table tab;
	struct frames_table *t = &tab;
	struct argus_sink sink = {.intern_stack = intern_frames, .arg = t};
	argus_kext_decode(c.k, c.ev, c.n, &sink);
	ASSERT(write(vdso_hold[1], "g", 1) == 1);
	ASSERT_EQ(wait_child(&c, g.pid), 0);

	unsigned in_vdso = 0, ordered = 0, wrong = 0;
	for (size_t i = 0; i < c.n; i++) {
		const struct argus_event *e = &c.ev[i];

		if (e->type != ARGUS_EV_CPU_SAMPLE || e->pid != (uint32_t)g.pid ||
		    !e->stack.ustack || e->stack.ustack > t->n)
			continue;
		const uint64_t *ips = t->ips[e->stack.ustack - 1];
		uint32_t depth = t->depth[e->stack.ustack - 1];
		if (ips[0] < vdso || ips[0] >= vdso + 4 * 4096) /* the vDSO's text */
			continue;
		in_vdso++;
		int wrapper = frame_named(ips, depth, "clock_gettime");
		int caller = frame_named(ips, depth, "kext_test_timing_function");
		if (wrapper > 0 && caller > wrapper)
			ordered++;
		else if (wrapper > 0 && caller > 0)
			wrong++;
	}
	if (!in_vdso)
		SKIP("no sample landed in the vDSO");
	ASSERT_MSG(!wrong && ordered,
	           "%u of %u samples in the vDSO name the caller after libc's "
	           "clock_gettime, %u before it",
	           ordered, in_vdso, wrong);
	collector_free(&c);
}

/* ---- a wait with a frame pointer that points at no frame: not followed ---- */
#if defined(__x86_64__)
/* read(2) with rbp holding what a library built without frame pointers may
 * leave there: an address that is not on the stack (here not even mapped;
 * a read of it would fault) */
__attribute__((noinline)) static long read_with_stray_rbp(int fd, char *buf)
{
	long ret;

	__asm__ volatile("push %%rbp\n\t"
	                 "movabs $0x100000000000, %%rbp\n\t"
	                 "syscall\n\t"
	                 "pop %%rbp"
	                 : "=a"(ret)
	                 : "a"(0L), "D"((long)fd), "S"(buf), "d"(1L)
	                 : "rcx", "r11", "memory");
	return ret;
}

static void stray_rbp_main(void *arg)
{
	char b;

	(void)arg;
	if (read_with_stray_rbp(block_pipe[0], &b) != 1)
		_exit(1);
}
#endif

TEST(a_frame_pointer_off_the_stack_is_not_followed)
{
#if !defined(__x86_64__)
	SKIP("the stray frame pointer is x86-64 assembly");
#else
	static struct frames_table t;
	struct collector c;

	require_live();
	struct gated_child g = collect_blocked(&c, stray_rbp_main);

	/* the raw record: the ip alone, no walk of the kernel's */
	unsigned ip_only = 0, walked = 0;
	for (size_t i = 0; i < c.n; i++) {
		const struct argus_event *e = &c.ev[i];

		if (e->type != ARGUS_EV_STACK || e->pid != (uint32_t)g.pid ||
		    e->stack.kind != ARGUS_STACK_WAIT)
			continue;
		ip_only += e->stack.ustack == TRACER_USTACK_IP_ONLY;
		walked += e->stack.ustack != TRACER_USTACK_IP_ONLY;
	}
	ASSERT_MSG(ip_only >= 1, "%u waits with the stray frame pointer walked, none not", walked);
	/* decoded: the wait's ip is its first frame (sp_ret may follow) */
	struct argus_sink sink = {.intern_stack = intern_frames, .arg = &t};
	unsigned named = 0;
	argus_kext_decode(c.k, c.ev, c.n, &sink);
	for (size_t i = 0; i < c.n; i++) {
		const struct argus_event *e = &c.ev[i];

		if (e->type != ARGUS_EV_STACK || e->pid != (uint32_t)g.pid || !e->stack.ustack ||
		    e->stack.kind != ARGUS_STACK_WAIT)
			continue;
		ASSERT(e->stack.ustack <= t.n);
		ASSERT(t.ips[e->stack.ustack - 1][0] == e->stack.ip);
		ASSERT_MSG(t.depth[e->stack.ustack - 1] <= 2,
		           "%u frames from a stray frame pointer", t.depth[e->stack.ustack - 1]);
		named++;
	}
	ASSERT_MSG(named >= 1, "no decoded stack for the wait");
	collector_free(&c);
#endif
}

TEST_MAIN(TEST_ENTRY(wait_stack_names_the_function_that_blocked),
          TEST_ENTRY(a_frame_pointer_off_the_stack_is_not_followed),
          TEST_ENTRY(wait_stacks_walked_once_per_place),
          TEST_ENTRY(a_place_is_its_frame_chain_not_its_stack_pointer),
          TEST_ENTRY(places_sharing_a_stack_are_both_kept),
          TEST_ENTRY(a_function_pointer_on_the_stack_is_not_the_caller),
          TEST_ENTRY(sample_in_libc_names_the_function_that_called_it),
          TEST_ENTRY(sample_in_the_vdso_puts_the_caller_after_libcs_wrapper))
