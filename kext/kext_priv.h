/*
 * kext_priv.h - the loader's state, shared by kext.c (load, attach, drops)
 * and decode.c (user-side finishing of records). Not a public header.
 */
#ifndef ARGUS_KEXT_PRIV_H
#define ARGUS_KEXT_PRIV_H

#include <pthread.h>
#include <stdint.h>

#include "hashmap.h"
#include "kext.h"

struct tracer_bpf;
struct tracer_ustack;
struct argus_unwinder;
struct argus_procmaps;
struct bpf_link;

/* u32 -> u32 on the one hash table; key 0 is never stored, value 0 = absent.
 * A zeroed struct is empty. */
struct u32_table {
	struct argus_hmap h;
};
int u32_table_put(struct u32_table *t, uint32_t key, uint32_t val);
bool u32_table_get(const struct u32_table *t, uint32_t key, uint32_t *val);
bool u32_table_del(struct u32_table *t, uint32_t key);
void u32_table_free(struct u32_table *t);

struct argus_kext {
	struct tracer_bpf *skel;
	unsigned ncpus;
	int *ring_fds;
	int *perf_fds;
	struct bpf_link **perf_links;
	uint64_t *drops_reported; /* per CPU, already turned into DROP records */
	uint64_t stack_drops_reported;
	uint64_t misses_reported; /* program runs the kernel skipped, in DROP records */
	uint64_t misses_read_at;  /* when they were last read (argus_kext_drop_records) */
	struct argus_event *held; /* records still held or staged at argus_kext_stop */
	size_t nheld, held_out;
	unsigned sample_hz;
	bool samples;
	bool per_call; /* loaded with opts.syscalls */
	/* full_pids values: FULL_* bits, who asked (kext.c); the session's
	 * thread and the daemon's both change them */
	pthread_mutex_t full_mu;
	/* sched_exit_tp on demand (opts.yields_on_demand): its link changes
	 * in the session's thread, and goes at argus_kext_stop */
	pthread_mutex_t yield_mu;
	bool yields_on_demand, yields_stopped;

	/* decode state */
	struct u32_table procs;     /* tgid -> PROC_* flags (decode.c) */
	struct u32_table names_idx; /* tgid -> index + 1 into names */
	char (*names)[ARGUS_COMM_LEN];
	size_t nnames, names_cap;
	bool prefetching;           /* argus_kext_prefetch is in use */
	uint32_t last_mapped;       /* pid last found with PROC_MAPS (discover_maps) */
	struct u32_table build_ids; /* path string id -> 1 once written */
	uint64_t procs_seen, maps_failed;
	struct argus_procmaps *pmaps;    /* the mappings written per process (procmaps.c) */
	uint64_t maps_again;             /* maps read again: a stack outside them (decode.c) */
	uint64_t stacks_replaced;        /* stack-map entries overwritten before decode */
	/* (tid << 32 | kernel << 31 | map id) -> struct wait_frames *: the
	 * frames of each thread's wait stacks as last read from the map, for
	 * the records that reuse them (TRACER_STACK_REUSED, decode.c) */
	struct argus_hmap wait_frames;
	uint64_t stacks_reused; /* wait stacks taken from wait_frames */
	struct argus_unwinder *unwinder; /* full stacks (unwind.c), NULL until one */
	struct tracer_ustack *ucopy;     /* a slot read back (decode.c) */
	uint64_t ustacks, ustacks_lost;
	uint64_t ustack_ns; /* reading slots back and unwinding them (decode.c) */
};

/* decode.c: the wait stacks' frames kept (wait_frames) go */
void argus_kext_wait_frames_free(struct argus_kext *k);

/* appset.c: the display servers already running join the app set */
void appset_seed(struct argus_kext *k);

#endif /* ARGUS_KEXT_PRIV_H */
