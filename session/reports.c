/*
 * reports.c - the report sink: what `argus start` does with a stall
 * (docs/daemon.md, "Diagnosis"). Each diagnosis is written to the reports
 * directory (text + JSON), handed to publish as the "stall" and
 * "diagnosis" lines of the JSON stream, and sent as a desktop notification
 * to the session bus of the user who owns the stalled app. The stall's end
 * goes to publish too. Runs in the session's thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "reports_priv.h"

/* A stall diagnosed and not ended yet: its reports are written again with
 * its end (the Perfetto trace's window reaches it). */
#define PENDING_MAX 8
struct pending {
	bool used;
	struct argus_diagnosis d;
	char base[900];
	char ubase[900]; /* the owner's copy ("" none) */
	uid_t uid;
	gid_t gid;
};

struct viewer;
struct argus_report_sink {
	struct argus_report_sink_opts o;
	struct argus_session *s;
	uint64_t t0; /* report times are relative to the sink's start */
	bool reports_ok;
	char user_dir[900]; /* "" = no owner's copies */
	const struct viewer *viewer; /* while an owner's copy is written */
	struct pending pend[PENDING_MAX];
	unsigned next_pend; /* the slot a new one takes when all are used */
	struct notifier_set notifiers;
};

static uint64_t mono_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void publish(struct argus_report_sink *sd, const char *kind, uint32_t pid, const char *json)
{
	if (sd->o.publish)
		sd->o.publish(sd->o.publish_arg, kind, pid, json);
}

/* mkdir -p with mode for every level created. */
static int mkdirs(const char *path, mode_t mode)
{
	char buf[1024];
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(buf, mode) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(buf, mode) && errno != EEXIST ? -1 : 0;
}

/* A report file, readable by root (and the group given) only. */
static FILE *report_file(const struct argus_report_sink *sd, const char *path)
{
	int fd =
	    open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, sd->o.group_set ? 0640 : 0600);
	if (fd < 0)
		return NULL;
	if (sd->o.group_set && fchown(fd, (uid_t)-1, sd->o.group)) {
		close(fd);
		return NULL;
	}
	FILE *f = fdopen(fd, "w");
	if (!f)
		close(fd);
	return f;
}


/* One report file BASE.EXT written by fn; false on failure. */
static bool write_one(const char *base, const char *ext,
                      int (*fn)(struct argus_report_sink *sd, const struct argus_diagnosis *d,
                                const struct argus_report_ctx *rc, FILE *f),
                      struct argus_report_sink *sd, const struct argus_diagnosis *d,
                      const struct argus_report_ctx *rc)
{
	char path[1000], tmp[1010];
	snprintf(path, sizeof(path), "%s.%s", base, ext);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	FILE *f = report_file(sd, tmp); /* root's (and the group's) only */
	if (!f)
		return false;
	int wr = fn(sd, d, rc, f);
	if (fclose(f) || wr || rename(tmp, path)) {
		unlink(tmp);
		return false;
	}
	return true;
}

static int w_text(struct argus_report_sink *sd, const struct argus_diagnosis *d,
                  const struct argus_report_ctx *rc, FILE *f)
{
	(void)sd;
	argus_report_text(d, rc, f);
	return 0;
}

static int w_json(struct argus_report_sink *sd, const struct argus_diagnosis *d,
                  const struct argus_report_ctx *rc, FILE *f)
{
	(void)sd;
	argus_report_json(d, rc, f);
	fputc('\n', f);
	return 0;
}

static int w_perfetto(struct argus_report_sink *sd, const struct argus_diagnosis *d,
                      const struct argus_report_ctx *rc, FILE *f)
{
	struct argus_report_records rec = argus_session_records(sd->s);
	struct argus_symbolizer sym = argus_session_symbolizer(sd->s);
	return argus_report_perfetto(d, 1, rc, &rec, &sym, f, NULL);
}

static int w_html(struct argus_report_sink *sd, const struct argus_diagnosis *d,
                  const struct argus_report_ctx *rc, FILE *f)
{
	struct argus_report_records rec = argus_session_records(sd->s);
	struct argus_symbolizer sym = argus_session_symbolizer(sd->s);
	argus_report_html(d, 1, rc, &rec, &sym, f);
	return 0;
}

/* The reports of one diagnosis: BASE.txt, .json and .html, then (slower:
 * the window's records) .pftrace; false when one could not be written. */
