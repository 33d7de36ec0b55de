/*
 * synth_apps.c - a GUI application: its UI thread (a GLib-like main loop
 * and the handlers of the UI scenarios, normal or anomalous), its worker
 * pool (condition variables, broadcasts, mutex hand-offs) and its gdbus
 * thread (D-Bus calls, signals, the flag of the yield loop).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth_desktop.h"

/* ---- the worker pool of an app ---- */

static void sy_pool_post(struct sim *s, struct sthread *t, struct app *a, struct msg job)
{
	if (a->jn == 16)
		return;
	a->jobs[(a->jhead + a->jn++) % 16] = job;
	struct sthread *idle[2];
	unsigned n = 0, woken = 0;
	for (int i = 0; i < 2; i++)
		if (a->w[i]->state == T_BLOCKED && (a->w[i]->waitmask & BIT(CH_IN)))
			idle[n++] = a->w[i];
	if (n == 2 && sy_need_ambiguous(s)) {
		/* g_cond_broadcast: every idle worker races for the job */
		sy_sync_ev(s, t, ARGUS_EV_COND_BROADCAST, a->pool_cond, 0, 0);
		for (unsigned i = 0; i < n; i++)
			woken += sy_wake(s, t, idle[i], CH_IN, true);
		sy_futex_ev(s, t, ARGUS_EV_FUTEX_WAKE, a->pool_cond, 0, INT_MAX_WAKE, woken);
	} else {
		sy_sync_ev(s, t, ARGUS_EV_COND_SIGNAL, a->pool_cond, 0, 0);
		if (n)
			woken = sy_wake(s, t, idle[0], CH_IN, false);
		sy_futex_ev(s, t, ARGUS_EV_FUTEX_WAKE, a->pool_cond, 0, 1, woken);
	}
}

enum { W_IDLE, W_WOKE, W_LOCK, W_LOCKED, W_HAVE, W_DONE };

