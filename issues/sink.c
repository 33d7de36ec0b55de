/*
 * sink.c - the issue store's writer: a session sink that turns every lag
 * and stall the session sees into an occurrence of its issue
 * (docs/issues.md "What an occurrence is").
 *
 * A lag: the UI thread's episode (landmark "ui-episode", or "dispatch" when
 * the thread's loop is hooked), its samples' calling contexts, named by the
 * innermost application function the samples share (the diagnosis' costly
 * function) and keyed by it and up to two application callers. A stall: its
 * diagnosis waits for its end (the stalled episode's lag brings its
 * samples), keyed by the root cause's process and function.
 */
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "issues.h"
#include "version_priv.h"

#define PENDING_MAX 16
#define WRITTEN_MAX 8
#define HELD_NS     1000000000ull /* a held lag waits for its landmark this long */
#define CAUSE_FRAMES 3
/* the tracer's on-CPU samples: about 49 a second (docs/kext.md, cpu_sample) */
#define SAMPLE_NS 20408163ull
/* A lag's key: the innermost function held by three quarters of its
 * samples, whatever their number. A lag of 150-300 ms holds 7-15 samples,
 * and the diagnosis' 98 % of them is all of them below 50: one sample whose
 * frame-pointer walk lost the function that called a library without frame
 * pointers (a clock_gettime in a computing loop) moved the key to the
 * caller and split one handler's lags over two issues. */
#define LAG_KEY_SHARE 0.75

struct pending {
	bool used, ended;
	struct argus_stall st;
	char root_comm[ARGUS_COMM_LEN];
	char root_func[128];
	char majority[512]; /* a busy root's majority path (argus_diagnosis) */
	char summary[256];
	char *json;
};

struct argus_issue_sink {
	struct argus_issue_sink_opts o;
	struct argus_session *s;
	struct pending pend[PENDING_MAX];
	struct argus_issue_sink_stats st;
	struct versions ver;
	/* the latest hooked landmarks written: the episode around one is it */
	struct {
		uint32_t tid;
		uint64_t begin, end;
	} written[WRITTEN_MAX];
	unsigned nwritten;
	/* hooked threads' lags held until a landmark in them is seen or not */
	struct held *held[WRITTEN_MAX];
};

struct contexts;
struct held {
	struct argus_issue_occurrence o;
	struct contexts *cx;
	char app[ARGUS_COMM_LEN], name[128], frames[400], exe[64];
};

/* Does a hooked landmark written for tid hold most of [start, end]? */
static bool in_landmark(const struct argus_issue_sink *is, uint32_t tid, uint64_t start,
                        uint64_t end)
{
	for (unsigned i = 0; i < WRITTEN_MAX; i++)
		if (is->written[i].tid == tid && is->written[i].begin >= start &&
		    is->written[i].end <= end &&
		    (is->written[i].end - is->written[i].begin) * 2 >= end - start)
			return true;
	return false;
}

/* ---- the calling contexts of a set of samples ---- */

struct frames {
	struct argus_frame f[ARGUS_STACK_MAX_DEPTH + 1];
	uint32_t n; /* innermost first */
};

static void resolve_stack(const struct argus_symbolizer *sym, uint32_t pid, uint32_t id,
                          struct frames *out)
{
	const uint64_t *ips;
	uint32_t depth;
	out->n = 0;
	if (!sym || !sym->stack || !sym->stack(sym->arg, id, &ips, &depth))
		return;
	for (uint32_t i = 0; i < depth && out->n <= ARGUS_STACK_MAX_DEPTH; i++) {
		struct argus_frame *f = &out->f[out->n];
		memset(f, 0, sizeof(*f));
		/* frames nothing names (an unwind's garbage) are left out: an
		 * address is no part of a context that must match across runs */
		if (sym->resolve && sym->resolve(sym->arg, pid, ips[i], f) && (f->func[0] || f->object[0]))
			out->n++;
	}
}

static const char *label(const struct argus_frame *f, char *buf, size_t cap)
{
	if (f->func[0])
		return f->func;
	snprintf(buf, cap, "[%s]", f->object);
	return buf;
}

struct contexts {
	char *ctx[512];
	uint32_t w[512];
	uint32_t n;
};

