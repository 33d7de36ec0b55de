/*
 * zoo.c - the bug zoo's shared plumbing (zoo.h).
 */
#include "zoo.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <glib-unix.h>

int zoo_args(int argc, char **argv)
{
	int exit_after = 60;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--exit-after") && i + 1 < argc)
			exit_after = atoi(argv[i + 1]);
	return exit_after;
}

GtkWidget *zoo_window(const char *title, const char *hint, zoo_key_fn on_key, gpointer data)
{
	GtkWidget *win = gtk_window_new(GTK_WINDOW_TOPLEVEL);
	gtk_window_set_title(GTK_WINDOW(win), title);
	gtk_window_set_default_size(GTK_WINDOW(win), 320, 120);
	if (hint)
		gtk_container_add(GTK_CONTAINER(win), gtk_label_new(hint));
	g_signal_connect(win, "key-press-event", G_CALLBACK(on_key), data);
	g_signal_connect(win, "destroy", G_CALLBACK(gtk_main_quit), NULL);
	return win;
}

void zoo_ready(GtkWidget *win, const char *detail_fmt, ...)
{
	gtk_widget_show_all(win);
	fputs("ready", stdout);
	if (detail_fmt) {
		va_list ap;
		va_start(ap, detail_fmt);
		fputs(" (", stdout);
		vprintf(detail_fmt, ap);
		fputs(")", stdout);
		va_end(ap);
	}
	fputs("\n", stdout);
	fflush(stdout);
}

void zoo_say(GtkWidget *label, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *text = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	gtk_label_set_text(GTK_LABEL(label), text);
	printf("%s\n", text);
	fflush(stdout);
	g_free(text);
}

static gboolean quit_main(gpointer arg)
{
	(void)arg;
	gtk_main_quit();
	return G_SOURCE_REMOVE;
}

void zoo_run(int exit_after)
{
	g_timeout_add_seconds((guint)exit_after, quit_main, NULL);
	g_unix_signal_add(SIGTERM, quit_main, NULL);
	gtk_main();
}

void zoo_child_init(const char *name)
{
	prctl(PR_SET_NAME, name);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
}

pid_t zoo_fork(const char *name)
{
	pid_t pid = fork();
	if (pid < 0)
		perror("fork");
	else if (pid == 0)
		zoo_child_init(name);
	return pid;
}

int zoo_spawn(const char *name, void (*serve)(int fd, void *arg), void *arg, pid_t *pid)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		perror("socketpair");
		return -1;
	}
	*pid = zoo_fork(name);
	if (*pid < 0) {
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	if (*pid == 0) {
		close(sv[0]);
		serve(sv[1], arg);
		_exit(0);
	}
	close(sv[1]);
	return sv[0];
}

void zoo_reap(pid_t pid)
{
	kill(pid, SIGTERM);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/* Chunks of 1000 steps (a few microseconds) between looks at the clock:
 * fine enough for the 100 us units of a spin loop. */
__attribute__((noinline)) unsigned zoo_work_for_ns(long ns)
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

static double thread_cpu_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

double zoo_fastest_s(int runs, void (*probe)(void *arg), void *arg)
{
	double best = 1e9;
	for (int i = 0; i < runs; i++) {
		double t0 = thread_cpu_s();
		probe(arg);
		double dt = thread_cpu_s() - t0;
		if (dt < best)
			best = dt;
	}
	return best > 1e-6 ? best : 1e-6;
}
