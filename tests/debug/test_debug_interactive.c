/*
 * test_debug_interactive.c - `argus debug -i` driven by scripts over a
 * synthetic desktop (seed 1, 1M records: the five UI anomalies and their
 * ground truth, written by synth/ before argus runs): the commands, one-line
 * errors that let the session go on, an automatic answer that is wrong
 * (the critical-path baseline, --algo critical-path) made right by the
 * user's `baseline` (the missing wake-up) and by `pick` on the wake-up path
 * (the yield loop), `why` printing Algorithm 2's steps, a user rule saved in
 * one session changing the next `argus diagnose` of the same trace, and a
 * malformed rules file (exit 11, FILE:LINE).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_run.h"
#include "test.h"

static char dir[64], trace[128], home[128], sysrules[128];
static const char *bin;

/* Run `argus ARGS` with the commands on standard input (NULL = none), in a
 * HOME of the test's own; *out = stdout then stderr. */
static int run(const char *args, const char *cmds, char **out)
{
	char cmd[2048], inp[160];
	snprintf(inp, sizeof(inp), "%s/in", dir);
	FILE *f = fopen(inp, "w");
	ASSERT(f);
	fputs(cmds ? cmds : "", f);
	fclose(f);
	int n =
	    snprintf(cmd, sizeof(cmd), "HOME=%s XDG_CONFIG_HOME= ARGUS_SYSTEM_RULES=%s %s %s <%s",
	             home, sysrules, bin, args, inp);
	ASSERT_MSG(n >= 0 && (size_t)n < sizeof(cmd), "command too long: %s", args);
	return cli_run(cmd, dir, out, 1 << 22);
}

