/*
 * kext.h - libargus-kext: loads argus's eBPF tracer into the kernel and
 * turns what it records into argus records. docs/kext.md describes what is
 * captured and from where.
 *
 * The tracer writes struct argus_event records into one BPF ring buffer per
 * CPU (argus_kext_ring_fd); a consumer (ringbuf/) reads them, the stream
 * merges them by time, and argus_kext_decode() finishes the few records that
 * need user space (stack ids, executable names, memory maps, build ids)
 * before they reach a sink. Stage order: includes only event/.
 */
#ifndef ARGUS_KEXT_H
#define ARGUS_KEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "event.h"

struct argus_kext;

/* Results of argus_kext_open / _start (negative); err says what to do. */
enum argus_kext_status {
	ARGUS_KEXT_OK = 0,
	ARGUS_KEXT_EPRIV = -1,      /* not root / no CAP_BPF + CAP_PERFMON */
	ARGUS_KEXT_ENOSUPPORT = -2, /* no BTF, BPF disabled, a needed feature missing */
	ARGUS_KEXT_EINVAL = -3,     /* bad option (cgroup path, comm...) */
	ARGUS_KEXT_ENOMEM = -4,
	ARGUS_KEXT_EIO = -5, /* something else failed: err has the detail */
};

struct argus_kext_opts {
	uint32_t ring_bytes; /* per CPU ring size, power of 2 >= page; 0 = 4 MiB */
	uint32_t wake_bytes; /* wake the reader past this fill; 0 = ring_bytes / 4 */
	const pid_t *pids;   /* trace only these processes (npids > 0) ... */
	size_t npids;
	bool no_children;   /* ... without the children they fork */
	bool pid_filter;    /* filter by pid even when npids == 0 (add later) */
	const char *comm;   /* trace only processes with this name, NULL = any */
	const char *cgroup; /* trace only this cgroup v2 directory, NULL = any */
	unsigned sample_hz; /* cpu-clock samples per second; 0 = 49 */
	bool no_samples;
	bool no_irqs;         /* leave out irq / softirq entry and exit */
	bool no_timers;       /* leave out hrtimer arm / fire / cancel */
	bool no_wait_stacks;  /* leave out STACK records at blocking waits */
	bool no_recv_enter;   /* no SYS_ENTER for receives (IPC_RECV has dur_ns) */
	uint32_t shed_bytes;  /* past this fill of a ring, records of processes outside
	                       * the app set are shed (counted); 0 = ring_bytes / 2 */
	bool no_shed;         /* never shed: a full ring loses anyone's records */
	bool syscalls;        /* per-call capture on the syscall exit tracepoint
	                       * (every task's syscalls pay for it); false: blocked
	                       * calls, wakers' calls and watched sockets only */
	const char *btf_path; /* kernel BTF; NULL = /sys/kernel/btf/vmlinux */
	uint32_t ustack_bytes; /* full stacks: user stack bytes copied per sample
	                        * (256 .. 16384); 0 = 8192 */
	bool full_stacks_all;  /* full stacks for every traced process (else only
	                        * those given to argus_kext_full_stacks) */
	bool meter;            /* time every program run per process and program in
	                        * the map argus_meter (docs/kext.md, "The meter") */
	bool yields_on_demand; /* yields that find no other task are seen only
	                        * while argus_kext_watch_yields is on */
};

/* Load the tracer (not yet attached). On failure returns a status, *k is
 * NULL and err holds one line saying what is missing and how to fix it. */
int argus_kext_open(struct argus_kext **k, const struct argus_kext_opts *opts, char *err,
                    size_t errlen);
/* Attach: records start flowing. */
int argus_kext_start(struct argus_kext *k, char *err, size_t errlen);
/* Detach every program: no new records; the rings stay readable. */
void argus_kext_stop(struct argus_kext *k);
/* Detach every program and free everything (NULL is fine). */
void argus_kext_close(struct argus_kext *k);

/* Add a process to a pid filter (e.g. a command started by argus). */
int argus_kext_add_pid(struct argus_kext *k, pid_t pid);

/*
 * Full user stacks for process tgid (on) or back to frame pointers only
 * (off): each cpu-clock sample of its threads also copies the user
 * registers and the top ustack_bytes of the user stack, and
 * argus_kext_prefetch / _decode unwind the copy with the binaries' CFI
 * (.eh_frame, .debug_frame: libdwfl), so a sample inside code built without
 * frame pointers (a distribution's -O2 libraries) still gets its callers.
 * The record's stack.unwind says ARGUS_UNWIND_DWARF then (docs/events.md).
 * Costs a 8 KiB copy per sample of that process, no ring bytes
 * (docs/kext.md "Full stacks"). Returns 0 or an enum argus_kext_status.
 */
int argus_kext_full_stacks(struct argus_kext *k, uint32_t tgid, bool on);
/* The same for a user's request (argus trace-more): kept apart from the
 * calls above, so switching one off leaves the other's on. */
