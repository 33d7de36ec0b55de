/*
 * The .argus trace writer: append-only (works on pipes), tables written
 * incrementally before the chunk that first refers to them, so everything
 * before an unfinished chunk survives a crash. Format: docs/trace-format.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "hashmap.h"
#include "trace_format.h"

#define DEFAULT_CHUNK_EVENTS 65536u
#define DEFAULT_LEVEL        3
#define OUT_FLUSH            (1u << 20) /* write to the fd once this much is buffered */
#define TABLE_FLUSH          (8u << 20) /* pending table bytes that force a table block */
#define MAX_STRING_LEN       (1u << 20)

struct buf {
	uint8_t *p;
	size_t len, cap;
};

/* An interned key: data offset, length (bytes or frames), id. */
struct interned {
	uint64_t off;
	uint32_t len;
	uint32_t id;
};

struct intern {
	struct argus_hmap map; /* content hash -> interned */
	struct buf data;       /* the interned bytes, entries point into it by offset */
	uint32_t next_id;
};

enum { N_TABLES = TF_TRUTHS + 1 };

struct argus_trace_writer {
	int fd;
	bool own_fd;
	char *name;
	uint32_t chunk_events;
	int level;
	ZSTD_CCtx *cctx;

	struct argus_event *chunk;
	uint32_t nchunk;

	struct buf out;            /* bytes not yet written to fd */
	uint64_t off;              /* file offset of out.p[0] + out.len */
	struct buf pend[N_TABLES]; /* table entries not yet in a block */
	uint32_t pend_count[N_TABLES];
	struct buf index; /* tf_index_ent of every block so far */
	uint64_t nblocks;
	uint64_t events;

	struct intern strings, stacks;

	int failed; /* first error code, sticky */
	struct argus_trace_error err;
};

static uint64_t hash_bytes(const void *p, size_t n)
{
	/* FNV-1a, 64-bit: small keys, no dependency */
	const uint8_t *b = p;
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h ^ (h >> 29);
}

