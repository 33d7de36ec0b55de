/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * kwait.bpf.c - waits inside the kernel that a user-space server answers:
 * a FUSE request, from the kernel's own fuse tracepoints. Part of the one
 * tracer object: tracer.bpf.c includes this file after its helpers
 * (reserve, submit, traced, cur). docs/kext.md "Kernel waits".
 *
 * A thread whose system call (a stat, an open, a write) needs the FUSE
 * daemon sleeps in request_wait_answer until the daemon writes the answer to
 * /dev/fuse. The kernel says both halves:
 *   fuse_request_send - in the requesting thread (its header's pid is that
 *                       thread), the request queued on the connection
 *   fuse_request_end  - in the thread that ended it: the daemon's write of
 *                       the answer (or an abort)
 * so KREQ_SEND names the waiter and the connection, and KREQ_END names the
 * daemon thread that serves that connection: the graph takes the first as a
 * send to the connection and the second as a receive there, so a request
 * no one ended names the thread that last served it (ipc-peer/unread-request).
 */

/* The requester of a request: the pid the kernel wrote in its header (the
 * thread's id in the connection's pid namespace: equal to the thread's own
 * id outside containers). */
static __always_inline __u32 kreq_requester(const struct fuse_req *req)
{
	return req->in.h.pid;
}

static __always_inline void kreq_emit(__u16 type, struct task_struct *t, const struct fuse_req *req,
                                      __s64 ret, __u32 opcode)
{
	struct fuse_conn *fc = req->fm->fc;
	struct emit em;

	if (!reserve(&em, type, t))
		return;
	em.ev->kreq.obj = (__u64)fc;
	em.ev->kreq.unique = req->in.h.unique;
	em.ev->kreq.ret = ret;
	em.ev->kreq.dev = fc->dev;
	em.ev->kreq.requester = kreq_requester(req);
	em.ev->kreq.opcode = opcode;
	em.ev->kreq.obj_kind = ARGUS_OBJ_FUSE;
	submit(&em);
}

/* Only in the thread the request is for: a background request that another
 * thread's completion flushes to the queue is not that thread's wait. */
SEC("tp_btf/fuse_request_send")
int BPF_PROG(fuse_request_send, const struct fuse_req *req)
{
	struct task_struct *t = cur();

	if ((t->flags & PF_KTHREAD_) || is_self(t) || !traced(t) || kreq_requester(req) != t->pid)
		return 0;
	kreq_emit(ARGUS_EV_KREQ_SEND, t, req, req->in.h.len, req->in.h.opcode);
	return 0;
}

/* Only in another thread than the requester: the daemon answering (a
 * request the requester ends itself, interrupted or aborted, names no
 * server). */
SEC("tp_btf/fuse_request_end")
int BPF_PROG(fuse_request_end, const struct fuse_req *req)
{
	struct task_struct *t = cur();

	if ((t->flags & PF_KTHREAD_) || is_self(t) || !traced(t) || kreq_requester(req) == t->pid)
		return 0;
	kreq_emit(ARGUS_EV_KREQ_END, t, req, req->out.h.error, 0);
	return 0;
}
