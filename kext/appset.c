/*
 * appset.c - user space of the app set (appset.bpf.h, docs/kext.md
 * "Shedding"): the display servers running when the tracer loads join it
 * (those started later join at exec, in the kernel), a caller adds hooked
 * processes, and the records shed are summed for status.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kext.h"
#include "kext_priv.h"
#include "tracer.h"
#include "tracer.skel.h"

static const char *const display_names[] = {TRACER_DISPLAY_NAMES};

static bool display_name(const char *comm)
{
	for (size_t i = 0; i < sizeof(display_names) / sizeof(display_names[0]); i++)
		if (!strcmp(comm, display_names[i]))
			return true;
	return false;
}

int argus_kext_appset_add(struct argus_kext *k, pid_t pid)
{
	uint32_t key = (uint32_t)pid;
	uint8_t hops = 0;

	if (!k || pid <= 0)
		return -1;
	if (bpf_map_update_elem(bpf_map__fd(k->skel->maps.appset), &key, &hops, BPF_ANY))
		return -1;
	/* threads that remember wake-ups as settled look again (appset.bpf.h) */
	__atomic_fetch_add(&k->skel->bss->appset_gen, 1, __ATOMIC_SEQ_CST);
	return 0;
}

void appset_seed(struct argus_kext *k)
{
	DIR *d = opendir("/proc");
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		char *end, path[64], comm[32];
		long pid = strtol(de->d_name, &end, 10);
		FILE *f;

		if (*end || pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
		if (!(f = fopen(path, "re")))
			continue;
		if (fgets(comm, sizeof(comm), f)) {
			comm[strcspn(comm, "\n")] = 0;
			if (display_name(comm))
				argus_kext_appset_add(k, (pid_t)pid);
		}
		fclose(f);
	}
	closedir(d);
}

uint64_t argus_kext_ring_shed(const struct argus_kext *k)
{
	uint64_t sum = 0;

	for (unsigned c = 0; c < k->ncpus && c < TRACER_CPUS_MAX; c++)
		sum += __atomic_load_n(&k->skel->bss->ring_shed[c], __ATOMIC_RELAXED);
	return sum;
}

uint64_t argus_kext_appset_size(const struct argus_kext *k)
{
	int fd = bpf_map__fd(k->skel->maps.appset);
	uint32_t key, next;
	uint64_t n = 0;
	const void *prev = NULL;

	while (n < TRACER_APPSET_MAX && !bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		n++;
	}
	return n;
}
