/*
 * idmap.h - a 64-bit id (tid, pid, socket address, hash) -> 32-bit index
 * map for the trigger's and diagnosis' tables: a thin typed face of the one
 * hash table (event/hashmap.h). Key 0 is never stored. A zeroed struct is
 * an empty map.
 */
#ifndef ARGUS_IDMAP_H
#define ARGUS_IDMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "hashmap.h"

struct idmap {
	struct argus_hmap h; /* 8-byte values, used through a uint32_t * */
};

static inline void idmap_free(struct idmap *m)
{
	argus_hmap_free(&m->h);
}

/* Pointer to the value of key, or NULL. */
static inline uint32_t *idmap_get(const struct idmap *m, uint64_t key)
{
	return key ? argus_hmap_get(&m->h, key) : NULL;
}

/* Insert or overwrite; false when out of memory (or key 0). */
static inline bool idmap_put(struct idmap *m, uint64_t key, uint32_t val)
{
	uint32_t *v = key ? argus_hmap_put(&m->h, key, NULL) : NULL;
	if (v)
		*v = val;
	return v != NULL;
}

/* Remove key; false when it was not there. */
static inline bool idmap_del(struct idmap *m, uint64_t key)
{
	return key && argus_hmap_del(&m->h, key);
}

#endif /* ARGUS_IDMAP_H */
