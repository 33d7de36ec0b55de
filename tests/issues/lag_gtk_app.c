/*
 * lag_gtk_app.c - a GTK3 window with two commands that lag: the key `o`
 * (open) and a mouse click (import) both parse a document, which spends
 * 220 ms in tokenize_slowly(). Once mapped it has xdotool press `o` three
 * times and click three times through the X server, then `q` quits; it
 * gives up after 30 s. Built without optimisation and with frame pointers
 * so each function is a frame of its own.
 */
#include <gdk/gdkkeysyms.h>
#include <gtk/gtk.h>
#include <stdio.h>

#define LAG_US 220000

__attribute__((noinline)) unsigned tokenize_slowly(const char *doc)
{
	gint64 t0 = g_get_monotonic_time();
	volatile unsigned h = 2166136261u;
	/* 16 passes a clock read: its own work, not the clock's (a VM's
	 * clock_gettime costs as much as one pass), is what it spends */
	while (g_get_monotonic_time() - t0 < LAG_US)
		for (int pass = 0; pass < 16; pass++)
			for (const char *p = doc; *p; p++)
				h = (h ^ (unsigned char)*p) * 16777619u;
	return h;
}

__attribute__((noinline)) unsigned parse_document(const char *doc)
{
	unsigned h = tokenize_slowly(doc);
	return h ^ (unsigned)doc[0];
}

__attribute__((noinline)) void open_document(void)
{
	printf("open %u\n", parse_document("the opened document, word by word") & 1);
	fflush(stdout);
}

__attribute__((noinline)) void import_document(void)
{
	printf("import %u\n", parse_document("the imported document, word by word") & 1);
	fflush(stdout);
}

__attribute__((noinline)) gboolean on_key_press(GtkWidget *w, GdkEventKey *ev, gpointer data)
{
	(void)w, (void)data;
	if (ev->keyval == GDK_KEY_q)
		gtk_main_quit();
	else if (ev->keyval == GDK_KEY_o)
		open_document();
	return TRUE;
}

__attribute__((noinline)) gboolean on_button_press(GtkWidget *w, GdkEventButton *ev, gpointer data)
{
	(void)w, (void)data;
	if (ev->type == GDK_BUTTON_PRESS && ev->button == 1)
		import_document();
	return TRUE;
}

static gboolean start_user(gpointer data)
{
	(void)data;
	/* No window manager under Xvfb: the keyboard follows the pointer,
	 * over the window (placed at 0,0). */
	GError *err = NULL;
	if (!g_spawn_command_line_async(
	        "xdotool mousemove 20 20 sleep 0.3 key o sleep 0.6 key o sleep 0.6 key o sleep 0.6 "
	        "click 1 sleep 0.6 click 1 sleep 0.6 click 1 sleep 0.6 key q",
	        &err)) {
		fprintf(stderr, "lag_gtk_app: xdotool: %s\n", err->message);
		gtk_main_quit();
	}
	return G_SOURCE_REMOVE;
}

static gboolean on_map(GtkWidget *w, GdkEvent *ev, gpointer data)
{
	(void)w, (void)ev, (void)data;
	g_timeout_add(200, start_user, NULL);
	return FALSE;
}

static gboolean give_up(gpointer data)
{
	(void)data;
	fprintf(stderr, "lag_gtk_app: no `q` arrived\n");
	gtk_main_quit();
	return G_SOURCE_REMOVE;
}

int main(int argc, char **argv)
{
	if (!gtk_init_check(&argc, &argv)) {
		fprintf(stderr, "lag_gtk_app: cannot open the display\n");
		return 3;
	}
	GtkWidget *win = gtk_window_new(GTK_WINDOW_TOPLEVEL);
	gtk_window_set_default_size(GTK_WINDOW(win), 200, 100);
	gtk_widget_add_events(win, GDK_BUTTON_PRESS_MASK);
	g_signal_connect(win, "key-press-event", G_CALLBACK(on_key_press), NULL);
	g_signal_connect(win, "button-press-event", G_CALLBACK(on_button_press), NULL);
	g_signal_connect(win, "map-event", G_CALLBACK(on_map), NULL);
	gtk_widget_show_all(win);
	g_timeout_add_seconds(30, give_up, NULL);
	gtk_main();
	return 0;
}
