/*
 * synth_world.c - the processes, threads and binaries of the synthetic
 * desktop, and what makes its stacks symbolize: each process maps its own
 * executable and shared libraries; every function a stack names gets a
 * symbol-table entry in its file; stacks are interned from readable specs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "synth_int.h"

static const struct {
	const char *key, *path;
} libs[NLIBS] = {
    {"libc", "/usr/lib/x86_64-linux-gnu/libc.so.6"},
    {"glib", "/usr/lib/x86_64-linux-gnu/libglib-2.0.so.0.7400.6"},
    {"gobject", "/usr/lib/x86_64-linux-gnu/libgobject-2.0.so.0.7400.6"},
    {"gio", "/usr/lib/x86_64-linux-gnu/libgio-2.0.so.0.7400.6"},
    {"gtk", "/usr/lib/x86_64-linux-gnu/libgtk-3.so.0.2406.32"},
    {"gdk", "/usr/lib/x86_64-linux-gnu/libgdk-3.so.0.2406.32"},
    {"pango", "/usr/lib/x86_64-linux-gnu/libpango-1.0.so.0.5000.12"},
    {"fc", "/usr/lib/x86_64-linux-gnu/libfontconfig.so.1.12.0"},
    {"dbus", "/usr/lib/x86_64-linux-gnu/libdbus-1.so.3.32.4"},
    {"pulse", "/usr/lib/x86_64-linux-gnu/pulseaudio/libpulsecore-16.1.so"},
    {"x11", "/usr/lib/x86_64-linux-gnu/libX11.so.6.4.0"},
    {"gthread", "/usr/lib/x86_64-linux-gnu/libgthread-2.0.so.0.7400.6"},
};

#define LIB_BASE   0x7f3a00000000ULL
#define LIB_STRIDE 0x10000000ULL
#define EXE_BASE   0x555555554000ULL
#define EXE_STRIDE 0x2000000ULL
#define FUNC_BASE  0x1000ULL
#define FUNC_SIZE  0x400ULL

int sy_world_init(struct sim *s)
{
	s->files = calloc(MAX_FILES, sizeof(*s->files));
	s->th = calloc(MAX_THREADS, sizeof(*s->th));
	if (!s->files || !s->th)
		return ARGUS_SYNTH_ENOMEM;
	for (unsigned i = 0; i < NLIBS; i++)
		snprintf(s->files[i].path, sizeof(s->files[i].path), "%s", libs[i].path);
	s->nfiles = NLIBS;
	return 0;
}

void sy_world_free(struct sim *s)
{
	free(s->files);
	free(s->th);
}

uint32_t sy_world_string(struct sim *s, const char *str)
{
	if (!s->sink->intern_string)
		return 0;
	return s->sink->intern_string(s->sink->arg, str, strlen(str));
}

struct sproc *sy_world_proc(struct sim *s, const char *comm, const char *exe, uint32_t parent,
                            bool kthread)
{
	if (s->nproc == MAX_PROCS || (exe && s->nfiles == MAX_FILES))
		return NULL;
	struct sproc *p = &s->proc[s->nproc];
	memset(p, 0, sizeof(*p));
	p->pid = s->next_pid;
	snprintf(p->comm, sizeof(p->comm), "%s", comm);
	p->parent_pid = parent;
	p->kthread = kthread;
	p->exe_base = EXE_BASE + s->nproc * EXE_STRIDE;
	p->exe_file = UINT32_MAX;
	if (exe) {
		p->exe_file = s->nfiles;
		snprintf(s->files[s->nfiles].path, sizeof(s->files[0].path), "%s", exe);
		s->nfiles++;
	}
	s->nproc++;
	return p;
}

struct sthread *sy_world_thread(struct sim *s, struct sproc *p, const char *comm, unsigned cpu)
{
	if (s->nth == MAX_THREADS)
		return NULL;
	struct sthread *t = &s->th[s->nth];
	memset(t, 0, sizeof(*t));
	t->idx = (uint16_t)s->nth++;
	t->pid = p->pid;
	t->tid = p->nthreads ? s->next_pid : p->pid;
	s->next_pid++;
	p->nthreads++;
	t->proc = (uint16_t)(p - s->proc);
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
	t->cpu = (uint16_t)(cpu % s->ncpu);
	t->kthread = p->kthread;
	t->prio = 120;
	t->hrtimer = obj_kaddr(7, t->idx);
	t->state = T_BLOCKED; /* until thread_start */
	return t;
}

