/*
 * hook_qt.c - Qt's event delivery (QCoreApplication::notify and the
 * overrides in QtGui / QtWidgets) and QCoreApplication::postEvent, by
 * inline hooks, when the program has QtCore (5 or 6) loaded at start-up.
 *
 * Qt is not linked and no Qt header is used: functions are found by their
 * mangled names with dlsym and called as the C functions they are under the
 * Itanium C++ ABI (`this` first). The one piece of layout read is QEvent's
 * type field (docs/hooks.md).
 *
 * Qt delivers every event through notify, including the synchronous
 * sendEvent calls a handler makes and the same event forwarded from a
 * QWindow to its widget. Only deliveries made by the event loop are
 * dispatches: the outermost notify on a thread (per event-loop level) and
 * any delivery of a posted event. Nested synchronous ones are part of the
 * handler that made them and are not recorded as dispatches.
 *
 * Every delivery, nested or not, is also a toolkit landmark (qt_event),
 * named by the receiver's event() (the override in its class's vtable),
 * and every signal emission (QMetaObject::activate, which calls the slots
 * of its direct connections) one (qt_signal), named by the signal
 * function that called activate (moc's code, in the sender's class);
 * hook_landmark.c keeps those that last its threshold.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hooks_internal.h"

/* Posted events not yet delivered, keyed by QEvent pointer and type
 * (type << 48 | pointer: user-space pointers have 47 bits). A key is
 * looked for in a window of QT_PROBE slots from its hash; a full window
 * overwrites its first slot (that post then pairs with no run). */
#define QT_POSTED_SLOTS 4096
#define QT_PROBE        16

typedef bool (*notify_fn)(void *app, void *receiver, void *event);
typedef bool (*deliver_fn)(void *receiver, void *event);
typedef bool (*process_fn)(void *dispatcher, int flags);
typedef void (*activate_fn)(void *sender, const void *meta, int index, void **argv);
typedef void (*activate_off_fn)(void *sender, int offset, int index, void **argv);

struct qt_hooks {
	unsigned type_offset;                    /* of QEvent::t: 16 in Qt 5 (vptr, d), 8 in Qt 6 */
	void *(*object_thread)(const void *obj); /* QObject::thread() */
	deliver_fn notify_internal;              /* QCoreApplication::notifyInternal2 (static) */
	notify_fn core_notify, gui_notify, app_notify;
	void (*post_event)(void *receiver, void *event, int priority);
	process_fn glib_process, unix_process;
	activate_fn activate;
	activate_off_fn activate_off;
	atomic_bool exposed; /* a window was exposed (ui_input map sent) */
	atomic_int posted_count;
	_Atomic(uint64_t) posted[QT_POSTED_SLOTS];
};

/* Part of the library's root state (see hooks_internal.h). */
static struct qt_hooks Q;

/* Per thread: notify nesting within the current event-loop level, and the
 * delivery in progress (QGuiApplication::notify ends in
 * QCoreApplication::notify with the same receiver and event). */
static __thread unsigned notify_depth __attribute__((tls_model("initial-exec")));
static __thread void *cur_receiver __attribute__((tls_model("initial-exec")));
static __thread void *cur_event __attribute__((tls_model("initial-exec")));

/* QEvent::Type values (qcoreevent.h, the same in Qt 5 and 6). */
enum {
	QEV_MOUSE_PRESS = 2,
	QEV_MOUSE_RELEASE = 3,
	QEV_MOUSE_DBLCLICK = 4,
	QEV_MOUSE_MOVE = 5,
	QEV_KEY_PRESS = 6,
	QEV_KEY_RELEASE = 7,
	QEV_WHEEL = 31,
	QEV_TOUCH_BEGIN = 194,
	QEV_TOUCH_UPDATE = 195,
	QEV_TOUCH_END = 196,
	QEV_EXPOSE = 206,
};

