/*
 * hook_landmark.c - toolkit landmarks (LagHunter, paper 002, section 3.1):
 * signal emissions, paint, Qt event deliveries and signals. Each thread
 * keeps a shadow stack of the open ones; at its end a landmark is kept only
 * when it lasted the threshold (3 ms, ARGUS_HOOK_LANDMARK_NS) - the paper's
 * online filter, here in the process, so the many short emissions of a
 * toolkit cost no record. A kept one is one landmark record, stamped at its
 * end, with its begin, its depth and the time of the landmarks nested in it
 * (its exclusive latency is the rest).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hooks_internal.h"
#include "ring_producer.h"

#define LM_MAX 32

/* Per thread: open landmarks and, per level, the time of those nested in
 * them (levels deeper than LM_MAX are counted, not measured). */
static __thread unsigned lm_depth __attribute__((tls_model("initial-exec")));
static __thread uint64_t lm_nested[LM_MAX] __attribute__((tls_model("initial-exec")));

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void hooks_landmark_init(const char *threshold_ns)
{
	char *end = NULL;
	unsigned long long v = threshold_ns ? strtoull(threshold_ns, &end, 10) : 0;
	argus_hooks_root.landmark_ns =
	    threshold_ns && end != threshold_ns && !*end ? v : ARGUS_HOOK_LANDMARK_NS;
}

void hooks_lm_begin(struct hooks_lm *m)
{
	m->depth = lm_depth++;
	if (m->depth < LM_MAX)
		lm_nested[m->depth] = 0;
	m->nested = 0;
	m->begin = now_ns();
}

bool hooks_lm_end(struct hooks_lm *m, uint64_t *end)
{
	*end = now_ns();
	uint64_t incl = *end > m->begin ? *end - m->begin : 0;
	if (lm_depth)
		lm_depth--;
	if (m->depth < LM_MAX)
		m->nested = lm_nested[m->depth];
	if (m->depth && m->depth - 1 < LM_MAX)
		lm_nested[m->depth - 1] += incl;
	/* every one while the daemon asks for it (argus trace-more --hooks) */
	return m->depth < LM_MAX && (incl >= argus_hooks_root.landmark_ns ||
	                             (hooks_asks() & ARGUS_RING_ASK_LANDMARKS));
}

void hooks_lm_emit(const struct hooks_lm *m, uint64_t end, unsigned kind, uintptr_t fn,
                   uintptr_t obj)
{
	struct argus_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.ts = end;
	ev.type = ARGUS_EV_LANDMARK;
	ev.landmark.fn = fn;
	ev.landmark.obj = obj;
	ev.landmark.begin_ns = m->begin;
	ev.landmark.nested_ns = m->nested;
	ev.landmark.kind = kind;
	ev.landmark.depth = m->depth;
	hooks_emit(&ev);
}
