/*
 * funcname.c - the name a user sees for a function symbol: without its
 * symbol version ("pthread_setaffinity_np@@GLIBC_2.34" is
 * pthread_setaffinity_np, the name the file's own tables give), and a C++
 * symbol demangled by the C++ runtime's own demangler (__cxa_demangle, the
 * Itanium ABI's, as perf and gdb show them) without its parameter list:
 * FL_DocLayout::fillLayouts, not _ZN12FL_DocLayout11fillLayoutsEv. The
 * parameters go because a stack's frame names one function, and reports,
 * issue signatures and truth files name it by its qualified name.
 */
#include <stdlib.h>
#include <string.h>

#include "beam.h"

/* The C++ runtime's demangler (libstdc++, extern "C"). */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* The length of d without its parameter list and what follows it (" const",
 * "&&", a clone's " [clone .cold]"): the parenthesis that opens the
 * outermost (...) at the end, skipping nested (), <> and []. */
static size_t without_params(const char *d)
{
	size_t n = strlen(d);
	/* past trailing qualifiers and clone suffixes back to the last ')' */
	size_t end = n;
	while (end > 0 && d[end - 1] != ')')
		end--;
	if (!end)
		return n;
	int depth = 0;
	for (size_t i = end; i-- > 0;) {
		char c = d[i];
		if (c == ')' || c == '>' || c == ']')
			depth++;
		else if (c == '(' || c == '<' || c == '[')
			depth--;
		if (depth == 0) {
			/* "operator()" keeps its own parentheses */
			if (i >= 8 && !strncmp(d + i - 8, "operator", 8))
				return n;
			return i > 0 ? i : n;
		}
	}
	return n;
}

void argus_func_name(const char *sym, char *out, size_t cap)
{
	size_t len = strcspn(sym, "@");
	if (cap == 0)
		return;
	if (len > 2 && sym[0] == '_' && sym[1] == 'Z') {
		char raw[1024];
		snprintf(raw, sizeof(raw), "%.*s", (int)len, sym);
		int status = -1;
		char *d = __cxa_demangle(raw, NULL, NULL, &status);
		if (d && status == 0) {
			snprintf(out, cap, "%.*s", (int)without_params(d), d);
			free(d);
			return;
		}
		free(d);
	}
	snprintf(out, cap, "%.*s", (int)len, sym);
}
