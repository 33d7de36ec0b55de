/*
 * perfetto_priv.h - what the Perfetto trace's two files share (not
 * installed): the writer's state, packets out, names (perfetto.c: tracks,
 * slices, flows, the file; perfetto_records.c: scheduling, processes,
 * samples).
 */
#ifndef ARGUS_PERFETTO_PRIV_H
#define ARGUS_PERFETTO_PRIV_H

#include <stdio.h>

#include "beam.h"
#include "hashmap.h"
#include "perfetto_trace.pb-c.h"

typedef Perfetto__Protos__TracePacket Packet;
typedef Perfetto__Protos__TrackEvent TrackEvent;
typedef Perfetto__Protos__FtraceEvent FtraceEvent;
typedef Perfetto__Protos__DebugAnnotation Annotation;

#define SEQ 1 /* the one packet sequence argus writes */
#define SEQ_CLEARED 1
#define SEQ_NEEDS_STATE 2
#define THREAD_UUID(tid) ((1ull << 40) | (tid))
#define PROCESS_UUID(pid) ((2ull << 40) | (pid))
#define STALL_UUID(id) ((3ull << 40) | (id))
#define ROOT_UUID(id) ((4ull << 40) | (id))
#define BUNDLE_MAX 512 /* ftrace events per bundle */
#define EV_FLOWS 4     /* flows an event starts or ends at most */
#define EV_ARGS 6

/* A track event before sorting. */
struct tev {
	uint64_t ts;
	uint8_t type;  /* PERFETTO__PROTOS__TRACK_EVENT__TYPE__* */
	uint8_t order; /* at equal ts: ends, begins, instants */
	uint64_t track;
	char name[200];
	const char *cat;
	uint64_t flows[EV_FLOWS], term[EV_FLOWS];
	uint8_t nflows, nterm;
	struct {
		const char *key;
		char s[160];
		int64_t i;
		bool is_int;
	} args[EV_ARGS];
	uint8_t nargs;
	uint32_t pid, stack; /* callstack: the stack id, 0 = none */
};

struct thr {
	uint32_t pid;
	char name[ARGUS_COMM_LEN + 1];
};

struct intern {
	char *s;
	uint64_t iid;
};

struct pw {
	FILE *out;
	const struct argus_report_ctx *c;
	const struct argus_symbolizer *sym;
	struct argus_perfetto_counts *n;
	bool failed, first;
	/* track events */
	struct tev *tev;
	size_t ntev, ctev;
	struct argus_hmap vslice; /* vid -> index of its begin event + 1 */
	struct argus_hmap tracks; /* thread / process / mark uuid -> 1 */
	uint64_t next_flow;
	/* records of the windows */
	struct argus_event *rec;
	size_t nrec, crec;
	uint64_t emitted_to; /* records up to here are out (windows overlap) */
	struct argus_hmap threads; /* tid -> struct thr */
	/* interning for the samples */
	struct argus_hmap fnames, mpaths; /* string hash -> struct intern */
	struct argus_hmap frames;         /* pid ^ ip hash -> iid */
	struct argus_hmap stacks;         /* (pid << 32 | stack id) -> iid */
	uint64_t next_iid;
};

/* perfetto.c */
void pw_emit(struct pw *w, Packet *p);
const char *pw_comm(const struct argus_report_ctx *c, uint32_t pid);
const char *pw_thread(const struct argus_report_ctx *c, uint32_t tid);

/* perfetto_records.c */
void pw_keep_record(void *arg, const struct argus_event *ev); /* a window's record */
void pw_process_tree(struct pw *w, uint64_t ts);
void pw_cpu(struct pw *w, uint16_t cpu);        /* the scheduling of one CPU */
void pw_sample(struct pw *w, const struct argus_event *ev);
void pw_free_interns(struct argus_hmap *m);

#endif /* ARGUS_PERFETTO_PRIV_H */
