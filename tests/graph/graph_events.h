/*
 * graph_events.h - builders for the hand-written event sequences of the
 * graph tests, and a small recorder that looks vertices and edges up.
 */
#ifndef ARGUS_TEST_GRAPH_EVENTS_H
#define ARGUS_TEST_GRAPH_EVENTS_H

#include <string.h>

#include "argus_event.h"
#include "graph.h"

#define MS  1000000ull
#define SEC 1000000000ull

/* x86-64 syscall numbers the sequences use */
enum { T_READ = 0, T_WRITE = 1, T_EPOLL_WAIT = 232, T_NANOSLEEP = 35, T_FUTEX = 202 };

static inline struct argus_event ev_base(uint64_t ts, uint16_t type, uint32_t pid, uint32_t tid)
{
	struct argus_event e;
	memset(&e, 0, sizeof(e));
	e.ts = ts;
	e.type = type;
	e.pid = pid;
	e.tid = tid;
	return e;
}

/* tid leaves the CPU: blocking when state != 0 */
static inline struct argus_event ev_switch(uint64_t ts, uint32_t pid, uint32_t tid, int64_t state,
                                           uint32_t next_pid, uint32_t next_tid)
{
	struct argus_event e = ev_base(ts, ARGUS_EV_SCHED_SWITCH, pid, tid);
	e.sched_switch.prev_state = state;
	e.sched_switch.next_pid = next_pid;
	e.sched_switch.next_tid = next_tid;
	return e;
}

static inline struct argus_event ev_wakeup(uint64_t ts, uint32_t pid, uint32_t tid,
                                           uint32_t wakee_pid, uint32_t wakee_tid, uint16_t flags)
{
	struct argus_event e = ev_base(ts, ARGUS_EV_SCHED_WAKEUP, pid, tid);
	e.flags = flags;
	e.wakeup.wakee_pid = wakee_pid;
	e.wakeup.wakee_tid = wakee_tid;
	return e;
}

static inline struct argus_event ev_sys_enter(uint64_t ts, uint32_t pid, uint32_t tid, uint16_t nr)
{
	struct argus_event e = ev_base(ts, ARGUS_EV_SYS_ENTER, pid, tid);
	e.sys_enter.nr = nr;
	e.sys_enter.fd = -1;
	return e;
}

static inline struct argus_event ev_sys_exit(uint64_t ts, uint32_t pid, uint32_t tid, uint16_t nr,
                                             int64_t ret)
{
	struct argus_event e = ev_base(ts, ARGUS_EV_SYS_EXIT, pid, tid);
	e.sys_exit.nr = nr;
	e.sys_exit.ret = ret;
	e.sys_exit.fd = -1;
	return e;
}

static inline struct argus_event ev_ipc(uint64_t ts, bool send, uint32_t pid, uint32_t tid,
                                        uint64_t obj, uint64_t peer, uint8_t kind, int64_t ret)
{
	struct argus_event e = ev_base(ts, send ? ARGUS_EV_IPC_SEND : ARGUS_EV_IPC_RECV, pid, tid);
	e.ipc.obj = obj;
	e.ipc.peer_obj = peer;
	e.ipc.obj_kind = kind;
	e.ipc.ret = ret;
	e.ipc.nr = send ? T_WRITE : T_READ;
	return e;
}

static inline struct argus_event ev_obj(uint64_t ts, uint16_t type, uint32_t pid, uint32_t tid,
                                        uint64_t obj)
{
	struct argus_event e = ev_base(ts, type, pid, tid);
	switch (type) {
	case ARGUS_EV_ASYNC_POST:
	case ARGUS_EV_ASYNC_RUN_BEGIN:
	case ARGUS_EV_ASYNC_RUN_END:
		e.async.obj = obj;
		break;
	case ARGUS_EV_TIMER_ARM:
	case ARGUS_EV_TIMER_FIRE:
	case ARGUS_EV_TIMER_CANCEL:
		e.timer.obj = obj;
		break;
	case ARGUS_EV_FLAG_WRITE:
	case ARGUS_EV_FLAG_READ:
		e.flag.addr = obj;
		break;
	case ARGUS_EV_STACK:
	case ARGUS_EV_CPU_SAMPLE:
		e.stack.ustack = (uint32_t)obj;
		break;
	case ARGUS_EV_DISPATCH_BEGIN:
	case ARGUS_EV_DISPATCH_END:
	case ARGUS_EV_LOOP_ITER_BEGIN:
	case ARGUS_EV_LOOP_ITER_END:
		e.loop.source = obj;
		break;
	default:
		e.sync.obj = obj;
	}
	return e;
}

static inline struct argus_event ev_futex_wake(uint64_t ts, uint32_t pid, uint32_t tid,
                                               uint64_t uaddr, int64_t woken)
{
	struct argus_event e = ev_base(ts, ARGUS_EV_FUTEX_WAKE, pid, tid);
	e.futex.uaddr = uaddr;
	e.futex.ret = woken;
	e.futex.val = 1;
	return e;
}

static inline struct argus_event ev_dbus(uint64_t ts, bool send, uint32_t pid, uint32_t tid,
                                         uint64_t conn, uint32_t type, uint32_t serial,
                                         uint32_t reply_serial, uint32_t member)
{
	struct argus_event e =
	    ev_base(ts, send ? ARGUS_EV_DBUS_SEND : ARGUS_EV_DBUS_RECV, pid, tid);
	e.dbus.conn = conn;
	e.dbus.msg_type = type;
	e.dbus.serial = serial;
	e.dbus.reply_serial = reply_serial;
	e.dbus.member_str = member;
	return e;
}

static inline struct argus_event ev_comm(uint64_t ts, uint32_t pid, uint32_t tid, const char *c)
{
	struct argus_event e = ev_base(ts, ARGUS_EV_COMM, pid, tid);
	strncpy(e.comm.comm, c, ARGUS_COMM_LEN - 1);
	return e;
}

static inline struct argus_event ev_irq(uint64_t ts, bool entry, uint16_t cpu, uint32_t pid,
                                        uint32_t tid)
{
	struct argus_event e =
	    ev_base(ts, entry ? ARGUS_EV_IRQ_ENTRY : ARGUS_EV_IRQ_EXIT, pid, tid);
	e.cpu = cpu;
	e.flags = ARGUS_F_HARDIRQ;
	return e;
}

#endif
