/*
 * cmdline.c - exit codes and argument parsing shared by the argus command
 * lines (cmdline.h).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "event.h"

void cli_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "argus %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* A non-negative decimal number (digits, optional fraction) and the rest. */
static bool parse_number(const char *s, double *v, const char **rest)
{
	if (!s || !isdigit((unsigned char)s[0]))
		return false;
	char *end;
	errno = 0;
	double d = strtod(s, &end);
	if (errno || !isfinite(d) || d < 0)
		return false;
	*v = d;
	*rest = end;
	return true;
}

bool cli_parse_duration(const char *s, uint64_t *ns)
{
	static const struct {
		const char *unit;
		double scale;
	} units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6},  {"s", 1e9},
	             {"", 1e9}, {"m", 60e9}, {"h", 3600e9}};
	double v;
	const char *rest;
	if (!parse_number(s, &v, &rest))
		return false;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(rest, units[i].unit) != 0)
			continue;
		double r = v * units[i].scale;
		if (r >= 1.8e19)
			return false;
		*ns = (uint64_t)llround(r);
		return true;
	}
	return false;
}

bool cli_parse_size(const char *s, uint64_t *bytes)
{
	static const char suffixes[] = "kmgt";
	double v;
	const char *rest;
	if (!parse_number(s, &v, &rest))
		return false;
	double scale = 1;
	if (*rest) {
		const char *p = strchr(suffixes, tolower((unsigned char)*rest));
		if (!p || !*p)
			return false;
		for (const char *q = suffixes; q <= p; q++)
			scale *= 1024;
		rest++;
		if (*rest == 'i' || *rest == 'I')
			rest++;
		if (*rest == 'b' || *rest == 'B')
			rest++;
		if (*rest)
			return false;
	}
	double r = v * scale;
	if (r >= 1.8e19)
		return false;
	*bytes = (uint64_t)llround(r);
	return true;
}

bool cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	if (!s || !isdigit((unsigned char)s[0]))
		return false;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

bool cli_parse_time(const char *s, uint64_t start_ns, uint64_t *ns)
{
	if (!s || !*s)
		return false;
	if (s[0] == '+') {
		uint64_t rel;
		if (!cli_parse_duration(s + 1, &rel) || rel > UINT64_MAX - start_ns)
			return false;
		*ns = start_ns + rel;
		return true;
	}
	return cli_parse_u64(s, 0, UINT64_MAX, ns);
}

int cli_trace_exit(int trace_err)
{
	switch (trace_err) {
	case ARGUS_TRACE_EIO:
		return ARGUS_EXIT_IO;
	case ARGUS_TRACE_EVERSION:
		return ARGUS_EXIT_VERSION;
	case ARGUS_TRACE_ENOMEM:
		return ARGUS_EXIT_INTERNAL;
	default:
		return ARGUS_EXIT_BADINPUT;
	}
}
