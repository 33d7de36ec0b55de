/*
 * flags_prune.c - data flags (hardware watchpoints) and call pruning.
 *
 * Data flags: each configured variable gets a perf_event hardware
 * breakpoint in this process (inherited by threads it creates later) with
 * sigtrap=1: the thread that touched the flag receives a synchronous
 * SIGTRAP just after the access and reports flag_write / flag_read from the
 * handler. x86 breakpoints fire on write or on read-or-write, never on read
 * alone: for an `rw` watch an access that changed the value is a write, one
 * that left it unchanged a read (writing the same value reads as a read).
 *
 * Pruning (LagHunter 2.7): the named functions are patched to return 0 at
 * once, to test whether a call causes a lag.
 */
#include <dlfcn.h>
#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <unistd.h>

#include "hooks_internal.h"

struct watch {
	uintptr_t addr;
	unsigned len;
	bool read;
	_Atomic uint64_t last; /* value after the previous access */
};

/* Part of the library's root state: the handler can only reach globals. */
static struct {
	struct watch w[ARGUS_FLAGS_MAX];
	unsigned n;
	struct sigaction prev; /* a SIGTRAP handler the program had */
	volatile int probe;    /* written once under a watchpoint (watchpoints_fire) */
	_Atomic unsigned probe_hits;
} F;

#define PROBE_ID ARGUS_FLAGS_MAX /* the sig_data of the probe's watchpoint */

/* Read the flag without touching it from user space: a load in the handler
 * would hit the read-write breakpoint again. The kernel copies through its
 * own mapping, which the (user-only) breakpoint does not see. */
static uint64_t load_value(const struct watch *w)
{
	uint64_t v = 0;
	struct iovec local = {.iov_base = &v, .iov_len = w->len};
	struct iovec remote = {.iov_base = (void *)w->addr, .iov_len = w->len};
	if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != (ssize_t)w->len)
		return 0;
	return v; /* little-endian: the low bytes hold the value */
}

/* siginfo of a perf sigtrap: the event's sig_data is the kernel's
 * _sigfault._perf._data, in the union right after si_addr (offset 24 on
 * 64-bit), which glibc's siginfo_t does not name. */
static unsigned long perf_sig_data(const siginfo_t *si)
{
	unsigned long d;
	memcpy(&d, (const char *)si + 24, sizeof(d));
	return d;
}

static void on_trap(int sig, siginfo_t *si, void *ucv)
{
	if (si->si_code != 6 /* TRAP_PERF */) {
		if (F.prev.sa_flags & SA_SIGINFO && F.prev.sa_sigaction)
			F.prev.sa_sigaction(sig, si, ucv);
		else if (F.prev.sa_handler != SIG_DFL && F.prev.sa_handler != SIG_IGN)
			F.prev.sa_handler(sig);
		return;
	}
	unsigned long i = perf_sig_data(si);
	if (i == PROBE_ID) {
		atomic_fetch_add(&F.probe_hits, 1);
		return;
	}
	if (i >= F.n || !hooks_active())
		return;
	struct watch *w = &F.w[i];
	uint64_t v = load_value(w);
	uint64_t before = atomic_exchange(&w->last, v);
	struct argus_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.type = (!w->read || v != before) ? ARGUS_EV_FLAG_WRITE : ARGUS_EV_FLAG_READ;
	ev.flag.addr = w->addr;
	ev.flag.value = v;
	ev.flag.len = w->len;
	ev.flag.watch_id = (uint32_t)i;
#if defined(__x86_64__)
	const ucontext_t *uc = ucv;
	ev.flag.ip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
#endif
	int saved = errno;
	hooks_emit(&ev);
	errno = saved;
}

static uintptr_t resolve(const struct argus_flag_spec *s)
{
	if (s->addr)
		return s->addr;
	void *h = RTLD_DEFAULT;
	if (s->binary[0] && !(h = dlopen(s->binary, RTLD_NOLOAD | RTLD_LAZY)))
		return 0;
	return (uintptr_t)dlsym(h, s->symbol);
}

