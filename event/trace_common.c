/* Shared by the trace writer and reader: checksums, block checks, the ev1
 * chunk transform, error lines and machine metadata. */
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
	if (b->hdr_crc != tf_crc32(b, offsetof(struct tf_block, hdr_crc)))
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
		if (b->transform > TF_XFORM_EV1)
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
 * ev1: each ts becomes the difference to the previous event's ts (modulo
 * 2^64, the first to 0), then the n 64-byte records are transposed into 64
 * planes of n bytes (plane b holds byte b of every record). Neighbouring
 * records share most bytes, so the planes are long runs zstd compresses to
 * almost nothing. Works on groups of 64 records to stay in L1.
 */
#define EV_SZ 64
#define GROUP 64

void tf_ev1_encode(const struct argus_event *ev, size_t n, uint8_t *out)
{
	uint8_t tmp[GROUP * EV_SZ];
	uint64_t prev = 0;
	for (size_t base = 0; base < n; base += GROUP) {
		size_t g = n - base < GROUP ? n - base : GROUP;
		memcpy(tmp, ev + base, g * EV_SZ);
		for (size_t i = 0; i < g; i++) {
			uint64_t ts = ev[base + i].ts;
			uint64_t d = ts - prev;
			prev = ts;
			memcpy(tmp + i * EV_SZ, &d, 8);
		}
		for (size_t b = 0; b < EV_SZ; b++) {
			uint8_t *plane = out + b * n + base;
			const uint8_t *src = tmp + b;
			for (size_t i = 0; i < g; i++)
				plane[i] = src[i * EV_SZ];
		}
	}
}

void tf_ev1_decode(const uint8_t *in, size_t n, struct argus_event *ev)
{
	uint64_t prev = 0;
	for (size_t base = 0; base < n; base += GROUP) {
		size_t g = n - base < GROUP ? n - base : GROUP;
		uint8_t *dst = (uint8_t *)(ev + base);
		for (size_t b = 0; b < EV_SZ; b++) {
			const uint8_t *plane = in + b * n + base;
			for (size_t i = 0; i < g; i++)
				dst[i * EV_SZ + b] = plane[i];
		}
		for (size_t i = 0; i < g; i++) {
			prev += ev[base + i].ts;
			ev[base + i].ts = prev;
		}
	}
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
		snprintf(meta->host, sizeof(meta->host), "%s", u.nodename);
		snprintf(meta->kernel, sizeof(meta->kernel), "%s %s", u.release, u.version);
	}
	snprintf(meta->producer, sizeof(meta->producer), "%s", producer ? producer : "argus");
}
