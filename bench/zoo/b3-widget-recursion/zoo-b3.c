/*
 * zoo-b3.c - bug zoo case B3: recursive queries of a new window's
 * accessible objects on the UI thread.
 *
 * A key press opens a document window: 'n' a small one, 'h' a big one (rows
 * of nested frames, as many rows as take about 4 s, calibrated at
 * start-up). Before it is shown, the app describes the new window to
 * assistive technologies: a11y_describe() walks the accessible (ATK) tree
 * recursively, and names every object by its path from the window, asking
 * each ancestor for its index in its parent, which GTK answers by listing
 * the parent's children. Rows x depth objects, each asking about a parent
 * with as many children as there are rows: a LongRunning stall whose
 * costly function is a11y_describe. Each window is destroyed after the
 * next key press opens another one. Exits after --exit-after SECONDS
 * (default 60) or on SIGTERM.
 */
#include <math.h>
#include <stdio.h>

#include "zoo.h"

#define NEST_DEPTH 6
#define SMALL_ROWS 40

struct app {
	GtkWidget *label;
	GtkWidget *doc; /* the last document window */
	unsigned hang_rows;
	unsigned opened;
};

struct walk {
	unsigned objects;
	unsigned long path_sum; /* keeps the queries' answers alive */
};

/* rows of NEST_DEPTH nested frames, a label innermost */
static GtkWidget *build_tree(unsigned rows)
{
	GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
	for (unsigned r = 0; r < rows; r++) {
		char name[32];
		snprintf(name, sizeof(name), "row %u", r);
		GtkWidget *inner = gtk_label_new(name);
		for (int d = 0; d < NEST_DEPTH; d++) {
			GtkWidget *frame = gtk_frame_new(NULL);
			gtk_container_add(GTK_CONTAINER(frame), inner);
			inner = frame;
		}
		gtk_box_pack_start(GTK_BOX(box), inner, FALSE, FALSE, 0);
	}
	GtkWidget *scroll = gtk_scrolled_window_new(NULL, NULL);
	gtk_container_add(GTK_CONTAINER(scroll), box);
	return scroll;
}

/* Every accessible object below obj, each named by its path from the
 * window: its role, state and, for it and every ancestor, the index in its
 * parent. */
__attribute__((noinline)) static void a11y_describe(AtkObject *obj, struct walk *w)
{
	w->objects++;
	w->path_sum += (unsigned long)atk_object_get_role(obj);
	AtkStateSet *states = atk_object_ref_state_set(obj);
	if (states)
		g_object_unref(states);
	for (AtkObject *o = obj; o; o = atk_object_get_parent(o))
		w->path_sum += (unsigned long)atk_object_get_index_in_parent(o);
	int n = atk_object_get_n_accessible_children(obj);
	for (int i = 0; i < n; i++) {
		AtkObject *child = atk_object_ref_accessible_child(obj, i);
		if (!child)
			continue;
		a11y_describe(child, w);
		g_object_unref(child);
	}
}

/* A new document window of rows rows, described to assistive technologies
 * before it is shown. */
__attribute__((noinline)) static GtkWidget *open_document(unsigned rows, struct walk *w)
{
	GtkWidget *win = gtk_window_new(GTK_WINDOW_TOPLEVEL);
	char title[32];
	snprintf(title, sizeof(title), "document (%u rows)", rows);
	gtk_window_set_title(GTK_WINDOW(win), title);
	gtk_window_set_default_size(GTK_WINDOW(win), 200, 200);
	gtk_container_add(GTK_CONTAINER(win), build_tree(rows));
	a11y_describe(gtk_widget_get_accessible(win), w);
	return win;
}

/* How many rows take about 4 s to describe: a probe window (never shown),
 * the fastest of three, scaled quadratically (objects x siblings). Not
 * zoo_fastest_s: each probe window's destruction stays out of the time. */
static unsigned calibrate(void)
{
	const unsigned probe = 300;
	double best = 1e9;
	for (int i = 0; i < 3; i++) {
		struct walk w = {0};
		double t0 = zoo_now_s();
		GtkWidget *win = open_document(probe, &w);
		double dt = zoo_now_s() - t0;
		gtk_widget_destroy(win);
		if (dt < best)
			best = dt;
	}
	if (best < 1e-6)
		best = 1e-6;
	return (unsigned)(probe * sqrt(4.0 / best));
}

static gboolean on_key(GtkWidget *wdg, GdkEventKey *e, gpointer arg)
{
	(void)wdg;
	struct app *a = arg;
	if (e->keyval != GDK_KEY_n && e->keyval != GDK_KEY_h)
		return TRUE;
	if (a->doc)
		gtk_widget_destroy(a->doc);
	unsigned rows = e->keyval == GDK_KEY_h ? a->hang_rows : SMALL_ROWS;
	struct walk w = {0};
	double t0 = zoo_now_s();
	a->doc = open_document(rows, &w);
	double dt = zoo_now_s() - t0;
	gtk_widget_show_all(a->doc);
	zoo_say(a->label, "document %u: %u objects described in %.3f s", ++a->opened, w.objects,
	        dt);
	return TRUE;
}

int main(int argc, char **argv)
{
	int exit_after = zoo_args(argc, argv);
	gtk_init(&argc, &argv);
	struct app a = {.hang_rows = calibrate()};
	GtkWidget *win =
	    zoo_window("zoo-b3", "press n (small document) or h (big document)", on_key, &a);
	a.label = gtk_bin_get_child(GTK_BIN(win));
	zoo_ready(win, "hang: %u rows", a.hang_rows);
	zoo_run(exit_after);
	return 0;
}
