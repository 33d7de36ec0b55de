/*
 * shm_ring.h - the layout of a shared-memory ring (docs/daemon.md), shared
 * by its producer (ring_producer.c) and consumer (ringbuf.c); internal to
 * ringbuf/. One page-aligned header, then `capacity` slots of struct
 * argus_event. The ck_ring indices live in the header; they are plain
 * integers, so the mapping may sit at any address.
 */
#ifndef ARGUS_SHM_RING_H
#define ARGUS_SHM_RING_H

#include <stdatomic.h>
#include <stdint.h>

#include <ck_ring.h>

#include "ring_producer.h"

/*
 * ThreadSanitizer does not see ck_pr's inline-assembly loads and stores, so
 * it cannot see the ordering ck_ring provides and would report the slot
 * copies as races. Under TSan the ck calls are excluded from race checking;
 * the ring's own correctness is concurrencykit's.
 */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define ARGUS_TSAN_BUILD 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define ARGUS_TSAN_BUILD 1
#endif
#ifdef ARGUS_TSAN_BUILD
void AnnotateIgnoreReadsBegin(const char *f, int l);
void AnnotateIgnoreReadsEnd(const char *f, int l);
void AnnotateIgnoreWritesBegin(const char *f, int l);
void AnnotateIgnoreWritesEnd(const char *f, int l);
#define CK_UNCHECKED_BEGIN()                                                                       \
	do {                                                                                       \
		AnnotateIgnoreReadsBegin(__FILE__, __LINE__);                                      \
		AnnotateIgnoreWritesBegin(__FILE__, __LINE__);                                     \
	} while (0)
#define CK_UNCHECKED_END()                                                                         \
	do {                                                                                       \
		AnnotateIgnoreWritesEnd(__FILE__, __LINE__);                                       \
		AnnotateIgnoreReadsEnd(__FILE__, __LINE__);                                        \
	} while (0)
#else
#define CK_UNCHECKED_BEGIN() ((void)0)
#define CK_UNCHECKED_END()   ((void)0)
#endif

CK_RING_PROTOTYPE(argus_event, argus_event)

#define SHM_MAGIC        0x474e495253555241ull /* "ARGUSRNG" */
#define SHM_VERSION      1
#define SHM_HDR_SIZE     4096
#define SHM_MAX_CAPACITY (1u << 24)

/* The header at the start of a shared-memory ring. */
struct argus_shm_hdr {
	uint64_t magic;
	uint32_t version;
	uint32_t record_size;
	uint32_t capacity; /* slots, a power of two; ck_ring holds capacity - 1 */
	/* what the consumer asks of the producer (ARGUS_RING_ASK_* bits, the
	 * consumer's to write; a producer reads it as a hint): 0 = nothing */
	_Atomic uint32_t asks;
	_Atomic uint64_t drops; /* written by the producer only */
	_Atomic uint64_t written;
	struct ck_ring ring __attribute__((aligned(64)));
};
_Static_assert(sizeof(struct argus_shm_hdr) <= SHM_HDR_SIZE, "shm header fits its page");

/* Map len bytes of fd into p (no checks: the creator's side). */
int argus_shm_map(struct argus_ring_producer *p, int fd, size_t len);

#endif /* ARGUS_SHM_RING_H */
