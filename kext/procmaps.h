/*
 * procmaps.h - a process's executable mappings, read from the kernel: with
 * the PROCMAP_QUERY ioctl on /proc/PID/maps where the kernel has it (Linux
 * 6.11 and later: one call per executable mapping, nothing formatted or
 * parsed), else by parsing the text of /proc/PID/maps. Not a public
 * header: decode.c and the tests.
 */
#ifndef ARGUS_KEXT_PROCMAPS_H
#define ARGUS_KEXT_PROCMAPS_H

#include <stdbool.h>
#include <stdint.h>

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

#endif
