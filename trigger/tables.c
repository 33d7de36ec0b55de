/*
 * tables.c - the trigger's tables: processes and their names, thread names,
 * UI threads, display connections; option defaults and the names of
 * classes, causes and display servers.
 */
#include <stdlib.h>
#include <string.h>

#include "trigger_priv.h"

void argus_trigger_opts_default(struct argus_trigger_opts *o)
{
	o->stall_ns = 2000000000ULL;
	o->launch_ns = 2000000000ULL;
	o->lag_ns = 100000000ULL;
	o->yield_min = 20;
}

const char *argus_stall_class_name(unsigned cls)
{
	switch (cls) {
	case ARGUS_STALL_LONG_RUNNING:
		return "long_running";
	case ARGUS_STALL_LONG_WAIT:
		return "long_wait";
	case ARGUS_STALL_YIELD_LOOP:
		return "yield_loop";
	}
	return "unknown";
}

const char *argus_stall_cause_name(unsigned cause)
{
	switch (cause) {
	case ARGUS_CAUSE_INPUT:
		return "input";
	case ARGUS_CAUSE_DISPATCH:
		return "dispatch";
	case ARGUS_CAUSE_LAUNCH:
		return "launch";
	}
	return "unknown";
}

/* X servers: every unix socket they write to a client is a display
 * connection. Wayland compositors also speak D-Bus, so for them only sockets
 * the kernel side marked as display count. */
static const char *const x_servers[] = {"Xorg",   "X",     "Xvfb", "Xwayland",
                                        "Xephyr", "Xnest", "Xvnc", NULL};
static const char *const compositors[] = {"weston",      "sway",     "kwin_wayland", "mutter",
                                          "gnome-shell", "Hyprland", "labwc",        "wayfire",
                                          "cage",        NULL};

static bool in_list(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (!strcmp(*list, s))
			return true;
	return false;
}

bool trg_x_server(const char *comm)
{
	return in_list(x_servers, comm);
}

bool argus_display_server_comm(const char *comm)
{
	return in_list(x_servers, comm) || in_list(compositors, comm);
}

void *trg_grow(void *p, uint32_t *cap, size_t elem)
{
	uint32_t ncap = *cap ? *cap * 2 : 16;
	void *q = realloc(p, (size_t)ncap * elem);
	if (q)
		*cap = ncap;
	return q;
}

