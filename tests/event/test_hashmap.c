/* The one hash table (event/hashmap.h). */
#include <stdbool.h>
#include <stdint.h>

#include "hashmap.h"
#include "test.h"

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static uint64_t get_u64(const struct argus_hmap *m, uint64_t key, bool *found)
{
	const uint64_t *v = argus_hmap_get(m, key);
	*found = v != NULL;
	return v ? *v : 0;
}

TEST(insert_get_overwrite_delete)
{
	struct argus_hmap m = {0}; /* zeroed: u64 -> u64 */
	bool found, fresh;
	ASSERT(argus_hmap_get(&m, 7) == NULL);
	ASSERT(!argus_hmap_del(&m, 7));
	ASSERT(argus_hmap_set_u64(&m, 7, 70));
	ASSERT(argus_hmap_set_u64(&m, 8, 80));
	ASSERT_U64_EQ(get_u64(&m, 7, &found), 70);
	ASSERT(found);
	ASSERT_EQ(m.len, 2);
	ASSERT(argus_hmap_set_u64(&m, 7, 71)); /* overwrite */
	ASSERT_U64_EQ(get_u64(&m, 7, &found), 71);
	ASSERT_EQ(m.len, 2);
	uint64_t *v = argus_hmap_put(&m, 8, &fresh);
	ASSERT(v && !fresh && *v == 80);
	v = argus_hmap_put(&m, 9, &fresh);
	ASSERT(v && fresh && *v == 0);
	ASSERT(argus_hmap_del(&m, 7));
	ASSERT(!argus_hmap_del(&m, 7));
	ASSERT(argus_hmap_get(&m, 7) == NULL);
	ASSERT_U64_EQ(get_u64(&m, 8, &found), 80);
	ASSERT_EQ(m.len, 2);
	argus_hmap_free(&m);
	ASSERT(argus_hmap_get(&m, 8) == NULL);
	ASSERT_EQ(argus_hmap_bytes(&m), 0);
}

/* 0 is the empty marker inside, ~0 is ck_ht's tombstone: both are keys. */
TEST(reserved_keys)
{
	struct argus_hmap m = {0};
	bool found;
	ASSERT(argus_hmap_get(&m, 0) == NULL);
	ASSERT(argus_hmap_set_u64(&m, 0, 100));
	ASSERT(argus_hmap_set_u64(&m, UINT64_MAX, 200));
	ASSERT_U64_EQ(get_u64(&m, 0, &found), 100);
	ASSERT(found);
	ASSERT_U64_EQ(get_u64(&m, UINT64_MAX, &found), 200);
	for (uint64_t k = 1; k < 1000; k++) /* grows with key 0 inside */
		ASSERT(argus_hmap_set_u64(&m, k, k));
	ASSERT_U64_EQ(get_u64(&m, 0, &found), 100);
	ASSERT(found);
	size_t pos = 0, n = 0;
	uint64_t key;
	bool saw_zero = false;
	while (argus_hmap_next(&m, &pos, &key)) {
		saw_zero |= key == 0;
		n++;
	}
	ASSERT(saw_zero);
	ASSERT_EQ(n, 1001); /* 999 + ~0 + 0 */
	ASSERT_EQ(m.len, 1001);
	ASSERT(argus_hmap_del(&m, 0));
	ASSERT(argus_hmap_get(&m, 0) == NULL);
	ASSERT(!argus_hmap_del(&m, 0));
	ASSERT_U64_EQ(get_u64(&m, UINT64_MAX, &found), 200);
	argus_hmap_free(&m);
}

