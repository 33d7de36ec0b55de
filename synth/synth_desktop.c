/*
 * synth_desktop.c - who does what on the synthetic desktop: the display
 * server and its input thread, GUI apps (GLib-like main loop, worker pool,
 * gdbus thread), the message bus (batch loop), a font service, a three
 * process service chain (the last one waits on the disk), a renderer that
 * can deadlock with its app, a sound server, bus services, inotify watchers,
 * kernel workers, interrupts; the user who types and clicks; and the plan
 * that injects anomalies with their ground truth. docs/synth.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth_int.h"

/* UI scenarios: what handling one input involves */
enum { SC_SIMPLE, SC_FONT, SC_JOB, SC_DBUS, SC_LONG, SC_CHAIN, SC_CIRC, SC_COND, SC_YIELD, NSC };

enum { JOB_EVENTFD = 1, JOB_COND = 2 };
enum { DBUS_CALL = 1, DBUS_RETURN = 2, DBUS_SIGNAL = 4 };

#define BASELINES          3 /* normal runs of an interaction before its anomaly */
#define MAX_KW             ARGUS_SYNTH_MAX_CPUS
#define FUTEX_WAIT_PRIVATE 128
#define FUTEX_WAKE_PRIVATE 129
#define INT_MAX_WAKE       0x7fffffff
#define ETIMEDOUT          110

struct app {
	struct sthread *ui, *gdbus, *w[2];
	char prefix[24];
	uint32_t pid;
	uint64_t ctx, pool, pool_cond, pool_mutex, result_cond, flag_addr;
	struct sthread *holder, *waiters[4];
	uint32_t nwait;
	struct msg jobs[16];
	uint32_t jhead, jn;
	uint64_t flag;
	bool busy, stalled;
	uint32_t done[NSC];
	uint32_t stk_poll, stk_handler, stk_long, stk_font, stk_chain, stk_circ, stk_cond,
	    stk_yield, stk_idle_cb, stk_blink, stk_w_idle, stk_w_mutex, stk_job, stk_gd_poll,
	    stk_gd_work;
};

/* ground truth being assembled: a UI part and a root-cause part */
struct pend {
	struct argus_truth t;
	char func[64];
	int need;
};

struct desktop {
	struct app app[ARGUS_SYNTH_MAX_APPS];
	uint32_t napps;
	struct sthread *xorg, *input, *dbus, *fontd, *chain[3], *render, *pa, *svc, *power, *shell,
	    *watch[2], *house, *extract, *kw[MAX_KW];
	uint32_t circ_app, focus;
	uint32_t serial, job;
	/* the plan */
	uint32_t order[8], nk; /* enabled kinds, in kind order */
	uint32_t total, next;  /* anomalies planned (rounds of nk), the next one */
	uint32_t inflight;
	bool render_anom, render_in_sync;
	uint32_t decoy_req;
	struct pend pend;
	uint32_t irq_input_str, irq_disk_str, irq_net_str;
	uint32_t member_str, dest_str, signal_str, power_str, src_str;
};

/* ---- record helpers ---- */

static uint32_t stk(struct sim *s, struct sthread *t, const char *spec, const char *prefix)
{
	return world_stack(s, &s->proc[t->proc], spec, prefix);
}

static int fd_of(uint32_t peer_pid)
{
	return 3 + (int)(peer_pid * 7 % 61);
}

static void sys_enter(struct sim *s, struct sthread *t, uint16_t nr, int fd, uint8_t kind,
                      uint64_t obj, uint64_t peer, int64_t a0, int64_t a1)
{
	struct argus_event *e = ev_thr(s, t, ARGUS_EV_SYS_ENTER);
	e->sys_enter.nr = nr;
	e->sys_enter.fd = fd;
	e->sys_enter.obj_kind = kind;
	e->sys_enter.obj = obj;
	e->sys_enter.peer_obj = peer;
	e->sys_enter.arg0 = a0;
	e->sys_enter.arg1 = a1;
	t->sys_ts = e->ts;
}

static void sys_exit(struct sim *s, struct sthread *t, uint16_t type, uint16_t nr, int fd,
                     uint8_t kind, uint64_t obj, uint64_t peer, int64_t ret)
{
	struct argus_event *e = ev_thr(s, t, type);
	e->sys_exit.nr = nr;
	e->sys_exit.fd = fd;
	e->sys_exit.obj_kind = kind;
	e->sys_exit.obj = obj;
	e->sys_exit.peer_obj = peer;
	e->sys_exit.ret = ret;
	e->sys_exit.dur_ns = t->sys_ts && e->ts > t->sys_ts ? e->ts - t->sys_ts : 0;
	t->sys_ts = 0;
}

/* A transfer that did not block: entry and exit a microsecond apart. */
static void ipc_quick(struct sim *s, struct sthread *t, uint16_t type, uint16_t nr, int fd,
                      uint8_t kind, uint64_t obj, uint64_t peer, int64_t bytes)
{
	/* as the tracer: a send is one record at exit, a receive has its entry */
	if (type == ARGUS_EV_IPC_RECV)
		sys_enter(s, t, nr, fd, kind, obj, peer, nr == NR_READ ? bytes : 0, 0);
	else
		t->sys_ts = s->now - 900 - (bytes & 0x1ff);
	sys_exit(s, t, type, nr, fd, kind, obj, peer, bytes);
}

/* The user stack the tracer records if the coming wait blocks (synth_sim.c). */
static void stack_wait(struct sim *s, struct sthread *t, uint32_t id)
{
	(void)s;
	t->wait_stack = id;
}

static void loop_ev(struct sim *s, struct sthread *t, uint16_t type, uint64_t ctx, uint64_t src)
{
	struct argus_event *e = ev_thr(s, t, type);
	e->flags |= ARGUS_F_HOOK;
	e->loop.context = ctx;
	e->loop.source = src;
	e->loop.callback = src ? 0x7f3a50012340ULL + (src & 0xff0) : 0;
	e->loop.depth = 1;
	e->loop.name_str = src ? s->d->src_str : 0;
}

static void async_ev(struct sim *s, struct sthread *t, uint16_t type, uint32_t kind, uint64_t obj,
                     uint64_t target)
{
	struct argus_event *e = ev_thr(s, t, type);
	e->flags |= ARGUS_F_HOOK;
	e->async.obj = obj;
	e->async.callback = 0x555555560000ULL + (obj & 0xfff0);
	e->async.target = target;
	e->async.kind = kind;
}

static void sync_ev(struct sim *s, struct sthread *t, uint16_t type, uint64_t obj, uint64_t mutex,
                    int64_t ret)
{
	struct argus_event *e = ev_thr(s, t, type);
	e->flags |= ARGUS_F_HOOK;
	e->sync.obj = obj;
	e->sync.mutex = mutex;
	e->sync.ret = ret;
}

static void futex_ev(struct sim *s, struct sthread *t, uint16_t type, uint64_t uaddr, int64_t tmo,
                     uint32_t val, int64_t ret)
{
	struct argus_event *e = ev_thr(s, t, type);
	e->futex.uaddr = uaddr;
	e->futex.timeout_ns = type == ARGUS_EV_FUTEX_WAIT ? tmo : 0;
	e->futex.ret = ret;
	e->futex.op = type == ARGUS_EV_FUTEX_WAIT ? FUTEX_WAIT_PRIVATE : FUTEX_WAKE_PRIVATE;
	e->futex.val = val;
	if (type == ARGUS_EV_FUTEX_WAIT)
		t->sys_ts = e->ts;
}

static void dbus_ev(struct sim *s, struct sthread *t, uint16_t type, const struct msg *m)
{
	struct desktop *d = s->d;
	struct argus_event *e = ev_thr(s, t, type);
	e->flags |= ARGUS_F_HOOK;
	e->dbus.conn = obj_uaddr(t->pid, 9);
	e->dbus.serial = m->serial;
	e->dbus.reply_serial = m->kind == DBUS_RETURN ? m->serial - 1 : 0;
	e->dbus.msg_type = m->kind;
	e->dbus.member_str = m->kind == DBUS_SIGNAL ? d->signal_str : d->member_str;
	e->dbus.dest_str = m->kind == DBUS_SIGNAL ? d->power_str : d->dest_str;
}

static uint8_t sock_kind(struct sim *s, const struct sthread *a, const struct sthread *b)
{
	return a->pid == s->d->xorg->pid || b->pid == s->d->xorg->pid ? ARGUS_OBJ_DISPLAY
	                                                              : ARGUS_OBJ_UNIX;
}

/* t sends m over its socket to dst's process; dst is woken on channel ch. */
static bool send_sock(struct sim *s, struct sthread *t, struct sthread *dst, unsigned ch,
                      struct msg m, uint16_t nr, int64_t bytes)
{
	m.from = t->idx;
	m.t = s->now;
	if (!mb_push(dst, ch, &m))
		return false; /* the peer's queue is full: the sender backs off */
	wake(s, t, dst, ch, false);
	ipc_quick(s, t, ARGUS_EV_IPC_SEND, nr, fd_of(dst->pid), sock_kind(s, t, dst),
	          obj_sock(t->pid, dst->pid), obj_sock(dst->pid, t->pid), bytes);
	return true;
}

/* The receive matching send_sock, after a wait (dur since sys_enter) or not. */
static void recv_sock(struct sim *s, struct sthread *t, const struct msg *m, uint16_t nr,
                      int64_t bytes, bool waited)
{
	const struct sthread *from = &s->th[m->from];
	uint8_t kind = sock_kind(s, t, from);
	if (waited)
		sys_exit(s, t, ARGUS_EV_IPC_RECV, nr, fd_of(from->pid), kind,
		         obj_sock(t->pid, from->pid), obj_sock(from->pid, t->pid), bytes);
	else
		ipc_quick(s, t, ARGUS_EV_IPC_RECV, nr, fd_of(from->pid), kind,
		          obj_sock(t->pid, from->pid), obj_sock(from->pid, t->pid), bytes);
}

static uint64_t eventfd_of(const struct sthread *t)
{
	return obj_kaddr(ARGUS_OBJ_EVENTFD, t->idx);
}

static bool send_eventfd(struct sim *s, struct sthread *t, struct sthread *dst, struct msg m)
{
	m.from = t->idx;
	m.t = s->now;
	if (!mb_push(dst, CH_ASYNC, &m))
		return false;
	wake(s, t, dst, CH_ASYNC, false);
	ipc_quick(s, t, ARGUS_EV_IPC_SEND, NR_WRITE, 4, ARGUS_OBJ_EVENTFD, eventfd_of(dst), 0, 8);
	return true;
}

static void recv_eventfd(struct sim *s, struct sthread *t)
{
	ipc_quick(s, t, ARGUS_EV_IPC_RECV, NR_READ, 4, ARGUS_OBJ_EVENTFD, eventfd_of(t), 0, 8);
}

static void poll_enter(struct sim *s, struct sthread *t, uint16_t nr, int64_t tmo, uint32_t stack)
{
	sys_enter(s, t, nr, -1, ARGUS_OBJ_NONE, 0, 0, tmo, 4);
	stack_wait(s, t, stack);
}

static void poll_exit(struct sim *s, struct sthread *t, uint16_t nr, int64_t ret)
{
	sys_exit(s, t, ARGUS_EV_SYS_EXIT, nr, -1, ARGUS_OBJ_NONE, 0, 0, ret);
}

