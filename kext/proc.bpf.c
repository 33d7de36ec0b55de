// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * proc.bpf.c - part of tracer.bpf.c (included there, one BPF object): process lifecycle (fork, exec, exit, rename), timers and the interrupts that cut into a traced thread.
 * docs/kext.md says what each record means.
 */
/* ---- process lifecycle --------------------------------------------------- */

/* The flags of the clone the parent (the current thread) is in, from the
 * syscall's saved registers, in clone's form (the exit signal in the low
 * byte). 0 when not known (a kernel thread). */
static __always_inline __u64 clone_flags_of(struct task_struct *parent)
{
	struct pt_regs *regs;
	long nr;

	regs = user_regs(parent);
	if (!regs)
		return 0;
	nr = regs_nr(regs);
	if (nr < 0 || nr >= TRACER_NR_MAX || sys_class[nr] != SC_CLONE)
		return 0;
	return derive_arg0(regs, sys_arg[nr]);
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(sched_process_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid), ctgid = BPF_CORE_READ(child, tgid);
	__u32 cpid = BPF_CORE_READ(child, pid);
	bool thread = ctgid != cpid;
	struct emit em;

	if (filter_pids && follow_children && !thread && bpf_map_lookup_elem(&pids, &ptgid)) {
		__u8 one = 1;

		bpf_map_update_elem(&pids, &ctgid, &one, BPF_ANY);
	}
	if (!traced(parent) && !traced(child))
		return 0;
	if (!reserve(&em, thread ? ARGUS_EV_THREAD_NEW : ARGUS_EV_PROC_FORK, parent))
		return 0;
	em.ev->fork.child_pid = ctgid;
	em.ev->fork.child_tid = cpid;
	em.ev->fork.clone_flags = clone_flags_of(parent);
	BPF_CORE_READ_STR_INTO(&em.ev->fork.comm, child, comm);
	submit(&em);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(sched_process_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	struct exec_path *path;
	struct emit em;
	__u32 zero = 0, tgid;

	appset_named(p);
	if (!traced(p))
		return 0;
	path = bpf_map_lookup_elem(&path_scratch, &zero);
	if (path) {
		tgid = BPF_CORE_READ(p, tgid);
		bpf_probe_read_kernel_str(path->path, sizeof(path->path),
		                          BPF_CORE_READ(bprm, filename));
		bpf_map_update_elem(&exec_paths, &tgid, path, BPF_ANY);
	}
	if (!reserve(&em, ARGUS_EV_PROC_EXEC, p))
		return 0;
	em.ev->exec.old_tid = old_pid;
	BPF_CORE_READ_STR_INTO(&em.ev->exec.comm, p, comm);
	submit(&em);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(sched_process_exit, struct task_struct *p, bool group_dead)
{
	__u32 tgid = p->tgid;
	bool want = traced(p);
	struct emit em;

	if (want && reserve(&em, group_dead ? ARGUS_EV_PROC_EXIT : ARGUS_EV_THREAD_EXIT, p)) {
		em.ev->exit.exit_code = BPF_CORE_READ(p, exit_code);
		submit(&em);
	}
	if (group_dead && filter_pids)
		bpf_map_delete_elem(&pids, &tgid);
	/* its full stacks end with it: the pid comes round as another's, and
	 * the map (TRACER_FULL_PIDS_MAX) would fill with the exited */
	if (group_dead)
		bpf_map_delete_elem(&full_pids, &tgid);
	return 0;
}

SEC("tp_btf/task_rename")
int BPF_PROG(task_rename, struct task_struct *task, const char *comm)
{
	struct emit em;

	if (!traced(task) || !reserve(&em, ARGUS_EV_COMM, task))
		return 0;
	bpf_probe_read_kernel_str(em.ev->comm.comm, sizeof(em.ev->comm.comm), comm);
	em.ev->comm.is_process = BPF_CORE_READ(task, pid) == BPF_CORE_READ(task, tgid);
	submit(&em);
	return 0;
}

/* ---- timers ---------------------------------------------------------------- */
/* The hrtimer_sleeper's callback: a timer with it is the timeout of a
 * blocking call (poll, epoll_wait, nanosleep, a futex wait with a timeout),
 * embedded in a struct hrtimer_sleeper that names the sleeping thread. 0 when
 * the kernel does not list it (then every timer is marked in `timers`). */
extern const void hrtimer_wakeup __ksym __weak;
/* ITIMER_REAL's callback (setitimer, alarm): the timer is the process's
 * own, in its struct signal_struct. An X server arms it at every burst of
 * requests (its scheduler's time slice). 0 when the kernel does not list
 * it. */
extern const void it_real_fn __ksym __weak;
/* The scheduler tick's callback: the timer that expires most often. It is
 * the kernel's (armed by the idle task or in an interrupt), never followed:
 * its fire and cancel leave before the map lookup (0 when the kernel does
 * not list it). */
extern const void tick_nohz_handler __ksym __weak;

static __always_inline bool is_tick(struct hrtimer *timer)
{
	__u64 tick = (__u64)&tick_nohz_handler;

	return tick && (__u64)timer->function == tick;
}

/* A timer its own callback restarted (HRTIMER_RESTART: perf's cpu-clock,
 * a periodic kernel timer): the expiry enqueues it again after
 * hrtimer_expire_exit, still in the interrupt (hrtimer_start fires there),
 * while its base on this CPU says it runs. Not a thread's arm. */
static __always_inline bool restarting(struct hrtimer *timer)
{
	struct hrtimer_clock_base *b = timer->base;

	return b && b->running == timer && b->cpu_base->cpu == bpf_get_smp_processor_id();
}

/* The thread a timer belongs to, for the timers only a thread of their own
 * arms, from task context: a sleeper (the thread it wakes) and a process's
 * ITIMER_REAL (its first thread: all share the process); NULL for any
 * other timer. Whether that thread is traced then says what `timers` would
 * have: a GUI thread arms a sleeper for nearly every poll with a timeout,
 * and an LRU map update per arm cost more than the TIMER_ARM record. */
static __always_inline struct task_struct *timer_owner(struct hrtimer *timer)
{
	__u64 fn = (__u64)timer->function;
	struct signal_struct *sig;
	__u64 next;

	if (!fn)
		return NULL;
	if (fn == (__u64)&hrtimer_wakeup)
		return KCAST(struct hrtimer_sleeper, timer)->task;
	if (fn != (__u64)&it_real_fn)
		return NULL;
	sig =
	    KCAST(struct signal_struct,
	          (void *)((__u64)timer - bpf_core_field_offset(struct signal_struct, real_timer)));
	next = (__u64)sig->thread_head.next;
	if (!next || next == (__u64)&sig->thread_head)
		return NULL;
	return KCAST(struct task_struct,
	             (void *)(next - bpf_core_field_offset(struct task_struct, thread_node)));
}

/* Whether an owned timer's records are wanted: its thread's arm wrote a
 * TIMER_ARM (a traced user thread; a kernel thread's is the kernel's). */
static __always_inline bool owner_traced(struct task_struct *t)
{
	return t && !(t->flags & PF_KTHREAD_) && traced(t);
}

/* A blocking call's own timeout: its owner is the thread it wakes. */
static __always_inline bool is_sleeper(struct hrtimer *timer)
{
	__u64 fn = (__u64)&hrtimer_wakeup;

	return fn && (__u64)timer->function == fn;
}

/* ts 0: interrupt context possible (the flags are looked up). sleeper:
 * the owner a sleeper's fire names in the header (kind SLEEPER). */
static __always_inline void timer_record(__u16 type, struct hrtimer *timer, bool irq_anon, __u64 ts,
                                         struct task_struct *sleeper)
{
	struct emit em;

	if (!reserve_at(&em, type, sleeper ? sleeper : cur(), ts, ts != 0))
		return;
	if (!sleeper && irq_anon && (em.ev->flags & (ARGUS_F_HARDIRQ | ARGUS_F_SOFTIRQ))) {
		em.ev->pid = 0;
		em.ev->tid = 0;
		em.ev->flags &= ~ARGUS_F_KTHREAD;
	}
	/* direct loads: timer is the tracepoint's own argument */
	em.ev->timer.obj = (__u64)timer;
	em.ev->timer.expires_ns = timer->node.expires;
	em.ev->timer.function = (__u64)timer->function;
	em.ev->timer.fd = -1;
	em.ev->timer.kind = sleeper ? ARGUS_TIMER_SLEEPER : ARGUS_TIMER_HRTIMER;
	submit(&em);
}

SEC("tp_btf/hrtimer_start")
int BPF_PROG(hrtimer_start, struct hrtimer *timer, enum hrtimer_mode mode, bool was_armed)
{
	struct task_struct *t = cur();
	__u64 key = (__u64)timer, now;
	__u8 one = 1;

	/* a sleeper is known at its fire alone (docs/kext.md "Timers"); only
	 * timers user threads arm; the kernel's own ticks are noise */
	if (is_sleeper(timer) || !trace_timers || (t->flags & PF_KTHREAD_) || !traced(t) ||
	    is_tick(timer) || restarting(timer))
		return 0;
	now = bpf_ktime_get_ns();
	if (context_flags(now))
		return 0;
	/* an owned timer is known again at its fire or cancel (timer_owner) */
	if (!timer_owner(timer))
		bpf_map_update_elem(&timers, &key, &one, BPF_ANY);
	timer_record(ARGUS_EV_TIMER_ARM, timer, false, now, NULL);
	return 0;
}

/* Whether the fire or cancel of timer is recorded: a traced thread's own
 * timer, or a timer marked at its arm (the mark goes). */
static __always_inline bool timer_marked(struct hrtimer *timer)
{
	__u64 key = (__u64)timer;
	struct task_struct *owner = timer_owner(timer);

	if (owner)
		return owner_traced(owner);
	if (is_tick(timer) || !bpf_map_lookup_elem(&timers, &key))
		return false;
	bpf_map_delete_elem(&timers, &key);
	return true;
}

/* Hard hrtimers expire in the local timer interrupt, and everything that
 * interrupt does for tasks runs in their callbacks (a sleeper's wake-up;
 * the tick's work, itself the tick_nohz_handler timer, high-resolution
 * mode): their expiry is the interrupt level, counted here instead of by
 * two programs more on local_timer_entry / exit. Soft ones expire in the
 * HRTIMER softirq, counted at softirq_entry. The exit is attached first. */
SEC("tp_btf/hrtimer_expire_exit")
int BPF_PROG(hrtimer_expire_exit, struct hrtimer *timer)
{
	expiry_nest(-1);
	return 0;
}

SEC("tp_btf/hrtimer_expire_entry")
int BPF_PROG(hrtimer_expire_entry, struct hrtimer *timer, ktime_t *now)
{
	struct task_struct *owner;

	stage_settle(false); /* the tick of a busy CPU writes out an old stage */
	if (!timer->is_soft)
		expiry_nest(1);
	if (!trace_timers)
		return 0;
	owner = is_sleeper(timer) ? timer_owner(timer) : NULL;
	if (owner ? owner_traced(owner) : timer_marked(timer)) {
		__u32 zero = 0;
		struct irq_depth *d = bpf_map_lookup_elem(&irq_ctx, &zero);

		timer_record(ARGUS_EV_TIMER_FIRE, timer, true, 0, owner);
		if (d)
			d->fired = 1;
	}
	return 0;
}

SEC("tp_btf/hrtimer_cancel")
int BPF_PROG(hrtimer_cancel, struct hrtimer *timer)
{
	/* the record names the canceller: argus never traces itself, also
	 * when it cancels a timer a traced task armed (a CI run saw one; the
	 * timer's mark is dropped all the same) */
	if (!is_sleeper(timer) && trace_timers && timer_marked(timer) && !is_self(cur()))
		timer_record(ARGUS_EV_TIMER_CANCEL, timer, false, 0, NULL);
	return 0;
}

/* ---- interrupts: only those that cut into a traced thread ------------------ */
/* An interrupt's time is added up per CPU while it cuts into one traced
 * thread, and written, at the exit of an interrupt's outermost level (a
 * hard interrupt inside a softirq is part of the softirq's), once it
 * reaches IRQ_WRITE_NS: most interrupts last a few microseconds, and a
 * record each cost the app more than its time is worth to the graph
 * (which takes it out of the segment's on-CPU time, to within
 * IRQ_WRITE_NS per stretch on the CPU: docs/kext.md "Interrupts"). The
 * entry writes nothing. An interrupt that fired a timer's record is
 * written whatever its time: its exit ends the scope of the timer's edge
 * in the graph. The time of another thread not written yet is dropped. */
#define IRQ_WRITE_NS 50000ull

static __always_inline void irq_exit_record(__u16 type, bool hard, __u32 irq, int ret)
{
	__u32 zero = 0;
	struct irq_depth *d = bpf_map_lookup_elem(&irq_ctx, &zero);
	struct task_struct *t;
	struct emit em;
	__u64 now, dur;

	if (!trace_irqs || !d)
		return;
	/* outermost: this level is the only one left (else attached
	 * mid-handler, its entry never seen: nothing, as the graph would
	 * drop an exit without entry) */
	if (hard ? d->hard != 1 || d->soft : d->soft != 1 || d->hard)
		return;
	t = cur();
	if (!traced(t))
		return;
	now = bpf_ktime_get_ns();
	dur = now > d->since ? now - d->since : 1;
	if (d->pend_tid != t->pid) {
		d->pend_tid = t->pid;
		d->pend_ns = 0;
	}
	dur += d->pend_ns;
	if (dur < IRQ_WRITE_NS && !d->fired) {
		d->pend_ns = dur;
		return;
	}
	d->pend_ns = 0;
	d->fired = 0;
	if (!reserve_ctx(&em, type, t, now, hard ? ARGUS_F_HARDIRQ : ARGUS_F_SOFTIRQ, 1))
		return;
	em.ev->irq.irq = irq;
	em.ev->irq.ret = ret;
	em.ev->irq.dur_ns = dur;
	submit(&em);
}

/* Exits are attached before entries (the skeleton attaches in this order),
 * so no entry is ever counted whose exit is not watched yet. */
SEC("tp_btf/irq_handler_exit")
int BPF_PROG(irq_handler_exit, int irq, struct irqaction *action, int ret)
{
	irq_exit_record(ARGUS_EV_IRQ_EXIT, true, irq, ret);
	irq_nest(true, -1);
	return 0;
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(softirq_exit, unsigned int vec)
{
	irq_exit_record(ARGUS_EV_SOFTIRQ_EXIT, false, vec, 0);
	irq_nest(false, -1);
	return 0;
}

/* IPIs are hard interrupts that do not pass through irq_handler_entry.
 * Their records would be noise; they only keep the nesting count (the
 * local APIC timer's is hrtimer_expire_entry / exit, above). */
SEC("tp_btf/call_function_single_exit")
int BPF_PROG(call_function_single_exit, int vector)
{
	irq_nest(true, -1);
	return 0;
}

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(irq_handler_entry, int irq, struct irqaction *action)
{
	irq_nest(true, 1);
	return 0;
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(softirq_entry, unsigned int vec)
{
	irq_nest(false, 1);
	return 0;
}

SEC("tp_btf/call_function_single_entry")
int BPF_PROG(call_function_single_entry, int vector)
{
	irq_nest(true, 1);
	return 0;
}
