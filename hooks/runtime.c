/*
 * runtime.c - libargus-hooks.so start-up and event emission.
 *
 * Rings: the consumer hands the process a pool of single-producer shared-
 * memory rings (ARGUS_HOOK_RINGS). A thread claims a free ring of the pool
 * at its first event and keeps it until it exits, so each ring keeps one
 * producer and writes stay lock-free and syscall-free. Threads beyond the
 * pool share ring 0 under a spinlock. A forked child stops tracing (its
 * rings would have two producers); an exec'ed program is not traced by
 * them (the variables are removed from the environment).
 *
 * Without rings from `argus run`, the hooks look for the daemon's hook
 * socket (ARGUS_HOOK_SOCKET, default /run/argus-hooks/hooks.sock): each
 * thread then asks the daemon for a ring of its own at its first record
 * (docs/daemon.md). Neither present: inert.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "hooks_internal.h"
#include "ring_producer.h"

struct hooks_root argus_hooks_root = {
    .shared_lock = ATOMIC_FLAG_INIT,
    .arena_lock = ATOMIC_FLAG_INIT,
};

/* Per thread: its ring, tid, re-entry guard. */
enum { RING_UNSET = -1, RING_OWN = -2, RING_NONE = -3 };
struct hooks_thread {
	int ring; /* pool index (0 = shared), or RING_* */
	pid_t tid;
	int in_emit;
	struct argus_ring_producer *own; /* RING_OWN: from the daemon's hook socket */
	int own_sock;                    /* keeps that ring ours; closing hands it back */
};
static __thread struct hooks_thread self
    __attribute__((tls_model("initial-exec"))) = {.ring = RING_UNSET, .own_sock = -1};

static pthread_key_t ring_key;

/* Thread exit (pthread key destructor, run in the exiting thread). */
static void release_ring(void *arg)
{
	(void)arg;
	if (self.ring > 0)
		atomic_store(&argus_hooks_root.claimed[self.ring], 0);
	if (self.ring == RING_OWN) {
		argus_producer_close(self.own);
		close(self.own_sock);
		self.own = NULL;
		self.own_sock = -1;
	}
	self.ring = RING_UNSET;
}

static int claim_ring(void)
{
	struct hooks_root *r = &argus_hooks_root;
	if (r->hook_socket[0]) {
		/* Daemon mode: one ring per thread from the hook socket; a
		 * connection is made once per thread, at its first record. */
		if (argus_producer_connect(r->hook_socket, &self.own, &self.own_sock, NULL))
			return RING_NONE;
		pthread_setspecific(ring_key, (void *)1);
		return RING_OWN;
	}
	for (unsigned i = 1; i < r->nrings; i++) {
		int expect = 0;
		if (atomic_compare_exchange_strong(&r->claimed[i], &expect, 1)) {
			pthread_setspecific(ring_key, (void *)1);
			return (int)i;
		}
	}
	return 0;
}

static void emit_one(struct argus_event *ev)
{
	struct hooks_root *r = &argus_hooks_root;
	if (self.ring == RING_UNSET)
		self.ring = claim_ring();
	if (self.ring > 0) {
		argus_producer_write(r->rings[self.ring], ev);
		return;
	}
	if (self.ring == RING_OWN) {
		argus_producer_write(self.own, ev);
		return;
	}
	if (self.ring == RING_NONE) { /* the daemon refused or went away */
		atomic_fetch_add(&r->unreported, 1);
		return;
	}
	while (atomic_flag_test_and_set_explicit(&r->shared_lock, memory_order_acquire))
		sched_yield();
	argus_producer_write(r->rings[0], ev);
	atomic_flag_clear_explicit(&r->shared_lock, memory_order_release);
}

uint32_t hooks_asks(void)
{
	return self.ring == RING_OWN && self.own ? argus_producer_asks(self.own) : 0;
}

void hooks_emit(struct argus_event *ev)
{
	struct hooks_root *r = &argus_hooks_root;
	if (self.in_emit) { /* a signal handler interrupted an emit of this thread */
		atomic_fetch_add(&r->lost, 1);
		return;
	}
	self.in_emit = 1;
	if (!ev->ts) { /* a caller may stamp the time it was called */
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ev->ts = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	}
	if (!self.tid)
		self.tid = (pid_t)syscall(SYS_gettid);
	unsigned cpu = 0;
	getcpu(&cpu, NULL);
	ev->pid = (uint32_t)r->pid;
	ev->tid = (uint32_t)self.tid;
	ev->cpu = (uint16_t)cpu;
	ev->flags |= ARGUS_F_HOOK;
	/* Losses before the ring (re-entry) are reported on the next emit. */
	uint64_t lost = atomic_load_explicit(&r->lost, memory_order_relaxed);
	if (lost && atomic_compare_exchange_strong(&r->lost, &lost, 0)) {
		struct argus_event d = *ev;
		memset(&d.raw, 0, sizeof(d.raw));
		d.type = ARGUS_EV_DROP;
		d.drop.count = lost;
		d.drop.source = ARGUS_DROP_HOOK_RING;
		emit_one(&d);
	}
	emit_one(ev);
	self.in_emit = 0;
}

