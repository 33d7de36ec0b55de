/*
 * glib_prog.c - a real GLib / pthread program for the hooks tests, run under
 * `argus run`. argv[1] picks the scenario; it prints "key=value" lines
 * (addresses of its objects) that the tests match against the trace.
 *
 *   idle         a worker posts g_idle_add to the main loop, which quits
 *   invoke       a worker calls g_main_context_invoke on the main context
 *   timeout      the main thread adds a 30 ms g_timeout_add that quits
 *   pool         three work items pushed to a GThreadPool
 *   task         a GTask run in a thread (g_task_run_in_thread_sync)
 *   cond         a condition signal to a waiter, then a contended mutex unlock
 *   flag         one thread writes ready_flag, another polls it (data flag)
 *   hang         calls hang_forever(), which never returns (prune it)
 *   lag          a 50 ms timeout whose callback on_tick() spends 250 ms in
 *                recount_words(), three times, then quits (prune it)
 *   signals [S]  every 20 ms emits a GCancellable's "cancelled" signal, whose
 *                handler on_cancelled() runs 1 ms (a landmark shorter than
 *                the hooks' 3 ms), for S seconds (default 10)
 *   dbus-server  owns org.argus.HookTest, answers one Ping, exits
 *   dbus-client  calls org.argus.HookTest Ping once
 */
#include <gio/gio.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- idle / invoke ---- */

static GMainLoop *loop;

static gboolean quit_cb(gpointer data)
{
	(void)data;
	printf("run_tid=%d\n", gettid());
	g_main_loop_quit(loop);
	return G_SOURCE_REMOVE;
}

static gpointer idle_worker(gpointer data)
{
	(void)data;
	g_usleep(20000);
	printf("post_tid=%d\n", gettid());
	if (g_getenv("PROG_INVOKE"))
		g_main_context_invoke(NULL, quit_cb, NULL);
	else
		g_idle_add(quit_cb, NULL);
	return NULL;
}

static int run_idle(bool invoke)
{
	if (invoke)
		g_setenv("PROG_INVOKE", "1", TRUE);
	printf("callback=%p\n", (void *)quit_cb);
	loop = g_main_loop_new(NULL, FALSE);
	GThread *t = g_thread_new("poster", idle_worker, NULL);
	g_main_loop_run(loop);
	g_thread_join(t);
	g_main_loop_unref(loop);
	return 0;
}

static int run_timeout(void)
{
	loop = g_main_loop_new(NULL, FALSE);
	printf("callback=%p\npost_tid=%d\n", (void *)quit_cb, gettid());
	g_timeout_add(30, quit_cb, NULL);
	g_main_loop_run(loop);
	g_main_loop_unref(loop);
	return 0;
}

/* ---- thread pool / task ---- */

static void pool_work(gpointer item, gpointer user)
{
	(void)user;
	printf("ran=%p tid=%d\n", item, gettid());
}

static int run_pool(void)
{
	static int items[3];
	printf("item0=%p\n", (void *)&items[0]);
	GThreadPool *pool = g_thread_pool_new(pool_work, NULL, 2, FALSE, NULL);
	for (int i = 0; i < 3; i++)
		g_thread_pool_push(pool, &items[i], NULL);
	g_thread_pool_free(pool, FALSE, TRUE);
	return 0;
}

static void task_work(GTask *task, gpointer src, gpointer data, GCancellable *c)
{
	(void)src, (void)data, (void)c;
	printf("task_tid=%d\n", gettid());
	g_task_return_boolean(task, TRUE);
}

static int run_task(void)
{
	GTask *task = g_task_new(NULL, NULL, NULL, NULL);
	printf("task=%p\n", (void *)task);
	g_task_run_in_thread_sync(task, task_work);
	gboolean ok = g_task_propagate_boolean(task, NULL);
	g_object_unref(task);
	/* The worker returns from the task function just after it handed the
	 * result back: give it time to, before exit ends it. */
	g_usleep(100000);
	return ok ? 0 : 1;
}

/* ---- cond / mutex hand-off ---- */

