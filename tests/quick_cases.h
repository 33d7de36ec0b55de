/*
 * quick_cases.h - one check for the live corpora's quick subsets (the zoo's
 * and the real apps'): the cases whose truth file says quick=1 are exactly
 * those a test file runs.
 */
#ifndef ARGUS_TEST_QUICK_CASES_H
#define ARGUS_TEST_QUICK_CASES_H

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"

/* sub: the corpus under the source tree ("bench/zoo"); tested[n]: the case
 * folders the file runs; list: the macro that names them, for messages. */
static inline void quick_cases_match(const char *sub, const char *const *tested, size_t n,
                                     const char *list)
{
	const char *src = getenv("ARGUS_SRC");
	if (!src)
		SKIP("ARGUS_SRC not set (run through ctest)");
	char dir[1024];
	snprintf(dir, sizeof(dir), "%s/%s", src, sub);
	DIR *d = opendir(dir);
	ASSERT_MSG(d, "cannot read %s", dir);
	size_t quick = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		char path[1400], line[256];
		snprintf(path, sizeof(path), "%s/%s/truth", dir, e->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		bool is_quick = false;
		while (fgets(line, sizeof(line), f))
			is_quick |= !strcmp(line, "quick=1\n") || !strcmp(line, "quick=1");
		fclose(f);
		if (!is_quick)
			continue;
		quick++;
		bool found = false;
		for (size_t i = 0; i < n; i++)
			found |= !strcmp(tested[i], e->d_name);
		ASSERT_MSG(found, "%s has quick=1 but no line in %s", e->d_name, list);
	}
	closedir(d);
	ASSERT_MSG(quick == n, "%s names %zu cases, %zu truth files say quick=1", list, n, quick);
}

#endif
