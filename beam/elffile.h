/*
 * elffile.h - function names from ELF files on disk (elffile.c), for
 * traces whose processes have exited. Private to beam/.
 */
#ifndef ARGUS_BEAM_ELFFILE_H
#define ARGUS_BEAM_ELFFILE_H

#include <stdint.h>

struct argus_elffiles;
int argus_elffiles_new(struct argus_elffiles **out);
void argus_elffiles_free(struct argus_elffiles *c);
/* The function of the ELF file at path holding file offset off (what a
 * memory map's pgoff maps), and *in_func the offset into it; NULL when the
 * file cannot be read or no function holds it, or when build_id (id_len
 * bytes; id_len 0 = not checked) is not the file's: another build of it
 * than the one that ran would give wrong names. Valid until freed. */
const char *argus_elffiles_name(struct argus_elffiles *c, const char *path,
                                const uint8_t *build_id, uint32_t id_len, uint64_t off,
                                uint64_t *in_func);

#endif /* ARGUS_BEAM_ELFFILE_H */
