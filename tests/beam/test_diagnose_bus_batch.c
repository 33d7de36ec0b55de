/*
 * test_diagnose_bus_batch.c - a UI thread's synchronous bus call (GDBus's
 * shape, zoo B14b): the UI thread hands the call to its bus thread over an
 * eventfd and polls; the bus thread sends it to the bus daemon, which
 * forwards it to a service; the service's reply comes back the same way.
 * Chatter of an unrelated client keeps the daemon busy: when the service's
 * reply arrives while the daemon is already awake for the chatter, the
 * daemon reads both in one wake-up and then writes their forwards, and the
 * batch split leaves the forward to the bus thread with nothing but its
 * thread's previous segment behind it. A quick call answered that way is
 * no baseline: its normal path ends at the daemon, which would be blamed
 * for a missing wake-up (one live run of B14b in eight, 2026-11-28). The
 * call before it, answered in a wake-up of its own, says who answers:
 * the service, blocked in the stall.
 */
#include <stdlib.h>

#include "../graph/graph_events.h"
#include "beam.h"
#include "diag_fixture.h"
#include "test.h"

enum {
	APP = 100,  /* the UI thread */
	BUSC = 101, /* its bus thread (pid APP) */
	SVC = 200,
	DAEMON = 300,
	CHAT = 400 /* the unrelated clients: CHAT + i, i < NCHAT */
};
enum { NCHAT = 5, ROUNDS = 7 };
enum { T_POLL = 7 };
/* objects as kernel addresses: a connection is known by its two ends */
enum {
	EFD_REQ = 0x1e10,  /* UI -> bus thread */
	EFD_REP = 0x1e20,  /* bus thread -> UI */
	EFD_SELF = 0x1e30, /* the bus thread's own wake-up */
	A_CLI = 0x2a40,    /* the app's bus connection, its end */
	A_END = 0x3a78,    /* the daemon's end */
	S_CLI = 0x4b10,    /* the service's connection */
	S_END = 0x5bc8,
};
/* client i's connection: its end and the daemon's */
#define C_CLI(i) (0x6c00u + 0x140u * (i))
#define C_END(i) (0x7d00u + 0x2a8u * (i))

struct trace {
	struct argus_event ev[8192];
	size_t n;
	uint64_t ts;
};

static void add(struct trace *t, struct argus_event e)
{
	ASSERT(t->n < sizeof(t->ev) / sizeof(t->ev[0]));
	t->ev[t->n++] = e;
}

static uint64_t tick(struct trace *t)
{
	return t->ts += 1000;
}

static struct argus_event io(struct trace *t, bool send, uint32_t pid, uint32_t tid, uint64_t obj,
                             uint64_t peer, uint8_t kind, int64_t ret)
{
	return ev_ipc(tick(t), send, pid, tid, obj, peer, kind, ret);
}

/* tid blocks in call nr; with a wait stack when stack != 0 */
static void block(struct trace *t, uint32_t pid, uint32_t tid, uint16_t nr, uint32_t stack)
{
	add(t, ev_sys_enter(tick(t), pid, tid, nr));
	if (stack)
		add(t, ev_obj(tick(t), ARGUS_EV_STACK, pid, tid, stack));
	add(t, ev_switch(tick(t), pid, tid, 1, 0, 0));
}

static void resume(struct trace *t, uint32_t pid, uint32_t tid, uint16_t nr)
{
	add(t, ev_sys_exit(tick(t), pid, tid, nr, 1));
}

/* One call at ts: the service works work_ns (a sleep). With batched, the
 * chatter wakes the daemon just before the service's reply: the daemon
 * reads every client's message and the reply in one wake-up, then writes
 * the forwards (each client's signal to the others, ROUNDS times), the
 * reply's last. A wake-up is recorded inside the send that makes it,
 * before the send's own record (stamped at its exit). */
