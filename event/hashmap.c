/*
 * hashmap.c - the one hash table (hashmap.h says why not ck_ht).
 * Slot: the key (0 = empty) then the value, stride a multiple of 8.
 */
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"

static size_t stride(const struct argus_hmap *m)
{
	return argus_hmap_stride_(m);
}

static size_t vbytes(const struct argus_hmap *m)
{
	return stride(m) - 8;
}

static unsigned char *slot(const struct argus_hmap *m, size_t i)
{
	return m->slots + i * stride(m);
}

static uint64_t key_at(const struct argus_hmap *m, size_t i)
{
	uint64_t k;
	memcpy(&k, slot(m, i), sizeof(k));
	return k;
}

static size_t home(const struct argus_hmap *m, uint64_t key)
{
	return argus_hmap_home_(m, key);
}

void argus_hmap_init(struct argus_hmap *m, size_t vsize, size_t min_cap)
{
	size_t c = 2;
	while (c < min_cap)
		c *= 2;
	*m = (struct argus_hmap){.vsize = (uint32_t)vsize, .min_cap = (uint32_t)c};
}

void argus_hmap_free(struct argus_hmap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->len = 0;
	m->has_zero = false;
}

/* Every entry moved into a table of cap slots (a power of two). */
static bool rehash(struct argus_hmap *m, size_t cap)
{
	size_t st = stride(m);
	unsigned char *n = calloc(cap + 1, st);
	if (!n)
		return false;
	struct argus_hmap old = *m;
	m->slots = n;
	m->cap = cap;
	m->shift = 64;
	for (size_t c = cap; c > 1; c /= 2)
		m->shift--;
	for (size_t i = 0; i < old.cap; i++) {
		uint64_t k = key_at(&old, i);
		if (!k)
			continue;
		size_t j = home(m, k);
		while (key_at(m, j))
			j = (j + 1) & (cap - 1);
		memcpy(slot(m, j), slot(&old, i), st);
	}
	if (old.has_zero)
		memcpy(slot(m, cap), slot(&old, old.cap), st);
	free(old.slots);
	return true;
}

static bool grow(struct argus_hmap *m)
{
	return rehash(m, m->cap ? m->cap * 2 : (m->min_cap ? m->min_cap : 64));
}

bool argus_hmap_shrink(struct argus_hmap *m)
{
	if (!m->len) {
		argus_hmap_free(m);
		return true;
	}
	size_t cap = m->min_cap ? m->min_cap : 64;
	while (cap < 4 * m->len)
		cap *= 2;
	if (cap * 4 > m->cap)
		return false; /* not worth it: at least a quarter is in use */
	return rehash(m, cap);
}

void *argus_hmap_put(struct argus_hmap *m, uint64_t key, bool *fresh)
{
	bool dummy;
	if (!fresh)
		fresh = &dummy;
	*fresh = false;
	if (!m->cap && !grow(m))
		return NULL;
	if (!key) {
		unsigned char *s = slot(m, m->cap);
		if (!m->has_zero) {
			memset(s, 0, stride(m));
			m->has_zero = true;
			m->len++;
			*fresh = true;
		}
		return s + 8;
	}
	unsigned char *v = argus_hmap_get(m, key);
	if (v)
		return v;
	if ((m->len + 1) * 2 > m->cap && !grow(m))
		return NULL;
	size_t i = home(m, key);
	while (key_at(m, i))
		i = (i + 1) & (m->cap - 1);
	unsigned char *s = slot(m, i);
	memcpy(s, &key, sizeof(key));
	memset(s + 8, 0, vbytes(m));
	m->len++;
	*fresh = true;
	return s + 8;
}

bool argus_hmap_del(struct argus_hmap *m, uint64_t key)
{
	if (!key) {
		bool had = m->has_zero;
		m->has_zero = false;
		m->len -= had;
		return had;
	}
	unsigned char *v = argus_hmap_get(m, key);
	if (!v)
		return false;
	size_t st = stride(m), mask = m->cap - 1;
	size_t i = (size_t)(v - 8 - m->slots) / st;
	for (size_t j = (i + 1) & mask;; j = (j + 1) & mask) {
		uint64_t k = key_at(m, j);
		if (!k)
			break;
		/* move slot j into the hole at i unless its home lies in (i, j] */
		if (((j - home(m, k)) & mask) >= ((j - i) & mask)) {
			memcpy(slot(m, i), slot(m, j), st);
			i = j;
		}
	}
	memset(slot(m, i), 0, sizeof(uint64_t));
	m->len--;
	return true;
}

void *argus_hmap_next(const struct argus_hmap *m, size_t *pos, uint64_t *key)
{
	for (; *pos < m->cap; (*pos)++) {
		uint64_t k = key_at(m, *pos);
		if (k) {
			if (key)
				*key = k;
			return slot(m, (*pos)++) + 8;
		}
	}
	if (*pos == m->cap && m->has_zero) {
		if (key)
			*key = 0;
		return slot(m, (*pos)++) + 8;
	}
	return NULL;
}

void *argus_hmap_find_by(const struct argus_hmap *m, uint64_t h,
                         bool (*same)(const void *val, void *arg), void *arg, uint64_t *free_key)
{
	for (;; h++) {
		void *v = argus_hmap_get(m, h);
		if (!v) {
			*free_key = h;
			return NULL;
		}
		if (same(v, arg))
			return v;
	}
}
