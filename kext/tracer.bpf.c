// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer.bpf.c - the kernel half of argus: scheduling, the syscalls that wait
 * or communicate (filtered here, never all of them), IPC object identity,
 * timers, interrupts, wait stacks and cpu-clock samples, written as
 * struct argus_event records into one BPF ring buffer per CPU.
 * docs/kext.md says what each record means and where it comes from.
 * One BPF object: this file holds the settings and the maps and includes
 * the parts (helpers, syscalls, sched, sock, proc, ustack, sample, kwait).
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "argus_event.h"
#include "tracer.h"
/* saved-register access of this architecture (regs_nr, regs_arg, ...) */
#include ARGUS_ARCH_REGS_H

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* ---- settings, written by kext.c before load ------------------------- */
const volatile __u32 self_tgid = 0;      /* argus itself: never traced */
const volatile bool filter_pids = false; /* only tgids in `pids` */
const volatile bool follow_children = true;
const volatile bool filter_comm = false;
const volatile char comm_filter[ARGUS_COMM_LEN] = {};
const volatile __u64 filter_cgroup = 0;  /* cgroup v2 id, 0 = any */
const volatile __u64 wake_bytes = 65536; /* wake the reader past this fill */
const volatile bool trace_irqs = true;
const volatile bool trace_timers = true;
const volatile bool wait_stacks = true;
const volatile bool recv_enter = true; /* SYS_ENTER for receives too */
/* Per-call capture (`--syscalls`): the syscall exit tracepoint records every
 * traced call. Off (the default): no syscall tracepoint at all; blocked calls
 * come from sched_switch, the calls that wake from sched_waking, named and
 * loopback sockets from the socket tracepoints (docs/kext.md). */
const volatile bool per_call = false;
const volatile __u8 sys_class[TRACER_NR_MAX] = {};
const volatile __u8 sys_arg[TRACER_NR_MAX] = {};

/* ---- maps -------------------------------------------------------------- */
struct ring_map {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
};

/* One ring per CPU (inner maps created by kext.c, max_entries = CPUs). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct ring_map);
} rings SEC(".maps");

/* Records lost because the CPU's ring was full, and user stacks lost (stack
 * map full or hash collision), index = CPU. Global data: user space reads
 * them through the skeleton's mapping, without a syscall per CPU. */
__u64 ring_lost[TRACER_CPUS_MAX] = {};
__u64 stack_lost[TRACER_CPUS_MAX] = {};

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, TRACER_STACKS_MAX);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, TRACER_STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

/* Processes traced under a pid / command filter (children join at fork). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TRACER_PIDS_MAX);
	__type(key, __u32);
	__type(value, __u8);
} pids SEC(".maps");

/* The traced syscall a thread is in when it leaves its CPU (task storage):
 * read from the syscall's saved registers, timed from that moment. */
struct sys_call {
	__u64 ts; /* when the call first left the CPU; 0 = it never did */
	__u64 obj;
	__u64 peer;
	__s64 arg0;
	__s64 arg1;
	__u64 arg2;
	__u64 arg3;
	__s32 fd;
	__u32 tid;
	__u16 nr;
	__u8 kind;
	__u8 cls;     /* SC_NONE = not inside a traced syscall */
	__u8 entered; /* its entry record (SYS_ENTER, FUTEX_WAIT) is written */
	__u8 named;   /* on a named unix socket (fd_object) */
	__u8 blocked; /* !per_call: it blocked; its switch-in writes its end */
	__u8 sockend; /* !per_call: a watched socket's receive: sock_recv_length ends it */
};

/* Per CPU: the thread switched in last, and whether it was inside a traced
 * syscall that left the CPU (its call is in task storage). A call that exits
 * with `clean` set never left the CPU: no storage lookup. */
struct resumed {
	__u32 tid;
	__u8 clean;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct resumed);
} resumed SEC(".maps");

/* Per CPU: IPC records held to be written together (hold_ipc). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tracer_held);
} held SEC(".maps");

/* A place a thread blocked at (user ip and sp) and the stacks found there
 * (ids as the STACK record carries them: map id + 1, 0 = none). */
struct wait_place {
	__u64 ip;
	__u64 sp;
	__u64 sp_ret;
	__u32 ustack;
	__u32 kstack;
};

/* Per thread: a call that left its CPU, where the thread last blocked, and
 * the last few places it blocked at (wait_stack). Task-local storage: no
 * hash lookups, and it goes away with the thread. */
struct thread_state {
	struct sys_call call;
	__u64 wait_ip; /* user ip and sp of the last STACK emitted */
	__u64 wait_sp;
	struct wait_place places[TRACER_WAIT_PLACES];
	__u32 next_place; /* the one to replace next */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct thread_state);
} threads SEC(".maps");

/* hrtimers armed by traced tasks: their expiry is worth a record. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, TRACER_TIMERS_MAX);
	__type(key, __u64);
	__type(value, __u8);
} timers SEC(".maps");

/* The path each exec ran, for user space to name PROC_EXEC records of
 * processes that are gone by the time they are decoded. */
struct exec_path {
	char path[TRACER_PATH_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, TRACER_EXECS_MAX);
	__type(key, __u32);
	__type(value, struct exec_path);
} exec_paths SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct exec_path);
} path_scratch SEC(".maps");

/* Scratch for the user-stack scan behind sp_ret. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64[TRACER_SCAN_WORDS]);
} scan SEC(".maps");

/* Interrupt nesting of each CPU, kept by the irq tracepoints below: the
 * kernel's preempt count is a per-CPU variable this kernel does not export
 * to BPF, and wake-ups need to say whether they came from an interrupt. */
struct irq_depth {
	__u32 hard;
	__u32 soft;
	__u64 since; /* when the outermost level was entered */
};

/* No handler runs this long: a count older than this lost its exit (an
 * entry seen while attaching) and is reset rather than taint every record. */
#define IRQ_STALE_NS 20000000ull

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct irq_depth);
} irq_ctx SEC(".maps");

/* Loopback TCP: which struct sock is the other end of a connection. sk
 * storage would be the natural home, but bpf_sk_storage_get needs a trusted
 * socket pointer and the one sys_enter finds through the fd table is not
 * (an rdonly cast). Keys are socket addresses; an entry goes at TCP_CLOSE,
 * before the socket can be freed and its address reused. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, TRACER_TCP_MAX);
	__type(key, __u64);   /* struct sock * */
	__type(value, __u64); /* the peer's struct sock * */
} tcp_peers SEC(".maps");

/* A connection seen from one end: addresses in IPv6 form (IPv4 as
 * ::ffff:a.b.c.d, so a v4-mapped socket meets its IPv4 peer), host-order
 * ports, and the network namespace (loopback is per namespace). */
struct tcp_tuple {
	__u64 net;
	__u32 saddr[4];
	__u32 daddr[4];
	__u16 sport;
	__u16 dport;
	__u32 pad;
};

/* Ends not paired yet, by their own tuple: the other end looks itself up
 * reversed. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, TRACER_TCP_MAX);
	__type(key, struct tcp_tuple);
	__type(value, __u64); /* struct sock * */
} tcp_ends SEC(".maps");

#include "helpers.bpf.c"

#include "syscalls.bpf.c"

#include "sched.bpf.c"

#include "sock.bpf.c"

#include "proc.bpf.c"

/* ---- full user stacks for chosen processes (kext_full_stacks) ------------ */
#include "ustack.bpf.c"

#include "sample.bpf.c"

/* ---- waits inside the kernel that a user-space server answers ---------- */
#include "kwait.bpf.c"
