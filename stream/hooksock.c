/*
 * hooksock.c - where in-process hooks get their shared-memory rings.
 *
 * A hooked thread connects to HOOKS_DIR/hooks.sock and sends "hook v=1\n";
 * the daemon creates a ring and answers "ok SOURCE CAPACITY\n" with the
 * ring's memfd and wake-up eventfd attached (SCM_RIGHTS), or "error: ...\n".
 * The ring lives as long as the connection: when the process exits the
 * daemon drains it and frees the slot. Any local process may ask (the
 * applications being traced are not root); what it writes is attributed to
 * its own pid (SO_PEERCRED), and the number of rings is bounded.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stream_priv.h"

struct hook_conn {
	uv_pipe_t pipe;
	struct hook_conn *next; /* d->hook_conns */
	struct argus_daemon *d;
	char buf[64];
	size_t len;
	int slot; /* -1 until a ring was handed out */
	pid_t pid;
};

static void hook_closed(uv_handle_t *h)
{
	free(h->data);
}

static void hook_drop(struct hook_conn *c)
{
	struct argus_daemon *d = c->d;
	for (struct hook_conn **pp = &d->hook_conns; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	if (c->slot >= 0 && d->rings[c->slot]) {
		/* what the process wrote before it left still counts, and so do
		 * its losses */
		uint64_t now = mono_now_ns();
		daemon_read_ring(d, (unsigned)c->slot, now);
		daemon_ring_drops(d, now);
		argus_ring_close(d->rings[c->slot]);
		d->rings[c->slot] = NULL;
		d->ring_owner[c->slot] = 0;
		d->hook_recs_refused += d->guards[c->slot].refused;
		d->hook_recs_retid += d->guards[c->slot].retid;
		memset(&d->guards[c->slot], 0, sizeof(d->guards[c->slot]));
	}
	c->slot = -1;
	if (!uv_is_closing((uv_handle_t *)&c->pipe))
		uv_close((uv_handle_t *)&c->pipe, hook_closed);
}

static int send_reply(int fd, const char *msg, const int *fds, int nfds)
{
	struct iovec iov = {.iov_base = (void *)msg, .iov_len = strlen(msg)};
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	if (nfds) {
		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, nfds * sizeof(int));
	}
	return sendmsg(fd, &mh, MSG_NOSIGNAL) == (ssize_t)iov.iov_len ? 0 : -1;
}

static void hook_request(struct hook_conn *c, int fd)
{
	struct argus_daemon *d = c->d;
	if (strcmp(c->buf, "hook v=1")) {
		send_reply(fd, "error: expected 'hook v=1'\n", NULL, 0);
		d->hooks_refused++;
		hook_drop(c);
		return;
	}
	struct argus_ring *r;
	int memfd;
	if (argus_ring_create_shm(&r, HOOK_RING_RECORDS, &memfd)) {
		send_reply(fd, "error: the daemon is out of memory\n", NULL, 0);
		d->hooks_refused++;
		hook_drop(c);
		return;
	}
	int slot = argus_daemon_add_hook_ring(d, r);
	if (slot < 0) {
		argus_ring_close(r);
		close(memfd);
		send_reply(fd, "error: too many hooked threads\n", NULL, 0);
		d->hooks_refused++;
		hook_drop(c);
		return;
	}
	argus_ring_set_cpu(r, (unsigned)slot);
	d->ring_owner[slot] = c->pid;
	d->guards[slot] =
	    (struct argus_hook_guard){.pid = (uint32_t)c->pid, .source_id = (uint32_t)slot};
	c->slot = slot;
	more_ring_added(d, (unsigned)slot);
	char msg[64];
	snprintf(msg, sizeof(msg), "ok %d %u\n", slot, HOOK_RING_RECORDS);
	int fds[2] = {memfd, argus_ring_wait_fd(r)};
	int rc = send_reply(fd, msg, fds, 2);
	close(memfd); /* the mapping stays; the process has its own fd now */
	if (rc) {
		d->hooks_refused++;
		hook_drop(c);
		return;
	}
	d->hooks_connected++;
}

static void hook_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
	(void)hint;
	struct hook_conn *c = h->data;
	*buf = uv_buf_init(c->buf + c->len, (unsigned)(sizeof(c->buf) - 1 - c->len));
}

static void hook_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
	(void)buf;
	struct hook_conn *c = s->data;
	if (nread < 0) {
		hook_drop(c); /* the process went away (or misbehaved): free its ring */
		return;
	}
	if (c->slot >= 0) {
		c->len = 0; /* nothing more is expected: ignore */
		return;
	}
	c->len += (size_t)nread;
	c->buf[c->len] = '\0';
	char *nl = strchr(c->buf, '\n');
	if (!nl) {
		if (c->len == sizeof(c->buf) - 1)
			hook_drop(c);
		return;
	}
	*nl = '\0';
	c->len = 0;
	uv_os_fd_t fd;
	if (uv_fileno((uv_handle_t *)s, &fd)) {
		hook_drop(c);
		return;
	}
	hook_request(c, fd);
}

static void on_hook_conn(uv_stream_t *server, int status)
{
	struct argus_daemon *d = server->data;
	if (status < 0 || d->stopping)
		return;
	struct hook_conn *c = calloc(1, sizeof(*c));
	if (!c)
		return;
	c->d = d;
	c->slot = -1;
	uv_pipe_init(&d->loop, &c->pipe, 0);
	c->pipe.data = c;
	uv_os_fd_t fd;
	struct ucred cr;
	socklen_t l = sizeof(cr);
	if (uv_accept(server, (uv_stream_t *)&c->pipe) || uv_fileno((uv_handle_t *)&c->pipe, &fd) ||
	    getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &l) || cr.pid <= 0) {
		uv_close((uv_handle_t *)&c->pipe, hook_closed);
		return;
	}
	c->pid = cr.pid;
	if (d->src.hooked)
		d->src.hooked(d->src.arg, (uint32_t)cr.pid);
	c->next = d->hook_conns;
	d->hook_conns = c;
	uv_read_start((uv_stream_t *)&c->pipe, hook_alloc, hook_read);
}

int hooks_listen(struct argus_daemon *d, char *err, size_t errlen)
{
	if (mkdir(d->hooks_dir, 0755) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", d->hooks_dir, strerror(errno));
		return -errno;
	}
	char path[1200];
	snprintf(path, sizeof(path), "%s/%s", d->hooks_dir, HOOKS_SOCK);
	unlink(path);
	uv_pipe_init(&d->loop, &d->hooks, 0);
	d->hooks.data = d;
	int rc = uv_pipe_bind(&d->hooks, path);
	if (!rc)
		rc = uv_listen((uv_stream_t *)&d->hooks, 64, on_hook_conn);
	if (!rc && (chmod(d->hooks_dir, 0755) || chmod(path, 0666)))
		rc = -errno;
	if (rc) {
		snprintf(err, errlen, "cannot listen on %s: %s", path, uv_strerror(rc));
		uv_close((uv_handle_t *)&d->hooks, daemon_close_cb_noop);
		unlink(path);
		return rc;
	}
	d->hooks_bound = true;
	return 0;
}

void hooks_close(struct argus_daemon *d)
{
	if (!d->hooks_bound)
		return;
	d->hooks_bound = false;
	while (d->hook_conns)
		hook_drop(d->hook_conns);
	uv_close((uv_handle_t *)&d->hooks, daemon_close_cb_noop);
	char path[1200];
	snprintf(path, sizeof(path), "%s/%s", d->hooks_dir, HOOKS_SOCK);
	unlink(path);
}
