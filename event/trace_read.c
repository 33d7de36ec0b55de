/*
 * The .argus trace reader. Validates everything it reads: each fault is one
 * line "FILE: offset N: what" and costs only the block it is in; iteration
 * goes on with the next intact block. Files are mapped and read through the
 * trailer index when it is intact (or a scan of block headers when not);
 * pipes are read sequentially. Format: docs/trace-format.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "trace_read_priv.h"

/* ---- bytes ---- */

/* bytes looked at per step when searching for the next block after damage */
#define SCAN_WINDOW 65536

/* Up to len bytes at off; *avail says how many there are. Pipes move
 * forward only: bytes before off are dropped once buf needs the room. */
static const uint8_t *peek(struct argus_trace_reader *r, uint64_t off, size_t len, size_t *avail)
{
	if (!r->stream) {
		if (off >= r->size) {
			*avail = 0;
			return NULL;
		}
		size_t left = r->size - (size_t)off;
		*avail = len < left ? len : left;
		return r->mem + off;
	}
	*avail = 0;
	if (off < r->buf_off)
		return NULL; /* never happens: scans only move forward */
	if (off + len > r->buf_off + r->buf_cap) {
		/* make room: drop what lies before off, grow to len */
		size_t skip =
		    off - r->buf_off < r->buf_len ? (size_t)(off - r->buf_off) : r->buf_len;
		if (skip) {
			memmove(r->buf, r->buf + skip, r->buf_len - skip);
			r->buf_len -= skip;
			r->buf_off += skip;
		}
		if (len > r->buf_cap || !r->buf_cap) {
			size_t cap = r->buf_cap ? r->buf_cap : (1u << 20);
			while (cap < len)
				cap *= 2;
			uint8_t *p = realloc(r->buf, cap);
			if (!p)
				return NULL;
			r->buf = p;
			r->buf_cap = cap;
		}
		while (r->buf_off < off && !r->eof) {
			/* the caller skips past buffered bytes (buf is empty here):
			 * read them into buf and drop them */
			size_t want = off - r->buf_off < r->buf_cap ? (size_t)(off - r->buf_off)
			                                            : r->buf_cap;
			ssize_t k = read(r->fd, r->buf, want);
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0) {
				r->eof = true;
				break;
			}
			r->buf_off += (size_t)k;
		}
		if (r->buf_off < off)
			return NULL;
	}
	size_t at = (size_t)(off - r->buf_off);
	while (r->buf_len < at + len && !r->eof) {
		ssize_t k = read(r->fd, r->buf + r->buf_len, r->buf_cap - r->buf_len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			r->eof = true;
			break;
		}
		r->buf_len += (size_t)k;
	}
	size_t have = r->buf_len > at ? r->buf_len - at : 0;
	*avail = have < len ? have : len;
	return r->buf + at;
}

/* The block header at off: 0 valid, else ETRUNC / ECORRUPT with *why. */
static int read_header(struct argus_trace_reader *r, uint64_t off, struct tf_block *bh,
                       const char **why, size_t *have)
{
	const uint8_t *p = peek(r, off, sizeof(*bh), have);
	if (*have < sizeof(*bh)) {
		*why = "file ends inside a block header";
		return ARGUS_TRACE_ETRUNC;
	}
	memcpy(bh, p, sizeof(*bh));
	*why = tf_block_check(bh);
	return *why ? ARGUS_TRACE_ECORRUPT : 0;
}

/* Stored payload of a checked header, or NULL (fault recorded). */
static const uint8_t *read_stored(struct argus_trace_reader *r, uint64_t off,
                                  const struct tf_block *bh)
{
	size_t have;
	const uint8_t *p = peek(r, off + sizeof(*bh), bh->stored_size, &have);
	if (have < bh->stored_size) {
		tr_add_fault(r, ARGUS_TRACE_ETRUNC, off,
		             "file ends inside a %s (%zu of %u payload bytes)",
		             tr_kind_name(bh->kind), have, bh->stored_size);
		return NULL;
	}
	if (!TF_CRC_MATCH(bh->data_crc, tf_crc32(p, bh->stored_size))) {
		tr_add_fault(r, ARGUS_TRACE_ECORRUPT, off, "%s checksum mismatch",
		             tr_kind_name(bh->kind));
		return NULL;
	}
	return p;
}

