/*
 * recorder.c - the flight recorder: the last span of the stream on disk as a
 * ring of chunk files, each a complete .argus trace (docs/daemon.md).
 *
 * A chunk holds chunk_span_ns of event time. It is written as
 * SEQ-FIRST.open.argus and renamed SEQ-FIRST-LAST.argus when complete, so a
 * crash leaves every closed chunk intact and the open one readable up to its
 * last flush. Each chunk starts with the daemon's whole string and stack
 * tables and the maps seen so far, replayed in id order, so ids in a chunk
 * are the daemon's ids and every chunk stands alone. Old chunks are deleted
 * once they end before (newest - span) or the total passes max_bytes.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "cmdline.h"
#include "stream_priv.h"

struct recorder {
	struct rec_opts o;
	char *dir;
	const struct tab *strings, *stacks;
	struct argus_map *maps;
	size_t nmaps, cap_maps;
	struct argus_build_id *bids;
	size_t nbids, cap_bids;

	struct rec_chunk *chunks; /* closed chunks, oldest first */
	size_t nchunks, cap_chunks;
	uint64_t closed_bytes;

	struct argus_trace_writer *w; /* the open chunk, NULL until an event */
	int wfd;
	uint64_t seq, cur_first, cur_last, cur_events;
	char cur_name[96];

	/* a full file system: the byte bound shrinks to what fits (the newest
	 * data is kept), said once on stderr */
	uint64_t room; /* bytes the recording may take now (<= max_bytes) */
	bool told_full;

	struct rec_stats st;
};

static int chunk_cmp(const void *a, const void *b)
{
	const struct rec_chunk *x = a, *y = b;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int rec_list(const char *dir, struct rec_chunk **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	DIR *d = opendir(dir);
	if (!d)
		return -errno;
	size_t cap = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		struct rec_chunk c = {0};
		int used = 0;
		if (sscanf(de->d_name, "%" SCNu64 "-%" SCNu64 "-%" SCNu64 ".argus%n", &c.seq,
		           &c.first, &c.last, &used) == 3 &&
		    de->d_name[used] == '\0') {
			c.open = false;
		} else if (used = 0, sscanf(de->d_name, "%" SCNu64 "-%" SCNu64 ".open.argus%n",
		                            &c.seq, &c.first, &used) == 2 &&
		                         used && de->d_name[used] == '\0') {
			c.open = true;
		} else {
			continue; /* not ours */
		}
		if (strlen(de->d_name) >= sizeof(c.name))
			continue;
		strcpy(c.name, de->d_name);
		struct stat st;
		if (fstatat(dirfd(d), de->d_name, &st, 0) == 0)
			c.bytes = (uint64_t)st.st_size;
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			struct rec_chunk *nc = realloc(*out, cap * sizeof(*nc));
			if (!nc) {
				closedir(d);
				free(*out);
				*out = NULL;
				*n = 0;
				return -ENOMEM;
			}
			*out = nc;
		}
		(*out)[(*n)++] = c;
	}
	closedir(d);
	if (*n)
		qsort(*out, *n, sizeof(**out), chunk_cmp);
	return 0;
}

static int push_chunk(struct recorder *r, const struct rec_chunk *c)
{
	if (r->nchunks == r->cap_chunks) {
		size_t cap = r->cap_chunks ? r->cap_chunks * 2 : 64;
		struct rec_chunk *nc = realloc(r->chunks, cap * sizeof(*nc));
		if (!nc)
			return -ENOMEM;
		r->chunks = nc;
		r->cap_chunks = cap;
	}
	r->chunks[r->nchunks++] = *c;
	r->closed_bytes += c->bytes;
	return 0;
}

static void delete_oldest(struct recorder *r)
{
	struct rec_chunk *c = &r->chunks[0];
	char path[4200];
	snprintf(path, sizeof(path), "%s/%s", r->dir, c->name);
	if (unlink(path) && errno != ENOENT)
		r->st.errors++;
	r->closed_bytes -= c->bytes;
	r->st.deleted++;
	memmove(r->chunks, r->chunks + 1, (r->nchunks - 1) * sizeof(*c));
	r->nchunks--;
}

