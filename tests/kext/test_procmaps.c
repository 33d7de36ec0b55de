/*
 * test_procmaps.c - a process's executable mappings from the PROCMAP_QUERY
 * ioctl (kext/procmaps.c) are those the text of /proc/PID/maps lists:
 * same ranges, offsets, permissions and paths, in the same order, for this
 * process (many libraries) and a child that exec'd another program. The
 * text's [vsyscall] line is the one difference: that page is not one of
 * the process's mappings (the kernel adds it to the text), the ioctl does
 * not report it.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
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

TEST_MAIN(TEST_ENTRY(this_process_has_the_same_executable_mappings_either_way),
          TEST_ENTRY(an_execd_child_has_the_same_executable_mappings_either_way),
          TEST_ENTRY(a_gone_process_has_none))
