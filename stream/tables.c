/*
 * tables.c - the daemon's string and stack tables: ids handed to sources
 * (kext decode) and resolved for JSON clients and the flight recorder.
 * Ids are dense from 1 in first-interned order, so replaying the table into
 * a fresh trace writer (which numbers the same way) reproduces every id.
 */
#include <stdlib.h>
#include <string.h>

#include "stream_priv.h"

#define TAB_MAX_ENTRIES (1u << 22)

static uint64_t hash_bytes(const void *p, size_t n, uint64_t tag)
{
	const unsigned char *b = p;
	uint64_t h = 0xcbf29ce484222325ull ^ tag;
	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

struct probe {
	const struct tab *t;
	const void *data;
	size_t len;
	uint32_t depth;
	uint64_t hash;
};

static bool same_entry(const void *val, void *arg)
{
	const struct probe *p = arg;
	const struct tab_entry *e = &p->t->ent[*(const uint64_t *)val - 1];
	return e->hash == p->hash && e->len == p->len && e->depth == p->depth &&
	       !memcmp(e->data, p->data, p->len);
}

/* Intern len bytes (a string, or depth * 8 bytes of ips); 0 on failure. */
static uint32_t tab_intern(struct tab *t, const void *data, size_t len, uint32_t depth)
{
	struct probe p = {t, data, len, depth, hash_bytes(data, len, depth)};
	uint64_t key;
	const uint64_t *id = argus_hmap_find_by(&t->index, p.hash, same_entry, &p, &key);
	if (id)
		return (uint32_t)*id;
	if (t->n >= TAB_MAX_ENTRIES) {
		t->refused++;
		return 0;
	}
	if (t->n == t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 256;
		struct tab_entry *ne = realloc(t->ent, ncap * sizeof(*ne));
		if (!ne)
			return 0;
		t->ent = ne;
		t->cap = ncap;
	}
	char *copy = malloc(len + 1);
	if (!copy)
		return 0;
	memcpy(copy, data, len);
	copy[len] = '\0';
	if (!argus_hmap_set_u64(&t->index, key, t->n + 1)) {
		free(copy);
		return 0;
	}
	t->ent[t->n] = (struct tab_entry){.data = copy, .len = len, .depth = depth, .hash = p.hash};
	t->bytes += len + sizeof(struct tab_entry);
	return (uint32_t)++t->n;
}

uint32_t tab_string(struct tab *t, const char *s, size_t len)
{
	return tab_intern(t, s, len, 0);
}

uint32_t tab_stack(struct tab *t, const uint64_t *ips, uint32_t depth)
{
	if (depth > ARGUS_STACK_MAX_DEPTH)
		depth = ARGUS_STACK_MAX_DEPTH;
	return tab_intern(t, ips, (size_t)depth * sizeof(uint64_t), depth);
}

const struct tab_entry *tab_get(const struct tab *t, uint32_t id)
{
	return id && id <= t->n ? &t->ent[id - 1] : NULL;
}

void tab_free(struct tab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->ent[i].data);
	free(t->ent);
	argus_hmap_free(&t->index);
	memset(t, 0, sizeof(*t));
}
