/*
 * synth_records.c - the records of the synthetic desktop, made the way the
 * kernel tracer (kext/) and the in-process hooks make them: system calls,
 * IPC through sockets, pipes and eventfds, futexes, hook records, timerfds;
 * and the ground truth of an anomaly, assembled from its UI and root parts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth_desktop.h"

/* ---- record helpers ---- */

uint32_t sy_stk(struct sim *s, struct sthread *t, const char *spec, const char *prefix)
{
	return sy_world_stack(s, &s->proc[t->proc], spec, prefix);
}

int sy_fd_of(uint32_t peer_pid)
{
	return 3 + (int)(peer_pid * 7 % 61);
}

void sy_sys_enter(struct sim *s, struct sthread *t, uint16_t nr, int fd, uint8_t kind, uint64_t obj,
                  uint64_t peer, int64_t a0, int64_t a1)
{
	struct argus_event *e = sy_ev_thr(s, t, ARGUS_EV_SYS_ENTER);
	e->sys_enter.nr = nr;
	e->sys_enter.fd = fd;
	e->sys_enter.obj_kind = kind;
	e->sys_enter.obj = obj;
	e->sys_enter.peer_obj = peer;
	e->sys_enter.arg0 = a0;
	e->sys_enter.arg1 = a1;
	t->sys_ts = e->ts;
}

