/*
 * session.c - the driver: every record of the source goes to the graph,
 * the samples and the trigger (per the type table below); a stall is
 * diagnosed the moment the trigger fires, on the graph as it is then, and
 * handed to the sinks (docs/session.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session_priv.h"

/* ---- the fan-out table ---- */

static void work_stack(struct argus_session *s, const struct argus_event *e);

/* What a record type gets: the consumers, and the session's own work done
 * before them. The graph and the trigger see every record (time moves on
 * with each; a type they do not know costs them a switch); samples are
 * kept from CPU_SAMPLE only. */
struct ev_handler {
	uint8_t consumers; /* ARGUS_SESSION_* */
	void (*work)(struct argus_session *s, const struct argus_event *e);
};

#define GT (ARGUS_SESSION_GRAPH | ARGUS_SESSION_TRIGGER)
#define GTH (GT | ARGUS_SESSION_HISTORY)

static const struct ev_handler handlers[ARGUS_EV_TYPE_MAX] = {
    [ARGUS_EV_NONE] = {GT, NULL},
    [ARGUS_EV_PROC_FORK] = {GT, NULL},
    [ARGUS_EV_THREAD_NEW] = {GT, NULL},
    [ARGUS_EV_PROC_EXEC] = {GT, NULL},
    /* the sample stores let an exited thread's samples go */
    [ARGUS_EV_THREAD_EXIT] = {ARGUS_SESSION_ALL & ~ARGUS_SESSION_HISTORY, NULL},
    [ARGUS_EV_PROC_EXIT] = {ARGUS_SESSION_ALL & ~ARGUS_SESSION_HISTORY, NULL},
    [ARGUS_EV_COMM] = {GT, NULL},
    [ARGUS_EV_MMAP] = {GT, NULL},
    /* scheduling and samples are kept a while for the reports (history.c) */
    [ARGUS_EV_SCHED_SWITCH] = {GTH, NULL},
    [ARGUS_EV_SCHED_WAKEUP] = {GTH, NULL},
    [ARGUS_EV_SCHED_WAKEUP_NEW] = {GTH, NULL},
    [ARGUS_EV_SYS_ENTER] = {GT, NULL},
    [ARGUS_EV_SYS_EXIT] = {GT, NULL},
    [ARGUS_EV_IPC_SEND] = {GT, NULL},
    [ARGUS_EV_IPC_RECV] = {GT, NULL},
    [ARGUS_EV_KREQ_SEND] = {GT, NULL},
    [ARGUS_EV_KREQ_END] = {GT, NULL},
    [ARGUS_EV_FUTEX_WAIT] = {GT, NULL},
    [ARGUS_EV_FUTEX_WAKE] = {GT, NULL},
    [ARGUS_EV_TIMER_ARM] = {GT, NULL},
    [ARGUS_EV_TIMER_FIRE] = {GT, NULL},
    [ARGUS_EV_TIMER_CANCEL] = {GT, NULL},
    [ARGUS_EV_IRQ_ENTRY] = {GT, NULL},
    [ARGUS_EV_IRQ_EXIT] = {GT, NULL},
    [ARGUS_EV_SOFTIRQ_ENTRY] = {GT, NULL},
    [ARGUS_EV_SOFTIRQ_EXIT] = {GT, NULL},
    /* a stack record names a stack: the graph's symbol rules need it known */
    [ARGUS_EV_STACK] = {GT, work_stack},
    [ARGUS_EV_CPU_SAMPLE] = {ARGUS_SESSION_ALL, work_stack},
    [ARGUS_EV_UI_INPUT] = {GT, NULL},
    [ARGUS_EV_LOOP_ITER_BEGIN] = {GT, NULL},
    [ARGUS_EV_LOOP_ITER_END] = {GT, NULL},
    [ARGUS_EV_DISPATCH_BEGIN] = {GT, NULL},
    [ARGUS_EV_DISPATCH_END] = {GT, NULL},
    [ARGUS_EV_LANDMARK] = {0, NULL}, /* only the landmark sinks (landmarks.c) */
    [ARGUS_EV_ASYNC_POST] = {GT, NULL},
    [ARGUS_EV_ASYNC_RUN_BEGIN] = {GT, NULL},
    [ARGUS_EV_ASYNC_RUN_END] = {GT, NULL},
    [ARGUS_EV_COND_WAIT] = {GT, NULL},
    [ARGUS_EV_COND_WAKE] = {GT, NULL},
    [ARGUS_EV_COND_SIGNAL] = {GT, NULL},
    [ARGUS_EV_COND_BROADCAST] = {GT, NULL},
    [ARGUS_EV_SEM_WAIT] = {GT, NULL},
    [ARGUS_EV_SEM_POST] = {GT, NULL},
    [ARGUS_EV_MUTEX_HANDOFF] = {GT, NULL},
    [ARGUS_EV_DBUS_SEND] = {GT, NULL},
    [ARGUS_EV_DBUS_RECV] = {GT, NULL},
    [ARGUS_EV_FLAG_WRITE] = {GT, NULL},
    [ARGUS_EV_FLAG_READ] = {GT, NULL},
    [ARGUS_EV_DROP] = {GT, NULL},
};

