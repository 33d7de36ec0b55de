// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * sched.bpf.c - part of tracer.bpf.c (included there, one BPF object): scheduling: context switches with their wait stacks, wake-ups, new tasks and exits, work queued to kernel workers.
 * docs/kext.md says what each record means.
 */
/* ---- scheduling ---------------------------------------------------------- */

/* Whether w can be a return address: the bytes before it end in a call
 * (x86-64: e8 rel32, or ff /2 - call through a register or memory - in its
 * 2-, 3-, 6- and 7-byte forms). A stale function pointer left in a dead
 * stack slot (a GLib closure's callback) points at a function's first
 * instruction, which follows padding or a ret, never a call. */
static __always_inline bool after_call(__u64 w)
{
	__u8 b[8];

	if (bpf_probe_read_user(b, sizeof(b), (void *)(w - sizeof(b))))
		return false;
	return b[3] == 0xe8 || (b[6] == 0xff && (b[7] & 0x38) == 0x10) ||
	       (b[5] == 0xff && (b[6] & 0x38) == 0x10) || (b[2] == 0xff && (b[3] & 0x38) == 0x10) ||
	       (b[1] == 0xff && (b[2] & 0x38) == 0x10);
}

/* The first return address on the user stack at sp that points into the
 * executable's own code and follows a call (after_call; at most
 * TRACER_SCAN_CHECKS words are checked), else (leaf) the word at sp (the
 * return address of a leaf such as a syscall wrapper, which only a thread
 * entering a wait is known to be in): Debian's libc keeps no frame
 * pointers, so this names the application function that called into libc.
 * 0 when unreadable. */
__noinline __u64 sp_ret_scan(__u64 sp, __u64 lo, __u64 hi, __u32 leaf)
{
	__u64(*words)[TRACER_SCAN_WORDS];
	__u64 ret = 0;
	__u32 zero = 0;
	int checks = 0;

	words = bpf_map_lookup_elem(&scan, &zero);
	if (!words || bpf_probe_read_user(*words, sizeof(*words), (void *)sp))
		return 0;
	ret = leaf ? (*words)[0] : 0;
	for (int i = 0; i < TRACER_SCAN_WORDS; i++) {
		__u64 w = (*words)[i];

		if (w < lo || w >= hi)
			continue;
		if (after_call(w))
			return w;
		if (++checks == TRACER_SCAN_CHECKS)
			break;
	}
	return ret;
}

/* A global function: the verifier checks the scan once, not in every
 * state of the programs that call it. */
static __always_inline __u64 user_sp_ret(struct mm_struct *mm, __u64 sp, bool leaf)
{
	return sp_ret_scan(sp, mm->start_code, mm->end_code, leaf);
}

/* A user task's saved user registers, for direct loads; NULL for a kernel
 * thread (it has none). */
static __always_inline struct pt_regs *user_regs(struct task_struct *t)
{
	struct pt_regs *regs;

	if (t->flags & PF_KTHREAD_)
		return NULL;
	regs = (struct pt_regs *)bpf_task_pt_regs(t);
	return regs ? KCAST(struct pt_regs, regs) : NULL;
}

/* Whether a thread that is about to block needs a STACK record: not when
 * it blocks where it blocked last time (same user ip and stack pointer: then
 * the previous STACK record still applies, and a ping-pong loop pays for
 * one stack only). */
static __always_inline bool stack_moved(struct pt_regs *regs, struct thread_state *st, __u64 *ip,
                                        __u64 *sp)
{
	if (!regs)
		return false;
	*ip = regs_ip(regs);
	*sp = regs_sp(regs);
	return st->wait_ip != *ip || st->wait_sp != *sp;
}

#define TASK_UNINTERRUPTIBLE_ 0x0002

/* Whether a wait's kernel stack says more than its records: an
 * uninterruptible (or killable) sleep - block I/O, a lock, a killable wait -
 * or a wait outside any call the records name (a page fault; a stat, open or
 * file read that waits on a FUSE daemon: request_wait_answer sleeps
 * interruptibly first). An interruptible wait inside a named call (a poll,
 * futex, pipe or socket read, sleep, wait4) is in the kernel's code for that
 * call: its stack, an unwind of some 20 kernel frames that cost about as
 * much as the rest of sched_switch on a desktop, is not taken. */
