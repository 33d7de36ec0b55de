/*
 * trace_read_priv.h - what the trace reader's files share: the reader
 * object, its small containers and fault list (trace_tables.c), and the
 * table loaders that trace_read.c calls on the blocks it meets.
 */
#ifndef ARGUS_TRACE_READ_PRIV_H
#define ARGUS_TRACE_READ_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zstd.h>

#include "trace_format.h"

#define MAX_FAULTS_KEPT 4096 /* faults beyond are counted, not kept */
#define ARENA_BLOCK     (64u << 10)

struct blockref {
	uint64_t off;
	uint64_t min_ts, max_ts;
	uint32_t count;
	uint8_t kind;
};

struct arena_blk {
	struct arena_blk *next;
	size_t used, cap;
	_Alignas(8) uint8_t data[];
};

struct strref {
	uint32_t id;
	const char *s;
};

struct stackref {
	uint32_t id;
	uint32_t depth;
	const uint64_t *ips;
};

/* A growable array of fixed-size items. */
struct vec {
	void *p;
	size_t n, cap;
};

struct argus_trace_reader {
	char *name;
	/* the bytes: a mapping or caller memory, or a pipe read through buf */
	const uint8_t *mem;
	size_t size;
	void *map;
	bool stream;
	int fd;
	bool own_fd;
	uint8_t *buf;
	size_t buf_cap, buf_len;
	uint64_t buf_off; /* file offset of buf[0] */
	bool eof;

	struct argus_trace_meta meta;
	ZSTD_DCtx *dctx;
	uint8_t *raw; /* decompressed payload */
	size_t raw_cap;

	/* mapped files: the event chunks to visit; pipes: the scan offset */
	struct vec chunks; /* struct blockref */
	size_t chunk_next;
	uint64_t scan_off;
	bool scan_done;

	struct argus_event *evs;
	size_t ev_cap, nev, ev_next;
	uint64_t from, to;

	struct argus_trace_error *faults;
	size_t nfaults, faults_cap, fault_next;

	struct arena_blk *arena;
	struct vec strings; /* struct strref, ids rising */
	struct vec stacks;  /* struct stackref, ids rising */
	struct vec maps, build_ids, symbols, truths;

	struct argus_trace_health health;
};

/* trace_tables.c */
void *tr_vec_push(struct vec *v, size_t item);
void *tr_arena_alloc(struct argus_trace_reader *r, size_t n);
void tr_add_fault(struct argus_trace_reader *r, int code, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
const char *tr_kind_name(unsigned k);
bool tr_is_table(unsigned kind);
void tr_load_table(struct argus_trace_reader *r, uint64_t off, const struct tf_block *bh);

/* trace_read.c */
const uint8_t *tr_read_payload(struct argus_trace_reader *r, uint64_t off,
                               const struct tf_block *bh);

#endif /* ARGUS_TRACE_READ_PRIV_H */