/* The checked stored payload, or NULL (fault recorded). A zstd payload's
 * frame must say it holds raw_size bytes: checked before anything is
 * allocated for it, so that a block header cannot make the reader allocate
 * what the payload does not hold (a small block claiming 64 MiB). */
static const uint8_t *read_frame(struct argus_trace_reader *r, uint64_t off,
                                 const struct tf_block *bh)
{
	const uint8_t *p = read_stored(r, off, bh);
	if (!p || bh->codec == TF_CODEC_NONE)
		return p;
	unsigned long long n = ZSTD_getFrameContentSize(p, bh->stored_size);
	if (n != bh->raw_size) {
		if (n == ZSTD_CONTENTSIZE_ERROR || n == ZSTD_CONTENTSIZE_UNKNOWN)
			tr_add_fault(r, ARGUS_TRACE_ECORRUPT, off,
			             "%s does not decompress: %s", tr_kind_name(bh->kind),
			             n == ZSTD_CONTENTSIZE_ERROR ? "not a zstd frame"
			                                         : "frame without its size");
		else
			tr_add_fault(r, ARGUS_TRACE_ECORRUPT, off,
			             "%s does not decompress: frame of %llu bytes, %u in the header",
			             tr_kind_name(bh->kind), n, bh->raw_size);
		return NULL;
	}
	return p;
}

/* The payload p (from read_frame) decompressed into dst (raw_size bytes);
 * false when damaged (fault recorded). */
static bool decode_into(struct argus_trace_reader *r, uint64_t off, const struct tf_block *bh,
                        const uint8_t *p, void *dst)
{
	if (bh->codec == TF_CODEC_NONE) {
		if (bh->raw_size)
			memcpy(dst, p, bh->raw_size);
		return true;
	}
	if (!r->dctx && !(r->dctx = ZSTD_createDCtx())) {
		tr_add_fault(r, ARGUS_TRACE_ENOMEM, off, "out of memory for a %s",
		             tr_kind_name(bh->kind));
		return false;
	}
	size_t z = ZSTD_decompressDCtx(r->dctx, dst, bh->raw_size, p, bh->stored_size);
	if (ZSTD_isError(z) || z != bh->raw_size) {
		tr_add_fault(r, ARGUS_TRACE_ECORRUPT, off, "%s does not decompress: %s",
		             tr_kind_name(bh->kind),
		             ZSTD_isError(z) ? ZSTD_getErrorName(z) : "size mismatch");
		return false;
	}
	return true;
}

/* A table's checked, decompressed payload, or NULL (fault recorded). */
const uint8_t *tr_read_payload(struct argus_trace_reader *r, uint64_t off,
                               const struct tf_block *bh)
{
	const uint8_t *p = read_frame(r, off, bh);
	if (!p || bh->codec == TF_CODEC_NONE)
		return p;
	if (bh->raw_size > r->raw_cap) {
		uint8_t *n = realloc(r->raw, bh->raw_size);
		if (!n) {
			tr_add_fault(r, ARGUS_TRACE_ENOMEM, off, "out of memory for a %s",
			             tr_kind_name(bh->kind));
			return NULL;
		}
		r->raw = n;
		r->raw_cap = bh->raw_size;
	}
	return decode_into(r, off, bh, p, r->raw) ? r->raw : NULL;
}

/*
 * Next valid block header at or after *off, for sequential reading: 1 =
 * found (*off moved to it), 0 = end. A damaged header is reported and
 * skipped by searching for the next valid one.
 */
