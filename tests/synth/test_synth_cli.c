/* `argus synth` through the built binary ($ARGUS_BIN): argument validation
 * (one line, exit 2), output to a file and to a pipe, refusing a terminal,
 * byte-identical output for the same options, I/O errors. */
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "event.h"
#include "tests/test.h"

extern char **environ;

struct run {
	int status;
	char *out, *err;
	size_t out_n;
};

static const char *argus_bin(void)
{
	const char *bin = getenv("ARGUS_BIN");
	if (!bin || access(bin, X_OK) != 0)
		SKIP("ARGUS_BIN not set or not executable (run through ctest)");
	return bin;
}

static char *slurp(int fd, size_t *n)
{
	off_t size = lseek(fd, 0, SEEK_END);
	char *p = malloc((size_t)size + 1);
	ASSERT(p);
	ASSERT(pread(fd, p, (size_t)size, 0) == size);
	p[size] = 0;
	if (n)
		*n = (size_t)size;
	return p;
}

/* Run argus synth ARGS with stdout to out_fd (< 0: a memfd we read back). */
static struct run run_with(int out_fd, const char *const *args)
{
	const char *argv[24] = {argus_bin(), "synth"};
	size_t n = 2;
	for (; args[n - 2] && n < 23; n++)
		argv[n] = args[n - 2];
	argv[n] = NULL;
	int out = out_fd >= 0 ? out_fd : memfd_create("out", 0);
	int err = memfd_create("err", 0);
	ASSERT(out >= 0 && err >= 0);
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, out, 1);
	posix_spawn_file_actions_adddup2(&fa, err, 2);
	pid_t pid;
	ASSERT(posix_spawn(&pid, argv[0], &fa, NULL, (char *const *)argv, environ) == 0);
	posix_spawn_file_actions_destroy(&fa);
	struct run r = {0};
	ASSERT(waitpid(pid, &r.status, 0) == pid);
	r.status = WIFEXITED(r.status) ? WEXITSTATUS(r.status) : 128 + WTERMSIG(r.status);
	r.out = out_fd >= 0 ? NULL : slurp(out, &r.out_n);
	r.err = slurp(err, NULL);
	if (out_fd < 0)
		close(out);
	close(err);
	return r;
}

static struct run run(const char *const *args)
{
	return run_with(-1, args);
}

static void free_run(struct run *r)
{
	free(r->out);
	free(r->err);
}

static unsigned lines(const char *s)
{
	unsigned n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

TEST(help_prints_usage)
{
	struct run r = run((const char *[]){"--help", NULL});
	ASSERT_EQ(r.status, ARGUS_EXIT_OK);
	ASSERT_CONTAINS(r.out, "usage: argus synth");
	ASSERT_CONTAINS(r.out, "--ambiguous");
	free_run(&r);
}

TEST(bad_arguments_get_one_line_and_usage_exit)
{
	static const struct {
		const char *args[6];
		const char *says;
	} cases[] = {
	    {{"-o", "/tmp/x.argus", "--events", "999", NULL}, "--events"},
	    {{"-o", "/tmp/x.argus", "--events", "50000001", NULL}, "--events"},
	    {{"-o", "/tmp/x.argus", "--events", "12abc", NULL}, "--events"},
	    {{"-o", "/tmp/x.argus", "--events", "1.5", NULL}, "--events"},
	    {{"-o", "/tmp/x.argus", "--seed", "-1", NULL}, "--seed"},
	    {{"-o", "/tmp/x.argus", "--seed", "18446744073709551616", NULL}, "--seed"},
	    {{"-o", "/tmp/x.argus", "--apps", "0", NULL}, "--apps"},
	    {{"-o", "/tmp/x.argus", "--apps", "17", NULL}, "--apps"},
	    {{"-o", "/tmp/x.argus", "--cpus", "65", NULL}, "--cpus"},
	    {{"-o", "/tmp/x.argus", "--ambiguous", "0.95", NULL}, "--ambiguous"},
	    {{"-o", "/tmp/x.argus", "--ambiguous", "nan", NULL}, "--ambiguous"},
	    {{"-o", "/tmp/x.argus", "--anomalies", "long_running,bogus", NULL}, "bogus"},
	    {{"-o", "/tmp/x.argus", "--rate", "10", NULL}, "--rate"},
	    {{"-o", "/tmp/x.argus", "--frobnicate", NULL}, "--frobnicate"},
	    {{"-o", "/tmp/x.argus", "extra", NULL}, "extra"},
	    {{"-o", "/tmp/x.argus", "--events", NULL}, "--events"},
	    {{"--events", "5000", NULL}, "-o"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct run r = run(cases[i].args);
		ASSERT_MSG(r.status == ARGUS_EXIT_USAGE, "case %zu: exit %d", i, r.status);
		ASSERT_MSG(lines(r.err) == 1, "case %zu: %u lines: %s", i, lines(r.err), r.err);
		ASSERT_CONTAINS(r.err, "argus synth: ");
		ASSERT_CONTAINS(r.err, cases[i].says);
		ASSERT_EQ(r.out_n, 0);
		free_run(&r);
	}
}

TEST(refuses_to_write_binary_to_a_terminal)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY);
	if (m < 0)
		SKIP("no pseudo-terminal available");
	ASSERT(grantpt(m) == 0 && unlockpt(m) == 0);
	int tty = open(ptsname(m), O_RDWR | O_NOCTTY);
	ASSERT(tty >= 0);
	struct run r = run_with(tty, (const char *[]){"-o", "-", "--events", "2000", NULL});
	ASSERT_EQ(r.status, ARGUS_EXIT_USAGE);
	ASSERT_CONTAINS(r.err, "terminal");
	free_run(&r);
	close(tty);
	close(m);
}