/* What the recording may take: --keep-bytes, or less when the file system
 * has no room for it: what it takes now plus what is free, less a margin
 * for what comes before the next look (every flush, every chunk). */
static void measure_room(struct recorder *r)
{
	struct statvfs sv;
	r->room = r->o.max_bytes;
	if (statvfs(r->dir, &sv))
		return;
	uint64_t total = (uint64_t)sv.f_blocks * sv.f_frsize;
	uint64_t avail = (uint64_t)sv.f_bavail * sv.f_frsize;
	uint64_t ours = r->closed_bytes + (r->w ? argus_trace_writer_bytes(r->w) : 0);
	/* an eighth of the file system, at most a quarter of what we could
	 * have, at most 64 MiB */
	uint64_t margin = total / 8;
	if (margin > (ours + avail) / 4)
		margin = (ours + avail) / 4;
	if (margin > (64ull << 20))
		margin = 64ull << 20;
	uint64_t fits = ours + avail > margin ? ours + avail - margin : 0;
	if (fits >= r->o.max_bytes)
		return;
	r->room = fits;
	if (!r->told_full) {
		r->told_full = true;
		cli_error("start",
		          "recorder: %s is full: room for %.1f MiB of the %.0f MiB of --keep-bytes;"
		          " keeping the newest records that fit (oldest chunks deleted first)",
		          r->dir, fits / 1048576.0, r->o.max_bytes / 1048576.0);
	}
}

/* A chunk closes past an eighth of the byte bound (at least 64 KiB). */
static uint64_t chunk_bytes(const struct recorder *r)
{
	return r->room / 8 > (64u << 10) ? r->room / 8 : (64u << 10);
}

/* Keep the last span and stay under the byte bound (the open chunk counts). */
static void prune(struct recorder *r)
{
	uint64_t newest = r->cur_last;
	for (size_t i = 0; i < r->nchunks; i++)
		if (r->chunks[i].last > newest)
			newest = r->chunks[i].last;
	uint64_t from = newest > r->o.span_ns ? newest - r->o.span_ns : 0;
	uint64_t open_bytes = r->w ? argus_trace_writer_bytes(r->w) : 0;
	while (r->nchunks) {
		const struct rec_chunk *c = &r->chunks[0];
		/* a chunk left open by a crash has no known end: the next
		 * chunk's start bounds it */
		uint64_t end = c->open ? (r->nchunks > 1 ? r->chunks[1].first : c->first) : c->last;
		/* over the byte bound the newest closed chunk stays: the
		 * newest records that fit, even on a disk someone else filled */
		if (end < from || (r->closed_bytes + open_bytes > r->room && r->nchunks > 1))
			delete_oldest(r);
		else
			break;
	}
}

static int close_chunk(struct recorder *r)
{
	if (!r->w)
		return 0;
	struct argus_trace_error err;
	int rc = argus_trace_writer_close(r->w, &err);
	r->w = NULL;
	struct stat st;
	uint64_t bytes = fstat(r->wfd, &st) == 0 ? (uint64_t)st.st_size : 0;
	fsync(r->wfd);
	close(r->wfd);
	r->wfd = -1;
	struct rec_chunk c = {
	    .seq = r->seq, .first = r->cur_first, .last = r->cur_last, .bytes = bytes};
	snprintf(c.name, sizeof(c.name), "%" PRIu64 "-%" PRIu64 "-%" PRIu64 ".argus", c.seq,
	         c.first, c.last);
	char from[4200], to[4200];
	snprintf(from, sizeof(from), "%s/%s", r->dir, r->cur_name);
	snprintf(to, sizeof(to), "%s/%s", r->dir, c.name);
	if (rename(from, to)) {
		r->st.errors++;
		c.open = true;
		snprintf(c.name, sizeof(c.name), "%s", r->cur_name);
	}
	if (rc)
		r->st.errors++;
	r->seq++;
	return push_chunk(r, &c);
}