/* A breakpoint on addr for this process (inherited by threads it creates
 * later; only this thread: not inherited) whose traps carry id; the fd or
 * -errno. */
static long breakpoint(uintptr_t addr, unsigned len, bool read, unsigned id, bool inherit)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_BREAKPOINT;
	a.size = sizeof(a);
	a.bp_type = read ? HW_BREAKPOINT_RW : HW_BREAKPOINT_W;
	a.bp_addr = addr;
	a.bp_len = len;
	a.sample_period = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.inherit = inherit;
	a.inherit_thread = inherit;
	a.remove_on_exec = 1;
	a.sigtrap = 1;
	a.sig_data = id;
	long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static int arm(unsigned i)
{
	long fd = breakpoint(F.w[i].addr, F.w[i].len, F.w[i].read, i, true);
	return fd < 0 ? (int)fd : 0; /* the fd stays open: closing it disarms */
}

/* Whether a watchpoint here traps at all: some virtual machines accept one
 * and never fire it (no debug registers for the guest), which would leave
 * the flags silently empty. One on a variable of ours, written once. A
 * watchpoint that cannot be armed says so at arm(). */
static bool watchpoints_fire(void)
{
	long fd = breakpoint((uintptr_t)&F.probe, sizeof(F.probe), false, PROBE_ID, false);
	if (fd < 0)
		return true;
	F.probe = 1; /* the trap comes before the next instruction */
	close((int)fd);
	return atomic_load(&F.probe_hits) > 0;
}

void hooks_flags_init(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "argus-hooks: %s: %s\n", path, strerror(errno));
		return;
	}
	char line[512];
	unsigned lineno = 0, asked = 0;
	struct argus_flag_spec s;
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		const char *why = NULL;
		int rc = argus_flag_parse_line(line, &s, &why);
		if (rc < 0) {
			fprintf(stderr, "argus-hooks: %s:%u: %s\n", path, lineno, why);
			continue;
		}
		if (rc == 0)
			continue;
		if (++asked > ARGUS_FLAGS_MAX)
			continue;
		uintptr_t addr = resolve(&s);
		if (!addr) {
			fprintf(stderr, "argus-hooks: %s:%u: %s not found\n", path, lineno,
			        s.symbol);
			continue;
		}
		struct watch *w = &F.w[F.n];
		w->addr = addr;
		w->len = s.len;
		w->read = s.read;
		atomic_store(&w->last, load_value(w));
		F.n++;
	}
	fclose(f);
	if (asked > ARGUS_FLAGS_MAX)
		fprintf(stderr,
		        "argus-hooks: %s: %u data flags asked, the CPU has %d debug registers: "
		        "only the first %d are watched\n",
		        path, asked, ARGUS_FLAGS_MAX, ARGUS_FLAGS_MAX);
	if (!F.n)
		return;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_trap;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTRAP, &sa, &F.prev);
	if (!watchpoints_fire()) {
		fprintf(stderr,
		        "argus-hooks: %s: hardware watchpoints do not fire on this machine (one on "
		        "a variable of argus's saw none of its writes; a virtual machine without "
		        "debug registers?): no data flags\n",
		        path);
		F.n = 0;
		return;
	}
	unsigned armed = F.n;
	for (unsigned i = 0; i < F.n; i++) {
		int rc = arm(i);
		if (rc) {
			fprintf(stderr, "argus-hooks: watchpoint on %#lx: perf_event_open: %s\n",
			        (unsigned long)F.w[i].addr, strerror(-rc));
			armed--;
		}
	}
	(void)armed;
}

void hooks_prune_init(const char *list)
{
	char buf[1024];
	snprintf(buf, sizeof(buf), "%s", list);
	char *save = NULL;
	for (char *name = strtok_r(buf, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		void *fn = dlsym(RTLD_DEFAULT, name);
		int rc = fn ? argus_hook_prune(fn) : -ENOENT;
		if (rc)
			fprintf(stderr, "argus-hooks: prune %s: %s\n", name,
			        fn ? strerror(-rc) : "symbol not found");
	}
}
