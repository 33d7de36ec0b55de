/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * argus_event.h - the one binary record every argus stage shares.
 *
 * This header is the contract between the kernel side (kext/ BPF programs, compiled
 * with clang -target bpf against vmlinux.h), the in-process hooks, and every
 * user-space stage. It therefore uses only fixed-width types and includes
 * nothing when built for BPF. docs/events.md documents every type and field.
 *
 * Layout: a 24-byte common header followed by a 40-byte type-specific payload;
 * sizeof(struct argus_event) == 64 on every platform (checked below).
 * Timestamps are CLOCK_MONOTONIC nanoseconds, what bpf_ktime_get_ns() returns.
 * Byte order is little-endian (x86-64 and arm64); trace files record it.
 */
#ifndef ARGUS_EVENT_H
#define ARGUS_EVENT_H

#ifndef __bpf__
#include <stdint.h>
typedef uint8_t argus_u8;
typedef uint16_t argus_u16;
typedef uint32_t argus_u32;
typedef int32_t argus_s32;
typedef uint64_t argus_u64;
typedef int64_t argus_s64;
#else
typedef __u8 argus_u8;
typedef __u16 argus_u16;
typedef __u32 argus_u32;
typedef __s32 argus_s32;
typedef __u64 argus_u64;
typedef __s64 argus_s64;
#endif

/* Bumped on any incompatible change to a record layout or meaning. */
#define ARGUS_SCHEMA_VERSION 1

/* An entry of a kernel (BPF) ring holds 1 to this many records: records
 * gathered on one CPU share one reservation. Readers split entries. */
#define ARGUS_RING_ENTRY_MAX 64

#define ARGUS_COMM_LEN 16

/*
 * Event types. Numbers are stable once released: never reuse one.
 * 0x001-0x0ff Linux and hooks; 0x100-0x1ff reserved for a macOS kdebug
 * backend (Mach messages, dispatch queues, runloops, vouchers).
 */
enum argus_event_type {
	ARGUS_EV_NONE = 0,

	/* process and thread lifecycle, names, memory layout */
	ARGUS_EV_PROC_FORK = 1,   /* new process: payload.fork */
	ARGUS_EV_THREAD_NEW = 2,  /* new thread in a process: payload.fork */
	ARGUS_EV_PROC_EXEC = 3,   /* payload.exec */
	ARGUS_EV_THREAD_EXIT = 4, /* payload.exit */
	ARGUS_EV_PROC_EXIT = 5,   /* last thread of a process: payload.exit */
	ARGUS_EV_COMM = 6,        /* thread (or process) name: payload.comm */
	ARGUS_EV_MMAP = 7,        /* executable mapping: payload.mmap */

	/* scheduling: thread wait / wake-up (paper: thread_unblock) */
	ARGUS_EV_SCHED_SWITCH = 16,     /* pid/tid = prev: payload.sched_switch */
	ARGUS_EV_SCHED_WAKEUP = 17,     /* pid/tid = waker: payload.wakeup */
	ARGUS_EV_SCHED_WAKEUP_NEW = 18, /* pid/tid = parent: payload.wakeup */

	/* system calls that wait, communicate or take long (kernel-filtered) */
	ARGUS_EV_SYS_ENTER = 32, /* payload.sys_enter */
	ARGUS_EV_SYS_EXIT = 33,  /* payload.sys_exit */

	/* IPC through a kernel object (paper: Mach message send / receive) */
	ARGUS_EV_IPC_SEND = 40, /* payload.ipc, at syscall exit */
	ARGUS_EV_IPC_RECV = 41, /* payload.ipc, at syscall exit */
	/* a request the kernel sends a user-space server for a thread (FUSE) */
	ARGUS_EV_KREQ_SEND = 42, /* pid/tid = the thread it is for: payload.kreq */
	ARGUS_EV_KREQ_END = 43,  /* pid/tid = the thread that ended it (the server
	                            answering; the requester when aborted): payload.kreq */

	/* futex: condition-variable / lock waits seen from the kernel */
	ARGUS_EV_FUTEX_WAIT = 48, /* at entry: payload.futex */
	ARGUS_EV_FUTEX_WAKE = 49, /* at exit, ret = threads woken: payload.futex */

