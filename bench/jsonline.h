/*
 * jsonline.h - reading fields of the flat one-line JSON objects that the
 * benchmarks' drivers write (bench/zoo/, bench/quiet/). Not a JSON parser:
 * the lines are argus's own, flat, one object per line.
 */
#ifndef ARGUS_BENCH_JSONLINE_H
#define ARGUS_BENCH_JSONLINE_H

#include <stddef.h>

/* The text after "key": in a flat JSON object, or NULL (the first one). */
const char *jsonline_at(const char *obj, const char *key);
/* A string value (\" and \\ unescaped) into out, "" when null or absent. */
void jsonline_str(const char *obj, const char *key, char *out, size_t cap);

#endif /* ARGUS_BENCH_JSONLINE_H */
