/*
 * procmaps.h - a process's executable mappings, read from the kernel, and
 * those written for it so far (docs/kext.md "Maps").
 *
 * Reading: the PROCMAP_QUERY ioctl on /proc/PID/maps where the kernel has
 * it (Linux 6.11 and later: one call per executable mapping, nothing
 * formatted or parsed), else the text of /proc/PID/maps.
 *
 * Kept: the ranges written per process, to tell when a stack holds an
 * address in none of them: a library mapped after they were read (the
 * dynamic loader maps a program's libraries after its exec, dlopen later).
 * Not a public header: decode.c and the tests.
 */
#ifndef ARGUS_KEXT_PROCMAPS_H
#define ARGUS_KEXT_PROCMAPS_H

#include <stdbool.h>
#include <stdint.h>

/* a pc in no mapping read: read the maps again, at most this often */
#define ARGUS_PROCMAPS_AGAIN_NS 1000000000ull

/* One executable mapping: its range, file offset, PROT_* and path ("" for
 * an anonymous one; "[vdso]" and the like as /proc/PID/maps names them). */
struct argus_vma {
	uint64_t start, end, pgoff;
	uint32_t prot;
	const char *path;
};

enum argus_procmaps_how {
	ARGUS_PROCMAPS_AUTO, /* the ioctl, the text where the kernel lacks it */
	ARGUS_PROCMAPS_TEXT, /* the text only (the tests' reference) */
};

/*
 * Calls fn for each executable mapping of pid in address order (fn
 * returning < 0 stops). Returns the number of mappings, -1 when
 * /proc/PID/maps cannot be opened (the process is gone). *ioctl_missing,
 * when given, is set once the kernel lacks the ioctl and read on later
 * calls to go straight to the text.
 */
int argus_procmaps_exec(uint32_t pid, enum argus_procmaps_how how, bool *ioctl_missing,
                        int (*fn)(void *arg, const struct argus_vma *v), void *arg);

/* The mappings written per process. */
struct argus_procmaps;
struct argus_procmaps *argus_procmaps_new(void);
void argus_procmaps_free(struct argus_procmaps *pm);

/* Drop what is kept for pid (it exec'ed or exited). */
void argus_procmaps_forget(struct argus_procmaps *pm, uint32_t pid);

/* Reads pid's executable mappings at time ts (the records' clock): each one
 * not kept for pid yet is kept and passed to fn. Returns how many were new,
 * -1 when they cannot be read (the process is gone). */
int argus_procmaps_read(struct argus_procmaps *pm, uint32_t pid, uint64_t ts,
                        void (*fn)(void *arg, const struct argus_vma *v), void *arg);

/* Whether pid's maps are to be read again at ts: one of the n user
 * addresses is in none of the mappings kept for it, and they were read
 * ARGUS_PROCMAPS_AGAIN_NS or longer before. false for a pid never read (a
 * forked child has its parent's layout). */
bool argus_procmaps_stale(const struct argus_procmaps *pm, uint32_t pid, uint64_t ts,
                          const uint64_t *ips, unsigned n);

/* Whether ip is in pid's vDSO, among the mappings kept for it. */
bool argus_procmaps_in_vdso(const struct argus_procmaps *pm, uint32_t pid, uint64_t ip);

/* Whether a and b are in one of pid's executable mappings, the same one. */
bool argus_procmaps_same_mapping(const struct argus_procmaps *pm, uint32_t pid, uint64_t a,
                                 uint64_t b);

#endif /* ARGUS_KEXT_PROCMAPS_H */
