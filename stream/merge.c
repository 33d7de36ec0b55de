/*
 * merge.c - the watermark merge of per-source record streams (stream.h).
 *
 * Each source has a FIFO (a growable circular array) kept sorted by ts; a
 * binary min-heap over the non-empty sources, keyed by their head record,
 * picks the next record in O(log sources). A record is released when its ts
 * is at or below the watermark: the least, over the *empty* sources, of what
 * each is known to have passed, max(highest ts it pushed, now - max_delay).
 * Non-empty sources need no bound: their heads are in the heap.
 *
 * Disorder inside one source (a BPF program preempted between taking its
 * timestamp and reserving ring space) is repaired by insertion from the
 * tail, as long as the record is not older than what was already released.
 * An older record is late: counted, flagged ARGUS_F_LATE and delivered at the
 * next pop, ahead of the ordered records.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stream.h"

#define DEFAULT_MAX_BUFFERED (1u << 22) /* 256 MiB of records */

struct src_queue {
	struct argus_event *buf;
	size_t cap; /* power of two, or 0 */
	size_t head, len;
	uint64_t passed; /* the source has nothing older than this (high water) */
	int heap_pos;    /* -1 when empty */
};

struct argus_merge {
	unsigned nsrc;
	uint64_t max_delay;
	uint64_t max_buffered;
	struct src_queue *src;
	unsigned *heap, heap_n;
	struct src_queue late;
	uint64_t released_ts; /* ts of the last record released in order */
	bool released_any;
	struct argus_merge_stats st;
};

static inline struct argus_event *q_at(const struct src_queue *q, size_t i)
{
	return &q->buf[(q->head + i) & (q->cap - 1)];
}

static int q_grow(struct src_queue *q)
{
	size_t ncap = q->cap ? q->cap * 2 : 1024;
	struct argus_event *nb = malloc(ncap * sizeof(*nb));
	if (!nb)
		return -ENOMEM;
	/* Unwrap into the new array: at most two copies. */
	size_t first = q->cap - q->head < q->len ? q->cap - q->head : q->len;
	if (q->len) {
		memcpy(nb, q->buf + q->head, first * sizeof(*nb));
		memcpy(nb + first, q->buf, (q->len - first) * sizeof(*nb));
	}
	free(q->buf);
	q->buf = nb;
	q->cap = ncap;
	q->head = 0;
	return 0;
}

/* ---- heap over sources, keyed by (head ts, source index) ---------------- */

static inline bool src_less(const struct argus_merge *m, unsigned a, unsigned b)
{
	uint64_t ta = q_at(&m->src[a], 0)->ts, tb = q_at(&m->src[b], 0)->ts;
	return ta < tb || (ta == tb && a < b);
}

static void heap_set(struct argus_merge *m, unsigned pos, unsigned s)
{
	m->heap[pos] = s;
	m->src[s].heap_pos = (int)pos;
}

static void sift_up(struct argus_merge *m, unsigned pos)
{
	unsigned s = m->heap[pos];
	while (pos > 0) {
		unsigned parent = (pos - 1) / 2;
		if (!src_less(m, s, m->heap[parent]))
			break;
		heap_set(m, pos, m->heap[parent]);
		pos = parent;
	}
	heap_set(m, pos, s);
}

static void sift_down(struct argus_merge *m, unsigned pos)
{
	unsigned s = m->heap[pos];
	for (;;) {
		unsigned c = 2 * pos + 1;
		if (c >= m->heap_n)
			break;
		if (c + 1 < m->heap_n && src_less(m, m->heap[c + 1], m->heap[c]))
			c++;
		if (!src_less(m, m->heap[c], s))
			break;
		heap_set(m, pos, m->heap[c]);
		pos = c;
	}
	heap_set(m, pos, s);
}

static void heap_remove_top(struct argus_merge *m)
{
	unsigned top = m->heap[0];
	m->src[top].heap_pos = -1;
	if (--m->heap_n) {
		heap_set(m, 0, m->heap[m->heap_n]);
		sift_down(m, 0);
	}
}

/* ---- public ------------------------------------------------------------ */

