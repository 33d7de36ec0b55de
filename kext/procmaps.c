/*
 * procmaps.c - a process's executable mappings (procmaps.h). The text of
 * /proc/PID/maps formats every mapping (data, heap, stacks, guard pages:
 * several times the executable ones), resolves each one's path and has it
 * parsed back; the PROCMAP_QUERY ioctl asks the kernel for the next
 * executable mapping only, with its path, one call each.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

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
