/*
 * test_diagnose_cli.c - `argus diagnose` as a user runs it: text, JSON and
 * Chrome-JSON reports (the Perfetto trace: test_perfetto.c), the baselines, --truth, and its errors (exit codes of
 * docs/cli.md).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"

static char dir[64], trace[128];
static const char *bin;

static int run(const char *args, char **out)
{
	char cmd[1024], outp[160];
	snprintf(outp, sizeof(outp), "%s/out", dir);
	int n = snprintf(cmd, sizeof(cmd), "%s %s >%s 2>&1", bin, args, outp);
	ASSERT_MSG(n >= 0 && (size_t)n < sizeof(cmd), "command too long: %s", args);
	int st = system(cmd);
	if (out) {
		FILE *f = fopen(outp, "r");
		*out = calloc(1, 1 << 20);
		if (f && *out) {
			size_t n = fread(*out, 1, (1 << 20) - 1, f);
			(*out)[n] = 0;
		}
		if (f)
			fclose(f);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void setup(void)
{
	bin = getenv("ARGUS_BIN");
	if (!bin || access(bin, X_OK) != 0)
		SKIP("ARGUS_BIN not set (run through ctest)");
	snprintf(dir, sizeof(dir), "/tmp/argus-diag-cli-XXXXXX");
	ASSERT(mkdtemp(dir));
	snprintf(trace, sizeof(trace), "%s/t.argus", dir);
	char args[256];
	snprintf(args, sizeof(args), "synth -o %s -n 400k --rate 5000 -s 2", trace);
	ASSERT_EQ(run(args, NULL), 0);
}

static void teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

TEST(text_report_names_root_causes)
{
	setup();
	char args[256], *out;
	snprintf(args, sizeof(args), "diagnose %s", trace);
	int rc = run(args, &out);
	teardown();
	ASSERT_EQ(rc, 0);
	ASSERT_CONTAINS(out, "ROOT CAUSE 1");
	ASSERT_CONTAINS(out, "causal path");
	ASSERT_CONTAINS(out, "nautilus stalled");
	ASSERT_CONTAINS(out, "udisks_state_flush_to_disk");
	/* the missing wake-up is a worker thread of evince: named as such, in
	 * the one line and in the candidate's vertex */
	ASSERT_CONTAINS(out, "(pool-1) ran its part but did not wake the waiting thread");
	ASSERT_CONTAINS(out, "missing_wakeup, penalty -1, level 0, rule compare: evince ");
	free(out);
}

TEST(truth_check_passes)
{
	setup();
	char args[256], *out;
	snprintf(args, sizeof(args), "diagnose --truth %s", trace);
	int rc = run(args, &out);
	teardown();
	ASSERT_MSG(rc == 0, "%s", out);
	ASSERT(!strstr(out, "WRONG"));
	ASSERT_CONTAINS(out, "truth missing_wakeup");
	free(out);
}

TEST(json_report_is_one_object_per_stall)
{
	setup();
	char args[256], *out;
	snprintf(args, sizeof(args), "diagnose --json %s", trace);
	int rc = run(args, &out);
	teardown();
	ASSERT_EQ(rc, 0);
	int lines = 0, worker = 0;
	for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n"), lines++) {
		ASSERT(!strncmp(l, "{\"version\":1,", 13));
		ASSERT(l[strlen(l) - 1] == '}');
		ASSERT_CONTAINS(l, "\"root_cause\":{");
		ASSERT_CONTAINS(l, "\"stall\":{");
		ASSERT_CONTAINS(l, "\"path\":{");
		/* every vertex names its thread next to its process */
		ASSERT_CONTAINS(l, "\"comm\":\"");
		ASSERT_CONTAINS(l, "\"thread\":\"");
		/* a worker thread as the root cause: the process's comm as before,
		 * the thread's own name beside it */
		if (strstr(l, "\"root_cause\":{\"reason\":\"missing_wakeup\"")) {
			ASSERT_CONTAINS(l, "\"comm\":\"evince\",\"thread\":\"pool-1\"");
			worker++;
		}
	}
	ASSERT(lines >= 5);
	ASSERT_EQ(worker, 1);
	free(out);
}

TEST(json_report_validates_against_the_schema)
{
	const char *src = getenv("ARGUS_SRC");
	if (!src || system("python3 -c 'import jsonschema' >/dev/null 2>&1") != 0)
		SKIP("python3 jsonschema or ARGUS_SRC missing");
	setup();
	char args[1024], js[160];
	snprintf(js, sizeof(js), "%s/r.json", dir);
	snprintf(args, sizeof(args), "diagnose --json %s", trace);
	int rc = run(args, NULL);
	snprintf(args, sizeof(args),
	         "cp %s/out %s && python3 -c \"import json,jsonschema,sys\n"
	         "s=json.load(open('%s/docs/report.schema.json'))\n"
	         "n=0\n"
	         "for l in open('%s'): jsonschema.validate(json.loads(l), s); n+=1\n"
	         "sys.exit(0 if n else 1)\"",
	         dir, js, src, js);
	int valid = system(args);
	teardown();
	ASSERT_EQ(rc, 0);
	ASSERT_EQ(valid, 0);
}

