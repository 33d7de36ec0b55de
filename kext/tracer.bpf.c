// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer.bpf.c - the kernel half of argus: scheduling, the syscalls that wait
 * or communicate (filtered here, never all of them), IPC object identity,
 * timers, interrupts, wait stacks and cpu-clock samples, written as
 * struct argus_event records into one BPF ring buffer per CPU.
 * docs/kext.md says what each record means and where it comes from.
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

/* Per thread: a call that left its CPU, and where the thread last blocked.
 * Task-local storage: no hash lookups, and it goes away with the thread. */
struct thread_state {
	struct sys_call call;
	__u64 wait_ip; /* user ip and sp of the last STACK emitted */
	__u64 wait_sp;
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

/* ---- helpers ----------------------------------------------------------- */
#define PF_KTHREAD_ 0x00200000
#define S_IFMT_     00170000
#define S_IFSOCK_   0140000
#define S_IFIFO_    0010000
#define S_IFCHR_    0020000
/* pseudo-terminals: the ptmx master (5:2) and UNIX98 slaves (136..143) */
#define TTYAUX_MAJOR_        5
#define PTMX_MINOR_          2
#define PTS_MAJOR_FIRST_     136
#define PTS_MAJOR_LAST_      143
#define AF_UNIX_             1
#define AF_INET_             2
#define AF_INET6_            10
#define IPPROTO_TCP_         6
#define ANON_INODE_FS_MAGIC_ 0x09041934
#define FUTEX_CMD_MASK_      0x7f /* without FUTEX_PRIVATE_FLAG, FUTEX_CLOCK_REALTIME */

static __always_inline __u16 context_flags(__u64 now)
{
	__u32 zero = 0;
	struct irq_depth *d = bpf_map_lookup_elem(&irq_ctx, &zero);
	__u16 f = 0;

	if (!d || !(d->hard | d->soft))
		return 0;
	if (now - d->since > IRQ_STALE_NS) {
		d->hard = 0;
		d->soft = 0;
		return 0;
	}
	if (d->hard)
		f |= ARGUS_F_HARDIRQ;
	if (d->soft)
		f |= ARGUS_F_SOFTIRQ;
	return f;
}

/* hard: 1 = hardirq nesting, 0 = softirq; delta +1 entry, -1 exit */
static __always_inline void irq_nest(bool hard, int delta)
{
	__u32 zero = 0;
	struct irq_depth *d = bpf_map_lookup_elem(&irq_ctx, &zero);
	__u32 *v;

	if (!d)
		return;
	v = hard ? &d->hard : &d->soft;
	if (delta > 0) {
		if (!(d->hard | d->soft))
			d->since = bpf_ktime_get_ns();
		*v += 1;
	} else if (*v > 0) /* attached mid-handler: its entry was never seen */
		*v -= 1;
}

static __always_inline bool in_interrupt_ctx(void)
{
	return context_flags(bpf_ktime_get_ns()) != 0;
}

/* Whether records about task t are wanted (t NULL = the current task). */
static __always_inline bool traced(struct task_struct *t)
{
	__u32 tgid = t->tgid;

	if (tgid == 0 || tgid == self_tgid)
		return false;
	if (filter_pids && !bpf_map_lookup_elem(&pids, &tgid))
		return false;
	if (filter_comm) {
		char comm[ARGUS_COMM_LEN];

		BPF_CORE_READ_STR_INTO(&comm, t, group_leader, comm);
		for (int i = 0; i < ARGUS_COMM_LEN; i++) {
			if (comm[i] != comm_filter[i])
				return false;
			if (!comm[i])
				break;
		}
	}
	if (filter_cgroup && BPF_CORE_READ(t, cgroups, dfl_cgrp, kn, id) != filter_cgroup)
		return false;
	return true;
}

static __always_inline bool is_self(struct task_struct *t)
{
	return t->tgid == self_tgid;
}

/* Direct (PROBE_MEM) loads through a kernel pointer found by a read: much
 * cheaper than one bpf_probe_read_kernel call per field. */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym;
#define KCAST(type, p) ((type *)bpf_rdonly_cast((p), bpf_core_type_id_kernel(type)))

/* One kernel word at p, by a direct load where the kernel's BTF offers a
 * one-word struct to cast to (struct fd, Linux >= 6.12): a probe-read helper
 * call costs more than the rest of a record. */
static __always_inline __u64 load_word(const void *p)
{
	__u64 w = 0;

	if (bpf_core_field_exists(struct fd, word))
		return KCAST(struct fd, (void *)p)->word;
	bpf_probe_read_kernel(&w, sizeof(w), p);
	return w;
}

struct emit {
	void *ring;
	void *entry;            /* what bpf_ringbuf_reserve returned */
	struct argus_event *ev; /* the record to fill: the entry's last */
};

/* Reserve nrec records (a constant) about the same task at the same ts in
 * one ring entry of this CPU's ring: records written together by one
 * program cost one reservation and one commit (the reader splits entries
 * into 64-byte records). A full ring is counted, never hidden. ts 0 = now;
 * task_ctx: the caller runs in a syscall, never in an interrupt (saves the
 * nesting lookup on the hottest paths). em->ev is the last record, with
 * `type`; the others get their type from the caller. */
static __always_inline void count_lost(__u32 cpu, __u64 n)
{
	if (cpu < TRACER_CPUS_MAX)
		__sync_fetch_and_add(&ring_lost[cpu], n);
}

/* the app set and shedding under overload (appset_*) */
#include "appset.bpf.h"

/* Write the held records into ring as one entry (1..TRACER_HELD_MAX). */
static __always_inline void write_held(struct tracer_held *h, void *ring, __u32 cpu)
{
	__u32 n = h->n;

	h->n = 0;
	if (n > TRACER_HELD_MAX)
		n = TRACER_HELD_MAX;
	if (n && appset_shed_tgid(ring, h->ev[0].pid, cpu, n))
		return;
	if (n && bpf_ringbuf_output(ring, h->ev, n * sizeof(struct argus_event), BPF_RB_NO_WAKEUP))
		count_lost(cpu, n);
}

/* Write this CPU's held records, if any, into ring: they are older than any
 * record about to be written here. Skipped while sys_exit is changing them
 * (this program interrupted it): they are written later, stamped earlier,
 * and the merge puts them back in order. */
static __always_inline void flush_held(void *ring, __u32 cpu)
{
	__u32 zero = 0;
	struct tracer_held *h = bpf_map_lookup_elem(&held, &zero);

	if (h && h->n && !h->busy) {
		/* an interrupt's program may flush too: not twice */
		h->busy = 1;
		write_held(h, ring, cpu);
		h->busy = 0;
	}
}

static __always_inline bool reserve_n(struct emit *em, __u16 type, struct task_struct *t, __u64 ts,
                                      bool task_ctx, const int nrec)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct argus_event *ev;
	__u16 flags;

