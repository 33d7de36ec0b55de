/*
 * notify.c - the desktop notification: org.freedesktop.Notifications.Notify
 * on the session bus (GIO's GDBus), summary "pinwheel root cause found".
 */
#include <stdio.h>
#include <string.h>

#include "beam.h"

#ifdef ARGUS_HAVE_GIO
#include <gio/gio.h>

int argus_notify(const char *body, const char *report_path, char *err, size_t ecap)
{
	GError *e = NULL;
	GDBusConnection *bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, &e);
	if (!bus) {
		snprintf(err, ecap, "session bus: %s", e ? e->message : "unavailable");
		g_clear_error(&e);
		return -1;
	}
	GVariantBuilder actions, hints;
	g_variant_builder_init(&actions, G_VARIANT_TYPE("as"));
	g_variant_builder_init(&hints, G_VARIANT_TYPE("a{sv}"));
	char text[1024];
	if (report_path && *report_path) {
		/* the "default" action opens the report (its path is in the body
		 * and in the x-argus-report hint for a handler) */
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
	g_object_unref(bus);
	if (!ret) {
		snprintf(err, ecap, "Notify: %s", e ? e->message : "failed");
		g_clear_error(&e);
		return -1;
	}
	g_variant_unref(ret);
	return 0;
}
#else
int argus_notify(const char *body, const char *report_path, char *err, size_t ecap)
{
	(void)body;
	(void)report_path;
	snprintf(err, ecap, "argus was built without GIO (libglib2.0-dev)");
	return -1;
}
#endif
