/* The flight recorder: wrap-around keeps exactly the last span, the byte
 * bound holds, dump writes that span, and a kill -9 loses only the
 * unfinished chunk's unflushed tail. */
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "daemon_fixture.h"
#include "stream_priv.h"

#define SEC 1000000000ull
#define MS  1000000ull

static uint64_t count_file(const char *path, uint64_t *first, uint64_t *last, uint64_t *faults)
{
	struct argus_trace_reader *r;
	struct argus_trace_error e;
	if (argus_trace_open(&r, path, &e))
		return 0;
	const struct argus_event *ev;
	uint64_t n = 0;
	int rc;
	while ((rc = argus_trace_next(r, &ev, &e)) != 0) {
		if (rc < 0) {
			if (faults)
				(*faults)++;
			continue;
		}
		if (!n && first)
			*first = ev->ts;
		if (last)
			*last = ev->ts;
		n++;
	}
	argus_trace_close(r);
	return n;
}

static void mktmp(char *base)
{
	strcpy(base, "/tmp/argus-test-XXXXXX");
	ASSERT(mkdtemp(base));
}

static void rmtree(const char *base)
{
	char cmd[160];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", base);
}

/* 100 s of events at 1 ms; keep 10 s in 1 s chunks. */
static void record(const char *dir, uint64_t max_bytes)
{
	struct tab strings = {0}, stacks = {0};
	struct recorder *r;
	struct rec_opts o = {.dir = dir,
	                     .span_ns = 10 * SEC,
	                     .max_bytes = max_bytes,
	                     .chunk_span_ns = 1 * SEC,
	                     .gid = -1};
	char err[256];
	ASSERT_EQ(rec_open(&r, &o, &strings, &stacks, err, sizeof(err)), 0);
	static struct argus_event batch[1000];
	for (uint64_t t = 1 * SEC; t <= 100 * SEC; t += 1000 * MS) {
		for (unsigned i = 0; i < 1000; i++) {
			batch[i] =
			    (struct argus_event){.ts = t + i * MS, .type = ARGUS_EV_SCHED_SWITCH};
			batch[i].sched_switch.next_pid = i; /* something to compress */
		}
		ASSERT_EQ(rec_events(r, batch, t == 100 * SEC ? 1 : 1000), 0);
	}
	struct rec_stats st;
	rec_get_stats(r, &st);
	ASSERT_U64_EQ(st.errors, 0);
	rec_close(r);
}

TEST(wrap_around_keeps_exactly_the_last_span)
{
	char dir[64];
	mktmp(dir);
	record(dir, 2ull << 30);
	struct rec_chunk *ch;
	size_t n;
	ASSERT_EQ(rec_list(dir, &ch, &n), 0);
	ASSERT(n >= 10 && n <= 12);
	uint64_t newest = ch[n - 1].last;
	ASSERT_U64_EQ(newest, 100 * SEC);
	/* the oldest chunk still reaches into the span, the one before it is gone */
	ASSERT(ch[0].last >= newest - 10 * SEC);
	ASSERT(ch[0].first <= newest - 10 * SEC);
	free(ch);
	char out[128];
	snprintf(out, sizeof(out), "%s/dump.argus", dir);
	struct argus_dump_stats ds;
	char err[256];
	ASSERT_EQ(argus_recorder_dump(dir, 10 * SEC, out, &ds, err, sizeof(err)), 0);
	uint64_t first = 0, last = 0;
	ASSERT_U64_EQ(count_file(out, &first, &last, NULL), 10001); /* [90 s, 100 s] at 1 ms */
	ASSERT_U64_EQ(first, 90 * SEC);
	ASSERT_U64_EQ(last, 100 * SEC);
	ASSERT_U64_EQ(ds.events, 10001);
	rmtree(dir);
}

TEST(byte_bound_holds_whichever_is_less)
{
	char dir[64];
	mktmp(dir);
	record(dir, 64 * 1024);
	struct rec_chunk *ch;
	size_t n;
	ASSERT_EQ(rec_list(dir, &ch, &n), 0);
	uint64_t bytes = 0;
	for (size_t i = 0; i < n; i++)
		bytes += ch[i].bytes;
	ASSERT_MSG(bytes <= 64 * 1024, "%" PRIu64 " bytes on disk", bytes);
	ASSERT(n >= 1);
	ASSERT_U64_EQ(ch[n - 1].last, 100 * SEC); /* the newest is what is kept */
	free(ch);
	rmtree(dir);
}

TEST(dump_of_an_empty_recorder_says_so)
{
	char dir[64];
	mktmp(dir);
	struct argus_dump_stats ds;
	char err[256], out[128];
	snprintf(out, sizeof(out), "%s/x.argus", dir);
	ASSERT(argus_recorder_dump(dir, SEC, out, &ds, err, sizeof(err)) < 0);
	ASSERT_CONTAINS(err, "is empty");
	ASSERT(argus_recorder_dump("/nonexistent/argus", SEC, out, &ds, err, sizeof(err)) < 0);
	ASSERT_CONTAINS(err, "/nonexistent/argus");
	rmtree(dir);
}

