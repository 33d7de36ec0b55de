/*
 * synth.h - `argus synth`: a deterministic synthetic desktop with ground truth.
 *
 * A small discrete-event simulation of a Linux desktop (display server, GUI
 * apps with GLib-like main loops and worker pools, a message bus, a font
 * service, a three-process service chain, kernel workers, timers, interrupts)
 * on a few CPUs. It produces exactly the records the kernel tracer and the
 * hooks would, in global time order, into a struct argus_sink, with one
 * struct argus_truth per injected anomaly. docs/synth.md describes the model.
 */
#ifndef ARGUS_SYNTH_H
#define ARGUS_SYNTH_H

#include <stdint.h>

#include "event.h"

#define ARGUS_SYNTH_MIN_EVENTS 1000ULL
#define ARGUS_SYNTH_MAX_EVENTS 50000000ULL
#define ARGUS_SYNTH_MAX_APPS   16
#define ARGUS_SYNTH_MAX_CPUS   64

/* Bit of an anomaly kind in argus_synth_opts.anomalies. */
#define ARGUS_SYNTH_ANOMALY(kind) (1u << (kind))
#define ARGUS_SYNTH_ANOMALIES_ALL 0xfeu /* kinds 1..7 */

struct argus_synth_opts {
	uint64_t seed;
	uint64_t events;    /* exact number of records produced */
	uint32_t apps;      /* GUI applications, 1..ARGUS_SYNTH_MAX_APPS */
	uint32_t cpus;      /* 1..ARGUS_SYNTH_MAX_CPUS */
	uint32_t anomalies; /* ARGUS_SYNTH_ANOMALY(kind) bits */
	double ambiguous;   /* target share of ambiguous wake-up edges, 0..0.9 */
	uint32_t rate;      /* at least this many records per second of trace time
	                       (2000..500000): bus traffic fills the gap */
	uint64_t start_ns;  /* timestamp of the first record (CLOCK_MONOTONIC) */
};

struct argus_synth_stats {
	uint64_t events;            /* records produced */
	uint64_t first_ts, last_ts; /* time span covered */
	uint32_t processes, threads;
	uint32_t injected;          /* anomalies with a truth record */
	uint32_t skipped;           /* requested anomalies that did not fit */
	uint32_t per_kind[8];       /* truth records by enum argus_anomaly_kind */
	uint64_t wakeups;           /* thread-context wake-ups (edges) */
	uint64_t wakeups_ambiguous; /* of which ambiguous (docs/synth.md) */
};

/* Defaults: seed 1, 1 M events, 4 apps, 4 CPUs, all anomalies, 0.4,
 * 30000 records/s. */
void argus_synth_opts_default(struct argus_synth_opts *o);

/* Check options; NULL when valid, else a static one-line reason. */
const char *argus_synth_opts_check(const struct argus_synth_opts *o);

/*
 * Parse an anomaly list: "all", "none", or comma-separated names
 * (long_running, long_wait_chain, circular_timeout, missing_wakeup,
 * yield_loop, decoy_idle, decoy_busy, decoys). Returns 0, or -1 and sets
 * *bad to the offending item (pointer into s).
 */
int argus_synth_parse_anomalies(const char *s, uint32_t *mask, const char **bad);

enum argus_synth_err {
	ARGUS_SYNTH_OK = 0,
	ARGUS_SYNTH_EINVAL = -1, /* options rejected by argus_synth_opts_check */
	ARGUS_SYNTH_ESINK = -2,  /* the sink failed (its own error is kept there) */
	ARGUS_SYNTH_ENOMEM = -3,
};

/*
 * Generate. Same options -> the same calls on the sink with the same bytes.
 * Memory is bounded independently of o->events (records are streamed in
 * batches). stats may be NULL.
 */
int argus_synth_run(const struct argus_synth_opts *o, const struct argus_sink *sink,
                    struct argus_synth_stats *stats);

#endif /* ARGUS_SYNTH_H */
