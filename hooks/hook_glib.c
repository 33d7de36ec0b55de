/*
 * hook_glib.c - GLib main loop, async posts, GLib's own sync primitives,
 * GTK event dispatch and GDBus messages, by inline hooks.
 *
 * Inline hooks (not symbol interposition) because most of these calls are
 * made inside GLib itself (g_idle_add -> g_source_attach, the main loop ->
 * g_main_context_dispatch -> a source's dispatch function), where a
 * preloaded symbol is never consulted. Functions are found with dlsym in the
 * libraries the program already loaded; a library loaded later with dlopen
 * is not hooked (docs/hooks.md). The libraries are not linked: their types
 * come from the headers, their functions through these pointers.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <gio/gio.h>

#include "hooks_internal.h"

/* Source dispatch functions hooked so far: each distinct
 * GSourceFuncs.dispatch gets one inline hook, found again by address. */
#define MAX_DISPATCH 64
struct dispatch_hook {
	void *fn;   /* the dispatch function */
	void *orig; /* its trampoline; NULL while being installed or failed */
};

/* Distinct GThreadPool functions that can be hooked. */
#define MAX_POOL_FN 16

/* Recent g_main_context_invoke posts: their idle run is kind invoke. */
#define INVOKE_RECENT 64

struct glib_hooks {
	const GSourceFuncs *idle_funcs, *timeout_funcs;
	GMainContext *(*context_default)(void);
	guint32 (*msg_serial)(GDBusMessage *);
	guint32 (*msg_reply_serial)(GDBusMessage *);
	GDBusMessageType (*msg_type)(GDBusMessage *);

	void (*ctx_dispatch)(GMainContext *);
	guint (*source_attach)(GSource *, GMainContext *);
	void (*invoke_full)(GMainContext *, gint, GSourceFunc, gpointer, GDestroyNotify);
	void (*cond_signal)(GCond *);
	void (*cond_broadcast)(GCond *);
	void (*cond_wait)(GCond *, GMutex *);
	gboolean (*cond_wait_until)(GCond *, GMutex *, gint64);
	void (*mutex_unlock)(GMutex *);
	void (*gtk_do_event)(void *);
	gboolean (*dbus_send)(GDBusConnection *, GDBusMessage *, GDBusSendMessageFlags,
	                      volatile guint32 *, GError **);
	void (*dbus_send_reply)(GDBusConnection *, GDBusMessage *, GDBusSendMessageFlags, gint,
	                        volatile guint32 *, GCancellable *, GAsyncReadyCallback, gpointer);
	GDBusMessage *(*dbus_send_reply_sync)(GDBusConnection *, GDBusMessage *,
	                                      GDBusSendMessageFlags, gint, volatile guint32 *,
	                                      GCancellable *, GError **);
	GDBusMessage *(*dbus_from_blob)(guchar *, gsize, GDBusCapabilityFlags, GError **);
	void (*set_callback)(GSource *, GSourceFunc, gpointer, GDestroyNotify);
	/* GLib's own GSourceCallbackFuncs (private), learnt from the first
	 * g_source_set_callback: sources using it keep a GSourceCallback. */
	_Atomic(const GSourceCallbackFuncs *) default_cb_funcs;
	gboolean (*pool_push)(GThreadPool *, gpointer, GError **);
	void (*task_run_in_thread)(GTask *, GTaskThreadFunc);
	GTask *(*task_run_in_thread_sync)(GTask *, GTaskThreadFunc);

	struct dispatch_hook dispatch[MAX_DISPATCH];
	atomic_flag dispatch_lock;
	_Atomic(uintptr_t) invoke_recent[INVOKE_RECENT];
	atomic_uint invoke_next;

	/* Thread-pool functions hooked so far, one wrapper each (below). */
	void *pool_fn[MAX_POOL_FN];
	void (*pool_orig[MAX_POOL_FN])(gpointer, gpointer);
	atomic_uint pool_kind[MAX_POOL_FN]; /* threadpool, or task for GTask's pool */
	atomic_flag pool_lock;
	atomic_bool mapped; /* a window was mapped (ui_input map sent) */
};

