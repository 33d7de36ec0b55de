/*
 * ringbuf.h - sources of argus records, behind one interface:
 *  - the kernel's per-CPU BPF ring buffers (kext/ fills them), and
 *  - single-producer lock-free rings in shared memory (concurrencykit ck_ring)
 *    that in-process hooks (hooks/) write without a syscall.
 * Rings are bounded: a full ring drops at the producer and counts the loss;
 * argus_ring_drops() reports it so the stream can emit ARGUS_EV_DROP records.
 * Stage order: includes only event/ (and is used by stream/ and later stages).
 */
#ifndef ARGUS_RINGBUF_H
#define ARGUS_RINGBUF_H

#include <stddef.h>
#include <stdint.h>

#include "argus_event.h"

struct argus_ring;

/* Reports the producer-side loss count of a kernel ring (kext keeps it). */
typedef uint64_t (*argus_ring_drops_fn)(void *arg, unsigned cpu);

/* Wrap the BPF_MAP_TYPE_RINGBUF map fd that CPU `cpu` writes. */
int argus_ring_open_bpf(struct argus_ring **r, int map_fd, unsigned cpu, argus_ring_drops_fn drops,
                        void *drops_arg);

/*
 * Shared-memory ring for hooks. The consumer (daemon) creates it;
 * a producer maps the same fd. capacity = records, a power of two.
 */
int argus_ring_create_shm(struct argus_ring **r, unsigned capacity, int *fd_out);
int argus_ring_attach_shm(struct argus_ring **r, int fd);
/* Producer side: the consumer's wake-up eventfd (argus_ring_wait_fd of the
 * creating side, passed along with the ring fd); dup'ed. Without it the
 * consumer finds records on its periodic drain. */
int argus_ring_set_wake_fd(struct argus_ring *r, int fd);
/*
 * Producer side, from a hooked process: ask the daemon's hook socket (path,
 * e.g. /run/argus-hooks/hooks.sock) for a ring. *sock_out must stay open as
 * long as the ring is used: closing it (or exiting) hands the ring back.
 * -ECONNREFUSED when the daemon has no ring to give.
 */
int argus_ring_connect(const char *path, struct argus_ring **r, int *sock_out);
/* Producer side of a shm ring: false (and a counted drop) when full. */
int argus_ring_write(struct argus_ring *r, const struct argus_event *ev);

/* Consumer: copy up to max records into out; returns the count, 0 when empty.
 * Never blocks. Records of one ring come out in the order produced. */
size_t argus_ring_read(struct argus_ring *r, struct argus_event *out, size_t max);

/* A file descriptor that turns readable when the producer wakes the reader
 * (kernel rings: past the fill threshold; shm rings: an eventfd). -1 = poll. */
int argus_ring_wait_fd(const struct argus_ring *r);

/* Records lost at the producer since start. */
uint64_t argus_ring_drops(const struct argus_ring *r);
/* Bytes in use / capacity, for `argus status` ring fill. */
void argus_ring_fill(const struct argus_ring *r, uint64_t *used, uint64_t *size);
unsigned argus_ring_cpu(const struct argus_ring *r);
/* Which source id a shm ring reports as (default 0). */
void argus_ring_set_cpu(struct argus_ring *r, unsigned cpu);
/* Ring entries skipped because their size was not 1 to ARGUS_RING_ENTRY_MAX
 * times sizeof(struct argus_event). */
uint64_t argus_ring_malformed(const struct argus_ring *r);

/* What the consumer asks of a shared-memory ring's producer, in the ring's
 * header (ARGUS_RING_ASK_* of ring_producer.h; docs/daemon.md "Rings"):
 * the hooks read it (docs/hooks.md). No effect on a kernel ring. */
void argus_ring_set_asks(struct argus_ring *r, uint32_t asks);

void argus_ring_close(struct argus_ring *r);

#endif /* ARGUS_RINGBUF_H */
