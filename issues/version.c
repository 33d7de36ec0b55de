/*
 * version.c - the version of an app an occurrence was seen in: the GNU
 * build id of its executable, from the running process (the daemon) or
 * from a trace's build-id table (an import).
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "version_priv.h"

static void hex(const uint8_t *id, size_t len, char *out, size_t cap)
{
	size_t k = 0;
	out[0] = 0;
	for (size_t i = 0; i < len && k + 3 <= cap; i++)
		k += (size_t)snprintf(out + k, cap - k, "%02x", id[i]);
}

/* The NT_GNU_BUILD_ID note of an ELF file open on fd. */
static bool elf_build_id(int fd, char *out, size_t cap)
{
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e)
		return false;
	bool found = false;
	Elf_Scn *scn = NULL;
	while (!found && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t off = 0, name_off, desc_off;
		GElf_Nhdr nh;
		while (d && !found && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0)
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((const char *)d->d_buf + name_off, "GNU", 4)) {
				hex((const uint8_t *)d->d_buf + desc_off, nh.n_descsz, out, cap);
				found = true;
			}
	}
	elf_end(e);
	return found;
}

void version_live(struct versions *v, uint32_t pid, char *out, size_t cap)
{
	out[0] = 0;
	for (unsigned i = 0; i < VERSIONS_CACHE; i++)
		if (v->pid[i] == pid) {
			snprintf(out, cap, "%s", v->id[i]);
			return;
		}
	char path[64], id[VERSION_LEN] = "";
	snprintf(path, sizeof(path), "/proc/%u/exe", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		elf_build_id(fd, id, sizeof(id));
		close(fd);
	}
	unsigned k = v->next++ % VERSIONS_CACHE;
	v->pid[k] = pid;
	snprintf(v->id[k], sizeof(v->id[k]), "%s", id);
	snprintf(out, cap, "%s", id);
}

int version_table_of_trace(struct versions *v, const char *path)
{
	struct argus_trace_reader *r;
	struct argus_trace_error err;
	const struct argus_event *e;
	int rc;
	if (!strcmp(path, "-") || argus_trace_open(&r, path, &err))
		return -1;
	while ((rc = argus_trace_next(r, &e, &err)) != 0) /* tables are complete at the end */
		if (rc == ARGUS_TRACE_ENOMEM)
			break;
	const struct argus_build_id *ids;
	size_t n = argus_trace_build_ids(r, &ids);
	for (size_t i = 0; i < n; i++) {
		const char *p = argus_trace_string(r, ids[i].path_str);
		if (!p)
			continue;
		const char *slash = strrchr(p, '/');
		struct version_entry *ne = realloc(v->table, (v->ntable + 1) * sizeof(*ne));
		if (!ne)
			break;
		v->table = ne;
		struct version_entry *x = &v->table[v->ntable++];
		snprintf(x->object, sizeof(x->object), "%s", slash ? slash + 1 : p);
		hex(ids[i].id, ids[i].len < 32 ? ids[i].len : 32, x->id, sizeof(x->id));
	}
	argus_trace_close(r);
	return 0;
}

void version_of_object(const struct versions *v, const char *object, char *out, size_t cap)
{
	out[0] = 0;
	for (size_t i = 0; object[0] && i < v->ntable; i++)
		if (!strcmp(v->table[i].object, object)) {
			snprintf(out, cap, "%s", v->table[i].id);
			return;
		}
}

void versions_free(struct versions *v)
{
	free(v->table);
	memset(v, 0, sizeof(*v));
}
