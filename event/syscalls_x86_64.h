/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * syscalls_x86_64.h - the x86-64 system calls argus cares about: the one
 * table every stage derives its syscall data from (names, the kernel
 * filter, graph wait kinds, trigger checks). Macros only, so that BPF C
 * without libc includes it too. Trace files number syscalls this way on
 * every architecture (docs/events.md).
 *
 * X(name, nr, kclass, karg, wait, named), one row per call, by number:
 *   name    the call as in <asm/unistd_64.h> (__NR_<name> == nr: tests/event)
 *   kclass  how the kernel side treats it: SC_<kclass> (kext/tracer.h);
 *           NONE = not traced (known to the graph only)
 *   karg    how sys_enter's arg0 is derived: SA_<karg> (kext/tracer.h)
 *   wait    what kind of wait it ends in: ARGUS_WAIT_<wait> (graph.h)
 *   named   1: records and reports spell its name (JSON "syscall");
 *           0: its number only (calls added to the filter without one)
 */
#ifndef ARGUS_SYSCALLS_X86_64_H
#define ARGUS_SYSCALLS_X86_64_H

/* clang-format off */
#define ARGUS_SYSCALLS_X86_64(X)                              \
	X(read,            0,   RECV,   COUNT2, READ,  1)     \
	X(write,           1,   SEND,   COUNT2, OTHER, 1)     \
	X(poll,            7,   WAIT,   MS2,    POLL,  1)     \
	X(pread64,         17,  NONE,   NONE,   READ,  0)     \
	X(readv,           19,  RECV,   NONE,   READ,  1)     \
	X(writev,          20,  SEND,   NONE,   OTHER, 1)     \
	X(select,          23,  WAIT,   TV4,    POLL,  1)     \
	X(sched_yield,     24,  WAIT,   NONE,   OTHER, 1)     \
	X(pause,           34,  WAIT,   NONE,   OTHER, 0)     \
	X(nanosleep,       35,  WAIT,   TS0,    SLEEP, 1)     \
	X(connect,         42,  FDWAIT, LISTENER, OTHER, 1)     \
	X(accept,          43,  FDWAIT, NONE,   OTHER, 1)     \
	X(sendto,          44,  SEND,   COUNT2, OTHER, 1)     \
	X(recvfrom,        45,  RECV,   COUNT2, READ,  1)     \
	X(sendmsg,         46,  SEND,   NONE,   OTHER, 1)     \
	X(recvmsg,         47,  RECV,   NONE,   READ,  1)     \
	X(clone,           56,  CLONE,  CLONE,  OTHER, 0)     \
	X(fork,            57,  CLONE,  FORK,   OTHER, 0)     \
	X(vfork,           58,  CLONE,  VFORK,  OTHER, 0)     \
	X(wait4,           61,  WAIT,   PID0,   CHILD, 1)     \
	X(semop,           65,  WAIT,   NONE,   OTHER, 0)     \
	X(msgsnd,          69,  WAIT,   NONE,   OTHER, 0)     \
	X(msgrcv,          70,  WAIT,   NONE,   OTHER, 0)     \
	X(flock,           73,  FDWAIT, NONE,   OTHER, 0)     \
	X(fsync,           74,  FDWAIT, NONE,   OTHER, 1)     \
	X(fdatasync,       75,  FDWAIT, NONE,   OTHER, 1)     \
	X(rt_sigtimedwait, 128, WAIT,   NONE,   OTHER, 0)     \
	X(rt_sigsuspend,   130, WAIT,   NONE,   OTHER, 0)     \
	X(sync,            162, WAIT,   NONE,   OTHER, 1)     \
	X(futex,           202, FUTEX,  NONE,   FUTEX, 1)     \
	X(semtimedop,      220, WAIT,   NONE,   OTHER, 0)     \
	X(clock_nanosleep, 230, WAIT,   TS2,    SLEEP, 1)     \
	X(epoll_wait,      232, FDWAIT, MS3,    POLL,  1)     \
	X(mq_timedsend,    242, WAIT,   NONE,   OTHER, 0)     \
	X(mq_timedreceive, 243, WAIT,   NONE,   OTHER, 0)     \
	X(waitid,          247, WAIT,   PID1,   CHILD, 1)     \
	X(pselect6,        270, WAIT,   TS4,    POLL,  1)     \
	X(ppoll,           271, WAIT,   PTS2,   POLL,  1)     \
	X(splice,          275, FDWAIT, NONE,   OTHER, 1)     \
	X(sync_file_range, 277, FDWAIT, NONE,   OTHER, 1)     \
	X(epoll_pwait,     281, FDWAIT, MS3,    POLL,  1)     \
	X(timerfd_settime, 286, TFDSET, NONE,   OTHER, 1)     \
	X(accept4,         288, FDWAIT, NONE,   OTHER, 1)     \
	X(recvmmsg,        299, RECV,   NONE,   READ,  1)     \
	X(syncfs,          306, FDWAIT, NONE,   OTHER, 1)     \
	X(sendmmsg,        307, SEND,   NONE,   OTHER, 1)     \
	X(clone3,          435, CLONE,  CARGS,  OTHER, 0)     \
	X(epoll_pwait2,    441, FDWAIT, TS3,    POLL,  1)     \
	X(futex_waitv,     449, WAIT,   NONE,   FUTEX, 1)
/* clang-format on */

#endif /* ARGUS_SYSCALLS_X86_64_H */
