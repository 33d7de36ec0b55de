/*
 * zoo-b5.c - bug zoo case B5: a key handler calls a library function that
 * loops without end on one input.
 *
 * Every key press hashes the tokens of a text with zoo_hash_tokens() (the
 * app's own shared library libzoo-tokens.so, zoo-tokens.c, in the program's
 * folder) on the UI thread: 'f' a normal text (fast), 'h' a text ending in
 * an escape, on which the tokenizer stops advancing and spins until its
 * step limit, calibrated at start-up to about 4 s: a LongRunning stall whose
 * costly function is zoo_hash_tokens. Exits after --exit-after SECONDS
 * (default 60) or on SIGTERM.
 */
#include <stdbool.h>
#include <stdio.h>

#include "zoo-tokens.h"
#include "zoo.h"

static const char normal_text[] = "set width 80 \\n and wrap at 72 columns";
static const char bad_text[] = "set width 80 and wrap at 72 columns \\";

struct app {
	GtkWidget *label;
	unsigned long hang_steps; /* steps that take about 4 s */
};

static void probe_hash(void *steps)
{
	unsigned long done;
	zoo_hash_tokens(bad_text, sizeof(bad_text) - 1, *(unsigned long *)steps, &done);
}

/* How many steps of the endless loop take about 4 s on this machine; the
 * fastest of five probes. */
static unsigned long calibrate(void)
{
	unsigned long probe = 2000000;
	return (unsigned long)(probe * (4.0 / zoo_fastest_s(5, probe_hash, &probe)));
}

__attribute__((noinline)) static void ui_hash_text(struct app *a, bool bad)
{
	const char *text = bad ? bad_text : normal_text;
	size_t len = bad ? sizeof(bad_text) - 1 : sizeof(normal_text) - 1;
	unsigned long steps;
	unsigned long h = zoo_hash_tokens(text, len, a->hang_steps, &steps);
	char out[64];
	snprintf(out, sizeof(out), "%lu tokens, hash %lx", steps, h);
	gtk_label_set_text(GTK_LABEL(a->label), out);
	printf("hashed %c\n", bad ? 'h' : 'f');
	fflush(stdout);
}

static gboolean on_key(GtkWidget *w, GdkEventKey *e, gpointer arg)
{
	(void)w;
	ui_hash_text(arg, e->keyval == GDK_KEY_h);
	return TRUE;
}

int main(int argc, char **argv)
{
	int exit_after = zoo_args(argc, argv);
	struct app a = {.hang_steps = calibrate()};
	gtk_init(&argc, &argv);
	GtkWidget *win = zoo_window("zoo-b5", "press f (fast) or h (loops about 4 s)", on_key, &a);
	a.label = gtk_bin_get_child(GTK_BIN(win));
	zoo_ready(win, "hang: %lu steps", a.hang_steps);
	zoo_run(exit_after);
	return 0;
}
