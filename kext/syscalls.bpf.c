// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * syscalls.bpf.c - part of tracer.bpf.c (included there, one BPF object): the per-call capture (--syscalls): the syscall tracepoints, filtered here to the calls that wait or communicate.
 * docs/kext.md says what each record means.
 */
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
		/* how many fds a poll watches: a loop's poll watches several,
		 * a round trip's the display connection alone (the trigger's
		 * loop waits, docs/diagnosis.md); the one fd, in both
		 * captures: the trigger tells a wait on a peer (a launch) or a
		 * round trip by it */
		if (nr == TRACER_NR_poll || nr == TRACER_NR_ppoll) {
			c->arg1 = (__s64)regs_arg(regs, 1);
			if (c->arg1 == 1)
				poll_one_fd(t, regs_arg(regs, 0), &fd, &obj, &peer, &kind);
		}
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
