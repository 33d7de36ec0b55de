/*
 * test_symbols.c - symbols of a live process (this test itself) through
 * ELF + DWARF (elfutils): a function's name and its source file:line.
 */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "beam.h"
#include "test.h"

__attribute__((noinline)) int argus_test_symbol_target(int x)
{
	return x * 3 + 1;
}

TEST(names_a_function_of_a_live_process_with_file_and_line)
{
	struct argus_elfsym *es;
	ASSERT_EQ(argus_elfsym_new(&es, NULL), 0);
	struct argus_symbolizer y = argus_elfsym_symbolizer(es);
	struct argus_frame f = {.func = ""}, f2 = {.func = ""};
	uint64_t ip = (uint64_t)(uintptr_t)&argus_test_symbol_target + 1;
	bool ok = y.resolve(y.arg, (uint32_t)getpid(), ip, &f);
	/* a second lookup comes from the cached session */
	bool ok2 = y.resolve(y.arg, (uint32_t)getpid(), ip, &f2);
	argus_elfsym_free(es);
	ASSERT(ok);
	ASSERT_STR_EQ(f.func, "argus_test_symbol_target");
	ASSERT_CONTAINS(f.srcline, "test_symbols.c:");
	ASSERT_STR_EQ(f.object, "test_symbols");
	ASSERT_MSG(!f.system, "the test's own executable counted as system runtime");
	ASSERT(ok2);
	ASSERT_STR_EQ(f2.func, f.func);
	ASSERT_EQ(argus_test_symbol_target(1), 4);
}

TEST(system_library_frames_are_named_as_system_runtime)
{
	struct argus_elfsym *es;
	ASSERT_EQ(argus_elfsym_new(&es, NULL), 0);
	struct argus_symbolizer y = argus_elfsym_symbolizer(es);
	struct argus_frame f = {.func = ""}, g;
	/* a libc function no sanitizer intercepts */
	uint64_t ip = (uint64_t)(uintptr_t)&getpid;
	bool ok = y.resolve(y.arg, (uint32_t)getpid(), ip, &f);
	/* a process that does not exist resolves nothing, without a crash */
	bool gone = y.resolve(y.arg, 0x7ffffff0u, ip, &g);
	argus_elfsym_free(es);
	ASSERT(ok);
	ASSERT_CONTAINS(f.func, "getpid");
	ASSERT_CONTAINS(f.object, "libc.so");
	ASSERT_MSG(f.system, "libc's %s (%s) not counted as system runtime", f.func, f.srcline);
	ASSERT(!gone);
}

TEST_MAIN(TEST_ENTRY(names_a_function_of_a_live_process_with_file_and_line),
          TEST_ENTRY(system_library_frames_are_named_as_system_runtime))
