/*
 * test_hooks_gtk.c - a GTK3 program under Xvfb and `argus run`: the key
 * press it receives is a ui_input record on its UI thread, inside a
 * dispatch of the GDK event source within a main-loop iteration. With the
 * hooks' landmark threshold at 0, its key-press-event emission is a
 * gtk_event landmark named by the handler the program connected, inside
 * that dispatch.
 */
#include "hooks_fixture.h"
#include "test.h"

static bool key_input(const struct argus_event *e, uint64_t tid)
{
	return e->tid == tid && e->ui.kind == ARGUS_UI_KEY;
}

TEST(gtk_key_press_is_ui_input_on_the_ui_thread)
{
	if (!fx_have("Xvfb"))
		SKIP("Xvfb not installed");
	if (!fx_have("xdotool"))
		SKIP("xdotool not installed");
	int disp = -1;
	pid_t xvfb = -1;
	char log[64], sock[64];
	snprintf(log, sizeof(log), "/tmp/argus-hooks-xvfb.%d.log", getpid());
	for (int d = 70 + getpid() % 100; d < 400 && disp < 0; d += 7) {
		char lock[64], num[16];
		snprintf(lock, sizeof(lock), "/tmp/.X%d-lock", d);
		snprintf(sock, sizeof(sock), "/tmp/.X11-unix/X%d", d);
		if (access(lock, F_OK) == 0 || access(sock, F_OK) == 0)
			continue;
		snprintf(num, sizeof(num), ":%d", d);
		char *argv[] = {"Xvfb",    num, "-nolisten",  "tcp",
		                "-screen", "0", "640x480x24", NULL};
		xvfb = fx_start(argv, log);
		if (fx_wait_for(sock, NULL, 5))
			disp = d;
		else
			fx_wait(xvfb, 0.1);
	}
	if (disp < 0)
		SKIP("Xvfb did not start");
	char display[16];
	snprintf(display, sizeof(display), ":%d", disp);
	setenv("DISPLAY", display, 1);
	setenv("GDK_BACKEND", "x11", 1);
	setenv("NO_AT_BRIDGE", "1", 1); /* no accessibility bus */
	struct run_result r;
	const char *cmd[] = {GTK_PROG, NULL};
	static char env[] = "ARGUS_HOOK_LANDMARK_NS=0"; /* every landmark */
	int st = fx_argus_run(NULL, cmd, 20, env, &r);
	kill(xvfb, SIGTERM);
	fx_wait(xvfb, 5);
	unlink(log);
	ASSERT_MSG(st == 0, "gtk program: %d %s", st, r.err);
	uint64_t tid;
	ASSERT_MSG(fx_key(&r, "key_tid", &tid), "no key press handled: %s", r.err);
	const struct argus_event *k = fx_find(&r, ARGUS_EV_UI_INPUT, key_input, tid);
	ASSERT_MSG(k, "no ui_input key record on the UI thread (%zu events)", r.n);
	ASSERT(k->ui.obj != 0); /* the GdkWindow */
	/* the input arrived inside a source dispatch of the same thread */
	const struct argus_event *open = NULL;
	for (size_t i = 0; i < r.n && &r.ev[i] != k; i++)
		if (r.ev[i].tid == tid && r.ev[i].type == ARGUS_EV_DISPATCH_BEGIN)
			open = &r.ev[i];
		else if (open && r.ev[i].tid == tid && r.ev[i].type == ARGUS_EV_DISPATCH_END &&
		         r.ev[i].loop.source == open->loop.source)
			open = NULL;
	ASSERT_MSG(open, "ui_input outside any dispatch");
	ASSERT(fx_count(&r, ARGUS_EV_LOOP_ITER_BEGIN) > 0);
	/* the handler's signal emission: a gtk_event landmark named by on_key,
	 * within the dispatch, on the UI thread */
	uint64_t on_key;
	ASSERT(fx_key(&r, "on_key", &on_key));
	const struct argus_event *lm = NULL;
	for (size_t i = 0; i < r.n && !lm; i++)
		if (r.ev[i].type == ARGUS_EV_LANDMARK && r.ev[i].landmark.fn == on_key)
			lm = &r.ev[i];
	ASSERT_MSG(lm, "no landmark named by the key handler %#llx (%zu landmarks)",
	           (unsigned long long)on_key, fx_count(&r, ARGUS_EV_LANDMARK));
	ASSERT_EQ(lm->landmark.kind, ARGUS_LM_GTK_EVENT);
	ASSERT_EQ(lm->tid, tid);
	ASSERT(lm->landmark.begin_ns <= lm->ts && lm->landmark.begin_ns >= open->ts);
	ASSERT(lm->landmark.obj != 0); /* the GtkWindow */
	free(r.ev);
}

TEST_MAIN(TEST_ENTRY(gtk_key_press_is_ui_input_on_the_ui_thread))
