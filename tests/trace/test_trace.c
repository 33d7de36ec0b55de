/* .argus trace files: round trip, determinism, ranges, and every kind of
 * damage the reader must survive (docs/trace-format.md). */
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>

#include "test.h"
#include "trace_format.h"
#include "trace_sample.h"

#define NEV   600
#define CHUNK 64

/* Block headers of a file, found by walking it (the test trusts sizes). */
struct walked {
	uint64_t off[256];
	struct tf_block h[256];
	size_t n;
};

static void walk(const struct blob *b, struct walked *w)
{
	w->n = 0;
	uint64_t off = TF_HEADER_SIZE;
	while (off + sizeof(struct tf_block) <= b->n && w->n < 256) {
		memcpy(&w->h[w->n], b->p + off, sizeof(struct tf_block));
		w->off[w->n] = off;
		off += sizeof(struct tf_block) + w->h[w->n].stored_size;
		w->n++;
	}
}

/* Index of the k-th block of a kind, or -1. */
static int nth_block(const struct walked *w, unsigned kind, int k)
{
	for (size_t i = 0; i < w->n; i++)
		if (w->h[i].kind == kind && k-- == 0)
			return (int)i;
	return -1;
}

static struct blob sample(void)
{
	struct blob b;
	ASSERT(sample_write(&b, NEV, CHUNK) == 0);
	return b;
}

/* What reading gives: events, faults, and their first offsets. */
struct readout {
	struct argus_event *ev;
	size_t n;
	size_t faults;
	int first_code;
	uint64_t fault_off[16];
	char first_msg[240];
	struct argus_trace_health h;
};

static void read_all(struct argus_trace_reader *r, struct readout *o)
{
	memset(o, 0, sizeof(*o));
	o->ev = malloc(sizeof(struct argus_event) * (NEV + 1));
	const struct argus_event *e;
	struct argus_trace_error err;
	int rc;
	while ((rc = argus_trace_next(r, &e, &err)) != 0) {
		if (rc < 0) {
			if (o->faults < 16)
				o->fault_off[o->faults] = err.offset;
			if (!o->faults++) {
				o->first_code = rc;
				snprintf(o->first_msg, sizeof(o->first_msg), "%s", err.msg);
			}
			ASSERT(o->faults < 10000);
			continue;
		}
		if (o->n <= NEV)
			o->ev[o->n] = *e;
		o->n++;
	}
	argus_trace_get_health(r, &o->h);
}

static void check_events(const struct readout *o, size_t first, size_t n)
{
	for (size_t i = 0; i < n && i < o->n; i++) {
		struct argus_event e;
		sample_event(first + i, &e);
		ASSERT_MSG(!memcmp(&e, &o->ev[i], sizeof(e)), "event %zu differs", first + i);
	}
}

static void check_tables(const struct argus_trace_reader *r)
{
	for (unsigned k = 0; k < SAMPLE_STRINGS; k++) {
		char buf[64];
		sample_string(k, buf, sizeof(buf));
		ASSERT_STR_EQ(argus_trace_string(r, k + 1), buf);
	}
	ASSERT(argus_trace_string(r, SAMPLE_STRINGS + 1) == NULL);
	ASSERT(argus_trace_string(r, 0) == NULL);
	ASSERT_EQ(argus_trace_string_count(r), SAMPLE_STRINGS);
	for (unsigned k = 0; k < SAMPLE_STACKS; k++) {
		uint64_t ips[ARGUS_STACK_MAX_DEPTH];
		uint32_t d = sample_stack(k, ips);
		struct argus_stack st;
		ASSERT(argus_trace_stack(r, k + 1, &st));
		ASSERT_EQ(st.depth, d);
		ASSERT(!d || !memcmp(st.ips, ips, d * 8));
	}
	struct argus_stack st;
	ASSERT(!argus_trace_stack(r, SAMPLE_STACKS + 1, &st));
	const struct argus_map *m;
	const struct argus_build_id *b;
	const struct argus_symbol *s;
	const struct argus_truth *t;
	size_t nm = argus_trace_maps(r, &m);
	ASSERT(nm >= 6);
	ASSERT_EQ(argus_trace_build_ids(r, &b), nm);
	ASSERT_EQ(argus_trace_symbols(r, &s), nm);
	ASSERT_EQ(argus_trace_truths(r, &t), 3);
	for (unsigned k = 0; k < nm; k++) {
		struct argus_map em;
		struct argus_build_id eb;
		struct argus_symbol es;
		sample_map(k, &em);
		sample_build_id(k, &eb);
		sample_symbol(k, &es);
		ASSERT(!memcmp(&m[k], &em, sizeof(em)));
		ASSERT(!memcmp(&b[k], &eb, sizeof(eb)));
		ASSERT(!memcmp(&s[k], &es, sizeof(es)));
	}
	for (unsigned k = 0; k < 3; k++) {
		struct argus_truth et;
		sample_truth(k, &et);
		ASSERT(!memcmp(&t[k], &et, sizeof(et)));
	}
}

