/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * regs_x86_64.h - where an x86-64 task's saved user registers keep what the
 * kernel side reads: the syscall number and arguments, the user ip and sp.
 * Included by tracer.bpf.c (after vmlinux.h) through the build's
 * argus_arch.h; another architecture brings its own kext/regs_<arch>.h with
 * these functions (docs/kext.md, "Architectures"). regs is BTF-typed
 * (tp_btf, or cast with bpf_core_cast): direct loads, no probe reads.
 */
#ifndef ARGUS_KEXT_REGS_X86_64_H
#define ARGUS_KEXT_REGS_X86_64_H

/* The syscall a task is in or returns from (an exception's saved orig_ax is
 * an error code: check regs_in_syscall where that can be). */
static __always_inline long regs_nr(const struct pt_regs *regs)
{
	return regs->orig_ax;
}

/* A task inside a syscall has -ENOSYS in the saved ax until it returns. */
static __always_inline bool regs_in_syscall(const struct pt_regs *regs)
{
	return regs->ax == (unsigned long)-38;
}

/* Syscall argument i (0-5). */
static __always_inline __u64 regs_arg(const struct pt_regs *regs, int i)
{
	switch (i) {
	case 0:
		return regs->di;
	case 1:
		return regs->si;
	case 2:
		return regs->dx;
	case 3:
		return regs->r10;
	case 4:
		return regs->r8;
	default:
		return regs->r9;
	}
}

static __always_inline __u64 regs_ip(const struct pt_regs *regs)
{
	return regs->ip;
}

static __always_inline __u64 regs_sp(const struct pt_regs *regs)
{
	return regs->sp;
}

/* The frame pointer the kernel's user stack walk starts from. */
static __always_inline __u64 regs_fp(const struct pt_regs *regs)
{
	return regs->bp;
}

/* The user registers in DWARF numbering (the x86-64 psABI: rax, rdx, rcx,
 * rbx, rsi, rdi, rbp, rsp, r8-r15, then the return address column rip), for
 * an unwinder that starts from them (full stacks). Returns how many. */
#define REGS_DWARF_N 17
static __always_inline __u32 regs_dwarf(const struct pt_regs *regs, __u64 *out)
{
	out[0] = regs->ax;
	out[1] = regs->dx;
	out[2] = regs->cx;
	out[3] = regs->bx;
	out[4] = regs->si;
	out[5] = regs->di;
	out[6] = regs->bp;
	out[7] = regs->sp;
	out[8] = regs->r8;
	out[9] = regs->r9;
	out[10] = regs->r10;
	out[11] = regs->r11;
	out[12] = regs->r12;
	out[13] = regs->r13;
	out[14] = regs->r14;
	out[15] = regs->r15;
	out[16] = regs->ip;
	return REGS_DWARF_N;
}

#endif /* ARGUS_KEXT_REGS_X86_64_H */