	em->ring = bpf_map_lookup_elem(&rings, &cpu);
	if (!em->ring)
		return false;
	if (per_call)
		flush_held(em->ring, cpu);
	if (appset_shed(em->ring, t, cpu, nrec))
		return false;
	ev = bpf_ringbuf_reserve(em->ring, nrec * sizeof(struct argus_event), 0);
	if (!ev) {
		count_lost(cpu, nrec);
		return false;
	}
	em->entry = ev;
	__builtin_memset(ev, 0, nrec * sizeof(struct argus_event));
	ts = ts ? ts : bpf_ktime_get_ns();
	flags = task_ctx ? 0 : context_flags(ts);
	for (int i = 0; i < nrec; i++) {
		ev[i].ts = ts;
		ev[i].type = type;
		ev[i].cpu = cpu;
		ev[i].flags = flags;
		if (t) {
			ev[i].pid = t->tgid;
			ev[i].tid = t->pid;
			if (t->flags & PF_KTHREAD_)
				ev[i].flags |= ARGUS_F_KTHREAD;
		}
	}
	em->ev = &ev[nrec - 1];
	return true;
}

static __always_inline bool reserve_at(struct emit *em, __u16 type, struct task_struct *t, __u64 ts,
                                       bool task_ctx)
{
	return reserve_n(em, type, t, ts, task_ctx, 1);
}

/* The largest entry written (sched_switch: SYS_ENTER + SCHED_SWITCH + the
 * end of next's call). */
#define ENTRY_RECORDS_MAX 3
_Static_assert(ENTRY_RECORDS_MAX <= ARGUS_RING_ENTRY_MAX, "readers split entries this large");
_Static_assert(TRACER_HELD_MAX <= ARGUS_RING_ENTRY_MAX, "held records are written as one entry");

static __always_inline bool reserve(struct emit *em, __u16 type, struct task_struct *t)
{
	return reserve_at(em, type, t, 0, false);
}

/* Submit without waking the reader, except once the ring fills past
 * wake_bytes: a wake-up per record costs several times the record, and a
 * reader that lags would otherwise be woken for every one (it also polls on
 * a timer). The fill is looked at every WAKE_CHECK_EVERY entries of a CPU:
 * less than the window it must cross, so no crossing is missed. */
#define WAKE_CHECK_EVERY 32

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} submits SEC(".maps");

static __always_inline void submit(struct emit *em)
{
	__u32 zero = 0, *n = bpf_map_lookup_elem(&submits, &zero);
	/* entries of up to ENTRY_RECORDS_MAX records, 8-byte ring headers */
	__u64 window = 2 * WAKE_CHECK_EVERY * (ENTRY_RECORDS_MAX * sizeof(struct argus_event) + 8);
	__u64 avail;

	if (n && (++*n % WAKE_CHECK_EVERY)) {
		bpf_ringbuf_submit(em->entry, BPF_RB_NO_WAKEUP);
		return;
	}
	avail = bpf_ringbuf_query(em->ring, BPF_RB_AVAIL_DATA);
	bpf_ringbuf_submit(em->entry, avail >= wake_bytes && avail < wake_bytes + window
	                                  ? BPF_RB_FORCE_WAKEUP
	                                  : BPF_RB_NO_WAKEUP);
}

#define EFAULT_ 14

/* Intern the current task's user stack in the stack map; -1 when there is
 * none (-EFAULT: no user frames) and, counted, when the map cannot keep it.
 * A colliding stack replaces the old one (the map never fills up); the
 * decoder checks each stack it reads against the record's user ip. */
static __always_inline long user_stack_id(void *ctx, __u32 cpu)
{
	long id = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK | BPF_F_REUSE_STACKID);

	if (id < 0 && id != -EFAULT_) {
		if (cpu < TRACER_CPUS_MAX)
			__sync_fetch_and_add(&stack_lost[cpu], 1);
	}
	return id;
}

static __always_inline struct task_struct *cur(void)
{
	return (struct task_struct *)bpf_get_current_task_btf();
}

static __always_inline bool loopback4(__u32 addr)
{
	return (addr & 0xff) == 127; /* network byte order: first octet */
}

/* A TCP socket whose peer is a loopback address: 127/8, ::1, ::ffff:127/104.
 * Direct loads: sk is an rdonly cast (sys_enter) or a tracepoint argument. */
static __always_inline bool tcp_loopback(const struct sock *sk, __u16 family)
{
	const __u32 *a = sk->__sk_common.skc_v6_daddr.in6_u.u6_addr32;

	if (family == AF_INET_)
		return loopback4(sk->__sk_common.skc_daddr);
	if (family != AF_INET6_ || a[0] || a[1])
		return false;
	if (!a[2] && a[3] == bpf_htonl(1))
		return true; /* ::1 */
	return a[2] == bpf_htonl(0xffff) && loopback4(a[3]);
}

static __always_inline void tcp_tuple_of(const struct sock *sk, __u16 family, struct tcp_tuple *k)
{
	__builtin_memset(k, 0, sizeof(*k));
	k->net = (__u64)sk->__sk_common.skc_net.net;
	k->sport = sk->__sk_common.skc_num;
	k->dport = bpf_ntohs(sk->__sk_common.skc_dport);
	if (family == AF_INET_) {
		k->saddr[2] = k->daddr[2] = bpf_htonl(0xffff);
		k->saddr[3] = sk->__sk_common.skc_rcv_saddr;
		k->daddr[3] = sk->__sk_common.skc_daddr;
		return;
	}
	for (int i = 0; i < 4; i++) {
		k->saddr[i] = sk->__sk_common.skc_v6_rcv_saddr.in6_u.u6_addr32[i];
		k->daddr[i] = sk->__sk_common.skc_v6_daddr.in6_u.u6_addr32[i];
	}
}

/* Pair a loopback TCP end with the other end if that one is known (then
 * both learn their peer), else leave it for the other end to find. Returns
 * the peer, 0 when not known yet. Rare (a connection's first calls): a
 * subprogram, not inlined into the hot paths. */