static int buf_reserve(struct buf *b, size_t more)
{
	if (more > SIZE_MAX / 2 - b->len)
		return -1;
	size_t need = b->len + more;
	if (need <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 4096;
	while (cap < need)
		cap *= 2;
	uint8_t *p = realloc(b->p, cap);
	if (!p)
		return -1;
	b->p = p;
	b->cap = cap;
	return 0;
}

static int buf_put(struct buf *b, const void *p, size_t n)
{
	if (!n)
		return 0;
	if (buf_reserve(b, n))
		return -1;
	memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}

static int fail_at(struct argus_trace_writer *w, int code, uint64_t off, const char *what)
{
	if (!w->failed) {
		w->failed = code;
		if (code == ARGUS_TRACE_EIO)
			tf_error(&w->err, code, w->name, off, "%s: %s", what, strerror(errno));
		else
			tf_error(&w->err, code, w->name, off, "%s", what);
	}
	return code;
}

static int fail(struct argus_trace_writer *w, int code, const char *what)
{
	return fail_at(w, code, w->off, what);
}

static int flush_out(struct argus_trace_writer *w)
{
	size_t done = 0;
	while (done < w->out.len) {
		ssize_t k = write(w->fd, w->out.p + done, w->out.len - done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (k == 0)
				errno = EIO;
			uint64_t at = w->off - w->out.len + done;
			w->out.len = 0;
			return fail_at(w, ARGUS_TRACE_EIO, at, "write failed");
		}
		done += (size_t)k;
	}
	w->out.len = 0;
	return 0;
}

/* Append one block; payload is either given or already placed right after
 * the header's space in out (payload == NULL). */
static int emit_block(struct argus_trace_writer *w, struct tf_block *bh, const void *payload)
{
	uint64_t block_off = w->off;
	if (payload) {
		if (buf_reserve(&w->out, sizeof(*bh) + bh->stored_size))
			return fail(w, ARGUS_TRACE_ENOMEM, "out of memory");
		memcpy(w->out.p + w->out.len + sizeof(*bh), payload, bh->stored_size);
	}
	bh->data_crc = tf_crc32(w->out.p + w->out.len + sizeof(*bh), bh->stored_size);
	tf_block_seal(bh);
	memcpy(w->out.p + w->out.len, bh, sizeof(*bh));
	w->out.len += sizeof(*bh) + bh->stored_size;
	w->off += sizeof(*bh) + bh->stored_size;

	if (bh->kind != TF_INDEX && bh->kind != TF_TRAILER) {
		struct tf_index_ent e = {.offset = block_off,
		                         .min_ts = bh->min_ts,
		                         .max_ts = bh->max_ts,
		                         .count = bh->count,
		                         .kind = bh->kind};
		if (buf_put(&w->index, &e, sizeof(e)))
			return fail(w, ARGUS_TRACE_ENOMEM, "out of memory");
		w->nblocks++;
	}
	if (w->out.len >= OUT_FLUSH)
		return flush_out(w);
	return 0;
}

/* Compress src into out after a header slot and emit it as one block. */
static int emit_compressed(struct argus_trace_writer *w, struct tf_block *bh, const void *src,
                           size_t n)
{
	size_t bound = ZSTD_compressBound(n);
	if (buf_reserve(&w->out, sizeof(*bh) + bound))
		return fail(w, ARGUS_TRACE_ENOMEM, "out of memory");
	size_t z = ZSTD_compressCCtx(w->cctx, w->out.p + w->out.len + sizeof(*bh), bound, src, n,
	                             w->level);
	if (ZSTD_isError(z))
		return fail(w, ARGUS_TRACE_ENOMEM, ZSTD_getErrorName(z));
	bh->codec = TF_CODEC_ZSTD;
	bh->stored_size = (uint32_t)z;
	bh->raw_size = (uint32_t)n;
	return emit_block(w, bh, NULL);
}

static int flush_tables(struct argus_trace_writer *w)
{
	for (int k = TF_STRINGS; k < N_TABLES; k++) {
		if (!w->pend_count[k])
			continue;
		struct tf_block bh = {.kind = (uint8_t)k, .count = w->pend_count[k]};
		int rc = emit_compressed(w, &bh, w->pend[k].p, w->pend[k].len);
		w->pend[k].len = 0;
		w->pend_count[k] = 0;
		if (rc)
			return rc;
	}
	return 0;
}

static int seal_chunk(struct argus_trace_writer *w)
{
	int rc = flush_tables(w);
	if (rc || !w->nchunk)
		return rc;
	uint64_t lo = UINT64_MAX, hi = 0;
	for (uint32_t i = 0; i < w->nchunk; i++) {
		uint64_t ts = w->chunk[i].ts;
		lo = ts < lo ? ts : lo;
		hi = ts > hi ? ts : hi;
	}
	tf_tsdelta_encode(w->chunk, w->nchunk); /* in place: the chunk is done */
	struct tf_block bh = {.kind = TF_EVENTS,
	                      .transform = TF_XFORM_TSDELTA,
	                      .count = w->nchunk,
	                      .min_ts = lo,
	                      .max_ts = hi};
	rc = emit_compressed(w, &bh, w->chunk, (size_t)w->nchunk * sizeof(struct argus_event));
	/* a sealed chunk goes to the kernel at once: a writer killed later
	 * loses only the chunk it was filling */
	if (!rc)
		rc = flush_out(w);
	if (rc) { /* not in the file: kept as they were (argus_trace_writer_unwritten) */
		tf_tsdelta_decode(w->chunk, w->nchunk, &lo, &hi);
		return rc;
	}
	w->nchunk = 0;
	return 0;
}

size_t argus_trace_writer_unwritten(const struct argus_trace_writer *w,
                                    const struct argus_event **ev)
{
	*ev = w ? w->chunk : NULL;
	return w && w->failed ? w->nchunk : 0;
}

static int table_add(struct argus_trace_writer *w, int kind, const void *p, size_t n)
{
	if (w->failed)
		return w->failed;
	if (buf_put(&w->pend[kind], p, n))
		return fail(w, ARGUS_TRACE_ENOMEM, "out of memory");
	w->pend_count[kind]++;
	if (w->pend[kind].len >= TABLE_FLUSH)
		return flush_tables(w);
	return 0;
}

struct probe {
	const struct intern *t;
	const void *key;
	uint32_t len;
	size_t unit;
};

static bool same_key(const void *val, void *arg)
{
	const struct interned *e = val;
	const struct probe *p = arg;
	return e->len == p->len && !memcmp(p->t->data.p + e->off, p->key, p->len * p->unit);
}

/* Returns the id of key (len units of unit bytes); *fresh = 1 when new. */
static uint32_t intern(struct intern *t, const void *key, uint32_t len, size_t unit, int *fresh)
{
	*fresh = 0;
	if (!t->map.vsize)
		argus_hmap_init(&t->map, sizeof(struct interned), 1024);
	struct probe p = {t, key, len, unit};
	uint64_t k;
	const struct interned *e =
	    argus_hmap_find_by(&t->map, hash_bytes(key, len * unit), same_key, &p, &k);
	if (e)
		return e->id;
	if (t->next_id == UINT32_MAX)
		return 0;
	uint64_t off = t->data.len;
	if (buf_put(&t->data, key, len * unit))
		return 0;
	struct interned *n = argus_hmap_put(&t->map, k, NULL);
	if (!n) {
		t->data.len = off;
		return 0;
	}
	*n = (struct interned){.off = off, .len = len, .id = ++t->next_id};
	*fresh = 1;
	return n->id;
}

uint32_t argus_trace_intern_string(struct argus_trace_writer *w, const char *s, size_t len)
{
	if (!w || w->failed || (!s && len) || len > MAX_STRING_LEN)
		return 0;
	int fresh;
	uint32_t id = intern(&w->strings, s ? s : "", (uint32_t)len, 1, &fresh);
	if (!id) {
		fail(w, ARGUS_TRACE_ENOMEM, "out of memory");
		return 0;
	}
	if (fresh) {
		struct tf_str_ent e = {.id = id, .len = (uint32_t)len};
		if (buf_reserve(&w->pend[TF_STRINGS], sizeof(e) + len))
			return fail(w, ARGUS_TRACE_ENOMEM, "out of memory"), 0;
		buf_put(&w->pend[TF_STRINGS], &e, sizeof(e));
		if (table_add(w, TF_STRINGS, s, len))
			return 0;
	}
	return id;
}

uint32_t argus_trace_intern_stack(struct argus_trace_writer *w, const uint64_t *ips, uint32_t depth)
{
	if (!w || w->failed || (!ips && depth) || depth > ARGUS_STACK_MAX_DEPTH)
		return 0;
	static const uint64_t none;
	int fresh;
	uint32_t id = intern(&w->stacks, ips ? (const void *)ips : &none, depth, 8, &fresh);
	if (!id) {
		fail(w, ARGUS_TRACE_ENOMEM, "out of memory");
		return 0;
	}
	if (fresh) {
		struct tf_stack_ent e = {.id = id, .depth = depth};
		if (buf_put(&w->pend[TF_STACKS], &e, sizeof(e)) ||
		    table_add(w, TF_STACKS, ips ? (const void *)ips : &none, depth * 8u))
			return fail(w, ARGUS_TRACE_ENOMEM, "out of memory"), 0;
	}
	return id;
}

int argus_trace_add_map(struct argus_trace_writer *w, const struct argus_map *m)
{
	if (!w || !m)
		return ARGUS_TRACE_EINVAL;
	struct tf_map d = {.ts = m->ts,
	                   .pid = m->pid,
	                   .path_str = m->path_str,
	                   .start = m->start,
	                   .end = m->end,
	                   .pgoff = m->pgoff,
	                   .prot = m->prot};
	return table_add(w, TF_MAPS, &d, sizeof(d));
}

int argus_trace_add_build_id(struct argus_trace_writer *w, const struct argus_build_id *b)
{
	if (!w || !b || b->len > sizeof(b->id))
		return ARGUS_TRACE_EINVAL;
	struct tf_build_id d = {.path_str = b->path_str, .len = b->len};
	memcpy(d.id, b->id, b->len);
	return table_add(w, TF_BUILD_IDS, &d, sizeof(d));
}

int argus_trace_add_symbol(struct argus_trace_writer *w, const struct argus_symbol *s)
{
	if (!w || !s)
		return ARGUS_TRACE_EINVAL;
	struct tf_symbol d = {
	    .path_str = s->path_str, .name_str = s->name_str, .offset = s->offset, .size = s->size};
	return table_add(w, TF_SYMBOLS, &d, sizeof(d));
}

int argus_trace_add_truth(struct argus_trace_writer *w, const struct argus_truth *t)
{
	if (!w || !t)
		return ARGUS_TRACE_EINVAL;
	struct tf_truth d = {.kind = t->kind,
	                     .ui_pid = t->ui_pid,
	                     .ui_tid = t->ui_tid,
	                     .stall_start = t->stall_start,
	                     .stall_end = t->stall_end,
	                     .root_pid = t->root_pid,
	                     .root_tid = t->root_tid,
	                     .root_start = t->root_start,
	                     .root_end = t->root_end,
	                     .root_func_str = t->root_func_str,
	                     .desc_str = t->desc_str};
	return table_add(w, TF_TRUTHS, &d, sizeof(d));
}

int argus_trace_write(struct argus_trace_writer *w, const struct argus_event *ev, size_t n)
{
	if (!w || (!ev && n))
		return ARGUS_TRACE_EINVAL;
	while (n) {
		if (w->failed)
			return w->failed;
		size_t k = w->chunk_events - w->nchunk;
		k = k < n ? k : n;
		memcpy(w->chunk + w->nchunk, ev, k * sizeof(*ev));
		w->nchunk += (uint32_t)k;
		w->events += k;
		ev += k;
		n -= k;
		if (w->nchunk == w->chunk_events) {
			int rc = seal_chunk(w);
			if (rc)
				return rc;
		}
	}
	return w->failed;
}

int argus_trace_flush(struct argus_trace_writer *w)
{
	if (!w)
		return ARGUS_TRACE_EINVAL;
	if (w->failed)
		return w->failed;
	int rc = seal_chunk(w);
	return rc ? rc : flush_out(w);
}

static void writer_free(struct argus_trace_writer *w)
{
	if (w->own_fd && w->fd >= 0)
		close(w->fd);
	ZSTD_freeCCtx(w->cctx);
	free(w->chunk);
	free(w->out.p);
	for (int k = 0; k < N_TABLES; k++)
		free(w->pend[k].p);
	free(w->index.p);
	argus_hmap_free(&w->strings.map);
	free(w->strings.data.p);
	argus_hmap_free(&w->stacks.map);
	free(w->stacks.data.p);
	free(w->name);
	free(w);
}

int argus_trace_writer_close(struct argus_trace_writer *w, struct argus_trace_error *err)
{
	if (!w)
		return ARGUS_TRACE_EINVAL;
	int rc = w->failed ? w->failed : seal_chunk(w);
	if (!rc) {
		uint64_t index_off = w->off;
		struct tf_block ib = {.kind = TF_INDEX,
		                      .codec = TF_CODEC_NONE,
		                      .stored_size = (uint32_t)w->index.len,
		                      .raw_size = (uint32_t)w->index.len,
		                      .count = (uint32_t)w->nblocks};
		if (w->index.len > TF_MAX_RAW) {
			/* too many blocks to index: readers scan instead */
			rc = 0;
		} else {
			rc = emit_block(w, &ib, w->index.p ? w->index.p : (const uint8_t *)"");
			struct tf_trailer t = {
			    .index_offset = index_off, .events = w->events, .blocks = w->nblocks};
			struct tf_block tb = {.kind = TF_TRAILER,
			                      .codec = TF_CODEC_NONE,
			                      .stored_size = sizeof(t),
			                      .raw_size = sizeof(t),
			                      .count = 1};
			if (!rc)
				rc = emit_block(w, &tb, &t);
		}
	}
	if (!rc)
		rc = flush_out(w);
	if (!rc && w->own_fd) {
		int fd = w->fd;
		w->fd = -1;
		if (close(fd) != 0)
			rc = fail(w, ARGUS_TRACE_EIO, "close failed");
	}
	if (rc && err)
		*err = w->err;
	writer_free(w);
	return rc;
}

uint64_t argus_trace_writer_events(const struct argus_trace_writer *w)
{
	return w ? w->events : 0;
}

uint64_t argus_trace_writer_bytes(const struct argus_trace_writer *w)
{
	return w ? w->off : 0;
}

static void put_fixed(char *dst, size_t cap, const char *src)
{
	size_t n = strnlen(src, cap - 1);
	memset(dst, 0, cap);
	memcpy(dst, src, n);
}

int argus_trace_writer_fdopen(struct argus_trace_writer **wp, int fd, const char *name,
                              const struct argus_trace_meta *meta,
                              const struct argus_trace_writer_opts *opts,
                              struct argus_trace_error *err)
{
	if (!wp || fd < 0) {
		tf_error(err, ARGUS_TRACE_EINVAL, name, 0, "invalid argument");
		return ARGUS_TRACE_EINVAL;
	}
	*wp = NULL;
	uint32_t chunk = opts && opts->chunk_events ? opts->chunk_events : DEFAULT_CHUNK_EVENTS;
	if (chunk > TF_MAX_CHUNK_EVENTS) {
		tf_error(err, ARGUS_TRACE_EINVAL, name, 0, "chunk of %u events exceeds %u", chunk,
		         TF_MAX_CHUNK_EVENTS);
		return ARGUS_TRACE_EINVAL;
	}
	struct argus_trace_writer *w = calloc(1, sizeof(*w));
	if (!w) {
		tf_error(err, ARGUS_TRACE_ENOMEM, name, 0, "out of memory");
		return ARGUS_TRACE_ENOMEM;
	}
	w->fd = fd;
	w->name = strdup(name ? name : "(trace)");
	w->chunk_events = chunk;
	w->level = opts && opts->zstd_level ? opts->zstd_level : DEFAULT_LEVEL;
	w->cctx = ZSTD_createCCtx();
	w->chunk = malloc((size_t)chunk * sizeof(struct argus_event));
	if (!w->name || !w->cctx || !w->chunk || buf_reserve(&w->out, OUT_FLUSH)) {
		writer_free(w);
		tf_error(err, ARGUS_TRACE_ENOMEM, name, 0, "out of memory");
		return ARGUS_TRACE_ENOMEM;
	}

	struct argus_trace_meta local;
	if (!meta) {
		argus_trace_meta_init(&local, "argus");
		meta = &local;
	}
	struct tf_header h;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, TF_MAGIC, sizeof(h.magic));
	h.version = ARGUS_TRACE_VERSION;
	h.header_size = TF_HEADER_SIZE;
	h.schema = meta->schema ? meta->schema : ARGUS_SCHEMA_VERSION;
	h.clock = meta->clock;
	h.flags = meta->flags;
	h.byte_order = TF_BYTE_ORDER;
	memcpy(h.boot_id, meta->boot_id, sizeof(h.boot_id));
	h.start_mono_ns = meta->start_mono_ns;
	h.start_real_ns = meta->start_real_ns;
	put_fixed(h.host, sizeof(h.host), meta->host);
	put_fixed(h.kernel, sizeof(h.kernel), meta->kernel);
	put_fixed(h.producer, sizeof(h.producer), meta->producer);
	h.chunk_events = chunk;
	h.crc = tf_crc32(&h, offsetof(struct tf_header, crc));
	buf_put(&w->out, &h, sizeof(h));
	w->off = sizeof(h);
	int rc = flush_out(w);
	if (rc) {
		if (err)
			*err = w->err;
		writer_free(w);
		return rc;
	}
	*wp = w;
	return 0;
}

