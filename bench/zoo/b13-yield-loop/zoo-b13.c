/*
 * zoo-b13.c - bug zoo case B13: a yield loop on a flag that another
 * process's message should set, and never does.
 *
 * Two processes linked by a unix socket pair: the GTK3 UI and zoo-b13-peer,
 * a document store forked at start-up. A key press sends the peer a request
 * ('f': save, 'h': save a copy) and the UI thread then spins until the
 * request is acknowledged: a unit of its idle work, sched_yield(), and a
 * look at the flag that the UI's receiver thread (zoo-b13-rx) sets when the
 * peer's "done" message comes in. The peer's dispatcher, peer_dispatch(),
 * knows only the save request: the copy request falls through its switch
 * and is dropped without an answer, so the flag is never set and the UI
 * spins until its give-up limit (4 s). The root cause is the peer's
 * dispatcher. Exits after --exit-after SECONDS (default 60) or on SIGTERM;
 * the peer exits when its socket closes.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
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

#define GIVE_UP_MS 4000

static long mono_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000L + t.tv_nsec / 1000000L;
}

/* Real work, so each step costs a little CPU. */
__attribute__((noinline)) static unsigned work_for_ns(long ns)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	volatile unsigned h = 2166136261u;
	do {
		for (int i = 0; i < 1000; i++)
			h = (h ^ (unsigned)i) * 16777619u;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < ns);
	return h;
}

/* ---- the peer: zoo-b13-peer ---- */

enum { REQ_SAVE = 's', REQ_SAVE_COPY = 'c', MSG_DONE = 'd' };

/* Reads requests and answers each with MSG_DONE - each it knows. */
__attribute__((noinline)) static void peer_dispatch(int fd)
{
	char req;
	while (read(fd, &req, 1) == 1) {
		switch (req) {
		case REQ_SAVE: {
			work_for_ns(3000000L);
			char done = MSG_DONE;
			if (write(fd, &done, 1) != 1)
				return;
			break;
		}
		default:
			/* the defect: a request it does not know is dropped,
			 * and its sender is never told */
			break;
		}
	}
}

/* ---- the UI ---- */

struct app {
	int sock;
	GtkWidget *label;
	atomic_bool done; /* set by the receiver thread on MSG_DONE */
	unsigned saved, gave_up;
};

/* zoo-b13-rx: the peer's messages, into the flag. */
static void *receiver(void *arg)
{
	struct app *a = arg;
	pthread_setname_np(pthread_self(), "zoo-b13-rx");
	char msg;
	while (read(a->sock, &msg, 1) == 1)
		if (msg == MSG_DONE)
			atomic_store(&a->done, true);
	return NULL;
}

/* The request, then a spin until the peer's answer sets the flag: a unit of
 * idle work, a yield, a look. Gives up after GIVE_UP_MS. */
__attribute__((noinline)) static bool ui_save_and_wait(struct app *a, char req)
{
	atomic_store(&a->done, false);
	if (write(a->sock, &req, 1) != 1)
		return false;
	long deadline = mono_ms() + GIVE_UP_MS;
	while (!atomic_load(&a->done)) {
		if (mono_ms() >= deadline)
			return false;
		work_for_ns(100000L);
		sched_yield();
	}
	return true;
}

static gboolean on_key(GtkWidget *w, GdkEventKey *e, gpointer arg)
{
	(void)w;
	struct app *a = arg;
	bool ok = ui_save_and_wait(a, e->keyval == GDK_KEY_h ? REQ_SAVE_COPY : REQ_SAVE);
	if (ok)
		a->saved++;
	else
		a->gave_up++;
	char text[80];
	snprintf(text, sizeof(text), "%u saved, %u gave up", a->saved, a->gave_up);
	gtk_label_set_text(GTK_LABEL(a->label), text);
	printf("%s\n", ok ? "saved" : "gave up");
	fflush(stdout);
	return TRUE;
}

static gboolean on_quit(gpointer arg)
{
	(void)arg;
	gtk_main_quit();
	return G_SOURCE_REMOVE;
}

int main(int argc, char **argv)
{
	int exit_after = 60;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--exit-after") && i + 1 < argc)
			exit_after = atoi(argv[i + 1]);
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		perror("socketpair");
		return 1;
	}
	pid_t peer = fork();
	if (peer < 0) {
		perror("fork");
		return 1;
	}
	if (peer == 0) {
		close(sv[0]);
		prctl(PR_SET_NAME, "zoo-b13-peer");
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		peer_dispatch(sv[1]);
		_exit(0);
	}
	close(sv[1]);
	struct app a = {.sock = sv[0]};
	pthread_t rx;
	if (pthread_create(&rx, NULL, receiver, &a)) {
		perror("pthread_create");
		return 1;
	}
	gtk_init(&argc, &argv);
	GtkWidget *win = gtk_window_new(GTK_WINDOW_TOPLEVEL);
	gtk_window_set_title(GTK_WINDOW(win), "zoo-b13");
	gtk_window_set_default_size(GTK_WINDOW(win), 320, 120);
	a.label = gtk_label_new("press f (save) or h (save a copy: never answered, spins 4 s)");
	gtk_container_add(GTK_CONTAINER(win), a.label);
	g_signal_connect(win, "key-press-event", G_CALLBACK(on_key), &a);
	g_signal_connect(win, "destroy", G_CALLBACK(gtk_main_quit), NULL);
	g_timeout_add_seconds((guint)exit_after, on_quit, NULL);
	g_unix_signal_add(SIGTERM, on_quit, NULL);
	gtk_widget_show_all(win);
	printf("ready\n");
	fflush(stdout);
	gtk_main();
	/* the receiver ends when the peer closes its end */
	kill(peer, SIGTERM);
	while (waitpid(peer, NULL, 0) < 0 && errno == EINTR)
		;
	pthread_join(rx, NULL);
	close(a.sock);
	return 0;
}