TEST(writes_a_readable_trace_to_a_pipe)
{
	struct run r = run((const char *[]){"-o", "-", "--events", "5000", "--seed", "9", NULL});
	ASSERT_MSG(r.status == ARGUS_EXIT_OK, "exit %d: %s", r.status, r.err);
	ASSERT_EQ(lines(r.err), 1);
	ASSERT_CONTAINS(r.err, "5000 events");
	struct argus_trace_reader *rd;
	struct argus_trace_error err;
	ASSERT_MSG(argus_trace_open_mem(&rd, r.out, r.out_n, "<pipe>", &err) == 0, "%s", err.msg);
	ASSERT(argus_trace_get_meta(rd)->flags & ARGUS_TRACE_F_SYNTH);
	const struct argus_event *ev;
	uint64_t n = 0, last = 0;
	int rc;
	while ((rc = argus_trace_next(rd, &ev, &err)) == 1) {
		ASSERT(ev->ts >= last);
		ASSERT(ev->flags & ARGUS_F_SYNTH);
		last = ev->ts;
		n++;
	}
	ASSERT_EQ(rc, 0);
	ASSERT_U64_EQ(n, 5000);
	argus_trace_close(rd);
	free_run(&r);
}

TEST(same_options_same_bytes)
{
	char a[] = "/tmp/argus-synth-a-XXXXXX", b[] = "/tmp/argus-synth-b-XXXXXX";
	close(mkstemp(a));
	close(mkstemp(b));
	const char *args_a[] = {"-o", a, "-n", "300k", "--seed", "77", "--apps", "3", NULL};
	const char *args_b[] = {"-o", b, "-n", "300k", "--seed", "77", "--apps", "3", NULL};
	struct run ra = run(args_a), rb = run(args_b);
	ASSERT_MSG(ra.status == 0 && rb.status == 0, "%s%s", ra.err, rb.err);
	int fa = open(a, O_RDONLY), fb = open(b, O_RDONLY);
	size_t na, nb;
	char *pa = slurp(fa, &na), *pb = slurp(fb, &nb);
	ASSERT(na > 100000);
	ASSERT(na == nb && memcmp(pa, pb, na) == 0);
	free(pa);
	free(pb);
	close(fa);
	close(fb);
	unlink(a);
	unlink(b);
	free_run(&ra);
	free_run(&rb);
}

TEST(unwritable_output_is_an_io_error)
{
	struct run r = run((const char *[]){"-o", "/nonexistent-dir/x.argus", "-n", "2000", NULL});
	ASSERT_EQ(r.status, ARGUS_EXIT_IO);
	ASSERT_EQ(lines(r.err), 1);
	ASSERT_CONTAINS(r.err, "/nonexistent-dir/x.argus");
	free_run(&r);
}

TEST_MAIN(TEST_ENTRY(help_prints_usage), TEST_ENTRY(bad_arguments_get_one_line_and_usage_exit),
          TEST_ENTRY(refuses_to_write_binary_to_a_terminal),
          TEST_ENTRY(writes_a_readable_trace_to_a_pipe), TEST_ENTRY(same_options_same_bytes),
          TEST_ENTRY(unwritable_output_is_an_io_error))
