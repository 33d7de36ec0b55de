/*
 * idmap.h - a small open-addressing map from a 64-bit id (tid, pid, socket
 * address) to a 32-bit index, for the trigger's and diagnosis' tables.
 * Key 0 is never stored (0 = empty slot).
 */
#ifndef ARGUS_IDMAP_H
#define ARGUS_IDMAP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

struct idmap {
	uint64_t *keys;
	uint32_t *vals;
	uint32_t cap, n; /* cap: power of two */
};

static inline uint32_t idmap_hash(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (uint32_t)k;
}

static inline void idmap_free(struct idmap *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = NULL;
	m->vals = NULL;
	m->cap = m->n = 0;
}

/* Pointer to the value of key, or NULL. */
static inline uint32_t *idmap_get(const struct idmap *m, uint64_t key)
{
	if (!m->cap || !key)
		return NULL;
	for (uint32_t i = idmap_hash(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key)
			return &m->vals[i];
		if (!m->keys[i])
			return NULL;
	}
}

/* Insert or overwrite; false when out of memory (or key 0). */
static inline bool idmap_put(struct idmap *m, uint64_t key, uint32_t val)
{
	if (!key)
		return false;
	if ((m->n + 1) * 2 > m->cap) {
		uint32_t ncap = m->cap ? m->cap * 2 : 64;
		uint64_t *k = calloc(ncap, sizeof(*k));
		uint32_t *v = calloc(ncap, sizeof(*v));
		if (!k || !v) {
			free(k);
			free(v);
			return false;
		}
		for (uint32_t i = 0; i < m->cap; i++) {
			if (!m->keys[i])
				continue;
			uint32_t j = idmap_hash(m->keys[i]) & (ncap - 1);
			while (k[j])
				j = (j + 1) & (ncap - 1);
			k[j] = m->keys[i];
			v[j] = m->vals[i];
		}
		free(m->keys);
		free(m->vals);
		m->keys = k;
		m->vals = v;
		m->cap = ncap;
	}
	uint32_t i = idmap_hash(key) & (m->cap - 1);
	while (m->keys[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	if (!m->keys[i])
		m->n++;
	m->keys[i] = key;
	m->vals[i] = val;
	return true;
}

#endif /* ARGUS_IDMAP_H */