static __always_inline bool kstack_tells(unsigned int prev_state, bool in_call)
{
	return (prev_state & TASK_UNINTERRUPTIBLE_) || !in_call;
}

/* Whether fp can be a frame on the stack at sp, above the frame at low
 * (TRACER_FP_SPAN): a frame pointer points into the stack, above the
 * stack pointer and above the frame it was saved in. */
static __always_inline bool frame_plausible(__u64 fp, __u64 low, __u64 sp)
{
	return fp >= low && fp - sp < TRACER_FP_SPAN && !(fp & 7);
}

/* The place a thread waits at (struct wait_place): the frames the
 * kernel's user stack walk (bpf_get_stackid) reads first, read the same
 * way - the frame at the frame pointer is its saved frame pointer and
 * the return address; a frame that cannot be read, or is not plausible
 * (frame_plausible), ends the walk. Two
 * waits at one place give the same stack as long as the frames from
 * next on are those seen before (the same address, on a live chain). */
static __always_inline void wait_place_of(struct pt_regs *regs, __u64 ip, __u64 sp,
                                          struct wait_place *k)
{
	__u64 fp = regs_fp(regs), fr[2], low = sp;

	*k = (struct wait_place){.ip = ip};
	for (int i = 0; i < TRACER_PLACE_FRAMES; i++) {
		if (fp < TRACER_MIN_USER_ADDR || !frame_plausible(fp, low, sp) ||
		    bpf_probe_read_user(fr, sizeof(fr), (void *)fp)) {
			fp = 0;
			break;
		}
		low = fp + sizeof(fr);
		k->ret[i] = fr[1];
		k->frames++;
		fp = fr[0];
	}
	k->next = fp;
}

static __always_inline bool same_place(const struct wait_place *p, const struct wait_place *k)
{
	for (int i = 0; i < TRACER_PLACE_FRAMES; i++)
		if (p->ret[i] != k->ret[i])
			return false;
	return p->ip == k->ip && p->next == k->next && p->frames == k->frames;
}

/* The STACK record of a thread that blocks at a new ip or sp
 * (stack_moved): its user stack (the kernel stack comes at the wait's
 * end, kwait_resumes). A place among
 * the thread's last TRACER_WAIT_PLACES (wait_place_of) reuses the stacks
 * walked there (TRACER_STACK_REUSED): a thread that alternates between a
 * few waits (a main loop's poll and a worker's futex), or polls at one
 * call chain from many stack depths, walks each once. sp_ret depends on
 * the stack words, not on the frame chain: it is read again when the sp
 * is not the one the place saw last (at the same sp it is taken to be
 * the same, as stack_moved takes the whole record to be). A
 * walk whose id another kept place has drops that place: the map's
 * bucket, and the frames the decoder keeps for this thread and id, are
 * the new stack's. */
