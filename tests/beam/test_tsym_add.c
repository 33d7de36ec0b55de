/*
 * test_tsym_add.c - a session's symbol table grows by the maps and symbols
 * pushed since its last use (argus_tsym_add_tables): every frame is named
 * as one table made over all of them names it, also where two maps of a
 * process start at one address (an exec's new image: the later one) and
 * two symbols of a file at one offset.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "beam.h"
#include "test.h"

static const char *const strings[] = {
    "", "/usr/bin/app", "/usr/lib/x86_64-linux-gnu/libc.so.6", "/opt/app/libwork.so",
    "main", "work", "spin", "helper", "alias",
};

static const char *tab_string(const void *arg, uint32_t id)
{
	(void)arg;
	return id < sizeof(strings) / sizeof(strings[0]) ? strings[id] : NULL;
}

static bool tab_stack(const void *arg, uint32_t id, struct argus_stack *out)
{
	(void)arg;
	(void)id;
	(void)out;
	return false;
}

#define NMAPS 600
#define NSYMS 300

static bool same(const struct argus_frame *a, bool oka, const struct argus_frame *b, bool okb)
{
	if (oka != okb)
		return false;
	return !oka || (!strcmp(a->func, b->func) && !strcmp(a->srcline, b->srcline) &&
	                !strcmp(a->object, b->object) && a->system == b->system);
}

TEST(added_tables_name_frames_as_one_table_over_all)
{
	static struct argus_map maps[NMAPS];
	static struct argus_symbol syms[NSYMS];
	srand(11);
	for (size_t i = 0; i < NMAPS; i++) {
		/* few pids and starts: many ties, later maps over earlier ones */
		uint64_t start = 0x400000 + 0x10000 * (uint64_t)(rand() % 8);
		maps[i] = (struct argus_map){.pid = 100 + (uint32_t)(rand() % 6),
		                             .path_str = 1 + (uint32_t)(rand() % 3),
		                             .start = start,
		                             .end = start + 0x8000 + 0x1000 * (uint64_t)(rand() % 16),
		                             .pgoff = 0x1000 * (uint64_t)(rand() % 4)};
	}
	for (size_t i = 0; i < NSYMS; i++)
		syms[i] = (struct argus_symbol){.path_str = 1 + (uint32_t)(rand() % 3),
		                                .name_str = 4 + (uint32_t)(rand() % 5),
		                                .offset = 0x100 * (uint64_t)(rand() % 200),
		                                .size = 0x80 + 0x40 * (uint64_t)(rand() % 8)};
	struct argus_tsym *whole, *grown;
	ASSERT_EQ(argus_tsym_new_tables(&whole, maps, NMAPS, syms, NSYMS, tab_string, tab_stack,
	                                NULL),
	          0);
	ASSERT_EQ(argus_tsym_new_tables(&grown, NULL, 0, NULL, 0, tab_string, tab_stack, NULL), 0);
	/* in uneven steps, some adding only maps or only symbols */
	size_t m = 0, s = 0;
	while (m < NMAPS || s < NSYMS) {
		size_t dm = (size_t)(rand() % 90), ds = (size_t)(rand() % 50);
		if (dm > NMAPS - m)
			dm = NMAPS - m;
		if (ds > NSYMS - s)
			ds = NSYMS - s;
		ASSERT_EQ(argus_tsym_add_tables(grown, maps + m, dm, syms + s, ds), 0);
		m += dm;
		s += ds;
	}
	struct argus_symbolizer a = argus_tsym_symbolizer(whole), b = argus_tsym_symbolizer(grown);
	unsigned named = 0;
	for (uint32_t pid = 99; pid <= 106; pid++)
		for (uint64_t ip = 0x3ff000; ip < 0x4a0000; ip += 0x44) {
			struct argus_frame fa, fb;
			memset(&fa, 0, sizeof(fa));
			memset(&fb, 0, sizeof(fb));
			bool oka = a.resolve(a.arg, pid, ip, &fa), okb = b.resolve(b.arg, pid, ip, &fb);
			ASSERT_MSG(same(&fa, oka, &fb, okb), "pid %u ip %#llx: %s / %s", pid,
			           (unsigned long long)ip, oka ? fa.srcline : "-", okb ? fb.srcline : "-");
			named += oka;
		}
	ASSERT(named > 100);
	argus_tsym_free(whole);
	argus_tsym_free(grown);
}

TEST_MAIN(TEST_ENTRY(added_tables_name_frames_as_one_table_over_all))