static __noinline __u64 tcp_pair(const struct sock *sk, __u16 family)
{
	struct tcp_tuple k, r;
	__u64 me = (__u64)sk, other, *found;

	tcp_tuple_of(sk, family, &k);
	r = k;
	__builtin_memcpy(r.saddr, k.daddr, sizeof(r.saddr));
	__builtin_memcpy(r.daddr, k.saddr, sizeof(r.daddr));
	r.sport = k.dport;
	r.dport = k.sport;
	found = bpf_map_lookup_elem(&tcp_ends, &r);
	if (!found || *found == me) {
		bpf_map_update_elem(&tcp_ends, &k, &me, BPF_ANY);
		return 0;
	}
	other = *found;
	bpf_map_update_elem(&tcp_peers, &me, &other, BPF_ANY);
	bpf_map_update_elem(&tcp_peers, &other, &me, BPF_ANY);
	bpf_map_delete_elem(&tcp_ends, &r);
	bpf_map_delete_elem(&tcp_ends, &k);
	return other;
}

#define TCP_ESTABLISHED_ 1
#define TCP_CLOSE_       7
#define TCP_CLOSE_WAIT_  8

/* The peer of a loopback TCP socket: one hash lookup once paired. Ends are
 * paired when they become established (inet_sock_set_state below); a
 * connection made before tracing began is paired here, once both ends have
 * made a call (until then its records have no peer). */
static __always_inline __u64 tcp_peer(const struct sock *sk, __u16 family)
{
	__u64 key = (__u64)sk, *peer = bpf_map_lookup_elem(&tcp_peers, &key);
	__u8 state;

	if (peer)
		return *peer;
	state = sk->__sk_common.skc_state;
	/* only connected ends, whose TCP_CLOSE is still to come and removes them */
	if (state != TCP_ESTABLISHED_ && state != TCP_CLOSE_WAIT_)
		return 0;
	return tcp_pair(sk, family);
}

/* The kernel object behind fd of t (the current task: the caller's, which
 * saves a helper call), CO-RE all the way down. *named: a unix socket with
 * a bound address, such as a server's end of a connection its clients made
 * to a path (a display server, a message bus). */
static __always_inline __u8 fd_object(struct task_struct *t, int fd, __u64 *obj, __u64 *peer,
                                      bool *named)
{
	struct files_struct *files = t->files;
	struct fdtable *fdt = files ? files->fdt : NULL;
	struct file **fdarr;
	struct file *f = NULL;
	unsigned int max;
	umode_t mode;
	void *priv;

	*obj = 0;
	*peer = 0;
	if (fd < 0 || !fdt)
		return ARGUS_OBJ_NONE;
	max = fdt->max_fds;
	if ((unsigned int)fd >= max)
		return ARGUS_OBJ_NONE;
	fdarr = fdt->fd;
	f = KCAST(struct file, (void *)load_word(&fdarr[fd]));
	if (!f)
		return ARGUS_OBJ_NONE;
	mode = f->f_inode->i_mode;
	priv = f->private_data;
	if ((mode & S_IFMT_) == S_IFIFO_) {
		*obj = (__u64)priv; /* struct pipe_inode_info */
		return ARGUS_OBJ_PIPE;
	}
	if ((mode & S_IFMT_) == S_IFSOCK_) {
		struct socket *sock = KCAST(struct socket, priv);
		struct sock *sk = sock->sk;
		__u16 family = sk->__sk_common.skc_family;

		*obj = (__u64)sk;
		if (family == AF_UNIX_) {
			struct unix_sock *u = KCAST(struct unix_sock, sk);

			*peer = (__u64)u->peer;
			*named = u->addr != NULL;
			return ARGUS_OBJ_UNIX;
		}
		if (sk->sk_protocol != IPPROTO_TCP_ || !tcp_loopback(sk, family))
			return ARGUS_OBJ_NONE;
		*peer = tcp_peer(sk, family);
		return ARGUS_OBJ_TCP;
	}
	if ((mode & S_IFMT_) == S_IFCHR_) {
		/* a pty end: what one end writes the other end reads (a child on
		 * a terminal, a terminal emulator), matched like a socket pair;
		 * other character devices are files */
		__u32 rdev = f->f_inode->i_rdev, major = rdev >> 20, minor = rdev & 0xfffff;

		if ((major == TTYAUX_MAJOR_ && minor == PTMX_MINOR_) ||
		    (major >= PTS_MAJOR_FIRST_ && major <= PTS_MAJOR_LAST_)) {
			struct tty_file_private *tp = KCAST(struct tty_file_private, priv);
			struct tty_struct *tty = tp ? tp->tty : NULL;

			if (tty) {
				*obj = (__u64)tty;
				*peer = (__u64)tty->link;
				return ARGUS_OBJ_PTY;
			}
		}
		*obj = (__u64)f;
		return ARGUS_OBJ_FILE;
	}
	/* eventfd and timerfd are anonymous inodes named by their dentry;
	 * anything else (files, ttys, devices) is done here. */
	if (f->f_inode->i_sb->s_magic != ANON_INODE_FS_MAGIC_) {
		*obj = (__u64)f;
		return ARGUS_OBJ_FILE;
	}
	{
		char name[10] = {};
		const unsigned char *dn = BPF_CORE_READ(f, f_path.dentry, d_name.name);

		bpf_probe_read_kernel(name, 9, dn);
		if (name[0] == '[' && name[2] == 'v' && name[3] == 'e' && name[4] == 'n' &&
		    name[5] == 't' && name[6] == 'f' && name[7] == 'd' && name[8] == ']' &&
		    name[1] == 'e') {
			*obj = (__u64)priv; /* struct eventfd_ctx */
			return ARGUS_OBJ_EVENTFD;
		}
		if (name[0] == '[' && name[1] == 't' && name[2] == 'i' && name[3] == 'm' &&
		    name[4] == 'e' && name[5] == 'r' && name[6] == 'f' && name[7] == 'd' &&
		    name[8] == ']') {
			struct timerfd_ctx *ctx = priv;

			/* the ctx's hrtimer: TIMER_FIRE names the same object */
			*obj = (__u64)&ctx->t.tmr;
			return ARGUS_OBJ_TIMERFD;
		}
	}
	*obj = (__u64)f;
	return ARGUS_OBJ_FILE;
}

/* A socket the socket tracepoints record when there is no per-call
 * capture: a unix socket of a named connection (either end bound: a display
 * server's, a message bus's) or a loopback TCP end. Socket pairs and other
 * sockets are left to sched_switch and sched_waking (docs/kext.md). */
static __always_inline bool sock_watched(const struct sock *sk)
{
	__u16 family = sk->__sk_common.skc_family;

	if (family == AF_UNIX_) {
		struct unix_sock *u = KCAST(struct unix_sock, (void *)sk);
		struct sock *peer = u->peer;

		if (u->addr)
			return true;
		return peer && KCAST(struct unix_sock, peer)->addr;
	}
	return sk->sk_protocol == IPPROTO_TCP_ && tcp_loopback(sk, family);
}

