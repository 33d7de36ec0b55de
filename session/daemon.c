/*
 * daemon.c - `argus start`'s diagnosis: a session is a sink of the daemon
 * (stream/), so stream/ never depends on the diagnosis.
 *
 * Threads: the session runs in a worker (worker.c) fed by the daemon's
 * sink callbacks, so a diagnosis never holds up ingest; the daemon's tick
 * (5 ms while records come) queues the stream's time for it, and hears
 * back whether the session waits on time (stream/daemon.c's quiet tick).
 * Reports and notifications are made in the worker (reports.c); its stream
 * lines wait in an outbox the daemon's thread publishes on its next tick,
 * since only that thread may touch the stream clients.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session.h"

/* the diagnosis's queue: at most this much waits for the worker */
#define DIAG_QUEUE_BYTES (256ull << 20)

/* A stream line waiting for the daemon's thread. */
struct out_line {
	struct out_line *next;
	uint32_t pid;
	bool stall_ended; /* no line: a stall of pid ended (argus trace-more) */
	char kind[16];
	char json[];
};

struct argus_daemon_diag {
	struct argus_daemon *d;
	struct argus_session *s; /* worker thread only (until it is stopped) */
	struct argus_report_sink *rs;
	struct argus_worker *w;
	pthread_mutex_t out_mu;
	struct out_line *out_head, *out_tail;
	uint64_t out_lost; /* lines not queued (out of memory) */
	/* the user's rules, asked after on the worker's ticks */
	bool (*rules_changed)(void *arg, const char *const **batch, const char *const **ignore);
	void *rules_arg;
	uint64_t rules_asked; /* stream time of the last question */
	/* the session waits on time (worker's view at its last tick): the
	 * daemon's tick stays fine; false lets an idle daemon tick coarsely */
	atomic_bool timed;
	/* the graph's memory, as the worker last saw it (for the status) */
	_Atomic uint64_t graph_bytes, graph_peak, graph_cap, graph_cap_hits;
	/* argus_daemon_diag_opts.app */
	void (*app)(void *arg, uint32_t pid);
	void *app_arg;
};

/* From the worker: the trigger found an app. Its records are never shed
 * from the worker's queue (session/worker.c); then the daemon's own hook. */
static void app_found(void *arg, uint32_t pid)
{
	struct argus_daemon_diag *dd = arg;
	if (dd->w)
		argus_worker_favour(dd->w, pid);
	if (dd->app)
		dd->app(dd->app_arg, pid);
}

/* From the worker: a line for the stream clients. */
static void queue_line(void *arg, const char *kind, uint32_t pid, const char *json)
{
	struct argus_daemon_diag *dd = arg;
	size_t len = strlen(json);
	struct out_line *l = malloc(sizeof(*l) + len + 1);
	pthread_mutex_lock(&dd->out_mu);
	if (l) {
		l->next = NULL;
		l->pid = pid;
		l->stall_ended = !kind;
		snprintf(l->kind, sizeof(l->kind), "%s", kind ? kind : "");
		memcpy(l->json, json, len + 1);
		if (dd->out_tail)
			dd->out_tail->next = l;
		else
			dd->out_head = l;
		dd->out_tail = l;
	} else {
		dd->out_lost++;
	}
	pthread_mutex_unlock(&dd->out_mu);
}

/* From the worker: a stall ended; finer tracing asked of its process
 * until then ends (on the daemon's thread, with the lines). */
static void stall_ended(void *arg, const struct argus_stall *st)
{
	queue_line(arg, NULL, st->pid, "");
}

/* On the daemon's thread: send what the worker queued. */
static void publish_queued(struct argus_daemon_diag *dd)
{
	pthread_mutex_lock(&dd->out_mu);
	struct out_line *l = dd->out_head;
	dd->out_head = dd->out_tail = NULL;
	pthread_mutex_unlock(&dd->out_mu);
	while (l) {
		struct out_line *next = l->next;
		if (l->stall_ended)
			argus_daemon_stall_ended(dd->d, l->pid);
		else
			argus_daemon_publish(dd->d, l->kind, l->pid, l->json);
		free(l);
		l = next;
	}
}

