/* A file of docs/ for a test to check against, NUL-terminated in a static
 * buffer (one file at a time); skips the test outside ctest. */
#ifndef ARGUS_TEST_DOCFILE_H
#define ARGUS_TEST_DOCFILE_H

#include <stdio.h>
#include <stdlib.h>

#include "test.h"

static inline const char *docfile(const char *name)
{
	static char doc[1 << 18];
	char path[4096];
	const char *src = getenv("ARGUS_SRC");
	if (!src)
		SKIP("ARGUS_SRC not set (run through ctest)");
	snprintf(path, sizeof(path), "%s/docs/%s", src, name);
	FILE *f = fopen(path, "r");
	ASSERT_MSG(f, "cannot open %s", path);
	size_t n = fread(doc, 1, sizeof(doc) - 1, f);
	fclose(f);
	doc[n] = '\0';
	return doc;
}

#endif /* ARGUS_TEST_DOCFILE_H */
