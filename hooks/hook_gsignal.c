/*
 * hook_gsignal.c - GObject signal emissions as landmarks (the observer
 * pattern: GTK's event signals, "clicked", "draw", the frame clock's
 * "paint", ...), by inline hooks on g_signal_emit_valist (which
 * g_signal_emit and g_signal_emit_by_name call) and g_signal_emitv.
 *
 * A landmark is named by its handler: the function the application
 * connected to that signal of that instance (g_signal_connect_data,
 * g_signal_connect_object), remembered at the connect, the latest one
 * winning; 0 when none was seen (a class handler). The signal's name,
 * read only for a kept landmark, gives its kind: "draw" and "paint" are
 * paint, a "...-event" signal a GTK event handler, any other a signal.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <glib-object.h>

#include "hooks_internal.h"

/* (instance, signal id) -> handler, open addressing over a window of
 * PROBE slots; a full window overwrites its first slot. */
#define SIG_SLOTS 4096
#define SIG_PROBE 8

struct gsignal_hooks {
	void (*emit_valist)(gpointer, guint, GQuark, va_list);
	void (*emitv)(const GValue *, guint, GQuark, GValue *);
	gulong (*connect_data)(gpointer, const gchar *, GCallback, gpointer, GClosureNotify,
	                       GConnectFlags);
	gulong (*connect_object)(gpointer, const gchar *, GCallback, gpointer, GConnectFlags);
	gboolean (*parse_name)(const gchar *, GType, guint *, GQuark *, gboolean);
	const gchar *(*signal_name)(guint);
	_Atomic(uint64_t) key[SIG_SLOTS];
	_Atomic(uintptr_t) fn[SIG_SLOTS];
};

/* Part of the library's root state (see hooks_internal.h). */
static struct gsignal_hooks S;

static uint64_t sig_key(gpointer instance, guint id)
{
	return (uint64_t)(id & 0xffff) << 48 | ((uintptr_t)instance & 0xffffffffffffull);
}

static unsigned sig_slot(uint64_t key)
{
	return (unsigned)((key * 0x9e3779b97f4a7c15ull) >> 52) % SIG_SLOTS;
}

static void remember(gpointer instance, const gchar *detailed, GCallback fn)
{
	guint id = 0;
	GQuark detail = 0;
	if (!instance || !detailed || !fn || !S.parse_name ||
	    !S.parse_name(detailed, G_TYPE_FROM_INSTANCE(instance), &id, &detail, FALSE))
		return;
	uint64_t key = sig_key(instance, id);
	unsigned h = sig_slot(key);
	unsigned at = h;
	for (unsigned i = 0; i < SIG_PROBE; i++) {
		unsigned k = (h + i) % SIG_SLOTS;
		uint64_t cur = atomic_load_explicit(&S.key[k], memory_order_relaxed);
		if (cur == key || cur == 0) {
			at = k;
			break;
		}
	}
	atomic_store_explicit(&S.fn[at], (uintptr_t)fn, memory_order_relaxed);
	atomic_store_explicit(&S.key[at], key, memory_order_release);
}

static uintptr_t handler_of(gpointer instance, guint id)
{
	uint64_t key = sig_key(instance, id);
	unsigned h = sig_slot(key);
	for (unsigned i = 0; i < SIG_PROBE; i++) {
		unsigned k = (h + i) % SIG_SLOTS;
		if (atomic_load_explicit(&S.key[k], memory_order_acquire) == key)
			return atomic_load_explicit(&S.fn[k], memory_order_relaxed);
	}
	return 0;
}

static unsigned kind_of(guint id)
{
	const char *name = S.signal_name ? S.signal_name(id) : NULL;
	if (!name)
		return ARGUS_LM_SIGNAL;
	if (!strcmp(name, "draw") || !strcmp(name, "paint"))
		return ARGUS_LM_PAINT;
	size_t n = strlen(name);
	if (n > 6 && !strcmp(name + n - 6, "-event"))
		return ARGUS_LM_GTK_EVENT;
	return ARGUS_LM_SIGNAL;
}

static void landmark_end(struct hooks_lm *m, gpointer instance, guint id)
{
	uint64_t end;
	if (hooks_lm_end(m, &end))
		hooks_lm_emit(m, end, kind_of(id), handler_of(instance, id), (uintptr_t)instance);
}

static void hook_emit_valist(gpointer instance, guint id, GQuark detail, va_list args)
{
	if (!hooks_active()) {
		S.emit_valist(instance, id, detail, args);
		return;
	}
	struct hooks_lm m;
	hooks_lm_begin(&m);
	S.emit_valist(instance, id, detail, args);
	landmark_end(&m, instance, id);
}

static void hook_emitv(const GValue *params, guint id, GQuark detail, GValue *ret)
{
	if (!hooks_active() || !params) {
		S.emitv(params, id, detail, ret);
		return;
	}
	gpointer instance = params[0].data[0].v_pointer;
	struct hooks_lm m;
	hooks_lm_begin(&m);
	S.emitv(params, id, detail, ret);
	landmark_end(&m, instance, id);
}

static gulong hook_connect_data(gpointer instance, const gchar *detailed, GCallback fn,
                                gpointer data, GClosureNotify notify, GConnectFlags flags)
{
	if (hooks_active())
		remember(instance, detailed, fn);
	return S.connect_data(instance, detailed, fn, data, notify, flags);
}

static gulong hook_connect_object(gpointer instance, const gchar *detailed, GCallback fn,
                                  gpointer gobject, GConnectFlags flags)
{
	if (hooks_active())
		remember(instance, detailed, fn);
	return S.connect_object(instance, detailed, fn, gobject, flags);
}

static void hook(const char *name, void *replacement, void *orig_slot)
{
	void *fn = dlsym(RTLD_DEFAULT, name);
	if (!fn)
		return;
	int rc = hooks_inline(fn, replacement, (void **)orig_slot);
	if (rc)
		fprintf(stderr, "argus-hooks: cannot hook %s: %s\n", name, strerror(-rc));
}

void hooks_gsignal_init(void)
{
	*(void **)&S.parse_name = dlsym(RTLD_DEFAULT, "g_signal_parse_name");
	*(void **)&S.signal_name = dlsym(RTLD_DEFAULT, "g_signal_name");
	if (!S.parse_name || !S.signal_name)
		return; /* no GObject in this program */
	hook("g_signal_connect_data", (void *)hook_connect_data, &S.connect_data);
	hook("g_signal_connect_object", (void *)hook_connect_object, &S.connect_object);
	hook("g_signal_emit_valist", (void *)hook_emit_valist, &S.emit_valist);
	hook("g_signal_emitv", (void *)hook_emitv, &S.emitv);
}