static struct argus_trace_reader *open_blob(const struct blob *b)
{
	struct argus_trace_reader *r;
	struct argus_trace_error err;
	int rc = argus_trace_open_mem(&r, b->p, b->n, "t.argus", &err);
	ASSERT_MSG(rc == 0, "open: %s", err.msg);
	return r;
}

TEST(round_trip_every_type_and_table)
{
	struct blob b = sample();
	struct argus_trace_reader *r = open_blob(&b);
	const struct argus_trace_meta *m = argus_trace_get_meta(r);
	struct argus_trace_meta em;
	sample_meta(&em);
	ASSERT(!memcmp(m, &em, sizeof(em)));
	check_tables(r);
	struct readout o;
	read_all(r, &o);
	ASSERT_EQ(o.n, NEV);
	ASSERT_EQ(o.faults, 0);
	check_events(&o, 0, NEV);
	ASSERT(o.h.indexed);
	ASSERT_EQ(o.h.chunks_ok, (NEV + CHUNK - 1) / CHUNK);
	/* every named type made it */
	for (unsigned t = 1; t < ARGUS_EV_TYPE_MAX; t++) {
		if (!argus_event_type_name(t))
			continue;
		bool seen = false;
		for (size_t i = 0; i < o.n && !seen; i++)
			seen = o.ev[i].type == t;
		ASSERT_MSG(seen, "type %u missing", t);
	}
	free(o.ev);
	argus_trace_close(r);
	free(b.p);
}

TEST(tables_precede_the_chunks_that_use_them)
{
	struct blob b = sample();
	struct walked w;
	walk(&b, &w);
	/* the first block is a table, the first chunk comes after the first strings */
	ASSERT(nth_block(&w, TF_STRINGS, 0) < nth_block(&w, TF_EVENTS, 0));
	ASSERT(nth_block(&w, TF_STRINGS, 1) > nth_block(&w, TF_EVENTS, 0));
	ASSERT_EQ(w.h[w.n - 1].kind, TF_TRAILER);
	ASSERT_EQ(w.h[w.n - 2].kind, TF_INDEX);
	free(b.p);
}

TEST(same_input_same_bytes)
{
	struct blob a = sample(), b = sample();
	ASSERT_EQ(a.n, b.n);
	ASSERT(!memcmp(a.p, b.p, a.n));
	free(a.p);
	free(b.p);
}

TEST(range_read_skips_chunks)
{
	struct blob b = sample();
	struct argus_trace_reader *r = open_blob(&b);
	/* events 200..299: ts 201000..300000, inside chunks 3 and 4 */
	argus_trace_set_range(r, 1000 + 200 * 1000, 1000 + 299 * 1000);
	struct readout o;
	read_all(r, &o);
	ASSERT_EQ(o.n, 100);
	check_events(&o, 200, 100);
	ASSERT_EQ(o.h.chunks_decoded, 2);
	ASSERT_EQ(o.h.chunks_skipped, (NEV + CHUNK - 1) / CHUNK - 2);
	free(o.ev);
	argus_trace_close(r);
	free(b.p);
}

