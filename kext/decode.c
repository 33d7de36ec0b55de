/*
 * decode.c - the user-space half of a few kernel records: kernel stack ids
 * become interned stacks, exec records get the executable's path, and every
 * process seen gets its executable mappings and build ids written (at
 * discovery, again at exec, and the new ones when a stack holds an address
 * in none of them), so stacks can be symbolized later.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kext_priv.h"
#include "procmaps.h"
#include "tracer.h"
#include "tracer.skel.h"
#include "unwind.h"

/* ---- u32 -> u32 table (key 0 never stored; val 0 = absent) -------------- */
int u32_table_put(struct u32_table *t, uint32_t key, uint32_t val)
{
	return !key || argus_hmap_set_u64(&t->h, key, val) ? 0 : -1;
}

bool u32_table_get(const struct u32_table *t, uint32_t key, uint32_t *val)
{
	const uint64_t *v = key ? argus_hmap_get(&t->h, key) : NULL;
	if (!v)
		return false;
	*val = (uint32_t)*v;
	return *val != 0;
}

bool u32_table_del(struct u32_table *t, uint32_t key)
{
	uint32_t v;
	return u32_table_get(t, key, &v) && argus_hmap_del(&t->h, key);
}

void u32_table_free(struct u32_table *t)
{
	argus_hmap_free(&t->h);
}

/* ---- stacks ------------------------------------------------------------- */
/* Kernel text on x86-64 and arm64 (48-bit user space) lies above this. */
#define KERNEL_HALF 0xffff800000000000ull

/*
 * The kernel side interns stacks with BPF_F_REUSE_STACKID: a bucket that a
 * different stack hashes to is overwritten, so the map never fills up in an
 * always-on session. A record is therefore resolved soon after it was
 * written (argus_kext_prefetch) and checked: the innermost frame must be the
 * record's user ip, else its stack was replaced and counts as lost.
 */

/* A wait stack's frames kept for the records that reuse them. */
struct wait_frames {
	uint32_t depth;
	uint64_t ips[];
};

/* Threads x stacks kept at most; past it the table starts over (a reused
 * record then reads the map, as a new one does). */
#define WAIT_FRAMES_MAX 4096 /* at most 4 MiB of frames (127 each) */

void argus_kext_wait_frames_free(struct argus_kext *k)
{
	size_t pos = 0;
	uint64_t *v;

	while ((v = argus_hmap_next(&k->wait_frames, &pos, NULL)) != NULL)
		free((void *)(uintptr_t)*v);
	argus_hmap_free(&k->wait_frames);
	memset(&k->wait_frames, 0, sizeof(k->wait_frames));
}

/* The frames of stack map id kid (a user stack, or a wait's kernel stack),
 * into ips (zeroed past them); false when the map no longer holds the
 * stack the record names (replaced: counted). A wait's STACK record that
 * reuses its thread's earlier walk (reused: TRACER_STACK_REUSED) takes the
 * frames read for that thread and id then, with no map read; the frames of
 * every wait's stack read from the map are kept for that. */
