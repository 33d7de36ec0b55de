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
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>

#include "zoo.h"

#define SMALL_TILE (256u * 256u * 4u)   /* 256 KiB at the normal zoom */
#define LARGE_TILE (4096u * 2048u * 4u) /* 32 MiB zoomed in */

struct app {
	GtkWidget *canvas, *label;
	unsigned zoomed_tiles; /* large tiles that take about 4 s */
	bool zoomed;
	unsigned frames;
};

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

static void probe_composite(void *tiles)
{
	composite_tiles(*(unsigned *)tiles, LARGE_TILE);
}

/* How many large tiles take about 4 s; the fastest of three probes. */
static unsigned calibrate(void)
{
	unsigned probe = 8;
	return (unsigned)(probe * (4.0 / zoo_fastest_s(3, probe_composite, &probe)));
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

int main(int argc, char **argv)
{
	int exit_after = zoo_args(argc, argv);
	struct app a = {.zoomed_tiles = calibrate()};
	gtk_init(&argc, &argv);
	GtkWidget *win = zoo_window("zoo-b9", NULL, on_key, &a);
	a.canvas = gtk_drawing_area_new();
	gtk_container_add(GTK_CONTAINER(win), a.canvas);
	g_signal_connect(a.canvas, "draw", G_CALLBACK(on_draw), &a);
	zoo_ready(win, "zoomed: %u tiles of %u MiB", a.zoomed_tiles, LARGE_TILE >> 20);
	zoo_run(exit_after);
	return 0;
}
