/*
 * builtin-flags.c - `argus flags discover --pid P [--tid T]`: find the data
 * flag a spinning thread waits for (the interactive Argus paper, 001,
 * section 2.1.2: "collect instruction traces ... detect where the control
 * flow diverges ... collect register values for the basic blocks before the
 * divergence and uncover the address of the data flag"). The thread is
 * single-stepped with ptrace for a bounded number of instructions, each
 * decoded with capstone; every memory read's address is computed from the
 * registers before it. In the spinning state the loop's exit branch goes
 * the same way every time: the flag is the memory a conditional branch's
 * condition was read from, read every turn of the loop, whose value did
 * not change, and which is not a local of the function that read it. The answer is a line
 * of the hooks' data-flag file (docs/hooks.md), so `argus run --flags`
 * records who writes it next time. docs/debug.md "Data flags".
 */
#include <capstone/capstone.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

static const char flags_usage[] =
    "usage: argus flags discover --pid P [--tid T] [--steps N] [--for S]\n"
    "                            [--after-yield W] [-o FILE]\n"
    "\n"
    "Single-step thread T (default: P's main thread), spinning in a loop that\n"
    "waits for a flag (a yield loop), for up to N instructions (default 200000)\n"
    "or --for S seconds (default 10): W instructions (default 256) after each\n"
    "return from sched_yield, the thread running freely between (the loop's work\n"
    "is not stepped); --after-yield 0 steps every instruction;"
    " decode them with capstone and name the flag: the memory a loop branch's\n"
    "condition was read from, read every turn, unchanged, not a local. Prints\n"
    "the candidates, best first, and the data-flag file line for `argus run\n"
    "--flags` (-o FILE writes the best one there). docs/debug.md \"Data flags\".\n"
    "\n"
    "exit status: 0 a flag found, 1 none (the thread did not loop, or its loop\n"
    "reads no flag), 2 usage, 3 not allowed to trace the thread, 6 cannot write\n"
    "FILE, 9 out of memory.\n";

/* A memory read seen while stepping. */
struct read_site {
	uint64_t ip, addr, first_value;
	uint32_t size, count;
	bool changed;    /* the value read differed between turns */
	bool local;      /* in the reading function's own frame (near the stack pointer) */
	uint64_t branch; /* the conditional branch it feeds (next one after it), 0 = none */
};

/* A conditional branch seen while stepping. */
struct branch_site {
	uint64_t ip;
	uint32_t taken, not_taken;
};

struct trace {
	struct read_site *r;
	size_t nr, cap;
	struct branch_site b[256];
	size_t nb;
	uint64_t pending[8]; /* reads since the last branch (indexes + 1) */
	size_t npending;
	uint64_t steps;
	uint64_t turns; /* returns from sched_yield stepped after (yield windows) */
};

static bool peek(pid_t pid, uint64_t addr, void *buf, size_t n)
{
	struct iovec local = {buf, n}, remote = {(void *)(uintptr_t)addr, n};
	return process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)n;
}

/* The process's mappings, read once before stepping: a value inside one is
 * a pointer. Read before, not after: the process may have ended by the time
 * the candidates are ranked (a slow, sanitized build of it), and reading one
 * byte at the value is no test either (guard and shadow pages). */
struct maps {
	size_t n;
	uint64_t lo[4096], hi[4096];
};

static void maps_read(pid_t pid, struct maps *m)
{
	char path[64], line[512];
	m->n = 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	while (m->n < sizeof(m->lo) / sizeof(m->lo[0]) && fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi;
		if (sscanf(line, "%llx-%llx", &lo, &hi) == 2) {
			m->lo[m->n] = lo;
			m->hi[m->n++] = hi;
		}
	}
	fclose(f);
}

static bool mapped(const struct maps *m, uint64_t addr)
{
	for (size_t i = 0; addr >= 0x10000 && i < m->n; i++)
		if (addr >= m->lo[i] && addr < m->hi[i])
			return true;
	return false;
}