/* Types not in the table (unassigned numbers, other systems' range) go
 * where the consumers decide for themselves, as every record used to. */
static const struct ev_handler unknown_type = {GT, NULL};

/* A file source names stacks in its table; pushed stacks were registered
 * with the graph when they were interned (tables.c). */
static void work_stack(struct argus_session *s, const struct argus_event *e)
{
	struct argus_stack st;
	if (s->stacks && e->stack.ustack && argus_trace_stack(s->stacks, e->stack.ustack, &st))
		argus_graph_add_stack(s->g, e->stack.ustack, st.ips, st.depth);
}

/* ---- diagnosis ---- */

static const char *trig_comm(void *arg, uint32_t pid)
{
	return argus_trigger_comm(arg, pid);
}

static const char *trig_thread_comm(void *arg, uint32_t tid)
{
	return argus_trigger_thread_comm(arg, tid);
}

static void on_stall(void *arg, const struct argus_stall *st)
{
	struct argus_session *s = arg;
	if (s->nfired < SESSION_MAX_FIRED)
		s->fired[s->nfired++] = *st;
	else
		s->st.stalls_dropped++;
}

static void on_stall_end(void *arg, const struct argus_stall *st)
{
	struct argus_session *s = arg;
	for (uint32_t i = 0; i < s->nfired; i++) /* ended before its diagnosis */
		if (s->fired[i].id == st->id)
			s->fired[i].end = st->end;
	for (unsigned k = 0; k < s->nsinks; k++)
		if (s->sinks[k].stall_end)
			s->sinks[k].stall_end(s->sinks[k].arg, st);
	/* a busy stall's cause is where its time went: known at its end (work
	 * in phases: the one running at detection may be a small part) */
	if (st->cls != ARGUS_STALL_LONG_RUNNING || !s->final_sinks)
		return;
	if (s->nbusy_ended < SESSION_MAX_FIRED)
		s->busy_ended[s->nbusy_ended++] = *st;
	else
		s->st.stalls_dropped++;
}

static void on_lag(void *arg, const struct argus_lag *l)
{
	struct argus_session *s = arg;
	if (s->lag_sinks && s->nlags < SESSION_MAX_FIRED)
		s->lags[s->nlags++] = *l;
}

/* Every live UI thread the trigger knows (*n of them), or NULL (none, or
 * out of memory); the caller frees. */
static struct argus_ui_thread *ui_threads(const struct argus_session *s, size_t *n)
{
	*n = argus_trigger_ui_threads(s->trig, NULL, 0);
	struct argus_ui_thread *u = *n ? malloc(*n * sizeof(*u)) : NULL;
	if (u)
		*n = argus_trigger_ui_threads(s->trig, u, *n);
	else
		*n = 0;
	return u;
}

/* The lags ended at this record, with the samples inside them (after the
 * stalls: a stalled episode's stall_end and diagnosis come first). */
static void hand_lags(struct argus_session *s)
{
	uint32_t stacks[512], waits[512];
	size_t nu; /* called with lags only: one list of the UI threads for all */
	struct argus_ui_thread *u = ui_threads(s, &nu);
	if (s->prepare && s->prepare(s))
		s->nlags = 0;
	for (uint32_t i = 0; i < s->nlags; i++) {
		struct argus_session_lag sl = {.lag = s->lags[i], .stacks = stacks, .sym = &s->sym};
		const struct argus_lag *l = &s->lags[i];
		snprintf(sl.comm, sizeof(sl.comm), "%s", argus_trigger_comm(s->trig, l->pid));
		for (size_t k = 0; k < nu; k++)
			if (u[k].tid == l->tid)
				sl.hooks = u[k].hooks;
		sl.nstacks = (uint32_t)argus_samples_range(s->smp, l->tid, l->start, l->end, stacks,
		                                           NULL, sizeof(stacks) / sizeof(stacks[0]));
		/* the waits it held, not the idle wait that ended it */
		sl.waits = waits;
		sl.nwaits = (uint32_t)argus_samples_range(s->waits, l->tid, l->start, l->end - 1, waits,
		                                          NULL, sizeof(waits) / sizeof(waits[0]));
		for (unsigned k = 0; k < s->nsinks; k++)
			if (s->sinks[k].lag)
				s->sinks[k].lag(s->sinks[k].arg, &sl);
	}
	s->nlags = 0;
	free(u);
}