static int scan_block(struct argus_trace_reader *r, uint64_t *off, struct tf_block *bh)
{
	const char *why;
	size_t have;
	int rc = read_header(r, *off, bh, &why, &have);
	if (!rc)
		return 1;
	if (rc == ARGUS_TRACE_ETRUNC) {
		if (have)
			tr_add_fault(r, rc, *off, "%s (%zu of %zu bytes)", why, have, sizeof(*bh));
		return 0;
	}
	/* the next block magic is looked for a window at a time (memmem), then
	 * its header checked; a header that fails is passed over by one byte.
	 * A pipe is looked at a header at a time: a window would wait for
	 * bytes the writer has not written yet. */
	uint64_t bad = *off;
	const uint32_t magic = TF_BLOCK_MAGIC;
	const size_t window = r->stream ? sizeof(*bh) : SCAN_WINDOW;
	for (uint64_t o = bad + 1;;) {
		const uint8_t *p = peek(r, o, window, &have);
		if (have < sizeof(magic)) {
			tr_add_fault(r, ARGUS_TRACE_ECORRUPT, bad, "%s; no intact block follows",
			             why);
			return 0;
		}
		const uint8_t *m = memmem(p, have, &magic, sizeof(magic));
		if (!m) {
			o += have - (sizeof(magic) - 1);
			continue;
		}
		o += (uint64_t)(m - p);
		p = peek(r, o, sizeof(*bh), &have);
		if (have == sizeof(*bh)) {
			memcpy(bh, p, sizeof(*bh));
			if (!tf_block_check(bh)) {
				tr_add_fault(r, ARGUS_TRACE_ECORRUPT, bad,
				             "%s; skipped %llu bytes to the next block", why,
				             (unsigned long long)(o - bad));
				*off = o;
				return 1;
			}
		}
		o++;
	}
}

/* ---- event chunks ---- */

static bool chunk_in_range(const struct argus_trace_reader *r, uint64_t lo, uint64_t hi)
{
	return hi >= r->from && lo <= r->to;
}

/* Decode the chunk at off into r->evs; false when it is damaged (counted). */
static bool load_chunk(struct argus_trace_reader *r, uint64_t off, const struct tf_block *bh)
{
	r->nev = r->ev_next = 0;
	r->health.chunks_decoded++;
	const uint8_t *p = read_frame(r, off, bh);
	bool ok = p != NULL;
	if (ok && bh->count > r->ev_cap) {
		struct argus_event *n = realloc(r->evs, (size_t)bh->count * sizeof(*n));
		if (!n) {
			tr_add_fault(r, ARGUS_TRACE_ENOMEM, off,
			             "out of memory for an event chunk");
			ok = false;
		} else {
			r->evs = n;
			r->ev_cap = bh->count;
		}
	}
	/* straight into the event array: no copy on the fast path */
	if (ok)
		ok = decode_into(r, off, bh, p, r->evs);
	if (ok) {
		uint64_t lo = UINT64_MAX, hi = 0;
		if (bh->transform == TF_XFORM_TSDELTA) {
			tf_tsdelta_decode(r->evs, bh->count, &lo, &hi);
		} else {
			for (uint32_t i = 0; i < bh->count; i++) {
				lo = r->evs[i].ts < lo ? r->evs[i].ts : lo;
				hi = r->evs[i].ts > hi ? r->evs[i].ts : hi;
			}
		}
		if (lo != bh->min_ts || hi != bh->max_ts) {
			tr_add_fault(r, ARGUS_TRACE_ECORRUPT, off,
			             "event chunk times differ from its header");
			ok = false;
		}
	}
	if (!ok) {
		r->health.chunks_bad++;
		r->health.events_lost += bh->count;
		return false;
	}
	r->health.chunks_ok++;
	r->nev = bh->count;
	return true;
}

/* A block met while reading a pipe (or scanning a file): tables load,
 * chunks decode, the rest is passed over. */
static void take_block(struct argus_trace_reader *r, uint64_t off, const struct tf_block *bh)
{
	if (tr_is_table(bh->kind)) {
		tr_load_table(r, off, bh);
	} else if (bh->kind == TF_EVENTS) {
		if (!chunk_in_range(r, bh->min_ts, bh->max_ts)) {
			r->health.chunks_skipped++;
			return;
		}
		load_chunk(r, off, bh);
	}
}

