/*
 * test_issues_gtk.c - lags of a real GTK3 app as issues (labels live, gui:
 * root, eBPF, Xvfb, xdotool). lag_gtk_app's key `o` (open) and click
 * (import) each spend 220 ms in tokenize_slowly(), three times each; the
 * app is recorded twice with `argus record --hooks` (two runs: other pids,
 * other load addresses) and both traces are imported into one store:
 *  - the key handler is one gtk-event issue (the hooks' signal landmark,
 *    named by the handler the app connected) with two sessions and six
 *    occurrences of about 220 ms, whose tree's heaviest path ends in the
 *    injected function;
 *  - the click handler is another, linked to it as similar (the two
 *    commands share parse_document and tokenize_slowly).
 */
#include <stdlib.h>
#include <string.h>

#include "hooks_fixture.h"
#include "issues.h"
#include "test.h"

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

/* An Xvfb on a free display, its pid; -1 when none started. */
static pid_t start_xvfb(char *display, size_t cap, const char *log)
{
	for (int d = 170 + getpid() % 100; d < 500; d += 7) {
		char lock[64], sock[64], num[16];
		snprintf(lock, sizeof(lock), "/tmp/.X%d-lock", d);
		snprintf(sock, sizeof(sock), "/tmp/.X11-unix/X%d", d);
		if (access(lock, F_OK) == 0 || access(sock, F_OK) == 0)
			continue;
		snprintf(num, sizeof(num), ":%d", d);
		char *argv[] = {"Xvfb",    num, "-nolisten",  "tcp",
		                "-screen", "0", "640x480x24", NULL};
		pid_t x = fx_start(argv, log);
		if (fx_wait_for(sock, NULL, 5)) {
			snprintf(display, cap, "%s", num);
			return x;
		}
		fx_wait(x, 0.1);
	}
	return -1;
}

static const struct argus_issue_summary *find(const struct argus_issue_summary *v, size_t n,
                                              const char *landmark, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].app, "lag_gtk_app") && !strcmp(v[i].landmark, landmark) &&
		    !strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

