/*
 * hook_dbus.c - libdbus (the reference D-Bus library) messages, by inline
 * hooks: a sent message's serial is known once the send returns; a received
 * one is seen by a filter argus adds to each connection it saw send (the
 * filter runs in the thread that dispatches), by dbus_connection_pop_message,
 * and, for replies to pending calls (which bypass filters), by
 * dbus_pending_call_steal_reply. Records as for GDBus (hook_glib.c).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "hooks_internal.h"

/* libdbus's types, opaque here: the library is not linked (nor its headers
 * needed); its functions are found with dlsym. */
typedef struct DBusConnection DBusConnection;
typedef struct DBusMessage DBusMessage;
typedef struct DBusPendingCall DBusPendingCall;
typedef struct DBusPreallocatedSend DBusPreallocatedSend;
typedef int (*dbus_filter_fn)(DBusConnection *, DBusMessage *, void *);

#define DBUS_HANDLER_RESULT_NOT_YET_HANDLED 1
#define MAX_CONNS                           64

struct dbus_hooks {
	uint32_t (*get_serial)(DBusMessage *);
	uint32_t (*get_reply_serial)(DBusMessage *);
	int (*get_type)(DBusMessage *);
	uint32_t (*add_filter)(DBusConnection *, dbus_filter_fn, void *, void (*)(void *));

	uint32_t (*send)(DBusConnection *, DBusMessage *, uint32_t *);
	uint32_t (*send_with_reply)(DBusConnection *, DBusMessage *, DBusPendingCall **, int);
	void (*send_prealloc)(DBusConnection *, DBusPreallocatedSend *, DBusMessage *, uint32_t *);
	DBusMessage *(*pop_message)(DBusConnection *);
	DBusMessage *(*steal_reply)(DBusPendingCall *);

	_Atomic(DBusConnection *) filtered[MAX_CONNS]; /* connections with our filter */
	atomic_flag lock;
};

/* Part of the library's root state (see hooks_internal.h). */
static struct dbus_hooks D = {.lock = ATOMIC_FLAG_INIT};

static __thread int in_send __attribute__((tls_model("initial-exec")));

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void emit(unsigned type, uint64_t ts, DBusConnection *c, DBusMessage *m)
{
	struct argus_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.ts = ts;
	ev.type = (uint16_t)type;
	ev.dbus.conn = (uintptr_t)c;
	ev.dbus.serial = D.get_serial(m);
	ev.dbus.reply_serial = D.get_reply_serial(m);
	ev.dbus.msg_type = (uint32_t)D.get_type(m); /* DBUS_MESSAGE_TYPE_*: 1..4 as ours */
	hooks_emit(&ev);
}

static int on_message(DBusConnection *c, DBusMessage *m, void *data)
{
	(void)data;
	if (hooks_active())
		emit(ARGUS_EV_DBUS_RECV, 0, c, m);
	return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
}

/* Add our filter the first time a connection is seen. */
static void watch_connection(DBusConnection *c)
{
	for (unsigned i = 0; i < MAX_CONNS; i++) {
		DBusConnection *f = atomic_load_explicit(&D.filtered[i], memory_order_acquire);
		if (f == c)
			return;
		if (!f)
			break;
	}
	while (atomic_flag_test_and_set_explicit(&D.lock, memory_order_acquire))
		;
	unsigned i = 0;
	while (i < MAX_CONNS && D.filtered[i] && D.filtered[i] != c)
		i++;
	bool add = i < MAX_CONNS && !D.filtered[i];
	if (add)
		atomic_store_explicit(&D.filtered[i], c, memory_order_release);
	atomic_flag_clear_explicit(&D.lock, memory_order_release);
	if (add)
		D.add_filter(c, on_message, NULL, NULL);
}

static uint32_t hook_send(DBusConnection *c, DBusMessage *m, uint32_t *serial)
{
	if (!hooks_active() || in_send)
		return D.send(c, m, serial);
	uint64_t ts = now_ns();
	in_send++;
	uint32_t ok = D.send(c, m, serial);
	in_send--;
	if (ok) {
		emit(ARGUS_EV_DBUS_SEND, ts, c, m);
		watch_connection(c);
	}
	return ok;
}

static uint32_t hook_send_with_reply(DBusConnection *c, DBusMessage *m, DBusPendingCall **p,
                                     int timeout)
{
	if (!hooks_active() || in_send)
		return D.send_with_reply(c, m, p, timeout);
	uint64_t ts = now_ns();
	in_send++;
	uint32_t ok = D.send_with_reply(c, m, p, timeout);
	in_send--;
	if (ok && D.get_serial(m)) {
		emit(ARGUS_EV_DBUS_SEND, ts, c, m);
		watch_connection(c);
	}
	return ok;
}

static void hook_send_prealloc(DBusConnection *c, DBusPreallocatedSend *pre, DBusMessage *m,
                               uint32_t *serial)
{
	if (!hooks_active() || in_send) {
		D.send_prealloc(c, pre, m, serial);
		return;
	}
	uint64_t ts = now_ns();
	in_send++;
	D.send_prealloc(c, pre, m, serial);
	in_send--;
	emit(ARGUS_EV_DBUS_SEND, ts, c, m);
	watch_connection(c);
}

static DBusMessage *hook_pop_message(DBusConnection *c)
{
	DBusMessage *m = D.pop_message(c);
	if (m && hooks_active())
		emit(ARGUS_EV_DBUS_RECV, 0, c, m);
	return m;
}

static DBusMessage *hook_steal_reply(DBusPendingCall *p)
{
	DBusMessage *m = D.steal_reply(p);
	if (m && hooks_active())
		emit(ARGUS_EV_DBUS_RECV, 0, NULL, m);
	return m;
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

void hooks_dbus_init(void)
{
	*(void **)&D.get_serial = dlsym(RTLD_DEFAULT, "dbus_message_get_serial");
	*(void **)&D.get_reply_serial = dlsym(RTLD_DEFAULT, "dbus_message_get_reply_serial");
	*(void **)&D.get_type = dlsym(RTLD_DEFAULT, "dbus_message_get_type");
	*(void **)&D.add_filter = dlsym(RTLD_DEFAULT, "dbus_connection_add_filter");
	if (!D.get_serial || !D.get_reply_serial || !D.get_type || !D.add_filter)
		return; /* no libdbus in this program */
	hook("dbus_connection_send", (void *)hook_send, &D.send);
	hook("dbus_connection_send_with_reply", (void *)hook_send_with_reply, &D.send_with_reply);
	hook("dbus_connection_send_preallocated", (void *)hook_send_prealloc, &D.send_prealloc);
	hook("dbus_connection_pop_message", (void *)hook_pop_message, &D.pop_message);
	hook("dbus_pending_call_steal_reply", (void *)hook_steal_reply, &D.steal_reply);
}
