/*
 * test_elffile.c - frames named from the ELF file a trace's memory map
 * names, once the process is gone (argus_tsym_files_symbolizer): a function
 * of this very test program, found through its own mapping's path and file
 * offset; nothing for a file that does not exist or an address no map holds.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "beam.h"
#include "test.h"

/* exported (ENABLE_EXPORTS) and not inlined: a function with a symbol */
__attribute__((noinline)) int elffile_test_function(int x)
{
	return x * 3 + 1;
}

static char map_path[512];

static const char *string_of(const void *arg, uint32_t id)
{
	(void)arg;
	return id == 1 ? map_path : id == 2 ? "/nonexistent/libgone.so" : NULL;
}

static bool no_stack(const void *arg, uint32_t id, struct argus_stack *out)
{
	(void)arg;
	(void)id;
	(void)out;
	return false;
}

/* This process's mapping that holds ip, as a trace's map record. */
static bool own_map(uint64_t ip, struct argus_map *m)
{
	FILE *f = fopen("/proc/self/maps", "r");
	if (!f)
		return false;
	char line[1024];
	bool found = false;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, off;
		char perm[8], path[512] = "";
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %511s", &lo, &hi, perm, &off, path) <
		    4)
			continue;
		if (ip < lo || ip >= hi)
			continue;
		snprintf(map_path, sizeof(map_path), "%s", path);
		*m = (struct argus_map){
		    .pid = 42, .path_str = 1, .start = lo, .end = hi, .pgoff = off};
		found = true;
	}
	fclose(f);
	return found;
}

TEST(a_function_of_an_exited_process_is_named_from_its_file)
{
	uint64_t ip = (uint64_t)(uintptr_t)&elffile_test_function + 4;
	struct argus_map maps[2];
	ASSERT(own_map(ip, &maps[0]));
	ASSERT_MSG(map_path[0] == '/', "the test program's mapping has no path: %s", map_path);
	/* a second process whose library is gone from the disk */
	maps[1] = maps[0];
	maps[1].pid = 43;
	maps[1].path_str = 2;
	struct argus_tsym *t;
	ASSERT_EQ(argus_tsym_new_tables(&t, maps, 2, NULL, 0, string_of, no_stack, NULL), 0);
	struct argus_symbolizer tables = argus_tsym_symbolizer(t);
	struct argus_symbolizer files = argus_tsym_files_symbolizer(t);
	struct argus_frame f;
	/* the trace's own tables hold no symbols: only the file names it */
	ASSERT(!tables.resolve(tables.arg, 42, ip, &f));
	ASSERT(files.resolve(files.arg, 42, ip, &f));
	ASSERT_STR_EQ(f.func, "elffile_test_function");
	ASSERT(!f.system);
	ASSERT(strstr(f.srcline, "+0x4") != NULL);
	ASSERT(!files.resolve(files.arg, 43, ip, &f));   /* no such file */
	ASSERT(!files.resolve(files.arg, 42, 0x10, &f)); /* no map holds it */
	argus_tsym_free(t);
	ASSERT_EQ(elffile_test_function(1), 4);
}

TEST_MAIN(TEST_ENTRY(a_function_of_an_exited_process_is_named_from_its_file))
