/* Who may read the reports `argus start` writes (docs/daemon.md "Files,
 * sockets and who may use them"): root alone (directory 0700, files 0600),
 * or also the group of `argus start --group` (0750 / 0640, that group);
 * and the copy an app's owner who is not root may open, with every other
 * user's frames redacted ("Report copies for the app's owner"). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

/* The owner's copy: the synthetic desktop's stalled apps are user 65534's
 * (nobody), every other process root's. The collecting sink runs before
 * the report sink, so an app is nobody's by the time its copy is made. */
#define NOBODY   65534u
#define APPS_MAX 64
#define NAMES_MAX 4096
struct names {
	uint32_t apps[APPS_MAX];
	unsigned napps, stalls, n;
	struct {
		uint32_t app, pid; /* the stalled app, the process the name is of */
		uint64_t id;
		char what[128];
	} s[NAMES_MAX];
	char own[NAMES_MAX][128]; /* frames of the apps' own stacks */
	unsigned nown;
};
static struct names names;

static bool is_app(uint32_t pid)
{
	for (unsigned i = 0; i < names.napps; i++)
		if (names.apps[i] == pid)
			return true;
	return false;
}

/* With a second user: every other app is that user's. */
static uid_t second_uid;
static gid_t second_gid;

static bool fake_owner(void *arg, uint32_t pid, uid_t *uid, gid_t *gid)
{
	(void)arg;
	*uid = *gid = is_app(pid) ? NOBODY : 0;
	for (unsigned i = 0; second_uid && i < names.napps; i++)
		if (names.apps[i] == pid && i % 2) {
			*uid = second_uid;
			*gid = second_gid;
		}
	return true;
}

static void keep(const struct argus_diagnosis *d, uint32_t pid, const char *w)
{
	if (strlen(w) >= 2 && names.n < NAMES_MAX) {
		names.s[names.n].app = d->stall.pid;
		names.s[names.n].pid = pid;
		names.s[names.n].id = d->stall.id;
		snprintf(names.s[names.n++].what, sizeof(names.s[0].what), "%s", w);
	}
}

/* The frames of an app's vertex's stacks: the report shows them. */
static void own_frames(struct argus_session *s, const struct argus_vertex_info *v)
{
	struct argus_symbolizer sym = argus_session_symbolizer(s);
	uint32_t ids[3] = {v->stack_first, v->stack_last, v->wait_stack};
	for (int i = 0; i < 3; i++) {
		const uint64_t *ips;
		uint32_t depth;
		if (!ids[i] || !sym.stack || !sym.stack(sym.arg, ids[i], &ips, &depth))
			continue;
		for (uint32_t j = 0; j < depth && names.nown < NAMES_MAX; j++) {
			struct argus_frame f;
			if (!sym.resolve || !sym.resolve(sym.arg, v->pid, ips[j], &f))
				continue;
			snprintf(names.own[names.nown++], sizeof(names.own[0]), "%s", f.func);
			if (names.nown < NAMES_MAX)
				snprintf(names.own[names.nown++], sizeof(names.own[0]), "%s",
				         f.srcline);
		}
	}
}

static void collect(void *arg, const struct argus_diagnosis *d)
{
	struct argus_session *s = arg;
	if (!is_app(d->stall.pid) && names.napps < APPS_MAX)
		names.apps[names.napps++] = d->stall.pid;
	names.stalls++;
	if (names.nown < NAMES_MAX) /* the app's own name, which its object may have */
		snprintf(names.own[names.nown++], sizeof(names.own[0]), "%s", d->stall.comm);
	own_frames(s, &d->anomaly_v);
	for (uint32_t i = 0; i < d->path.n && i < ARGUS_PATH_MAX; i++)
		if (d->path_v[i].pid == d->stall.pid)
			own_frames(s, &d->path_v[i]);
	for (uint32_t i = 0; i < d->normal_path.n && i < ARGUS_PATH_MAX; i++)
		if (d->normal_v[i].pid == d->stall.pid)
			own_frames(s, &d->normal_v[i]);
	for (uint32_t i = 0; i < d->ncandidates && i < ARGUS_DIAG_CANDIDATES; i++) {
		const struct argus_culprit *c = &d->candidates[i];
		const char *comm = argus_session_comm(s, c->v.pid); /* named, not redacted */
		if (comm && names.nown < NAMES_MAX)
			snprintf(names.own[names.nown++], sizeof(names.own[0]), "%s", comm);
		keep(d, c->v.pid, c->func);
		keep(d, c->v.pid, c->srcline);
		keep(d, c->v.pid, c->object);
	}
}

