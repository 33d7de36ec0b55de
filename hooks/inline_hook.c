/*
 * inline_hook.c - x86-64 inline hooks: capstone decodes the prologue, the
 * overwritten instructions are relocated into a trampoline near the target.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "inline_hook.h"

#if defined(__x86_64__)
#include <capstone/capstone.h>

#define ARENA_PAGE          4096
#define SLOT_SIZE           256 /* relay (14) + relocated prologue + jump back */
#define NEAR_JMP_LEN        5
#define ABS_JMP_LEN         14 /* jmp [rip+0]; .quad dest */
#define MAX_HOOKS_PER_ARENA 256

struct arena_page {
	uint8_t *base;
	size_t used;
};

struct argus_hook_arena {
	struct arena_page pages[64];
	unsigned npages;
	void *hooked[MAX_HOOKS_PER_ARENA];
	unsigned nhooked;
};

struct argus_hook_arena *argus_hook_arena_new(void)
{
	return calloc(1, sizeof(struct argus_hook_arena));
}

void argus_hook_arena_free(struct argus_hook_arena *a)
{
	free(a);
}

static bool within_rel32(uintptr_t from_next, uintptr_t to)
{
	int64_t d = (int64_t)(to - from_next);
	return d >= INT32_MIN && d <= INT32_MAX;
}

