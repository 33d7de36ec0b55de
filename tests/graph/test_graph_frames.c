/*
 * test_graph_frames.c - frame frequencies and shared frames (docs/graph.md,
 * the adjacent rule): a stack's repeated frames count once, and which
 * stacks share a frame - and whether a shared one is low-frequency - is
 * what comparing every pair of frames gives, for stacks up to the full
 * depth.
 */
#include <stdlib.h>

#include "graph_internal.h"
#include "test.h"

static uint32_t count_of(struct argus_graph *g, uint64_t ip)
{
	const uint32_t *c = argus_hmap_get(&g->frames, ip);
	return c ? *c : 0;
}

static struct argus_graph *fresh(void)
{
	struct argus_graph *g = NULL;
	ASSERT(argus_graph_new(&g, NULL) == 0 && g);
	return g;
}

TEST(repeated_frames_of_a_stack_count_once)
{
	struct argus_graph *g = fresh();
	uint64_t ips[ARGUS_STACK_MAX_DEPTH];
	for (uint32_t i = 0; i < ARGUS_STACK_MAX_DEPTH; i++)
		ips[i] = 0x1000 + 16 * (i % 40); /* recursion: each frame about 3 times */
	argus_graph_add_stack(g, 1, ips, ARGUS_STACK_MAX_DEPTH);
	gframes_count(g, 1);
	gframes_count(g, 1);
	for (uint32_t i = 0; i < 40; i++)
		ASSERT_EQ(count_of(g, 0x1000 + 16 * i), 2);
	ASSERT_EQ(g->frames.len, 40);
	argus_graph_free(g);
}

/* Comparing every pair, as the rule reads. */
static bool share_pairwise(struct argus_graph *g, uint32_t a, uint32_t b)
{
	const struct gstack *sa = gstack_get(g, a), *sb = gstack_get(g, b);
	for (uint32_t x = 0; x < sa->depth; x++)
		for (uint32_t y = 0; y < sb->depth; y++)
			if (sa->ips[x] == sb->ips[y])
				return true;
	return false;
}

TEST(shared_frames_are_what_every_pair_gives)
{
	struct argus_graph *g = fresh();
	srand(7);
	uint64_t ips[ARGUS_STACK_MAX_DEPTH];
	for (uint32_t id = 1; id <= 200; id++) {
		uint32_t depth = 1 + (uint32_t)rand() % ARGUS_STACK_MAX_DEPTH;
		for (uint32_t i = 0; i < depth; i++) /* a few thousand frames, repeats */
			ips[i] = 0x400000 + 8 * (uint64_t)(rand() % 3000);
		argus_graph_add_stack(g, id, ips, depth);
		gframes_count(g, id);
	}
	unsigned shared = 0, apart = 0;
	for (uint32_t a = 1; a <= 200; a++)
		for (uint32_t b = a; b <= 200; b += 7) {
			bool rare, want = share_pairwise(g, a, b);
			ASSERT_EQ(gframes_share(g, &a, 1, &b, 1, &rare), want);
			if (!want)
				ASSERT(!rare);
			shared += want;
			apart += !want;
		}
	ASSERT(shared > 0 && apart > 0);
	argus_graph_free(g);
}

TEST(a_shared_frame_is_rare_only_at_or_below_the_threshold)
{
	struct argus_graph *g = fresh();
	/* 100 frames seen once: the 10th percentile is 1, the threshold 2 */
	for (uint32_t id = 1; id <= 100; id++) {
		uint64_t ip = 0x9000 + id;
		argus_graph_add_stack(g, id, &ip, 1);
		gframes_count(g, id);
	}
	uint64_t common = 0x5000, once_a = 0x6001, once_b = 0x6002;
	uint64_t s1[] = {0x7001, common}, s2[] = {common, 0x7002}, s3[] = {once_a, common};
	argus_graph_add_stack(g, 201, s1, 2);
	argus_graph_add_stack(g, 202, s2, 2);
	argus_graph_add_stack(g, 203, s3, 2);
	for (int i = 0; i < 5; i++)
		gframes_count(g, 201); /* common: 5 */
	gframes_count(g, 202);      /* common: 6, 0x7001 5 */
	gframes_count(g, 203);      /* once_a: 1 */
	uint64_t s4[] = {once_b, once_a};
	argus_graph_add_stack(g, 204, s4, 2);
	uint32_t a = 201, b = 202, c = 203, d = 204;
	bool rare;
	ASSERT(gframes_share(g, &a, 1, &b, 1, &rare) && !rare); /* common only: 7 > 2 */
	ASSERT(gframes_share(g, &c, 1, &d, 1, &rare) && rare);  /* once_a: 1 */
	ASSERT(gframes_share(g, &a, 1, &c, 1, &rare) && !rare);
	uint32_t two[] = {a, c};
	ASSERT(gframes_share(g, two, 2, &d, 1, &rare) && rare); /* any pair */
	argus_graph_free(g);
}

TEST_MAIN(TEST_ENTRY(repeated_frames_of_a_stack_count_once),
          TEST_ENTRY(shared_frames_are_what_every_pair_gives),
          TEST_ENTRY(a_shared_frame_is_rare_only_at_or_below_the_threshold))