	/* timers (paper: time-delayed calls) */
	ARGUS_EV_TIMER_ARM = 56,    /* payload.timer */
	ARGUS_EV_TIMER_FIRE = 57,   /* payload.timer */
	ARGUS_EV_TIMER_CANCEL = 58, /* payload.timer */

	/* interrupts and kernel maintenance, cut out of segments */
	ARGUS_EV_IRQ_ENTRY = 64,     /* payload.irq */
	ARGUS_EV_IRQ_EXIT = 65,      /* payload.irq */
	ARGUS_EV_SOFTIRQ_ENTRY = 66, /* payload.irq */
	ARGUS_EV_SOFTIRQ_EXIT = 67,  /* payload.irq */

	/* call stacks and samples (debug info) */
	ARGUS_EV_STACK = 72,      /* stack of this thread's last wait: payload.stack */
	ARGUS_EV_CPU_SAMPLE = 73, /* periodic on-CPU sample: payload.stack */

	/* UI input: the UI thread consumed display-server input */
	ARGUS_EV_UI_INPUT = 80, /* payload.ui */

	/* from hooks: run-loop boundaries (split segments) */
	ARGUS_EV_LOOP_ITER_BEGIN = 88, /* payload.loop */
	ARGUS_EV_LOOP_ITER_END = 89,   /* payload.loop */
	ARGUS_EV_DISPATCH_BEGIN = 90,  /* payload.loop */
	ARGUS_EV_DISPATCH_END = 91,    /* payload.loop */
	/* from hooks: a toolkit landmark (signal, paint, Qt event / signal) of
	 * at least the hooks' threshold, sent once, at its end */
	ARGUS_EV_LANDMARK = 92, /* payload.landmark; header ts = its end */

	/* from hooks: async post -> run (paper: dispatch_async enqueue / invoke) */
	ARGUS_EV_ASYNC_POST = 96,      /* payload.async */
	ARGUS_EV_ASYNC_RUN_BEGIN = 97, /* payload.async */
	ARGUS_EV_ASYNC_RUN_END = 98,   /* payload.async */

	/* from hooks: condition variables and semaphores */
	ARGUS_EV_COND_WAIT = 104,      /* entering wait: payload.sync */
	ARGUS_EV_COND_WAKE = 105,      /* wait returned: payload.sync */
	ARGUS_EV_COND_SIGNAL = 106,    /* payload.sync */
	ARGUS_EV_COND_BROADCAST = 107, /* payload.sync */
	ARGUS_EV_SEM_WAIT = 108,       /* payload.sync */
	ARGUS_EV_SEM_POST = 109,       /* payload.sync */
	ARGUS_EV_MUTEX_HANDOFF = 110,  /* unlock that woke a waiter: payload.sync */

	/* from hooks: D-Bus messages (paper: Mach reply port) */
	ARGUS_EV_DBUS_SEND = 112, /* payload.dbus */
	ARGUS_EV_DBUS_RECV = 113, /* payload.dbus */

	/* from hardware watchpoints: shared data flags */
	ARGUS_EV_FLAG_WRITE = 120, /* payload.flag */
	ARGUS_EV_FLAG_READ = 121,  /* payload.flag */

	/* accounting */
	ARGUS_EV_DROP = 128, /* records lost at a source: payload.drop */

	ARGUS_EV_TYPE_MAX = 129, /* one past the last Linux type */

	ARGUS_EV_MACOS_FIRST = 0x100, /* reserved range */
	ARGUS_EV_MACOS_LAST = 0x1ff,
};

/* Common-header flags. */
enum argus_event_flag {
	ARGUS_F_HARDIRQ = 1 << 0, /* emitted from hard-interrupt context */
	ARGUS_F_SOFTIRQ = 1 << 1, /* emitted from softirq context */
	ARGUS_F_KTHREAD = 1 << 2, /* the current task is a kernel thread */
	ARGUS_F_LATE = 1 << 3,    /* released by the merge after its watermark */
	ARGUS_F_HOOK = 1 << 4,    /* produced by in-process hooks, not the kernel */
	ARGUS_F_TRUNC = 1 << 5,   /* a field was truncated to fit */
	ARGUS_F_SYNTH = 1 << 6,   /* produced by `argus synth` */
	ARGUS_F_NORET = 1 << 7,   /* the call's return was not seen (capture without
	                           * syscall tracepoints): ret is a stand-in, docs/kext.md */
};