static uint32_t file_func(struct sfile *f, const char *name)
{
	for (uint32_t i = 0; i < f->nfuncs; i++)
		if (!strcmp(f->funcs[i], name))
			return i;
	if (f->nfuncs == MAX_FUNCS)
		return MAX_FUNCS - 1; /* table full: fold into the last symbol */
	snprintf(f->funcs[f->nfuncs], sizeof(f->funcs[0]), "%s", name);
	return f->nfuncs++;
}

uint32_t sy_world_stack(struct sim *s, struct sproc *p, const char *spec, const char *prefix)
{
	uint64_t ips[32];
	uint32_t depth = 0;
	const char *c = spec;
	while (*c && depth < 32) {
		const char *colon = strchr(c, ':');
		const char *end = strchr(c, '|');
		if (!end)
			end = c + strlen(c);
		if (!colon || colon > end)
			break;
		char key[16], name[64];
		size_t kl = (size_t)(colon - c), nl = 0;
		if (kl >= sizeof(key))
			kl = sizeof(key) - 1;
		memcpy(key, c, kl);
		key[kl] = 0;
		for (const char *q = colon + 1; q < end && nl + 1 < sizeof(name); q++) {
			if (*q == '@') {
				for (const char *r = prefix; *r && nl + 1 < sizeof(name); r++)
					name[nl++] = *r;
			} else {
				name[nl++] = *q;
			}
		}
		name[nl] = 0;
		uint32_t fi = UINT32_MAX;
		uint64_t base = 0;
		if (!strcmp(key, "exe")) {
			fi = p->exe_file;
			base = p->exe_base;
		} else {
			for (uint32_t i = 0; i < NLIBS; i++)
				if (!strcmp(key, libs[i].key)) {
					fi = i;
					base = LIB_BASE + i * LIB_STRIDE;
					p->files_used |= 1u << i;
				}
		}
		if (fi != UINT32_MAX) {
			uint32_t k = file_func(&s->files[fi], name);
			/* innermost frame: inside the function; callers: a return address */
			uint64_t in = depth ? 0x9b + ((depth * 0x31) & 0xff) : 0x24;
			ips[depth++] = base + FUNC_BASE + k * FUNC_SIZE + in;
		}
		c = *end ? end + 1 : end;
	}
	if (!depth || s->nstacks + 1 >= MAX_STACKS)
		return 0;
	uint32_t h = ++s->nstacks;
	s->stack_id[h] =
	    s->sink->intern_stack ? s->sink->intern_stack(s->sink->arg, ips, depth) : 0;
	s->stack_depth[h] = (uint8_t)depth;
	s->stack_ip[h] = ips[0];
	s->stack_ret[h] = depth > 1 ? ips[1] : 0;
	return h;
}

static uint64_t file_end(const struct sfile *f, uint64_t base)
{
	return base + ((FUNC_BASE + f->nfuncs * FUNC_SIZE + 0xfff) & ~0xfffULL);
}

static void emit_mmap(struct sim *s, const struct sproc *p, const struct sthread *t,
                      struct sfile *f, uint64_t base)
{
	struct argus_event *e = sy_ev_thr(s, (struct sthread *)t, ARGUS_EV_MMAP);
	e->mmap.start = base;
	e->mmap.end = file_end(f, base);
	e->mmap.path_str = f->path_str;
	e->mmap.prot = PROT_READ | PROT_EXEC;
	if (s->sink->map) {
		struct argus_map m = {.ts = s->now,
		                      .pid = p->pid,
		                      .path_str = f->path_str,
		                      .start = base,
		                      .end = e->mmap.end,
		                      .prot = e->mmap.prot};
		if (s->sink->map(s->sink->arg, &m) < 0)
			s->err = ARGUS_SYNTH_ESINK;
	}
}

