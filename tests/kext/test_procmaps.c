/*
 * test_procmaps.c - the executable mappings the decoder keeps per process
 * (kext/procmaps.c): a mapping made after the maps were read (a library
 * the dynamic loader or dlopen maps after the exec) makes a stack address
 * in it stale, the maps are read again (at most once a second) and only
 * the new mapping is written.
 */
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "procmaps.h"
#include "test.h"

#define SEC 1000000000ull

struct seen {
	unsigned n;
	uint64_t start[256];
	char path[256][128];
};

static void on_map(void *arg, const struct argus_procmap *m)
{
	struct seen *s = arg;
	if (s->n < 256) {
		s->start[s->n] = m->start;
		snprintf(s->path[s->n], sizeof(s->path[0]), "%s", m->path);
	}
	s->n++;
}

static int test_fn(void)
{
	return 7;
}

TEST(a_mapping_made_after_the_maps_were_read_is_read_again_and_written_once)
{
	struct argus_procmaps *pm = argus_procmaps_new();
	ASSERT(pm);
	uint32_t self = (uint32_t)getpid();
	const uint64_t T = 100 * SEC;
	static struct seen s1, s2, s3;
	int n = argus_procmaps_read(pm, self, T, on_map, &s1);
	ASSERT(n > 0);
	ASSERT_EQ((unsigned)n, s1.n);
	/* read again: nothing new */
	ASSERT_EQ(argus_procmaps_read(pm, self, T, on_map, &s2), 0);
	ASSERT_EQ(s2.n, 0);
	/* an address of a mapping written is not stale */
	uint64_t fn = (uint64_t)(uintptr_t)&test_fn;
	ASSERT(test_fn() == 7);
	ASSERT(!argus_procmaps_stale(pm, self, T + 5 * SEC, &fn, 1));
	/* a file mapped executable now, as the dynamic loader maps a library */
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ASSERT(len > 0);
	exe[len] = 0;
	int fd = open(exe, O_RDONLY);
	ASSERT(fd >= 0);
	void *lib = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	ASSERT(lib != MAP_FAILED);
	close(fd);
	uint64_t ips[3] = {fn, (uint64_t)(uintptr_t)lib + 16, 0xffffffff81000000ull};
	ASSERT(!argus_procmaps_stale(pm, self, T + SEC / 2, ips, 3)); /* read just now */
	ASSERT(argus_procmaps_stale(pm, self, T + SEC, ips, 3));
	ASSERT(!argus_procmaps_stale(pm, self, T + SEC, ips + 2, 1)); /* the kernel's half */
	n = argus_procmaps_read(pm, self, T + SEC, on_map, &s3);
	ASSERT(n >= 1);
	bool found = false;
	for (unsigned i = 0; i < s3.n && i < 256; i++)
		found |= s3.start[i] == (uint64_t)(uintptr_t)lib && !strcmp(s3.path[i], exe);
	ASSERT_MSG(found, "the new mapping at %p of %s was not written", lib, exe);
	ASSERT(s3.n < s1.n); /* the others were written before */
	ASSERT(!argus_procmaps_stale(pm, self, T + 3 * SEC, ips, 3));
	/* exec'ed or exited: nothing kept, nothing stale */
	argus_procmaps_forget(pm, self);
	ASSERT(!argus_procmaps_stale(pm, self, T + 5 * SEC, ips, 3));
	ASSERT(argus_procmaps_read(pm, self, T + 5 * SEC, NULL, NULL) > 0); /* all new again */
	munmap(lib, 4096);
	argus_procmaps_free(pm);
}

TEST(a_process_gone_reads_nothing)
{
	struct argus_procmaps *pm = argus_procmaps_new();
	ASSERT(pm);
	ASSERT_EQ(argus_procmaps_read(pm, 0x7ffffff0u, SEC, NULL, NULL), -1);
	uint64_t ip = 0x1000;
	ASSERT(!argus_procmaps_stale(pm, 0x7ffffff0u, 5 * SEC, &ip, 1));
	argus_procmaps_free(pm);
}

TEST_MAIN(TEST_ENTRY(a_mapping_made_after_the_maps_were_read_is_read_again_and_written_once),
          TEST_ENTRY(a_process_gone_reads_nothing))
