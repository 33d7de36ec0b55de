/*
 * argus-demo-app.c - a GTK3 app whose UI thread hangs across processes, for
 * the live end-to-end test and `make demo`.
 *
 * At start it forks a helper process ("slow-lookup") and talks to it over a
 * unix socket pair. Every key press or click of "Look up" sends a request
 * and waits for the answer synchronously in the UI thread (a blocking
 * read): 'f' / the button answer in 3 ms (normal runs), 'h' makes the
 * helper sleep 4 s in answer_slowly() first, so the UI stalls 4 s and the
 * root cause is the helper's sleep - a LongWait chain across processes.
 * 'l' makes the UI thread itself compute for 250 ms in recompute_layout():
 * a perceptible lag, not a stall. 'b' asks the session bus daemon itself
 * (org.freedesktop.DBus.GetId) synchronously in the UI thread, on the
 * connection made at start: it hangs while the bus daemon is stopped.
 * With --via-worker the UI thread hands each request to a worker thread
 * ("lookup-worker") and waits on a condition variable for it: the chain is
 * UI thread -> worker -> helper process.
 * Exits after --exit-after SECONDS (default 60) or on SIGTERM; the helper
 * exits when the socket closes.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <glib-unix.h>
#include <gtk/gtk.h>

/* The worker of --via-worker: one request at a time, handed over under mu. */
struct worker {
	pthread_mutex_t mu;
	pthread_cond_t asked, answered;
	char req;
	bool pending, done;
	int sock;
};

struct app {
	int sock;
	GtkWidget *label;
	unsigned requests;
	struct worker *worker; /* NULL: the UI thread asks the helper itself */
	GDBusConnection *bus;  /* the session bus ('b'), or NULL */
};

/* ---- the helper process ---- */

__attribute__((noinline)) static void answer_slowly(void)
{
	struct timespec t = {4, 0};
	while (nanosleep(&t, &t) && errno == EINTR)
		;
}

/* A normal answer takes a few ms of work, so the UI thread really waits in
 * its read and is woken by the helper: the normal run the diagnosis
 * compares the hang with. */
__attribute__((noinline)) static unsigned answer_quickly(void)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	volatile unsigned h = 2166136261u;
	do {
		for (int i = 0; i < 10000; i++)
			h = (h ^ (unsigned)i) * 16777619u;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 3000000L);
	return h;
}

__attribute__((noinline)) static void slow_lookup_service(int fd)
{
	char req;
	while (read(fd, &req, 1) == 1) {
		if (req == 's')
			answer_slowly();
		else
			answer_quickly();
		char ans = 'a';
		if (write(fd, &ans, 1) != 1)
			break;
	}
}

/* ---- the worker thread (--via-worker) ---- */

__attribute__((noinline)) static bool request(int sock, char req)
{
	char ans;
	return write(sock, &req, 1) == 1 && read(sock, &ans, 1) == 1;
}

static void *lookup_worker(void *arg)
{
	struct worker *w = arg;
	prctl(PR_SET_NAME, "lookup-worker");
	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->pending)
			pthread_cond_wait(&w->asked, &w->mu);
		char req = w->req;
		w->pending = false;
		pthread_mutex_unlock(&w->mu);
		request(w->sock, req);
		pthread_mutex_lock(&w->mu);
		w->done = true;
		pthread_cond_signal(&w->answered);
	}
	return NULL;
}

/* The UI thread waits for the worker's answer: the hang, one hop further. */
__attribute__((noinline)) static bool ask_worker(struct worker *w, char req)
{
	pthread_mutex_lock(&w->mu);
	w->req = req;
	w->pending = true;
	w->done = false;
	pthread_cond_signal(&w->asked);
	while (!w->done)
		pthread_cond_wait(&w->answered, &w->mu);
	pthread_mutex_unlock(&w->mu);
	return true;
}

/* ---- the UI ---- */

/* Synchronous request from the UI thread: the hang. */
__attribute__((noinline)) static void ask_helper(struct app *a, char req)
{
	if (!(a->worker ? ask_worker(a->worker, req) : request(a->sock, req)))
		return;
	char text[64];
	snprintf(text, sizeof(text), "%u answers (last: %s)", ++a->requests,
	         req == 's' ? "slow" : "fast");
	gtk_label_set_text(GTK_LABEL(a->label), text);
	printf("answer %c\n", req);
	fflush(stdout);
}