TEST(chrome_json_has_flow_arrows)
{
	setup();
	char args[512], pf[160], *out;
	snprintf(pf, sizeof(pf), "%s/p.json", dir);
	snprintf(args, sizeof(args), "diagnose --chrome-json %s %s", pf, trace);
	int rc = run(args, NULL);
	FILE *f = fopen(pf, "r");
	out = calloc(1, 1 << 20);
	size_t n = f ? fread(out, 1, (1 << 20) - 1, f) : 0;
	if (f)
		fclose(f);
	out[n] = 0;
	teardown();
	ASSERT_EQ(rc, 0);
	ASSERT_CONTAINS(out, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[");
	ASSERT_CONTAINS(out, "\"ph\":\"s\"");
	ASSERT_CONTAINS(out, "\"ph\":\"f\"");
	ASSERT_CONTAINS(out, "ROOT CAUSE");
	ASSERT_CONTAINS(out, "\"name\":\"thread_name\"");
	ASSERT_CONTAINS(out, "\"args\":{\"name\":\"pool-1\"}");
	free(out);
}

TEST(html_report_has_a_picture_per_stall)
{
	setup();
	char args[512], hp[160];
	snprintf(hp, sizeof(hp), "%s/r.html", dir);
	snprintf(args, sizeof(args), "diagnose --html %s %s", hp, trace);
	int rc = run(args, NULL);
	FILE *f = fopen(hp, "r");
	char *out = calloc(1, 1 << 20);
	size_t n = f ? fread(out, 1, (1 << 20) - 1, f) : 0;
	if (f)
		fclose(f);
	out[n] = 0;
	teardown();
	ASSERT_EQ(rc, 0);
	ASSERT_CONTAINS(out, "<!DOCTYPE html>");
	int svgs = 0, h2 = 0;
	for (const char *p = out; (p = strstr(p, "<svg")); p++)
		svgs++;
	for (const char *p = out; (p = strstr(p, "<h2>stall")); p++)
		h2++;
	ASSERT(h2 >= 5);
	ASSERT(svgs >= h2); /* the stalled run's timeline, the normal run's when compared */
	ASSERT_CONTAINS(out, "marker-end=\"url(#arrow)\"");
	ASSERT_CONTAINS(out, "(pool-1)");
	free(out);
}

TEST(baselines_are_selectable)
{
	setup();
	char args[256], *o1, *o2;
	snprintf(args, sizeof(args), "diagnose --algo critical-path %s", trace);
	int r1 = run(args, &o1);
	snprintf(args, sizeof(args), "diagnose --no-weak-edges %s", trace);
	int r2 = run(args, &o2);
	teardown();
	ASSERT_EQ(r1, 0);
	ASSERT_EQ(r2, 0);
	ASSERT_CONTAINS(o1, "algorithm critical-path");
	ASSERT_CONTAINS(o2, "(no weak edges)");
	free(o1);
	free(o2);
}

/* --rule-off (ablation): a rule turned off decides nothing; a branch or an
 * unknown name is a usage error */
TEST(rules_can_be_turned_off_by_name)
{
	setup();
	char args[256], *on, *off;
	snprintf(args, sizeof(args), "diagnose --json %s", trace);
	int r1 = run(args, &on);
	snprintf(args, sizeof(args), "diagnose --json --rule-off compare,handoff %s", trace);
	int r2 = run(args, &off);
	snprintf(args, sizeof(args), "diagnose --rule-off compare/rest-call %s", trace);
	int r3 = run(args, NULL);
	snprintf(args, sizeof(args), "diagnose --rule-off nope %s", trace);
	int r4 = run(args, NULL);
	teardown();
	ASSERT_EQ(r1, 0);
	ASSERT_EQ(r2, 0);
	ASSERT_EQ(r3, 2);
	ASSERT_EQ(r4, 2);
	ASSERT_CONTAINS(on, "\"compare\"");
	ASSERT(!strstr(off, "\"compare\""));
	ASSERT(!strstr(off, "compare/"));
	free(on);
	free(off);
}

TEST(bad_usage_and_files_get_distinct_exit_codes)
{
	setup();
	char args[512], *out;
	ASSERT_EQ(run("diagnose", NULL), 2);
	ASSERT_EQ(run("diagnose --algo nope x", NULL), 2);
	ASSERT_EQ(run("diagnose --threshold -1 x", NULL), 2);
	ASSERT_EQ(run("diagnose /nonexistent/t.argus", NULL), 6);
	/* a damaged file: what is intact is used, exit 5 */
	char bad[160];
	snprintf(bad, sizeof(bad), "%s/bad.argus", dir);
	snprintf(args, sizeof(args), "sh -c 'head -c 300000 %s > %s'", trace, bad);
	ASSERT_EQ(system(args), 0);
	snprintf(args, sizeof(args), "diagnose %s", bad);
	int rc = run(args, &out);
	teardown();
	ASSERT_EQ(rc, 5);
	ASSERT_CONTAINS(out, "argus diagnose:");
	free(out);
}

TEST_MAIN(TEST_ENTRY(text_report_names_root_causes), TEST_ENTRY(truth_check_passes),
          TEST_ENTRY(json_report_is_one_object_per_stall),
          TEST_ENTRY(json_report_validates_against_the_schema),
          TEST_ENTRY(chrome_json_has_flow_arrows),
          TEST_ENTRY(html_report_has_a_picture_per_stall), TEST_ENTRY(baselines_are_selectable),
          TEST_ENTRY(rules_can_be_turned_off_by_name),
          TEST_ENTRY(bad_usage_and_files_get_distinct_exit_codes))