/* The ui_input kind of an input event, -1 for events that are not input. */
static int ui_kind(unsigned type)
{
	switch (type) {
	case QEV_KEY_PRESS:
	case QEV_KEY_RELEASE:
		return ARGUS_UI_KEY;
	case QEV_MOUSE_PRESS:
	case QEV_MOUSE_RELEASE:
	case QEV_MOUSE_DBLCLICK:
	case QEV_WHEEL:
	case QEV_TOUCH_BEGIN:
	case QEV_TOUCH_UPDATE:
	case QEV_TOUCH_END:
		return ARGUS_UI_BUTTON;
	case QEV_MOUSE_MOVE:
		return ARGUS_UI_MOTION;
	case QEV_EXPOSE:
		return ARGUS_UI_EXPOSE;
	default:
		return -1;
	}
}

static unsigned event_type(const void *event)
{
	return *(const uint16_t *)((const char *)event + Q.type_offset);
}

/* ---- posted events -------------------------------------------------------- */

static unsigned posted_slot(uint64_t key)
{
	return (unsigned)((key * 0x9e3779b97f4a7c15ull) >> 52) % QT_POSTED_SLOTS;
}

static void posted_add(uint64_t key)
{
	unsigned h = posted_slot(key);
	for (unsigned i = 0; i < QT_PROBE; i++) {
		uint64_t expect = 0;
		if (atomic_compare_exchange_strong(&Q.posted[(h + i) % QT_POSTED_SLOTS], &expect,
		                                   key)) {
			atomic_fetch_add_explicit(&Q.posted_count, 1, memory_order_relaxed);
			return;
		}
	}
	atomic_store(&Q.posted[h], key);
}

/* Was this event posted (and not yet delivered)? Forgets it if so. */
static bool posted_take(uint64_t key)
{
	if (!atomic_load_explicit(&Q.posted_count, memory_order_relaxed))
		return false;
	unsigned h = posted_slot(key);
	for (unsigned i = 0; i < QT_PROBE; i++) {
		_Atomic(uint64_t) *s = &Q.posted[(h + i) % QT_POSTED_SLOTS];
		uint64_t expect = key;
		if (atomic_load_explicit(s, memory_order_relaxed) == key &&
		    atomic_compare_exchange_strong(s, &expect, 0)) {
			atomic_fetch_sub_explicit(&Q.posted_count, 1, memory_order_relaxed);
			return true;
		}
	}
	return false;
}

static uint64_t posted_key(const void *event, unsigned type)
{
	return (uint64_t)type << 48 | ((uintptr_t)event & 0xffffffffffffull);
}

/* ---- records ------------------------------------------------------------ */

static void emit_loop(unsigned type, void *thread, void *receiver, unsigned ev_type)
{
	struct argus_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.type = (uint16_t)type;
	ev.loop.context = (uintptr_t)thread;
	ev.loop.source = (uintptr_t)receiver;
	ev.loop.callback = ev_type;
	ev.loop.depth = notify_depth;
	hooks_emit(&ev);
}

static void emit_async(unsigned type, void *event, void *receiver, unsigned ev_type)
{
	struct argus_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.type = (uint16_t)type;
	ev.async.obj = (uintptr_t)event;
	ev.async.callback = ev_type;
	ev.async.target = (uintptr_t)receiver;
	ev.async.kind = ARGUS_ASYNC_QT;
	hooks_emit(&ev);
}

static void emit_ui(int kind, void *receiver)
{
	struct argus_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.type = ARGUS_EV_UI_INPUT;
	/* `map` marks the end of a launch: the first window exposed only */
	if (kind == ARGUS_UI_EXPOSE && !atomic_exchange(&Q.exposed, true))
		kind = ARGUS_UI_MAP;
	ev.ui.kind = (uint32_t)kind;
	ev.ui.obj = (uintptr_t)receiver;
	hooks_emit(&ev);
}

/* ---- notify ------------------------------------------------------------- */

