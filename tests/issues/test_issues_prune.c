/*
 * test_issues_prune.c - `argus issues prune` (label "live": root, eBPF): a
 * hooked GLib program whose timeout callback spends 250 ms in
 * recount_words() is recorded with `argus record --hooks` and imported:
 * its callback is a "handler" issue; pruning recount_words in a re-run
 * removes the landmark's perceptible latency, and pruning another
 * function leaves it.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "issues.h"
#include "test.h"

static char dir[128];

/* The scratch folder `argus issues prune` printed, removed. */
static void remove_scratch(const char *out)
{
	const char *p = strstr(out, "traces and their store: /tmp/argus-prune-");
	if (!p)
		return;
	p += strlen("traces and their store: ");
	char cmd[160];
	int n = (int)strcspn(p, "\n");
	snprintf(cmd, sizeof(cmd), "rm -rf '%.*s'", n < 100 ? n : 100, p);
	if (system(cmd))
		fprintf(stderr, "could not remove %.*s\n", n, p);
}

/* Run a shell command; its output into out; its exit code. */
static int sh(const char *cmd, char *out, size_t cap)
{
	FILE *p = popen(cmd, "r");
	ASSERT(p);
	size_t n = fread(out, 1, cap - 1, p);
	out[n] = 0;
	int st = pclose(p);
	printf("$ %s -> %d\n%s", cmd, WEXITSTATUS(st), out);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

TEST(pruning_the_slow_call_removes_the_handlers_lag)
{
	const char *bin = getenv("ARGUS_BIN");
	if (!bin || access(bin, X_OK) != 0)
		SKIP("ARGUS_BIN is not set to the argus binary");
	if (geteuid() != 0)
		SKIP("needs root for eBPF tracing");
	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0)
		SKIP("kernel has no BTF at /sys/kernel/btf/vmlinux");
	snprintf(dir, sizeof(dir), "/tmp/argus-test-prune-XXXXXX");
	ASSERT(mkdtemp(dir));
	char cmd[1024], out[16384], db[160], err[512];
	snprintf(db, sizeof(db), "%s/issues.db", dir);
	snprintf(cmd, sizeof(cmd), "'%s' record --hooks -o %s/t.argus -- '%s' lag 2>&1", bin, dir,
	         HOOKS_PROG);
	int rc = sh(cmd, out, sizeof(out));
	if (rc == 3 || rc == 4)
		SKIP("argus record cannot trace here: %s", out);
	ASSERT_EQ(rc, 0);
	snprintf(cmd, sizeof(cmd), "'%s' issues import --db %s %s/t.argus 2>&1", bin, db, dir);
	ASSERT_EQ(sh(cmd, out, sizeof(out)), 0);
	struct argus_issues *s;
	ASSERT_EQ(argus_issues_open(&s, db, true, err, sizeof(err)), 0);
	struct argus_issue_summary *v;
	size_t n;
	ASSERT_EQ(argus_issues_list(s, NULL, ARGUS_ISSUES_BY_LATENCY, &v, &n, err, sizeof(err)), 0);
	int64_t id = 0;
	for (size_t i = 0; i < n; i++) {
		printf("issue %lld %s %s %s [%s] occ %llu median %.1f ms\n", (long long)v[i].id,
		       v[i].app, v[i].landmark, v[i].name, v[i].frames,
		       (unsigned long long)v[i].occurrences, (double)v[i].incl.median / 1e6);
		if (!strcmp(v[i].landmark, "handler") && !strcmp(v[i].app, "hooks_glib_prog"))
			id = v[i].id;
	}
	ASSERT_MSG(id, "no handler issue of the program");
	for (size_t i = 0; i < n; i++)
		if (v[i].id == id) {
			ASSERT_STR_EQ(v[i].name, "on_tick");
			ASSERT_U64_EQ(v[i].occurrences, 3);
			ASSERT(v[i].incl.median >= 245000000ull);
		}
	free(v);
	argus_issues_close(s);
	snprintf(cmd, sizeof(cmd), "'%s' issues prune --db %s %lld recount_words -- '%s' lag 2>&1",
	         bin, db, (long long)id, HOOKS_PROG);
	ASSERT_EQ(sh(cmd, out, sizeof(out)), 0);
	ASSERT_CONTAINS(out, "without pruning: 3 occurrence(s)");
	ASSERT_CONTAINS(out, "with recount_words pruned: no occurrence");
	ASSERT_CONTAINS(out, "removes the landmark's perceptible latency");
	remove_scratch(out);
	/* a call that is not the cause */
	snprintf(cmd, sizeof(cmd), "'%s' issues prune --db %s %lld hang_forever -- '%s' lag 2>&1", bin,
	         db, (long long)id, HOOKS_PROG);
	ASSERT_EQ(sh(cmd, out, sizeof(out)), 0);
	ASSERT_CONTAINS(out, "it is not the cause");
	remove_scratch(out);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ASSERT_EQ(system(cmd), 0);
}

TEST_MAIN(TEST_ENTRY(pruning_the_slow_call_removes_the_handlers_lag))