void sy_sys_exit(struct sim *s, struct sthread *t, uint16_t type, uint16_t nr, int fd, uint8_t kind,
                 uint64_t obj, uint64_t peer, int64_t ret)
{
	struct argus_event *e = sy_ev_thr(s, t, type);
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
void sy_ipc_quick(struct sim *s, struct sthread *t, uint16_t type, uint16_t nr, int fd,
                  uint8_t kind, uint64_t obj, uint64_t peer, int64_t bytes)
{
	/* as the tracer: a send is one record at exit, a receive has its entry */
	if (type == ARGUS_EV_IPC_RECV)
		sy_sys_enter(s, t, nr, fd, kind, obj, peer, nr == NR_READ ? bytes : 0, 0);
	else
		t->sys_ts = s->now - 900 - (bytes & 0x1ff);
	sy_sys_exit(s, t, type, nr, fd, kind, obj, peer, bytes);
}

/* The user stack the tracer records if the coming wait blocks (synth_sim.c). */
void sy_stack_wait(struct sim *s, struct sthread *t, uint32_t id)
{
	(void)s;
	t->wait_stack = id;
}

void sy_loop_ev(struct sim *s, struct sthread *t, uint16_t type, uint64_t ctx, uint64_t src)
{
	struct argus_event *e = sy_ev_thr(s, t, type);
	e->flags |= ARGUS_F_HOOK;
	e->loop.context = ctx;
	e->loop.source = src;
	e->loop.callback = src ? 0x7f3a50012340ULL + (src & 0xff0) : 0;
	e->loop.depth = 1;
	e->loop.name_str = src ? s->d->src_str : 0;
}

void sy_async_ev(struct sim *s, struct sthread *t, uint16_t type, uint32_t kind, uint64_t obj,
                 uint64_t target)
{
	struct argus_event *e = sy_ev_thr(s, t, type);
	e->flags |= ARGUS_F_HOOK;
	e->async.obj = obj;
	e->async.callback = 0x555555560000ULL + (obj & 0xfff0);
	e->async.target = target;
	e->async.kind = kind;
}

void sy_sync_ev(struct sim *s, struct sthread *t, uint16_t type, uint64_t obj, uint64_t mutex,
                int64_t ret)
{
	struct argus_event *e = sy_ev_thr(s, t, type);
	e->flags |= ARGUS_F_HOOK;
	e->sync.obj = obj;
	e->sync.mutex = mutex;
	e->sync.ret = ret;
}

void sy_futex_ev(struct sim *s, struct sthread *t, uint16_t type, uint64_t uaddr, int64_t tmo,
                 uint32_t val, int64_t ret)
{
	struct argus_event *e = sy_ev_thr(s, t, type);
	e->futex.uaddr = uaddr;
	e->futex.timeout_ns = type == ARGUS_EV_FUTEX_WAIT ? tmo : 0;
	e->futex.ret = ret;
	e->futex.op = type == ARGUS_EV_FUTEX_WAIT ? FUTEX_WAIT_PRIVATE : FUTEX_WAKE_PRIVATE;
	e->futex.val = val;
	if (type == ARGUS_EV_FUTEX_WAIT)
		t->sys_ts = e->ts;
}

void sy_dbus_ev(struct sim *s, struct sthread *t, uint16_t type, const struct msg *m)
{
	struct desktop *d = s->d;
	struct argus_event *e = sy_ev_thr(s, t, type);
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
bool sy_send_sock(struct sim *s, struct sthread *t, struct sthread *dst, unsigned ch, struct msg m,
                  uint16_t nr, int64_t bytes)
{
	m.from = t->idx;
	m.t = s->now;
	if (!sy_mb_push(dst, ch, &m))
		return false; /* the peer's queue is full: the sender backs off */
	sy_wake(s, t, dst, ch, false);
	sy_ipc_quick(s, t, ARGUS_EV_IPC_SEND, nr, sy_fd_of(dst->pid), sock_kind(s, t, dst),
	             obj_sock(t->pid, dst->pid), obj_sock(dst->pid, t->pid), bytes);
	return true;
}

/* The receive matching send_sock, after a wait (dur since sys_enter) or not. */
void sy_recv_sock(struct sim *s, struct sthread *t, const struct msg *m, uint16_t nr, int64_t bytes,
                  bool waited)
{
	const struct sthread *from = &s->th[m->from];
	uint8_t kind = sock_kind(s, t, from);
	if (waited)
		sy_sys_exit(s, t, ARGUS_EV_IPC_RECV, nr, sy_fd_of(from->pid), kind,
		            obj_sock(t->pid, from->pid), obj_sock(from->pid, t->pid), bytes);
	else
		sy_ipc_quick(s, t, ARGUS_EV_IPC_RECV, nr, sy_fd_of(from->pid), kind,
		             obj_sock(t->pid, from->pid), obj_sock(from->pid, t->pid), bytes);
}

uint64_t sy_eventfd_of(const struct sthread *t)
{
	return obj_kaddr(ARGUS_OBJ_EVENTFD, t->idx);
}

bool sy_send_eventfd(struct sim *s, struct sthread *t, struct sthread *dst, struct msg m)
{
	m.from = t->idx;
	m.t = s->now;
	if (!sy_mb_push(dst, CH_ASYNC, &m))
		return false;
	sy_wake(s, t, dst, CH_ASYNC, false);
	sy_ipc_quick(s, t, ARGUS_EV_IPC_SEND, NR_WRITE, 4, ARGUS_OBJ_EVENTFD, sy_eventfd_of(dst), 0,
	             8);
	return true;
}

void sy_recv_eventfd(struct sim *s, struct sthread *t)
{
	sy_ipc_quick(s, t, ARGUS_EV_IPC_RECV, NR_READ, 4, ARGUS_OBJ_EVENTFD, sy_eventfd_of(t), 0,
	             8);
}

void sy_poll_enter(struct sim *s, struct sthread *t, uint16_t nr, int64_t tmo, uint32_t stack)
{
	sy_sys_enter(s, t, nr, -1, ARGUS_OBJ_NONE, 0, 0, tmo, 4);
	sy_stack_wait(s, t, stack);
}

void sy_poll_exit(struct sim *s, struct sthread *t, uint16_t nr, int64_t ret)
{
	sy_sys_exit(s, t, ARGUS_EV_SYS_EXIT, nr, -1, ARGUS_OBJ_NONE, 0, 0, ret);
}

/* The channel to serve: the one that woke us, else the first pending one. */
int sy_pick(struct sthread *t, uint32_t mask)
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

bool sy_need_ambiguous(struct sim *s)
{
	return (double)s->st.wakeups_ambiguous < s->o.ambiguous * (double)(s->st.wakeups + 1);
}

/* ---- ground truth ---- */

static const char *comm_of(const struct sim *s, uint32_t pid)
{
	for (uint32_t i = 0; i < s->nproc; i++)
		if (s->proc[i].pid == pid)
			return s->proc[i].comm;
	return "?";
}

/* One line a person reads in a report of the ground truth. */
static const char *describe(struct sim *s, struct pend *p)
{
	const struct argus_truth *t = &p->t;
	const char *ui = comm_of(s, t->ui_pid), *root = comm_of(s, t->root_pid);
	unsigned ms = (unsigned)((t->stall_end - t->stall_start) / 1000000);
	unsigned rms = (unsigned)((t->root_end - t->root_start) / 1000000);
	switch (t->kind) {
	case ARGUS_ANOMALY_LONG_RUNNING:
		snprintf(p->desc, sizeof(p->desc), "%s's UI thread runs %u ms on CPU in %s", ui,
		         rms, p->func);
		break;
	case ARGUS_ANOMALY_LONG_WAIT_CHAIN:
		snprintf(
		    p->desc, sizeof(p->desc),
		    "%s waits %u ms on a call chain through two services to %s, whose fsync in "
		    "%s takes %u ms",
		    ui, ms, root, p->func, rms);
		break;
	case ARGUS_ANOMALY_CIRCULAR_TIMEOUT:
		snprintf(p->desc, sizeof(p->desc),
		         "%s and %s call each other synchronously; %s's 1.5 s timed waits end the "
		         "deadlock after %u ms",
		         ui, root, ui, ms);
		break;
	case ARGUS_ANOMALY_MISSING_WAKEUP:
		snprintf(p->desc, sizeof(p->desc),
		         "%s waits %u ms for a worker that finished %s without signalling", ui, ms,
		         p->func);
		break;
	case ARGUS_ANOMALY_YIELD_LOOP:
		snprintf(p->desc, sizeof(p->desc),
		         "%s spins %u ms on a flag that %s's reply sets; %s holds it back in %s",
		         ui, ms, root, root, p->func);
		break;
	case ARGUS_ANOMALY_DECOY_IDLE:
		snprintf(p->desc, sizeof(p->desc), "%s idles %u ms in %s: harmless, no UI waits",
		         root, rms, p->func);
		break;
	default:
		snprintf(p->desc, sizeof(p->desc), "%s computes %u ms in %s: harmless, no UI waits",
		         root, rms, p->func);
		break;
	}
	return p->desc;
}

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
	p->t.root_func_str = sy_world_string(s, p->func);
	p->t.desc_str = sy_world_string(s, describe(s, p));
	if (s->sink->truth && s->sink->truth(s->sink->arg, &p->t) < 0) {
		s->err = ARGUS_SYNTH_ESINK;
		s->done = true;
		return;
	}
	s->st.injected++;
	s->st.per_kind[p->t.kind & 7]++;
}

void sy_pend_root(struct sim *s, struct sthread *t, uint64_t t0, uint64_t t1, const char *fn,
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

void sy_pend_ui(struct sim *s, struct sthread *ui)
{
	struct pend *p = &s->d->pend;
	p->t.ui_pid = ui->pid;
	p->t.ui_tid = ui->tid;
	p->t.stall_start = ui->cur.t;
	p->t.stall_end = s->now;
	pend_done(s);
}

uint64_t sy_timerfd_of(const struct sthread *t)
{
	return obj_kaddr(ARGUS_OBJ_TIMERFD, t->idx);
}

void sy_timerfd_arm(struct sim *s, struct sthread *t, uint64_t in_ns, uint64_t interval)
{
	uint64_t at = s->now + in_ns;
	struct argus_event *e = sy_ev_thr(s, t, ARGUS_EV_TIMER_ARM);
	e->timer.obj = sy_timerfd_of(t);
	e->timer.expires_ns = at;
	e->timer.interval_ns = interval;
	e->timer.fd = 5;
	e->timer.kind = ARGUS_TIMER_TIMERFD;
	t->t2++; /* a new arming supersedes the old */
	sy_heap_push(s, at, H_TIMERFD, t->idx, (uint32_t)t->t2);
}

void sy_timerfd_read(struct sim *s, struct sthread *t)
{
	t->pending &= ~BIT(CH_TIMER);
	/* a timerfd read is a receive for the tracer */
	sy_ipc_quick(s, t, ARGUS_EV_IPC_RECV, NR_READ, 5, ARGUS_OBJ_TIMERFD, sy_timerfd_of(t), 0,
	             8);
}