/* The channel to serve: the one that woke us, else the first pending one. */
static int pick(struct sthread *t, uint32_t mask)
{
	uint32_t p = t->pending & mask;
	int ch = -1;
	if (t->woke_by < NCH && (p & BIT(t->woke_by)))
		ch = (int)t->woke_by;
	else if (p)
		ch = __builtin_ctz(p);
	t->woke_by = NCH;
	return ch;
}

static bool need_ambiguous(struct sim *s)
{
	return (double)s->st.wakeups_ambiguous < s->o.ambiguous * (double)(s->st.wakeups + 1);
}

/* ---- ground truth ---- */

static void pend_done(struct sim *s)
{
	struct desktop *d = s->d;
	struct pend *p = &d->pend;
	if (--p->need > 0)
		return;
	d->inflight = 0;
	/* only when every record of the episode made it into the output */
	if (s->done || s->emitted + s->nbuf > s->o.events)
		return;
	p->t.root_func_str = world_string(s, p->func);
	char desc[160];
	snprintf(desc, sizeof(desc), "%s: %s (root %s)", argus_anomaly_kind_name(p->t.kind),
	         p->t.ui_pid ? "UI thread stalled" : "harmless background activity", p->func);
	p->t.desc_str = world_string(s, desc);
	if (s->sink->truth && s->sink->truth(s->sink->arg, &p->t) < 0) {
		s->err = ARGUS_SYNTH_ESINK;
		s->done = true;
		return;
	}
	s->st.injected++;
	s->st.per_kind[p->t.kind & 7]++;
}

static void pend_root(struct sim *s, struct sthread *t, uint64_t t0, uint64_t t1, const char *fn,
                      const char *prefix)
{
	struct pend *p = &s->d->pend;
	p->t.root_pid = t->pid;
	p->t.root_tid = t->tid;
	p->t.root_start = t0;
	p->t.root_end = t1;
	snprintf(p->func, sizeof(p->func), "%s%s", prefix, fn);
	pend_done(s);
}

static void pend_ui(struct sim *s, struct sthread *ui)
{
	struct pend *p = &s->d->pend;
	p->t.ui_pid = ui->pid;
	p->t.ui_tid = ui->tid;
	p->t.stall_start = ui->cur.t;
	p->t.stall_end = s->now;
	pend_done(s);
}

/* ---- the worker pool of an app ---- */

static void pool_post(struct sim *s, struct sthread *t, struct app *a, struct msg job)
{
	if (a->jn == 16)
		return;
	a->jobs[(a->jhead + a->jn++) % 16] = job;
	struct sthread *idle[2];
	unsigned n = 0, woken = 0;
	for (int i = 0; i < 2; i++)
		if (a->w[i]->state == T_BLOCKED && (a->w[i]->waitmask & BIT(CH_IN)))
			idle[n++] = a->w[i];
	if (n == 2 && need_ambiguous(s)) {
		/* g_cond_broadcast: every idle worker races for the job */
		sync_ev(s, t, ARGUS_EV_COND_BROADCAST, a->pool_cond, 0, 0);
		for (unsigned i = 0; i < n; i++)
			woken += wake(s, t, idle[i], CH_IN, true);
		futex_ev(s, t, ARGUS_EV_FUTEX_WAKE, a->pool_cond, 0, INT_MAX_WAKE, woken);
	} else {
		sync_ev(s, t, ARGUS_EV_COND_SIGNAL, a->pool_cond, 0, 0);
		if (n)
			woken = wake(s, t, idle[0], CH_IN, false);
		futex_ev(s, t, ARGUS_EV_FUTEX_WAKE, a->pool_cond, 0, 1, woken);
	}
}

enum { W_IDLE, W_WOKE, W_LOCK, W_LOCKED, W_HAVE, W_DONE };

static void worker_step(struct sim *s, struct sthread *t)
{
	struct app *a = &s->d->app[t->app];
	for (;;)
		switch (t->pc) {
		case W_IDLE:
			futex_ev(s, t, ARGUS_EV_FUTEX_WAIT, a->pool_cond, -1, 0, 0);
			stack_wait(s, t, a->stk_w_idle);
			t->pc = W_WOKE;
			block(s, t, TASK_INTERRUPTIBLE, BIT(CH_IN), -1);
			return;
		case W_WOKE:
			t->pending &= ~BIT(CH_IN);
			sys_exit(s, t, ARGUS_EV_SYS_EXIT, NR_FUTEX, -1, ARGUS_OBJ_FUTEX,
			         a->pool_cond, 0, 0);
			t->pc = W_LOCK;
			continue;
		case W_LOCK:
			if (a->holder && a->holder != t && a->nwait < 4) {
				futex_ev(s, t, ARGUS_EV_FUTEX_WAIT, a->pool_mutex, -1, 2, 0);
				stack_wait(s, t, a->stk_w_mutex);
				a->waiters[a->nwait++] = t;
				t->pc = W_LOCKED;
				block(s, t, TASK_INTERRUPTIBLE, BIT(CH_COND), -1);
				return;
			}
			a->holder = t;
			t->pc = W_HAVE;
			compute(s, t, rnd(s, 20000, 90000), a->stk_w_idle);
			return;
		case W_LOCKED:
			t->pending &= ~BIT(CH_COND);
			sys_exit(s, t, ARGUS_EV_SYS_EXIT, NR_FUTEX, -1, ARGUS_OBJ_FUTEX,
			         a->pool_mutex, 0, 0);
			t->pc = W_HAVE;
			compute(s, t, rnd(s, 5000, 20000), a->stk_w_idle);
			return;
		case W_HAVE: {
			bool have = a->jn > 0;
			if (have) {
				t->cur = a->jobs[a->jhead];
				a->jhead = (a->jhead + 1) % 16;
				a->jn--;
			}
			if (a->nwait) {
				/* unlock with a waiter: a hand-off, not a cause */
				struct sthread *nx = a->waiters[0];
				memmove(a->waiters, a->waiters + 1,
				        --a->nwait * sizeof(a->waiters[0]));
				a->holder = nx;
				sync_ev(s, t, ARGUS_EV_MUTEX_HANDOFF, a->pool_mutex, 0, 0);
				bool w = wake(s, t, nx, CH_COND, true);
				futex_ev(s, t, ARGUS_EV_FUTEX_WAKE, a->pool_mutex, 0, 1, w);
			} else {
				a->holder = NULL;
			}
			if (!have) {
				t->pc = W_IDLE;
				continue;
			}
			async_ev(s, t, ARGUS_EV_ASYNC_RUN_BEGIN, ARGUS_ASYNC_THREADPOOL,
			         obj_uaddr(a->pid, 0x100 + (t->cur.job & 0x3ff)), a->pool);
			t->t0 = s->now;
			t->pc = W_DONE;
			compute(s, t,
			        t->cur.kind == JOB_COND ? rnd(s, 1500000, 6000000)
			                                : rnd(s, 500000, 15000000),
			        a->stk_job);
			return;
		}
		case W_DONE:
			async_ev(s, t, ARGUS_EV_ASYNC_RUN_END, ARGUS_ASYNC_THREADPOOL,
			         obj_uaddr(a->pid, 0x100 + (t->cur.job & 0x3ff)), a->pool);
			t->t1 = s->now;
			if (t->cur.kind == JOB_EVENTFD) {
				struct msg m = t->cur;
				async_ev(s, t, ARGUS_EV_ASYNC_POST, ARGUS_ASYNC_IDLE,
				         obj_uaddr(a->pid, 0x800 + (m.job & 0x3ff)), a->ctx);
				send_eventfd(s, t, a->ui, m);
			} else if (!t->cur.anomaly) {
				sync_ev(s, t, ARGUS_EV_COND_SIGNAL, a->result_cond, 0, 0);
				bool w = wake(s, t, a->ui, CH_COND, false);
				futex_ev(s, t, ARGUS_EV_FUTEX_WAKE, a->result_cond, 0, 1, w);
			} else {
				/* the bug: returns without signalling the waiting UI thread */
				pend_root(s, t, t->t0, t->t1, "_thumbnail_job_run", a->prefix);
			}
			t->pc = W_LOCK;
			continue;
		}
}

/* ---- the UI thread of an app ---- */

enum {
	U_INIT,
	U_LOOP,
	U_WOKE,
	U_ASYNC_END,
	U_PEER_REPLY,
	U_TIMER_END,
	U_H_START,
	U_LONG_DONE,
	U_CALL,
	U_CALL_DONE,
	U_CIRC_SEND,
	U_CIRC_WAIT,
	U_CIRC_WOKE,
	U_COND_POST,
	U_COND_WOKE,
	U_SPIN,
	U_SPIN_YIELDED,
	U_FINISH,
};

#define UI_WAITMASK                                                                                \
	(BIT(CH_IN) | BIT(CH_ASYNC) | BIT(CH_PEERREQ) | BIT(CH_TIMER) | BIT(CH_PEERREPLY))
#define BLINK_NS        600000000ULL
#define CIRC_TIMEOUT_NS 1500000000LL
#define COND_TIMEOUT_NS 3000000000LL

static uint64_t timerfd_of(const struct sthread *t)
{
	return obj_kaddr(ARGUS_OBJ_TIMERFD, t->idx);
}

static void timerfd_arm(struct sim *s, struct sthread *t, uint64_t in_ns, uint64_t interval)
{
	uint64_t at = s->now + in_ns;
	struct argus_event *e = ev_thr(s, t, ARGUS_EV_TIMER_ARM);
	e->timer.obj = timerfd_of(t);
	e->timer.expires_ns = at;
	e->timer.interval_ns = interval;
	e->timer.fd = 5;
	e->timer.kind = ARGUS_TIMER_TIMERFD;
	t->t2++; /* a new arming supersedes the old */
	heap_push(s, at, H_TIMERFD, t->idx, (uint32_t)t->t2);
}

static void timerfd_read(struct sim *s, struct sthread *t)
{
	t->pending &= ~BIT(CH_TIMER);
	/* a timerfd read is a receive for the tracer */
	ipc_quick(s, t, ARGUS_EV_IPC_RECV, NR_READ, 5, ARGUS_OBJ_TIMERFD, timerfd_of(t), 0, 8);
}

