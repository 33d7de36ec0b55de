/*
 * ring_producer.h - the producer side of argus's shared-memory rings, for
 * code that runs inside traced programs (hooks/, libargus-hooks.so). It
 * needs no libbpf: only concurrencykit's ck_ring (header code) and libc.
 * The consumer (daemon, `argus run`) creates the rings with ringbuf.h.
 * Stage order: includes only event/.
 */
#ifndef ARGUS_RING_PRODUCER_H
#define ARGUS_RING_PRODUCER_H

#include <stddef.h>
#include <stdint.h>

#include "argus_event.h"

struct argus_shm_hdr;

/* A mapped shared-memory ring, written by one thread at a time. */
struct argus_ring_producer {
	struct argus_shm_hdr *hdr;
	struct argus_event *slots;
	size_t map_len;
	int wake_fd; /* the consumer's eventfd (dup'ed, owned), or -1 */
};

/* Map the ring in fd (from the consumer) and check its header: the file
 * comes from another process, nothing in it is trusted. The fd may be
 * closed afterwards. -EPROTO: not an argus ring of this version. */
int argus_producer_attach(struct argus_ring_producer **p, int fd);
/* The consumer's wake-up eventfd (argus_ring_wait_fd of the creating
 * side); dup'ed. Without it the consumer finds records on its periodic
 * drain. */
int argus_producer_set_wake_fd(struct argus_ring_producer *p, int fd);
/*
 * Ask the daemon's hook socket (path, e.g. /run/argus-hooks/hooks.sock)
 * for a ring. *sock_out must stay open as long as the ring is used:
 * closing it (or exiting) hands the ring back. *id, if not NULL, is the
 * source id the daemon reports it as. -ECONNREFUSED when the daemon has no
 * ring to give.
 */
int argus_producer_connect(const char *path, struct argus_ring_producer **p, int *sock_out,
                           unsigned *id);
/* 1 written, 0 full (a drop counted in the ring). */
int argus_producer_write(struct argus_ring_producer *p, const struct argus_event *ev);
void argus_producer_close(struct argus_ring_producer *p);
/* What the consumer asks of the producer, a word in the ring's header the
 * consumer writes (argus_ring_set_asks): */
#define ARGUS_RING_ASK_LANDMARKS 1u /* every toolkit landmark, however short */
/* What the consumer asks now (one load). */
uint32_t argus_producer_asks(const struct argus_ring_producer *p);

/* The same, on a producer the caller holds (the consumer library embeds
 * one): map and check fd; unmap and close what it holds. */
int argus_producer_init(struct argus_ring_producer *p, int fd);
void argus_producer_fini(struct argus_ring_producer *p);

#endif /* ARGUS_RING_PRODUCER_H */
