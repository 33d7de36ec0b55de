/*
 * elffile.c - function names from ELF files on disk, for a trace whose
 * processes have exited: the file a memory map of the trace names, its
 * symbol table (.symtab, else .dynsym), and the file offset the map gives
 * turned into an address by the PT_LOAD segment that holds it. Each file is
 * read once; one that cannot be read is remembered as such.
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elffile.h"

struct efsym {
	uint64_t addr, size;
	char *name;
};

struct efload {
	uint64_t off, filesz, vaddr;
};

struct effile {
	char *path;
	bool bad;
	struct efsym *syms;
	size_t nsyms;
	struct efload load[16];
	int nload;
	uint8_t bid[32]; /* its GNU build id, bidlen bytes (0: none) */
	uint32_t bidlen;
};

struct argus_elffiles {
	struct effile *f;
	size_t n, cap;
};

static int cmp_sym(const void *a, const void *b)
{
	const struct efsym *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The file's PT_LOAD segments and function symbols; false when unreadable. */
static bool load(struct effile *f)
{
	int fd = open(f->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	bool ok = false;
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t nph;
	if (!e || elf_kind(e) != ELF_K_ELF || elf_getphdrnum(e, &nph))
		goto out;
	for (size_t i = 0; i < nph && f->nload < 16; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD)
			f->load[f->nload++] = (struct efload){ph.p_offset, ph.p_filesz, ph.p_vaddr};
	}
	/* .symtab when the file keeps it, else the dynamic symbols; the build
	 * id from its notes */
	Elf_Scn *pick = NULL, *scn = NULL;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		Elf_Data *nd = sh.sh_type == SHT_NOTE ? elf_getdata(scn, NULL) : NULL;
		GElf_Nhdr nh;
		size_t at = 0, noff, doff;
		while (nd && !f->bidlen && (at = gelf_getnote(nd, at, &nh, &noff, &doff)) > 0)
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((const char *)nd->d_buf + noff, "GNU", 4) && nh.n_descsz <= 32) {
				memcpy(f->bid, (const char *)nd->d_buf + doff, nh.n_descsz);
				f->bidlen = nh.n_descsz;
			}
		if (sh.sh_type == SHT_SYMTAB || (sh.sh_type == SHT_DYNSYM && !pick))
			pick = scn;
	}
	GElf_Shdr sh;
	Elf_Data *d = pick && gelf_getshdr(pick, &sh) ? elf_getdata(pick, NULL) : NULL;
	size_t n = d && sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
	f->syms = calloc(n ? n : 1, sizeof(*f->syms));
	if (!f->syms)
		goto out;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym s;
		if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
		    !s.st_value)
			continue;
		const char *name = elf_strptr(e, sh.sh_link, s.st_name);
		if (!name || !*name || !(f->syms[f->nsyms].name = strdup(name)))
			continue;
		f->syms[f->nsyms].addr = s.st_value;
		f->syms[f->nsyms++].size = s.st_size;
	}
	qsort(f->syms, f->nsyms, sizeof(*f->syms), cmp_sym);
	ok = true;
out:
	if (e)
		elf_end(e);
	close(fd);
	return ok;
}

static struct effile *file_of(struct argus_elffiles *c, const char *path)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->f[i].path, path))
			return &c->f[i];
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;
		struct effile *f = realloc(c->f, cap * sizeof(*f));
		if (!f)
			return NULL;
		c->f = f;
		c->cap = cap;
	}
	struct effile *f = &c->f[c->n];
	memset(f, 0, sizeof(*f));
	if (!(f->path = strdup(path)))
		return NULL;
	c->n++;
	f->bad = !load(f);
	return f;
}

int argus_elffiles_new(struct argus_elffiles **out)
{
	elf_version(EV_CURRENT);
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -1;
}

void argus_elffiles_free(struct argus_elffiles *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		for (size_t k = 0; k < c->f[i].nsyms; k++)
			free(c->f[i].syms[k].name);
		free(c->f[i].syms);
		free(c->f[i].path);
	}
	free(c->f);
	free(c);
}

const char *argus_elffiles_name(struct argus_elffiles *c, const char *path,
                                const uint8_t *build_id, uint32_t id_len, uint64_t off,
                                uint64_t *in_func)
{
	if (!c || !path || path[0] != '/')
		return NULL;
	struct effile *f = file_of(c, path);
	if (!f || f->bad)
		return NULL;
	if (id_len && (f->bidlen != id_len || memcmp(f->bid, build_id, id_len)))
		return NULL; /* rebuilt or replaced since the trace */
	uint64_t addr = 0;
	bool mapped = false;
	for (int i = 0; i < f->nload && !mapped; i++)
		if (off >= f->load[i].off && off < f->load[i].off + f->load[i].filesz) {
			addr = off - f->load[i].off + f->load[i].vaddr;
			mapped = true;
		}
	if (!mapped)
		return NULL;
	size_t a = 0, b = f->nsyms;
	while (a < b) { /* first symbol after addr */
		size_t m = (a + b) / 2;
		if (f->syms[m].addr <= addr)
			a = m + 1;
		else
			b = m;
	}
	if (!a)
		return NULL;
	const struct efsym *s = &f->syms[a - 1];
	if (addr >= s->addr + (s->size ? s->size : 1))
		return NULL;
	*in_func = addr - s->addr;
	return s->name;
}
