/*
 * zoo-tokens.c - the library of bug zoo case B5: a tokenizer with a bug.
 * zoo_hash_tokens() walks the text token by token; an escape ('\\') at the
 * very end of the text is a token of length zero, so the cursor never
 * advances past it and only the caller's max_steps (a safety limit, as
 * libraries keep) ends the loop.
 */
#include "zoo-tokens.h"

/* Length of the token at s: a word, a single other character, or an
 * escape with what it escapes (the bug: a trailing escape has length 0). */
static inline __attribute__((always_inline)) size_t token_len(const char *s, size_t left)
{
	if (s[0] == '\\')
		return left >= 2 ? 2 : 0;
	size_t n = 0;
	while (n < left && ((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= '0' && s[n] <= '9')))
		n++;
	return n ? n : 1;
}

unsigned long zoo_hash_tokens(const char *text, size_t len, unsigned long max_steps,
                              unsigned long *steps)
{
	/* volatile: the hash is the work; it must not be folded away */
	volatile unsigned long h = 5381;
	size_t at = 0;
	unsigned long n = 0;
	while (at < len && n < max_steps) {
		size_t t = token_len(text + at, len - at);
		for (size_t i = 0; i < (t ? t : 1); i++)
			h = h * 33 + (unsigned char)text[at + i];
		at += t;
		n++;
	}
	*steps = n;
	return h;
}
