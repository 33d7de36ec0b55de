/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * syscalls.h - argus's syscall numbering, from the per-architecture tables
 * (event/syscalls_<arch>.h, one X-macro table each; macros only, BPF C
 * includes this too).
 *
 * Trace files, the graph and the trigger number syscalls as x86-64 does on
 * every architecture (docs/events.md): ARGUS_SYSCALLS, ARGUS_NR_<name>.
 * The kernel side filters by the numbers of the machine it runs on:
 * kext/CMakeLists.txt picks that table (and kext/regs_<arch>.h) from
 * CMAKE_SYSTEM_PROCESSOR, so those two headers are all a new architecture
 * needs to build (docs/kext.md, "Architectures"; one whose numbers differ
 * from x86-64's also maps its records' nr to ARGUS_NR_<name>).
 */
#ifndef ARGUS_SYSCALLS_H
#define ARGUS_SYSCALLS_H

#include "syscalls_x86_64.h"

/* The trace numbering: X(name, nr, kclass, karg, wait, named). */
#define ARGUS_SYSCALLS(X) ARGUS_SYSCALLS_X86_64(X)

/* ARGUS_NR_futex = 202 ... */
enum argus_syscall_nr {
#define ARGUS_NR_ROW_(name, nr, kclass, karg, wait, named) ARGUS_NR_##name = nr,
	ARGUS_SYSCALLS(ARGUS_NR_ROW_)
#undef ARGUS_NR_ROW_
};

/* The wait column: how a wait in the call blocks. Values are those of
 * graph.h's enum argus_wait_kind (incremental-graph/graph.c checks). */
enum argus_syscall_wait {
	ARGUS_SYSW_FUTEX = 1, /* futex / cond / sem / mutex */
	ARGUS_SYSW_POLL = 2,  /* poll, select, epoll: an event loop's wait */
	ARGUS_SYSW_READ = 3,  /* read / recv */
	ARGUS_SYSW_SLEEP = 4, /* nanosleep, clock_nanosleep */
	ARGUS_SYSW_CHILD = 5, /* wait4 / waitid */
	ARGUS_SYSW_OTHER = 6, /* another call, or one not in the table */
};

#endif /* ARGUS_SYSCALLS_H */