/* 250 ms on the CPU in the UI thread: a lag of the handler itself. */
__attribute__((noinline)) static unsigned recompute_layout(void)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	volatile unsigned h = 2166136261u;
	do {
		for (int i = 0; i < 10000; i++)
			h = (h ^ (unsigned)i) * 16777619u;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 250000000L);
	printf("layout %u\n", h & 1);
	fflush(stdout);
	return h;
}

/* Synchronous call to the session bus daemon from the UI thread. */
__attribute__((noinline)) static void ask_bus(struct app *a)
{
	if (!a->bus)
		return;
	GError *e = NULL;
	GVariant *r = g_dbus_connection_call_sync(
	    a->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
	    "GetId", NULL, G_VARIANT_TYPE("(s)"), G_DBUS_CALL_FLAGS_NONE, 30000, NULL, &e);
	if (r)
		g_variant_unref(r);
	printf("answer b %s\n", r ? "ok" : e ? e->message : "failed");
	fflush(stdout);
	g_clear_error(&e);
}

static gboolean on_key(GtkWidget *w, GdkEventKey *e, gpointer arg)
{
	(void)w;
	if (e->keyval == GDK_KEY_b)
		ask_bus(arg);
	else if (e->keyval == GDK_KEY_l)
		recompute_layout();
	else
		ask_helper(arg, e->keyval == GDK_KEY_h ? 's' : 'f');
	return TRUE;
}

static void on_click(GtkButton *b, gpointer arg)
{
	(void)b;
	ask_helper(arg, 'f');
}

static gboolean on_timeout(gpointer arg)
{
	(void)arg;
	gtk_main_quit();
	return G_SOURCE_REMOVE;
}

static gboolean on_term(gpointer arg)
{
	(void)arg;
	gtk_main_quit();
	return G_SOURCE_REMOVE;
}

int main(int argc, char **argv)
{
	int exit_after = 60;
	bool via_worker = false;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--exit-after") && i + 1 < argc)
			exit_after = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--via-worker"))
			via_worker = true;
	}
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		perror("socketpair");
		return 1;
	}
	pid_t helper = fork();
	if (helper < 0) {
		perror("fork");
		return 1;
	}
	if (helper == 0) {
		close(sv[0]);
		prctl(PR_SET_NAME, "slow-lookup");
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		slow_lookup_service(sv[1]);
		_exit(0);
	}
	close(sv[1]);
	struct app a = {.sock = sv[0]};
	static struct worker w = {.mu = PTHREAD_MUTEX_INITIALIZER,
	                          .asked = PTHREAD_COND_INITIALIZER,
	                          .answered = PTHREAD_COND_INITIALIZER};
	if (via_worker) {
		pthread_t th;
		w.sock = sv[0];
		if (pthread_create(&th, NULL, lookup_worker, &w)) {
			perror("pthread_create");
			return 1;
		}
		a.worker = &w;
	}
	gtk_init(&argc, &argv);
	if (getenv("DBUS_SESSION_BUS_ADDRESS"))
		a.bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, NULL);
	GtkWidget *win = gtk_window_new(GTK_WINDOW_TOPLEVEL);
	gtk_window_set_title(GTK_WINDOW(win), "argus-demo");
	gtk_window_set_default_size(GTK_WINDOW(win), 320, 120);
	GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);
	GtkWidget *button = gtk_button_new_with_label("Look up");
	a.label = gtk_label_new("press f (fast) or h (hangs 4 s)");
	gtk_box_pack_start(GTK_BOX(box), button, TRUE, TRUE, 0);
	gtk_box_pack_start(GTK_BOX(box), a.label, TRUE, TRUE, 0);
	gtk_container_add(GTK_CONTAINER(win), box);
	g_signal_connect(win, "key-press-event", G_CALLBACK(on_key), &a);
	g_signal_connect(button, "clicked", G_CALLBACK(on_click), &a);
	g_signal_connect(win, "destroy", G_CALLBACK(gtk_main_quit), NULL);
	g_timeout_add_seconds((guint)exit_after, on_timeout, NULL);
	g_unix_signal_add(SIGTERM, on_term, NULL);
	gtk_widget_show_all(win);
	printf("ready\n");
	fflush(stdout);
	gtk_main();
	close(a.sock);
	if (a.bus)
		g_object_unref(a.bus);
	kill(helper, SIGTERM);
	while (waitpid(helper, NULL, 0) < 0 && errno == EINTR)
		;
	return 0;
}