/* What kind of kernel object an IPC or wait goes through. */
enum argus_obj_kind {
	ARGUS_OBJ_NONE = 0,
	ARGUS_OBJ_PIPE = 1,       /* obj = struct pipe_inode_info * */
	ARGUS_OBJ_UNIX = 2,       /* obj = struct sock *, peer_obj = peer's sock */
	ARGUS_OBJ_EVENTFD = 3,    /* obj = struct eventfd_ctx * */
	ARGUS_OBJ_TCP = 4,        /* loopback TCP: obj = sock, peer_obj = peer sock */
	ARGUS_OBJ_TIMERFD = 5,    /* obj = struct timerfd_ctx * */
	ARGUS_OBJ_FUTEX = 6,      /* obj = user address of the futex word */
	ARGUS_OBJ_HRTIMER = 7,    /* obj = struct hrtimer * */
	ARGUS_OBJ_FILE = 8,       /* other file: obj = struct file * */
	ARGUS_OBJ_SOCKETPAIR = 9, /* AF_UNIX socketpair: as UNIX */
	ARGUS_OBJ_DISPLAY = 10,   /* unix socket to an X11 / Wayland server */
	ARGUS_OBJ_PTY = 11,       /* pseudo-terminal end: obj = tty_struct, peer_obj = other end */
	ARGUS_OBJ_FUSE = 12,      /* a FUSE connection: obj = struct fuse_conn * */
	ARGUS_OBJ_KIND_MAX = 13,
};

/* Timer sources. */
enum argus_timer_kind {
	ARGUS_TIMER_HRTIMER = 0,
	ARGUS_TIMER_TIMERFD = 1,
	ARGUS_TIMER_POSIX = 2,
	ARGUS_TIMER_GSOURCE = 3, /* g_timeout_add (hooks) */
	ARGUS_TIMER_SLEEPER = 4, /* a blocking call's timeout (hrtimer_sleeper): fire only,
	                            the header names its thread */
};

/* Async post kinds (hooks). */
enum argus_async_kind {
	ARGUS_ASYNC_IDLE = 0,       /* g_idle_add */
	ARGUS_ASYNC_TIMEOUT = 1,    /* g_timeout_add */
	ARGUS_ASYNC_INVOKE = 2,     /* g_main_context_invoke */
	ARGUS_ASYNC_ATTACH = 3,     /* g_source_attach */
	ARGUS_ASYNC_THREADPOOL = 4, /* g_thread_pool_push */
	ARGUS_ASYNC_TASK = 5,       /* g_task_run_in_thread */
	ARGUS_ASYNC_QT = 6,         /* QCoreApplication::postEvent */
};

/* Landmark kinds (LANDMARK records, from the hooks). */
enum argus_landmark_kind {
	ARGUS_LM_SIGNAL = 0,    /* a GObject signal emission (g_signal_emit*) */
	ARGUS_LM_GTK_EVENT = 1, /* a GTK event signal ("key-press-event", ...) */
	ARGUS_LM_PAINT = 2,     /* GTK "draw" / the frame clock's "paint" */
	ARGUS_LM_QT_EVENT = 3,  /* a Qt event delivery (QCoreApplication::notify) */
	ARGUS_LM_QT_SIGNAL = 4, /* a Qt signal and its slot calls (QMetaObject::activate) */
};

/* Stack record kinds. */
enum argus_stack_kind {
	ARGUS_STACK_WAIT = 0,   /* at a blocking wait */
	ARGUS_STACK_SAMPLE = 1, /* periodic on-CPU sample */
	ARGUS_STACK_EVENT = 2,  /* attached to a hook event */
	ARGUS_STACK_WAIT_END = 3, /* the kernel stack of a long wait, at its end */
};

/* Sources that can drop records. */
enum argus_drop_source {
	ARGUS_DROP_KERNEL_RING = 0, /* BPF ring buffer full */
	ARGUS_DROP_HOOK_RING = 1,   /* in-process shared-memory ring full */
	ARGUS_DROP_MERGE = 2,       /* merge queue overflow */
	ARGUS_DROP_CLIENT = 3,      /* a JSON stream client's queue */
	ARGUS_DROP_DECODE = 4,      /* undecodable record */
	ARGUS_DROP_STACK = 5,       /* stack map full / stack lost */
	ARGUS_DROP_NESTED = 6,      /* tracer program runs the kernel skipped (count = runs) */
};
#define ARGUS_DROP_SOURCES 7