static int open_chunk(struct recorder *r, uint64_t first_ts)
{
	snprintf(r->cur_name, sizeof(r->cur_name), "%" PRIu64 "-%" PRIu64 ".open.argus", r->seq,
	         first_ts);
	char path[4200];
	snprintf(path, sizeof(path), "%s/%s", r->dir, r->cur_name);
	r->wfd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, r->o.gid >= 0 ? 0640 : 0600);
	if (r->wfd < 0)
		return -errno;
	if (r->o.gid >= 0 && fchown(r->wfd, 0, (gid_t)r->o.gid))
		r->st.errors++;
	struct argus_trace_meta meta;
	argus_trace_meta_init(&meta, "argus start (flight recorder)");
	struct argus_trace_error err;
	/* zstd level 1, as argus record: level 3 cost the daemon about a
	 * tenth of its CPU on a desktop with a build (docs/daemon.md) */
	struct argus_trace_writer_opts wo = {.chunk_events = 16384, .zstd_level = 1};
	if (argus_trace_writer_fdopen(&r->w, r->wfd, path, &meta, &wo, &err)) {
		close(r->wfd);
		r->wfd = -1;
		unlink(path);
		return -EIO;
	}
	r->cur_first = r->cur_last = first_ts;
	r->cur_events = 0;
	measure_room(r);
	prune(r);
	/* Replay the tables so this chunk's ids are the daemon's ids. */
	for (uint32_t id = 1; id <= r->strings->n; id++) {
		const struct tab_entry *e = tab_get(r->strings, id);
		if (argus_trace_intern_string(r->w, e->data, e->len) != id)
			r->st.errors++;
	}
	for (uint32_t id = 1; id <= r->stacks->n; id++) {
		const struct tab_entry *e = tab_get(r->stacks, id);
		if (argus_trace_intern_stack(r->w, (const uint64_t *)(void *)e->data, e->depth) !=
		    id)
			r->st.errors++;
	}
	for (size_t i = 0; i < r->nmaps; i++)
		argus_trace_add_map(r->w, &r->maps[i]);
	for (size_t i = 0; i < r->nbids; i++)
		argus_trace_add_build_id(r->w, &r->bids[i]);
	return 0;
}

int rec_open(struct recorder **rp, const struct rec_opts *o, const struct tab *strings,
             const struct tab *stacks, char *err, size_t errlen)
{
	*rp = NULL;
	struct recorder *r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->o = *o;
	r->wfd = -1;
	r->room = o->max_bytes;
	r->strings = strings;
	r->stacks = stacks;
	r->dir = strdup(o->dir);
	if (!r->dir) {
		free(r);
		return -ENOMEM;
	}
	mode_t mode = o->gid >= 0 ? 0750 : 0700;
	if (mkdir(o->dir, mode) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create recorder directory %s: %s", o->dir,
		         strerror(errno));
		goto fail;
	}
	/* Only root (and the group, when named) may read the recording. */
	if (chmod(o->dir, mode) || (o->gid >= 0 && chown(o->dir, 0, (gid_t)o->gid))) {
		snprintf(err, errlen, "cannot set owner / mode of %s: %s", o->dir, strerror(errno));
		goto fail;
	}
	struct rec_chunk *old;
	size_t nold;
	if (rec_list(o->dir, &old, &nold)) {
		snprintf(err, errlen, "cannot read recorder directory %s: %s", o->dir,
		         strerror(errno));
		goto fail;
	}
	/* Chunks of an earlier run stay (and age out): continue numbering. */
	for (size_t i = 0; i < nold; i++) {
		push_chunk(r, &old[i]);
		if (old[i].seq >= r->seq)
			r->seq = old[i].seq + 1;
	}
	free(old);
	*rp = r;
	return 0;
fail:
	free(r->dir);
	free(r);
	return -EIO;
}

/* A write of the open chunk failed (ENOSPC): close it as it is (its
 * sealed blocks read back; the reader stops at the torn end), shrink the
 * bound to what fits and delete the oldest chunks to get there. */
