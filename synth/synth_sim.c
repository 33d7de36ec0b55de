/*
 * synth_sim.c - the simulation core of `argus synth`: a seeded PRNG, the
 * record buffer, a time-ordered heap of pending happenings, and per-CPU
 * scheduling (run queues, time slices, waits, wake-ups, timeouts).
 *
 * Records are produced in global time order by construction: every record
 * takes the simulation clock, which only moves forward (each record advances
 * it a few ns, as real records are a few ns apart).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth_int.h"

#define SLICE_NS    3000000ULL  /* CFS-like slice when others are runnable */
#define SAMPLE_NS   20408163ULL /* 49 Hz on-CPU samples */
#define PRIO_NORMAL 120

/* ---- PRNG: xoshiro256**, seeded by splitmix64 ---- */

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void sy_rng_seed(struct rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t sy_rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint64_t sy_rnd(struct sim *s, uint64_t lo, uint64_t hi)
{
	if (hi <= lo)
		return lo;
	return lo + sy_rng_next(&s->rng) % (hi - lo + 1);
}

bool sy_chance(struct sim *s, double p)
{
	return (double)(sy_rng_next(&s->rng) >> 11) * 0x1.0p-53 < p;
}

/* ---- records ---- */

void sy_ev_flush(struct sim *s)
{
	size_t n = s->nbuf;
	if (s->emitted + n >= s->o.events) {
		n = s->o.events - s->emitted;
		s->done = true;
	}
	if (n && s->sink->events && !s->err) {
		if (s->sink->events(s->sink->arg, s->buf, n) < 0) {
			s->err = ARGUS_SYNTH_ESINK;
			s->done = true;
		}
	}
	if (n) {
		if (!s->emitted)
			s->st.first_ts = s->buf[0].ts;
		s->st.last_ts = s->buf[n - 1].ts;
	}
	s->emitted += n;
	s->nbuf = 0;
}

struct argus_event *sy_ev_raw(struct sim *s, unsigned cpu, uint32_t pid, uint32_t tid,
                              uint16_t flags, uint16_t type)
{
	if (s->nbuf == EVBUF || s->emitted + s->nbuf >= s->o.events)
		sy_ev_flush(s);
	struct argus_event *e = s->done ? &s->scratch : &s->buf[s->nbuf++];
	memset(e, 0, sizeof(*e));
	e->ts = s->now;
	/* records of one code path are tens of ns apart */
	s->now += 24 + (s->nbuf & 15);
	e->pid = pid;
	e->tid = tid;
	e->type = type;
	e->cpu = (uint16_t)cpu;
	e->flags = flags | ARGUS_F_SYNTH;
	return e;
}

struct argus_event *sy_ev_thr(struct sim *s, struct sthread *t, uint16_t type)
{
	return sy_ev_raw(s, t->cpu, t->pid, t->tid, t->kthread ? ARGUS_F_KTHREAD : 0, type);
}

/* A record in interrupt context on cpu: the header names whoever runs there. */
struct argus_event *sy_ev_cpu(struct sim *s, unsigned cpu, uint16_t flags, uint16_t type)
{
	struct sthread *cur = s->cpu[cpu].cur;
	if (cur && cur->kthread)
		flags |= ARGUS_F_KTHREAD;
	return sy_ev_raw(s, cpu, cur ? cur->pid : 0, cur ? cur->tid : 0, flags, type);
}

/* ---- heap ---- */

static bool item_less(const struct hitem *a, const struct hitem *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

void sy_heap_push(struct sim *s, uint64_t t, uint16_t kind, uint16_t a, uint32_t gen)
{
	if (s->nheap == s->capheap) {
		size_t cap = s->capheap ? s->capheap * 2 : 256;
		struct hitem *h = realloc(s->heap, cap * sizeof(*h));
		if (!h) {
			s->err = ARGUS_SYNTH_ENOMEM;
			s->done = true;
			return;
		}
		s->heap = h;
		s->capheap = cap;
	}
	struct hitem it = {.t = t, .seq = s->hseq++, .gen = gen, .kind = kind, .a = a};
	size_t i = s->nheap++;
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!item_less(&it, &s->heap[p]))
			break;
		s->heap[i] = s->heap[p];
		i = p;
	}
	s->heap[i] = it;
}

