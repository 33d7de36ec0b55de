/*
 * start-diagnosis.h - `argus start`'s always-on diagnosis (start-diagnosis.c):
 * the diagnoser as a daemon sink; reports, notifications and the "stall" /
 * "diagnosis" lines of the JSON stream.
 */
#ifndef ARGUS_CLI_START_DIAGNOSIS_H
#define ARGUS_CLI_START_DIAGNOSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "stream.h"

#define START_REPORTS_DIR "/var/lib/argus/reports"

struct start_diag_opts {
	const char *reports_dir; /* NULL = START_REPORTS_DIR, "" = no report files */
	const char *notify_bus;  /* D-Bus address; NULL = the stalled app's session bus */
	bool no_notify;
	uint64_t stall_ns; /* stall threshold; 0 = the trigger's default (2 s) */
};

struct start_diag;

/* Attach to the daemon before argus_daemon_run. 0, or -1 with err set. */
int start_diag_attach(struct start_diag **sd, struct argus_daemon *d,
                      const struct start_diag_opts *o, char *err, size_t ecap);
/* One line of counts on stderr (at exit). */
void start_diag_summary(struct start_diag *sd);
void start_diag_free(struct start_diag *sd);

/* ---- start-worker.c: a sink run in its own thread ---- */

struct start_worker;
struct start_worker_stats {
	uint64_t events;           /* records the inner sink got */
	uint64_t dropped;          /* records not queued (queue full, out of memory) */
	uint64_t table_losses;     /* string / stack entries lost (ids may be off after) */
	uint64_t inner_errors;     /* batches the inner sink failed */
	uint64_t queued_bytes;     /* records waiting now */
	uint64_t max_queued_bytes; /* the most that ever waited */
};
/* inner (and tick, with the stream time) run in the worker thread, in the
 * order the daemon delivered. max_bytes bounds the queued records (0 =
 * 256 MiB). */
int start_worker_new(struct start_worker **w, const struct argus_sink *inner,
                     void (*tick)(void *arg, uint64_t stream_ns), void *tick_arg,
                     uint64_t max_bytes);
/* The sink to give the daemon (its callbacks only queue). */
struct argus_sink start_worker_sink(struct start_worker *w);
/* Queue a tick (at most one waits at a time). */
void start_worker_tick(struct start_worker *w, uint64_t stream_ns);
/* Run what is queued, then end the thread. */
void start_worker_stop(struct start_worker *w);
void start_worker_get_stats(struct start_worker *w, struct start_worker_stats *st);
void start_worker_free(struct start_worker *w);

#endif /* ARGUS_CLI_START_DIAGNOSIS_H */