int argus_merge_new(struct argus_merge **mp, unsigned nsources, uint64_t max_delay_ns)
{
	*mp = NULL;
	if (!nsources)
		return -EINVAL;
	struct argus_merge *m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->nsrc = nsources;
	m->max_delay = max_delay_ns;
	m->max_buffered = DEFAULT_MAX_BUFFERED;
	m->src = calloc(nsources, sizeof(*m->src));
	m->heap = calloc(nsources, sizeof(*m->heap));
	if (!m->src || !m->heap) {
		argus_merge_free(m);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < nsources; i++)
		m->src[i].heap_pos = -1;
	*mp = m;
	return 0;
}

void argus_merge_free(struct argus_merge *m)
{
	if (!m)
		return;
	if (m->src)
		for (unsigned i = 0; i < m->nsrc; i++)
			free(m->src[i].buf);
	free(m->late.buf);
	free(m->src);
	free(m->heap);
	free(m);
}

void argus_merge_set_max_buffered(struct argus_merge *m, uint64_t max_records)
{
	m->max_buffered = max_records ? max_records : DEFAULT_MAX_BUFFERED;
}

static int push_late(struct argus_merge *m, const struct argus_event *ev)
{
	struct src_queue *q = &m->late;
	if (q->len == q->cap && q_grow(q))
		return -ENOMEM;
	struct argus_event *slot = q_at(q, q->len++);
	*slot = *ev;
	slot->flags |= ARGUS_F_LATE;
	m->st.late++;
	return 0;
}

/* Insert into a source queue, keeping it sorted; new records almost always
 * go at the tail. Returns whether the head changed. */
static bool insert_sorted(struct src_queue *q, const struct argus_event *ev)
{
	size_t i = q->len;
	while (i > 0 && q_at(q, i - 1)->ts > ev->ts) {
		*q_at(q, i) = *q_at(q, i - 1);
		i--;
	}
	*q_at(q, i) = *ev;
	q->len++;
	return i == 0;
}

/* Append ev[0..n) (sorted, none older than the tail) with at most two
 * copies. */
static int append_run(struct src_queue *q, const struct argus_event *ev, size_t n)
{
	while (q->len + n > q->cap)
		if (q_grow(q))
			return -ENOMEM;
	size_t tail = (q->head + q->len) & (q->cap - 1);
	size_t first = q->cap - tail < n ? q->cap - tail : n;
	memcpy(q->buf + tail, ev, first * sizeof(*ev));
	memcpy(q->buf, ev + first, (n - first) * sizeof(*ev));
	q->len += n;
	return 0;
}

int argus_merge_push(struct argus_merge *m, unsigned srcid, const struct argus_event *ev, size_t n,
                     uint64_t now_ns)
{
	(void)now_ns;
	if (srcid >= m->nsrc)
		return -EINVAL;
	struct src_queue *q = &m->src[srcid];
	for (size_t k = 0; k < n; k++) {
		/* the common case: a sorted run that goes after the tail, taken
		 * in one copy (a source's records are mostly in order) */
		uint64_t floor = q->len ? q_at(q, q->len - 1)->ts : 0;
		if (m->released_any && m->released_ts > floor)
			floor = m->released_ts;
		size_t r = 0;
		while (k + r < n && ev[k + r].ts >= floor) {
			floor = ev[k + r].ts;
			r++;
		}
		if (r > 1) {
			bool was_empty = q->len == 0;
			if (append_run(q, ev + k, r))
				return -ENOMEM;
			if (floor > q->passed)
				q->passed = floor;
			if (was_empty) {
				heap_set(m, m->heap_n++, srcid);
				sift_up(m, m->heap_n - 1);
			}
			m->st.pushed += r;
			m->st.buffered += r;
			k += r - 1;
			continue;
		}
		if (m->released_any && ev[k].ts < m->released_ts) {
			if (push_late(m, &ev[k]))
				return -ENOMEM;
			m->st.pushed++;
			continue;
		}
		if (q->len == q->cap && q_grow(q))
			return -ENOMEM;
		bool was_empty = q->len == 0;
		bool new_head = insert_sorted(q, &ev[k]);
		if (ev[k].ts > q->passed)
			q->passed = ev[k].ts;
		if (was_empty) {
			heap_set(m, m->heap_n++, srcid);
			sift_up(m, m->heap_n - 1);
		} else if (new_head) {
			sift_up(m, (unsigned)q->heap_pos);
		}
		m->st.pushed++;
		m->st.buffered++;
	}
	return 0;
}