/* ---- opening ---- */

static int check_header(struct argus_trace_reader *r, struct argus_trace_error *err)
{
	size_t have;
	const uint8_t *p = peek(r, 0, TF_HEADER_SIZE, &have);
	size_t m = have < 8 ? have : 8;
	if (m && memcmp(p, TF_MAGIC, m) != 0) {
		tf_error(err, ARGUS_TRACE_EMAGIC, r->name, 0, "not an argus trace (bad magic)");
		return ARGUS_TRACE_EMAGIC;
	}
	if (have < TF_HEADER_SIZE) {
		tf_error(err, ARGUS_TRACE_ETRUNC, r->name, have,
		         "file ends inside the header (%zu of %u bytes)", have, TF_HEADER_SIZE);
		return ARGUS_TRACE_ETRUNC;
	}
	struct tf_header h;
	memcpy(&h, p, sizeof(h));
	if (h.version > ARGUS_TRACE_VERSION) {
		tf_error(err, ARGUS_TRACE_EVERSION, r->name, offsetof(struct tf_header, version),
		         "format version %u is newer than this argus reads (%u)", h.version,
		         ARGUS_TRACE_VERSION);
		return ARGUS_TRACE_EVERSION;
	}
	if (!TF_CRC_MATCH(h.crc, tf_crc32(&h, offsetof(struct tf_header, crc)))) {
		tf_error(err, ARGUS_TRACE_ECORRUPT, r->name, offsetof(struct tf_header, crc),
		         "header checksum mismatch");
		return ARGUS_TRACE_ECORRUPT;
	}
	if (h.version == 0 || h.header_size != TF_HEADER_SIZE || h.byte_order != TF_BYTE_ORDER) {
		tf_error(err, ARGUS_TRACE_ECORRUPT, r->name, offsetof(struct tf_header, version),
		         "bad header (version %u, size %u, byte order %#x)", h.version,
		         h.header_size, h.byte_order);
		return ARGUS_TRACE_ECORRUPT;
	}
	if (h.schema > ARGUS_SCHEMA_VERSION) {
		tf_error(err, ARGUS_TRACE_EVERSION, r->name, offsetof(struct tf_header, schema),
		         "event schema %u is newer than this argus reads (%u)", h.schema,
		         ARGUS_SCHEMA_VERSION);
		return ARGUS_TRACE_EVERSION;
	}
	struct argus_trace_meta *m_ = &r->meta;
	m_->version = h.version;
	m_->schema = h.schema;
	m_->clock = h.clock;
	m_->flags = h.flags;
	memcpy(m_->boot_id, h.boot_id, sizeof(h.boot_id));
	m_->start_mono_ns = h.start_mono_ns;
	m_->start_real_ns = h.start_real_ns;
	memcpy(m_->host, h.host, strnlen(h.host, sizeof(m_->host) - 1));
	memcpy(m_->kernel, h.kernel, strnlen(h.kernel, sizeof(m_->kernel) - 1));
	memcpy(m_->producer, h.producer, strnlen(h.producer, sizeof(m_->producer) - 1));
	return 0;
}

/* The block list from the trailer's index; false (with a fault when the
 * trailer was there) when it cannot be trusted. */