TEST(gtk_handler_lag_is_one_issue_over_two_runs_and_commands_are_linked)
{
	const char *bin = getenv("ARGUS_BIN");
	if (!bin || access(bin, X_OK) != 0)
		SKIP("ARGUS_BIN is not set to the argus binary");
	if (geteuid() != 0)
		SKIP("needs root for eBPF tracing");
	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0)
		SKIP("kernel has no BTF at /sys/kernel/btf/vmlinux");
	if (!fx_have("Xvfb") || !fx_have("xdotool"))
		SKIP("Xvfb or xdotool not installed");
	char dir[] = "/tmp/argus-test-issues-gtk-XXXXXX";
	ASSERT(mkdtemp(dir));
	char log[160], display[16], cmd[1024], out[32768], db[160], err[512];
	snprintf(log, sizeof(log), "%s/xvfb.log", dir);
	pid_t xvfb = start_xvfb(display, sizeof(display), log);
	if (xvfb < 0)
		SKIP("Xvfb did not start");
	setenv("DISPLAY", display, 1);
	setenv("GDK_BACKEND", "x11", 1);
	setenv("NO_AT_BRIDGE", "1", 1);
	snprintf(db, sizeof(db), "%s/issues.db", dir);
	int rc = 0;
	for (int run = 1; run <= 2 && !rc; run++) {
		snprintf(cmd, sizeof(cmd), "'%s' record --hooks -o %s/run%d.argus -- '%s' 2>&1",
		         bin, dir, run, LAG_APP);
		rc = sh(cmd, out, sizeof(out));
		if (!rc && strstr(out, "no `q` arrived"))
			rc = -2;
	}
	kill(xvfb, SIGTERM);
	fx_wait(xvfb, 5);
	if (rc == 3 || rc == 4)
		SKIP("argus record cannot trace here: %s", out);
	ASSERT_MSG(rc == 0, "a run failed: %d", rc);
	snprintf(cmd, sizeof(cmd), "'%s' issues import --db %s %s/run1.argus %s/run2.argus 2>&1",
	         bin, db, dir, dir);
	ASSERT_EQ(sh(cmd, out, sizeof(out)), 0);
	snprintf(cmd, sizeof(cmd), "'%s' issues --db %s --app lag_gtk_app 2>&1", bin, db);
	ASSERT_EQ(sh(cmd, out, sizeof(out)), 0);

	struct argus_issues *s;
	ASSERT_EQ(argus_issues_open(&s, db, false, err, sizeof(err)), 0);
	struct argus_issue_summary *v;
	size_t n;
	ASSERT_EQ(argus_issues_list(s, NULL, ARGUS_ISSUES_BY_LATENCY, &v, &n, err, sizeof(err)), 0);
	const struct argus_issue_summary *key = find(v, n, "gtk-event", "on_key_press");
	const struct argus_issue_summary *click = find(v, n, "gtk-event", "on_button_press");
	ASSERT_MSG(key, "no gtk-event issue named on_key_press");
	ASSERT_MSG(click, "no gtk-event issue named on_button_press");
	/* one issue over the two runs: every press of both */
	ASSERT_U64_EQ(key->sessions, 2);
	ASSERT_U64_EQ(key->occurrences, 6);
	ASSERT_U64_EQ(click->sessions, 2);
	ASSERT_U64_EQ(click->occurrences, 6);
	ASSERT_STR_EQ(key->frames, "on_key_press");
	ASSERT(!strstr(key->frames, "0x"));
	ASSERT_MSG(key->incl.median >= 215000000ull && key->incl.median < 300000000ull,
	           "median %llu ns", (unsigned long long)key->incl.median);
	ASSERT(key->excl.median * 2 >= key->incl.median);
	/* no other issue of the app: the "event" signal around the handler,
	 * the GDK source around both and the episode around all leave it to
	 * the handler (the episode keyed by its few samples split as they
	 * moved) */
	for (size_t i = 0; i < n; i++)
		if (&v[i] != key && &v[i] != click && !strcmp(v[i].app, "lag_gtk_app"))
			ASSERT_MSG(0, "another issue of the app: %s %s", v[i].landmark, v[i].name);
	int64_t key_id = key->id, click_id = click->id;
	free(v);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	ASSERT_EQ(argus_issues_show_json(s, key_id, m, err, sizeof(err)), 0);
	fclose(m);
	/* the heaviest path ends in the injected function, below its callers */
	const char *hp = strstr(buf, "\"heaviest_path\":[");
	ASSERT(hp);
	const char *hp_end = strchr(hp, ']');
	ASSERT(hp_end);
	ASSERT_MSG(hp_end - hp > 20 && !strncmp(hp_end - 17, "\"tokenize_slowly\"", 17),
	           "heaviest path: %.*s", (int)(hp_end - hp), hp);
	ASSERT(strstr(hp, "\"on_key_press\",\"open_document\",\"parse_document\"") &&
	       strstr(hp, "\"on_key_press\",\"open_document\",\"parse_document\"") < hp_end);
	/* the click handler is linked as similar, with its distance */
	char link[64];
	snprintf(link, sizeof(link), "{\"id\":%lld,\"distance\":", (long long)click_id);
	const char *sim = strstr(buf, "\"similar\":[");
	ASSERT(sim);
	const char *l = strstr(sim, link);
	ASSERT_MSG(l, "the click's issue is not similar to the key's: %s", sim);
	double dist = strtod(l + strlen(link), NULL);
	printf("distance between the key's and the click's issues: %.3f\n", dist);
	ASSERT(dist > 0 && dist < 0.6);
	free(buf);
	argus_issues_close(s);
	snprintf(cmd, sizeof(cmd), "'%s' issues show --db %s %lld 2>&1", bin, db,
	         (long long)key_id);
	ASSERT_EQ(sh(cmd, out, sizeof(out)), 0);
	ASSERT_CONTAINS(out, "lag gtk-event in lag_gtk_app: on_key_press");
	ASSERT_CONTAINS(
	    out, "heaviest path: on_key_press > open_document > parse_document > tokenize_slowly");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ASSERT_EQ(system(cmd), 0);
}

TEST_MAIN(TEST_ENTRY(gtk_handler_lag_is_one_issue_over_two_runs_and_commands_are_linked))