static __always_inline void wait_stack(void *ctx, struct task_struct *prev, struct thread_state *st,
                                       __u64 ts, struct pt_regs *regs, __u64 ip, __u64 sp)
{
	struct wait_place *pl = NULL, k;
	struct mm_struct *mm;
	__u32 ustack;
	struct emit em;
	__u64 sp_ret;
	long id;

	mm = prev->mm;
	if (!mm)
		return;
	wait_place_of(regs, ip, sp, &k);
	for (int i = 0; i < TRACER_WAIT_PLACES; i++) {
		struct wait_place *p = &st->places[i];

		if (p->ip && same_place(p, &k)) {
			pl = p;
			break;
		}
	}
	if (!pl || pl->sp != sp)
		sp_ret = user_sp_ret(mm, sp, true);
	else
		sp_ret = pl->sp_ret;
	if (pl) {
		pl->sp = sp;
		pl->sp_ret = sp_ret;
		if (!reserve_at(&em, ARGUS_EV_STACK, prev, ts, true))
			return;
		em.ev->stack.ustack = pl->ustack;
		em.ev->stack.sp_ret = sp_ret;
		em.ev->stack.depth = TRACER_STACK_REUSED;
	} else {
		if (!reserve_at(&em, ARGUS_EV_STACK, prev, ts, true))
			return;
		/* the kernel's walk follows any frame pointer: one that is
		 * not plausible gives the ip and garbage, and may fault */
		if (frame_plausible(regs_fp(regs), sp, sp)) {
			id = user_stack_id(ctx, em.ev->cpu);
			ustack = id < 0 ? 0 : id + 1; /* kernel stack id + 1; kext.c interns */
		} else {
			ustack = TRACER_USTACK_IP_ONLY;
		}
		em.ev->stack.ustack = ustack;
		em.ev->stack.sp_ret = sp_ret;
		for (int i = 0; i < TRACER_WAIT_PLACES; i++) {
			struct wait_place *p = &st->places[i];

			/* the same id at the same ip is the same stack (a walk
			 * from that ip; a bucket collision there is the one case
			 * told wrong): places that share a stack stay */
			if (ustack && ustack != TRACER_USTACK_IP_ONLY && p->ustack == ustack &&
			    p->ip != ip)
				p->ip = 0;
		}
		pl = &st->places[st->next_place % TRACER_WAIT_PLACES];
		st->next_place++;
		*pl = k;
		pl->sp = sp;
		pl->sp_ret = sp_ret;
		pl->ustack = ustack;
	}
	em.ev->stack.ip = ip;
	em.ev->stack.kind = ARGUS_STACK_WAIT;
	submit(&em);
	st->wait_ip = ip;
	st->wait_sp = sp;
}

/* The thread switching in: whether it left the CPU inside a traced call
 * (sys_exit then takes the call from task storage). st: its storage, if
 * traced. */
static __always_inline void note_resumed(struct task_struct *next, struct thread_state *st)
{
	struct resumed *r;
	__u32 zero = 0;

	r = bpf_map_lookup_elem(&resumed, &zero);
	if (!r)
		return;
	r->tid = next->pid;
	r->clean = !st || st->call.cls == SC_NONE;
}

/* The thread switching in resumes from a wait whose kernel stack tells
 * (kstack_tells) that lasted TRACER_KWAIT_NS or more: its kernel stack,
 * still the one it blocked on (it runs again only after this), walked
 * from the task (bpf_get_task_stack: bpf_get_stackid walks only the
 * current one) into kwait_stacks by a hash of its frames, and a STACK
 * record of kind WAIT_END for it (kstack: that hash + 1; the wait's user
 * ip). Shorter waits - most page faults and lock waits of an app starting -
 * cost no walk: an unwind of the kernel stack costs 20 us or more there
 * (docs/evaluation.md). A global function: sched_switch keeps only the
 * compare inline. */
__noinline int kwait_stack(struct task_struct *next __attribute__((btf_decl_tag("arg:trusted"))),
                         __u64 ip, __u64 ts)
{
	__u64(*ips)[TRACER_STACK_DEPTH];
	__u32 zero = 0, h = 2166136261u;
	struct emit em;
	long n;

	ips = bpf_map_lookup_elem(&kwait_scratch, &zero);
	if (!ips)
		return 0;
	n = bpf_get_task_stack(next, *ips, sizeof(*ips), 0);
	if (n <= 0)
		return 0;
	/* the helper zeroes the buffer past the frames it wrote */
	n /= sizeof(__u64);
	for (int i = 0; i < TRACER_STACK_DEPTH && i < n; i++)
		h = (h ^ (__u32)((*ips)[i] >> 4)) * 16777619u;
	h &= 0x7fffffff;
	if (bpf_map_update_elem(&kwait_stacks, &h, *ips, BPF_ANY) ||
	    !reserve_at(&em, ARGUS_EV_STACK, next, ts, true))
		return 0;
	em.ev->stack.kstack = h + 1;
	em.ev->stack.ip = ip;
	em.ev->stack.kind = ARGUS_STACK_WAIT_END;
	submit(&em);
	return 0;
}

static __always_inline void kwait_resumes(struct task_struct *next, struct thread_state *st,
                                          __u64 ts)
{
	__u64 from = st->kwait_ts;

	st->kwait_ts = 0;
	if (ts - from >= TRACER_KWAIT_NS)
		kwait_stack(next, st->kwait_ip, ts);
}

