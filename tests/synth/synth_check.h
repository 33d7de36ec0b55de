/*
 * synth_check.h - an in-memory sink for `argus synth` tests that checks the
 * stream as it arrives (time order, per-CPU scheduling consistency, IPC and
 * futex pairing), hashes everything for determinism, classifies wake-up
 * edges as ambiguous or not (the rule of docs/synth.md), and keeps what the
 * ground-truth checks need (context switches, record times, stack marks).
 */
#ifndef SYNTH_CHECK_H
#define SYNTH_CHECK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth.h"

#define CK_TIDS 65536
#define CK_MAP  (1u << 18)

struct ck_switch {
	uint64_t ts;
	uint32_t prev, next;
	int64_t state;
};
struct ck_rec {
	uint64_t ts;
	uint32_t tid,
	    what; /* ustack of STACK / CPU_SAMPLE, 1 for sched_yield, serial of UI_INPUT */
	uint16_t type;
};
struct ck_open_wake {
	uint32_t wakee;
	uint16_t prevtype;
	bool open;
};

struct ck {
	uint64_t n, hash, last_ts;
	uint64_t types[256];
	uint64_t errors;
	char first_error[256];
	/* scheduling */
	int64_t cpu_cur[ARGUS_SYNTH_MAX_CPUS]; /* tid running, -1 unknown */
	uint8_t *tstate;  /* tid -> 0 unknown, 1 running, 2 blocked, 3 runnable */
	uint16_t *on_cpu; /* tid -> cpu + 1, 0 = off CPU */
	bool *named;
	/* pairing */
	uint64_t (*ipc_key)[2];
	int64_t *ipc_cnt;
	uint64_t *futex_waited;
	uint64_t ipc_unpaired, futex_unpaired, async_unpaired, timer_unarmed;
	int16_t *dispatch_depth; /* tid -> open dispatch_begin */
	/* ambiguity */
	uint16_t *last_type;
	uint64_t *last_futex;
	struct ck_open_wake *wk;
	uint64_t *we_key;
	bool *we_open;
	uint64_t wake_total, wake_amb;
	/* kept for truth checks */
	bool store;
	struct ck_switch *sw;
	size_t nsw, capsw;
	struct ck_rec *rec;
	size_t nrec, caprec;
	struct argus_truth truth[128];
	size_t ntruth;
	uint32_t next_id;
};

static inline void ck_fail(struct ck *c, const char *fmt, uint64_t a, uint64_t b)
{
	if (!c->errors++)
		snprintf(c->first_error, sizeof(c->first_error), fmt, (unsigned long long)a,
		         (unsigned long long)b);
}

static inline void ck_mix(struct ck *c, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		c->hash = (c->hash ^ b[i]) * 0x100000001b3ULL;
}

static inline void ck_mix64(struct ck *c, const uint64_t *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		c->hash = ((c->hash ^ w[i]) * 0x100000001b3ULL) ^ (c->hash >> 29);
}

static inline size_t ck_slot(struct ck *c, uint64_t a, uint64_t b)
{
	size_t h =
	    (size_t)((a * 0x9e3779b97f4a7c15ULL ^ b * 0xc2b2ae3d27d4eb4fULL) >> 40) & (CK_MAP - 1);
	while ((c->ipc_key[h][0] || c->ipc_key[h][1]) &&
	       (c->ipc_key[h][0] != a || c->ipc_key[h][1] != b))
		h = (h + 1) & (CK_MAP - 1);
	c->ipc_key[h][0] = a;
	c->ipc_key[h][1] = b;
	return h;
}

static inline bool ck_futex_has(struct ck *c, uint64_t a, bool add)
{
	size_t h = (size_t)((a * 0x9e3779b97f4a7c15ULL) >> 40) & (CK_MAP - 1);
	while (c->futex_waited[h] && c->futex_waited[h] != a)
		h = (h + 1) & (CK_MAP - 1);
	if (c->futex_waited[h])
		return true;
	if (add)
		c->futex_waited[h] = a;
	return false;
}

static inline void *ck_grow(void *p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return p;
	*cap = *cap ? *cap * 2 : 65536;
	void *q = realloc(p, *cap * size);
	if (!q)
		abort();
	return q;
}

static inline void ck_classify(struct ck *c, bool amb)
{
	c->wake_total++;
	c->wake_amb += amb;
}

