/*
 * dump.c - `argus dump`: the last span of the flight recorder as one
 * self-contained trace. Reads the chunk files directly (works while the
 * daemon runs, after it stopped, and after it was killed): every closed
 * chunk, and the open one up to its last flush.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream_priv.h"

/* Newest timestamp in an open (unfinished) chunk: read it through. */
static uint64_t open_chunk_last(const char *path, struct argus_dump_stats *st)
{
	struct argus_trace_reader *r;
	struct argus_trace_error e;
	if (argus_trace_open(&r, path, &e)) {
		st->chunks_bad++;
		return 0;
	}
	uint64_t last = 0;
	const struct argus_event *ev;
	int rc;
	while ((rc = argus_trace_next(r, &ev, &e)) != 0)
		if (rc > 0 && ev->ts > last)
			last = ev->ts;
	argus_trace_close(r);
	return last;
}

int argus_recorder_dump(const char *dir, uint64_t last_ns, const char *out_path,
                        struct argus_dump_stats *st, char *err, size_t errlen)
{
	memset(st, 0, sizeof(*st));
	struct rec_chunk *ch;
	size_t n;
	int rc = rec_list(dir, &ch, &n);
	if (rc) {
		snprintf(err, errlen, "cannot read recorder directory %s: %s", dir, strerror(-rc));
		return rc;
	}
	if (!n) {
		free(ch);
		snprintf(err, errlen, "the flight recorder in %s is empty", dir);
		return -ENOENT;
	}
	char path[4200];
	uint64_t newest = 0;
	for (size_t i = 0; i < n; i++) {
		if (ch[i].open) {
			snprintf(path, sizeof(path), "%s/%s", dir, ch[i].name);
			ch[i].last = open_chunk_last(path, st);
		}
		if (ch[i].last > newest)
			newest = ch[i].last;
	}
	uint64_t from = newest > last_ns ? newest - last_ns : 0;
	st->from_ns = from;
	st->to_ns = newest;

	struct argus_trace_meta meta;
	argus_trace_meta_init(&meta, "argus dump (flight recorder)");
	/* The trace starts where the span does, not when the dump was made. */
	if (meta.start_mono_ns > from) {
		uint64_t back = meta.start_mono_ns - from;
		meta.start_real_ns = meta.start_real_ns > back ? meta.start_real_ns - back : 0;
		meta.start_mono_ns = from;
	}
	struct argus_trace_writer *w;
	struct argus_trace_error e;
	if (argus_trace_writer_open(&w, out_path, &meta, NULL, &e)) {
		free(ch);
		snprintf(err, errlen, "%s", e.msg);
		return -EIO;
	}
	/* Events of every chunk that reaches into the span; the tables of the
	 * newest readable chunk (each chunk carries all tables up to its end). */
	struct argus_trace_reader *tables = NULL;
	for (size_t i = 0; i < n; i++) {
		uint64_t end = ch[i].open ? newest : ch[i].last;
		if (end < from)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, ch[i].name);
		struct argus_trace_reader *r;
		if (argus_trace_open(&r, path, &e)) {
			st->chunks_bad++;
			continue;
		}
		argus_trace_set_range(r, from, newest);
		const struct argus_event *ev;
		int k;
		uint64_t pending = 0; /* faults not yet followed by a record */
		while ((k = argus_trace_next(r, &ev, &e)) != 0) {
			if (k < 0) {
				pending++;
				continue;
			}
			st->faults += pending;
			pending = 0;
			if (argus_trace_write(w, ev, 1) == 0)
				st->events++;
		}
		/* a chunk left open by a crash ends where the writing stopped,
		 * often inside a block: that end is expected, not damage */
		if (ch[i].open)
			st->torn += pending;
		else
			st->faults += pending;
		st->chunks_read++;
		if (tables)
			argus_trace_close(tables);
		tables = r;
	}
	free(ch);
	if (tables) {
		/* Ids are dense from 1 in both files, so replaying in order keeps them. */
		size_t ns = argus_trace_string_count(tables), nk = argus_trace_stack_count(tables);
		for (uint32_t id = 1; id <= ns; id++) {
			const char *s = argus_trace_string(tables, id);
			argus_trace_intern_string(w, s ? s : "", s ? strlen(s) : 0);
		}
		for (uint32_t id = 1; id <= nk; id++) {
			struct argus_stack sk = {0};
			if (argus_trace_stack(tables, id, &sk))
				argus_trace_intern_stack(w, sk.ips, sk.depth);
			else
				argus_trace_intern_stack(w, NULL, 0);
		}
		const struct argus_map *maps;
		size_t nm = argus_trace_maps(tables, &maps);
		for (size_t i = 0; i < nm; i++)
			argus_trace_add_map(w, &maps[i]);
		const struct argus_build_id *bids;
		size_t nb = argus_trace_build_ids(tables, &bids);
		for (size_t i = 0; i < nb; i++)
			argus_trace_add_build_id(w, &bids[i]);
		argus_trace_close(tables);
	}
	if (argus_trace_writer_close(w, &e)) {
		snprintf(err, errlen, "%s", e.msg);
		return -EIO;
	}
	return 0;
}