/* Part of the library's root state (see hooks_internal.h). */
static struct glib_hooks G = {.dispatch_lock = ATOMIC_FLAG_INIT, .pool_lock = ATOMIC_FLAG_INIT};

/* Per thread: loop nesting, inside g_main_context_invoke, D-Bus send depth. */
static __thread unsigned loop_depth __attribute__((tls_model("initial-exec")));
static __thread int in_invoke __attribute__((tls_model("initial-exec")));
static __thread int in_dbus_send __attribute__((tls_model("initial-exec")));
static __thread int in_task_run __attribute__((tls_model("initial-exec")));

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void emit_loop(unsigned type, GMainContext *ctx, GSource *src, void *cb)
{
	struct argus_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.type = (uint16_t)type;
	ev.loop.context = (uintptr_t)ctx;
	ev.loop.source = (uintptr_t)src;
	ev.loop.callback = (uintptr_t)cb;
	ev.loop.depth = loop_depth;
	hooks_emit(&ev);
}

/* Per thread and loop depth: an iteration whose begin is not sent yet. Most
 * iterations of a busy app dispatch nothing; they send no records at all. */
#define ITER_DEPTH_MAX 16
static __thread GMainContext *iter_ctx[ITER_DEPTH_MAX] __attribute__((tls_model("initial-exec")));
static __thread uint64_t iter_ts[ITER_DEPTH_MAX] __attribute__((tls_model("initial-exec")));
static __thread bool iter_sent[ITER_DEPTH_MAX] __attribute__((tls_model("initial-exec")));

static unsigned iter_slot(void)
{
	return loop_depth < ITER_DEPTH_MAX ? loop_depth : ITER_DEPTH_MAX - 1;
}

/* Something is dispatched: send the iteration's begin, stamped when the
 * iteration's dispatch phase began. */
static void iter_begin_now(void)
{
	unsigned d = iter_slot();
	if (!iter_ctx[d] || iter_sent[d])
		return;
	struct argus_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.ts = iter_ts[d];
	ev.type = ARGUS_EV_LOOP_ITER_BEGIN;
	ev.loop.context = (uintptr_t)iter_ctx[d];
	ev.loop.depth = loop_depth;
	hooks_emit(&ev);
	iter_sent[d] = true;
}

static void emit_async(unsigned type, unsigned kind, GSource *src, void *cb, void *target,
                       uint64_t delay_ns)
{
	struct argus_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.type = (uint16_t)type;
	ev.async.obj = (uintptr_t)src;
	ev.async.callback = (uintptr_t)cb;
	ev.async.target = (uintptr_t)target;
	ev.async.delay_ns = delay_ns;
	ev.async.kind = kind;
	hooks_emit(&ev);
}

/* ---- main loop ---------------------------------------------------------- */

/* One iteration's dispatch phase: the segment boundary the graph needs (the
 * poll before it is a blocking wait the kernel side already splits at). */
static void hook_ctx_dispatch(GMainContext *ctx)
{
	if (!hooks_active()) {
		G.ctx_dispatch(ctx);
		return;
	}
	loop_depth++;
	unsigned d = iter_slot();
	GMainContext *outer_ctx = iter_ctx[d];
	uint64_t outer_ts = iter_ts[d];
	bool outer_sent = iter_sent[d];
	iter_ctx[d] = ctx;
	iter_ts[d] = now_ns();
	iter_sent[d] = false;
	G.ctx_dispatch(ctx);
	if (iter_sent[d])
		emit_loop(ARGUS_EV_LOOP_ITER_END, ctx, NULL, NULL);
	/* restored for loops nested deeper than the slots */
	iter_ctx[d] = outer_ctx;
	iter_ts[d] = outer_ts;
	iter_sent[d] = outer_sent;
	loop_depth--;
}

static bool was_invoked(GSource *s)
{
	for (unsigned i = 0; i < INVOKE_RECENT; i++)
		if (atomic_load_explicit(&G.invoke_recent[i], memory_order_relaxed) == (uintptr_t)s)
			return true;
	return false;
}

