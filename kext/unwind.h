/*
 * unwind.h - walks a copied user stack with the binaries' call frame
 * information (libdwfl): the user-space half of full stacks
 * (argus_kext_full_stacks). Not a public header: decode.c and the tests.
 */
#ifndef ARGUS_KEXT_UNWIND_H
#define ARGUS_KEXT_UNWIND_H

#include <stddef.h>
#include <stdint.h>

struct argus_unwinder;

struct argus_unwinder *argus_unwinder_new(void);
void argus_unwinder_free(struct argus_unwinder *u);

/*
 * The call chain of thread tid of live process pid from a copy of its user
 * registers (DWARF numbering, regs[0 .. nregs - 1]: x86-64 rax .. rip) and
 * of size bytes of its user stack from its stack pointer up. Modules are
 * found from /proc/pid/maps and their .eh_frame / .debug_frame read once
 * per process (again when a pc falls outside them: a library loaded
 * since). Writes the pcs innermost first (pcs[0] = the ip, then return
 * addresses, as a frame-pointer walk gives them) and returns how many:
 * 0 when nothing could be walked (process gone, no module at the ip).
 */
unsigned argus_unwind(struct argus_unwinder *u, uint32_t pid, uint32_t tid, const uint64_t *regs,
                      unsigned nregs, const uint8_t *stack, size_t size, uint64_t *pcs,
                      unsigned max);

/* Drop what is kept for pid (it exec'ed or exited). */
void argus_unwinder_forget(struct argus_unwinder *u, uint32_t pid);

#endif /* ARGUS_KEXT_UNWIND_H */
