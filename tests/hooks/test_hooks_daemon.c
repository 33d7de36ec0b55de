/*
 * test_hooks_daemon.c - without `argus run`, libargus-hooks.so asks the
 * daemon's hook socket for a ring per thread (protocol of docs/daemon.md,
 * served here by the test): the records arrive on rings it handed out.
 */
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "hooks_fixture.h"
#include "ringbuf.h"
#include "test.h"

#define MAX_CONN 32

struct fake_daemon {
	int listen_fd;
	struct argus_ring *rings[MAX_CONN];
	int conns[MAX_CONN];
	unsigned n;
	struct argus_event *ev;
	size_t nev, cap;
};

static void serve_one(struct fake_daemon *d, int c)
{
	char req[32] = "";
	ssize_t got = recv(c, req, sizeof(req) - 1, 0);
	int fd = -1;
	if (got != 9 || strcmp(req, "hook v=1\n") || d->n == MAX_CONN ||
	    argus_ring_create_shm(&d->rings[d->n], 1024, &fd)) {
		ssize_t w = send(c, "error: refused\n", 15, MSG_NOSIGNAL);
		(void)w;
		close(c);
		return;
	}
	char msg[32];
	int len = snprintf(msg, sizeof(msg), "ok %u 1024\n", d->n);
	int fds[2] = {fd, argus_ring_wait_fd(d->rings[d->n])};
	union {
		char buf[CMSG_SPACE(sizeof(fds))];
		struct cmsghdr align;
	} u;
	struct iovec iov = {.iov_base = msg, .iov_len = (size_t)len};
	struct msghdr mh = {.msg_iov = &iov,
	                    .msg_iovlen = 1,
	                    .msg_control = u.buf,
	                    .msg_controllen = sizeof(u.buf)};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(cm), fds, sizeof(fds));
	ssize_t w = sendmsg(c, &mh, MSG_NOSIGNAL);
	(void)w;
	close(fd);
	d->conns[d->n++] = c;
}

static void drain(struct fake_daemon *d)
{
	for (unsigned i = 0; i < d->n; i++) {
		if (d->cap - d->nev < 1024) {
			d->cap = d->cap * 2 + 2048;
			d->ev = realloc(d->ev, d->cap * sizeof(*d->ev));
		}
		d->nev += argus_ring_read(d->rings[i], d->ev + d->nev, 1024);
	}
}

TEST(threads_get_rings_from_the_daemon_socket)
{
	char dir[] = "/tmp/argus-hooks-sock.XXXXXX", path[128];
	ASSERT(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/hooks.sock", dir);
	struct fake_daemon d;
	memset(&d, 0, sizeof(d));
	d.listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	ASSERT(strlen(path) < sizeof(sa.sun_path));
	memcpy(sa.sun_path, path, strlen(path) + 1);
	ASSERT_EQ(bind(d.listen_fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ASSERT_EQ(listen(d.listen_fd, 16), 0);

	setenv("ARGUS_HOOK_SOCKET", path, 1);
	setenv("LD_PRELOAD", HOOKS_LIB, 1);
	char out[160];
	snprintf(out, sizeof(out), "%s/prog.out", dir);
	char *argv[] = {(char *)HOOKS_PROG, "idle", NULL};
	pid_t pid = fx_start(argv, out);
	unsetenv("LD_PRELOAD");
	unsetenv("ARGUS_HOOK_SOCKET");
	int status = -1;
	double t0 = fx_now();
	while (fx_now() - t0 < 20) {
		struct pollfd p = {.fd = d.listen_fd, .events = POLLIN};
		if (poll(&p, 1, 5) > 0) {
			int c = accept4(d.listen_fd, NULL, NULL, SOCK_CLOEXEC);
			if (c >= 0)
				serve_one(&d, c);
		}
		drain(&d);
		int st;
		if (waitpid(pid, &st, WNOHANG) == pid) {
			status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
			break;
		}
	}
	drain(&d);
	struct run_result r;
	memset(&r, 0, sizeof(r));
	fx_slurp(out, r.out, sizeof(r.out));
	r.ev = d.ev;
	r.n = d.nev;
	ASSERT_EQ(status, 0);
	ASSERT_MSG(d.n >= 2, "%u rings asked for (the poster and the main thread)", d.n);
	uint64_t post_tid;
	ASSERT(fx_key(&r, "post_tid", &post_tid));
	const struct argus_event *post = NULL;
	for (size_t i = 0; i < r.n; i++)
		if (r.ev[i].type == ARGUS_EV_ASYNC_POST && r.ev[i].tid == post_tid)
			post = &r.ev[i];
	ASSERT_MSG(post, "no async_post (%zu records)", r.n);
	ASSERT_EQ(post->pid, pid);
	bool run = false;
	for (size_t i = 0; i < r.n; i++)
		run |= r.ev[i].type == ARGUS_EV_ASYNC_RUN_BEGIN &&
		       r.ev[i].async.obj == post->async.obj;
	ASSERT(run);
	for (unsigned i = 0; i < d.n; i++) {
		argus_ring_close(d.rings[i]);
		close(d.conns[i]);
	}
	close(d.listen_fd);
	free(d.ev);
	unlink(path);
	unlink(out);
	rmdir(dir);
}

TEST_MAIN(TEST_ENTRY(threads_get_rings_from_the_daemon_socket))
