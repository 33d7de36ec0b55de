/*
 * ring_producer.c - the producer side of a shared-memory ring
 * (ring_producer.h): map and check the consumer's ring, write records into
 * it with ck_ring, ask the daemon's hook socket for one. No libbpf: this
 * file is compiled into libargus-hooks.so, preloaded into applications.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "shm_ring.h"

int argus_shm_map(struct argus_ring_producer *p, int fd, size_t len)
{
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return -errno;
	p->hdr = m;
	p->slots = (struct argus_event *)((char *)m + SHM_HDR_SIZE);
	p->map_len = len;
	return 0;
}

int argus_producer_init(struct argus_ring_producer *p, int fd)
{
	memset(p, 0, sizeof(*p));
	p->wake_fd = -1;
	struct stat st;
	if (fstat(fd, &st))
		return -errno;
	if (st.st_size < SHM_HDR_SIZE)
		return -EINVAL;
	int err = argus_shm_map(p, fd, (size_t)st.st_size);
	if (err)
		return err;
	/* The file comes from another process: trust nothing in it. */
	const struct argus_shm_hdr *h = p->hdr;
	size_t want = SHM_HDR_SIZE + (size_t)h->capacity * sizeof(struct argus_event);
	if (h->magic != SHM_MAGIC || h->version != SHM_VERSION ||
	    h->record_size != sizeof(struct argus_event) || h->capacity < 2 ||
	    h->capacity > SHM_MAX_CAPACITY || (h->capacity & (h->capacity - 1)) ||
	    want != (size_t)st.st_size || h->ring.size != h->capacity ||
	    h->ring.mask != h->capacity - 1) {
		argus_producer_fini(p);
		return -EPROTO;
	}
	return 0;
}

void argus_producer_fini(struct argus_ring_producer *p)
{
	if (p->hdr)
		munmap(p->hdr, p->map_len);
	if (p->wake_fd >= 0)
		close(p->wake_fd);
	p->hdr = NULL;
	p->slots = NULL;
	p->wake_fd = -1;
}

int argus_producer_attach(struct argus_ring_producer **pp, int fd)
{
	*pp = NULL;
	struct argus_ring_producer *p = malloc(sizeof(*p));
	if (!p)
		return -ENOMEM;
	int err = argus_producer_init(p, fd);
	if (err) {
		free(p);
		return err;
	}
	*pp = p;
	return 0;
}

void argus_producer_close(struct argus_ring_producer *p)
{
	if (!p)
		return;
	argus_producer_fini(p);
	free(p);
}

int argus_producer_set_wake_fd(struct argus_ring_producer *p, int fd)
{
	int d = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (d < 0)
		return -errno;
	if (p->wake_fd >= 0)
		close(p->wake_fd);
	p->wake_fd = d;
	return 0;
}

int argus_producer_write(struct argus_ring_producer *p, const struct argus_event *ev)
{
	struct argus_event copy = *ev;
	CK_UNCHECKED_BEGIN();
	bool was_empty = ck_ring_size(&p->hdr->ring) == 0;
	bool ok = ck_ring_enqueue_spsc_argus_event(&p->hdr->ring, p->slots, &copy);
	CK_UNCHECKED_END();
	if (!ok) {
		atomic_fetch_add_explicit(&p->hdr->drops, 1, memory_order_relaxed);
		return 0;
	}
	atomic_fetch_add_explicit(&p->hdr->written, 1, memory_order_relaxed);
	/* Wake the reader once per burst: when the ring was empty it may be
	 * asleep; otherwise it has work and will come back. */
	if (was_empty && p->wake_fd >= 0) {
		uint64_t one = 1;
		ssize_t n = write(p->wake_fd, &one, sizeof(one));
		(void)n; /* EAGAIN: the counter is already non-zero, reader is due */
	}
	return 1;
}

/* ---- the daemon's hook socket (client side; docs/daemon.md) ------------ */

int argus_producer_connect(const char *path, struct argus_ring_producer **pp, int *sock_out,
                           unsigned *id_out)
{
	*pp = NULL;
	*sock_out = -1;
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	int err;
	if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) ||
	    send(s, "hook v=1\n", 9, MSG_NOSIGNAL) != 9)
		goto fail_errno;
	char msg[64] = "";
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = {.iov_base = msg, .iov_len = sizeof(msg) - 1};
	struct msghdr mh = {.msg_iov = &iov,
	                    .msg_iovlen = 1,
	                    .msg_control = u.buf,
	                    .msg_controllen = sizeof(u.buf)};
	ssize_t n = recvmsg(s, &mh, MSG_CMSG_CLOEXEC);
	if (n <= 0) {
		err = n < 0 ? -errno : -ECONNRESET;
		goto fail;
	}
	int fds[2] = {-1, -1};
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS &&
		    cm->cmsg_len == CMSG_LEN(2 * sizeof(int)))
			memcpy(fds, CMSG_DATA(cm), sizeof(fds));
	unsigned id, cap;
	if (strncmp(msg, "ok ", 3) || sscanf(msg, "ok %u %u", &id, &cap) != 2 || fds[0] < 0) {
		err = -ECONNREFUSED; /* "error: ..." from the daemon: full or refused */
		goto fail_fds;
	}
	if ((err = argus_producer_attach(pp, fds[0])))
		goto fail_fds;
	if (fds[1] >= 0)
		argus_producer_set_wake_fd(*pp, fds[1]);
	if (id_out)
		*id_out = id;
	close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	*sock_out = s;
	return 0;
fail_fds:
	for (int i = 0; i < 2; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	goto fail;
fail_errno:
	err = -errno;
fail:
	close(s);
	return err;
}

uint32_t argus_producer_asks(const struct argus_ring_producer *p)
{
	return atomic_load_explicit(&p->hdr->asks, memory_order_relaxed);
}