static bool stack_frames(struct argus_kext *k, const struct argus_event *e, uint32_t kid,
                         bool kernel, bool reused, uint64_t ips[TRACER_STACK_DEPTH])
{
	bool wait = e->type == ARGUS_EV_STACK && e->stack.kind == ARGUS_STACK_WAIT;
	uint64_t key = (uint64_t)e->tid << 32 | (kernel ? 1u << 31 : 0) | kid, *v;
	struct wait_frames *f;
	uint32_t depth = 0;

	memset(ips, 0, TRACER_STACK_DEPTH * sizeof(ips[0]));
	/* a wait whose frame pointer the tracer did not follow */
	if (!kernel && wait && kid == TRACER_USTACK_IP_ONLY - 1) {
		ips[0] = e->stack.ip;
		return e->stack.ip != 0;
	}
	if (reused && wait && (v = argus_hmap_get(&k->wait_frames, key)) != NULL) {
		f = (struct wait_frames *)(uintptr_t)*v;
		memcpy(ips, f->ips, f->depth * sizeof(ips[0]));
		k->stacks_reused++;
		return true;
	}
	/* a long wait's kernel stack, taken at its end, is in kwait_stacks */
	if (bpf_map_lookup_elem(bpf_map__fd(e->type == ARGUS_EV_STACK &&
	                                            e->stack.kind == ARGUS_STACK_WAIT_END
	                                        ? k->skel->maps.kwait_stacks
	                                        : k->skel->maps.stacks),
	                        &kid, ips) ||
	    (kernel ? ips[0] < KERNEL_HALF : e->stack.ip && ips[0] != e->stack.ip)) {
		k->stacks_replaced++;
		return false;
	}
	if (!wait)
		return true;
	while (depth < TRACER_STACK_DEPTH && ips[depth])
		depth++;
	if (k->wait_frames.len >= WAIT_FRAMES_MAX)
		argus_kext_wait_frames_free(k);
	f = malloc(sizeof(*f) + depth * sizeof(ips[0]));
	if (!f)
		return true;
	f->depth = depth;
	memcpy(f->ips, ips, depth * sizeof(ips[0]));
	v = argus_hmap_put(&k->wait_frames, key, NULL);
	if (!v) {
		free(f);
		return true;
	}
	free((void *)(uintptr_t)*v); /* a slot put returns zeroed when new */
	*v = (uint64_t)(uintptr_t)f;
	return true;
}

static uint32_t intern_kernel_stack(struct argus_kext *k, const struct argus_event *e,
                                    const struct argus_sink *sink, bool reused,
                                    uint32_t *depth_out)
{
	uint64_t ips[TRACER_STACK_DEPTH];
	uint32_t depth = 0;

	if (!stack_frames(k, e, e->stack.ustack - 1, false, reused, ips))
		return 0;
	while (depth < TRACER_STACK_DEPTH && ips[depth])
		depth++;
	/* A wait inside a libc wrapper, or a sample inside a libc function,
	 * without frame pointers: the frame-pointer walk skips the libc
	 * function's caller, the function that waited or ran. sp_ret is that
	 * caller's return address (docs/kext.md): put it back as frame 1. A
	 * sample in the vDSO, which the kernel builds with frame pointers, has
	 * its libc caller (clock_gettime's wrapper) as frame 1: the function
	 * that called libc goes after that one. Unless frame 1 is in the
	 * mapping sp_ret is in (the executable): then the vDSO function had
	 * not set up its frame yet (or had taken it down), the walk went on
	 * from the frame pointer its caller left and skipped the wrapper, and
	 * frame 1 is further out than sp_ret. */
	uint64_t ret = e->stack.sp_ret;
	if (((e->type == ARGUS_EV_STACK && e->stack.kind == ARGUS_STACK_WAIT) ||
	     e->type == ARGUS_EV_CPU_SAMPLE) &&
	    ret && depth >= 1) {
		uint32_t at = e->type == ARGUS_EV_CPU_SAMPLE && depth >= 2 && k->pmaps &&
		                      argus_procmaps_in_vdso(k->pmaps, e->pid, ips[0]) &&
		                      !argus_procmaps_same_mapping(k->pmaps, e->pid, ips[1], ret)
		                  ? 2
		                  : 1;
		bool present = false;
		for (uint32_t i = 1; i < depth && i < at + 3; i++)
			present |= ips[i] == ret;
		if (!present) {
			uint32_t keep = depth < TRACER_STACK_DEPTH ? depth : TRACER_STACK_DEPTH - 1;
			memmove(&ips[at + 1], &ips[at], (keep - at) * sizeof(ips[0]));
			ips[at] = ret;
			depth = keep + 1;
		}
	}
	*depth_out = depth;
	return sink->intern_stack ? sink->intern_stack(sink->arg, ips, depth) : 0;
}

/* ---- processes: executable mappings and build ids ------------------------- */
static bool read_build_id(const char *file, struct argus_build_id *b)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	bool found = false;
	size_t nphdr;
	Elf *elf;

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &nphdr) != 0)
		goto out;
	for (size_t i = 0; i < nphdr && !found; i++) {
		GElf_Phdr ph;
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_NOTE)
			continue;
		d = elf_getdata_rawchunk(elf, ph.p_offset, ph.p_filesz, ELF_T_NHDR);
		if (!d)
			continue;
		while ((off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((char *)d->d_buf + noff, "GNU", 4) && nh.n_descsz > 0) {
				b->len = nh.n_descsz > sizeof(b->id) ? sizeof(b->id) : nh.n_descsz;
				memcpy(b->id, (char *)d->d_buf + doff, b->len);
				found = true;
				break;
			}
		}
	}
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return found;
}

