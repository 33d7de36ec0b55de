/*
 * test_appcode.c - which code is system runtime and which the application's
 * (beam/appcode.c, docs/diagnosis.md "Application code"), and that a
 * trace's symbol tables name frames of both, marked by that rule.
 */
#include <stdint.h>
#include <string.h>

#include "beam.h"
#include "event.h"
#include "test.h"

TEST(system_library_directories_and_their_modules_are_system_runtime)
{
	static const char *const system[] = {
	    "/lib/x86_64-linux-gnu/libc.so.6",
	    "/usr/lib/x86_64-linux-gnu/libc.so.6",
	    "/usr/lib/x86_64-linux-gnu/libgtk-3.so.0.2409.32",
	    "/lib64/ld-linux-x86-64.so.2",
	    "/usr/lib64/libglib-2.0.so.0",
	    "/usr/lib/libQt6Core.so.6",
	    "/usr/lib/aarch64-linux-gnu/libdbus-1.so.3",
	    /* modules below the multiarch directory, at any depth */
	    "/usr/lib/x86_64-linux-gnu/gio/modules/libdconfsettings.so",
	    "/usr/lib/x86_64-linux-gnu/pulseaudio/libpulsecore-16.1.so",
	    "/usr/lib/x86_64-linux-gnu/gtk-3.0/3.0.0/immodules/im-ibus.so",
	    /* module folders of a plain system directory (Fedora, Arch) */
	    "/usr/lib64/gtk-3.0/modules/libcanberra-gtk-module.so",
	    "/usr/lib64/gdk-pixbuf-2.0/2.10.0/loaders/libpixbufloader-png.so",
	    "/usr/lib/qt6/plugins/platforms/libqxcb.so",
	    "/usr/lib64/dri/iris_dri.so",
	    /* the vDSO as maps and libdwfl name it, and argus's own hooks */
	    "[vdso]",
	    "[vdso: 4242]",
	    "linux-vdso.so.1",
	    "/usr/local/lib/argus/libargus-hooks.so",
	    "/tmp/build/hooks/libargus-hooks.so",
	};
	for (size_t i = 0; i < sizeof(system) / sizeof(system[0]); i++)
		ASSERT_MSG(argus_system_code(system[i]), "%s counted as application code",
		           system[i]);
}

TEST(executables_and_libraries_outside_them_are_application_code)
{
	static const char *const app[] = {
	    "/usr/bin/gnome-text-editor",
	    "/usr/libexec/gnome-shell-calendar-server",
	    /* an app's own folder below a system directory */
	    "/usr/lib/firefox/libxul.so",
	    "/usr/lib64/libreoffice/program/libmergedlo.so",
	    "/usr/lib/firefox/firefox",
	    /* /opt, a build tree, a user's folder, a plugin beside the program */
	    "/opt/app/lib/libplugin.so",
	    "/home/user/src/app/build/libfoo.so.1",
	    "/tmp/build/bench/zoo/libzoo-tokens.so",
	    "/tmp/build/bench/zoo/zoo-b5",
	    "/usr/local/lib/libmine.so",
	    /* names that only look like system directories */
	    "/library/libx.so",
	    "/usr/libx/liby.so",
	    "/lib/myapp/libz.so",
	    "/opt/usr/lib/x86_64-linux-gnu/libc.so.6",
	    "/usr/lib/gtk-3.0-app/libw.so",
	    "libfoo.so",
	    "",
	};
	for (size_t i = 0; i < sizeof(app) / sizeof(app[0]); i++)
		ASSERT_MSG(!argus_system_code(app[i]), "%s counted as system runtime", app[i]);
	ASSERT(!argus_system_code(NULL));
}

/* ---- a trace's tables ---- */

static const char *const strings[] = {
    NULL,
    "/usr/lib/x86_64-linux-gnu/libc.so.6",
    "/opt/app/libplugin.so",
    "/opt/app/app",
    "read",
    "plugin_parse",
    "main",
};

static const char *tab_string(const void *arg, uint32_t id)
{
	(void)arg;
	return id && id < sizeof(strings) / sizeof(strings[0]) ? strings[id] : NULL;
}

static bool tab_stack(const void *arg, uint32_t id, struct argus_stack *out)
{
	(void)arg;
	(void)id;
	(void)out;
	return false;
}