TEST(truncated_at_every_offset)
{
	struct blob b; /* smaller than the others: every byte is a cut point */
	ASSERT(sample_write(&b, 200, 32) == 0);
	struct walked w;
	walk(&b, &w);
	for (size_t cut = 0; cut < b.n; cut++) {
		uint8_t *copy = malloc(cut ? cut : 1); /* exact size: ASan sees overreads */
		memcpy(copy, b.p, cut);
		struct argus_trace_reader *r;
		struct argus_trace_error err;
		int rc = argus_trace_open_mem(&r, copy, cut, "t.argus", &err);
		if (cut < TF_HEADER_SIZE) {
			ASSERT_EQ(rc, ARGUS_TRACE_ETRUNC);
			ASSERT_CONTAINS(err.msg, "t.argus: offset ");
			free(copy);
			continue;
		}
		ASSERT_MSG(rc == 0, "cut %zu: %s", cut, err.msg);
		/* events of chunks that end before the cut all come back */
		size_t expect = 0, boundary = cut == TF_HEADER_SIZE;
		for (size_t i = 0; i < w.n; i++) {
			uint64_t end = w.off[i] + sizeof(struct tf_block) + w.h[i].stored_size;
			if (end <= cut && w.h[i].kind == TF_EVENTS)
				expect += w.h[i].count;
			boundary |= end == cut;
		}
		struct readout o;
		read_all(r, &o);
		ASSERT_MSG(o.n == expect, "cut %zu: %zu events, expected %zu", cut, o.n, expect);
		check_events(&o, 0, o.n);
		ASSERT_MSG(boundary || o.faults >= 1, "cut %zu: no fault reported", cut);
		if (!boundary)
			ASSERT_EQ(o.first_code, ARGUS_TRACE_ETRUNC);
		free(o.ev);
		argus_trace_close(r);
		free(copy);
	}
	free(b.p);
}

TEST(killed_writer_keeps_flushed_events)
{
	int fd = memfd_create("killed", 0);
	ASSERT(fd >= 0);
	struct argus_trace_meta meta;
	sample_meta(&meta);
	struct argus_trace_writer_opts opts = {.chunk_events = CHUNK};
	struct argus_trace_writer *w;
	ASSERT(argus_trace_writer_fdopen(&w, fd, "killed", &meta, &opts, NULL) == 0);
	sample_fill(w, 300);
	ASSERT(argus_trace_flush(w) == 0);
	struct argus_event e;
	sample_event(300, &e);
	ASSERT(argus_trace_write(w, &e, 1) == 0); /* unfinished chunk: lost */
	struct blob b;
	ASSERT(blob_from_fd(&b, fd) == 0);
	struct argus_trace_reader *r = open_blob(&b);
	struct readout o;
	read_all(r, &o);
	ASSERT_EQ(o.n, 300);
	ASSERT_EQ(o.faults, 0);
	ASSERT(!o.h.indexed);
	check_events(&o, 0, 300);
	const char *s = argus_trace_string(r, 1);
	ASSERT(s != NULL);
	free(o.ev);
	argus_trace_close(r);
	ASSERT(argus_trace_writer_close(w, NULL) == 0);
	close(fd);
	free(b.p);
}

/* The real thing: a writer process dies by SIGKILL mid-chunk. */
TEST(sigkill_loses_only_the_unfinished_chunk)
{
	int fd = memfd_create("sigkill", 0);
	ASSERT(fd >= 0);
	pid_t pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		struct argus_trace_meta meta;
		sample_meta(&meta);
		struct argus_trace_writer_opts opts = {.chunk_events = CHUNK};
		struct argus_trace_writer *w;
		if (argus_trace_writer_fdopen(&w, fd, "sigkill", &meta, &opts, NULL))
			_exit(1);
		sample_fill(w, 4 * CHUNK + 10); /* no flush, no close */
		raise(SIGKILL);
		_exit(1);
	}
	int status;
	ASSERT(waitpid(pid, &status, 0) == pid);
	ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	struct blob b;
	ASSERT(blob_from_fd(&b, fd) == 0);
	close(fd);
	struct argus_trace_reader *r = open_blob(&b);
	struct readout o;
	read_all(r, &o);
	ASSERT_EQ(o.faults, 0);
	ASSERT_EQ(o.n, 4 * CHUNK);
	check_events(&o, 0, o.n);
	ASSERT(argus_trace_string(r, 1) != NULL);
	free(o.ev);
	argus_trace_close(r);
	free(b.p);
}