static int intern_str(const struct argus_sink *sink, const char *s)
{
	return sink->intern_string ? sink->intern_string(sink->arg, s, strlen(s)) : 0;
}

struct map_out {
	struct argus_kext *k;
	uint32_t pid;
	uint64_t ts;
	const struct argus_sink *sink;
	int rc;
};

/* One executable mapping read: into the map table, its file's build id
 * once. */
static void put_map(void *arg, const struct argus_vma *pm)
{
	struct map_out *o = arg;
	struct argus_kext *k = o->k;
	const struct argus_sink *sink = o->sink;
	struct argus_map m = {.ts = o->ts, .pid = o->pid};
	m.start = pm->start;
	m.end = pm->end;
	m.pgoff = pm->pgoff;
	m.prot = pm->prot;
	m.path_str = pm->path[0] ? intern_str(sink, pm->path) : 0;
	if (sink->map && sink->map(sink->arg, &m) < 0)
		o->rc = -1;
	uint32_t done;
	if (pm->path[0] == '/' && m.path_str && !u32_table_get(&k->build_ids, m.path_str, &done)) {
		struct argus_build_id b = {.path_str = m.path_str};
		char mf[128];

		/* map_files reaches the very file mapped, across mount
		 * namespaces and after it was replaced on disk */
		snprintf(mf, sizeof(mf), "/proc/%" PRIu32 "/map_files/%llx-%llx", o->pid,
		         (unsigned long long)pm->start, (unsigned long long)pm->end);
		if ((read_build_id(mf, &b) || read_build_id(pm->path, &b)) && sink->build_id &&
		    sink->build_id(sink->arg, &b) < 0)
			o->rc = -1;
		u32_table_put(&k->build_ids, m.path_str, 1);
	}
}

/* Executable mappings of pid not written for it yet, and the build ids of
 * their files; again: a stack held an address in none of those written. */
static int read_maps(struct argus_kext *k, uint32_t pid, uint64_t ts, const struct argus_sink *sink,
                     bool again)
{
	struct map_out o = {k, pid, ts, sink, 0};

	if (!k->pmaps && !(k->pmaps = argus_procmaps_new()))
		return -1;
	int n = argus_procmaps_read(k->pmaps, pid, ts, put_map, &o);
	if (n < 0) {
		if (!again)
			k->maps_failed++;
		return 0;
	}
	if (again)
		k->maps_again++;
	else
		k->procs_seen++;
	return o.rc;
}

/* A stack of pid whose addresses (ips[0..n-1]) are in no mapping written
 * for it: a library mapped since (the dynamic loader's, after the exec
 * whose maps were read at once; dlopen). Its maps are read again, at most
 * once a second: the trace must name what the live process named. */
static void maps_again(struct argus_kext *k, uint32_t pid, uint64_t ts, const uint64_t *ips,
                       unsigned n, const struct argus_sink *sink)
{
	if (argus_procmaps_stale(k->pmaps, pid, ts, ips, n))
		read_maps(k, pid, ts, sink, true);
}

/* Per process: what has been done for it (u32_table procs). */
enum { PROC_MAPS = 1, PROC_COMM = 2 };

static uint32_t proc_flags(const struct argus_kext *k, uint32_t pid)
{
	uint32_t f = 0;

	u32_table_get(&k->procs, pid, &f);
	return f;
}

/* Keep name (at most ARGUS_COMM_LEN - 1 bytes of it) as pid's; the table
 * holds the latest name of each pid. */