static void ck_one(struct ck *c, const struct argus_event *e)
{
	c->types[e->type & 255]++;
	if (e->ts < c->last_ts)
		ck_fail(c, "time goes back at record %llu (ts %llu)", c->n, e->ts);
	c->last_ts = e->ts;
	c->n++;
	unsigned cpu = e->cpu;
	if (cpu >= ARGUS_SYNTH_MAX_CPUS) {
		ck_fail(c, "bad cpu %llu at %llu", cpu, e->ts);
		return;
	}
	uint32_t tid = e->tid & (CK_TIDS - 1);
	bool irq = e->flags & (ARGUS_F_HARDIRQ | ARGUS_F_SOFTIRQ);
	if (c->store && e->tid && !irq) {
		c->rec = ck_grow(c->rec, &c->caprec, c->nrec, sizeof(*c->rec));
		uint32_t what = 0;
		if (e->type == ARGUS_EV_STACK || e->type == ARGUS_EV_CPU_SAMPLE)
			what = e->stack.ustack;
		if (e->type == ARGUS_EV_SYS_ENTER && e->sys_enter.nr == 24)
			what = 1;
		if (e->type == ARGUS_EV_UI_INPUT)
			what = (uint32_t)e->ui.serial;
		c->rec[c->nrec++] = (struct ck_rec){e->ts, e->tid, what, e->type};
	}
	switch (e->type) {
	case ARGUS_EV_PROC_FORK:
	case ARGUS_EV_THREAD_NEW:
		c->named[e->fork.child_tid & (CK_TIDS - 1)] = true;
		return;
	case ARGUS_EV_PROC_EXEC:
	case ARGUS_EV_COMM:
	case ARGUS_EV_MMAP:
		return;
	case ARGUS_EV_SCHED_SWITCH: {
		uint32_t next = e->sched_switch.next_tid & (CK_TIDS - 1);
		if (c->cpu_cur[cpu] >= 0 && c->cpu_cur[cpu] != (int64_t)e->tid)
			ck_fail(c, "switch from tid %llu but cpu runs %llu", e->tid,
			        (uint64_t)c->cpu_cur[cpu]);
		if (e->sched_switch.prev_state < 0 || e->sched_switch.prev_state > 2)
			ck_fail(c, "bad prev_state %llu at %llu",
			        (uint64_t)e->sched_switch.prev_state, e->ts);
		if (tid) {
			c->on_cpu[tid] = 0;
			c->tstate[tid] = e->sched_switch.prev_state ? 2 : 3;
		}
		if (next && c->on_cpu[next])
			ck_fail(c, "tid %llu switched in while on cpu %llu", next,
			        c->on_cpu[next] - 1);
		if (next && c->tstate[next] == 2)
			ck_fail(c, "tid %llu switched in while blocked, not woken (ts %llu)", next,
			        e->ts);
		if (next) {
			c->on_cpu[next] = (uint16_t)(cpu + 1);
			c->tstate[next] = 1;
		}
		c->cpu_cur[cpu] = next;
		if (c->store) {
			c->sw = ck_grow(c->sw, &c->capsw, c->nsw, sizeof(*c->sw));
			c->sw[c->nsw++] = (struct ck_switch){
			    e->ts, e->tid, e->sched_switch.next_tid, e->sched_switch.prev_state};
		}
		break;
	}
	case ARGUS_EV_SCHED_WAKEUP: {
		uint32_t we = e->wakeup.wakee_tid & (CK_TIDS - 1);
		if (c->tstate[we] == 1 || c->tstate[we] == 3)
			ck_fail(c, "wake-up of tid %llu that is not blocked (ts %llu)", we, e->ts);
		c->tstate[we] = 3;
		if (e->wakeup.target_cpu >= ARGUS_SYNTH_MAX_CPUS)
			ck_fail(c, "wake-up to cpu %llu (ts %llu)", e->wakeup.target_cpu, e->ts);
	}
		/* the waker's context is checked as any record's */
		/* fall through */
	default:
		if (irq) {
			if (c->cpu_cur[cpu] >= 0 &&
			    (e->type == ARGUS_EV_SCHED_WAKEUP ? e->tid != 0
			                                      : c->cpu_cur[cpu] != (int64_t)e->tid))
				ck_fail(c,
				        "interrupt record names tid %llu, not the running one (ts "
				        "%llu)",
				        e->tid, e->ts);
		} else if (e->tid) {
			if (c->cpu_cur[cpu] >= 0 && c->cpu_cur[cpu] != (int64_t)e->tid)
				ck_fail(c, "tid %llu records while off its CPU (ts %llu)", e->tid,
				        e->ts);
		}
		break;
	}
	if (e->type == ARGUS_EV_TIMER_FIRE && !c->ipc_cnt[ck_slot(c, e->timer.obj, 0x7171)]) {
		c->timer_unarmed++;
		ck_fail(c, "timer %llx fires unarmed (ts %llu)", e->timer.obj, e->ts);
	}
	if (irq || !e->tid)
		return;

	/* pairing: async runs after their post, dispatches nest, timers fire
	 * after they were armed (keys tagged apart from sockets by a high word) */
	if (e->type == ARGUS_EV_ASYNC_POST) {
		c->ipc_cnt[ck_slot(c, e->async.obj, 0xa5a5)]++;
	} else if (e->type == ARGUS_EV_ASYNC_RUN_BEGIN) {
		if (c->ipc_cnt[ck_slot(c, e->async.obj, 0xa5a5)]-- <= 0) {
			c->async_unpaired++;
			ck_fail(c, "async run of %llx never posted (ts %llu)", e->async.obj, e->ts);
		}
	} else if (e->type == ARGUS_EV_DISPATCH_BEGIN) {
		c->dispatch_depth[tid]++;
	} else if (e->type == ARGUS_EV_DISPATCH_END) {
		if (--c->dispatch_depth[tid] < 0)
			ck_fail(c, "dispatch_end without a begin in tid %llu (ts %llu)", tid,
			        e->ts);
	} else if (e->type == ARGUS_EV_TIMER_ARM) {
		c->ipc_cnt[ck_slot(c, e->timer.obj, 0x7171)] = 1;
	}
	if (e->type == ARGUS_EV_IPC_SEND) {
		c->ipc_cnt[ck_slot(c, e->ipc.obj, e->ipc.peer_obj)]++;
	} else if (e->type == ARGUS_EV_IPC_RECV && e->ipc.obj_kind != ARGUS_OBJ_TIMERFD) {
		size_t h = e->ipc.peer_obj ? ck_slot(c, e->ipc.peer_obj, e->ipc.obj)
		                           : ck_slot(c, e->ipc.obj, 0);
		if (c->ipc_cnt[h]-- <= 0) {
			c->ipc_unpaired++;
			ck_fail(c, "ipc_recv on obj %llx without a send (ts %llu)", e->ipc.obj,
			        e->ts);
		}
	} else if (e->type == ARGUS_EV_FUTEX_WAIT) {
		ck_futex_has(c, e->futex.uaddr, true);
	} else if (e->type == ARGUS_EV_FUTEX_WAKE && e->futex.ret > 0) {
		if (!ck_futex_has(c, e->futex.uaddr, false)) {
			c->futex_unpaired++;
			ck_fail(c, "futex_wake of %llx without a wait (ts %llu)", e->futex.uaddr,
			        e->ts);
		}
	}

	/* ambiguity: the waker's next record decides, or the wakee's next receive */
	if (c->wk[tid].open) {
		struct ck_open_wake *w = &c->wk[tid];
		uint32_t we = w->wakee & (CK_TIDS - 1);
		w->open = false;
		if (e->type == ARGUS_EV_IPC_SEND) {
			c->we_key[we] = e->ipc.peer_obj ? e->ipc.peer_obj : e->ipc.obj;
			c->we_open[we] = true;
		} else {
			ck_classify(c, !(e->type == ARGUS_EV_FUTEX_WAKE && e->futex.val == 1 &&
			                 e->futex.uaddr == c->last_futex[we] &&
			                 w->prevtype != ARGUS_EV_MUTEX_HANDOFF));
		}
	}
	if (e->type == ARGUS_EV_IPC_RECV && c->we_open[tid]) {
		c->we_open[tid] = false;
		ck_classify(c, e->ipc.obj != c->we_key[tid]);
	}
	if (e->type == ARGUS_EV_SCHED_WAKEUP)
		c->wk[tid] = (struct ck_open_wake){e->wakeup.wakee_tid, c->last_type[tid], true};
	c->last_type[tid] = e->type;
	if (e->type == ARGUS_EV_FUTEX_WAIT)
		c->last_futex[tid] = e->futex.uaddr;
}