static bool write_all(struct argus_report_sink *sd, const struct argus_diagnosis *d,
                      const struct argus_report_ctx *rc, const char *base, bool perfetto)
{
	bool ok = write_one(base, "txt", w_text, sd, d, rc);
	ok &= write_one(base, "json", w_json, sd, d, rc);
	ok &= write_one(base, "html", w_html, sd, d, rc);
	if (perfetto)
		ok &= write_one(base, "pftrace", w_perfetto, sd, d, rc);
	if (!ok)
		fprintf(stderr, "argus %s: cannot write the report %s: %s\n", sd->o.name, base,
		        strerror(errno));
	return ok;
}

/*
 * The owner's copy (docs/daemon.md "Report copies for the app's owner"):
 * the text, JSON and HTML reports of a diagnosis redacted for the stalled
 * app's owner U (not root), in USER_DIR/U/, a directory of U's (0700) in
 * root's USER_DIR (0711: no listing). The daemon never follows a name in
 * U's directory: each file is created under a fresh name (O_EXCL,
 * O_NOFOLLOW) relative to the directory opened without following links,
 * given to U (0600) and renamed over the old one.
 */
struct viewer {
	const struct argus_report_sink *sd;
	uid_t uid;
	const struct argus_symbolizer *sym; /* the session's, for the HTML page */
};

static bool viewer_owns(void *arg, uint32_t pid)
{
	const struct viewer *v = arg;
	uid_t uid;
	gid_t gid;
	return report_owner_of(&v->sd->o, pid, &uid, &gid) && uid == v->uid;
}

/* The session's symbols, with other users' frames named "[redacted]". */
static bool viewer_resolve(void *arg, uint32_t pid, uint64_t ip, struct argus_frame *out)
{
	const struct viewer *v = arg;
	if (!viewer_owns(arg, pid)) {
		memset(out, 0, sizeof(*out));
		snprintf(out->func, sizeof(out->func), "[redacted]");
		return true;
	}
	return v->sym->resolve && v->sym->resolve(v->sym->arg, pid, ip, out);
}

static bool viewer_stack(void *arg, uint32_t id, const uint64_t **ips, uint32_t *depth)
{
	const struct viewer *v = arg;
	return v->sym->stack && v->sym->stack(v->sym->arg, id, ips, depth);
}

/* USER_DIR/UID, U's own (0700), opened without following links; -1 when
 * it cannot be. */