/* A name of root's that one of nobody's processes also has. */
static bool also_nobodys(const char *what)
{
	for (unsigned i = 0; i < names.n; i++)
		if (is_app(names.s[i].pid) && !strcmp(names.s[i].what, what))
			return true;
	for (unsigned i = 0; i < names.nown; i++)
		if (strstr(names.own[i], what))
			return true;
	return false;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return NULL;
	static char buf[4 << 20];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	return buf;
}

/* The notifications (the report sink's notify callback). */
#define NOTES_MAX 64
static struct {
	unsigned n;
	char body[NOTES_MAX][512];
	char page[NOTES_MAX][512];
} notes;

static void note(void *arg, const char *body, const char *report)
{
	(void)arg;
	if (notes.n < NOTES_MAX) {
		snprintf(notes.body[notes.n], sizeof(notes.body[0]), "%s", body);
		snprintf(notes.page[notes.n], sizeof(notes.page[0]), "%s", report);
		notes.n++;
	}
}

/* The stall of a report's path: .../NAME-PID-ID.EXT. */
static bool stall_of(const char *path, uint32_t *pid, uint64_t *id)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	const char *dot = strrchr(base, '.'), *dash = NULL;
	for (const char *q = base; dot && q < dot; q++)
		if (*q == '-')
			dash = q;
	if (!dash)
		return false;
	*id = strtoull(dash + 1, NULL, 10);
	const char *pd = dash - 1;
	while (pd > base && *pd != '-')
		pd--;
	*pid = (uint32_t)strtoul(pd + 1, NULL, 10);
	return true;
}

