/*
 * hookrings.c - the hook rings of a traced command, the live source's
 * second kind of input (`argus record --hooks -- CMD`): shared-memory rings
 * made here and inherited by the command, which has libargus-hooks.so
 * preloaded (docs/hooks.md), as `argus run` does. The live loop merges
 * them with the kernel's rings by time, as the daemon merges its hook
 * rings.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../hooks/hooks.h"
#include "live_priv.h"

int hookrings_open(struct hookrings *h, const char *name)
{
	for (unsigned i = 0; i < HOOK_RINGS; i++)
		h->fd[i] = -1;
	for (unsigned i = 0; i < HOOK_RINGS; i++) {
		int err = argus_ring_create_shm(&h->ring[i], HOOK_RING_RECORDS, &h->fd[i]);
		if (err) {
			fprintf(stderr, "argus %s: cannot create hook ring %u: %s\n", name, i,
			        strerror(-err));
			return -1;
		}
		h->n++;
	}
	return 0;
}

/* In the child, before exec: the rings survive it, the hooks find them in
 * the environment (no wake-up fd: a record never costs the app a syscall;
 * the live loop reads the rings at least every 50 ms). */
void hookrings_child_env(const struct hookrings *h, const char *lib)
{
	char rings[HOOK_RINGS * 24] = "";
	size_t len = 0;
	for (unsigned i = 0; i < h->n; i++) {
		fcntl(h->fd[i], F_SETFD, 0);
		len += (size_t)snprintf(rings + len, sizeof(rings) - len, "%s%d:-1", i ? "," : "",
		                        h->fd[i]);
	}
	const char *old = getenv("LD_PRELOAD");
	char preload[PATH_MAX * 2];
	snprintf(preload, sizeof(preload), "%s%s%s", lib, old && *old ? ":" : "", old ? old : "");
	setenv("LD_PRELOAD", preload, 1);
	setenv(ARGUS_HOOK_ENV_RINGS, rings, 1);
}

/* A hooked process speaks only for itself (what the daemon does with its
 * hook rings, stream/hookguard.c): its pid and threads, the hook types,
 * and no time from the future, which would hold the merge back. */
size_t hookrings_read(struct hookrings *h, unsigned i, struct argus_event *out, size_t max,
                      uint32_t pid, uint64_t now)
{
	size_t n = argus_ring_read(h->ring[i], out, max);
	h->guard[i].pid = pid;
	h->guard[i].source_id = i;
	h->events += n;
	return argus_hook_guard_apply(&h->guard[i], out, n, now);
}

/* Losses of the hook rings as DROP records at ts. */
size_t hookrings_drops(struct hookrings *h, struct argus_event *out, size_t max, uint32_t pid,
                       uint64_t ts)
{
	size_t n = 0;
	for (unsigned i = 0; i < h->n && n < max; i++) {
		uint64_t d = argus_ring_drops(h->ring[i]);
		if (d <= h->drops_seen[i])
			continue;
		struct argus_event *ev = &out[n++];
		argus_event_drop(ev, ts, ARGUS_DROP_HOOK_RING, i, d - h->drops_seen[i], d);
		ev->pid = pid;
		ev->flags = ARGUS_F_HOOK;
		h->drops += d - h->drops_seen[i];
		h->drops_seen[i] = d;
	}
	return n;
}

void hookrings_close(struct hookrings *h)
{
	for (unsigned i = 0; i < HOOK_RINGS; i++) {
		if (h->ring[i])
			argus_ring_close(h->ring[i]);
		if (h->fd[i] >= 0)
			close(h->fd[i]);
		h->ring[i] = NULL;
		h->fd[i] = -1;
		memset(&h->guard[i], 0, sizeof(h->guard[i]));
	}
	h->n = 0;
}