static const char *keep_name(struct argus_kext *k, uint32_t pid, const char *name)
{
	if (!name[0])
		return NULL;
	if (k->nnames == k->names_cap) {
		size_t nc = k->names_cap ? k->names_cap * 2 : 256;
		char(*nn)[ARGUS_COMM_LEN] = realloc(k->names, nc * sizeof(*nn));

		if (!nn)
			return NULL;
		k->names = nn;
		k->names_cap = nc;
	}
	memset(k->names[k->nnames], 0, ARGUS_COMM_LEN);
	strncpy(k->names[k->nnames], name, ARGUS_COMM_LEN - 1);
	k->nnames++;
	if (u32_table_put(&k->names_idx, pid, (uint32_t)k->nnames))
		return NULL;
	return k->names[k->nnames - 1];
}

/* The process name, read while the process lives and kept for the COMM
 * record written later in stream order. */
static const char *proc_name(struct argus_kext *k, uint32_t pid, bool read_now)
{
	uint32_t idx;
	char path[64], name[ARGUS_COMM_LEN] = "";
	FILE *f;

	if (u32_table_get(&k->names_idx, pid, &idx))
		return k->names[idx - 1];
	if (!read_now)
		return NULL;
	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/comm", pid);
	f = fopen(path, "re");
	if (!f)
		return NULL;
	if (!fgets(name, sizeof(name), f))
		name[0] = 0;
	fclose(f);
	name[strcspn(name, "\n")] = 0;
	return keep_name(k, pid, name);
}

/* First sight of a process: its name and memory layout (once). */
static int discover_maps(struct argus_kext *k, uint32_t pid, const struct argus_event *ev,
                         const struct argus_sink *sink)
{
	uint32_t f;

	/* most records are about the process of the record before */
	if (pid == k->last_mapped)
		return 0;
	f = proc_flags(k, pid);
	if (pid == 0 || (f & PROC_MAPS)) {
		k->last_mapped = pid;
		return 0;
	}
	if (u32_table_put(&k->procs, pid, f | PROC_MAPS))
		return -1;
	proc_name(k, pid, true);
	if (ev->flags & ARGUS_F_KTHREAD && ev->pid == pid)
		return 0; /* kernel threads map nothing */
	return read_maps(k, pid, ev->ts, sink, false);
}

/* The process COMM record, in stream order (before the batch). */
static int discover_comm(struct argus_kext *k, uint32_t pid, const struct argus_event *ev,
                         uint64_t batch_ts, const struct argus_sink *sink)
{
	uint32_t f = proc_flags(k, pid);
	const char *name;
	struct argus_event c;

	if (pid == 0 || (f & PROC_COMM))
		return 0;
	if (u32_table_put(&k->procs, pid, f | PROC_COMM))
		return -1;
	name = proc_name(k, pid, true);
	if (!name)
		return 0;
	memset(&c, 0, sizeof(c));
	memcpy(c.comm.comm, name, ARGUS_COMM_LEN);
	c.ts = batch_ts;
	c.pid = c.tid = pid;
	c.cpu = ev->cpu;
	c.type = ARGUS_EV_COMM;
	c.comm.is_process = 1;
	return sink->events && sink->events(sink->arg, &c, 1) < 0 ? -1 : 0;
}

/* The executable of an exec: /proc while the process lives, else the path
 * exec was given (kept by the kernel side in an LRU map: an entry left
 * there ages out, and a later exec of the pid replaces it, so the map is
 * read only when /proc has nothing: one BPF syscall less per exec). */
static uint32_t exec_path(struct argus_kext *k, uint32_t pid, const struct argus_sink *sink)
{
	char path[64], exe[4096], kpath[TRACER_PATH_MAX] = "";
	int fd = bpf_map__fd(k->skel->maps.exec_paths);
	uint32_t key = pid;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/exe", pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		return intern_str(sink, exe);
	}
	if (bpf_map_lookup_elem(fd, &key, kpath) != 0)
		return 0;
	kpath[sizeof(kpath) - 1] = 0;
	return kpath[0] ? intern_str(sink, kpath) : 0;
}