static void ui_step(struct sim *s, struct sthread *t)
{
	struct desktop *d = s->d;
	struct app *a = &d->app[t->app];
	uint64_t gdk_src = a->ctx + 0x100;
	for (;;)
		switch (t->pc) {
		case U_INIT:
			timerfd_arm(s, t, rnd(s, 1000000, BLINK_NS), BLINK_NS);
			t->pc = U_LOOP;
			continue;
		case U_LOOP:
			loop_ev(s, t, ARGUS_EV_LOOP_ITER_BEGIN, a->ctx, 0);
			poll_enter(s, t, NR_POLL, -1, a->stk_poll);
			t->pc = U_WOKE;
			block(s, t, TASK_INTERRUPTIBLE, UI_WAITMASK, -1);
			return;
		case U_WOKE: {
			poll_exit(s, t, NR_POLL, 1);
			int ch = pick(t, UI_WAITMASK);
			struct argus_event *e;
			switch (ch) {
			case CH_IN:
				mb_pop(t, CH_IN, &t->cur);
				loop_ev(s, t, ARGUS_EV_DISPATCH_BEGIN, a->ctx, gdk_src);
				recv_sock(s, t, &t->cur, NR_READ, 32, false);
				e = ev_thr(s, t, ARGUS_EV_UI_INPUT);
				e->ui.obj = obj_sock(t->pid, d->xorg->pid);
				e->ui.serial = t->cur.serial;
				e->ui.bytes = 32;
				e->ui.pending_since_ns = t->cur.t;
				e->ui.kind = t->cur.kind;
				e->ui.window = 0x2a00003 + t->app * 0x100000;
				a->busy = true;
				a->stalled = t->cur.anomaly;
				t->pc = U_H_START;
				continue;
			case CH_ASYNC:
				mb_pop(t, CH_ASYNC, &t->cur);
				recv_eventfd(s, t);
				async_ev(s, t, ARGUS_EV_ASYNC_RUN_BEGIN, ARGUS_ASYNC_IDLE,
				         obj_uaddr(a->pid, 0x800 + (t->cur.job & 0x3ff)), a->ctx);
				t->pc = U_ASYNC_END;
				compute(s, t, rnd(s, 200000, 1500000), a->stk_idle_cb);
				return;
			case CH_PEERREQ:
				mb_pop(t, CH_PEERREQ, &t->cur);
				loop_ev(s, t, ARGUS_EV_DISPATCH_BEGIN, a->ctx, gdk_src + 0x40);
				recv_sock(s, t, &t->cur, NR_RECVMSG, 96, false);
				t->pc = U_PEER_REPLY;
				compute(s, t, rnd(s, 200000, 600000), a->stk_handler);
				return;
			case CH_TIMER:
				timerfd_read(s, t);
				loop_ev(s, t, ARGUS_EV_DISPATCH_BEGIN, a->ctx, gdk_src + 0x80);
				t->pc = U_TIMER_END;
				compute(s, t, rnd(s, 40000, 150000), a->stk_blink);
				return;
			case CH_PEERREPLY: {
				/* a late reply to a call that already gave up: dropped */
				struct msg m;
				mb_pop(t, CH_PEERREPLY, &m);
				recv_sock(s, t, &m, NR_RECVMSG, 64, false);
				break;
			}
			default:
				break;
			}
			loop_ev(s, t, ARGUS_EV_LOOP_ITER_END, a->ctx, 0);
			t->pc = U_LOOP;
			continue;
		}
		case U_ASYNC_END:
			async_ev(s, t, ARGUS_EV_ASYNC_RUN_END, ARGUS_ASYNC_IDLE,
			         obj_uaddr(a->pid, 0x800 + (t->cur.job & 0x3ff)), a->ctx);
			send_sock(s, t, d->xorg, CH_PEERREQ, (struct msg){0}, NR_WRITE, 48);
			loop_ev(s, t, ARGUS_EV_LOOP_ITER_END, a->ctx, 0);
			t->pc = U_LOOP;
			continue;
		case U_PEER_REPLY:
			send_sock(s, t, &s->th[t->cur.from], CH_REPLY, (struct msg){0}, NR_SENDMSG,
			          64);
			loop_ev(s, t, ARGUS_EV_DISPATCH_END, a->ctx, gdk_src + 0x40);
			loop_ev(s, t, ARGUS_EV_LOOP_ITER_END, a->ctx, 0);
			t->pc = U_LOOP;
			continue;
		case U_TIMER_END:
			timerfd_arm(s, t, BLINK_NS, BLINK_NS);
			loop_ev(s, t, ARGUS_EV_DISPATCH_END, a->ctx, gdk_src + 0x80);
			loop_ev(s, t, ARGUS_EV_LOOP_ITER_END, a->ctx, 0);
			t->pc = U_LOOP;
			continue;
		case U_H_START: {
			uint8_t sc = t->cur.scen;
			t->k = 0;
			if (sc == SC_SIMPLE) {
				t->pc = U_FINISH;
				compute(s, t,
				        t->cur.kind == ARGUS_UI_MOTION ? rnd(s, 100000, 1200000)
				                                       : rnd(s, 400000, 4000000),
				        a->stk_handler);
			} else if (sc == SC_LONG) {
				t->t0 = s->now;
				t->pc = U_LONG_DONE;
				compute(s, t,
				        t->cur.anomaly ? rnd(s, 2200000000ULL, 2900000000ULL)
				                       : rnd(s, 25000000, 60000000),
				        a->stk_long);
			} else if (sc == SC_FONT || sc == SC_CHAIN) {
				t->pc = U_CALL;
				compute(s, t, rnd(s, 50000, 300000), a->stk_handler);
			} else if (sc == SC_CIRC && !t->cur.anomaly && d->render_in_sync) {
				/* the renderer is calling us: this input does something else */
				t->cur.scen = SC_SIMPLE;
				t->pc = U_FINISH;
				compute(s, t, rnd(s, 400000, 4000000), a->stk_handler);
			} else if (sc == SC_CIRC) {
				if (t->cur.anomaly) {
					/* the renderer's own sync call races ours */
					d->render_anom = true;
					heap_push(s, s->now + 20000, H_TIMERFD, d->render->idx,
					          (uint32_t)d->render->t2);
				}
				t->pc = U_CIRC_SEND;
				compute(s, t, rnd(s, 1000000, 2000000), a->stk_handler);
			} else if (sc == SC_COND) {
				t->pc = U_COND_POST;
				compute(s, t, rnd(s, 100000, 300000), a->stk_handler);
			} else if (sc == SC_YIELD) {
				struct msg m = {.anomaly = t->cur.anomaly, .job = t->app};
				bool sent = send_sock(s, t, d->pa, CH_IN, m, NR_SENDMSG, 128);
				t->pc = sent ? U_SPIN : U_FINISH;
				compute(s, t, rnd(s, 50000, 200000), a->stk_handler);
			} else { /* SC_JOB, SC_DBUS */
				struct msg m = {.job = ++d->job, .kind = JOB_EVENTFD};
				if (sc == SC_JOB) {
					async_ev(s, t, ARGUS_EV_ASYNC_POST, ARGUS_ASYNC_THREADPOOL,
					         obj_uaddr(a->pid, 0x100 + (m.job & 0x3ff)),
					         a->pool);
					pool_post(s, t, a, m);
				} else {
					async_ev(s, t, ARGUS_EV_ASYNC_POST, ARGUS_ASYNC_INVOKE,
					         obj_uaddr(a->pid, 0x800 + (m.job & 0x3ff)),
					         a->ctx + 0x1000);
					send_eventfd(s, t, a->gdbus, m);
				}
				t->pc = U_FINISH;
				compute(s, t, rnd(s, 100000, 600000), a->stk_handler);
			}
			return;
		}
		case U_LONG_DONE:
			if (t->cur.anomaly)
				pend_root(s, t, t->t0, s->now, "_search_match_line", a->prefix);
			t->pc = U_FINISH;
			continue;
		case U_CALL: {
			bool font = t->cur.scen == SC_FONT;
			struct sthread *srv = font ? d->fontd : d->chain[0];
			struct msg m = {.anomaly = t->cur.anomaly};
			if (!send_sock(s, t, srv, CH_IN, m, NR_SENDMSG, font ? 96 : 160)) {
				t->pc = U_FINISH;
				continue;
			}
			sys_enter(s, t, NR_RECVMSG, fd_of(srv->pid), ARGUS_OBJ_UNIX,
			          obj_sock(t->pid, srv->pid), obj_sock(srv->pid, t->pid), 4096, 0);
			stack_wait(s, t, font ? a->stk_font : a->stk_chain);
			t->pc = U_CALL_DONE;
			block(s, t, TASK_INTERRUPTIBLE, BIT(CH_REPLY), -1);
			return;
		}
		case U_CALL_DONE: {
			struct msg m;
			mb_pop(t, CH_REPLY, &m);
			recv_sock(s, t, &m, NR_RECVMSG, t->cur.scen == SC_FONT ? 512 : 320, true);
			t->pc = U_FINISH;
			compute(s, t, rnd(s, 100000, 400000), a->stk_handler);
			return;
		}
		case U_CIRC_SEND:
			if (!send_sock(s, t, d->render, CH_IN, (struct msg){0}, NR_SENDMSG, 128)) {
				t->pc = U_FINISH;
				continue;
			}
			/* fall through */
		case U_CIRC_WAIT: /* (re)enter the timed wait */
			poll_enter(s, t, NR_POLL, CIRC_TIMEOUT_NS, a->stk_circ);
			t->pc = U_CIRC_WOKE;
			block(s, t, TASK_INTERRUPTIBLE, BIT(CH_PEERREPLY), CIRC_TIMEOUT_NS);
			return;
		case U_CIRC_WOKE:
			if (t->wake_reason == W_TIMEOUT) {
				poll_exit(s, t, NR_POLL, 0);
				if (++t->k < 2) {
					t->pc = U_CIRC_WAIT;
					continue;
				}
				t->pc = U_FINISH; /* gives up; the reply comes later */
				compute(s, t, rnd(s, 50000, 150000), a->stk_handler);
				return;
			}
			poll_exit(s, t, NR_POLL, 1);
			{
				struct msg m;
				mb_pop(t, CH_PEERREPLY, &m);
				recv_sock(s, t, &m, NR_RECVMSG, 64, false);
			}
			t->pc = U_FINISH;
			compute(s, t, rnd(s, 100000, 300000), a->stk_handler);
			return;
		case U_COND_POST: {
			struct msg m = {
			    .job = ++d->job, .kind = JOB_COND, .anomaly = t->cur.anomaly};
			async_ev(s, t, ARGUS_EV_ASYNC_POST, ARGUS_ASYNC_THREADPOOL,
			         obj_uaddr(a->pid, 0x100 + (m.job & 0x3ff)), a->pool);
			pool_post(s, t, a, m);
			sync_ev(s, t, ARGUS_EV_COND_WAIT, a->result_cond, a->pool_mutex + 8, 0);
			futex_ev(s, t, ARGUS_EV_FUTEX_WAIT, a->result_cond, COND_TIMEOUT_NS, 0, 0);
			stack_wait(s, t, a->stk_cond);
			t->pc = U_COND_WOKE;
			block(s, t, TASK_INTERRUPTIBLE, BIT(CH_COND), COND_TIMEOUT_NS);
			return;
		}
		case U_COND_WOKE: {
			bool to = t->wake_reason == W_TIMEOUT;
			t->pending &= ~BIT(CH_COND);
			sys_exit(s, t, ARGUS_EV_SYS_EXIT, NR_FUTEX, -1, ARGUS_OBJ_FUTEX,
			         a->result_cond, 0, to ? -ETIMEDOUT : 0);
			sync_ev(s, t, ARGUS_EV_COND_WAKE, a->result_cond, a->pool_mutex + 8,
			        to ? ETIMEDOUT : 0);
			t->pc = U_FINISH;
			compute(s, t, rnd(s, 200000, 900000), a->stk_handler);
			return;
		}
		case U_SPIN: {
			struct argus_event *e = ev_thr(s, t, ARGUS_EV_FLAG_READ);
			e->flag.addr = a->flag_addr;
			e->flag.value = a->flag;
			e->flag.ip = 0x555555561234ULL;
			e->flag.len = 4;
			e->flag.watch_id = 1;
			if (a->flag) {
				a->flag = 0;
				t->pc = U_FINISH;
				compute(s, t, rnd(s, 100000, 300000), a->stk_handler);
				return;
			}
			sys_enter(s, t, NR_POLL, -1, ARGUS_OBJ_NONE, 0, 0, 0, 1);
			poll_exit(s, t, NR_POLL, 0);
			sys_enter(s, t, NR_SCHED_YIELD, -1, ARGUS_OBJ_NONE, 0, 0, 0, 0);
			t->pc = U_SPIN_YIELDED;
			yield_cpu(s, t);
			return;
		}
		case U_SPIN_YIELDED:
			sys_exit(s, t, ARGUS_EV_SYS_EXIT, NR_SCHED_YIELD, -1, ARGUS_OBJ_NONE, 0, 0,
			         0);
			t->pc = U_SPIN;
			compute(s, t, rnd(s, 300000, 1200000), a->stk_yield);
			return;
		case U_FINISH:
			send_sock(s, t, d->xorg, CH_PEERREQ, (struct msg){0}, NR_WRITE, 64);
			loop_ev(s, t, ARGUS_EV_DISPATCH_END, a->ctx, gdk_src);
			loop_ev(s, t, ARGUS_EV_LOOP_ITER_END, a->ctx, 0);
			a->busy = false;
			a->stalled = false;
			if (t->cur.anomaly) {
				static const uint32_t kind_of[NSC] = {
				    [SC_LONG] = ARGUS_ANOMALY_LONG_RUNNING,
				    [SC_CHAIN] = ARGUS_ANOMALY_LONG_WAIT_CHAIN,
				    [SC_CIRC] = ARGUS_ANOMALY_CIRCULAR_TIMEOUT,
				    [SC_COND] = ARGUS_ANOMALY_MISSING_WAKEUP,
				    [SC_YIELD] = ARGUS_ANOMALY_YIELD_LOOP,
				};
				d->pend.t.kind = kind_of[t->cur.scen];
				pend_ui(s, t);
			} else {
				a->done[t->cur.scen]++;
			}
			t->pc = U_LOOP;
			continue;
		}
}