static int ck_events(void *arg, const struct argus_event *ev, size_t n)
{
	struct ck *c = arg;
	ck_mix64(c, (const uint64_t *)ev, n * sizeof(*ev) / 8);
	for (size_t i = 0; i < n; i++)
		ck_one(c, &ev[i]);
	return 0;
}

static uint32_t ck_string(void *arg, const char *s, size_t len)
{
	struct ck *c = arg;
	ck_mix(c, s, len);
	return ++c->next_id;
}

static uint32_t ck_stack(void *arg, const uint64_t *ips, uint32_t depth)
{
	struct ck *c = arg;
	ck_mix64(c, ips, depth);
	return ++c->next_id;
}

static int ck_map(void *arg, const struct argus_map *m)
{
	ck_mix(arg, m, sizeof(*m));
	return 0;
}

static int ck_symbol(void *arg, const struct argus_symbol *sym)
{
	ck_mix(arg, sym, sizeof(*sym));
	return 0;
}

static int ck_truth(void *arg, const struct argus_truth *t)
{
	struct ck *c = arg;
	ck_mix(c, t, sizeof(*t));
	if (c->ntruth < 128)
		c->truth[c->ntruth++] = *t;
	return 0;
}

static struct ck *ck_new(bool store)
{
	struct ck *c = calloc(1, sizeof(*c));
	c->hash = 0xcbf29ce484222325ULL;
	c->store = store;
	for (int i = 0; i < ARGUS_SYNTH_MAX_CPUS; i++)
		c->cpu_cur[i] = -1;
	c->on_cpu = calloc(CK_TIDS, sizeof(*c->on_cpu));
	c->tstate = calloc(CK_TIDS, sizeof(*c->tstate));
	c->dispatch_depth = calloc(CK_TIDS, sizeof(*c->dispatch_depth));
	c->named = calloc(CK_TIDS, sizeof(*c->named));
	c->ipc_key = calloc(CK_MAP, sizeof(*c->ipc_key));
	c->ipc_cnt = calloc(CK_MAP, sizeof(*c->ipc_cnt));
	c->futex_waited = calloc(CK_MAP, sizeof(*c->futex_waited));
	c->last_type = calloc(CK_TIDS, sizeof(*c->last_type));
	c->last_futex = calloc(CK_TIDS, sizeof(*c->last_futex));
	c->wk = calloc(CK_TIDS, sizeof(*c->wk));
	c->we_key = calloc(CK_TIDS, sizeof(*c->we_key));
	c->we_open = calloc(CK_TIDS, sizeof(*c->we_open));
	return c;
}