/* A damaged stream on stdin: the same faults, the rest of the events. */
TEST(stdin_stream_with_a_corrupt_chunk)
{
	struct blob b = sample();
	struct walked w;
	walk(&b, &w);
	int k = nth_block(&w, TF_EVENTS, 3);
	b.p[w.off[k] + sizeof(struct tf_block) + 7] ^= 0x01;
	b.n -= 10; /* and cut inside the trailer */
	int p[2];
	ASSERT(pipe(p) == 0);
	pid_t pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		size_t done = 0;
		while (done < b.n) {
			ssize_t n = write(p[1], b.p + done, b.n - done);
			if (n <= 0)
				_exit(1);
			done += (size_t)n;
		}
		_exit(0);
	}
	close(p[1]);
	int saved = dup(0);
	ASSERT(dup2(p[0], 0) == 0);
	close(p[0]);
	struct argus_trace_reader *r;
	struct argus_trace_error err;
	ASSERT(argus_trace_open(&r, "-", &err) == 0);
	struct readout o;
	read_all(r, &o);
	ASSERT_EQ(o.faults, 2);
	ASSERT_U64_EQ(o.fault_off[0], w.off[k]);
	ASSERT_CONTAINS(o.first_msg, "(stdin): offset ");
	ASSERT_CONTAINS(o.first_msg, "event chunk checksum mismatch");
	ASSERT_U64_EQ(o.fault_off[1], w.off[w.n - 1]); /* the cut trailer */
	ASSERT_EQ(o.n, NEV - CHUNK);
	ASSERT_EQ(o.h.chunks_bad, 1);
	argus_trace_close(r);
	free(o.ev);
	free(b.p);
	dup2(saved, 0);
	close(saved);
	int status;
	ASSERT(waitpid(pid, &status, 0) == pid);
}

TEST(bad_magic)
{
	struct blob b = sample();
	b.p[0] ^= 0xff;
	struct argus_trace_reader *r;
	struct argus_trace_error err;
	ASSERT_EQ(argus_trace_open_mem(&r, b.p, b.n, "t.argus", &err), ARGUS_TRACE_EMAGIC);
	ASSERT_STR_EQ(err.msg, "t.argus: offset 0: not an argus trace (bad magic)");
	ASSERT_EQ(argus_trace_open_mem(&r, "hello", 5, "x", &err), ARGUS_TRACE_EMAGIC);
	free(b.p);
}

TEST(newer_version)
{
	struct blob b = sample();
	struct tf_header h;
	memcpy(&h, b.p, sizeof(h));
	h.version = ARGUS_TRACE_VERSION + 1;
	h.crc = tf_crc32(&h, offsetof(struct tf_header, crc));
	memcpy(b.p, &h, sizeof(h));
	struct argus_trace_reader *r;
	struct argus_trace_error err;
	ASSERT_EQ(argus_trace_open_mem(&r, b.p, b.n, "t.argus", &err), ARGUS_TRACE_EVERSION);
	ASSERT_CONTAINS(err.msg, "t.argus: offset 8: format version 2 is newer");
	free(b.p);
}

TEST(corrupt_header_checksum)
{
	struct blob b = sample();
	b.p[100] ^= 1; /* inside host */
	struct argus_trace_reader *r;
	struct argus_trace_error err;
	ASSERT_EQ(argus_trace_open_mem(&r, b.p, b.n, "t.argus", &err), ARGUS_TRACE_ECORRUPT);
	ASSERT_CONTAINS(err.msg, "header checksum mismatch");
	free(b.p);
}

TEST(flipped_byte_in_a_chunk_loses_only_that_chunk)
{
	struct blob b = sample();
	struct walked w;
	walk(&b, &w);
	int k = nth_block(&w, TF_EVENTS, 2);
	ASSERT(k >= 0);
	b.p[w.off[k] + sizeof(struct tf_block) + w.h[k].stored_size / 2] ^= 0x10;
	struct argus_trace_reader *r = open_blob(&b);
	struct readout o;
	read_all(r, &o);
	ASSERT_EQ(o.faults, 1);
	ASSERT_EQ(o.first_code, ARGUS_TRACE_ECORRUPT);
	ASSERT_U64_EQ(o.fault_off[0], w.off[k]);
	char want[64];
	snprintf(want, sizeof(want), "t.argus: offset %llu: event chunk checksum",
	         (unsigned long long)w.off[k]);
	ASSERT_CONTAINS(o.first_msg, want);
	ASSERT_EQ(o.n, NEV - CHUNK);
	ASSERT_EQ(o.h.chunks_bad, 1);
	ASSERT_EQ(o.h.events_lost, CHUNK);
	check_events(&o, 0, 2 * CHUNK);
	/* the events after the bad chunk are the originals from 3 * CHUNK on */
	struct readout tail = o;
	tail.ev += 2 * CHUNK;
	tail.n -= 2 * CHUNK;
	check_events(&tail, 3 * CHUNK, tail.n);
	free(o.ev);
	argus_trace_close(r);
	free(b.p);
}

