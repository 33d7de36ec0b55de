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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "progstats.h"
#include "tracer.h"

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

/* The row of m for name, added when new; NULL when m is full. */
typedef __typeof__(((struct prog_meter *)0)->prog[0]) meter_row_t;

static meter_row_t *meter_row(struct prog_meter *m, const char *name)
{
	unsigned i = 0;

	while (i < m->n && strcmp(m->prog[i].name, name))
		i++;
	if (i == m->n) {
		if (m->n == PROG_METER_MAX)
			return NULL;
		snprintf(m->prog[m->n++].name, sizeof(m->prog[0].name), "%s", name);
	}
	return &m->prog[i];
}

void prog_stats_by_name(struct prog_meter *m)
{
	__u32 id = 0;

	memset(m, 0, sizeof(*m));
	while (bpf_prog_get_next_id(id, &id) == 0) {
		int fd = bpf_prog_get_fd_by_id(id);
		if (fd < 0)
			continue; /* unloaded since */
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0 && is_tracing(info.type)) {
			meter_row_t *row = meter_row(m, info.name);

			m->ns += (double)info.run_time_ns;
			m->runs += (double)info.run_cnt;
			if (row) {
				row->ns += (double)info.run_time_ns;
				row->runs += (double)info.run_cnt;
			}
		}
		close(fd);
	}
}

void prog_meter_sub(struct prog_meter *after, const struct prog_meter *before)
{
	after->ns -= before->ns;
	after->runs -= before->runs;
	for (unsigned i = 0; i < after->n; i++)
		for (unsigned j = 0; j < before->n; j++)
			if (!strcmp(after->prog[i].name, before->prog[j].name)) {
				after->prog[i].ns -= before->prog[j].ns;
				after->prog[i].runs -= before->prog[j].runs;
			}
}

static int meter_fd(void)
{
	__u32 id = 0;

	while (bpf_map_get_next_id(id, &id) == 0) {
		int fd = bpf_map_get_fd_by_id(id);
		if (fd < 0)
			continue;
		struct bpf_map_info info;
		__u32 len = sizeof(info);
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0 &&
		    !strcmp(info.name, "argus_meter") &&
		    info.key_size == sizeof(struct tracer_meter_key) &&
		    info.value_size == sizeof(struct tracer_meter_val))
			return fd;
		close(fd);
	}
	return -ENOENT;
}

int prog_meter_add(uint32_t tgid, struct prog_meter *m)
{
	struct tracer_meter_key k, next, *prev = NULL;
	struct tracer_meter_val v;
	int fd = meter_fd();

	if (fd < 0)
		return fd;
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		k = next;
		prev = &k;
		if (k.tgid != tgid || bpf_map_lookup_elem(fd, &k, &v))
			continue;
		v.prog[sizeof(v.prog) - 1] = 0;
		m->ns += (double)v.ns;
		m->runs += (double)v.runs;
		meter_row_t *row = meter_row(m, v.prog);
		if (!row)
			continue;
		row->ns += (double)v.ns;
		row->runs += (double)v.runs;
	}
	close(fd);
	return 0;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double median_of(double *v, unsigned n)
{
	qsort(v, n, sizeof(*v), by_value);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void prog_meter_print(const char *row, const struct prog_meter *rounds, unsigned n,
                      const double *cpu)
{
	double ns[n], share[n];
	struct prog_meter sum = {0};

	for (unsigned r = 0; r < n; r++) {
		ns[r] = rounds[r].ns;
		share[r] = cpu && cpu[r] > 0 ? rounds[r].ns / 1e9 / cpu[r] * 100 : 0;
		for (unsigned i = 0; i < rounds[r].n; i++) {
			unsigned j = 0;
			while (j < sum.n && strcmp(sum.prog[j].name, rounds[r].prog[i].name))
				j++;
			if (j == sum.n)
				sum.prog[sum.n++] = rounds[r].prog[i];
			else {
				sum.prog[j].ns += rounds[r].prog[i].ns;
				sum.prog[j].runs += rounds[r].prog[i].runs;
			}
		}
	}
	printf("  %-20s %7.1f ms", row, median_of(ns, n) / 1e6);
	if (cpu)
		printf("  %5.2f %% of its CPU", median_of(share, n));
	printf(";");
	for (unsigned k = 0; k < sum.n && k < 6; k++) { /* largest first */
		unsigned best = k;
		for (unsigned j = k + 1; j < sum.n; j++)
			if (sum.prog[j].ns > sum.prog[best].ns)
				best = j;
		__typeof__(sum.prog[0]) t = sum.prog[k];
		sum.prog[k] = sum.prog[best];
		sum.prog[best] = t;
		printf(" %s %.1f (%.0f ns)", sum.prog[k].name, sum.prog[k].ns / n / 1e6,
		       sum.prog[k].runs > 0 ? sum.prog[k].ns / sum.prog[k].runs : 0);
	}
	printf("\n");
}
