/*
 * zoo.h - what the bug zoo's case programs share: the command line, the
 * main window, the main loop's end, helper processes and the clock.
 *
 * Only plumbing lives here. Every function a case's truth file names, and
 * every function on the path to it, stays in the case's own source, so that
 * the hang's stacks are the case's and nothing of this library sits between
 * a root cause and the system call it waits in.
 */
#ifndef ARGUS_ZOO_H
#define ARGUS_ZOO_H

#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

#include <gtk/gtk.h>

/* --exit-after SECONDS (default 60): how long the program runs at most. */
int zoo_args(int argc, char **argv);

typedef gboolean (*zoo_key_fn)(GtkWidget *win, GdkEventKey *e, gpointer data);

/* The case's main window, 320 x 120, titled title (the runner and the
 * driver find it by it): key presses go to on_key(win, e, data), closing it
 * ends the main loop. With hint, its one child is a label showing hint
 * (gtk_bin_get_child gives it back); without, the case adds its own. Not
 * shown yet: see zoo_ready(). */
GtkWidget *zoo_window(const char *title, const char *hint, zoo_key_fn on_key, gpointer data);

/* Shows win and tells the runner the app is up: "ready" on stdout, then
 * detail_fmt's text in parentheses when detail_fmt is not NULL. */
void zoo_ready(GtkWidget *win, const char *detail_fmt, ...) __attribute__((format(printf, 2, 3)));

/* Shows the text in label and prints it as a line of the case's log
 * (stdout). */
void zoo_say(GtkWidget *label, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The GTK main loop, until the window closes, SIGTERM comes or exit_after
 * seconds have passed. */
void zoo_run(int exit_after);

/* Names the calling process name (its comm) and has it get SIGTERM when its
 * parent dies: the first thing a helper process does after its fork. */
void zoo_child_init(const char *name);

/* fork() for a helper process: in the child (0 returned) after
 * zoo_child_init(name). -1 (perror'd) when the fork fails. */
pid_t zoo_fork(const char *name);

/* Forks helper process name, linked to this one by a unix socket pair: the
 * child runs serve(its end, arg), then exits. Returns this process's end
 * and the child's pid in *pid; -1 (perror'd) on failure. */
int zoo_spawn(const char *name, void (*serve)(int fd, void *arg), void *arg, pid_t *pid);

/* Ends helper process pid: SIGTERM, then waits for it. */
void zoo_reap(pid_t pid);

/* CLOCK_MONOTONIC, in seconds and in milliseconds. Inline, as the cases'
 * own clocks were: a root cause that reads the clock as it waits keeps no
 * frame of this library on its stack. */
static inline double zoo_now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static inline long zoo_now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000L + t.tv_nsec / 1000000L;
}

/* Real CPU work for about ns nanoseconds of wall time (the case's timeline
 * stays the same on a busy machine); returns a hash of it. */
unsigned zoo_work_for_ns(long ns);

/* The least CPU time of runs calls of probe(arg) (the calling thread's
 * CPU clock), in seconds, at least 1 us: what a case sizes its hang from at
 * start-up. CPU time, not wall time: a probe preempted on a busy machine
 * would shrink the hang, and a hang sized on a busy machine and run on an
 * idle one could end below the stall threshold (B2, B5 missed so). */
double zoo_fastest_s(int runs, void (*probe)(void *arg), void *arg);

#endif