static void add_context(struct contexts *c, const struct frames *fr)
{
	char buf[4096], lb[80];
	size_t len = 0;
	buf[0] = 0;
	for (uint32_t i = fr->n; i-- > 0;) {
		int k = snprintf(buf + len, sizeof(buf) - len, "%s%s", len ? ";" : "",
		                 label(&fr->f[i], lb, sizeof(lb)));
		if (k < 0 || (size_t)k >= sizeof(buf) - len)
			break;
		len += (size_t)k;
	}
	if (!len)
		return;
	for (uint32_t i = 0; i < c->n; i++)
		if (!strcmp(c->ctx[i], buf)) {
			c->w[i]++;
			return;
		}
	if (c->n < sizeof(c->ctx) / sizeof(c->ctx[0]) && (c->ctx[c->n] = strdup(buf)))
		c->w[c->n++] = 1;
}

static void free_contexts(struct contexts *c)
{
	for (uint32_t i = 0; i < c->n; i++)
		free(c->ctx[i]);
	c->n = 0;
}

static bool same_func(const struct argus_frame *a, const struct argus_frame *b)
{
	return !strcmp(a->func, b->func) && !strcmp(a->object, b->object);
}

/* The cause of a lag: the innermost function the samples share (the
 * diagnosis' costly function), with up to two application callers from a
 * sample that holds it; the executable is the object of that sample's
 * outermost application frame. A lag without samples, or one its thread
 * mostly waited through (its samples cover under half of it): the same over
 * the stacks of the waits inside it - the few samples of its short runs
 * (one is 20 ms) fall elsewhere in every run and would key it by chance. */
struct samples_of {
	uint32_t pid;
	const uint32_t *stacks, *waits;
	uint32_t nstacks, nwaits;
	const struct argus_symbolizer *sym;
	uint64_t ns; /* the time the samples were taken in */
};

static void cause_of(const struct samples_of *l,
                     struct contexts *cx, char *name, size_t ncap, char *frames, size_t fcap,
                     char *exe, size_t ecap)
{
	struct argus_frame costly;
	struct frames *fr = malloc(sizeof(*fr));
	snprintf(name, ncap, "(no samples)");
	frames[0] = exe[0] = 0;
	if (!fr)
		return;
	bool found = false;
	for (uint32_t i = 0; i < l->nstacks; i++) {
		resolve_stack(l->sym, l->pid, l->stacks[i], fr);
		add_context(cx, fr);
	}
	/* no samples, or too few for its time (the thread waited): the stacks
	 * of its waits name it */
	bool by_waits = l->nwaits && (!l->nstacks || (uint64_t)l->nstacks * SAMPLE_NS * 2 < l->ns);
	const uint32_t *ids = by_waits ? l->waits : l->stacks;
	uint32_t nids = by_waits ? l->nwaits : l->nstacks;
	if (nids &&
	    argus_costly_function(l->sym, l->pid, ids, nids, LAG_KEY_SHARE, 0, &costly) &&
	    costly.func[0]) {
		snprintf(name, ncap, "%s", costly.func);
		for (uint32_t i = 0; i < nids && !found; i++) {
			resolve_stack(l->sym, l->pid, ids[i], fr);
			uint32_t k = 0;
			while (k < fr->n && !same_func(&fr->f[k], &costly))
				k++;
			if (k == fr->n)
				continue;
			found = true;
			size_t len = 0;
			unsigned taken = 0;
			const char *prev = "";
			for (uint32_t j = k; j < fr->n && taken < CAUSE_FRAMES; j++) {
				if (j > k && fr->f[j].system)
					continue;
				if (!strcmp(prev, fr->f[j].func))
					continue; /* recursion: one frame */
				int w = snprintf(frames + len, fcap - len, "%s%s", len ? ";" : "",
				                 fr->f[j].func);
				if (w < 0 || (size_t)w >= fcap - len)
					break;
				len += (size_t)w;
				prev = fr->f[j].func;
				taken++;
			}
			for (uint32_t j = fr->n; j-- > 0;)
				if (!fr->f[j].system && fr->f[j].object[0]) {
					snprintf(exe, ecap, "%s", fr->f[j].object);
					break;
				}
		}
	} else if (nids)
		snprintf(name, ncap, "(unnamed)");
	if (!found)
		snprintf(frames, fcap, "%s", name);
	free(fr);
}