TEST(damaged_block_header_is_skipped_in_a_scan)
{
	struct blob b = sample();
	struct walked w;
	walk(&b, &w);
	int k = nth_block(&w, TF_EVENTS, 1);
	/* no trailer: a scan must find the next block after the damage */
	b.n = w.off[w.n - 2];
	b.p[w.off[k] + 12] ^= 0x40; /* raw_size of chunk 1 */
	struct argus_trace_reader *r = open_blob(&b);
	struct readout o;
	read_all(r, &o);
	ASSERT_EQ(o.faults, 1);
	ASSERT_U64_EQ(o.fault_off[0], w.off[k]);
	ASSERT_CONTAINS(o.first_msg, "block header checksum mismatch; skipped");
	ASSERT_EQ(o.n, NEV - CHUNK);
	argus_trace_close(r);
	free(o.ev);
	free(b.p);
}

TEST(absurd_size_in_a_valid_header_is_refused)
{
	struct blob b = sample();
	struct walked w;
	walk(&b, &w);
	int k = nth_block(&w, TF_EVENTS, 0);
	b.n = w.off[w.n - 2];
	struct tf_block h = w.h[k];
	h.stored_size = 0xfffffff0u;
	h.raw_size = 0xfffffff0u;
	tf_block_seal(&h);
	memcpy(b.p + w.off[k], &h, sizeof(h));
	struct argus_trace_reader *r = open_blob(&b);
	struct readout o;
	read_all(r, &o);
	ASSERT(o.faults >= 1);
	ASSERT_CONTAINS(o.first_msg, "block size out of bounds");
	ASSERT_EQ(o.n, NEV - CHUNK);
	argus_trace_close(r);
	free(o.ev);
	free(b.p);
}

TEST(a_block_claiming_more_than_its_frame_holds_is_refused_before_allocating)
{
	/* a table and a chunk whose intact headers claim 64 MiB for their few
	 * KiB of zstd frame: refused by the frame's own size, nothing allocated */
	static const unsigned kinds[] = {TF_STRINGS, TF_EVENTS};
	for (size_t i = 0; i < 2; i++) {
		struct blob b = sample();
		struct walked w;
		walk(&b, &w);
		int k = nth_block(&w, kinds[i], 0);
		ASSERT(k >= 0);
		struct tf_block h = w.h[k];
		ASSERT_EQ(h.codec, TF_CODEC_ZSTD);
		uint32_t frame = h.raw_size;
		h.raw_size = TF_MAX_RAW;
		if (kinds[i] == TF_EVENTS)
			h.count = TF_MAX_RAW / sizeof(struct argus_event);
		tf_block_seal(&h);
		ASSERT(tf_block_check(&h) == NULL);
		memcpy(b.p + w.off[k], &h, sizeof(h));
		b.n = w.off[w.n - 2]; /* no index: the scan meets the header */
		struct argus_trace_reader *r = open_blob(&b);
		struct readout o;
		read_all(r, &o);
		ASSERT_EQ(o.faults, 1);
		ASSERT_U64_EQ(o.fault_off[0], w.off[k]);
		char want[96];
		snprintf(want, sizeof(want), "does not decompress: frame of %u bytes, %u in the header",
		         frame, TF_MAX_RAW);
		ASSERT_CONTAINS(o.first_msg, want);
		ASSERT_EQ(o.n, kinds[i] == TF_EVENTS ? NEV - CHUNK : NEV);
		argus_trace_close(r);
		free(o.ev);
		free(b.p);
	}
}

