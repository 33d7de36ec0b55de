/*
 * trace_format.h - the on-disk layout of .argus trace files, private to
 * trace_*.c. docs/trace-format.md is the reference for other tools.
 *
 * A file is a 512-byte header followed by blocks. Every block is a 48-byte
 * block header and a payload; table blocks precede the event chunks that
 * refer to them, and a closed file ends with an INDEX block and a TRAILER
 * block. All integers are little-endian.
 */
#ifndef ARGUS_TRACE_FORMAT_H
#define ARGUS_TRACE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "event.h"

#define TF_MAGIC       "ARGUSTRC" /* 8 bytes, no NUL */
#define TF_HEADER_SIZE 512
#define TF_BYTE_ORDER  0x01020304u /* reads as 04 03 02 01 on disk (LE) */

struct tf_header {
	char magic[8];
	uint32_t version;     /* ARGUS_TRACE_VERSION */
	uint32_t header_size; /* TF_HEADER_SIZE */
	uint32_t schema;      /* ARGUS_SCHEMA_VERSION */
	uint32_t clock;       /* clockid_t of every ts */
	uint32_t flags;       /* ARGUS_TRACE_F_* */
	uint32_t byte_order;  /* TF_BYTE_ORDER */
	uint8_t boot_id[16];
	uint64_t start_mono_ns;
	uint64_t start_real_ns;
	char host[64];         /* NUL-padded */
	char kernel[128];      /* NUL-padded */
	char producer[64];     /* NUL-padded */
	uint32_t chunk_events; /* the writer's events per chunk (informational) */
	uint8_t reserved[184]; /* zero */
	uint32_t crc;          /* crc32 of bytes [0, 508) */
};
_Static_assert(sizeof(struct tf_header) == TF_HEADER_SIZE, "tf_header size");

#define TF_BLOCK_MAGIC 0x4b4c4241u /* "ABLK" */

enum tf_kind {
	TF_EVENTS = 1,
	TF_STRINGS = 2,
	TF_STACKS = 3,
	TF_MAPS = 4,
	TF_BUILD_IDS = 5,
	TF_SYMBOLS = 6,
	TF_TRUTHS = 7,
	TF_INDEX = 8,
	TF_TRAILER = 9,
};

enum tf_codec {
	TF_CODEC_NONE = 0,
	TF_CODEC_ZSTD = 1,
};

enum tf_transform {
	TF_XFORM_NONE = 0,
	TF_XFORM_TSDELTA = 1, /* events: each ts minus the previous record's ts */
};

struct tf_block {
	uint32_t magic;       /* TF_BLOCK_MAGIC */
	uint8_t kind;         /* enum tf_kind */
	uint8_t codec;        /* enum tf_codec */
	uint8_t transform;    /* enum tf_transform */
	uint8_t reserved0;    /* zero */
	uint32_t stored_size; /* payload bytes following this header */
	uint32_t raw_size;    /* payload bytes after decompression */
	uint32_t count;       /* events or table entries */
	uint32_t data_crc;    /* crc32 of the stored payload */
	uint64_t min_ts;      /* events: smallest ts; tables: 0 */
	uint64_t max_ts;      /* events: largest ts; tables: 0 */
	uint32_t reserved1;   /* zero */
	uint32_t hdr_crc;     /* crc32 of bytes [0, 44) of this header */
};
_Static_assert(sizeof(struct tf_block) == 48, "tf_block size");

/* Bounds every reader enforces before allocating anything. */
#define TF_MAX_CHUNK_EVENTS (1u << 20)
#define TF_MAX_RAW          (64u << 20) /* any block's decompressed payload */
#define TF_MAX_STORED       (TF_MAX_RAW + (TF_MAX_RAW >> 7) + (1u << 16))

/* Table entries. STRINGS: {u32 id, u32 len, len bytes}; STACKS: {u32 id,
 * u32 depth, depth x u64}. Ids rise strictly through a file. */
struct tf_str_ent {
	uint32_t id;
	uint32_t len;
};
struct tf_stack_ent {
	uint32_t id;
	uint32_t depth;
};

struct tf_map {
	uint64_t ts;
	uint32_t pid;
	uint32_t path_str;
	uint64_t start, end, pgoff;
	uint32_t prot;
	uint32_t reserved;
};
_Static_assert(sizeof(struct tf_map) == 48, "tf_map size");

struct tf_build_id {
	uint32_t path_str;
	uint32_t len;
	uint8_t id[32];
};
_Static_assert(sizeof(struct tf_build_id) == 40, "tf_build_id size");

struct tf_symbol {
	uint32_t path_str;
	uint32_t name_str;
	uint64_t offset;
	uint64_t size;
};
_Static_assert(sizeof(struct tf_symbol) == 24, "tf_symbol size");

struct tf_truth {
	uint32_t kind;
	uint32_t ui_pid, ui_tid;
	uint32_t reserved0;
	uint64_t stall_start, stall_end;
	uint32_t root_pid, root_tid;
	uint64_t root_start, root_end;
	uint32_t root_func_str;
	uint32_t desc_str;
};
_Static_assert(sizeof(struct tf_truth) == 64, "tf_truth size");

/* INDEX payload: one entry per block before it, in file order. */
struct tf_index_ent {
	uint64_t offset;
	uint64_t min_ts;
	uint64_t max_ts;
	uint32_t count;
	uint8_t kind;
	uint8_t reserved[3];
};
_Static_assert(sizeof(struct tf_index_ent) == 32, "tf_index_ent size");

/* TRAILER payload: the last block of a closed file (codec NONE). */
struct tf_trailer {
	uint64_t index_offset;
	uint64_t events;
	uint64_t blocks; /* blocks before the INDEX */
};
_Static_assert(sizeof(struct tf_trailer) == 24, "tf_trailer size");
#define TF_TRAILER_TOTAL (sizeof(struct tf_block) + sizeof(struct tf_trailer))

/* Fuzz builds accept any checksum so the fuzzer reaches the parsers behind
 * them (libFuzzer's convention); every other build checks. */
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define TF_CRC_MATCH(stored, computed) ((void)(stored), (void)(computed), 1)
#else
#define TF_CRC_MATCH(stored, computed) ((stored) == (computed))
#endif

/* trace_common.c */
uint32_t tf_crc32(const void *p, size_t n);
void tf_block_seal(struct tf_block *b); /* sets magic and hdr_crc */
/* Header fields that are valid and in bounds; NULL when so, else what is wrong. */
const char *tf_block_check(const struct tf_block *b);
/* The TSDELTA transform, in place; decode also gives the smallest and
 * largest ts (the block header's min_ts / max_ts). */
void tf_tsdelta_encode(struct argus_event *ev, size_t n);
void tf_tsdelta_decode(struct argus_event *ev, size_t n, uint64_t *min_ts, uint64_t *max_ts);
void tf_error(struct argus_trace_error *err, int code, const char *name, uint64_t off,
              const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#endif /* ARGUS_TRACE_FORMAT_H */
