/* `argus info` and `argus cat` on good and damaged traces: output, the one
 * error line, and exit codes (cli/cli.h). Runs the built argus ($ARGUS_BIN). */
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "../../cli/cli.h"
#include "test.h"
#include "trace_format.h"
#include "trace_sample.h"

#define NEV   600
#define CHUNK 64

extern char **environ;

struct run {
	int status;
	char *out, *err;
	size_t out_n;
};

static char *slurp(int fd, size_t *n)
{
	struct blob b;
	if (blob_from_fd(&b, fd))
		return NULL;
	char *s = realloc(b.p, b.n + 1);
	s[b.n] = '\0';
	if (n)
		*n = b.n;
	return s;
}

static const char *argus_bin(void)
{
	const char *bin = getenv("ARGUS_BIN");
	if (!bin || access(bin, X_OK) != 0)
		SKIP("ARGUS_BIN not set or not executable (run through ctest)");
	return bin;
}

/* Run argus with args; stdin_fd < 0 leaves stdin alone. */
static struct run run_fd(int stdin_fd, const char *const *args)
{
	const char *argv[16] = {argus_bin()};
	size_t n = 1;
	for (; args[n - 1] && n < 15; n++)
		argv[n] = args[n - 1];
	argv[n] = NULL;
	int out = memfd_create("out", 0), err = memfd_create("err", 0);
	ASSERT(out >= 0 && err >= 0);
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, out, 1);
	posix_spawn_file_actions_adddup2(&fa, err, 2);
	if (stdin_fd >= 0)
		posix_spawn_file_actions_adddup2(&fa, stdin_fd, 0);
	pid_t pid;
	ASSERT(posix_spawn(&pid, argv[0], &fa, NULL, (char **)argv, environ) == 0);
	posix_spawn_file_actions_destroy(&fa);
	struct run r = {0};
	ASSERT(waitpid(pid, &r.status, 0) == pid);
	ASSERT(WIFEXITED(r.status));
	r.status = WEXITSTATUS(r.status);
	r.out = slurp(out, &r.out_n);
	r.err = slurp(err, NULL);
	close(out);
	close(err);
	return r;
}

#define RUN(...) run_fd(-1, (const char *const[]){__VA_ARGS__, NULL})

static void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
}