static int user_dir_fd(const struct argus_report_sink *sd, uid_t uid, gid_t gid)
{
	/* root's, 0711: an owner reaches its own directory, lists no other */
	struct stat st;
	if (mkdirs(sd->user_dir, 0711) || lstat(sd->user_dir, &st) || !S_ISDIR(st.st_mode) ||
	    st.st_uid != 0 || ((st.st_mode & 07777) != 0711 && chmod(sd->user_dir, 0711)))
		return -1;
	int top = open(sd->user_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (top < 0)
		return -1;
	char name[32];
	snprintf(name, sizeof(name), "%u", (unsigned)uid);
	if (mkdirat(top, name, 0700) && errno != EEXIST) {
		close(top);
		return -1;
	}
	int fd = openat(top, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(top);
	if (fd >= 0 && (fstat(fd, &st) || ((st.st_uid != uid || st.st_gid != gid ||
	                                     (st.st_mode & 07777) != 0700) &&
	                                    (fchown(fd, uid, gid) || fchmod(fd, 0700))))) {
		close(fd);
		return -1;
	}
	return fd;
}

static bool write_user_one(int dfd, const char *name, const char *ext, uid_t uid, gid_t gid,
                           int (*fn)(struct argus_report_sink *sd,
                                     const struct argus_diagnosis *d,
                                     const struct argus_report_ctx *rc, FILE *f),
                           struct argus_report_sink *sd, const struct argus_diagnosis *d,
                           const struct argus_report_ctx *rc)
{
	char path[1000], tmp[1040];
	snprintf(path, sizeof(path), "%s.%s", name, ext);
	snprintf(tmp, sizeof(tmp), ".%s.%d.tmp", path, (int)getpid());
	unlinkat(dfd, tmp, 0);
	int fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return false;
	FILE *f = NULL;
	if (fchown(fd, uid, gid) || !(f = fdopen(fd, "w"))) {
		close(fd);
		unlinkat(dfd, tmp, 0);
		return false;
	}
	int wr = fn(sd, d, rc, f);
	if (fclose(f) || wr || renameat(dfd, tmp, dfd, path)) {
		unlinkat(dfd, tmp, 0);
		return false;
	}
	return true;
}

/* The page with the viewer's symbols: other users' frames redacted. */
static int w_html_user(struct argus_report_sink *sd, const struct argus_diagnosis *d,
                       const struct argus_report_ctx *rc, FILE *f)
{
	struct argus_report_records rec = argus_session_records(sd->s);
	struct argus_symbolizer sym = {viewer_resolve, viewer_stack, (void *)sd->viewer};
	argus_report_html(d, 1, rc, &rec, &sym, f);
	return 0;
}

/* Whether the app's owner uid gets a copy of the reports at base. */
static bool user_copy_wanted(const struct argus_report_sink *sd, const char *base, uid_t uid)
{
	return sd->user_dir[0] && base[0] && uid != 0 && geteuid() == 0;
}

/* d as the owner uid may read it: other users' frames redacted. */
static void user_redact(struct argus_report_sink *sd, struct argus_diagnosis *d, uid_t uid)
{
	struct argus_symbolizer sym = argus_session_symbolizer(sd->s);
	struct viewer v = {sd, uid, &sym};
	argus_diagnosis_redact(d, viewer_owns, &v);
}

/* The owner's copy of the reports whose root copy is base: ubase gets its
 * path without the extension ("" none); d is redacted in place unless
 * redacted says it was (user_redact). */
static void write_user_copy(struct argus_report_sink *sd, struct argus_diagnosis *d,
                            const struct argus_report_ctx *rc, const char *base, uid_t uid,
                            gid_t gid, bool redacted, char *ubase, size_t cap)
{
	ubase[0] = 0;
	if (!user_copy_wanted(sd, base, uid))
		return;
	struct argus_symbolizer sym = argus_session_symbolizer(sd->s);
	struct viewer v = {sd, uid, &sym};
	if (!redacted)
		argus_diagnosis_redact(d, viewer_owns, &v);
	int dfd = user_dir_fd(sd, uid, gid);
	const char *name = strrchr(base, '/') ? strrchr(base, '/') + 1 : base;
	sd->viewer = &v; /* w_html_user's symbols */
	bool ok = dfd >= 0 && write_user_one(dfd, name, "txt", uid, gid, w_text, sd, d, rc) &&
	          write_user_one(dfd, name, "json", uid, gid, w_json, sd, d, rc) &&
	          write_user_one(dfd, name, "html", uid, gid, w_html_user, sd, d, rc);
	sd->viewer = NULL;
	if (dfd >= 0)
		close(dfd);
	if (!ok) {
		fprintf(stderr, "argus %s: cannot write the copy of %s for uid %u in %s: %s\n",
		        sd->o.name, name, (unsigned)uid, sd->user_dir, strerror(errno));
		return;
	}
	snprintf(ubase, cap, "%s/%u/%s", sd->user_dir, (unsigned)uid, name);
}

/* The path of a diagnosis's reports, without the extension, in base (""
 * when no reports are written). */
static void report_base(struct argus_report_sink *sd, const struct argus_diagnosis *d,
                        char *base, size_t cap)
{
	base[0] = 0;
	if (!sd->reports_ok)
		return;
	char stamp[32], b[900];
	time_t now = time(NULL);
	struct tm tm;
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime_r(&now, &tm));
	snprintf(b, sizeof(b), "%s/%s-%s-%u-%" PRIu64, sd->o.reports_dir, stamp,
	         d->stall.comm[0] ? d->stall.comm : "app", d->stall.pid, d->stall.id);
	for (char *p = b + strlen(sd->o.reports_dir) + 1; *p; p++)
		if (*p == '/' || *p == ' ')
			*p = '_'; /* a process name is not a path */
	snprintf(base, cap, "%s", b);
}

/* The Perfetto trace, after the notification; a stall still going on is
 * kept to be written again when it ends. */
static void write_trace(struct argus_report_sink *sd, const struct argus_diagnosis *d,
                        const struct argus_report_ctx *rc, const char *base, const char *ubase,
                        uid_t uid, gid_t gid)
{
	if (!base[0])
		return;
	if (!write_one(base, "pftrace", w_perfetto, sd, d, rc))
		fprintf(stderr, "argus %s: cannot write the report %s.pftrace: %s\n", sd->o.name,
		        base, strerror(errno));
	/* a busy stall is written again with its final diagnosis */
	if (d->stall.end && d->stall.cls != ARGUS_STALL_LONG_RUNNING)
		return;
	struct pending *p = NULL;
	for (unsigned i = 0; i < PENDING_MAX && !p; i++)
		if (!sd->pend[i].used)
			p = &sd->pend[i];
	if (!p)
		p = &sd->pend[sd->next_pend++ % PENDING_MAX]; /* the oldest stays as written */
	p->used = true;
	p->d = *d;
	snprintf(p->base, sizeof(p->base), "%s", base);
	snprintf(p->ubase, sizeof(p->ubase), "%s", ubase);
	p->uid = uid;
	p->gid = gid;
}

static void publish_stall(struct argus_report_sink *sd, const struct argus_stall *s, bool end)
{
	char line[768];
	/* the app name is JSON-escaped by hand: comm is at most 15 bytes */
	char app[2 * ARGUS_COMM_LEN + 1];
	size_t k = 0;
	for (size_t i = 0; i < ARGUS_COMM_LEN && s->comm[i]; i++) {
		unsigned char c = (unsigned char)s->comm[i];
		if (c == '"' || c == '\\')
			app[k++] = '\\';
		app[k++] = c < 0x20 || c >= 0x7f ? '?' : (char)c; /* ASCII: valid JSON */
	}
	app[k] = 0;
	int n = snprintf(line, sizeof(line),
	                 "{\"kind\":\"stall\",\"phase\":\"%s\",\"id\":%" PRIu64
	                 ",\"app\":\"%s\",\"pid\":%u,\"tid\":%u,\"class\":\"%s\",\"cause\":\"%s\","
	                 "\"since\":%" PRIu64 ",\"detected\":%" PRIu64,
	                 end ? "end" : "start", s->id, app, s->pid, s->tid,
	                 argus_stall_class_name(s->cls), argus_stall_cause_name(s->cause), s->since,
	                 s->detected);
	if (n > 0 && (size_t)n < sizeof(line)) {
		if (end)
			snprintf(line + n, sizeof(line) - (size_t)n,
			         ",\"end\":%" PRIu64 ",\"duration_ns\":%" PRIu64 "}", s->end,
			         s->end - s->since);
		else
			snprintf(line + n, sizeof(line) - (size_t)n,
			         ",\"end\":null,\"duration_ns\":null}");
	}
	publish(sd, "stall", s->pid, line);
}

/* The diagnosis line: the report's JSON object under kind "diagnosis";
 * "final": the diagnosis over a busy stall's whole time, at its end */
static void publish_diagnosis(struct argus_report_sink *sd, const struct argus_diagnosis *d,
                              const struct argus_report_ctx *rc, const char *report, bool final)
{
	char *js = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&js, &len);
	if (m) {
		fprintf(m, "{\"kind\":\"diagnosis\",\"final\":%s,\"report_path\":",
		        final ? "true" : "false");
		if (report[0]) {
			fputc('"', m);
			for (const char *p = report; *p; p++) {
				if (*p == '"' || *p == '\\')
					fputc('\\', m);
				fputc(*p, m);
			}
			fputc('"', m);
		} else {
			fputs("null", m);
		}
		fputs(",\"report\":", m);
		argus_report_json(d, rc, m);
		fputc('}', m);
		if (!fclose(m))
			publish(sd, "diagnosis", d->stall.pid, js);
		free(js);
	}
}

