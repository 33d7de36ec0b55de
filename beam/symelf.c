/*
 * symelf.c - symbols of live processes: ELF symbol tables and DWARF
 * file:line through elfutils' libdwfl (which finds separate debug info by
 * build id), one Dwfl session per process, cached.
 */
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "beam.h"
#include "hashmap.h"

#define ELFSYM_CACHE 32 /* processes kept open */
/* an address in no module reported: the process's maps are read again
 * (a library it loaded since, an exec), at most this often */
#define ELFSYM_REREPORT_NS 50000000ull

struct proc_dwfl {
	uint32_t pid;
	Dwfl *dwfl; /* NULL = could not be reported (gone, no access) */
	uint64_t used;
	uint64_t reported; /* CLOCK_MONOTONIC ns of its latest report */
	uint64_t gen;      /* of its latest report: what the memo holds of it */
};

/* Frames resolved already (pid, ip): a libdwfl lookup costs tens of
 * microseconds (its symbol search is linear), and whole call chains ask for
 * the same return addresses over and over (every sample of a busy stall,
 * several passes, every lag of an app). Dropped whole when full; a
 * process's entries lapse whenever its modules are read (again): a new
 * session (a reused pid) or a module mapped since (a dlopen, an exec) - by
 * the report's generation, so that one process's report (an address in no
 * module asks for its maps again, at most every ELFSYM_REREPORT_NS: a
 * broken frame-pointer chain does at every lag) leaves the others' frames
 * named. An address in no module is not kept: it asks for the maps again. */
#define ELFSYM_MEMO 8192
struct memo {
	uint32_t pid;
	bool ok;
	uint64_t ip;
	uint64_t gen; /* the process's report it was named under */
	struct argus_frame f;
};

struct argus_elfsym {
	struct proc_dwfl cache[ELFSYM_CACHE];
	struct argus_hmap memo;
	uint64_t clock;
	uint64_t gen; /* reports so far */
	struct argus_symbolizer stacks; /* where stack ids resolve */
	char *debuginfo_path;
	Dwfl_Callbacks cb;
};

int argus_elfsym_new(struct argus_elfsym **sp, const struct argus_symbolizer *stacks)
{
	struct argus_elfsym *s = calloc(1, sizeof(*s));
	if (!s)
		return -1;
	if (stacks)
		s->stacks = *stacks;
	s->cb.find_elf = dwfl_linux_proc_find_elf;
	s->cb.find_debuginfo = dwfl_standard_find_debuginfo; /* build-id aware */
	s->cb.debuginfo_path = &s->debuginfo_path;
	argus_hmap_init(&s->memo, sizeof(struct memo), 256);
	*sp = s;
	return 0;
}

void argus_elfsym_free(struct argus_elfsym *s)
{
	if (!s)
		return;
	for (int i = 0; i < ELFSYM_CACHE; i++)
		if (s->cache[i].dwfl)
			dwfl_end(s->cache[i].dwfl);
	argus_hmap_free(&s->memo);
	free(s);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* (Re)read the process's modules from /proc/PID/maps: modules reported
 * again keep what was loaded of them, the others are dropped. A process
 * gone since keeps the modules it had: its frames are still named. */
static void report(struct argus_elfsym *s, struct proc_dwfl *slot)
{
	char maps[64];
	slot->reported = mono_ns();
	slot->gen = ++s->gen; /* what it named may be another layout's */
	snprintf(maps, sizeof(maps), "/proc/%u/maps", slot->pid);
	if (slot->dwfl && access(maps, R_OK) != 0)
		return;
	if (!slot->dwfl)
		slot->dwfl = dwfl_begin(&s->cb);
	else
		dwfl_report_begin(slot->dwfl);
	if (slot->dwfl && (dwfl_linux_proc_report(slot->dwfl, (pid_t)slot->pid) != 0 ||
	                   dwfl_report_end(slot->dwfl, NULL, NULL) != 0)) {
		dwfl_end(slot->dwfl);
		slot->dwfl = NULL;
	}
}

/* The process's session, reporting its modules on first use. */
static struct proc_dwfl *session(struct argus_elfsym *s, uint32_t pid)
{
	struct proc_dwfl *slot = &s->cache[0];
	for (int i = 0; i < ELFSYM_CACHE; i++) {
		if (s->cache[i].pid == pid && s->cache[i].used) {
			s->cache[i].used = ++s->clock;
			return &s->cache[i];
		}
		if (s->cache[i].used < slot->used)
			slot = &s->cache[i];
	}
	if (slot->dwfl)
		dwfl_end(slot->dwfl);
	slot->dwfl = NULL;
	slot->pid = pid;
	slot->used = ++s->clock;
	report(s, slot);
	return slot;
}

/* The module of ip. The modules are what the process had mapped at the
 * first lookup: one it mapped since (a library dlopen'ed later - GTK's
 * modules, the accessibility bridge - or its new program after an exec)
 * is found by reading its maps again, so a frame is named the same
 * whenever it is first looked up. */
static Dwfl_Module *module_of(struct argus_elfsym *s, uint32_t pid, uint64_t ip)
{
	struct proc_dwfl *slot = session(s, pid);
	Dwfl_Module *m = slot->dwfl ? dwfl_addrmodule(slot->dwfl, ip) : NULL;
	if (!m && mono_ns() - slot->reported >= ELFSYM_REREPORT_NS) {
		report(s, slot);
		m = slot->dwfl ? dwfl_addrmodule(slot->dwfl, ip) : NULL;
	}
	return m;
}

/* Without .debug_aranges (clang does not emit them by default) older libdw
 * finds no CU for an address: scan the CUs' ranges instead. */
static const char *line_by_cu_scan(Dwfl_Module *m, uint64_t ip, int *lineno)
{
	Dwarf_Addr bias;
	Dwarf *dw = dwfl_module_getdwarf(m, &bias);
	if (!dw)
		return NULL;
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_haspc(&cu, ip - bias) > 0) {
			Dwarf_Line *l = dwarf_getsrc_die(&cu, ip - bias);
			if (l && dwarf_lineno(l, lineno) == 0)
				return dwarf_linesrc(l, NULL, NULL);
			return NULL;
		}
		off = next;
	}
	return NULL;
}

