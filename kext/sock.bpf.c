// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * sock.bpf.c - part of tracer.bpf.c (included there, one BPF object): socket sends and receives without the per-call capture (sock:* tracepoints), with the connect record.
 * docs/kext.md says what each record means.
 */
/* ---- sockets, without per-call capture ------------------------------------
 * A send or receive of a watched socket (sock_watched: named unix
 * connections, loopback TCP) by a traced thread, in its own context with
 * what the call moved: IPC_SEND / IPC_RECV as the syscall exit would write
 * them (a receive that blocked gets its duration from task storage). Other
 * sockets leave after a few loads. */
#define MSG_PEEK_ 2
#define EAGAIN_   11

#include "sockpeer.bpf.c"

/* ---- receives that find nothing, again ------------------------------------
 * A main loop that reads its display connection without blocking (GTK and
 * xcb around every iteration) finds nothing most of the time. Rule: an
 * EAGAIN receive is left out, counted, when its CPU's last written EAGAIN
 * record is the same thread's on the same socket and since then the thread
 * has not left the CPU, nothing was written to the CPU's ring, no other
 * thread's receive on the socket (nor a send to it that moved nothing) was
 * recorded, and the kernel's tick count is the same (docs/kext.md
 * "Receives that find nothing again"). The mark is one per-CPU slot,
 * checked before anything else the record costs: a thread reading in a
 * loop keeps it hot, and can only move to another CPU through a switch,
 * which the check sees (nvcsw + nivcsw). The tick bounds what a left-out
 * read could still have told (a change no check here sees): it reaches user
 * space one tick late at most. Per-call capture never gets here. */
#define SOCK_READER_SLOTS 4096 /* a power of two */

/* Per socket, by a hash of its address: the thread of its last receive
 * record, 0 after a send to it that moved nothing (the trigger takes it for
 * pending input all the same). Written only when it changes: with one
 * reader per socket the line stays in every reader's cache. Sockets sharing
 * a slot only keep records that could have been left out. */
__u32 sock_reader[SOCK_READER_SLOTS] = {};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tracer_eagain_mark);
} eagain_marks SEC(".maps");

/* The low half of a socket's address as a number: a privileged program may
 * copy a pointer's low 32 bits (no other arithmetic on it). */
static __always_inline __u32 addr_lo(__u64 p)
{
	register __u64 x asm("r1") = p;

	asm volatile("w1 = w1" : "+r"(x));
	return x;
}

static __always_inline __u32 *sock_reader_of(__u64 sk)
{
	__u32 h = (addr_lo(sk) >> 6) * 0x9e3779b9u;

	return &sock_reader[(h >> 20) & (SOCK_READER_SLOTS - 1)];
}

/* This CPU's ring entries so far: submit() counts them (helpers.bpf.c),
 * every record of the default capture goes through it. */
static __always_inline __u32 entries_written(void)
{
	__u32 zero = 0, *n = bpf_map_lookup_elem(&submits, &zero);

	return n ? *n : 0;
}

/* Whether this EAGAIN receive repeats the CPU's mark (see above). Each check
 * is a load of a line the loop keeps hot; no helper call (the clock alone
 * cost as much as the rest: jiffies is one load). */
static __always_inline bool eagain_again(struct task_struct *t, struct sock *sk)
{
	__u32 zero = 0;
	struct tracer_eagain_mark *m = bpf_map_lookup_elem(&eagain_marks, &zero);

	if (!m || m->sk != (__u64)sk || m->tid != t->pid || m->switches != t->nvcsw + t->nivcsw ||
	    m->entries != entries_written() || *sock_reader_of((__u64)sk) != t->pid ||
	    m->jiffies != bpf_jiffies64())
		return false;
	m->left++;
	return true;
}

/* A seed of the app set (appset.bpf.h: hops 0): a process whose in-process
 * hooks connected to the daemon (argus_kext_appset_add), or a display
 * server. A hooked thread's loop records (iteration, dispatch) cut its
 * segments where the kernel cannot see them: each of its EAGAIN reads may
 * begin a segment, so none is left out. The answer is kept per CPU by tgid
 * while the set does not change (appset_gen): a lookup in the large LRU
 * map misses the cache and cost more than the rest of the record. */
#define HOOK_SEEN 8 /* a power of two */

struct hook_seen {
	__u64 gen;
	__u32 tgid;
	__u32 hooked;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, HOOK_SEEN);
	__type(key, __u32);
	__type(value, struct hook_seen);
} hook_seen SEC(".maps");

static __always_inline bool hooked(__u32 tgid)
{
	__u32 i = tgid & (HOOK_SEEN - 1);
	struct hook_seen *e = bpf_map_lookup_elem(&hook_seen, &i);
	__u64 gen = *(volatile __u64 *)&appset_gen;
	__u8 *hops;
	bool h;

	if (e && e->tgid == tgid && e->gen == gen)
		return e->hooked;
	hops = bpf_map_lookup_elem(&appset, &tgid);
	h = hops && *hops == 0;
	if (e) {
		e->gen = gen;
		e->tgid = tgid;
		e->hooked = h;
	}
	return h;
}

/* The thread's EAGAIN record on sk is the CPU's entry number entries (an
 * interrupt's entry squeezed in before it only makes the mark stale). */
static __always_inline void eagain_mark(struct task_struct *t, struct sock *sk, __u32 entries)
{
	__u32 zero = 0;
	struct tracer_eagain_mark *m = bpf_map_lookup_elem(&eagain_marks, &zero);

	if (!m)
		return;
	m->sk = (__u64)sk;
	m->entries = entries;
	m->switches = t->nvcsw + t->nivcsw;
	m->tid = t->pid;
	m->jiffies = bpf_jiffies64();
}

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
	bool eagain;
	__u32 *reader, entries = 0;

	if (per_call || !sk || (flags & MSG_PEEK_) || (t->flags & PF_KTHREAD_))
		return 0;
	eagain = type == ARGUS_EV_IPC_RECV && ret == -EAGAIN_;
	if (eagain && eagain_again(t, sk))
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
	/* the socket's reader (see sock_reader), written only when it changes */
	if (type == ARGUS_EV_IPC_RECV) {
		reader = sock_reader_of((__u64)sk);
		if (*reader != t->pid)
			*reader = t->pid;
	} else if (ret <= 0 && peer) {
		*sock_reader_of(peer) = 0;
	}
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
	} else {
		if (eagain)
			entries = entries_written() + 1;
		if (!reserve_at(&em, type, t, now, true))
			return 0;
		if (eagain && !hooked(t->tgid))
			eagain_mark(t, sk, entries);
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
