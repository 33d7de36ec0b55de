/*
 * zoo-b2.c - bug zoo case B2: a file changed by another process starts a
 * long computation on the UI thread.
 *
 * The app shows a bibliography, bib/refs.bib under its working folder (a
 * folder of its own: the monitor watches the file's folder, where no other
 * file changes), and watches it with a GFileMonitor (GLib's inotify backend: the GLib worker thread
 * reads the inotify fd and wakes the main loop). When another process
 * finishes writing the file (CHANGES_DONE_HINT), the UI thread reloads it
 * and indexes its lines with doc_index_lines(), which finds each line's
 * offset by scanning from the top of the document: quadratic in the number
 * of lines. A small edit (a few hundred lines) takes a millisecond; the
 * hang's file has as many lines as take about 4 s, calibrated at start-up
 * and written to hang-lines for the driver: a LongRunning stall whose
 * costly function is doc_index_lines. Key presses only update the label.
 * Exits after --exit-after SECONDS (default 60) or on SIGTERM.
 */
#include <math.h>
#include <stdio.h>

#include <gio/gio.h>

#include "zoo.h"

#define DOC_DIR  "bib"
#define DOC_PATH DOC_DIR "/refs.bib"

struct app {
	GtkWidget *label;
	GFileMonitor *monitor;
	unsigned reloads;
	unsigned keys;
};

/* The offset of every line, each found by counting newlines from the top
 * of the document (an index rebuilt naively on every reload): O(lines x
 * size). No libc inside the loop, so every sample's stack has this frame. */
__attribute__((noinline)) static size_t doc_index_lines(const char *text, size_t len,
                                                        size_t *offsets, size_t max_lines)
{
	size_t nlines = 0;
	for (size_t line = 0; line < max_lines; line++) {
		size_t seen = 0, off = 0;
		while (off < len && seen < line) {
			if (text[off] == '\n')
				seen++;
			off++;
		}
		if (off >= len && line > 0)
			break;
		offsets[nlines++] = off;
	}
	return nlines;
}

/* One bibliography entry per line, as the writer writes them. */
static char *make_doc(size_t lines, size_t *len)
{
	GString *s = g_string_new(NULL);
	for (size_t i = 0; i < lines; i++)
		g_string_append_printf(s, "@article{key%zu, title={Entry %zu}, year={%zu}}\n", i, i,
		                       1990 + i % 30);
	*len = s->len;
	return g_string_free(s, FALSE);
}

struct probe {
	char *text;
	size_t len;
	size_t *offsets;
	size_t max_lines;
};

static void probe_index(void *arg)
{
	struct probe *p = arg;
	doc_index_lines(p->text, p->len, p->offsets, p->max_lines);
}

/* How many lines take about 4 s to index on this machine: the fastest of
 * three probes, scaled quadratically. */
static size_t calibrate(void)
{
	const size_t lines = 2000;
	struct probe p = {.offsets = g_new(size_t, lines + 1), .max_lines = lines + 1};
	p.text = make_doc(lines, &p.len);
	double best = zoo_fastest_s(3, probe_index, &p);
	g_free(p.offsets);
	g_free(p.text);
	return (size_t)(lines * sqrt(4.0 / best));
}

__attribute__((noinline)) static void doc_reload(struct app *a)
{
	char *text;
	gsize len;
	if (!g_file_get_contents(DOC_PATH, &text, &len, NULL))
		return;
	size_t max_lines = 1;
	for (gsize i = 0; i < len; i++)
		max_lines += text[i] == '\n';
	size_t *offsets = g_new(size_t, max_lines + 1);
	double t0 = zoo_now_s();
	size_t n = doc_index_lines(text, len, offsets, max_lines + 1);
	double dt = zoo_now_s() - t0;
	zoo_say(a->label, "reload %u: %zu lines indexed in %.3f s", ++a->reloads, n, dt);
	g_free(offsets);
	g_free(text);
}

static void on_changed(GFileMonitor *m, GFile *file, GFile *other, GFileMonitorEvent ev,
                       gpointer arg)
{
	(void)m;
	(void)file;
	(void)other;
	/* the writer closed the file: reload once per write */
	if (ev == G_FILE_MONITOR_EVENT_CHANGES_DONE_HINT)
		doc_reload(arg);
}

static gboolean on_key(GtkWidget *w, GdkEventKey *e, gpointer arg)
{
	(void)w;
	(void)e;
	struct app *a = arg;
	char out[32];
	snprintf(out, sizeof(out), "%u keys", ++a->keys);
	gtk_label_set_text(GTK_LABEL(a->label), out);
	return TRUE;
}

int main(int argc, char **argv)
{
	int exit_after = zoo_args(argc, argv);
	size_t hang_lines = calibrate();
	/* the driver's writer writes this many lines for the hang */
	FILE *f = fopen("hang-lines", "w");
	if (!f || fprintf(f, "%zu\n", hang_lines) < 0 || fclose(f)) {
		perror("hang-lines");
		return 1;
	}
	size_t len;
	char *text = make_doc(100, &len);
	if (g_mkdir_with_parents(DOC_DIR, 0755) ||
	    !g_file_set_contents(DOC_PATH, text, (gssize)len, NULL))
		return 1;
	g_free(text);

	gtk_init(&argc, &argv);
	struct app a = {0};
	GFile *doc = g_file_new_for_path(DOC_PATH);
	a.monitor = g_file_monitor_file(doc, G_FILE_MONITOR_NONE, NULL, NULL);
	g_object_unref(doc);
	if (!a.monitor)
		return 1;
	g_signal_connect(a.monitor, "changed", G_CALLBACK(on_changed), &a);

	GtkWidget *win = zoo_window("zoo-b2", "watching " DOC_PATH, on_key, &a);
	a.label = gtk_bin_get_child(GTK_BIN(win));
	zoo_ready(win, "hang: %zu lines", hang_lines);
	zoo_run(exit_after);
	g_object_unref(a.monitor);
	return 0;
}
