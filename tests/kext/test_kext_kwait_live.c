/*
 * test_kext_kwait_live.c - kernel waits against a real FUSE daemon (label
 * "live"; kext/kwait.bpf.c): a child stats a file on a bindfs mount and the
 * tracer writes the kernel's request for it (kreq_send, header = the child)
 * and the daemon's answer (kreq_end, header = the daemon, same connection
 * and request id); a stat while the daemon is stopped blocks in the kernel,
 * and where it waited there (request_wait_answer) comes in a wait_end stack
 * record when the wait is over.
 */
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "collect.h"
#include "tracer.h"

static char mnt[64], file[128];

/* The decoder's stacks (user and kernel), by id. */
#define KEPT_STACKS 128

struct kept_stacks {
	uint64_t ips[KEPT_STACKS][TRACER_STACK_DEPTH];
	uint32_t depth[KEPT_STACKS], n;
};

static uint32_t keep_stack(void *arg, const uint64_t *ips, uint32_t depth)
{
	struct kept_stacks *t = arg;

	if (t->n == KEPT_STACKS)
		return 0;
	if (depth > TRACER_STACK_DEPTH)
		depth = TRACER_STACK_DEPTH;
	memcpy(t->ips[t->n], ips, depth * sizeof(*ips));
	t->depth[t->n] = depth;
	return ++t->n;
}

/* Whether one of the kernel frames is in function fn (/proc/kallsyms: the
 * symbol at the greatest address at or below the frame). */
static bool frames_in(const uint64_t *ips, uint32_t depth, const char *fn)
{
	uint64_t best[TRACER_STACK_DEPTH] = {0};
	char name[TRACER_STACK_DEPTH][128], line[512], sym[128];
	unsigned long long a;
	bool found = false;
	FILE *f = fopen("/proc/kallsyms", "r");
	char type;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %127s", &a, &type, sym) == 3)
			for (uint32_t i = 0; i < depth; i++)
				if (a <= ips[i] && a > best[i]) {
					best[i] = a;
					snprintf(name[i], sizeof(name[i]), "%s", sym);
				}
	fclose(f);
	for (uint32_t i = 0; i < depth; i++)
		found |= best[i] && !strcmp(name[i], fn);
	return found;
}

static void stat_main(void *arg)
{
	struct stat st;

	(void)arg;
	_exit(stat(file, &st) == 0 ? 0 : 1);
}

