/*
 * zoo-b14-bus.c - bug zoo case B14 (decoy): a message-bus daemon batching
 * unrelated clients around a hang whose cause is one service.
 *
 * Five processes on the case's private session bus (a real dbus-daemon):
 * - the GTK3 UI (zoo-b14-bus): a key press calls org.zoo.b14.Store.Save
 *   synchronously (g_dbus_connection_call_sync) from the UI thread. GDBus
 *   does the socket I/O in its worker thread; the UI thread sleeps in poll()
 *   on a private eventfd until the reply is handed to it.
 * - the service (zoo-b14b-svc) owning org.zoo.b14.Store: Save(false) does
 *   ~3 ms of work, Save(true) ('h') first runs svc_flush_slowly(), which
 *   sleeps 4 s: the root cause.
 * - three chatty clients (zoo-b14b-cl-0..2), unrelated to the UI: each emits
 *   a Tick signal every 4 ms and listens to the others', so dbus-daemon
 *   wakes about a thousand times a second and reads and forwards batches
 *   that mix their traffic with the UI's call and the service's reply: the
 *   over-connection a tracer that keeps one daemon wake-up as one segment
 *   would follow to a client.
 * Exits after --exit-after SECONDS (default 60) or on SIGTERM; the helpers
 * exit with it (PR_SET_PDEATHSIG).
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib-unix.h>

#include "zoo.h"

#define CLIENTS       3
#define STORE_NAME    "org.zoo.b14.Store"
#define STORE_PATH    "/org/zoo/b14/Store"
#define CHATTER_IFACE "org.zoo.b14.Chatter"

static gboolean quit_loop(gpointer loop)
{
	g_main_loop_quit(loop);
	return G_SOURCE_REMOVE;
}

/* ---- the service ---- */

__attribute__((noinline)) static void svc_flush_slowly(void)
{
	struct timespec t = {4, 0};
	while (nanosleep(&t, &t) && errno == EINTR)
		;
}

/* Real work, so a normal call makes the UI wait and get its answer through
 * the daemon: the normal run the diagnosis compares with. */
__attribute__((noinline)) static unsigned svc_store_page(long ns)
{
	return zoo_work_for_ns(ns);
}

static void svc_method(GDBusConnection *bus, const gchar *sender, const gchar *path,
                       const gchar *iface, const gchar *method, GVariant *args,
                       GDBusMethodInvocation *inv, gpointer arg)
{
	(void)bus, (void)sender, (void)path, (void)iface, (void)arg;
	static guint32 saved;
	if (strcmp(method, "Save")) {
		g_dbus_method_invocation_return_error(
		    inv, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_METHOD, "no method %s", method);
		return;
	}
	gboolean slow;
	g_variant_get(args, "(b)", &slow);
	if (slow)
		svc_flush_slowly();
	else
		svc_store_page(3000000L);
	g_dbus_method_invocation_return_value(inv, g_variant_new("(u)", ++saved));
}

static int svc_main(void)
{
	static const char xml[] = "<node><interface name='org.zoo.b14.Store'>"
	                          "<method name='Save'><arg type='b' direction='in'/>"
	                          "<arg type='u' direction='out'/></method>"
	                          "</interface></node>";
	static const GDBusInterfaceVTable vt = {.method_call = svc_method};
	GError *err = NULL;
	GDBusConnection *bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, &err);
	GDBusNodeInfo *node = bus ? g_dbus_node_info_new_for_xml(xml, &err) : NULL;
	if (!node || !g_dbus_connection_register_object(bus, STORE_PATH, node->interfaces[0], &vt,
	                                                NULL, NULL, &err)) {
		fprintf(stderr, "zoo-b14b-svc: %s\n", err ? err->message : "?");
		return 1;
	}
	g_bus_own_name_on_connection(bus, STORE_NAME, G_BUS_NAME_OWNER_FLAGS_NONE, NULL, NULL, NULL,
	                             NULL);
	GMainLoop *loop = g_main_loop_new(NULL, FALSE);
	g_unix_signal_add(SIGTERM, quit_loop, loop);
	g_main_loop_run(loop);
	return 0;
}

/* ---- the chatty clients ---- */

struct client {
	GDBusConnection *bus;
	guint32 sent, heard;
};

static gboolean client_tick(gpointer arg)
{
	struct client *c = arg;
	g_dbus_connection_emit_signal(c->bus, NULL, "/org/zoo/b14/Chatter", CHATTER_IFACE, "Tick",
	                              g_variant_new("(u)", ++c->sent), NULL);
	return G_SOURCE_CONTINUE;
}

