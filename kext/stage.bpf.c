/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * stage.bpf.c - records gathered per CPU and written to the CPU's ring in
 * batches, in the default capture. Part of the one tracer object:
 * helpers.bpf.c includes it before reserve_ctx. docs/kext.md "Rings,
 * wake-ups and losses".
 *
 * Why: a ring entry costs a reservation and a commit whatever its size - a
 * lock, the consumer's position (a line the reader writes), the producer's
 * (one it reads), and an atomic exchange on the entry's header, which waits
 * for every store before it to reach a line last touched a lap of the ring
 * ago. In a desktop app that was a large part of each program's run (gedit,
 * with the records kept on the CPU and never written, as an upper bound:
 * sock_recv_length 440 -> 320 ns a run, sched_waking 1 300 -> 1 020). A
 * program writes its records into this CPU's stage (lines the CPU wrote the
 * last time round) and the stage goes to the ring as one entry:
 *  - when a program finds STAGE_FULL records in it;
 *  - at the tick of a busy CPU (hrtimer_expire_entry), once its first
 *    record is STAGE_AGE_NS old;
 *  - when the CPU goes idle (cpu_idle, in the idle task: before the CPU
 *    halts and after every interrupt that woke it).
 * The last two do the write-out where the CPU's own work is least delayed:
 * at an interrupt that comes anyway, or with nothing else to run. A record
 * reaches the ring within two ticks of its time, far inside the merge's
 * max_delay (50 ms); the order of one CPU's records is kept.
 *
 * Interrupts nest programs on one CPU, last in first out. A program counts
 * itself in `depth` before it takes slots and out after its records are
 * written; only a program that finds depth 0 writes the stage out, so a
 * nested one only appends. Slots are taken with one atomic add: a program
 * interrupted between reading and writing the count would otherwise hand
 * the same slots to the one that interrupted it. The stage has two halves:
 * the write-out makes the other one current before it copies, so a program
 * that interrupts the copy writes there, after the records being copied. A
 * nested program that finds no room (STAGE_ROOM slots are kept for nested
 * ones) gives its slots back and counts its records lost; the nesting is too
 * shallow for that to happen (at most a softirq and a hard interrupt, a few
 * records each).
 */

/* slots kept for nested programs; a program writes the stage out at
 * STAGE_FULL (3: ENTRY_RECORDS_MAX, the most one program takes); the tick
 * at STAGE_AGE_NS (a tick at HZ=250) */
#define STAGE_ROOM   8
#define STAGE_FULL   (TRACER_STAGE_MAX - STAGE_ROOM - 3)
#define STAGE_AGE_NS 4000000ull

#ifndef barrier
#define barrier() asm volatile("" ::: "memory")
#endif

/* One ring entry of n records at ev; a missing ring or a full one is
 * counted. Notes whether the ring is past shed_bytes. */
static __always_inline void stage_output(void *ring, struct tracer_stage *s, void *ev, __u32 n,
                                         __u32 cpu)
{
	__u64 bytes = n * sizeof(struct argus_event), avail;

	if (!ring) {
		count_lost(cpu, n);
		return;
	}
	avail = bpf_ringbuf_query(ring, BPF_RB_AVAIL_DATA);
	s->shed = shed_bytes && avail >= shed_bytes;
	/* the reader is woken once, as the fill crosses wake_bytes */
	if (bpf_ringbuf_output(ring, ev, bytes,
	                       avail < wake_bytes && avail + bytes >= wake_bytes
	                           ? BPF_RB_FORCE_WAKEUP
	                           : BPF_RB_NO_WAKEUP))
		count_lost(cpu, n);
}

/* Write the current half out as one ring entry, and make the other half
 * current first: a program that interrupts the copy writes there. The
 * caller does not hold the stage (it is held here). */
