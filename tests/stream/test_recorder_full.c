/* The flight recorder on a file system that fills (docs/daemon.md "Flight
 * recorder"): one clear message, the newest records that fit are kept,
 * and everything else (sinks: the stall detection; stream clients) goes
 * on getting every record. Root: mounts an 8 MiB tmpfs. */
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/wait.h>

#include "daemon_fixture.h"
#include "stream_priv.h"

#define NREC 1500000u
#define STEP 20000ull /* ns between records: 30 s of event time */

struct count_sink {
	uint64_t n, last_ts, drops;
};

static int count_events(void *arg, const struct argus_event *ev, size_t n)
{
	struct count_sink *c = arg;
	for (size_t i = 0; i < n; i++)
		c->drops += ev[i].type == ARGUS_EV_DROP;
	c->n += n;
	c->last_ts = ev[n - 1].ts;
	return 0;
}

static uint64_t json_u64(const char *js, const char *key)
{
	const char *p = strstr(js, key);
	return p ? strtoull(p + strlen(key), NULL, 10) : UINT64_MAX;
}

static char mounted[64]; /* unmounted however the case ends */

static void unmount(void)
{
	if (mounted[0]) {
		umount2(mounted, MNT_DETACH);
		rmdir(mounted);
	}
}

TEST(a_full_disk_keeps_the_newest_and_the_rest_goes_on)
{
	if (geteuid() != 0)
		SKIP("needs root to mount a tmpfs");
	char mnt[64] = "/tmp/argus-test-full-XXXXXX";
	ASSERT(mkdtemp(mnt));
	if (mount("tmpfs", mnt, "tmpfs", 0, "size=8m,mode=0755"))
		SKIP("cannot mount a tmpfs here");
	strcpy(mounted, mnt);
	atexit(unmount);
	char rec[128], errpath[128];
	snprintf(rec, sizeof(rec), "%s/rec", mnt);
	snprintf(errpath, sizeof(errpath), "/tmp/argus-test-full-%d.err", (int)getpid());
	/* the daemon's stderr, to count its messages */
	fflush(stderr);
	int saved = dup(2), efd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ASSERT(saved >= 0 && efd >= 0);
	dup2(efd, 2);
	close(efd);

	struct count_sink cs = {0};
	struct argus_sink sink = {.events = count_events, .arg = &cs};
	struct fixture f;
	struct argus_daemon_opts o = {.rec_dir = rec, .chunk_span_ns = 2000000000ull};
	fx_start(&f, &o, 1u << 16, &sink);
	int cl = fx_connect(f.run, STREAM_SOCK);
	ASSERT(cl >= 0);
	const char *req = "stream v=1 types=futex_wake\n"; /* a client that keeps up */
	ASSERT_EQ(write(cl, req, strlen(req)), (ssize_t)strlen(req));
	char line[4096];
	ASSERT(fx_line(cl, line, sizeof(line), 3000));

	uint64_t t0 = fx_now() - 60000000000ull, x = 88172645463325252ull;
	for (unsigned i = 0; i < NREC; i++) {
		struct argus_event e = fx_ev(t0 + i * STEP, ARGUS_EV_SCHED_SWITCH, 1000 + i % 7);
		for (unsigned k = 0; k < sizeof(e.raw); k += 8) { /* incompressible */
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			memcpy(e.raw + k, &x, 8);
		}
		if (i % 1000 == 0)
			e.type = ARGUS_EV_FUTEX_WAKE;
		while (argus_ring_write(f.prod, &e) != 1)
			usleep(1000);
	}
	uint64_t last = t0 + (NREC - 1) * STEP;
	for (int i = 0; i < 3000 && cs.n < NREC; i++)
		usleep(10000);
	unsigned got_client = 0;
	while (fx_line(cl, line, sizeof(line), 500))
		got_client += strstr(line, "\"type\":\"futex_wake\"") != NULL;
	ASSERT_EQ(argus_daemon_request(f.run, "flush", -1), 0);
	char st[65536];
	ASSERT_EQ(fx_status(&f, st, sizeof(st)), 0);
	fx_stop(&f);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);

	/* the rest went on: every record reached the sink, the client its own */
	/* (a full ring makes the writer here retry: counted as drop records) */
	ASSERT_MSG(cs.n - cs.drops == NREC, "%llu records, %llu of them drops",
	           (unsigned long long)cs.n, (unsigned long long)cs.drops);
	ASSERT(cs.last_ts >= last);
	ASSERT_EQ(got_client, NREC / 1000);
	/* the bound shrank to what fits */
	uint64_t room = json_u64(st, "\"room_bytes\":"), bytes = json_u64(st, "\"bytes\":");
	uint64_t lost = json_u64(st, "\"lost\":");
	fprintf(stderr, "recorder: room %.1f MiB, %.1f MiB on disk, lost %llu records\n",
	        room / 1048576.0, bytes / 1048576.0, (unsigned long long)lost);
	ASSERT(room < (8ull << 20));
	ASSERT(bytes <= (8ull << 20));
	/* one clear message */
	FILE *ef = fopen(errpath, "r");
	ASSERT(ef);
	unsigned msgs = 0;
	while (fgets(line, sizeof(line), ef)) {
		fputs(line, stderr);
		if (strstr(line, "recorder:") && strstr(line, "full"))
			msgs++;
	}
	fclose(ef);
	unlink(errpath);
	ASSERT_EQ(msgs, 1);
	/* the newest records are kept: a dump ends at the last record and
	 * does not reach back to the first */
	char out[128], err[256];
	snprintf(out, sizeof(out), "/tmp/argus-test-full-%d.argus", (int)getpid());
	struct argus_dump_stats ds;
	int rc = argus_recorder_dump(rec, 3600000000000ull, out, &ds, err, sizeof(err));
	ASSERT_MSG(rc == 0, "dump: %s", err);
	struct argus_trace_reader *r;
	struct argus_trace_error te;
	ASSERT_EQ(argus_trace_open(&r, out, &te), 0);
	const struct argus_event *e;
	uint64_t lo = UINT64_MAX, hi = 0, n = 0;
	while ((rc = argus_trace_next(r, &e, &te)) == 1) {
		if (e->type != ARGUS_EV_SCHED_SWITCH && e->type != ARGUS_EV_FUTEX_WAKE)
			continue;
		lo = e->ts < lo ? e->ts : lo;
		hi = e->ts > hi ? e->ts : hi;
		n++;
	}
	argus_trace_close(r);
	fprintf(stderr, "dump: %llu of %u records kept, %.2f s .. %.2f s of 0 .. %.2f s\n",
	        (unsigned long long)n, NREC, (lo - t0) / 1e9, (hi - t0) / 1e9, (last - t0) / 1e9);
	ASSERT_U64_EQ(hi, last); /* the newest */
	ASSERT(lo > t0);         /* not the oldest */
	ASSERT(n > 50000 && n < NREC);
	/* and all of them since, but for what a failed write lost: counted
	 * (a write that meets the full disk loses its batch; where a second
	 * one falls inside the kept span depends on the batches' sizes) */
	uint64_t want = (last - lo) / STEP + 1;
	ASSERT_MSG(n <= want && want - n <= lost, "%llu of %llu kept since the oldest, %llu lost",
	           (unsigned long long)n, (unsigned long long)want, (unsigned long long)lost);
	unlink(out);
	fx_cleanup(&f);
}