/* ---- who ---- */

static void owner_of(uint32_t pid, char *buf, size_t cap)
{
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/%u/status", pid);
	buf[0] = 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	unsigned uid = 0;
	bool have = false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %u", &uid) == 1) {
			have = true;
			break;
		}
	fclose(f);
	if (!have)
		return;
	struct passwd pw, *res = NULL;
	char pbuf[1024];
	if (getpwuid_r(uid, &pw, pbuf, sizeof(pbuf), &res) == 0 && res)
		snprintf(buf, cap, "%s", res->pw_name);
	else
		snprintf(buf, cap, "uid %u", uid);
}

/* ---- writing ---- */

static void write_occ(struct argus_issue_sink *is, struct argus_issue_occurrence *o)
{
	char err[512], user[64];
	if (!is->o.live && is->st.errors) { /* an import failed: it is rolled back whole */
		is->st.errors++;
		return;
	}
	if (is->o.user)
		o->user = is->o.user;
	else if (is->o.live) {
		owner_of(o->pid, user, sizeof(user));
		o->user = user;
	} else
		o->user = "";
	o->at = (uint64_t)((int64_t)o->start_ns + is->o.real_offset);
	char version[VERSION_LEN] = "";
	if (is->o.live)
		version_live(&is->ver, o->pid, version, sizeof(version));
	else if (o->exe && o->exe[0])
		version_of_object(&is->ver, o->exe, version, sizeof(version));
	if (version[0])
		o->version = version;
	int64_t id;
	int e = argus_issues_add(is->o.db, is->o.session, o, &id, err, sizeof(err));
	if (e) {
		if (!is->st.errors++)
			cli_error(is->o.name ? is->o.name : "issues", "issue store: %s%s", err,
			          is->o.live ? " (lags are not kept; argus goes on)" : "");
		is->st.last_error = e;
		return;
	}
	if (!strcmp(o->kind, "stall"))
		is->st.stalls++;
	else if (strcmp(o->landmark, "ui-episode") && strcmp(o->landmark, "dispatch"))
		is->st.handlers++; /* a hooked landmark */
	else
		is->st.lags++;
}

static void write_stall(struct argus_issue_sink *is, struct pending *p,
                        const struct argus_session_lag *l)
{
	struct contexts *cx = calloc(1, sizeof(*cx));
	char name[128], frames[400], exe[64] = "", f2[400];
	if (!cx)
		return;
	if (l) {
		struct samples_of so = {l->lag.pid, l->stacks, l->waits,
		                        l->nstacks, l->nwaits, l->sym,
		                        l->lag.end - l->lag.start};
		cause_of(&so, cx, name, sizeof(name), f2, sizeof(f2), exe, sizeof(exe));
	}
	const char *func = p->root_func[0] ? p->root_func : "(unknown)";
	snprintf(frames, sizeof(frames), "%s@%s", func, p->root_comm[0] ? p->root_comm : "?");
	uint64_t end = p->ended ? p->st.end : p->st.detected;
	uint64_t lat = end > p->st.since ? end - p->st.since : 0;
	struct argus_issue_occurrence o = {
	    .kind = "stall",
	    .app = p->st.comm[0] ? p->st.comm : "?",
	    .landmark = "stall",
	    .name = func,
	    .frames = frames,
	    .exe = exe,
	    .version = "",
	    .start_ns = p->st.since,
	    .incl_ns = lat,
	    .excl_ns = lat,
	    .pid = p->st.pid,
	    .tid = p->st.tid,
	    .unended = !p->ended,
	    .contexts = (const char *const *)cx->ctx,
	    .weights = cx->w,
	    .ncontexts = cx->n,
	    .majority = p->majority[0] ? p->majority : NULL,
	    .diagnosis = p->summary[0] ? p->summary : NULL,
	    .diagnosis_json = p->json,
	};
	write_occ(is, &o);
	free_contexts(cx);
	free(cx);
	free(p->json);
	memset(p, 0, sizeof(*p));
}

