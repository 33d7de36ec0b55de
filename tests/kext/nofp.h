/*
 * nofp.h - what the full-stack tests share: the path of nofp_prog (built
 * -O2 -fomit-frame-pointer -no-pie, so its addresses are its file's) and
 * the names of its functions at a chain's pcs, from its own symbol table
 * through libdwfl.
 */
#ifndef ARGUS_TEST_KEXT_NOFP_H
#define ARGUS_TEST_KEXT_NOFP_H

#include <elfutils/libdwfl.h>
#include <stdint.h>
#include <string.h>

static const Dwfl_Callbacks nofp_offline_cbs = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

static inline Dwfl *nofp_dwfl(void)
{
	Dwfl *d = dwfl_begin(&nofp_offline_cbs);

	if (d && !dwfl_report_offline(d, "nofp_prog", NOFP_PROG, -1)) {
		dwfl_end(d);
		return NULL;
	}
	dwfl_report_end(d, NULL, NULL);
	return d;
}

/* The function at frame i of a chain (a return address for i > 0: looked
 * up one byte back, inside the call). */
static inline const char *nofp_name(Dwfl *d, const uint64_t *pcs, unsigned i)
{
	uint64_t pc = i ? pcs[i] - 1 : pcs[i];
	Dwfl_Module *m = dwfl_addrmodule(d, pc);
	const char *n = m ? dwfl_module_addrname(m, pc) : NULL;

	return n ? n : "?";
}

/* Whether the chain holds nofp_hot <- nofp_middle <- nofp_outer, in that
 * order, one frame after the other. */
static inline bool nofp_chain(Dwfl *d, const uint64_t *pcs, unsigned n)
{
	for (unsigned i = 0; i + 2 < n; i++)
		if (!strcmp(nofp_name(d, pcs, i), "nofp_hot") &&
		    !strcmp(nofp_name(d, pcs, i + 1), "nofp_middle") &&
		    !strcmp(nofp_name(d, pcs, i + 2), "nofp_outer"))
			return true;
	return false;
}

#endif /* ARGUS_TEST_KEXT_NOFP_H */
