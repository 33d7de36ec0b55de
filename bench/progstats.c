/*
 * progstats.c - the kernel's own account of what tracing programs cost, for
 * `argus bench overhead --prog-stats`. With BPF run-time statistics on
 * (BPF_ENABLE_STATS, as long as the fd is open), the kernel adds up each
 * program's run time and run count; the sum over the machine's tracing
 * programs, taken before and after a run, is the kernel side of a tracer's
 * cost, which runs in the traced tasks and counts in their CPU time (the
 * bench's other figures cannot tell it from the workload's own). Only the
 * bench's own tracer loads tracing programs while it holds the live lock.
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "progstats.h"

int prog_stats_on(void)
{
	int fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	return fd < 0 ? -errno : fd;
}

static bool is_tracing(__u32 type)
{
	switch (type) {
	case BPF_PROG_TYPE_TRACEPOINT:
	case BPF_PROG_TYPE_RAW_TRACEPOINT:
	case BPF_PROG_TYPE_TRACING:
	case BPF_PROG_TYPE_PERF_EVENT:
	case BPF_PROG_TYPE_KPROBE:
		return true;
	default:
		return false;
	}
}

struct prog_stats prog_stats_now(void)
{
	struct prog_stats s = {0};
	__u32 id = 0;

	while (bpf_prog_get_next_id(id, &id) == 0) {
		int fd = bpf_prog_get_fd_by_id(id);
		if (fd < 0)
			continue; /* unloaded since */
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0 && is_tracing(info.type)) {
			s.run_ns += info.run_time_ns;
			s.runs += info.run_cnt;
			s.progs++;
		}
		close(fd);
	}
	return s;
}