static void on_diagnosis(void *arg, const struct argus_diagnosis *d)
{
	struct argus_issue_sink *is = arg;
	struct pending *p = NULL;
	for (int i = 0; i < PENDING_MAX && !p; i++)
		if (is->pend[i].used && is->pend[i].st.id == d->stall.id)
			p = &is->pend[i];
	for (int i = 0; i < PENDING_MAX && !p; i++)
		if (!is->pend[i].used)
			p = &is->pend[i];
	if (!p) { /* more stalls on at once than kept: the oldest is written now */
		p = &is->pend[0];
		write_stall(is, p, NULL);
	}
	bool ended = p->used && p->ended;
	uint64_t end = p->st.end;
	free(p->json);
	memset(p, 0, sizeof(*p));
	p->used = true;
	p->st = d->stall;
	if (ended || d->stall.end) {
		p->ended = true;
		p->st.end = d->stall.end ? d->stall.end : end;
	}
	if (d->root.vid) {
		snprintf(p->root_comm, sizeof(p->root_comm), "%s",
		         argus_session_comm(is->s, d->root.v.pid));
		const char *f = d->root.func[0] ? d->root.func : d->costly_func;
		if (d->root.reason == ARGUS_ROOT_BUSY && d->costly_func[0])
			f = d->costly_func;
		/* a busy root joins the issue of an answer on its majority path
		 * (store.c): a function near the majority line is the answer in
		 * one run and its caller in the next */
		if (d->root.reason == ARGUS_ROOT_BUSY && d->majority[0])
			snprintf(p->majority, sizeof(p->majority), "%s", d->majority);
		if (f[0])
			snprintf(p->root_func, sizeof(p->root_func), "%s", f);
		else /* no frame named: why it was named keys it */
			snprintf(p->root_func, sizeof(p->root_func), "(%s)",
			         argus_root_reason_name(d->root.reason));
	}
	snprintf(p->summary, sizeof(p->summary), "%s", d->summary);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (m) {
		struct argus_report_ctx c = {.comm = argus_session_comm,
		                             .thread = argus_session_thread_comm,
		                             .arg = is->s};
		argus_report_json(d, &c, m);
		fclose(m);
		p->json = buf;
	}
}

/* A busy stall's final diagnosis (over the whole stall, at its end) keys
 * its issue, as it replaces the user's notification: the answer at
 * detection names the phase that ran then, and one hang of two runs was two
 * issues (gnumeric loading, then rendering, a big file: realapps r9). Not
 * yet written (its lag comes after): the final answer replaces the first;
 * written already, the first stands. */
static void on_final(void *arg, const struct argus_diagnosis *d)
{
	struct argus_issue_sink *is = arg;
	for (int i = 0; i < PENDING_MAX; i++)
		if (is->pend[i].used && is->pend[i].st.id == d->stall.id) {
			on_diagnosis(arg, d);
			return;
		}
}

static void on_stall_end(void *arg, const struct argus_stall *st)
{
	struct argus_issue_sink *is = arg;
	for (int i = 0; i < PENDING_MAX; i++)
		if (is->pend[i].used && is->pend[i].st.id == st->id) {
			is->pend[i].ended = true;
			is->pend[i].st.end = st->end;
		}
}

static void drop_held(struct argus_issue_sink *is, unsigned i, bool write)
{
	struct held *h = is->held[i];
	if (!h)
		return;
	if (write)
		write_occ(is, &h->o);
	else
		is->st.in_landmarks++;
	free_contexts(h->cx);
	free(h->cx);
	free(h);
	is->held[i] = NULL;
}

/* A landmark of tid over [begin, end] was written: a lag held that it
 * mostly fills is that issue; the thread's earlier lags are not. */
static void settle_held(struct argus_issue_sink *is, uint32_t tid, uint64_t begin, uint64_t end)
{
	for (unsigned i = 0; i < WRITTEN_MAX; i++) {
		struct held *h = is->held[i];
		if (!h || h->o.tid != tid)
			continue;
		uint64_t hs = h->o.start_ns, he = hs + h->o.incl_ns;
		if (begin >= hs && begin < he && (end - begin) * 2 >= h->o.incl_ns)
			drop_held(is, i, false);
		else if (he <= begin)
			drop_held(is, i, true);
	}
}

/* Held lags that ended a while before now (any thread) are written. */
static void write_old_held(struct argus_issue_sink *is, uint64_t now)
{
	for (unsigned i = 0; i < WRITTEN_MAX; i++)
		if (is->held[i] && is->held[i]->o.start_ns + is->held[i]->o.incl_ns + HELD_NS < now)
			drop_held(is, i, true);
}

