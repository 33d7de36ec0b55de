/*
 * zoo-b14-convoy.c - bug zoo case B14 (decoy): a mutex convoy of non-causal
 * wake-ups around a hang whose cause is elsewhere.
 *
 * The GTK3 UI process runs four convoy threads (zoo-b14c-cv-0..3) that take
 * turns on one pthread mutex, each holding it for 1 ms of sleep: every
 * unlock hands the lock on with a futex wake, about a thousand a second. The
 * UI thread touches the same mutex briefly - on a 100 ms status tick and to
 * record each request - so it too waits in the queue and is woken by
 * whichever convoy thread unlocks: wake-ups that are real but not causal.
 *
 * A key press records the request under the mutex, then asks the saver
 * process (zoo-b14c-saver, over a unix socket pair) and reads its answer
 * synchronously. 'f' is answered after ~3 ms of work; 'h' ('s' on the
 * wire) first runs save_flush_journal(), which sleeps 4 s: the root cause.
 * The UI segment that blocks on the answer was opened by a convoy thread's
 * unlock, so the latest waker of the stalled thread is a decoy. Exits after
 * --exit-after SECONDS (default 60) or on SIGTERM; the saver exits when its
 * socket closes.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "zoo.h"

#define CONVOY_THREADS 4

/* ---- the saver process ---- */

__attribute__((noinline)) static void save_flush_journal(void)
{
	struct timespec t = {4, 0};
	while (nanosleep(&t, &t) && errno == EINTR)
		;
}

/* Real work, so a normal request makes the UI wait and get woken by the
 * saver: the normal run the diagnosis compares with. */
__attribute__((noinline)) static unsigned save_write_page(long ns)
{
	return zoo_work_for_ns(ns);
}

__attribute__((noinline)) static void saver_serve(int fd, void *arg)
{
	(void)arg;
	char req;
	while (read(fd, &req, 1) == 1) {
		if (req == 's')
			save_flush_journal();
		else
			save_write_page(3000000L);
		char ans = 'a';
		if (write(fd, &ans, 1) != 1)
			break;
	}
}

/* ---- the convoy ---- */

/* The shared state the convoy and the UI thread update under one mutex. */
static struct {
	pthread_mutex_t lock;
	unsigned long ticks, requests;
	atomic_bool stop;
} stats = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Holds the lock across a 1 ms sleep, as a thread that logs under its lock
 * would: the others queue behind it and each unlock wakes the next. */
__attribute__((noinline)) static void convoy_update_stats(void)
{
	pthread_mutex_lock(&stats.lock);
	stats.ticks++;
	struct timespec hold = {0, 1000000L};
	nanosleep(&hold, NULL);
	pthread_mutex_unlock(&stats.lock);
}

static void *convoy_main(void *arg)
{
	char name[16];
	snprintf(name, sizeof(name), "zoo-b14c-cv-%d", (int)(intptr_t)arg);
	prctl(PR_SET_NAME, name);
	struct timespec gap = {0, 200000L};
	while (!atomic_load(&stats.stop)) {
		convoy_update_stats();
		nanosleep(&gap, NULL);
	}
	return NULL;
}

/* ---- the UI ---- */

struct app {
	int sock;
	GtkWidget *label;
	unsigned answers;
};

/* The UI thread's brief touches of the convoy's mutex. */
__attribute__((noinline)) static unsigned long ui_count_request(void)
{
	pthread_mutex_lock(&stats.lock);
	unsigned long n = ++stats.requests;
	pthread_mutex_unlock(&stats.lock);
	return n;
}

static gboolean on_status_tick(gpointer arg)
{
	(void)arg;
	pthread_mutex_lock(&stats.lock);
	unsigned long ticks = stats.ticks;
	pthread_mutex_unlock(&stats.lock);
	(void)ticks;
	return G_SOURCE_CONTINUE;
}

/* Synchronous request to the saver from the UI thread: the hang. */
__attribute__((noinline)) static void ui_save(struct app *a, char req)
{
	ui_count_request();
	char ans;
	if (write(a->sock, &req, 1) != 1 || read(a->sock, &ans, 1) != 1)
		return;
	char text[64];
	snprintf(text, sizeof(text), "%u saves", ++a->answers);
	gtk_label_set_text(GTK_LABEL(a->label), text);
	printf("answer %c\n", req);
	fflush(stdout);
}

static gboolean on_key(GtkWidget *w, GdkEventKey *e, gpointer arg)
{
	(void)w;
	ui_save(arg, e->keyval == GDK_KEY_h ? 's' : 'f');
	return TRUE;
}

int main(int argc, char **argv)
{
	int exit_after = zoo_args(argc, argv);
	pid_t saver;
	struct app a = {.sock = zoo_spawn("zoo-b14c-saver", saver_serve, NULL, &saver)};
	if (a.sock < 0)
		return 1;
	pthread_t convoy[CONVOY_THREADS];
	for (int i = 0; i < CONVOY_THREADS; i++)
		if (pthread_create(&convoy[i], NULL, convoy_main, (void *)(intptr_t)i)) {
			fprintf(stderr, "pthread_create failed\n");
			return 1;
		}
	gtk_init(&argc, &argv);
	GtkWidget *win = zoo_window(
	    "zoo-b14-convoy", "press f (fast save) or h (hangs 4 s in the saver)", on_key, &a);
	a.label = gtk_bin_get_child(GTK_BIN(win));
	g_timeout_add(100, on_status_tick, NULL);
	zoo_ready(win, NULL);
	zoo_run(exit_after);
	atomic_store(&stats.stop, true);
	for (int i = 0; i < CONVOY_THREADS; i++)
		pthread_join(convoy[i], NULL);
	close(a.sock);
	zoo_reap(saver);
	return 0;
}
