/*
 * test_kext_full_pids_live.c - who asked for a process's full stacks: an
 * app's (argus start --full-stacks: argus_kext_full_stacks) and a user's
 * (argus trace-more: argus_kext_full_stacks_asked) are kept apart in the
 * tracer's full_pids map, so the end of one leaves the other's on. Loads
 * the tracer without attaching it (root, label "live").
 */
#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "kext_priv.h"
#include "test.h"
#include "tracer.skel.h"

/* The map's value for pid: its bits, -1 when not there. */
static int full_value(struct argus_kext *k, uint32_t pid)
{
	uint8_t v = 0;
	if (bpf_map_lookup_elem(bpf_map__fd(k->skel->maps.full_pids), &pid, &v))
		return errno == ENOENT ? -1 : -2;
	return v;
}

/* The tracer, loaded (the test skips where it cannot load). */
static struct argus_kext *open_tracer(void)
{
	if (geteuid() != 0)
		SKIP("needs root to load the eBPF tracer");
	struct argus_kext_opts o = {0};
	struct argus_kext *k;
	char err[512];
	int rc = argus_kext_open(&k, &o, err, sizeof(err));
	if (rc == ARGUS_KEXT_EPRIV || rc == ARGUS_KEXT_ENOSUPPORT)
		SKIP("the tracer cannot load here: %s", err);
	ASSERT_MSG(rc == 0, "%s", err);
	return k;
}

TEST(an_apps_and_a_users_full_stacks_end_apart)
{
	struct argus_kext *k = open_tracer();
	uint32_t pid = (uint32_t)getpid();
	ASSERT(argus_kext_samples(k));
	ASSERT(!argus_kext_per_call(k));
	ASSERT_EQ(full_value(k, pid), -1);
	ASSERT_EQ(argus_kext_full_stacks(k, pid, true), 0);
	ASSERT_EQ(full_value(k, pid), 1);
	ASSERT_EQ(argus_kext_full_stacks_asked(k, pid, true), 0);
	ASSERT_EQ(full_value(k, pid), 3);
	ASSERT_EQ(argus_kext_full_stacks_asked(k, pid, false), 0); /* the user's ends */
	ASSERT_EQ(full_value(k, pid), 1);                          /* the app's stays */
	ASSERT_EQ(argus_kext_full_stacks(k, pid, false), 0);
	ASSERT_EQ(full_value(k, pid), -1);
	ASSERT_EQ(argus_kext_full_stacks_asked(k, pid, true), 0);
	ASSERT_EQ(argus_kext_full_stacks(k, pid, true), 0);
	ASSERT_EQ(argus_kext_full_stacks(k, pid, false), 0); /* the app's ends */
	ASSERT_EQ(full_value(k, pid), 2);                    /* the user's stays */
	ASSERT_EQ(argus_kext_full_stacks_asked(k, pid, false), 0);
	ASSERT_EQ(full_value(k, pid), -1);
	ASSERT_EQ(argus_kext_full_stacks_asked(k, pid, false), 0); /* off twice is fine */
	ASSERT_EQ(argus_kext_full_stacks_asked(k, 0, true), ARGUS_KEXT_EINVAL);
	argus_kext_close(k);
}

/* A process's full stacks end at its exit, in the kernel: its pid comes
 * round as another process's, and the map (TRACER_FULL_PIDS_MAX) would
 * fill with processes gone */
TEST(a_processes_full_stacks_end_at_its_exit)
{
	struct argus_kext *k = open_tracer();
	char err[512];
	ASSERT_MSG(argus_kext_start(k, err, sizeof(err)) == 0, "%s", err);
	int go[2];
	ASSERT_EQ(pipe(go), 0);
	pid_t child = fork();
	ASSERT(child >= 0);
	if (child == 0) {
		char b;
		_exit(read(go[0], &b, 1) == 1 ? 0 : 1);
	}
	ASSERT_EQ(argus_kext_full_stacks(k, (uint32_t)child, true), 0);
	ASSERT_EQ(full_value(k, (uint32_t)child), 1);
	ASSERT_EQ(write(go[1], "x", 1), 1);
	int st;
	ASSERT_EQ(waitpid(child, &st, 0), child);
	ASSERT_EQ(full_value(k, (uint32_t)child), -1);
	close(go[0]);
	close(go[1]);
	argus_kext_stop(k);
	argus_kext_close(k);
}

TEST_MAIN(TEST_ENTRY(an_apps_and_a_users_full_stacks_end_apart),
          TEST_ENTRY(a_processes_full_stacks_end_at_its_exit))