static uint64_t reg_value(const struct user_regs_struct *r, unsigned reg, uint64_t next_ip)
{
	switch (reg) {
	case X86_REG_RIP:
		return next_ip;
	case X86_REG_RAX:
	case X86_REG_EAX:
		return r->rax;
	case X86_REG_RBX:
	case X86_REG_EBX:
		return r->rbx;
	case X86_REG_RCX:
	case X86_REG_ECX:
		return r->rcx;
	case X86_REG_RDX:
	case X86_REG_EDX:
		return r->rdx;
	case X86_REG_RSI:
	case X86_REG_ESI:
		return r->rsi;
	case X86_REG_RDI:
	case X86_REG_EDI:
		return r->rdi;
	case X86_REG_RBP:
	case X86_REG_EBP:
		return r->rbp;
	case X86_REG_RSP:
	case X86_REG_ESP:
		return r->rsp;
	case X86_REG_R8:
		return r->r8;
	case X86_REG_R9:
		return r->r9;
	case X86_REG_R10:
		return r->r10;
	case X86_REG_R11:
		return r->r11;
	case X86_REG_R12:
		return r->r12;
	case X86_REG_R13:
		return r->r13;
	case X86_REG_R14:
		return r->r14;
	case X86_REG_R15:
		return r->r15;
	default:
		return 0;
	}
}

static struct read_site *read_site(struct trace *t, uint64_t ip, uint64_t addr, uint32_t size)
{
	for (size_t i = 0; i < t->nr; i++)
		if (t->r[i].ip == ip && t->r[i].addr == addr)
			return &t->r[i];
	if (t->nr == t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 256;
		struct read_site *n = realloc(t->r, nc * sizeof(*n));
		if (!n)
			return NULL;
		t->r = n;
		t->cap = nc;
	}
	struct read_site *s = &t->r[t->nr++];
	memset(s, 0, sizeof(*s));
	s->ip = ip;
	s->addr = addr;
	s->size = size;
	return s;
}

/* One instruction at the thread's ip: its memory reads and branches. */
static int observe(csh cs, pid_t pid, pid_t tid, struct trace *t, struct user_regs_struct *regs,
                   uint64_t *branch_ip, uint64_t *branch_fall)
{
	uint8_t code[16];
	uint64_t ip = regs->rip;
	*branch_ip = 0;
	if (!peek(pid, ip, code, sizeof(code)))
		return 0;
	cs_insn *in;
	size_t n = cs_disasm(cs, code, sizeof(code), ip, 1, &in);
	if (!n)
		return 0;
	uint64_t next = ip + in->size;
	(void)tid;
	const cs_x86 *x = &in->detail->x86;
	for (uint8_t k = 0; k < x->op_count; k++) {
		const cs_x86_op *op = &x->operands[k];
		if (op->type != X86_OP_MEM || !(op->access & CS_AC_READ) ||
		    op->mem.segment != X86_REG_INVALID || in->id == X86_INS_LEA)
			continue;
		uint64_t a = (uint64_t)op->mem.disp;
		if (op->mem.base != X86_REG_INVALID)
			a += reg_value(regs, op->mem.base, next);
		if (op->mem.index != X86_REG_INVALID)
			a += reg_value(regs, op->mem.index, next) * (uint64_t)op->mem.scale;
		uint64_t v = 0;
		uint32_t sz = op->size <= 8 ? op->size : 8;
		if (!sz || !peek(pid, a, &v, sz))
			continue;
		struct read_site *s = read_site(t, ip, a, sz);
		if (!s) {
			cs_free(in, n);
			return -1;
		}
		/* the loop's own locals: within the red zone below the stack
		 * pointer and 1 KiB above it (a caller's frame further up may
		 * hold the flag: a struct on main's stack) */
		if (a + 128 >= regs->rsp && a < regs->rsp + 1024)
			s->local = true;
		if (!s->count++)
			s->first_value = v;
		else if (v != s->first_value)
			s->changed = true;
		if (t->npending < 8)
			t->pending[t->npending++] = (uint64_t)(s - t->r) + 1;
	}
	/* a conditional branch: a jump that is not jmp, to a fixed target; it
	 * decides on the reads of its basic block, close before it */
	bool jump = cs_insn_group(cs, in, CS_GRP_JUMP) || cs_insn_group(cs, in, CS_GRP_CALL) ||
	            cs_insn_group(cs, in, CS_GRP_RET) || cs_insn_group(cs, in, CS_GRP_INT) ||
	            in->id == X86_INS_SYSCALL;
	if (cs_insn_group(cs, in, CS_GRP_JUMP) && in->id != X86_INS_JMP && in->id != X86_INS_LJMP &&
	    x->op_count == 1 && x->operands[0].type == X86_OP_IMM) {
		*branch_ip = ip;
		*branch_fall = next;
		for (size_t i = 0; i < t->npending; i++) {
			struct read_site *r = &t->r[t->pending[i] - 1];
			if (!r->branch && r->ip < ip && ip - r->ip <= 64)
				r->branch = ip;
		}
	}
	if (jump) /* a basic block ends: its reads decide nothing after it */
		t->npending = 0;
	cs_free(in, n);
	return 0;
}

