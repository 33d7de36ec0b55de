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
	bool empty;

	if (per_call || !sk || (flags & MSG_PEEK_) || (t->flags & PF_KTHREAD_))
		return 0;
	if (!sock_watched(sk) || !traced(t))
		return 0;
	now = bpf_ktime_get_ns();
	/* an empty read (EAGAIN) right after the thread's last socket record,
	 * an empty read of the same socket: a loop checking its connection
	 * again (xcb reads until EAGAIN, then GDK asks XPending) says no more
	 * than the first did. Any other socket record of the thread ends the
	 * run; a check TRACER_EAGAIN_NS later is written. (The trigger counts
	 * the bytes written and read, so no pending input hangs on an empty
	 * read left out: docs/diagnosis.md.) */
	empty = type == ARGUS_EV_IPC_RECV && ret == -EAGAIN_;
	st = bpf_task_storage_get(&threads, t, 0, empty ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
	if (st) {
		if (empty && st->eagain_sk == (__u64)sk && now - st->eagain_ts < TRACER_EAGAIN_NS)
			return 0;
		st->eagain_sk = empty ? (__u64)sk : 0;
		st->eagain_ts = now;
	}
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
	if (type == ARGUS_EV_IPC_RECV) {
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
