/* Who may read the reports `argus start` writes (docs/daemon.md "Files,
 * sockets and who may use them"): root alone (directory 0700, files 0600),
 * or also the group of `argus start --group` (0750 / 0640, that group). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "session.h"
#include "synth.h"
#include "test.h"

/* Diagnose a synthetic desktop with stalls into reports under dir/reports;
 * returns how many report files were written, each checked for mode and
 * group. */
static unsigned run(const char *dir, bool group_set, gid_t group, unsigned want_mode)
{
	char reports[256];
	snprintf(reports, sizeof(reports), "%s/reports", dir);
	struct argus_session_opts o;
	argus_session_opts_default(&o);
	struct argus_session *s;
	ASSERT_EQ(argus_session_new(&s, &o), 0);
	struct argus_report_sink_opts ro = {.reports_dir = reports,
	                                    .no_notify = true,
	                                    .group_set = group_set,
	                                    .group = group,
	                                    .name = "test"};
	struct argus_report_sink *rs;
	char err[256];
	ASSERT_MSG(argus_report_sink_new(&rs, s, &ro, err, sizeof(err)) == 0, "%s", err);
	struct argus_synth_opts so;
	argus_synth_opts_default(&so);
	so.seed = 3;
	so.events = 200000;
	struct argus_sink in = argus_session_sink(s);
	ASSERT_EQ(argus_synth_run(&so, &in, NULL), 0);
	argus_session_end(s);
	struct stat st;
	ASSERT_EQ(stat(reports, &st), 0);
	ASSERT_EQ(st.st_mode & 07777, group_set ? 0750u : 0700u);
	if (group_set)
		ASSERT_EQ(st.st_gid, group);
	unsigned n = 0;
	DIR *d = opendir(reports);
	ASSERT(d);
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char p[600];
		snprintf(p, sizeof(p), "%s/%s", reports, de->d_name);
		ASSERT_EQ(stat(p, &st), 0);
		ASSERT_MSG((st.st_mode & 07777) == want_mode, "%s has mode %o", p,
		           (unsigned)(st.st_mode & 07777));
		if (group_set)
			ASSERT_EQ(st.st_gid, group);
		n++;
	}
	closedir(d);
	argus_report_sink_free(rs);
	argus_session_free(s);
	return n;
}

static void tmpdir(char *dir)
{
	strcpy(dir, "/tmp/argus-test-reports-XXXXXX");
	ASSERT(mkdtemp(dir));
}

static void rmdir_all(const char *dir)
{
	char cmd[160];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", dir);
}

TEST(reports_are_root_only_without_a_group)
{
	char dir[64];
	tmpdir(dir);
	unsigned n = run(dir, false, 0, 0600);
	ASSERT_MSG(n > 0, "the synthetic desktop gave no report");
	rmdir_all(dir);
}

TEST(reports_are_the_groups_with_a_group)
{
	if (geteuid() != 0)
		SKIP("needs root to give files to another group");
	char dir[64];
	tmpdir(dir);
	unsigned n = run(dir, true, 65534, 0640);
	ASSERT_MSG(n > 0, "the synthetic desktop gave no report");
	rmdir_all(dir);
}

TEST_MAIN(TEST_ENTRY(reports_are_root_only_without_a_group),
          TEST_ENTRY(reports_are_the_groups_with_a_group))
