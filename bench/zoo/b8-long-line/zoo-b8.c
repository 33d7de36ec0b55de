/*
 * zoo-b8.c - bug zoo case B8: excessive copying while scanning one very
 * long line.
 *
 * A terminal-like view keeps a line as an array of cells (character and
 * attributes). Every key press renders the line, and rendering looks for a
 * URL under the cursor with url_search_line(): at each token boundary it
 * clones the cells of the line up to that boundary (memcpy of the growing
 * prefix) and hands the clone to the matcher, which only looks at its last
 * token. On a short line ('f': 80 cells) that is nothing; on one very long
 * line ('h': several megabytes of cells, the length calibrated at start-up)
 * the copying is quadratic and takes about 4 s: a LongRunning stall whose
 * costly function is url_search_line. Exits after --exit-after SECONDS
 * (default 60) or on SIGTERM.
 */
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <glib-unix.h>
#include <gtk/gtk.h>

struct cell {
	uint32_t ch;
	uint16_t fg, bg;
	uint32_t flags;
};

struct line {
	struct cell *cells;
	size_t n;
};

struct app {
	GtkWidget *label;
	struct line short_line, long_line;
	struct cell *scratch; /* the clone the matcher reads */
	size_t scratch_cap;
};

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* Words of 5-11 letters separated by blanks; one URL near the end. */
static void fill_line(struct line *l, size_t n)
{
	static const char url[] = "https://example.org/";
	l->cells = calloc(n, sizeof(*l->cells));
	l->n = n;
	unsigned seed = 7;
	size_t word = 0;
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		char c = (char)('a' + (seed >> 16) % 26);
		if (word >= 5 + (seed >> 8) % 7) {
			c = ' ';
			word = 0;
		} else {
			word++;
		}
		l->cells[i] = (struct cell){.ch = (uint32_t)c, .fg = 7, .bg = 0};
	}
	size_t at = n > 2 * sizeof(url) ? n - 2 * sizeof(url) : 0;
	for (size_t i = 0; url[i] && at + i < n; i++)
		l->cells[at + i].ch = (uint32_t)url[i];
}

/* Whether the last token of cells[0..n) starts with a URL scheme. */
__attribute__((noinline)) static bool url_at_end(const struct cell *cells, size_t n)
{
	size_t s = n;
	while (s > 0 && cells[s - 1].ch != ' ')
		s--;
	static const char scheme[] = "https://";
	if (n - s < sizeof(scheme) - 1)
		return false;
	for (size_t i = 0; i < sizeof(scheme) - 1; i++)
		if (cells[s + i].ch != (uint32_t)scheme[i])
			return false;
	return true;
}

/* The bug: the matcher gets a fresh clone of the whole line up to each
 * token boundary, so a line of n cells costs O(n^2) bytes copied. */
__attribute__((noinline)) static size_t url_search_line(struct app *a, const struct line *l)
{
	size_t found = 0;
	if (a->scratch_cap < l->n) {
		free(a->scratch);
		a->scratch = malloc(l->n * sizeof(*a->scratch));
		a->scratch_cap = a->scratch ? l->n : 0;
		if (!a->scratch)
			return 0;
	}
	for (size_t i = 1; i <= l->n; i++) {
		if (i < l->n && l->cells[i].ch != ' ')
			continue;
		memcpy(a->scratch, l->cells, i * sizeof(*l->cells));
		found += url_at_end(a->scratch, i);
	}
	return found;
}

__attribute__((noinline)) static void term_render_line(struct app *a, bool long_line)
{
	const struct line *l = long_line ? &a->long_line : &a->short_line;
	size_t urls = url_search_line(a, l);
	char out[96];
	snprintf(out, sizeof(out), "%zu cells, %zu URL(s)", l->n, urls);
	gtk_label_set_text(GTK_LABEL(a->label), out);
	printf("rendered %c\n", long_line ? 'h' : 'f');
	fflush(stdout);
}

/* The long line's length for a search of about 4 s: the cost is quadratic
 * in it; the fastest of three probes, so a probe preempted on a busy machine
 * does not shorten the hang below the stall threshold. */
static size_t calibrate(struct app *a)
{
	const size_t probe = 150000; /* megabytes, as the long line: out of the small caches */
	struct line l;
	fill_line(&l, probe);
	double best = 1e9;
	for (int i = 0; i < 3; i++) {
		double t0 = now_s();
		url_search_line(a, &l);
		double dt = now_s() - t0;
		if (dt < best)
			best = dt;
	}
	free(l.cells);
	return (size_t)(probe * sqrt(4.0 / (best > 1e-6 ? best : 1e-6)));
}

static gboolean on_key(GtkWidget *w, GdkEventKey *e, gpointer arg)
{
	(void)w;
	term_render_line(arg, e->keyval == GDK_KEY_h);
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
	struct app a = {0};
	fill_line(&a.short_line, 80);
	fill_line(&a.long_line, calibrate(&a));
	gtk_init(&argc, &argv);
	GtkWidget *win = gtk_window_new(GTK_WINDOW_TOPLEVEL);
	gtk_window_set_title(GTK_WINDOW(win), "zoo-b8");
	gtk_window_set_default_size(GTK_WINDOW(win), 320, 120);
	a.label = gtk_label_new("press f (a short line) or h (one very long line)");
	gtk_container_add(GTK_CONTAINER(win), a.label);
	g_signal_connect(win, "key-press-event", G_CALLBACK(on_key), &a);
	g_signal_connect(win, "destroy", G_CALLBACK(gtk_main_quit), NULL);
	g_timeout_add_seconds((guint)exit_after, on_quit, NULL);
	g_unix_signal_add(SIGTERM, on_quit, NULL);
	gtk_widget_show_all(win);
	printf("ready (long line: %zu cells, %zu MB)\n", a.long_line.n,
	       a.long_line.n * sizeof(struct cell) >> 20);
	fflush(stdout);
	gtk_main();
	return 0;
}