/* A free page within +-2 GB of target (searching outwards from it). */
static uint8_t *map_near(uintptr_t target)
{
	const uintptr_t step = 1u << 16;
	uintptr_t base = target & ~(step - 1);
	for (uintptr_t i = 1; i < 16384; i++) { /* +-1 GB in 64 KiB steps */
		for (int dir = -1; dir <= 1; dir += 2) {
			uintptr_t off = i * step;
			if (dir < 0 && base < off + step)
				continue;
			uintptr_t hint = dir < 0 ? base - off : base + off;
			void *p = mmap((void *)hint, ARENA_PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
			               MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
			if (p == MAP_FAILED)
				continue;
			if ((uintptr_t)p != hint) { /* old kernel ignoring the flag */
				munmap(p, ARENA_PAGE);
				continue;
			}
			return p;
		}
	}
	return NULL;
}

/* A slot within rel32 reach of target, or NULL. */
static uint8_t *slot_near(struct argus_hook_arena *a, uintptr_t target)
{
	for (unsigned i = 0; i < a->npages; i++) {
		struct arena_page *pg = &a->pages[i];
		if (pg->used + SLOT_SIZE <= ARENA_PAGE &&
		    within_rel32(target + NEAR_JMP_LEN, (uintptr_t)pg->base) &&
		    within_rel32(target + NEAR_JMP_LEN, (uintptr_t)pg->base + ARENA_PAGE)) {
			uint8_t *s = pg->base + pg->used;
			pg->used += SLOT_SIZE;
			return s;
		}
	}
	if (a->npages == sizeof(a->pages) / sizeof(a->pages[0]))
		return NULL;
	uint8_t *p = map_near(target);
	if (!p)
		return NULL;
	a->pages[a->npages++] = (struct arena_page){.base = p, .used = SLOT_SIZE};
	return p;
}

static uint8_t *slot_far(void)
{
	void *p = mmap(NULL, ARENA_PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
	               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static size_t emit_abs_jmp(uint8_t *p, uintptr_t dest)
{
	p[0] = 0xff; /* jmp qword ptr [rip+0] */
	p[1] = 0x25;
	memset(p + 2, 0, 4);
	memcpy(p + 6, &dest, 8);
	return ABS_JMP_LEN;
}

static size_t emit_abs_call(uint8_t *p, uintptr_t dest)
{
	static const uint8_t code[] = {0xff, 0x15, 0x02, 0, 0, 0, /* call [rip+2] */
	                               0xeb, 0x08};               /* jmp over the address */
	memcpy(p, code, sizeof(code));
	memcpy(p + sizeof(code), &dest, 8);
	return sizeof(code) + 8;
}

/* Offset of the disp32 of a RIP-relative instruction: right after its ModRM
 * byte (RIP-relative addressing never has a SIB), before any immediate. */
static int rip_disp_offset(const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;
	int32_t disp = (int32_t)x->disp;
	for (int p = in->size - 4; p >= 1; p--)
		if (in->bytes[p - 1] == x->modrm && (x->modrm & 0xc7) == 0x05 &&
		    memcmp(in->bytes + p, &disp, 4) == 0 && in->size - (p + 4) <= 4)
			return p;
	return -1;
}

static bool uses_rip(const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;
	for (unsigned i = 0; i < x->op_count; i++)
		if (x->operands[i].type == X86_OP_MEM && x->operands[i].mem.base == X86_REG_RIP)
			return true;
	return false;
}

/*
 * Relocate one instruction from its address to dst; returns bytes written
 * or a negative errno (-ERANGE: a RIP-relative access dst cannot reach).
 */
static int relocate(const cs_insn *in, uint8_t *dst)
{
	uintptr_t src = (uintptr_t)in->address;
	const uint8_t *b = in->bytes;
	unsigned id = in->id;
	bool is_jcc =
	    (b[0] >= 0x70 && b[0] <= 0x7f) || (b[0] == 0x0f && b[1] >= 0x80 && b[1] <= 0x8f);
	if (id == X86_INS_JMP && (b[0] == 0xe9 || b[0] == 0xeb)) {
		uintptr_t dest = (uintptr_t)in->detail->x86.operands[0].imm;
		return (int)emit_abs_jmp(dst, dest);
	}
	if (id == X86_INS_CALL && b[0] == 0xe8) {
		uintptr_t dest = (uintptr_t)in->detail->x86.operands[0].imm;
		return (int)emit_abs_call(dst, dest);
	}
	if (is_jcc) {
		uintptr_t dest = (uintptr_t)in->detail->x86.operands[0].imm;
		uint8_t cc = b[0] == 0x0f ? (uint8_t)(b[1] - 0x80) : (uint8_t)(b[0] - 0x70);
		dst[0] = (uint8_t)(0x70 | (cc ^ 1)); /* inverted condition skips the jump */
		dst[1] = ABS_JMP_LEN;
		return 2 + (int)emit_abs_jmp(dst + 2, dest);
	}
	if (id == X86_INS_JRCXZ || id == X86_INS_JECXZ || id == X86_INS_LOOP ||
	    id == X86_INS_LOOPE || id == X86_INS_LOOPNE || id == X86_INS_XBEGIN)
		return -ENOTSUP;
	memcpy(dst, b, in->size);
	if (uses_rip(in)) {
		int off = rip_disp_offset(in);
		if (off < 0)
			return -ENOTSUP;
		int64_t disp = (int64_t)(int32_t)in->detail->x86.disp;
		int64_t nd = disp + (int64_t)(src - (uintptr_t)dst);
		if (nd < INT32_MIN || nd > INT32_MAX)
			return -ERANGE;
		int32_t nd32 = (int32_t)nd;
		memcpy(dst + off, &nd32, 4);
	}
	return in->size;
}

/* Write code over live text: page made writable for the copy. A 5-byte
 * patch inside one aligned 8-byte word is stored in one atomic write so a
 * thread running the function sees the old or the new bytes, never half. */
static int write_text(uint8_t *at, const uint8_t *code, size_t len)
{
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t start = (uintptr_t)at & ~(uintptr_t)(pg - 1);
	uintptr_t end = ((uintptr_t)at + len + (uintptr_t)pg - 1) & ~(uintptr_t)(pg - 1);
	if (mprotect((void *)start, end - start, PROT_READ | PROT_WRITE | PROT_EXEC))
		return -errno;
	uintptr_t word = (uintptr_t)at & ~(uintptr_t)7;
	if ((uintptr_t)at + len <= word + 8) {
		uint64_t v;
		memcpy(&v, (void *)word, 8);
		memcpy((uint8_t *)&v + ((uintptr_t)at - word), code, len);
		__atomic_store_n((uint64_t *)word, v, __ATOMIC_SEQ_CST);
	} else {
		memcpy(at, code, len);
	}
	mprotect((void *)start, end - start, PROT_READ | PROT_EXEC);
	return 0;
}

int argus_hook_install(struct argus_hook_arena *a, void *target, void *replacement, void **orig)
{
	uintptr_t t = (uintptr_t)target;
	for (unsigned i = 0; i < a->nhooked; i++)
		if (a->hooked[i] == target)
			return -EEXIST;
	if (a->nhooked == MAX_HOOKS_PER_ARENA)
		return -ENOSPC;

	uint8_t *slot = slot_near(a, t);
	bool near = slot != NULL;
	if (!slot && !(slot = slot_far()))
		return -ENOMEM;
	size_t patch_len = near ? NEAR_JMP_LEN : ABS_JMP_LEN;

	csh cs;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return -ENOTSUP;
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	cs_insn *insn = NULL;
	size_t n = cs_disasm(cs, target, 32, t, 0, &insn);

	/* Layout of a slot: relay (absolute jump to the replacement), then the
	 * trampoline: relocated prologue + absolute jump back. */
	uint8_t buf[SLOT_SIZE];
	size_t relay_len = emit_abs_jmp(buf, (uintptr_t)replacement);
	size_t tramp_off = (relay_len + 15) & ~(size_t)15;
	memset(buf + relay_len, 0xcc, tramp_off - relay_len);
	size_t out = tramp_off, consumed = 0;
	int err = 0;
	for (size_t i = 0; i < n && consumed < patch_len; i++) {
		if (out + 32 > SLOT_SIZE) {
			err = -ENOSPC;
			break;
		}
		/* Relocated in place: RIP-relative displacements depend on it. */
		int w = relocate(&insn[i], slot + out);
		if (w < 0) {
			err = w;
			break;
		}
		memcpy(buf + out, slot + out, (size_t)w);
		out += (size_t)w;
		consumed += insn[i].size;
		unsigned id = insn[i].id;
		if (consumed < patch_len &&
		    (id == X86_INS_RET || id == X86_INS_RETF || id == X86_INS_JMP ||
		     id == X86_INS_UD2 || id == X86_INS_INT3)) {
			err = -ENOSPC; /* the function ends before the patch does */
			break;
		}
	}
	if (!err && consumed < patch_len)
		err = -ENOSPC;
	cs_free(insn, n);
	cs_close(&cs);
	if (err) {
		memset(slot, 0xcc, SLOT_SIZE); /* slot is wasted but harmless */
		return err;
	}
	out += emit_abs_jmp(buf + out, t + consumed);
	memcpy(slot, buf, out);

	uint8_t patch[ABS_JMP_LEN];
	if (near) {
		patch[0] = 0xe9;
		int32_t rel = (int32_t)((intptr_t)slot - (intptr_t)(t + NEAR_JMP_LEN));
		memcpy(patch + 1, &rel, 4);
	} else {
		emit_abs_jmp(patch, (uintptr_t)replacement);
	}
	if (orig)
		*orig = slot + tramp_off;
	int rc = write_text(target, patch, patch_len);
	if (rc)
		return rc;
	a->hooked[a->nhooked++] = target;
	return 0;
}

int argus_hook_prune(void *target)
{
	static const uint8_t ret0[] = {0x31, 0xc0, 0xc3}; /* xor eax, eax; ret */
	return write_text(target, ret0, sizeof(ret0));
}

#else /* not x86-64 */

struct argus_hook_arena {
	int unused;
};

struct argus_hook_arena *argus_hook_arena_new(void)
{
	return calloc(1, sizeof(struct argus_hook_arena));
}

void argus_hook_arena_free(struct argus_hook_arena *a)
{
	free(a);
}

int argus_hook_install(struct argus_hook_arena *a, void *target, void *replacement, void **orig)
{
	(void)a, (void)target, (void)replacement, (void)orig;
	return -ENOTSUP;
}

int argus_hook_prune(void *target)
{
	(void)target;
	return -ENOTSUP;
}

#endif
