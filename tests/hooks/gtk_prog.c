/*
 * gtk_prog.c - a GTK3 window for the hooks tests: once mapped, it has
 * xdotool type a key into it through the X server (XTEST), prints the thread that
 * handled it and quits.
 */
#include <gdk/gdk.h>
#include <gtk/gtk.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static gboolean on_key(GtkWidget *w, GdkEventKey *ev, gpointer data)
{
	(void)w, (void)data;
	printf("key_tid=%d keyval=%u\non_key=%p\n", gettid(), ev->keyval, (void *)on_key);
	fflush(stdout);
	gtk_main_quit();
	return TRUE;
}

static gboolean send_key(gpointer win)
{
	(void)win;
	/* A real key press through the X server (XTEST). No window manager runs
	 * under Xvfb: the keyboard follows the pointer, which goes over the
	 * window (placed at 0,0). */
	if (system("xdotool mousemove 20 20 key a") != 0)
		fprintf(stderr, "gtk_prog: xdotool failed\n");
	return G_SOURCE_REMOVE;
}

static gboolean on_map(GtkWidget *w, GdkEvent *ev, gpointer data)
{
	(void)ev, (void)data;
	g_timeout_add(100, send_key, w);
	return FALSE;
}

static gboolean give_up(gpointer data)
{
	(void)data;
	fprintf(stderr, "gtk_prog: no key press arrived\n");
	gtk_main_quit();
	return G_SOURCE_REMOVE;
}

int main(int argc, char **argv)
{
	if (!gtk_init_check(&argc, &argv)) {
		fprintf(stderr, "gtk_prog: cannot open the display\n");
		return 3;
	}
	GtkWidget *win = gtk_window_new(GTK_WINDOW_TOPLEVEL);
	gtk_window_set_default_size(GTK_WINDOW(win), 200, 100);
	g_signal_connect(win, "key-press-event", G_CALLBACK(on_key), NULL);
	g_signal_connect(win, "map-event", G_CALLBACK(on_map), NULL);
	gtk_widget_show_all(win);
	g_timeout_add_seconds(10, give_up, NULL);
	gtk_main();
	return 0;
}
