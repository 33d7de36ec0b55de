/*
 * zoo-b11.c - bug zoo case B11: resizing a document window before it has
 * finished loading deadlocks the UI thread with the loader thread (QEMU on
 * macOS: a window adjustment before the app finished launching).
 *
 * 'n' opens a document window ("zoo-b11 doc: parsing") and hands the load to
 * the app's loader thread (zoo-b11-loader, one for the app's life): it
 * parses the text (~600 ms), asks the UI thread for the font metrics (only
 * the UI thread may use the window's Pango context: g_idle_add, then a GCond
 * wait in doc_request_metrics() until the UI thread's main loop has answered),
 * lays the text out, and the window says "ready". Resizing the window makes
 * the UI thread re-lay the text out for the new width: it asks the loader
 * thread and waits for the layout (a timed GCond wait, 4 s, then it gives up
 * and draws what it has).
 *
 * Resized once loaded, the layout comes back in ~60 ms. Resized while the
 * text is still being parsed, the UI thread waits in its configure handler
 * for the loader thread, which finishes parsing and then waits for the UI
 * thread to measure the fonts: each waits for the other until the configure
 * handler's wait times out after 4 s. Exits after --exit-after SECONDS
 * (default 60) or on SIGTERM.
 */
#include <stdbool.h>
#include <stdio.h>
#include <sys/prctl.h>

#include "zoo.h"

static const char doc_text[] =
    "The quick brown fox jumps over the lazy dog. Pack my box with five dozen liquor jugs.";

/* The loader: shared by the UI thread and the loader thread. */
struct loader {
	GMutex lock;
	GCond loader_cond;     /* the loader thread waits on it */
	GCond ui_cond;         /* the UI thread waits on it */
	bool load;             /* a document to load */
	bool loading;          /* from that request until the text is laid out */
	bool metrics_answered; /* the UI thread measured the fonts */
	int char_width, line_height;
	int width; /* the width to lay the text out for */
	unsigned relayout_asked, relayout_done;
	unsigned lines;
};

struct app {
	GtkWidget *label;
	GtkWidget *doc;  /* the document window */
	GtkWidget *area; /* its text area */
	int doc_w, doc_h;
	unsigned docs;
	struct loader loader;
};

static struct app the_app;

static void set_doc_title(struct app *a, const char *state)
{
	char title[64];
	snprintf(title, sizeof(title), "zoo-b11 doc: %s", state);
	if (a->doc)
		gtk_window_set_title(GTK_WINDOW(a->doc), title);
}

/* ---- the loader thread ---- */

__attribute__((noinline)) static void doc_parse(struct loader *l)
{
	l->lines = zoo_work_for_ns(600000000L) & 1;
}

/* The UI thread's side of doc_request_metrics(): runs from its main loop. */
static gboolean ui_measure_fonts(gpointer arg)
{
	struct app *a = arg;
	struct loader *l = &a->loader;
	int w = 8, h = 16;
	if (a->area) {
		PangoLayout *layout = gtk_widget_create_pango_layout(a->area, doc_text);
		pango_layout_get_pixel_size(layout, &w, &h);
		g_object_unref(layout);
		w /= (int)(sizeof(doc_text) - 1);
		set_doc_title(a, "laying out");
	}
	g_mutex_lock(&l->lock);
	l->char_width = w > 0 ? w : 1;
	l->line_height = h;
	l->metrics_answered = true;
	g_cond_signal(&l->loader_cond);
	g_mutex_unlock(&l->lock);
	return G_SOURCE_REMOVE;
}

/* The layout needs the font metrics, and only the UI thread's main loop can
 * measure them: the loader waits for the UI thread here, whatever the UI
 * thread is doing. */
__attribute__((noinline)) static void doc_request_metrics(struct app *a)
{
	struct loader *l = &a->loader;
	g_mutex_lock(&l->lock);
	l->metrics_answered = false;
	g_mutex_unlock(&l->lock);
	g_idle_add(ui_measure_fonts, a);
	g_mutex_lock(&l->lock);
	while (!l->metrics_answered)
		g_cond_wait(&l->loader_cond, &l->lock);
	g_mutex_unlock(&l->lock);
}

__attribute__((noinline)) static void doc_layout(struct loader *l, long ns)
{
	l->lines += zoo_work_for_ns(ns) & 1;
}

static gboolean ui_doc_ready(gpointer arg)
{
	set_doc_title(arg, "ready");
	return G_SOURCE_REMOVE;
}

