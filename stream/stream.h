/*
 * stream.h - the ordered event stream: merge of all sources by timestamp.
 *
 * Each source (one per CPU ring, one per hook ring) pushes records roughly in
 * time order. The merge releases a record once every source has passed its
 * time, or has been quiet for at most max_delay_ns (the watermark), so a
 * quiet CPU never stalls the stream. A record older than what was already
 * released is late: counted, flagged ARGUS_F_LATE and delivered, never
 * silently reordered or dropped.
 * Stage order: includes ringbuf/ and event/ only.
 */
#ifndef ARGUS_STREAM_H
#define ARGUS_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "ringbuf.h"

struct argus_merge;

struct argus_merge_stats {
	uint64_t pushed, released, late;
	uint64_t buffered; /* held, waiting for the watermark */
	uint64_t watermark_ns;
};

/* max_delay_ns: how long a quiet source may hold back the others. */
int argus_merge_new(struct argus_merge **m, unsigned nsources, uint64_t max_delay_ns);
void argus_merge_free(struct argus_merge *m);

/* Add records of source src; now_ns = CLOCK_MONOTONIC at arrival. */
int argus_merge_push(struct argus_merge *m, unsigned src, const struct argus_event *ev,
		     size_t n, uint64_t now_ns);
/* Declare src drained as of now_ns (it has nothing older than now - delay). */
void argus_merge_quiet(struct argus_merge *m, unsigned src, uint64_t now_ns);

/* Release up to max records in timestamp order; returns the count. */
size_t argus_merge_pop(struct argus_merge *m, struct argus_event *out, size_t max,
		       uint64_t now_ns);
/* Release everything held (end of input), in order. */
size_t argus_merge_drain(struct argus_merge *m, struct argus_event *out, size_t max);

void argus_merge_get_stats(const struct argus_merge *m, struct argus_merge_stats *st);

#endif /* ARGUS_STREAM_H */
