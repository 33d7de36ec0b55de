/*
 * import.c - a trace file into the issue store as one session: a full
 * session over the file (the code `argus diagnose` runs) with the issue
 * sink attached, in one transaction.
 */
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "issues.h"

/* The session's key: the trace's boot, start and host - the same
 * recording imported twice is one session. */
static void session_key(const struct argus_trace_meta *m, char *buf, size_t cap)
{
	char boot[33];
	for (int i = 0; i < 16; i++)
		snprintf(boot + 2 * i, 3, "%02x", m->boot_id[i]);
	snprintf(buf, cap, "trace:%s:%llu:%llu:%s", boot, (unsigned long long)m->start_mono_ns,
	         (unsigned long long)m->start_real_ns, m->host);
}

static const char *me(char *buf, size_t cap)
{
	struct passwd pw, *res = NULL;
	char pbuf[1024];
	if (getpwuid_r(getuid(), &pw, pbuf, sizeof(pbuf), &res) == 0 && res)
		snprintf(buf, cap, "%s", res->pw_name);
	else
		snprintf(buf, cap, "uid %u", (unsigned)getuid());
	return buf;
}

int argus_issues_import(struct argus_issues *db, const char *path, const char *user,
                        struct argus_issues_import_result *res, char *err, size_t ecap)
{
	memset(res, 0, sizeof(*res));
	struct argus_trace_reader *r;
	int rc = argus_trace_open(&r, path, &res->trace_err);
	if (rc) {
		snprintf(err, ecap, "%s", res->trace_err.msg);
		return rc - 100;
	}
	struct argus_trace_meta m = *argus_trace_get_meta(r);
	argus_trace_close(r);
	char key[256], ubuf[64];
	session_key(&m, key, sizeof(key));
	if (!user)
		user = me(ubuf, sizeof(ubuf));
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	uint64_t now_ns = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
	/* a trace without a real start (synthetic) is dated by its import */
	uint64_t real0 = m.start_real_ns ? m.start_real_ns : now_ns;
	struct argus_issues_session ss = {.key = key,
	                                  .kind = "import",
	                                  .source = path,
	                                  .host = m.host,
	                                  .user = user,
	                                  .started = real0};
	int e = argus_issues_begin(db, err, ecap);
	if (e)
		return e;
	e = argus_issues_add_session(db, &ss, &res->session, err, ecap);
	if (e) { /* 1: imported before, nothing to do */
		int c = argus_issues_commit(db, e < 0 ? NULL : err, e < 0 ? 0 : ecap);
		return e < 0 ? e : c ? c : 1;
	}
	struct argus_session *s;
	struct argus_issue_sink *is = NULL;
	if (argus_session_new(&s, NULL)) {
		argus_issues_commit(db, NULL, 0);
		snprintf(err, ecap, "out of memory");
		return ARGUS_ISSUES_ENOMEM;
	}
	struct argus_issue_sink_opts o = {.db = db,
	                                  .session = res->session,
	                                  .user = user,
	                                  .real_offset = (int64_t)real0 - (int64_t)m.start_mono_ns,
	                                  .name = "issues",
	                                  .versions_from = path};
	if ((e = argus_issue_sink_new(&is, s, &o, err, ecap))) {
		argus_session_free(s);
		argus_issues_commit(db, NULL, 0);
		return e;
	}
	rc = argus_session_run_file(s, path, &res->trace_err);
	struct argus_session_stats st;
	argus_session_get_stats(s, &st);
	res->events = st.events;
	argus_issue_sink_get_stats(is, &res->st);
	argus_issue_sink_free(is);
	argus_session_free(s);
	if (res->st.errors) {
		e = res->st.last_error;
		snprintf(err, ecap, "%s: %llu occurrence(s) could not be written", argus_issues_path(db),
		         (unsigned long long)res->st.errors);
		argus_issues_commit(db, NULL, 0);
		return e;
	}
	if ((e = argus_issues_commit(db, err, ecap)))
		return e;
	if (rc < 0) {
		snprintf(err, ecap, "%s", res->trace_err.msg);
		return rc - 100;
	}
	return 0;
}