/* The costly function was named from whole call chains (full stacks: the
 * majority rule holds over any window). On frame-pointer stacks of
 * distribution binaries the 0.98 share over a whole long stall reaches only
 * the outermost frames (main): the answer at detection stands. */
static bool whole_chains(const struct argus_diagnosis *d)
{
	for (uint32_t i = 0; i < d->nrules_used; i++)
		if (d->rules_used[i] && (!strcmp(d->rules_used[i], "costly-function/whole-chains") ||
		                         !strcmp(d->rules_used[i], "costly-function/app-callback")))
			return true;
	return false;
}

static int diagnose_fired(struct argus_session *s)
{
	int rc = 0;
	if (s->prepare && s->prepare(s))
		rc = -1;
	for (uint32_t i = 0; !rc && i < s->nfired; i++) {
		for (unsigned k = 0; k < s->nsinks; k++)
			if (s->sinks[k].stall)
				s->sinks[k].stall(s->sinks[k].arg, &s->fired[i]);
		struct argus_graph_view v;
		argus_graph_view_begin(s->g, &v);
		rc = argus_diagnose(&v, &s->fired[i], &s->o.beam, s->o.algo, s->smp, &s->sym,
		                    trig_comm, trig_thread_comm, s->trig, &s->d);
		argus_graph_view_end(&v);
		if (rc)
			break;
		s->st.diagnoses++;
		for (unsigned k = 0; k < s->nsinks; k++)
			if (s->sinks[k].diagnosis)
				s->sinks[k].diagnosis(s->sinks[k].arg, &s->d);
	}
	s->nfired = 0;
	/* the busy stalls ended: diagnosed again as if detected at their end */
	for (uint32_t i = 0; !rc && i < s->nbusy_ended; i++) {
		struct argus_stall st = s->busy_ended[i];
		st.detected = st.end;
		struct argus_graph_view v;
		argus_graph_view_begin(s->g, &v);
		rc = argus_diagnose(&v, &st, &s->o.beam, s->o.algo, s->smp, &s->sym, trig_comm,
		                    trig_thread_comm, s->trig, &s->d);
		argus_graph_view_end(&v);
		if (rc)
			break;
		if (!whole_chains(&s->d))
			continue;
		s->d.stall.detected = s->busy_ended[i].detected; /* when the user was told first */
		for (unsigned k = 0; k < s->nsinks; k++)
			if (s->sinks[k].final)
				s->sinks[k].final(s->sinks[k].arg, &s->d);
	}
	s->nbusy_ended = 0;
	return rc;
}

/* An announced app exited: its pid may come round as another app's, which
 * is announced anew (the kext drops a process's full stacks at its exit). */
static void forget_app(struct argus_session *s, uint32_t pid)
{
	argus_hmap_del(&s->apps, pid);
}

/* A wait stack of a UI thread, kept for the lags (the UI threads are
 * asked again when the trigger knows more of them). */
static void keep_wait(struct argus_session *s, const struct argus_event *e)
{
	struct argus_trigger_stats ts;
	argus_trigger_get_stats(s->trig, &ts);
	if (ts.ui_threads != s->ui_seen) {
		size_t n;
		struct argus_ui_thread *u = ui_threads(s, &n);
		if (n && !u)
			return; /* out of memory: asked again at the next wait */
		argus_hmap_free(&s->ui_tids);
		for (size_t i = 0; i < n; i++)
			if (!argus_hmap_put(&s->ui_tids, u[i].tid, NULL))
				break; /* out of memory: those past it keep no waits */
		free(u);
		s->ui_seen = ts.ui_threads;
	}
	if (argus_hmap_get(&s->ui_tids, e->tid))
		argus_samples_feed(s->waits, e, 1);
}

uint32_t session_parent(void *arg, uint32_t pid)
{
	const struct argus_session *s = arg;
	const uint64_t *pp = argus_hmap_get(&s->forks, pid);
	return pp ? (uint32_t)*pp : 0;
}

