/*
 * test_session_apps.c - the session tells its owner (argus start) each
 * process the trigger learns is an app, once, on its tick
 * (argus_session_opts.app): argus start turns full stacks on for them.
 */
#include <string.h>

#include "session.h"
#include "synth.h"
#include "test.h"

struct seen {
	uint32_t pid[256];
	unsigned n, calls;
};

static void on_app(void *arg, uint32_t pid)
{
	struct seen *s = arg;

	s->calls++;
	for (unsigned i = 0; i < s->n; i++)
		ASSERT_MSG(s->pid[i] != pid, "pid %u announced twice", pid);
	if (s->n < 256)
		s->pid[s->n++] = pid;
}

TEST(each_app_is_announced_once_on_a_tick)
{
	struct argus_session_opts o;
	argus_session_opts_default(&o);
	struct seen seen = {0};
	o.app = on_app;
	o.app_arg = &seen;
	struct argus_session *s;
	ASSERT_EQ(argus_session_new(&s, &o), 0);
	struct argus_synth_opts so;
	argus_synth_opts_default(&so);
	so.seed = 2;
	so.events = 100000;
	so.rate = 5000;
	struct argus_sink sink = argus_session_sink(s);
	ASSERT_EQ(argus_synth_run(&so, &sink, NULL), 0);
	struct argus_session_stats st;
	argus_session_get_stats(s, &st);
	ASSERT_MSG(st.trigger.ui_threads >= 1, "the synthetic desktop has no UI thread");
	argus_session_tick(s, st.t0 + 100000000000ull);
	ASSERT(seen.n >= 1 && seen.n <= st.trigger.ui_threads);
	unsigned calls = seen.calls;
	argus_session_tick(s, st.t0 + 100000000001ull);
	ASSERT_EQ(seen.calls, calls); /* nothing new: nothing announced */
	argus_session_end(s);
	argus_session_free(s);
}

TEST_MAIN(TEST_ENTRY(each_app_is_announced_once_on_a_tick))
