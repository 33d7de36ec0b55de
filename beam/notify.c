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
#include "notify_priv.h"

#ifdef ARGUS_HAVE_GIO
#include <gio/gio.h>
#include <glib-unix.h>

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
	                  ARGUS_NOTIFY_SUMMARY, text, &actions, &hints, -1),
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
 * fd, one a line ("BODY" US "REPORT" US "KEY" US "DISPLAY" US "XAUTHORITY",
 * all but the body optional), sends each (one call at a time, in order),
 * remembers its id and runs `opener REPORT` when the user takes its default
 * action ("Open report"). A notification is forgotten when closed or after
 * timeout_s; the notifier ends when fd is closed and none is pending, or
 * after timeout_s with none pending.
 *
 * Nothing here waits on the bus: the connection and the calls are
 * asynchronous, so a stopped bus or notification server holds up no line.
 * A line whose Notify has not been answered ARGUS_NOTIFY_FALLBACK_MS after
 * it came (or that failed) is shown as a window of argus's own on the app's
 * display (notify_popup.c) until clicked, timeout_s, or the late answer:
 * then the desktop's notification is on screen and the window goes.
 */
struct popup {
	struct notifier *n;
	struct argus_popup *x;
	char *key;    /* the stall it shows, or NULL */
	guint watch;  /* its X connection's events */
	guint expiry; /* timeout_s */
};

struct note {
	struct notifier *n;
	char *body, *report, *key, *display, *xauth;
	guint deadline;   /* ARGUS_NOTIFY_FALLBACK_MS after it came */
	struct popup *pu; /* its fallback window, while shown */
};

