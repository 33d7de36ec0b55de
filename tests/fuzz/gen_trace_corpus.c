/*
 * Writes the seed corpus of the trace-reader fuzzer: a valid trace and
 * damaged variants (truncated, flipped chunk byte, bad index, no trailer,
 * damaged block header, newer version). `gen_trace_corpus DIR`.
 * The seeds are committed in tests/fuzz/corpus/trace/; rerun after a
 * format change.
 */
#include <stdio.h>

#include "trace_format.h"
#include "trace_sample.h"

static int put(const char *dir, const char *name, const uint8_t *p, size_t n)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
		fprintf(stderr, "gen_trace_corpus: cannot write %s\n", path);
		return 1;
	}
	return 0;
}

/* Offset of the k-th block of a kind (0 when none). */
static uint64_t block_at(const struct blob *b, unsigned kind, int k, struct tf_block *out)
{
	uint64_t off = TF_HEADER_SIZE;
	while (off + sizeof(*out) <= b->n) {
		memcpy(out, b->p + off, sizeof(*out));
		if (out->kind == kind && k-- == 0)
			return off;
		off += sizeof(*out) + out->stored_size;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: gen_trace_corpus DIR\n");
		return 2;
	}
	const char *dir = argv[1];
	struct blob b;
	if (sample_write(&b, 200, 32)) {
		fprintf(stderr, "gen_trace_corpus: cannot write the sample\n");
		return 1;
	}
	int rc = put(dir, "valid.argus", b.p, b.n);
	rc |= put(dir, "truncated.argus", b.p, b.n * 2 / 3);
	struct tf_block h;
	uint64_t ix = block_at(&b, TF_INDEX, 0, &h);
	rc |= put(dir, "no-trailer.argus", b.p, ix);

	uint8_t *c = malloc(b.n);
	memcpy(c, b.p, b.n);
	uint64_t ch = block_at(&b, TF_EVENTS, 2, &h);
	c[ch + sizeof(h) + h.stored_size / 2] ^= 0x20;
	rc |= put(dir, "corrupt-chunk.argus", c, b.n);

	memcpy(c, b.p, b.n);
	c[ix + sizeof(h) + 40] ^= 0x01;
	rc |= put(dir, "bad-index.argus", c, b.n);

	memcpy(c, b.p, b.n);
	ch = block_at(&b, TF_STRINGS, 1, &h);
	c[ch + 8] ^= 0x80; /* stored_size of a string table */
	rc |= put(dir, "bad-block-header.argus", c, b.n);

	memcpy(c, b.p, b.n);
	struct tf_header hd;
	memcpy(&hd, c, sizeof(hd));
	hd.version = ARGUS_TRACE_VERSION + 1;
	hd.crc = tf_crc32(&hd, offsetof(struct tf_header, crc));
	memcpy(c, &hd, sizeof(hd));
	rc |= put(dir, "newer-version.argus", c, TF_HEADER_SIZE + 64);
	free(c);
	free(b.p);
	return rc;
}