/* The new program's layout, name and path; pid reuse after a fork. */
static int observe(struct argus_kext *k, struct argus_event *e, const struct argus_sink *sink)
{
	int rc = 0;

	switch (e->type) {
	case ARGUS_EV_PROC_EXEC: {
		uint32_t f = proc_flags(k, e->pid);

		if (!e->exec.exe_str)
			e->exec.exe_str = exec_path(k, e->pid, sink);
		u32_table_del(&k->names_idx, e->pid); /* exec renamed it */
		/* the name exec gave it, from the record; renames after are
		 * records of their own (task_rename) */
		if (!keep_name(k, e->pid, e->exec.comm))
			proc_name(k, e->pid, true);
		u32_table_put(&k->procs, e->pid, f | PROC_MAPS);
		argus_procmaps_forget(k->pmaps, e->pid); /* a new layout */
		rc = read_maps(k, e->pid, e->ts, sink, false);
		break;
	}
	case ARGUS_EV_PROC_FORK:
		/* A new process (maybe a recycled pid): until it execs its
		 * layout is its parent's, which the PROC_FORK record names;
		 * reading /proc for each of a burst of forks would cost more
		 * than tracing them. Its name is the record's. */
		u32_table_put(&k->procs, e->fork.child_pid, PROC_MAPS);
		u32_table_del(&k->names_idx, e->fork.child_pid);
		keep_name(k, e->fork.child_pid, e->fork.comm); /* no /proc read for it */
		discover_maps(k, e->pid, e, sink);
		break;
	case ARGUS_EV_SCHED_SWITCH:
		rc = discover_maps(k, e->sched_switch.next_pid, e, sink);
		break;
	case ARGUS_EV_SCHED_WAKEUP:
	case ARGUS_EV_SCHED_WAKEUP_NEW:
		rc = discover_maps(k, e->wakeup.wakee_pid, e, sink);
		break;
	default:
		break;
	}
	if (discover_maps(k, e->pid, e, sink) < 0)
		rc = -1;
	return rc;
}

/* A wait's kernel stack (kstack: the map's id + 1), interned like a user
 * stack. A bucket a user stack took since holds user addresses: the first
 * frame must be in the kernel's half, else it counts as replaced. */
static uint32_t intern_kstack(struct argus_kext *k, const struct argus_event *e,
                              const struct argus_sink *sink, bool reused)
{
	uint64_t ips[TRACER_STACK_DEPTH];
	uint32_t depth = 0;

	if (!stack_frames(k, e, e->stack.kstack - 1, true, reused, ips))
		return 0;
	while (depth < TRACER_STACK_DEPTH && ips[depth])
		depth++;
	return sink->intern_stack ? sink->intern_stack(sink->arg, ips, depth) : 0;
}

/*
 * A sample with a full stack (argus_kext_full_stacks): its slot's copy,
 * when the slot still holds it (same time and thread), unwound with the
 * binaries' CFI. The interned chain replaces the frame-pointer stack when
 * it is more than twice as deep; 0 (the frame-pointer stack stays) otherwise. Either way
 * the record no longer names a slot.
 */