/* UI input kinds. */
enum argus_ui_kind {
	ARGUS_UI_DISPLAY_READ = 0, /* UI thread read its display socket */
	ARGUS_UI_KEY = 1,
	ARGUS_UI_BUTTON = 2,
	ARGUS_UI_MOTION = 3,
	ARGUS_UI_EXPOSE = 4,
	ARGUS_UI_OTHER = 5,
	ARGUS_UI_MAP = 6, /* first window mapped (launch done) */
};

/* payload: PROC_FORK, THREAD_NEW (pid/tid of the header = the parent) */
struct argus_ev_fork {
	argus_u32 child_pid;
	argus_u32 child_tid;
	argus_u64 clone_flags;
	char comm[ARGUS_COMM_LEN];
	argus_u64 _pad;
};

/* payload: PROC_EXEC */
struct argus_ev_exec {
	argus_u32 exe_str; /* string-table id of the executable path, 0 = unknown */
	argus_u32 old_tid; /* thread that called execve (leader may change) */
	char comm[ARGUS_COMM_LEN];
	argus_u64 _pad[2];
};

/* payload: THREAD_EXIT, PROC_EXIT */
struct argus_ev_exit {
	argus_s32 exit_code;
	argus_u32 _pad0;
	argus_u64 _pad[4];
};

/* payload: COMM */
struct argus_ev_comm {
	char comm[ARGUS_COMM_LEN];
	argus_u32 name_str;   /* string-table id of a longer name, 0 = none */
	argus_u32 is_process; /* 1: process name (exe basename), 0: thread name */
	argus_u64 _pad[2];
};

/* payload: MMAP (an executable mapping; maps tables hold the full layout) */
struct argus_ev_mmap {
	argus_u64 start;
	argus_u64 end;
	argus_u64 pgoff;
	argus_u32 path_str; /* string-table id */
	argus_u32 prot;     /* PROT_* bits */
	argus_u64 _pad;
};

/* payload: SCHED_SWITCH (header pid/tid = the thread leaving the CPU) */
struct argus_ev_sched_switch {
	argus_u32 next_pid;
	argus_u32 next_tid;
	argus_s64 prev_state; /* 0 = runnable (preempted); else TASK_* bits */
	argus_u32 prev_prio;
	argus_u32 next_prio;
	char next_comm[ARGUS_COMM_LEN];
};

/* payload: SCHED_WAKEUP, SCHED_WAKEUP_NEW (header pid/tid = the waker; 0 in irq) */
struct argus_ev_wakeup {
	argus_u32 wakee_pid;
	argus_u32 wakee_tid;
	argus_u32 target_cpu;
	argus_u32 wakee_prio;
	argus_u64 _pad[3];
};

/*
 * payload: SYS_ENTER. nr = syscall number (x86-64 numbering in trace files;
 * other architectures are mapped at the source). arg0/arg1 meaning per call
 * (docs/events.md): poll family and nanosleep: arg0 = timeout ns (-1 = none);
 * read/write family: arg0 = requested bytes; wait4/waitid: arg0 = pid waited.
 */
struct argus_ev_sys_enter {
	argus_u64 obj;
	argus_u64 peer_obj;
	argus_s64 arg0;
	argus_s64 arg1;
	argus_s32 fd; /* -1 when no fd */
	argus_u16 nr;
	argus_u8 obj_kind; /* enum argus_obj_kind */
	argus_u8 _pad;
};

/* payload: SYS_EXIT, IPC_SEND, IPC_RECV (same layout) */
struct argus_ev_sys_exit {
	argus_u64 obj;
	argus_u64 peer_obj;
	argus_s64 ret;    /* return value; bytes moved for IPC */
	argus_u64 dur_ns; /* time since the matching SYS_ENTER */
	argus_s32 fd;
	argus_u16 nr;
	argus_u8 obj_kind;
	argus_u8 calls; /* IPC_RECV: calls merged into this record (0 = 1) */
};

/* payload: FUTEX_WAIT, FUTEX_WAKE (obj = futex user address) */
struct argus_ev_futex {
	argus_u64 uaddr;
	argus_s64 timeout_ns; /* WAIT: relative timeout, -1 = none */
	argus_s64 ret;        /* WAKE: threads woken */
	argus_u32 op;         /* FUTEX_* op with flags */
	argus_u32 val;        /* WAIT: expected value; WAKE: max to wake */
	argus_u64 uaddr2;
};