static size_t lines(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* Exactly one line on stderr, starting with prefix. */
static void one_error_line(const struct run *r, const char *prefix)
{
	ASSERT_MSG(lines(r->err) == 1, "stderr has %zu lines: %s", lines(r->err), r->err);
	ASSERT_MSG(!strncmp(r->err, prefix, strlen(prefix)), "stderr: %s", r->err);
}

static char dir[64];

static void remove_dir(void)
{
	static const char *const names[] = {"ok.argus", "bad.argus", "new.argus", "magic.argus"};
	char path[128];
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
}

/* A sample trace at dir/name, optionally damaged by damage(). */
static const char *trace_file(const char *name, void (*damage)(struct blob *))
{
	if (!dir[0]) {
		strcpy(dir, "/tmp/argus-cli-test-XXXXXX");
		ASSERT(mkdtemp(dir));
		atexit(remove_dir);
	}
	static char path[128];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	struct blob b;
	ASSERT(sample_write(&b, NEV, CHUNK) == 0);
	if (damage)
		damage(&b);
	FILE *f = fopen(path, "wb");
	ASSERT(f && fwrite(b.p, 1, b.n, f) == b.n && fclose(f) == 0);
	free(b.p);
	return path;
}

static uint64_t chunk_off(const struct blob *b, int k)
{
	uint64_t off = TF_HEADER_SIZE;
	struct tf_block h;
	while (off + sizeof(h) <= b->n) {
		memcpy(&h, b->p + off, sizeof(h));
		if (h.kind == TF_EVENTS && k-- == 0)
			return off;
		off += sizeof(h) + h.stored_size;
	}
	return 0;
}

static uint64_t bad_chunk;

static void flip_chunk(struct blob *b)
{
	bad_chunk = chunk_off(b, 1);
	b->p[bad_chunk + sizeof(struct tf_block) + 5] ^= 0x08;
}

static void newer(struct blob *b)
{
	struct tf_header h;
	memcpy(&h, b->p, sizeof(h));
	h.version++;
	h.crc = tf_crc32(&h, offsetof(struct tf_header, crc));
	memcpy(b->p, &h, sizeof(h));
}

static void bad_magic(struct blob *b)
{
	b->p[1] = 'X';
}

TEST(info_summarizes_a_trace)
{
	struct run r = RUN("info", trace_file("ok.argus", NULL));
	ASSERT_EQ(r.status, ARGUS_EXIT_OK);
	ASSERT_STR_EQ(r.err, "");
	ASSERT_CONTAINS(r.out, "events:     600 in 10 chunks (indexed)");
	ASSERT_CONTAINS(r.out, "(duration 0.000599000 s)");
	ASSERT_CONTAINS(r.out, "  sched_switch ");
	ASSERT_CONTAINS(r.out, "pid 102     worker-c");
	ASSERT_CONTAINS(r.out, "drops:      12 DROP records: hook_ring 60");
	ASSERT_CONTAINS(r.out, "tables:     strings 12, stacks 5, maps 6, build ids 6");
	ASSERT_CONTAINS(r.out, "ground truth: 3 records");
	ASSERT_CONTAINS(r.out, "  long_running     ui 100/1000 stall +0.000004000 s");
	ASSERT_CONTAINS(r.out, "faults:     none");
	run_free(&r);
}

TEST(info_missing_file_is_an_io_error)
{
	struct run r = RUN("info", "/nonexistent/t.argus");
	ASSERT_EQ(r.status, ARGUS_EXIT_IO);
	ASSERT_STR_EQ(r.err, "argus info: /nonexistent/t.argus: offset 0: cannot open: No such "
	                     "file or directory\n");
	run_free(&r);
}

TEST(info_usage_errors)
{
	struct run r = RUN("info", "--bogus", "x");
	ASSERT_EQ(r.status, ARGUS_EXIT_USAGE);
	one_error_line(&r, "argus info: unknown option '--bogus'");
	run_free(&r);
	r = RUN("info");
	ASSERT_EQ(r.status, ARGUS_EXIT_USAGE);
	one_error_line(&r, "argus info: missing FILE");
	run_free(&r);
	r = RUN("info", "a", "b");
	ASSERT_EQ(r.status, ARGUS_EXIT_USAGE);
	one_error_line(&r, "argus info: expects one FILE");
	run_free(&r);
}

TEST(info_corrupt_chunk_reports_and_exits_badinput)
{
	const char *path = trace_file("bad.argus", flip_chunk);
	struct run r = RUN("info", path);
	ASSERT_EQ(r.status, ARGUS_EXIT_BADINPUT);
	char want[256];
	snprintf(want, sizeof(want), "argus info: %s: offset %llu: event chunk checksum mismatch\n",
	         path, (unsigned long long)bad_chunk);
	ASSERT_STR_EQ(r.err, want);
	ASSERT_CONTAINS(r.out, "events:     536 in 9 chunks");
	ASSERT_CONTAINS(r.out, "faults:     1 (bad chunks 1, events lost 64");
	run_free(&r);
}

TEST(info_newer_version_exits_version)
{
	struct run r = RUN("info", trace_file("new.argus", newer));
	ASSERT_EQ(r.status, ARGUS_EXIT_VERSION);
	one_error_line(&r, "argus info: ");
	ASSERT_CONTAINS(r.err, "offset 8: format version 2 is newer than this argus reads (1)");
	run_free(&r);
}

TEST(info_bad_magic_exits_badinput)
{
	struct run r = RUN("info", trace_file("magic.argus", bad_magic));
	ASSERT_EQ(r.status, ARGUS_EXIT_BADINPUT);
	one_error_line(&r, "argus info: ");
	ASSERT_CONTAINS(r.err, "offset 0: not an argus trace (bad magic)");
	run_free(&r);
}

TEST(help_for_each_command)
{
	struct run r = RUN("info", "--help");
	ASSERT_EQ(r.status, ARGUS_EXIT_OK);
	ASSERT(!strncmp(r.out, "usage: argus info", 17));
	run_free(&r);
	r = RUN("cat", "--help");
	ASSERT_EQ(r.status, ARGUS_EXIT_OK);
	ASSERT(!strncmp(r.out, "usage: argus cat", 16));
	run_free(&r);
}

TEST(cat_json_prints_every_event)
{
	struct run r = RUN("cat", "--json", trace_file("ok.argus", NULL));
	ASSERT_EQ(r.status, ARGUS_EXIT_OK);
	ASSERT_STR_EQ(r.err, "");
	ASSERT_EQ(lines(r.out), NEV);
	ASSERT(!strncmp(r.out, "{\"ts\":1000,\"type\":\"proc_fork\",", 30));
	run_free(&r);
}

TEST(cat_text_is_one_line_per_event)
{
	struct run r = RUN("cat", trace_file("ok.argus", NULL));
	ASSERT_EQ(r.status, ARGUS_EXIT_OK);
	ASSERT_EQ(lines(r.out), NEV);
	ASSERT(!strncmp(r.out, "1000 +0.000000000 cpu0 100/1000 proc_fork child_pid=200 ", 56));
	run_free(&r);
}

TEST(cat_relative_range)
{
	/* start 1000 ns; event i at 1000 + 1000 i: +100us..+200us is events 100..200 */
	struct run r =
	    RUN("cat", "--from", "+100us", "--to", "+200us", trace_file("ok.argus", NULL));
	ASSERT_EQ(r.status, ARGUS_EXIT_OK);
	ASSERT_EQ(lines(r.out), 101);
	ASSERT(!strncmp(r.out, "101000 ", 7));
	run_free(&r);
	r = RUN("cat", "--json", "--from", "101000", "--to", "101000",
	        trace_file("ok.argus", NULL));
	ASSERT_EQ(lines(r.out), 1);
	run_free(&r);
}

TEST(cat_pid_filter)
{
	struct run r = RUN("cat", "--pid", "101", trace_file("ok.argus", NULL));
	ASSERT_EQ(r.status, ARGUS_EXIT_OK);
	ASSERT_EQ(lines(r.out), NEV / 3);
	ASSERT_CONTAINS(r.out, " 101/10");
	run_free(&r);
}

TEST(cat_usage_errors)
{
	const char *f = trace_file("ok.argus", NULL);
	static const struct {
		const char *args[4];
		const char *err;
	} cases[] = {
	    {{"--from", "junk"}, "argus cat: --from: 'junk' is not a time"},
	    {{"--to", "+-1s"}, "argus cat: --to: '+-1s' is not a time"},
	    {{"--pid", "abc"}, "argus cat: --pid: 'abc' is not a process id"},
	    {{"--pid", "99999999999"}, "argus cat: --pid: '99999999999' is not a process id"},
	    {{"--from", "+2s", "--to", "+1s"}, "argus cat: --from +2s is after --to +1s"},
	    {{"--bogus"}, "argus cat: unknown option '--bogus'"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *a[8] = {"cat"};
		size_t n = 1;
		for (size_t k = 0; k < 4 && cases[i].args[k]; k++)
			a[n++] = cases[i].args[k];
		a[n++] = f;
		a[n] = NULL;
		struct run r = run_fd(-1, a);
		ASSERT_MSG(r.status == ARGUS_EXIT_USAGE, "case %zu: exit %d", i, r.status);
		one_error_line(&r, cases[i].err);
		ASSERT_STR_EQ(r.out, "");
		run_free(&r);
	}
	struct run r = RUN("cat", f, "--from");
	ASSERT_EQ(r.status, ARGUS_EXIT_USAGE);
	one_error_line(&r, "argus cat: option '--from' needs a value");
	run_free(&r);
}

TEST(cat_corrupt_chunk_prints_the_rest)
{
	const char *path = trace_file("bad.argus", flip_chunk);
	struct run r = RUN("cat", "--json", path);
	ASSERT_EQ(r.status, ARGUS_EXIT_BADINPUT);
	ASSERT_EQ(lines(r.out), NEV - CHUNK);
	one_error_line(&r, "argus cat: ");
	ASSERT_CONTAINS(r.err, "event chunk checksum mismatch");
	run_free(&r);
}

TEST(cat_reads_a_pipe_on_stdin)
{
	const char *path = trace_file("ok.argus", NULL);
	int p[2];
	ASSERT(pipe(p) == 0);
	fcntl(p[1], F_SETPIPE_SZ, 1 << 20);
	int fd = open(path, O_RDONLY);
	ASSERT(fd >= 0);
	char buf[65536];
	ssize_t k;
	while ((k = read(fd, buf, sizeof(buf))) > 0)
		ASSERT(write(p[1], buf, (size_t)k) == k);
	close(fd);
	close(p[1]);
	struct run r = run_fd(p[0], (const char *const[]){"cat", "--json", "-", NULL});
	close(p[0]);
	ASSERT_EQ(r.status, ARGUS_EXIT_OK);
	ASSERT_EQ(lines(r.out), NEV);
	run_free(&r);
}

TEST_MAIN(TEST_ENTRY(info_summarizes_a_trace), TEST_ENTRY(info_missing_file_is_an_io_error),
          TEST_ENTRY(info_usage_errors), TEST_ENTRY(info_corrupt_chunk_reports_and_exits_badinput),
          TEST_ENTRY(info_newer_version_exits_version), TEST_ENTRY(info_bad_magic_exits_badinput),
          TEST_ENTRY(help_for_each_command), TEST_ENTRY(cat_json_prints_every_event),
          TEST_ENTRY(cat_text_is_one_line_per_event), TEST_ENTRY(cat_relative_range),
          TEST_ENTRY(cat_pid_filter), TEST_ENTRY(cat_usage_errors),
          TEST_ENTRY(cat_corrupt_chunk_prints_the_rest), TEST_ENTRY(cat_reads_a_pipe_on_stdin))