static void cleanup(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (dir[0] && system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

static void setup(void)
{
	bin = getenv("ARGUS_BIN");
	if (!bin || access(bin, X_OK) != 0)
		SKIP("ARGUS_BIN not set (run through ctest)");
	if (dir[0])
		return;
	snprintf(dir, sizeof(dir), "/tmp/argus-debug-i-XXXXXX");
	ASSERT(mkdtemp(dir));
	atexit(cleanup);
	snprintf(trace, sizeof(trace), "%s/t.argus", dir);
	snprintf(home, sizeof(home), "%s/home", dir);
	snprintf(sysrules, sizeof(sysrules), "%s/etc-rules", dir); /* none: not /etc's */
	ASSERT_EQ(mkdir(home, 0700), 0);
	char args[256];
	snprintf(args, sizeof(args), "synth -o %s -n 1M -s 1", trace);
	ASSERT_EQ(run(args, NULL, NULL), 0);
}

/* The truth of an anomaly kind: its UI thread and root thread. */
static void truth_of(const char *kind, unsigned *ui, unsigned *root)
{
	char *out, args[256], key[64];
	snprintf(args, sizeof(args), "diagnose --truth %s", trace);
	run(args, NULL, &out);
	snprintf(key, sizeof(key), "truth %s", kind);
	const char *l = strstr(out, key);
	ASSERT_MSG(l, "no truth record %s", kind);
	ASSERT_EQ(sscanf(l + strlen(key), " ui %u root %u", ui, root), 2);
	free(out);
}

/* The number `stalls` gives the stall of UI thread ui. */
static unsigned stall_number(const char *out, unsigned ui)
{
	char pat[64];
	for (const char *l = out; l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		unsigned n, pid, tid;
		char cls[32];
		if (sscanf(l, "%*c%u %31s %u/%u", &n, cls, &pid, &tid) == 4 && tid == ui &&
		    strcmp(cls, "long_running"))
			return n;
	}
	snprintf(pat, sizeof(pat), "no stall of UI thread %u", ui);
	TEST_FAIL_("%s", pat);
	return 0;
}

/* The thread of the last top candidate printed ("  c1 V comm pid/tid ..."). */
static unsigned last_c1_tid(const char *out)
{
	const char *l = NULL;
	for (const char *p = out; (p = strstr(p, "\n  c1 ")); p++)
		l = p + 1;
	ASSERT_MSG(l, "no candidate printed");
	unsigned pid, tid;
	ASSERT_EQ(sscanf(l, "  c1 %*s %*s %u/%u", &pid, &tid), 2);
	return tid;
}

/* The vertex (GEN.INDEX) on the first line of `similar` output. */
static void first_similar(const char *out, char *vid, size_t cap)
{
	const char *l = strstr(out, "\n 1 distance ");
	ASSERT_MSG(l, "no similar vertex listed");
	char tok[8][64];
	int n = sscanf(l + 1, "%63s %63s %63s %63s %63s %63s", tok[0], tok[1], tok[2], tok[3],
	               tok[4], tok[5]);
	for (int i = 3; i < n; i++)
		if (strchr(tok[i], '.')) {
			snprintf(vid, cap, "%s", tok[i]);
			return;
		}
	TEST_FAIL_("no vertex on the similar line");
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

TEST(commands_run_and_errors_are_one_line)
{
	setup();
	char *out, args[256];
	snprintf(args, sizeof(args), "debug -i %s", trace);
	int rc = run(args,
	             "stalls\nstall 2\nshow anomaly\nedges anomaly\nstack root\nbogus\n"
	             "stall 99\nshow 9999.9\nhelp\nquit\nstalls\n",
	             &out);
	ASSERT_EQ(rc, 1); /* a command failed; the session went on */
	ASSERT_CONTAINS(out, "5 stalls");
	ASSERT_CONTAINS(out, "argus> stall 2\nstall 2: ");
	ASSERT_CONTAINS(out, " incoming:");
	ASSERT_CONTAINS(out, "argus debug: unknown command 'bogus' (help lists them)\n");
	ASSERT_CONTAINS(out, "argus debug: no stall '99' (1..5)\n");
	ASSERT_CONTAINS(out, "argus debug: no vertex '9999.9' in the window");
	ASSERT_CONTAINS(out, "baseline V B"); /* help ran after the errors */
	/* quit ends it: the second stalls is not run */
	const char *q = strstr(out, "argus> quit");
	ASSERT(q && !strstr(q, "argus> stalls"));
	free(out);
	/* usage errors of the command line */
	ASSERT_EQ(run("debug -i --json x.argus", NULL, NULL), 2);
	ASSERT_EQ(run("debug --commands x t.argus", NULL, NULL), 2);
	ASSERT_EQ(run("debug -i -", NULL, NULL), 2);
	snprintf(args, sizeof(args), "debug -i --commands %s/none %s", dir, trace);
	ASSERT_EQ(run(args, NULL, NULL), 6);
}

TEST(baseline_makes_a_wrong_answer_right)
{
	setup();
	unsigned ui, root;
	truth_of("missing_wakeup", &ui, &root);
	char *out, args[256], cmds[256], vid[64];
	/* the automatic answer of the critical-path baseline is wrong */
	snprintf(args, sizeof(args), "debug -i --algo critical-path %s", trace);
	ASSERT_EQ(run(args, "stalls\n", &out), 0);
	unsigned n = stall_number(out, ui);
	free(out);
	snprintf(cmds, sizeof(cmds), "stall %u\nsimilar anomaly\n", n);
	ASSERT_EQ(run(args, cmds, &out), 0);
	ASSERT_MSG(last_c1_tid(out) != root, "the automatic answer was already right");
	first_similar(out, vid, sizeof(vid));
	free(out);
	/* the user makes the closest similar wait the baseline */
	snprintf(cmds, sizeof(cmds), "stall %u\nbaseline anomaly %s\n", n, vid);
	ASSERT_EQ(run(args, cmds, &out), 0);
	ASSERT_CONTAINS(out, "(given)");
	ASSERT_EQ(last_c1_tid(out), root);
	free(out);
	/* a baseline of another thread is refused, in one line */
	snprintf(cmds, sizeof(cmds), "stall %u\nbaseline anomaly 1.1\n", n);
	ASSERT_EQ(run(args, cmds, &out), 1);
	ASSERT_CONTAINS(out, "is not an earlier vertex of thread");
	free(out);
}

TEST(pick_on_the_wake_up_path_makes_a_wrong_answer_right)
{
	setup();
	unsigned ui, root;
	truth_of("yield_loop", &ui, &root);
	char *out, args[256], cmds[256], vid[64];
	snprintf(args, sizeof(args), "debug -i --algo critical-path %s", trace);
	ASSERT_EQ(run(args, "stalls\n", &out), 0);
	unsigned n = stall_number(out, ui);
	free(out);
	snprintf(cmds, sizeof(cmds), "stall %u\nsimilar anomaly\n", n);
	ASSERT_EQ(run(args, cmds, &out), 0);
	ASSERT_MSG(last_c1_tid(out) != root, "the automatic answer was already right");
	first_similar(out, vid, sizeof(vid));
	free(out);
	/* walk back from the earlier, quick run of the loop: argus asks */
	snprintf(cmds, sizeof(cmds), "stall %u\npath %s\n", n, vid);
	ASSERT_EQ(run(args, cmds, &out), 0);
	ASSERT_CONTAINS(out, "inter-thread incoming edges; pick one:");
	/* a user picks the flag write (the loop waits for a flag) */
	const char *l = strstr(out, "pick one:");
	unsigned k = 0;
	for (l = strchr(l, '\n'); l && !k; l = strchr(l + 1, '\n')) {
		unsigned c;
		char kind[32];
		if (sscanf(l + 1, " %u %31s", &c, kind) == 2 && !strcmp(kind, "flag"))
			k = c;
	}
	ASSERT_MSG(k, "no flag edge offered");
	free(out);
	snprintf(cmds, sizeof(cmds), "stall %u\npath %s\npick %u\n", n, vid, k);
	ASSERT_EQ(run(args, cmds, &out), 0);
	ASSERT_CONTAINS(out, "path ends");
	ASSERT_CONTAINS(out, "the comparison again, with this path as the normal path:");
	ASSERT_EQ(last_c1_tid(out), root);
	free(out);
	/* pick with no path waiting, or out of range: one line each */
	snprintf(cmds, sizeof(cmds), "pick 1\nstall %u\npath %s\npick 99\n", n, vid);
	ASSERT_EQ(run(args, cmds, &out), 1);
	ASSERT_CONTAINS(out, "pick: no path waits for a choice");
	ASSERT_CONTAINS(out, "pick: '99' is not one of 1..");
	free(out);
}

TEST(why_prints_the_steps_of_algorithm_2)
{
	setup();
	unsigned ui, root;
	truth_of("missing_wakeup", &ui, &root);
	char *out, args[256], cmds[128];
	snprintf(args, sizeof(args), "debug -i %s", trace);
	ASSERT_EQ(run(args, "stalls\n", &out), 0);
	unsigned n = stall_number(out, ui);
	free(out);
	snprintf(cmds, sizeof(cmds), "stall %u\nwhy\n", n);
	ASSERT_EQ(run(args, cmds, &out), 0);
	ASSERT_CONTAINS(out, ". depth 0: rule compare asked to explain");
	ASSERT_CONTAINS(out, ". depth 0: baseline ");
	ASSERT_CONTAINS(out, ". depth 0: normal path 1");
	ASSERT_CONTAINS(out, ". depth 0: pass 2: thread ");
	ASSERT_CONTAINS(out, ". rank 1: ");
	ASSERT_EQ(last_c1_tid(out), root); /* the default answer is right here */
	free(out);
}

TEST(a_saved_rule_changes_the_next_diagnose)
{
	setup();
	char *before, *after, *out, args[256], rules[256];
	snprintf(rules, sizeof(rules), "%s/.config/argus/rules", home);
	snprintf(args, sizeof(args), "diagnose %s", trace);
	ASSERT_EQ(run(args, NULL, &before), 0);
	/* the chromium stall's normal path starts with a weak wake-up by the
	 * renderer; a user says its wake-ups are no cause */
	snprintf(args, sizeof(args), "debug -i %s", trace);
	ASSERT_EQ(run(args, "rule add ignore wakeup renderer\nrule list\n", &out), 0);
	ASSERT_CONTAINS(out, "saved 1 rule to ");
	ASSERT_CONTAINS(out, "1 ignore wakeup renderer\n");
	free(out);
	FILE *f = fopen(rules, "r");
	ASSERT(f);
	char text[512] = "";
	ASSERT(fread(text, 1, sizeof(text) - 1, f) > 0);
	fclose(f);
	ASSERT_CONTAINS(text, "\nignore wakeup renderer\n");
	snprintf(args, sizeof(args), "diagnose %s", trace);
	ASSERT_EQ(run(args, NULL, &after), 0);
	ASSERT_CONTAINS(before, "[wakeup weak]\n    <- renderer");
	ASSERT_MSG(!strstr(after, "[wakeup weak]\n    <- renderer"),
	           "the rule did not change the normal path");
	free(after);
	/* deleted in the next session: diagnose is as before */
	snprintf(args, sizeof(args), "debug -i %s", trace);
	ASSERT_EQ(run(args, "rule del 1\nrule list\n", &out), 0);
	ASSERT_CONTAINS(out, "saved 0 rules to ");
	free(out);
	snprintf(args, sizeof(args), "diagnose %s", trace);
	ASSERT_EQ(run(args, NULL, &after), 0);
	ASSERT_CONTAINS(after, "[wakeup weak]\n    <- renderer");
	free(after);
	free(before);
	/* a bad rule is refused in one line and not saved */
	snprintf(args, sizeof(args), "debug -i %s", trace);
	ASSERT_EQ(run(args, "rule add split fonts\nrule add frobnicate x\n", &out), 1);
	ASSERT_CONTAINS(out, "rule add: 'split' takes 'batch COMM'");
	ASSERT_CONTAINS(out, "rule add: unknown rule 'frobnicate'");
	free(out);
}

TEST(malformed_rules_file_names_file_and_line)
{
	setup();
	char path[256], args[256], *out;
	snprintf(path, sizeof(path), "%s/.config", home);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/.config/argus", home);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/.config/argus/rules", home);
	ASSERT_EQ(write_file(path, "# mine\nsplit batch Xorg\nignore wakeups gnome-shell\n"), 0);
	snprintf(args, sizeof(args), "diagnose %s", trace);
	ASSERT_EQ(run(args, NULL, &out), 11);
	ASSERT_CONTAINS(out, "argus diagnose: ");
	ASSERT_CONTAINS(out, "argus/rules:3: 'ignore' takes 'wakeup COMM'");
	free(out);
	snprintf(args, sizeof(args), "debug -i %s", trace);
	ASSERT_EQ(run(args, "stalls\n", &out), 11);
	ASSERT_CONTAINS(out, "rules:3:");
	free(out);
	/* the system's file too */
	unlink(path);
	ASSERT_EQ(write_file(sysrules, "split batch\n"), 0);
	snprintf(args, sizeof(args), "diagnose %s", trace);
	ASSERT_EQ(run(args, NULL, &out), 11);
	ASSERT_CONTAINS(out, "etc-rules:1: 'split batch' takes one process name");
	free(out);
	/* the daemon reads the system's file before it starts anything */
	ASSERT_EQ(run("start --no-kernel --run-dir /nonexistent", NULL, &out), 11);
	ASSERT_CONTAINS(out, "argus start: ");
	ASSERT_CONTAINS(out, "etc-rules:1:");
	free(out);
	unlink(sysrules);
}

TEST(export_writes_the_stall_on_screen)
{
	setup();
	char args[256], cmds[512], *out;
	snprintf(args, sizeof(args), "debug -i %s", trace);
	snprintf(cmds, sizeof(cmds),
	         "stall 3\nexport perfetto %s/s.pftrace\nexport html %s/s.html\n"
	         "export dot %s/g.dot\nexport svg %s/x\n",
	         dir, dir, dir, dir);
	ASSERT_EQ(run(args, cmds, &out), 1);
	ASSERT_CONTAINS(out, "export perfetto|html|dot OUT (not 'svg')");
	free(out);
	const char *names[] = {"s.pftrace", "s.html", "g.dot"};
	for (int i = 0; i < 3; i++) {
		char p[256];
		struct stat st;
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		ASSERT_MSG(stat(p, &st) == 0 && st.st_size > 100, "%s not written", p);
	}
}

/* `argus ARGS` on a terminal script(1) gives it, keys from keys. */
static int run_tty(const char *args, const char *keys, char **out)
{
	char cmd[1024], outp[160], inp[160];
	snprintf(outp, sizeof(outp), "%s/tty", dir);
	snprintf(inp, sizeof(inp), "%s/keys", dir);
	FILE *f = fopen(inp, "w");
	ASSERT(f);
	fputs(keys, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
	         "HOME=%s XDG_CONFIG_HOME= ARGUS_SYSTEM_RULES=%s script -qfec '%s %s' /dev/null "
	         "<%s >%s 2>&1",
	         home, sysrules, bin, args, inp, outp);
	int st = system(cmd);
	*out = calloc(1, 1 << 20);
	ASSERT(*out);
	f = fopen(outp, "r");
	if (f) {
		size_t n = fread(*out, 1, (1 << 20) - 1, f);
		(void)n;
		fclose(f);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* On a terminal: libedit's prompt, and the history kept between sessions,
 * recalled with the up arrow. */
TEST(a_terminal_gets_line_editing_and_history)
{
	setup();
	if (system("command -v script >/dev/null 2>&1") != 0)
		SKIP("script(1) not installed (util-linux)");
	char args[256], *out;
	snprintf(args, sizeof(args), "debug -i %s", trace);
	ASSERT_EQ(run_tty(args, "stalls\nquit\n", &out), 0);
	ASSERT_CONTAINS(out, "argus> ");
	ASSERT_CONTAINS(out, "5 stalls");
	free(out);
	char hist[256];
	snprintf(hist, sizeof(hist), "%s/.config/argus/debug_history", home);
	ASSERT_MSG(access(hist, R_OK) == 0, "no history written to %s", hist);
	/* up, up: "stalls" again; up, up: "quit" */
	ASSERT_EQ(run_tty(args, "\033[A\033[A\n\033[A\033[A\n", &out), 0);
	ASSERT_CONTAINS(out, "5 stalls");
	free(out);
}

TEST_MAIN(TEST_ENTRY(commands_run_and_errors_are_one_line),
          TEST_ENTRY(a_terminal_gets_line_editing_and_history),
          TEST_ENTRY(baseline_makes_a_wrong_answer_right),
          TEST_ENTRY(pick_on_the_wake_up_path_makes_a_wrong_answer_right),
          TEST_ENTRY(why_prints_the_steps_of_algorithm_2),
          TEST_ENTRY(a_saved_rule_changes_the_next_diagnose),
          TEST_ENTRY(malformed_rules_file_names_file_and_line),
          TEST_ENTRY(export_writes_the_stall_on_screen))
