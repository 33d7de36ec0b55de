/*
 * test_procmaps.c - the executable mappings of a process (kext/procmaps.c).
 *
 * From the PROCMAP_QUERY ioctl they are those the text of /proc/PID/maps
 * lists: same ranges, offsets, permissions and paths, in the same order,
 * for this process (many libraries) and a child that exec'd another
 * program. The text's [vsyscall] line is the one difference: that page is
 * not one of the process's mappings (the kernel adds it to the text), the
 * ioctl does not report it.
 *
 * Kept per process: a mapping made after the maps were read (a library the
 * dynamic loader or dlopen maps after the exec) makes a stack address in
 * it stale, the maps are read again (at most once a second) and only the
 * new mapping is written.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procmaps.h"
#include "test.h"

#define MAXV 512

struct vmas {
	size_t n;
	struct argus_vma v[MAXV];
	char path[MAXV][256];
};

static int keep(void *arg, const struct argus_vma *v)
{
	struct vmas *s = arg;

	if (!strcmp(v->path, "[vsyscall]") || s->n == MAXV)
		return 0;
	s->v[s->n] = *v;
	snprintf(s->path[s->n], sizeof(s->path[0]), "%s", v->path);
	s->v[s->n].path = s->path[s->n];
	s->n++;
	return 0;
}

static void same_maps(uint32_t pid)
{
	static struct vmas text, kern;
	bool missing = false;

	memset(&text, 0, sizeof(text));
	memset(&kern, 0, sizeof(kern));
	ASSERT(argus_procmaps_exec(pid, ARGUS_PROCMAPS_TEXT, NULL, keep, &text) > 0);
	ASSERT(argus_procmaps_exec(pid, ARGUS_PROCMAPS_AUTO, &missing, keep, &kern) > 0);
	if (missing)
		SKIP(
		    "the kernel has no PROCMAP_QUERY (Linux < 6.11): the text was read both times");
	ASSERT(text.n >= 2);
	ASSERT_EQ(kern.n, text.n);
	for (size_t i = 0; i < text.n; i++) {
		ASSERT_U64_EQ(kern.v[i].start, text.v[i].start);
		ASSERT_U64_EQ(kern.v[i].end, text.v[i].end);
		ASSERT_U64_EQ(kern.v[i].pgoff, text.v[i].pgoff);
		ASSERT_EQ(kern.v[i].prot, text.v[i].prot);
		ASSERT_STR_EQ(kern.path[i], text.path[i]);
	}
}

TEST(this_process_has_the_same_executable_mappings_either_way)
{
	same_maps((uint32_t)getpid());
}

TEST(an_execd_child_has_the_same_executable_mappings_either_way)
{
	int p[2];
	char c;
	pid_t pid;

	ASSERT(pipe(p) == 0);
	pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		/* sh writes once it runs (its libraries are mapped), then waits */
		dup2(p[1], 1);
		execl("/bin/sh", "sh", "-c", "echo x; exec sleep 30", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	ASSERT(read(p[0], &c, 1) == 1);
	usleep(100000); /* sleep's exec done */
	same_maps((uint32_t)pid);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(p[0]);
}

TEST(a_gone_process_has_none)
{
	pid_t pid = fork();

	ASSERT(pid >= 0);
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	ASSERT_EQ(
	    argus_procmaps_exec((uint32_t)pid, ARGUS_PROCMAPS_AUTO, NULL, keep, &(struct vmas){0}),
	    -1);
}

#define SEC 1000000000ull

struct seen {
	unsigned n;
	uint64_t start[256];
	char path[256][128];
};

static void on_map(void *arg, const struct argus_vma *m)
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

TEST_MAIN(TEST_ENTRY(this_process_has_the_same_executable_mappings_either_way),
          TEST_ENTRY(an_execd_child_has_the_same_executable_mappings_either_way),
          TEST_ENTRY(a_gone_process_has_none),
          TEST_ENTRY(a_mapping_made_after_the_maps_were_read_is_read_again_and_written_once),
          TEST_ENTRY(a_process_gone_reads_nothing))
