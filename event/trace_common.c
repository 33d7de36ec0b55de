/* Shared by the trace writer and reader: checksums, block checks, the chunk
 * transform, error lines and machine metadata. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "trace_format.h"

uint32_t tf_crc32(const void *p, size_t n)
{
	uLong c = crc32(0L, Z_NULL, 0);
	const Bytef *b = p;
	/* zlib takes uInt lengths */
	while (n) {
		uInt part = n > (1u << 30) ? (1u << 30) : (uInt)n;
		c = crc32(c, b, part);
		b += part;
		n -= part;
	}
	return (uint32_t)c;
}

void tf_block_seal(struct tf_block *b)
{
	b->magic = TF_BLOCK_MAGIC;
	b->hdr_crc = tf_crc32(b, offsetof(struct tf_block, hdr_crc));
}

const char *tf_block_check(const struct tf_block *b)
{
	if (b->magic != TF_BLOCK_MAGIC)
		return "no block magic";
	if (!TF_CRC_MATCH(b->hdr_crc, tf_crc32(b, offsetof(struct tf_block, hdr_crc))))
		return "block header checksum mismatch";
	if (b->raw_size > TF_MAX_RAW || b->stored_size > TF_MAX_STORED)
		return "block size out of bounds";
	if (b->kind < TF_EVENTS || b->kind > TF_TRAILER)
		return NULL; /* unknown kinds are skipped by size */
	if (b->codec > TF_CODEC_ZSTD)
		return "unknown codec";
	if (b->codec == TF_CODEC_NONE && b->stored_size != b->raw_size)
		return "stored size differs from raw size without compression";
	if (b->kind == TF_EVENTS) {
		if (b->transform > TF_XFORM_TSDELTA)
			return "unknown event transform";
		if (b->count == 0 || b->count > TF_MAX_CHUNK_EVENTS ||
		    (uint64_t)b->count * sizeof(struct argus_event) != b->raw_size)
			return "event count does not match chunk size";
		if (b->min_ts > b->max_ts)
			return "chunk time range reversed";
	} else if (b->transform != TF_XFORM_NONE) {
		return "transform on a table block";
	}
	return NULL;
}

/*
 * TSDELTA: each ts becomes the difference to the previous record's ts
 * (modulo 2^64; the first keeps its value). Records stay 64-byte rows: in
 * real and synthetic traces whole records repeat (same thread, type, object,
 * a small delta), which zstd matches as long runs. Measured on argus synth
 * data this beat byte- and word-transposed layouts on both size and speed
 * (docs/trace-format.md).
 */
void tf_tsdelta_encode(struct argus_event *ev, size_t n)
{
	uint64_t prev = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t ts = ev[i].ts;
		ev[i].ts = ts - prev;
		prev = ts;
	}
}

void tf_tsdelta_decode(struct argus_event *ev, size_t n, uint64_t *min_ts, uint64_t *max_ts)
{
	uint64_t ts = 0, lo = UINT64_MAX, hi = 0;
	for (size_t i = 0; i < n; i++) {
		ts += ev[i].ts;
		ev[i].ts = ts;
		lo = ts < lo ? ts : lo;
		hi = ts > hi ? ts : hi;
	}
	*min_ts = lo;
	*max_ts = hi;
}

void tf_error(struct argus_trace_error *err, int code, const char *name, uint64_t off,
              const char *fmt, ...)
{
	if (!err)
		return;
	err->code = code;
	err->offset = off;
	int k = snprintf(err->msg, sizeof(err->msg), "%s: offset %llu: ", name ? name : "?",
	                 (unsigned long long)off);
	if (k < 0 || (size_t)k >= sizeof(err->msg))
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->msg + k, sizeof(err->msg) - (size_t)k, fmt, ap);
	va_end(ap);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static void read_boot_id(uint8_t id[16])
{
	char buf[64] = "";
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	size_t k = 0;
	for (const char *p = buf; *p && k < 32; p++) {
		int v = hexval(*p);
		if (v < 0)
			continue;
		if (k % 2 == 0)
			id[k / 2] = (uint8_t)(v << 4);
		else
			id[k / 2] |= (uint8_t)v;
		k++;
	}
	if (k != 32)
		memset(id, 0, 16);
}

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;
	if (clock_gettime(c, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Append src to the NUL-terminated dst of cap bytes, cutting what does not fit. */
static void append(char *dst, size_t cap, const char *src)
{
	size_t have = strnlen(dst, cap - 1);
	size_t n = strnlen(src, cap - 1 - have);
	memcpy(dst + have, src, n);
	dst[have + n] = '\0';
}

void argus_trace_meta_init(struct argus_trace_meta *meta, const char *producer)
{
	memset(meta, 0, sizeof(*meta));
	meta->version = ARGUS_TRACE_VERSION;
	meta->schema = ARGUS_SCHEMA_VERSION;
	meta->clock = CLOCK_MONOTONIC;
	read_boot_id(meta->boot_id);
	meta->start_mono_ns = clock_ns(CLOCK_MONOTONIC);
	meta->start_real_ns = clock_ns(CLOCK_REALTIME);
	struct utsname u;
	if (uname(&u) == 0) {
		append(meta->host, sizeof(meta->host), u.nodename);
		append(meta->kernel, sizeof(meta->kernel), u.release);
		append(meta->kernel, sizeof(meta->kernel), " ");
		append(meta->kernel, sizeof(meta->kernel), u.version);
	}
	append(meta->producer, sizeof(meta->producer), producer ? producer : "argus");
}