/* prev leaves the CPU: inside a traced syscall, the call goes to task
 * storage from the syscall's saved registers, timed from now (once per
 * call: a call preempted, then blocked, keeps its first time). Only a task
 * inside a syscall (regs_in_syscall): an exception's saved syscall number
 * is an error code, not a syscall. */

static __always_inline struct thread_state *call_left_cpu(struct task_struct *prev,
                                                          struct pt_regs *regs, __u64 ts)
{
	struct thread_state *st;
	long nr;
	__u8 cls;

	if (!regs)
		return NULL;
	nr = regs_nr(regs);
	if (nr < 0 || nr >= TRACER_NR_MAX || !regs_in_syscall(regs))
		return NULL;
	cls = sys_class[nr];
	if (cls == SC_NONE || cls == SC_CLONE)
		return NULL;
	st = bpf_task_storage_get(&threads, prev, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!st)
		return NULL;
	/* the same call, left again; without per-call capture a call that
	 * blocked is over once its thread is seen back (call_resumes), so one
	 * still marked blocked was resumed unseen (a switch the kernel did
	 * not show, a record lost) and this is a new call */
	if (st->call.cls == cls && st->call.nr == nr && st->call.tid == prev->pid &&
	    (per_call || !st->call.blocked || st->call.sockend))
		return st;
	if (call_from_regs(prev, regs, nr, cls, &st->call))
		st->call.ts = ts;
	else
		st->call.cls = SC_NONE;
	return st;
}

/* Without per-call capture: the call next was blocked in, if its switch-in
 * ends it (the call blocked; a watched socket's receive ends at
 * sock_recv_length instead; a send that blocked is known from the wake-ups
 * it makes). Any other call left in storage is done with. */
static __always_inline struct sys_call *call_resumes(struct thread_state *st)
{
	struct sys_call *c;

	if (!st)
		return NULL;
	c = &st->call;
	if (c->cls == SC_NONE || c->sockend)
		return NULL;
	if (!c->blocked || c->cls == SC_SEND || c->cls == SC_TFDSET) {
		c->cls = SC_NONE;
		return NULL;
	}
	return c;
}

/* The end of a call seen blocking, written at its thread's switch-in: what
 * it returns is not seen (ARGUS_F_NORET): a receive says 1 byte, a wait 0. */
static __always_inline void fill_resumed(struct argus_event *ev, struct sys_call *c,
                                         struct task_struct *t, __u64 ts)
{
	ev->type = c->cls == SC_RECV ? ARGUS_EV_IPC_RECV : ARGUS_EV_SYS_EXIT;
	ev->pid = t->tgid;
	ev->tid = t->pid;
	ev->flags = ARGUS_F_NORET | (t->flags & PF_KTHREAD_ ? ARGUS_F_KTHREAD : 0);
	ev->sys_exit.obj = c->obj;
	ev->sys_exit.peer_obj = c->peer;
	ev->sys_exit.ret = c->cls == SC_RECV ? 1 : 0;
	ev->sys_exit.dur_ns = c->ts && ts > c->ts ? ts - c->ts : 0;
	ev->sys_exit.fd = c->fd;
	ev->sys_exit.nr = c->nr;
	ev->sys_exit.obj_kind = c->kind;
	ev->sys_exit.calls = 1;
	c->cls = SC_NONE;
}

/* Runs at every context switch of the machine: the idle task and untraced
 * tasks leave after a few loads. One clock read serves every record. */