/* Someone else fills the disk while the daemon records: a write fails
 * (ENOSPC) before the recorder's next look. One message, the failed chunk
 * kept as far as written, the oldest deleted, recording goes on: the
 * newest records are on disk at the end. */
TEST(a_disk_filled_by_someone_else_fails_a_write_and_recording_goes_on)
{
	if (geteuid() != 0)
		SKIP("needs root to mount a tmpfs");
	char mnt[64] = "/tmp/argus-test-full-XXXXXX";
	ASSERT(mkdtemp(mnt));
	if (mount("tmpfs", mnt, "tmpfs", 0, "size=8m,mode=0755"))
		SKIP("cannot mount a tmpfs here");
	strcpy(mounted, mnt);
	atexit(unmount);
	char rec[128], errpath[128], filler[128];
	snprintf(rec, sizeof(rec), "%s/rec", mnt);
	snprintf(filler, sizeof(filler), "%s/filler", mnt);
	snprintf(errpath, sizeof(errpath), "/tmp/argus-test-full-%d.err", (int)getpid());
	fflush(stderr);
	int saved = dup(2), efd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ASSERT(saved >= 0 && efd >= 0);
	dup2(efd, 2);
	close(efd);

	struct count_sink cs = {0};
	struct argus_sink sink = {.events = count_events, .arg = &cs};
	struct fixture f;
	struct argus_daemon_opts o = {.rec_dir = rec, .chunk_span_ns = 2000000000ull};
	fx_start(&f, &o, 1u << 16, &sink);
	uint64_t t0 = fx_now() - 60000000000ull, x = 88172645463325252ull;
	const unsigned n = 1000000, fill_at = 400000;
	for (unsigned i = 0; i < n; i++) {
		if (i == fill_at) {
			/* once the recorder has these on disk: everything that is
			 * left, in one go */
			for (int k = 0; k < 3000 && cs.n - cs.drops < fill_at; k++)
				usleep(10000);
			ASSERT_EQ(argus_daemon_request(f.run, "flush", -1), 0);
			int fd = open(filler, O_WRONLY | O_CREAT | O_TRUNC, 0600);
			ASSERT(fd >= 0);
			static char block[65536];
			while (write(fd, block, sizeof(block)) > 0)
				;
			close(fd);
		}
		struct argus_event e = fx_ev(t0 + i * STEP, ARGUS_EV_SCHED_SWITCH, 1000 + i % 7);
		for (unsigned k = 0; k < sizeof(e.raw); k += 8) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			memcpy(e.raw + k, &x, 8);
		}
		while (argus_ring_write(f.prod, &e) != 1)
			usleep(1000);
	}
	uint64_t last = t0 + (n - 1) * STEP;
	for (int i = 0; i < 3000 && cs.n - cs.drops < n; i++)
		usleep(10000);
	ASSERT_EQ(argus_daemon_request(f.run, "flush", -1), 0);
	char st[65536];
	ASSERT_EQ(fx_status(&f, st, sizeof(st)), 0);
	fx_stop(&f);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);

	ASSERT_MSG(cs.n - cs.drops == n, "the sink got %llu of %u records",
	           (unsigned long long)(cs.n - cs.drops), n);
	fprintf(stderr, "recorder: room %.1f MiB, %.1f MiB on disk, %llu write errors, %llu lost\n",
	        json_u64(st, "\"room_bytes\":") / 1048576.0, json_u64(st, "\"bytes\":") / 1048576.0,
	        (unsigned long long)json_u64(st, "\"errors\":"),
	        (unsigned long long)json_u64(st, "\"lost\":"));
	char line[1024];
	FILE *ef = fopen(errpath, "r");
	ASSERT(ef);
	unsigned msgs = 0;
	while (fgets(line, sizeof(line), ef)) {
		fputs(line, stderr);
		msgs += strstr(line, "recorder:") != NULL;
	}
	fclose(ef);
	unlink(errpath);
	ASSERT_EQ(msgs, 1);
	char out[128], err[256];
	snprintf(out, sizeof(out), "/tmp/argus-test-full-%d.argus", (int)getpid());
	struct argus_dump_stats ds;
	int rc = argus_recorder_dump(rec, 3600000000000ull, out, &ds, err, sizeof(err));
	ASSERT_MSG(rc == 0, "dump: %s", err);
	struct argus_trace_reader *r;
	struct argus_trace_error te;
	ASSERT_EQ(argus_trace_open(&r, out, &te), 0);
	const struct argus_event *e;
	uint64_t lo = UINT64_MAX, hi = 0, kept = 0;
	while ((rc = argus_trace_next(r, &e, &te)) != 0)
		if (rc == 1 && e->type == ARGUS_EV_SCHED_SWITCH) {
			lo = e->ts < lo ? e->ts : lo;
			hi = e->ts > hi ? e->ts : hi;
			kept++;
		}
	argus_trace_close(r);
	unlink(out);
	fprintf(stderr, "dump: %llu of %u records, %.2f s .. %.2f s of 0 .. %.2f s, %llu faults\n",
	        (unsigned long long)kept, n, (lo - t0) / 1e9, (hi - t0) / 1e9, (last - t0) / 1e9,
	        (unsigned long long)ds.faults);
	ASSERT_U64_EQ(hi, last); /* recording went on to the end */
	ASSERT(kept > 10000);
	fx_cleanup(&f);
}

TEST_MAIN(TEST_ENTRY(a_full_disk_keeps_the_newest_and_the_rest_goes_on),
          TEST_ENTRY(a_disk_filled_by_someone_else_fails_a_write_and_recording_goes_on))