/* A stall fired: its notifier is made ready while it is diagnosed. */
static void on_stall(void *arg, const struct argus_stall *s)
{
	struct argus_report_sink *sd = arg;
	if (!sd->o.no_notify && !sd->o.notify)
		notifiers_warm(&sd->notifiers, &sd->o, s);
}

/*
 * A diagnosis: the notification first, then the reports. The notification
 * needs only the one-line answer and the page's path; the page (the
 * window's records, symbolized) took most of 2 s in a storm, so it is
 * written after (the notifier opens it once it is there, beam/notify.c).
 */
static void on_diagnosis(void *arg, const struct argus_diagnosis *d)
{
	struct argus_report_sink *sd = arg;
	uint64_t t_in = mono_ns();
	struct argus_report_ctx rc = {argus_session_comm, sd->s, sd->t0, argus_session_thread_comm,
	                              NULL};
	publish_stall(sd, &d->stall, false);
	char base[1000], ubase[1000] = "", html[1024] = "", report[1024] = "", body[512];
	report_base(sd, d, base, sizeof(base));
	if (base[0])
		snprintf(html, sizeof(html), "%s.html", base);
	/* the app's owner (not root) gets a copy with other users' frames
	 * redacted: the notification names it and says what it says */
	uid_t uid = 0;
	gid_t gid = 0;
	struct argus_diagnosis *ud = NULL;
	if (report_owner_of(&sd->o, d->stall.pid, &uid, &gid) && user_copy_wanted(sd, base, uid) &&
	    (ud = malloc(sizeof(*ud)))) {
		*ud = *d;
		user_redact(sd, ud, uid);
		const char *name = strrchr(base, '/') ? strrchr(base, '/') + 1 : base;
		snprintf(html, sizeof(html), "%s/%u/%s.html", sd->user_dir, (unsigned)uid, name);
	}
	argus_report_oneline(ud ? ud : d, body, sizeof(body));
	/* "Open report" opens the page */
	if (!sd->o.no_notify)
		notifiers_send(&sd->notifiers, &sd->o, d, body, html);
	uint64_t t_notified = mono_ns();
	if (base[0] && !write_all(sd, d, &rc, base, false))
		base[0] = 0;
	if (base[0])
		snprintf(report, sizeof(report), "%s.json", base);
	if (ud)
		write_user_copy(sd, ud, &rc, base, uid, gid, true, ubase, sizeof(ubase));
	free(ud);
	publish_diagnosis(sd, d, &rc, report, false);
	uint64_t t_out = mono_ns();
	write_trace(sd, d, &rc, base, ubase, uid, gid);
	/* stream time is the kernel's CLOCK_MONOTONIC: how long after the
	 * threshold the notification went out, and the reports */
	fprintf(stderr,
	        "argus %s: stall %" PRIu64 ": %s (diagnosed in %.1f ms, notified in %.1f ms, "
	        "%.0f ms after the threshold; reported in %.1f ms)%s%s\n",
	        sd->o.name, d->stall.id, body, d->diagnose_ns / 1e6, (t_notified - t_in) / 1e6,
	        t_notified > d->stall.detected ? (t_notified - d->stall.detected) / 1e6 : 0.0,
	        (t_out - t_in) / 1e6, report[0] ? "; report " : "", report);
}