/* The original of hook `which`: notifyInternal2 has no `this`. */
enum { QT_INTERNAL, QT_CORE, QT_GUI, QT_APP };
static bool deliver(int which, void *app, void *receiver, void *event)
{
	switch (which) {
	case QT_INTERNAL:
		return Q.notify_internal(receiver, event);
	case QT_CORE:
		return Q.core_notify(app, receiver, event);
	case QT_GUI:
		return Q.gui_notify(app, receiver, event);
	default:
		return Q.app_notify(app, receiver, event);
	}
}

static bool notify(int which, void *app, void *receiver, void *event)
{
	if (!hooks_active() || !receiver || !event ||
	    (receiver == cur_receiver && event == cur_event))
		return deliver(which, app, receiver, event);
	void *prev_receiver = cur_receiver, *prev_event = cur_event;
	cur_receiver = receiver;
	cur_event = event;
	/* Read before delivery: a handler may delete the receiver (deleteLater)
	 * and Qt deletes a posted event right after it. */
	unsigned type = event_type(event);
	bool posted = posted_take(posted_key(event, type));
	bool dispatch = posted || notify_depth == 0;
	void *thread = NULL;
	/* QObject's vtable: metaObject, qt_metacast, qt_metacall, two
	 * destructors, then event(QEvent *) (Itanium ABI, Qt 5 and 6) */
	uintptr_t handler = (uintptr_t)(*(void *const *const *)receiver)[5];
	struct hooks_lm lm;
	hooks_lm_begin(&lm);
	if (dispatch) {
		thread = Q.object_thread(receiver);
		emit_loop(ARGUS_EV_DISPATCH_BEGIN, thread, receiver, type);
		if (posted)
			emit_async(ARGUS_EV_ASYNC_RUN_BEGIN, event, receiver, type);
		int kind = ui_kind(type);
		if (kind >= 0)
			emit_ui(kind, receiver);
	}
	notify_depth++;
	bool r = deliver(which, app, receiver, event);
	notify_depth--;
	if (dispatch) {
		if (posted)
			emit_async(ARGUS_EV_ASYNC_RUN_END, event, receiver, type);
		emit_loop(ARGUS_EV_DISPATCH_END, thread, receiver, type);
	}
	uint64_t end;
	if (hooks_lm_end(&lm, &end))
		hooks_lm_emit(&lm, end, ARGUS_LM_QT_EVENT, handler, (uintptr_t)receiver);
	cur_receiver = prev_receiver;
	cur_event = prev_event;
	return r;
}

static bool hook_notify_internal(void *receiver, void *event)
{
	return notify(QT_INTERNAL, NULL, receiver, event);
}

static bool hook_core_notify(void *app, void *receiver, void *event)
{
	return notify(QT_CORE, app, receiver, event);
}

static bool hook_gui_notify(void *app, void *receiver, void *event)
{
	return notify(QT_GUI, app, receiver, event);
}

static bool hook_app_notify(void *app, void *receiver, void *event)
{
	return notify(QT_APP, app, receiver, event);
}

/* Written before the post: the receiver's thread may deliver (and delete)
 * the event at once. */
static void hook_post_event(void *receiver, void *event, int priority)
{
	if (hooks_active() && event) {
		unsigned type = event_type(event);
		posted_add(posted_key(event, type));
		emit_async(ARGUS_EV_ASYNC_POST, event, receiver, type);
	}
	Q.post_event(receiver, event, priority);
}

/* A signal: the caller is the signal function moc wrote. */
static void hook_activate(void *sender, const void *meta, int index, void **argv)
{
	if (!hooks_active()) {
		Q.activate(sender, meta, index, argv);
		return;
	}
	uintptr_t signal = (uintptr_t)__builtin_return_address(0);
	struct hooks_lm lm;
	uint64_t end;
	hooks_lm_begin(&lm);
	Q.activate(sender, meta, index, argv);
	if (hooks_lm_end(&lm, &end))
		hooks_lm_emit(&lm, end, ARGUS_LM_QT_SIGNAL, signal, (uintptr_t)sender);
}

