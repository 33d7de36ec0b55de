/*
 * inline_hook.h - inline function hooks for x86-64, built with capstone.
 *
 * argus_hook_install() overwrites the first 5 bytes of a function with a
 * `jmp rel32` to a relay stub placed within +-2 GB of it (an mmap near the
 * target); the relay jumps (absolute) to the replacement. The instructions
 * the jump overwrote are decoded with capstone and relocated into a
 * trampoline next to the relay (RIP-relative operands re-based, relative
 * jmp / call / jcc rewritten as absolute ones), followed by a jump back into
 * the rest of the function: calling *orig runs the original function. When
 * no page can be mapped near the target, a 14-byte absolute jump is written
 * instead (then RIP-relative instructions in the prologue cannot be moved).
 *
 * Works for any function whose address is known, exported or not (static
 * functions, function pointers read from tables). Limits (docs/hooks.md):
 * a function shorter than the patch, or one whose first bytes are a jump
 * target inside the function, cannot be hooked safely.
 */
#ifndef ARGUS_INLINE_HOOK_H
#define ARGUS_INLINE_HOOK_H

/* Memory for relays and trampolines; owned by the caller, never unmapped
 * while hooks are installed. */
struct argus_hook_arena;

struct argus_hook_arena *argus_hook_arena_new(void);
/* Frees the bookkeeping only: installed hooks keep working. */
void argus_hook_arena_free(struct argus_hook_arena *a);

/*
 * Hook target: calls to it run replacement; *orig (may be NULL) is set to
 * a function that behaves as the original. Returns 0 or a negative errno:
 * -ENOTSUP (not x86-64, or an instruction that cannot be relocated),
 * -ENOSPC (function too short), -ERANGE (relocation out of reach), -EEXIST
 * (already hooked through this arena).
 */
int argus_hook_install(struct argus_hook_arena *a, void *target, void *replacement, void **orig);

/* Make target return 0 at once (`xor eax, eax; ret`): call pruning. */
int argus_hook_prune(void *target);

#endif /* ARGUS_INLINE_HOOK_H */
