/*
 * status.c - what `argus status` prints: events/s by type, drops per CPU,
 * ring fill, merge state, recorder span, memory and clients; as text or as
 * one JSON object (docs/daemon.md).
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stream_priv.h"

/* ---- status -------------------------------------------------------------- */

static uint64_t rss_bytes(void)
{
	FILE *f = fopen("/proc/self/statm", "re");
	unsigned long size = 0, res = 0;
	if (f) {
		if (fscanf(f, "%lu %lu", &size, &res) != 2)
			res = 0;
		fclose(f);
	}
	return (uint64_t)res * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* The heap as the allocator sees it: bytes allocated, and bytes it keeps
 * resident (allocated, freed pages not yet returned, its own metadata).
 * jemalloc (argus's binaries link it) through mallctl when it is there,
 * else the C library's mallinfo2. */
static const char *heap_stats(uint64_t *allocated, uint64_t *resident)
{
	typedef int (*mallctl_fn)(const char *, void *, size_t *, void *, size_t);
	mallctl_fn mc = (mallctl_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "mallctl");
	if (mc) {
		uint64_t epoch = 1;
		size_t al = 0, res = 0, len = sizeof(size_t), elen = sizeof(epoch);
		mc("epoch", &epoch, &elen, &epoch, elen); /* refresh the stats */
		if (!mc("stats.allocated", &al, &len, NULL, 0) &&
		    !mc("stats.resident", &res, &len, NULL, 0)) {
			*allocated = al;
			*resident = res;
			return "jemalloc";
		}
	}
	struct mallinfo2 mi = mallinfo2();
	*allocated = mi.uordblks + mi.hblkhd;
	*resident = mi.arena + mi.hblkhd;
	return "libc";
}

/* A growing string for replies. */
struct sbuf {
	char *p;
	size_t len, cap;
};

__attribute__((format(printf, 2, 3))) static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if (b->p && b->len + (size_t)n < b->cap) {
			b->len += (size_t)n;
			return;
		}
		size_t cap = (b->cap ? b->cap : 1024) * 2 + (size_t)n;
		char *np = realloc(b->p, cap);
		if (!np)
			return;
		b->p = np;
		b->cap = cap;
	}
}

