/*
 * decode.c - the user-space half of a few kernel records: kernel stack ids
 * become interned stacks, exec records get the executable's path, and every
 * process seen gets its executable mappings and build ids written once (at
 * discovery and again at exec), so stacks can be symbolized later.
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
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kext_priv.h"
#include "tracer.h"
#include "tracer.skel.h"

/* ---- u32 -> u32 table (key 0 never stored; val 0 = absent) -------------- */
static size_t slot_of(uint32_t key, size_t cap)
{
	return (key * 2654435761u) & (cap - 1);
}

int u32_table_put(struct u32_table *t, uint32_t key, uint32_t val)
{
	if ((t->len + 1) * 2 > t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 256;
		uint32_t *nk = calloc(ncap, sizeof(*nk)), *nv = calloc(ncap, sizeof(*nv));

		if (!nk || !nv) {
			free(nk);
			free(nv);
			return -1;
		}
		for (size_t i = 0; i < t->cap; i++) {
			if (!t->keys[i])
				continue;
			size_t s = slot_of(t->keys[i], ncap);
			while (nk[s])
				s = (s + 1) & (ncap - 1);
			nk[s] = t->keys[i];
			nv[s] = t->vals[i];
		}
		free(t->keys);
		free(t->vals);
		t->keys = nk;
		t->vals = nv;
		t->cap = ncap;
	}
	size_t s = slot_of(key, t->cap);
	while (t->keys[s] && t->keys[s] != key)
		s = (s + 1) & (t->cap - 1);
	if (!t->keys[s])
		t->len++;
	t->keys[s] = key;
	t->vals[s] = val;
	return 0;
}

bool u32_table_get(const struct u32_table *t, uint32_t key, uint32_t *val)
{
	if (!t->cap)
		return false;
	for (size_t s = slot_of(key, t->cap); t->keys[s]; s = (s + 1) & (t->cap - 1)) {
		if (t->keys[s] == key) {
			*val = t->vals[s];
			return *val != 0;
		}
	}
	return false;
}

bool u32_table_del(struct u32_table *t, uint32_t key)
{
	uint32_t v;

	if (!u32_table_get(t, key, &v))
		return false;
	return u32_table_put(t, key, 0) == 0;
}

void u32_table_free(struct u32_table *t)
{
	free(t->keys);
	free(t->vals);
	memset(t, 0, sizeof(*t));
}

/* ---- stacks ------------------------------------------------------------- */
static uint32_t intern_kernel_stack(struct argus_kext *k, uint32_t kid1,
				    const struct argus_sink *sink, uint32_t *depth_out)
{
	uint64_t ips[TRACER_STACK_DEPTH];
	uint32_t kid = kid1 - 1, id, depth = 0;

	if (u32_table_get(&k->stack_ids, kid1, &id)) {
		u32_table_get(&k->stack_depths, kid1, depth_out);
		return id;
	}
	memset(ips, 0, sizeof(ips));
	if (bpf_map_lookup_elem(bpf_map__fd(k->skel->maps.stacks), &kid, ips))
		return 0;
	while (depth < TRACER_STACK_DEPTH && ips[depth])
		depth++;
	*depth_out = depth;
	if (!sink->intern_stack)
		return 0;
	id = sink->intern_stack(sink->arg, ips, depth);
	/* stack-map entries never change (no BPF_F_REUSE_STACKID): cache */
	if (id && !u32_table_put(&k->stack_ids, kid1, id))
		u32_table_put(&k->stack_depths, kid1, depth);
	return id;
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

/* Executable mappings of pid and the build ids of their files. */
static int read_maps(struct argus_kext *k, uint32_t pid, uint64_t ts,
		     const struct argus_sink *sink)
{
	char path[64], line[4096 + 128];
	FILE *f;
	int rc = 0;

	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/maps", pid);
	f = fopen(path, "re");
	if (!f) {
		k->maps_failed++;
		return 0;
	}
	k->procs_seen++;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off;
		char perms[8], file[4096];
		struct argus_map m = {.ts = ts, .pid = pid};
		int n;

		file[0] = 0;
		n = sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095[^\n]", &start, &end, perms, &off,
			   file);
		if (n < 4 || perms[2] != 'x')
			continue;
		m.start = start;
		m.end = end;
		m.pgoff = off;
		m.prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
			 PROT_EXEC;
		m.path_str = file[0] ? intern_str(sink, file) : 0;
		if (sink->map && sink->map(sink->arg, &m) < 0)
			rc = -1;
		uint32_t done;
		if (file[0] == '/' && m.path_str && !u32_table_get(&k->build_ids, m.path_str, &done)) {
			struct argus_build_id b = {.path_str = m.path_str};
			char mf[128];

			/* map_files reaches the very file mapped, across mount
			 * namespaces and after it was replaced on disk */
			snprintf(mf, sizeof(mf), "/proc/%" PRIu32 "/map_files/%llx-%llx", pid, start,
				 end);
			if ((read_build_id(mf, &b) || read_build_id(file, &b)) && sink->build_id &&
			    sink->build_id(sink->arg, &b) < 0)
				rc = -1;
			u32_table_put(&k->build_ids, m.path_str, 1);
		}
	}
	fclose(f);
	return rc;
}

