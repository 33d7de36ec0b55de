/*
 * synth_int.h - internals of the synthetic desktop: the simulation core
 * (synth_sim.c), the world it simulates (synth_world.c: processes, binaries,
 * symbols, stacks); the desktop itself (synth_desktop.h and its files) sits
 * on top of these.
 */
#ifndef ARGUS_SYNTH_INT_H
#define ARGUS_SYNTH_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "synth.h"
#include "syscalls.h"

#define MAX_THREADS 160
#define MAX_PROCS   128
#define NCH         8    /* wait channels per thread */
#define MBOX_CAP    16   /* messages per channel */
#define EVBUF       4096 /* records per sink call */

/* Channels a thread waits on (bit 1 << CH_*). */
enum {
	CH_IN = 0,        /* primary input: display data, requests, jobs */
	CH_ASYNC = 1,     /* eventfd: posted callbacks */
	CH_REPLY = 2,     /* reply of a synchronous call */
	CH_PEERREQ = 3,   /* request from a peer (renderer -> UI, client -> X) */
	CH_COND = 4,      /* futex: result condition / mutex */
	CH_TIMER = 5,     /* timerfd expiry */
	CH_PEERREPLY = 6, /* reply from the peer of a circular pair */
	CH_DISK = 7,      /* block I/O completion */
};
#define BIT(ch) (1u << (ch))

/* prev_state of sched_switch */
#define TASK_RUNNING         0
#define TASK_INTERRUPTIBLE   1
#define TASK_UNINTERRUPTIBLE 2

/* syscall numbers used (trace numbering: event/syscalls.h) */
enum {
	NR_READ = ARGUS_NR_read,
	NR_WRITE = ARGUS_NR_write,
	NR_POLL = ARGUS_NR_poll,
	NR_SCHED_YIELD = ARGUS_NR_sched_yield,
	NR_SENDMSG = ARGUS_NR_sendmsg,
	NR_RECVMSG = ARGUS_NR_recvmsg,
	NR_FSYNC = ARGUS_NR_fsync,
	NR_FUTEX = ARGUS_NR_futex,
	NR_CLOCK_NANOSLEEP = ARGUS_NR_clock_nanosleep,
	NR_EPOLL_WAIT = ARGUS_NR_epoll_wait,
};

struct msg {
	uint64_t t; /* when sent */
	uint32_t serial;
	uint16_t from;   /* thread index of the sender */
	uint16_t to;     /* final destination (bus routing, input target) */
	uint8_t kind;    /* per channel: ui kind, dbus msg type, job kind */
	uint8_t scen;    /* UI scenario */
	uint8_t anomaly; /* 1: this instance is the injected anomaly */
	uint8_t _pad;
	uint32_t job;
};

struct mbox {
	struct msg m[MBOX_CAP];
	uint8_t head, n;
};

enum tstate { T_RUNNABLE, T_RUNNING, T_BLOCKED };
enum wake_reason { W_DATA, W_TIMEOUT };

struct sim;
struct sthread;
typedef void (*step_fn)(struct sim *s, struct sthread *t);

struct sthread {
	uint32_t pid, tid;
	char comm[16];
	uint16_t idx, cpu;
	uint8_t state, kthread, prio, wake_reason;
	uint8_t app;         /* index of its app (GUI app threads) */
	uint8_t timer_armed; /* a timed wait is pending: cancel on data */
	uint16_t proc;       /* process index */
	int pc;
	step_fn step;
	uint32_t pending, waitmask, woke_by;
	uint32_t gen; /* bumps on wake: cancels a pending timeout */
	uint64_t work_left, seg_start, slice_used, sample_left;
	uint32_t cur_stack;                   /* stack handle of the current compute */
	uint32_t wait_stack, last_wait_stack; /* STACK at a blocking switch, deduplicated */
	uint64_t sys_ts;                      /* last sys_enter / wait start */
	uint64_t hrtimer;                     /* this thread's sleep hrtimer (kernel address) */
	struct mbox mb[NCH];
	/* scratch of the behaviour (scenario in progress) */
	struct msg cur;
	uint64_t t0, t1, t2;
	int k, n;
	struct msg batch[8];
	uint32_t stk[16]; /* stack ids by site, role-specific */
};

struct scpu {
	struct sthread *cur;
	struct sthread *rq[MAX_THREADS];
	uint32_t head, n;
	/* the one pending look at this CPU (not in the heap: it is re-armed
	 * far more often than it fires) */
	bool armed;
	uint64_t at, seq;
	char idle_comm[24]; /* "swapper/N", the idle task of sched_switch */
};

/* heap item kinds (CPUs are scheduled beside the heap: struct scpu) */
enum { H_TIMEOUT = 1, H_DISK, H_USER, H_TICK, H_BG, H_TIMERFD, H_PLAN };

struct hitem {
	uint64_t t;
	uint64_t seq;
	uint32_t gen;
	uint16_t kind, a;
};

struct sproc {
	uint32_t pid;
	char comm[16];
	uint32_t exe_file; /* index in world files */
	uint64_t exe_base;
	uint32_t files_used; /* bit per library file index */
	uint32_t nthreads;
	uint32_t parent_pid;
	bool kthread;
};

/* A binary: its path and the functions stacks referred to. */
#define MAX_FUNCS 48
struct sfile {
	char path[64];
	uint32_t path_str;
	uint32_t nfuncs;
	char funcs[MAX_FUNCS][64];
	uint32_t func_str[MAX_FUNCS];
};
#define MAX_FILES 48
#define NLIBS     12

struct rng {
	uint64_t s[4];
};

struct sim {
	struct argus_synth_opts o;
	const struct argus_sink *sink;
	struct argus_synth_stats st;
	struct rng rng;
	uint64_t now, t0;
	int err;
	bool done;