static bool elf_lookup(Dwfl_Module *m, uint64_t ip, struct argus_frame *out);

static bool elf_resolve(void *arg, uint32_t pid, uint64_t ip, struct argus_frame *out)
{
	struct argus_elfsym *s = arg;
	/* a new session lapses the process's memo first */
	const struct proc_dwfl *slot = session(s, pid);
	uint64_t key = (ip ^ (uint64_t)pid << 47) * 0x9e3779b97f4a7c15ull;
	struct memo *mo = argus_hmap_get(&s->memo, key);
	if (mo && mo->pid == pid && mo->ip == ip && mo->gen == slot->gen) {
		if (mo->ok)
			*out = mo->f;
		return mo->ok;
	}
	Dwfl_Module *m = module_of(s, pid, ip); /* may read the maps again */
	if (!m)
		return false;
	uint64_t gen = slot->gen; /* module_of's report, if any, lapsed the rest */
	struct argus_frame f;
	bool ok = elf_lookup(m, ip, &f);
	if (s->memo.len >= ELFSYM_MEMO) {
		argus_hmap_free(&s->memo);
		argus_hmap_init(&s->memo, sizeof(struct memo), 256);
	}
	if ((mo = argus_hmap_put(&s->memo, key, NULL))) {
		mo->pid = pid;
		mo->ip = ip;
		mo->gen = gen;
		mo->ok = ok;
		if (ok)
			mo->f = f;
	}
	if (ok)
		*out = f;
	return ok;
}

/* The frame at ip of module m: its function, object, and source line
 * (application code) or object offset (system code). */
static bool elf_lookup(Dwfl_Module *m, uint64_t ip, struct argus_frame *out)
{
	const char *mainfile = NULL;
	const char *modname = dwfl_module_info(m, NULL, NULL, NULL, NULL, NULL, &mainfile, NULL);
	const char *obj = mainfile ? mainfile : modname;
	if (!obj)
		return false;
	const char *name = dwfl_module_addrname(m, ip);
	if (!name)
		return false;
	const char *slash = strrchr(obj, '/');
	/* without its symbol version (libdwfl names a dynamic symbol defined
	 * in several versions "pthread_setaffinity_np@@GLIBC_2.34"), C++
	 * demangled: the name the file's own tables give, whether the process
	 * runs or not (funcname.c) */
	argus_func_name(name, out->func, sizeof(out->func));
	snprintf(out->object, sizeof(out->object), "%s", slash ? slash + 1 : obj);
	/* by the path the process mapped, not where its ELF file was found */
	out->system = argus_system_code(modname ? modname : obj);
	/* system runtime frames by their symbol tables only: the lines of a
	 * distribution's libraries (when their debug info is installed at all)
	 * would cost a DWARF load of each library on the stack */
	if (out->system) {
		Dwarf_Addr base = 0;
		dwfl_module_info(m, NULL, &base, NULL, NULL, NULL, NULL, NULL);
		snprintf(out->srcline, sizeof(out->srcline), "%s+0x%llx", obj,
		         (unsigned long long)(ip - base));
		return true;
	}
	/* stack frames are mostly return addresses: the call is the
	 * instruction before, whose line is the one that waited (the address
	 * itself may map to the next line, or to line 0) */
	const char *before = ip ? dwfl_module_addrname(m, ip - 1) : NULL;
	uint64_t at = before && !strcmp(before, name) ? ip - 1 : ip;
	int lineno = 0;
	const char *file = NULL;
	for (int pass = 0; pass < 2 && (!file || !lineno); pass++, at = ip) {
		Dwfl_Line *line = dwfl_module_getsrc(m, at);
		int l = 0;
		const char *f = line ? dwfl_lineinfo(line, NULL, &l, NULL, NULL, NULL) : NULL;
		if (!f)
			f = line_by_cu_scan(m, at, &l);
		if (f && (!file || l)) {
			file = f;
			lineno = l;
		}
		if (at == ip)
			break;
	}
	if (file)
		snprintf(out->srcline, sizeof(out->srcline), "%s:%d", file, lineno);
	else
		snprintf(out->srcline, sizeof(out->srcline), "%s", obj);
	return true;
}

static bool elf_stack(void *arg, uint32_t id, const uint64_t **ips, uint32_t *depth)
{
	struct argus_elfsym *s = arg;
	return s->stacks.stack && s->stacks.stack(s->stacks.arg, id, ips, depth);
}

struct argus_symbolizer argus_elfsym_symbolizer(struct argus_elfsym *s)
{
	struct argus_symbolizer y = {elf_resolve, elf_stack, s};
	return y;
}