static gpointer loader_thread(gpointer arg)
{
	struct app *a = arg;
	struct loader *l = &a->loader;
	prctl(PR_SET_NAME, "zoo-b11-loader");
	for (;;) {
		g_mutex_lock(&l->lock);
		while (!l->load && l->relayout_done == l->relayout_asked)
			g_cond_wait(&l->loader_cond, &l->lock);
		if (l->load) {
			l->load = false;
			g_mutex_unlock(&l->lock);
			doc_parse(l);
			doc_request_metrics(a);
			doc_layout(l, 200000000L);
			g_mutex_lock(&l->lock);
			l->loading = false;
			g_mutex_unlock(&l->lock);
			g_idle_add(ui_doc_ready, a);
			continue;
		}
		unsigned asked = l->relayout_asked;
		g_mutex_unlock(&l->lock);
		doc_layout(l, 60000000L);
		g_mutex_lock(&l->lock);
		l->relayout_done = asked;
		g_cond_signal(&l->ui_cond);
		g_mutex_unlock(&l->lock);
	}
	return NULL;
}

/* ---- the UI ---- */

/* A resize: the text must be laid out again for the new width; the UI
 * thread waits for the loader thread's layout, 4 s at most. */
__attribute__((noinline)) static void ui_relayout(struct app *a, int width)
{
	struct loader *l = &a->loader;
	g_mutex_lock(&l->lock);
	l->width = width;
	unsigned asked = ++l->relayout_asked;
	g_cond_signal(&l->loader_cond);
	gint64 deadline = g_get_monotonic_time() + 4 * G_TIME_SPAN_SECOND;
	while ((int)(l->relayout_done - asked) < 0)
		if (!g_cond_wait_until(&l->ui_cond, &l->lock, deadline))
			break;
	bool done = (int)(l->relayout_done - asked) >= 0;
	g_mutex_unlock(&l->lock);
	printf(done ? "laid out for %d\n" : "no layout for %d in 4 s\n", width);
	fflush(stdout);
}

static gboolean on_doc_configure(GtkWidget *w, GdkEventConfigure *e, gpointer arg)
{
	(void)w;
	struct app *a = arg;
	if (e->width != a->doc_w || e->height != a->doc_h) {
		a->doc_w = e->width;
		a->doc_h = e->height;
		ui_relayout(a, e->width);
	}
	return FALSE;
}

static void on_doc_destroy(GtkWidget *w, gpointer arg)
{
	struct app *a = arg;
	if (a->doc == w)
		a->doc = a->area = NULL;
}

/* Opens a document window and starts loading it (once the last one is in). */
__attribute__((noinline)) static void ui_open_document(struct app *a)
{
	struct loader *l = &a->loader;
	g_mutex_lock(&l->lock);
	bool busy = l->loading;
	if (!busy)
		l->load = l->loading = true;
	g_mutex_unlock(&l->lock);
	if (busy)
		return;
	if (a->doc)
		gtk_widget_destroy(a->doc);
	a->doc = gtk_window_new(GTK_WINDOW_TOPLEVEL);
	a->doc_w = 320;
	a->doc_h = 200;
	gtk_window_set_default_size(GTK_WINDOW(a->doc), a->doc_w, a->doc_h);
	gtk_window_move(GTK_WINDOW(a->doc), 300, 200);
	set_doc_title(a, "parsing");
	a->area = gtk_drawing_area_new();
	gtk_container_add(GTK_CONTAINER(a->doc), a->area);
	g_signal_connect(a->doc, "configure-event", G_CALLBACK(on_doc_configure), a);
	g_signal_connect(a->doc, "destroy", G_CALLBACK(on_doc_destroy), a);
	gtk_widget_show_all(a->doc);
	char text[64];
	snprintf(text, sizeof(text), "document %u", ++a->docs);
	gtk_label_set_text(GTK_LABEL(a->label), text);
	g_mutex_lock(&l->lock);
	g_cond_signal(&l->loader_cond);
	g_mutex_unlock(&l->lock);
}

static gboolean on_key(GtkWidget *w, GdkEventKey *e, gpointer arg)
{
	(void)w;
	if (e->keyval == GDK_KEY_n)
		ui_open_document(arg);
	return TRUE;
}

int main(int argc, char **argv)
{
	int exit_after = zoo_args(argc, argv);
	gtk_init(&argc, &argv);
	struct app *a = &the_app;
	g_mutex_init(&a->loader.lock);
	g_cond_init(&a->loader.loader_cond);
	g_cond_init(&a->loader.ui_cond);
	g_thread_unref(g_thread_new("zoo-b11-loader", loader_thread, a));
	GtkWidget *win =
	    zoo_window("zoo-b11", "press n (open a document), then resize it", on_key, a);
	gtk_window_set_default_size(GTK_WINDOW(win), 280, 120);
	a->label = gtk_bin_get_child(GTK_BIN(win));
	zoo_ready(win, NULL);
	zoo_run(exit_after);
	return 0;
}
