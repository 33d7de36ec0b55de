/*
 * zoo-b7.c - bug zoo case B7: excessive garbage collection on the UI
 * thread.
 *
 * The app keeps the pages it inspects in a small managed heap of
 * fixed-size objects with a mark-and-sweep collector (gc_collect(): marks
 * what the roots reach, then sweeps the rest onto the free list), run by
 * the allocator whenever the free list is empty. A key press loads a page
 * on the UI thread: 'l' a small page (a few thousand nodes and temporaries:
 * no collection or one), 'h' a page whose nodes fill the heap to the brim,
 * so the temporaries of its parse leave only a few hundred free slots after
 * each collection and the allocator collects again and again, each pass
 * walking the whole live page: as many temporaries as take about 4 s of
 * collections, calibrated at start-up. A LongRunning stall whose costly
 * function is gc_collect. Exits after --exit-after SECONDS (default 60) or
 * on SIGTERM.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "zoo.h"

#define HEAP_OBJECTS (1u << 20)
#define HANG_SLACK   400 /* free slots the hang's page leaves */
#define SMALL_NODES  4000
#define SMALL_TEMPS  20000

struct obj {
	struct obj *child; /* first child */
	struct obj *next;  /* next sibling, or next free object */
	uint32_t mark;
	uint32_t value;
};

struct heap {
	struct obj *objs;
	struct obj **mark_stack;
	struct obj *free;
	struct obj *root; /* the page being inspected */
	unsigned long collections;
};

struct app {
	struct heap heap;
	GtkWidget *label;
	unsigned long hang_temps;
	unsigned loads;
};

/* Marks everything the root reaches (an explicit stack: pages are deep),
 * then sweeps every unmarked object onto the free list. */
__attribute__((noinline)) static void gc_collect(struct heap *h, struct obj *extra_root)
{
	size_t top = 0;
	if (h->root)
		h->mark_stack[top++] = h->root;
	if (extra_root)
		h->mark_stack[top++] = extra_root;
	while (top) {
		struct obj *o = h->mark_stack[--top];
		for (; o && !o->mark; o = o->next) {
			o->mark = 1;
			if (o->child && !o->child->mark)
				h->mark_stack[top++] = o->child;
		}
	}
	h->free = NULL;
	for (size_t i = HEAP_OBJECTS; i-- > 0;) {
		struct obj *o = &h->objs[i];
		if (o->mark) {
			o->mark = 0;
		} else {
			o->child = NULL;
			o->next = h->free;
			h->free = o;
		}
	}
	h->collections++;
}

/* One object, collecting first when the free list is empty; extra_root is
 * the caller's object under construction (not yet reachable from the
 * root). */
static struct obj *gc_alloc(struct heap *h, struct obj *extra_root)
{
	if (!h->free)
		gc_collect(h, extra_root);
	struct obj *o = h->free;
	if (!o)
		abort(); /* the live page alone overflows the heap */
	h->free = o->next;
	o->child = o->next = NULL;
	return o;
}

static bool heap_init(struct heap *h)
{
	h->objs = calloc(HEAP_OBJECTS, sizeof(*h->objs));
	h->mark_stack = calloc(HEAP_OBJECTS + 2, sizeof(*h->mark_stack));
	if (!h->objs || !h->mark_stack)
		return false;
	gc_collect(h, NULL); /* everything onto the free list */
	return true;
}

/* Loads a page of nodes nodes into the heap (the old page becomes
 * garbage): rows of ten children under the root, each parsed from a
 * temporary token; then temps more temporaries (the page's scripts). */
__attribute__((noinline)) static void page_load(struct heap *h, unsigned nodes, unsigned long temps)
{
	h->root = NULL;
	struct obj *page = gc_alloc(h, NULL);
	struct obj *row = NULL;
	for (unsigned i = 1; i < nodes; i++) {
		struct obj *tok = gc_alloc(h, page);
		tok->value = i;
		struct obj *node = gc_alloc(h, page);
		node->value = tok->value * 31u;
		if (i % 10 == 1 || !row) {
			node->next = page->child;
			page->child = node;
			row = node;
		} else {
			node->next = row->child;
			row->child = node;
		}
	}
	h->root = page;
	for (unsigned long i = 0; i < temps; i++) {
		struct obj *tmp = gc_alloc(h, NULL);
		tmp->value = (uint32_t)i;
	}
}

static void probe_collect(void *heap)
{
	gc_collect(heap, NULL);
}

/* How many temporaries of the hang's page take about 4 s: the fastest of
 * three collections of a brim-full heap, times 4 s, times the slack each
 * collection leaves. */
static unsigned long calibrate(struct heap *h)
{
	page_load(h, HEAP_OBJECTS - HANG_SLACK, 0);
	double best = zoo_fastest_s(3, probe_collect, h);
	page_load(h, SMALL_NODES, 0);
	return (unsigned long)(4.0 / best * HANG_SLACK);
}

static gboolean on_key(GtkWidget *w, GdkEventKey *e, gpointer arg)
{
	(void)w;
	struct app *a = arg;
	if (e->keyval != GDK_KEY_l && e->keyval != GDK_KEY_h)
		return TRUE;
	bool big = e->keyval == GDK_KEY_h;
	unsigned long before = a->heap.collections;
	double t0 = zoo_now_s();
	page_load(&a->heap, big ? HEAP_OBJECTS - HANG_SLACK : SMALL_NODES,
	          big ? a->hang_temps : SMALL_TEMPS);
	double dt = zoo_now_s() - t0;
	zoo_say(a->label, "page %u: %lu collections in %.3f s", ++a->loads,
	        a->heap.collections - before, dt);
	return TRUE;
}

int main(int argc, char **argv)
{
	int exit_after = zoo_args(argc, argv);
	struct app a = {0};
	if (!heap_init(&a.heap))
		return 1;
	a.hang_temps = calibrate(&a.heap);
	gtk_init(&argc, &argv);
	GtkWidget *win = zoo_window(
	    "zoo-b7", "press l (small page) or h (page that fills the heap)", on_key, &a);
	a.label = gtk_bin_get_child(GTK_BIN(win));
	zoo_ready(win, "hang: %lu temporaries", a.hang_temps);
	zoo_run(exit_after);
	return 0;
}