static bool use_index(struct argus_trace_reader *r, struct vec *blocks)
{
	if (r->size < TF_HEADER_SIZE + TF_TRAILER_TOTAL)
		return false;
	uint64_t toff = r->size - TF_TRAILER_TOTAL;
	struct tf_block tb, ib;
	const char *why;
	size_t have;
	if (read_header(r, toff, &tb, &why, &have) || tb.kind != TF_TRAILER ||
	    tb.stored_size != sizeof(struct tf_trailer))
		return false; /* not closed: killed, still being written, or streamed */
	const uint8_t *p = read_stored(r, toff, &tb);
	if (!p)
		return false;
	struct tf_trailer t;
	memcpy(&t, p, sizeof(t));
	uint64_t ioff = t.index_offset;
	if (ioff < TF_HEADER_SIZE || ioff > toff - sizeof(struct tf_block)) {
		tr_add_fault(r, ARGUS_TRACE_ECORRUPT, toff,
		             "bad index: offset %llu out of the file", (unsigned long long)ioff);
		return false;
	}
	if (read_header(r, ioff, &ib, &why, &have) || ib.kind != TF_INDEX ||
	    ib.codec != TF_CODEC_NONE || ioff + sizeof(ib) + ib.stored_size != toff ||
	    (uint64_t)ib.count * sizeof(struct tf_index_ent) != ib.raw_size ||
	    ib.count != t.blocks) {
		tr_add_fault(r, ARGUS_TRACE_ECORRUPT, ioff, "bad index: %s",
		             why ? why : "not an index block of the trailer's size");
		return false;
	}
	/* the index ends where the trailer starts: its payload is all there */
	p = peek(r, ioff + sizeof(ib), ib.stored_size, &have);
	if (have < ib.stored_size || !TF_CRC_MATCH(ib.data_crc, tf_crc32(p, ib.stored_size))) {
		tr_add_fault(r, ARGUS_TRACE_ECORRUPT, ioff, "bad index: checksum mismatch");
		return false;
	}
	/* The index is intact (checksum): it may still lead to a damaged block
	 * header; that block is reported when reached, the rest stays indexed. */
	uint64_t expect = TF_HEADER_SIZE, events = 0;
	bool unsure = false; /* the previous header is damaged: its end is unknown */
	for (uint32_t i = 0; i < ib.count; i++) {
		struct tf_index_ent e;
		memcpy(&e, p + (size_t)i * sizeof(e), sizeof(e));
		struct tf_block bh;
		const char *fault = NULL;
		bool damaged = false;
		if ((unsure ? e.offset < expect : e.offset != expect) ||
		    e.offset > ioff - sizeof(bh))
			fault = "entries do not tile the file";
		else if (read_header(r, e.offset, &bh, &why, &have))
			damaged = true;
		else if (bh.kind != e.kind || bh.count != e.count || bh.min_ts != e.min_ts ||
		         bh.max_ts != e.max_ts)
			fault = "entry disagrees with its block";
		if (fault) {
			blocks->n = 0;
			tr_add_fault(r, ARGUS_TRACE_ECORRUPT, ioff, "bad index: entry %u: %s", i,
			             fault);
			return false;
		}
		struct blockref *b = tr_vec_push(blocks, sizeof(*b));
		if (!b) {
			blocks->n = 0;
			return false;
		}
		*b = (struct blockref){e.offset, e.min_ts, e.max_ts, e.count, e.kind};
		unsure = damaged;
		expect = e.offset + sizeof(bh) + (damaged ? 0 : bh.stored_size);
		if (e.kind == TF_EVENTS)
			events += e.count;
	}
	if ((unsure ? expect > ioff : expect != ioff) || events != t.events) {
		blocks->n = 0;
		tr_add_fault(r, ARGUS_TRACE_ECORRUPT, ioff, "bad index: %s",
		             events == t.events ? "entries do not reach the index"
		                                : "event count differs");
		return false;
	}
	return true;
}

