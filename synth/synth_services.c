/*
 * synth_services.c - the rest of the desktop: the display server and its
 * input thread, the font service, the service chain, the sound server, the
 * bus and its services, the renderer, the shell, background and decoy
 * threads, kernel workers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth_desktop.h"

/* ---- the display server ---- */

enum { X_LOOP, X_WOKE, X_NEXT, X_ROUTE };

void sy_xorg_step(struct sim *s, struct sthread *t)
{
	struct desktop *d = s->d;
	for (;;)
		switch (t->pc) {
		case X_LOOP:
			sy_poll_enter(s, t, NR_EPOLL_WAIT, -1, t->stk[0]);
			t->pc = X_WOKE;
			sy_block(s, t, TASK_INTERRUPTIBLE, BIT(CH_IN) | BIT(CH_PEERREQ), -1);
			return;
		case X_WOKE:
			sy_poll_exit(s, t, NR_EPOLL_WAIT, 1);
			t->pc = X_NEXT;
			continue;
		case X_NEXT: {
			int ch = sy_pick(t, BIT(CH_IN) | BIT(CH_PEERREQ));
			if (ch == CH_IN) {
				sy_mb_pop(t, CH_IN, &t->cur);
				uint64_t pipe = obj_kaddr(ARGUS_OBJ_PIPE, d->input->idx);
				sy_ipc_quick(s, t, ARGUS_EV_IPC_RECV, NR_READ, 6, ARGUS_OBJ_PIPE,
				             pipe, 0, 24);
				t->pc = X_ROUTE;
				sy_compute(s, t, sy_rnd(s, 20000, 80000), t->stk[1]);
				return;
			}
			if (ch == CH_PEERREQ) {
				struct msg m;
				sy_mb_pop(t, CH_PEERREQ, &m);
				sy_recv_sock(s, t, &m, NR_RECVMSG, 64, false);
				t->pc = X_NEXT;
				sy_compute(s, t, sy_rnd(s, 60000, 900000), t->stk[2]);
				return;
			}
			t->pc = X_LOOP;
			continue;
		}
		case X_ROUTE:
			sy_send_sock(s, t, &s->th[t->cur.to], CH_IN, t->cur, NR_WRITE, 32);
			t->pc = X_NEXT;
			continue;
		}
}

enum { I_LOOP, I_WOKE, I_READ, I_FWD };

