/*
 * test_kext_fullstack_live.c - full stacks live (label "live"): the tracer
 * samples nofp_prog (-O2 -fomit-frame-pointer, busy in nofp_hot) with
 * argus_kext_full_stacks on, the decoder unwinds the copies soon after (as
 * the daemon does, argus_kext_prefetch), and the samples' stacks name the
 * hot function's callers; without full stacks they cannot.
 */
#include <bpf/bpf.h>
#include <stdio.h>

#include "collect.h"
#include "nofp.h"

#define MAX_STACKS 4096

/* Stacks interned by the decoder, by id (1-based). */
struct stacks {
	uint64_t (*pcs)[ARGUS_STACK_MAX_DEPTH];
	uint32_t *depth;
	uint32_t n;
};

static uint32_t keep_stack(void *arg, const uint64_t *ips, uint32_t depth)
{
	struct stacks *s = arg;

	if (s->n == MAX_STACKS || depth > ARGUS_STACK_MAX_DEPTH)
		return 0;
	memcpy(s->pcs[s->n], ips, depth * sizeof(*ips));
	s->depth[s->n] = depth;
	return ++s->n;
}

static void run_nofp(void *arg)
{
	(void)arg;
	execl(NOFP_PROG, NOFP_PROG, "1.5", (char *)NULL);
	_exit(127);
}

struct outcome {
	unsigned samples, dwarf, chains;
	uint64_t frames;    /* frames of the samples' stacks */
	uint64_t decode_ns; /* in argus_kext_prefetch */
	double prog_ns;     /* cpu_sample's mean run time (0: stats off) */
};

/* cpu_sample's run time so far (kernel BPF stats), summed over loaded copies. */
static void prog_stats(uint64_t *ns, uint64_t *cnt)
{
	uint32_t id = 0;

	*ns = *cnt = 0;
	while (!bpf_prog_get_next_id(id, &id)) {
		struct bpf_prog_info info = {0};
		uint32_t len = sizeof(info);
		int fd = bpf_prog_get_fd_by_id(id);

		if (fd < 0)
			continue;
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) && !strcmp(info.name, "cpu_sample")) {
			*ns += info.run_time_ns;
			*cnt += info.run_cnt;
		}
		close(fd);
	}
}

static struct outcome sample_nofp(bool full)
{
	struct argus_kext_opts o = {.pid_filter = true};
	struct stacks st = {.pcs = calloc(MAX_STACKS, sizeof(*st.pcs)),
	                    .depth = calloc(MAX_STACKS, sizeof(uint32_t))};
	struct argus_sink sink = {.intern_stack = keep_stack, .arg = &st};
	struct outcome out = {0};
	struct collector c;
	int status = 0;
	size_t done = 0;

	ASSERT(st.pcs && st.depth);
	collector_start(&c, &o);
	struct gated_child g = spawn_gated(run_nofp, NULL);
	ASSERT(argus_kext_add_pid(c.k, g.pid) == 0);
	if (full)
		ASSERT_EQ(argus_kext_full_stacks(c.k, g.pid, true), 0);
	int stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	uint64_t ns0, cnt0, ns1, cnt1;
	prog_stats(&ns0, &cnt0);
	ASSERT(write(g.go_fd, "g", 1) == 1);
	close(g.go_fd);
	/* decode while the process lives, as the daemon does */
	for (int i = 0; i < 2500; i++) {
		bool exited = waitpid(g.pid, &status, WNOHANG) == g.pid;

		collector_drain(&c);
		uint64_t t0 = mono_ns();
		if (c.n > done) /* c.ev is NULL until the first record */
			argus_kext_prefetch(c.k, c.ev + done, c.n - done, &sink);
		out.decode_ns += mono_ns() - t0;
		done = c.n;
		if (exited)
			break;
		usleep(2000);
	}
	ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	prog_stats(&ns1, &cnt1);
	if (stats_fd >= 0) {
		close(stats_fd);
		out.prog_ns = cnt1 > cnt0 ? (double)(ns1 - ns0) / (double)(cnt1 - cnt0) : 0;
	}
	collector_finish(&c);

	Dwfl *d = nofp_dwfl();
	ASSERT(d);
	for (size_t i = 0; i < c.n; i++) {
		const struct argus_event *e = &c.ev[i];

		if (e->type != ARGUS_EV_CPU_SAMPLE || e->pid != (uint32_t)g.pid)
			continue;
		out.samples++;
		ASSERT_EQ(e->stack.copy, 0u); /* the decoder took it */
		if (e->stack.unwind == ARGUS_UNWIND_DWARF)
			out.dwarf++;
		uint32_t id = e->stack.ustack;
		if (id && id <= st.n)
			out.frames += st.depth[id - 1];
		if (id && id <= st.n && nofp_chain(d, st.pcs[id - 1], st.depth[id - 1]))
			out.chains++;
	}
	dwfl_end(d);
	collector_free(&c);
	free(st.pcs);
	free(st.depth);
	return out;
}

TEST(full_stacks_name_the_callers_of_a_hot_function_without_frame_pointers)
{
	require_live();
	struct outcome full = sample_nofp(true);
	ASSERT_MSG(full.samples >= 20, "%u samples of 1.5 s busy", full.samples);
	/* most samples are in nofp_hot, called by middle, called by outer */
	ASSERT_MSG(full.dwarf * 10 >= full.samples * 9, "%u of %u samples unwound", full.dwarf,
	           full.samples);
	ASSERT_MSG(full.chains * 10 >= full.samples * 7,
	           "%u of %u samples name nofp_hot <- nofp_middle <- nofp_outer", full.chains,
	           full.samples);

	/* the frame-pointer walk alone cannot */
	struct outcome fp = sample_nofp(false);
	/* what it costs (figures, not asserted: docs/kext.md "Full stacks") */
	fprintf(stderr,
	        "full stacks: %u samples, cpu_sample %.0f ns a run (frame pointers only %.0f), "
	        "decode %.1f us a sample (%.1f), %.1f frames a stack (%.1f)\n",
	        full.samples, full.prog_ns, fp.prog_ns,
	        full.decode_ns / 1e3 / (full.samples ? full.samples : 1),
	        fp.decode_ns / 1e3 / (fp.samples ? fp.samples : 1),
	        (double)full.frames / (full.samples ? full.samples : 1),
	        (double)fp.frames / (fp.samples ? fp.samples : 1));
	ASSERT(fp.samples >= 20);
	ASSERT_EQ(fp.dwarf, 0u);
	ASSERT_MSG(fp.chains * 10 < fp.samples, "%u of %u frame-pointer stacks have the chain",
	           fp.chains, fp.samples);
}

TEST_MAIN(TEST_ENTRY(full_stacks_name_the_callers_of_a_hot_function_without_frame_pointers))
