// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * sample.bpf.c - part of tracer.bpf.c (included there, one BPF object): the ~49 Hz cpu-clock samples of traced threads.
 * docs/kext.md says what each record means.
 */
/* ---- ~49 Hz cpu-clock samples of traced threads ---------------------------- */

/* Without per-call capture: whether the sampled thread is inside a poll
 * that does not wait (timeout 0), read from its saved registers. Such a
 * poll never blocks, so no other program sees it; a loop spinning on it
 * spends much of its time there, and the samples that hit it stand for it
 * (the trigger tells a spin from a loop that finds work by these polls). */
static __always_inline bool in_zero_timeout_poll(struct task_struct *t, struct pt_regs *uregs,
                                                 struct sys_call *c)
{
	long nr;

	if (per_call || !uregs || !regs_in_syscall(uregs))
		return false;
	nr = regs_nr(uregs);
	if (nr != TRACER_NR_poll && nr != TRACER_NR_ppoll && nr != TRACER_NR_select &&
	    nr != TRACER_NR_pselect6 && nr != TRACER_NR_epoll_wait &&
	    nr != TRACER_NR_epoll_pwait && nr != TRACER_NR_epoll_pwait2)
		return false;
	return call_from_regs(t, uregs, nr, sys_class[nr], c) && c->arg0 == 0;
}

SEC("perf_event")
int cpu_sample(struct bpf_perf_event_data *ctx)
{
	struct task_struct *t = cur();
	__u64 ip = 0, sp_ret = 0;
	struct argus_event *evs;
	struct sys_call call;
	struct mm_struct *mm;
	struct pt_regs *uregs;
	struct emit em;
	long id;

	if ((BPF_CORE_READ(t, flags) & PF_KTHREAD_) || !traced(t))
		return 0;
	uregs = user_regs(t);
	if (in_zero_timeout_poll(t, uregs, &call)) {
		/* the poll's entry and an exit that stands for it (ARGUS_F_NORET,
		 * ret 0: whether it found work is not seen), then the sample */
		if (!reserve_n(&em, ARGUS_EV_CPU_SAMPLE, t, 0, false, 3))
			return 0;
		evs = em.entry;
		fill_entry(&evs[0], &call);
		evs[1].type = ARGUS_EV_SYS_EXIT;
		evs[1].sys_exit.obj = call.obj;
		evs[1].sys_exit.peer_obj = call.peer;
		evs[1].sys_exit.fd = call.fd;
		evs[1].sys_exit.nr = call.nr;
		evs[1].sys_exit.obj_kind = call.kind;
		evs[1].sys_exit.calls = 1;
		for (int i = 0; i < 2; i++)
			evs[i].flags = (evs[i].flags & ~(ARGUS_F_HARDIRQ | ARGUS_F_SOFTIRQ)) |
			               (i ? ARGUS_F_NORET : 0);
	} else if (!reserve(&em, ARGUS_EV_CPU_SAMPLE, t)) {
		return 0;
	}
	id = user_stack_id(ctx, em.ev->cpu);
	if (uregs) {
		ip = regs_ip(uregs);
		mm = KCAST(struct mm_struct, t->mm);
		/* On CPU inside a shared library (a libc memcpy, a syscall
		 * wrapper the kernel is working for): its caller in the
		 * executable, which the frame-pointer walk skips, as for waits. */
		if (mm && (ip < mm->start_code || ip >= mm->end_code))
			sp_ret = user_sp_ret(mm, regs_sp(uregs), false);
	}
	em.ev->flags &= ~(ARGUS_F_HARDIRQ | ARGUS_F_SOFTIRQ); /* the sample's own context */
	em.ev->stack.ustack = id < 0 ? 0 : id + 1;
	em.ev->stack.ip = ip;
	em.ev->stack.sp_ret = sp_ret;
	em.ev->stack.kind = ARGUS_STACK_SAMPLE;
	em.ev->stack.copy = full_stack(t, uregs, em.ev->ts);
	submit(&em);
	return 0;
}