static uint32_t intern_full_stack(struct argus_kext *k, struct argus_event *e,
                                  const struct argus_sink *sink, uint32_t fp_depth)
{
	uint32_t slot = e->stack.copy - 1;
	uint64_t pcs[TRACER_STACK_DEPTH];
	struct timespec t0, t1;
	unsigned n;

	e->stack.copy = 0;
	if (!k->ucopy && !(k->ucopy = malloc(sizeof(*k->ucopy))))
		return 0;
	if (!k->unwinder && !(k->unwinder = argus_unwinder_new()))
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (bpf_map_lookup_elem(bpf_map__fd(k->skel->maps.ustacks), &slot, k->ucopy) ||
	    k->ucopy->ts != e->ts || k->ucopy->tid != e->tid ||
	    k->ucopy->nregs > TRACER_UREGS_MAX || k->ucopy->size > TRACER_USTACK_BYTES_MAX) {
		k->ustacks_lost++;
		return 0;
	}
	n = argus_unwind(k->unwinder, e->pid, e->tid, (const uint64_t *)k->ucopy->regs,
	                 k->ucopy->nregs, k->ucopy->data, k->ucopy->size, pcs, TRACER_STACK_DEPTH);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	k->ustack_ns += (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000u + (uint64_t)t1.tv_nsec -
	                (uint64_t)t0.tv_nsec;
	if (n == 0) {
		k->ustacks_lost++;
		return 0;
	}
	k->ustacks++;
	maps_again(k, e->pid, e->ts, pcs, n, sink);
	/* only where the frame-pointer walk broke (less than half the chain:
	 * code without frame pointers); a program with frame pointers keeps
	 * its frame-pointer stack and the rules written for it */
	if (n <= 2 * fp_depth)
		return 0;
	e->stack.depth = n;
	e->stack.unwind = ARGUS_UNWIND_DWARF;
	return sink->intern_stack ? sink->intern_stack(sink->arg, pcs, n) : 0;
}

static int intern_stacks(struct argus_kext *k, struct argus_event *e, const struct argus_sink *sink)
{
	bool reused = false;

	if (e->type == ARGUS_EV_STACK) { /* the kernel ring's marker, not a depth */
		reused = e->stack.depth == TRACER_STACK_REUSED;
		e->stack.depth = 0;
	}
	if (e->type == ARGUS_EV_PROC_EXEC || e->type == ARGUS_EV_PROC_EXIT)
		argus_unwinder_forget(k->unwinder, e->pid);
	if (e->type == ARGUS_EV_PROC_EXIT)
		argus_procmaps_forget(k->pmaps, e->pid);
	/* the sampled or waiting ip (a frame-pointer walk's later frames
	 * may be garbage in code without frame pointers) */
	if ((e->type == ARGUS_EV_CPU_SAMPLE || e->type == ARGUS_EV_STACK) && e->stack.ip)
		maps_again(k, e->pid, e->ts, &e->stack.ip, 1, sink);
	if (e->type == ARGUS_EV_CPU_SAMPLE && e->stack.copy) {
		uint32_t depth = 0, id;

		if (e->stack.ustack) {
			e->stack.ustack = intern_kernel_stack(k, e, sink, false, &depth);
			e->stack.depth = e->stack.ustack ? depth : 0;
		}
		id = intern_full_stack(k, e, sink, e->stack.ustack ? depth : 0);
		if (id)
			e->stack.ustack = id;
		return 0;
	}
	if ((e->type == ARGUS_EV_STACK || e->type == ARGUS_EV_CPU_SAMPLE) && e->stack.ustack) {
		uint32_t depth = 0;

		e->stack.ustack = intern_kernel_stack(k, e, sink, reused, &depth);
		e->stack.depth = e->stack.ustack ? depth : 0;
	}
	if (e->type == ARGUS_EV_STACK && e->stack.kstack)
		e->stack.kstack = intern_kstack(k, e, sink, reused);
	return 0;
}

void argus_kext_note_forks(struct argus_kext *k, const struct argus_event *ev, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ev[i].type == ARGUS_EV_PROC_FORK &&
		    !(proc_flags(k, ev[i].fork.child_pid) & PROC_MAPS))
			u32_table_put(&k->procs, ev[i].fork.child_pid, PROC_MAPS);
}

int argus_kext_prefetch(struct argus_kext *k, struct argus_event *ev, size_t n,
                        const struct argus_sink *sink)
{
	int rc = 0;

	k->prefetching = true;
	for (size_t i = 0; i < n; i++) {
		if (observe(k, &ev[i], sink) < 0)
			rc = -1;
		intern_stacks(k, &ev[i], sink);
	}
	return rc;
}

int argus_kext_decode(struct argus_kext *k, struct argus_event *ev, size_t n,
                      const struct argus_sink *sink)
{
	int rc = 0;

	for (size_t i = 0; i < n; i++) {
		struct argus_event *e = &ev[i];

		if (!k->prefetching) {
			if (observe(k, e, sink) < 0)
				rc = -1;
			intern_stacks(k, e, sink);
		}
		if (discover_comm(k, e->pid, e, ev[0].ts, sink) < 0)
			rc = -1;
		if (e->type == ARGUS_EV_PROC_FORK) {
			/* the child's name is written again for a recycled pid */
			uint32_t f = proc_flags(k, e->fork.child_pid);

			u32_table_put(&k->procs, e->fork.child_pid, f & ~PROC_COMM);
		}
	}
	return rc;
}