/* bindfs -f SRC MNT in the foreground of a child; 0 when it did not mount */
static pid_t mount_bindfs(const char *src)
{
	pid_t pid = fork();

	if (pid == 0) {
		/* a failed assertion must not leave it holding the test's output
		 * open (the runner would wait for it until its timeout) */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		execl("/usr/bin/bindfs", "bindfs", "-f", src, mnt, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 100; i++) {
		char cmd[160];

		snprintf(cmd, sizeof(cmd), "mountpoint -q %s", mnt);
		if (system(cmd) == 0)
			return pid;
		usleep(50000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return 0;
}

static void unmount_bindfs(pid_t pid)
{
	char cmd[256];

	kill(pid, SIGCONT);
	snprintf(cmd, sizeof(cmd), "fusermount3 -u %s 2>/dev/null || umount -l %s", mnt, mnt);
	if (system(cmd) != 0)
		fprintf(stderr, "could not unmount %s\n", mnt);
	waitpid(pid, NULL, 0);
}

TEST(fuse_request_names_the_daemon_that_answered)
{
	char src[64] = "/tmp/argus-kwait-src-XXXXXX";
	struct argus_kext_opts o = {.pid_filter = true, .no_samples = true};
	struct collector c;

	require_live();
	if (access("/usr/bin/bindfs", X_OK) != 0 || access("/dev/fuse", R_OK | W_OK) != 0)
		SKIP("needs bindfs and /dev/fuse (scripts/install-deps.sh)");
	ASSERT(mkdtemp(src));
	snprintf(mnt, sizeof(mnt), "%s-mnt", src);
	ASSERT(mkdir(mnt, 0700) == 0);
	snprintf(file, sizeof(file), "%s/f", mnt);
	char srcfile[128];
	snprintf(srcfile, sizeof(srcfile), "%s/f", src);
	FILE *f = fopen(srcfile, "w");
	ASSERT(f && fputs("x", f) >= 0 && fclose(f) == 0);
	/* the tracer first: one that cannot load skips before anything is mounted */
	collector_start(&c, &o);
	pid_t daemon = mount_bindfs(src);
	if (!daemon) {
		collector_free(&c);
		SKIP("bindfs did not mount %s", mnt);
	}
	ASSERT(argus_kext_add_pid(c.k, daemon) == 0);
	/* one answered stat, then one on the stopped daemon (it blocks) */
	struct gated_child g = spawn_gated(stat_main, NULL);
	trace_and_go(&c, &g);
	ASSERT_EQ(wait_child(&c, g.pid), 0);
	snprintf(file, sizeof(file), "%s/g", mnt); /* not cached: a new lookup */
	kill(daemon, SIGSTOP);
	usleep(50000);
	struct gated_child h = spawn_gated(stat_main, NULL);
	trace_and_go(&c, &h);
	usleep(300000);
	collector_drain(&c);
	uint64_t let_go = mono_ns();
	kill(daemon, SIGCONT);
	wait_child(&c, h.pid);
	collector_finish(&c);
	unmount_bindfs(daemon);
	rmdir(mnt);
	unlink(srcfile);
	rmdir(src);

	static struct kept_stacks kept;
	struct argus_sink sink = {.intern_stack = keep_stack, .arg = &kept};
	size_t sends = 0, answered = 0, blocked_sends = 0;
	bool kstack = false, in_fuse = false;
	argus_kext_decode(c.k, c.ev, c.n, &sink);
	for (size_t i = 0; i < c.n; i++) {
		const struct argus_event *s = &c.ev[i];

		/* the wait lasted 300 ms: its kernel stack comes at its end, a
		 * wait_end record after the daemon was let go (docs/kext.md
		 * "Stacks"); the wait's own record has none */
		if (s->type == ARGUS_EV_STACK && s->pid == (uint32_t)h.pid && s->stack.kstack) {
			ASSERT_EQ(s->stack.kind, ARGUS_STACK_WAIT_END);
			ASSERT_MSG(s->ts >= let_go, "the kernel stack came %lld ns before the wait ended",
			           (long long)(let_go - s->ts));
			kstack = true;
			if (s->stack.kstack <= kept.n)
				in_fuse |= frames_in(kept.ips[s->stack.kstack - 1],
				                     kept.depth[s->stack.kstack - 1], "request_wait_answer");
		}
		if (s->type != ARGUS_EV_KREQ_SEND)
			continue;
		ASSERT_EQ(s->kreq.obj_kind, ARGUS_OBJ_FUSE);
		ASSERT_EQ(s->kreq.requester, s->tid);
		blocked_sends += s->pid == (uint32_t)h.pid;
		if (s->pid != (uint32_t)g.pid)
			continue;
		sends++;
		for (size_t j = i + 1; j < c.n; j++) {
			const struct argus_event *e = &c.ev[j];

			if (e->type == ARGUS_EV_KREQ_END && e->kreq.obj == s->kreq.obj &&
			    e->kreq.unique == s->kreq.unique) {
				answered += e->pid == (uint32_t)daemon;
				break;
			}
		}
	}
	ASSERT_MSG(sends > 0, "no kreq_send from the child that stat'ed %s", file);
	ASSERT_MSG(answered == sends, "%zu of %zu requests ended by the daemon %d", answered,
	           sends, (int)daemon);
	ASSERT_MSG(blocked_sends > 0, "no kreq_send from the child blocked on the stopped daemon");
	ASSERT_MSG(kstack, "no kernel stack at the end of the blocked child's wait");
	ASSERT_MSG(in_fuse, "the blocked child's kernel stack is not in request_wait_answer");
	collector_free(&c);
}

TEST_MAIN(TEST_ENTRY(fuse_request_names_the_daemon_that_answered))
