/*
 * notify.c - the desktop notification: org.freedesktop.Notifications.Notify
 * on the session bus (GIO's GDBus), summary "pinwheel root cause found".
 */
#include <stdio.h>
#include <string.h>

#include "beam.h"

#ifdef ARGUS_HAVE_GIO
#include <gio/gio.h>

/* Send the notification on bus; its server-assigned id goes to *id. */
static int send_notification(GDBusConnection *bus, const char *body, const char *report_path,
                             uint32_t *id, char *err, size_t ecap)
{
	GError *e = NULL;
	GVariantBuilder actions, hints;
	g_variant_builder_init(&actions, G_VARIANT_TYPE("as"));
	g_variant_builder_init(&hints, G_VARIANT_TYPE("a{sv}"));
	char text[1024];
	if (report_path && *report_path) {
		/* the "default" action opens the report (its path is in the body
		 * and in the x-argus-report hint for other handlers) */
		g_variant_builder_add(&actions, "s", "default");
		g_variant_builder_add(&actions, "s", "Open report");
		g_variant_builder_add(&hints, "{sv}", "x-argus-report",
		                      g_variant_new_string(report_path));
		snprintf(text, sizeof(text), "%s\nreport: %s", body, report_path);
	} else {
		snprintf(text, sizeof(text), "%s", body);
	}
	g_variant_builder_add(&hints, "{sv}", "urgency", g_variant_new_byte(2));
	GVariant *ret = g_dbus_connection_call_sync(
	    bus, "org.freedesktop.Notifications", "/org/freedesktop/Notifications",
	    "org.freedesktop.Notifications", "Notify",
	    g_variant_new("(susssasa{sv}i)", "argus", 0u, "dialog-warning",
	                  "pinwheel root cause found", text, &actions, &hints, -1),
	    G_VARIANT_TYPE("(u)"), G_DBUS_CALL_FLAGS_NONE, 5000, NULL, &e);
	if (!ret) {
		snprintf(err, ecap, "Notify: %s", e ? e->message : "failed");
		g_clear_error(&e);
		return -1;
	}
	g_variant_get(ret, "(u)", id);
	g_variant_unref(ret);
	return 0;
}

static GDBusConnection *session_bus(char *err, size_t ecap)
{
	GError *e = NULL;
	GDBusConnection *bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, &e);
	if (!bus) {
		snprintf(err, ecap, "session bus: %s", e ? e->message : "unavailable");
		g_clear_error(&e);
	}
	return bus;
}

int argus_notify(const char *body, const char *report_path, char *err, size_t ecap)
{
	GDBusConnection *bus = session_bus(err, ecap);
	if (!bus)
		return -1;
	uint32_t id;
	int rc = send_notification(bus, body, report_path, &id, err, ecap);
	g_object_unref(bus);
	return rc;
}

/* What the wait for the user's answer to one notification needs. */
struct answer {
	uint32_t id;
	const char *report, *opener;
	GMainLoop *loop;
	guint timer; /* 0 once it fired */
	int result;  /* 1 opened, 0 closed or timed out, -1 the opener failed */
};

static void on_signal(GDBusConnection *c, const char *sender, const char *path, const char *iface,
                      const char *name, GVariant *params, gpointer arg)
{
	(void)c, (void)sender, (void)path, (void)iface;
	struct answer *a = arg;
	uint32_t id;
	if (!strcmp(name, "ActionInvoked")) {
		const char *key;
		g_variant_get(params, "(u&s)", &id, &key);
		if (id != a->id || strcmp(key, "default") != 0)
			return;
		char *argv[] = {(char *)a->opener, (char *)a->report, NULL};
		a->result =
		    g_spawn_async(NULL, argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL)
		        ? 1
		        : -1;
		g_main_loop_quit(a->loop);
	} else if (!strcmp(name, "NotificationClosed")) {
		uint32_t reason;
		g_variant_get(params, "(uu)", &id, &reason);
		if (id == a->id)
			g_main_loop_quit(a->loop);
	}
}

static gboolean on_timeout(gpointer arg)
{
	struct answer *a = arg;
	a->timer = 0;
	g_main_loop_quit(a->loop);
	return G_SOURCE_REMOVE;
}

int argus_notify_serve(const char *body, const char *report_path, unsigned timeout_s,
                       const char *opener, char *err, size_t ecap)
{
	GDBusConnection *bus = session_bus(err, ecap);
	if (!bus)
		return -1;
	struct answer a = {.report = report_path, .opener = opener ? opener : "xdg-open"};
	a.loop = g_main_loop_new(NULL, FALSE);
	/* subscribe before sending: a fast click must not be missed */
	guint sub = g_dbus_connection_signal_subscribe(
	    bus, NULL, "org.freedesktop.Notifications", NULL, "/org/freedesktop/Notifications",
	    NULL, G_DBUS_SIGNAL_FLAGS_NONE, on_signal, &a, NULL);
	int rc = send_notification(bus, body, report_path, &a.id, err, ecap);
	if (rc == 0 && report_path && *report_path) {
		a.timer = g_timeout_add_seconds(timeout_s, on_timeout, &a);
		g_main_loop_run(a.loop);
		if (a.timer)
			g_source_remove(a.timer);
		if (a.result < 0) {
			snprintf(err, ecap, "cannot run %s", a.opener);
			rc = -1;
		} else {
			rc = a.result;
		}
	}
	g_dbus_connection_signal_unsubscribe(bus, sub);
	g_main_loop_unref(a.loop);
	g_object_unref(bus);
	return rc;
}
#else
int argus_notify(const char *body, const char *report_path, char *err, size_t ecap)
{
	(void)body;
	(void)report_path;
	snprintf(err, ecap, "argus was built without GIO (libglib2.0-dev)");
	return -1;
}

int argus_notify_serve(const char *body, const char *report_path, unsigned timeout_s,
                       const char *opener, char *err, size_t ecap)
{
	(void)timeout_s;
	(void)opener;
	return argus_notify(body, report_path, err, ecap);
}
#endif
