/*
 * test_hooks_qt.c - a Qt5 Widgets program under Xvfb and `argus run`:
 * event deliveries are dispatches, the key press is a ui_input, and an
 * event a worker thread posts with QCoreApplication::postEvent pairs with
 * its delivery (async_post / async_run_begin, same obj, kind qt). The
 * 20 ms key handler and QTimer slot are landmark records (qt_event,
 * qt_signal); the many short deliveries and signals are none.
 */
#include "hooks_fixture.h"
#include "test.h"

/* Start Xvfb on a free display; -1 when it cannot. */
static int start_xvfb(pid_t *xvfb, const char *log)
{
	for (int d = 70 + getpid() % 100; d < 400; d += 7) {
		char lock[64], sock[64], num[16];
		snprintf(lock, sizeof(lock), "/tmp/.X%d-lock", d);
		snprintf(sock, sizeof(sock), "/tmp/.X11-unix/X%d", d);
		if (access(lock, F_OK) == 0 || access(sock, F_OK) == 0)
			continue;
		snprintf(num, sizeof(num), ":%d", d);
		char *argv[] = {"Xvfb",    num, "-nolisten",  "tcp",
		                "-screen", "0", "640x480x24", NULL};
		*xvfb = fx_start(argv, log);
		if (fx_wait_for(sock, NULL, 5))
			return d;
		fx_wait(*xvfb, 0.1);
	}
	return -1;
}

/* The Qt program's run, shared by the tests (run once). */
static struct run_result qt_run;
static bool qt_ran;
static const char *qt_skip;

static const struct run_result *run_qt(void)
{
	if (qt_ran)
		return qt_skip ? NULL : &qt_run;
	qt_ran = true;
#ifndef QT_PROG
	qt_skip = "Qt5 Widgets (qtbase5-dev) not found when building";
	return NULL;
#else
	if (!fx_have("Xvfb")) {
		qt_skip = "Xvfb not installed";
		return NULL;
	}
	if (!fx_have("xdotool")) {
		qt_skip = "xdotool not installed";
		return NULL;
	}
	char log[64];
	snprintf(log, sizeof(log), "/tmp/argus-hooks-xvfb.%d.log", getpid());
	pid_t xvfb = -1;
	int disp = start_xvfb(&xvfb, log);
	if (disp < 0) {
		qt_skip = "Xvfb did not start";
		return NULL;
	}
	char display[16];
	snprintf(display, sizeof(display), ":%d", disp);
	setenv("DISPLAY", display, 1);
	setenv("QT_QPA_PLATFORM", "xcb", 1);
	setenv("NO_AT_BRIDGE", "1", 1);
	const char *cmd[] = {QT_PROG, NULL};
	fx_argus_run(NULL, cmd, 30, NULL, &qt_run);
	kill(xvfb, SIGTERM);
	fx_wait(xvfb, 5);
	unlink(log);
	return &qt_run;
#endif
}

#define RUN_QT(r)                                                                                  \
	const struct run_result *r = run_qt();                                                     \
	if (!r)                                                                                    \
		SKIP("%s", qt_skip);                                                               \
	ASSERT_MSG(r->status == 0, "qt program: %d\nstdout: %s\nstderr: %s", r->status, r->out,    \
	           r->err)

static bool key_press_dispatch(const struct argus_event *e, uint64_t tid)
{
	return e->tid == tid && (e->flags & ARGUS_F_HOOK) && e->loop.callback == 6; /* KeyPress */
}

TEST(qt_event_delivery_is_a_hooked_dispatch)
{
	RUN_QT(r);
	uint64_t tid;
	ASSERT_MSG(fx_key(r, "key_tid", &tid), "no key press handled: %s", r->err);
	const struct argus_event *b = fx_find(r, ARGUS_EV_DISPATCH_BEGIN, key_press_dispatch, tid);
	ASSERT_MSG(b, "no dispatch_begin of a KeyPress on the UI thread (%zu records)", r->n);
	ASSERT(b->loop.source != 0 && b->loop.context != 0); /* receiver, its QThread */
	/* ... closed by a dispatch_end of the same receiver and event type */
	const struct argus_event *e = NULL;
	for (const struct argus_event *p = b + 1; p < r->ev + r->n && !e; p++)
		if (p->type == ARGUS_EV_DISPATCH_END && p->tid == b->tid &&
		    p->loop.source == b->loop.source && p->loop.callback == b->loop.callback &&
		    p->loop.depth == b->loop.depth)
			e = p;
	ASSERT_MSG(e, "dispatch_begin of the key press never ended");
	ASSERT(e->flags & ARGUS_F_HOOK);
	ASSERT(e->ts >= b->ts);
}

static bool key_input(const struct argus_event *e, uint64_t tid)
{
	return e->tid == tid && e->ui.kind == ARGUS_UI_KEY;
}

