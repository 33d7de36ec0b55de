/*
 * zoo-b12.c - bug zoo case B12: a helper thread writes a tty over and over
 * while holding the lock the UI thread needs.
 *
 * A script editor with a console: the console's line editor runs on its own
 * thread (zoo-b12-rl), writing to a real pty (openpty) whose master a
 * terminal process (zoo-b12-term, fork()ed) drains. The edit line and its
 * cursor are guarded by one pthread mutex, which the UI thread takes for
 * every key press, to hand the edit to the line editor and read the
 * cursor. The line editor keeps the mutex while it echoes an edit, and it
 * redisplays the whole line after every character it inserts, one write(2)
 * per character: recalling a command from the history ('f', a length
 * calibrated at start-up) costs about 100 ms, so a second key press right
 * after it waits that long for the mutex; pasting a script ('h') costs 4 s
 * of tty writes, all that time with the mutex held, and the next key press
 * waits for all of it: a LongWait stall whose root cause is the line
 * editor's rl_redisplay.
 *
 * The paste's length is set by time (its characters go in until 4 s have
 * passed: a script as long as this machine echoes in 4 s): the pty's speed
 * depends on how the writer, the kernel's tty worker and the terminal are
 * scheduled, which a busy machine changes by a factor of two between a
 * probe and the paste. Exits after --exit-after SECONDS (default 60) or on
 * SIGTERM.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <pty.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <termios.h>
#include <unistd.h>

#include "zoo.h"

struct console {
	pthread_mutex_t lock; /* guards everything below */
	pthread_cond_t job_ready;
	int tty;    /* the pty's slave end */
	char *line; /* the edit line */
	size_t len, cap, cursor;
	const char *job; /* text to insert, NULL = none */
	size_t job_len;
	double until;              /* the job's deadline (zoo_now_s()), 0 = none */
	unsigned long long echoed; /* bytes written to the tty */
	bool quit;
};

struct app {
	struct console con;
	GtkWidget *label;
	char *script; /* what 'f' recalls (its start) and 'h' pastes */
	size_t recall_len, script_len;
};

static const char command[] = "plot (x, sin (x)); hold on; ";

/* ---- the terminal: drains the pty's master ---- */

