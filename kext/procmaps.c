/*
 * procmaps.c - a process's executable mappings (procmaps.h). The text of
 * /proc/PID/maps formats every mapping (data, heap, stacks, guard pages:
 * several times the executable ones), resolves each one's path and has it
 * parsed back; the PROCMAP_QUERY ioctl asks the kernel for the next
 * executable mapping only, with its path, one call each. The ranges
 * written per process are kept, to see a stack outside them.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kext_priv.h"
#include "procmaps.h"

/* The ioctl's interface (include/uapi/linux/fs.h, Linux 6.11), spelled
 * here: the C library's kernel headers may predate it. */
struct procmap_query_abi {
	uint64_t size;
	uint64_t query_flags;
	uint64_t query_addr;
	uint64_t vma_start, vma_end, vma_flags, vma_page_size, vma_offset, inode;
	uint32_t dev_major, dev_minor;
	uint32_t vma_name_size, build_id_size;
	uint64_t vma_name_addr, build_id_addr;
};
#define PMQ_IOCTL            _IOWR('f', 17, struct procmap_query_abi)
#define PMQ_VMA_READABLE     0x01
#define PMQ_VMA_WRITABLE     0x02
#define PMQ_VMA_EXECUTABLE   0x04
#define PMQ_COVERING_OR_NEXT 0x10
_Static_assert(sizeof(struct procmap_query_abi) == 104, "PROCMAP_QUERY's struct is 104 bytes");

#define PATH_BYTES 4096

static int from_text(FILE *f, int (*fn)(void *arg, const struct argus_vma *v), void *arg)
{
	char line[PATH_BYTES + 128], file[PATH_BYTES];
	int n = 0;

	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off;
		char perms[8];

		file[0] = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095[^\n]", &start, &end, perms, &off,
		           file) < 4 ||
		    perms[2] != 'x')
			continue;
		struct argus_vma v = {
		    .start = start,
		    .end = end,
		    .pgoff = off,
		    .prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
		            PROT_EXEC,
		    .path = file,
		};
		n++;
		if (fn(arg, &v) < 0)
			break;
	}
	return n;
}

/* -1 with errno ENOTTY / EINVAL when the kernel lacks the ioctl (nothing
 * was reported then), else the number of mappings. */
static int from_ioctl(int fd, int (*fn)(void *arg, const struct argus_vma *v), void *arg)
{
	char file[PATH_BYTES];
	uint64_t addr = 0;
	int n = 0;

	for (;;) {
		struct procmap_query_abi q = {
		    .size = sizeof(q),
		    .query_flags = PMQ_VMA_EXECUTABLE | PMQ_COVERING_OR_NEXT,
		    .query_addr = addr,
		    .vma_name_size = sizeof(file),
		    .vma_name_addr = (uint64_t)(uintptr_t)file,
		};

		int rc = ioctl(fd, PMQ_IOCTL, &q);

		if (rc < 0 && errno == ENAMETOOLONG) { /* a path longer than PATH_MAX */
			q.vma_name_size = 0;
			q.vma_name_addr = 0;
			rc = ioctl(fd, PMQ_IOCTL, &q);
		}
		if (rc < 0) {
			if (n == 0 && (errno == ENOTTY || errno == EINVAL))
				return -1;
			return n; /* ENOENT: no executable mapping above addr */
		}
		if (!q.vma_name_size)
			file[0] = 0;
		file[sizeof(file) - 1] = 0;
		struct argus_vma v = {
		    .start = q.vma_start,
		    .end = q.vma_end,
		    .pgoff = q.vma_offset,
		    .prot = (q.vma_flags & PMQ_VMA_READABLE ? PROT_READ : 0) |
		            (q.vma_flags & PMQ_VMA_WRITABLE ? PROT_WRITE : 0) | PROT_EXEC,
		    .path = file,
		};
		n++;
		if (fn(arg, &v) < 0 || q.vma_end <= addr)
			return n;
		addr = q.vma_end;
	}
}