void sy_worker_step(struct sim *s, struct sthread *t)
{
	struct app *a = &s->d->app[t->app];
	for (;;)
		switch (t->pc) {
		case W_IDLE:
			sy_futex_ev(s, t, ARGUS_EV_FUTEX_WAIT, a->pool_cond, -1, 0, 0);
			sy_stack_wait(s, t, a->stk_w_idle);
			t->pc = W_WOKE;
			sy_block(s, t, TASK_INTERRUPTIBLE, BIT(CH_IN), -1);
			return;
		case W_WOKE:
			t->pending &= ~BIT(CH_IN);
			sy_sys_exit(s, t, ARGUS_EV_SYS_EXIT, NR_FUTEX, -1, ARGUS_OBJ_FUTEX,
			            a->pool_cond, 0, 0);
			t->pc = W_LOCK;
			continue;
		case W_LOCK:
			if (a->holder && a->holder != t && a->nwait < 4) {
				sy_futex_ev(s, t, ARGUS_EV_FUTEX_WAIT, a->pool_mutex, -1, 2, 0);
				sy_stack_wait(s, t, a->stk_w_mutex);
				a->waiters[a->nwait++] = t;
				t->pc = W_LOCKED;
				sy_block(s, t, TASK_INTERRUPTIBLE, BIT(CH_COND), -1);
				return;
			}
			a->holder = t;
			t->pc = W_HAVE;
			sy_compute(s, t, sy_rnd(s, 20000, 90000), a->stk_w_idle);
			return;
		case W_LOCKED:
			t->pending &= ~BIT(CH_COND);
			sy_sys_exit(s, t, ARGUS_EV_SYS_EXIT, NR_FUTEX, -1, ARGUS_OBJ_FUTEX,
			            a->pool_mutex, 0, 0);
			t->pc = W_HAVE;
			sy_compute(s, t, sy_rnd(s, 5000, 20000), a->stk_w_idle);
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
				sy_sync_ev(s, t, ARGUS_EV_MUTEX_HANDOFF, a->pool_mutex, 0, 0);
				bool w = sy_wake(s, t, nx, CH_COND, true);
				sy_futex_ev(s, t, ARGUS_EV_FUTEX_WAKE, a->pool_mutex, 0, 1, w);
			} else {
				a->holder = NULL;
			}
			if (!have) {
				t->pc = W_IDLE;
				continue;
			}
			sy_async_ev(s, t, ARGUS_EV_ASYNC_RUN_BEGIN, ARGUS_ASYNC_THREADPOOL,
			            obj_uaddr(a->pid, 0x100 + (t->cur.job & 0x3ff)), a->pool);
			t->t0 = s->now;
			t->pc = W_DONE;
			sy_compute(s, t,
			           t->cur.kind == JOB_COND ? sy_rnd(s, 1500000, 6000000)
			                                   : sy_rnd(s, 500000, 15000000),
			           a->stk_job);
			return;
		}
		case W_DONE:
			sy_async_ev(s, t, ARGUS_EV_ASYNC_RUN_END, ARGUS_ASYNC_THREADPOOL,
			            obj_uaddr(a->pid, 0x100 + (t->cur.job & 0x3ff)), a->pool);
			t->t1 = s->now;
			if (t->cur.kind == JOB_EVENTFD) {
				struct msg m = t->cur;
				sy_async_ev(s, t, ARGUS_EV_ASYNC_POST, ARGUS_ASYNC_IDLE,
				            obj_uaddr(a->pid, 0x800 + (m.job & 0x3ff)), a->ctx);
				sy_send_eventfd(s, t, a->ui, m);
			} else if (!t->cur.anomaly) {
				sy_sync_ev(s, t, ARGUS_EV_COND_SIGNAL, a->result_cond, 0, 0);
				bool w = sy_wake(s, t, a->ui, CH_COND, false);
				sy_futex_ev(s, t, ARGUS_EV_FUTEX_WAKE, a->result_cond, 0, 1, w);
			} else {
				/* the bug: returns without signalling the waiting UI thread */
				sy_pend_root(s, t, t->t0, t->t1, "_thumbnail_job_run", a->prefix);
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

void sy_ui_step(struct sim *s, struct sthread *t)
{
	struct desktop *d = s->d;
	struct app *a = &d->app[t->app];
	uint64_t gdk_src = a->ctx + 0x100;
	for (;;)
		switch (t->pc) {
		case U_INIT: {
			/* launched: the first window is mapped (the trigger's launch end) */
			struct argus_event *e = sy_ev_thr(s, t, ARGUS_EV_UI_INPUT);
			e->ui.obj = obj_sock(t->pid, d->xorg->pid);
			e->ui.kind = ARGUS_UI_MAP;
			e->ui.window = 0x2a00003 + t->app * 0x100000;
			sy_timerfd_arm(s, t, sy_rnd(s, 1000000, BLINK_NS), BLINK_NS);
			t->pc = U_LOOP;
			continue;
		}
		case U_LOOP:
			sy_loop_ev(s, t, ARGUS_EV_LOOP_ITER_BEGIN, a->ctx, 0);
			sy_poll_enter(s, t, NR_POLL, -1, a->stk_poll);
			t->pc = U_WOKE;
			sy_block(s, t, TASK_INTERRUPTIBLE, UI_WAITMASK, -1);
			return;
		case U_WOKE: {
			sy_poll_exit(s, t, NR_POLL, 1);
			int ch = sy_pick(t, UI_WAITMASK);
			struct argus_event *e;
			switch (ch) {
			case CH_IN:
				sy_mb_pop(t, CH_IN, &t->cur);
				sy_loop_ev(s, t, ARGUS_EV_DISPATCH_BEGIN, a->ctx, gdk_src);
				sy_recv_sock(s, t, &t->cur, NR_READ, 32, false);
				e = sy_ev_thr(s, t, ARGUS_EV_UI_INPUT);
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
				sy_mb_pop(t, CH_ASYNC, &t->cur);
				sy_recv_eventfd(s, t);
				sy_loop_ev(s, t, ARGUS_EV_DISPATCH_BEGIN, a->ctx, gdk_src + 0xc0);
				sy_async_ev(s, t, ARGUS_EV_ASYNC_RUN_BEGIN, ARGUS_ASYNC_IDLE,
				            obj_uaddr(a->pid, 0x800 + (t->cur.job & 0x3ff)),
				            a->ctx);
				t->pc = U_ASYNC_END;
				sy_compute(s, t, sy_rnd(s, 200000, 1500000), a->stk_idle_cb);
				return;
			case CH_PEERREQ:
				sy_mb_pop(t, CH_PEERREQ, &t->cur);
				sy_loop_ev(s, t, ARGUS_EV_DISPATCH_BEGIN, a->ctx, gdk_src + 0x40);
				sy_recv_sock(s, t, &t->cur, NR_RECVMSG, 96, false);
				t->pc = U_PEER_REPLY;
				sy_compute(s, t, sy_rnd(s, 200000, 600000), a->stk_handler);
				return;
			case CH_TIMER:
				sy_timerfd_read(s, t);
				sy_loop_ev(s, t, ARGUS_EV_DISPATCH_BEGIN, a->ctx, gdk_src + 0x80);
				t->pc = U_TIMER_END;
				sy_compute(s, t, sy_rnd(s, 40000, 150000), a->stk_blink);
				return;
			case CH_PEERREPLY: {
				/* a late reply to a call that already gave up: dropped */
				struct msg m;
				sy_mb_pop(t, CH_PEERREPLY, &m);
				sy_recv_sock(s, t, &m, NR_RECVMSG, 64, false);
				break;
			}
			default:
				break;
			}
			sy_loop_ev(s, t, ARGUS_EV_LOOP_ITER_END, a->ctx, 0);
			t->pc = U_LOOP;
			continue;
		}
		case U_ASYNC_END:
			sy_async_ev(s, t, ARGUS_EV_ASYNC_RUN_END, ARGUS_ASYNC_IDLE,
			            obj_uaddr(a->pid, 0x800 + (t->cur.job & 0x3ff)), a->ctx);
			sy_send_sock(s, t, d->xorg, CH_PEERREQ, (struct msg){0}, NR_WRITE, 48);
			sy_loop_ev(s, t, ARGUS_EV_DISPATCH_END, a->ctx, gdk_src + 0xc0);
			sy_loop_ev(s, t, ARGUS_EV_LOOP_ITER_END, a->ctx, 0);
			t->pc = U_LOOP;
			continue;
		case U_PEER_REPLY:
			sy_send_sock(s, t, &s->th[t->cur.from], CH_REPLY, (struct msg){0},
			             NR_SENDMSG, 64);
			sy_loop_ev(s, t, ARGUS_EV_DISPATCH_END, a->ctx, gdk_src + 0x40);
			sy_loop_ev(s, t, ARGUS_EV_LOOP_ITER_END, a->ctx, 0);
			t->pc = U_LOOP;
			continue;
		case U_TIMER_END:
			sy_timerfd_arm(s, t, BLINK_NS, BLINK_NS);
			sy_loop_ev(s, t, ARGUS_EV_DISPATCH_END, a->ctx, gdk_src + 0x80);
			sy_loop_ev(s, t, ARGUS_EV_LOOP_ITER_END, a->ctx, 0);
			t->pc = U_LOOP;
			continue;
		case U_H_START: {
			uint8_t sc = t->cur.scen;
			t->k = 0;
			if (sc == SC_SIMPLE) {
				t->pc = U_FINISH;
				sy_compute(s, t,
				           t->cur.kind == ARGUS_UI_MOTION
				               ? sy_rnd(s, 100000, 1200000)
				               : sy_rnd(s, 400000, 4000000),
				           a->stk_handler);
			} else if (sc == SC_LONG) {
				t->t0 = s->now;
				t->pc = U_LONG_DONE;
				sy_compute(s, t,
				           t->cur.anomaly ? sy_rnd(s, 2200000000ULL, 2900000000ULL)
				                          : sy_rnd(s, 25000000, 60000000),
				           a->stk_long);
			} else if (sc == SC_FONT || sc == SC_CHAIN) {
				t->pc = U_CALL;
				sy_compute(s, t, sy_rnd(s, 50000, 300000), a->stk_handler);
			} else if (sc == SC_CIRC && !t->cur.anomaly && d->render_in_sync) {
				/* the renderer is calling us: this input does something else */
				t->cur.scen = SC_SIMPLE;
				t->pc = U_FINISH;
				sy_compute(s, t, sy_rnd(s, 400000, 4000000), a->stk_handler);
			} else if (sc == SC_CIRC) {
				if (t->cur.anomaly) {
					/* the renderer's own sync call races ours */
					d->render_anom = true;
					sy_heap_push(s, s->now + 20000, H_TIMERFD, d->render->idx,
					             (uint32_t)d->render->t2);
				}
				t->pc = U_CIRC_SEND;
				sy_compute(s, t, sy_rnd(s, 1000000, 2000000), a->stk_handler);
			} else if (sc == SC_COND) {
				t->pc = U_COND_POST;
				sy_compute(s, t, sy_rnd(s, 100000, 300000), a->stk_handler);
			} else if (sc == SC_YIELD) {
				struct msg m = {.anomaly = t->cur.anomaly, .job = t->app};
				bool sent = sy_send_sock(s, t, d->pa, CH_IN, m, NR_SENDMSG, 128);
				t->pc = sent ? U_SPIN : U_FINISH;
				sy_compute(s, t, sy_rnd(s, 50000, 200000), a->stk_handler);
			} else { /* SC_JOB, SC_DBUS */
				struct msg m = {.job = ++d->job, .kind = JOB_EVENTFD};
				if (sc == SC_JOB) {
					sy_async_ev(
					    s, t, ARGUS_EV_ASYNC_POST, ARGUS_ASYNC_THREADPOOL,
					    obj_uaddr(a->pid, 0x100 + (m.job & 0x3ff)), a->pool);
					sy_pool_post(s, t, a, m);
				} else {
					sy_async_ev(s, t, ARGUS_EV_ASYNC_POST, ARGUS_ASYNC_INVOKE,
					            obj_uaddr(a->pid, 0x800 + (m.job & 0x3ff)),
					            a->ctx + 0x1000);
					sy_send_eventfd(s, t, a->gdbus, m);
				}
				t->pc = U_FINISH;
				sy_compute(s, t, sy_rnd(s, 100000, 600000), a->stk_handler);
			}
			return;
		}
		case U_LONG_DONE:
			if (t->cur.anomaly)
				sy_pend_root(s, t, t->t0, s->now, "_search_match_line", a->prefix);
			t->pc = U_FINISH;
			continue;
		case U_CALL: {
			bool font = t->cur.scen == SC_FONT;
			struct sthread *srv = font ? d->fontd : d->chain[0];
			struct msg m = {.anomaly = t->cur.anomaly};
			if (!sy_send_sock(s, t, srv, CH_IN, m, NR_SENDMSG, font ? 96 : 160)) {
				t->pc = U_FINISH;
				continue;
			}
			sy_sys_enter(s, t, NR_RECVMSG, sy_fd_of(srv->pid), ARGUS_OBJ_UNIX,
			             obj_sock(t->pid, srv->pid), obj_sock(srv->pid, t->pid), 4096,
			             0);
			sy_stack_wait(s, t, font ? a->stk_font : a->stk_chain);
			t->pc = U_CALL_DONE;
			sy_block(s, t, TASK_INTERRUPTIBLE, BIT(CH_REPLY), -1);
			return;
		}
		case U_CALL_DONE: {
			struct msg m;
			sy_mb_pop(t, CH_REPLY, &m);
			sy_recv_sock(s, t, &m, NR_RECVMSG, t->cur.scen == SC_FONT ? 512 : 320,
			             true);
			t->pc = U_FINISH;
			sy_compute(s, t, sy_rnd(s, 100000, 400000), a->stk_handler);
			return;
		}
		case U_CIRC_SEND:
			if (!sy_send_sock(s, t, d->render, CH_IN, (struct msg){0}, NR_SENDMSG,
			                  128)) {
				t->pc = U_FINISH;
				continue;
			}
			/* fall through */
		case U_CIRC_WAIT: /* (re)enter the timed wait */
			sy_poll_enter(s, t, NR_POLL, CIRC_TIMEOUT_NS, a->stk_circ);
			t->pc = U_CIRC_WOKE;
			sy_block(s, t, TASK_INTERRUPTIBLE, BIT(CH_PEERREPLY), CIRC_TIMEOUT_NS);
			return;
		case U_CIRC_WOKE:
			if (t->wake_reason == W_TIMEOUT) {
				sy_poll_exit(s, t, NR_POLL, 0);
				if (++t->k < 2) {
					t->pc = U_CIRC_WAIT;
					continue;
				}
				t->pc = U_FINISH; /* gives up; the reply comes later */
				sy_compute(s, t, sy_rnd(s, 50000, 150000), a->stk_handler);
				return;
			}
			sy_poll_exit(s, t, NR_POLL, 1);
			{
				struct msg m;
				sy_mb_pop(t, CH_PEERREPLY, &m);
				sy_recv_sock(s, t, &m, NR_RECVMSG, 64, false);
			}
			t->pc = U_FINISH;
			sy_compute(s, t, sy_rnd(s, 100000, 300000), a->stk_handler);
			return;
		case U_COND_POST: {
			struct msg m = {
			    .job = ++d->job, .kind = JOB_COND, .anomaly = t->cur.anomaly};
			sy_async_ev(s, t, ARGUS_EV_ASYNC_POST, ARGUS_ASYNC_THREADPOOL,
			            obj_uaddr(a->pid, 0x100 + (m.job & 0x3ff)), a->pool);
			sy_pool_post(s, t, a, m);
			sy_sync_ev(s, t, ARGUS_EV_COND_WAIT, a->result_cond, a->pool_mutex + 8, 0);
			sy_futex_ev(s, t, ARGUS_EV_FUTEX_WAIT, a->result_cond, COND_TIMEOUT_NS, 0,
			            0);
			sy_stack_wait(s, t, a->stk_cond);
			t->pc = U_COND_WOKE;
			sy_block(s, t, TASK_INTERRUPTIBLE, BIT(CH_COND), COND_TIMEOUT_NS);
			return;
		}
		case U_COND_WOKE: {
			bool to = t->wake_reason == W_TIMEOUT;
			t->pending &= ~BIT(CH_COND);
			sy_sys_exit(s, t, ARGUS_EV_SYS_EXIT, NR_FUTEX, -1, ARGUS_OBJ_FUTEX,
			            a->result_cond, 0, to ? -ETIMEDOUT : 0);
			sy_sync_ev(s, t, ARGUS_EV_COND_WAKE, a->result_cond, a->pool_mutex + 8,
			           to ? ETIMEDOUT : 0);
			t->pc = U_FINISH;
			sy_compute(s, t, sy_rnd(s, 200000, 900000), a->stk_handler);
			return;
		}
		case U_SPIN: {
			struct argus_event *e = sy_ev_thr(s, t, ARGUS_EV_FLAG_READ);
			e->flag.addr = a->flag_addr;
			e->flag.value = a->flag;
			e->flag.ip = 0x555555561234ULL;
			e->flag.len = 4;
			e->flag.watch_id = 1;
			if (a->flag) {
				a->flag = 0;
				t->pc = U_FINISH;
				sy_compute(s, t, sy_rnd(s, 100000, 300000), a->stk_handler);
				return;
			}
			sy_sys_enter(s, t, NR_POLL, -1, ARGUS_OBJ_NONE, 0, 0, 0, 1);
			sy_poll_exit(s, t, NR_POLL, 0);
			sy_sys_enter(s, t, NR_SCHED_YIELD, -1, ARGUS_OBJ_NONE, 0, 0, 0, 0);
			t->pc = U_SPIN_YIELDED;
			sy_yield_cpu(s, t);
			return;
		}
		case U_SPIN_YIELDED:
			sy_sys_exit(s, t, ARGUS_EV_SYS_EXIT, NR_SCHED_YIELD, -1, ARGUS_OBJ_NONE, 0,
			            0, 0);
			t->pc = U_SPIN;
			sy_compute(s, t, sy_rnd(s, 300000, 1200000), a->stk_yield);
			return;
		case U_FINISH:
			sy_send_sock(s, t, d->xorg, CH_PEERREQ, (struct msg){0}, NR_WRITE, 64);
			sy_loop_ev(s, t, ARGUS_EV_DISPATCH_END, a->ctx, gdk_src);
			sy_loop_ev(s, t, ARGUS_EV_LOOP_ITER_END, a->ctx, 0);
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
				sy_pend_ui(s, t);
			} else {
				a->done[t->cur.scen]++;
			}
			t->pc = U_LOOP;
			continue;
		}
}