struct notifier {
	GDBusConnection *bus;
	bool bus_failed; /* no bus: every line goes to its fallback at once */
	guint sub;
	GMainLoop *loop;
	GQueue todo;         /* notes not sent yet, in order */
	struct note *flying; /* the one whose Notify is on its way */
	GList *popups;       /* windows shown */
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

/* Nothing pending, waiting or shown: end now when the input is closed,
 * else after timeout_s of nothing. */
static void n_check_done(struct notifier *n)
{
	if (g_hash_table_size(n->pending) || n->opening || n->flying || n->todo.length ||
	    n->popups)
		return;
	if (!n->input_open)
		g_main_loop_quit(n->loop);
	else if (!n->idle)
		n->idle = g_timeout_add_seconds(n->timeout_s, n_idle_end, n);
}

static void n_busy(struct notifier *n)
{
	if (n->idle) {
		g_source_remove(n->idle);
		n->idle = 0;
	}
}

/* ---- the fallback windows ---- */

static void popup_close(struct popup *pu)
{
	struct notifier *n = pu->n;
	if (pu->watch)
		g_source_remove(pu->watch);
	if (pu->expiry)
		g_source_remove(pu->expiry);
	argus_popup_close(pu->x);
	n->popups = g_list_remove(n->popups, pu);
	g_free(pu->key);
	g_free(pu);
	n_check_done(n);
}

/* A note's window is no longer its own (it stays until clicked). */
static void popup_unlink(struct note *no)
{
	no->pu = NULL;
}

/* The window goes (clicked, or its time is up): no note keeps it. */
static void popup_dismiss(struct popup *pu)
{
	for (GList *l = pu->n->todo.head; l; l = l->next)
		if (((struct note *)l->data)->pu == pu)
			popup_unlink(l->data);
	if (pu->n->flying && pu->n->flying->pu == pu)
		popup_unlink(pu->n->flying);
	popup_close(pu);
}

static gboolean popup_event(gint fd, GIOCondition cond, gpointer arg)
{
	(void)fd, (void)cond;
	struct popup *pu = arg;
	if (argus_popup_events(pu->x))
		return G_SOURCE_CONTINUE;
	pu->watch = 0; /* ends with this callback */
	popup_dismiss(pu);
	return G_SOURCE_REMOVE;
}

static gboolean popup_expire(gpointer arg)
{
	struct popup *pu = arg;
	pu->expiry = 0;
	popup_dismiss(pu);
	return G_SOURCE_REMOVE;
}

/* The text a notification shows: the body and its report's path. */
static void note_text(const char *body, const char *report, char *text, size_t cap)
{
	if (report && *report)
		snprintf(text, cap, "%s\nreport: %s", body, report);
	else
		snprintf(text, cap, "%s", body);
}

/* Show no's fallback window (once); why goes to the log. A window of the
 * same stall (an earlier line's) is replaced. */
static void note_fallback(struct note *no, const char *why)
{
	struct notifier *n = no->n;
	if (no->deadline) {
		g_source_remove(no->deadline);
		no->deadline = 0;
	}
	if (no->pu)
		return;
	if (no->key)
		for (GList *l = n->popups; l; l = l->next) {
			struct popup *old = l->data;
			if (old->key && !strcmp(old->key, no->key)) {
				for (GList *t = n->todo.head; t; t = t->next)
					if (((struct note *)t->data)->pu == old)
						popup_unlink(t->data);
				if (n->flying && n->flying->pu == old)
					popup_unlink(n->flying);
				popup_close(old);
				break;
			}
		}
	char text[1024], err[256];
	note_text(no->body, no->report, text, sizeof(text));
	struct argus_popup *x =
	    argus_popup_open(no->display, no->xauth, ARGUS_NOTIFY_SUMMARY, text, err, sizeof(err));
	if (!x) {
		fprintf(stderr, "argus notifier: %s; no fallback window: %s\n", why, err);
		return;
	}
	fprintf(stderr, "argus notifier: %s: shown as a window on %s\n", why,
	        no->display && *no->display ? no->display : "$DISPLAY");
	struct popup *pu = g_new0(struct popup, 1);
	pu->n = n;
	pu->x = x;
	pu->key = g_strdup(no->key);
	pu->watch =
	    g_unix_fd_add(argus_popup_fd(x), G_IO_IN | G_IO_HUP | G_IO_ERR, popup_event, pu);
	pu->expiry = g_timeout_add_seconds(n->timeout_s, popup_expire, pu);
	n->popups = g_list_prepend(n->popups, pu);
	no->pu = pu;
	n_busy(n);
	argus_popup_events(x); /* what came with the connection */
}

static gboolean note_deadline(gpointer arg)
{
	struct note *no = arg;
	no->deadline = 0;
	note_fallback(no, "no answer from the desktop's notification server in time");
	return G_SOURCE_REMOVE;
}

static void note_free(struct note *no)
{
	if (no->deadline)
		g_source_remove(no->deadline);
	g_free(no->body);
	g_free(no->report);
	g_free(no->key);
	g_free(no->display);
	g_free(no->xauth);
	g_free(no);
}

/* ---- the desktop notification ---- */

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

static void n_pump(struct notifier *n);

/* The Notify call of n->flying answered (or failed). */
static void n_sent(GObject *src, GAsyncResult *res, gpointer arg)
{
	struct notifier *n = arg;
	struct note *no = n->flying;
	n->flying = NULL;
	GError *e = NULL;
	GVariant *ret = g_dbus_connection_call_finish(G_DBUS_CONNECTION(src), res, &e);
	if (!ret) {
		char why[320];
		snprintf(why, sizeof(why), "Notify: %s", e ? e->message : "failed");
		g_clear_error(&e);
		/* the desktop will not show it: the window is the notification */
		if (no->pu)
			fprintf(stderr, "argus notifier: %s (the window stays)\n", why);
		else
			note_fallback(no, why);
		note_free(no);
		n_pump(n);
		n_check_done(n);
		return;
	}
	uint32_t id, replaces = 0;
	g_variant_get(ret, "(u)", &id);
	g_variant_unref(ret);
	/* the desktop shows it now: the window would be a second one */
	if (no->pu)
		popup_close(no->pu);
	no->pu = NULL;
	if (no->key && *no->key) {
		replaces = GPOINTER_TO_UINT(g_hash_table_lookup(n->by_key, no->key));
		if (g_hash_table_size(n->by_key) >= 4096)
			g_hash_table_remove_all(n->by_key); /* bounded: old stalls' keys go */
		g_hash_table_replace(n->by_key, g_strdup(no->key), GUINT_TO_POINTER(id));
	}
	if (replaces && replaces != id)
		n_forget(n, replaces); /* a server that gave it a new id */
	if (no->report && *no->report) {
		n_busy(n);
		g_hash_table_replace(n->pending, GUINT_TO_POINTER(id), g_strdup(no->report));
		struct n_timeout *t = g_new(struct n_timeout, 1);
		t->n = n;
		t->id = id;
		guint s = g_timeout_add_seconds_full(G_PRIORITY_DEFAULT, n->timeout_s, n_expire, t,
		                                     g_free);
		g_hash_table_replace(n->timers, GUINT_TO_POINTER(id), GUINT_TO_POINTER(s));
	}
	note_free(no);
	n_pump(n);
	n_check_done(n);
}

/* Send the next line's Notify, in place of its stall's notification when
 * one is on screen (the stall's final diagnosis: one hang, one
 * notification, updated); one call at a time keeps them in order. */
static void n_pump(struct notifier *n)
{
	if (n->bus_failed) {
		struct note *no;
		while ((no = g_queue_pop_head(&n->todo))) {
			note_fallback(no, "no session bus");
			note_free(no);
		}
		return;
	}
	if (!n->bus || n->flying || !n->todo.length)
		return;
	struct note *no = g_queue_pop_head(&n->todo);
	n->flying = no;
	uint32_t replaces = 0;
	if (no->key && *no->key)
		replaces = GPOINTER_TO_UINT(g_hash_table_lookup(n->by_key, no->key));
	GVariantBuilder actions, hints;
	g_variant_builder_init(&actions, G_VARIANT_TYPE("as"));
	g_variant_builder_init(&hints, G_VARIANT_TYPE("a{sv}"));
	if (no->report && *no->report) {
		g_variant_builder_add(&actions, "s", "default");
		g_variant_builder_add(&actions, "s", "Open report");
		g_variant_builder_add(&hints, "{sv}", "x-argus-report",
		                      g_variant_new_string(no->report));
	}
	g_variant_builder_add(&hints, "{sv}", "urgency", g_variant_new_byte(2));
	char text[1024];
	note_text(no->body, no->report, text, sizeof(text));
	g_dbus_connection_call(n->bus, "org.freedesktop.Notifications",
	                       "/org/freedesktop/Notifications", "org.freedesktop.Notifications",
	                       "Notify",
	                       g_variant_new("(susssasa{sv}i)", "argus", replaces, "dialog-warning",
	                                     ARGUS_NOTIFY_SUMMARY, text, &actions, &hints, -1),
	                       G_VARIANT_TYPE("(u)"), G_DBUS_CALL_FLAGS_NONE,
	                       /* as long as a notification is kept: a call that timed
	                        * out would still be delivered by a bus that runs
	                        * again, beside a window left up for it */
	                       (int)MIN(n->timeout_s, 3600u) * 1000, NULL, n_sent, n);
}

static void n_connected(GObject *src, GAsyncResult *res, gpointer arg)
{
	(void)src;
	struct notifier *n = arg;
	GError *e = NULL;
	n->bus = g_bus_get_finish(res, &e);
	if (!n->bus) {
		fprintf(stderr, "argus notifier: session bus: %s\n",
		        e ? e->message : "unavailable");
		g_clear_error(&e);
		n->bus_failed = true;
	} else {
		/* subscribed before the first Notify: a fast click must not be missed */
		n->sub = g_dbus_connection_signal_subscribe(
		    n->bus, NULL, "org.freedesktop.Notifications", NULL,
		    "/org/freedesktop/Notifications", NULL, G_DBUS_SIGNAL_FLAGS_NONE, n_signal, n,
		    NULL);
	}
	n_pump(n);
	n_check_done(n);
}

/* One line from the daemon: queued for its Notify, its fallback's clock
 * started. */
static void n_line(struct notifier *n, char *line)
{
	line[strcspn(line, "\n")] = 0;
	char *f[5] = {line, NULL, NULL, NULL, NULL};
	for (int i = 1; i < 5; i++) {
		char *s = f[i - 1] ? strchr(f[i - 1], ARGUS_NOTIFY_SEP) : NULL;
		if (!s)
			break;
		*s = 0;
		f[i] = s + 1;
	}
	struct note *no = g_new0(struct note, 1);
	no->n = n;
	no->body = g_strdup(f[0]);
	no->report = f[1] && *f[1] ? g_strdup(f[1]) : NULL;
	no->key = f[2] && *f[2] ? g_strdup(f[2]) : NULL;
	no->display = g_strdup(f[3] && *f[3] ? f[3] : getenv("DISPLAY"));
	no->xauth = f[4] && *f[4] ? g_strdup(f[4]) : NULL;
	n_busy(n);
	/* a window of this stall on screen: the bus is slow now, the update
	 * goes to the window at once */
	bool shown = false;
	for (GList *l = n->popups; l && no->key; l = l->next)
		shown |= ((struct popup *)l->data)->key &&
		         !strcmp(((struct popup *)l->data)->key, no->key);
	g_queue_push_tail(&n->todo, no);
	if (shown)
		note_fallback(no, "an update of a notification shown as a window");
	else
		no->deadline = g_timeout_add(ARGUS_NOTIFY_FALLBACK_MS, note_deadline, no);
	n_pump(n);
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
	if (!getenv("DBUS_SESSION_BUS_ADDRESS")) {
		/* GIO would autolaunch a bus of its own */
		snprintf(err, ecap, "session bus: DBUS_SESSION_BUS_ADDRESS not set");
		return -1;
	}
	n.loop = g_main_loop_new(NULL, FALSE);
	g_queue_init(&n.todo);
	n.pending = g_hash_table_new_full(NULL, NULL, NULL, g_free);
	n.timers = g_hash_table_new(NULL, NULL);
	n.by_key = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	/* the connection comes when the bus answers; lines are read meanwhile */
	g_bus_get(G_BUS_TYPE_SESSION, NULL, n_connected, &n);
	GIOChannel *ch = g_io_channel_unix_new(fd);
	g_io_channel_set_encoding(ch, NULL, NULL);
	g_io_channel_set_flags(ch, G_IO_FLAG_NONBLOCK, NULL);
	g_io_add_watch(ch, G_IO_IN | G_IO_HUP | G_IO_ERR, n_input, &n);
	g_main_loop_run(n.loop);
	g_io_channel_unref(ch);
	if (n.sub)
		g_dbus_connection_signal_unsubscribe(n.bus, n.sub);
	GHashTableIter it;
	gpointer key, val;
	g_hash_table_iter_init(&it, n.timers);
	while (g_hash_table_iter_next(&it, &key, &val))
		g_source_remove(GPOINTER_TO_UINT(val));
	if (n.idle)
		g_source_remove(n.idle);
	while (n.popups)
		popup_close(n.popups->data);
	struct note *no;
	while ((no = g_queue_pop_head(&n.todo)))
		note_free(no);
	g_hash_table_unref(n.timers);
	g_hash_table_unref(n.by_key);
	g_hash_table_unref(n.pending);
	g_main_loop_unref(n.loop);
	if (n.bus)
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
