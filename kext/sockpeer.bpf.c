/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * sockpeer.bpf.c - who listens where a unix socket connected, without
 * syscall tracepoints. Part of the one tracer object: tracer.bpf.c includes
 * this file before sock_call (it uses reserve_n, listener_pid). docs/kext.md
 * "Capture without syscall tracepoints".
 *
 * A unix connect to a listener rarely blocks, so the default capture, which
 * learns calls from blocking switches, does not see it. What the graph needs
 * from it is the listener's pid (a request sent on a connection no one has
 * accepted yet is for the process that listens there: a stopped bus daemon).
 * The client's first send says the same: at the first sock_send_length of
 * the connecting end of a unix stream (its own address unbound, its peer's
 * bound: sock_watched), the kext writes the connect's records before that
 * send's: a SYS_ENTER `connect` with the listener's pid (arg0, karg
 * LISTENER, as per-call capture gives it) and its SYS_EXIT (ret 0,
 * ARGUS_F_NORET), stamped with the send's time. Once per socket: a flag in
 * the socket's local storage (it goes away with the socket), with a per-CPU
 * cache of sockets seen in front of it (sent_seen).
 */

#define SOCK_DGRAM_ 2

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u8);
} sock_connected SEC(".maps");

/* Sockets whose first send is behind them, per CPU, by socket cookie
 * (slot = cookie % SENT_SLOTS): a client sends on the same few connections
 * all the time, and the local storage above, cold in an app that was idle
 * (its pointers lead through two or three cache lines), is looked at only
 * when a socket is not here. A cookie is never reused (a new socket at the
 * same address starts without one), so a slot never says "seen" wrongly. */
#define SENT_SLOTS 8

struct sent_seen {
	__u64 cookie[SENT_SLOTS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sent_seen);
} sent_seen SEC(".maps");

/* The listener's pid when this send is the first of the connecting end of a
 * unix stream to a listener (and marks it seen), else 0. */
static __always_inline __s64 first_send_listener(struct sock *sk)
{
	struct unix_sock *u = KCAST(struct unix_sock, (void *)sk);
	__u64 cookie = sk->__sk_common.skc_cookie.counter;
	struct sent_seen *c;
	__u32 zero = 0;
	__s64 pid;
	__u8 *seen;

	if (sk->__sk_common.skc_family != AF_UNIX_ || sk->sk_type == SOCK_DGRAM_ || u->addr ||
	    !u->peer)
		return 0;
	c = bpf_map_lookup_elem(&sent_seen, &zero);
	if (c && cookie && c->cookie[cookie & (SENT_SLOTS - 1)] == cookie)
		return 0;
	pid = listener_pid((__u64)sk);
	if (pid <= 0)
		return 0;
	seen = bpf_sk_storage_get(&sock_connected, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	if (!seen)
		return 0;
	if (c) {
		cookie = cookie ? cookie : bpf_get_socket_cookie(sk);
		c->cookie[cookie & (SENT_SLOTS - 1)] = cookie;
	}
	if (*seen)
		return 0;
	*seen = 1;
	return pid;
}

/* evs[0], evs[1]: the connect's entry and its stand-in exit. */
static __always_inline void fill_first_connect(struct argus_event *evs, __u64 sk, __u64 peer,
                                               int fd, __s64 pid)
{
	evs[0].type = ARGUS_EV_SYS_ENTER;
	evs[0].sys_enter.obj = sk;
	evs[0].sys_enter.peer_obj = peer;
	evs[0].sys_enter.arg0 = pid;
	evs[0].sys_enter.fd = fd;
	evs[0].sys_enter.nr = TRACER_NR_connect;
	evs[0].sys_enter.obj_kind = ARGUS_OBJ_UNIX;
	evs[1].type = ARGUS_EV_SYS_EXIT;
	evs[1].flags |= ARGUS_F_NORET;
	evs[1].sys_exit.obj = sk;
	evs[1].sys_exit.peer_obj = peer;
	evs[1].sys_exit.fd = fd;
	evs[1].sys_exit.nr = TRACER_NR_connect;
	evs[1].sys_exit.obj_kind = ARGUS_OBJ_UNIX;
	evs[1].sys_exit.calls = 1;
}
