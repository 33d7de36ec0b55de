/*
 * zoo-b6.c - bug zoo case B6: the UI thread waits on a chain of three
 * services, the last one asleep.
 *
 * Four processes linked by unix socket pairs: the GTK3 UI -> zoo-b6-svc-a
 * -> zoo-b6-svc-b -> zoo-b6-svc-c. A key press sends one request byte down
 * the chain and the UI thread reads the answer synchronously. Each service
 * does ~1 ms of work and forwards; svc-c answers after ~3 ms of work, except
 * for 'h' ('s' on the wire), where it first sleeps 4 s in
 * svc_c_flush_slowly(): the root cause, three processes away from the
 * stalled UI thread. Exits after --exit-after SECONDS (default 60) or on
 * SIGTERM; each service exits when its upstream socket closes.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "zoo.h"

/* ---- the services ---- */

__attribute__((noinline)) static void svc_c_flush_slowly(void)
{
	struct timespec t = {4, 0};
	while (nanosleep(&t, &t) && errno == EINTR)
		;
}

/* The last service: answers itself. Real work otherwise, so a normal
 * request makes each reader wait and get woken by its downstream peer: the
 * normal run the diagnosis compares with. */
__attribute__((noinline)) static void svc_c_serve(int up)
{
	char req;
	while (read(up, &req, 1) == 1) {
		if (req == 's')
			svc_c_flush_slowly();
		else
			zoo_work_for_ns(3000000L);
		char ans = 'a';
		if (write(up, &ans, 1) != 1)
			break;
	}
}

/* A middle service: a little work, then asks downstream synchronously. */
__attribute__((noinline)) static void svc_forward(int up, int down)
{
	char req, ans;
	while (read(up, &req, 1) == 1) {
		zoo_work_for_ns(1000000L);
		if (write(down, &req, 1) != 1 || read(down, &ans, 1) != 1)
			break;
		if (write(up, &ans, 1) != 1)
			break;
	}
}

/* A service process at depth (0: svc-a) of the chain, serving up: the last
 * one answers itself, the others fork the next one and forward to it. */
static void serve(int up, void *depth_arg)
{
	int depth = (int)(intptr_t)depth_arg;
	if (depth == 2) {
		svc_c_serve(up);
		return;
	}
	static const char *const names[] = {"zoo-b6-svc-b", "zoo-b6-svc-c"};
	pid_t child;
	int down = zoo_spawn(names[depth], serve, (void *)(intptr_t)(depth + 1), &child);
	if (down < 0)
		return;
	svc_forward(up, down);
	close(down);
	zoo_reap(child);
}

/* ---- the UI ---- */

struct app {
	int sock;
	GtkWidget *label;
	unsigned answers;
};

/* Synchronous request down the chain from the UI thread: the hang. */
__attribute__((noinline)) static void ui_ask_chain(struct app *a, char req)
{
	char ans;
	if (write(a->sock, &req, 1) != 1 || read(a->sock, &ans, 1) != 1)
		return;
	char text[64];
	snprintf(text, sizeof(text), "%u answers", ++a->answers);
	gtk_label_set_text(GTK_LABEL(a->label), text);
	printf("answer %c\n", req);
	fflush(stdout);
}

static gboolean on_key(GtkWidget *w, GdkEventKey *e, gpointer arg)
{
	(void)w;
	ui_ask_chain(arg, e->keyval == GDK_KEY_h ? 's' : 'f');
	return TRUE;
}

int main(int argc, char **argv)
{
	int exit_after = zoo_args(argc, argv);
	pid_t svc_a;
	struct app a = {.sock = zoo_spawn("zoo-b6-svc-a", serve, (void *)(intptr_t)0, &svc_a)};
	if (a.sock < 0)
		return 1;
	gtk_init(&argc, &argv);
	GtkWidget *win = zoo_window(
	    "zoo-b6", "press f (fast) or h (hangs 4 s, three services away)", on_key, &a);
	a.label = gtk_bin_get_child(GTK_BIN(win));
	zoo_ready(win, NULL);
	zoo_run(exit_after);
	close(a.sock);
	zoo_reap(svc_a);
	return 0;
}
