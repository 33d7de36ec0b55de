/*
 * live_priv.h - the live source's hook rings (hookrings.c), for live.c.
 */
#ifndef ARGUS_SESSION_LIVE_PRIV_H
#define ARGUS_SESSION_LIVE_PRIV_H

#include "ringbuf.h"
#include "session.h"

#define HOOK_RINGS        16    /* one per thread; the first shared beyond (as argus run) */
#define HOOK_RING_RECORDS 16384 /* per ring */

struct hookrings {
	unsigned n;
	struct argus_ring *ring[HOOK_RINGS];
	int fd[HOOK_RINGS];
	uint64_t drops_seen[HOOK_RINGS];
	struct argus_hook_guard guard[HOOK_RINGS];
	uint64_t events, drops;
};

int hookrings_open(struct hookrings *h, const char *name);
void hookrings_child_env(const struct hookrings *h, const char *lib);
size_t hookrings_read(struct hookrings *h, unsigned i, struct argus_event *out, size_t max,
                      uint32_t pid, uint64_t now);
size_t hookrings_drops(struct hookrings *h, struct argus_event *out, size_t max, uint32_t pid,
                       uint64_t ts);
void hookrings_close(struct hookrings *h);

#endif /* ARGUS_SESSION_LIVE_PRIV_H */