/* ---- the display server ---- */

enum { X_LOOP, X_WOKE, X_NEXT, X_ROUTE };

static void xorg_step(struct sim *s, struct sthread *t)
{
	struct desktop *d = s->d;
	for (;;)
		switch (t->pc) {
		case X_LOOP:
			poll_enter(s, t, NR_EPOLL_WAIT, -1, t->stk[0]);
			t->pc = X_WOKE;
			block(s, t, TASK_INTERRUPTIBLE, BIT(CH_IN) | BIT(CH_PEERREQ), -1);
			return;
		case X_WOKE:
			poll_exit(s, t, NR_EPOLL_WAIT, 1);
			t->pc = X_NEXT;
			continue;
		case X_NEXT: {
			int ch = pick(t, BIT(CH_IN) | BIT(CH_PEERREQ));
			if (ch == CH_IN) {
				mb_pop(t, CH_IN, &t->cur);
				uint64_t pipe = obj_kaddr(ARGUS_OBJ_PIPE, d->input->idx);
				ipc_quick(s, t, ARGUS_EV_IPC_RECV, NR_READ, 6, ARGUS_OBJ_PIPE, pipe,
				          0, 24);
				t->pc = X_ROUTE;
				compute(s, t, rnd(s, 20000, 80000), t->stk[1]);
				return;
			}
			if (ch == CH_PEERREQ) {
				struct msg m;
				mb_pop(t, CH_PEERREQ, &m);
				recv_sock(s, t, &m, NR_RECVMSG, 64, false);
				t->pc = X_NEXT;
				compute(s, t, rnd(s, 60000, 900000), t->stk[2]);
				return;
			}
			t->pc = X_LOOP;
			continue;
		}
		case X_ROUTE:
			send_sock(s, t, &s->th[t->cur.to], CH_IN, t->cur, NR_WRITE, 32);
			t->pc = X_NEXT;
			continue;
		}
}

enum { I_LOOP, I_WOKE, I_READ, I_FWD };

static void input_step(struct sim *s, struct sthread *t)
{
	struct desktop *d = s->d;
	for (;;)
		switch (t->pc) {
		case I_LOOP:
			poll_enter(s, t, NR_EPOLL_WAIT, -1, t->stk[0]);
			t->pc = I_WOKE;
			block(s, t, TASK_INTERRUPTIBLE, BIT(CH_IN), -1);
			return;
		case I_WOKE:
			poll_exit(s, t, NR_EPOLL_WAIT, 1);
			t->woke_by = NCH;
			t->pc = I_READ;
			continue;
		case I_READ:
			if (!mb_pop(t, CH_IN, &t->cur)) {
				t->pc = I_LOOP;
				continue;
			}
			/* it reads evdev: a file read, which the tracer leaves out */
			t->pc = I_FWD;
			compute(s, t, rnd(s, 8000, 25000), t->stk[1]);
			return;
		case I_FWD: {
			struct msg m = t->cur;
			m.from = t->idx;
			m.t = s->now;
			uint64_t pipe = obj_kaddr(ARGUS_OBJ_PIPE, t->idx);
			if (mb_push(d->xorg, CH_IN, &m)) {
				wake(s, t, d->xorg, CH_IN, false);
				ipc_quick(s, t, ARGUS_EV_IPC_SEND, NR_WRITE, 7, ARGUS_OBJ_PIPE,
				          pipe, 0, 24);
			}
			t->pc = I_READ;
			continue;
		}
		}
}

/* ---- servers: font service, chain A -> B -> C, sound server, bus service ---- */

enum { F_LOOP, F_WOKE, F_NEXT, F_WORKED, F_CALLED, F_DISKED, F_SLEPT, F_REPLY };

/* role parameters: stk[0] idle, stk[1] work, stk[2] call / disk / sleep wait */
static void server_step(struct sim *s, struct sthread *t)
{
	struct desktop *d = s->d;
	int ci = t == d->chain[0] ? 0 : t == d->chain[1] ? 1 : t == d->chain[2] ? 2 : -1;
	for (;;)
		switch (t->pc) {
		case F_LOOP:
			poll_enter(s, t, NR_EPOLL_WAIT, -1, t->stk[0]);
			t->pc = F_WOKE;
			block(s, t, TASK_INTERRUPTIBLE, BIT(CH_IN), -1);
			return;
		case F_WOKE:
			poll_exit(s, t, NR_EPOLL_WAIT, 1);
			t->pc = F_NEXT;
			continue;
		case F_NEXT:
			if (!mb_pop(t, CH_IN, &t->cur)) {
				t->pc = F_LOOP;
				continue;
			}
			recv_sock(s, t, &t->cur, NR_RECVMSG, 128, false);
			if (t == d->svc)
				dbus_ev(s, t, ARGUS_EV_DBUS_RECV, &t->cur);
			t->pc = F_WORKED;
			compute(s, t,
			        t == d->fontd ? rnd(s, 300000, 2500000) : rnd(s, 100000, 900000),
			        t->stk[1]);
			return;
		case F_WORKED:
			if (ci == 0 || ci == 1) {
				struct sthread *nx = d->chain[ci + 1];
				struct msg m = {.anomaly = t->cur.anomaly};
				if (!send_sock(s, t, nx, CH_IN, m, NR_SENDMSG, 160)) {
					t->pc = F_REPLY;
					continue;
				}
				sys_enter(s, t, NR_RECVMSG, fd_of(nx->pid), ARGUS_OBJ_UNIX,
				          obj_sock(t->pid, nx->pid), obj_sock(nx->pid, t->pid),
				          4096, 0);
				stack_wait(s, t, t->stk[2]);
				t->pc = F_CALLED;
				block(s, t, TASK_INTERRUPTIBLE, BIT(CH_REPLY), -1);
				return;
			}
			if (ci == 2) {
				/* the last link writes its state and waits for the disk */
				uint64_t file = obj_kaddr(ARGUS_OBJ_FILE, 2);
				sys_enter(s, t, NR_FSYNC, 12, ARGUS_OBJ_FILE, file, 0, 0, 0);
				stack_wait(s, t, t->stk[2]);
				t->t0 = s->now;
				uint64_t lat = t->cur.anomaly ? rnd(s, 2400000000ULL, 2900000000ULL)
				                              : rnd(s, 200000, 3000000);
				heap_push(s, s->now + lat, H_DISK, t->idx, 0);
				t->pc = F_DISKED;
				block(s, t, TASK_UNINTERRUPTIBLE, BIT(CH_DISK), -1);
				return;
			}
			if (t == d->pa && t->cur.anomaly) {
				/* the reply that sets the app's flag is held back */
				int64_t ns = (int64_t)rnd(s, 2500000000ULL, 2900000000ULL);
				sys_enter(s, t, NR_CLOCK_NANOSLEEP, -1, ARGUS_OBJ_NONE, 0, 0, ns,
				          1);
				stack_wait(s, t, t->stk[2]);
				t->t0 = s->now;
				t->pc = F_SLEPT;
				block(s, t, TASK_INTERRUPTIBLE, 0, ns);
				return;
			}
			t->pc = F_REPLY;
			continue;
		case F_CALLED: {
			struct msg m;
			mb_pop(t, CH_REPLY, &m);
			recv_sock(s, t, &m, NR_RECVMSG, 320, true);
			t->pc = F_REPLY;
			compute(s, t, rnd(s, 50000, 300000), t->stk[1]);
			return;
		}
		case F_DISKED:
			t->pending &= ~BIT(CH_DISK);
			sys_exit(s, t, ARGUS_EV_SYS_EXIT, NR_FSYNC, 12, ARGUS_OBJ_FILE,
			         obj_kaddr(ARGUS_OBJ_FILE, 2), 0, 0);
			if (t->cur.anomaly)
				pend_root(s, t, t->t0, s->now, "udisks_state_flush_to_disk", "");
			t->pc = F_REPLY;
			compute(s, t, rnd(s, 50000, 200000), t->stk[1]);
			return;
		case F_SLEPT:
			sys_exit(s, t, ARGUS_EV_SYS_EXIT, NR_CLOCK_NANOSLEEP, -1, ARGUS_OBJ_NONE, 0,
			         0, 0);
			pend_root(s, t, t->t0, s->now, "alsa_sink_reopen_backoff", "");
			t->pc = F_REPLY;
			continue;
		case F_REPLY:
			if (t == d->pa) {
				/* replies go to the app's gdbus thread, which sets the flag */
				send_sock(s, t, d->app[t->cur.job % d->napps].gdbus, CH_REPLY,
				          (struct msg){0}, NR_SENDMSG, 64);
			} else if (t == d->svc) {
				struct msg m = {.kind = DBUS_RETURN,
				                .serial = t->cur.serial + 1,
				                .to = (uint16_t)t->cur.job};
				dbus_ev(s, t, ARGUS_EV_DBUS_SEND, &m);
				send_sock(s, t, d->dbus, CH_IN, m, NR_SENDMSG, 200);
			} else {
				send_sock(s, t, &s->th[t->cur.from], CH_REPLY, (struct msg){0},
				          NR_SENDMSG, t == d->fontd ? 512 : 320);
			}
			t->pc = F_NEXT;
			continue;
		}
}

/* ---- the message bus: one loop receives from many, forwards to many ---- */

