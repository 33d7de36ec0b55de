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
/* The bench's meter (`--meter`): every program run timed and added up per
 * process and program in argus_meter. Off, the verifier drops its code. */
const volatile bool meter_tasks = false;

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

/* Long kernel waits' stacks (sched.bpf.c kwait_resumes): walked from the
 * waiting task when it is switched in, which bpf_get_stackid cannot do, by
 * a hash of their frames; frames past the walk are 0. An entry another
 * stack with the same hash replaced is read as that one (the decoder
 * checks the first frame is the kernel's). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, TRACER_KWAIT_STACKS);
	__type(key, __u32);
	__type(value, __u64[TRACER_STACK_DEPTH]);
} kwait_stacks SEC(".maps");

/* Per CPU: the frames of the stack being walked for kwait_stacks. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64[TRACER_STACK_DEPTH]);
} kwait_scratch SEC(".maps");

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

/* Per CPU: records gathered for the ring (kext/stage.bpf.c). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tracer_stage);
} stage SEC(".maps");

/* Per CPU: IPC records held to be written together (hold_ipc). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tracer_held);
} held SEC(".maps");

/* A place a thread blocked at and the stacks found there (ids as the STACK
 * record carries them: map id + 1, 0 = none). The place is the state of
 * the kernel's frame-pointer walk after its first frames (wait_place_of):
 * the user ip, the return addresses it read and the frame pointer it goes
 * on from. Not the stack pointer: a poll reached at several depths through
 * libraries without frame pointers has as many while the walk stays the
 * same. */
struct wait_place {
	__u64 ip;
	__u64 ret[TRACER_PLACE_FRAMES]; /* 0 past the frames read */
	__u64 next;                     /* 0 when the walk stopped */
	__u64 sp;                       /* the last wait's here, and its sp_ret */
	__u64 sp_ret;
	__u32 frames;                   /* frames read: fewer, the walk stops there */
	__u32 ustack;
	__u32 _pad[2];
};

/* Per thread: the processes it woke last whose wake-up left the app set
 * as it was, while appset_gen was gen (appset.bpf.h; slot = wakee tgid
 * modulo APPSET_SEEN, 0 = empty). */
#define APPSET_SEEN 4

struct appset_seen {
	__u64 gen;
	__u32 tgid; /* the thread's own when filled */
	__u32 wakee[APPSET_SEEN];
};

/* Per thread: a call that left its CPU, where the thread last blocked, and
 * the last few places it blocked at (wait_stack). Task-local storage: no
 * hash lookups, and it goes away with the thread. */
struct thread_state {
	__u64 kwait_ts; /* blocked then in a wait whose kernel stack tells (kstack_tells) */
	__u64 kwait_ip; /* ... at this user ip */
	struct sys_call call;
	__u64 wait_ip; /* user ip and sp of the last STACK emitted */
	__u64 wait_sp;
	struct wait_place places[TRACER_WAIT_PLACES];
	__u32 next_place; /* the one to replace next */
	struct appset_seen seen;
	__u64 eagain_sk; /* the thread's last socket record: an empty read of this socket */
	__u64 eagain_ts; /* ... written then (sock_call) */
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
	/* interrupt time of pend_tid not written yet, and whether a timer
	 * fire was written since the last record (proc.bpf.c irq_exit_record) */
	__u64 pend_ns;
	__u32 pend_tid;
	__u32 fired;
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

/* ---- the meter: what each process pays for each program ---------------- */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TRACER_METER_MAX);
	__type(key, struct tracer_meter_key);
	__type(value, struct tracer_meter_val);
} argus_meter SEC(".maps");

static const struct tracer_meter_val meter_zero = {};

/* Per CPU: when each program running now began (programs nest when an
 * interrupt cuts into one). Kept in a map rather than across the body, so
 * that with the meter off the bodies compile as without it. */
#define METER_DEPTH 4

struct meter_cpu {
	__u64 t0[METER_DEPTH];
	__u32 depth;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct meter_cpu);
} meter_cpu SEC(".maps");

static __always_inline void meter_begin(void)
{
	__u32 zero = 0;
	struct meter_cpu *c = bpf_map_lookup_elem(&meter_cpu, &zero);

	if (!c)
		return;
	__u32 d = c->depth;
	if (d < METER_DEPTH)
		c->t0[d & (METER_DEPTH - 1)] = bpf_ktime_get_ns();
	c->depth = d + 1;
}

/* The padding keeps the copy of 15 bytes inside the literal. */
#define METER_END(id, name)                                                                        \
	do {                                                                                       \
		__u32 zero = 0;                                                                    \
		struct meter_cpu *c = bpf_map_lookup_elem(&meter_cpu, &zero);                      \
		if (!c || !c->depth)                                                               \
			break;                                                                     \
		__u32 d = --c->depth;                                                              \
		if (d >= METER_DEPTH)                                                              \
			break;                                                                     \
		__u64 dt = bpf_ktime_get_ns() - c->t0[d & (METER_DEPTH - 1)];                      \
		struct tracer_meter_key mk = {.tgid = bpf_get_current_pid_tgid() >> 32,            \
		                              .prog = (id)};                                       \
		struct tracer_meter_val *mv = bpf_map_lookup_elem(&argus_meter, &mk);              \
		if (!mv) {                                                                         \
			bpf_map_update_elem(&argus_meter, &mk, &meter_zero, BPF_NOEXIST);          \
			mv = bpf_map_lookup_elem(&argus_meter, &mk);                               \
			if (!mv)                                                                   \
				break;                                                             \
			__builtin_memcpy(mv->prog, name "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 15);     \
		}                                                                                  \
		__sync_fetch_and_add(&mv->ns, dt);                                                 \
		__sync_fetch_and_add(&mv->runs, 1);                                                \
	} while (0)

/* libbpf's BPF_PROG with the meter around the body: every tracepoint program
 * is defined through it, so none is left out of the meter (the cpu-clock
 * sampler, a perf_event program, is not metered). */
#undef BPF_PROG
#define BPF_PROG(name, args...)                                                                    \
	name(unsigned long long *ctx);                                                             \
	static __always_inline typeof(name(0)) ____##name(unsigned long long *ctx, ##args);        \
	typeof(name(0)) name(unsigned long long *ctx)                                              \
	{                                                                                          \
		if (meter_tasks)                                                                   \
			meter_begin();                                                             \
		_Pragma("GCC diagnostic push") _Pragma(                                            \
		    "GCC diagnostic ignored \"-Wint-conversion\"") typeof(name(0)) meter_ret =     \
		    ____##name(___bpf_ctx_cast(args));                                             \
		_Pragma("GCC diagnostic pop") if (meter_tasks) METER_END(__COUNTER__, #name);      \
		return meter_ret;                                                                  \
	}                                                                                          \
	static __always_inline typeof(name(0)) ____##name(unsigned long long *ctx, ##args)

#include "helpers.bpf.c"

#include "syscalls.bpf.c"

#include "sched.bpf.c"

#include "sock.bpf.c"

/* ---- full user stacks for chosen processes (kext_full_stacks) ------------ */
/* (before proc.bpf.c: an exit drops its process from full_pids) */
#include "ustack.bpf.c"

#include "proc.bpf.c"

#include "sample.bpf.c"

/* ---- waits inside the kernel that a user-space server answers ---------- */
#include "kwait.bpf.c"