int session_feed(struct argus_session *s, const struct argus_event *e)
{
	const struct ev_handler *h =
	    e->type < ARGUS_EV_TYPE_MAX ? &handlers[e->type] : &unknown_type;
	unsigned use = h->consumers & s->o.consumers;
	if (!s->st.events++)
		s->st.t0 = e->ts;
	if (h->work && (use & ARGUS_SESSION_GRAPH))
		h->work(s, e);
	if (e->type == ARGUS_EV_PROC_FORK && e->fork.child_pid != e->pid &&
	    !argus_hmap_set_u64(&s->forks, e->fork.child_pid, e->pid))
		return -1;
	if ((use & ARGUS_SESSION_GRAPH) && argus_graph_ingest(s->g, e, 1))
		return -1;
	if (use & ARGUS_SESSION_SAMPLES)
		argus_samples_feed(s->smp, e, 1);
	if (s->waits && e->type == ARGUS_EV_STACK && e->stack.kind == ARGUS_STACK_WAIT &&
	    (use & ARGUS_SESSION_TRIGGER))
		keep_wait(s, e);
	else if (s->waits && (use & ARGUS_SESSION_SAMPLES) &&
	         (e->type == ARGUS_EV_THREAD_EXIT || e->type == ARGUS_EV_PROC_EXIT))
		argus_samples_feed(s->waits, e, 1);
	if (e->type == ARGUS_EV_PROC_EXIT && s->o.app && (use & ARGUS_SESSION_TRIGGER))
		forget_app(s, e->pid);
	if (s->landmark_sinks && (e->type == ARGUS_EV_DISPATCH_BEGIN ||
	                          e->type == ARGUS_EV_DISPATCH_END || e->type == ARGUS_EV_LANDMARK ||
	                          e->type == ARGUS_EV_ASYNC_RUN_BEGIN))
		session_landmark(s, e);
	if (use & ARGUS_SESSION_HISTORY)
		sess_history_add(&s->hist, e);
	if (use & ARGUS_SESSION_TRIGGER)
		argus_trigger_feed(s->trig, e, 1);
	int rc = s->nfired || s->nbusy_ended ? diagnose_fired(s) : 0;
	if (s->nlags)
		hand_lags(s);
	return rc;
}

void session_fault(struct argus_session *s, const struct argus_trace_error *e)
{
	s->st.faults++;
	for (unsigned k = 0; k < s->nsinks; k++)
		if (s->sinks[k].fault)
			s->sinks[k].fault(s->sinks[k].arg, e);
}

/* Processes the trigger learned are apps since the last tick, to o.app,
 * once each, however many. */
static void announce_apps(struct argus_session *s)
{
	struct argus_trigger_stats ts;
	argus_trigger_get_stats(s->trig, &ts);
	if (ts.ui_threads == s->apps_ui_seen)
		return;
	size_t n;
	struct argus_ui_thread *u = ui_threads(s, &n);
	if (n && !u)
		return; /* out of memory: asked again at the next tick */
	s->apps_ui_seen = ts.ui_threads;
	for (size_t i = 0; i < n; i++) {
		bool fresh = false;
		if (!argus_hmap_put(&s->apps, u[i].pid, &fresh)) {
			s->apps_ui_seen = 0; /* out of memory: the rest at the next tick */
			break;
		}
		if (fresh)
			s->o.app(s->o.app_arg, u[i].pid);
	}
	free(u);
}

/* Yields are watched from when a UI thread's episode has gone unanswered
 * for ARGUS_SESSION_YIELD_WATCH_NS until none has for
 * ARGUS_SESSION_YIELD_CALM_NS (o.yields): a yield loop that starts a stall
 * is seen from its first 100 ms on, and a desktop whose apps answer pays
 * nothing for it. */
static void watch_yields(struct argus_session *s, uint64_t now)
{
	uint64_t since = argus_trigger_oldest_episode(s->trig);
	if (since && now >= since + ARGUS_SESSION_YIELD_WATCH_NS)
		s->yields_wanted = now;
	bool on = s->yields_wanted && now < s->yields_wanted + ARGUS_SESSION_YIELD_CALM_NS;
	if (on != s->yields_watched) {
		s->yields_watched = on;
		s->o.yields(s->o.yields_arg, on);
	}
}

void argus_session_tick(struct argus_session *s, uint64_t now)
{
	if (!(s->o.consumers & ARGUS_SESSION_TRIGGER))
		return;
	argus_trigger_advance(s->trig, now);
	if (s->o.app)
		announce_apps(s);
	if (s->o.yields)
		watch_yields(s, now);
	if (s->nfired || s->nbusy_ended)
		diagnose_fired(s);
	if (s->nlags)
		hand_lags(s);
}