/* Worker: time passes for the trigger; about once a second, a user's
 * rules that changed reach the graph (between two records, on the thread
 * that ingests them). */
static void worker_tick(void *arg, uint64_t stream_ns)
{
	struct argus_daemon_diag *dd = arg;
	const char *const *batch, *const *ignore;
	if (dd->rules_changed && stream_ns - dd->rules_asked >= 1000000000ull) {
		dd->rules_asked = stream_ns;
		if (dd->rules_changed(dd->rules_arg, &batch, &ignore))
			argus_graph_set_user_rules(argus_session_graph(dd->s), batch, ignore);
	}
	argus_session_tick(dd->s, stream_ns);
	atomic_store(&dd->timed, argus_session_waits_on_time(dd->s));
	struct argus_graph_stats gs;
	argus_graph_get_stats(argus_session_graph(dd->s), &gs);
	atomic_store(&dd->graph_bytes, gs.bytes_held);
	if (gs.bytes_held > atomic_load(&dd->graph_peak))
		atomic_store(&dd->graph_peak, gs.bytes_held);
	atomic_store(&dd->graph_cap, gs.mem_cap);
	atomic_store(&dd->graph_cap_hits, gs.cap_hits);
}

/* The status's "diagnosis" object (the daemon's thread): its queue and the
 * graph's window against their bounds. */
static int diag_status(void *arg, char *buf, size_t cap)
{
	struct argus_daemon_diag *dd = arg;
	struct argus_worker_stats ws;
	argus_worker_get_stats(dd->w, &ws);
	return snprintf(buf, cap,
	                "\"queued_bytes\":%" PRIu64 ",\"queued_peak_bytes\":%" PRIu64
	                ",\"queue_cap_bytes\":%" PRIu64 ",\"records_dropped\":%" PRIu64
	                ",\"records_shed\":%" PRIu64
	                ",\"graph_bytes\":%" PRIu64 ",\"graph_peak_bytes\":%" PRIu64
	                ",\"graph_cap_bytes\":%" PRIu64 ",\"graph_cap_hits\":%" PRIu64,
	                ws.queued_bytes, ws.max_queued_bytes, (uint64_t)DIAG_QUEUE_BYTES, ws.dropped,
	                ws.shed,
	                atomic_load(&dd->graph_bytes), atomic_load(&dd->graph_peak),
	                atomic_load(&dd->graph_cap), atomic_load(&dd->graph_cap_hits));
}

/* Daemon's thread, every tick (5 ms while records come in numbers): true
 * while the session waits on time. */
static bool on_tick(void *arg, uint64_t stream_ns)
{
	struct argus_daemon_diag *dd = arg;
	argus_worker_tick(dd->w, stream_ns);
	publish_queued(dd);
	return atomic_load(&dd->timed);
}

