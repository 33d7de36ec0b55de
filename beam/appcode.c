/*
 * appcode.c - which code is the system runtime's and which the
 * application's (docs/diagnosis.md "Application code"). The diagnosis names
 * the innermost application frame as the root cause: a stall is the app's
 * doing even when it waits in libc, while a loop inside the app's own
 * plugin or bundled library is the app's code too. The rule is by the path
 * of the ELF object holding the frame, in the tables below.
 */
#include <fnmatch.h>
#include <stdbool.h>
#include <string.h>

#include "beam.h"

/* Objects directly in these directories are system runtime; with subtree,
 * objects in any folder below them too (Debian's multiarch directories hold
 * only the distribution's libraries and their modules; an application's
 * private folder is /usr/lib/<app>, e.g. /usr/lib/firefox). */
static const struct {
	const char *dir; /* fnmatch pattern, FNM_PATHNAME */
	bool subtree;
} system_dirs[] = {
    {"/lib", false},
    {"/lib32", false},
    {"/lib64", false},
    {"/usr/lib", false},
    {"/usr/lib32", false},
    {"/usr/lib64", false},
    {"/lib/*-linux-gnu*", true},
    {"/usr/lib/*-linux-gnu*", true},
};

/* Module folders of system libraries inside a system directory (Fedora,
 * Arch: /usr/lib64/gtk-3.0/modules, /usr/lib/gio/modules): GTK and GIO
 * modules, pixbuf loaders, media and Qt plugins, GPU drivers, character
 * set converters. */
static const char *const module_dirs[] = {
    "gtk-[0-9].[0-9]",
    "gio",
    "gdk-pixbuf-[0-9].[0-9]",
    "gstreamer-[0-9].[0-9]",
    "gvfs",
    "qt",
    "qt[0-9]",
    "dri",
    "gconv",
    "gbm",
    "vdpau",
    "pulseaudio",
    "alsa-lib",
    "pkcs11",
    "security",
};

/* Objects that are system runtime wherever they are, by file name: the
 * kernel's vDSO (as /proc/PID/maps and libdwfl name it) and argus's own
 * hooks, whose wrappers sit between an app's call and the libc it calls
 * (fnmatch patterns: '[' escaped). */
static const char *const system_names[] = {
    "\\[vdso\\]",      "\\[vdso:*",          "\\[vsyscall\\]",
    "linux-vdso.so.*", "libargus-hooks.so*", /* hooks.h ARGUS_HOOK_LIB_NAME */
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static bool is_system_dir(const char *dir, bool subtree_only)
{
	for (size_t i = 0; i < N(system_dirs); i++)
		if ((!subtree_only || system_dirs[i].subtree) &&
		    fnmatch(system_dirs[i].dir, dir, FNM_PATHNAME) == 0)
			return true;
	return false;
}

static bool is_module_dir(const char *name)
{
	for (size_t i = 0; i < N(module_dirs); i++)
		if (fnmatch(module_dirs[i], name, 0) == 0)
			return true;
	return false;
}

bool argus_system_code(const char *path)
{
	if (!path || !path[0])
		return false;
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	for (size_t i = 0; i < N(system_names); i++)
		if (fnmatch(system_names[i], name, 0) == 0)
			return true;
	if (path[0] != '/' || !slash || slash == path)
		return false;
	char dir[4096];
	size_t n = (size_t)(slash - path);
	if (n >= sizeof(dir))
		return false;
	memcpy(dir, path, n);
	dir[n] = '\0';
	if (is_system_dir(dir, false))
		return true;
	/* every folder the object is below: one in a subtree directory, or a
	 * module folder of a system directory */
	for (char *up; (up = strrchr(dir, '/')) && up != dir;) {
		*up = '\0'; /* dir: the parent of the folder named up + 1 */
		if ((is_module_dir(up + 1) && is_system_dir(dir, false)) ||
		    is_system_dir(dir, true))
			return true;
	}
	return false;
}
