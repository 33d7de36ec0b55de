/*
 * procmaps.c - the executable mappings kept per process (procmaps.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kext_priv.h"
#include "procmaps.h"

#define USER_END 0xffff800000000000ull /* the kernel's half begins here */

struct range {
	uint64_t start, end;
};

struct pslot {
	uint32_t pid;
	uint64_t read_ts;
	uint32_t n, cap;
	struct range *r; /* sorted by start */
};

struct argus_procmaps {
	struct u32_table ix; /* pid -> slot + 1 */
	struct pslot *slot;
	uint32_t nslot, cap;
	uint32_t *free_slots; /* slots of processes forgotten */
	uint32_t nfree;
};

struct argus_procmaps *argus_procmaps_new(void)
{
	return calloc(1, sizeof(struct argus_procmaps));
}

void argus_procmaps_free(struct argus_procmaps *pm)
{
	if (!pm)
		return;
	for (uint32_t i = 0; i < pm->nslot; i++)
		free(pm->slot[i].r);
	free(pm->slot);
	free(pm->free_slots);
	u32_table_free(&pm->ix);
	free(pm);
}

static struct pslot *slot_of(const struct argus_procmaps *pm, uint32_t pid)
{
	uint32_t s;
	return pm && u32_table_get(&pm->ix, pid, &s) ? &pm->slot[s - 1] : NULL;
}

void argus_procmaps_forget(struct argus_procmaps *pm, uint32_t pid)
{
	struct pslot *p = slot_of(pm, pid);
	if (!p)
		return;
	uint32_t s = (uint32_t)(p - pm->slot);
	free(p->r);
	memset(p, 0, sizeof(*p));
	u32_table_del(&pm->ix, pid);
	uint32_t *f = realloc(pm->free_slots, (pm->nfree + 1) * sizeof(*f));
	if (!f)
		return; /* the slot is not reused */
	pm->free_slots = f;
	pm->free_slots[pm->nfree++] = s;
}

static struct pslot *slot_make(struct argus_procmaps *pm, uint32_t pid)
{
	struct pslot *p = slot_of(pm, pid);
	if (p)
		return p;
	uint32_t s;
	if (pm->nfree)
		s = pm->free_slots[--pm->nfree];
	else {
		if (pm->nslot == pm->cap) {
			uint32_t nc = pm->cap ? pm->cap * 2 : 64;
			struct pslot *ns = realloc(pm->slot, nc * sizeof(*ns));
			if (!ns)
				return NULL;
			pm->slot = ns;
			pm->cap = nc;
		}
		s = pm->nslot++;
	}
	memset(&pm->slot[s], 0, sizeof(pm->slot[s]));
	pm->slot[s].pid = pid;
	if (u32_table_put(&pm->ix, pid, s + 1)) {
		if (s + 1 == pm->nslot)
			pm->nslot--;
		return NULL;
	}
	return &pm->slot[s];
}

/* The range holding ip, or the index where one starting at ip would go. */
static bool find(const struct pslot *p, uint64_t ip, uint32_t *at)
{
	uint32_t a = 0, b = p->n;
	while (a < b) { /* first range starting after ip */
		uint32_t m = (a + b) / 2;
		if (p->r[m].start <= ip)
			a = m + 1;
		else
			b = m;
	}
	*at = a;
	return a && ip < p->r[a - 1].end;
}

static bool keep(struct pslot *p, uint64_t start, uint64_t end)
{
	uint32_t at;
	if (find(p, start, &at) && p->r[at - 1].start == start && p->r[at - 1].end == end)
		return false; /* kept already */
	if (p->n == p->cap) {
		uint32_t nc = p->cap ? p->cap * 2 : 32;
		struct range *nr = realloc(p->r, nc * sizeof(*nr));
		if (!nr)
			return false;
		p->r = nr;
		p->cap = nc;
	}
	memmove(&p->r[at + 1], &p->r[at], (p->n - at) * sizeof(p->r[0]));
	p->r[at] = (struct range){start, end};
	p->n++;
	return true;
}

int argus_procmaps_read(struct argus_procmaps *pm, uint32_t pid, uint64_t ts,
                        void (*fn)(void *arg, const struct argus_procmap *m), void *arg)
{
	char path[64], line[4096 + 128];
	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/maps", pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	struct pslot *p = slot_make(pm, pid);
	int n = 0;
	if (p)
		p->read_ts = ts;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off;
		char perms[8], file[4096];
		file[0] = 0;
		int k = sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095[^\n]", &start, &end, perms,
		               &off, file);
		if (k < 4 || perms[2] != 'x')
			continue;
		if (p && !keep(p, start, end))
			continue;
		struct argus_procmap m = {.start = start,
		                          .end = end,
		                          .pgoff = off,
		                          .readable = perms[0] == 'r',
		                          .writable = perms[1] == 'w',
		                          .path = file};
		n++;
		if (fn)
			fn(arg, &m);
	}
	fclose(f);
	return n;
}

bool argus_procmaps_stale(const struct argus_procmaps *pm, uint32_t pid, uint64_t ts,
                          const uint64_t *ips, unsigned n)
{
	const struct pslot *p = slot_of(pm, pid);
	if (!p || ts < p->read_ts + ARGUS_PROCMAPS_AGAIN_NS)
		return false;
	for (unsigned i = 0; i < n; i++) {
		uint32_t at;
		if (ips[i] && ips[i] < USER_END && !find(p, ips[i], &at))
			return true;
	}
	return false;
}