static void on_stall_end(void *arg, const struct argus_stall *s)
{
	struct argus_report_sink *sd = arg;
	publish_stall(sd, s, true);
	for (unsigned i = 0; i < PENDING_MAX; i++) {
		struct pending *p = &sd->pend[i];
		if (!p->used || p->d.stall.id != s->id)
			continue;
		struct argus_report_ctx rc = {argus_session_comm, sd->s, sd->t0,
		                              argus_session_thread_comm, NULL};
		p->d.stall.end = s->end;
		/* a busy stall's Perfetto trace: once, by on_final (the trace of
		 * the window's records took 19 s to write in a storm, in the
		 * diagnosis's thread: written at the end and again at the final,
		 * twice there, it held the diagnosis up for 35 s) */
		write_all(sd, &p->d, &rc, p->base, s->cls != ARGUS_STALL_LONG_RUNNING);
		if (p->ubase[0]) {
			char ubase[1000];
			write_user_copy(sd, &p->d, &rc, p->base, p->uid, p->gid, false, ubase,
			                sizeof(ubase));
		}
		/* a busy stall's final diagnosis (on_final) writes it again */
		p->used = s->cls == ARGUS_STALL_LONG_RUNNING;
	}
	fprintf(stderr, "argus %s: stall %" PRIu64 " of %s %u ended after %.2f s\n", sd->o.name,
	        s->id, s->comm, s->pid, (s->end - s->since) / 1e9);
}

/* A busy stall ended: its diagnosis over its whole time. The reports are
 * written again with it (same files), the JSON stream gets it as a
 * "final" diagnosis line, and when it names another root cause or function
 * than the one the user was notified of, the notification is sent again
 * with the stall's whole length, keyed by the stall: it replaces the first
 * on screen (one hang, one notification). */
