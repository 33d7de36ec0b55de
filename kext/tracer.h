/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * tracer.h - what tracer.bpf.c and kext.c share: syscall classes and the
 * limits both sides size their maps with. Records themselves are struct
 * argus_event (event/argus_event.h).
 */
#ifndef ARGUS_KEXT_TRACER_H
#define ARGUS_KEXT_TRACER_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif
#include "argus_arch.h" /* the build's architecture (kext/CMakeLists.txt) */
#include "argus_event.h"
#include "syscalls.h"
#include ARGUS_ARCH_SYSCALLS_H

/* Syscall numbers the tracer looks at go up to here (the machine's own
 * numbering: ARGUS_SYSCALLS_NATIVE, event/syscalls_<arch>.h). */
#define TRACER_NR_MAX 512

#define TRACER_NR_FITS_(name, nr, kclass, karg, wait, named)                                       \
	_Static_assert(nr < TRACER_NR_MAX, #name " is past TRACER_NR_MAX");
ARGUS_SYSCALLS_NATIVE(TRACER_NR_FITS_)
#undef TRACER_NR_FITS_

/* The machine's own numbers, for the few calls the tracer names
 * (TRACER_NR_sched_yield). */
#define TRACER_NR_ROW_(name, nr, kclass, karg, wait, named) TRACER_NR_##name = nr,
enum tracer_nr { ARGUS_SYSCALLS_NATIVE(TRACER_NR_ROW_) };
#undef TRACER_NR_ROW_

/*
 * How the kernel side treats a syscall (const volatile sys_class[nr], set
 * from the kclass column of the table). Anything left at SC_NONE is never
 * looked at beyond one array load.
 */
enum tracer_sys_class {
	SC_NONE = 0,
	SC_RECV = 1,   /* read family on fd arg0: only pipes, sockets, eventfd, timerfd */
	SC_SEND = 2,   /* write family on fd arg0: same objects */
	SC_FUTEX = 3,  /* futex: FUTEX_WAIT / FUTEX_WAKE records */
	SC_WAIT = 4,   /* waits that take no fd (nanosleep, wait4, sched_yield, poll...) */
	SC_FDWAIT = 5, /* waits / long calls on fd arg0 (epoll_wait, fsync, accept...) */
	SC_TFDSET = 6, /* timerfd_settime: TIMER_ARM of the timerfd */
	SC_CLONE = 7,  /* clone family: flags for PROC_FORK / THREAD_NEW, no record */
};

/* How arg0 of SYS_ENTER is derived (const volatile sys_arg[nr]: karg). */
enum tracer_sys_arg {
	SA_NONE = 0,
	SA_COUNT2 = 1, /* arg 2 is a byte count (read, write, recvfrom...) */
	SA_MS2 = 2,    /* arg 2 is a timeout in ms, < 0 = none; args 0, 1 a pollfd array (poll) */
	SA_MS3 = 3,    /* arg 3 is a timeout in ms (epoll_wait) */
	SA_TS0 = 4,    /* arg 0 points to a timespec (nanosleep) */
	SA_TS2 = 5,    /* arg 2 points to a timespec (clock_nanosleep) */
	SA_TS3 = 6,    /* arg 3 points to a timespec (epoll_pwait2) */
	SA_TS4 = 7,    /* arg 4 points to a timespec (pselect6) */
	SA_TV4 = 8,    /* arg 4 points to a timeval (select) */
	SA_PID0 = 9,   /* arg 0 is a pid (wait4) */
	SA_PID1 = 10,  /* arg 1 is an id (waitid) */
	SA_CLONE = 11, /* arg 0 is the clone flags, exit signal in the low byte (clone) */
	SA_CARGS = 12, /* arg 0 points to struct clone_args (clone3) */
	SA_FORK = 13,  /* fork: SIGCHLD */
	SA_VFORK = 14, /* vfork: CLONE_VM | CLONE_VFORK | SIGCHLD */
	SA_PTS2 = 15,  /* arg 2 points to a timespec; args 0, 1 a pollfd array (ppoll) */
	SA_LISTENER = 16, /* connect: on a unix socket, the pid that listens there (SO_PEERCRED) */
};

/*
 * IPC records the tracer holds on one CPU (map `held`, one per CPU) to write
 * them together: up to TRACER_HELD_MAX sends and receives of one thread that
 * neither waited nor failed, within one clock tick, all stamped with the
 * first one's time (one clock read and one ring reservation for all), and
 * full-buffer reads of one stream merged into one IPC_RECV (`calls`). They
 * are written before any other record of the CPU; what is still held when
 * tracing stops, user space reads from the map.
 */
#define TRACER_HELD_MAX 8

struct tracer_held {
	struct argus_event ev[TRACER_HELD_MAX];
	__u64 jiffies; /* the tick ev[0] was stamped in */
	__u32 tid;
	__u8 n;    /* records held */
	__u8 full; /* ev[n - 1] is a read that filled its buffer: more may follow */
	__u8 busy; /* sys_exit is changing it: a nested program keeps off */
	__u8 _pad;
};

/*
 * Records the tracer gathers on one CPU (map `stage`, one per CPU) before
 * they go to that CPU's ring as one entry, in the default capture
 * (kext/stage.bpf.c, docs/kext.md "Rings, wake-ups and losses"): a ring
 * entry costs a reservation and a commit whatever its size. Two halves: a
 * program that interrupts the write-out of one writes into the other. What
 * is still staged when tracing stops, user space reads from the map.
 */
#define TRACER_STAGE_MAX 64

struct tracer_stage {
	__u32 n[2];  /* slots taken in each half (records written or being written) */
	__u32 cur;   /* the half programs write into; the other is empty */
	__u32 depth; /* programs using it now: one, and those interrupts nest in it */
	__u8 shed;   /* the ring was past shed_bytes at the last write-out */
	__u8 _pad[47];
	struct argus_event ev[2][TRACER_STAGE_MAX];
};

/* Default sizes. */
#define TRACER_CPUS_MAX     1024  /* CPUs with their own loss counters */
#define TRACER_INFLIGHT_MAX 32768 /* threads inside a traced syscall */
#define TRACER_TIMERS_MAX   16384 /* armed hrtimers being followed */
#define TRACER_METER_MAX    16384 /* the bench meter's (process, program) pairs */
#define TRACER_PIDS_MAX     4096  /* processes of a --pid / command filter */
#define TRACER_STACKS_MAX   16384 /* distinct user stacks in the stack map */
#define TRACER_KWAIT_STACKS 1024  /* long kernel waits' stacks (kwait_stacks), by hash */
#define TRACER_STACK_DEPTH  127   /* frames per stack (ARGUS_STACK_MAX_DEPTH) */
#define TRACER_SCAN_WORDS   32    /* user stack words scanned for sp_ret */
#define TRACER_SCAN_CHECKS  4     /* of them, candidates checked for a call before */
#define TRACER_EAGAIN_NS    1000000 /* an empty read repeating the last, this soon: not written */
#define TRACER_KWAIT_NS     1000000 /* a kernel wait this long gets its kernel stack at its end */
#define TRACER_WAIT_PLACES  8     /* places a thread's wait stacks are kept for */
#define TRACER_PLACE_FRAMES 2     /* return addresses on the frame chain a place is keyed by */
/* Frame pointers below this are not read (vm.mmap_min_addr's default: never
 * mapped), the walk stops there: a fault costs about 2 us (0 in rbp under a
 * library without frame pointers is common). */
#define TRACER_MIN_USER_ADDR 0x10000
/* A wait's frame pointer is followed only when it points into the stack
 * above the stack pointer, within this span, each frame above the last:
 * libraries without frame pointers leave any value in rbp, and a read of
 * an unmapped one faults (some 2.5 us here, ten times the rest of the
 * stack path: docs/kext.md "Stacks"). */
#define TRACER_FP_SPAN (8ull << 20)
/* stack.ustack of a wait's STACK record whose frame pointer was not
 * followed: the stack is the record's ip alone (the decoder makes it). */
#define TRACER_USTACK_IP_ONLY 0xfffffffeu
/* stack.depth of a wait's STACK record on the kernel ring (the decoder
 * writes the real depth): its stacks were not walked again, the thread
 * blocked at a place it blocked at before (same user ip, frame pointer and
 * first TRACER_PLACE_FRAMES return addresses on the frame chain) and the
 * ids are those of its last walk there; the decoder takes the frames it
 * read then (docs/kext.md "Wait stacks"). */
#define TRACER_STACK_REUSED 0xffffffffu
#define TRACER_PATH_MAX     256  /* exec paths kept for the decoder */
#define TRACER_EXECS_MAX    4096 /* exec paths not yet decoded */
#define TRACER_APPSET_MAX   8192 /* processes of the app set (appset.bpf.h) */
/* Seeds of the app set by name: display servers and compositors (the
 * trigger's lists, trigger/tables.c). */
#define TRACER_DISPLAY_NAMES                                                                       \
	"Xorg", "X", "Xvfb", "Xwayland", "Xephyr", "Xnest", "Xvnc", "weston", "sway",              \
	    "kwin_wayland", "mutter", "gnome-shell", "Hyprland", "labwc", "wayfire", "cage"
#define TRACER_TCP_MAX 8192 /* loopback TCP ends (peers; ends not paired yet) */

/*
 * Full user stacks (kext_full_stacks, kext/ustack.bpf.c): a cpu-clock
 * sample of a process asked for keeps a copy of the thread's user registers
 * and of the top of its user stack in one of TRACER_USTACK_SLOTS slots
 * (map `ustacks`, used round robin); the sample record names the slot
 * (stack.copy = slot + 1) and the decoder unwinds the copy with the
 * binaries' CFI (kext/unwind.c) soon after, while the slot still holds it
 * (ts and tid say whether it does).
 */
#define TRACER_USTACK_SLOTS     256   /* copies in flight between kernel and decoder */
#define TRACER_USTACK_BYTES_MAX 16384 /* most stack bytes a copy keeps */
#define TRACER_USTACK_BYTES     8192  /* default (const volatile ustack_bytes) */
#define TRACER_FULL_PIDS_MAX    1024  /* processes with full stacks */
#define TRACER_UREGS_MAX        34    /* DWARF registers a copy keeps (x86-64: 17) */

struct tracer_ustack {
	__u64 ts;    /* the sample's time; 0 while being written */
	__u32 tid;   /* the sampled thread */
	__u32 size;  /* stack bytes copied from regs[sp] up */
	__u32 nregs; /* DWARF registers 0 .. nregs - 1 */
	__u32 _pad;
	__u64 regs[TRACER_UREGS_MAX];
	__u8 data[TRACER_USTACK_BYTES_MAX];
};

/* The bench meter (const volatile meter_tasks, `argus start --meter`): the
 * map argus_meter adds up each program's runs per process it ran in (the
 * current task: the interrupted one in an interrupt, the one switching out
 * at a context switch). */
struct tracer_meter_key {
	__u32 tgid;
	__u32 prog; /* the program's number in the object */
};

struct tracer_meter_val {
	__u64 ns;
	__u64 runs;
	char prog[16]; /* the program's name, cut to 15 bytes */
};

#endif /* ARGUS_KEXT_TRACER_H */