void sy_input_step(struct sim *s, struct sthread *t)
{
	struct desktop *d = s->d;
	for (;;)
		switch (t->pc) {
		case I_LOOP:
			sy_poll_enter(s, t, NR_EPOLL_WAIT, -1, t->stk[0]);
			t->pc = I_WOKE;
			sy_block(s, t, TASK_INTERRUPTIBLE, BIT(CH_IN), -1);
			return;
		case I_WOKE:
			sy_poll_exit(s, t, NR_EPOLL_WAIT, 1);
			t->woke_by = NCH;
			t->pc = I_READ;
			continue;
		case I_READ:
			if (!sy_mb_pop(t, CH_IN, &t->cur)) {
				t->pc = I_LOOP;
				continue;
			}
			/* it reads evdev: a file read, which the tracer leaves out */
			t->pc = I_FWD;
			sy_compute(s, t, sy_rnd(s, 8000, 25000), t->stk[1]);
			return;
		case I_FWD: {
			struct msg m = t->cur;
			m.from = t->idx;
			m.t = s->now;
			uint64_t pipe = obj_kaddr(ARGUS_OBJ_PIPE, t->idx);
			if (sy_mb_push(d->xorg, CH_IN, &m)) {
				sy_wake(s, t, d->xorg, CH_IN, false);
				sy_ipc_quick(s, t, ARGUS_EV_IPC_SEND, NR_WRITE, 7, ARGUS_OBJ_PIPE,
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
void sy_server_step(struct sim *s, struct sthread *t)
{
	struct desktop *d = s->d;
	int ci = t == d->chain[0] ? 0 : t == d->chain[1] ? 1 : t == d->chain[2] ? 2 : -1;
	for (;;)
		switch (t->pc) {
		case F_LOOP:
			sy_poll_enter(s, t, NR_EPOLL_WAIT, -1, t->stk[0]);
			t->pc = F_WOKE;
			sy_block(s, t, TASK_INTERRUPTIBLE, BIT(CH_IN), -1);
			return;
		case F_WOKE:
			sy_poll_exit(s, t, NR_EPOLL_WAIT, 1);
			t->pc = F_NEXT;
			continue;
		case F_NEXT:
			if (!sy_mb_pop(t, CH_IN, &t->cur)) {
				t->pc = F_LOOP;
				continue;
			}
			sy_recv_sock(s, t, &t->cur, NR_RECVMSG, 128, false);
			if (t == d->svc)
				sy_dbus_ev(s, t, ARGUS_EV_DBUS_RECV, &t->cur);
			t->pc = F_WORKED;
			sy_compute(s, t,
			           t == d->fontd ? sy_rnd(s, 300000, 2500000)
			                         : sy_rnd(s, 100000, 900000),
			           t->stk[1]);
			return;
		case F_WORKED:
			if (ci == 0 || ci == 1) {
				struct sthread *nx = d->chain[ci + 1];
				struct msg m = {.anomaly = t->cur.anomaly};
				if (!sy_send_sock(s, t, nx, CH_IN, m, NR_SENDMSG, 160)) {
					t->pc = F_REPLY;
					continue;
				}
				sy_sys_enter(s, t, NR_RECVMSG, sy_fd_of(nx->pid), ARGUS_OBJ_UNIX,
				             obj_sock(t->pid, nx->pid), obj_sock(nx->pid, t->pid),
				             4096, 0);
				sy_stack_wait(s, t, t->stk[2]);
				t->pc = F_CALLED;
				sy_block(s, t, TASK_INTERRUPTIBLE, BIT(CH_REPLY), -1);
				return;
			}
			if (ci == 2) {
				/* the last link writes its state and waits for the disk */
				uint64_t file = obj_kaddr(ARGUS_OBJ_FILE, 2);
				sy_sys_enter(s, t, NR_FSYNC, 12, ARGUS_OBJ_FILE, file, 0, 0, 0);
				sy_stack_wait(s, t, t->stk[2]);
				t->t0 = s->now;
				uint64_t lat = t->cur.anomaly
				                   ? sy_rnd(s, 2400000000ULL, 2900000000ULL)
				                   : sy_rnd(s, 200000, 3000000);
				sy_heap_push(s, s->now + lat, H_DISK, t->idx, 0);
				t->pc = F_DISKED;
				sy_block(s, t, TASK_UNINTERRUPTIBLE, BIT(CH_DISK), -1);
				return;
			}
			if (t == d->pa && t->cur.anomaly) {
				/* the reply that sets the app's flag is held back */
				int64_t ns = (int64_t)sy_rnd(s, 2500000000ULL, 2900000000ULL);
				sy_sys_enter(s, t, NR_CLOCK_NANOSLEEP, -1, ARGUS_OBJ_NONE, 0, 0, ns,
				             1);
				sy_stack_wait(s, t, t->stk[2]);
				t->t0 = s->now;
				t->pc = F_SLEPT;
				sy_block(s, t, TASK_INTERRUPTIBLE, 0, ns);
				return;
			}
			t->pc = F_REPLY;
			continue;
		case F_CALLED: {
			struct msg m;
			sy_mb_pop(t, CH_REPLY, &m);
			sy_recv_sock(s, t, &m, NR_RECVMSG, 320, true);
			t->pc = F_REPLY;
			sy_compute(s, t, sy_rnd(s, 50000, 300000), t->stk[1]);
			return;
		}
		case F_DISKED:
			t->pending &= ~BIT(CH_DISK);
			sy_sys_exit(s, t, ARGUS_EV_SYS_EXIT, NR_FSYNC, 12, ARGUS_OBJ_FILE,
			            obj_kaddr(ARGUS_OBJ_FILE, 2), 0, 0);
			if (t->cur.anomaly)
				sy_pend_root(s, t, t->t0, s->now, "udisks_state_flush_to_disk", "");
			t->pc = F_REPLY;
			sy_compute(s, t, sy_rnd(s, 50000, 200000), t->stk[1]);
			return;
		case F_SLEPT:
			sy_sys_exit(s, t, ARGUS_EV_SYS_EXIT, NR_CLOCK_NANOSLEEP, -1, ARGUS_OBJ_NONE,
			            0, 0, 0);
			sy_pend_root(s, t, t->t0, s->now, "alsa_sink_reopen_backoff", "");
			t->pc = F_REPLY;
			continue;
		case F_REPLY:
			if (t == d->pa) {
				/* replies go to the app's gdbus thread, which sets the flag */
				sy_send_sock(s, t, d->app[t->cur.job % d->napps].gdbus, CH_REPLY,
				             (struct msg){0}, NR_SENDMSG, 64);
			} else if (t == d->svc) {
				struct msg m = {.kind = DBUS_RETURN,
				                .serial = t->cur.serial + 1,
				                .to = (uint16_t)t->cur.job};
				sy_dbus_ev(s, t, ARGUS_EV_DBUS_SEND, &m);
				sy_send_sock(s, t, d->dbus, CH_IN, m, NR_SENDMSG, 200);
			} else {
				sy_send_sock(s, t, &s->th[t->cur.from], CH_REPLY, (struct msg){0},
				             NR_SENDMSG, t == d->fontd ? 512 : 320);
			}
			t->pc = F_NEXT;
			continue;
		}
}

/* ---- the message bus: one loop receives from many, forwards to many ---- */

enum { D_LOOP, D_WOKE, D_SEND };

void sy_dbus_step(struct sim *s, struct sthread *t)
{
	struct desktop *d = s->d;
	for (;;)
		switch (t->pc) {
		case D_LOOP:
			sy_poll_enter(s, t, NR_EPOLL_WAIT, -1, t->stk[0]);
			t->pc = D_WOKE;
			sy_block(s, t, TASK_INTERRUPTIBLE, BIT(CH_IN), -1);
			return;
		case D_WOKE:
			sy_poll_exit(s, t, NR_EPOLL_WAIT, t->mb[CH_IN].n);
			t->n = 0;
			while (t->n < 8 && sy_mb_pop(t, CH_IN, &t->batch[t->n])) {
				sy_recv_sock(s, t, &t->batch[t->n], NR_RECVMSG, 200, false);
				t->n++;
			}
			t->pc = D_SEND;
			sy_compute(s, t, (uint64_t)(t->n ? t->n : 1) * sy_rnd(s, 15000, 45000),
			           t->stk[1]);
			return;
		case D_SEND:
			for (int i = 0; i < t->n; i++) {
				struct msg m = t->batch[i];
				if (m.kind == DBUS_SIGNAL) {
					for (uint32_t k = 0; k < d->napps && k < 4; k++)
						sy_send_sock(s, t, d->app[k].gdbus, CH_IN, m,
						             NR_SENDMSG, 200);
				} else if (m.to < s->nth) {
					sy_send_sock(s, t, &s->th[m.to], CH_IN, m, NR_SENDMSG, 200);
				}
			}
			t->pc = D_LOOP;
			continue;
		}
}

/* ---- the renderer: serves its app, and sometimes calls it synchronously ---- */

enum { R_INIT, R_LOOP, R_WOKE, R_REPLY, R_SYNC, R_SYNCED };

void sy_render_step(struct sim *s, struct sthread *t)
{
	struct desktop *d = s->d;
	struct sthread *ui = d->app[d->circ_app].ui;
	for (;;)
		switch (t->pc) {
		case R_INIT:
			sy_timerfd_arm(s, t, sy_rnd(s, 100000000, 400000000), 0);
			t->pc = R_LOOP;
			continue;
		case R_LOOP:
			sy_poll_enter(s, t, NR_POLL, -1, t->stk[0]);
			t->pc = R_WOKE;
			sy_block(s, t, TASK_INTERRUPTIBLE, BIT(CH_IN) | BIT(CH_TIMER), -1);
			return;
		case R_WOKE: {
			sy_poll_exit(s, t, NR_POLL, 1);
			int ch = sy_pick(t, BIT(CH_IN) | BIT(CH_TIMER));
			if (ch == CH_IN) {
				sy_mb_pop(t, CH_IN, &t->cur);
				sy_recv_sock(s, t, &t->cur, NR_RECVMSG, 128, false);
				t->pc = R_REPLY;
				sy_compute(s, t, sy_rnd(s, 300000, 1000000), t->stk[1]);
				return;
			}
			if (ch == CH_TIMER) {
				sy_timerfd_read(s, t);
				t->cur.anomaly = d->render_anom;
				d->render_anom = false;
				sy_timerfd_arm(s, t, sy_rnd(s, 150000000, 400000000), 0);
				/* a normal sync call only while its app idles (no accidental
				 * deadlock) */
				bool go = t->cur.anomaly || !d->app[d->circ_app].busy;
				d->render_in_sync = go;
				t->pc = go ? R_SYNC : R_LOOP;
				sy_compute(s, t, sy_rnd(s, 50000, 150000), t->stk[1]);
				return;
			}
			t->pc = R_LOOP;
			continue;
		}
		case R_REPLY:
			sy_send_sock(s, t, ui, CH_PEERREPLY, (struct msg){0}, NR_SENDMSG, 64);
			t->pc = R_LOOP;
			continue;
		case R_SYNC:
			t->t0 = s->now;
			if (!sy_send_sock(s, t, ui, CH_PEERREQ, (struct msg){0}, NR_SENDMSG, 96)) {
				d->render_in_sync = false;
				t->pc = R_LOOP;
				continue;
			}
			sy_sys_enter(s, t, NR_RECVMSG, sy_fd_of(ui->pid), ARGUS_OBJ_UNIX,
			             obj_sock(t->pid, ui->pid), obj_sock(ui->pid, t->pid), 4096, 0);
			sy_stack_wait(s, t, t->stk[2]);
			t->pc = R_SYNCED;
			sy_block(s, t, TASK_INTERRUPTIBLE, BIT(CH_REPLY), -1);
			return;
		case R_SYNCED: {
			struct msg m;
			sy_mb_pop(t, CH_REPLY, &m);
			sy_recv_sock(s, t, &m, NR_RECVMSG, 64, true);
			d->render_in_sync = false;
			if (t->cur.anomaly)
				sy_pend_root(s, t, t->t0, s->now,
				             "content::RenderFrameImpl::GetCookiesSync", "");
			t->pc = R_LOOP;
			sy_compute(s, t, sy_rnd(s, 100000, 300000), t->stk[1]);
			return;
		}
		}
}

/* ---- background: bus signal source, inotify watchers, decoy threads ---- */

enum { B_LOOP, B_WOKE, B_DONE };

void sy_bg_step(struct sim *s, struct sthread *t)
{
	struct desktop *d = s->d;
	bool house = t == d->house, extract = t == d->extract, power = t == d->power;
	for (;;)
		switch (t->pc) {
		case B_LOOP: {
			int64_t tmo = -1;
			t->k = 0;
			if (house)
				tmo = (int64_t)sy_rnd(s, 300000000, 1500000000);
			else if (extract)
				tmo = (int64_t)sy_rnd(s, 500000000, 2000000000);
			else if (power)
				tmo = (int64_t)sy_rnd(s, 400000000, 1600000000);
			if (house && d->decoy_req == ARGUS_ANOMALY_DECOY_IDLE) {
				d->decoy_req = 0;
				t->k = 1;
				tmo = (int64_t)sy_rnd(s, 4000000000ULL, 6000000000ULL);
			}
			sy_poll_enter(s, t, NR_POLL, tmo, t->stk[0]);
			t->t0 = s->now;
			t->pc = B_WOKE;
			sy_block(s, t, TASK_INTERRUPTIBLE, BIT(CH_IN), tmo);
			return;
		}
		case B_WOKE:
			if (t->wake_reason == W_TIMEOUT) {
				sy_poll_exit(s, t, NR_POLL, 0);
			} else {
				sy_poll_exit(s, t, NR_POLL, 1);
				t->pending &= ~BIT(CH_IN);
				/* then reads the inotify event: a file read, not traced */
			}
			if (t->k) {
				d->pend.t.kind = ARGUS_ANOMALY_DECOY_IDLE;
				d->pend.t.stall_start = t->t0;
				d->pend.t.stall_end = s->now;
				sy_pend_root(s, t, t->t0, s->now, "housekeeping_idle_wait", "");
			}
			if (power) {
				struct msg m = {.kind = DBUS_SIGNAL, .serial = (++d->serial) * 2};
				sy_dbus_ev(s, t, ARGUS_EV_DBUS_SEND, &m);
				sy_send_sock(s, t, d->dbus, CH_IN, m, NR_SENDMSG, 180);
			}
			t->k = 0;
			if (extract && d->decoy_req == ARGUS_ANOMALY_DECOY_BUSY) {
				d->decoy_req = 0;
				t->k = 1;
			}
			t->t0 = s->now;
			t->pc = B_DONE;
			sy_compute(s, t,
			           t->k      ? sy_rnd(s, 3000000000ULL, 3500000000ULL)
			           : extract ? sy_rnd(s, 3000000, 40000000)
			                     : sy_rnd(s, 20000, 200000),
			           t->stk[1]);
			return;
		case B_DONE:
			if (t->k) {
				d->pend.t.kind = ARGUS_ANOMALY_DECOY_BUSY;
				d->pend.t.stall_start = t->t0;
				d->pend.t.stall_end = s->now;
				sy_pend_root(s, t, t->t0, s->now, "tracker_extract_pdf_text", "");
			}
			t->pc = B_LOOP;
			continue;
		}
}

/* ---- the shell: property changes on the bus at the activity the options ask ---- */

enum { S_INIT, S_LOOP, S_WOKE };

void sy_shell_step(struct sim *s, struct sthread *t)
{
	struct desktop *d = s->d;
	for (;;)
		switch (t->pc) {
		case S_INIT:
			sy_timerfd_arm(s, t, 1000000, 0);
			t->pc = S_LOOP;
			continue;
		case S_LOOP:
			sy_poll_enter(s, t, NR_POLL, -1, t->stk[0]);
			t->pc = S_WOKE;
			sy_block(s, t, TASK_INTERRUPTIBLE, BIT(CH_TIMER), -1);
			return;
		case S_WOKE: {
			sy_poll_exit(s, t, NR_POLL, 1);
			sy_timerfd_read(s, t);
			/* below the requested activity: emit sooner */
			/* integers only: the same decisions on every machine and compiler */
			bool behind = (s->emitted + s->nbuf) * 1000000000ULL <
			              (uint64_t)s->o.rate * (s->now - s->t0 + 1);
			sy_timerfd_arm(
			    s, t, behind ? sy_rnd(s, 100000, 500000) : sy_rnd(s, 4000000, 30000000),
			    0);
			if (behind) {
				struct msg m = {.kind = DBUS_SIGNAL, .serial = (++d->serial) * 2};
				sy_dbus_ev(s, t, ARGUS_EV_DBUS_SEND, &m);
				sy_send_sock(s, t, d->dbus, CH_IN, m, NR_SENDMSG, 220);
			}
			t->pc = S_LOOP;
			sy_compute(s, t, sy_rnd(s, 20000, 120000), t->stk[1]);
			return;
		}
		}
}

/* ---- kernel workers ---- */

enum { K_IDLE, K_WOKE, K_DO };

void sy_kworker_step(struct sim *s, struct sthread *t)
{
	struct desktop *d = s->d;
	for (;;)
		switch (t->pc) {
		case K_IDLE:
			t->pc = K_WOKE;
			sy_block(s, t, TASK_INTERRUPTIBLE, BIT(CH_IN), -1);
			return;
		case K_WOKE:
			t->pending &= ~BIT(CH_IN);
			t->pc = K_DO;
			sy_compute(s, t, sy_rnd(s, 5000, 25000), 0);
			return;
		case K_DO:
			if (t->k) {
				/* delegated kernel work wakes a task with no message of ours:
				 * a wake-up that is not a communication (ambiguous) */
				struct sthread *w = d->watch[t->k - 1];
				if (w->state == T_BLOCKED)
					sy_wake(s, t, w, CH_IN, true);
				t->k = 0;
			}
			t->pc = K_IDLE;
			sy_compute(s, t, sy_rnd(s, 2000, 6000), 0);
			return;
		}
}
