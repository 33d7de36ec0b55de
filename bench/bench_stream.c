/*
 * bench_stream.c - `argus bench stream`: events/s through the watermark merge
 * alone, and through merge + JSON encoding, on one core.
 *
 * Input: per-CPU streams of realistic records (a mix of scheduler, syscall,
 * futex and IPC records), each in time order with the CPUs interleaved in
 * time, pushed in ring-sized batches as the daemon does after a drain, and
 * popped in batches. The JSON pass encodes each released record into a
 * reused buffer (what the daemon does before queueing it for clients).
 * Targets (docs/daemon.md): >= 5 M events/s merged, >= 1 M events/s JSON.
 */
#include <inttypes.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stream.h"

struct bench_opts {
	uint64_t events;
	unsigned sources;
	unsigned batch;
	bool pin;
};

static uint64_t mono_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* xorshift: reproducible input without global state */
static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void make_record(struct argus_event *e, uint64_t ts, unsigned cpu, uint64_t *rs)
{
	static const uint16_t types[] = {
	    ARGUS_EV_SCHED_SWITCH, ARGUS_EV_SCHED_WAKEUP, ARGUS_EV_SYS_ENTER,
	    ARGUS_EV_SYS_EXIT,     ARGUS_EV_FUTEX_WAIT,   ARGUS_EV_IPC_SEND,
	};
	uint64_t r = next_rand(rs);
	memset(e, 0, sizeof(*e));
	e->ts = ts;
	e->cpu = (uint16_t)cpu;
	e->pid = 1000 + (uint32_t)(r % 50);
	e->tid = e->pid + (uint32_t)(r >> 8) % 8;
	e->type = types[(r >> 16) % (sizeof(types) / sizeof(types[0]))];
	switch (e->type) {
	case ARGUS_EV_SCHED_SWITCH:
		e->sched_switch.next_pid = e->pid + 1;
		e->sched_switch.next_tid = e->tid + 1;
		e->sched_switch.prev_state = 1;
		e->sched_switch.prev_prio = 120;
		e->sched_switch.next_prio = 120;
		memcpy(e->sched_switch.next_comm, "gnome-shell", 12);
		break;
	case ARGUS_EV_SCHED_WAKEUP:
		e->wakeup.wakee_pid = e->pid + 2;
		e->wakeup.wakee_tid = e->tid + 2;
		e->wakeup.target_cpu = cpu;
		e->wakeup.wakee_prio = 120;
		break;
	case ARGUS_EV_SYS_ENTER:
		e->sys_enter.nr = 7; /* poll */
		e->sys_enter.fd = -1;
		e->sys_enter.arg0 = 1000000;
		break;
	case ARGUS_EV_FUTEX_WAIT:
		e->futex.uaddr = 0x7f1234560000ull + (r & 0xff0);
		e->futex.timeout_ns = -1;
		e->futex.op = 0x80;
		break;
	default:
		e->sys_exit.obj = 0xffff888012340000ull + (r & 0xfff0);
		e->sys_exit.ret = 64;
		e->sys_exit.fd = 5;
		e->sys_exit.nr = 1;
		e->sys_exit.obj_kind = ARGUS_OBJ_UNIX;
		break;
	}
}

/* Per-source arrays of records in time order; sources interleave in time. */
static struct argus_event **make_input(const struct bench_opts *o, size_t *per)
{
	*per = o->events / o->sources;
	struct argus_event **in = calloc(o->sources, sizeof(*in));
	if (!in)
		return NULL;
	uint64_t rs = 0x9e3779b97f4a7c15ull;
	for (unsigned s = 0; s < o->sources; s++) {
		in[s] = malloc(*per * sizeof(struct argus_event));
		if (!in[s]) {
			while (s--)
				free(in[s]);
			free(in);
			return NULL;
		}
		uint64_t t = 1000000000ull + s;
		for (size_t i = 0; i < *per; i++) {
			t += 50 + next_rand(&rs) % 400; /* ~4 M events/s per CPU */
			make_record(&in[s][i], t, s, &rs);
		}
	}
	return in;
}

struct run_result {
	uint64_t events, ns, json_bytes, late;
};

/*
 * One pass: push a batch of each source in turn (the daemon's drain order),
 * pop what the watermark allows; `now` follows the input's own clock with
 * 2 ms of delivery lag, under a 10 ms max delay.
 */
