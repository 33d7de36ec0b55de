/* argus info FILE: what a trace holds (header, span, events by type,
 * processes and threads, drops, tables, ground truth, faults). */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "event.h"
#include "hashmap.h"

static const char info_usage[] =
    "usage: argus info [--help] FILE\n"
    "\n"
    "Summarize an .argus trace: header (format, producer, host, kernel, boot id,\n"
    "start time), time span and duration, events by type, processes and threads\n"
    "(names from comm, exec and fork records), drops by source, table sizes,\n"
    "ground-truth records of synthetic traces, and faults. FILE \"-\" reads\n"
    "standard input. Times are shown relative to the trace start (header).\n"
    "\n"
    "Every fault is one line on stderr: \"FILE: offset N: what\"; what was intact\n"
    "is still summarized.\n"
    "\n"
    "exit status: 0 ok, 2 usage, 5 the file had faults, 6 cannot open or read,\n"
    "7 written by a newer argus, 9 out of memory.\n";

/* A thread seen in the trace; comm is its latest name. */
struct thread {
	uint32_t tid, pid;
	char comm[ARGUS_COMM_LEN + 1];
};

/* Map tid -> thread (pid namespaces are flattened); tid 0 is not kept. */
struct threads {
	struct argus_hmap m;
	struct thread zero;
};

static struct thread *thread_get(struct threads *m, uint32_t tid, uint32_t pid)
{
	struct thread *t;

	if (!tid) {
		memset(&m->zero, 0, sizeof(m->zero));
		t = &m->zero;
	} else {
		if (!m->m.vsize)
			argus_hmap_init(&m->m, sizeof(struct thread), 1024);
		t = argus_hmap_put(&m->m, tid, NULL);
		if (!t)
			return NULL;
	}
	t->tid = tid;
	if (pid && !t->pid)
		t->pid = pid;
	return t;
}

static void set_comm(struct thread *t, const char *comm)
{
	if (!t || !comm[0])
		return;
	size_t n = strnlen(comm, ARGUS_COMM_LEN);
	for (size_t i = 0; i < n; i++) /* names come from the traced programs */
		t->comm[i] = comm[i] >= ' ' && comm[i] < 127 ? comm[i] : '?';
	t->comm[n] = '\0';
}

struct summary {
	uint64_t events, first_ts, last_ts;
	uint64_t by_type[ARGUS_EV_TYPE_MAX];
	uint64_t other_types;
	uint64_t drops[8], drop_other, drop_records;
	struct threads threads;
	struct threads procs; /* keyed by pid: process names */
	uint64_t faults;
};

static int note(struct summary *s, const struct argus_event *e)
{
	s->events++;
	if (s->events == 1 || e->ts < s->first_ts)
		s->first_ts = e->ts;
	if (e->ts > s->last_ts)
		s->last_ts = e->ts;
	if (e->type < ARGUS_EV_TYPE_MAX)
		s->by_type[e->type]++;
	else
		s->other_types++;
	struct thread *t = NULL;
	if (e->tid && !thread_get(&s->threads, e->tid, e->pid))
		return -1;
	switch (e->type) {
	case ARGUS_EV_COMM:
		if (e->comm.is_process) {
			set_comm(thread_get(&s->procs, e->pid ? e->pid : e->tid, 0), e->comm.comm);
			if (e->pid == e->tid)
				set_comm(thread_get(&s->threads, e->tid, e->pid), e->comm.comm);
		} else if (e->tid) {
			set_comm(thread_get(&s->threads, e->tid, e->pid), e->comm.comm);
		}
		break;
	case ARGUS_EV_PROC_EXEC:
		if (e->pid)
			set_comm(thread_get(&s->procs, e->pid, 0), e->exec.comm);
		if (e->tid)
			set_comm(thread_get(&s->threads, e->tid, e->pid), e->exec.comm);
		break;
	case ARGUS_EV_PROC_FORK:
		if (e->fork.child_pid) {
			set_comm(thread_get(&s->procs, e->fork.child_pid, 0), e->fork.comm);
			if (e->fork.child_tid)
				set_comm(
				    thread_get(&s->threads, e->fork.child_tid, e->fork.child_pid),
				    e->fork.comm);
		}
		break;
	case ARGUS_EV_THREAD_NEW:
		if (e->fork.child_tid) {
			t = thread_get(&s->threads, e->fork.child_tid,
			               e->fork.child_pid ? e->fork.child_pid : e->pid);
			set_comm(t, e->fork.comm);
		}
		break;
	case ARGUS_EV_SCHED_SWITCH:
		if (e->sched_switch.next_tid) {
			t = thread_get(&s->threads, e->sched_switch.next_tid,
			               e->sched_switch.next_pid);
			if (t && !t->comm[0])
				set_comm(t, e->sched_switch.next_comm);
		}
		break;
	case ARGUS_EV_DROP:
		s->drop_records++;
		if (e->drop.source < 8)
			s->drops[e->drop.source] += e->drop.count;
		else
			s->drop_other += e->drop.count;
		break;
	}
	return 0;
}