int hooks_inline(void *target, void *replacement, void **orig)
{
	struct hooks_root *r = &argus_hooks_root;
	while (atomic_flag_test_and_set_explicit(&r->arena_lock, memory_order_acquire))
		sched_yield();
	int rc = r->arena ? argus_hook_install(r->arena, target, replacement, orig) : -ENOMEM;
	atomic_flag_clear_explicit(&r->arena_lock, memory_order_release);
	return rc;
}

/* In a forked child: the parent's rings must keep one producer. With the
 * daemon the child asks for rings of its own; rings from `argus run` are
 * the parent's only, so the child stops recording. */
static void after_fork_child(void)
{
	struct hooks_root *r = &argus_hooks_root;
	if (!r->hook_socket[0]) {
		atomic_store(&r->active, false);
		return;
	}
	if (self.ring == RING_OWN) {
		argus_producer_close(self.own); /* this process's mapping and fds only */
		close(self.own_sock);
	}
	self.own = NULL;
	self.own_sock = -1;
	self.ring = RING_UNSET;
	self.tid = 0;
	r->pid = getpid();
}

/* "RINGFD:WAKEFD,..." -> attached rings; the fds are closed once mapped. */
static int attach_rings(const char *spec)
{
	struct hooks_root *r = &argus_hooks_root;
	const char *p = spec;
	while (*p && r->nrings < ARGUS_HOOK_MAX_RINGS) {
		char *end;
		long fd = strtol(p, &end, 10), wake = -1;
		if (end == p || fd < 0)
			return -EINVAL;
		p = end;
		if (*p == ':') {
			wake = strtol(p + 1, &end, 10);
			p = end;
		}
		struct argus_ring_producer *ring;
		int rc = argus_producer_attach(&ring, (int)fd);
		if (rc)
			return rc;
		if (wake >= 0) {
			argus_producer_set_wake_fd(ring, (int)wake);
			close((int)wake);
		}
		close((int)fd);
		r->rings[r->nrings++] = ring;
		if (*p == ',')
			p++;
		else if (*p)
			return -EINVAL;
	}
	return r->nrings ? 0 : -EINVAL;
}

__attribute__((constructor)) static void hooks_init(void)
{
	struct hooks_root *r = &argus_hooks_root;
	const char *rings = getenv(ARGUS_HOOK_ENV_RINGS);
	const char *sock = getenv(ARGUS_HOOK_ENV_SOCKET);
	const char *prune = getenv(ARGUS_HOOK_ENV_PRUNE);
	const char *flags = getenv(ARGUS_HOOK_ENV_FLAGS);
	r->pid = getpid();
	r->arena = argus_hook_arena_new();
	/* Pruning works without a consumer: it tests a hypothesis, not a trace. */
	if (prune)
		hooks_prune_init(prune);
	bool consumer = false;
	if (rings) {
		int rc = attach_rings(rings);
		if (rc)
			fprintf(stderr, "argus-hooks: %s=\"%s\": cannot attach: %s; not tracing\n",
			        ARGUS_HOOK_ENV_RINGS, rings, strerror(-rc));
		consumer = !rc;
	} else {
		/* The daemon: its hook socket exists while it runs (one access(2)
		 * at start; threads connect at their first record). */
		if (!sock)
			sock = ARGUS_HOOK_DEFAULT_SOCKET;
		if (*sock && strlen(sock) < sizeof(r->hook_socket) && access(sock, W_OK) == 0) {
			memcpy(r->hook_socket, sock, strlen(sock) + 1);
			consumer = true;
		}
	}
	if (consumer) {
		pthread_key_create(&ring_key, release_ring);
		pthread_atfork(NULL, NULL, after_fork_child);
		atomic_store(&r->active, true);
		hooks_landmark_init(getenv(ARGUS_HOOK_ENV_LANDMARK_NS));
		hooks_glib_init();
		hooks_gsignal_init();
		hooks_dbus_init();
		hooks_qt_init();
		if (flags)
			hooks_flags_init(flags);
	}
	unsetenv(ARGUS_HOOK_ENV_RINGS);
	unsetenv(ARGUS_HOOK_ENV_PRUNE);
	unsetenv(ARGUS_HOOK_ENV_FLAGS);
}