static void client_heard(GDBusConnection *bus, const gchar *sender, const gchar *path,
                         const gchar *iface, const gchar *signal, GVariant *args, gpointer arg)
{
	(void)bus, (void)sender, (void)path, (void)iface, (void)signal, (void)args;
	((struct client *)arg)->heard++;
}

static int client_main(void)
{
	GError *err = NULL;
	struct client c = {.bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, &err)};
	if (!c.bus) {
		fprintf(stderr, "zoo-b14b-cl: %s\n", err->message);
		return 1;
	}
	g_dbus_connection_signal_subscribe(c.bus, NULL, CHATTER_IFACE, "Tick", NULL, NULL,
	                                   G_DBUS_SIGNAL_FLAGS_NONE, client_heard, &c, NULL);
	g_timeout_add(4, client_tick, &c);
	GMainLoop *loop = g_main_loop_new(NULL, FALSE);
	g_unix_signal_add(SIGTERM, quit_loop, loop);
	g_main_loop_run(loop);
	return 0;
}

/* Forks a helper process named name running fn; before any GLib thread
 * exists in this process. */
static pid_t spawn(const char *name, int (*fn)(void))
{
	pid_t pid = zoo_fork(name);
	if (pid == 0)
		_exit(fn());
	return pid;
}

/* ---- the UI ---- */

struct app {
	GDBusConnection *bus;
	GtkWidget *label;
};

/* Synchronous D-Bus call from the UI thread: the hang. */
__attribute__((noinline)) static void ui_save(struct app *a, gboolean slow)
{
	GError *err = NULL;
	GVariant *r = g_dbus_connection_call_sync(
	    a->bus, STORE_NAME, STORE_PATH, STORE_NAME, "Save", g_variant_new("(b)", slow),
	    G_VARIANT_TYPE("(u)"), G_DBUS_CALL_FLAGS_NO_AUTO_START, 20000, NULL, &err);
	if (!r) {
		fprintf(stderr, "Save: %s\n", err->message);
		g_error_free(err);
		return;
	}
	guint32 n;
	g_variant_get(r, "(u)", &n);
	g_variant_unref(r);
	char text[64];
	snprintf(text, sizeof(text), "%u saves", n);
	gtk_label_set_text(GTK_LABEL(a->label), text);
	printf("answer %s\n", slow ? "slow" : "fast");
	fflush(stdout);
}

static gboolean on_key(GtkWidget *w, GdkEventKey *e, gpointer arg)
{
	(void)w;
	ui_save(arg, e->keyval == GDK_KEY_h);
	return TRUE;
}

/* The service owns its name before the first key press can call it. */
static bool wait_for_store(GDBusConnection *bus)
{
	for (int i = 0; i < 100; i++) {
		GVariant *r = g_dbus_connection_call_sync(
		    bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
		    "NameHasOwner", g_variant_new("(s)", STORE_NAME), G_VARIANT_TYPE("(b)"),
		    G_DBUS_CALL_FLAGS_NONE, 1000, NULL, NULL);
		gboolean has = FALSE;
		if (r) {
			g_variant_get(r, "(b)", &has);
			g_variant_unref(r);
		}
		if (has)
			return true;
		g_usleep(50000);
	}
	return false;
}

int main(int argc, char **argv)
{
	int exit_after = zoo_args(argc, argv);
	pid_t kids[1 + CLIENTS];
	int nkids = 0;
	if ((kids[nkids++] = spawn("zoo-b14b-svc", svc_main)) < 0)
		return 1;
	for (int i = 0; i < CLIENTS; i++) {
		char name[16];
		snprintf(name, sizeof(name), "zoo-b14b-cl-%d", i);
		if ((kids[nkids++] = spawn(name, client_main)) < 0)
			return 1;
	}
	gtk_init(&argc, &argv);
	GError *err = NULL;
	struct app a = {.bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, &err)};
	if (!a.bus || !wait_for_store(a.bus)) {
		fprintf(stderr, "zoo-b14-bus: no %s on the session bus%s%s\n", STORE_NAME,
		        err ? ": " : "", err ? err->message : "");
		return 1;
	}
	GtkWidget *win = zoo_window(
	    "zoo-b14-bus", "press f (fast save) or h (hangs 4 s in the service)", on_key, &a);
	a.label = gtk_bin_get_child(GTK_BIN(win));
	zoo_ready(win, NULL);
	zoo_run(exit_after);
	for (int i = 0; i < nkids; i++)
		zoo_reap(kids[i]);
	return 0;
}
