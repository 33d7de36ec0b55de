/*
 * hooks_fixture.h - run a program under `argus run --record` and read back
 * what it recorded, plus the "key=value" lines it printed.
 */
#ifndef ARGUS_HOOKS_FIXTURE_H
#define ARGUS_HOOKS_FIXTURE_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "event.h"

struct run_result {
	int status;      /* exit code, 128+signal, -1 = timed out */
	char out[16384]; /* stdout of the command */
	char err[8192];  /* stderr (argus run's own lines, the hooks') */
	double seconds;
	struct argus_event *ev;
	size_t n;
};

static inline double fx_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline void fx_slurp(const char *path, char *buf, size_t cap)
{
	buf[0] = 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	size_t n = fread(buf, 1, cap - 1, f);
	buf[n] = 0;
	fclose(f);
}

/* Run argv (NULL-terminated) with stdout/stderr captured; kill after
 * timeout_s. extra_env: "K=V" or NULL. */
static inline int fx_spawn(char *const argv[], double timeout_s, const char *extra_env,
                           struct run_result *r)
{
	char outp[] = "/tmp/argus-hooks-out.XXXXXX", errp[] = "/tmp/argus-hooks-err.XXXXXX";
	int ofd = mkstemp(outp), efd = mkstemp(errp);
	double t0 = fx_now();
	pid_t pid = fork();
	if (pid == 0) {
		dup2(ofd, 1);
		dup2(efd, 2);
		if (extra_env)
			putenv((char *)extra_env);
		execvp(argv[0], argv);
		_exit(127);
	}
	int st = 0;
	r->status = -1;
	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);
		if (w == pid) {
			r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
			break;
		}
		if (fx_now() - t0 > timeout_s) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			break;
		}
		usleep(2000);
	}
	r->seconds = fx_now() - t0;
	fx_slurp(outp, r->out, sizeof(r->out));
	fx_slurp(errp, r->err, sizeof(r->err));
	close(ofd);
	close(efd);
	unlink(outp);
	unlink(errp);
	return r->status;
}

static inline void fx_read_trace(const char *path, struct run_result *r)
{
	struct argus_trace_reader *rd;
	struct argus_trace_error err;
	r->ev = NULL;
	r->n = 0;
	if (argus_trace_open(&rd, path, &err) < 0)
		return;
	const struct argus_event *e;
	size_t cap = 0;
	while (argus_trace_next(rd, &e, &err) > 0) {
		if (r->n == cap) {
			cap = cap ? cap * 2 : 256;
			r->ev = realloc(r->ev, cap * sizeof(*r->ev));
		}
		r->ev[r->n++] = *e;
	}
	argus_trace_close(rd);
}

/* `argus run --record TMP [opts...] -- prog args...`; opts and cmd are
 * NULL-terminated lists. */
static inline int fx_argus_run(const char *const *opts, const char *const *cmd, double timeout_s,
                               const char *extra_env, struct run_result *r)
{
	const char *argus = getenv("ARGUS_BIN");
	char trace[] = "/tmp/argus-hooks-trace.XXXXXX";
	int tfd = mkstemp(trace);
	close(tfd);
	char *argv[64];
	int n = 0;
	argv[n++] = (char *)argus;
	argv[n++] = "run";
	argv[n++] = "--record";
	argv[n++] = trace;
	for (; opts && *opts; opts++)
		argv[n++] = (char *)*opts;
	argv[n++] = "--";
	for (; *cmd; cmd++)
		argv[n++] = (char *)*cmd;
	argv[n] = NULL;
	fx_spawn(argv, timeout_s, extra_env, r);
	fx_read_trace(trace, r);
	unlink(trace);
	return r->status;
}

/* The value of "key=..." in the command's output (hex or decimal). */
static inline bool fx_key(const struct run_result *r, const char *key, uint64_t *v)
{
	char pat[64];
	snprintf(pat, sizeof(pat), "%s=", key);
	for (const char *p = r->out; (p = strstr(p, pat)); p++)
		if (p == r->out || p[-1] == '\n') {
			*v = strtoull(p + strlen(pat), NULL, 0);
			return true;
		}
	return false;
}

/* The first event of a type matching a predicate, from index `from`. */
static inline const struct argus_event *fx_find(const struct run_result *r, unsigned type,
                                                bool (*pred)(const struct argus_event *, uint64_t),
                                                uint64_t arg)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->ev[i].type == type && (!pred || pred(&r->ev[i], arg)))
			return &r->ev[i];
	return NULL;
}

static inline size_t fx_count(const struct run_result *r, unsigned type)
{
	size_t c = 0;
	for (size_t i = 0; i < r->n; i++)
		c += r->ev[i].type == type;
	return c;
}

/* Start argv in the background, stdout and stderr to out_path. */
static inline pid_t fx_start(char *const argv[], const char *out_path)
{
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 1);
		dup2(fd, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	return pid;
}

/* Wait for pid up to timeout_s (then SIGKILL); exit code, 128+sig, -1. */
static inline int fx_wait(pid_t pid, double timeout_s)
{
	double t0 = fx_now();
	int st;
	for (;;) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		if (fx_now() - t0 > timeout_s) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			return -1;
		}
		usleep(5000);
	}
}

/* Wait until file path exists (and contains needle, when given). */
static inline bool fx_wait_for(const char *path, const char *needle, double timeout_s)
{
	double t0 = fx_now();
	char buf[16384];
	while (fx_now() - t0 < timeout_s) {
		if (access(path, F_OK) == 0) {
			if (!needle)
				return true;
			fx_slurp(path, buf, sizeof(buf));
			if (strstr(buf, needle))
				return true;
		}
		usleep(10000);
	}
	return false;
}

/* Is prog on PATH? */
static inline bool fx_have(const char *prog)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", prog);
	return system(cmd) == 0;
}

#endif /* ARGUS_HOOKS_FIXTURE_H */