TEST(growth_keeps_entries_and_counts_bytes)
{
	struct argus_hmap m;
	argus_hmap_init(&m, 40, 64); /* a 40-byte record, like the graph's */
	ASSERT_EQ(argus_hmap_bytes(&m), 0);
	uint64_t s = 1;
	size_t last = 0;
	for (uint64_t i = 0; i < 100000; i++) {
		uint64_t *v = argus_hmap_put(&m, xorshift(&s), NULL);
		ASSERT(v);
		v[0] = i;
		v[4] = ~i; /* the last word of the record */
		size_t b = argus_hmap_bytes(&m);
		ASSERT(b >= last);
		last = b;
	}
	ASSERT_EQ(m.len, 100000);
	ASSERT(m.len * 2 <= m.cap);
	ASSERT_EQ(argus_hmap_bytes(&m), (m.cap + 1) * 48);
	s = 1;
	for (uint64_t i = 0; i < 100000; i++) {
		uint64_t *v = argus_hmap_get(&m, xorshift(&s));
		ASSERT(v && v[0] == i && v[4] == ~i);
	}
	argus_hmap_free(&m);
}

/* Mirrors hashmap.c's home slot, to build keys that all want one slot. */
static size_t home_of(uint64_t key, size_t cap)
{
	int bits = 0;
	while ((1ull << bits) < cap)
		bits++;
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> (64 - bits));
}

TEST(many_collisions_wrap_and_delete)
{
	struct argus_hmap m;
	argus_hmap_init(&m, 8, 1024);
	uint64_t keys[300];
	size_t n = 0;
	/* all home at slot 1020: the run wraps past the end of the table */
	for (uint64_t k = 1; n < 300; k++)
		if (home_of(k, 1024) == 1020)
			keys[n++] = k;
	for (size_t i = 0; i < n; i++)
		ASSERT(argus_hmap_set_u64(&m, keys[i], i));
	ASSERT_EQ(m.cap, 1024); /* no growth: the collisions are real */
	for (size_t i = 0; i < n; i += 3)
		ASSERT(argus_hmap_del(&m, keys[i]));
	for (size_t i = 0; i < n; i++) {
		bool found;
		uint64_t v = get_u64(&m, keys[i], &found);
		ASSERT_MSG(found == (i % 3 != 0), "key %zu found %d", i, found);
		if (found)
			ASSERT_U64_EQ(v, i);
	}
	ASSERT_EQ(m.len, 200);
	argus_hmap_free(&m);
}

TEST(delete_while_iterating)
{
	struct argus_hmap m = {0};
	for (uint64_t k = 0; k < 5000; k++)
		ASSERT(argus_hmap_set_u64(&m, k * 7919, k));
	size_t pos = 0;
	uint64_t key, *v;
	while ((v = argus_hmap_next(&m, &pos, &key))) {
		if (*v % 2 == 0) {
			ASSERT(argus_hmap_del(&m, key));
			pos--;
		}
	}
	ASSERT_EQ(m.len, 2500);
	for (uint64_t k = 0; k < 5000; k++)
		ASSERT((argus_hmap_get(&m, k * 7919) != NULL) == (k % 2 == 1));
	argus_hmap_free(&m);
}

/* Key i of the model: 0, ~0, small ids and ids that differ in high bits. */
static uint64_t model_key(size_t i, size_t k)
{
	return i == k - 1 ? UINT64_MAX : i % 2 ? (uint64_t)i << 40 : (uint64_t)i;
}

/* Random puts and deletes over a small key space against a plain array. */
TEST(matches_a_reference_model)
{
	enum { K = 512 };
	static uint64_t ref[K];
	static bool in[K];
	struct argus_hmap m = {0};
	uint64_t s = 12345;
	size_t n = 0;
	for (int op = 0; op < 200000; op++) {
		uint64_t r = xorshift(&s);
		size_t i = (size_t)(r % K);
		uint64_t key = model_key(i, K);
		if (r >> 62 == 0) { /* a quarter deletes */
			ASSERT(argus_hmap_del(&m, key) == in[i]);
			n -= in[i];
			in[i] = false;
		} else {
			ASSERT(argus_hmap_set_u64(&m, key, r));
			n += !in[i];
			in[i] = true;
			ref[i] = r;
		}
		if (op % 997)
			continue;
		ASSERT_EQ(m.len, n);
		for (size_t j = 0; j < K; j++) {
			bool found;
			uint64_t v = get_u64(&m, model_key(j, K), &found);
			ASSERT_MSG(found == in[j], "op %d key %zu", op, j);
			ASSERT(!found || v == ref[j]);
		}
	}
	argus_hmap_free(&m);
}