TEST(trace_tables_name_frames_of_every_object_marked_by_the_rule)
{
	const struct argus_map maps[] = {
	    {.pid = 7, .path_str = 1, .start = 0x7f0000000000, .end = 0x7f0000100000},
	    {.pid = 7, .path_str = 2, .start = 0x7f1000000000, .end = 0x7f1000010000},
	    {.pid = 7, .path_str = 3, .start = 0x555500000000, .end = 0x555500010000},
	};
	const struct argus_symbol syms[] = {
	    {.path_str = 1, .name_str = 4, .offset = 0x1000, .size = 0x100},
	    {.path_str = 2, .name_str = 5, .offset = 0x2000, .size = 0x100},
	    {.path_str = 3, .name_str = 6, .offset = 0x3000, .size = 0x100},
	};
	struct argus_tsym *ts;
	ASSERT_EQ(argus_tsym_new_tables(&ts, maps, 3, syms, 3, tab_string, tab_stack, NULL), 0);
	struct argus_symbolizer y = argus_tsym_symbolizer(ts);
	struct argus_frame libc, plugin, exe, none;
	bool ok_libc = y.resolve(y.arg, 7, 0x7f0000001010, &libc);
	bool ok_plugin = y.resolve(y.arg, 7, 0x7f1000002020, &plugin);
	bool ok_exe = y.resolve(y.arg, 7, 0x555500003030, &exe);
	bool ok_none = y.resolve(y.arg, 7, 0x7f1000009000, &none);
	argus_tsym_free(ts);
	ASSERT(ok_libc);
	ASSERT_STR_EQ(libc.func, "read");
	ASSERT_STR_EQ(libc.object, "libc.so.6");
	ASSERT(libc.system);
	ASSERT(ok_plugin);
	ASSERT_STR_EQ(plugin.func, "plugin_parse");
	ASSERT_STR_EQ(plugin.object, "libplugin.so");
	ASSERT_STR_EQ(plugin.srcline, "/opt/app/libplugin.so+0x20");
	ASSERT(!plugin.system);
	ASSERT(ok_exe);
	ASSERT_STR_EQ(exe.func, "main");
	ASSERT(!exe.system);
	ASSERT(!ok_none);
}

/* pid 8 forked from 7 (and 9 from 8), not exec'd: the tracer read no
 * layout for them; 10 forked from 7 and exec'd: its own layout. */
static uint32_t parent_of(void *arg, uint32_t pid)
{
	(void)arg;
	return pid == 8 ? 7 : pid == 9 ? 8 : pid == 10 ? 7 : 0;
}

TEST(a_forked_process_is_named_through_its_parents_layout)
{
	const struct argus_map maps[] = {
	    {.pid = 7, .path_str = 3, .start = 0x555500000000, .end = 0x555500010000},
	    {.pid = 10, .path_str = 1, .start = 0x7f0000000000, .end = 0x7f0000100000},
	};
	const struct argus_symbol syms[] = {
	    {.path_str = 1, .name_str = 4, .offset = 0x1000, .size = 0x100},
	    {.path_str = 3, .name_str = 6, .offset = 0x3000, .size = 0x100},
	};
	struct argus_tsym *ts;
	ASSERT_EQ(argus_tsym_new_tables(&ts, maps, 2, syms, 2, tab_string, tab_stack, NULL), 0);
	struct argus_symbolizer y = argus_tsym_symbolizer(ts);
	struct argus_frame f;
	/* without the fork table: only 7 has a layout */
	bool before = y.resolve(y.arg, 8, 0x555500003030, &f);
	argus_tsym_set_parent(ts, parent_of, NULL);
	struct argus_frame child, grandchild, execd, stranger;
	bool ok_child = y.resolve(y.arg, 8, 0x555500003030, &child);
	bool ok_grand = y.resolve(y.arg, 9, 0x555500003030, &grandchild);
	bool ok_execd = y.resolve(y.arg, 10, 0x555500003030, &execd);
	bool ok_stranger = y.resolve(y.arg, 11, 0x555500003030, &stranger);
	argus_tsym_free(ts);
	ASSERT(!before);
	ASSERT(ok_child);
	ASSERT_STR_EQ(child.func, "main");
	ASSERT(ok_grand);
	ASSERT_STR_EQ(grandchild.func, "main");
	ASSERT_MSG(!ok_execd, "an exec'd child has a layout of its own: not its parent's");
	ASSERT(!ok_stranger);
}

TEST_MAIN(TEST_ENTRY(system_library_directories_and_their_modules_are_system_runtime),
          TEST_ENTRY(executables_and_libraries_outside_them_are_application_code),
          TEST_ENTRY(trace_tables_name_frames_of_every_object_marked_by_the_rule),
          TEST_ENTRY(a_forked_process_is_named_through_its_parents_layout))