bool sy_heap_pop(struct sim *s, struct hitem *out)
{
	if (!s->nheap)
		return false;
	*out = s->heap[0];
	struct hitem last = s->heap[--s->nheap];
	size_t i = 0, n = s->nheap;
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		const struct hitem *best = &last;
		if (l < n && item_less(&s->heap[l], best)) {
			m = l;
			best = &s->heap[l];
		}
		if (l + 1 < n && item_less(&s->heap[l + 1], best))
			m = l + 1;
		if (m == i)
			break;
		s->heap[i] = s->heap[m];
		i = m;
	}
	if (n)
		s->heap[i] = last;
	return true;
}

/* ---- CPUs ---- */

static void rq_push(struct scpu *cp, struct sthread *t)
{
	cp->rq[(cp->head + cp->n++) % MAX_THREADS] = t;
}

static struct sthread *rq_pop(struct scpu *cp)
{
	if (!cp->n)
		return NULL;
	struct sthread *t = cp->rq[cp->head];
	cp->head = (cp->head + 1) % MAX_THREADS;
	cp->n--;
	return t;
}

static void cpu_at(struct sim *s, unsigned c, uint64_t t, bool earliest)
{
	struct scpu *cp = &s->cpu[c];
	if (earliest && cp->armed && cp->at <= t)
		return;
	cp->armed = true;
	cp->at = t;
	cp->seq = s->hseq++;
}

int sy_cpu_next(const struct sim *s)
{
	int best = -1;
	for (unsigned c = 0; c < s->ncpu; c++) {
		const struct scpu *cp = &s->cpu[c];
		if (cp->armed && (best < 0 || cp->at < s->cpu[best].at ||
		                  (cp->at == s->cpu[best].at && cp->seq < s->cpu[best].seq)))
			best = (int)c;
	}
	return best;
}

/* Schedule the next look at cpu c: end of the running compute, the next
 * sample, or the end of the slice when others wait. */
void sy_cpu_arm(struct sim *s, unsigned c)
{
	struct scpu *cp = &s->cpu[c];
	struct sthread *x = cp->cur;
	cp->armed = false;
	if (!x) {
		if (cp->n)
			cpu_at(s, c, s->now + 2000, false);
		return;
	}
	uint64_t d = x->work_left;
	if (d && x->sample_left < d)
		d = x->sample_left;
	if (d && cp->n) {
		uint64_t left = x->slice_used < SLICE_NS ? SLICE_NS - x->slice_used : 0;
		if (left < d)
			d = left;
	}
	uint64_t t = x->seg_start + d;
	cpu_at(s, c, t > s->now ? t : s->now, false);
}

static void cpu_switch(struct sim *s, unsigned c, struct sthread *prev, int64_t state)
{
	struct scpu *cp = &s->cpu[c];
	struct sthread *next = rq_pop(cp);
	struct argus_event *e = prev ? sy_ev_thr(s, prev, ARGUS_EV_SCHED_SWITCH)
	                             : sy_ev_cpu(s, c, 0, ARGUS_EV_SCHED_SWITCH);
	e->sched_switch.prev_state = state;
	e->sched_switch.prev_prio = prev ? prev->prio : PRIO_NORMAL;
	if (next) {
		e->sched_switch.next_pid = next->pid;
		e->sched_switch.next_tid = next->tid;
		e->sched_switch.next_prio = next->prio;
		memcpy(e->sched_switch.next_comm, next->comm, ARGUS_COMM_LEN);
	} else {
		e->sched_switch.next_prio = PRIO_NORMAL;
		memcpy(e->sched_switch.next_comm, cp->idle_comm, ARGUS_COMM_LEN);
	}
	cp->cur = next;
	if (next) {
		next->state = T_RUNNING;
		next->seg_start = s->now;
		next->slice_used = 0;
	}
	sy_cpu_arm(s, c);
}

