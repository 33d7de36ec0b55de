/*
 * hooks_internal.h - shared by the parts of libargus-hooks.so: the root
 * object (the library's one piece of process-wide state, as a preloaded
 * library must have), per-thread ring claims and event emission.
 */
#ifndef ARGUS_HOOKS_INTERNAL_H
#define ARGUS_HOOKS_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "argus_event.h"
#include "hooks.h"
#include "inline_hook.h"

struct argus_ring_producer;

struct hooks_root {
	/* Set once the rings are attached; every hook tests it first. */
	atomic_bool active;
	pid_t pid;
	unsigned nrings;
	struct argus_ring_producer *rings[ARGUS_HOOK_MAX_RINGS];
	atomic_int claimed[ARGUS_HOOK_MAX_RINGS]; /* ring i owned by a thread */
	atomic_flag shared_lock;                  /* ring 0, shared by the rest */
	atomic_uint_fast64_t lost;                /* lost before reaching a ring */
	atomic_uint_fast64_t unreported;          /* threads the daemon gave no ring */
	char hook_socket[108];                    /* daemon mode: its hook socket */
	struct argus_hook_arena *arena;
	atomic_flag arena_lock;
	uint64_t landmark_ns; /* toolkit landmarks kept from this long */
};

extern struct hooks_root argus_hooks_root;

static inline bool hooks_active(void)
{
	return atomic_load_explicit(&argus_hooks_root.active, memory_order_relaxed);
}

/* Fill the header (ts, pid, tid, cpu, ARGUS_F_HOOK) and write ev to this
 * thread's ring. Safe in a signal handler (re-entry is counted as lost). */
void hooks_emit(struct argus_event *ev);

/* What the daemon asks of this thread's ring now (ARGUS_RING_ASK_* of
 * ring_producer.h; argus trace-more --hooks); 0 without a ring of the daemon's. */
uint32_t hooks_asks(void);

/* Install an inline hook through the root's arena (serialized). */
int hooks_inline(void *target, void *replacement, void **orig);

/* A cond / sem / mutex record (hook_sync.c), for GLib's own primitives. */
void hooks_sync_emit(unsigned type, const void *obj, const void *mutex, long ret);

/* Toolkit landmarks (hook_landmark.c): a per-thread shadow stack; one
 * landmark record at the end of each that lasted landmark_ns. */
struct hooks_lm {
	uint64_t begin, nested;
	unsigned depth;
};
void hooks_lm_begin(struct hooks_lm *m);
/* Pops it; true when it is kept (then send it with hooks_lm_emit). */
bool hooks_lm_end(struct hooks_lm *m, uint64_t *end);
void hooks_lm_emit(const struct hooks_lm *m, uint64_t end, unsigned kind, uintptr_t fn,
                   uintptr_t obj);
void hooks_landmark_init(const char *threshold_ns);

/* Per-part setup, called from the constructor once rings are attached. */
void hooks_gsignal_init(void);
void hooks_glib_init(void);
void hooks_dbus_init(void);
void hooks_qt_init(void);
void hooks_flags_init(const char *path);
void hooks_prune_init(const char *list);

#endif /* ARGUS_HOOKS_INTERNAL_H */
