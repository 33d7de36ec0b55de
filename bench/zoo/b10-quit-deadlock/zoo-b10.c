/*
 * zoo-b10.c - bug zoo case B10: closing the player right after starting it
 * deadlocks the UI thread with the video output thread (VLC: a quick quit
 * after a playlist click freezes).
 *
 * 'p' starts playback: the video output thread (zoo-b10-vout, one for the
 * app's life, as a player keeps its output between plays) opens the stream
 * (~300 ms of parsing), then asks the UI thread for its video window
 * (g_idle_add: only the UI thread may create widgets) and waits on a GCond
 * until the UI thread's main loop has run that request; then it renders
 * frames until told to stop. 'q' closes the player: the UI thread tells the
 * output thread to stop and waits for it to finish (a timed GCond wait, 4 s,
 * then it gives up).
 *
 * Closed after the window is up, the output thread stops at once. Closed
 * while the stream is still opening, the output thread asks for its window
 * while the UI thread sits in the close handler waiting for it:
 * vout_request_window() waits for the UI thread, the UI thread waits for the
 * output thread, until the close handler's wait times out after 4 s. Exits
 * after --exit-after SECONDS (default 60) or on SIGTERM.
 */
#include <stdbool.h>
#include <stdio.h>
#include <sys/prctl.h>

#include "zoo.h"

/* The video output: one thread for the app's life, as a player keeps its
 * output between plays; shared by the UI thread and that thread. */
struct vout {
	GMutex lock;
	GCond vout_cond;      /* the output thread waits on it */
	GCond ui_cond;        /* the UI thread waits on it */
	bool play;            /* the UI thread asked for a playback */
	bool busy;            /* from that request until the output is idle again */
	bool window_answered; /* the UI thread ran the window request */
	bool stop;            /* the UI thread asked the output to stop */
	GtkWidget *video;     /* the video window (UI thread only) */
	unsigned frames;
	unsigned char pixels[160 * 120];
};

struct app {
	GtkWidget *label;
	struct vout vout;
	bool playing;
	unsigned plays;
};

static struct app the_app;

/* ---- the video output thread ---- */

/* Parsing the stream's headers before any frame can be shown. */
__attribute__((noinline)) static void vout_open_stream(struct vout *v)
{
	v->frames = zoo_work_for_ns(300000000L) & 1;
}

/* The UI thread's side of vout_request_window(): runs from its main loop. */
static gboolean ui_create_video_window(gpointer arg)
{
	struct vout *v = arg;
	g_mutex_lock(&v->lock);
	bool closed = v->stop;
	g_mutex_unlock(&v->lock);
	if (!closed) {
		v->video = gtk_window_new(GTK_WINDOW_TOPLEVEL);
		gtk_window_set_title(GTK_WINDOW(v->video), "zoo-b10 video");
		gtk_window_set_default_size(GTK_WINDOW(v->video), 160, 120);
		gtk_window_move(GTK_WINDOW(v->video), 400, 300);
		gtk_container_add(GTK_CONTAINER(v->video), gtk_drawing_area_new());
		gtk_widget_show_all(v->video);
	}
	g_mutex_lock(&v->lock);
	v->window_answered = true;
	g_cond_signal(&v->vout_cond);
	g_mutex_unlock(&v->lock);
	return G_SOURCE_REMOVE;
}

/* The output needs a window, and only the UI thread's main loop can make
 * one: it waits for the UI thread here, whatever the UI thread is doing
 * (the bug: it does not look at v->stop). */
__attribute__((noinline)) static void vout_request_window(struct vout *v)
{
	g_idle_add(ui_create_video_window, v);
	g_mutex_lock(&v->lock);
	while (!v->window_answered)
		g_cond_wait(&v->vout_cond, &v->lock);
	g_mutex_unlock(&v->lock);
}

/* A frame every 40 ms until told to stop; then idle again. */
__attribute__((noinline)) static void vout_display(struct vout *v)
{
	g_mutex_lock(&v->lock);
	while (!v->stop) {
		g_mutex_unlock(&v->lock);
		for (size_t i = 0; i < sizeof(v->pixels); i++)
			v->pixels[i] = (unsigned char)(i * 7 + v->frames);
		g_mutex_lock(&v->lock);
		v->frames++;
		gint64 next = g_get_monotonic_time() + 40 * G_TIME_SPAN_MILLISECOND;
		while (!v->stop && g_cond_wait_until(&v->vout_cond, &v->lock, next))
			;
	}
	v->busy = false;
	g_cond_signal(&v->ui_cond);
	g_mutex_unlock(&v->lock);
}

static gpointer vout_thread(gpointer arg)
{
	struct vout *v = arg;
	prctl(PR_SET_NAME, "zoo-b10-vout");
	for (;;) {
		g_mutex_lock(&v->lock);
		while (!v->play)
			g_cond_wait(&v->vout_cond, &v->lock);
		v->play = false;
		g_mutex_unlock(&v->lock);
		vout_open_stream(v);
		vout_request_window(v);
		vout_display(v);
	}
	return NULL;
}

/* ---- the UI ---- */

__attribute__((noinline)) static void ui_play(struct app *a)
{
	struct vout *v = &a->vout;
	if (a->playing)
		return;
	g_mutex_lock(&v->lock);
	bool busy = v->busy;
	if (!busy) {
		v->play = v->busy = true;
		v->stop = v->window_answered = false;
		g_cond_signal(&v->vout_cond);
	}
	g_mutex_unlock(&v->lock);
	if (busy)
		return;
	a->playing = true;
	char text[64];
	snprintf(text, sizeof(text), "playing (%u)", ++a->plays);
	gtk_label_set_text(GTK_LABEL(a->label), text);
}

/* Closes the player: stop the output and wait for it, 4 s at most. */
__attribute__((noinline)) static void ui_close_player(struct app *a)
{
	struct vout *v = &a->vout;
	if (!a->playing)
		return;
	a->playing = false;
	g_mutex_lock(&v->lock);
	v->stop = true;
	g_cond_signal(&v->vout_cond);
	gint64 deadline = g_get_monotonic_time() + 4 * G_TIME_SPAN_SECOND;
	while (v->busy)
		if (!g_cond_wait_until(&v->ui_cond, &v->lock, deadline))
			break;
	bool stopped = !v->busy;
	g_mutex_unlock(&v->lock);
	if (v->video) {
		gtk_widget_destroy(v->video);
		v->video = NULL;
	}
	gtk_label_set_text(GTK_LABEL(a->label),
	                   stopped ? "closed" : "closed (video output still busy)");
	printf(stopped ? "closed\n" : "closed: video output did not stop in 4 s\n");
	fflush(stdout);
}

static gboolean on_key(GtkWidget *w, GdkEventKey *e, gpointer arg)
{
	(void)w;
	if (e->keyval == GDK_KEY_p)
		ui_play(arg);
	else if (e->keyval == GDK_KEY_q)
		ui_close_player(arg);
	return TRUE;
}

int main(int argc, char **argv)
{
	int exit_after = zoo_args(argc, argv);
	gtk_init(&argc, &argv);
	struct app *a = &the_app;
	g_mutex_init(&a->vout.lock);
	g_cond_init(&a->vout.vout_cond);
	g_cond_init(&a->vout.ui_cond);
	g_thread_unref(g_thread_new("zoo-b10-vout", vout_thread, &a->vout));
	GtkWidget *win =
	    zoo_window("zoo-b10", "press p (play) and q (close the player)", on_key, a);
	a->label = gtk_bin_get_child(GTK_BIN(win));
	zoo_ready(win, NULL);
	zoo_run(exit_after);
	return 0;
}