static void on_lag(void *arg, const struct argus_session_lag *l)
{
	struct argus_issue_sink *is = arg;
	write_old_held(is, l->lag.end);
	/* the episode of a stall: the stall's occurrence, with its samples */
	for (int i = 0; i < PENDING_MAX; i++) {
		struct pending *p = &is->pend[i];
		if (p->used && p->ended && p->st.tid == l->lag.tid && p->st.since <= l->lag.end &&
		    p->st.end >= l->lag.start) {
			write_stall(is, p, l);
			return;
		}
	}
	/* a hooked thread's lag that a landmark written holds is that issue:
	 * its own signature would follow its few samples, not the handler */
	if (l->hooks && in_landmark(is, l->lag.tid, l->lag.start, l->lag.end)) {
		is->st.in_landmarks++;
		return;
	}
	struct held *h = calloc(1, sizeof(*h));
	if (!h || !(h->cx = calloc(1, sizeof(*h->cx)))) {
		free(h);
		return;
	}
	struct samples_of so = {l->lag.pid, l->stacks, l->waits, l->nstacks, l->nwaits, l->sym,
	                        l->lag.end - l->lag.start};
	cause_of(&so, h->cx, h->name, sizeof(h->name), h->frames, sizeof(h->frames), h->exe,
	         sizeof(h->exe));
	snprintf(h->app, sizeof(h->app), "%s", l->comm[0] ? l->comm : "?");
	uint64_t lat = l->lag.end - l->lag.start;
	h->o = (struct argus_issue_occurrence){
	    .kind = "lag",
	    .app = h->app,
	    .landmark = l->hooks ? "dispatch" : "ui-episode",
	    .name = h->name,
	    .frames = h->frames,
	    .exe = h->exe,
	    .version = "",
	    .start_ns = l->lag.start,
	    .incl_ns = lat,
	    .excl_ns = lat, /* an episode holds no other landmark */
	    .pid = l->lag.pid,
	    .tid = l->lag.tid,
	    .contexts = (const char *const *)h->cx->ctx,
	    .weights = h->cx->w,
	    .ncontexts = h->cx->n,
	};
	/* a hooked thread's landmark may end after its episode (the trigger
	 * ends it at the loop's return): held until the next one of the thread */
	unsigned slot = WRITTEN_MAX;
	for (unsigned i = 0; i < WRITTEN_MAX; i++)
		if (is->held[i] && is->held[i]->o.tid == l->lag.tid)
			drop_held(is, i, true); /* an earlier one of the thread */
	for (unsigned i = 0; i < WRITTEN_MAX && slot == WRITTEN_MAX; i++)
		if (!is->held[i])
			slot = i;
	if (!l->hooks || slot == WRITTEN_MAX) {
		write_occ(is, &h->o);
		free_contexts(h->cx);
		free(h->cx);
		free(h);
		return;
	}
	is->held[slot] = h;
}

/* A hooked dispatch: the landmark is the callback it ran (else the
 * source's dispatch function, else the source's name), as LagHunter keys
 * an issue by its landmark method; the samples inside it are its tree. */
