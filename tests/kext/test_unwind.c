/*
 * test_unwind.c - full stacks' user-space half (kext/unwind.c) on a
 * recorded sample: nofp_prog (-O2 -fomit-frame-pointer) is stopped while
 * busy, its registers and the top of its stack copied (as the tracer's
 * sample does, here through ptrace), and argus_unwind must walk the copy
 * from the hot leaf through its callers with the binary's .eh_frame.
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "nofp.h"
#include "test.h"
#include "unwind.h"

#define COPY_BYTES 8192

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* One recorded sample: the DWARF registers and the stack copy. */
struct sample {
	uint64_t regs[17];
	uint8_t stack[COPY_BYTES];
	size_t size;
};

static bool record_sample(pid_t pid, struct sample *s)
{
	struct user_regs_struct r;

	if (ptrace(PTRACE_GETREGS, pid, NULL, &r))
		return false;
	uint64_t dw[17] = {r.rax, r.rdx, r.rcx, r.rbx, r.rsi, r.rdi, r.rbp, r.rsp, r.r8,
	                   r.r9,  r.r10, r.r11, r.r12, r.r13, r.r14, r.r15, r.rip};
	memcpy(s->regs, dw, sizeof(dw));
	/* the main thread's stack may end sooner: halve as the tracer does */
	for (size_t n = COPY_BYTES; n >= 256; n /= 2) {
		struct iovec local = {s->stack, n}, remote = {(void *)(uintptr_t)r.rsp, n};

		if (process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)n) {
			s->size = n;
			return true;
		}
	}
	return false;
}

TEST(unwinds_a_recorded_sample_of_a_program_without_frame_pointers)
{
#if !defined(__x86_64__)
	SKIP("the recorded registers are x86-64's");
#endif
	int go[2];
	ASSERT(pipe(go) == 0);
	pid_t pid = fork();
	if (pid == 0) {
		char b;
		close(go[1]);
		if (read(go[0], &b, 1) != 1)
			_exit(3);
		execl(NOFP_PROG, NOFP_PROG, "10", (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	if (ptrace(PTRACE_SEIZE, pid, NULL, NULL)) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		SKIP("ptrace is not allowed here (%s)", strerror(errno));
	}
	ASSERT(write(go[1], "g", 1) == 1);
	close(go[1]);
	usleep(300000); /* exec'ed and busy */

	struct argus_unwinder *u = argus_unwinder_new();
	Dwfl *d = nofp_dwfl();
	ASSERT(u && d);
	static struct sample s;
	unsigned chains = 0, longest = 0, tries = 0;
	uint64_t first_ns = 0, warm_ns = 0;
	for (; tries < 8 && chains < 3; tries++) {
		int status;
		uint64_t pcs[64];

		ASSERT(ptrace(PTRACE_INTERRUPT, pid, NULL, NULL) == 0);
		ASSERT(waitpid(pid, &status, 0) == pid && WIFSTOPPED(status));
		ASSERT(record_sample(pid, &s));
		uint64_t t0 = now_ns();
		unsigned n = argus_unwind(u, pid, pid, s.regs, 17, s.stack, s.size, pcs, 64);
		uint64_t dt = now_ns() - t0;
		if (tries == 0)
			first_ns = dt;
		else
			warm_ns += dt;
		if (n > longest)
			longest = n;
		if (nofp_chain(d, pcs, n)) {
			chains++;
			/* and on to main: the whole program */
			bool main_seen = false;
			for (unsigned i = 0; i < n; i++)
				main_seen |= !strcmp(nofp_name(d, pcs, i), "main");
			ASSERT_MSG(main_seen, "chain of %u frames stops before main", n);
		}
		ASSERT(ptrace(PTRACE_CONT, pid, NULL, NULL) == 0);
		usleep(20000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	dwfl_end(d);
	argus_unwinder_free(u);
	/* what it costs (a figure, not asserted) */
	fprintf(stderr, "unwind: first walk %.0f us (modules read), then %.1f us a walk\n",
	        first_ns / 1e3, tries > 1 ? warm_ns / 1e3 / (tries - 1) : 0.0);
	ASSERT_MSG(longest >= 4, "the longest walk has %u frames", longest);
	ASSERT_MSG(chains >= 1, "no sample of %u walked nofp_hot <- nofp_middle <- nofp_outer",
	           tries);
}

TEST(a_copy_without_its_process_walks_nothing)
{
	struct argus_unwinder *u = argus_unwinder_new();
	uint64_t regs[17] = {0}, pcs[8];
	uint8_t stack[64] = {0};

	ASSERT(u);
	/* pid 0 and a process that is gone name no modules */
	ASSERT_EQ(argus_unwind(u, 0, 1, regs, 17, stack, sizeof(stack), pcs, 8), 0u);
	ASSERT_EQ(argus_unwind(u, 0x3fffff0, 0x3fffff0, regs, 17, stack, sizeof(stack), pcs, 8),
	          0u);
	argus_unwinder_free(u);
}

/* A pc in no module makes the unwinder read the maps again; a library
 * unloaded since its first read must not leave the process's walks on
 * freed modules (libdwfl attaches with one module's backend). This
 * process is the traced one: its walk starts at a function of its own. */
TEST(maps_read_again_after_a_library_is_unloaded_still_walk)
{
	struct argus_unwinder *u = argus_unwinder_new();
	uint64_t regs[17] = {0}, pcs[8];
	uint8_t stack[256] = {0};
	uint32_t pid = (uint32_t)getpid(), tid = (uint32_t)syscall(SYS_gettid);

	ASSERT(u);
	void *lib = dlopen("libanl.so.1", RTLD_NOW | RTLD_LOCAL);
	ASSERT_MSG(lib, "dlopen libanl.so.1: %s", dlerror());
	regs[7] = (uint64_t)(uintptr_t)stack;
	regs[16] = (uint64_t)(uintptr_t)&now_ns;
	ASSERT(argus_unwind(u, pid, tid, regs, 17, stack, sizeof(stack), pcs, 8) >= 1);
	ASSERT_EQ(dlclose(lib), 0);
	usleep(1100 * 1000); /* past the unwinder's interval between reads */
	regs[16] = 0x10;
	argus_unwind(u, pid, tid, regs, 17, stack, sizeof(stack), pcs, 8);
	regs[16] = (uint64_t)(uintptr_t)&now_ns;
	for (int i = 0; i < 3; i++)
		ASSERT(argus_unwind(u, pid, tid, regs, 17, stack, sizeof(stack), pcs, 8) >= 1);
	argus_unwinder_free(u);
}

TEST_MAIN(TEST_ENTRY(unwinds_a_recorded_sample_of_a_program_without_frame_pointers),
          TEST_ENTRY(a_copy_without_its_process_walks_nothing),
          TEST_ENTRY(maps_read_again_after_a_library_is_unloaded_still_walk))