/* Room for the next chunk after a failed write: the oldest chunks go, two
 * chunks' worth (the last one too: the records coming are newer). Returns
 * whether any went. */
static bool make_room(struct recorder *r)
{
	uint64_t need = 2 * chunk_bytes(r), freed = 0;
	bool any = false;
	while (r->nchunks && freed < need) {
		freed += r->chunks[0].bytes;
		delete_oldest(r);
		any = true;
	}
	measure_room(r);
	prune(r);
	return any;
}

static void write_failed(struct recorder *r)
{
	int e = errno;
	if (!r->told_full) {
		r->told_full = true;
		cli_error("start",
		          "recorder: writing %s/%s failed: %s; keeping the newest records that"
		          " fit (oldest chunks deleted first)",
		          r->dir, r->cur_name, strerror(e));
	}
	if (r->cur_events) {
		close_chunk(r);
	} else { /* nothing of it would read back: gone */
		struct argus_trace_error err;
		argus_trace_writer_close(r->w, &err);
		r->w = NULL;
		close(r->wfd);
		r->wfd = -1;
		char path[4200];
		snprintf(path, sizeof(path), "%s/%s", r->dir, r->cur_name);
		unlink(path);
	}
	make_room(r);
}

/* A new chunk; when the file system has no room even for its start, the
 * oldest chunks make some and it is tried once more. */
static int open_chunk_room(struct recorder *r, uint64_t first_ts)
{
	if (!open_chunk(r, first_ts))
		return 0;
	if (!r->told_full) {
		r->told_full = true;
		cli_error("start",
		          "recorder: cannot start a chunk in %s: %s; keeping the newest records"
		          " that fit (oldest chunks deleted first)",
		          r->dir, strerror(errno));
	}
	if (!make_room(r))
		return -1;
	return open_chunk(r, first_ts);
}

static int rec_write(struct recorder *r, const struct argus_event *ev, size_t n, bool retry);

/* The open chunk's write failed (a full disk) after it took `taken` of the
 * records of this call (rest more follow, never taken). Not in the file:
 * the block whose write failed (the records of earlier calls in it were
 * counted in events, this call's were not) and the rest. Unless this is
 * already the retry, they go once more into a new chunk after room is
 * made (write_failed); what fails again is lost, counted. */
static void failed_write(struct recorder *r, size_t taken, const struct argus_event *rest,
                         size_t nrest, bool retry)
{
	const struct argus_event *u;
	size_t nu = argus_trace_writer_unwritten(r->w, &u);
	size_t mine = nu < taken ? nu : taken, earlier = nu - mine;
	/* this call's records in blocks sealed before the failure are kept */
	r->st.events += taken - mine;
	r->cur_events += taken - mine;
	r->st.events -= earlier;
	r->cur_events -= earlier;
	r->st.errors++;
	size_t nbuf = nu + nrest;
	struct argus_event *buf = retry ? NULL : malloc(nbuf * sizeof(*buf));
	if (buf) { /* either part may be empty (NULL): memcpy takes none */
		if (nu)
			memcpy(buf, u, nu * sizeof(*buf));
		if (nrest)
			memcpy(buf + nu, rest, nrest * sizeof(*buf));
	}
	write_failed(r);
	if (!buf) {
		r->st.lost += nbuf;
		return;
	}
	r->st.rewritten += nbuf;
	rec_write(r, buf, nbuf, true);
	free(buf);
}

/* Seal what the open chunk holds; a failed write goes to failed_write. */
static int flush_chunk(struct recorder *r, bool retry)
{
	if (!r->w || !argus_trace_flush(r->w))
		return 0;
	failed_write(r, 0, NULL, 0, retry);
	return -EIO;
}