/* The async kind of a source whose dispatch runs a posted callback;
 * -1 for sources woken by something else (fds, display events). */
static int async_kind(GSource *s)
{
	if (s->source_funcs == G.idle_funcs)
		return was_invoked(s) ? ARGUS_ASYNC_INVOKE : ARGUS_ASYNC_IDLE;
	if (s->source_funcs == G.timeout_funcs)
		return ARGUS_ASYNC_TIMEOUT;
	return -1;
}

static void hook_set_callback(GSource *s, GSourceFunc fn, gpointer data, GDestroyNotify notify)
{
	G.set_callback(s, fn, data, notify);
	if (s && !atomic_load_explicit(&G.default_cb_funcs, memory_order_relaxed))
		atomic_store(&G.default_cb_funcs, s->callback_funcs);
}

/* The function a posted source will call, when GLib's private
 * GSourceCallback { guint ref_count; GSourceFunc func; ... } holds it. */
static void *source_callback(GSource *s)
{
	const GSourceCallbackFuncs *d =
	    atomic_load_explicit(&G.default_cb_funcs, memory_order_relaxed);
	if (!d || s->callback_funcs != d || !s->callback_data)
		return NULL;
	struct gsource_callback {
		guint ref_count;
		GSourceFunc func;
	};
	return (void *)((const struct gsource_callback *)s->callback_data)->func;
}

/* Every hooked dispatch function lands here; the original is found by the
 * address the source's funcs table names. */
static gboolean hook_source_dispatch(GSource *s, GSourceFunc cb, gpointer data)
{
	void *fn = (void *)s->source_funcs->dispatch;
	gboolean (*orig)(GSource *, GSourceFunc, gpointer) = NULL;
	for (unsigned i = 0; i < MAX_DISPATCH; i++)
		if (__atomic_load_n(&G.dispatch[i].fn, __ATOMIC_ACQUIRE) == fn) {
			orig = __atomic_load_n(&G.dispatch[i].orig, __ATOMIC_ACQUIRE);
			break;
		}
	if (!orig) /* cannot happen: the hook is installed after its entry */
		return G_SOURCE_REMOVE;
	if (!hooks_active())
		return orig(s, cb, data);
	int kind = async_kind(s);
	void *callback = kind >= 0 ? source_callback(s) : NULL;
	iter_begin_now();
	emit_loop(ARGUS_EV_DISPATCH_BEGIN, s->context, s, fn);
	if (kind >= 0)
		emit_async(ARGUS_EV_ASYNC_RUN_BEGIN, (unsigned)kind, s, callback, s->context, 0);
	gboolean r = orig(s, cb, data);
	if (kind >= 0)
		emit_async(ARGUS_EV_ASYNC_RUN_END, (unsigned)kind, s, callback, s->context, 0);
	emit_loop(ARGUS_EV_DISPATCH_END, s->context, s, fn);
	return r;
}

static void ensure_dispatch_hooked(void *fn)
{
	if (!fn)
		return;
	for (unsigned i = 0; i < MAX_DISPATCH; i++) {
		void *f = __atomic_load_n(&G.dispatch[i].fn, __ATOMIC_ACQUIRE);
		if (f == fn)
			return;
		if (!f)
			break;
	}
	while (atomic_flag_test_and_set_explicit(&G.dispatch_lock, memory_order_acquire))
		;
	unsigned i = 0;
	while (i < MAX_DISPATCH && G.dispatch[i].fn && G.dispatch[i].fn != fn)
		i++;
	if (i < MAX_DISPATCH && !G.dispatch[i].fn) {
		/* Publish the entry first: the hook may run as soon as it is written,
		 * and hooks_inline sets orig before it patches the function. */
		__atomic_store_n(&G.dispatch[i].fn, fn, __ATOMIC_RELEASE);
		int rc = hooks_inline(fn, (void *)hook_source_dispatch, &G.dispatch[i].orig);
		if (rc)
			fprintf(stderr, "argus-hooks: cannot hook source dispatch %p: %s\n", fn,
			        strerror(-rc));
	}
	atomic_flag_clear_explicit(&G.dispatch_lock, memory_order_release);
}