static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t handoff_mtx = PTHREAD_MUTEX_INITIALIZER;
static int ready;

static void *cond_waiter(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mtx);
	while (!ready)
		pthread_cond_wait(&cond, &mtx);
	pthread_mutex_unlock(&mtx);
	return NULL;
}

static void *lock_taker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&handoff_mtx); /* blocks: main holds it */
	pthread_mutex_unlock(&handoff_mtx);
	return NULL;
}

static int run_cond(void)
{
	printf("cond=%p\nhandoff_mutex=%p\n", (void *)&cond, (void *)&handoff_mtx);
	pthread_t w;
	pthread_create(&w, NULL, cond_waiter, NULL);
	usleep(50000); /* let it wait */
	pthread_mutex_lock(&mtx);
	ready = 1;
	pthread_cond_signal(&cond);
	pthread_mutex_unlock(&mtx);
	pthread_join(w, NULL);

	pthread_mutex_lock(&handoff_mtx);
	pthread_t t;
	pthread_create(&t, NULL, lock_taker, NULL);
	usleep(100000); /* let it block in the lock */
	pthread_mutex_unlock(&handoff_mtx);
	pthread_join(t, NULL);
	return 0;
}

/* ---- data flag ---- */

volatile int ready_flag; /* exported (-rdynamic): named in the flag file */

static void *flag_writer(void *arg)
{
	(void)arg;
	usleep(50000);
	printf("writer_tid=%d\n", gettid());
	fflush(stdout);
	ready_flag = 1;
	return NULL;
}

static int run_flag(void)
{
	printf("flag=%p\nreader_tid=%d\n", (void *)&ready_flag, gettid());
	pthread_t t;
	pthread_create(&t, NULL, flag_writer, NULL);
	while (!ready_flag)
		usleep(5000);
	pthread_join(t, NULL);
	return 0;
}

/* ---- hang (pruning) ---- */

volatile int hang_done; /* never set: keeps the compiler from treating
                           hang_forever as noreturn (pruned, it returns) */

__attribute__((noinline)) int hang_forever(void)
{
	while (!hang_done)
		pause();
	return 1;
}

static int run_hang(void)
{
	alarm(1); /* unpruned, SIGALRM ends the hang after 1 s */
	int r = hang_forever();
	printf("hang_forever returned\n");
	(void)r;
	return 0;
}

/* ---- D-Bus ---- */

static const char introspection[] = "<node><interface name='org.argus.HookTest'>"
                                    "<method name='Ping'><arg type='s' direction='out'/></method>"
                                    "</interface></node>";

static void on_call(GDBusConnection *c, const gchar *sender, const gchar *path, const gchar *iface,
                    const gchar *method, GVariant *params, GDBusMethodInvocation *inv,
                    gpointer data)
{
	(void)c, (void)sender, (void)path, (void)iface, (void)method, (void)params, (void)data;
	printf("call_serial=%u\n",
	       g_dbus_message_get_serial(g_dbus_method_invocation_get_message(inv)));
	fflush(stdout);
	g_dbus_method_invocation_return_value(inv, g_variant_new("(s)", "pong"));
	g_timeout_add(200, quit_cb, NULL); /* let the reply go out */
}

static void on_name(GDBusConnection *c, const gchar *name, gpointer data)
{
	(void)c, (void)name, (void)data;
	printf("name_acquired\n");
	fflush(stdout);
}

static int run_dbus_server(void)
{
	GDBusNodeInfo *info = g_dbus_node_info_new_for_xml(introspection, NULL);
	static const GDBusInterfaceVTable vt = {on_call, NULL, NULL, {0}};
	GDBusConnection *c = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, NULL);
	if (!c)
		return 3;
	g_dbus_connection_register_object(c, "/org/argus/HookTest", info->interfaces[0], &vt, NULL,
	                                  NULL, NULL);
	guint id =
	    g_bus_own_name_on_connection(c, "org.argus.HookTest", 0, on_name, NULL, NULL, NULL);
	loop = g_main_loop_new(NULL, FALSE);
	g_timeout_add_seconds(10, quit_cb, NULL); /* never hang the test */
	g_main_loop_run(loop);
	g_bus_unown_name(id);
	g_dbus_connection_flush_sync(c, NULL, NULL);
	g_object_unref(c);
	g_dbus_node_info_unref(info);
	return 0;
}

