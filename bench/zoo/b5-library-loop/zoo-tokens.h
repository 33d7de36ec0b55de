/* zoo-tokens.h - the library of bug zoo case B5 (zoo-tokens.c). */
#ifndef ZOO_TOKENS_H
#define ZOO_TOKENS_H
#include <stddef.h>

/* Hashes the tokens of text (len bytes), at most max_steps of them; the
 * steps taken go to *steps. */
unsigned long zoo_hash_tokens(const char *text, size_t len, unsigned long max_steps,
                              unsigned long *steps);

#endif