char *daemon_status(struct argus_daemon *d, bool json)
{
	struct sbuf b = {0};
	struct argus_merge_stats ms;
	argus_merge_get_stats(d->merge, &ms);
	struct rec_stats rs = {0};
	if (d->rec)
		rec_get_stats(d->rec, &rs);
	uint64_t now = mono_now_ns();
	double up = (now - d->start_ns) / 1e9;
	uint64_t merge_bytes = ms.buffered * sizeof(struct argus_event);
	uint64_t table_bytes = d->strings.bytes + d->stacks.bytes;
	uint64_t rss = rss_bytes();
	char clients[8192];
	uint64_t hook_refused = d->hook_recs_refused, hook_retid = d->hook_recs_retid;
	for (unsigned i = d->nkernel; i < d->nrings; i++)
		if (d->rings[i] && d->ring_owner[i]) {
			hook_refused += d->guards[i].refused;
			hook_retid += d->guards[i].retid;
		}
	if (json) {
		sb_printf(&b,
		          "{\"kind\":\"status\",\"stream_version\":%d,\"pid\":%d,\"uptime_s\":%.3f,"
		          "\"events\":{\"total\":%" PRIu64 ",\"per_s\":%" PRIu64
		          ",\"by_type_per_s\":{",
		          ARGUS_STREAM_VERSION, (int)getpid(), up, d->total, d->rate_total);
		bool first = true;
		for (unsigned i = 0; i < NTYPES; i++) {
			if (!d->by_type[i])
				continue;
			const char *name = argus_event_type_name(i);
			sb_printf(&b, "%s\"%s\":%" PRIu64, first ? "" : ",",
			          name ? name : "unknown", d->rate[i]);
			first = false;
		}
		sb_printf(&b, "},\"by_type\":{");
		first = true;
		for (unsigned i = 0; i < NTYPES; i++) {
			if (!d->by_type[i])
				continue;
			const char *name = argus_event_type_name(i);
			sb_printf(&b, "%s\"%s\":%" PRIu64, first ? "" : ",",
			          name ? name : "unknown", d->by_type[i]);
			first = false;
		}
		sb_printf(&b,
		          "}},\"merge\":{\"buffered\":%" PRIu64 ",\"late\":%" PRIu64
		          ",\"watermark_ns\":%" PRIu64 ",\"max_lag_ns\":%" PRIu64 "},\"rings\":[",
		          ms.buffered, ms.late, ms.watermark_ns, d->max_lag_ns);
		first = true;
		for (unsigned i = 0; i < d->nrings; i++) {
			if (!d->rings[i])
				continue;
			uint64_t used, size;
			argus_ring_fill(d->rings[i], &used, &size);
			sb_printf(
			    &b,
			    "%s{\"source\":%u,\"kind\":\"%s\",\"cpu\":%u,\"used_bytes\":%" PRIu64
			    ",\"size_bytes\":%" PRIu64 ",\"drops\":%" PRIu64
			    ",\"malformed\":%" PRIu64 "}",
			    first ? "" : ",", i, i < d->nkernel ? "kernel" : "hook",
			    argus_ring_cpu(d->rings[i]), used, size, argus_ring_drops(d->rings[i]),
			    argus_ring_malformed(d->rings[i]));
			first = false;
		}
		sb_printf(&b,
		          "],\"recorder\":{\"dir\":\"%s\",\"chunks\":%" PRIu64 ",\"bytes\":%" PRIu64
		          ",\"first_ts\":%" PRIu64 ",\"last_ts\":%" PRIu64 ",\"span_ns\":%" PRIu64
		          ",\"errors\":%" PRIu64 ",\"events\":%" PRIu64 ",\"lost\":%" PRIu64
		          ",\"rewritten\":%" PRIu64 ",\"room_bytes\":%" PRIu64 "},",
		          d->rec ? d->rec_dir : "", rs.chunks, rs.bytes, rs.first_ts, rs.last_ts,
		          rs.last_ts - rs.first_ts, rs.errors, rs.events, rs.lost, rs.rewritten, rs.room);
		if (d->src.status) {
			char src[512];
			int n = d->src.status(d->src.arg, src, sizeof(src));
			if (n > 0 && (size_t)n < sizeof(src))
				sb_printf(&b, "\"source\":{%s},", src);
		}
		sb_printf(&b,
		          "\"hooks\":{\"connections\":%" PRIu64 ",\"refused\":%" PRIu64
		          ",\"records_refused\":%" PRIu64 ",\"records_reattributed\":%" PRIu64 "},",
		          d->hooks_connected, d->hooks_refused, hook_refused, hook_retid);
		char more[4096];
		more_status(d, more, sizeof(more), true);
		sb_printf(&b, "\"more\":[%s],", more);
		if (d->status_fn) {
			char diag[1024];
			int n = d->status_fn(d->status_arg, diag, sizeof(diag));
			if (n > 0 && (size_t)n < sizeof(diag))
				sb_printf(&b, "\"diagnosis\":{%s},", diag);
		}
		uint64_t heap_al, heap_res;
		const char *alloc = heap_stats(&heap_al, &heap_res);
		sb_printf(&b,
		          "\"memory\":{\"rss_bytes\":%" PRIu64 ",\"merge_bytes\":%" PRIu64
		          ",\"merge_peak_bytes\":%" PRIu64 ",\"table_bytes\":%" PRIu64
		          ",\"heap\":\"%s\",\"heap_allocated_bytes\":%" PRIu64
		          ",\"heap_resident_bytes\":%" PRIu64 "},",
		          rss, merge_bytes, d->merge_peak * sizeof(struct argus_event), table_bytes,
		          alloc, heap_al, heap_res);
		clients_status(&d->cs, clients, sizeof(clients), true);
		sb_printf(&b, "\"clients\":[%s],\"client_drops\":%" PRIu64 "}\n", clients,
		          d->cs.drops_total);
		return b.p;
	}
	sb_printf(&b, "argus daemon: pid %d, up %.1f s, sockets in %s\n", (int)getpid(), up,
	          d->run_dir);
	sb_printf(&b, "events: %" PRIu64 " total, %" PRIu64 "/s\n", d->total, d->rate_total);
	for (unsigned i = 0; i < NTYPES; i++)
		if (d->by_type[i]) {
			const char *name = argus_event_type_name(i);
			sb_printf(&b, "  %-20s %10" PRIu64 "/s %14" PRIu64 " total\n",
			          name ? name : "unknown", d->rate[i], d->by_type[i]);
		}
	sb_printf(&b,
	          "merge: %" PRIu64 " held, %" PRIu64 " late, watermark %" PRIu64
	          " ns, max delivery lag %.1f ms\n",
	          ms.buffered, ms.late, ms.watermark_ns, d->max_lag_ns / 1e6);
	unsigned nhook = 0;
	for (unsigned i = d->nkernel; i < d->nrings; i++)
		nhook += d->rings[i] != NULL;
	sb_printf(&b,
	          "rings: %u kernel, %u hook (%" PRIu64 " hook connections, %" PRIu64 " refused)\n",
	          d->nkernel, nhook, d->hooks_connected, d->hooks_refused);
	if (hook_refused || hook_retid)
		sb_printf(&b,
		          "  hook records refused (a type hooks do not write) %" PRIu64
		          ", re-attributed (a thread not of the ring's process) %" PRIu64 "\n",
		          hook_refused, hook_retid);
	for (unsigned i = 0; i < d->nrings; i++) {
		if (!d->rings[i])
			continue;
		uint64_t used, size;
		argus_ring_fill(d->rings[i], &used, &size);
		sb_printf(&b, "  %s %-3u fill %5.1f%% of %" PRIu64 " KiB, drops %" PRIu64 "%s\n",
		          i < d->nkernel ? "cpu " : "hook", argus_ring_cpu(d->rings[i]),
		          size ? 100.0 * used / size : 0.0, size / 1024,
		          argus_ring_drops(d->rings[i]),
		          argus_ring_malformed(d->rings[i]) ? " (malformed records seen)" : "");
	}
	if (d->rec)
		sb_printf(&b,
		          "recorder: %s, %" PRIu64 " chunks, %.1f MiB, window span %.1f s"
		          " (keeps %.0f s / %.0f MiB)%s\n",
		          d->rec_dir, rs.chunks, rs.bytes / 1048576.0,
		          (rs.last_ts - rs.first_ts) / 1e9, d->o.rec_span_ns / 1e9,
		          d->o.rec_bytes / 1048576.0, rs.errors ? ", WRITE ERRORS" : "");
	if (d->rec && rs.room < d->o.rec_bytes)
		sb_printf(&b,
		          "  the file system is full: the recording keeps %.1f MiB, the newest;"
		          " %" PRIu64 " records could not be written\n",
		          rs.room / 1048576.0, rs.lost);
	else if (!d->rec)
		sb_printf(&b, "recorder: off\n");
	if (d->more.n) {
		char more[4096];
		more_status(d, more, sizeof(more), false);
		sb_printf(&b, "trace-more: %u process%s\n%s", d->more.n, d->more.n == 1 ? "" : "es",
		          more);
	} else {
		sb_printf(&b, "trace-more: none\n");
	}
	sb_printf(&b, "memory: rss %.1f MiB, merge %.1f MiB, tables %.1f KiB\n", rss / 1048576.0,
	          merge_bytes / 1048576.0, table_bytes / 1024.0);
	sb_printf(&b, "clients: %u connected, %" PRIu64 " records dropped for slow clients\n",
	          clients_count(&d->cs), d->cs.drops_total);
	clients_status(&d->cs, clients, sizeof(clients), false);
	sb_printf(&b, "%s", clients);
	return b.p;
}
