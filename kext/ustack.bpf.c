/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * ustack.bpf.c - full user stacks for the cpu-clock samples of chosen
 * processes: what `perf record --call-graph dwarf` keeps, for an unwinder
 * in user space. Part of the one tracer object: tracer.bpf.c includes this
 * file before its sample program. docs/kext.md "Full stacks".
 *
 * Distribution libraries keep no frame pointers, so the kernel's own walk
 * (bpf_get_stackid) stops in the first libc or GTK frame. For a process in
 * `full_pids` (kext_full_stacks), a sample also copies the thread's user
 * registers (DWARF numbering, regs_dwarf) and the top ustack_bytes of its
 * user stack into a slot of `ustacks`; the sample record names the slot and
 * the decoder unwinds it with libdwfl (kext/unwind.c).
 */

/* Stack bytes copied per sample (<= TRACER_USTACK_BYTES_MAX). */
const volatile __u32 ustack_bytes = TRACER_USTACK_BYTES;
/* Every traced process, not only those in full_pids (argus record --full-stacks). */
const volatile bool ustack_all = false;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TRACER_USTACK_SLOTS);
	__type(key, __u32);
	__type(value, struct tracer_ustack);
} ustacks SEC(".maps");

/* Processes whose samples keep full stacks (tgid -> 1). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TRACER_FULL_PIDS_MAX);
	__type(key, __u32);
	__type(value, __u8);
} full_pids SEC(".maps");

/* The next slot to use (all CPUs); copies that found no slot readable. */
__u64 ustack_next = 0;
__u64 ustack_failed = 0;

/* Copy n bytes of the user stack at sp, n bounded for the verifier. */
static __always_inline long ustack_read(struct tracer_ustack *u, __u64 sp, __u32 n)
{
	if (n > TRACER_USTACK_BYTES_MAX)
		n = TRACER_USTACK_BYTES_MAX;
	if (n == 0)
		return -1;
	return bpf_probe_read_user(u->data, n, (void *)sp);
}

/*
 * The full stack of sampled task t (user registers uregs) when its process
 * asked for one: the slot + 1 the copy went to, else 0. The stack is read
 * from sp up: ustack_bytes, fewer for a main thread near the top of its
 * stack (mm->start_stack), halved until it reads for a thread whose stack
 * mapping ends sooner.
 */
static __always_inline __u32 full_stack(struct task_struct *t, struct pt_regs *uregs, __u64 ts)
{
	__u32 tgid = t->tgid, slot;
	struct tracer_ustack *u;
	struct mm_struct *mm;
	__u64 sp, top;
	__u32 n;

	if (!uregs || (!ustack_all && !bpf_map_lookup_elem(&full_pids, &tgid)))
		return 0;
	slot = __sync_fetch_and_add(&ustack_next, 1) % TRACER_USTACK_SLOTS;
	u = bpf_map_lookup_elem(&ustacks, &slot);
	if (!u)
		return 0;
	u->ts = 0;
	sp = regs_sp(uregs);
	n = ustack_bytes;
	mm = KCAST(struct mm_struct, t->mm);
	if (mm && t->pid == t->tgid) {
		top = mm->start_stack;
		if (top > sp && top - sp < n)
			n = top - sp;
	}
	for (int i = 0; i < 6; i++) {
		if (ustack_read(u, sp, n) == 0)
			break;
		n >>= 1;
		if (n < 256) {
			__sync_fetch_and_add(&ustack_failed, 1);
			return 0;
		}
	}
	u->size = n;
	u->tid = t->pid;
	u->nregs = regs_dwarf(uregs, u->regs);
	u->ts = ts;
	return slot + 1;
}