bool argus_session_waits_on_time(const struct argus_session *s)
{
	if (!(s->o.consumers & ARGUS_SESSION_TRIGGER))
		return false;
	return s->nfired || s->nbusy_ended || s->nlags || argus_trigger_waiting(s->trig);
}

void argus_session_end(struct argus_session *s)
{
	if (s->ended)
		return;
	s->ended = true;
	struct argus_session_stats st;
	argus_session_get_stats(s, &st);
	for (unsigned k = 0; k < s->nsinks; k++)
		if (s->sinks[k].end)
			s->sinks[k].end(s->sinks[k].arg, &st);
}

/* ---- the session ---- */

void argus_session_opts_default(struct argus_session_opts *o)
{
	memset(o, 0, sizeof(*o));
	argus_trigger_opts_default(&o->trigger);
	argus_beam_params_default(&o->beam);
	argus_graph_opts_default(&o->graph);
	o->algo = ARGUS_ALGO_BEAM;
	o->consumers = ARGUS_SESSION_ALL;
	o->landmark_ns = 3000000; /* the paper's filter */
}

int argus_session_new(struct argus_session **out, const struct argus_session_opts *o)
{
	struct argus_session *s = calloc(1, sizeof(*s));
	if (!s)
		return -1;
	if (o)
		s->o = *o;
	else
		argus_session_opts_default(&s->o);
	struct argus_trigger_cb tcb = {on_stall, on_stall_end, on_lag, s};
	s->sym = (struct argus_symbolizer){ptables_resolve, ptables_stack_of, s};
	s->prepare = ptables_prepare;
	if (argus_graph_new(&s->g, &s->o.graph) || argus_samples_new(&s->smp) ||
	    argus_trigger_new(&s->trig, &s->o.trigger, &tcb) ||
	    (s->o.live_symbols && argus_elfsym_new(&s->pt.elf, NULL)) ||
	    sess_history_init(&s->hist, s->o.history_bytes, s->o.history_ns)) {
		argus_session_free(s);
		return -1;
	}
	*out = s;
	return 0;
}

void argus_session_free(struct argus_session *s)
{
	if (!s)
		return;
	argus_graph_free(s->g);
	argus_trigger_free(s->trig);
	argus_samples_free(s->smp);
	argus_samples_free(s->waits);
	session_landmarks_free(s);
	argus_hmap_free(&s->forks);
	argus_hmap_free(&s->apps);
	argus_hmap_free(&s->ui_tids);
	ptables_free(&s->pt);
	sess_history_free(&s->hist);
	free(s);
}

int argus_session_add_sink(struct argus_session *s, const struct argus_session_sink *k)
{
	if (s->nsinks == SESSION_MAX_SINKS)
		return -1;
	s->sinks[s->nsinks++] = *k;
	if (k->landmark)
		s->landmark_sinks = true;
	if (k->final)
		s->final_sinks = true;
	if (k->lag) {
		s->lag_sinks = true;
		if (!s->waits && argus_samples_new_waits(&s->waits))
			s->waits = NULL; /* lags are named by their samples alone */
	}
	return 0;
}

void argus_session_get_stats(const struct argus_session *s, struct argus_session_stats *st)
{
	*st = s->st;
	argus_trigger_get_stats(s->trig, &st->trigger);
}

const char *argus_session_comm(void *s, uint32_t pid)
{
	return argus_trigger_comm(((struct argus_session *)s)->trig, pid);
}

const char *argus_session_thread_comm(void *s, uint32_t tid)
{
	return argus_trigger_thread_comm(((struct argus_session *)s)->trig, tid);
}

struct argus_graph *argus_session_graph(struct argus_session *s)
{
	return s->g;
}

int argus_session_rediagnose(struct argus_session *s, const struct argus_stall *st,
                             const struct argus_diag_hints *h,
                             const struct argus_symbolizer *sym, struct argus_diagnosis *out)
{
	struct argus_graph_view v;
	argus_graph_flush(s->g);
	argus_graph_view_begin(s->g, &v);
	int rc = argus_diagnose_hinted(&v, st, &s->o.beam, s->o.algo, s->smp, sym ? sym : &s->sym,
	                               trig_comm, trig_thread_comm, s->trig, h, out);
	argus_graph_view_end(&v);
	return rc;
}

const struct argus_session_opts *argus_session_get_opts(const struct argus_session *s)
{
	return &s->o;
}
