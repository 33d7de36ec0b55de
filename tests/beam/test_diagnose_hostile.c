/*
 * test_diagnose_hostile.c - records a broken or hostile producer could
 * send: random types and payloads, a display server that never stops
 * sending, times that go backwards, stack ids never interned. The trigger
 * and the diagnosis must neither crash nor hang (ASan / UBSan check the
 * rest), and whatever fires still gets a diagnosis.
 */
#include <stdlib.h>
#include <string.h>

#include "session.h"
#include "test.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int ndiag;
static void on_diag(void *arg, const struct argus_diagnosis *d)
{
	(void)arg;
	ASSERT(d->stall.id > 0);
	char line[512];
	argus_report_oneline(d, line, sizeof(line));
	ASSERT(line[0]);
	ndiag++;
}

TEST(random_records_do_not_crash_the_pipeline)
{
	struct argus_session *dx;
	struct argus_session_sink k = {.diagnosis = on_diag};
	ASSERT_EQ(argus_session_new(&dx, NULL), 0);
	ASSERT_EQ(argus_session_add_sink(dx, &k), 0);
	struct argus_sink s = argus_session_sink(dx);
	uint64_t ips[4] = {0x1000, 0x2000, 0x3000, 0x4000};
	ASSERT(s.intern_stack(s.arg, ips, 4) == 1);
	ASSERT(s.intern_stack(s.arg, ips, 4) == 1); /* equal stacks, equal ids */
	ASSERT(s.intern_string(s.arg, "Xorg", 4) == s.intern_string(s.arg, "Xorg", 4));
	/* name an X server so display traffic is taken seriously */
	struct argus_event e;
	memset(&e, 0, sizeof(e));
	e.ts = 1000;
	e.type = ARGUS_EV_COMM;
	e.pid = e.tid = 3;
	strcpy(e.comm.comm, "Xorg");
	e.comm.is_process = 1;
	ASSERT_EQ(s.events(s.arg, &e, 1), 0);
	uint64_t ts = 2000;
	for (int i = 0; i < 300000; i++) {
		memset(&e, 0, sizeof(e));
		for (int k = 0; k < 40; k++)
			e.raw[k] = (uint8_t)next();
		/* mostly forward in time, sometimes backwards */
		ts += next() % 3 ? next() % 2000000 : 0;
		e.ts = next() % 50 ? ts : ts - next() % 1000000;
		e.type = (uint16_t)(next() % 130);
		e.pid = 1 + (uint32_t)(next() % 6);
		e.tid = e.pid * 10 + (uint32_t)(next() % 3);
		if (next() % 4 == 0) { /* display traffic between small socket ids */
			e.type = next() % 2 ? ARGUS_EV_IPC_SEND : ARGUS_EV_IPC_RECV;
			e.ipc.obj = 1 + next() % 4;
			e.ipc.peer_obj = 1 + next() % 4;
			e.ipc.obj_kind = ARGUS_OBJ_DISPLAY;
		}
		if (e.type == ARGUS_EV_STACK || e.type == ARGUS_EV_CPU_SAMPLE)
			e.stack.ustack = (uint32_t)(next() % 4); /* 2, 3: never interned */
		ASSERT_EQ(s.events(s.arg, &e, 1), 0);
	}
	argus_session_tick(dx, ts + 10000000000ULL);
	struct argus_session_stats st;
	argus_session_get_stats(dx, &st);
	argus_session_free(dx);
	ASSERT_U64_EQ(st.events, 300001);
	ASSERT_EQ((uint64_t)ndiag, st.diagnoses);
	printf("%d stalls diagnosed, %u UI threads\n", ndiag, st.trigger.ui_threads);
	ASSERT(ndiag > 0); /* the diagnosis ran on this garbage */
}

TEST_MAIN(TEST_ENTRY(random_records_do_not_crash_the_pipeline))
