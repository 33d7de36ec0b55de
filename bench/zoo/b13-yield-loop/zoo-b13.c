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
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#include "zoo.h"

#define GIVE_UP_MS 4000

/* ---- the peer: zoo-b13-peer ---- */

enum { REQ_SAVE = 's', REQ_SAVE_COPY = 'c', MSG_DONE = 'd' };

/* Reads requests and answers each with MSG_DONE - each it knows. */
__attribute__((noinline)) static void peer_dispatch(int fd, void *arg)
{
	(void)arg;
	char req;
	while (read(fd, &req, 1) == 1) {
		switch (req) {
		case REQ_SAVE: {
			zoo_work_for_ns(3000000L);
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
 * idle work (real work: each step costs a little CPU), a yield, a look. Gives up after GIVE_UP_MS.
 */
__attribute__((noinline)) static bool ui_save_and_wait(struct app *a, char req)
{
	atomic_store(&a->done, false);
	if (write(a->sock, &req, 1) != 1)
		return false;
	long deadline = zoo_now_ms() + GIVE_UP_MS;
	while (!atomic_load(&a->done)) {
		if (zoo_now_ms() >= deadline)
			return false;
		zoo_work_for_ns(100000L);
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

int main(int argc, char **argv)
{
	int exit_after = zoo_args(argc, argv);
	pid_t peer;
	struct app a = {.sock = zoo_spawn("zoo-b13-peer", peer_dispatch, NULL, &peer)};
	if (a.sock < 0)
		return 1;
	pthread_t rx;
	if (pthread_create(&rx, NULL, receiver, &a)) {
		perror("pthread_create");
		return 1;
	}
	gtk_init(&argc, &argv);
	GtkWidget *win = zoo_window(
	    "zoo-b13", "press f (save) or h (save a copy: never answered, spins 4 s)", on_key, &a);
	a.label = gtk_bin_get_child(GTK_BIN(win));
	/* the flag's address, for tests to check `argus flags discover` after */
	zoo_ready(win, "flag %p", (void *)&a.done);
	zoo_run(exit_after);
	/* the receiver ends when the peer closes its end */
	zoo_reap(peer);
	pthread_join(rx, NULL);
	close(a.sock);
	return 0;
}