static void print_rel(FILE *f, uint64_t ts, uint64_t start)
{
	if (ts >= start)
		fprintf(f, "+%" PRIu64 ".%09" PRIu64 " s", (ts - start) / 1000000000u,
		        (ts - start) % 1000000000u);
	else
		fprintf(f, "-%" PRIu64 ".%09" PRIu64 " s", (start - ts) / 1000000000u,
		        (start - ts) % 1000000000u);
}

static int cmp_thread(const void *a, const void *b)
{
	const struct thread *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static const char *proc_name(struct summary *s, uint32_t pid)
{
	const struct thread *t = pid ? argus_hmap_get(&s->procs.m, pid) : NULL;
	return t ? t->comm : "";
}

#define MAX_THREADS_SHOWN 32

static void print_processes(struct summary *s)
{
	struct thread *v = malloc((s->threads.m.len + 1) * sizeof(*v));
	if (!v)
		return;
	size_t n = 0, nproc = 0, pos = 0;
	const struct thread *t;
	while ((t = argus_hmap_next(&s->threads.m, &pos, NULL)))
		v[n++] = *t;
	qsort(v, n, sizeof(*v), cmp_thread);
	for (size_t i = 0; i < n; i++)
		nproc += i == 0 || v[i].pid != v[i - 1].pid;
	printf("processes:  %zu, threads: %zu\n", nproc, n);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && v[j].pid == v[i].pid)
			j++;
		const char *name = proc_name(s, v[i].pid);
		if (!name[0])
			for (size_t k = i; k < j && !name[0]; k++)
				if (v[k].tid == v[i].pid)
					name = v[k].comm;
		printf("  pid %-7" PRIu32 " %-16s %zu thread%s:", v[i].pid, name[0] ? name : "?",
		       j - i, j - i == 1 ? "" : "s");
		for (size_t k = i; k < j && k < i + MAX_THREADS_SHOWN; k++)
			printf(" %" PRIu32 "(%s)", v[k].tid, v[k].comm[0] ? v[k].comm : "?");
		if (j - i > MAX_THREADS_SHOWN)
			printf(" ... %zu more", j - i - MAX_THREADS_SHOWN);
		putchar('\n');
		i = j;
	}
	free(v);
}

static const char *str_or(const struct argus_trace_reader *r, uint32_t id, const char *dflt)
{
	const char *s = id ? argus_trace_string(r, id) : NULL;
	return s ? s : dflt;
}

static void print_truths(const struct argus_trace_reader *r, uint64_t start)
{
	const struct argus_truth *t;
	size_t n = argus_trace_truths(r, &t);
	if (!n)
		return;
	printf("ground truth: %zu record%s\n", n, n == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++) {
		const char *kind = argus_anomaly_kind_name(t[i].kind);
		printf("  %-16s", kind ? kind : "unknown");
		if (!kind)
			printf("(%" PRIu32 ")", t[i].kind);
		printf(" ui %" PRIu32 "/%" PRIu32 " stall ", t[i].ui_pid, t[i].ui_tid);
		print_rel(stdout, t[i].stall_start, start);
		printf(" .. ");
		print_rel(stdout, t[i].stall_end, start);
		uint64_t dur =
		    t[i].stall_end >= t[i].stall_start ? t[i].stall_end - t[i].stall_start : 0;
		printf(" (%.3f ms); root %" PRIu32 "/%" PRIu32 " ", dur / 1e6, t[i].root_pid,
		       t[i].root_tid);
		print_rel(stdout, t[i].root_start, start);
		printf(" .. ");
		print_rel(stdout, t[i].root_end, start);
		printf(" in %s", str_or(r, t[i].root_func_str, "?"));
		const char *desc = str_or(r, t[i].desc_str, NULL);
		if (desc)
			printf(": %s", desc);
		putchar('\n');
	}
}

