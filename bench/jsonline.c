/* jsonline.c - fields of the benchmarks' one-line JSON objects (jsonline.h). */
#include <stdio.h>
#include <string.h>

#include "jsonline.h"

const char *jsonline_at(const char *obj, const char *key)
{
	char pat[96];
	snprintf(pat, sizeof(pat), "\"%s\":", key);
	const char *p = strstr(obj, pat);
	return p ? p + strlen(pat) : NULL;
}

void jsonline_str(const char *obj, const char *key, char *out, size_t cap)
{
	const char *v = jsonline_at(obj, key);
	size_t n = 0;
	if (v && *v == '"')
		for (v++; *v && *v != '"' && n + 1 < cap; v++) {
			if (*v == '\\' && v[1])
				v++;
			out[n++] = *v;
		}
	out[n] = 0;
}