/* A process seen for the first time: its name and memory layout. */
static int discover(struct argus_kext *k, uint32_t pid, const struct argus_event *ev,
		    uint64_t batch_ts, const struct argus_sink *sink)
{
	struct argus_event c;
	char path[64];
	uint32_t seen;
	FILE *f;
	int rc = 0;

	if (pid == 0 || u32_table_get(&k->procs, pid, &seen))
		return 0;
	if (u32_table_put(&k->procs, pid, 1))
		return -1;
	memset(&c, 0, sizeof(c));
	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/comm", pid);
	f = fopen(path, "re");
	if (f) {
		if (fgets(c.comm.comm, sizeof(c.comm.comm), f)) {
			c.comm.comm[strcspn(c.comm.comm, "\n")] = 0;
			/* written before the batch: keep stream order */
			c.ts = batch_ts;
			c.pid = c.tid = pid;
			c.cpu = ev->cpu;
			c.type = ARGUS_EV_COMM;
			c.comm.is_process = 1;
			if (sink->events && sink->events(sink->arg, &c, 1) < 0)
				rc = -1;
		}
		fclose(f);
	}
	if (!(ev->flags & ARGUS_F_KTHREAD) && read_maps(k, pid, ev->ts, sink) < 0)
		rc = -1;
	return rc;
}

static int on_exec(struct argus_kext *k, struct argus_event *ev, const struct argus_sink *sink)
{
	char path[64], exe[4096];
	ssize_t n;

	char kpath[TRACER_PATH_MAX] = "";
	uint32_t key = ev->pid;
	int fd = bpf_map__fd(k->skel->maps.exec_paths);

	/* the kernel kept the path exec was given; /proc has the resolved one
	 * while the process lives */
	if (bpf_map_lookup_and_delete_elem(fd, &key, kpath) != 0 &&
	    bpf_map_lookup_elem(fd, &key, kpath) == 0)
		bpf_map_delete_elem(fd, &key);
	kpath[sizeof(kpath) - 1] = 0;
	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/exe", ev->pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		ev->exec.exe_str = intern_str(sink, exe);
	} else if (kpath[0]) {
		ev->exec.exe_str = intern_str(sink, kpath);
	}
	u32_table_put(&k->procs, ev->pid, 1);
	return read_maps(k, ev->pid, ev->ts, sink);
}

int argus_kext_decode(struct argus_kext *k, struct argus_event *ev, size_t n,
		      const struct argus_sink *sink)
{
	int rc = 0;

	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		struct argus_event *e = &ev[i];

		if (discover(k, e->pid, e, ev[0].ts, sink) < 0)
			rc = -1;
		switch (e->type) {
		case ARGUS_EV_STACK:
		case ARGUS_EV_CPU_SAMPLE:
			if (e->stack.ustack) {
				uint32_t depth = e->stack.depth;

				e->stack.ustack = intern_kernel_stack(k, e->stack.ustack, sink, &depth);
				e->stack.depth = e->stack.ustack ? depth : 0;
			}
			break;
		case ARGUS_EV_PROC_EXEC:
			if (on_exec(k, e, sink) < 0)
				rc = -1;
			break;
		case ARGUS_EV_PROC_FORK:
			/* a recycled pid is a new process: read it again */
			u32_table_del(&k->procs, e->fork.child_pid);
			break;
		case ARGUS_EV_SCHED_SWITCH:
			if (discover(k, e->sched_switch.next_pid, e, ev[0].ts, sink) < 0)
				rc = -1;
			break;
		case ARGUS_EV_SCHED_WAKEUP:
		case ARGUS_EV_SCHED_WAKEUP_NEW:
			if (discover(k, e->wakeup.wakee_pid, e, ev[0].ts, sink) < 0)
				rc = -1;
			break;
		default:
			break;
		}
	}
	return rc;
}