SEC("tp_btf/sched_switch")
int BPF_PROG(sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
             unsigned int prev_state)
{
	bool blocks = !preempt && prev_state, tprev, tnext, to_self, from_self, in_call = false;
	struct sys_call *c, *enter = NULL, *done = NULL;
	struct task_struct *hdr;
	struct thread_state *st = NULL, *nst = NULL;
	struct argus_event *evs;
	struct pt_regs *regs = NULL;
	__u64 ts, ip = 0, sp = 0;
	struct emit em;

	to_self = is_self(next);
	from_self = is_self(prev);
	tprev = !from_self && traced(prev);
	tnext = !to_self && traced(next);
	if (tnext)
		nst = bpf_task_storage_get(&threads, next, 0, 0);
	if (per_call)
		note_resumed(next, nst);
	/* argus is left out: its own switches are not written, a switch to
	 * it names no next thread and a switch from it no previous one (as
	 * the idle task's: pid 0) - but the traced thread's half is kept (a
	 * traced thread that blocks while argus runs next still blocked; one
	 * that argus hands the CPU to resumes, and the call it was blocked in
	 * ends there) */
	if ((from_self && to_self) || (!tprev && !tnext))
		return 0;
	hdr = from_self ? NULL : prev;
	ts = bpf_ktime_get_ns();
	if (tprev) {
		regs = user_regs(prev); /* read once: the call and the stack */
		st = call_left_cpu(prev, regs, ts);
		in_call = st && st->call.cls != SC_NONE;
	}
	if (tprev && blocks) {
		if (!st) /* a pending call has storage already; stacks need it */
			st = bpf_task_storage_get(&threads, prev, 0,
			                          wait_stacks ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
		if (st) {
			c = &st->call;
			if (c->cls != SC_NONE) {
				c->blocked = 1;
				if (!per_call && c->cls == SC_RECV &&
				    (c->kind == ARGUS_OBJ_UNIX || c->kind == ARGUS_OBJ_TCP) &&
				    sock_watched(KCAST(struct sock, (void *)c->obj)))
					c->sockend = 1;
			}
			if (c->cls != SC_NONE && !c->entered && has_entry(c, true)) {
				enter = c;
				c->entered = 1;
			}
			if (wait_stacks && stack_moved(regs, st, &ip, &sp)) {
				/* the order stays SYS_ENTER, STACK, SCHED_SWITCH */
				if (enter)
					emit_entry(enter, prev, ts);
				enter = NULL;
				wait_stack(ctx, prev, st, ts, regs, ip, sp);
			}
			if (wait_stacks && regs && kstack_tells(prev_state, in_call)) {
				st->kwait_ts = ts;
				st->kwait_ip = regs_ip(regs);
			}
		}
	} else if (tprev && !per_call && st && st->call.cls == SC_WAIT &&
	           st->call.nr == TRACER_NR_sched_yield && !st->call.entered) {
		/* a yield that gave the CPU away: the only yields seen without
		 * per-call capture (one that finds no other task never switches) */
		enter = &st->call;
		enter->entered = 1;
		enter->blocked = 1;
	}
	if (nst && nst->kwait_ts)
		kwait_resumes(next, nst, ts);
	if (!per_call && nst)
		done = call_resumes(nst);
	/* a blocked call's entry record, the switch and the end of the call
	 * next resumes in: one ring entry */
	if (enter && done) {
		if (!reserve_n(&em, ARGUS_EV_SCHED_SWITCH, hdr, ts, true, 3))
			return 0;
		evs = em.entry;
		fill_entry(&evs[0], enter);
		fill_resumed(&evs[2], done, next, ts);
		em.ev = &evs[1];
	} else if (enter) {
		if (!reserve_n(&em, ARGUS_EV_SCHED_SWITCH, hdr, ts, true, 2))
			return 0;
		fill_entry(em.entry, enter);
	} else if (done) {
		if (!reserve_n(&em, ARGUS_EV_SCHED_SWITCH, hdr, ts, true, 2))
			return 0;
		evs = em.entry;
		fill_resumed(&evs[1], done, next, ts);
		em.ev = &evs[0];
	} else if (!reserve_at(&em, ARGUS_EV_SCHED_SWITCH, hdr, ts, true)) {
		return 0;
	}
	em.ev->sched_switch.prev_state = preempt || from_self ? 0 : prev_state;
	em.ev->sched_switch.prev_prio = from_self ? 0 : prev->prio;
	if (to_self) {
		submit(&em);
		return 0;
	}
	em.ev->sched_switch.next_pid = next->tgid;
	em.ev->sched_switch.next_tid = next->pid;
	em.ev->sched_switch.next_prio = next->prio;
	{
		/* two direct loads instead of a probe-read helper call */
		__u64 *comm = (__u64 *)em.ev->sched_switch.next_comm;

		comm[0] = load_word(next->comm);
		comm[1] = load_word(next->comm + 8);
	}
	submit(&em);
	return 0;
}

/* Without per-call capture: a sched_yield that finds no other task to run
 * calls schedule() but never switches, so sched_switch does not see it (a
 * yield loop on an idle machine). sched_exit_tp (a bare tracepoint, Linux
 * 6.16 and later) runs at the end of every __schedule() in the task that
 * goes on running; is_switch false means that task never left the CPU. The
 * yield is written as per-call capture writes a wait that never blocked:
 * its entry and exit in one ring entry, same ts, ret 0. Every other
 * schedule() returns after one compare. */
SEC("tp_btf/sched_exit_tp")
int BPF_PROG(sched_exit_tp, bool is_switch)
{
	struct task_struct *t;
	struct pt_regs *regs;
	struct sys_call call;
	struct emit em;

	if (is_switch)
		return 0;
	t = cur();
	regs = user_regs(t);
	if (!regs || !regs_in_syscall(regs) || regs_nr(regs) != TRACER_NR_sched_yield ||
	    !traced(t))
		return 0;
	if (!call_from_regs(t, regs, TRACER_NR_sched_yield, SC_WAIT, &call) ||
	    !reserve_n(&em, ARGUS_EV_SYS_EXIT, t, 0, true, 2))
		return 0;
	fill_entry(em.entry, &call);
	em.ev->sys_exit.fd = call.fd;
	em.ev->sys_exit.nr = call.nr;
	em.ev->sys_exit.calls = 1;
	submit(&em);
	return 0;
}

/* Without per-call capture: the call a waker in process context is in,
 * from its saved registers, when that call is what wakes (a send on an IPC
 * object, a futex wake): its record follows the wake-up. Sends on watched
 * sockets are left to sock_send_length. Returns the record type, 0 = none. */
static __always_inline __u16 waker_call(struct task_struct *t, struct sys_call *c)
{
	struct pt_regs *regs = user_regs(t);
	long nr;
	__u8 cls;

	if (!regs || !regs_in_syscall(regs))
		return 0;
	nr = regs_nr(regs);
	if (nr < 0 || nr >= TRACER_NR_MAX)
		return 0;
	cls = sys_class[nr];
	if (cls == SC_FUTEX) {
		if (!futex_is_wake((__u32)regs_arg(regs, 1) & FUTEX_CMD_MASK_) ||
		    !call_from_regs(t, regs, nr, cls, c))
			return 0;
		return ARGUS_EV_FUTEX_WAKE;
	}
	if (cls != SC_SEND || !call_from_regs(t, regs, nr, cls, c))
		return 0;
	if ((c->kind == ARGUS_OBJ_UNIX || c->kind == ARGUS_OBJ_TCP) &&
	    sock_watched(KCAST(struct sock, (void *)c->obj)))
		return 0;
	return ARGUS_EV_IPC_SEND;
}

/* The waker's call after its wake-up (waker_call): what it returns is not
 * seen (ARGUS_F_NORET). A send says the bytes it asked to send (1 when the
 * call does not say), a futex wake 1 when it wakes one thread at most, else
 * 2 (it may wake more). */
static __always_inline void fill_waker_call(struct argus_event *ev, __u16 type, struct sys_call *c)
{
	ev->type = type;
	ev->flags |= ARGUS_F_NORET;
	if (type == ARGUS_EV_FUTEX_WAKE) {
		ev->futex.uaddr = c->obj;
		ev->futex.op = c->arg1;
		ev->futex.val = c->arg2;
		ev->futex.ret = c->arg2 > 1 ? 2 : 1;
		ev->futex.timeout_ns = -1;
		ev->futex.uaddr2 = c->arg3;
		return;
	}
	ev->sys_exit.obj = c->obj;
	ev->sys_exit.peer_obj = c->peer;
	ev->sys_exit.ret = c->arg0 > 0 ? c->arg0 : 1;
	ev->sys_exit.dur_ns = 0;
	ev->sys_exit.fd = c->fd;
	ev->sys_exit.nr = c->nr;
	ev->sys_exit.obj_kind = c->kind;
	ev->sys_exit.calls = 1;
}

static __always_inline int wakeup(__u16 type, struct task_struct *p)
{
	struct task_struct *t = cur();
	struct argus_event *evs;
	struct sys_call call;
	__u16 ctype = 0, irq;
	struct thread_state *st = NULL;
	struct emit em;
	bool twaker;
	__u64 now;

	if (is_self(p) || is_self(t))
		return 0;
	/* the clock and the interrupt flags once, for the app set, the
	 * waker's call and the records */
	now = bpf_ktime_get_ns();
	irq = context_flags(now);
	/* only threads that have their storage already (traced ones that
	 * blocked): creating it for every waker would cost more than it saves */
	if (!irq && shed_bytes)
		st = bpf_task_storage_get(&threads, t, 0, 0);
	appset_wake(t, p, irq, st ? &st->seen : NULL);
	twaker = traced(t);
	if (!twaker && !traced(p))
		return 0;
	/* a kernel worker woken by a call is not its receiver (a pty write's
	 * worker: workqueue_queue_work says that write) */
	if (!per_call && twaker && type == ARGUS_EV_SCHED_WAKEUP && !(p->flags & PF_KTHREAD_) &&
	    !irq)
		ctype = waker_call(t, &call);
	if (ctype) {
		if (!reserve_n(&em, type, t, now, true, 2))
			return 0;
		evs = em.entry;
		fill_waker_call(&evs[1], ctype, &call);
		em.ev = &evs[0];
	} else if (!reserve_ctx(&em, type, t, now, irq, 1)) {
		return 0;
	}
	if (em.ev->flags & (ARGUS_F_HARDIRQ | ARGUS_F_SOFTIRQ)) {
		/* the interrupted task did not wake anyone */
		em.ev->pid = 0;
		em.ev->tid = 0;
		em.ev->flags &= ~ARGUS_F_KTHREAD;
	}
	em.ev->wakeup.wakee_pid = p->tgid;
	em.ev->wakeup.wakee_tid = p->pid;
	if (bpf_core_field_exists(p->thread_info.cpu))
		em.ev->wakeup.target_cpu = p->thread_info.cpu;
	else
		em.ev->wakeup.target_cpu = p->wake_cpu;
	em.ev->wakeup.wakee_prio = p->prio;
	submit(&em);
	return 0;
}

SEC("tp_btf/sched_waking")
int BPF_PROG(sched_waking, struct task_struct *p)
{
	return wakeup(ARGUS_EV_SCHED_WAKEUP, p);
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(sched_wakeup_new, struct task_struct *p)
{
	return wakeup(ARGUS_EV_SCHED_WAKEUP_NEW, p);
}

/* Without per-call capture: a pty write hands its bytes to a kernel worker
 * (the flip buffer's work), and that worker wakes the reader, so the write
 * is never a waker. It is known where it queues the work, from the writer's
 * saved registers: IPC_SEND as sched_waking writes it. Any other queued
 * work leaves after a few loads. */
SEC("tp_btf/workqueue_queue_work")
int BPF_PROG(workqueue_queue_work, int req_cpu, struct pool_workqueue *pwq,
             struct work_struct *work)
{
	struct task_struct *t = cur();
	struct pt_regs *regs;
	struct sys_call c;
	struct emit em;
	long nr;

	if (per_call || (t->flags & PF_KTHREAD_) || is_self(t))
		return 0;
	regs = user_regs(t);
	if (!regs || !regs_in_syscall(regs))
		return 0;
	nr = regs_nr(regs);
	if (nr < 0 || nr >= TRACER_NR_MAX || sys_class[nr] != SC_SEND)
		return 0;
	if (in_interrupt_ctx() || !traced(t))
		return 0;
	if (!call_from_regs(t, regs, nr, SC_SEND, &c) || c.kind != ARGUS_OBJ_PTY)
		return 0;
	if (!reserve_at(&em, ARGUS_EV_IPC_SEND, t, 0, true))
		return 0;
	fill_waker_call(em.ev, ARGUS_EV_IPC_SEND, &c);
	submit(&em);
	return 0;
}