static void on_landmark(void *arg, const struct argus_session_landmark *l)
{
	struct argus_issue_sink *is = arg;
	uint64_t min = is->o.handler_ns ? is->o.handler_ns : ARGUS_ISSUES_HANDLER_NS;
	/* perceptible, and mostly its own time: a landmark whose lag is in a
	 * nested one (GTK's "event" signal around "key-press-event", the GDK
	 * source around both) leaves the issue to that one */
	if (l->incl_ns < min || l->excl_ns * 2 < l->incl_ns)
		return;
	struct argus_frame f;
	char name[160], frames[400], cname[128], cframes[400], exe[64] = "";
	const struct argus_symbolizer *y = l->sym;
	bool named = true;
	/* a toolkit landmark's handler in a library (QWidget::event, GDK's
	 * paint) says little: named by it, keyed by the cause inside it too */
	bool hooked = l->landmark && strcmp(l->landmark, "handler");
	bool cb = l->callback && y && y->resolve && y->resolve(y->arg, l->pid, l->callback, &f) &&
	          f.func[0];
	if (cb && (!hooked || !f.system))
		snprintf(name, sizeof(name), "%s", f.func);
	else if (cb && hooked) {
		named = false;
		snprintf(name, sizeof(name), "%s", f.func);
	} else if (l->dispatch && y && y->resolve && y->resolve(y->arg, l->pid, l->dispatch, &f) &&
	         f.func[0] && !f.system)
		snprintf(name, sizeof(name), "%s", f.func);
	else {
		named = false; /* a source's name or a toolkit's dispatch says little */
		snprintf(name, sizeof(name), "%s",
		         l->source[0] ? l->source : hooked ? "(unknown handler)" : "(unnamed dispatch)");
	}
	struct contexts *cx = calloc(1, sizeof(*cx));
	if (!cx)
		return;
	struct samples_of so = {l->pid,    l->stacks, l->waits, l->nstacks,
	                        l->nwaits, l->sym,    l->excl_ns};
	cause_of(&so, cx, cname, sizeof(cname), cframes, sizeof(cframes), exe, sizeof(exe));
	/* keyed by the callback; one that cannot be named, by the cause inside it too */
	if (named)
		snprintf(frames, sizeof(frames), "%s", name);
	else
		snprintf(frames, sizeof(frames), "%.150s;%.240s", name, cframes);
	struct argus_issue_occurrence o = {
	    .kind = "lag",
	    .app = l->comm[0] ? l->comm : "?",
	    .landmark = l->landmark ? l->landmark : "handler",
	    .name = name,
	    .frames = frames,
	    .exe = exe,
	    .version = "",
	    .start_ns = l->begin,
	    .incl_ns = l->incl_ns,
	    .excl_ns = l->excl_ns,
	    .pid = l->pid,
	    .tid = l->tid,
	    .contexts = (const char *const *)cx->ctx,
	    .weights = cx->w,
	    .ncontexts = cx->n,
	};
	write_occ(is, &o);
	unsigned w = is->nwritten++ % WRITTEN_MAX;
	is->written[w].tid = l->tid;
	is->written[w].begin = l->begin;
	is->written[w].end = l->end;
	settle_held(is, l->tid, l->begin, l->end);
	write_old_held(is, l->end);
	free_contexts(cx);
	free(cx);
}

static void on_end(void *arg, const struct argus_session_stats *st)
{
	(void)st;
	struct argus_issue_sink *is = arg;
	for (unsigned i = 0; i < WRITTEN_MAX; i++)
		drop_held(is, i, true);
	for (int i = 0; i < PENDING_MAX; i++)
		if (is->pend[i].used)
			write_stall(is, &is->pend[i], NULL);
}

int argus_issue_sink_new(struct argus_issue_sink **out, struct argus_session *s,
                         const struct argus_issue_sink_opts *o, char *err, size_t ecap)
{
	struct argus_issue_sink *is = calloc(1, sizeof(*is));
	if (!is) {
		snprintf(err, ecap, "out of memory");
		return ARGUS_ISSUES_ENOMEM;
	}
	is->o = *o;
	is->s = s;
	if (o->versions_from)
		version_table_of_trace(&is->ver, o->versions_from);
	struct argus_session_sink k = {.diagnosis = on_diagnosis,
	                               .final = on_final,
	                               .stall_end = on_stall_end,
	                               .lag = on_lag,
	                               .landmark = on_landmark,
	                               .end = on_end,
	                               .arg = is};
	if (argus_session_add_sink(s, &k)) {
		snprintf(err, ecap, "the session has no room for another sink");
		versions_free(&is->ver);
		free(is);
		return ARGUS_ISSUES_ENOMEM;
	}
	*out = is;
	return 0;
}

void argus_issue_sink_get_stats(const struct argus_issue_sink *is,
                                struct argus_issue_sink_stats *st)
{
	*st = is->st;
}

void argus_issue_sink_free(struct argus_issue_sink *is)
{
	if (!is)
		return;
	for (int i = 0; i < PENDING_MAX; i++)
		free(is->pend[i].json);
	for (unsigned i = 0; i < WRITTEN_MAX; i++)
		if (is->held[i]) {
			free_contexts(is->held[i]->cx);
			free(is->held[i]->cx);
			free(is->held[i]);
		}
	versions_free(&is->ver);
	free(is);
}