enum { D_LOOP, D_WOKE, D_SEND };

static void dbus_step(struct sim *s, struct sthread *t)
{
	struct desktop *d = s->d;
	for (;;)
		switch (t->pc) {
		case D_LOOP:
			poll_enter(s, t, NR_EPOLL_WAIT, -1, t->stk[0]);
			t->pc = D_WOKE;
			block(s, t, TASK_INTERRUPTIBLE, BIT(CH_IN), -1);
			return;
		case D_WOKE:
			poll_exit(s, t, NR_EPOLL_WAIT, t->mb[CH_IN].n);
			t->n = 0;
			while (t->n < 8 && mb_pop(t, CH_IN, &t->batch[t->n])) {
				recv_sock(s, t, &t->batch[t->n], NR_RECVMSG, 200, false);
				t->n++;
			}
			t->pc = D_SEND;
			compute(s, t, (uint64_t)(t->n ? t->n : 1) * rnd(s, 15000, 45000),
			        t->stk[1]);
			return;
		case D_SEND:
			for (int i = 0; i < t->n; i++) {
				struct msg m = t->batch[i];
				if (m.kind == DBUS_SIGNAL) {
					for (uint32_t k = 0; k < d->napps && k < 4; k++)
						send_sock(s, t, d->app[k].gdbus, CH_IN, m,
						          NR_SENDMSG, 200);
				} else if (m.to < s->nth) {
					send_sock(s, t, &s->th[m.to], CH_IN, m, NR_SENDMSG, 200);
				}
			}
			t->pc = D_LOOP;
			continue;
		}
}

/* ---- an app's gdbus thread ---- */

enum { G_LOOP, G_WOKE, G_NEXT, G_POSTUI };
#define GD_MASK (BIT(CH_IN) | BIT(CH_ASYNC) | BIT(CH_REPLY))

static void gdbus_step(struct sim *s, struct sthread *t)
{
	struct desktop *d = s->d;
	struct app *a = &d->app[t->app];
	for (;;)
		switch (t->pc) {
		case G_LOOP:
			poll_enter(s, t, NR_POLL, -1, a->stk_gd_poll);
			t->pc = G_WOKE;
			block(s, t, TASK_INTERRUPTIBLE, GD_MASK, -1);
			return;
		case G_WOKE:
			poll_exit(s, t, NR_POLL, 1);
			t->pc = G_NEXT;
			continue;
		case G_NEXT: {
			int ch = pick(t, GD_MASK);
			if (ch == CH_ASYNC) {
				mb_pop(t, CH_ASYNC, &t->cur);
				recv_eventfd(s, t);
				uint64_t obj = obj_uaddr(a->pid, 0x800 + (t->cur.job & 0x3ff));
				async_ev(s, t, ARGUS_EV_ASYNC_RUN_BEGIN, ARGUS_ASYNC_INVOKE, obj,
				         a->ctx + 0x1000);
				struct msg m = {.kind = DBUS_CALL,
				                .serial = (++d->serial) * 2,
				                .to = d->svc->idx,
				                .job = t->idx};
				dbus_ev(s, t, ARGUS_EV_DBUS_SEND, &m);
				send_sock(s, t, d->dbus, CH_IN, m, NR_SENDMSG, 200);
				async_ev(s, t, ARGUS_EV_ASYNC_RUN_END, ARGUS_ASYNC_INVOKE, obj,
				         a->ctx + 0x1000);
				t->pc = G_NEXT;
				compute(s, t, rnd(s, 20000, 60000), a->stk_gd_work);
				return;
			}
			if (ch == CH_IN) {
				mb_pop(t, CH_IN, &t->cur);
				recv_sock(s, t, &t->cur, NR_RECVMSG, 200, false);
				dbus_ev(s, t, ARGUS_EV_DBUS_RECV, &t->cur);
				/* a reply, or some signals, update the UI from an idle callback */
				bool post = t->cur.kind == DBUS_RETURN ||
				            (t->cur.kind == DBUS_SIGNAL && chance(s, 0.35));
				t->pc = post ? G_POSTUI : G_NEXT;
				compute(s, t, rnd(s, 50000, 300000), a->stk_gd_work);
				return;
			}
			if (ch == CH_REPLY) {
				struct msg m;
				mb_pop(t, CH_REPLY, &m);
				recv_sock(s, t, &m, NR_RECVMSG, 64, false);
				struct argus_event *e = ev_thr(s, t, ARGUS_EV_FLAG_WRITE);
				e->flag.addr = a->flag_addr;
				e->flag.value = 1;
				e->flag.ip = 0x555555562345ULL;
				e->flag.len = 4;
				e->flag.watch_id = 1;
				a->flag = 1;
				t->pc = G_NEXT;
				compute(s, t, rnd(s, 10000, 40000), a->stk_gd_work);
				return;
			}
			t->pc = G_LOOP;
			continue;
		}
		case G_POSTUI: {
			struct msg m = {.job = ++d->job};
			async_ev(s, t, ARGUS_EV_ASYNC_POST, ARGUS_ASYNC_IDLE,
			         obj_uaddr(a->pid, 0x800 + (m.job & 0x3ff)), a->ctx);
			send_eventfd(s, t, a->ui, m);
			t->pc = G_NEXT;
			continue;
		}
		}
}

/* ---- the renderer: serves its app, and sometimes calls it synchronously ---- */

enum { R_INIT, R_LOOP, R_WOKE, R_REPLY, R_SYNC, R_SYNCED };

static void render_step(struct sim *s, struct sthread *t)
{
	struct desktop *d = s->d;
	struct sthread *ui = d->app[d->circ_app].ui;
	for (;;)
		switch (t->pc) {
		case R_INIT:
			timerfd_arm(s, t, rnd(s, 100000000, 400000000), 0);
			t->pc = R_LOOP;
			continue;
		case R_LOOP:
			poll_enter(s, t, NR_POLL, -1, t->stk[0]);
			t->pc = R_WOKE;
			block(s, t, TASK_INTERRUPTIBLE, BIT(CH_IN) | BIT(CH_TIMER), -1);
			return;
		case R_WOKE: {
			poll_exit(s, t, NR_POLL, 1);
			int ch = pick(t, BIT(CH_IN) | BIT(CH_TIMER));
			if (ch == CH_IN) {
				mb_pop(t, CH_IN, &t->cur);
				recv_sock(s, t, &t->cur, NR_RECVMSG, 128, false);
				t->pc = R_REPLY;
				compute(s, t, rnd(s, 300000, 1000000), t->stk[1]);
				return;
			}
			if (ch == CH_TIMER) {
				timerfd_read(s, t);
				t->cur.anomaly = d->render_anom;
				d->render_anom = false;
				timerfd_arm(s, t, rnd(s, 150000000, 400000000), 0);
				/* a normal sync call only while its app idles (no accidental
				 * deadlock) */
				bool go = t->cur.anomaly || !d->app[d->circ_app].busy;
				d->render_in_sync = go;
				t->pc = go ? R_SYNC : R_LOOP;
				compute(s, t, rnd(s, 50000, 150000), t->stk[1]);
				return;
			}
			t->pc = R_LOOP;
			continue;
		}
		case R_REPLY:
			send_sock(s, t, ui, CH_PEERREPLY, (struct msg){0}, NR_SENDMSG, 64);
			t->pc = R_LOOP;
			continue;
		case R_SYNC:
			t->t0 = s->now;
			if (!send_sock(s, t, ui, CH_PEERREQ, (struct msg){0}, NR_SENDMSG, 96)) {
				d->render_in_sync = false;
				t->pc = R_LOOP;
				continue;
			}
			sys_enter(s, t, NR_RECVMSG, fd_of(ui->pid), ARGUS_OBJ_UNIX,
			          obj_sock(t->pid, ui->pid), obj_sock(ui->pid, t->pid), 4096, 0);
			stack_wait(s, t, t->stk[2]);
			t->pc = R_SYNCED;
			block(s, t, TASK_INTERRUPTIBLE, BIT(CH_REPLY), -1);
			return;
		case R_SYNCED: {
			struct msg m;
			mb_pop(t, CH_REPLY, &m);
			recv_sock(s, t, &m, NR_RECVMSG, 64, true);
			d->render_in_sync = false;
			if (t->cur.anomaly)
				pend_root(s, t, t->t0, s->now,
				          "content::RenderFrameImpl::GetCookiesSync", "");
			t->pc = R_LOOP;
			compute(s, t, rnd(s, 100000, 300000), t->stk[1]);
			return;
		}
		}
}

/* ---- background: bus signal source, inotify watchers, decoy threads ---- */

enum { B_LOOP, B_WOKE, B_DONE };

static void bg_step(struct sim *s, struct sthread *t)
{
	struct desktop *d = s->d;
	bool house = t == d->house, extract = t == d->extract, power = t == d->power;
	for (;;)
		switch (t->pc) {
		case B_LOOP: {
			int64_t tmo = -1;
			t->k = 0;
			if (house)
				tmo = (int64_t)rnd(s, 300000000, 1500000000);
			else if (extract)
				tmo = (int64_t)rnd(s, 500000000, 2000000000);
			else if (power)
				tmo = (int64_t)rnd(s, 400000000, 1600000000);
			if (house && d->decoy_req == ARGUS_ANOMALY_DECOY_IDLE) {
				d->decoy_req = 0;
				t->k = 1;
				tmo = (int64_t)rnd(s, 4000000000ULL, 6000000000ULL);
			}
			poll_enter(s, t, NR_POLL, tmo, t->stk[0]);
			t->t0 = s->now;
			t->pc = B_WOKE;
			block(s, t, TASK_INTERRUPTIBLE, BIT(CH_IN), tmo);
			return;
		}
		case B_WOKE:
			if (t->wake_reason == W_TIMEOUT) {
				poll_exit(s, t, NR_POLL, 0);
			} else {
				poll_exit(s, t, NR_POLL, 1);
				t->pending &= ~BIT(CH_IN);
				/* then reads the inotify event: a file read, not traced */
			}
			if (t->k) {
				d->pend.t.kind = ARGUS_ANOMALY_DECOY_IDLE;
				d->pend.t.stall_start = t->t0;
				d->pend.t.stall_end = s->now;
				pend_root(s, t, t->t0, s->now, "housekeeping_idle_wait", "");
			}
			if (power) {
				struct msg m = {.kind = DBUS_SIGNAL, .serial = (++d->serial) * 2};
				dbus_ev(s, t, ARGUS_EV_DBUS_SEND, &m);
				send_sock(s, t, d->dbus, CH_IN, m, NR_SENDMSG, 180);
			}
			t->k = 0;
			if (extract && d->decoy_req == ARGUS_ANOMALY_DECOY_BUSY) {
				d->decoy_req = 0;
				t->k = 1;
			}
			t->t0 = s->now;
			t->pc = B_DONE;
			compute(s, t,
			        t->k      ? rnd(s, 3000000000ULL, 3500000000ULL)
			        : extract ? rnd(s, 3000000, 40000000)
			                  : rnd(s, 20000, 200000),
			        t->stk[1]);
			return;
		case B_DONE:
			if (t->k) {
				d->pend.t.kind = ARGUS_ANOMALY_DECOY_BUSY;
				d->pend.t.stall_start = t->t0;
				d->pend.t.stall_end = s->now;
				pend_root(s, t, t->t0, s->now, "tracker_extract_pdf_text", "");
			}
			t->pc = B_LOOP;
			continue;
		}
}

