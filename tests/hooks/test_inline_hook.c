/*
 * test_inline_hook.c - the capstone inline-hook engine on functions of this
 * binary: a static C function, prologues with a RIP-relative load, a
 * conditional jump and a call (written in assembly so the compiler cannot
 * change them), a function too short to patch, pruning.
 */
#include <errno.h>

#include "inline_hook.h"
#include "test.h"

#if defined(__x86_64__)
int rip_counter = 40;
int asm_rip_fn(int) __asm__("asm_rip_fn");
int asm_jcc_fn(int) __asm__("asm_jcc_fn");
int asm_call_fn(int) __asm__("asm_call_fn");
int asm_short_fn(void) __asm__("asm_short_fn");
int asm_helper(int) __asm__("asm_helper");

/* Local (non-exported) assembly functions. */
__asm__(".text\n"
        ".type asm_rip_fn,@function\n"
        "asm_rip_fn:\n"
        "  mov rip_counter(%rip), %eax\n" /* RIP-relative, 6 bytes */
        "  add %edi, %eax\n"
        "  ret\n"
        ".size asm_rip_fn, .-asm_rip_fn\n"
        ".type asm_jcc_fn,@function\n"
        "asm_jcc_fn:\n"
        "  test %edi, %edi\n" /* 2 bytes */
        "  je 1f\n"           /* 2 bytes: inside the 5-byte patch */
        "  mov $1, %eax\n"
        "  ret\n"
        "1: mov $2, %eax\n"
        "  ret\n"
        ".size asm_jcc_fn, .-asm_jcc_fn\n"
        ".type asm_helper,@function\n"
        "asm_helper:\n"
        "  lea 100(%rdi), %eax\n"
        "  ret\n"
        ".size asm_helper, .-asm_helper\n"
        ".type asm_call_fn,@function\n"
        "asm_call_fn:\n"
        "  call asm_helper\n" /* rel32 call: the whole patch */
        "  add $1, %eax\n"
        "  ret\n"
        ".size asm_call_fn, .-asm_call_fn\n"
        ".type asm_short_fn,@function\n"
        "asm_short_fn:\n"
        "  ret\n"
        "  int3\n  int3\n  int3\n  int3\n  int3\n  int3\n  int3\n"
        ".size asm_short_fn, .-asm_short_fn\n");

/* An internal function the compiler keeps out of line. */
static __attribute__((noinline)) int sum_to(volatile int n)
{
	int s = 0;
	for (int i = 1; i <= n; i++)
		s += i;
	return s;
}

static int (*orig_int)(int);
static int hooked_plus_1000(int x)
{
	return orig_int(x) + 1000;
}

static int (*volatile call_through)(int); /* defeats constant folding */

TEST(static_function_hooked)
{
	struct argus_hook_arena *a = argus_hook_arena_new();
	ASSERT_EQ(sum_to(4), 10);
	ASSERT_EQ(
	    argus_hook_install(a, (void *)sum_to, (void *)hooked_plus_1000, (void **)&orig_int), 0);
	ASSERT_EQ(sum_to(4), 1010);
	ASSERT_EQ(orig_int(5), 15);
	argus_hook_arena_free(a);
}

TEST(rip_relative_prologue_relocated)
{
	struct argus_hook_arena *a = argus_hook_arena_new();
	ASSERT_EQ(
	    argus_hook_install(a, (void *)asm_rip_fn, (void *)hooked_plus_1000, (void **)&orig_int),
	    0);
	call_through = asm_rip_fn;
	ASSERT_EQ(call_through(2), 1042);
	rip_counter = 7; /* the relocated load must still read the same variable */
	ASSERT_EQ(call_through(2), 1009);
	ASSERT_EQ(orig_int(3), 10);
	argus_hook_arena_free(a);
}

TEST(conditional_jump_prologue_relocated)
{
	struct argus_hook_arena *a = argus_hook_arena_new();
	ASSERT_EQ(
	    argus_hook_install(a, (void *)asm_jcc_fn, (void *)hooked_plus_1000, (void **)&orig_int),
	    0);
	call_through = asm_jcc_fn;
	ASSERT_EQ(call_through(0), 1002);
	ASSERT_EQ(call_through(5), 1001);
	argus_hook_arena_free(a);
}

TEST(call_prologue_relocated)
{
	struct argus_hook_arena *a = argus_hook_arena_new();
	ASSERT_EQ(argus_hook_install(a, (void *)asm_call_fn, (void *)hooked_plus_1000,
	                             (void **)&orig_int),
	          0);
	call_through = asm_call_fn;
	ASSERT_EQ(call_through(1), 1102);
	argus_hook_arena_free(a);
}

TEST(too_short_function_refused)
{
	struct argus_hook_arena *a = argus_hook_arena_new();
	void *o = NULL;
	ASSERT_EQ(argus_hook_install(a, (void *)asm_short_fn, (void *)hooked_plus_1000, &o),
	          -ENOSPC);
	ASSERT(o == NULL);
	argus_hook_arena_free(a);
}

static __attribute__((noinline)) int twice(volatile int n)
{
	return sum_to(n) * 2;
}

TEST(same_target_twice_refused)
{
	struct argus_hook_arena *a = argus_hook_arena_new();
	ASSERT_EQ(
	    argus_hook_install(a, (void *)twice, (void *)hooked_plus_1000, (void **)&orig_int), 0);
	ASSERT_EQ(argus_hook_install(a, (void *)twice, (void *)hooked_plus_1000, NULL), -EEXIST);
	argus_hook_arena_free(a);
}

static __attribute__((noinline)) int busy_answer(volatile int n)
{
	int s = 42;
	for (int i = 0; i < n; i++)
		s += i;
	return s;
}

TEST(prune_returns_zero)
{
	ASSERT_EQ(busy_answer(0), 42);
	ASSERT_EQ(argus_hook_prune((void *)busy_answer), 0);
	call_through = busy_answer;
	ASSERT_EQ(call_through(3), 0);
}

#else
/* the same cases, each skipped: ctest registers them on every target */
#define NOT_X86_64(name)                                                                           \
	TEST(name)                                                                                 \
	{                                                                                          \
		SKIP("inline hooks are implemented for x86-64 only");                              \
	}
NOT_X86_64(static_function_hooked)
NOT_X86_64(rip_relative_prologue_relocated)
NOT_X86_64(conditional_jump_prologue_relocated)
NOT_X86_64(call_prologue_relocated)
NOT_X86_64(too_short_function_refused)
NOT_X86_64(same_target_twice_refused)
NOT_X86_64(prune_returns_zero)
#endif

TEST_MAIN(TEST_ENTRY(static_function_hooked), TEST_ENTRY(rip_relative_prologue_relocated),
          TEST_ENTRY(conditional_jump_prologue_relocated), TEST_ENTRY(call_prologue_relocated),
          TEST_ENTRY(too_short_function_refused), TEST_ENTRY(same_target_twice_refused),
          TEST_ENTRY(prune_returns_zero))
