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
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <glib-unix.h>
#include <gtk/gtk.h>

/* ---- the services ---- */

__attribute__((noinline)) static void svc_c_flush_slowly(void)
{
	struct timespec t = {4, 0};
	while (nanosleep(&t, &t) && errno == EINTR)
		;
}

/* Real work, so a normal request makes each reader wait and get woken by
 * its downstream peer: the normal run the diagnosis compares with. */
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

/* The last service: answers itself. */
__attribute__((noinline)) static void svc_c_serve(int up)
{
	char req;
	while (read(up, &req, 1) == 1) {
		if (req == 's')
			svc_c_flush_slowly();
		else
			work_for_ns(3000000L);
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
		work_for_ns(1000000L);
		if (write(down, &req, 1) != 1 || read(down, &ans, 1) != 1)
			break;
		if (write(up, &ans, 1) != 1)
			break;
	}
}

/* Forks the service named name serving the far end of a new socket pair;
 * returns the near end (or -1) and the child's pid in *pid. The child runs
 * serve(fd, depth) and exits. */
static int spawn(const char *name, int depth, pid_t *pid);

static void serve(int up, int depth)
{
	if (depth == 2) {
		svc_c_serve(up);
		return;
	}
	static const char *const names[] = {"zoo-b6-svc-b", "zoo-b6-svc-c"};
	pid_t child;
	int down = spawn(names[depth], depth + 1, &child);
	if (down < 0)
		return;
	svc_forward(up, down);
	close(down);
	kill(child, SIGTERM);
	while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
		;
}

static int spawn(const char *name, int depth, pid_t *pid)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		perror("socketpair");
		return -1;
	}
	*pid = fork();
	if (*pid < 0) {
		perror("fork");
		return -1;
	}
	if (*pid == 0) {
		close(sv[0]);
		prctl(PR_SET_NAME, name);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		serve(sv[1], depth);
		_exit(0);
	}
	close(sv[1]);
	return sv[0];
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
	pid_t svc_a;
	struct app a = {.sock = spawn("zoo-b6-svc-a", 0, &svc_a)};
	if (a.sock < 0)
		return 1;
	gtk_init(&argc, &argv);
	GtkWidget *win = gtk_window_new(GTK_WINDOW_TOPLEVEL);
	gtk_window_set_title(GTK_WINDOW(win), "zoo-b6");
	gtk_window_set_default_size(GTK_WINDOW(win), 320, 120);
	a.label = gtk_label_new("press f (fast) or h (hangs 4 s, three services away)");
	gtk_container_add(GTK_CONTAINER(win), a.label);
	g_signal_connect(win, "key-press-event", G_CALLBACK(on_key), &a);
	g_signal_connect(win, "destroy", G_CALLBACK(gtk_main_quit), NULL);
	g_timeout_add_seconds((guint)exit_after, on_quit, NULL);
	g_unix_signal_add(SIGTERM, on_quit, NULL);
	gtk_widget_show_all(win);
	printf("ready\n");
	fflush(stdout);
	gtk_main();
	close(a.sock);
	kill(svc_a, SIGTERM);
	while (waitpid(svc_a, NULL, 0) < 0 && errno == EINTR)
		;
	return 0;
}