static guint hook_source_attach(GSource *s, GMainContext *ctx)
{
	if (hooks_active() && s && s->source_funcs) {
		ensure_dispatch_hooked((void *)s->source_funcs->dispatch);
		int kind = async_kind(s);
		if (in_invoke && s->source_funcs == G.idle_funcs) {
			unsigned k = atomic_fetch_add(&G.invoke_next, 1) % INVOKE_RECENT;
			atomic_store(&G.invoke_recent[k], (uintptr_t)s);
			kind = ARGUS_ASYNC_INVOKE;
		}
		if (kind >= 0) {
			uint64_t delay = 0;
			if (kind == ARGUS_ASYNC_TIMEOUT) {
				/* GTimeoutSource: GSource, then guint interval, gboolean seconds */
				const guint *iv = (const guint *)(s + 1);
				delay = (uint64_t)iv[0] * (iv[1] ? 1000000000ull : 1000000ull);
			}
			/* Before the attach: once attached it may run at once elsewhere. */
			emit_async(ARGUS_EV_ASYNC_POST, (unsigned)kind, s, source_callback(s),
			           ctx ? ctx : G.context_default(), delay);
		}
	}
	return G.source_attach(s, ctx);
}

static void hook_invoke_full(GMainContext *ctx, gint prio, GSourceFunc fn, gpointer data,
                             GDestroyNotify notify)
{
	in_invoke++;
	G.invoke_full(ctx, prio, fn, data, notify);
	in_invoke--;
}

/* ---- GThreadPool / GTask: push -> run ----------------------------------- */

/*
 * A pool's worker calls pool->func(data, user_data): neither names the pool
 * or the function, so each distinct pool function gets its own wrapper
 * (pool_wrap_N knows its slot N) and the push is paired with the run by
 * the work item, `data` (a GTask for g_task_run_in_thread).
 */
static void pool_run(unsigned slot, gpointer data, gpointer user)
{
	void (*orig)(gpointer, gpointer) = __atomic_load_n(&G.pool_orig[slot], __ATOMIC_ACQUIRE);
	if (!hooks_active()) {
		orig(data, user);
		return;
	}
	void *fn = G.pool_fn[slot];
	unsigned kind = atomic_load_explicit(&G.pool_kind[slot], memory_order_relaxed);
	emit_async(ARGUS_EV_ASYNC_RUN_BEGIN, kind, data, fn, NULL, 0);
	orig(data, user);
	emit_async(ARGUS_EV_ASYNC_RUN_END, kind, data, fn, NULL, 0);
}

/* clang-format off */
#define POOL_WRAP(n)                                                                               \
	static void pool_wrap_##n(gpointer d, gpointer u)                                          \
	{                                                                                          \
		pool_run(n, d, u);                                                                 \
	}
POOL_WRAP(0) POOL_WRAP(1) POOL_WRAP(2) POOL_WRAP(3) POOL_WRAP(4) POOL_WRAP(5) POOL_WRAP(6)
POOL_WRAP(7) POOL_WRAP(8) POOL_WRAP(9) POOL_WRAP(10) POOL_WRAP(11) POOL_WRAP(12) POOL_WRAP(13)
POOL_WRAP(14) POOL_WRAP(15)
static void (*const pool_wrap[MAX_POOL_FN])(gpointer, gpointer) = {
	pool_wrap_0,  pool_wrap_1,  pool_wrap_2,  pool_wrap_3,  pool_wrap_4,  pool_wrap_5,
	pool_wrap_6,  pool_wrap_7,  pool_wrap_8,  pool_wrap_9,  pool_wrap_10, pool_wrap_11,
	pool_wrap_12, pool_wrap_13, pool_wrap_14, pool_wrap_15,
};
/* clang-format on */

