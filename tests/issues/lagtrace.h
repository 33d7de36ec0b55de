/*
 * lagtrace.h - trace files of one GUI app's user episodes for the issue
 * store's tests: an X server writes input, the app's UI thread wakes,
 * reads it, runs a handler for a given time with CPU samples every 10 ms
 * (the handler's calling context), and goes back to poll. A run's seed
 * moves what must not matter to an issue: pids, where the executable and
 * the toolkit library are mapped (ASLR), the address inside a function
 * each sample hits, the trace's start.
 */
#ifndef ARGUS_TEST_LAGTRACE_H
#define ARGUS_TEST_LAGTRACE_H

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "event.h"
#include "test.h"

#define LT_MS  1000000ull
#define LT_SEC 1000000000ull
#define LT_MAX_FRAMES 8

/* Functions of the app's executable and of a system toolkit library. */
static const char *const lt_exe_funcs[] = {
    "main",       "on_key",      "on_save",     "slow_checksum", "cmd_open",
    "cmd_import", "parse_file",  "tokenize",    "cmd_draw",      "render_tiles",
    "blend_row",  "on_click",    "layout_text", "measure_glyph", "idle_tick",
};
static const char *const lt_lib_funcs[] = {"toolkit_run", "toolkit_dispatch", "memcpy_impl"};
#define LT_EXE "/opt/demo/bin/demo-app"
#define LT_LIB "/usr/lib/x86_64-linux-gnu/libdemo-toolkit.so.3"

struct lt_episode {
	uint64_t at, handler_ns;
	bool waits; /* the handler blocks (a wait stack, no samples) instead of computing */
	/* with waits: one on-CPU sample in this function (called by the
	 * handler's innermost frame) just before it blocks - a stray */
	const char *stray;
	/* without waits: the handler's sample number lost_at (1 = the
	 * first) is in this library function, and the frame-pointer walk
	 * lost the handler's innermost frame, which called it without a
	 * frame (a library without frame pointers) */
	const char *lost_in;
	unsigned lost_at;
	/* hooks: the handler runs in a hooked dispatch whose callback is
	 * frames[0]; nested: its last nested_ns run a nested dispatch of that
	 * callback */
	bool hooked;
	uint64_t nested_ns;
	const char *nested;
	/* with hooked: the dispatch runs no callback (GDK's event source) and
	 * the handler is this GTK event signal's, a landmark record; nested
	 * is then a signal landmark nested in it */
	const char *signal;
	/* the handler's frames below the toolkit's dispatch, outermost first
	 * (main > toolkit_run > toolkit_dispatch are added) */
	const char *frames[LT_MAX_FRAMES];
	/* a handler that works in phases: from phase2_ns into it, its
	 * samples are in these frames instead */
	uint64_t phase2_ns;
	const char *phase2[LT_MAX_FRAMES];
	/* the samples are whole call chains (full stacks, unwound with the
	 * binaries' CFI: stack.unwind ARGUS_UNWIND_DWARF) */
	bool chains;
	/* more input (a key) comes input2_ns into the handler and waits unread
	 * until it ends: a handler past the threshold is a stall */
	uint64_t input2_ns;
};

struct lt_run {
	uint64_t seed;
	const char *app; /* process name */
	const struct lt_episode *ep;
	size_t nep;
	uint64_t quiet_after; /* trace time after the last episode */
	uint8_t build;        /* the executable's build id: 20 bytes of this (0 = none) */
};

static inline int lt_index(const char *const *names, size_t n, const char *f)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], f))
			return (int)i;
	return -1;
}

struct lt_writer {
	struct argus_trace_writer *w;
	uint32_t xpid, pid;
	uint64_t exe_base, lib_base;
	uint64_t jitter;
};

static inline void lt_put(struct lt_writer *lw, struct argus_event e)
{
	ASSERT_EQ(argus_trace_write(lw->w, &e, 1), 0);
}

static inline struct argus_event lt_ev(uint64_t ts, uint16_t type, uint32_t pid, uint32_t tid)
{
	struct argus_event e;
	memset(&e, 0, sizeof(e));
	e.ts = ts;
	e.type = type;
	e.pid = pid;
	e.tid = tid;
	return e;
}