static void term_drain(int master)
{
	char buf[65536];
	ssize_t n;
	unsigned long long total = 0;
	while ((n = read(master, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
		if (n > 0)
			total += (unsigned long long)n;
	(void)total;
}

/* ---- the line editor thread ---- */

/* The bug: the whole line again after every character, one write(2) per
 * character, with no output buffering. Returns the bytes written. */
__attribute__((noinline)) static size_t rl_redisplay(struct console *c)
{
	if (write(c->tty, "\r", 1) != 1)
		return 0;
	for (size_t i = 0; i < c->len; i++)
		if (write(c->tty, &c->line[i], 1) != 1)
			return i + 1;
	return c->len + 1 + (write(c->tty, "\033[K", 3) == 3 ? 3 : 0);
}

/* Inserts text at the cursor, echoing as it goes, until the text ends or
 * the clock reaches until (0: no limit); called with the lock held (the
 * line must not change under the redisplay). */
__attribute__((noinline)) static void rl_insert_text(struct console *c, const char *text, size_t n,
                                                     double until)
{
	if (c->len + n + 1 > c->cap) {
		size_t cap = (c->len + n + 1) * 2;
		char *p = realloc(c->line, cap);
		if (!p)
			return;
		c->line = p;
		c->cap = cap;
	}
	for (size_t i = 0; i < n; i++) {
		char ch = text[i] == '\n' ? ' ' : text[i];
		memmove(c->line + c->cursor + 1, c->line + c->cursor, c->len - c->cursor);
		c->line[c->cursor++] = ch;
		c->len++;
		c->echoed += rl_redisplay(c);
		if (until > 0 && zoo_now_s() >= until)
			break;
	}
}

static void *rl_thread(void *arg)
{
	struct console *c = arg;
	prctl(PR_SET_NAME, "zoo-b12-rl");
	pthread_mutex_lock(&c->lock);
	for (;;) {
		while (!c->job && !c->quit)
			pthread_cond_wait(&c->job_ready, &c->lock);
		if (c->quit)
			break;
		const char *text = c->job;
		size_t n = c->job_len;
		double until = c->until;
		c->job = NULL;
		/* a fresh line for each edit, as a console does for a command */
		c->len = c->cursor = 0;
		rl_insert_text(c, text, n, until);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

struct probe {
	struct console *con;
	const char *text;
	size_t len;
};

/* One probe: len characters of text inserted into a fresh line. */
static void probe_insert(void *arg)
{
	struct probe *p = arg;
	pthread_mutex_lock(&p->con->lock);
	p->con->len = p->con->cursor = 0;
	rl_insert_text(p->con, p->text, p->len, 0);
	pthread_mutex_unlock(&p->con->lock);
}

/* Characters to recall for about 100 ms of redisplay: the cost is
 * quadratic in them. Probes the editor itself (on this thread, before the
 * UI starts); the fastest of three. */
static size_t calibrate(struct console *c, const char *text)
{
	struct probe p = {.con = c, .text = text, .len = 500};
	double best = zoo_fastest_s(3, probe_insert, &p);
	return (size_t)(p.len * sqrt(0.1 / best));
}

/* ---- the UI ---- */

__attribute__((noinline)) static void ui_send_edit(struct app *a, bool paste)
{
	pthread_mutex_lock(&a->con.lock);
	size_t cursor = a->con.cursor;
	a->con.job = a->script;
	a->con.job_len = paste ? a->script_len : a->recall_len;
	a->con.until = paste ? zoo_now_s() + 4.0 : 0;
	pthread_cond_signal(&a->con.job_ready);
	pthread_mutex_unlock(&a->con.lock);
	char out[64];
	snprintf(out, sizeof(out), "column %zu", cursor);
	gtk_label_set_text(GTK_LABEL(a->label), out);
	printf("edit %c\n", paste ? 'h' : 'f');
	fflush(stdout);
}

static gboolean on_key(GtkWidget *w, GdkEventKey *e, gpointer arg)
{
	(void)w;
	ui_send_edit(arg, e->keyval == GDK_KEY_h);
	return TRUE;
}

/* A script of commands, max characters. */
static char *make_script(size_t max)
{
	char *s = malloc(max + 1);
	for (size_t i = 0; i < max; i++)
		s[i] = command[i % (sizeof(command) - 1)];
	s[max] = 0;
	return s;
}

int main(int argc, char **argv)
{
	int exit_after = zoo_args(argc, argv);

	int master, slave;
	if (openpty(&master, &slave, NULL, NULL, NULL)) {
		perror("openpty");
		return 1;
	}
	struct termios tio;
	if (!tcgetattr(slave, &tio)) {
		cfmakeraw(&tio);
		tcsetattr(slave, TCSANOW, &tio);
	}
	pid_t term = zoo_fork("zoo-b12-term");
	if (term < 0)
		return 1;
	if (term == 0) {
		close(slave);
		term_drain(master);
		_exit(0);
	}
	close(master);

	struct app a = {.con = {.lock = PTHREAD_MUTEX_INITIALIZER,
	                        .job_ready = PTHREAD_COND_INITIALIZER,
	                        .tty = slave}};
	const size_t max_script = 1 << 20;
	a.script = make_script(max_script);
	a.script_len = max_script;
	a.recall_len = calibrate(&a.con, a.script);
	a.con.len = a.con.cursor = 0;
	pthread_t rl;
	if (pthread_create(&rl, NULL, rl_thread, &a.con)) {
		fprintf(stderr, "pthread_create failed\n");
		return 1;
	}

	gtk_init(&argc, &argv);
	GtkWidget *win =
	    zoo_window("zoo-b12", "press f (recall a command) or h (paste a script)", on_key, &a);
	a.label = gtk_bin_get_child(GTK_BIN(win));
	zoo_ready(win, "recall: %zu characters", a.recall_len);
	zoo_run(exit_after);

	pthread_mutex_lock(&a.con.lock);
	a.con.quit = true;
	pthread_cond_signal(&a.con.job_ready);
	pthread_mutex_unlock(&a.con.lock);
	pthread_join(rl, NULL);
	close(slave);
	zoo_reap(term);
	return 0;
}