static int rec_write(struct recorder *r, const struct argus_event *ev, size_t n, bool retry)
{
	size_t i = 0;
	while (i < n) {
		if (!r->w && open_chunk_room(r, ev[i].ts)) {
			r->st.errors++;
			r->st.lost += n - i;
			return -EIO;
		}
		/* the run of records that belongs in this chunk */
		size_t j = i;
		uint64_t end = r->cur_first + r->o.chunk_span_ns;
		while (j < n && (ev[j].ts < end || ev[j].ts < r->cur_first))
			j++;
		if (j > i) {
			uint64_t before = argus_trace_writer_events(r->w);
			if (argus_trace_write(r->w, ev + i, j - i)) {
				/* the chunk is done for (a full disk): keep it as far
				 * as it was written, make room, write the records
				 * that did not reach it into a new one */
				size_t taken = (size_t)(argus_trace_writer_events(r->w) - before);
				failed_write(r, taken, ev + i + taken, j - i - taken, retry);
				i = j;
				continue;
			}
			for (size_t k = i; k < j; k++)
				if (ev[k].ts > r->cur_last)
					r->cur_last = ev[k].ts;
			r->st.events += j - i;
			r->cur_events += j - i;
		}
		if (j < n || argus_trace_writer_bytes(r->w) > chunk_bytes(r)) {
			/* its last block sealed here, where a failure is retried */
			if (!flush_chunk(r, retry))
				close_chunk(r);
			prune(r);
		}
		i = j;
	}
	return 0;
}

int rec_events(struct recorder *r, const struct argus_event *ev, size_t n)
{
	return rec_write(r, ev, n, false);
}

void rec_string(struct recorder *r, uint32_t id)
{
	const struct tab_entry *e = tab_get(r->strings, id);
	if (r->w && e && argus_trace_intern_string(r->w, e->data, e->len) != id)
		r->st.errors++;
}

void rec_stack(struct recorder *r, uint32_t id)
{
	const struct tab_entry *e = tab_get(r->stacks, id);
	if (r->w && e &&
	    argus_trace_intern_stack(r->w, (const uint64_t *)(void *)e->data, e->depth) != id)
		r->st.errors++;
}

void rec_map(struct recorder *r, const struct argus_map *m)
{
	if (r->nmaps == r->cap_maps) {
		size_t cap = r->cap_maps ? r->cap_maps * 2 : 256;
		struct argus_map *nm = realloc(r->maps, cap * sizeof(*nm));
		if (!nm) {
			r->st.errors++;
			return;
		}
		r->maps = nm;
		r->cap_maps = cap;
	}
	r->maps[r->nmaps++] = *m;
	if (r->w)
		argus_trace_add_map(r->w, m);
}

void rec_build_id(struct recorder *r, const struct argus_build_id *b)
{
	if (r->nbids == r->cap_bids) {
		size_t cap = r->cap_bids ? r->cap_bids * 2 : 64;
		struct argus_build_id *nb = realloc(r->bids, cap * sizeof(*nb));
		if (!nb) {
			r->st.errors++;
			return;
		}
		r->bids = nb;
		r->cap_bids = cap;
	}
	r->bids[r->nbids++] = *b;
	if (r->w)
		argus_trace_add_build_id(r->w, b);
}

int rec_flush(struct recorder *r)
{
	if (!r->w)
		return 0;
	int rc = flush_chunk(r, false);
	measure_room(r);
	prune(r);
	return rc ? -EIO : 0;
}

void rec_get_stats(const struct recorder *r, struct rec_stats *st)
{
	*st = r->st;
	st->room = r->room;
	st->chunks = r->nchunks + (r->w ? 1 : 0);
	st->bytes = r->closed_bytes + (r->w ? argus_trace_writer_bytes(r->w) : 0);
	st->first_ts = r->nchunks ? r->chunks[0].first : r->w ? r->cur_first : 0;
	st->last_ts = r->w ? r->cur_last : r->nchunks ? r->chunks[r->nchunks - 1].last : 0;
}

void rec_close(struct recorder *r)
{
	if (!r)
		return;
	flush_chunk(r, false); /* a failed last block goes to a new chunk */
	close_chunk(r);
	prune(r);
	free(r->chunks);
	free(r->maps);
	free(r->bids);
	free(r->dir);
	free(r);
}
