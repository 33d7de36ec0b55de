/*
 * test_symbols.c - symbols of a live process (this test itself) through
 * ELF + DWARF (elfutils): a function's name and its source file:line; a
 * library loaded after the first lookup; names as the files' tables give
 * them (no symbol versions), so a frame is named the same in every run.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
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

/* A library the process loads after its first lookup (GTK's modules, the
 * accessibility bridge, a plug-in: dlopen'ed at any time) is named: its
 * frames do not go unnamed in one run and named in another as the first
 * lookup came before or after the load. */
TEST(a_library_loaded_after_the_first_lookup_is_named)
{
	static const struct {
		const char *lib, *fn;
	} cand[] = {
	    {"libexpat.so.1", "XML_ParserCreate"}, {"libuuid.so.1", "uuid_generate"},
	    {"libXau.so.6", "XauGetAuthByAddr"},   {"libjpeg.so.62", "jpeg_CreateDecompress"},
	    {"libpng16.so.16", "png_get_io_ptr"},
	};
	const char *lib = NULL, *fn = NULL;
	for (size_t i = 0; i < sizeof(cand) / sizeof(cand[0]) && !lib; i++)
		if (!dlopen(cand[i].lib, RTLD_NOW | RTLD_NOLOAD)) {
			lib = cand[i].lib;
			fn = cand[i].fn;
		}
	if (!lib)
		SKIP("none of the libraries tried is installed and not loaded yet");
	struct argus_elfsym *es;
	ASSERT_EQ(argus_elfsym_new(&es, NULL), 0);
	struct argus_symbolizer y = argus_elfsym_symbolizer(es);
	struct argus_frame f = {.func = ""}, g = {.func = ""};
	/* the first lookup reads the process's modules */
	uint64_t ip = (uint64_t)(uintptr_t)&argus_test_symbol_target + 1;
	ASSERT(y.resolve(y.arg, (uint32_t)getpid(), ip, &f));
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		argus_elfsym_free(es);
		SKIP("cannot load %s", lib);
	}
	void *sym = dlsym(h, fn);
	ASSERT(sym);
	usleep(60000); /* past the re-read's rate limit */
	bool ok = y.resolve(y.arg, (uint32_t)getpid(), (uint64_t)(uintptr_t)sym + 1, &g);
	argus_elfsym_free(es);
	ASSERT_MSG(ok, "%s in %s, loaded after the first lookup, not named", fn, lib);
	ASSERT_STR_EQ(g.func, fn);
	ASSERT_CONTAINS(g.object, lib);
	dlclose(h);
}

/* A process that has exited keeps the names it had: an address in none of
 * its modules (an unwind's garbage) after it is gone does not lose them. */
TEST(a_process_gone_keeps_its_names)
{
	pid_t child = fork();
	ASSERT(child >= 0);
	if (child == 0) {
		pause();
		_exit(0);
	}
	struct argus_elfsym *es;
	ASSERT_EQ(argus_elfsym_new(&es, NULL), 0);
	struct argus_symbolizer y = argus_elfsym_symbolizer(es);
	struct argus_frame f = {.func = ""}, g = {.func = ""}, h;
	uint64_t ip = (uint64_t)(uintptr_t)&argus_test_symbol_target + 1;
	bool before = y.resolve(y.arg, (uint32_t)child, ip, &f);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	usleep(60000); /* past the re-read's rate limit */
	bool garbage = y.resolve(y.arg, (uint32_t)child, 0x10, &h);
	bool after = y.resolve(y.arg, (uint32_t)child, ip, &g);
	argus_elfsym_free(es);
	ASSERT(before);
	ASSERT(!garbage);
	ASSERT_MSG(after, "the exited process's frames went unnamed after a miss");
	ASSERT_STR_EQ(g.func, "argus_test_symbol_target");
}

/* A dynamic symbol that libc defines in several versions is named as the
 * file's own symbol table names it (what a trace imported later gives):
 * no "@@GLIBC_2.34" that only a running process's frames would carry. */
TEST(a_versioned_symbol_is_named_without_its_version)
{
	struct argus_elfsym *es;
	ASSERT_EQ(argus_elfsym_new(&es, NULL), 0);
	struct argus_symbolizer y = argus_elfsym_symbolizer(es);
	struct argus_frame f = {.func = ""};
	uint64_t ip = (uint64_t)(uintptr_t)&pthread_setaffinity_np + 1;
	bool ok = y.resolve(y.arg, (uint32_t)getpid(), ip, &f);
	argus_elfsym_free(es);
	ASSERT(ok);
	ASSERT_STR_EQ(f.func, "pthread_setaffinity_np");
}

TEST_MAIN(TEST_ENTRY(names_a_function_of_a_live_process_with_file_and_line),
          TEST_ENTRY(system_library_frames_are_named_as_system_runtime),
          TEST_ENTRY(a_library_loaded_after_the_first_lookup_is_named),
          TEST_ENTRY(a_process_gone_keeps_its_names),
          TEST_ENTRY(a_versioned_symbol_is_named_without_its_version))
