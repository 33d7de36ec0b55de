/*
 * hashmap.h - the one hash table of argus: a u64 key -> a fixed-size value
 * (a u64 by default, or any struct up to a few cache lines) stored inline.
 * Open addressing, linear probing, load <= 1/2, backward-shift deletion (no
 * tombstones), single writer. Every key is valid: key 0 lives in a side slot.
 *
 * Why not concurrencykit's ck_ht / ck_hs: the callers are single-threaded
 * (the graph's tables are writer-private) and want their record inline (the
 * graph's matching entries are 40 bytes, the trace writer's 16); ck_ht holds
 * one u64 per key (so a pointer to a second allocation), reserves two keys,
 * pays SPMC fences on every put, and measured slower. ns per op, median of
 * 3, u64 -> u64, random keys, gets 50 % hits, puts include growth from 64,
 * clang -O2, shared 2-core host:
 *   10 K keys: get 9.8 vs ck_ht 55, put 156 vs 204, del 29 vs 41
 *   1 M keys:  get 61 vs ck_ht 229, put 252 vs 479, del 202 vs 295
 *
 * A zeroed struct is an empty u64 -> u64 map; argus_hmap_init picks another
 * value size and the first capacity.
 */
#ifndef ARGUS_HASHMAP_H
#define ARGUS_HASHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct argus_hmap {
	unsigned char *slots; /* cap + 1 slots of 8 key bytes + the value; slot cap: key 0 */
	size_t cap, len;      /* cap: 0 or a power of two; len: keys, 0 included */
	uint32_t vsize;       /* value bytes, 0 = 8 */
	uint32_t min_cap;     /* first capacity, 0 = 64 */
	uint8_t shift;        /* 64 - log2(cap) */
	bool has_zero;        /* key 0 is in slot cap */
};

/* Empty map of values of vsize bytes (8-byte aligned); first allocation
 * holds min_cap slots (rounded up to a power of two). */
void argus_hmap_init(struct argus_hmap *m, size_t vsize, size_t min_cap);
void argus_hmap_free(struct argus_hmap *m);

/* The value of key, or NULL. Valid until the next put or del. */
static inline void *argus_hmap_get(const struct argus_hmap *m, uint64_t key);
/* The value of key, inserted zeroed (*fresh = true) when absent; NULL when
 * out of memory. fresh may be NULL. */
void *argus_hmap_put(struct argus_hmap *m, uint64_t key, bool *fresh);
/* Remove key; false when it was absent. */
bool argus_hmap_del(struct argus_hmap *m, uint64_t key);
/* Give back the room of deleted keys: when less than a sixteenth of the
 * slots are in use, move the keys into a table a quarter full at most (its
 * first capacity at least; none when empty). The table never shrinks by
 * itself. True when it shrank; values move (pointers to them go stale). */
bool argus_hmap_shrink(struct argus_hmap *m);
/* True when putting a new key would grow the table (to twice its slots,
 * allocated while the old ones are still there). */
static inline bool argus_hmap_full(const struct argus_hmap *m)
{
	return (m->len + 1) * 2 > m->cap;
}
/* Iterate: start with *pos = 0; each call returns the next value (its key in
 * *key when key is not NULL) or NULL at the end. After deleting the key just
 * returned, step back (*pos -= 1): another entry may have moved into its slot
 * (one that wrapped around the end may then be returned twice). */
void *argus_hmap_next(const struct argus_hmap *m, size_t *pos, uint64_t *key);
/* Bytes allocated for the slots. */
static inline size_t argus_hmap_bytes(const struct argus_hmap *m);

/* Tables keyed by a hash of content (interning): the value among keys h,
 * h + 1, ... (a hash collision takes the next free key) that same() accepts,
 * or NULL with *free_key the key a new content of hash h is to take. */
void *argus_hmap_find_by(const struct argus_hmap *m, uint64_t h,
                         bool (*same)(const void *val, void *arg), void *arg, uint64_t *free_key);

/* u64 -> u64 helpers over a map of 8-byte values. */
static inline bool argus_hmap_set_u64(struct argus_hmap *m, uint64_t key, uint64_t val)
{
	uint64_t *v = argus_hmap_put(m, key, NULL);
	if (!v)
		return false;
	*v = val;
	return true;
}

/* ---- inline: lookups are on the hot paths ---- */

static inline size_t argus_hmap_stride_(const struct argus_hmap *m)
{
	return 8 + (m->vsize ? (m->vsize + 7u) & ~(size_t)7 : 8);
}

/* Fibonacci hashing: the top bits of key * 2^64/phi depend on every key
 * bit, so ids, pointers and pre-hashed keys all spread. */
static inline size_t argus_hmap_home_(const struct argus_hmap *m, uint64_t key)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> m->shift);
}

static inline size_t argus_hmap_bytes(const struct argus_hmap *m)
{
	return m->cap ? (m->cap + 1) * argus_hmap_stride_(m) : 0;
}

static inline void *argus_hmap_get(const struct argus_hmap *m, uint64_t key)
{
	if (!key)
		return m->has_zero ? m->slots + m->cap * argus_hmap_stride_(m) + 8 : NULL;
	if (!m->cap)
		return NULL;
	size_t st = argus_hmap_stride_(m), mask = m->cap - 1;
	for (size_t i = argus_hmap_home_(m, key);; i = (i + 1) & mask) {
		unsigned char *s = m->slots + i * st;
		uint64_t k;
		memcpy(&k, s, sizeof(k));
		if (k == key)
			return s + 8;
		if (!k)
			return NULL;
	}
}

#endif /* ARGUS_HASHMAP_H */