/* an address inside function f (exe first, then the library) */
static inline uint64_t lt_ip(struct lt_writer *lw, const char *f)
{
	int i = lt_index(lt_exe_funcs, sizeof(lt_exe_funcs) / sizeof(lt_exe_funcs[0]), f);
	lw->jitter = lw->jitter * 6364136223846793005ull + 1442695040888963407ull;
	uint64_t in = 0x10 + ((lw->jitter >> 33) % 0xe0);
	if (i >= 0)
		return lw->exe_base + 0x1000 + (uint64_t)i * 0x100 + in;
	i = lt_index(lt_lib_funcs, sizeof(lt_lib_funcs) / sizeof(lt_lib_funcs[0]), f);
	ASSERT(i >= 0);
	return lw->lib_base + 0x2000 + (uint64_t)i * 0x100 + in;
}

/* the entry of function f (a callback's address) */
static inline uint64_t lt_entry(struct lt_writer *lw, const char *f)
{
	int i = lt_index(lt_exe_funcs, sizeof(lt_exe_funcs) / sizeof(lt_exe_funcs[0]), f);
	if (i >= 0)
		return lw->exe_base + 0x1000 + (uint64_t)i * 0x100;
	i = lt_index(lt_lib_funcs, sizeof(lt_lib_funcs) / sizeof(lt_lib_funcs[0]), f);
	ASSERT(i >= 0);
	return lw->lib_base + 0x2000 + (uint64_t)i * 0x100;
}

/* a hooked record of the app's UI thread */
static inline void lt_hook(struct lt_writer *lw, uint64_t ts, uint16_t type, uint64_t fn)
{
	struct argus_event e = lt_ev(ts, type, lw->pid, lw->pid);
	e.flags = ARGUS_F_HOOK;
	if (type == ARGUS_EV_ASYNC_RUN_BEGIN || type == ARGUS_EV_ASYNC_RUN_END) {
		e.async.obj = 0xabc0;
		e.async.callback = fn;
	} else {
		e.loop.source = 0xabc0;
		e.loop.callback = fn;
	}
	lt_put(lw, e);
}

/* a landmark record of the hooks (at its end) */
static inline void lt_landmark(struct lt_writer *lw, uint64_t begin, uint64_t end, unsigned kind,
                               uint64_t fn, unsigned depth, uint64_t nested)
{
	struct argus_event e = lt_ev(end, ARGUS_EV_LANDMARK, lw->pid, lw->pid);
	e.flags = ARGUS_F_HOOK;
	e.landmark.fn = fn;
	e.landmark.obj = 0xdef0;
	e.landmark.begin_ns = begin;
	e.landmark.nested_ns = nested;
	e.landmark.kind = kind;
	e.landmark.depth = depth;
	lt_put(lw, e);
}

static inline void lt_tables(struct lt_writer *lw, uint8_t build)
{
	uint32_t exe = argus_trace_intern_string(lw->w, LT_EXE, strlen(LT_EXE));
	if (build) {
		struct argus_build_id b = {.path_str = exe, .len = 20};
		memset(b.id, build, 20);
		ASSERT_EQ(argus_trace_add_build_id(lw->w, &b), 0);
	}
	uint32_t lib = argus_trace_intern_string(lw->w, LT_LIB, strlen(LT_LIB));
	struct argus_map m = {.pid = lw->pid,
	                      .path_str = exe,
	                      .start = lw->exe_base,
	                      .end = lw->exe_base + 0x100000,
	                      .prot = PROT_READ | PROT_EXEC};
	ASSERT_EQ(argus_trace_add_map(lw->w, &m), 0);
	m.path_str = lib;
	m.start = lw->lib_base;
	m.end = lw->lib_base + 0x100000;
	ASSERT_EQ(argus_trace_add_map(lw->w, &m), 0);
	for (size_t i = 0; i < sizeof(lt_exe_funcs) / sizeof(lt_exe_funcs[0]); i++) {
		struct argus_symbol s = {
		    .path_str = exe,
		    .name_str = argus_trace_intern_string(lw->w, lt_exe_funcs[i], strlen(lt_exe_funcs[i])),
		    .offset = 0x1000 + i * 0x100,
		    .size = 0x100};
		ASSERT_EQ(argus_trace_add_symbol(lw->w, &s), 0);
	}
	for (size_t i = 0; i < sizeof(lt_lib_funcs) / sizeof(lt_lib_funcs[0]); i++) {
		struct argus_symbol s = {
		    .path_str = lib,
		    .name_str = argus_trace_intern_string(lw->w, lt_lib_funcs[i], strlen(lt_lib_funcs[i])),
		    .offset = 0x2000 + i * 0x100,
		    .size = 0x100};
		ASSERT_EQ(argus_trace_add_symbol(lw->w, &s), 0);
	}
}

