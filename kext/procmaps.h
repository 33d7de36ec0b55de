/*
 * procmaps.h - the executable mappings of each process as the decoder
 * wrote them to the map table (docs/kext.md "Maps"), to tell when a stack
 * holds an address in none of them: a library mapped after they were read
 * (the dynamic loader maps a program's libraries after its exec, dlopen
 * later). Not a public header: decode.c and the tests.
 */
#ifndef ARGUS_KEXT_PROCMAPS_H
#define ARGUS_KEXT_PROCMAPS_H

#include <stdbool.h>
#include <stdint.h>

/* a pc in no mapping read: read the maps again, at most this often */
#define ARGUS_PROCMAPS_AGAIN_NS 1000000000ull

struct argus_procmap {
	uint64_t start, end, pgoff;
	bool readable, writable;
	const char *path; /* "" for an anonymous mapping */
};

struct argus_procmaps;
struct argus_procmaps *argus_procmaps_new(void);
void argus_procmaps_free(struct argus_procmaps *pm);

/* Drop what is kept for pid (it exec'ed or exited). */
void argus_procmaps_forget(struct argus_procmaps *pm, uint32_t pid);

/* Read /proc/pid/maps at time ts (the records' clock): each executable
 * mapping not kept for pid yet is kept and passed to fn. Returns how many
 * were new, -1 when the file cannot be read (the process is gone). */
int argus_procmaps_read(struct argus_procmaps *pm, uint32_t pid, uint64_t ts,
                        void (*fn)(void *arg, const struct argus_procmap *m), void *arg);

/* Whether pid's maps are to be read again at ts: one of the n user
 * addresses is in none of the mappings kept for it, and they were read
 * ARGUS_PROCMAPS_AGAIN_NS or longer before. false for a pid never read (a
 * forked child has its parent's layout). */
bool argus_procmaps_stale(const struct argus_procmaps *pm, uint32_t pid, uint64_t ts,
                          const uint64_t *ips, unsigned n);

#endif /* ARGUS_KEXT_PROCMAPS_H */