struct content {
	const char *const *strings;
	const char *want;
};

static bool same_string(const void *val, void *arg)
{
	const struct content *c = arg;
	return strcmp(c->strings[*(const uint64_t *)val], c->want) == 0;
}

/* Interning by a content hash: colliding contents take the next keys. */
TEST(find_by_content_with_hash_collisions)
{
	static const char *const strings[] = {"a", "b", "c", "d"};
	struct argus_hmap m = {0};
	uint64_t key;
	for (uint64_t i = 0; i < 4; i++) { /* all four hash to 41 */
		struct content c = {strings, strings[i]};
		ASSERT(argus_hmap_find_by(&m, 41, same_string, &c, &key) == NULL);
		ASSERT_U64_EQ(key, 41 + i);
		ASSERT(argus_hmap_set_u64(&m, key, i));
	}
	for (uint64_t i = 0; i < 4; i++) {
		struct content c = {strings, strings[i]};
		const uint64_t *v = argus_hmap_find_by(&m, 41, same_string, &c, &key);
		ASSERT(v && *v == i);
	}
	argus_hmap_free(&m);
}

TEST(shrink_gives_back_the_room_of_deleted_keys)
{
	struct argus_hmap m;
	argus_hmap_init(&m, 40, 64);
	uint64_t s = 7;
	for (uint64_t i = 0; i < 100000; i++) {
		uint64_t *v = argus_hmap_put(&m, xorshift(&s), NULL);
		ASSERT(v);
		v[0] = i;
	}
	ASSERT(argus_hmap_put(&m, 0, NULL)); /* key 0 moves too */
	size_t big = argus_hmap_bytes(&m);
	ASSERT(!argus_hmap_shrink(&m)); /* full enough: kept */
	s = 7;
	for (uint64_t i = 0; i < 100000; i++) { /* keep every 64th key */
		uint64_t k = xorshift(&s);
		if (i % 64)
			ASSERT(argus_hmap_del(&m, k));
	}
	ASSERT_EQ(argus_hmap_bytes(&m), big); /* deleting alone gives nothing back */
	ASSERT(argus_hmap_shrink(&m));
	ASSERT(argus_hmap_bytes(&m) * 16 <= big);
	ASSERT_EQ(m.len, 100000 / 64 + 1 + 1);
	ASSERT(m.len * 4 <= m.cap);
	s = 7;
	for (uint64_t i = 0; i < 100000; i++) {
		uint64_t k = xorshift(&s);
		uint64_t *v = argus_hmap_get(&m, k);
		if (i % 64)
			ASSERT(!v);
		else
			ASSERT(v && v[0] == i);
	}
	ASSERT(argus_hmap_get(&m, 0));
	ASSERT(argus_hmap_put(&m, 12345, NULL)); /* and it still grows */
	size_t pos = 0, n = 0;
	while (argus_hmap_next(&m, &pos, NULL))
		n++;
	ASSERT_EQ(n, m.len);
	argus_hmap_free(&m);
	argus_hmap_init(&m, 8, 64); /* an emptied table holds nothing */
	ASSERT(argus_hmap_put(&m, 5, NULL));
	ASSERT(argus_hmap_del(&m, 5));
	ASSERT(argus_hmap_shrink(&m));
	ASSERT_EQ(argus_hmap_bytes(&m), 0);
	ASSERT(!argus_hmap_get(&m, 5));
	ASSERT(argus_hmap_put(&m, 6, NULL));
	argus_hmap_free(&m);
}

TEST_MAIN(TEST_ENTRY(insert_get_overwrite_delete), TEST_ENTRY(reserved_keys),
          TEST_ENTRY(growth_keeps_entries_and_counts_bytes),
          TEST_ENTRY(many_collisions_wrap_and_delete), TEST_ENTRY(delete_while_iterating),
          TEST_ENTRY(matches_a_reference_model), TEST_ENTRY(find_by_content_with_hash_collisions),
          TEST_ENTRY(shrink_gives_back_the_room_of_deleted_keys))