/* ---- the shell: property changes on the bus at the activity the options ask ---- */

enum { S_INIT, S_LOOP, S_WOKE };

static void shell_step(struct sim *s, struct sthread *t)
{
	struct desktop *d = s->d;
	for (;;)
		switch (t->pc) {
		case S_INIT:
			timerfd_arm(s, t, 1000000, 0);
			t->pc = S_LOOP;
			continue;
		case S_LOOP:
			poll_enter(s, t, NR_POLL, -1, t->stk[0]);
			t->pc = S_WOKE;
			block(s, t, TASK_INTERRUPTIBLE, BIT(CH_TIMER), -1);
			return;
		case S_WOKE: {
			poll_exit(s, t, NR_POLL, 1);
			timerfd_read(s, t);
			/* below the requested activity: emit sooner */
			/* integers only: the same decisions on every machine and compiler */
			bool behind = (s->emitted + s->nbuf) * 1000000000ULL <
			              (uint64_t)s->o.rate * (s->now - s->t0 + 1);
			timerfd_arm(s, t,
			            behind ? rnd(s, 100000, 500000) : rnd(s, 4000000, 30000000), 0);
			if (behind) {
				struct msg m = {.kind = DBUS_SIGNAL, .serial = (++d->serial) * 2};
				dbus_ev(s, t, ARGUS_EV_DBUS_SEND, &m);
				send_sock(s, t, d->dbus, CH_IN, m, NR_SENDMSG, 220);
			}
			t->pc = S_LOOP;
			compute(s, t, rnd(s, 20000, 120000), t->stk[1]);
			return;
		}
		}
}

/* ---- kernel workers ---- */

enum { K_IDLE, K_WOKE, K_DO };

static void kworker_step(struct sim *s, struct sthread *t)
{
	struct desktop *d = s->d;
	for (;;)
		switch (t->pc) {
		case K_IDLE:
			t->pc = K_WOKE;
			block(s, t, TASK_INTERRUPTIBLE, BIT(CH_IN), -1);
			return;
		case K_WOKE:
			t->pending &= ~BIT(CH_IN);
			t->pc = K_DO;
			compute(s, t, rnd(s, 5000, 25000), 0);
			return;
		case K_DO:
			if (t->k) {
				/* delegated kernel work wakes a task with no message of ours:
				 * a wake-up that is not a communication (ambiguous) */
				struct sthread *w = d->watch[t->k - 1];
				if (w->state == T_BLOCKED)
					wake(s, t, w, CH_IN, true);
				t->k = 0;
			}
			t->pc = K_IDLE;
			compute(s, t, rnd(s, 2000, 6000), 0);
			return;
		}
}

/* ---- the user, interrupts, the plan ---- */

static void input_irq(struct sim *s, struct app *a, uint8_t scen, uint8_t kind, bool anomaly)
{
	struct desktop *d = s->d;
	struct argus_event *e = ev_cpu(s, 0, ARGUS_F_HARDIRQ, ARGUS_EV_IRQ_ENTRY);
	e->irq.irq = 33;
	e->irq.name_str = d->irq_input_str;
	struct msg m = {.to = a->ui->idx,
	                .kind = kind,
	                .scen = scen,
	                .anomaly = anomaly,
	                .serial = ++d->serial};
	if (mb_push(d->input, CH_IN, &m))
		wake_irq(s, 0, ARGUS_F_HARDIRQ, d->input, CH_IN);
	e = ev_cpu(s, 0, ARGUS_F_HARDIRQ, ARGUS_EV_IRQ_EXIT);
	e->irq.irq = 33;
	e->irq.ret = 1;
	e->irq.name_str = d->irq_input_str;
	if (anomaly)
		a->stalled = true;
}

static bool app_free(const struct app *a)
{
	return !a->busy && !a->stalled && a->ui->mb[CH_IN].n < 2;
}

static void user_input(struct sim *s)
{
	struct desktop *d = s->d;
	if (chance(s, 0.02))
		d->focus = (uint32_t)rnd(s, 0, d->napps - 1);
	struct app *a = &d->app[d->focus];
	if (!app_free(a) || a->ui->mb[CH_IN].n)
		return; /* the user waits for the app */
	uint64_t r = rnd(s, 0, 99);
	if (r < 55) {
		input_irq(s, a, SC_SIMPLE, ARGUS_UI_MOTION, false);
		return;
	}
	static const uint8_t weights[NSC] = {30, 15, 15, 10, 8, 6, 5, 6, 5};
	uint64_t w = rnd(s, 0, 99), acc = 0;
	uint8_t sc = SC_SIMPLE;
	for (uint8_t i = 0; i < NSC; i++) {
		acc += weights[i];
		if (w < acc) {
			sc = i;
			break;
		}
	}
	if (sc == SC_CIRC && (d->focus != d->circ_app || d->render_in_sync))
		sc = SC_SIMPLE;
	input_irq(s, a, sc, r < 85 ? ARGUS_UI_KEY : ARGUS_UI_BUTTON, false);
}

static const uint8_t scen_of[8] = {
    [ARGUS_ANOMALY_LONG_RUNNING] = SC_LONG,     [ARGUS_ANOMALY_LONG_WAIT_CHAIN] = SC_CHAIN,
    [ARGUS_ANOMALY_CIRCULAR_TIMEOUT] = SC_CIRC, [ARGUS_ANOMALY_MISSING_WAKEUP] = SC_COND,
    [ARGUS_ANOMALY_YIELD_LOOP] = SC_YIELD,
};

static void plan_tick(struct sim *s)
{
	struct desktop *d = s->d;
	if (d->inflight || d->next >= d->total)
		return;
	/* anomaly i is due at 12 % + 80 % * i / total of the record budget */
	uint64_t out = s->emitted + s->nbuf;
	uint64_t due = s->o.events * (120ULL * d->total + 800ULL * d->next) / (1000ULL * d->total);
	if (out < due)
		return;
	uint32_t k = d->order[d->next % d->nk];
	/* will the episode fit in what is left? (at the rate so far; the decoy
	 * idle wait is the longest: up to 1.5 s to begin, 6 s long) */
	uint64_t ms = k == ARGUS_ANOMALY_DECOY_IDLE ? 9000 : 5000;
	uint64_t need = out * ms / ((s->now - s->t0) / 1000000 + 1) + 2000;
	if (out + need > s->o.events) {
		s->st.skipped++;
		d->next++;
		return;
	}
	memset(&d->pend, 0, sizeof(d->pend));
	if (k == ARGUS_ANOMALY_DECOY_IDLE || k == ARGUS_ANOMALY_DECOY_BUSY) {
		d->decoy_req = k;
		d->pend.need = 1;
		d->inflight = k;
		d->next++;
		return;
	}
	struct app *a =
	    &d->app[k == ARGUS_ANOMALY_CIRCULAR_TIMEOUT ? d->circ_app : (k - 1) % d->napps];
	uint8_t sc = scen_of[k];
	if (!app_free(a) || a->ui->mb[CH_IN].n || (sc == SC_CIRC && d->render_in_sync))
		return;
	if (a->done[sc] < BASELINES) {
		input_irq(s, a, sc, ARGUS_UI_KEY, false); /* a normal run first */
		return;
	}
	d->pend.need = 2; /* the UI part and the root-cause part */
	d->inflight = k;
	d->next++;
	a->done[sc] = 0; /* the next anomaly of this kind gets fresh baselines */
	input_irq(s, a, sc, ARGUS_UI_KEY, true);
}

static void tick(struct sim *s, unsigned c)
{
	struct desktop *d = s->d;
	if (s->cpu[c].cur && chance(s, 0.3)) {
		unsigned vec = chance(s, 0.5) ? 1 : 9; /* TIMER, RCU */
		ev_cpu(s, c, ARGUS_F_SOFTIRQ, ARGUS_EV_SOFTIRQ_ENTRY)->irq.irq = vec;
		ev_cpu(s, c, ARGUS_F_SOFTIRQ, ARGUS_EV_SOFTIRQ_EXIT)->irq.irq = vec;
	}
	if (c == 0 && chance(s, 0.03)) {
		struct argus_event *e = ev_cpu(s, c, ARGUS_F_HARDIRQ, ARGUS_EV_IRQ_ENTRY);
		e->irq.irq = 130;
		e->irq.name_str = d->irq_net_str;
		e = ev_cpu(s, c, ARGUS_F_HARDIRQ, ARGUS_EV_IRQ_EXIT);
		e->irq.irq = 130;
		e->irq.ret = 1;
		e->irq.name_str = d->irq_net_str;
		ev_cpu(s, c, ARGUS_F_SOFTIRQ, ARGUS_EV_SOFTIRQ_ENTRY)->irq.irq = 3;
		ev_cpu(s, c, ARGUS_F_SOFTIRQ, ARGUS_EV_SOFTIRQ_EXIT)->irq.irq = 3;
	}
}

/* Kernel work queued from a timer softirq; when ambiguous wake-ups are short
 * of the target share, the work wakes an inotify watcher. */
static uint64_t background(struct sim *s)
{
	struct desktop *d = s->d;
	bool need = need_ambiguous(s) && s->o.ambiguous > 0;
	if (!need && !chance(s, 0.05))
		return rnd(s, 300000, 900000);
	unsigned c = (unsigned)rnd(s, 0, s->ncpu - 1);
	struct sthread *kw = d->kw[c];
	if (kw->state != T_BLOCKED)
		return 100000;
	if (need) {
		unsigned w = (unsigned)rnd(s, 0, 1);
		if (d->watch[w]->state != T_BLOCKED)
			w ^= 1;
		kw->k = d->watch[w]->state == T_BLOCKED ? (int)w + 1 : 0;
	}
	ev_cpu(s, c, ARGUS_F_SOFTIRQ, ARGUS_EV_SOFTIRQ_ENTRY)->irq.irq = 1;
	wake_irq(s, c, ARGUS_F_SOFTIRQ, kw, CH_IN);
	ev_cpu(s, c, ARGUS_F_SOFTIRQ, ARGUS_EV_SOFTIRQ_EXIT)->irq.irq = 1;
	return need ? rnd(s, 60000, 250000) : rnd(s, 300000, 900000);
}

static void disk_done(struct sim *s, struct sthread *t)
{
	struct desktop *d = s->d;
	unsigned c = 1 % s->ncpu;
	struct argus_event *e = ev_cpu(s, c, ARGUS_F_HARDIRQ, ARGUS_EV_IRQ_ENTRY);
	e->irq.irq = 41;
	e->irq.name_str = d->irq_disk_str;
	e = ev_cpu(s, c, ARGUS_F_HARDIRQ, ARGUS_EV_IRQ_EXIT);
	e->irq.irq = 41;
	e->irq.ret = 1;
	e->irq.name_str = d->irq_disk_str;
	ev_cpu(s, c, ARGUS_F_SOFTIRQ, ARGUS_EV_SOFTIRQ_ENTRY)->irq.irq = 4; /* BLOCK */
	wake_irq(s, c, ARGUS_F_SOFTIRQ, t, CH_DISK);
	ev_cpu(s, c, ARGUS_F_SOFTIRQ, ARGUS_EV_SOFTIRQ_EXIT)->irq.irq = 4;
}