struct proc *trg_proc_get(struct argus_trigger *t, uint32_t pid, bool create)
{
	uint32_t *ix = idmap_get(&t->pid_ix, pid);
	if (ix)
		return &t->procs[*ix];
	if (!create || !pid)
		return NULL;
	if (t->nprocs == t->cprocs) {
		struct proc *p = trg_grow(t->procs, &t->cprocs, sizeof(*p));
		if (!p)
			return t->oom = true, NULL;
		t->procs = p;
	}
	if (!idmap_put(&t->pid_ix, pid, t->nprocs))
		return t->oom = true, NULL;
	struct proc *p = &t->procs[t->nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	return p;
}

void trg_proc_name(struct proc *p, const char *comm)
{
	if (!p)
		return;
	memcpy(p->comm, comm, ARGUS_COMM_LEN);
	p->comm[ARGUS_COMM_LEN - 1] = 0;
	p->server = argus_display_server_comm(p->comm);
}

void trg_thread_name(struct argus_trigger *t, uint32_t pid, uint32_t tid, const char *comm)
{
	if (!tid || tid == pid)
		return; /* the main thread: its name is the process's */
	uint32_t *ix = idmap_get(&t->tname_ix, tid);
	if (!ix) {
		if (t->ntnames == t->ctnames) {
			struct tname *n = trg_grow(t->tnames, &t->ctnames, sizeof(*n));
			if (!n) {
				t->oom = true;
				return;
			}
			t->tnames = n;
		}
		if (!idmap_put(&t->tname_ix, tid, t->ntnames)) {
			t->oom = true;
			return;
		}
		ix = idmap_get(&t->tname_ix, tid);
		t->tnames[t->ntnames++].tid = tid;
	}
	memcpy(t->tnames[*ix].comm, comm, ARGUS_COMM_LEN);
	t->tnames[*ix].comm[ARGUS_COMM_LEN - 1] = 0;
	t->tnames[*ix].exited = 0;
}

struct uthr *trg_uthr_get(struct argus_trigger *t, uint32_t tid)
{
	uint32_t *ix = idmap_get(&t->tid_ix, tid);
	return ix ? &t->uts[*ix] : NULL;
}

struct uthr *trg_uthr_make(struct argus_trigger *t, uint32_t pid, uint32_t tid)
{
	struct uthr *u = trg_uthr_get(t, tid);
	if (u || !tid)
		return u;
	if (t->nuts == t->cuts) {
		struct uthr *n = trg_grow(t->uts, &t->cuts, sizeof(*n));
		if (!n)
			return t->oom = true, NULL;
		t->uts = n;
	}
	if (!idmap_put(&t->tid_ix, tid, t->nuts))
		return t->oom = true, NULL;
	u = &t->uts[t->nuts++];
	memset(u, 0, sizeof(*u));
	u->pid = pid;
	u->tid = tid;
	u->last_nr = u->wait_nr = NO_NR;
	u->on_cpu = true; /* it just produced an event */
	u->on_since = t->now;
	struct proc *p = trg_proc_get(t, pid, true);
	if (p && !p->gui) {
		p->gui = true;
		t->st.gui_processes++;
	}
	t->st.ui_threads = t->nuts;
	return u;
}

/* A new task (a fork, a new thread) at pid/tid: pids and tids come round
 * again (pid_max is 32 768 on a 2-CPU machine), and what the trigger kept
 * under them was another task's, whose exit may not have been seen. A UI
 * thread kept under tid is retired (out of the index, its slot left unused:
 * conns name readers by slot); a new process's entry starts empty (no
 * window mapped, no exec seen), named by the caller. */
void trg_task_new(struct argus_trigger *t, uint32_t pid, uint32_t tid, bool process)
{
	struct uthr *u = trg_uthr_get(t, tid);
	if (u) {
		if (!u->dead)
			trg_on_exit_of(t, u);
		idmap_del(&t->tid_ix, tid);
		u->pid = u->tid = 0;
		u->conn = 0;
	}
	struct proc *p = process ? trg_proc_get(t, pid, false) : NULL;
	if (p) {
		memset(p, 0, sizeof(*p));
		p->pid = pid;
	}
	idmap_del(&t->tname_ix, tid); /* an exited thread's name (its slot: trg_sweep) */
}

/* Thread tid of process pid exited at ts (pid set: the process, its last
 * thread): its names are kept KEEP_EXITED_NS more. */
void trg_exited(struct argus_trigger *t, uint32_t pid, uint32_t tid, uint64_t ts)
{
	uint32_t *ix = pid ? idmap_get(&t->pid_ix, pid) : NULL;
	if (ix)
		t->procs[*ix].exited = ts;
	ix = tid ? idmap_get(&t->tname_ix, tid) : NULL;
	if (ix)
		t->tnames[*ix].exited = ts;
}

/* Slot i of a table: kept, moved down to slot j (its key's index follows),
 * unless its key no longer names it (a slot left behind: a forgotten
 * connection, a name a new task took over) or drop holds (its key then
 * leaves the map too). */
#define SWEEP_SLOT(arr, map, key, i, j, drop)                                                      \
	do {                                                                                       \
		uint32_t *ix_ = idmap_get(map, (arr)[i].key);                                      \
		if (!ix_ || *ix_ != (i))                                                           \
			break;                                                                     \
		if (drop) {                                                                        \
			idmap_del(map, (arr)[i].key);                                              \
			break;                                                                     \
		}                                                                                  \
		(arr)[j] = (arr)[i];                                                               \
		*ix_ = (j)++;                                                                      \
	} while (0)

/* The UI threads that exited with a process that has left the table (and
 * slots left behind) leave theirs; a connection names its reader by slot,
 * so each reader's slot moves with it (0: gone). Skipped when the slots'
 * new places cannot be held (no memory): the next sweep tries again. */
static void sweep_ui_threads(struct argus_trigger *t)
{
	uint32_t *moved = t->nuts ? malloc(t->nuts * sizeof(*moved)) : NULL, j = 0;
	if (!moved)
		return;
	for (uint32_t i = 0; i < t->nuts; i++) {
		uint32_t from = j;
		SWEEP_SLOT(t->uts, &t->tid_ix, tid, i, j,
		           t->uts[i].dead && !idmap_get(&t->pid_ix, t->uts[i].pid));
		moved[i] = j > from ? j : 0; /* new index + 1 */
	}
	t->nuts = j;
	for (uint32_t i = 0; i < t->nconns; i++)
		if (t->conns[i].reader)
			t->conns[i].reader = moved[t->conns[i].reader - 1];
	free(moved);
}

/* The processes and threads that exited over KEEP_EXITED_NS ago, and the
 * slots left behind, leave their tables, the rest moving down: an always-on
 * daemon sees about a million processes a day on a machine that builds, and
 * each one kept an entry for the daemon's life. The UI threads and the
 * readers learnt (wakers) of the processes gone go with them: every app a
 * user opens adds a few. */
void trg_sweep(struct argus_trigger *t)
{
	uint32_t j = 0;
	t->next_sweep = t->now + SWEEP_EVERY_NS;
	for (uint32_t i = 0; i < t->nprocs; i++)
		SWEEP_SLOT(t->procs, &t->pid_ix, pid, i, j,
		           t->procs[i].exited && t->now - t->procs[i].exited > KEEP_EXITED_NS);
	t->nprocs = j;
	j = 0;
	for (uint32_t i = 0; i < t->ntnames; i++)
		SWEEP_SLOT(t->tnames, &t->tname_ix, tid, i, j,
		           t->tnames[i].exited && t->now - t->tnames[i].exited > KEEP_EXITED_NS);
	t->ntnames = j;
	sweep_ui_threads(t);
	j = 0;
	for (uint32_t i = 0; i < t->nwakers; i++)
		SWEEP_SLOT(t->wakers, &t->waker_ix, obj, i, j,
		           !idmap_get(&t->pid_ix, t->wakers[i].pid));
	t->nwakers = j;
	j = 0;
	for (uint32_t i = 0; i < t->nconns; i++)
		SWEEP_SLOT(t->conns, &t->conn_ix, obj, i, j, false);
	t->nconns = j;
}

struct conn *trg_conn_get(struct argus_trigger *t, uint64_t obj, bool create)
{
	uint32_t *ix = idmap_get(&t->conn_ix, obj);
	if (ix)
		return &t->conns[*ix];
	if (!create || !obj)
		return NULL;
	if (t->nconns == t->cconns) {
		struct conn *n = trg_grow(t->conns, &t->cconns, sizeof(*n));
		if (!n)
			return t->oom = true, NULL;
		t->conns = n;
	}
	if (!idmap_put(&t->conn_ix, obj, t->nconns))
		return t->oom = true, NULL;
	struct conn *c = &t->conns[t->nconns++];
	memset(c, 0, sizeof(*c));
	c->obj = obj;
	return c;
}

/* Forget the connection at obj: closed (the server read its end), or a
 * new socket at its address (a connect there; the kernel reuses a freed
 * socket's memory). Its reader no longer reads it; what it had pending is
 * gone with it. */
void trg_conn_forget(struct argus_trigger *t, uint64_t obj)
{
	struct conn *c = trg_conn_get(t, obj, false);
	if (!c)
		return;
	if (c->reader) {
		struct uthr *o = &t->uts[c->reader - 1];
		o->pending_since = 0;
		if (o->conn == c->obj)
			o->conn = 0;
	}
	idmap_del(&t->conn_ix, c->obj);
	*c = (struct conn){0}; /* its slot stays unused */
}

size_t argus_trigger_ui_threads(const struct argus_trigger *t, struct argus_ui_thread *out,
                                size_t cap)
{
	size_t n = 0;
	for (uint32_t i = 0; i < t->nuts; i++) {
		if (t->uts[i].dead)
			continue; /* exited, or retired (trg_task_new) */
		if (n < cap) {
			out[n].pid = t->uts[i].pid;
			out[n].tid = t->uts[i].tid;
			out[n].conn = t->uts[i].conn;
			out[n].hooks = t->uts[i].hooks;
		}
		n++;
	}
	return n;
}

const char *argus_trigger_comm(const struct argus_trigger *t, uint32_t pid)
{
	uint32_t *ix = idmap_get(&t->pid_ix, pid);
	return ix ? t->procs[*ix].comm : "";
}

const char *argus_trigger_thread_comm(const struct argus_trigger *t, uint32_t tid)
{
	uint32_t *ix = idmap_get(&t->tname_ix, tid);
	if (ix)
		return t->tnames[*ix].comm;
	return argus_trigger_comm(t, tid); /* a main thread (tid = pid), or "" */
}
