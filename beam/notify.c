/*
 * notify.c - the desktop notification: org.freedesktop.Notifications.Notify
 * on the session bus (GIO's GDBus), summary "pinwheel root cause found";
 * and the notifier that serves a user session's notifications and their
 * "Open report" action.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "beam.h"

#ifdef ARGUS_HAVE_GIO
#include <gio/gio.h>

/* Send the notification on bus, in place of notification `replaces` when
 * not 0; its server-assigned id goes to *id. */
static int send_notification(GDBusConnection *bus, const char *body, const char *report_path,
                             uint32_t replaces, uint32_t *id, char *err, size_t ecap)
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
	    g_variant_new("(susssasa{sv}i)", "argus", replaces, "dialog-warning",
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
	int rc = send_notification(bus, body, report_path, 0, &id, err, ecap);
	g_object_unref(bus);
	return rc;
}

/*
 * The notifier: one process per user session serves every notification
 * the daemon sends to that session (docs/daemon.md). It reads them from
 * fd, one a line ("BODY" US "REPORT"), sends each, remembers its id and
 * runs `opener REPORT` when the user takes its default action ("Open
 * report"). A notification is forgotten when closed or after timeout_s;
 * the notifier ends when fd is closed and none is pending, or after
 * timeout_s with none pending.
 */
struct notifier {
	GDBusConnection *bus;
	GMainLoop *loop;
	GHashTable *pending; /* id -> report path (owned) */
	GHashTable *timers;  /* id -> its timeout source */
	GHashTable *by_key;  /* a line's key (the stall) -> the id it was shown as */
	const char *opener;
	unsigned timeout_s;
	bool input_open;
	unsigned opening; /* pages clicked, waited for (n_open_when_there) */
	guint idle; /* with none pending: the timer that ends the notifier */
	int result; /* -1 once an opener could not run */
	char err[256];
};

static void n_check_done(struct notifier *n);

static gboolean n_idle_end(gpointer arg)
{
	struct notifier *n = arg;
	n->idle = 0;
	g_main_loop_quit(n->loop);
	return G_SOURCE_REMOVE;
}

static void n_forget(struct notifier *n, uint32_t id)
{
	gpointer key = GUINT_TO_POINTER(id);
	guint t = GPOINTER_TO_UINT(g_hash_table_lookup(n->timers, key));
	if (t)
		g_source_remove(t);
	g_hash_table_remove(n->timers, key);
	g_hash_table_remove(n->pending, key);
	n_check_done(n);
}

/* No pending notification: end now when the input is closed, else after
 * timeout_s of nothing. */
static void n_check_done(struct notifier *n)
{
	if (g_hash_table_size(n->pending) || n->opening)
		return;
	if (!n->input_open)
		g_main_loop_quit(n->loop);
	else if (!n->idle)
		n->idle = g_timeout_add_seconds(n->timeout_s, n_idle_end, n);
}

struct n_timeout {
	struct notifier *n;
	uint32_t id;
};

static gboolean n_expire(gpointer arg)
{
	struct n_timeout *t = arg;
	g_hash_table_remove(t->n->timers, GUINT_TO_POINTER(t->id)); /* this source ends itself */
	g_hash_table_remove(t->n->pending, GUINT_TO_POINTER(t->id));
	n_check_done(t->n);
	return G_SOURCE_REMOVE;
}

/* The default action on a notification whose page is not written yet (the
 * daemon notifies first, then writes it): opened once it is there, or
 * after OPEN_WAIT_TICKS x 100 ms anyway (the opener says what is missing). */
#define OPEN_WAIT_TICKS 100
struct n_open {
	struct notifier *n;
	char *report;
	unsigned ticks;
};

static void n_run_opener(struct notifier *n, const char *report)
{
	char *argv[] = {(char *)n->opener, (char *)report, NULL};
	if (!g_spawn_async(NULL, argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL)) {
		snprintf(n->err, sizeof(n->err), "cannot run %s", n->opener);
		n->result = -1;
	}
}

static gboolean n_open_when_there(gpointer arg)
{
	struct n_open *o = arg;
	if (access(o->report, F_OK) != 0 && ++o->ticks < OPEN_WAIT_TICKS)
		return G_SOURCE_CONTINUE;
	n_run_opener(o->n, o->report);
	o->n->opening--;
	n_check_done(o->n);
	g_free(o->report);
	g_free(o);
	return G_SOURCE_REMOVE;
}

static void n_signal(GDBusConnection *c, const char *sender, const char *path, const char *iface,
                     const char *name, GVariant *params, gpointer arg)
{
	(void)c, (void)sender, (void)path, (void)iface;
	struct notifier *n = arg;
	uint32_t id;
	if (!strcmp(name, "ActionInvoked")) {
		const char *key;
		g_variant_get(params, "(u&s)", &id, &key);
		const char *report = g_hash_table_lookup(n->pending, GUINT_TO_POINTER(id));
		if (!report || strcmp(key, "default") != 0)
			return;
		if (access(report, F_OK) == 0) {
			n_run_opener(n, report);
		} else {
			struct n_open *o = g_new0(struct n_open, 1);
			o->n = n;
			o->report = g_strdup(report);
			n->opening++;
			g_timeout_add(100, n_open_when_there, o);
		}
		n_forget(n, id);
	} else if (!strcmp(name, "NotificationClosed")) {
		uint32_t reason;
		g_variant_get(params, "(uu)", &id, &reason);
		if (g_hash_table_contains(n->pending, GUINT_TO_POINTER(id)))
			n_forget(n, id);
	}
}