static int run_dbus_client(void)
{
	GDBusConnection *c = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, NULL);
	if (!c)
		return 3;
	GError *err = NULL;
	GVariant *r = g_dbus_connection_call_sync(c, "org.argus.HookTest", "/org/argus/HookTest",
	                                          "org.argus.HookTest", "Ping", NULL,
	                                          G_VARIANT_TYPE("(s)"), 0, 5000, NULL, &err);
	if (!r) {
		fprintf(stderr, "Ping: %s\n", err->message);
		return 4;
	}
	printf("reply=ok\n");
	g_variant_unref(r);
	g_object_unref(c);
	return 0;
}

/* ---- lag ---- */

__attribute__((noinline)) unsigned recount_words(void)
{
	gint64 t0 = g_get_monotonic_time();
	volatile unsigned h = 2166136261u;
	while (g_get_monotonic_time() - t0 < 250000)
		for (int i = 0; i < 10000; i++)
			h = (h ^ (unsigned)i) * 16777619u;
	return h;
}

static int ticks;

__attribute__((noinline)) gboolean on_tick(gpointer data)
{
	(void)data;
	printf("tick %d %u\n", ticks, recount_words() & 1);
	if (++ticks < 3)
		return G_SOURCE_CONTINUE;
	g_main_loop_quit(loop);
	return G_SOURCE_REMOVE;
}

static int run_lag(void)
{
	loop = g_main_loop_new(NULL, FALSE);
	g_timeout_add(50, on_tick, NULL);
	g_main_loop_run(loop);
	return 0;
}

/* ---- signals ---- */

__attribute__((noinline)) void on_cancelled(GCancellable *c, gpointer data)
{
	(void)c;
	(void)data;
	gint64 t0 = g_get_monotonic_time();
	while (g_get_monotonic_time() - t0 < 1000)
		;
}

static int run_signals(double seconds)
{
	/* one turn of a main loop first: its records get the thread a ring
	 * (a thread asks for one at its first record) */
	loop = g_main_loop_new(NULL, FALSE);
	g_idle_add(quit_cb, NULL);
	g_main_loop_run(loop);
	GCancellable *c = g_cancellable_new();
	g_signal_connect(c, "cancelled", G_CALLBACK(on_cancelled), NULL);
	printf("handler=%p\n", (void *)on_cancelled);
	gint64 end = g_get_monotonic_time() + (gint64)(seconds * 1e6);
	while (g_get_monotonic_time() < end) {
		g_cancellable_cancel(c);
		g_cancellable_reset(c);
		g_usleep(20000);
	}
	g_object_unref(c);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *m = argc > 1 ? argv[1] : "";
	if (!strcmp(m, "idle"))
		return run_idle(false);
	if (!strcmp(m, "invoke"))
		return run_idle(true);
	if (!strcmp(m, "timeout"))
		return run_timeout();
	if (!strcmp(m, "cond"))
		return run_cond();
	if (!strcmp(m, "pool"))
		return run_pool();
	if (!strcmp(m, "task"))
		return run_task();
	if (!strcmp(m, "flag"))
		return run_flag();
	if (!strcmp(m, "hang"))
		return run_hang();
	if (!strcmp(m, "dbus-server"))
		return run_dbus_server();
	if (!strcmp(m, "dbus-client"))
		return run_dbus_client();
	if (!strcmp(m, "lag"))
		return run_lag();
	if (!strcmp(m, "signals"))
		return run_signals(argc > 2 ? atof(argv[2]) : 10);
	fprintf(stderr, "usage: glib_prog "
	                "idle|invoke|timeout|pool|task|cond|flag|hang|dbus-server|dbus-client|lag|"
	                "signals\n");
	return 2;
}
