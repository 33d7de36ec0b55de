/*
 * test_elffile.c - frames named from the ELF file a trace's memory map
 * names, once the process is gone (argus_tsym_files_symbolizer): a function
 * of this very test program, found through its own mapping's path and file
 * offset; nothing for a file that does not exist or an address no map holds,
 * nor for a file whose build id is not the one the trace recorded.
 */
#include <elf.h>
#include <link.h>
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

/* This program's GNU build id, from its loaded notes. */
static int note_of(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct argus_build_id *b = arg;
	if (info->dlpi_name && info->dlpi_name[0])
		return 0; /* the main program has no name here */
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *n = (const void *)p;
			const char *name = p + sizeof(*n);
			const char *desc = name + ((n->n_namesz + 3) & ~3u);
			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    !memcmp(name, "GNU", 4) && n->n_descsz <= 32) {
				memcpy(b->id, desc, n->n_descsz);
				b->len = n->n_descsz;
				return 1;
			}
			p = desc + ((n->n_descsz + 3) & ~3u);
		}
	}
	return 0;
}

TEST(a_file_rebuilt_since_the_trace_names_nothing)
{
	uint64_t ip = (uint64_t)(uintptr_t)&elffile_test_function + 4;
	struct argus_map m;
	ASSERT(own_map(ip, &m));
	struct argus_build_id own = {.path_str = 1};
	dl_iterate_phdr(note_of, &own);
	if (!own.len)
		SKIP("this test program has no GNU build id (linked without --build-id)");
	struct argus_build_id other = own;
	other.id[0] ^= 0xff; /* another build of the same file */
	struct argus_tsym *t;
	ASSERT_EQ(argus_tsym_new_tables(&t, &m, 1, NULL, 0, string_of, no_stack, NULL), 0);
	struct argus_symbolizer files = argus_tsym_files_symbolizer(t);
	struct argus_frame f;
	ASSERT_EQ(argus_tsym_set_build_ids(t, &own, 1), 0);
	ASSERT(files.resolve(files.arg, 42, ip, &f));
	ASSERT_STR_EQ(f.func, "elffile_test_function");
	argus_tsym_free(t);
	/* the same path, the trace's build id another: named nothing, not wrong */
	ASSERT_EQ(argus_tsym_new_tables(&t, &m, 1, NULL, 0, string_of, no_stack, NULL), 0);
	files = argus_tsym_files_symbolizer(t);
	ASSERT_EQ(argus_tsym_set_build_ids(t, &other, 1), 0);
	ASSERT(!files.resolve(files.arg, 42, ip, &f));
	argus_tsym_free(t);
}

TEST_MAIN(TEST_ENTRY(a_function_of_an_exited_process_is_named_from_its_file),
          TEST_ENTRY(a_file_rebuilt_since_the_trace_names_nothing))