/* The slot of fn's wrapper (hooking it on first sight), -1 when full. */
static int ensure_pool_fn_hooked(void *fn)
{
	for (unsigned i = 0; i < MAX_POOL_FN; i++) {
		void *f = __atomic_load_n(&G.pool_fn[i], __ATOMIC_ACQUIRE);
		if (f == fn)
			return (int)i;
		if (!f)
			break;
	}
	while (atomic_flag_test_and_set_explicit(&G.pool_lock, memory_order_acquire))
		;
	unsigned i = 0;
	while (i < MAX_POOL_FN && G.pool_fn[i] && G.pool_fn[i] != fn)
		i++;
	if (i < MAX_POOL_FN && !G.pool_fn[i]) {
		__atomic_store_n(&G.pool_fn[i], fn, __ATOMIC_RELEASE);
		int rc = hooks_inline(fn, (void *)pool_wrap[i], (void **)&G.pool_orig[i]);
		if (rc)
			fprintf(stderr, "argus-hooks: cannot hook thread-pool function %p: %s\n",
			        fn, strerror(-rc));
	}
	atomic_flag_clear_explicit(&G.pool_lock, memory_order_release);
	return i < MAX_POOL_FN ? (int)i : -1;
}

static gboolean hook_pool_push(GThreadPool *pool, gpointer data, GError **err)
{
	if (hooks_active() && pool && pool->func) {
		unsigned kind = in_task_run ? ARGUS_ASYNC_TASK : ARGUS_ASYNC_THREADPOOL;
		int slot = ensure_pool_fn_hooked((void *)pool->func);
		if (slot >= 0)
			atomic_store_explicit(&G.pool_kind[slot], kind, memory_order_relaxed);
		/* Before the push: a worker may run it at once. */
		emit_async(ARGUS_EV_ASYNC_POST, kind, data, (void *)pool->func, pool, 0);
	}
	return G.pool_push(pool, data, err);
}

static void hook_task_run_in_thread(GTask *task, GTaskThreadFunc fn)
{
	in_task_run++;
	G.task_run_in_thread(task, fn);
	in_task_run--;
}

static GTask *hook_task_run_in_thread_sync(GTask *task, GTaskThreadFunc fn)
{
	in_task_run++;
	GTask *r = G.task_run_in_thread_sync(task, fn);
	in_task_run--;
	return r;
}

/* ---- GLib's GCond / GMutex --------------------------------------------- */

static void hook_cond_signal(GCond *c)
{
	if (hooks_active())
		hooks_sync_emit(ARGUS_EV_COND_SIGNAL, c, NULL, 0);
	G.cond_signal(c);
}

static void hook_cond_broadcast(GCond *c)
{
	if (hooks_active())
		hooks_sync_emit(ARGUS_EV_COND_BROADCAST, c, NULL, 0);
	G.cond_broadcast(c);
}

static void hook_cond_wait(GCond *c, GMutex *m)
{
	if (!hooks_active()) {
		G.cond_wait(c, m);
		return;
	}
	hooks_sync_emit(ARGUS_EV_COND_WAIT, c, m, 0);
	G.cond_wait(c, m);
	hooks_sync_emit(ARGUS_EV_COND_WAKE, c, m, 0);
}

static gboolean hook_cond_wait_until(GCond *c, GMutex *m, gint64 end)
{
	if (!hooks_active())
		return G.cond_wait_until(c, m, end);
	hooks_sync_emit(ARGUS_EV_COND_WAIT, c, m, 0);
	gboolean r = G.cond_wait_until(c, m, end);
	hooks_sync_emit(ARGUS_EV_COND_WAKE, c, m, r ? 0 : ETIMEDOUT);
	return r;
}

/* GLib's futex mutex word: 0 free, 1 held, 2 held with waiters. */
static void hook_mutex_unlock(GMutex *m)
{
	if (hooks_active() && __atomic_load_n((const int *)m, __ATOMIC_RELAXED) > 1)
		hooks_sync_emit(ARGUS_EV_MUTEX_HANDOFF, m, NULL, 0);
	G.mutex_unlock(m);
}