/* One line from the daemon: send it, remember it. A line whose key was
 * seen before replaces that notification (the stall's final diagnosis: one
 * hang, one notification on screen, updated). */
static void n_line(struct notifier *n, char *line)
{
	line[strcspn(line, "\n")] = 0;
	char *report = strchr(line, ARGUS_NOTIFY_SEP), *key = NULL;
	if (report) {
		*report++ = 0;
		key = strchr(report, ARGUS_NOTIFY_SEP);
		if (key)
			*key++ = 0;
	}
	uint32_t id, replaces = 0;
	if (key && *key)
		replaces = GPOINTER_TO_UINT(g_hash_table_lookup(n->by_key, key));
	char err[256];
	if (send_notification(n->bus, line, report, replaces, &id, err, sizeof(err))) {
		fprintf(stderr, "argus notifier: %s\n", err);
		return;
	}
	if (key && *key) {
		if (g_hash_table_size(n->by_key) >= 4096)
			g_hash_table_remove_all(n->by_key); /* bounded: old stalls' keys go */
		g_hash_table_replace(n->by_key, g_strdup(key), GUINT_TO_POINTER(id));
	}
	if (replaces && replaces != id)
		n_forget(n, replaces); /* a server that gave it a new id */
	if (!report || !*report)
		return; /* no action to wait for */
	if (n->idle) {
		g_source_remove(n->idle);
		n->idle = 0;
	}
	g_hash_table_replace(n->pending, GUINT_TO_POINTER(id), g_strdup(report));
	struct n_timeout *t = g_new(struct n_timeout, 1);
	t->n = n;
	t->id = id;
	guint src = g_timeout_add_seconds_full(G_PRIORITY_DEFAULT, n->timeout_s, n_expire, t, g_free);
	g_hash_table_replace(n->timers, GUINT_TO_POINTER(id), GUINT_TO_POINTER(src));
}

static gboolean n_input(GIOChannel *ch, GIOCondition cond, gpointer arg)
{
	struct notifier *n = arg;
	(void)cond;
	for (;;) {
		char *line = NULL;
		GIOStatus st = g_io_channel_read_line(ch, &line, NULL, NULL, NULL);
		if (st == G_IO_STATUS_NORMAL) {
			n_line(n, line);
			g_free(line);
			continue;
		}
		g_free(line);
		if (st == G_IO_STATUS_AGAIN)
			return G_SOURCE_CONTINUE;
		/* end of input or an error: serve what is pending, then end */
		n->input_open = false;
		n_check_done(n);
		return G_SOURCE_REMOVE;
	}
}

int argus_notifier_run(int fd, unsigned timeout_s, const char *opener, char *err, size_t ecap)
{
	struct notifier n = {.opener = opener ? opener : "xdg-open",
	                     .timeout_s = timeout_s ? timeout_s : 600,
	                     .input_open = true};
	n.bus = session_bus(err, ecap);
	if (!n.bus)
		return -1;
	n.loop = g_main_loop_new(NULL, FALSE);
	n.pending = g_hash_table_new_full(NULL, NULL, NULL, g_free);
	n.timers = g_hash_table_new(NULL, NULL);
	n.by_key = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	/* subscribed before the first Notify: a fast click must not be missed */
	guint sub = g_dbus_connection_signal_subscribe(
	    n.bus, NULL, "org.freedesktop.Notifications", NULL, "/org/freedesktop/Notifications",
	    NULL, G_DBUS_SIGNAL_FLAGS_NONE, n_signal, &n, NULL);
	GIOChannel *ch = g_io_channel_unix_new(fd);
	g_io_channel_set_encoding(ch, NULL, NULL);
	g_io_channel_set_flags(ch, G_IO_FLAG_NONBLOCK, NULL);
	g_io_add_watch(ch, G_IO_IN | G_IO_HUP | G_IO_ERR, n_input, &n);
	g_main_loop_run(n.loop);
	g_io_channel_unref(ch);
	g_dbus_connection_signal_unsubscribe(n.bus, sub);
	GHashTableIter it;
	gpointer key, val;
	g_hash_table_iter_init(&it, n.timers);
	while (g_hash_table_iter_next(&it, &key, &val))
		g_source_remove(GPOINTER_TO_UINT(val));
	if (n.idle)
		g_source_remove(n.idle);
	g_hash_table_unref(n.timers);
	g_hash_table_unref(n.by_key);
	g_hash_table_unref(n.pending);
	g_main_loop_unref(n.loop);
	g_object_unref(n.bus);
	if (n.result < 0)
		snprintf(err, ecap, "%s", n.err);
	return n.result;
}
#else
int argus_notify(const char *body, const char *report_path, char *err, size_t ecap)
{
	(void)body;
	(void)report_path;
	snprintf(err, ecap, "argus was built without GIO (libglib2.0-dev)");
	return -1;
}

int argus_notifier_run(int fd, unsigned timeout_s, const char *opener, char *err, size_t ecap)
{
	(void)fd;
	(void)timeout_s;
	(void)opener;
	snprintf(err, ecap, "argus was built without GIO (libglib2.0-dev)");
	return -1;
}
#endif