static void ck_free(struct ck *c)
{
	free(c->on_cpu);
	free(c->tstate);
	free(c->dispatch_depth);
	free(c->named);
	free(c->ipc_key);
	free(c->ipc_cnt);
	free(c->futex_waited);
	free(c->last_type);
	free(c->last_futex);
	free(c->wk);
	free(c->we_key);
	free(c->we_open);
	free(c->sw);
	free(c->rec);
	free(c);
}

static struct argus_sink ck_sink(struct ck *c)
{
	return (struct argus_sink){.events = ck_events,
	                           .intern_string = ck_string,
	                           .intern_stack = ck_stack,
	                           .map = ck_map,
	                           .symbol = ck_symbol,
	                           .truth = ck_truth,
	                           .arg = c};
}

/* Time the thread spent running / runnable / blocked within [from, to]. */
struct ck_time {
	uint64_t run, ready, blocked;
};

static struct ck_time ck_thread_time(const struct ck *c, uint32_t tid, uint64_t from, uint64_t to)
{
	struct ck_time r = {0};
	int state = -1; /* 0 run, 1 ready, 2 blocked */
	uint64_t since = from;
	for (size_t i = 0; i < c->nsw && c->sw[i].ts <= to; i++) {
		const struct ck_switch *s = &c->sw[i];
		int ns = -1;
		if (s->prev == tid)
			ns = s->state == 0 ? 1 : 2;
		else if (s->next == tid)
			ns = 0;
		if (ns < 0)
			continue;
		if (s->ts > from && state >= 0) {
			uint64_t d = s->ts - (since > from ? since : from);
			if (state == 0)
				r.run += d;
			else if (state == 1)
				r.ready += d;
			else
				r.blocked += d;
		}
		state = ns;
		since = s->ts;
	}
	if (state >= 0) {
		uint64_t d = to - (since > from ? since : from);
		if (state == 0)
			r.run += d;
		else if (state == 1)
			r.ready += d;
		else
			r.blocked += d;
	}
	return r;
}

#endif /* SYNTH_CHECK_H */
