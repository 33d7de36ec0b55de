/*
 * test_kext_kwait_live.c - kernel waits against a real FUSE daemon (label
 * "live"; kext/kwait.bpf.c): a child stats a file on a bindfs mount and the
 * tracer writes the kernel's request for it (kreq_send, header = the child)
 * and the daemon's answer (kreq_end, header = the daemon, same connection
 * and request id); a stat while the daemon is stopped blocks in the kernel
 * with a wait stack whose kernel half (kstack) is there.
 */
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "collect.h"

static char mnt[64], file[128];

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

	size_t sends = 0, answered = 0, blocked_sends = 0;
	bool kstack = false;
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
	ASSERT_MSG(kstack, "no kernel stack in the blocked child's wait stack");
	collector_free(&c);
}

TEST_MAIN(TEST_ENTRY(fuse_request_names_the_daemon_that_answered))
