// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * helpers.bpf.c - part of tracer.bpf.c (included there, one BPF object): the helpers every program uses: the record reservation and submission, the per-thread state, IPC object identity, wait and user stacks.
 * docs/kext.md says what each record means.
 */
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

/* The expiry of a hard hrtimer counts as a hard interrupt level of its
 * own (HARD_EXPIRY in `hard`): hrtimer_expire_exit cannot read its timer,
 * which the callback may have freed (a sleeper's stack), to know whether
 * its entry counted. Hard expiries do not nest (interrupts are off), nor
 * does any other hard level inside one. */
#define HARD_EXPIRY 0x10000u

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
	} else if (hard ? *v & (HARD_EXPIRY - 1) : *v) {
		*v -= 1; /* else attached mid-handler: its entry was never seen */
	}
}

static __always_inline void expiry_nest(int delta)
{
	__u32 zero = 0;
	struct irq_depth *d = bpf_map_lookup_elem(&irq_ctx, &zero);

	if (!d)
		return;
	if (delta > 0) {
		if (!(d->hard | d->soft))
			d->since = bpf_ktime_get_ns();
		d->hard += HARD_EXPIRY;
	} else if (d->hard >= HARD_EXPIRY) {
		d->hard -= HARD_EXPIRY;
	}
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
	void *entry;            /* the first record: in the stage, or what
	                         * bpf_ringbuf_reserve returned */
	struct argus_event *ev; /* the record to fill: the entry's last */
	struct tracer_stage *stage; /* the stage the records are in (stage.bpf.c), else NULL */
};

/* Reserve nrec records (a constant) about the same task at the same ts,
 * next to each other: in this CPU's stage (the default capture,
 * stage.bpf.c), or as one entry of its ring (per-call capture: records
 * written together by one program cost one reservation and one commit; the
 * reader splits entries into 64-byte records). A full ring is counted,
 * never hidden. ts 0 = now;
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

/* records gathered per CPU for the ring (stage_*) */
#include "stage.bpf.c"

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

/* ctx: the interrupt flags when the caller knows them (context_flags, or 0
 * in a task's own context), -1 to look them up. */
static __always_inline bool reserve_ctx(struct emit *em, __u16 type, struct task_struct *t,
                                        __u64 ts, int ctx, const int nrec)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct argus_event *ev;
	__u16 flags;

	em->stage = NULL;
	if (!per_call) {
		ev = stage_take(em, t, cpu, nrec);
		if (!ev)
			return false;
	} else {
		em->ring = bpf_map_lookup_elem(&rings, &cpu);
		if (!em->ring)
			return false;
		flush_held(em->ring, cpu);
		if (appset_shed(em->ring, t, cpu, nrec))
			return false;
		ev = bpf_ringbuf_reserve(em->ring, nrec * sizeof(struct argus_event), 0);
		if (!ev) {
			count_lost(cpu, nrec);
			return false;
		}
	}
	em->entry = ev;
	__builtin_memset(ev, 0, nrec * sizeof(struct argus_event));
	ts = ts ? ts : bpf_ktime_get_ns();
	flags = ctx >= 0 ? ctx : context_flags(ts);
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

static __always_inline bool reserve_n(struct emit *em, __u16 type, struct task_struct *t, __u64 ts,
                                      bool task_ctx, const int nrec)
{
	return reserve_ctx(em, type, t, ts, task_ctx ? 0 : -1, nrec);
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
_Static_assert(TRACER_STAGE_MAX <= ARGUS_RING_ENTRY_MAX, "a stage is written as one entry");
_Static_assert(STAGE_FULL + ENTRY_RECORDS_MAX + STAGE_ROOM <= TRACER_STAGE_MAX,
               "a program that finds the stage short of full has room, and nested ones too");

static __always_inline bool reserve(struct emit *em, __u16 type, struct task_struct *t)
{
	return reserve_at(em, type, t, 0, false);
}

/* Per-call capture (the default capture writes through the stage,
 * stage_done): submit without waking the reader, except once the ring fills past
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
	/* entries of up to ENTRY_RECORDS_MAX records, 8-byte ring headers */
	__u64 window = 2 * WAKE_CHECK_EVERY * (ENTRY_RECORDS_MAX * sizeof(struct argus_event) + 8);
	__u32 zero = 0, *n;
	__u64 avail;

	if (!per_call) {
		stage_done(em);
		return;
	}
	n = bpf_map_lookup_elem(&submits, &zero);
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

/* The poll operations of eventfd and timerfd files (0 when the kernel does
 * not list them: fd_object then reads the files' names). */
extern const void eventfd_poll __ksym __weak;
extern const void timerfd_poll __ksym __weak;

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
	/* by their file operations where the kernel lists them: two direct
	 * loads instead of three probe reads (an eventfd write is what a main
	 * loop wakes its threads with) */
	if ((__u64)&eventfd_poll && (__u64)&timerfd_poll) {
		__u64 poll = (__u64)f->f_op->poll;

		if (poll == (__u64)&eventfd_poll) {
			*obj = (__u64)priv; /* struct eventfd_ctx */
			return ARGUS_OBJ_EVENTFD;
		}
		if (poll == (__u64)&timerfd_poll) {
			struct timerfd_ctx *ctx = priv;

			*obj = (__u64)&ctx->t.tmr;
			return ARGUS_OBJ_TIMERFD;
		}
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
