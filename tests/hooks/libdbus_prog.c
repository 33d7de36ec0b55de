/*
 * libdbus_prog.c - a libdbus (not GDBus) client for the hooks tests: calls
 * org.argus.HookTest.Ping (served by glib_prog dbus-server) and blocks for
 * the reply.
 */
#include <dbus/dbus.h>
#include <stdio.h>

int main(void)
{
	DBusError err;
	dbus_error_init(&err);
	DBusConnection *c = dbus_bus_get(DBUS_BUS_SESSION, &err);
	if (!c) {
		fprintf(stderr, "libdbus_prog: %s\n", err.message);
		return 3;
	}
	DBusMessage *m = dbus_message_new_method_call("org.argus.HookTest", "/org/argus/HookTest",
	                                              "org.argus.HookTest", "Ping");
	DBusMessage *r = dbus_connection_send_with_reply_and_block(c, m, 5000, &err);
	if (!r) {
		fprintf(stderr, "libdbus_prog: Ping: %s\n", err.message);
		return 4;
	}
	printf("call_serial=%u\nreply_serial=%u\n", dbus_message_get_serial(m),
	       dbus_message_get_reply_serial(r));
	dbus_message_unref(r);
	dbus_message_unref(m);
	dbus_connection_unref(c);
	return 0;
}