TEST(qt_key_press_is_one_ui_input_on_the_ui_thread)
{
	RUN_QT(r);
	uint64_t tid;
	ASSERT_MSG(fx_key(r, "key_tid", &tid), "no key press handled: %s", r->err);
	const struct argus_event *k = fx_find(r, ARGUS_EV_UI_INPUT, key_input, tid);
	ASSERT_MSG(k, "no ui_input key record on the UI thread (%zu records)", r->n);
	ASSERT(k->ui.obj != 0); /* the receiving window */
	ASSERT(k->flags & ARGUS_F_HOOK);
	/* the window's delivery forwarded to the widget is not a second input:
	 * one press and one release */
	size_t keys = 0;
	for (size_t i = 0; i < r->n; i++)
		keys += r->ev[i].type == ARGUS_EV_UI_INPUT && r->ev[i].ui.kind == ARGUS_UI_KEY;
	ASSERT_MSG(keys >= 1 && keys <= 2, "%zu key ui_input records for one key", keys);
}

static bool qt_post_of(const struct argus_event *e, uint64_t obj)
{
	return e->async.kind == ARGUS_ASYNC_QT && e->async.obj == obj;
}

TEST(qt_post_event_pairs_with_its_delivery)
{
	RUN_QT(r);
	uint64_t obj, post_tid, run_tid, run_obj;
	ASSERT_MSG(fx_key(r, "post_event", &obj) && fx_key(r, "post_tid", &post_tid),
	           "no event posted: %s", r->err);
	ASSERT_MSG(fx_key(r, "run_event", &run_obj) && fx_key(r, "run_tid", &run_tid),
	           "posted event not handled: %s", r->err);
	ASSERT(run_obj == obj);
	const struct argus_event *post = fx_find(r, ARGUS_EV_ASYNC_POST, qt_post_of, obj);
	ASSERT_MSG(post, "no async_post (qt) of the posted event %#llx", (unsigned long long)obj);
	ASSERT(post->tid == post_tid);        /* in the worker */
	ASSERT(post->async.callback == 1001); /* QEvent::User + 1 */
	const struct argus_event *run = fx_find(r, ARGUS_EV_ASYNC_RUN_BEGIN, qt_post_of, obj);
	ASSERT_MSG(run, "no async_run_begin (qt) of the posted event");
	ASSERT(run->tid == run_tid); /* on the UI thread */
	ASSERT(run->ts >= post->ts);
	ASSERT(run->async.target == post->async.target); /* the receiver */
	ASSERT(fx_find(r, ARGUS_EV_ASYNC_RUN_END, qt_post_of, obj));
}

static bool landmark_of(const struct argus_event *e, uint64_t kind)
{
	return e->landmark.kind == kind;
}

TEST(qt_slow_event_and_signal_are_landmarks)
{
	RUN_QT(r);
	uint64_t tid, x;
	ASSERT_MSG(fx_key(r, "key_tid", &tid), "no key press handled: %s", r->err);
	ASSERT_MSG(fx_key(r, "slow_timer", &x), "the slow timer did not run: %s", r->out);
	const struct argus_event *ev = NULL, *sig = NULL;
	for (size_t i = 0; i < r->n; i++) {
		const struct argus_event *e = &r->ev[i];
		if (e->type != ARGUS_EV_LANDMARK || e->tid != tid)
			continue;
		uint64_t incl = e->ts - e->landmark.begin_ns;
		/* the hooks' filter: nothing under 3 ms */
		ASSERT_MSG(incl >= 3000000ull, "a landmark of %llu ns", (unsigned long long)incl);
		if (landmark_of(e, ARGUS_LM_QT_EVENT) && incl >= 20000000ull)
			ev = e;
		if (landmark_of(e, ARGUS_LM_QT_SIGNAL) && incl >= 20000000ull)
			sig = e;
	}
	ASSERT_MSG(ev, "no qt_event landmark of 20 ms on the UI thread (%zu records)", r->n);
	ASSERT(ev->landmark.fn != 0 && ev->landmark.obj != 0); /* event(), the receiver */
	ASSERT_MSG(sig, "no qt_signal landmark of 20 ms (the timer's timeout)");
	ASSERT(sig->landmark.fn != 0 && sig->landmark.obj != 0); /* QTimer::timeout, the timer */
	ASSERT(sig->flags & ARGUS_F_HOOK);
}

TEST_MAIN(TEST_ENTRY(qt_event_delivery_is_a_hooked_dispatch), TEST_ENTRY(qt_slow_event_and_signal_are_landmarks),
          TEST_ENTRY(qt_key_press_is_one_ui_input_on_the_ui_thread),
          TEST_ENTRY(qt_post_event_pairs_with_its_delivery))