int argus_trace_writer_open(struct argus_trace_writer **wp, const char *path,
                            const struct argus_trace_meta *meta,
                            const struct argus_trace_writer_opts *opts,
                            struct argus_trace_error *err)
{
	if (!wp || !path) {
		tf_error(err, ARGUS_TRACE_EINVAL, path, 0, "invalid argument");
		return ARGUS_TRACE_EINVAL;
	}
	*wp = NULL;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		tf_error(err, ARGUS_TRACE_EIO, path, 0, "cannot create: %s", strerror(errno));
		return ARGUS_TRACE_EIO;
	}
	int rc = argus_trace_writer_fdopen(wp, fd, path, meta, opts, err);
	if (rc) {
		close(fd);
		return rc;
	}
	(*wp)->own_fd = true;
	return 0;
}

/* ---- sink adapter ---- */

static int sink_events(void *arg, const struct argus_event *ev, size_t n)
{
	return argus_trace_write(arg, ev, n);
}
static uint32_t sink_string(void *arg, const char *s, size_t len)
{
	return argus_trace_intern_string(arg, s, len);
}
static uint32_t sink_stack(void *arg, const uint64_t *ips, uint32_t depth)
{
	return argus_trace_intern_stack(arg, ips, depth);
}
static int sink_map(void *arg, const struct argus_map *m)
{
	return argus_trace_add_map(arg, m);
}
static int sink_build_id(void *arg, const struct argus_build_id *b)
{
	return argus_trace_add_build_id(arg, b);
}
static int sink_symbol(void *arg, const struct argus_symbol *s)
{
	return argus_trace_add_symbol(arg, s);
}
static int sink_truth(void *arg, const struct argus_truth *t)
{
	return argus_trace_add_truth(arg, t);
}

struct argus_sink argus_trace_writer_sink(struct argus_trace_writer *w)
{
	return (struct argus_sink){
	    .events = sink_events,
	    .intern_string = sink_string,
	    .intern_stack = sink_stack,
	    .map = sink_map,
	    .build_id = sink_build_id,
	    .symbol = sink_symbol,
	    .truth = sink_truth,
	    .arg = w,
	};
}