int argus_procmaps_exec(uint32_t pid, enum argus_procmaps_how how, bool *ioctl_missing,
                        int (*fn)(void *arg, const struct argus_vma *v), void *arg)
{
	char path[64];
	int fd, n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/maps", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (how == ARGUS_PROCMAPS_AUTO && !(ioctl_missing && *ioctl_missing)) {
		n = from_ioctl(fd, fn, arg);
		if (n >= 0) {
			close(fd);
			return n;
		}
		if (ioctl_missing)
			*ioctl_missing = true;
	}
	f = fdopen(fd, "re");
	if (!f) {
		close(fd);
		return -1;
	}
	n = from_text(f, fn, arg);
	fclose(f);
	return n;
}

#define USER_END 0xffff800000000000ull /* the kernel's half begins here */

struct range {
	uint64_t start, end;
	bool vdso; /* the kernel's vDSO ("[vdso]") */
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
	bool ioctl_missing; /* the kernel lacks PROCMAP_QUERY */
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

/* Room for one more of n items in *a (capacity *cap, doubled from first). */
static bool grow(void **a, uint32_t n, uint32_t *cap, uint32_t first, size_t size)
{
	if (n < *cap)
		return true;
	uint32_t nc = *cap ? *cap * 2 : first;
	void *na = realloc(*a, nc * size);
	if (!na)
		return false;
	*a = na;
	*cap = nc;
	return true;
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
		if (!grow((void **)&pm->slot, pm->nslot, &pm->cap, 64, sizeof(*pm->slot)))
			return NULL;
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

static bool keep(struct pslot *p, uint64_t start, uint64_t end, bool vdso)
{
	uint32_t at;
	if (find(p, start, &at) && p->r[at - 1].start == start && p->r[at - 1].end == end)
		return false; /* kept already */
	if (!grow((void **)&p->r, p->n, &p->cap, 32, sizeof(*p->r)))
		return false;
	memmove(&p->r[at + 1], &p->r[at], (p->n - at) * sizeof(p->r[0]));
	p->r[at] = (struct range){start, end, vdso};
	p->n++;
	return true;
}

struct read_ctx {
	struct pslot *p;
	void (*fn)(void *arg, const struct argus_vma *v);
	void *arg;
	int n;
};

static int keep_new(void *arg, const struct argus_vma *v)
{
	struct read_ctx *c = arg;
	if (c->p && !keep(c->p, v->start, v->end, v->path && !strncmp(v->path, "[vdso", 5)))
		return 0;
	c->n++;
	if (c->fn)
		c->fn(c->arg, v);
	return 0;
}

int argus_procmaps_read(struct argus_procmaps *pm, uint32_t pid, uint64_t ts,
                        void (*fn)(void *arg, const struct argus_vma *v), void *arg)
{
	struct read_ctx c = {.p = slot_make(pm, pid), .fn = fn, .arg = arg};
	if (argus_procmaps_exec(pid, ARGUS_PROCMAPS_AUTO, &pm->ioctl_missing, keep_new, &c) < 0) {
		if (c.p && !c.p->n)
			argus_procmaps_forget(pm, pid); /* gone: nothing kept */
		return -1;
	}
	if (c.p)
		c.p->read_ts = ts;
	return c.n;
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

bool argus_procmaps_in_vdso(const struct argus_procmaps *pm, uint32_t pid, uint64_t ip)
{
	const struct pslot *p = slot_of(pm, pid);
	uint32_t at;
	return p && find(p, ip, &at) && p->r[at - 1].vdso;
}

bool argus_procmaps_same_mapping(const struct argus_procmaps *pm, uint32_t pid, uint64_t a,
                                 uint64_t b)
{
	const struct pslot *p = slot_of(pm, pid);
	uint32_t at, bt;
	return p && find(p, a, &at) && find(p, b, &bt) && at == bt;
}