static int run(const struct bench_opts *o, struct argus_event **in, size_t per, bool json,
               struct run_result *res)
{
	struct argus_merge *m;
	if (argus_merge_new(&m, o->sources, 10000000ull))
		return -1;
	enum { OUT = 4096 };
	struct argus_event *out = malloc(OUT * sizeof(*out));
	char *jbuf = malloc(1024);
	if (!out || !jbuf)
		return -1;
	uint64_t released = 0, jbytes = 0, sink = 0;
	uint64_t t0 = mono_ns();
	for (size_t base = 0; base < per; base += o->batch) {
		size_t n = per - base < o->batch ? per - base : o->batch;
		uint64_t now = 0;
		for (unsigned s = 0; s < o->sources; s++) {
			argus_merge_push(m, s, &in[s][base], n, 0);
			if (in[s][base + n - 1].ts > now)
				now = in[s][base + n - 1].ts;
		}
		now += 2000000ull;
		size_t k;
		while ((k = argus_merge_pop(m, out, OUT, now)) > 0) {
			released += k;
			if (json)
				for (size_t i = 0; i < k; i++)
					jbytes +=
					    argus_event_to_json(&out[i], NULL, jbuf, 1024) + 1;
			else
				sink += out[k - 1].ts;
		}
	}
	size_t k;
	while ((k = argus_merge_drain(m, out, OUT)) > 0) {
		released += k;
		if (json)
			for (size_t i = 0; i < k; i++)
				jbytes += argus_event_to_json(&out[i], NULL, jbuf, 1024) + 1;
	}
	res->ns = mono_ns() - t0;
	struct argus_merge_stats st;
	argus_merge_get_stats(m, &st);
	res->events = released;
	res->json_bytes = jbytes;
	res->late = st.late;
	argus_merge_free(m);
	free(out);
	free(jbuf);
	(void)sink;
	return released == (uint64_t)per * o->sources ? 0 : -1;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: argus bench stream [--events N] [--sources N] [--batch N] [--no-pin]\n"
	           "  events/s through the merge alone and merge + JSON encoding, one core\n"
	           "  defaults: --events 20000000 --sources 8 --batch 256\n");
}

int argus_bench_stream(int argc, char **argv)
{
	struct bench_opts o = {.events = 20000000, .sources = 8, .batch = 256, .pin = true};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		char *end;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--no-pin")) {
			o.pin = false;
		} else if (i + 1 < argc && (!strcmp(a, "--events") || !strcmp(a, "--sources") ||
		                            !strcmp(a, "--batch"))) {
			unsigned long long v = strtoull(argv[++i], &end, 10);
			if (*end || !v || v > (1ull << 32)) {
				fprintf(stderr, "argus bench stream: bad value '%s' for %s\n",
				        argv[i], a);
				return 2;
			}
			if (!strcmp(a, "--events"))
				o.events = v;
			else if (!strcmp(a, "--sources"))
				o.sources = (unsigned)v;
			else
				o.batch = (unsigned)v;
		} else {
			fprintf(stderr, "argus bench stream: unknown argument '%s'\n", a);
			usage(stderr);
			return 2;
		}
	}
	if (o.events < o.sources) {
		fprintf(stderr, "argus bench stream: --events must be >= --sources\n");
		return 2;
	}
	if (o.pin) {
		/* one core: the one we are on */
		cpu_set_t set;
		CPU_ZERO(&set);
		int cpu = sched_getcpu();
		CPU_SET(cpu < 0 ? 0 : cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	size_t per;
	struct argus_event **in = make_input(&o, &per);
	if (!in) {
		fprintf(stderr, "argus bench stream: out of memory for the input\n");
		return 9;
	}
	struct run_result merge, json;
	int rc = 0;
	if (run(&o, in, per, false, &merge) || run(&o, in, per, true, &json)) {
		fprintf(stderr, "argus bench stream: records lost in the merge (a bug)\n");
		rc = 1;
	} else {
		double mr = merge.events / (merge.ns / 1e9), jr = json.events / (json.ns / 1e9);
		printf("stream merge:        %" PRIu64
		       " events, %u sources, %.3f s, %.2f M events/s"
		       " (target >= 5), late %" PRIu64 "\n",
		       merge.events, o.sources, merge.ns / 1e9, mr / 1e6, merge.late);
		printf("stream merge + JSON: %" PRIu64 " events, %.3f s, %.2f M events/s"
		       " (target >= 1), %.1f bytes/event\n",
		       json.events, json.ns / 1e9, jr / 1e6, (double)json.json_bytes / json.events);
	}
	for (unsigned s = 0; s < o.sources; s++)
		free(in[s]);
	free(in);
	return rc;
}