/* time passes: another process's records every 10 ms in [from, to) */
static inline void lt_tick(struct lt_writer *lw, uint64_t from, uint64_t to)
{
	for (uint64_t ts = from; ts < to; ts += 10 * LT_MS)
		lt_put(lw, lt_ev(ts, ARGUS_EV_SYS_EXIT, 99, 99));
}

static inline void lt_episode(struct lt_writer *lw, const struct lt_episode *ep, uint64_t t0)
{
	const uint64_t SRV = 0xfeed0001, CLI = 0xfeed0002;
	uint64_t ts = t0 + ep->at;
	struct argus_event e = lt_ev(ts, ARGUS_EV_IPC_SEND, lw->xpid, lw->xpid);
	e.ipc.obj = SRV;
	e.ipc.peer_obj = CLI;
	e.ipc.obj_kind = ARGUS_OBJ_UNIX;
	e.ipc.ret = 32;
	e.ipc.nr = 1;
	lt_put(lw, e);
	e = lt_ev(ts + 10000, ARGUS_EV_SCHED_SWITCH, 0, 0);
	e.sched_switch.next_pid = lw->pid;
	e.sched_switch.next_tid = lw->pid;
	lt_put(lw, e);
	if (ep->hooked) {
		lt_hook(lw, ts + 20000, ARGUS_EV_DISPATCH_BEGIN, lt_entry(lw, "toolkit_dispatch"));
		if (!ep->signal)
			lt_hook(lw, ts + 21000, ARGUS_EV_ASYNC_RUN_BEGIN, lt_entry(lw, ep->frames[0]));
	}
	e = lt_ev(ts + 30000, ARGUS_EV_IPC_RECV, lw->pid, lw->pid);
	e.ipc.obj = CLI;
	e.ipc.peer_obj = SRV;
	e.ipc.obj_kind = ARGUS_OBJ_UNIX;
	e.ipc.ret = 32;
	lt_put(lw, e);
	/* the handler: samples every 10 ms, interleaved with time passing; or
	 * one wait in a read that blocks (its stack recorded) */
	bool nested_on = false, sent2 = false;
	for (uint64_t t = 5 * LT_MS; t < ep->handler_ns; t += 10 * LT_MS) {
		if (ep->input2_ns && !sent2 && t >= ep->input2_ns) {
			e = lt_ev(ts + ep->input2_ns, ARGUS_EV_IPC_SEND, lw->xpid, lw->xpid);
			e.ipc.obj = SRV;
			e.ipc.peer_obj = CLI;
			e.ipc.obj_kind = ARGUS_OBJ_UNIX;
			e.ipc.ret = 32;
			e.ipc.nr = 1;
			lt_put(lw, e);
			sent2 = true;
		}
		if (ep->nested && !nested_on && t >= ep->handler_ns - ep->nested_ns) {
			uint64_t nb = ts + ep->handler_ns - ep->nested_ns - 2 * LT_MS;
			if (!ep->signal) {
				lt_hook(lw, nb, ARGUS_EV_DISPATCH_BEGIN, lt_entry(lw, "toolkit_dispatch"));
				lt_hook(lw, nb + 1000, ARGUS_EV_ASYNC_RUN_BEGIN, lt_entry(lw, ep->nested));
			}
			nested_on = true;
		}
		uint64_t ips[LT_MAX_FRAMES + 4];
		uint32_t n = 0;
		size_t nf = 0;
		const char *const *frames =
		    ep->phase2[0] && t >= ep->phase2_ns ? ep->phase2 : ep->frames;
		while (nf < LT_MAX_FRAMES && frames[nf])
			nf++;
		bool in_nested = ep->nested && t >= ep->handler_ns - ep->nested_ns;
		if (ep->waits)
			ips[n++] = lw->lib_base + 0x90000; /* libc's read: unnamed */
		if (in_nested)
			ips[n++] = lt_ip(lw, ep->nested);
		for (size_t k = nf; k-- > 0;)
			ips[n++] = lt_ip(lw, frames[k]);
		ips[n++] = lt_ip(lw, "toolkit_dispatch");
		ips[n++] = lt_ip(lw, "toolkit_run");
		ips[n++] = lt_ip(lw, "main");
		if (ep->waits && ep->stray && t == 5 * LT_MS) {
			uint64_t sips[LT_MAX_FRAMES + 4];
			sips[0] = lt_ip(lw, ep->stray);
			memcpy(sips + 1, ips + 1, (n - 1) * sizeof(ips[0]));
			e = lt_ev(ts + t - 2 * LT_MS, ARGUS_EV_CPU_SAMPLE, lw->pid, lw->pid);
			e.stack.ustack = argus_trace_intern_stack(lw->w, sips, n);
			e.stack.kind = ARGUS_STACK_SAMPLE;
			lt_put(lw, e);
		}
		if (ep->waits && t == 5 * LT_MS) {
			e = lt_ev(ts + t, ARGUS_EV_SYS_ENTER, lw->pid, lw->pid);
			e.sys_enter.nr = 0; /* read */
			e.sys_enter.fd = 9;
			lt_put(lw, e);
			e = lt_ev(ts + t + 500, ARGUS_EV_STACK, lw->pid, lw->pid);
			e.stack.ustack = argus_trace_intern_stack(lw->w, ips, n);
			e.stack.kind = ARGUS_STACK_WAIT;
			lt_put(lw, e);
			e = lt_ev(ts + t + 1000, ARGUS_EV_SCHED_SWITCH, lw->pid, lw->pid);
			e.sched_switch.prev_state = 1;
			lt_put(lw, e);
		} else if (!ep->waits) {
			e = lt_ev(ts + t, ARGUS_EV_CPU_SAMPLE, lw->pid, lw->pid);
			if (ep->lost_in && t == (5 + 10 * (uint64_t)(ep->lost_at - 1)) * LT_MS)
				ips[0] = lt_ip(lw, ep->lost_in); /* the innermost frame replaced */
			e.stack.ustack = argus_trace_intern_stack(lw->w, ips, n);
			e.stack.kind = ARGUS_STACK_SAMPLE;
			e.stack.unwind = ep->chains ? ARGUS_UNWIND_DWARF : ARGUS_UNWIND_FP;
			lt_put(lw, e);
		}
		lt_put(lw, lt_ev(ts + t + 2000, ARGUS_EV_SYS_EXIT, 99, 99));
	}
	if (ep->waits) { /* the read returns */
		e = lt_ev(ts + ep->handler_ns - 2 * LT_MS, ARGUS_EV_SCHED_SWITCH, 0, 0);
		e.sched_switch.next_pid = lw->pid;
		e.sched_switch.next_tid = lw->pid;
		lt_put(lw, e);
		e = lt_ev(ts + ep->handler_ns - LT_MS, ARGUS_EV_SYS_EXIT, lw->pid, lw->pid);
		e.sys_exit.nr = 0;
		e.sys_exit.ret = 100;
		e.sys_exit.fd = 9;
		lt_put(lw, e);
	}
	uint64_t end = ts + ep->handler_ns;
	if (ep->signal) { /* the hooks' landmark records, each at its end */
		uint64_t nb = ts + ep->handler_ns - ep->nested_ns - 2 * LT_MS;
		if (nested_on)
			lt_landmark(lw, nb, end - 2000, ARGUS_LM_SIGNAL, lt_entry(lw, ep->nested), 1, 0);
		lt_landmark(lw, ts + 25000, end - 1500, ARGUS_LM_GTK_EVENT, lt_entry(lw, ep->signal), 0,
		            nested_on ? end - 2000 - nb : 0);
		nested_on = false;
	}
	if (nested_on) {
		lt_hook(lw, end - 3000, ARGUS_EV_ASYNC_RUN_END, lt_entry(lw, ep->nested));
		lt_hook(lw, end - 2000, ARGUS_EV_DISPATCH_END, lt_entry(lw, "toolkit_dispatch"));
	}
	if (ep->hooked) {
		if (!ep->signal)
			lt_hook(lw, end - 1000, ARGUS_EV_ASYNC_RUN_END, lt_entry(lw, ep->frames[0]));
		lt_hook(lw, end - 500, ARGUS_EV_DISPATCH_END, lt_entry(lw, "toolkit_dispatch"));
	}
	if (sent2) { /* the key that waited is read */
		e = lt_ev(end - 100, ARGUS_EV_IPC_RECV, lw->pid, lw->pid);
		e.ipc.obj = CLI;
		e.ipc.peer_obj = SRV;
		e.ipc.obj_kind = ARGUS_OBJ_UNIX;
		e.ipc.ret = 32;
		lt_put(lw, e);
	}
	e = lt_ev(end, ARGUS_EV_SYS_ENTER, lw->pid, lw->pid);
	e.sys_enter.nr = 7; /* poll, waiting */
	e.sys_enter.arg0 = -1;
	e.sys_enter.fd = -1;
	lt_put(lw, e);
	e = lt_ev(end + 1000, ARGUS_EV_SCHED_SWITCH, lw->pid, lw->pid);
	e.sched_switch.prev_state = 1;
	lt_put(lw, e);
}