/* payload: TIMER_ARM, TIMER_FIRE, TIMER_CANCEL */
struct argus_ev_timer {
	argus_u64 obj;        /* hrtimer / timerfd ctx / GSource address */
	argus_u64 expires_ns; /* absolute CLOCK_MONOTONIC expiry, 0 = unknown */
	argus_u64 interval_ns;
	argus_u64 function; /* callback address when known */
	argus_s32 fd;
	argus_u32 kind; /* enum argus_timer_kind */
};

/* payload: IRQ_ENTRY/EXIT (irq number), SOFTIRQ_ENTRY/EXIT (vector) */
struct argus_ev_irq {
	argus_u32 irq;
	argus_s32 ret;      /* IRQ_EXIT: handler result */
	argus_u32 name_str; /* string-table id of the handler name, 0 = none */
	argus_u32 _pad0;
	argus_u64 dur_ns; /* IRQ_EXIT, SOFTIRQ_EXIT: the interrupt's time since its
	                     outermost entry (no entry record then); 0 = an entry
	                     record was written (older recordings) */
	argus_u64 _pad[2];
};

/* payload: KREQ_SEND, KREQ_END: one request of a kernel file system to its
 * user-space server (FUSE), from the kernel's own tracepoints */
struct argus_ev_kreq {
	argus_u64 obj;       /* the connection (struct fuse_conn *): the server's queue */
	argus_u64 unique;    /* the request's id on that connection */
	argus_s64 ret;       /* SEND: the request's bytes; END: 0 or -errno */
	argus_u32 dev;       /* the connection's device number (/sys/fs/fuse/connections/N) */
	argus_u32 requester; /* tid of the thread the request is for (the kernel's in.h.pid) */
	argus_u32 opcode;    /* FUSE_* opcode (SEND), 0 (END) */
	argus_u8 obj_kind;   /* enum argus_obj_kind: ARGUS_OBJ_FUSE */
	argus_u8 _pad[3];
};

/* payload: STACK, CPU_SAMPLE */
struct argus_ev_stack {
	argus_u32 ustack; /* stack-table id of the user stack, 0 = none */
	argus_u32 kstack; /* stack-table id of the kernel stack, 0 = none */
	argus_u64 ip;     /* user instruction pointer at the sample / syscall */
	argus_u64 sp_ret; /* return address into the executable found on the user
	                     stack: the caller of a libc function without frame
	                     pointers (waits; samples inside a shared library) */
	argus_u32 kind;   /* enum argus_stack_kind */
	argus_u32 depth;  /* frames captured in the user stack */
	argus_u32 copy;   /* kernel ring only: slot + 1 of the user stack copy
	                     (kext_full_stacks); the decoder clears it */
	argus_u32 unwind; /* how ustack was walked: enum argus_unwind */
};

/* How a STACK / CPU_SAMPLE user stack was walked (argus_ev_stack.unwind). */
enum argus_unwind {
	ARGUS_UNWIND_FP = 0,    /* frame pointers in the kernel (sp_ret added) */
	ARGUS_UNWIND_DWARF = 1, /* CFI (.eh_frame / .debug_frame) from a copy of
	                           the registers and the top of the stack */
};

/* payload: UI_INPUT */
struct argus_ev_ui {
	argus_u64 obj;              /* display socket (sock *) or GdkWindow */
	argus_u64 serial;           /* X serial / GDK event serial, 0 = unknown */
	argus_s64 bytes;            /* bytes read from the display socket */
	argus_u64 pending_since_ns; /* when the server wrote it; 0 = unknown */
	argus_u32 kind;             /* enum argus_ui_kind */
	argus_u32 window;
};

/* payload: LOOP_ITER_BEGIN/END, DISPATCH_BEGIN/END */
struct argus_ev_loop {
	argus_u64 context;  /* GMainContext * */
	argus_u64 source;   /* GSource * (dispatch) */
	argus_u64 callback; /* dispatch function address */
	argus_u32 depth;    /* nesting depth of the loop */
	argus_u32 name_str; /* source name, 0 = none */
	argus_u64 _pad;
};

