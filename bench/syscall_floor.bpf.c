// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * syscall_floor.bpf.c - an empty program on the syscall exit tracepoint, for
 * `argus bench overhead --floor`: what any tracer that sees syscalls pays on
 * this kernel before it does any work of its own. Attaching it puts every
 * task's syscalls on the kernel's slow path and dispatches a program at each
 * exit; argus's own sys_exit program (kext/tracer.bpf.c) pays that too.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

SEC("tp_btf/sys_exit")
int BPF_PROG(floor_sys_exit, struct pt_regs *regs, long ret)
{
	return 0;
}