static void timerfd_fire(struct sim *s, struct sthread *t)
{
	uint64_t at = s->now;
	struct argus_event *e = ev_cpu(s, t->cpu, ARGUS_F_HARDIRQ, ARGUS_EV_TIMER_FIRE);
	e->timer.obj = timerfd_of(t);
	e->timer.expires_ns = at;
	e->timer.fd = 5;
	e->timer.kind = ARGUS_TIMER_TIMERFD;
	wake_irq(s, t->cpu, ARGUS_F_HARDIRQ, t, CH_TIMER);
}

void desktop_event(struct sim *s, const struct hitem *h)
{
	struct desktop *d = s->d;
	switch (h->kind) {
	case H_USER:
		user_input(s);
		heap_push(s, s->now + rnd(s, 8000000, 70000000), H_USER, 0, 0);
		break;
	case H_PLAN:
		plan_tick(s);
		heap_push(s, s->now + 10000000, H_PLAN, 0, 0);
		break;
	case H_TICK:
		tick(s, h->a);
		heap_push(s, s->now + 4000000, H_TICK, h->a, 0);
		break;
	case H_BG:
		heap_push(s, s->now + background(s), H_BG, 0, 0);
		break;
	case H_DISK:
		disk_done(s, &s->th[h->a]);
		break;
	case H_TIMERFD:
		/* only the latest arming fires (the plan may fire one early) */
		if (h->gen == (uint32_t)s->th[h->a].t2) {
			s->th[h->a].t2++;
			timerfd_fire(s, &s->th[h->a]);
		}
		break;
	default:
		break;
	}
	(void)d;
}

/* ---- building the desktop ---- */

static const char *const app_names[] = {"gedit",          "nautilus", "chromium",         "evince",
                                        "gnome-terminal", "totem",    "gnome-calculator", "eog"};
static const char *const app_prefix[] = {"gedit",    "nautilus", "chrome", "ev",
                                         "terminal", "totem",    "calc",   "eog"};

#define MAIN_TAIL                                                                                  \
	"|glib:g_main_context_iterate|glib:g_main_loop_run|gtk:gtk_main|exe:main|libc:__libc_"     \
	"start_main"
#define DISPATCH_TAIL                                                                              \
	"|gtk:gtk_main_do_event|gdk:_gdk_event_emit|gdk:gdk_event_source_dispatch|glib:g_main_"    \
	"context_dispatch" MAIN_TAIL
#define THREAD_TAIL "|glib:g_thread_proxy|libc:start_thread|libc:__clone3"
#define SRV_TAIL    "|glib:g_main_context_iterate|glib:g_main_loop_run|exe:main|libc:__libc_start_main"

static struct sthread *mk(struct sim *s, struct sproc *p, const char *comm, step_fn fn,
                          unsigned *cpu)
{
	struct sthread *t = world_thread(s, p, comm, (*cpu)++);
	if (t)
		t->step = fn;
	return t;
}

static struct sproc *daemon1(struct sim *s, const char *comm, const char *exe, step_fn fn,
                             unsigned *cpu, struct sthread **out)
{
	struct sproc *p = world_proc(s, comm, exe, 1, false);
	*out = p ? mk(s, p, comm, fn, cpu) : NULL;
	return *out ? p : NULL;
}