static void print_header(const char *path, const struct argus_trace_meta *m)
{
	printf("file:       %s\n", path);
	printf("format:     version %" PRIu32 ", event schema %" PRIu32
	       ", little-endian, clock %s\n",
	       m->version, m->schema, m->clock == CLOCK_MONOTONIC ? "monotonic" : "other");
	printf("producer:   %s%s\n", m->producer,
	       m->flags & ARGUS_TRACE_F_SYNTH ? " (synthetic)" : "");
	printf("host:       %s\n", m->host[0] ? m->host : "?");
	printf("kernel:     %s\n", m->kernel[0] ? m->kernel : "?");
	printf("boot id:    ");
	for (int i = 0; i < 16; i++)
		printf("%02x%s", m->boot_id[i], i == 3 || i == 5 || i == 7 || i == 9 ? "-" : "");
	time_t sec = (time_t)(m->start_real_ns / 1000000000u);
	struct tm tm;
	char when[64] = "?";
	if (gmtime_r(&sec, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	printf("\nstarted:    %s.%03" PRIu64 " UTC (monotonic %" PRIu64 " ns)\n", when,
	       (m->start_real_ns / 1000000u) % 1000u, m->start_mono_ns);
}

int cmd_info(int argc, char **argv)
{
	static const struct option opts[] = {{"help", no_argument, NULL, 'h'}, {0}};
	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(info_usage, stdout);
			return ARGUS_EXIT_OK;
		}
		cli_error("info", "unknown option '%s' (see argus info --help)", argv[optind - 1]);
		return ARGUS_EXIT_USAGE;
	}
	const char *path = cli_one_file("info", argc, argv, optind);
	if (!path)
		return ARGUS_EXIT_USAGE;
	struct argus_trace_reader *r;
	struct argus_trace_error err;
	int rc = argus_trace_open(&r, path, &err);
	if (rc) {
		cli_error("info", "%s", err.msg);
		return cli_trace_exit(rc);
	}
	const struct argus_trace_meta *m = argus_trace_get_meta(r);
	print_header(path, m);
	fflush(stdout);

	struct summary *s = calloc(1, sizeof(*s));
	if (!s) {
		argus_trace_close(r);
		cli_error("info", "out of memory");
		return ARGUS_EXIT_INTERNAL;
	}
	const struct argus_event *e;
	int status = ARGUS_EXIT_OK;
	while ((rc = argus_trace_next(r, &e, &err)) != 0) {
		if (rc < 0) {
			cli_error("info", "%s", err.msg);
			s->faults++;
			if (rc == ARGUS_TRACE_ENOMEM)
				status = ARGUS_EXIT_INTERNAL;
			continue;
		}
		if (note(s, e)) {
			cli_error("info", "out of memory");
			status = ARGUS_EXIT_INTERNAL;
			break;
		}
	}
	struct argus_trace_health h;
	argus_trace_get_health(r, &h);
	uint64_t start = m->start_mono_ns;

	printf("events:     %" PRIu64 " in %" PRIu64 " chunk%s (%s)\n", s->events, h.chunks_ok,
	       h.chunks_ok == 1 ? "" : "s", h.indexed ? "indexed" : "no index");
	if (s->events) {
		printf("time span:  ");
		print_rel(stdout, s->first_ts, start);
		printf(" .. ");
		print_rel(stdout, s->last_ts, start);
		uint64_t d = s->last_ts - s->first_ts;
		printf(" (duration %" PRIu64 ".%09" PRIu64 " s)\n", d / 1000000000u,
		       d % 1000000000u);
		printf("events by type:\n");
		for (unsigned t = 0; t < ARGUS_EV_TYPE_MAX; t++) {
			if (!s->by_type[t])
				continue;
			const char *name = argus_event_type_name(t);
			char num[16];
			snprintf(num, sizeof(num), "type %u", t);
			printf("  %-18s %12" PRIu64 "  %5.1f%%\n", name ? name : num, s->by_type[t],
			       100.0 * (double)s->by_type[t] / (double)s->events);
		}
		if (s->other_types)
			printf("  %-18s %12" PRIu64 "\n", "(unknown types)", s->other_types);
	}
	print_processes(s);
	printf("drops:      ");
	if (!s->drop_records) {
		printf("none recorded\n");
	} else {
		printf("%" PRIu64 " DROP record%s:", s->drop_records,
		       s->drop_records == 1 ? "" : "s");
		for (unsigned i = 0; i < 8; i++)
			if (s->drops[i])
				printf(" %s %" PRIu64,
				       i < ARGUS_DROP_SOURCES ? argus_drop_source_names[i]
				                              : "other",
				       s->drops[i]);
		if (s->drop_other)
			printf(" other %" PRIu64, s->drop_other);
		putchar('\n');
	}
	const struct argus_map *mp;
	const struct argus_build_id *bi;
	const struct argus_symbol *sy;
	const struct argus_truth *tr;
	printf("tables:     strings %zu, stacks %zu, maps %zu, build ids %zu, symbols %zu, "
	       "ground truth %zu\n",
	       argus_trace_string_count(r), argus_trace_stack_count(r), argus_trace_maps(r, &mp),
	       argus_trace_build_ids(r, &bi), argus_trace_symbols(r, &sy),
	       argus_trace_truths(r, &tr));
	print_truths(r, start);
	if (h.faults)
		printf("faults:     %" PRIu64 " (bad chunks %" PRIu64 ", events lost %" PRIu64
		       "; each listed on stderr)\n",
		       h.faults, h.chunks_bad, h.events_lost);
	else
		printf("faults:     none\n");
	if (h.faults && status == ARGUS_EXIT_OK)
		status = ARGUS_EXIT_BADINPUT;
	argus_hmap_free(&s->threads.m);
	argus_hmap_free(&s->procs.m);
	free(s);
	argus_trace_close(r);
	if (fflush(stdout) != 0) {
		cli_error("info", "cannot write output");
		return ARGUS_EXIT_IO;
	}
	return status;
}