TEST(corrupt_table_block_keeps_events)
{
	struct blob b = sample();
	struct walked w;
	walk(&b, &w);
	int k = nth_block(&w, TF_MAPS, 0);
	b.p[w.off[k] + sizeof(struct tf_block)] ^= 1;
	struct argus_trace_reader *r = open_blob(&b);
	struct readout o;
	read_all(r, &o);
	ASSERT_EQ(o.faults, 1);
	ASSERT_CONTAINS(o.first_msg, "map table checksum mismatch");
	ASSERT_EQ(o.n, NEV);
	argus_trace_close(r);
	free(o.ev);
	free(b.p);
}

TEST(bad_index_falls_back_to_a_scan)
{
	struct blob b = sample();
	struct walked w;
	walk(&b, &w);
	size_t ix = w.n - 2;
	ASSERT_EQ(w.h[ix].kind, TF_INDEX);
	b.p[w.off[ix] + sizeof(struct tf_block) + 3] ^= 0x55; /* an entry's offset */
	struct argus_trace_reader *r = open_blob(&b);
	struct readout o;
	read_all(r, &o);
	ASSERT(!o.h.indexed);
	ASSERT_EQ(o.faults, 1);
	ASSERT_CONTAINS(o.first_msg, "bad index");
	ASSERT_U64_EQ(o.fault_off[0], w.off[ix]);
	ASSERT_EQ(o.n, NEV);
	check_events(&o, 0, NEV);
	check_tables(r);
	argus_trace_close(r);
	free(o.ev);
	free(b.p);
}

/* With an intact index, a damaged chunk header costs that chunk only. */
TEST(damaged_block_header_in_an_indexed_file)
{
	struct blob b = sample();
	struct walked w;
	walk(&b, &w);
	int k = nth_block(&w, TF_EVENTS, 4);
	b.p[w.off[k] + 8] ^= 0x01; /* stored_size */
	struct argus_trace_reader *r = open_blob(&b);
	struct readout o;
	read_all(r, &o);
	ASSERT(o.h.indexed);
	ASSERT_EQ(o.faults, 1);
	ASSERT_U64_EQ(o.fault_off[0], w.off[k]);
	ASSERT_CONTAINS(o.first_msg, "block header checksum mismatch");
	ASSERT_EQ(o.n, NEV - CHUNK);
	ASSERT_EQ(o.h.chunks_bad, 1);
	ASSERT_EQ(o.h.events_lost, CHUNK);
	argus_trace_close(r);
	free(o.ev);
	free(b.p);
}

/* An index with intact checksums that lies about a block. */
TEST(index_that_disagrees_with_its_blocks_is_refused)
{
	struct blob b = sample();
	struct walked w;
	walk(&b, &w);
	size_t ix = w.n - 2;
	uint8_t *p = b.p + w.off[ix] + sizeof(struct tf_block);
	struct tf_index_ent e;
	memcpy(&e, p + 3 * sizeof(e), sizeof(e));
	e.max_ts += 1;
	memcpy(p + 3 * sizeof(e), &e, sizeof(e));
	struct tf_block h = w.h[ix];
	h.data_crc = tf_crc32(p, h.stored_size);
	tf_block_seal(&h);
	memcpy(b.p + w.off[ix], &h, sizeof(h));
	struct argus_trace_reader *r = open_blob(&b);
	struct readout o;
	read_all(r, &o);
	ASSERT(!o.h.indexed);
	ASSERT_EQ(o.faults, 1);
	ASSERT_CONTAINS(o.first_msg, "bad index: entry 3: entry disagrees with its block");
	ASSERT_EQ(o.n, NEV);
	argus_trace_close(r);
	free(o.ev);
	free(b.p);
}

TEST(missing_trailer_is_a_scan_without_fault)
{
	struct blob b = sample();
	struct walked w;
	walk(&b, &w);
	b.n = w.off[w.n - 2];
	struct argus_trace_reader *r = open_blob(&b);
	struct readout o;
	read_all(r, &o);
	ASSERT(!o.h.indexed);
	ASSERT_EQ(o.faults, 0);
	ASSERT_EQ(o.n, NEV);
	argus_trace_close(r);
	free(o.ev);
	free(b.p);
}