/* Table ids in every chunk are the daemon's ids: strings and stacks interned
 * before a chunk opens and while it is open both resolve. */
TEST(chunks_carry_the_daemons_table_ids)
{
	char dir[64];
	mktmp(dir);
	struct tab strings = {0}, stacks = {0};
	ASSERT_EQ(tab_string(&strings, "/usr/bin/gedit", 14), 1);
	ASSERT_EQ(tab_string(&strings, "/usr/lib/libgtk-3.so", 20), 2);
	ASSERT_EQ(tab_string(&strings, "/usr/bin/gedit", 14), 1); /* deduplicated */
	uint64_t ips[3] = {0x401000, 0x402000, 0x403000};
	ASSERT_EQ(tab_stack(&stacks, ips, 3), 1);
	struct recorder *r;
	struct rec_opts o = {.dir = dir,
	                     .span_ns = 100 * SEC,
	                     .max_bytes = 1ull << 30,
	                     .chunk_span_ns = 1 * SEC,
	                     .gid = -1};
	char err[256];
	ASSERT_EQ(rec_open(&r, &o, &strings, &stacks, err, sizeof(err)), 0);
	struct argus_event e = {.ts = 1 * SEC, .type = ARGUS_EV_PROC_EXEC};
	e.exec.exe_str = 1;
	ASSERT_EQ(rec_events(r, &e, 1), 0);
	/* interned while the chunk is open */
	ASSERT_EQ(tab_string(&strings, "gedit-worker", 12), 3);
	rec_string(r, 3);
	ASSERT_EQ(tab_stack(&stacks, ips, 2), 2);
	rec_stack(r, 2);
	e.ts = 3 * SEC; /* next chunk: everything replayed */
	ASSERT_EQ(rec_events(r, &e, 1), 0);
	struct rec_stats st;
	rec_get_stats(r, &st);
	ASSERT_U64_EQ(st.errors, 0);
	rec_close(r);
	struct rec_chunk *ch;
	size_t n;
	ASSERT_EQ(rec_list(dir, &ch, &n), 0);
	ASSERT_EQ(n, 2);
	for (size_t i = 0; i < n; i++) {
		char path[300];
		snprintf(path, sizeof(path), "%s/%s", dir, ch[i].name);
		struct argus_trace_reader *tr;
		struct argus_trace_error te;
		ASSERT_EQ(argus_trace_open(&tr, path, &te), 0);
		const struct argus_event *ev;
		while (argus_trace_next(tr, &ev, &te) > 0)
			;
		ASSERT_STR_EQ(argus_trace_string(tr, 1), "/usr/bin/gedit");
		ASSERT_STR_EQ(argus_trace_string(tr, 2), "/usr/lib/libgtk-3.so");
		ASSERT_STR_EQ(argus_trace_string(tr, 3), "gedit-worker");
		struct argus_stack sk;
		ASSERT(argus_trace_stack(tr, 2, &sk));
		ASSERT_EQ(sk.depth, 2);
		ASSERT_U64_EQ(sk.ips[1], 0x402000);
		argus_trace_close(tr);
	}
	free(ch);
	tab_free(&strings);
	tab_free(&stacks);
	rmtree(dir);
}

TEST(kill_9_loses_only_the_unfinished_chunk)
{
	char base[64], run[96], rec[96];
	mktmp(base);
	snprintf(run, sizeof(run), "%s/run", base);
	snprintf(rec, sizeof(rec), "%s/rec", base);
	struct argus_ring *cons, *prod;
	int fd;
	ASSERT_EQ(argus_ring_create_shm(&cons, 1u << 15, &fd), 0);
	ASSERT_EQ(argus_ring_attach_shm(&prod, fd), 0);
	pid_t child = fork();
	if (child == 0) {
		struct argus_daemon *d;
		struct argus_daemon_opts o = {.run_dir = run,
		                              .rec_dir = rec,
		                              .hooks_dir = "",
		                              .group = -1,
		                              .chunk_span_ns = 100 * MS};
		char err[256];
		if (argus_daemon_new(&d, &o, err, sizeof(err)) ||
		    argus_daemon_add_hook_ring(d, cons))
			_exit(2);
		_exit(argus_daemon_run(d, err, sizeof(err)) ? 3 : 0);
	}
	argus_ring_close(cons);
	struct fixture f = {0};
	snprintf(f.run, sizeof(f.run), "%s", run);
	bool up = false;
	for (int i = 0; i < 500 && !up; i++, usleep(10000))
		up = argus_daemon_request(run, "status", -1) == 0;
	ASSERT(up);
	uint64_t t0 = fx_now() - 3 * SEC;
	for (unsigned i = 0; i < 20000; i++) { /* 2 s of events: ~20 chunks */
		struct argus_event e = fx_ev(t0 + i * 100000ull, ARGUS_EV_FUTEX_WAKE, 3);
		ASSERT_EQ(argus_ring_write(prod, &e), 1);
	}
	ASSERT(fx_wait_status(&f, "\"total\":20000,"));
	ASSERT_EQ(argus_daemon_request(run, "flush", -1), 0);
	kill(child, SIGKILL);
	int st;
	waitpid(child, &st, 0);
	ASSERT(WIFSIGNALED(st));
	struct rec_chunk *ch;
	size_t n;
	ASSERT_EQ(rec_list(rec, &ch, &n), 0);
	ASSERT(n >= 10);
	uint64_t total = 0;
	for (size_t i = 0; i < n; i++) {
		char path[300];
		snprintf(path, sizeof(path), "%s/%s", rec, ch[i].name);
		uint64_t faults = 0;
		uint64_t k = count_file(path, NULL, NULL, &faults);
		if (!ch[i].open) /* closed chunks read back whole */
			ASSERT_MSG(faults == 0 && k > 0, "chunk %s: %" PRIu64 " faults", ch[i].name,
			           faults);
		total += k;
	}
	free(ch);
	/* flushed before the kill: even the open chunk's records are there */
	ASSERT_U64_EQ(total, 20000);
	char out[128], err[256];
	snprintf(out, sizeof(out), "%s/dump.argus", base);
	struct argus_dump_stats ds;
	ASSERT_EQ(argus_recorder_dump(rec, 60 * SEC, out, &ds, err, sizeof(err)), 0);
	ASSERT_U64_EQ(count_file(out, NULL, NULL, NULL), 20000);
	argus_ring_close(prod);
	close(fd);
	rmtree(base);
}