TEST(the_apps_owner_gets_a_copy_without_other_users_frames)
{
	if (geteuid() != 0)
		SKIP("needs root to give a copy to another user");
	char dir[64], reports[128], users[128];
	tmpdir(dir);
	snprintf(reports, sizeof(reports), "%s/reports", dir);
	snprintf(users, sizeof(users), "%s/reports-users", dir); /* the default */
	struct argus_session_opts o;
	argus_session_opts_default(&o);
	struct argus_session *s;
	ASSERT_EQ(argus_session_new(&s, &o), 0);
	memset(&names, 0, sizeof(names));
	struct argus_session_sink ks = {.diagnosis = collect, .arg = s};
	ASSERT_EQ(argus_session_add_sink(s, &ks), 0);
	/* notified (the callback, not a bus): nobody's apps' notifications
	 * open nobody's copy and say what it says */
	memset(&notes, 0, sizeof(notes));
	struct argus_report_sink_opts ro = {
	    .reports_dir = reports, .name = "test", .owner = fake_owner, .notify = note};
	struct argus_report_sink *rs;
	char err[256];
	ASSERT_MSG(argus_report_sink_new(&rs, s, &ro, err, sizeof(err)) == 0, "%s", err);
	struct argus_synth_opts so;
	argus_synth_opts_default(&so);
	so.seed = 3;
	so.events = 1000000;
	struct argus_sink in = argus_session_sink(s);
	ASSERT_EQ(argus_synth_run(&so, &in, NULL), 0);
	argus_session_end(s);
	unsigned secrets = 0;
	for (unsigned i = 0; i < names.n; i++)
		secrets += !is_app(names.s[i].pid) && !also_nobodys(names.s[i].what);
	ASSERT_MSG(secrets > 0, "the synthetic desktop's %u stalls named no root's frame",
	           names.stalls);
	struct stat st;
	ASSERT_EQ(stat(users, &st), 0);
	ASSERT_EQ(st.st_mode & 07777, 0711u); /* root's: no listing */
	ASSERT_EQ(st.st_uid, 0u);
	char udir[160];
	snprintf(udir, sizeof(udir), "%s/%u", users, NOBODY);
	ASSERT_EQ(stat(udir, &st), 0);
	ASSERT_EQ(st.st_mode & 07777, 0700u);
	ASSERT_EQ(st.st_uid, NOBODY);
	unsigned files = 0, redacted = 0, leaks_in_root = 0;
	DIR *dd = opendir(udir);
	ASSERT(dd);
	struct dirent *de;
	while ((de = readdir(dd))) {
		if (de->d_name[0] == '.')
			continue;
		char p[600], rp[600];
		snprintf(p, sizeof(p), "%s/%s", udir, de->d_name);
		snprintf(rp, sizeof(rp), "%s/%s", reports, de->d_name);
		ASSERT_EQ(stat(p, &st), 0);
		ASSERT_MSG(st.st_uid == NOBODY && (st.st_mode & 07777) == 0600, "%s: uid %u mode %o",
		           p, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
		files++;
		/* the file's stall: NAME-PID-ID.EXT */
		char *dot = strrchr(de->d_name, '.'), *dash = NULL;
		ASSERT(dot);
		for (char *q = de->d_name; q < dot; q++)
			if (*q == '-')
				dash = q;
		ASSERT(dash);
		uint64_t id = strtoull(dash + 1, NULL, 10);
		char *pd = dash - 1;
		while (pd > de->d_name && *pd != '-')
			pd--;
		uint32_t pid = (uint32_t)strtoul(pd + 1, NULL, 10);
		ASSERT_MSG(is_app(pid), "%s: a copy for a root's app", p);
		char *text = slurp(p);
		ASSERT(text);
		redacted += strstr(text, "[redacted]") != NULL;
		for (unsigned i = 0; i < names.n; i++) {
			if (names.s[i].app != pid || names.s[i].id != id ||
			    is_app(names.s[i].pid) || also_nobodys(names.s[i].what))
				continue;
			ASSERT_MSG(!strstr(text, names.s[i].what), "%s names root's '%s'", p,
			           names.s[i].what);
		}
		char *root = slurp(rp);
		ASSERT_MSG(root, "%s: no root copy beside it", rp);
		for (unsigned i = 0; i < names.n; i++)
			if (names.s[i].app == pid && names.s[i].id == id && !is_app(names.s[i].pid) &&
			    !also_nobodys(names.s[i].what) && strstr(root, names.s[i].what))
				leaks_in_root++;
	}
	closedir(dd);
	ASSERT_MSG(files >= 3 && files % 3 == 0, "%u copies (txt, json, html each)", files);
	ASSERT_MSG(redacted > 0, "no copy says [redacted]");
	ASSERT_MSG(leaks_in_root > 0, "the root copies name none of it either: the test saw nothing");
	unsigned owners_notes = 0;
	for (unsigned k = 0; k < notes.n; k++) {
		uint32_t pid;
		uint64_t id;
		ASSERT_MSG(stall_of(notes.page[k], &pid, &id), "notification opens '%s'",
		           notes.page[k]);
		if (!is_app(pid))
			continue;
		owners_notes++;
		ASSERT_MSG(!strncmp(notes.page[k], udir, strlen(udir)) &&
		               access(notes.page[k], R_OK) == 0,
		           "a notification of nobody's app opens '%s', not its copy in %s",
		           notes.page[k], udir);
		for (unsigned i = 0; i < names.n; i++)
			if (names.s[i].app == pid && names.s[i].id == id && !is_app(names.s[i].pid) &&
			    !also_nobodys(names.s[i].what))
				ASSERT_MSG(!strstr(notes.body[k], names.s[i].what),
				           "the notification '%s' names root's '%s'", notes.body[k],
				           names.s[i].what);
	}
	ASSERT_MSG(owners_notes > 0, "no notification of nobody's apps (%u in all)", notes.n);
	fprintf(stderr, "%u copies for %u stalls, %u names of root's processes kept out\n", files,
	        names.stalls, secrets);
	argus_report_sink_free(rs);
	argus_session_free(s);
	rmdir_all(dir);
}

/* The second user's side, in a child that became that user: 0 when it
 * read its own copies (how many in *n) and none names a frame, line or
 * object of root's processes, and it could open no one else's. */
static int as_second_user(const char *reports, const char *users)
{
	if (setgroups(0, NULL) || setgid(second_gid) || setuid(second_uid))
		return 10;
	char udir[160], odir[160];
	snprintf(udir, sizeof(udir), "%s/%u", users, (unsigned)second_uid);
	snprintf(odir, sizeof(odir), "%s/%u", users, NOBODY);
	if (opendir(odir) || errno != EACCES)
		return 11; /* nobody's copies */
	DIR *rd = opendir(reports);
	if (rd || errno != EACCES)
		return 12; /* root's reports */
	DIR *dd = opendir(udir);
	if (!dd)
		return 13;
	struct dirent *de;
	unsigned files = 0;
	while ((de = readdir(dd))) {
		if (de->d_name[0] == '.')
			continue;
		char p[600];
		snprintf(p, sizeof(p), "%s/%s", udir, de->d_name);
		char *text = slurp(p);
		if (!text)
			return 14;
		files++;
		for (unsigned i = 0; i < names.n; i++)
			if (!is_app(names.s[i].pid) && !also_nobodys(names.s[i].what) &&
			    strstr(text, names.s[i].what)) {
				fprintf(stderr, "%s names root's '%s'\n", p, names.s[i].what);
				return 15;
			}
		/* root's copy of the same report, beside: not for this user */
		char rp[600];
		snprintf(rp, sizeof(rp), "%s/%s", reports, de->d_name);
		if (open(rp, O_RDONLY) >= 0 || errno != EACCES)
			return 16;
	}
	closedir(dd);
	fprintf(stderr, "the second user (uid %u) read its %u copies\n", (unsigned)second_uid,
	        files);
	return files ? 0 : 17;
}

TEST(a_second_user_opens_its_own_copies_and_no_one_elses)
{
	if (geteuid() != 0)
		SKIP("needs root to give copies to two users");
	struct passwd *pw = getpwnam("argus-test2");
	if (!pw && system("useradd --system --no-create-home --shell /usr/sbin/nologin "
	                  "argus-test2 >/dev/null 2>&1") == 0)
		pw = getpwnam("argus-test2");
	if (!pw)
		SKIP("no second user: user argus-test2 could not be created (useradd)");
	second_uid = pw->pw_uid;
	second_gid = pw->pw_gid;
	char dir[64], reports[128], users[128];
	tmpdir(dir);
	ASSERT_EQ(chmod(dir, 0755), 0); /* the users' directory below is reachable */
	snprintf(reports, sizeof(reports), "%s/reports", dir);
	snprintf(users, sizeof(users), "%s/reports-users", dir);
	struct argus_session_opts o;
	argus_session_opts_default(&o);
	struct argus_session *s;
	ASSERT_EQ(argus_session_new(&s, &o), 0);
	memset(&names, 0, sizeof(names));
	struct argus_session_sink ks = {.diagnosis = collect, .arg = s};
	ASSERT_EQ(argus_session_add_sink(s, &ks), 0);
	struct argus_report_sink_opts ro = {
	    .reports_dir = reports, .no_notify = true, .name = "test", .owner = fake_owner};
	struct argus_report_sink *rs;
	char err[256];
	ASSERT_MSG(argus_report_sink_new(&rs, s, &ro, err, sizeof(err)) == 0, "%s", err);
	struct argus_synth_opts so;
	argus_synth_opts_default(&so);
	so.seed = 3;
	so.events = 1000000;
	struct argus_sink in = argus_session_sink(s);
	ASSERT_EQ(argus_synth_run(&so, &in, NULL), 0);
	argus_session_end(s);
	ASSERT_MSG(names.napps >= 2, "%u stalled apps: one for each user needed", names.napps);
	fflush(NULL);
	pid_t c = fork();
	if (c == 0)
		_exit(as_second_user(reports, users));
	int st;
	ASSERT(waitpid(c, &st, 0) == c && WIFEXITED(st));
	ASSERT_MSG(WEXITSTATUS(st) == 0,
	           "as the second user: %d (11 read nobody's copies, 12 root's reports, 13 no "
	           "copies of its own, 14 one unreadable, 15 one names root's frames, 16 root's copy "
	           "readable, 17 none)",
	           WEXITSTATUS(st));
	second_uid = 0;
	argus_report_sink_free(rs);
	argus_session_free(s);
	rmdir_all(dir);
}

TEST_MAIN(TEST_ENTRY(reports_are_root_only_without_a_group),
          TEST_ENTRY(reports_are_the_groups_with_a_group),
          TEST_ENTRY(the_apps_owner_gets_a_copy_without_other_users_frames),
          TEST_ENTRY(a_second_user_opens_its_own_copies_and_no_one_elses))