static void call(struct trace *t, uint64_t ts, uint64_t work_ns, bool batched)
{
	const uint8_t U = ARGUS_OBJ_UNIX, E = ARGUS_OBJ_EVENTFD;
	t->ts = ts;
	add(t, ev_wakeup(tick(t), APP, APP, APP, BUSC, 0));
	add(t, io(t, true, APP, APP, EFD_REQ, 0, E, 8));
	block(t, APP, APP, T_POLL, 1);
	resume(t, APP, BUSC, T_POLL);
	add(t, io(t, false, APP, BUSC, EFD_REQ, 0, E, 8));
	add(t, ev_wakeup(tick(t), APP, BUSC, DAEMON, DAEMON, 0));
	add(t, io(t, true, APP, BUSC, A_CLI, A_END, U, 100));
	block(t, APP, BUSC, T_POLL, 2);
	resume(t, DAEMON, DAEMON, T_EPOLL_WAIT);
	add(t, io(t, false, DAEMON, DAEMON, A_END, A_CLI, U, 100));
	add(t, ev_wakeup(tick(t), DAEMON, DAEMON, SVC, SVC, 0));
	add(t, io(t, true, DAEMON, DAEMON, S_END, S_CLI, U, 120));
	block(t, DAEMON, DAEMON, T_EPOLL_WAIT, 3);
	resume(t, SVC, SVC, T_POLL);
	add(t, io(t, false, SVC, SVC, S_CLI, S_END, U, 120));
	block(t, SVC, SVC, T_NANOSLEEP, 4);
	t->ts += work_ns;
	resume(t, SVC, SVC, T_NANOSLEEP);
	if (batched) {
		for (uint32_t i = 0; i < NCHAT; i++) {
			if (!i)
				add(t, ev_wakeup(tick(t), CHAT, CHAT, DAEMON, DAEMON, 0));
			add(t, io(t, true, CHAT + i, CHAT + i, C_CLI(i), C_END(i), U, 216));
			block(t, CHAT + i, CHAT + i, T_POLL, 6);
		}
		add(t, io(t, true, SVC, SVC, S_CLI, S_END, U, 50));
		block(t, SVC, SVC, T_POLL, 5);
		resume(t, DAEMON, DAEMON, T_EPOLL_WAIT);
		for (uint32_t i = 0; i < NCHAT; i++)
			add(t, io(t, false, DAEMON, DAEMON, C_END(i), C_CLI(i), U, 216));
		add(t, io(t, false, DAEMON, DAEMON, S_END, S_CLI, U, 50));
		for (uint32_t r = 0; r < ROUNDS; r++)
			for (uint32_t i = 0; i < NCHAT; i++) {
				uint32_t to = (i + 1) % NCHAT;
				if (!r)
					add(t, ev_wakeup(tick(t), DAEMON, DAEMON, CHAT + to,
					                 CHAT + to, 0));
				add(t, io(t, true, DAEMON, DAEMON, C_END(to), C_CLI(to), U, 124));
			}
	} else {
		add(t, ev_wakeup(tick(t), SVC, SVC, DAEMON, DAEMON, 0));
		add(t, io(t, true, SVC, SVC, S_CLI, S_END, U, 50));
		block(t, SVC, SVC, T_POLL, 5);
		resume(t, DAEMON, DAEMON, T_EPOLL_WAIT);
		add(t, io(t, false, DAEMON, DAEMON, S_END, S_CLI, U, 50));
	}
	add(t, ev_wakeup(tick(t), DAEMON, DAEMON, APP, BUSC, 0));
	add(t, io(t, true, DAEMON, DAEMON, A_END, A_CLI, U, 60));
	block(t, DAEMON, DAEMON, T_EPOLL_WAIT, 3);
	/* the bus thread wakes itself (its worker's eventfd), then reads */
	resume(t, APP, BUSC, T_POLL);
	add(t, io(t, true, APP, BUSC, EFD_SELF, 0, E, 8));
	add(t, io(t, false, APP, BUSC, A_CLI, A_END, U, 60));
	add(t, io(t, false, APP, BUSC, EFD_SELF, 0, E, 8));
	add(t, ev_wakeup(tick(t), APP, BUSC, APP, APP, 0));
	add(t, io(t, true, APP, BUSC, EFD_REP, 0, E, 8));
	block(t, APP, BUSC, T_POLL, 2);
	if (batched)
		for (uint32_t i = 0; i < NCHAT; i++) {
			resume(t, CHAT + i, CHAT + i, T_POLL);
			add(t,
			    io(t, false, CHAT + i, CHAT + i, C_CLI(i), C_END(i), U, 124 * ROUNDS));
			block(t, CHAT + i, CHAT + i, T_POLL, 6);
		}
	resume(t, APP, APP, T_POLL);
	add(t, io(t, false, APP, APP, EFD_REP, 0, E, 8));
}

/* The chatter between calls: client 0 signals the others through the
 * daemon every 20 ms from 10 ms on, until the detection, hang or not. */
