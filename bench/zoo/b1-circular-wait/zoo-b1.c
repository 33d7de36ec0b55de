/*
 * zoo-b1.c - bug zoo case B1: a circular wait between the main threads of
 * two processes, broken by a timed wait.
 *
 * Two processes: the GTK3 UI and zoo-b1-peer, a text shaping service forked
 * at start-up, linked by two unix socket pairs. On the request socket the UI
 * asks the peer to shape the text typed; on the metrics socket the peer asks
 * the UI's main thread for the font metrics it needs first, and the UI's
 * main loop answers. An ASCII key ('f') is shaped asynchronously: the UI
 * sends the request and takes the answer in its main loop, free to answer
 * the peer's metrics query in between. The input method's commit ('h': three
 * non-English characters at once) is shaped synchronously, one character at
 * a time: the UI's main thread reads each answer itself, so it cannot answer
 * the peer's query, and the peer - blocked in peer_wait_for_ui_metrics() -
 * gives up after 1.5 s and shapes without them. Each character costs 1.5 s,
 * the commit 4.5 s. The root cause is the peer's timed wait on the stalled
 * UI.
 * Exits after --exit-after SECONDS (default 60) or on SIGTERM; the peer
 * exits when its sockets close.
 */
#include <errno.h>
#include <poll.h>
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

#define METRICS_TIMEOUT_MS 1500

static long mono_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000L + t.tv_nsec / 1000000L;
}

/* ---- the peer: zoo-b1-peer ---- */

/* Real work, so a normal request keeps each side busy a little. */
__attribute__((noinline)) static unsigned work_for_ns(long ns)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	volatile unsigned h = 2166136261u;
	do {
		for (int i = 0; i < 10000; i++)
			h = (h ^ (unsigned)i) * 16777619u;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < ns);
	return h;
}

/* The timed wait: the answer to metrics query seq from the UI's main
 * thread, for at most timeout_ms. Answers to older queries (the UI answers
 * them late, once it is back in its loop) are skipped. False on timeout:
 * the UI's main thread never answered, it was waiting on this peer. */
__attribute__((noinline)) static bool peer_wait_for_ui_metrics(int fd, unsigned char seq,
                                                               int timeout_ms)
{
	long deadline = mono_ms() + timeout_ms;
	for (;;) {
		long left = deadline - mono_ms();
		if (left <= 0)
			return false;
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int n = poll(&p, 1, (int)left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		unsigned char ans;
		if (read(fd, &ans, 1) != 1)
			return false;
		if (ans == seq)
			return true;
	}
}

/* Shapes one request: first the UI's font metrics, then the work. */
__attribute__((noinline)) static void peer_serve(int req, int metrics)
{
	unsigned char seq = 0;
	char r;
	while (read(req, &r, 1) == 1) {
		work_for_ns(1000000L);
		seq = (unsigned char)(seq + 1);
		bool got = write(metrics, &seq, 1) == 1 &&
		           peer_wait_for_ui_metrics(metrics, seq, METRICS_TIMEOUT_MS);
		/* without metrics: a fallback font, shaped all the same */
		work_for_ns(got ? 2000000L : 3000000L);
		char ans = got ? 'a' : 'd';
		if (write(req, &ans, 1) != 1)
			break;
	}
}

/* ---- the UI ---- */

struct app {
	int req, metrics;
	GtkWidget *label;
	unsigned shaped, degraded;
};

static void show_answer(struct app *a, char ans)
{
	a->shaped++;
	if (ans == 'd')
		a->degraded++;
	char text[80];
	snprintf(text, sizeof(text), "%u shaped (%u without metrics)", a->shaped, a->degraded);
	gtk_label_set_text(GTK_LABEL(a->label), text);
	printf("answer %c\n", ans);
	fflush(stdout);
}

/* The main loop answers the peer's metrics queries. */
static gboolean on_metrics_query(gint fd, GIOCondition cond, gpointer arg)
{
	(void)cond;
	(void)arg;
	unsigned char seq;
	if (read(fd, &seq, 1) != 1)
		return G_SOURCE_REMOVE;
	work_for_ns(500000L);
	if (write(fd, &seq, 1) != 1)
		return G_SOURCE_REMOVE;
	return G_SOURCE_CONTINUE;
}

/* The answer to an asynchronous request. */
static gboolean on_shaped(gint fd, GIOCondition cond, gpointer arg)
{
	(void)cond;
	char ans;
	if (read(fd, &ans, 1) != 1)
		return G_SOURCE_REMOVE;
	show_answer(arg, ans);
	return G_SOURCE_CONTINUE;
}

/* The committed text's shaping, synchronously from the main thread, one
 * character at a time: the peer's metrics query now waits on this thread
 * while it waits on the peer. */
__attribute__((noinline)) static void ui_shape_commit_sync(struct app *a, int nchars)
{
	for (int i = 0; i < nchars; i++) {
		char r = 'c', ans;
		if (write(a->req, &r, 1) != 1 || read(a->req, &ans, 1) != 1)
			return;
		show_answer(a, ans);
	}
}

static gboolean on_key(GtkWidget *w, GdkEventKey *e, gpointer arg)
{
	(void)w;
	struct app *a = arg;
	if (e->keyval == GDK_KEY_h) {
		ui_shape_commit_sync(a, 3);
	} else {
		char r = 'k';
		if (write(a->req, &r, 1) != 1)
			perror("write");
	}
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
	int req[2], metrics[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, req) ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, metrics)) {
		perror("socketpair");
		return 1;
	}
	pid_t peer = fork();
	if (peer < 0) {
		perror("fork");
		return 1;
	}
	if (peer == 0) {
		close(req[0]);
		close(metrics[0]);
		prctl(PR_SET_NAME, "zoo-b1-peer");
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		peer_serve(req[1], metrics[1]);
		_exit(0);
	}
	close(req[1]);
	close(metrics[1]);
	struct app a = {.req = req[0], .metrics = metrics[0]};
	gtk_init(&argc, &argv);
	GtkWidget *win = gtk_window_new(GTK_WINDOW_TOPLEVEL);
	gtk_window_set_title(GTK_WINDOW(win), "zoo-b1");
	gtk_window_set_default_size(GTK_WINDOW(win), 320, 120);
	a.label = gtk_label_new("press f (shaped async) or h (commit: 3 x 1.5 s circular waits)");
	gtk_container_add(GTK_CONTAINER(win), a.label);
	g_signal_connect(win, "key-press-event", G_CALLBACK(on_key), &a);
	g_signal_connect(win, "destroy", G_CALLBACK(gtk_main_quit), NULL);
	g_unix_fd_add(a.req, G_IO_IN, on_shaped, &a);
	g_unix_fd_add(a.metrics, G_IO_IN, on_metrics_query, &a);
	g_timeout_add_seconds((guint)exit_after, on_quit, NULL);
	g_unix_signal_add(SIGTERM, on_quit, NULL);
	gtk_widget_show_all(win);
	printf("ready\n");
	fflush(stdout);
	gtk_main();
	close(a.req);
	close(a.metrics);
	kill(peer, SIGTERM);
	while (waitpid(peer, NULL, 0) < 0 && errno == EINTR)
		;
	return 0;
}