static __always_inline void stage_write(struct tracer_stage *s, __u32 cpu)
{
	void *ring = bpf_map_lookup_elem(&rings, &cpu);
	__u32 old, n;

	s->depth++;
	barrier();
	old = s->cur & 1;
	s->cur = old ^ 1;
	barrier();
	n = s->n[old];
	if (n > TRACER_STAGE_MAX)
		n = TRACER_STAGE_MAX;
	if (n)
		stage_output(ring, s, s->ev[old], n, cpu);
	s->n[old] = 0;
	barrier();
	s->depth--;
}

/* Take nrec slots for records about task t; NULL (counted) when shed or no
 * room. em->stage holds the stage until stage_done. */
static __always_inline struct argus_event *stage_take(struct emit *em, struct task_struct *t,
                                                      __u32 cpu, const int nrec)
{
	struct tracer_stage *s;
	__u32 zero = 0, at, h;

	s = bpf_map_lookup_elem(&stage, &zero);
	if (!s)
		return NULL;
	if (s->shed && !appset_has(t ? t->tgid : 0)) {
		if (cpu < TRACER_CPUS_MAX) {
			__sync_fetch_and_add(&ring_lost[cpu], nrec);
			__sync_fetch_and_add(&ring_shed[cpu], nrec);
		}
		return NULL;
	}
	if (!s->depth && s->n[s->cur & 1] > TRACER_STAGE_MAX - STAGE_ROOM - nrec)
		stage_write(s, cpu);
	s->depth++;
	barrier();
	h = s->cur & 1;
	at = h ? __sync_fetch_and_add(&s->n[1], nrec) : __sync_fetch_and_add(&s->n[0], nrec);
	if (at > TRACER_STAGE_MAX - nrec) {
		if (h)
			__sync_fetch_and_sub(&s->n[1], nrec);
		else
			__sync_fetch_and_sub(&s->n[0], nrec);
		barrier();
		s->depth--;
		count_lost(cpu, nrec);
		return NULL;
	}
	em->stage = s;
	return &s->ev[h][at];
}

/* The records taken are written: let go of the stage, and write it out if
 * it is due and no program under this one is using it. */
static __always_inline void stage_done(struct emit *em)
{
	struct tracer_stage *s = em->stage;
	__u32 h;

	barrier(); /* the records' stores before the stage is let go */
	if (s->depth)
		s->depth--;
	if (s->depth)
		return;
	h = s->cur & 1;
	if (s->n[h] >= STAGE_FULL)
		stage_write(s, em->ev->cpu);
}

/* The CPU goes idle (idle: nothing else will write it out) or takes a
 * timer interrupt (a tick of a busy CPU: write out a stage STAGE_AGE_NS
 * old). A CPU that sheds and has nothing to write out looks at its ring's
 * fill again: shedding is otherwise decided at write-outs only, and on a
 * CPU where nothing but processes outside the app set run, every record
 * is shed, none is written out, and the CPU would shed for good however
 * soon the reader made room (a pinned benchmark lost all its records
 * after its first 0.1 s). */
static __always_inline void stage_settle(bool idle)
{
	struct tracer_stage *s;
	__u32 zero = 0, h, cpu;
	void *ring;

	if (per_call)
		return;
	s = bpf_map_lookup_elem(&stage, &zero);
	if (!s || s->depth)
		return;
	h = s->cur & 1;
	cpu = bpf_get_smp_processor_id();
	if (s->n[h] && (idle || bpf_ktime_get_ns() - s->ev[h][0].ts >= STAGE_AGE_NS)) {
		stage_write(s, cpu);
	} else if (s->shed) {
		ring = bpf_map_lookup_elem(&rings, &cpu);
		s->shed = ring && bpf_ringbuf_query(ring, BPF_RB_AVAIL_DATA) >= shed_bytes;
	}
}

/* Entering and leaving idle, in the idle task: the idle loop comes here
 * before the CPU halts and again after every interrupt that woke it, so
 * what the CPU gathered (in its last task, or in an interrupt) goes out
 * while it has nothing else to do. */
SEC("tp_btf/cpu_idle")
int BPF_PROG(cpu_idle, unsigned int state, unsigned int cpu_id)
{
	stage_settle(true);
	return 0;
}
