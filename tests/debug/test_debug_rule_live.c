/*
 * test_debug_rule_live.c - a user rule saved in one `argus debug -i`
 * session changes the live daemon's next diagnosis of the same hang
 * (docs/debug.md "Rules"; issue 20). rule_live.sh runs `argus start` (its
 * system rules file empty), a zoo-like GTK3 case (heartbeat/: the UI thread
 * waits for its I/O thread's answer on a condition variable that a progress
 * thread, zoo-hb-beat, broadcasts every 20 ms; the saver the I/O thread asks
 * sleeps 4 s in save_flush_journal) through bench/zoo/run-case.sh against
 * that daemon, then `argus debug -i --system` over that run's trace, whose
 * `rule add ignore wakeup zoo-hb-beat` writes the daemon's rules file, then
 * the case again. The truth (heartbeat/truth) is written from the program.
 * Asserted: the daemon's first answer is not the truth (it names the
 * ticker: the case's premise), the session saved the rule and its answer
 * then names the saver, the daemon read the file again, and its answer to
 * the second run is the truth. Labels "live", "gui"; skipped without root,
 * Xvfb, xdotool, python3, dbus-daemon or dunst.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"

static char dir[64];

static char *slurp(const char *name)
{
	char p[160];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	FILE *f = fopen(p, "r");
	char *b = calloc(1, 1 << 20);
	if (f && b) {
		size_t n = fread(b, 1, (1 << 20) - 1, f);
		b[n] = 0;
	}
	if (f)
		fclose(f);
	return b;
}

static void cleanup(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (dir[0] && system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

/* A "key":true / "key":"text" field of run-case.sh's one JSON line. */
static bool field_true(const char *json, const char *key)
{
	char k[64];
	snprintf(k, sizeof(k), "\"%s\":true", key);
	return json && strstr(json, k);
}

static void field_str(const char *json, const char *key, char *out, size_t cap)
{
	char k[64];
	snprintf(k, sizeof(k), "\"%s\":\"", key);
	const char *p = json ? strstr(json, k) : NULL;
	out[0] = 0;
	if (!p)
		return;
	p += strlen(k);
	size_t n = strcspn(p, "\"");
	snprintf(out, cap, "%.*s", (int)(n < cap ? n : cap - 1), p);
}

TEST(user_rule_changes_the_daemons_next_diagnosis)
{
	const char *bin = getenv("ARGUS_BIN"), *src = getenv("ARGUS_SRC"),
	           *zoo = getenv("ARGUS_ZOO_BIN_DIR");
	if (!bin || access(bin, X_OK) != 0 || !src || !zoo)
		SKIP("ARGUS_BIN, ARGUS_SRC or ARGUS_ZOO_BIN_DIR not set (run through ctest)");
	snprintf(dir, sizeof(dir), "/tmp/argus-rule-live-XXXXXX");
	ASSERT(mkdtemp(dir));
	atexit(cleanup);
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "%s/tests/debug/rule_live.sh %s %s %s %s > %s/script.out 2>&1",
	         src, dir, bin, zoo, src, dir);
	int st = system(cmd);
	int rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	char *out = slurp("script.out");
	if (rc == 77)
		SKIP("%s", strstr(out, "skipped: ") ? strstr(out, "skipped: ") + 9 : out);
	ASSERT_MSG(rc == 0, "rule_live.sh: exit %d: %s", rc, out);
	char *r1 = slurp("run1.json"), *r2 = slurp("run2.json"), *ses = slurp("session.txt"),
	     *dlog = slurp("daemon.log"), *rules = slurp("rules"), *tries = slurp("tries");
	char a1[256], a2[256];
	field_str(r1, "live_answer", a1, sizeof(a1));
	field_str(r2, "live_answer", a2, sizeof(a2));
	fprintf(stderr, "first run: %s\nsecond run: %s\n", a1, a2);
	/* the premise: the daemon saw the stall and named the ticker */
	ASSERT_MSG(a1[0], "no live answer to the first run: %s", r1);
	ASSERT_MSG(!field_true(r1, "live_top1"), "the first answer was right in %s runs: %s", tries,
	           r1);
	ASSERT_MSG(strstr(a1, "zoo-hb-beat"), "the first answer is not the ticker: %s", a1);
	/* the session saved the rule to the daemon's file; its answer changed */
	ASSERT_MSG(strstr(rules, "ignore wakeup zoo-hb-beat\n"), "rules file: %s", rules);
	ASSERT_MSG(strstr(ses, "saved 1 rule to"), "session: %s", ses);
	const char *after = strstr(ses, "saved 1 rule to");
	ASSERT_MSG(after && strstr(after, "zoo-hb-saver") && strstr(after, "save_flush_journal"),
	           "the session's answer after the rule: %s", ses);
	/* the daemon read it again, and its next answer is the truth */
	ASSERT_MSG(strstr(dlog, "read again: 1 rule"), "daemon log: %s", dlog);
	ASSERT_MSG(field_true(r2, "live_top1"), "the second answer is not the truth: %s", r2);
	ASSERT_MSG(strstr(a2, "zoo-hb-saver save_flush_journal"), "second answer: %s", a2);
	free(out), free(r1), free(r2), free(ses), free(dlog), free(rules), free(tries);
}

TEST_MAIN(TEST_ENTRY(user_rule_changes_the_daemons_next_diagnosis))
