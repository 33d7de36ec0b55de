/*
 * history.c - the records a report shows beyond the diagnosis, kept for
 * the last moments of a pushed or live stream: scheduling and CPU samples
 * (the fan-out table's ARGUS_SESSION_HISTORY), in a ring bounded by bytes
 * (opts.history_bytes) and by time (opts.history_ns behind the newest
 * record). The daemon's Perfetto trace of a stall reads its window here
 * (argus_session_records); a trace file is read again instead.
 */
#include <stdlib.h>
#include <string.h>

#include "session_priv.h"

int sess_history_init(struct history *h, uint64_t bytes, uint64_t keep_ns)
{
	memset(h, 0, sizeof(*h));
	if (!bytes)
		return 0;
	h->cap = bytes / sizeof(struct argus_event);
	if (!h->cap)
		h->cap = 1;
	h->keep_ns = keep_ns;
	h->buf = malloc(h->cap * sizeof(*h->buf));
	return h->buf ? 0 : -1;
}

void sess_history_free(struct history *h)
{
	free(h->buf);
	memset(h, 0, sizeof(*h));
}

void sess_history_add(struct history *h, const struct argus_event *e)
{
	if (!h->buf)
		return;
	/* the oldest go when full or older than keep_ns */
	while (h->n && (h->n == h->cap ||
	                (h->keep_ns && h->buf[h->head].ts + h->keep_ns < e->ts))) {
		h->head = (h->head + 1) % h->cap;
		h->n--;
		h->evicted++;
	}
	h->buf[(h->head + h->n) % h->cap] = *e;
	h->n++;
}

static void history_each(void *arg, uint64_t from, uint64_t to,
                         void (*fn)(void *fn_arg, const struct argus_event *ev), void *fn_arg)
{
	const struct history *h = arg;
	/* records are in stream order: find the first at or after from */
	size_t lo = 0, hi = h->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (h->buf[(h->head + mid) % h->cap].ts < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < h->n; i++) {
		const struct argus_event *e = &h->buf[(h->head + i) % h->cap];
		if (e->ts > to)
			break;
		fn(fn_arg, e);
	}
}

struct argus_report_records argus_session_records(struct argus_session *s)
{
	return (struct argus_report_records){s->hist.buf ? history_each : NULL, &s->hist};
}

uint64_t argus_session_records_from(const struct argus_session *s)
{
	return s->hist.n ? s->hist.buf[s->hist.head].ts : 0;
}

struct argus_symbolizer argus_session_symbolizer(struct argus_session *s)
{
	if (s->prepare)
		s->prepare(s); /* tables interned since the last diagnosis */
	return s->sym;
}