	struct argus_event buf[EVBUF];
	size_t nbuf;
	uint64_t emitted;
	struct argus_event scratch;

	struct hitem *heap;
	size_t nheap, capheap;
	uint64_t hseq;

	uint32_t ncpu;
	struct scpu cpu[ARGUS_SYNTH_MAX_CPUS];
	struct sthread *th; /* MAX_THREADS */
	uint32_t nth;
	struct sthread *stepping; /* the thread whose step runs now */

	struct sproc proc[MAX_PROCS];
	uint32_t nproc;
	struct sfile *files; /* MAX_FILES; libraries first */
	uint32_t nfiles;

	uint32_t next_pid;
	/* stacks by handle (1..nstacks; 0 = none): the sink's id and frames, so
	 * what is generated never depends on the ids a sink hands out */
#define MAX_STACKS 512
	uint32_t stack_id[MAX_STACKS];
	uint8_t stack_depth[MAX_STACKS];
	uint64_t stack_ip[MAX_STACKS], stack_ret[MAX_STACKS];
	uint32_t nstacks;
	struct desktop *d; /* synth_desktop.c */
};

/* ---- synth_sim.c: PRNG, records, heap, CPUs, waits and wake-ups ---- */
uint64_t sy_rng_next(struct rng *r);
void sy_rng_seed(struct rng *r, uint64_t seed);
uint64_t sy_rnd(struct sim *s, uint64_t lo, uint64_t hi); /* uniform [lo, hi] */
bool sy_chance(struct sim *s, double p);

struct argus_event *sy_ev_thr(struct sim *s, struct sthread *t, uint16_t type);
struct argus_event *sy_ev_cpu(struct sim *s, unsigned cpu, uint16_t flags, uint16_t type);
struct argus_event *sy_ev_raw(struct sim *s, unsigned cpu, uint32_t pid, uint32_t tid,
                              uint16_t flags, uint16_t type);
void sy_ev_flush(struct sim *s);

void sy_heap_push(struct sim *s, uint64_t t, uint16_t kind, uint16_t a, uint32_t gen);
bool sy_heap_pop(struct sim *s, struct hitem *out);

void sy_cpu_arm(struct sim *s, unsigned c);
void sy_cpu_process(struct sim *s, unsigned c);
/* The CPU with the earliest pending look, or -1 (ties: earliest armed). */
int sy_cpu_next(const struct sim *s);
void sy_thread_start(struct sim *s, struct sthread *t);

/* Inside a step: each step ends with exactly one of sy_compute, sy_block,
 * sy_yield_cpu or sy_cont. */
void sy_compute(struct sim *s, struct sthread *t, uint64_t ns, uint32_t stack);
void sy_block(struct sim *s, struct sthread *t, int64_t state, uint32_t mask, int64_t timeout_ns);
void sy_yield_cpu(struct sim *s, struct sthread *t);
void sy_cont(struct sim *s, struct sthread *t);

/* Wake t on channel ch from thread w (NULL: interrupt context on cpu with
 * flags). amb says whether this wake-up is ambiguous (stats). Returns true
 * when a sched_wakeup was recorded. */
bool sy_wake(struct sim *s, struct sthread *w, struct sthread *t, unsigned ch, bool amb);
bool sy_wake_irq(struct sim *s, unsigned cpu, uint16_t flags, struct sthread *t, unsigned ch);
void sy_timeout_fire(struct sim *s, struct sthread *t, uint32_t gen);

bool sy_mb_push(struct sthread *t, unsigned ch, const struct msg *m);
bool sy_mb_pop(struct sthread *t, unsigned ch, struct msg *m);

/* ---- synth_world.c: processes, binaries, symbols, stacks ---- */
int sy_world_init(struct sim *s);
void sy_world_free(struct sim *s);
struct sproc *sy_world_proc(struct sim *s, const char *comm, const char *exe, uint32_t parent,
                            bool kthread);
struct sthread *sy_world_thread(struct sim *s, struct sproc *p, const char *comm, unsigned cpu);
/* Intern a stack from a spec "lib:func|lib:func|..." (innermost first);
 * "exe" names the process binary, '@' in a name is the app prefix. Returns
 * a stack handle (s->stack_id[handle] is the sink's id), 0 when full. */
uint32_t sy_world_stack(struct sim *s, struct sproc *p, const char *spec, const char *prefix);
uint32_t sy_world_string(struct sim *s, const char *str);
/* Emit the start-up records (fork, exec, comm, mmap) and the tables. */
int sy_world_publish(struct sim *s);

/* ---- synth_desktop.c: the desktop on top of the core ---- */
int sy_desktop_init(struct sim *s);
void sy_desktop_start(struct sim *s);
void sy_desktop_event(struct sim *s, const struct hitem *h);
void sy_desktop_free(struct sim *s);

/* kernel-ish object addresses: stable, distinct per kind */
static inline uint64_t obj_sock(uint32_t pid_self, uint32_t pid_peer)
{
	return 0xffff888100000000ULL + ((uint64_t)(pid_self & 0xffff) << 22) +
	       ((uint64_t)(pid_peer & 0xffff) << 6);
}
static inline uint64_t obj_kaddr(uint32_t kind, uint32_t id)
{
	return 0xffff888200000000ULL + ((uint64_t)kind << 28) + ((uint64_t)id << 8);
}
static inline uint64_t obj_uaddr(uint32_t pid, uint32_t id)
{
	return 0x7f1000000000ULL + ((uint64_t)(pid & 0xffff) << 20) + ((uint64_t)id << 6);
}

#endif /* ARGUS_SYNTH_INT_H */
