/*
 * unwind.c - full stacks: libdwfl walks a sample's copied registers and
 * stack (kext/ustack.bpf.c) with the call frame information the binaries
 * carry (.eh_frame, which every distribution binary keeps, and
 * .debug_frame where present), the way `perf report` does for
 * `perf record --call-graph dwarf`. One Dwfl per process, with its modules
 * reported from /proc/PID/maps and kept (libdwfl caches each module's ELF
 * and CFI), its thread state attached once: the callbacks read the copy of
 * the sample being walked.
 */
#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "unwind.h"

#define UNWIND_PROCS_MAX 64 /* processes kept; all are dropped past it */
#define REPORT_AGAIN_NS                                                                            \
	1000000000ull /* a pc outside every module: re-read maps, at most this often */

struct copy {
	uint32_t tid;
	const uint64_t *regs;
	unsigned nregs;
	const uint8_t *stack;
	size_t size;
};

struct proc {
	uint32_t pid;
	Dwfl *dwfl;
	uint64_t reported_ns;
	struct copy cur; /* the sample being walked */
};

struct argus_unwinder {
	struct proc procs[UNWIND_PROCS_MAX];
	unsigned n;
};

static const Dwfl_Callbacks dwfl_cbs = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- the thread callbacks: one thread, its registers and stack copied ---- */
static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct proc *p = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = p;
	return (pid_t)p->cur.tid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	struct proc *p = arg;

	(void)dwfl;
	*thread_argp = p;
	return (uint32_t)tid == p->cur.tid;
}

/* Stack words come from the copy only: past it the walk stops. */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct proc *p = arg;
	uint64_t sp;

	(void)dwfl;
	if (p->cur.nregs <= 7)
		return false;
	sp = p->cur.regs[7];
	if (addr < sp || addr - sp + sizeof(*result) > p->cur.size)
		return false;
	memcpy(result, p->cur.stack + (addr - sp), sizeof(*result));
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *thread_arg)
{
	struct proc *p = thread_arg;
	Dwarf_Word regs[64] = {0};
	unsigned n = p->cur.nregs < 64 ? p->cur.nregs : 64;

	for (unsigned i = 0; i < n; i++)
		regs[i] = p->cur.regs[i];
	if (!dwfl_thread_state_registers(thread, 0, n, regs))
		return false;
	if (n == 17) /* x86-64: the return address column is the pc */
		dwfl_thread_state_register_pc(thread, regs[16]);
	return true;
}

static const Dwfl_Thread_Callbacks thread_cbs = {
    .next_thread = next_thread,
    .get_thread = get_thread,
    .memory_read = memory_read,
    .set_initial_registers = set_initial_registers,
};

/* ---- processes ---------------------------------------------------------- */
static bool report(struct proc *p)
{
	dwfl_report_begin(p->dwfl);
	int rc = dwfl_linux_proc_report(p->dwfl, (pid_t)p->pid);
	dwfl_report_end(p->dwfl, NULL, NULL);
	p->reported_ns = now_ns();
	return rc == 0;
}

static void proc_drop(struct proc *p)
{
	if (p->dwfl)
		dwfl_end(p->dwfl);
	memset(p, 0, sizeof(*p));
}

static struct proc *proc_get(struct argus_unwinder *u, uint32_t pid)
{
	struct proc *p;

	for (unsigned i = 0; i < u->n; i++)
		if (u->procs[i].pid == pid)
			return u->procs[i].dwfl ? &u->procs[i] : NULL;
	if (!pid)
		return NULL;
	p = NULL;
	for (unsigned i = 0; i < u->n && !p; i++)
		if (!u->procs[i].pid)
			p = &u->procs[i]; /* a forgotten one's place (Dwfls keep theirs) */
	if (!p && u->n == UNWIND_PROCS_MAX) {
		for (unsigned i = 0; i < u->n; i++)
			proc_drop(&u->procs[i]);
		u->n = 0;
	}
	if (!p)
		p = &u->procs[u->n++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->dwfl = dwfl_begin(&dwfl_cbs);
	if (!p->dwfl)
		return NULL;
	if (!report(p) || !dwfl_attach_state(p->dwfl, NULL, (pid_t)pid, &thread_cbs, p)) {
		/* remembered as failed (dwfl NULL) until forgotten */
		dwfl_end(p->dwfl);
		p->dwfl = NULL;
		return NULL;
	}
	return p;
}

struct argus_unwinder *argus_unwinder_new(void)
{
	return calloc(1, sizeof(struct argus_unwinder));
}

void argus_unwinder_free(struct argus_unwinder *u)
{
	if (!u)
		return;
	for (unsigned i = 0; i < u->n; i++)
		proc_drop(&u->procs[i]);
	free(u);
}

void argus_unwinder_forget(struct argus_unwinder *u, uint32_t pid)
{
	if (!u)
		return;
	for (unsigned i = 0; i < u->n; i++)
		if (u->procs[i].pid == pid)
			proc_drop(&u->procs[i]); /* pid 0: a free place */
}

struct walk {
	uint64_t *pcs;
	unsigned n, max;
};

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct walk *w = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation) || pc == 0)
		return DWARF_CB_ABORT;
	w->pcs[w->n++] = pc;
	return w->n < w->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

unsigned argus_unwind(struct argus_unwinder *u, uint32_t pid, uint32_t tid, const uint64_t *regs,
                      unsigned nregs, const uint8_t *stack, size_t size, uint64_t *pcs,
                      unsigned max)
{
	struct walk w = {.pcs = pcs, .max = max};
	struct proc *p;

	if (!u || !pid || !tid || nregs < 17 || !max)
		return 0;
	p = proc_get(u, pid);
	if (!p)
		return 0;
	/* a pc in no module: a library loaded since the maps were read. A new
	 * Dwfl reads them: reporting again into this one would free the
	 * modules that are gone (a plugin unloaded), and its attached state
	 * may use the backend of one of them (libdwfl takes the first module's
	 * when it attaches): an assertion in libdwfl, or worse, at the next walk */
	if (!dwfl_addrmodule(p->dwfl, regs[16]) && now_ns() - p->reported_ns > REPORT_AGAIN_NS) {
		proc_drop(p);
		p = proc_get(u, pid);
		if (!p)
			return 0;
	}
	p->cur =
	    (struct copy){.tid = tid, .regs = regs, .nregs = nregs, .stack = stack, .size = size};
	dwfl_getthread_frames(p->dwfl, (pid_t)tid, frame_cb, &w);
	p->cur = (struct copy){0};
	return w.n;
}
