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
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zoo.h"

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

struct probe {
	struct app *app;
	struct line line;
};

static void probe_search(void *arg)
{
	struct probe *p = arg;
	url_search_line(p->app, &p->line);
}

/* The long line's length for a search of about 4 s: the cost is quadratic
 * in it; the fastest of three probes. */
static size_t calibrate(struct app *a)
{
	const size_t cells = 150000; /* megabytes, as the long line: out of the small caches */
	struct probe p = {.app = a};
	fill_line(&p.line, cells);
	double best = zoo_fastest_s(3, probe_search, &p);
	free(p.line.cells);
	return (size_t)(cells * sqrt(4.0 / best));
}

static gboolean on_key(GtkWidget *w, GdkEventKey *e, gpointer arg)
{
	(void)w;
	term_render_line(arg, e->keyval == GDK_KEY_h);
	return TRUE;
}

int main(int argc, char **argv)
{
	int exit_after = zoo_args(argc, argv);
	struct app a = {0};
	fill_line(&a.short_line, 80);
	fill_line(&a.long_line, calibrate(&a));
	gtk_init(&argc, &argv);
	GtkWidget *win =
	    zoo_window("zoo-b8", "press f (a short line) or h (one very long line)", on_key, &a);
	a.label = gtk_bin_get_child(GTK_BIN(win));
	zoo_ready(win, "long line: %zu cells, %zu MB", a.long_line.n,
	          a.long_line.n * sizeof(struct cell) >> 20);
	zoo_run(exit_after);
	return 0;
}
