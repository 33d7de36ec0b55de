/* The daemon's commands as a user runs them: argus start / status / stop /
 * dump / stream, their exit codes, and SIGTERM. Runs the built argus
 * binary ($ARGUS_BIN) without the kernel tracer (--no-kernel). */
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>

#include "daemon_fixture.h"

struct cli {
	const char *bin;
	char base[64], run[96], rec[96], hooks[96];
};

static void cli_setup(struct cli *c)
{
	c->bin = getenv("ARGUS_BIN");
	if (!c->bin || access(c->bin, X_OK))
		SKIP("ARGUS_BIN (the argus binary) is not set or not built");
	if (geteuid() != 0)
		SKIP("argus start runs as root");
	strcpy(c->base, "/tmp/argus-test-XXXXXX");
	ASSERT(mkdtemp(c->base));
	snprintf(c->run, sizeof(c->run), "%s/run", c->base);
	snprintf(c->rec, sizeof(c->rec), "%s/rec", c->base);
	snprintf(c->hooks, sizeof(c->hooks), "%s/hooks", c->base);
}

static void cli_cleanup(const struct cli *c)
{
	char cmd[160];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", c->base);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", c->base);
}

/* Run argus with args; stdout+stderr into out; returns the exit code. */
static int run(const struct cli *c, char *out, size_t cap, const char *args)
{
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "'%s' %s 2>&1", c->bin, args);
	FILE *p = popen(cmd, "r");
	if (!p)
		return -1;
	size_t n = fread(out, 1, cap - 1, p);
	out[n] = '\0';
	int st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* issues_db: the issue store ("" none); its stderr to log (NULL: none) */
static pid_t start_daemon_with(const struct cli *c, const char *issues_db, const char *log)
{
	pid_t p = fork();
	if (p == 0) {
		int fd = log ? open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600)
		             : open("/dev/null", O_WRONLY);
		dup2(fd, 2);
		execl(c->bin, c->bin, "start", "--no-kernel", "--run-dir", c->run, "--recorder",
		      c->rec, "--hooks-dir", c->hooks, "--issues-db", issues_db, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 500; i++, usleep(10000))
		if (argus_daemon_request(c->run, "status", -1) == 0)
			return p;
	kill(p, SIGKILL);
	waitpid(p, NULL, 0);
	return -1;
}

static pid_t start_daemon(const struct cli *c)
{
	return start_daemon_with(c, "", NULL);
}

TEST(start_status_stop)
{
	struct cli c;
	cli_setup(&c);
	pid_t d = start_daemon(&c);
	ASSERT(d > 0);
	char out[8192], args[512];
	snprintf(args, sizeof(args), "status --run-dir %s", c.run);
	ASSERT_EQ(run(&c, out, sizeof(out), args), 0);
	ASSERT_CONTAINS(out, "argus daemon: pid");
	ASSERT_CONTAINS(out, "rings: 0 kernel, 0 hook");
	snprintf(args, sizeof(args), "status --json --run-dir %s", c.run);
	ASSERT_EQ(run(&c, out, sizeof(out), args), 0);
	ASSERT(!strncmp(out, "{\"kind\":\"status\"", 16));
	snprintf(args, sizeof(args), "stop --run-dir %s", c.run);
	ASSERT_EQ(run(&c, out, sizeof(out), args), 0);
	int st;
	ASSERT_EQ(waitpid(d, &st, 0), d);
	ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* no daemon now: a distinct exit code and one clear line */
	snprintf(args, sizeof(args), "status --run-dir %s", c.run);
	ASSERT_EQ(run(&c, out, sizeof(out), args), 8);
	ASSERT_CONTAINS(out, "no daemon answers");
	cli_cleanup(&c);
}

TEST(sigterm_flushes_and_exits_cleanly)
{
	struct cli c;
	cli_setup(&c);
	pid_t d = start_daemon(&c);
	ASSERT(d > 0);
	kill(d, SIGTERM);
	int st;
	ASSERT_EQ(waitpid(d, &st, 0), d);
	ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	char path[160];
	snprintf(path, sizeof(path), "%s/stream.sock", c.run);
	ASSERT(access(path, F_OK) != 0);
	cli_cleanup(&c);
}

TEST(dump_of_an_empty_recorder_and_bad_flags)
{
	struct cli c;
	cli_setup(&c);
	char out[4096], args[512];
	snprintf(args, sizeof(args), "dump --recorder %s --run-dir %s -o %s/x.argus", c.base, c.run,
	         c.base);
	ASSERT_EQ(run(&c, out, sizeof(out), args), 1);
	ASSERT_CONTAINS(out, "is empty");
	ASSERT_EQ(run(&c, out, sizeof(out), "dump --last nonsense -o /dev/null"), 2);
	ASSERT_EQ(run(&c, out, sizeof(out), "dump"), 2);
	ASSERT_EQ(run(&c, out, sizeof(out), "start --keep 0"), 2);
	ASSERT_EQ(run(&c, out, sizeof(out), "start --frobnicate"), 2);
	cli_cleanup(&c);
}

/* An issue store that is not one (docs/issues.md): one line says so, and
 * the daemon runs and stops cleanly without it. */
TEST(damaged_issue_store_is_one_line_and_the_daemon_runs)
{
	struct cli c;
	cli_setup(&c);
	char db[160], log[160], out[4096], args[512];
	snprintf(db, sizeof(db), "%s/issues.db", c.base);
	snprintf(log, sizeof(log), "%s/start.log", c.base);
	FILE *f = fopen(db, "w");
	ASSERT(f);
	for (int i = 0; i < 300; i++)
		fputs("not a database at all. ", f);
	fclose(f);
	pid_t d = start_daemon_with(&c, db, log);
	ASSERT(d > 0);
	snprintf(args, sizeof(args), "status --run-dir %s", c.run);
	ASSERT_EQ(run(&c, out, sizeof(out), args), 0);
	snprintf(args, sizeof(args), "stop --run-dir %s", c.run);
	ASSERT_EQ(run(&c, out, sizeof(out), args), 0);
	int st;
	ASSERT_EQ(waitpid(d, &st, 0), d);
	ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	f = fopen(log, "r");
	ASSERT(f);
	size_t n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = 0;
	fclose(f);
	printf("%s", out);
	const char *line = strstr(out, "argus start: issue store: ");
	ASSERT(line);
	ASSERT_CONTAINS(line, db);
	ASSERT_CONTAINS(line, "not an issue store");
	ASSERT(!strstr(line + 26, "issue store: ")); /* one line */
	ASSERT_CONTAINS(out, "stopped cleanly");
	cli_cleanup(&c);
}

TEST_MAIN(TEST_ENTRY(start_status_stop), TEST_ENTRY(sigterm_flushes_and_exits_cleanly),
          TEST_ENTRY(dump_of_an_empty_recorder_and_bad_flags),
          TEST_ENTRY(damaged_issue_store_is_one_line_and_the_daemon_runs))
