/*
 * zoo-b9.c - bug zoo case B9: heavy memory operations while compositing.
 *
 * A canvas (GtkDrawingArea) draws its shapes through tiles: for each tile
 * the draw handler maps a fresh anonymous surface (mmap), clears it to the
 * background (a page fault on every page), composites the shapes into it
 * and unmaps it again (munmap), instead of keeping one surface for all of
 * them. At the normal zoom ('f') that is one small tile per frame; zooming
 * in ('h') makes the frame composite many large tiles, a count calibrated
 * at start-up to about 4 s of mmap, page faults and munmap in one draw: a
 * LongRunning stall, the thread on CPU in the kernel, whose costly function
 * is composite_tiles. Exits after --exit-after SECONDS (default 60) or on
 * SIGTERM.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <glib-unix.h>
#include <gtk/gtk.h>

#define SMALL_TILE (256u * 256u * 4u)   /* 256 KiB at the normal zoom */
#define LARGE_TILE (4096u * 2048u * 4u) /* 32 MiB zoomed in */

struct app {
	GtkWidget *canvas, *label;
	unsigned zoomed_tiles; /* large tiles that take about 4 s */
	bool zoomed;
	unsigned frames;
};

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* Clears a tile to the background: the first write to each page of the
 * fresh mapping faults it in. */
__attribute__((noinline)) static void clear_tile(uint32_t *px, size_t n, uint32_t bg)
{
	for (size_t i = 0; i < n; i++)
		px[i] = bg;
}

/* A few shapes blended into the tile: a little work per tile. */
__attribute__((noinline)) static uint32_t blend_shapes(uint32_t *px, size_t n, unsigned tile)
{
	uint32_t sum = 0;
	for (size_t i = tile % 1024; i < n; i += 4099) {
		px[i] = (px[i] >> 1) + 0x00402010u;
		sum += px[i];
	}
	return sum;
}

/* The bug: a fresh surface per tile, mapped, faulted in and unmapped, so
 * a frame of many large tiles is spent in mmap, page faults and munmap. */
__attribute__((noinline)) static uint32_t composite_tiles(unsigned tiles, size_t tile_bytes)
{
	uint32_t sum = 0;
	for (unsigned t = 0; t < tiles; t++) {
		uint32_t *px = mmap(NULL, tile_bytes, PROT_READ | PROT_WRITE,
		                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (px == MAP_FAILED)
			return sum;
		clear_tile(px, tile_bytes / 4, 0xff202020u);
		sum += blend_shapes(px, tile_bytes / 4, t);
		munmap(px, tile_bytes);
	}
	return sum;
}

/* How many large tiles take about 4 s; the fastest of three probes, so a
 * probe preempted on a busy machine does not shorten the hang below the
 * stall threshold. */
static unsigned calibrate(void)
{
	const unsigned probe = 8;
	double best = 1e9;
	for (int i = 0; i < 3; i++) {
		double t0 = now_s();
		composite_tiles(probe, LARGE_TILE);
		double dt = now_s() - t0;
		if (dt < best)
			best = dt;
	}
	return (unsigned)(probe * (4.0 / (best > 1e-6 ? best : 1e-6)));
}

static gboolean on_draw(GtkWidget *w, cairo_t *cr, gpointer arg)
{
	struct app *a = arg;
	(void)w;
	bool zoomed = a->zoomed;
	a->zoomed = false;
	uint32_t sum =
	    zoomed ? composite_tiles(a->zoomed_tiles, LARGE_TILE) : composite_tiles(1, SMALL_TILE);
	cairo_set_source_rgb(cr, (sum & 0xff) / 255.0, 0.3, 0.4);
	cairo_paint(cr);
	if (a->frames++ || zoomed) {
		printf("drew %c\n", zoomed ? 'h' : 'f');
		fflush(stdout);
	}
	return TRUE;
}

static gboolean on_key(GtkWidget *w, GdkEventKey *e, gpointer arg)
{
	struct app *a = arg;
	(void)w;
	a->zoomed = e->keyval == GDK_KEY_h;
	gtk_widget_queue_draw(a->canvas);
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
	struct app a = {.zoomed_tiles = calibrate()};
	gtk_init(&argc, &argv);
	GtkWidget *win = gtk_window_new(GTK_WINDOW_TOPLEVEL);
	gtk_window_set_title(GTK_WINDOW(win), "zoo-b9");
	gtk_window_set_default_size(GTK_WINDOW(win), 320, 120);
	a.canvas = gtk_drawing_area_new();
	gtk_container_add(GTK_CONTAINER(win), a.canvas);
	g_signal_connect(a.canvas, "draw", G_CALLBACK(on_draw), &a);
	g_signal_connect(win, "key-press-event", G_CALLBACK(on_key), &a);
	g_signal_connect(win, "destroy", G_CALLBACK(gtk_main_quit), NULL);
	g_timeout_add_seconds((guint)exit_after, on_quit, NULL);
	g_unix_signal_add(SIGTERM, on_quit, NULL);
	gtk_widget_show_all(win);
	printf("ready (zoomed: %u tiles of %u MiB)\n", a.zoomed_tiles, LARGE_TILE >> 20);
	fflush(stdout);
	gtk_main();
	return 0;
}