void sy_cpu_process(struct sim *s, unsigned c)
{
	struct scpu *cp = &s->cpu[c];
	struct sthread *x = cp->cur;
	cp->armed = false;
	if (!x) {
		if (cp->n)
			cpu_switch(s, c, NULL, TASK_RUNNING);
		return;
	}
	uint64_t el = s->now > x->seg_start ? s->now - x->seg_start : 0;
	x->seg_start = s->now;
	if (x->work_left) {
		x->work_left -= el < x->work_left ? el : x->work_left;
		x->slice_used += el;
		if (x->sample_left <= el) {
			struct argus_event *e = sy_ev_thr(s, x, ARGUS_EV_CPU_SAMPLE);
			e->stack.ustack = s->stack_id[x->cur_stack];
			e->stack.kind = ARGUS_STACK_SAMPLE;
			e->stack.depth = s->stack_depth[x->cur_stack];
			e->stack.ip = s->stack_ip[x->cur_stack];
			x->sample_left = SAMPLE_NS;
		} else {
			x->sample_left -= el;
		}
	}
	if (!x->work_left) {
		if (x->timer_armed) {
			/* woken by data: the sleeper cancels its timeout */
			if (x->wake_reason == W_DATA) {
				struct argus_event *e = sy_ev_thr(s, x, ARGUS_EV_TIMER_CANCEL);
				e->timer.obj = x->hrtimer;
				e->timer.fd = -1;
			}
			x->timer_armed = 0;
		}
		s->stepping = x;
		x->step(s, x);
		s->stepping = NULL;
		return;
	}
	if (cp->n && x->slice_used >= SLICE_NS) {
		x->state = T_RUNNABLE;
		rq_push(cp, x);
		cpu_switch(s, c, x, TASK_RUNNING);
		return;
	}
	sy_cpu_arm(s, c);
}

void sy_thread_start(struct sim *s, struct sthread *t)
{
	struct scpu *cp = &s->cpu[t->cpu];
	t->state = T_RUNNABLE;
	t->sample_left = SAMPLE_NS;
	rq_push(cp, t);
	cpu_at(s, t->cpu, s->now + 1000, true);
}

/* ---- what a step does last ---- */

void sy_compute(struct sim *s, struct sthread *t, uint64_t ns, uint32_t stack)
{
	t->work_left = ns ? ns : 1;
	t->cur_stack = stack;
	t->seg_start = s->now;
	sy_cpu_arm(s, t->cpu);
}

void sy_cont(struct sim *s, struct sthread *t)
{
	t->work_left = 0;
	sy_cpu_arm(s, t->cpu);
}

void sy_block(struct sim *s, struct sthread *t, int64_t state, uint32_t mask, int64_t timeout_ns)
{
	t->waitmask = mask;
	if (t->pending & mask) {
		/* data already there: the call returns at once */
		t->woke_by = (uint32_t)__builtin_ctz(t->pending & mask);
		t->wake_reason = W_DATA;
		sy_cont(s, t);
		return;
	}
	if (timeout_ns == 0) {
		t->woke_by = NCH;
		t->wake_reason = W_TIMEOUT;
		sy_cont(s, t);
		return;
	}
	if (timeout_ns > 0) {
		uint64_t expires = s->now + (uint64_t)timeout_ns;
		struct argus_event *e = sy_ev_thr(s, t, ARGUS_EV_TIMER_ARM);
		e->timer.obj = t->hrtimer;
		e->timer.expires_ns = expires;
		e->timer.fd = -1;
		e->timer.kind = ARGUS_TIMER_HRTIMER;
		sy_heap_push(s, expires, H_TIMEOUT, t->idx, t->gen);
		t->timer_armed = 1;
	}
	t->state = T_BLOCKED;
	/* as the tracer: the user stack of a thread that blocks, unless it
	 * blocks where it blocked last time */
	if (!t->kthread && t->wait_stack && t->wait_stack != t->last_wait_stack) {
		struct argus_event *e = sy_ev_thr(s, t, ARGUS_EV_STACK);
		e->stack.ustack = s->stack_id[t->wait_stack];
		e->stack.kind = ARGUS_STACK_WAIT;
		e->stack.depth = s->stack_depth[t->wait_stack];
		e->stack.ip = s->stack_ip[t->wait_stack];
		/* the return address into the caller of the libc wrapper */
		e->stack.sp_ret = s->stack_ret[t->wait_stack];
		t->last_wait_stack = t->wait_stack;
	}
	cpu_switch(s, t->cpu, t, state);
}