/* A chunk a crash left open often ends inside a block (the write the kill
 * cut short): dump reads up to there and does not call it damage; the
 * same cut in a closed chunk is damage (a fault). */
TEST(dump_takes_a_torn_end_of_an_open_chunk_as_expected)
{
	char base[64], rec[96], crash[96];
	mktmp(base);
	snprintf(rec, sizeof(rec), "%s/rec", base);
	snprintf(crash, sizeof(crash), "%s/crash", base);
	ASSERT_EQ(mkdir(crash, 0700), 0);
	struct tab strings = {0}, stacks = {0};
	struct recorder *r;
	struct rec_opts o = {.dir = rec,
	                     .span_ns = 100 * SEC,
	                     .max_bytes = 1ull << 30,
	                     .chunk_span_ns = 60 * SEC,
	                     .gid = -1};
	char err[256];
	ASSERT_EQ(rec_open(&r, &o, &strings, &stacks, err, sizeof(err)), 0);
	static struct argus_event batch[1000];
	for (unsigned b = 0; b < 2; b++) { /* two flushes: two sealed blocks */
		for (unsigned i = 0; i < 1000; i++) {
			batch[i] = (struct argus_event){.ts = SEC + (b * 1000 + i) * MS,
			                                .type = ARGUS_EV_SCHED_SWITCH};
			batch[i].sched_switch.next_pid = i;
		}
		ASSERT_EQ(rec_events(r, batch, 1000), 0);
		ASSERT_EQ(rec_flush(r), 0);
	}
	/* the open chunk as a kill in the middle of its second block leaves it */
	struct rec_chunk *ch;
	size_t n;
	ASSERT_EQ(rec_list(rec, &ch, &n), 0);
	ASSERT_EQ(n, 1);
	ASSERT(ch[0].open);
	char from[300], to[300], cmd[700];
	snprintf(from, sizeof(from), "%s/%s", rec, ch[0].name);
	snprintf(to, sizeof(to), "%s/%s", crash, ch[0].name);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", from, to);
	ASSERT_EQ(system(cmd), 0);
	ASSERT_EQ(truncate(to, (off_t)ch[0].bytes - 20), 0);
	rec_close(r);
	char out[128];
	snprintf(out, sizeof(out), "%s/dump.argus", base);
	struct argus_dump_stats ds;
	ASSERT_EQ(argus_recorder_dump(crash, 60 * SEC, out, &ds, err, sizeof(err)), 0);
	ASSERT_U64_EQ(ds.events, 1000); /* the first block */
	ASSERT_U64_EQ(ds.faults, 0);
	ASSERT_U64_EQ(ds.torn, 1);
	/* closed under a closed chunk's name, the same cut is damage */
	char closed[300];
	snprintf(closed, sizeof(closed), "%s/%" PRIu64 "-%" PRIu64 "-%" PRIu64 ".argus", crash,
	         ch[0].seq, ch[0].first, (uint64_t)(ch[0].first + 2 * SEC));
	ASSERT_EQ(rename(to, closed), 0);
	ASSERT_EQ(argus_recorder_dump(crash, 60 * SEC, out, &ds, err, sizeof(err)), 0);
	ASSERT_U64_EQ(ds.faults, 1);
	free(ch);
	tab_free(&strings);
	tab_free(&stacks);
	rmtree(base);
}

TEST_MAIN(TEST_ENTRY(wrap_around_keeps_exactly_the_last_span),
          TEST_ENTRY(byte_bound_holds_whichever_is_less),
          TEST_ENTRY(dump_of_an_empty_recorder_says_so),
          TEST_ENTRY(chunks_carry_the_daemons_table_ids),
          TEST_ENTRY(kill_9_loses_only_the_unfinished_chunk),
          TEST_ENTRY(dump_takes_a_torn_end_of_an_open_chunk_as_expected))