/* payload: LANDMARK */
struct argus_ev_landmark {
	argus_u64 fn;        /* the handler it ran (the app's signal handler, the
	                        receiver's event(), the signal function), 0 = unknown */
	argus_u64 obj;       /* the instance / receiver / sender */
	argus_u64 begin_ns;  /* CLOCK_MONOTONIC at its begin */
	argus_u64 nested_ns; /* the landmarks nested in it (direct children, any length) */
	argus_u32 kind;      /* enum argus_landmark_kind */
	argus_u32 depth;     /* open landmarks of this thread around it (0: outermost) */
};

/* payload: ASYNC_POST, ASYNC_RUN_BEGIN, ASYNC_RUN_END (obj pairs them) */
struct argus_ev_async {
	argus_u64 obj;      /* GSource * / GTask * / work item */
	argus_u64 callback; /* function that will run */
	argus_u64 target;   /* GMainContext * or GThreadPool * */
	argus_u64 delay_ns; /* g_timeout_add interval, 0 otherwise */
	argus_u32 kind;     /* enum argus_async_kind */
	argus_u32 _pad;
};

/* payload: COND_*, SEM_*, MUTEX_HANDOFF */
struct argus_ev_sync {
	argus_u64 obj;   /* pthread_cond_t * / sem_t * / pthread_mutex_t * */
	argus_u64 mutex; /* associated mutex for COND_WAIT, 0 otherwise */
	argus_s64 ret;
	argus_u64 _pad[2];
};

/* payload: DBUS_SEND, DBUS_RECV */
struct argus_ev_dbus {
	argus_u64 conn; /* DBusConnection * / GDBusConnection * */
	argus_u32 serial;
	argus_u32 reply_serial; /* 0 unless a reply or error */
	argus_u32 msg_type;     /* 1 call, 2 return, 3 error, 4 signal */
	argus_u32 member_str;   /* string-table id of interface.member, 0 = none */
	argus_u32 dest_str;     /* string-table id of the destination name */
	argus_u32 _pad0;
	argus_u64 _pad;
};

/* payload: FLAG_WRITE, FLAG_READ */
struct argus_ev_flag {
	argus_u64 addr;
	argus_u64 value;
	argus_u64 ip; /* instruction that touched the flag */
	argus_u32 len;
	argus_u32 watch_id;
	argus_u64 _pad;
};

/* payload: DROP (header cpu = the CPU whose source lost the records) */
struct argus_ev_drop {
	argus_u64 count;     /* records lost since the previous DROP of this source */
	argus_u64 total;     /* records lost by this source since start */
	argus_u64 first_ts;  /* earliest loss covered, 0 = unknown */
	argus_u32 source;    /* enum argus_drop_source */
	argus_u32 source_id; /* client id / hook ring id */
	argus_u64 _pad;
};

struct argus_event {
	argus_u64 ts;   /* CLOCK_MONOTONIC ns */
	argus_u32 pid;  /* process (tgid); 0 = idle / interrupt */
	argus_u32 tid;  /* thread */
	argus_u16 type; /* enum argus_event_type */
	argus_u16 cpu;
	argus_u16 flags; /* enum argus_event_flag */
	argus_u16 _rsvd; /* zero */
	union {
		struct argus_ev_fork fork;
		struct argus_ev_exec exec;
		struct argus_ev_exit exit;
		struct argus_ev_comm comm;
		struct argus_ev_mmap mmap;
		struct argus_ev_sched_switch sched_switch;
		struct argus_ev_wakeup wakeup;
		struct argus_ev_sys_enter sys_enter;
		struct argus_ev_sys_exit sys_exit;
		struct argus_ev_sys_exit ipc;
		struct argus_ev_futex futex;
		struct argus_ev_timer timer;
		struct argus_ev_irq irq;
		struct argus_ev_stack stack;
		struct argus_ev_kreq kreq;
		struct argus_ev_ui ui;
		struct argus_ev_loop loop;
		struct argus_ev_async async;
		struct argus_ev_landmark landmark;
		struct argus_ev_sync sync;
		struct argus_ev_dbus dbus;
		struct argus_ev_flag flag;
		struct argus_ev_drop drop;
		argus_u8 raw[40];
	};
};

#ifndef __bpf__
_Static_assert(sizeof(struct argus_event) == 64, "argus_event must be 64 bytes");
#endif

#endif /* ARGUS_EVENT_H */
