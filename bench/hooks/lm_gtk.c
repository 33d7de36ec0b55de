/*
 * lm_gtk.c - the GTK3 workload of `argus bench hooks --landmarks`: a real
 * GTK3 window that dispatches, as fast as it can, what the landmark hooks
 * see (docs/hooks.md "Landmarks"), each kind timed on its own:
 *
 *   signal     g_signal_emit_by_name(button, "clicked"), one handler
 *   gtk-event  gtk_main_do_event() of a key press to the window (GTK emits
 *              "event" then "key-press-event", one handler)
 *   paint      gtk_widget_draw() of a drawing area into an image surface
 *              ("draw", one handler)
 *   dispatch   a GLib idle source dispatched by the main loop (the GLib
 *              hooks' records, not a landmark: for scale)
 *
 * Prints one line per kind: "NAME COUNT NS" (NS: the CPU time of the
 * thread that dispatches, CLOCK_THREAD_CPUTIME_ID, for COUNT events after a
 * warm-up of a tenth: what the hooks add to the UI thread, not the other
 * jobs of the machine). Runs under Xvfb (DISPLAY).
 */
#include <gtk/gtk.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static volatile unsigned handled;

static void on_clicked(GtkButton *b, gpointer data)
{
	(void)b, (void)data;
	handled++;
}

static gboolean on_key(GtkWidget *w, GdkEventKey *ev, gpointer data)
{
	(void)w, (void)data;
	handled += ev->keyval;
	return TRUE;
}

static gboolean on_draw(GtkWidget *w, cairo_t *cr, gpointer data)
{
	(void)w, (void)data;
	cairo_rectangle(cr, 1, 1, 4, 4);
	cairo_fill(cr);
	handled++;
	return FALSE;
}

struct idle_run {
	unsigned left;
};

static gboolean on_idle(gpointer data)
{
	struct idle_run *r = data;
	handled++;
	if (--r->left)
		return G_SOURCE_CONTINUE;
	gtk_main_quit();
	return G_SOURCE_REMOVE;
}

static void report(const char *name, unsigned n, uint64_t ns)
{
	printf("%s %u %llu\n", name, n, (unsigned long long)ns);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	unsigned scale = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 1;
	if (!scale)
		scale = 1;
	if (!gtk_init_check(&argc, &argv)) {
		fprintf(stderr, "lm_gtk: cannot open the display\n");
		return 3;
	}
	GtkWidget *win = gtk_window_new(GTK_WINDOW_TOPLEVEL);
	GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
	GtkWidget *button = gtk_button_new_with_label("b");
	GtkWidget *area = gtk_drawing_area_new();
	gtk_widget_set_size_request(area, 32, 32);
	gtk_container_add(GTK_CONTAINER(win), box);
	gtk_box_pack_start(GTK_BOX(box), button, FALSE, FALSE, 0);
	gtk_box_pack_start(GTK_BOX(box), area, FALSE, FALSE, 0);
	g_signal_connect(button, "clicked", G_CALLBACK(on_clicked), NULL);
	g_signal_connect(win, "key-press-event", G_CALLBACK(on_key), NULL);
	g_signal_connect(area, "draw", G_CALLBACK(on_draw), NULL);
	gtk_widget_show_all(win);
	while (gtk_events_pending())
		gtk_main_iteration();

	/* signal */
	unsigned n = 200000 * scale;
	for (unsigned i = 0; i < n / 10; i++)
		g_signal_emit_by_name(button, "clicked");
	uint64_t t0 = now_ns();
	for (unsigned i = 0; i < n; i++)
		g_signal_emit_by_name(button, "clicked");
	report("signal", n, now_ns() - t0);

	/* gtk-event: a key press as the X server's would reach the window */
	GdkEvent *ev = gdk_event_new(GDK_KEY_PRESS);
	ev->key.window = g_object_ref(gtk_widget_get_window(win));
	ev->key.send_event = FALSE;
	ev->key.keyval = GDK_KEY_a;
	ev->key.hardware_keycode = 38;
	GdkSeat *seat = gdk_display_get_default_seat(gdk_display_get_default());
	if (seat && gdk_seat_get_keyboard(seat))
		gdk_event_set_device(ev, gdk_seat_get_keyboard(seat));
	n = 100000 * scale;
	for (unsigned i = 0; i < n / 10; i++)
		gtk_main_do_event(ev);
	t0 = now_ns();
	for (unsigned i = 0; i < n; i++)
		gtk_main_do_event(ev);
	report("gtk-event", n, now_ns() - t0);
	gdk_event_free(ev);

	/* paint */
	cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 32, 32);
	cairo_t *cr = cairo_create(surf);
	n = 50000 * scale;
	for (unsigned i = 0; i < n / 10; i++)
		gtk_widget_draw(area, cr);
	t0 = now_ns();
	for (unsigned i = 0; i < n; i++)
		gtk_widget_draw(area, cr);
	report("paint", n, now_ns() - t0);
	cairo_destroy(cr);
	cairo_surface_destroy(surf);

	/* dispatch: the main loop's */
	n = 200000 * scale;
	struct idle_run r = {n / 10};
	g_idle_add(on_idle, &r);
	gtk_main();
	r.left = n;
	g_idle_add(on_idle, &r);
	t0 = now_ns();
	gtk_main();
	report("dispatch", n, now_ns() - t0);
	gtk_widget_destroy(win);
	return 0;
}
