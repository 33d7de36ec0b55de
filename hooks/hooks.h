/*
 * hooks.h - the interface of libargus-hooks.so (in-process tracing), as seen
 * by whoever starts a hooked process (`argus run`, the daemon).
 *
 * The library is loaded with LD_PRELOAD. It reads its configuration from the
 * environment at load time, then removes these variables so programs the
 * hooked process executes are not traced with its rings (docs/hooks.md):
 *
 *   ARGUS_HOOK_RINGS  "RINGFD:WAKEFD,RINGFD:WAKEFD,..." shared-memory rings
 *                     (argus_ring_create_shm) inherited by the process, with
 *                     the consumer's wake-up eventfd of each (-1 = none).
 *                     Absent (and no daemon): the hooks stay inert (one
 *                     load and branch per hooked call).
 *   ARGUS_HOOK_SOCKET without ARGUS_HOOK_RINGS: the daemon's hook socket
 *                     (default ARGUS_HOOK_DEFAULT_SOCKET; "" = none). When it
 *                     exists each thread asks it for a ring of its own.
 *   ARGUS_HOOK_PRUNE  "SYM,SYM,...": these functions return 0 at once.
 *   ARGUS_HOOK_FLAGS  path of a data-flag file (format below).
 *
 * Data-flag file: one watch per line, '#' starts a comment:
 *   [BINARY:]SYMBOL-or-0xADDRESS  LENGTH  w|rw
 * LENGTH is 1, 2, 4 or 8. `w` reports writes (flag_write); `rw` reports
 * writes and reads (flag_read). x86 has 4 debug registers: at most
 * ARGUS_FLAGS_MAX watches are armed.
 */
#ifndef ARGUS_HOOKS_H
#define ARGUS_HOOKS_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ARGUS_HOOK_ENV_RINGS      "ARGUS_HOOK_RINGS"
#define ARGUS_HOOK_ENV_PRUNE      "ARGUS_HOOK_PRUNE"
#define ARGUS_HOOK_ENV_SOCKET     "ARGUS_HOOK_SOCKET"
#define ARGUS_HOOK_DEFAULT_SOCKET "/run/argus-hooks/hooks.sock"
#define ARGUS_HOOK_ENV_FLAGS      "ARGUS_HOOK_FLAGS"
/* toolkit landmarks shorter than this many ns are dropped in the process
 * (default 3 ms, LagHunter's filter) */
#define ARGUS_HOOK_ENV_LANDMARK_NS "ARGUS_HOOK_LANDMARK_NS"
#define ARGUS_HOOK_LANDMARK_NS     3000000ull
#define ARGUS_HOOK_LIB_NAME       "libargus-hooks.so"

/* Rings a process may be given (one per thread; the first is shared by
 * threads beyond the rest). */
#define ARGUS_HOOK_MAX_RINGS 64
#define ARGUS_FLAGS_MAX      4

struct argus_flag_spec {
	char binary[128]; /* "" = the process's global symbol scope */
	char symbol[128]; /* "" when addr is given */
	unsigned long addr;
	unsigned len;
	bool read; /* rw: report reads as well as writes */
};

/*
 * Parse one line of a data-flag file. Returns 1 (spec filled), 0 (blank or
 * comment) or -1 (malformed: *why says what).
 */
static inline int argus_flag_parse_line(const char *line, struct argus_flag_spec *s,
                                        const char **why)
{
	char what[256], mode[8];
	unsigned len;
	char extra;
	const char *p = line;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '#' || *p == '\n')
		return 0;
	memset(s, 0, sizeof(*s));
	int n = sscanf(p, "%255s %u %7s %c", what, &len, mode, &extra);
	if (n < 3 || (n == 4 && extra != '#')) {
		*why = "expected: [BINARY:]SYMBOL-or-0xADDRESS LENGTH w|rw";
		return -1;
	}
	if (len != 1 && len != 2 && len != 4 && len != 8) {
		*why = "LENGTH must be 1, 2, 4 or 8";
		return -1;
	}
	if (strcmp(mode, "w") && strcmp(mode, "rw")) {
		*why = "mode must be w or rw";
		return -1;
	}
	s->len = len;
	s->read = !strcmp(mode, "rw");
	char *sym = what, *colon = strrchr(what, ':');
	if (colon) {
		*colon = 0;
		if (strlen(what) >= sizeof(s->binary)) {
			*why = "binary path too long";
			return -1;
		}
		memcpy(s->binary, what, strlen(what) + 1);
		sym = colon + 1;
	}
	if (!strncmp(sym, "0x", 2)) {
		char *end;
		s->addr = strtoul(sym, &end, 16);
		if (*end || !s->addr) {
			*why = "bad address";
			return -1;
		}
	} else if (!*sym) {
		*why = "missing symbol";
		return -1;
	} else if (strlen(sym) >= sizeof(s->symbol)) {
		*why = "symbol name too long";
		return -1;
	} else {
		memcpy(s->symbol, sym, strlen(sym) + 1);
	}
	return 1;
}

/* A regular file at p (argus_hooks_lib_path). */
static inline bool argus_hooks_is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/*
 * Where libargus-hooks.so is, for whoever preloads it (`argus run`, the
 * benchmarks): $ARGUS_HOOKS_LIB, else next to the running binary (../hooks/
 * in a build tree, ../lib/argus/ or ../lib/ installed).
 */
static inline bool argus_hooks_lib_path(char *out, size_t cap)
{
	const char *env = getenv("ARGUS_HOOKS_LIB");
	if (env) {
		snprintf(out, cap, "%s", env);
		return argus_hooks_is_file(out);
	}
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return false;
	exe[n] = 0;
	char *slash = strrchr(exe, '/');
	if (!slash)
		return false;
	*slash = 0;
	static const char *const rel[] = {"../hooks/", "../lib/argus/", "../lib/", ""};
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		int len = snprintf(out, cap, "%s/%s%s", exe, rel[i], ARGUS_HOOK_LIB_NAME);
		if (len > 0 && (size_t)len < cap && argus_hooks_is_file(out))
			return true;
	}
	return false;
}

#endif /* ARGUS_HOOKS_H */
