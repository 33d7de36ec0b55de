/*
 * zoo-heartbeat.c - a zoo-like hang (bench/zoo/README.md) for the user-rule
 * test (tests/debug/test_debug_rule_live.c): wake-ups that are no cause,
 * from a thread argus has no rule for.
 *
 * The GTK3 UI process (zoo-heartbeat) hands each key press's save to its
 * I/O thread (zoo-hb-io), which asks the saver process (zoo-hb-saver, over
 * a unix socket pair) and reads its answer; the UI thread waits for the
 * answer on a condition variable. A progress thread (zoo-hb-beat) broadcasts
 * that condition variable every 20 ms (as a progress bar's ticker would), so
 * the waiting UI thread is woken fifty times a second by a thread that has
 * nothing to do with the answer. 'f' is answered after ~3 ms of work; 'h'
 * first runs save_flush_journal(), which sleeps 4 s: the root cause.
 * Exits after --exit-after SECONDS (default 60) or on SIGTERM; the saver
 * exits when its socket closes.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "zoo.h"

/* ---- the saver process ---- */

__attribute__((noinline)) static void save_flush_journal(void)
{
	struct timespec t = {4, 0};
	while (nanosleep(&t, &t) && errno == EINTR)
		;
}

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

/* ---- the UI process ---- */

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int sock;
	char req;      /* a request for the I/O thread, 0 = none */
	bool answered; /* the I/O thread's answer came */
	unsigned long beats;
	atomic_bool stop;
} st = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

/* The progress ticker: wakes every waiter of the condition variable. */
__attribute__((noinline)) static void beat_tick(void)
{
	pthread_mutex_lock(&st.lock);
	st.beats++;
	pthread_cond_broadcast(&st.cond);
	pthread_mutex_unlock(&st.lock);
}

static void *beat_main(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "zoo-hb-beat");
	struct timespec gap = {0, 20000000L};
	while (!atomic_load(&st.stop)) {
		nanosleep(&gap, NULL);
		beat_tick();
	}
	return NULL;
}

/* The I/O thread: one request at a time to the saver, its answer back. */
__attribute__((noinline)) static bool io_ask_saver(char req)
{
	char ans;
	return write(st.sock, &req, 1) == 1 && read(st.sock, &ans, 1) == 1;
}

static void *io_main(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "zoo-hb-io");
	pthread_mutex_lock(&st.lock);
	while (!atomic_load(&st.stop)) {
		if (!st.req) {
			pthread_cond_wait(&st.cond, &st.lock);
			continue;
		}
		char req = st.req;
		st.req = 0;
		pthread_mutex_unlock(&st.lock);
		bool ok = io_ask_saver(req);
		pthread_mutex_lock(&st.lock);
		st.answered = true;
		(void)ok;
		pthread_cond_broadcast(&st.cond);
	}
	pthread_mutex_unlock(&st.lock);
	return NULL;
}

/* The UI thread's save: hand it over, wait for the answer. */
__attribute__((noinline)) static void ui_wait_answer(char req)
{
	pthread_mutex_lock(&st.lock);
	st.answered = false;
	st.req = req;
	pthread_cond_broadcast(&st.cond);
	while (!st.answered)
		pthread_cond_wait(&st.cond, &st.lock);
	pthread_mutex_unlock(&st.lock);
}

static gboolean on_key(GtkWidget *w, GdkEventKey *e, gpointer arg)
{
	static unsigned saves;
	(void)arg;
	char req = e->keyval == GDK_KEY_h ? 's' : 'f';
	ui_wait_answer(req);
	zoo_say(gtk_bin_get_child(GTK_BIN(w)), "%u saves (%c)", ++saves, req);
	return TRUE;
}

int main(int argc, char **argv)
{
	int exit_after = zoo_args(argc, argv);
	pid_t saver;
	st.sock = zoo_spawn("zoo-hb-saver", saver_serve, NULL, &saver);
	if (st.sock < 0)
		return 1;
	pthread_t beat, io;
	if (pthread_create(&beat, NULL, beat_main, NULL) ||
	    pthread_create(&io, NULL, io_main, NULL)) {
		fprintf(stderr, "pthread_create failed\n");
		return 1;
	}
	gtk_init(&argc, &argv);
	GtkWidget *win = zoo_window(
	    "zoo-heartbeat", "press f (fast save) or h (hangs 4 s in the saver)", on_key, NULL);
	zoo_ready(win, NULL);
	zoo_run(exit_after);
	atomic_store(&st.stop, true);
	pthread_mutex_lock(&st.lock);
	pthread_cond_broadcast(&st.cond);
	pthread_mutex_unlock(&st.lock);
	pthread_join(beat, NULL);
	pthread_join(io, NULL);
	close(st.sock);
	zoo_reap(saver);
	return 0;
}
