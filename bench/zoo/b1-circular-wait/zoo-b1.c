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
#include <stdbool.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include <glib-unix.h>

#include "zoo.h"

#define METRICS_TIMEOUT_MS 1500

/* ---- the peer: zoo-b1-peer ---- */

/* The timed wait: the answer to metrics query seq from the UI's main
 * thread, for at most timeout_ms. Answers to older queries (the UI answers
 * them late, once it is back in its loop) are skipped. False on timeout:
 * the UI's main thread never answered, it was waiting on this peer. */
__attribute__((noinline)) static bool peer_wait_for_ui_metrics(int fd, unsigned char seq,
                                                               int timeout_ms)
{
	long deadline = zoo_now_ms() + timeout_ms;
	for (;;) {
		long left = deadline - zoo_now_ms();
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

/* Shapes one request: first the UI's font metrics, then the work (real
 * work, so a normal request keeps each side busy a little). */
__attribute__((noinline)) static void peer_serve(int req, int metrics)
{
	unsigned char seq = 0;
	char r;
	while (read(req, &r, 1) == 1) {
		zoo_work_for_ns(1000000L);
		seq = (unsigned char)(seq + 1);
		bool got = write(metrics, &seq, 1) == 1 &&
		           peer_wait_for_ui_metrics(metrics, seq, METRICS_TIMEOUT_MS);
		/* without metrics: a fallback font, shaped all the same */
		zoo_work_for_ns(got ? 2000000L : 3000000L);
		char ans = got ? 'a' : 'd';
		if (write(req, &ans, 1) != 1)
			break;
	}
}

/* The peer process: requests on req, its metrics queries on the far end of
 * the metrics pair (metrics_pair). */
static void peer_main(int req, void *metrics_pair)
{
	int *metrics = metrics_pair;
	close(metrics[0]);
	peer_serve(req, metrics[1]);
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
	zoo_work_for_ns(500000L);
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

int main(int argc, char **argv)
{
	int exit_after = zoo_args(argc, argv);
	int metrics[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, metrics)) {
		perror("socketpair");
		return 1;
	}
	pid_t peer;
	int req = zoo_spawn("zoo-b1-peer", peer_main, metrics, &peer);
	if (req < 0)
		return 1;
	close(metrics[1]);
	struct app a = {.req = req, .metrics = metrics[0]};
	gtk_init(&argc, &argv);
	GtkWidget *win = zoo_window(
	    "zoo-b1", "press f (shaped async) or h (commit: 3 x 1.5 s circular waits)", on_key, &a);
	a.label = gtk_bin_get_child(GTK_BIN(win));
	g_unix_fd_add(a.req, G_IO_IN, on_shaped, &a);
	g_unix_fd_add(a.metrics, G_IO_IN, on_metrics_query, &a);
	zoo_ready(win, NULL);
	zoo_run(exit_after);
	close(a.req);
	close(a.metrics);
	zoo_reap(peer);
	return 0;
}