/* ---- GTK event dispatch -> UI input ------------------------------------- */

/* The start of every GdkEvent (GdkEventAny); GDK is not included so the
 * library needs no GTK headers. */
struct gdk_event_any {
	int type;
	void *window;
};

static unsigned ui_kind(int gdk_type)
{
	switch (gdk_type) {
	case 8: /* GDK_KEY_PRESS */
	case 9: /* GDK_KEY_RELEASE */
		return ARGUS_UI_KEY;
	case 4: /* GDK_BUTTON_PRESS, 2BUTTON, 3BUTTON, RELEASE */
	case 5:
	case 6:
	case 7:
	case 31: /* GDK_SCROLL */
		return ARGUS_UI_BUTTON;
	case 3: /* GDK_MOTION_NOTIFY */
		return ARGUS_UI_MOTION;
	case 2: /* GDK_EXPOSE */
		return ARGUS_UI_EXPOSE;
	case 14: /* GDK_MAP */
		return ARGUS_UI_MAP;
	default:
		return ARGUS_UI_OTHER;
	}
}

static void hook_gtk_do_event(void *event)
{
	if (hooks_active() && event) {
		const struct gdk_event_any *e = event;
		struct argus_event ev;
		memset(&ev, 0, sizeof(ev));
		ev.type = ARGUS_EV_UI_INPUT;
		ev.ui.kind = ui_kind(e->type);
		/* `map` marks the end of a launch: the first window mapped only */
		if (ev.ui.kind == ARGUS_UI_MAP && atomic_exchange(&G.mapped, true))
			ev.ui.kind = ARGUS_UI_OTHER;
		ev.ui.obj = (uintptr_t)e->window;
		hooks_emit(&ev);
	}
	G.gtk_do_event(event);
}

/* ---- GDBus -------------------------------------------------------------- */

static void emit_dbus(unsigned type, uint64_t ts, GDBusConnection *conn, GDBusMessage *m)
{
	struct argus_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.ts = ts;
	ev.type = (uint16_t)type;
	ev.dbus.conn = (uintptr_t)conn;
	ev.dbus.serial = G.msg_serial(m);
	ev.dbus.reply_serial = G.msg_reply_serial(m);
	ev.dbus.msg_type = (uint32_t)G.msg_type(m);
	hooks_emit(&ev);
}

/* Sends are reported when they return (the serial is assigned inside) but
 * stamped with the time they were called. Nested sends (a sync send made
 * of an async one) are reported once. */
static gboolean hook_dbus_send(GDBusConnection *c, GDBusMessage *m, GDBusSendMessageFlags f,
                               volatile guint32 *serial, GError **err)
{
	if (!hooks_active() || in_dbus_send)
		return G.dbus_send(c, m, f, serial, err);
	uint64_t ts = now_ns();
	in_dbus_send++;
	gboolean r = G.dbus_send(c, m, f, serial, err);
	in_dbus_send--;
	if (r)
		emit_dbus(ARGUS_EV_DBUS_SEND, ts, c, m);
	return r;
}

static void hook_dbus_send_reply(GDBusConnection *c, GDBusMessage *m, GDBusSendMessageFlags f,
                                 gint timeout, volatile guint32 *serial, GCancellable *can,
                                 GAsyncReadyCallback cb, gpointer data)
{
	if (!hooks_active() || in_dbus_send) {
		G.dbus_send_reply(c, m, f, timeout, serial, can, cb, data);
		return;
	}
	uint64_t ts = now_ns();
	in_dbus_send++;
	G.dbus_send_reply(c, m, f, timeout, serial, can, cb, data);
	in_dbus_send--;
	if (G.msg_serial(m))
		emit_dbus(ARGUS_EV_DBUS_SEND, ts, c, m);
}