static struct branch_site *branch_site(struct trace *t, uint64_t ip)
{
	for (size_t i = 0; i < t->nb; i++)
		if (t->b[i].ip == ip)
			return &t->b[i];
	if (t->nb == sizeof(t->b) / sizeof(t->b[0]))
		return NULL;
	t->b[t->nb].ip = ip;
	return &t->b[t->nb++];
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* One instruction of tid observed and stepped. 0 stepped, 1 the thread is
 * gone or the wait was cut (the bound's alarm), -1 out of memory. */
static int step_one(csh cs, pid_t pid, pid_t tid, struct trace *t)
{
	struct user_regs_struct regs;
	int st;
	if (ptrace(PTRACE_GETREGS, tid, 0, &regs))
		return 1;
	uint64_t bip, fall;
	if (observe(cs, pid, tid, t, &regs, &bip, &fall))
		return -1;
	if (ptrace(PTRACE_SINGLESTEP, tid, 0, 0) || waitpid(tid, &st, __WALL) < 0 ||
	    !WIFSTOPPED(st))
		return 1;
	t->steps++;
	if (bip) {
		struct user_regs_struct after;
		struct branch_site *b = branch_site(t, bip);
		if (b && !ptrace(PTRACE_GETREGS, tid, 0, &after)) {
			if (after.rip == fall)
				b->not_taken++;
			else
				b->taken++;
		}
	}
	/* a signal that stopped it (not our trap) goes on to it */
	if (WSTOPSIG(st) != SIGTRAP && WSTOPSIG(st) != SIGSTOP) {
		ptrace(PTRACE_SINGLESTEP, tid, 0, WSTOPSIG(st));
		if (waitpid(tid, &st, __WALL) < 0)
			return 1;
	}
	return 0;
}

/* The thread runs freely to its next return from sched_yield (a syscall-exit
 * stop of that call). 0 there, 1 gone or cut. A signal stop is passed on. */
static int run_to_yield_return(pid_t tid)
{
	int sig = 0, st;
	for (;;) {
		if (ptrace(PTRACE_SYSCALL, tid, 0, sig) || waitpid(tid, &st, __WALL) < 0 ||
		    !WIFSTOPPED(st))
			return 1;
		sig = 0;
		if (WSTOPSIG(st) != (SIGTRAP | 0x80)) {
			if (WSTOPSIG(st) != SIGTRAP && WSTOPSIG(st) != SIGSTOP)
				sig = WSTOPSIG(st);
			continue;
		}
		struct __ptrace_syscall_info si;
		if (ptrace(PTRACE_GET_SYSCALL_INFO, tid, sizeof(si), &si) <= 0)
			return 1;
		struct user_regs_struct regs;
		if (si.op == PTRACE_SYSCALL_INFO_EXIT && !ptrace(PTRACE_GETREGS, tid, 0, &regs) &&
		    regs.orig_rax == SYS_sched_yield)
			return 0;
	}
}

/* Step tid up to max instructions or timeout_s seconds: every instruction
 * (window 0), or window instructions after each return from sched_yield, the
 * thread running freely between (a yield loop's work per turn is not
 * stepped: its flag test follows the yield). Returns 0, or an exit code. */
static int step(pid_t pid, pid_t tid, uint64_t max, uint64_t window, unsigned timeout_s,
                struct trace *t)
{
	if (ptrace(PTRACE_SEIZE, tid, 0, window ? PTRACE_O_TRACESYSGOOD : 0) ||
	    ptrace(PTRACE_INTERRUPT, tid, 0, 0)) {
		cli_error("flags", "cannot trace thread %d: %s", tid, strerror(errno));
		return errno == EPERM || errno == EACCES ? ARGUS_EXIT_PRIV : ARGUS_EXIT_FAIL;
	}
	int st;
	if (waitpid(tid, &st, __WALL) < 0) {
		cli_error("flags", "thread %d: %s", tid, strerror(errno));
		return ARGUS_EXIT_FAIL;
	}
	csh cs;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK) {
		ptrace(PTRACE_DETACH, tid, 0, 0);
		cli_error("flags", "capstone: cannot open the x86-64 decoder");
		return ARGUS_EXIT_INTERNAL;
	}
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	int rc = ARGUS_EXIT_OK, r = 0;
	/* a thread blocked in a call does not step: give up after a while */
	struct sigaction sa = {.sa_handler = on_alarm}, old_sa;
	sigaction(SIGALRM, &sa, &old_sa); /* no SA_RESTART: waitpid returns EINTR */
	alarm(timeout_s);
	t->steps = 0;
	while (!r && t->steps < max) {
		if (window) {
			if (run_to_yield_return(tid))
				break;
			t->turns++;
			t->npending = 0; /* a new basic block */
		}
		for (uint64_t k = 0; !r && t->steps < max && (!window || k < window); k++)
			r = step_one(cs, pid, tid, t);
	}
	if (r < 0)
		rc = ARGUS_EXIT_INTERNAL;
	alarm(0);
	sigaction(SIGALRM, &old_sa, NULL);
	cs_close(&cs);
	/* stopped for the detach (it may be running after an interrupted wait) */
	if (ptrace(PTRACE_DETACH, tid, 0, 0) && errno == ESRCH) {
		ptrace(PTRACE_INTERRUPT, tid, 0, 0);
		waitpid(tid, &st, __WALL);
		ptrace(PTRACE_DETACH, tid, 0, 0);
	}
	return rc;
}

struct candidate {
	const struct read_site *s;
	const struct branch_site *b;
	bool pointer; /* its value is an address mapped in the process: a pointer, not a flag */
};

static int cmp_cand(const void *x, const void *y)
{
	const struct candidate *a = x, *b = y;
	if (a->pointer != b->pointer)
		return a->pointer ? 1 : -1;
	if (a->s->count != b->s->count)
		return a->s->count > b->s->count ? -1 : 1;
	return a->s->addr < b->s->addr ? -1 : a->s->addr > b->s->addr;
}

static int discover(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"pid", required_argument, NULL, 'p'},   {"tid", required_argument, NULL, 't'},
	    {"steps", required_argument, NULL, 's'}, {"output", required_argument, NULL, 'o'},
	    {"for", required_argument, NULL, 'f'},   {"after-yield", required_argument, NULL, 'y'},
	    {"help", no_argument, NULL, 'h'},        {0}};
	uint64_t pid = 0, tid = 0, steps = 200000, window = 256, v;
	const char *out = NULL;
	unsigned for_s = 10;
	optind = 1;
	opterr = 0;
	for (int c; (c = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1;) {
		switch (c) {
		case 'h':
			fputs(flags_usage, stdout);
			return ARGUS_EXIT_OK;
		case 'p':
		case 't':
		case 's':
			if (!cli_parse_u64(optarg, 1, c == 's' ? 100000000 : INT32_MAX, &v)) {
				cli_error("flags", "bad --%s '%s'",
				          c == 'p'   ? "pid"
				          : c == 't' ? "tid"
				                     : "steps",
				          optarg);
				return ARGUS_EXIT_USAGE;
			}
			*(c == 'p' ? &pid : c == 't' ? &tid : &steps) = v;
			break;
		case 'o':
			out = optarg;
			break;
		case 'y':
			if (!cli_parse_u64(optarg, 0, 1000000, &v)) {
				cli_error("flags",
				          "bad --after-yield '%s' (instructions, 0..1000000)",
				          optarg);
				return ARGUS_EXIT_USAGE;
			}
			window = v;
			break;
		case 'f':
			if (!cli_parse_u64(optarg, 1, 3600, &v)) {
				cli_error("flags", "bad --for '%s' (seconds, 1..3600)", optarg);
				return ARGUS_EXIT_USAGE;
			}
			for_s = (unsigned)v;
			break;
		default:
			cli_error("flags", "unknown option or missing value '%s' (see --help)",
			          argv[optind - 1]);
			return ARGUS_EXIT_USAGE;
		}
	}
	if (!pid || optind != argc) {
		cli_error("flags", "discover takes --pid P (see argus flags --help)");
		return ARGUS_EXIT_USAGE;
	}
	if (!tid)
		tid = pid;
	struct trace *t = calloc(1, sizeof(*t));
	if (!t) {
		cli_error("flags", "out of memory");
		return ARGUS_EXIT_INTERNAL;
	}
	struct maps *maps = calloc(1, sizeof(*maps));
	if (!maps) {
		free(t);
		cli_error("flags", "out of memory");
		return ARGUS_EXIT_INTERNAL;
	}
	maps_read((pid_t)pid, maps);
	int rc = step((pid_t)pid, (pid_t)tid, steps, window, for_s, t);
	if (rc) {
		free(maps);
		free(t->r);
		free(t);
		return rc;
	}
	/* the candidates: a read feeding a branch that always went one way,
	 * both seen at least 3 times (3 turns of the loop), the value the same
	 * each time, not a local of the function reading it */
	struct candidate *c = calloc(t->nr ? t->nr : 1, sizeof(*c));
	size_t nc = 0;
	for (size_t i = 0; c && i < t->nr; i++) {
		const struct read_site *s = &t->r[i];
		if (!s->branch || s->count < 3 || s->changed || s->local)
			continue;
		const struct branch_site *b = NULL;
		for (size_t k = 0; k < t->nb; k++)
			if (t->b[k].ip == s->branch)
				b = &t->b[k];
		if (!b || (b->taken && b->not_taken) || b->taken + b->not_taken < 3)
			continue;
		bool ptr = s->size == 8 && mapped(maps, s->first_value);
		c[nc++] = (struct candidate){s, b, ptr};
	}
	if (nc)
		qsort(c, nc, sizeof(*c), cmp_cand);
	printf("thread %" PRIu64 " of %" PRIu64 ": %" PRIu64 " instructions stepped", tid, pid,
	       t->steps);
	if (window)
		printf(" (%" PRIu64 " after each of %" PRIu64 " returns from sched_yield)", window,
		       t->turns);
	printf(", %zu memory reads, %zu conditional branches\n", t->nr, t->nb);
	for (size_t i = 0; i < nc; i++)
		printf("%zu flag 0x%" PRIx64 " (%u bytes, value %" PRIu64
		       "%s): read %u times at ip "
		       "0x%" PRIx64 ", branch at 0x%" PRIx64 " %s every time\n",
		       i + 1, c[i].s->addr, c[i].s->size, c[i].s->first_value,
		       c[i].pointer ? ", a pointer" : "", c[i].s->count, c[i].s->ip, c[i].b->ip,
		       c[i].b->taken ? "taken" : "not taken");
	int status = nc ? ARGUS_EXIT_OK : ARGUS_EXIT_FAIL;
	if (nc) {
		unsigned len = c[0].s->size;
		if (len != 1 && len != 2 && len != 4 && len != 8)
			len = 8;
		printf("data-flag file line (argus run --flags): 0x%" PRIx64 " %u w\n",
		       c[0].s->addr & ~(uint64_t)(len - 1), len);
		if (out) {
			FILE *f = fopen(out, "w");
			if (!f ||
			    fprintf(f,
			            "# argus flags discover --pid %" PRIu64 " --tid %" PRIu64
			            "\n0x%" PRIx64 " %u w\n",
			            pid, tid, c[0].s->addr & ~(uint64_t)(len - 1), len) < 0 ||
			    fclose(f)) {
				cli_error("flags", "%s: cannot write: %s", out, strerror(errno));
				status = ARGUS_EXIT_IO;
			}
		}
	} else {
		cli_error("flags",
		          "thread %" PRIu64 ": no flag (no loop whose branch reads an "
		          "unchanging value off the stack in %" PRIu64 " instructions)",
		          tid, t->steps);
	}
	free(c);
	free(maps);
	free(t->r);
	free(t);
	return status;
}

int cmd_flags(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "discover"))
		return discover(argc - 1, argv + 1);
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(flags_usage, stdout);
		return ARGUS_EXIT_OK;
	}
	cli_error("flags", "expects 'discover' (see argus flags --help)");
	return ARGUS_EXIT_USAGE;
}