void sy_yield_cpu(struct sim *s, struct sthread *t)
{
	struct scpu *cp = &s->cpu[t->cpu];
	t->work_left = 0;
	if (!cp->n) {
		sy_cont(s, t);
		return;
	}
	t->state = T_RUNNABLE;
	rq_push(cp, t);
	cpu_switch(s, t->cpu, t, TASK_RUNNING);
}

static void make_runnable(struct sim *s, struct sthread *t, uint32_t ch, uint8_t reason)
{
	struct scpu *cp = &s->cpu[t->cpu];
	t->state = T_RUNNABLE;
	t->gen++;
	t->woke_by = ch;
	t->wake_reason = reason;
	t->work_left = 0;
	rq_push(cp, t);
	if (!cp->cur)
		cpu_at(s, t->cpu, s->now + sy_rnd(s, 2000, 12000), true);
	else if (cp->cur != s->stepping)
		sy_cpu_arm(s, t->cpu);
}

static void fill_wakeup(struct argus_event *e, const struct sthread *t)
{
	e->wakeup.wakee_pid = t->pid;
	e->wakeup.wakee_tid = t->tid;
	e->wakeup.target_cpu = t->cpu;
	e->wakeup.wakee_prio = t->prio;
}

bool sy_wake(struct sim *s, struct sthread *w, struct sthread *t, unsigned ch, bool amb)
{
	t->pending |= BIT(ch);
	if (t->state != T_BLOCKED || !(t->waitmask & BIT(ch)))
		return false;
	fill_wakeup(sy_ev_thr(s, w, ARGUS_EV_SCHED_WAKEUP), t);
	s->st.wakeups++;
	s->st.wakeups_ambiguous += amb;
	make_runnable(s, t, ch, W_DATA);
	return true;
}

bool sy_wake_irq(struct sim *s, unsigned cpu, uint16_t flags, struct sthread *t, unsigned ch)
{
	t->pending |= BIT(ch);
	if (t->state != T_BLOCKED || !(t->waitmask & BIT(ch)))
		return false;
	struct argus_event *e = sy_ev_raw(s, cpu, 0, 0, flags, ARGUS_EV_SCHED_WAKEUP);
	fill_wakeup(e, t);
	make_runnable(s, t, ch, W_DATA);
	return true;
}

void sy_timeout_fire(struct sim *s, struct sthread *t, uint32_t gen)
{
	if (t->gen != gen || t->state != T_BLOCKED)
		return; /* woken earlier: the timer was cancelled */
	uint64_t expires = s->now;
	struct argus_event *e = sy_ev_cpu(s, t->cpu, ARGUS_F_HARDIRQ, ARGUS_EV_TIMER_FIRE);
	e->timer.obj = t->hrtimer;
	e->timer.expires_ns = expires;
	e->timer.fd = -1;
	e->timer.kind = ARGUS_TIMER_HRTIMER;
	e = sy_ev_raw(s, t->cpu, 0, 0, ARGUS_F_HARDIRQ, ARGUS_EV_SCHED_WAKEUP);
	fill_wakeup(e, t);
	make_runnable(s, t, NCH, W_TIMEOUT);
}

/* ---- mailboxes ---- */

bool sy_mb_push(struct sthread *t, unsigned ch, const struct msg *m)
{
	struct mbox *b = &t->mb[ch];
	if (b->n == MBOX_CAP)
		return false;
	b->m[(b->head + b->n++) % MBOX_CAP] = *m;
	return true;
}

bool sy_mb_pop(struct sthread *t, unsigned ch, struct msg *m)
{
	struct mbox *b = &t->mb[ch];
	if (!b->n) {
		t->pending &= ~BIT(ch);
		return false;
	}
	*m = b->m[b->head];
	b->head = (b->head + 1) % MBOX_CAP;
	if (!--b->n)
		t->pending &= ~BIT(ch);
	return true;
}