static __always_inline __s64 user_timespec_ns(__u64 uptr)
{
	struct __kernel_timespec ts;

	if (!uptr || bpf_probe_read_user(&ts, sizeof(ts), (void *)uptr))
		return -1;
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static __always_inline __s64 user_timeval_ns(__u64 uptr)
{
	struct __kernel_old_timeval tv;

	if (!uptr || bpf_probe_read_user(&tv, sizeof(tv), (void *)uptr))
		return -1;
	return tv.tv_sec * 1000000000LL + tv.tv_usec * 1000LL;
}

#define SIGCHLD_     17
#define CSIGNAL_     0xff
#define CLONE_VM_    0x100
#define CLONE_VFORK_ 0x4000

/* clone3's flags in clone's form: the exit signal in the low byte. */
static __always_inline __s64 clone3_flags(__u64 uptr)
{
	__u64 args[5]; /* struct clone_args: flags, pidfd, child_tid, parent_tid, exit_signal */

	if (!uptr || bpf_probe_read_user(args, sizeof(args), (void *)uptr))
		return 0;
	return args[0] | (args[4] & CSIGNAL_);
}

static __always_inline __s64 derive_arg0(struct pt_regs *regs, __u8 how)
{
	__s64 v;

	switch (how) {
	case SA_COUNT2:
		return regs_arg(regs, 2);
	case SA_MS2:
		v = (int)regs_arg(regs, 2);
		return v < 0 ? -1 : v * 1000000;
	case SA_MS3:
		v = (int)regs_arg(regs, 3);
		return v < 0 ? -1 : v * 1000000;
	case SA_TS0:
		return user_timespec_ns(regs_arg(regs, 0));
	case SA_TS2:
	case SA_PTS2:
		return user_timespec_ns(regs_arg(regs, 2));
	case SA_TS3:
		return user_timespec_ns(regs_arg(regs, 3));
	case SA_TS4:
		return user_timespec_ns(regs_arg(regs, 4));
	case SA_TV4:
		return user_timeval_ns(regs_arg(regs, 4));
	case SA_PID0:
		return (int)regs_arg(regs, 0);
	case SA_PID1:
		return (int)regs_arg(regs, 1);
	case SA_CLONE: /* the kernel takes the low 32 bits */
		return (__u32)regs_arg(regs, 0);
	case SA_CARGS:
		return clone3_flags(regs_arg(regs, 0));
	case SA_FORK:
		return SIGCHLD_;
	case SA_VFORK:
		return CLONE_VM_ | CLONE_VFORK_ | SIGCHLD_;
	default:
		return 0;
	}
}

static __always_inline bool futex_is_wait(__u32 cmd)
{
	return cmd == 0 /* WAIT */ || cmd == 9 /* WAIT_BITSET */ || cmd == 6 /* LOCK_PI */ ||
	       cmd == 13 /* LOCK_PI2 */ || cmd == 11 /* WAIT_REQUEUE_PI */;
}

static __always_inline bool futex_is_wake(__u32 cmd)
{
	return cmd == 1 /* WAKE */ || cmd == 3 /* REQUEUE */ || cmd == 4 /* CMP_REQUEUE */ ||
	       cmd == 5 /* WAKE_OP */ || cmd == 7 /* UNLOCK_PI */ || cmd == 10 /* WAKE_BITSET */ ||
	       cmd == 12 /* CMP_REQUEUE_PI */;
}

/* ---- syscalls ------------------------------------------------------------ */
/*
 * Only the exit of a syscall is hooked. Most traced calls (sends, receives,
 * polls that find work) never leave their CPU; for them the exit has all
 * there is to say, from the saved registers, and entry work cost as much as
 * the rest of their tracing (the entry hook's dispatch alone cost ~3 % of
 * `perf bench sched messaging`). A call that leaves the CPU (it blocks, or
 * is preempted) is read from its saved registers by sched_switch
 * (call_left_cpu) and kept in task storage; its entry record (SYS_ENTER,
 * FUTEX_WAIT) is written when it first blocks, so a blocked thread is known
 * to wait before it returns. Durations count from the first switch out; a
 * call that never left its CPU has dur_ns 0.
 */

/* Whether a call has an entry record: waits always (when they block, else
 * at their exit), receives only when they block (most find data waiting:
 * their IPC_RECV says enough), sends, clones and timerfd settings never. */
static __always_inline bool has_entry(struct sys_call *c, bool blocked)
{
	switch (c->cls) {
	case SC_WAIT:
	case SC_FDWAIT:
		return true;
	case SC_FUTEX:
		return futex_is_wait((__u32)c->arg1 & FUTEX_CMD_MASK_);
	case SC_RECV:
		return blocked && recv_enter;
	default:
		return false;
	}
}

/* The entry record of a call: FUTEX_WAIT for futex waits, else SYS_ENTER. */
static __always_inline void fill_entry(struct argus_event *ev, struct sys_call *c)
{
	if (c->cls == SC_FUTEX) {
		ev->type = ARGUS_EV_FUTEX_WAIT;
		ev->futex.uaddr = c->obj;
		ev->futex.op = c->arg1;
		ev->futex.val = c->arg2;
		ev->futex.timeout_ns = c->arg0;
		ev->futex.uaddr2 = c->arg3;
		return;
	}
	ev->type = ARGUS_EV_SYS_ENTER;
	ev->sys_enter.obj = c->obj;
	ev->sys_enter.peer_obj = c->peer;
	ev->sys_enter.arg0 = c->arg0;
	ev->sys_enter.arg1 = c->arg1;
	ev->sys_enter.fd = c->fd;
	ev->sys_enter.nr = c->nr;
	ev->sys_enter.obj_kind = c->kind;
}

static __always_inline void emit_entry(struct sys_call *c, struct task_struct *t, __u64 ts)
{
	struct emit em;

	if (!reserve_at(&em, ARGUS_EV_SYS_ENTER, t, ts, true))
		return;
	fill_entry(em.ev, c);
	submit(&em);
}

/* A poll of one fd (struct pollfd at uptr): that fd and its IPC object,
 * the object the thread waits on. Files stay unnamed. */
static __always_inline void poll_one_fd(struct task_struct *t, __u64 uptr, int *fd, __u64 *obj,
                                        __u64 *peer, __u8 *kind)
{
	bool named = false;
	int pfd;
	__u8 k;

	if (bpf_probe_read_user(&pfd, sizeof(pfd), (void *)uptr))
		return;
	k = fd_object(t, pfd, obj, peer, &named);
	if (k == ARGUS_OBJ_NONE || k == ARGUS_OBJ_FILE) {
		*obj = 0;
		*peer = 0;
		return;
	}
	*fd = pfd;
	*kind = k;
}

/* The pid of the process listening where unix socket sk connected: the
 * credentials connect() copied from the listener (SO_PEERCRED; the process
 * that called listen()), 0 when unconnected. */
static __always_inline __s64 listener_pid(__u64 sk)
{
	struct sock *s = KCAST(struct sock, (void *)sk);
	struct pid *p = s->sk_peer_pid;

	return p ? (__s64)p->numbers[0].nr : 0;
}

/* The traced call t (the current task) is in, from its saved registers.
 * False for calls argus does not record: reads and writes of files, ttys
 * and non-local sockets; clones (sched_process_fork reads their flags). */
static __always_inline bool call_from_regs(struct task_struct *t, struct pt_regs *regs, long nr,
                                           __u8 cls, struct sys_call *c)
{
	__u64 obj = 0, peer = 0;
	int fd = -1;
	__u8 kind = ARGUS_OBJ_NONE;
	bool named = false;

	if (cls == SC_CLONE)
		return false;
	if (cls == SC_SEND || cls == SC_RECV || cls == SC_FDWAIT || cls == SC_TFDSET) {
		fd = (int)regs_arg(regs, 0);
		kind = fd_object(t, fd, &obj, &peer, &named);
		if ((cls == SC_SEND || cls == SC_RECV) &&
		    (kind == ARGUS_OBJ_NONE || kind == ARGUS_OBJ_FILE))
			return false;
	}
	c->ts = 0;
	c->arg1 = 0;
	c->arg2 = 0;
	c->arg3 = 0;
	if (cls == SC_FUTEX) {
		__u32 op = regs_arg(regs, 1);

		obj = regs_arg(regs, 0);
		kind = ARGUS_OBJ_FUTEX;
		c->arg1 = op;
		c->arg2 = (__u32)regs_arg(regs, 2);
		c->arg3 = regs_arg(regs, 4);
		/* a wait's timeout: a user timespec (a wake's arg 3 is a count) */
		c->arg0 =
		    futex_is_wait(op & FUTEX_CMD_MASK_) ? user_timespec_ns(regs_arg(regs, 3)) : -1;
	} else if (cls == SC_TFDSET) {
		/* new_value (arg 2): struct itimerspec { interval, value } */
		c->arg1 = user_timespec_ns(regs_arg(regs, 2));
		c->arg0 = user_timespec_ns(regs_arg(regs, 2) + 16);
	} else if (sys_arg[nr] == SA_LISTENER) {
		/* a connected unix socket's credentials are its listener's
		 * (SO_PEERCRED): the process a request sent here waits for,
		 * also before it accepts the connection (no reader yet) */
		c->arg0 = kind == ARGUS_OBJ_UNIX && obj ? listener_pid(obj) : 0;
	} else {
		c->arg0 = derive_arg0(regs, sys_arg[nr]);
		/* per-call capture sees the read itself: the object only
		 * without it (the graph's wait-on-object rule, docs/graph.md) */
		if (!per_call && (nr == TRACER_NR_poll || nr == TRACER_NR_ppoll) &&
		    regs_arg(regs, 1) == 1)
			poll_one_fd(t, regs_arg(regs, 0), &fd, &obj, &peer, &kind);
	}
	c->obj = obj;
	c->peer = peer;
	c->fd = fd;
	c->tid = t->pid;
	c->nr = nr;
	c->kind = kind;
	c->cls = cls;
	c->entered = 0;
	c->named = named;
	c->blocked = 0;
	c->sockend = 0;
	return true;
}

/* A send (not a server's to its client) or a read that filled its buffer,
 * either without waiting, is held (struct tracer_held). A send costs no
 * clock read and no ring reservation of its own when it joins records held
 * already: the same thread's, from the same clock tick, with room left. It
 * is stamped with the first record's time: at most a tick early, in
 * practice the few microseconds of the sends between. A full read starts a
 * new batch with an exact time, unless it continues a full-buffer read of
 * the same stream: then it merges into that record.
 * A thread draining a stream in small reads (perf bench sched messaging)
 * costs a record per tick instead of one per read. Waits, failures (an
 * EAGAIN read says the stream was drained: it is stamped exactly) and
 * every other record are written as before, after what is held. */
#define RUN_CALLS_MAX 255

static __always_inline bool hold_ipc(struct task_struct *t, struct sys_call *c, __u16 type,
                                     long ret)
{
	__u32 zero = 0, cpu, n;
	struct tracer_held *h = bpf_map_lookup_elem(&held, &zero);
	struct argus_event *ev;
	__u64 jiffies, ts;
	void *ring;

	if (!h)
		return false;
	h->busy = 1;
	jiffies = bpf_jiffies64();
	n = h->n;
	if (n > TRACER_HELD_MAX)
		n = TRACER_HELD_MAX;
	if (n && (h->tid != t->pid || h->jiffies != jiffies))
		n = TRACER_HELD_MAX + 1; /* not joinable: write them */
	if (n >= 1 && n <= TRACER_HELD_MAX) {
		ev = &h->ev[n - 1];
		if (type == ARGUS_EV_IPC_RECV && h->full && ev->type == ARGUS_EV_IPC_RECV &&
		    ev->sys_exit.obj == c->obj && ev->sys_exit.fd == c->fd &&
		    ev->sys_exit.nr == c->nr && ev->sys_exit.calls < RUN_CALLS_MAX) {
			ev->sys_exit.ret += ret;
			ev->sys_exit.calls++;
			h->full = ret == c->arg0;
			h->busy = 0;
			return true;
		}
	}
	/* a receive is stamped exactly (it may be what says input was read):
	 * only sends join a batch with its first record's time */
	if (n >= 1 && n < TRACER_HELD_MAX && type == ARGUS_EV_IPC_SEND) {
		ts = h->ev[0].ts;
	} else {
		if (n) {
			cpu = bpf_get_smp_processor_id();
			ring = bpf_map_lookup_elem(&rings, &cpu);
			if (!ring) {
				h->busy = 0;
				return false;
			}
			write_held(h, ring, cpu);
		}
		n = 0;
		ts = bpf_ktime_get_ns();
		h->jiffies = jiffies;
		h->tid = t->pid;
	}
	/* every byte of the record is written: no memset */
	ev = &h->ev[n];
	ev->ts = ts;
	ev->type = type;
	ev->cpu = bpf_get_smp_processor_id();
	ev->pid = t->tgid;
	ev->tid = t->pid;
	ev->flags = t->flags & PF_KTHREAD_ ? ARGUS_F_KTHREAD : 0;
	ev->_rsvd = 0;
	ev->sys_exit.dur_ns = 0;
	ev->sys_exit.obj = c->obj;
	ev->sys_exit.peer_obj = c->peer;
	ev->sys_exit.ret = ret;
	ev->sys_exit.fd = c->fd;
	ev->sys_exit.nr = c->nr;
	ev->sys_exit.obj_kind = c->kind;
	ev->sys_exit.calls = 1;
	h->full = type == ARGUS_EV_IPC_RECV && ret == c->arg0;
	h->n = n + 1;
	h->busy = 0;
	return true;
}

/* A read that never left its CPU and reads on from the held run of the same
 * thread, fd and call (the run's last read filled its buffer, same tick):
 * merged without looking up the fd's object again. The thread's fd cannot
 * change between two of its reads but by another thread's dup2, rare
 * enough to accept. */
static __always_inline bool run_continues(struct task_struct *t, struct pt_regs *regs, long nr,
                                          long ret)
{
	struct tracer_held *h;
	struct argus_event *ev;
	__u32 zero = 0, n;

	h = bpf_map_lookup_elem(&held, &zero);
	if (!h)
		return false;
	h->busy = 1; /* before reading: an interrupt's program may write them */
	n = h->n;
	if (n < 1 || n > TRACER_HELD_MAX || !h->full || h->tid != t->pid)
		goto no;
	ev = &h->ev[n - 1];
	if (ev->type != ARGUS_EV_IPC_RECV || ev->sys_exit.fd != (int)regs_arg(regs, 0) ||
	    ev->sys_exit.nr != nr || ev->sys_exit.calls >= RUN_CALLS_MAX ||
	    h->jiffies != bpf_jiffies64())
		goto no;
	ev->sys_exit.ret += ret;
	ev->sys_exit.calls++;
	h->full = ret == derive_arg0(regs, sys_arg[nr]);
	h->busy = 0;
	return true;
no:
	h->busy = 0;
	return false;
}

/* The exit of a traced call: its call is in task storage if it left the CPU
 * (`resumed` says whether to look), else it is read from the registers now. */
SEC("tp_btf/sys_exit")
int BPF_PROG(sys_exit, struct pt_regs *regs, long ret)
{
	struct task_struct *t = cur();
	struct sys_call call, *c = &call; /* call_from_regs writes every field */
	struct thread_state *st;
	struct resumed *r;
	struct emit em;
	__u16 type;
	__u32 zero = 0;
	__u64 now;
	long nr = regs_nr(regs);
	__u8 cls;

	/* most syscalls are none of argus's business: one array load */
	if (nr < 0 || nr >= TRACER_NR_MAX)
		return 0;
	cls = sys_class[nr];
	if (cls == SC_NONE || cls == SC_CLONE)
		return 0;
	r = bpf_map_lookup_elem(&resumed, &zero);
	if (!r)
		return 0;
	if (r->tid != t->pid || !r->clean) {
		st = bpf_task_storage_get(&threads, t, 0, 0);
		if (r->tid == t->pid)
			r->clean = 1;
		if (st && st->call.cls == cls && st->call.tid == t->pid && st->call.nr == nr) {
			call = st->call;
			st->call.cls = SC_NONE;
			goto known;
		}
		if (st)
			st->call.cls = SC_NONE; /* stale: its exit went unseen */
	}
	if (cls == SC_RECV && ret > 0 && run_continues(t, regs, nr, ret))
		return 0;
	if (!traced(t) || !call_from_regs(t, regs, nr, cls, c))
		return 0;
known:
	if (cls == SC_SEND || cls == SC_RECV) {
		/* held only what can batch (a send between threads that is not a
		 * server's to its client) or merge (a read that filled its
		 * buffer): a held record reaches the ring only with the CPU's
		 * next record, and a display read held while its thread spins
		 * could arrive behind the merge's watermark */
		bool holdable = cls == SC_SEND ? !c->named : ret == c->arg0;

		type = cls == SC_RECV ? ARGUS_EV_IPC_RECV : ARGUS_EV_IPC_SEND;
		if (!c->ts && ret > 0 && holdable && hold_ipc(t, c, type, ret))
			return 0;
	} else if (cls == SC_FUTEX && futex_is_wake((__u32)c->arg1 & FUTEX_CMD_MASK_)) {
		/* a wake (or requeue): the number woken */
		if (reserve_at(&em, ARGUS_EV_FUTEX_WAKE, t, 0, true)) {
			em.ev->futex.uaddr = c->obj;
			em.ev->futex.op = c->arg1;
			em.ev->futex.val = c->arg2;
			em.ev->futex.ret = ret;
			em.ev->futex.timeout_ns = -1;
			em.ev->futex.uaddr2 = c->arg3;
			submit(&em);
		}
		return 0;
	} else {
		type = ARGUS_EV_SYS_EXIT;
	}
	now = bpf_ktime_get_ns();
	if (cls == SC_TFDSET && ret == 0 && c->kind == ARGUS_OBJ_TIMERFD &&
	    reserve_at(&em, ARGUS_EV_TIMER_ARM, t, now, true)) {
		/* TFD_TIMER_ABSTIME = 1: the value is already absolute */
		bool abs = regs_arg(regs, 1) & 1;

		em.ev->timer.obj = c->obj;
		em.ev->timer.expires_ns = c->arg0 <= 0 ? 0 : abs ? c->arg0 : now + c->arg0;
		em.ev->timer.interval_ns = c->arg1 < 0 ? 0 : c->arg1;
		em.ev->timer.fd = c->fd;
		em.ev->timer.kind = ARGUS_TIMER_TIMERFD;
		submit(&em);
	}
	/* a wait that never blocked: its entry and exit, one ring entry */
	if (!c->entered && has_entry(c, false)) {
		if (!reserve_n(&em, type, t, now, true, 2))
			return 0;
		fill_entry(em.entry, c);
	} else if (!reserve_at(&em, type, t, now, true)) {
		return 0;
	}
	em.ev->sys_exit.obj = c->obj;
	em.ev->sys_exit.peer_obj = c->peer;
	em.ev->sys_exit.ret = ret;
	em.ev->sys_exit.dur_ns = c->ts ? now - c->ts : 0;
	em.ev->sys_exit.fd = c->fd;
	em.ev->sys_exit.nr = c->nr;
	em.ev->sys_exit.obj_kind = c->kind;
	em.ev->sys_exit.calls = 1;
	submit(&em);
	return 0;
}

/* ---- scheduling ---------------------------------------------------------- */

/* The first return address on the user stack at sp that points into the
 * executable's own code, else (leaf) the word at sp (the return address of a
 * leaf such as a syscall wrapper, which only a thread entering a wait is
 * known to be in): Debian's libc keeps no frame pointers, so this names the
 * application function that called into libc. 0 when unreadable. */
static __always_inline __u64 user_sp_ret(struct mm_struct *mm, __u64 sp, bool leaf)
{
	__u64(*words)[TRACER_SCAN_WORDS];
	__u64 lo = mm->start_code, hi = mm->end_code, ret = 0;
	__u32 zero = 0;

	words = bpf_map_lookup_elem(&scan, &zero);
	if (!words || bpf_probe_read_user(*words, sizeof(*words), (void *)sp))
		return 0;
	ret = leaf ? (*words)[0] : 0;
	for (int i = 0; i < TRACER_SCAN_WORDS; i++) {
		__u64 w = (*words)[i];

		if (w >= lo && w < hi)
			return w;
	}
	return ret;
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

/* The STACK record of a thread that blocks at a new place (stack_moved). */
static __always_inline void wait_stack(void *ctx, struct task_struct *prev, struct thread_state *st,
                                       __u64 ts, __u64 ip, __u64 sp)
{
	struct mm_struct *mm;
	struct emit em;
	__u64 sp_ret;
	long id;

	mm = prev->mm;
	if (!mm)
		return;
	sp_ret = user_sp_ret(mm, sp, true);
	if (!reserve_at(&em, ARGUS_EV_STACK, prev, ts, true))
		return;
	id = user_stack_id(ctx, em.ev->cpu);
	em.ev->stack.ustack = id < 0 ? 0 : id + 1; /* kernel stack id + 1; kext.c interns */
	/* where in the kernel it waits (request_wait_answer, io_schedule...) */
	id = bpf_get_stackid(ctx, &stacks, BPF_F_REUSE_STACKID);
	em.ev->stack.kstack = id < 0 ? 0 : id + 1;
	em.ev->stack.ip = ip;
	em.ev->stack.sp_ret = sp_ret;
	em.ev->stack.kind = ARGUS_STACK_WAIT;
	submit(&em);
	st->wait_ip = ip;
	st->wait_sp = sp;
}

/* The thread switching in: whether it left the CPU inside a traced call
 * (sys_exit then takes the call from task storage). */
static __always_inline void note_resumed(struct task_struct *next, bool tnext)
{
	struct thread_state *st = NULL;
	struct resumed *r;
	__u32 zero = 0;

	r = bpf_map_lookup_elem(&resumed, &zero);
	if (!r)
		return;
	if (tnext)
		st = bpf_task_storage_get(&threads, next, 0, 0);
	r->tid = next->pid;
	r->clean = !st || st->call.cls == SC_NONE;
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
	if (st->call.cls == cls && st->call.nr == nr && st->call.tid == prev->pid)
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
static __always_inline struct sys_call *call_resumes(struct task_struct *next)
{
	struct thread_state *st = bpf_task_storage_get(&threads, next, 0, 0);
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
	bool blocks = !preempt && prev_state, tprev, tnext, to_self, from_self;
	struct sys_call *c, *enter = NULL, *done = NULL;
	struct task_struct *hdr;
	struct thread_state *st = NULL;
	struct argus_event *evs;
	struct pt_regs *regs = NULL;
	__u64 ts, ip = 0, sp = 0;
	struct emit em;

	to_self = is_self(next);
	from_self = is_self(prev);
	tprev = !from_self && traced(prev);
	tnext = !to_self && traced(next);
	if (per_call)
		note_resumed(next, tnext);
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
				wait_stack(ctx, prev, st, ts, ip, sp);
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
	if (!per_call && tnext)
		done = call_resumes(next);
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
	__u16 ctype = 0;
	struct emit em;

	bool twaker;

	if (is_self(p) || is_self(t))
		return 0;
	appset_wake(t, p);
	twaker = traced(t);
	if (!twaker && !traced(p))
		return 0;
	/* a kernel worker woken by a call is not its receiver (a pty write's
	 * worker: workqueue_queue_work says that write) */
	if (!per_call && twaker && type == ARGUS_EV_SCHED_WAKEUP && !(p->flags & PF_KTHREAD_) &&
	    !in_interrupt_ctx())
		ctype = waker_call(t, &call);
	if (ctype) {
		if (!reserve_n(&em, type, t, 0, true, 2))
			return 0;
		evs = em.entry;
		fill_waker_call(&evs[1], ctype, &call);
		em.ev = &evs[0];
	} else if (!reserve(&em, type, t)) {
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

/* ---- sockets, without per-call capture ------------------------------------
 * A send or receive of a watched socket (sock_watched: named unix
 * connections, loopback TCP) by a traced thread, in its own context with
 * what the call moved: IPC_SEND / IPC_RECV as the syscall exit would write
 * them (a receive that blocked gets its duration from task storage). Other
 * sockets leave after a few loads. */
#define MSG_PEEK_ 2

#include "sockpeer.bpf.c"

static __always_inline int sock_call(struct sock *sk, int ret, int flags, __u16 type)
{
	struct task_struct *t = cur();
	struct thread_state *st;
	struct pt_regs *regs;
	__u64 now, dur = 0, peer;
	__u16 family;
	__u8 kind;
	struct emit em;
	long nr = 0;
	__s64 lpid;
	int fd = -1;

	if (per_call || !sk || (flags & MSG_PEEK_) || (t->flags & PF_KTHREAD_))
		return 0;
	if (!sock_watched(sk) || !traced(t))
		return 0;
	family = sk->__sk_common.skc_family;
	if (family == AF_UNIX_) {
		kind = ARGUS_OBJ_UNIX;
		peer = (__u64)KCAST(struct unix_sock, (void *)sk)->peer;
	} else {
		kind = ARGUS_OBJ_TCP;
		peer = tcp_peer(sk, family);
	}
	regs = user_regs(t);
	if (regs && regs_in_syscall(regs)) {
		long n = regs_nr(regs);

		if (n >= 0 && n < TRACER_NR_MAX &&
		    (sys_class[n] == SC_SEND || sys_class[n] == SC_RECV)) {
			nr = n;
			fd = (int)regs_arg(regs, 0);
		}
	}
	now = bpf_ktime_get_ns();
	if (type == ARGUS_EV_IPC_RECV) {
		st = bpf_task_storage_get(&threads, t, 0, 0);
		if (st && st->call.cls == SC_RECV && st->call.obj == (__u64)sk) {
			dur = st->call.ts && now > st->call.ts ? now - st->call.ts : 0;
			st->call.cls = SC_NONE;
		}
	}
	/* a client's first send carries its connect (sockpeer.bpf.c) */
	lpid = type == ARGUS_EV_IPC_SEND ? first_send_listener(sk) : 0;
	if (lpid) {
		if (!reserve_n(&em, type, t, now, true, 3))
			return 0;
		fill_first_connect(em.entry, (__u64)sk, peer, fd, lpid);
	} else if (!reserve_at(&em, type, t, now, true)) {
		return 0;
	}
	em.ev->sys_exit.obj = (__u64)sk;
	em.ev->sys_exit.peer_obj = peer;
	em.ev->sys_exit.ret = ret;
	em.ev->sys_exit.dur_ns = dur;
	em.ev->sys_exit.fd = fd;
	em.ev->sys_exit.nr = nr;
	em.ev->sys_exit.obj_kind = kind;
	em.ev->sys_exit.calls = 1;
	submit(&em);
	return 0;
}

SEC("tp_btf/sock_send_length")
int BPF_PROG(sock_send_length, struct sock *sk, int ret, int flags)
{
	return sock_call(sk, ret, flags, ARGUS_EV_IPC_SEND);
}

SEC("tp_btf/sock_recv_length")
int BPF_PROG(sock_recv_length, struct sock *sk, int ret, int flags)
{
	return sock_call(sk, ret, flags, ARGUS_EV_IPC_RECV);
}

/* Loopback TCP ends meet here: both become established within the
 * handshake, before any data moves, and leave at TCP_CLOSE (before the
 * socket is freed). Runs at TCP state changes only, a few per connection. */
SEC("tp_btf/inet_sock_set_state")
int BPF_PROG(inet_sock_set_state, const struct sock *sk, int oldstate, int newstate)
{
	__u16 family = sk->__sk_common.skc_family;
	struct tcp_tuple k;
	__u64 key = (__u64)sk;

	if (sk->sk_protocol != IPPROTO_TCP_ || !tcp_loopback(sk, family))
		return 0;
	if (newstate == TCP_ESTABLISHED_) {
		tcp_pair(sk, family);
	} else if (newstate == TCP_CLOSE_) {
		bpf_map_delete_elem(&tcp_peers, &key);
		tcp_tuple_of(sk, family, &k);
		bpf_map_delete_elem(&tcp_ends, &k);
	}
	return 0;
}

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
static __always_inline void timer_record(__u16 type, struct hrtimer *timer, bool irq_anon)
{
	struct emit em;

	if (!reserve(&em, type, cur()))
		return;
	if (irq_anon && (em.ev->flags & (ARGUS_F_HARDIRQ | ARGUS_F_SOFTIRQ))) {
		em.ev->pid = 0;
		em.ev->tid = 0;
		em.ev->flags &= ~ARGUS_F_KTHREAD;
	}
	em.ev->timer.obj = (__u64)timer;
	em.ev->timer.expires_ns = BPF_CORE_READ(timer, node.expires);
	em.ev->timer.function = (__u64)BPF_CORE_READ(timer, function);
	em.ev->timer.fd = -1;
	em.ev->timer.kind = ARGUS_TIMER_HRTIMER;
	submit(&em);
}

SEC("tp_btf/hrtimer_start")
int BPF_PROG(hrtimer_start, struct hrtimer *timer, enum hrtimer_mode mode, bool was_armed)
{
	struct task_struct *t = cur();
	__u64 key = (__u64)timer;
	__u8 one = 1;

	/* only timers user threads arm; the kernel's own ticks are noise */
	if (!trace_timers || (BPF_CORE_READ(t, flags) & PF_KTHREAD_) || in_interrupt_ctx() ||
	    !traced(t))
		return 0;
	bpf_map_update_elem(&timers, &key, &one, BPF_ANY);
	timer_record(ARGUS_EV_TIMER_ARM, timer, false);
	return 0;
}

SEC("tp_btf/hrtimer_expire_entry")
int BPF_PROG(hrtimer_expire_entry, struct hrtimer *timer, ktime_t *now)
{
	__u64 key = (__u64)timer;

	if (!bpf_map_lookup_elem(&timers, &key))
		return 0;
	bpf_map_delete_elem(&timers, &key);
	timer_record(ARGUS_EV_TIMER_FIRE, timer, true);
	return 0;
}

SEC("tp_btf/hrtimer_cancel")
int BPF_PROG(hrtimer_cancel, struct hrtimer *timer)
{
	__u64 key = (__u64)timer;

	if (!bpf_map_lookup_elem(&timers, &key))
		return 0;
	bpf_map_delete_elem(&timers, &key);
	timer_record(ARGUS_EV_TIMER_CANCEL, timer, false);
	return 0;
}

/* ---- interrupts: only those that cut into a traced thread ------------------ */
static __always_inline void irq_record(__u16 type, __u32 irq, int ret)
{
	struct task_struct *t = cur();
	struct emit em;

	if (!trace_irqs || !traced(t) || !reserve(&em, type, t))
		return;
	em.ev->irq.irq = irq;
	em.ev->irq.ret = ret;
	submit(&em);
}

/* Exits are attached before entries (the skeleton attaches in this order),
 * so no entry is ever counted whose exit is not watched yet. */
SEC("tp_btf/irq_handler_exit")
int BPF_PROG(irq_handler_exit, int irq, struct irqaction *action, int ret)
{
	irq_record(ARGUS_EV_IRQ_EXIT, irq, ret);
	irq_nest(true, -1);
	return 0;
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(softirq_exit, unsigned int vec)
{
	irq_record(ARGUS_EV_SOFTIRQ_EXIT, vec, 0);
	irq_nest(false, -1);
	return 0;
}

/* The local APIC timer (it expires hard hrtimers) and IPIs are hard
 * interrupts that do not pass through irq_handler_entry. Their records
 * would be noise; they only keep the nesting count. */
SEC("tp_btf/local_timer_exit")
int BPF_PROG(local_timer_exit, int vector)
{
	irq_nest(true, -1);
	return 0;
}

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
	irq_record(ARGUS_EV_IRQ_ENTRY, irq, 0);
	return 0;
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(softirq_entry, unsigned int vec)
{
	irq_nest(false, 1);
	irq_record(ARGUS_EV_SOFTIRQ_ENTRY, vec, 0);
	return 0;
}

SEC("tp_btf/local_timer_entry")
int BPF_PROG(local_timer_entry, int vector)
{
	irq_nest(true, 1);
	return 0;
}

SEC("tp_btf/call_function_single_entry")
int BPF_PROG(call_function_single_entry, int vector)
{
	irq_nest(true, 1);
	return 0;
}

/* ---- full user stacks for chosen processes (kext_full_stacks) ------------ */
#include "ustack.bpf.c"

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

/* ---- waits inside the kernel that a user-space server answers ---------- */
#include "kwait.bpf.c"