/* Mapped files: the block list (index or scan), tables loaded, chunks listed. */
static int prepare_mem(struct argus_trace_reader *r)
{
	struct vec blocks = {0};
	r->health.indexed = use_index(r, &blocks);
	if (!r->health.indexed) {
		uint64_t off = TF_HEADER_SIZE;
		struct tf_block bh;
		while (scan_block(r, &off, &bh)) {
			struct blockref *b = tr_vec_push(&blocks, sizeof(*b));
			if (!b) {
				free(blocks.p);
				return ARGUS_TRACE_ENOMEM;
			}
			*b = (struct blockref){off, bh.min_ts, bh.max_ts, bh.count, bh.kind};
			size_t have;
			peek(r, off + sizeof(bh), bh.stored_size, &have);
			if (have < bh.stored_size) {
				tr_add_fault(r, ARGUS_TRACE_ETRUNC, off,
				             "file ends inside a %s (%zu of %u payload bytes)",
				             tr_kind_name(bh.kind), have, bh.stored_size);
				if (bh.kind == TF_EVENTS) {
					r->health.chunks_bad++;
					r->health.events_lost += bh.count;
				}
				blocks.n--;
				break;
			}
			off += sizeof(bh) + bh.stored_size;
		}
	}
	const struct blockref *b = blocks.p;
	for (size_t i = 0; i < blocks.n; i++) {
		if (tr_is_table(b[i].kind)) {
			struct tf_block bh;
			const char *why;
			size_t have;
			if (!read_header(r, b[i].off, &bh, &why, &have))
				tr_load_table(r, b[i].off, &bh);
			else /* only through the index: a scan lists intact headers */
				tr_add_fault(r, ARGUS_TRACE_ECORRUPT, b[i].off, "%s", why);
		} else if (b[i].kind == TF_EVENTS) {
			struct blockref *c = tr_vec_push(&r->chunks, sizeof(*c));
			if (!c) {
				free(blocks.p);
				return ARGUS_TRACE_ENOMEM;
			}
			*c = b[i];
		}
	}
	free(blocks.p);
	return 0;
}

static struct argus_trace_reader *reader_new(const char *name)
{
	struct argus_trace_reader *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->fd = -1;
	r->to = UINT64_MAX;
	r->name = strdup(name ? name : "(trace)");
	if (!r->name) { /* the zstd context is made at the first compressed block */
		argus_trace_close(r);
		return NULL;
	}
	return r;
}

static int finish_open(struct argus_trace_reader **rp, struct argus_trace_reader *r,
                       struct argus_trace_error *err)
{
	int rc = check_header(r, err);
	if (!rc) {
		r->scan_off = TF_HEADER_SIZE;
		if (!r->stream)
			rc = prepare_mem(r);
		if (rc)
			tf_error(err, rc, r->name, 0, "out of memory");
	}
	if (rc) {
		argus_trace_close(r);
		return rc;
	}
	*rp = r;
	return 0;
}

int argus_trace_open_mem(struct argus_trace_reader **rp, const void *data, size_t size,
                         const char *name, struct argus_trace_error *err)
{
	if (!rp || (!data && size)) {
		tf_error(err, ARGUS_TRACE_EINVAL, name, 0, "invalid argument");
		return ARGUS_TRACE_EINVAL;
	}
	*rp = NULL;
	struct argus_trace_reader *r = reader_new(name);
	if (!r) {
		tf_error(err, ARGUS_TRACE_ENOMEM, name, 0, "out of memory");
		return ARGUS_TRACE_ENOMEM;
	}
	r->mem = data;
	r->size = size;
	return finish_open(rp, r, err);
}

int argus_trace_open(struct argus_trace_reader **rp, const char *path,
                     struct argus_trace_error *err)
{
	if (!rp || !path) {
		tf_error(err, ARGUS_TRACE_EINVAL, path, 0, "invalid argument");
		return ARGUS_TRACE_EINVAL;
	}
	*rp = NULL;
	bool is_stdin = !strcmp(path, "-");
	struct argus_trace_reader *r = reader_new(is_stdin ? "(stdin)" : path);
	if (!r) {
		tf_error(err, ARGUS_TRACE_ENOMEM, path, 0, "out of memory");
		return ARGUS_TRACE_ENOMEM;
	}
	int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		tf_error(err, ARGUS_TRACE_EIO, r->name, 0, "cannot open: %s", strerror(errno));
		if (fd >= 0 && !is_stdin)
			close(fd);
		argus_trace_close(r);
		return ARGUS_TRACE_EIO;
	}
	r->fd = fd;
	r->own_fd = !is_stdin;
	if (S_ISDIR(st.st_mode)) {
		tf_error(err, ARGUS_TRACE_EIO, r->name, 0, "cannot open: is a directory");
		argus_trace_close(r);
		return ARGUS_TRACE_EIO;
	}
	if (S_ISREG(st.st_mode) && st.st_size > 0) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m == MAP_FAILED) {
			tf_error(err, ARGUS_TRACE_EIO, r->name, 0, "cannot map: %s",
			         strerror(errno));
			argus_trace_close(r);
			return ARGUS_TRACE_EIO;
		}
		madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
		r->map = m;
		r->mem = m;
		r->size = (size_t)st.st_size;
	} else if (!S_ISREG(st.st_mode)) {
		r->stream = true; /* pipe, socket, terminal: read as it comes */
	}
	return finish_open(rp, r, err);
}

