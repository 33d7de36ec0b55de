/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * appset.bpf.h - the app set, and shedding the records of everyone else
 * when a ring fills (included by tracer.bpf.c; docs/kext.md "Shedding").
 *
 * Under overload a CPU's ring fills and every record that finds no room is
 * lost, the display clients' with everyone else's: a hang started in a storm
 * goes unseen. So the tracer keeps a set of processes that matter to the
 * stall trigger and the graph: display servers and compositors (by name, at
 * exec, and those user space finds running at start), hooked
 * processes (user space adds them), and whoever wakes or is woken by a
 * member, up to APPSET_HOPS wake-ups away (display clients are one hop from
 * their server, the services they call a few more). Kernel threads and
 * interrupt context never join, nor does a member's child at fork (a load
 * generator a member starts is not of the set unless it talks to it).
 *
 * Once a ring holds shed_bytes or more not yet read, a record about a
 * process outside the set is not written: it is counted in ring_lost (it is
 * lost like any other record, and reported so) and in ring_shed (the part of
 * ring_lost lost this way). Records of the set keep the rest of the ring.
 */
#ifndef ARGUS_APPSET_BPF_H
#define ARGUS_APPSET_BPF_H

#define APPSET_HOPS 4 /* wake-ups away from a seed */

const volatile __u64 shed_bytes = 0; /* 0: never shed */

/* tgid -> hops from a seed (0 = seed). LRU: exited processes age out. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, TRACER_APPSET_MAX);
	__type(key, __u32);
	__type(value, __u8);
} appset SEC(".maps");

/* Records shed, per CPU (a part of ring_lost). */
__u64 ring_shed[TRACER_CPUS_MAX] = {};

/* Bumped at every change of the set (appset_put, user space's adds; an LRU
 * eviction only happens inside an add): a wake-up found settled (neither end
 * could move closer) stays settled until it changes (struct appset_seen). */
__u64 appset_gen = 0;

static __always_inline bool appset_has(__u32 tgid)
{
	return tgid && bpf_map_lookup_elem(&appset, &tgid);
}

static __always_inline void appset_put(__u32 tgid, __u8 hops)
{
	bpf_map_update_elem(&appset, &tgid, &hops, BPF_ANY);
	__sync_fetch_and_add(&appset_gen, 1);
}

/* A wake-up between two processes (irq: it is made by an interrupt, which
 * joins no one): the one farther from a seed (or outside) joins one hop
 * farther than the other. seen: the waker's memory of settled wake-ups (NULL:
 * none). A thread wakes the same few processes over and over, and each time
 * costs two lookups in a large map (cache misses, most of a wake-up's cost);
 * a pair found settled is not looked up again until the set changes. That
 * skips only lookups whose answer is known: the set is the same. */
static __always_inline void appset_wake(struct task_struct *waker, struct task_struct *wakee,
                                        bool irq, struct appset_seen *seen)
{
	__u32 a = waker->tgid, b = wakee->tgid, slot = b & (APPSET_SEEN - 1);
	__u64 gen;
	__u8 *ha, *hb;

	if (!shed_bytes || a == b || !a || !b || ((waker->flags | wakee->flags) & PF_KTHREAD_) ||
	    irq)
		return;
	gen = appset_gen;
	if (seen) {
		if (seen->gen != gen || seen->tgid != a) {
			__builtin_memset(seen->wakee, 0, sizeof(seen->wakee));
			seen->gen = gen;
			seen->tgid = a;
		} else if (seen->wakee[slot] == b) {
			return;
		}
	}
	/* the distances as values (0xff: outside): the verifier refuses
	 * the pointer arithmetic clang makes of testing both pointers */
	ha = bpf_map_lookup_elem(&appset, &a);
	__u8 da = ha ? *ha : 0xff;
	hb = bpf_map_lookup_elem(&appset, &b);
	__u8 db = hb ? *hb : 0xff;

	if (da < APPSET_HOPS && db > da + 1)
		appset_put(b, da + 1);
	else if (db < APPSET_HOPS && da > db + 1)
		appset_put(a, db + 1);
	else if (seen)
		seen->wakee[slot] = b; /* settled as of gen */
}

/* Display servers and compositors: the seeds (TRACER_DISPLAY_NAMES). */
static const char appset_names[][ARGUS_COMM_LEN] = {TRACER_DISPLAY_NAMES};

/* At exec: a process now named like a display server is a seed. */
static __always_inline void appset_named(struct task_struct *t)
{
	char comm[ARGUS_COMM_LEN];

	if (!shed_bytes)
		return;
	BPF_CORE_READ_STR_INTO(&comm, t, comm);
	for (int n = 0; n < (int)(sizeof(appset_names) / sizeof(appset_names[0])); n++) {
		int i;

		for (i = 0; i < ARGUS_COMM_LEN; i++) {
			if (comm[i] != appset_names[n][i])
				break;
			if (!comm[i]) {
				appset_put(t->tgid, 0);
				return;
			}
		}
	}
}

/* Whether nrec records about process tgid (0: none) should be shed: the
 * ring holds shed_bytes or more and tgid is outside the set. Counted. */
static __always_inline bool appset_shed_tgid(void *ring, __u32 tgid, __u32 cpu, __u32 nrec)
{
	if (!shed_bytes || bpf_ringbuf_query(ring, BPF_RB_AVAIL_DATA) < shed_bytes)
		return false;
	if (appset_has(tgid))
		return false;
	if (cpu < TRACER_CPUS_MAX) {
		__sync_fetch_and_add(&ring_lost[cpu], nrec);
		__sync_fetch_and_add(&ring_shed[cpu], nrec);
	}
	return true;
}

/* The same for records about task t (NULL: no task). */
static __always_inline bool appset_shed(void *ring, struct task_struct *t, __u32 cpu, __u32 nrec)
{
	return appset_shed_tgid(ring, t ? t->tgid : 0, cpu, nrec);
}

#endif /* ARGUS_APPSET_BPF_H */
