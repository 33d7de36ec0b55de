/*
 * daemon_fixture.h - run an argus daemon in a thread of the test, fed by a
 * shared-memory ring the test writes, with its sockets and recorder in a
 * fresh directory.
 */
#ifndef ARGUS_TEST_DAEMON_FIXTURE_H
#define ARGUS_TEST_DAEMON_FIXTURE_H

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "stream.h"
#include "test.h"

struct fixture {
	char base[64], run[96], rec[96], hooks[96];
	struct argus_daemon *d;
	struct argus_ring *prod; /* the test's producer side */
	int ring_fd;
	pthread_t thread;
	int rc;
	char err[256];
};

static inline uint64_t fx_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void *fx_run(void *arg)
{
	struct fixture *f = arg;
	f->rc = argus_daemon_run(f->d, f->err, sizeof(f->err));
	return NULL;
}

/* Read the daemon's "status json" reply into buf. */
static inline int fx_status(struct fixture *f, char *buf, size_t cap)
{
	int mfd = memfd_create("status", 0);
	int rc = argus_daemon_request(f->run, "status json", mfd);
	ssize_t n = rc ? 0 : pread(mfd, buf, cap - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	close(mfd);
	return rc;
}

/* Wait until the status reply contains needle (5 s at most). */
static inline bool fx_wait_status(struct fixture *f, const char *needle)
{
	static char buf[65536];
	for (int i = 0; i < 500; i++) {
		if (!fx_status(f, buf, sizeof(buf)) && strstr(buf, needle))
			return true;
		usleep(10000);
	}
	fprintf(stderr, "status never showed %s; last: %s\n", needle, buf);
	return false;
}

static inline void fx_start_sink_group(struct fixture *f, struct argus_daemon_opts *o,
                                       unsigned ring_cap, const struct argus_sink *sink,
                                       long group);
/* The daemon with its ring, sink (may be NULL), root-only (group -1). */
static inline void fx_start(struct fixture *f, struct argus_daemon_opts *o, unsigned ring_cap,
                            const struct argus_sink *sink)
{
	fx_start_sink_group(f, o, ring_cap, sink, -1);
}

/* ... with argus start --group's group. */
static inline void fx_start_group(struct fixture *f, struct argus_daemon_opts *o, unsigned ring_cap,
                                  long group)
{
	fx_start_sink_group(f, o, ring_cap, NULL, group);
}

static inline void fx_start_full(struct fixture *f, struct argus_daemon_opts *o, unsigned ring_cap,
                                 const struct argus_sink *sink, long group,
                                 bool (*tick)(void *arg, uint64_t stream_ns), void *tick_arg);
static inline void fx_start_sink_group(struct fixture *f, struct argus_daemon_opts *o,
                                       unsigned ring_cap, const struct argus_sink *sink, long group)
{
	fx_start_full(f, o, ring_cap, sink, group, NULL, NULL);
}

/* ... with a tick hook (argus_daemon_set_tick), set before the daemon runs. */
static inline void fx_start_full(struct fixture *f, struct argus_daemon_opts *o, unsigned ring_cap,
                                 const struct argus_sink *sink, long group,
                                 bool (*tick)(void *arg, uint64_t stream_ns), void *tick_arg)
{
	memset(f, 0, sizeof(*f));
	strcpy(f->base, "/tmp/argus-test-XXXXXX");
	ASSERT(mkdtemp(f->base));
	chmod(f->base, 0755); /* others may look in: our own modes must keep them out */
	snprintf(f->run, sizeof(f->run), "%s/run", f->base);
	snprintf(f->rec, sizeof(f->rec), "%s/rec", f->base);
	snprintf(f->hooks, sizeof(f->hooks), "%s/hooks", f->base);
	o->run_dir = f->run;
	o->hooks_dir = f->hooks;
	if (!o->rec_dir)
		o->rec_dir = f->rec;
	o->group = group;
	ASSERT_EQ(argus_daemon_new(&f->d, o, f->err, sizeof(f->err)), 0);
	struct argus_ring *cons;
	ASSERT_EQ(argus_ring_create_shm(&cons, ring_cap, &f->ring_fd), 0);
	ASSERT_EQ(argus_ring_attach_shm(&f->prod, f->ring_fd), 0);
	ASSERT_EQ(argus_daemon_add_hook_ring(f->d, cons), 0);
	if (sink)
		ASSERT_EQ(argus_daemon_add_sink(f->d, sink), 0);
	if (tick)
		argus_daemon_set_tick(f->d, tick, tick_arg);
	ASSERT_EQ(pthread_create(&f->thread, NULL, fx_run, f), 0);
	for (int i = 0; i < 500; i++) {
		if (argus_daemon_request(f->run, "status", -1) == 0)
			return;
		usleep(10000);
	}
	TEST_FAIL_("daemon did not come up: %s", f->err);
}

static inline void fx_stop(struct fixture *f)
{
	ASSERT_EQ(argus_daemon_request(f->run, "stop", -1), 0);
	pthread_join(f->thread, NULL);
	ASSERT_MSG(f->rc == 0, "daemon exit %d: %s", f->rc, f->err);
	argus_daemon_free(f->d);
	argus_ring_close(f->prod);
	close(f->ring_fd);
}

static inline void fx_cleanup(struct fixture *f)
{
	char cmd[160];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->base);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", f->base);
}

static inline struct argus_event fx_ev(uint64_t ts, uint16_t type, uint32_t pid)
{
	struct argus_event e = {0};
	e.ts = ts;
	e.type = type;
	e.pid = pid;
	e.tid = pid;
	return e;
}

static inline int fx_connect(const char *run, const char *name)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int len = snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s", run, name);
	if (len < 0 || (size_t)len >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int e = -errno;
		close(fd);
		return e;
	}
	return fd;
}

/* Read one line (up to cap - 1 bytes) with a timeout; 0 on timeout / EOF. */
static inline size_t fx_line(int fd, char *buf, size_t cap, int timeout_ms)
{
	size_t n = 0;
	while (n + 1 < cap) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		if (poll(&p, 1, timeout_ms) <= 0)
			return 0;
		ssize_t r = read(fd, buf + n, 1);
		if (r <= 0)
			return 0;
		if (buf[n++] == '\n')
			break;
	}
	buf[n] = '\0';
	return n;
}

#endif