void argus_trace_close(struct argus_trace_reader *r)
{
	if (!r)
		return;
	if (r->map)
		munmap(r->map, r->size);
	if (r->own_fd && r->fd >= 0)
		close(r->fd);
	ZSTD_freeDCtx(r->dctx);
	free(r->buf);
	free(r->raw);
	free(r->chunks.p);
	free(r->evs);
	free(r->faults);
	while (r->arena) {
		struct arena_blk *n = r->arena->next;
		free(r->arena);
		r->arena = n;
	}
	free(r->strings.p);
	free(r->stacks.p);
	free(r->maps.p);
	free(r->build_ids.p);
	free(r->symbols.p);
	free(r->truths.p);
	free(r->name);
	free(r);
}

const struct argus_trace_meta *argus_trace_get_meta(const struct argus_trace_reader *r)
{
	return &r->meta;
}

void argus_trace_set_range(struct argus_trace_reader *r, uint64_t from, uint64_t to)
{
	r->from = from;
	r->to = to;
}

/* ---- iteration ---- */

/* Offset of the next block iteration will look at (for fault ordering). */
static uint64_t next_offset(const struct argus_trace_reader *r)
{
	if (r->stream)
		return r->scan_done ? UINT64_MAX : r->scan_off;
	if (r->chunk_next < r->chunks.n)
		return ((const struct blockref *)r->chunks.p)[r->chunk_next].off;
	return UINT64_MAX;
}

int argus_trace_next(struct argus_trace_reader *r, const struct argus_event **ev,
                     struct argus_trace_error *err)
{
	for (;;) {
		while (r->ev_next < r->nev) {
			const struct argus_event *e = &r->evs[r->ev_next++];
			if (e->ts >= r->from && e->ts <= r->to) {
				*ev = e;
				return 1;
			}
		}
		if (r->fault_next < r->nfaults &&
		    r->faults[r->fault_next].offset < next_offset(r)) {
			const struct argus_trace_error *f = &r->faults[r->fault_next++];
			if (err)
				*err = *f;
			return f->code;
		}
		if (!r->stream) {
			if (r->chunk_next >= r->chunks.n)
				return 0;
			const struct blockref *c =
			    (const struct blockref *)r->chunks.p + r->chunk_next++;
			if (!chunk_in_range(r, c->min_ts, c->max_ts)) {
				r->health.chunks_skipped++;
				continue;
			}
			struct tf_block bh;
			const char *why;
			size_t have;
			if (read_header(r, c->off, &bh, &why, &have)) {
				tr_add_fault(r, ARGUS_TRACE_ECORRUPT, c->off, "%s", why);
				r->health.chunks_bad++;
				r->health.events_lost += c->count;
				continue;
			}
			load_chunk(r, c->off, &bh);
			continue;
		}
		if (r->scan_done)
			return 0;
		struct tf_block bh;
		if (!scan_block(r, &r->scan_off, &bh)) {
			r->scan_done = true;
			continue;
		}
		uint64_t off = r->scan_off;
		size_t have;
		peek(r, off + sizeof(bh), bh.stored_size, &have);
		if (have < bh.stored_size) {
			tr_add_fault(r, ARGUS_TRACE_ETRUNC, off,
			             "file ends inside a %s (%zu of %u payload bytes)",
			             tr_kind_name(bh.kind), have, bh.stored_size);
			if (bh.kind == TF_EVENTS) {
				r->health.chunks_bad++;
				r->health.events_lost += bh.count;
			}
			r->scan_done = true;
			continue;
		}
		r->scan_off = off + sizeof(bh) + bh.stored_size;
		take_block(r, off, &bh);
	}
}