int argus_daemon_diag_attach(struct argus_daemon_diag **out, struct argus_daemon *d,
                             const struct argus_daemon_diag_opts *o, char *err, size_t ecap)
{
	struct argus_daemon_diag *dd = calloc(1, sizeof(*dd));
	if (!dd) {
		snprintf(err, ecap, "out of memory");
		return -1;
	}
	dd->d = d;
	atomic_init(&dd->timed, true);
	dd->rules_changed = o->rules_changed;
	dd->rules_arg = o->rules_arg;
	pthread_mutex_init(&dd->out_mu, NULL);
	struct argus_session_opts so;
	argus_session_opts_default(&so);
	so.live_symbols = true;
	/* scheduling and samples for the reports' Perfetto traces: up to 64 MiB
	 * (a million records), the graph's window at most */
	so.history_bytes = 64ull << 20;
	so.history_ns = so.graph.window_ns;
	if (o->stall_ns)
		so.trigger.stall_ns = so.trigger.launch_ns = o->stall_ns;
	so.graph.user_batch_comms = o->user_batch_comms;
	so.graph.ignore_wake_comms = o->ignore_wake_comms;
	dd->app = o->app;
	dd->app_arg = o->app_arg;
	so.app = app_found;
	so.app_arg = dd;
	so.yields = o->yields;
	so.yields_arg = o->yields_arg;
	if (argus_session_new(&dd->s, &so)) {
		snprintf(err, ecap, "out of memory (diagnoser)");
		argus_daemon_diag_free(dd);
		return -1;
	}
	struct argus_report_sink_opts ro = {.reports_dir = o->reports_dir,
	                                    .user_reports_dir = o->user_reports_dir,
	                                    .notify_bus = o->notify_bus,
	                                    .no_notify = o->no_notify,
	                                    .group_set = o->group_set,
	                                    .group = o->group,
	                                    .name = "start",
	                                    .publish = queue_line,
	                                    .publish_arg = dd};
	if (argus_report_sink_new(&dd->rs, dd->s, &ro, err, ecap)) {
		argus_daemon_diag_free(dd);
		return -1;
	}
	struct argus_session_sink ended = {.stall_end = stall_ended, .arg = dd};
	if (argus_session_add_sink(dd->s, &ended)) {
		snprintf(err, ecap, "the diagnosis has no room for another sink");
		argus_daemon_diag_free(dd);
		return -1;
	}
	if (o->attach && o->attach(o->attach_arg, dd->s, err, ecap)) {
		argus_daemon_diag_free(dd);
		return -1;
	}
	struct argus_sink inner = argus_session_sink(dd->s);
	/* the worker's nice -20 counts within the daemon's group only: the
	 * group itself weighs as one nice-0 task beside a user's session of
	 * 800 busy processes (a storm: the worker got 0.1-0.3 of a CPU and was
	 * seconds behind). Best effort, the daemon as a session leader only. */
	(void)argus_worker_group_nice(-20);
	if (argus_worker_new(&dd->w, &inner, worker_tick, dd, DIAG_QUEUE_BYTES)) {
		snprintf(err, ecap, "cannot start the diagnosis thread");
		argus_daemon_diag_free(dd);
		return -1;
	}
	struct argus_sink s = argus_worker_sink(dd->w);
	if (argus_daemon_add_sink(d, &s)) {
		snprintf(err, ecap, "the daemon has no room for another sink");
		argus_daemon_diag_free(dd);
		return -1;
	}
	argus_daemon_set_tick(d, on_tick, dd);
	argus_daemon_set_status(d, diag_status, dd);
	*out = dd;
	return 0;
}

void argus_daemon_diag_summary(struct argus_daemon_diag *dd)
{
	/* the daemon has stopped: let the worker finish what it was given */
	argus_worker_stop(dd->w);
	argus_session_end(dd->s);
	struct argus_worker_stats ws;
	argus_worker_get_stats(dd->w, &ws);
	struct argus_session_stats st;
	argus_session_get_stats(dd->s, &st);
	fprintf(stderr,
	        "argus start: diagnosis: %" PRIu64 " records, %u GUI processes, %" PRIu64
	        " stalls (%" PRIu64 " ended), %" PRIu64 " diagnoses, %" PRIu64
	        " stalls not diagnosed (too many at once); %" PRIu64
	        " records not queued for it (%" PRIu64 " of them shed), at most %.1f MiB queued\n",
	        st.events, st.trigger.gui_processes, st.trigger.stalls, st.trigger.stalls_ended,
	        st.diagnoses, st.stalls_dropped, ws.dropped, ws.shed,
	        ws.max_queued_bytes / 1048576.0);
}

void argus_daemon_diag_free(struct argus_daemon_diag *dd)
{
	if (!dd)
		return;
	argus_worker_free(dd->w); /* before the session it runs */
	argus_report_sink_free(dd->rs);
	argus_session_free(dd->s);
	struct out_line *l = dd->out_head;
	while (l) {
		struct out_line *next = l->next;
		free(l);
		l = next;
	}
	pthread_mutex_destroy(&dd->out_mu);
	free(dd);
}