int argus_kext_full_stacks_asked(struct argus_kext *k, uint32_t tgid, bool on);
/*
 * Yields that find no other task never switch: without per-call capture
 * they are seen at the end of schedule() (sched_exit_tp), which every
 * schedule() of the machine then pays for (2.5 % of a pinned pipe
 * ping-pong here). With opts.yields_on_demand that program runs only while
 * watched (on) - argus start watches while a UI thread's episode goes
 * unanswered (docs/kext.md "Spins: yields and zero-timeout polls"). Safe
 * from another thread than the reader's; a no-op after argus_kext_stop,
 * without the tracepoint or with per-call capture. Returns 0 or an enum
 * argus_kext_status.
 */
int argus_kext_watch_yields(struct argus_kext *k, bool on);
/* Whether the tracer takes cpu-clock samples (full stacks ride on them)
 * and whether it was loaded with per-call capture (opts.syscalls). */
bool argus_kext_samples(const struct argus_kext *k);
bool argus_kext_per_call(const struct argus_kext *k);

/* Rings: one BPF_MAP_TYPE_RINGBUF per possible CPU. */
unsigned argus_kext_ncpus(const struct argus_kext *k);
int argus_kext_ring_fd(const struct argus_kext *k, unsigned cpu);
/* Records lost because CPU cpu's ring was full (an argus_ring_drops_fn;
 * arg is the struct argus_kext *). */
uint64_t argus_kext_ring_drops(void *arg, unsigned cpu);
/* User stacks the kernel could not keep (stack map full), all CPUs. */
uint64_t argus_kext_stack_drops(const struct argus_kext *k);
/* Runs of the tracer's programs the kernel skipped, all programs: a program
 * entered again on a CPU where it was running (an interrupt inside it) is
 * not run that time, and writes nothing (bpf_prog_info.recursion_misses).
 * A system call a program: not for every record. */
uint64_t argus_kext_prog_misses(const struct argus_kext *k);

/*
 * Records that are not in the rings. DROP records for losses not reported
 * yet: one per CPU whose ring lost records (source ARGUS_DROP_KERNEL_RING),
 * one for lost stacks (ARGUS_DROP_STACK) and one for program runs the
 * kernel skipped (ARGUS_DROP_NESTED, read at most once a second and at
 * argus_kext_stop), ts = now_ns. After
 * argus_kext_stop, also the IPC records the tracer still held
 * (their own ts). Returns how many were written to out.
 */
size_t argus_kext_drop_records(struct argus_kext *k, struct argus_event *out, size_t max,
                               uint64_t now_ns);

/*
 * Finish records in place, in stream order, before they go to sink:
 * stack records get interned stack ids (sink->intern_stack), PROC_EXEC gets
 * the executable's path (exe_str), and the first record of each process and
 * each exec writes its executable mappings (sink->map), build ids
 * (sink->build_id) and a process COMM record (sink->events, before ev).
 * Always pass the same sink. Returns 0, or < 0 when the sink failed.
 */
int argus_kext_decode(struct argus_kext *k, struct argus_event *ev, size_t n,
                      const struct argus_sink *sink);

/*
 * Optional, for records straight from the rings, before the merge: reads
 * /proc (maps, build ids, names, executable paths) for new processes and
 * execs while they still live, instead of ~0.1 s later at decode time.
 * Writes only table entries to sink, never events. Once used, call it on
 * every record read; argus_kext_decode() then does the rest.
 */
int argus_kext_prefetch(struct argus_kext *k, struct argus_event *ev, size_t n,
                        const struct argus_sink *sink);

/* Optional, with argus_kext_prefetch when several rings are read at once:
 * call it on every ring's batch before prefetching any, so a child whose
 * PROC_FORK is in another ring's batch is known to share its parent's
 * layout (its /proc maps are not read). */
void argus_kext_note_forks(struct argus_kext *k, const struct argus_event *ev, size_t n);

/* The app set (docs/kext.md "Shedding"): processes whose records keep the
 * last part of a ring filling up. Display servers join by name, their
 * peers by wake-ups; add a process (a hooked one) as a seed: */
int argus_kext_appset_add(struct argus_kext *k, pid_t pid);
/* Records shed so far, all CPUs: a part of the ring drops. */
uint64_t argus_kext_ring_shed(const struct argus_kext *k);
/* Processes in the app set now (walks the map: for status, not per record). */
uint64_t argus_kext_appset_size(const struct argus_kext *k);

/* Counters for status output. */
struct argus_kext_stats {
	uint64_t ring_drops; /* all CPUs */
	uint64_t ring_shed;  /* the part of ring_drops shed outside the app set */
	uint64_t stack_drops;
	uint64_t prog_misses;      /* program runs the kernel skipped (argus_kext_prog_misses) */
	uint64_t procs_seen;       /* processes whose maps were read */
	uint64_t maps_read_failed; /* /proc/PID/maps gone before it was read */
	uint64_t maps_read_again;  /* read again: a stack's address in none written */
	uint64_t ustacks;          /* full stacks unwound (argus_kext_full_stacks) */
	uint64_t ustacks_lost;     /* copies unreadable or overwritten before decode */
	uint64_t ustack_ns;        /* the decoder's time on them: read back and unwound */
};
void argus_kext_get_stats(const struct argus_kext *k, struct argus_kext_stats *st);

#endif /* ARGUS_KEXT_H */