static void on_final(void *arg, const struct argus_diagnosis *d)
{
	struct argus_report_sink *sd = arg;
	struct argus_report_ctx rc = {argus_session_comm, sd->s, sd->t0, argus_session_thread_comm,
	                              NULL};
	struct pending *p = NULL;
	for (unsigned i = 0; i < PENDING_MAX && !p; i++)
		if (sd->pend[i].used && sd->pend[i].d.stall.id == d->stall.id)
			p = &sd->pend[i];
	char report[1024] = "", html[1024] = "", body[512], first[512] = "";
	struct argus_diagnosis *ud = NULL;
	if (p) {
		argus_report_oneline(&p->d, first, sizeof(first));
		snprintf(report, sizeof(report), "%s.json", p->base);
		snprintf(html, sizeof(html), "%s.html", p->base);
		write_all(sd, d, &rc, p->base, true); /* the Perfetto trace too: once */
		if (p->ubase[0] && (ud = malloc(sizeof(*ud)))) {
			char ubase[1000];
			*ud = *d;
			write_user_copy(sd, ud, &rc, p->base, p->uid, p->gid, false, ubase,
			                sizeof(ubase));
			if (ubase[0])
				snprintf(html, sizeof(html), "%s.html", ubase);
		}
		p->used = false;
	}
	publish_diagnosis(sd, d, &rc, report, true);
	argus_report_oneline(ud ? ud : d, body, sizeof(body));
	/* the same answer: the first notification said it */
	bool same = p && !strcmp(p->d.root.func, d->root.func) && p->d.root.v.pid == d->root.v.pid &&
	            p->d.root.v.tid == d->root.v.tid;
	if (!sd->o.no_notify && p && !same) {
		char longer[600];
		snprintf(longer, sizeof(longer), "%s (ended after %.1f s)", body,
		         d->stall.end > d->stall.since ? (d->stall.end - d->stall.since) / 1e9 : 0.0);
		notifiers_send(&sd->notifiers, &sd->o, d, longer, html);
	}
	free(ud);
	fprintf(stderr, "argus %s: stall %" PRIu64 " final: %s (was: %s)\n", sd->o.name,
	        d->stall.id, body, first[0] ? first : "-");
}

int argus_report_sink_new(struct argus_report_sink **out, struct argus_session *s,
                          const struct argus_report_sink_opts *o, char *err, size_t ecap)
{
	struct argus_report_sink *sd = calloc(1, sizeof(*sd));
	if (!sd) {
		snprintf(err, ecap, "out of memory");
		return -1;
	}
	sd->o = *o;
	if (!sd->o.reports_dir)
		sd->o.reports_dir = ARGUS_REPORTS_DIR;
	if (!sd->o.name)
		sd->o.name = "start";
	sd->s = s;
	sd->t0 = mono_ns();
	if (sd->o.reports_dir[0]) {
		/* root only, unless a group was named (docs/daemon.md) */
		/* the mode also on a directory of an earlier run, as long as it is
		 * root's (a directory a user named and owns is left as it is:
		 * the files are 0600 anyway) */
		mode_t mode = sd->o.group_set ? 0750 : 0700;
		struct stat st;
		if (mkdirs(sd->o.reports_dir, mode) || stat(sd->o.reports_dir, &st) ||
		    (st.st_uid == 0 &&
		     (chmod(sd->o.reports_dir, mode) ||
		      (sd->o.group_set && chown(sd->o.reports_dir, (uid_t)-1, sd->o.group))))) {
			snprintf(err, ecap, "cannot create the reports directory %s: %s",
			         sd->o.reports_dir, strerror(errno));
			free(sd);
			return -1;
		}
		sd->reports_ok = true;
		/* the owners' copies: made (and their directory) at the first */
		if (sd->o.user_reports_dir)
			snprintf(sd->user_dir, sizeof(sd->user_dir), "%s", sd->o.user_reports_dir);
		else if (!strcmp(sd->o.reports_dir, ARGUS_REPORTS_DIR))
			snprintf(sd->user_dir, sizeof(sd->user_dir), "%s", ARGUS_USER_REPORTS_DIR);
		else
			snprintf(sd->user_dir, sizeof(sd->user_dir), "%s-users", sd->o.reports_dir);
	}
	struct argus_session_sink k = {.stall = on_stall,
	                               .diagnosis = on_diagnosis,
	                               .stall_end = on_stall_end,
	                               .final = on_final,
	                               .arg = sd};
	if (argus_session_add_sink(s, &k)) {
		snprintf(err, ecap, "the session has no room for another sink");
		free(sd);
		return -1;
	}
	*out = sd;
	return 0;
}

void argus_report_sink_free(struct argus_report_sink *rs)
{
	if (!rs)
		return;
	notifiers_close(&rs->notifiers);
	free(rs);
}
