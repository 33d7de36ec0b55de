/*
 * test.h - the argus test harness: one executable per file, TEST(name)
 * functions run in order, ASSERT_* stop the test with file:line on failure.
 * ctest runs each case alone (`exe NAME`, docs/testing.md), so a case sets
 * up what it needs itself (lazily, once per process, is fine).
 * Exit status: 0 all passed, 1 a failure, 77 skipped (ctest SKIP_RETURN_CODE);
 * a skipped test prints "skipped: <reason>".
 */
#ifndef ARGUS_TEST_H
#define ARGUS_TEST_H

#include <inttypes.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct test_case {
	const char *name;
	void (*fn)(void);
};

struct test_state {
	jmp_buf jb;
	int failed;
	int skipped;
	const char *current;
};
extern struct test_state test_state_;

#define TEST_FAIL_(...)                                                                            \
	do {                                                                                       \
		fprintf(stderr, "FAIL %s (%s:%d): ", test_state_.current, __FILE__, __LINE__);     \
		fprintf(stderr, __VA_ARGS__);                                                      \
		fputc('\n', stderr);                                                               \
		longjmp(test_state_.jb, 1);                                                        \
	} while (0)

#define ASSERT(cond)                                                                               \
	do {                                                                                       \
		if (!(cond))                                                                       \
			TEST_FAIL_("%s", #cond);                                                   \
	} while (0)
#define ASSERT_MSG(cond, ...)                                                                      \
	do {                                                                                       \
		if (!(cond))                                                                       \
			TEST_FAIL_(__VA_ARGS__);                                                   \
	} while (0)
#define ASSERT_EQ(a, b)                                                                            \
	do {                                                                                       \
		long long a_ = (long long)(a), b_ = (long long)(b);                                \
		if (a_ != b_)                                                                      \
			TEST_FAIL_("%s == %s (%lld != %lld)", #a, #b, a_, b_);                     \
	} while (0)
#define ASSERT_U64_EQ(a, b)                                                                        \
	do {                                                                                       \
		uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                                   \
		if (a_ != b_)                                                                      \
			TEST_FAIL_("%s == %s (%" PRIu64 " != %" PRIu64 ")", #a, #b, a_, b_);       \
	} while (0)
#define ASSERT_STR_EQ(a, b)                                                                        \
	do {                                                                                       \
		const char *a_ = (a), *b_ = (b);                                                   \
		if (!a_ || !b_ || strcmp(a_, b_) != 0)                                             \
			TEST_FAIL_("%s == %s (\"%s\" != \"%s\")", #a, #b, a_ ? a_ : "(null)",      \
			           b_ ? b_ : "(null)");                                            \
	} while (0)
#define ASSERT_CONTAINS(hay, needle)                                                               \
	do {                                                                                       \
		const char *h_ = (hay), *n_ = (needle);                                            \
		if (!h_ || !strstr(h_, n_))                                                        \
			TEST_FAIL_("\"%s\" not in %s", n_, #hay);                                  \
	} while (0)

/* Skip the current test with a reason (printed as "skipped: reason"). */
#define SKIP(...)                                                                                  \
	do {                                                                                       \
		printf("skipped: %s: ", test_state_.current);                                      \
		printf(__VA_ARGS__);                                                               \
		putchar('\n');                                                                     \
		test_state_.skipped++;                                                             \
		longjmp(test_state_.jb, 2);                                                        \
	} while (0)

#define TEST(name) static void test_##name(void)
#define TEST_ENTRY(name)                                                                           \
	{                                                                                          \
#name, test_##name                                                                 \
	}

/* In the test file: TEST_MAIN(TEST_ENTRY(a), TEST_ENTRY(b), ...)
 * `exe` runs every case, `exe NAME` one case (ctest runs each case as its
 * own test, tests/CMakeLists.txt), `exe --check-cases NAME...` exits 1
 * unless NAME... are exactly the cases compiled in (the build's check of
 * the list ctest read from the source). */
#define TEST_MAIN(...)                                                                             \
	struct test_state test_state_;                                                             \
	int main(int argc, char **argv)                                                            \
	{                                                                                          \
		static const struct test_case cases[] = {__VA_ARGS__};                             \
		const size_t ncases = sizeof(cases) / sizeof(cases[0]);                            \
		if (argc > 1 && !strcmp(argv[1], "--check-cases"))                                 \
			return test_check_cases_(cases, ncases, argc - 2, argv + 2);               \
		volatile int ran = 0; /* volatile: setjmp below */                                 \
		for (volatile size_t i = 0; i < ncases; i++) {                                     \
			if (argc > 1 && strcmp(argv[1], cases[i].name) != 0)                       \
				continue;                                                          \
			test_state_.current = cases[i].name;                                       \
			ran++;                                                                     \
			int r = setjmp(test_state_.jb);                                            \
			if (r == 0) {                                                              \
				cases[i].fn();                                                     \
				printf("ok %s\n", cases[i].name);                                  \
			} else if (r == 1) {                                                       \
				test_state_.failed++;                                              \
			}                                                                          \
			fflush(stdout);                                                            \
		}                                                                                  \
		if (!ran) {                                                                        \
			fprintf(stderr, "no test named %s\n", argc > 1 ? argv[1] : "");            \
			return 1;                                                                  \
		}                                                                                  \
		if (test_state_.failed)                                                            \
			return 1;                                                                  \
		return test_state_.skipped == ran ? 77 : 0;                                        \
	}

/* 0 when names[0..n) and cases[0..ncases) hold the same names. */
static inline int test_check_cases_(const struct test_case *cases, size_t ncases, int n,
                                    char **names)
{
	int bad = 0;
	for (size_t i = 0; i < ncases; i++) {
		int found = 0;
		for (int k = 0; k < n; k++)
			found |= !strcmp(names[k], cases[i].name);
		if (!found) {
			fprintf(stderr, "test case %s is compiled in but not registered\n",
			        cases[i].name);
			bad = 1;
		}
	}
	for (int k = 0; k < n; k++) {
		int found = 0;
		for (size_t i = 0; i < ncases; i++)
			found |= !strcmp(names[k], cases[i].name);
		if (!found) {
			fprintf(stderr, "test case %s is registered but not compiled in\n",
			        names[k]);
			bad = 1;
		}
	}
	if (bad)
		fprintf(stderr, "ctest registers the TEST_ENTRY names of TEST_MAIN(...) "
		                "(tests/CMakeLists.txt): list each case there\n");
	return bad;
}

#endif /* ARGUS_TEST_H */
