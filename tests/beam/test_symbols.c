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
	char func[128] = "", line[256] = "";
	uint64_t ip = (uint64_t)(uintptr_t)&argus_test_symbol_target + 1;
	bool ok = y.resolve(y.arg, (uint32_t)getpid(), ip, func, sizeof(func), line, sizeof(line));
	/* a second lookup comes from the cached session */
	char func2[128] = "", line2[256] = "";
	bool ok2 =
	    y.resolve(y.arg, (uint32_t)getpid(), ip, func2, sizeof(func2), line2, sizeof(line2));
	argus_elfsym_free(es);
	ASSERT(ok);
	ASSERT_STR_EQ(func, "argus_test_symbol_target");
	ASSERT_CONTAINS(line, "test_symbols.c:");
	ASSERT(ok2);
	ASSERT_STR_EQ(func2, func);
	ASSERT_EQ(argus_test_symbol_target(1), 4);
}

TEST(shared_library_frames_are_not_application_frames)
{
	struct argus_elfsym *es;
	ASSERT_EQ(argus_elfsym_new(&es, NULL), 0);
	struct argus_symbolizer y = argus_elfsym_symbolizer(es);
	char func[128], line[256];
	/* a libc function no sanitizer intercepts */
	uint64_t ip = (uint64_t)(uintptr_t)&getpid;
	bool ok = y.resolve(y.arg, (uint32_t)getpid(), ip, func, sizeof(func), line, sizeof(line));
	/* a process that does not exist resolves nothing, without a crash */
	bool gone = y.resolve(y.arg, 0x7ffffff0u, ip, func, sizeof(func), line, sizeof(line));
	argus_elfsym_free(es);
	ASSERT_MSG(!ok, "libc's getpid named as application frame %s (%s)", func, line);
	ASSERT(!gone);
}

TEST_MAIN(TEST_ENTRY(names_a_function_of_a_live_process_with_file_and_line),
          TEST_ENTRY(shared_library_frames_are_not_application_frames))