static void hook_activate_off(void *sender, int offset, int index, void **argv)
{
	if (!hooks_active()) {
		Q.activate_off(sender, offset, index, argv);
		return;
	}
	uintptr_t signal = (uintptr_t)__builtin_return_address(0);
	struct hooks_lm lm;
	uint64_t end;
	hooks_lm_begin(&lm);
	Q.activate_off(sender, offset, index, argv);
	if (hooks_lm_end(&lm, &end))
		hooks_lm_emit(&lm, end, ARGUS_LM_QT_SIGNAL, signal, (uintptr_t)sender);
}

/* A (nested) event-loop level: deliveries made inside it start at depth 0
 * again, so a modal dialog's input is a dispatch of its own. */
static bool process_events(process_fn orig, void *dispatcher, int flags)
{
	unsigned saved = notify_depth;
	void *prev_receiver = cur_receiver, *prev_event = cur_event;
	notify_depth = 0;
	cur_receiver = cur_event = NULL;
	bool r = orig(dispatcher, flags);
	notify_depth = saved;
	cur_receiver = prev_receiver;
	cur_event = prev_event;
	return r;
}

static bool hook_glib_process(void *dispatcher, int flags)
{
	return process_events(Q.glib_process, dispatcher, flags);
}

static bool hook_unix_process(void *dispatcher, int flags)
{
	return process_events(Q.unix_process, dispatcher, flags);
}

/* ---- installation -------------------------------------------------------- */

static bool hook(const char *name, void *replacement, void *orig_slot)
{
	void *fn = dlsym(RTLD_DEFAULT, name);
	if (!fn)
		return false;
	int rc = hooks_inline(fn, replacement, (void **)orig_slot);
	if (rc)
		fprintf(stderr, "argus-hooks: cannot hook %s: %s\n", name, strerror(-rc));
	return rc == 0;
}

void hooks_qt_init(void)
{
	const char *(*version)(void);
	*(void **)&version = dlsym(RTLD_DEFAULT, "qVersion");
	*(void **)&Q.object_thread = dlsym(RTLD_DEFAULT, "_ZNK7QObject6threadEv");
	if (!version || !Q.object_thread)
		return; /* no QtCore in this program */
	int major = atoi(version());
	if (major == 5)
		Q.type_offset = 16;
	else if (major == 6)
		Q.type_offset = 8;
	else {
		fprintf(stderr, "argus-hooks: Qt %s is not supported; Qt not traced\n", version());
		return;
	}
	hook("_ZN16QCoreApplication9postEventEP7QObjectP6QEventi", (void *)hook_post_event,
	     &Q.post_event);
	/* Every delivery (sendEvent, spontaneous and posted events) goes through
	 * notifyInternal2, which calls the application's notify; Qt's own
	 * threads (D-Bus, ...) that need no application object skip notify. The
	 * notify implementations are hooked only where it is missing. */
	if (!hook("_ZN16QCoreApplication15notifyInternal2EP7QObjectP6QEvent",
	          (void *)hook_notify_internal, &Q.notify_internal)) {
		hook("_ZN16QCoreApplication6notifyEP7QObjectP6QEvent", (void *)hook_core_notify,
		     &Q.core_notify);
		hook("_ZN15QGuiApplication6notifyEP7QObjectP6QEvent", (void *)hook_gui_notify,
		     &Q.gui_notify);
		hook("_ZN12QApplication6notifyEP7QObjectP6QEvent", (void *)hook_app_notify,
		     &Q.app_notify);
	}
	hook("_ZN11QMetaObject8activateEP7QObjectPKS_iPPv", (void *)hook_activate, &Q.activate);
	hook("_ZN11QMetaObject8activateEP7QObjectiiPPv", (void *)hook_activate_off,
	     &Q.activate_off);
	hook("_ZN20QEventDispatcherGlib13processEventsE6QFlagsIN10QEventLoop17ProcessEventsFlagEE",
	     (void *)hook_glib_process, &Q.glib_process);
	hook("_ZN20QEventDispatcherUNIX13processEventsE6QFlagsIN10QEventLoop17ProcessEventsFlagEE",
	     (void *)hook_unix_process, &Q.unix_process);
}