/* A writer in a child process, the reader on our stdin. */
TEST(pipe_write_and_stdin_read)
{
	int p[2];
	ASSERT(pipe(p) == 0);
	pid_t pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		struct argus_trace_meta meta;
		sample_meta(&meta);
		struct argus_trace_writer_opts opts = {.chunk_events = CHUNK};
		struct argus_trace_writer *w;
		if (argus_trace_writer_fdopen(&w, p[1], "pipe", &meta, &opts, NULL))
			_exit(1);
		sample_fill(w, NEV);
		_exit(argus_trace_writer_close(w, NULL) ? 1 : 0);
	}
	close(p[1]);
	int saved = dup(0);
	ASSERT(dup2(p[0], 0) == 0);
	close(p[0]);
	struct argus_trace_reader *r;
	struct argus_trace_error err;
	int rc = argus_trace_open(&r, "-", &err);
	ASSERT_MSG(rc == 0, "%s", err.msg);
	struct readout o;
	read_all(r, &o);
	ASSERT_EQ(o.faults, 0);
	ASSERT_EQ(o.n, NEV);
	check_events(&o, 0, NEV);
	check_tables(r);
	argus_trace_close(r);
	free(o.ev);
	dup2(saved, 0);
	close(saved);
	int status;
	ASSERT(waitpid(pid, &status, 0) == pid);
	ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST(open_reports_missing_file)
{
	struct argus_trace_reader *r;
	struct argus_trace_error err;
	ASSERT_EQ(argus_trace_open(&r, "/nonexistent/x.argus", &err), ARGUS_TRACE_EIO);
	ASSERT_STR_EQ(err.msg,
	              "/nonexistent/x.argus: offset 0: cannot open: No such file or directory");
}

TEST(writer_refuses_bad_arguments)
{
	struct argus_trace_writer *w;
	struct argus_trace_error err;
	struct argus_trace_writer_opts opts = {.chunk_events = TF_MAX_CHUNK_EVENTS + 1};
	ASSERT_EQ(argus_trace_writer_fdopen(&w, 1, "x", NULL, &opts, &err), ARGUS_TRACE_EINVAL);
	ASSERT_EQ(argus_trace_writer_open(&w, "/nonexistent/dir/x.argus", NULL, NULL, &err),
	          ARGUS_TRACE_EIO);
	ASSERT_CONTAINS(err.msg, "cannot create");
}

TEST(write_error_is_reported)
{
	int p[2];
	ASSERT(pipe(p) == 0);
	close(p[0]); /* writes fail with EPIPE */
	signal(SIGPIPE, SIG_IGN);
	struct argus_trace_writer *w;
	struct argus_trace_error err;
	ASSERT_EQ(argus_trace_writer_fdopen(&w, p[1], "broken", NULL, NULL, &err), ARGUS_TRACE_EIO);
	ASSERT_CONTAINS(err.msg, "broken: offset 0: write failed");
	close(p[1]);
}

TEST_MAIN(TEST_ENTRY(round_trip_every_type_and_table),
          TEST_ENTRY(tables_precede_the_chunks_that_use_them), TEST_ENTRY(same_input_same_bytes),
          TEST_ENTRY(range_read_skips_chunks), TEST_ENTRY(truncated_at_every_offset),
          TEST_ENTRY(killed_writer_keeps_flushed_events),
          TEST_ENTRY(sigkill_loses_only_the_unfinished_chunk),
          TEST_ENTRY(stdin_stream_with_a_corrupt_chunk), TEST_ENTRY(bad_magic),
          TEST_ENTRY(newer_version), TEST_ENTRY(corrupt_header_checksum),
          TEST_ENTRY(flipped_byte_in_a_chunk_loses_only_that_chunk),
          TEST_ENTRY(damaged_block_header_is_skipped_in_a_scan),
          TEST_ENTRY(absurd_size_in_a_valid_header_is_refused),
          TEST_ENTRY(a_block_claiming_more_than_its_frame_holds_is_refused_before_allocating),
          TEST_ENTRY(corrupt_table_block_keeps_events), TEST_ENTRY(bad_index_falls_back_to_a_scan),
          TEST_ENTRY(damaged_block_header_in_an_indexed_file),
          TEST_ENTRY(index_that_disagrees_with_its_blocks_is_refused),
          TEST_ENTRY(missing_trailer_is_a_scan_without_fault),
          TEST_ENTRY(pipe_write_and_stdin_read), TEST_ENTRY(open_reports_missing_file),
          TEST_ENTRY(writer_refuses_bad_arguments), TEST_ENTRY(write_error_is_reported))