int sy_world_publish(struct sim *s)
{
	for (uint32_t i = 0; i < s->nfiles; i++) {
		struct sfile *f = &s->files[i];
		f->path_str = sy_world_string(s, f->path);
		for (uint32_t k = 0; k < f->nfuncs; k++) {
			f->func_str[k] = sy_world_string(s, f->funcs[k]);
			struct argus_symbol sym = {.path_str = f->path_str,
			                           .name_str = f->func_str[k],
			                           .offset = FUNC_BASE + k * FUNC_SIZE,
			                           .size = FUNC_SIZE};
			if (s->sink->symbol && s->sink->symbol(s->sink->arg, &sym) < 0)
				return ARGUS_SYNTH_ESINK;
		}
	}
	/* the parents (systemd, kthreadd) are named so every pid has a name */
	for (uint32_t pid = 1; pid <= 2; pid++) {
		struct argus_event *e =
		    sy_ev_raw(s, 0, pid, pid, pid == 2 ? ARGUS_F_KTHREAD : 0, ARGUS_EV_COMM);
		snprintf(e->comm.comm, ARGUS_COMM_LEN, "%s", pid == 1 ? "systemd" : "kthreadd");
		e->comm.is_process = 1;
	}
	uint32_t ti = 0;
	for (uint32_t pi = 0; pi < s->nproc; pi++) {
		struct sproc *p = &s->proc[pi];
		struct sthread *main = &s->th[ti];
		struct argus_event *e =
		    sy_ev_raw(s, 0, p->parent_pid, p->parent_pid, p->kthread ? ARGUS_F_KTHREAD : 0,
		              ARGUS_EV_PROC_FORK);
		e->fork.child_pid = p->pid;
		e->fork.child_tid = p->pid;
		e->fork.clone_flags = 0x1200011; /* SIGCHLD | CLONE_CHILD_SETTID | ... */
		/* a child starts with its parent's name; exec / comm rename it */
		snprintf(e->fork.comm, ARGUS_COMM_LEN, "%s", p->kthread ? "kthreadd" : "systemd");
		if (!p->kthread) {
			e = sy_ev_thr(s, main, ARGUS_EV_PROC_EXEC);
			e->exec.exe_str = s->files[p->exe_file].path_str;
			e->exec.old_tid = p->pid;
			memcpy(e->exec.comm, p->comm, ARGUS_COMM_LEN);
		}
		e = sy_ev_thr(s, main, ARGUS_EV_COMM);
		memcpy(e->comm.comm, p->comm, ARGUS_COMM_LEN);
		e->comm.is_process = 1;
		if (!p->kthread) {
			emit_mmap(s, p, main, &s->files[p->exe_file], p->exe_base);
			for (uint32_t l = 0; l < NLIBS; l++)
				if (p->files_used & (1u << l))
					emit_mmap(s, p, main, &s->files[l],
					          LIB_BASE + l * LIB_STRIDE);
		}
		for (uint32_t k = 1; k < p->nthreads; k++) {
			struct sthread *t = &s->th[ti + k];
			e = sy_ev_thr(s, main, ARGUS_EV_THREAD_NEW);
			e->fork.child_pid = p->pid;
			e->fork.child_tid = t->tid;
			e->fork.clone_flags = 0x3d0f00; /* CLONE_VM | CLONE_THREAD | ... */
			memcpy(e->fork.comm, p->comm, ARGUS_COMM_LEN);
			e = sy_ev_thr(s, t, ARGUS_EV_COMM);
			memcpy(e->comm.comm, t->comm, ARGUS_COMM_LEN);
		}
		ti += p->nthreads;
	}
	return s->err;
}