static GDBusMessage *hook_dbus_send_reply_sync(GDBusConnection *c, GDBusMessage *m,
                                               GDBusSendMessageFlags f, gint timeout,
                                               volatile guint32 *serial, GCancellable *can,
                                               GError **err)
{
	if (!hooks_active() || in_dbus_send)
		return G.dbus_send_reply_sync(c, m, f, timeout, serial, can, err);
	uint64_t ts = now_ns();
	in_dbus_send++;
	/* Reported before waiting for the reply would be better for time order,
	 * but the serial is only known inside; ts is the call time. */
	GDBusMessage *r = G.dbus_send_reply_sync(c, m, f, timeout, serial, can, err);
	in_dbus_send--;
	if (G.msg_serial(m))
		emit_dbus(ARGUS_EV_DBUS_SEND, ts, c, m);
	return r;
}

/* Every incoming message is parsed here by GDBus's worker thread. */
static GDBusMessage *hook_dbus_from_blob(guchar *blob, gsize len, GDBusCapabilityFlags caps,
                                         GError **err)
{
	GDBusMessage *m = G.dbus_from_blob(blob, len, caps, err);
	if (m && hooks_active())
		emit_dbus(ARGUS_EV_DBUS_RECV, 0, NULL, m);
	return m;
}

/* ---- installation -------------------------------------------------------- */

static void *sym(const char *name)
{
	return dlsym(RTLD_DEFAULT, name);
}

static void hook(const char *name, void *replacement, void *orig_slot)
{
	void *fn = sym(name);
	if (!fn)
		return;
	int rc = hooks_inline(fn, replacement, (void **)orig_slot);
	if (rc)
		fprintf(stderr, "argus-hooks: cannot hook %s: %s\n", name, strerror(-rc));
}

void hooks_glib_init(void)
{
	G.idle_funcs = sym("g_idle_funcs");
	G.timeout_funcs = sym("g_timeout_funcs");
	*(void **)&G.context_default = sym("g_main_context_default");
	if (G.context_default && G.idle_funcs) {
		hook("g_main_context_dispatch", (void *)hook_ctx_dispatch, &G.ctx_dispatch);
		hook("g_source_attach", (void *)hook_source_attach, &G.source_attach);
		hook("g_main_context_invoke_full", (void *)hook_invoke_full, &G.invoke_full);
		hook("g_cond_signal", (void *)hook_cond_signal, &G.cond_signal);
		hook("g_cond_broadcast", (void *)hook_cond_broadcast, &G.cond_broadcast);
		hook("g_cond_wait", (void *)hook_cond_wait, &G.cond_wait);
		hook("g_cond_wait_until", (void *)hook_cond_wait_until, &G.cond_wait_until);
		hook("g_mutex_unlock", (void *)hook_mutex_unlock, &G.mutex_unlock);
		hook("g_thread_pool_push", (void *)hook_pool_push, &G.pool_push);
		hook("g_source_set_callback", (void *)hook_set_callback, &G.set_callback);
	}
	hook("g_task_run_in_thread", (void *)hook_task_run_in_thread, &G.task_run_in_thread);
	hook("g_task_run_in_thread_sync", (void *)hook_task_run_in_thread_sync,
	     &G.task_run_in_thread_sync);
	hook("gtk_main_do_event", (void *)hook_gtk_do_event, &G.gtk_do_event);
	*(void **)&G.msg_serial = sym("g_dbus_message_get_serial");
	*(void **)&G.msg_reply_serial = sym("g_dbus_message_get_reply_serial");
	*(void **)&G.msg_type = sym("g_dbus_message_get_message_type");
	if (G.msg_serial && G.msg_reply_serial && G.msg_type) {
		hook("g_dbus_connection_send_message", (void *)hook_dbus_send, &G.dbus_send);
		hook("g_dbus_connection_send_message_with_reply", (void *)hook_dbus_send_reply,
		     &G.dbus_send_reply);
		hook("g_dbus_connection_send_message_with_reply_sync",
		     (void *)hook_dbus_send_reply_sync, &G.dbus_send_reply_sync);
		hook("g_dbus_message_new_from_blob", (void *)hook_dbus_from_blob,
		     &G.dbus_from_blob);
	}
}