void argus_merge_quiet(struct argus_merge *m, unsigned srcid, uint64_t now_ns)
{
	if (srcid >= m->nsrc || now_ns < m->max_delay)
		return;
	struct src_queue *q = &m->src[srcid];
	if (now_ns - m->max_delay > q->passed)
		q->passed = now_ns - m->max_delay;
}

/* What an empty source is known to have passed at now. */
static inline uint64_t empty_bound(const struct argus_merge *m, const struct src_queue *q,
                                   uint64_t now_ns)
{
	uint64_t quiet = now_ns > m->max_delay ? now_ns - m->max_delay : 0;
	return q->passed > quiet ? q->passed : quiet;
}

static size_t pop_late(struct argus_merge *m, struct argus_event *out, size_t max)
{
	struct src_queue *q = &m->late;
	size_t n = 0;
	while (n < max && q->len) {
		out[n++] = *q_at(q, 0);
		q->head = (q->head + 1) & (q->cap - 1);
		q->len--;
	}
	m->st.released += n;
	return n;
}

static size_t pop_ordered(struct argus_merge *m, struct argus_event *out, size_t max,
                          uint64_t now_ns, bool all)
{
	uint64_t wm = UINT64_MAX;
	if (!all)
		for (unsigned i = 0; i < m->nsrc; i++)
			if (!m->src[i].len) {
				uint64_t b = empty_bound(m, &m->src[i], now_ns);
				if (b < wm)
					wm = b;
			}
	size_t n = 0;
	while (n < max && m->heap_n) {
		unsigned s = m->heap[0];
		struct src_queue *q = &m->src[s];
		struct argus_event *e = q_at(q, 0);
		/* Over the memory cap, release regardless: what arrives older
		 * later is late, not lost. */
		if (e->ts > wm && m->st.buffered <= m->max_buffered)
			break;
		/* the top source's records up to the next source's head (and the
		 * watermark) go out together */
		uint64_t next_ts = UINT64_MAX;
		unsigned next = UINT32_MAX; /* the source whose head is next after s's */
		for (unsigned c = 1; c <= 2 && c < m->heap_n; c++) {
			unsigned o = m->heap[c];
			uint64_t t = q_at(&m->src[o], 0)->ts;
			if (next == UINT32_MAX || t < next_ts || (t == next_ts && o < next)) {
				next_ts = t;
				next = o;
			}
		}
		size_t take = 1;
		while (take < q->len && n + take < max) {
			uint64_t t = q_at(q, take)->ts;
			if ((t > wm && m->st.buffered - take <= m->max_buffered) || t > next_ts ||
			    (t == next_ts && next < s))
				break;
			take++;
		}
		size_t first = q->cap - q->head < take ? q->cap - q->head : take;
		memcpy(out + n, q->buf + q->head, first * sizeof(*out));
		memcpy(out + n + first, q->buf, (take - first) * sizeof(*out));
		n += take;
		m->released_ts = out[n - 1].ts;
		m->released_any = true;
		m->st.buffered -= take;
		q->head = (q->head + take) & (q->cap - 1);
		q->len -= take;
		if (q->len) {
			sift_down(m, 0);
		} else {
			heap_remove_top(m);
			uint64_t b = all ? UINT64_MAX : empty_bound(m, q, now_ns);
			if (b < wm)
				wm = b;
		}
	}
	m->st.released += n;
	m->st.watermark_ns = wm == UINT64_MAX ? m->released_ts : wm;
	return n;
}

size_t argus_merge_pop(struct argus_merge *m, struct argus_event *out, size_t max, uint64_t now_ns)
{
	size_t n = pop_late(m, out, max);
	return n + pop_ordered(m, out + n, max - n, now_ns, false);
}

size_t argus_merge_drain(struct argus_merge *m, struct argus_event *out, size_t max)
{
	size_t n = pop_late(m, out, max);
	return n + pop_ordered(m, out + n, max - n, 0, true);
}

void argus_merge_get_stats(const struct argus_merge *m, struct argus_merge_stats *st)
{
	*st = m->st;
	st->buffered = m->st.buffered + m->late.len;
}