static void chatter(struct trace *t, uint64_t until)
{
	const uint8_t U = ARGUS_OBJ_UNIX;
	for (uint64_t ts = 10 * MS; ts < until; ts += 20 * MS) {
		t->ts = ts;
		add(t, ev_wakeup(tick(t), CHAT, CHAT, DAEMON, DAEMON, 0));
		add(t, io(t, true, CHAT, CHAT, C_CLI(0), C_END(0), U, 108));
		block(t, CHAT, CHAT, T_POLL, 6);
		resume(t, DAEMON, DAEMON, T_EPOLL_WAIT);
		add(t, io(t, false, DAEMON, DAEMON, C_END(0), C_CLI(0), U, 108));
		for (uint32_t i = 1; i < NCHAT; i++) {
			add(t, ev_wakeup(tick(t), DAEMON, DAEMON, CHAT + i, CHAT + i, 0));
			add(t, io(t, true, DAEMON, DAEMON, C_END(i), C_CLI(i), U, 124));
		}
		block(t, DAEMON, DAEMON, T_EPOLL_WAIT, 3);
		for (uint32_t i = 1; i < NCHAT; i++) {
			resume(t, CHAT + i, CHAT + i, T_POLL);
			add(t, io(t, false, CHAT + i, CHAT + i, C_CLI(i), C_END(i), U, 124));
			block(t, CHAT + i, CHAT + i, T_POLL, 6);
		}
	}
}

static int by_time(const void *a, const void *b)
{
	const struct argus_event *x = a, *y = b;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* The stall of the call at hang (its service sleeping 4 s), diagnosed at
 * detection after calls at 100 ms and 400 ms, each answered in a batch or
 * not. Returns when the top baseline's wait began (0: none). */
static uint64_t diagnose(bool first_batched, bool second_batched, struct argus_diagnosis *d)
{
	struct trace *t = calloc(1, sizeof(*t));
	ASSERT(t);
	add(t, ev_comm(1, APP, APP, "demo-app"));
	add(t, ev_comm(2, APP, BUSC, "gdbus"));
	add(t, ev_comm(3, SVC, SVC, "store-svc"));
	add(t, ev_comm(4, DAEMON, DAEMON, "dbus-daemon"));
	for (uint32_t i = 0; i < NCHAT; i++)
		add(t, ev_comm(5, CHAT + i, CHAT + i, "chatter"));
	call(t, 100 * MS, 3 * MS, first_batched);
	call(t, 400 * MS, 3 * MS, second_batched);
	uint64_t hang = SEC;
	call(t, hang, 4 * SEC, false);
	chatter(t, hang + 2 * SEC);
	qsort(t->ev, t->n, sizeof(t->ev[0]), by_time);
	struct argus_stall st = {.id = 1,
	                         .pid = APP,
	                         .tid = APP,
	                         .since = hang,
	                         .detected = hang + 2 * SEC,
	                         .cls = ARGUS_STALL_LONG_WAIT,
	                         .blocked = true,
	                         .wait_nr = T_POLL};
	size_t n = 0;
	while (n < t->n && t->ev[n].ts <= st.detected)
		n++;
	struct argus_graph *g;
	ASSERT_EQ(argus_graph_new(&g, NULL), 0);
	ASSERT_EQ(argus_graph_ingest(g, t->ev, n), 0);
	struct argus_vertex_info b;
	diag_run_base(g, &st, d, &b);
	free(t);
	return b.end;
}

TEST(a_reply_forwarded_in_a_batch_is_no_baseline_the_call_before_it_is)
{
	struct argus_diagnosis *d = calloc(1, sizeof(*d));
	ASSERT(d);
	uint64_t base = diagnose(false, true, d);
	ASSERT(d->ncandidates);
	ASSERT_MSG(base && base < 400 * MS, "the baseline's wait began at %.3f s", base / 1e9);
	ASSERT_MSG(d->root.v.pid == SVC, "root cause in pid %u, not the service", d->root.v.pid);
	ASSERT(diag_rule_used(d, "compare/whole-baseline"));
	free(d);
}

/* The newest call answered in a wake-up of its own: it is the baseline,
 * whatever came before it. */
TEST(a_whole_newest_call_is_the_baseline)
{
	struct argus_diagnosis *d = calloc(1, sizeof(*d));
	ASSERT(d);
	uint64_t base = diagnose(true, false, d);
	ASSERT(d->ncandidates);
	ASSERT_MSG(d->root.v.pid == SVC, "root cause in pid %u, not the service", d->root.v.pid);
	ASSERT_MSG(base >= 400 * MS, "the baseline's wait began at %.3f s", base / 1e9);
	free(d);
}

TEST_MAIN(TEST_ENTRY(a_reply_forwarded_in_a_batch_is_no_baseline_the_call_before_it_is),
          TEST_ENTRY(a_whole_newest_call_is_the_baseline))
