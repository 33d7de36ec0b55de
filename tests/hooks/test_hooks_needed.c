/*
 * test_hooks_needed.c - libargus-hooks.so is preloaded into every traced
 * application: it must not need libbpf (the producer side of the rings is
 * ringbuf/ring_producer.c alone). Reads the library's DT_NEEDED entries.
 */
#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"

struct needed {
	const char *name[32];
	size_t n;
};

/* The DT_NEEDED names of the ELF image at m (64-bit, as built here). */
static void read_needed(const unsigned char *m, size_t len, struct needed *out)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m;
	ASSERT(len >= sizeof(*eh) && !memcmp(eh->e_ident, ELFMAG, SELFMAG));
	ASSERT_EQ(eh->e_ident[EI_CLASS], ELFCLASS64);
	ASSERT(eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr) <= len);
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(m + eh->e_shoff);
	for (size_t i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type != SHT_DYNAMIC)
			continue;
		ASSERT(sh[i].sh_link < eh->e_shnum);
		const Elf64_Shdr *str = &sh[sh[i].sh_link];
		ASSERT(sh[i].sh_offset + sh[i].sh_size <= len &&
		       str->sh_offset + str->sh_size <= len);
		const Elf64_Dyn *d = (const Elf64_Dyn *)(m + sh[i].sh_offset);
		for (size_t j = 0; j < sh[i].sh_size / sizeof(*d) && d[j].d_tag != DT_NULL; j++)
			if (d[j].d_tag == DT_NEEDED && out->n < 32) {
				ASSERT(d[j].d_un.d_val < str->sh_size);
				out->name[out->n++] =
				    (const char *)m + str->sh_offset + d[j].d_un.d_val;
			}
	}
}

TEST(hooks_library_does_not_need_libbpf)
{
	int fd = open(HOOKS_LIB, O_RDONLY | O_CLOEXEC);
	ASSERT_MSG(fd >= 0, "cannot open %s", HOOKS_LIB);
	struct stat st;
	ASSERT_EQ(fstat(fd, &st), 0);
	unsigned char *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	ASSERT(m != MAP_FAILED);
	struct needed nd = {0};
	read_needed(m, (size_t)st.st_size, &nd);
	int libc = 0;
	for (size_t i = 0; i < nd.n; i++) {
		ASSERT_MSG(!strstr(nd.name[i], "libbpf"), "%s needs %s", HOOKS_LIB, nd.name[i]);
		libc |= !strncmp(nd.name[i], "libc.so", 7);
	}
	/* the entries were read: every shared library needs libc */
	ASSERT_MSG(libc, "no libc among %zu DT_NEEDED entries", nd.n);
	munmap(m, (size_t)st.st_size);
	close(fd);
}

TEST_MAIN(TEST_ENTRY(hooks_library_does_not_need_libbpf))
