/*
 * zoo-b5.c - bug zoo case B5: a key handler calls a library function that
 * loops without end on one input.
 *
 * Every key press hashes the tokens of a text with zoo_hash_tokens() (the
 * app's own shared library libzoo-tokens.so, zoo-tokens.c, in the program's
 * folder) on the UI thread: 'f' a normal text (fast), 'h' a text ending in
 * an escape, on which the tokenizer stops advancing and spins until its
 * step limit, calibrated at start-up to about 4 s: a LongRunning stall whose
 * costly function is zoo_hash_tokens. Exits after --exit-after SECONDS
 * (default 60) or on SIGTERM.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <glib-unix.h>
#include <gtk/gtk.h>

#include "zoo-tokens.h"

static const char normal_text[] = "set width 80 \\n and wrap at 72 columns";
static const char bad_text[] = "set width 80 and wrap at 72 columns \\";

struct app {
	GtkWidget *label;
	unsigned long hang_steps; /* steps that take about 4 s */
};

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* How many steps of the endless loop take about 4 s on this machine; the
 * fastest of five probes, so a probe preempted on a busy machine does not
 * shorten the hang below the stall threshold. */
static unsigned long calibrate(void)
{
	unsigned long probe = 2000000, steps;
	double best = 1e9;
	for (int i = 0; i < 5; i++) {
		double t0 = now_s();
		zoo_hash_tokens(bad_text, sizeof(bad_text) - 1, probe, &steps);
		double dt = now_s() - t0;
		if (dt < best)
			best = dt;
	}
	return (unsigned long)(probe * (4.0 / (best > 1e-6 ? best : 1e-6)));
}

__attribute__((noinline)) static void ui_hash_text(struct app *a, bool bad)
{
	const char *text = bad ? bad_text : normal_text;
	size_t len = bad ? sizeof(bad_text) - 1 : sizeof(normal_text) - 1;
	unsigned long steps;
	unsigned long h = zoo_hash_tokens(text, len, a->hang_steps, &steps);
	char out[64];
	snprintf(out, sizeof(out), "%lu tokens, hash %lx", steps, h);
	gtk_label_set_text(GTK_LABEL(a->label), out);
	printf("hashed %c\n", bad ? 'h' : 'f');
	fflush(stdout);
}

static gboolean on_key(GtkWidget *w, GdkEventKey *e, gpointer arg)
{
	(void)w;
	ui_hash_text(arg, e->keyval == GDK_KEY_h);
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
	struct app a = {.hang_steps = calibrate()};
	gtk_init(&argc, &argv);
	GtkWidget *win = gtk_window_new(GTK_WINDOW_TOPLEVEL);
	gtk_window_set_title(GTK_WINDOW(win), "zoo-b5");
	gtk_window_set_default_size(GTK_WINDOW(win), 320, 120);
	a.label = gtk_label_new("press f (fast) or h (loops about 4 s)");
	gtk_container_add(GTK_CONTAINER(win), a.label);
	g_signal_connect(win, "key-press-event", G_CALLBACK(on_key), &a);
	g_signal_connect(win, "destroy", G_CALLBACK(gtk_main_quit), NULL);
	g_timeout_add_seconds((guint)exit_after, on_quit, NULL);
	g_unix_signal_add(SIGTERM, on_quit, NULL);
	gtk_widget_show_all(win);
	printf("ready (hang: %lu steps)\n", a.hang_steps);
	fflush(stdout);
	gtk_main();
	return 0;
}
