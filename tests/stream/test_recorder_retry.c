/* The flight recorder when a write fails (a full disk; here the file size
 * limit, so no root is needed): the records of the block whose write failed
 * are written again in a new chunk, not lost. */
#include <dirent.h>
#include <signal.h>
#include <sys/resource.h>

#include "daemon_fixture.h"
#include "stream_priv.h"

#define N     120000 /* records, ts 1..N */
#define BATCH 1000  /* a batch: not a multiple of the writer's blocks */

/* The records in every chunk of dir, by ts: seen[ts] set. */
static void read_dir(const char *dir, uint8_t *seen, uint64_t *faults)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	ASSERT(d);
	while ((de = readdir(d)) != NULL) {
		if (!strstr(de->d_name, ".argus"))
			continue;
		char path[600];
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		struct argus_trace_reader *r;
		struct argus_trace_error e;
		if (argus_trace_open(&r, path, &e))
			continue;
		const struct argus_event *ev;
		int rc;
		while ((rc = argus_trace_next(r, &ev, &e)) != 0) {
			if (rc < 0) {
				(*faults)++;
				continue;
			}
			if (ev->ts >= 1 && ev->ts <= N)
				seen[ev->ts] = 1;
		}
		argus_trace_close(r);
	}
	closedir(d);
}

TEST(a_batch_whose_write_failed_is_written_again_in_a_new_chunk)
{
	char dir[] = "/tmp/argus-test-retry-XXXXXX";
	ASSERT(mkdtemp(dir));
	struct tab strings = {0}, stacks = {0};
	struct recorder *r;
	struct rec_opts o = {.dir = dir,
	                     .span_ns = 1000ull * 1000000000ull,
	                     .max_bytes = 64ull << 20,
	                     .chunk_span_ns = 1000ull * 1000000000ull,
	                     .gid = -1};
	char err[256];
	ASSERT_EQ(rec_open(&r, &o, &strings, &stacks, err, sizeof(err)), 0);

	/* files of this process stop at 3 MiB: a block of 16 384 records
	 * (40 incompressible bytes each) fails to write at about 78 000 */
	struct rlimit old, lim;
	ASSERT(getrlimit(RLIMIT_FSIZE, &old) == 0);
	if (old.rlim_max != RLIM_INFINITY && old.rlim_max < (4u << 20))
		SKIP("the file size limit is already below 4 MiB");
	lim = old;
	lim.rlim_cur = 3u << 20;
	signal(SIGXFSZ, SIG_IGN);
	ASSERT(setrlimit(RLIMIT_FSIZE, &lim) == 0);
	static struct argus_event batch[BATCH];
	uint64_t x = 88172645463325252ull;
	for (uint64_t t = 1; t <= N; t += BATCH) {
		for (unsigned i = 0; i < BATCH; i++) {
			memset(&batch[i], 0, sizeof(batch[i]));
			batch[i].ts = t + i;
			batch[i].type = ARGUS_EV_SCHED_SWITCH;
			for (unsigned w = 0; w < 5; w++) { /* incompressible */
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				memcpy((char *)&batch[i].sched_switch + 8 * w, &x, 8);
			}
		}
		rec_events(r, batch, BATCH);
	}
	struct rec_stats st;
	rec_flush(r); /* the last block, retried if it fails */
	rec_get_stats(r, &st);
	rec_close(r);
	ASSERT(setrlimit(RLIMIT_FSIZE, &old) == 0);
	signal(SIGXFSZ, SIG_DFL);

	static uint8_t seen[N + 1];
	uint64_t faults = 0;
	read_dir(dir, seen, &faults);
	uint64_t first = 0, kept = 0, gaps = 0;
	for (uint64_t t = 1; t <= N; t++) {
		if (seen[t] && !first)
			first = t;
		if (first && !seen[t])
			gaps++;
		kept += seen[t];
	}
	fprintf(stderr,
	        "%u records: %" PRIu64 " kept (ts %" PRIu64 "..%u), %" PRIu64
	        " gaps; recorder: %" PRIu64 " events, %" PRIu64 " rewritten, %" PRIu64
	        " lost, %" PRIu64 " errors\n",
	        N, kept, first, N, gaps, st.events, st.rewritten, st.lost, st.errors);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", dir);
	ASSERT_MSG(st.errors > 0, "no write failed under a 3 MiB file size limit");
	ASSERT_MSG(st.rewritten > 0, "the failed block was not written again");
	ASSERT_U64_EQ(st.lost, 0);
	/* the newest records, none missing: the failed block starts at a block
	 * boundary (16 384 records), not at a batch's */
	ASSERT_U64_EQ(gaps, 0);
	ASSERT(first > 1 && (first - 1) % 16384 == 0);
	ASSERT_U64_EQ(kept, N - first + 1);
}

TEST_MAIN(TEST_ENTRY(a_batch_whose_write_failed_is_written_again_in_a_new_chunk))