/* Write run to path. */
static inline void lt_write(const char *path, const struct lt_run *run)
{
	struct lt_writer lw = {.xpid = 400 + (uint32_t)run->seed * 3,
	                       .pid = 2000 + (uint32_t)run->seed * 17,
	                       .exe_base = 0x555500000000ull + run->seed * 0x3a5000ull,
	                       .lib_base = 0x7f1200000000ull + run->seed * 0x1c7000ull,
	                       .jitter = run->seed + 1};
	struct argus_trace_meta meta;
	argus_trace_meta_init(&meta, "test lagtrace");
	memset(meta.boot_id, 0x5a, sizeof(meta.boot_id)); /* not this boot: tables only */
	meta.boot_id[0] = (uint8_t)run->seed;
	uint64_t t0 = 1000 * LT_SEC + run->seed * 77 * LT_SEC;
	meta.start_mono_ns = t0;
	meta.start_real_ns = 1760000000ull * LT_SEC + run->seed * 3600 * LT_SEC;
	struct argus_trace_error err;
	ASSERT_EQ(argus_trace_writer_open(&lw.w, path, &meta, NULL, &err), 0);
	lt_tables(&lw, run->build);
	struct argus_event e = lt_ev(t0, ARGUS_EV_COMM, lw.xpid, lw.xpid);
	strcpy(e.comm.comm, "Xorg");
	e.comm.is_process = 1;
	lt_put(&lw, e);
	e = lt_ev(t0, ARGUS_EV_COMM, lw.pid, lw.pid);
	snprintf(e.comm.comm, sizeof(e.comm.comm), "%s", run->app ? run->app : "demo-app");
	e.comm.is_process = 1;
	lt_put(&lw, e);
	uint64_t t = t0 + LT_MS;
	for (size_t i = 0; i < run->nep; i++) {
		lt_tick(&lw, t, t0 + run->ep[i].at);
		lt_episode(&lw, &run->ep[i], t0);
		t = t0 + run->ep[i].at + run->ep[i].handler_ns + 10 * LT_MS;
	}
	lt_tick(&lw, t, t + (run->quiet_after ? run->quiet_after : LT_SEC));
	ASSERT_EQ(argus_trace_writer_close(lw.w, &err), 0);
}

#endif /* ARGUS_TEST_LAGTRACE_H */