/* ---- an app's gdbus thread ---- */

enum { G_LOOP, G_WOKE, G_NEXT, G_POSTUI };
#define GD_MASK (BIT(CH_IN) | BIT(CH_ASYNC) | BIT(CH_REPLY))

void sy_gdbus_step(struct sim *s, struct sthread *t)
{
	struct desktop *d = s->d;
	struct app *a = &d->app[t->app];
	for (;;)
		switch (t->pc) {
		case G_LOOP:
			sy_poll_enter(s, t, NR_POLL, -1, a->stk_gd_poll);
			t->pc = G_WOKE;
			sy_block(s, t, TASK_INTERRUPTIBLE, GD_MASK, -1);
			return;
		case G_WOKE:
			sy_poll_exit(s, t, NR_POLL, 1);
			t->pc = G_NEXT;
			continue;
		case G_NEXT: {
			int ch = sy_pick(t, GD_MASK);
			if (ch == CH_ASYNC) {
				sy_mb_pop(t, CH_ASYNC, &t->cur);
				sy_recv_eventfd(s, t);
				uint64_t obj = obj_uaddr(a->pid, 0x800 + (t->cur.job & 0x3ff));
				sy_async_ev(s, t, ARGUS_EV_ASYNC_RUN_BEGIN, ARGUS_ASYNC_INVOKE, obj,
				            a->ctx + 0x1000);
				struct msg m = {.kind = DBUS_CALL,
				                .serial = (++d->serial) * 2,
				                .to = d->svc->idx,
				                .job = t->idx};
				sy_dbus_ev(s, t, ARGUS_EV_DBUS_SEND, &m);
				sy_send_sock(s, t, d->dbus, CH_IN, m, NR_SENDMSG, 200);
				sy_async_ev(s, t, ARGUS_EV_ASYNC_RUN_END, ARGUS_ASYNC_INVOKE, obj,
				            a->ctx + 0x1000);
				t->pc = G_NEXT;
				sy_compute(s, t, sy_rnd(s, 20000, 60000), a->stk_gd_work);
				return;
			}
			if (ch == CH_IN) {
				sy_mb_pop(t, CH_IN, &t->cur);
				sy_recv_sock(s, t, &t->cur, NR_RECVMSG, 200, false);
				sy_dbus_ev(s, t, ARGUS_EV_DBUS_RECV, &t->cur);
				/* a reply, or some signals, update the UI from an idle callback */
				bool post = t->cur.kind == DBUS_RETURN ||
				            (t->cur.kind == DBUS_SIGNAL && sy_chance(s, 0.35));
				t->pc = post ? G_POSTUI : G_NEXT;
				sy_compute(s, t, sy_rnd(s, 50000, 300000), a->stk_gd_work);
				return;
			}
			if (ch == CH_REPLY) {
				struct msg m;
				sy_mb_pop(t, CH_REPLY, &m);
				sy_recv_sock(s, t, &m, NR_RECVMSG, 64, false);
				struct argus_event *e = sy_ev_thr(s, t, ARGUS_EV_FLAG_WRITE);
				e->flag.addr = a->flag_addr;
				e->flag.value = 1;
				e->flag.ip = 0x555555562345ULL;
				e->flag.len = 4;
				e->flag.watch_id = 1;
				a->flag = 1;
				t->pc = G_NEXT;
				sy_compute(s, t, sy_rnd(s, 10000, 40000), a->stk_gd_work);
				return;
			}
			t->pc = G_LOOP;
			continue;
		}
		case G_POSTUI: {
			struct msg m = {.job = ++d->job};
			sy_async_ev(s, t, ARGUS_EV_ASYNC_POST, ARGUS_ASYNC_IDLE,
			            obj_uaddr(a->pid, 0x800 + (m.job & 0x3ff)), a->ctx);
			sy_send_eventfd(s, t, a->ui, m);
			t->pc = G_NEXT;
			continue;
		}
		}
}