int desktop_init(struct sim *s)
{
	struct desktop *d = calloc(1, sizeof(*d));
	if (!d)
		return ARGUS_SYNTH_ENOMEM;
	s->d = d;
	d->napps = s->o.apps;
	unsigned cpu = 0;
	char name[32];

	s->next_pid = 40;
	for (unsigned c = 0; c < s->ncpu; c++) {
		snprintf(name, sizeof(name), "kworker/%u:1", c);
		struct sproc *p = world_proc(s, name, NULL, 2, true);
		unsigned kc = c;
		d->kw[c] = p ? mk(s, p, name, kworker_step, &kc) : NULL;
		if (!d->kw[c])
			return ARGUS_SYNTH_ENOMEM;
	}
	s->next_pid = 700 + (uint32_t)rnd(s, 0, 300);

	struct sproc *px = world_proc(s, "Xorg", "/usr/lib/xorg/Xorg", 1, false);
	if (!px)
		return ARGUS_SYNTH_ENOMEM;
	d->xorg = mk(s, px, "Xorg", xorg_step, &cpu);
	d->input = mk(s, px, "InputThread", input_step, &cpu);
	if (!d->xorg || !d->input)
		return ARGUS_SYNTH_ENOMEM;
	d->xorg->stk[0] = stk(s, d->xorg,
	                      "libc:epoll_wait|exe:ospoll_wait|exe:WaitForSomething|exe:Dispatch|"
	                      "exe:dix_main|libc:__libc_start_main",
	                      "");
	d->xorg->stk[1] = stk(s, d->xorg,
	                      "exe:DeliverDeviceEvents|exe:ProcessDeviceEvent|exe:"
	                      "ProcessInputEvents|exe:Dispatch|exe:dix_main|libc:__libc_start_main",
	                      "");
	d->xorg->stk[2] = stk(s, d->xorg,
	                      "exe:fbComposite|exe:damageComposite|exe:ProcRenderComposite|exe:"
	                      "Dispatch|exe:dix_main|libc:__libc_start_main",
	                      "");
	d->input->stk[0] = stk(
	    s, d->input,
	    "libc:epoll_wait|exe:ospoll_wait|exe:InputThreadDoWork|libc:start_thread|libc:__clone3",
	    "");
	d->input->stk[1] = stk(s, d->input,
	                       "exe:EvdevReadInput|exe:xf86ReadInput|exe:InputThreadDoWork|libc:"
	                       "start_thread|libc:__clone3",
	                       "");

	if (!daemon1(s, "dbus-daemon", "/usr/bin/dbus-daemon", dbus_step, &cpu, &d->dbus))
		return ARGUS_SYNTH_ENOMEM;
	d->dbus->stk[0] = stk(s, d->dbus,
	                      "libc:epoll_wait|dbus:_dbus_loop_iterate|dbus:_dbus_loop_run|exe:"
	                      "main|libc:__libc_start_main",
	                      "");
	d->dbus->stk[1] = stk(s, d->dbus,
	                      "exe:bus_dispatch_matches|exe:bus_dispatch|exe:bus_dispatch_message_"
	                      "filter|dbus:dbus_connection_dispatch|dbus:_dbus_loop_iterate|dbus:_"
	                      "dbus_loop_run|exe:main|libc:__libc_start_main",
	                      "");

	if (!daemon1(s, "fontd", "/usr/libexec/fontd", server_step, &cpu, &d->fontd))
		return ARGUS_SYNTH_ENOMEM;
	d->fontd->stk[0] =
	    stk(s, d->fontd,
	        "libc:epoll_wait|exe:fontd_server_loop|exe:main|libc:__libc_start_main", "");
	d->fontd->stk[1] = stk(s, d->fontd,
	                       "fc:FcFontSetMatchInternal|fc:FcFontMatch|exe:fontd_handle_match|"
	                       "exe:fontd_server_loop|exe:main|libc:__libc_start_main",
	                       "");

	static const char *const chain_comm[3] = {"tracker-miner-f", "gvfsd-metadata", "udisksd"};
	static const char *const chain_exe[3] = {"/usr/libexec/tracker-miner-fs-3",
	                                         "/usr/libexec/gvfsd-metadata",
	                                         "/usr/libexec/udisks2/udisksd"};
	static const char *const chain_work[3] = {
	    "exe:tracker_miner_fs_handle_query|gio:g_dbus_connection_call_sync_internal" SRV_TAIL,
	    "exe:meta_tree_lookup_by_path|exe:handle_get_metadata" SRV_TAIL,
	    "exe:udisks_state_check_mounted_fs|exe:udisks_state_check" SRV_TAIL};
	static const char *const chain_wait[3] = {
	    "libc:recvmsg|exe:tracker_miner_fs_query_metadata_sync|exe:tracker_miner_fs_handle_"
	    "query" SRV_TAIL,
	    "libc:recvmsg|exe:meta_tree_refresh_from_udisks_sync|exe:handle_get_metadata" SRV_TAIL,
	    "libc:fsync|exe:udisks_state_flush_to_disk|exe:udisks_state_check_mounted_fs|exe:"
	    "udisks_state_check" SRV_TAIL};
	for (int i = 0; i < 3; i++) {
		if (!daemon1(s, chain_comm[i], chain_exe[i], server_step, &cpu, &d->chain[i]))
			return ARGUS_SYNTH_ENOMEM;
		d->chain[i]->stk[0] =
		    stk(s, d->chain[i], "libc:__poll|glib:g_main_context_poll" SRV_TAIL, "");
		d->chain[i]->stk[1] = stk(s, d->chain[i], chain_work[i], "");
		d->chain[i]->stk[2] = stk(s, d->chain[i], chain_wait[i], "");
	}

	if (!daemon1(s, "pulseaudio", "/usr/bin/pulseaudio", server_step, &cpu, &d->pa))
		return ARGUS_SYNTH_ENOMEM;
	d->pa->stk[0] = stk(s, d->pa,
	                    "libc:__poll|pulse:pa_mainloop_poll|pulse:pa_mainloop_iterate|pulse:pa_"
	                    "mainloop_run|exe:main|libc:__libc_start_main",
	                    "");
	d->pa->stk[1] =
	    stk(s, d->pa,
	        "exe:sink_process_msg|pulse:pa_asyncmsgq_dispatch|pulse:pa_mainloop_dispatch|pulse:"
	        "pa_mainloop_iterate|pulse:pa_mainloop_run|exe:main|libc:__libc_start_main",
	        "");
	d->pa->stk[2] = stk(
	    s, d->pa,
	    "libc:clock_nanosleep|pulse:pa_msleep|exe:alsa_sink_reopen_backoff|exe:sink_process_"
	    "msg|pulse:pa_asyncmsgq_dispatch|pulse:pa_mainloop_run|exe:main|libc:__libc_start_main",
	    "");

	if (!daemon1(s, "gsd-color", "/usr/libexec/gsd-color", server_step, &cpu, &d->svc))
		return ARGUS_SYNTH_ENOMEM;
	d->svc->stk[0] = stk(s, d->svc, "libc:__poll|glib:g_main_context_poll" SRV_TAIL, "");
	d->svc->stk[1] = stk(s, d->svc,
	                     "exe:gsd_color_state_get_profile|gio:g_dbus_connection_dispatch|glib:"
	                     "g_main_context_dispatch" SRV_TAIL,
	                     "");

	if (!daemon1(s, "gsd-power", "/usr/libexec/gsd-power", bg_step, &cpu, &d->power))
		return ARGUS_SYNTH_ENOMEM;
	d->power->stk[0] = stk(s, d->power, "libc:__poll|glib:g_main_context_poll" SRV_TAIL, "");
	d->power->stk[1] = stk(s, d->power,
	                       "exe:engine_recalculate_state|exe:engine_device_changed_cb|glib:g_"
	                       "main_context_dispatch" SRV_TAIL,
	                       "");
	static const char *const watch_comm[2] = {"gvfsd-trash", "tracker-miner-r"};
	for (int i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "/usr/libexec/%s", watch_comm[i]);
		if (!daemon1(s, watch_comm[i], name, bg_step, &cpu, &d->watch[i]))
			return ARGUS_SYNTH_ENOMEM;
		d->watch[i]->stk[0] =
		    stk(s, d->watch[i], "libc:__poll|glib:g_main_context_poll" SRV_TAIL, "");
		d->watch[i]->stk[1] = stk(s, d->watch[i],
		                          "exe:file_changed_cb|gio:g_file_monitor_emit_event|glib:"
		                          "g_main_context_dispatch" SRV_TAIL,
		                          "");
	}
	if (!daemon1(s, "gnome-shell", "/usr/bin/gnome-shell", shell_step, &cpu, &d->shell))
		return ARGUS_SYNTH_ENOMEM;
	d->shell->stk[0] = stk(s, d->shell, "libc:__poll|glib:g_main_context_poll" SRV_TAIL, "");
	d->shell->stk[1] = stk(s, d->shell,
	                       "exe:shell_global_sync_properties|gio:g_dbus_connection_emit_signal|"
	                       "glib:g_main_context_dispatch" SRV_TAIL,
	                       "");
	if (!daemon1(s, "gsd-housekeepin", "/usr/libexec/gsd-housekeeping", bg_step, &cpu,
	             &d->house))
		return ARGUS_SYNTH_ENOMEM;
	d->house->stk[0] =
	    stk(s, d->house,
	        "libc:__poll|glib:g_main_context_poll|exe:housekeeping_idle_wait" SRV_TAIL, "");
	d->house->stk[1] = stk(
	    s, d->house,
	    "exe:purge_old_thumbnails|exe:do_cleanup|glib:g_main_context_dispatch" SRV_TAIL, "");
	if (!daemon1(s, "tracker-extract", "/usr/libexec/tracker-extract-3", bg_step, &cpu,
	             &d->extract))
		return ARGUS_SYNTH_ENOMEM;
	d->extract->stk[0] =
	    stk(s, d->extract, "libc:__poll|glib:g_main_context_poll" SRV_TAIL, "");
	d->extract->stk[1] = stk(s, d->extract,
	                         "exe:tracker_extract_pdf_text|exe:tracker_extract_file|glib:g_"
	                         "task_thread_pool_thread" THREAD_TAIL,
	                         "");

	d->circ_app = 2 % d->napps;
	for (uint32_t i = 0; i < d->napps; i++) {
		struct app *a = &d->app[i];
		unsigned n = i % 8;
		const char *base = app_names[n];
		char comm[32], exe[64];
		if (i < 8) {
			snprintf(comm, sizeof(comm), "%s", base);
			snprintf(a->prefix, sizeof(a->prefix), "%s", app_prefix[n]);
		} else {
			snprintf(comm, sizeof(comm), "%.12s-%u", base, i / 8);
			snprintf(a->prefix, sizeof(a->prefix), "%s%u", app_prefix[n], i / 8);
		}
		snprintf(exe, sizeof(exe), "/usr/bin/%s", comm);
		struct sproc *p = world_proc(s, comm, exe, 1, false);
		if (!p)
			return ARGUS_SYNTH_ENOMEM;
		a->pid = p->pid;
		a->ui = mk(s, p, comm, ui_step, &cpu);
		a->gdbus = mk(s, p, "gdbus", gdbus_step, &cpu);
		a->w[0] = mk(s, p, "pool-0", worker_step, &cpu);
		a->w[1] = mk(s, p, "pool-1", worker_step, &cpu);
		if (!a->ui || !a->gdbus || !a->w[0] || !a->w[1])
			return ARGUS_SYNTH_ENOMEM;
		a->ui->app = a->gdbus->app = a->w[0]->app = a->w[1]->app = (uint8_t)i;
		a->ctx = obj_uaddr(a->pid, 1);
		a->pool = obj_uaddr(a->pid, 2);
		a->pool_cond = obj_uaddr(a->pid, 3);
		a->pool_mutex = obj_uaddr(a->pid, 4);
		a->result_cond = obj_uaddr(a->pid, 5);
		a->flag_addr = obj_uaddr(a->pid, 6);
		struct sthread *u = a->ui;
		const char *pf = a->prefix;
		a->stk_poll = stk(s, u, "libc:__poll|glib:g_main_context_poll" MAIN_TAIL, pf);
		a->stk_handler = stk(s, u,
		                     "exe:@_view_insert_text|gtk:gtk_text_buffer_insert|exe:@_view_"
		                     "key_press_event|gtk:gtk_widget_event" DISPATCH_TAIL,
		                     pf);
		a->stk_long = stk(s, u,
		                  "exe:@_search_match_line|exe:@_search_scan_buffer|exe:@_document_"
		                  "search_all|exe:@_on_find_activate|gobject:g_closure_invoke|"
		                  "gobject:g_signal_emit_valist|gtk:gtk_widget_event" DISPATCH_TAIL,
		                  pf);
		a->stk_font = stk(s, u,
		                  "libc:recvmsg|fc:FcFontMatch|pango:pango_fc_font_map_load_"
		                  "fontset|pango:pango_layout_check_lines|gtk:gtk_label_get_"
		                  "preferred_size|gtk:gtk_widget_event" DISPATCH_TAIL,
		                  pf);
		a->stk_chain = stk(s, u,
		                   "libc:recvmsg|gio:g_dbus_connection_send_message_with_reply_"
		                   "sync|exe:@_metadata_query_sync|exe:@_file_info_refresh|gtk:gtk_"
		                   "widget_event" DISPATCH_TAIL,
		                   pf);
		a->stk_circ = stk(s, u,
		                  "libc:__poll|exe:IPC::SyncChannel::Send|exe:@_render_host_sync_"
		                  "call|exe:@_on_key_event|gtk:gtk_widget_event" DISPATCH_TAIL,
		                  pf);
		a->stk_cond = stk(s, u,
		                  "libc:__futex_abstimed_wait_common|libc:pthread_cond_timedwait|"
		                  "glib:g_cond_wait_until|exe:@_thumbnail_wait_result|exe:@_icon_"
		                  "view_draw|gtk:gtk_widget_event" DISPATCH_TAIL,
		                  pf);
		a->stk_yield = stk(s, u,
		                   "exe:@_audio_wait_ready|exe:@_on_play_clicked|gobject:g_signal_"
		                   "emit_valist|gtk:gtk_widget_event" DISPATCH_TAIL,
		                   pf);
		a->stk_idle_cb = stk(s, u,
		                     "exe:@_update_thumbnails_idle|glib:g_idle_dispatch|glib:g_"
		                     "main_context_dispatch" MAIN_TAIL,
		                     pf);
		a->stk_blink = stk(
		    s, u,
		    "gtk:blink_cb|glib:g_timeout_dispatch|glib:g_main_context_dispatch" MAIN_TAIL,
		    pf);
		a->stk_w_idle =
		    stk(s, a->w[0],
		        "libc:__futex_abstimed_wait_common|libc:pthread_cond_wait|glib:g_cond_wait|"
		        "glib:g_async_queue_pop_intern_unlocked|glib:g_thread_pool_wait_for_new_"
		        "task|glib:g_thread_pool_thread_proxy" THREAD_TAIL,
		        pf);
		a->stk_w_mutex = stk(
		    s, a->w[0],
		    "libc:__lll_lock_wait|libc:pthread_mutex_lock|glib:g_mutex_lock|glib:g_async_"
		    "queue_pop_intern_unlocked|glib:g_thread_pool_thread_proxy" THREAD_TAIL,
		    pf);
		a->stk_job = stk(s, a->w[0],
		                 "exe:@_thumbnail_job_run|exe:@_thumbnail_scale|glib:g_thread_pool_"
		                 "thread_proxy" THREAD_TAIL,
		                 pf);
		a->stk_gd_poll =
		    stk(s, a->gdbus,
		        "libc:__poll|glib:g_main_context_poll|glib:g_main_context_iterate|glib:g_"
		        "main_loop_run|gio:gdbus_shared_thread_func" THREAD_TAIL,
		        pf);
		a->stk_gd_work = stk(s, a->gdbus,
		                     "gio:_g_dbus_worker_do_read_cb|gio:g_dbus_worker_emit_message|"
		                     "glib:g_main_context_dispatch|glib:g_main_loop_run|gio:gdbus_"
		                     "shared_thread_func" THREAD_TAIL,
		                     pf);
		if (i == d->circ_app) {
			if (!daemon1(s, "renderer", exe, render_step, &cpu, &d->render))
				return ARGUS_SYNTH_ENOMEM;
			struct sthread *r = d->render;
			r->stk[0] = stk(s, r,
			                "libc:__poll|exe:base::MessagePumpLibevent::Run|exe:"
			                "content::RendererMain|exe:main|libc:__libc_start_main",
			                "");
			r->stk[1] =
			    stk(s, r,
			        "exe:blink::Document::UpdateStyleAndLayout|exe:content::"
			        "RenderFrameImpl::OnMessageReceived|exe:base::MessagePumpLibevent::"
			        "Run|exe:content::RendererMain|exe:main|libc:__libc_start_main",
			        "");
			r->stk[2] = stk(s, r,
			                "libc:recvmsg|exe:IPC::SyncChannel::Send|exe:content::"
			                "RenderFrameImpl::GetCookiesSync|exe:blink::Document::"
			                "cookie|exe:base::MessagePumpLibevent::Run|exe:content::"
			                "RendererMain|exe:main|libc:__libc_start_main",
			                "");
		}
	}
	d->irq_input_str = world_string(s, "xhci_hcd");
	d->irq_disk_str = world_string(s, "nvme0q1");
	d->irq_net_str = world_string(s, "iwlwifi");
	d->member_str = world_string(s, "org.gnome.SettingsDaemon.Color.GetProfile");
	d->dest_str = world_string(s, "org.gnome.SettingsDaemon.Color");
	d->signal_str = world_string(s, "org.freedesktop.DBus.Properties.PropertiesChanged");
	d->power_str = world_string(s, "org.gnome.SettingsDaemon.Power");
	d->src_str = world_string(s, "GdkFrameClockIdle");

	/* the plan: anomalies in kind order, spread over the record budget; a
	 * long trace repeats the round (one round per 12 s of desktop per kind) */
	for (uint32_t k = 1; k <= 7; k++)
		if (s->o.anomalies & ARGUS_SYNTH_ANOMALY(k))
			d->order[d->nk++] = k;
	uint64_t rounds = d->nk ? s->o.events / (d->nk * 12ULL * s->o.rate) : 0;
	d->total = d->nk * (uint32_t)(rounds < 1 ? 1 : rounds > 64 ? 64 : rounds);
	d->focus = 0;
	return 0;
}

/* After world_publish: threads start, periodic sources begin. */
void desktop_start(struct sim *s)
{
	for (uint32_t i = 0; i < s->nth; i++)
		thread_start(s, &s->th[i]);
	heap_push(s, s->now + 5000000, H_USER, 0, 0);
	heap_push(s, s->now + 10000000, H_PLAN, 0, 0);
	heap_push(s, s->now + 300000, H_BG, 0, 0);
	for (unsigned c = 0; c < s->ncpu; c++)
		heap_push(s, s->now + 1000000 + c * 977, H_TICK, (uint16_t)c, 0);
}

void desktop_free(struct sim *s)
{
	free(s->d);
	s->d = NULL;
}
