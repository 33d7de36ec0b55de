/*
 * ringbuf.c - the two kinds of argus record source behind ringbuf.h:
 *  - a kernel BPF_MAP_TYPE_RINGBUF read with libbpf's ring_buffer API, and
 *  - a single-producer ring in shared memory (memfd) built on ck_ring.
 *
 * Shared-memory layout (docs/daemon.md): one page-aligned header, then
 * `capacity` slots of struct argus_event. The ck_ring indices live in the
 * header; they are plain integers, so the mapping may sit at any address.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <ck_ring.h>

#include "ringbuf.h"

/*
 * ThreadSanitizer does not see ck_pr's inline-assembly loads and stores, so
 * it cannot see the ordering ck_ring provides and would report the slot
 * copies as races. Under TSan the ck calls are excluded from race checking;
 * the ring's own correctness is concurrencykit's.
 */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define ARGUS_TSAN_BUILD 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define ARGUS_TSAN_BUILD 1
#endif
#ifdef ARGUS_TSAN_BUILD
void AnnotateIgnoreReadsBegin(const char *f, int l);
void AnnotateIgnoreReadsEnd(const char *f, int l);
void AnnotateIgnoreWritesBegin(const char *f, int l);
void AnnotateIgnoreWritesEnd(const char *f, int l);
#define CK_UNCHECKED_BEGIN()                                                                       \
	do {                                                                                       \
		AnnotateIgnoreReadsBegin(__FILE__, __LINE__);                                      \
		AnnotateIgnoreWritesBegin(__FILE__, __LINE__);                                     \
	} while (0)
#define CK_UNCHECKED_END()                                                                         \
	do {                                                                                       \
		AnnotateIgnoreWritesEnd(__FILE__, __LINE__);                                       \
		AnnotateIgnoreReadsEnd(__FILE__, __LINE__);                                        \
	} while (0)
#else
#define CK_UNCHECKED_BEGIN() ((void)0)
#define CK_UNCHECKED_END()   ((void)0)
#endif

CK_RING_PROTOTYPE(argus_event, argus_event)

#define SHM_MAGIC        0x474e495253555241ull /* "ARGUSRNG" */
#define SHM_VERSION      1
#define SHM_HDR_SIZE     4096
#define SHM_MAX_CAPACITY (1u << 24)

/* The header at the start of a shared-memory ring. */
struct shm_hdr {
	uint64_t magic;
	uint32_t version;
	uint32_t record_size;
	uint32_t capacity; /* slots, a power of two; ck_ring holds capacity - 1 */
	uint32_t _pad;
	_Atomic uint64_t drops; /* written by the producer only */
	_Atomic uint64_t written;
	struct ck_ring ring __attribute__((aligned(64)));
};
_Static_assert(sizeof(struct shm_hdr) <= SHM_HDR_SIZE, "shm header fits its page");

enum ring_kind { RING_BPF, RING_SHM };

struct argus_ring {
	enum ring_kind kind;
	unsigned cpu;
	uint64_t malformed; /* entries of a size that is no whole record count, skipped */

	/* kernel ring */
	struct ring_buffer *rb;
	const void *cons_page, *prod_page; /* read-only views of the positions */
	size_t page_size;
	uint32_t rb_size;
	argus_ring_drops_fn drops_fn;
	void *drops_arg;
	struct argus_event *out; /* current read target */
	size_t out_n, out_max;
	/* records of a multi-record entry that did not fit into out: the
	 * entry is consumed whole, they come first at the next read */
	struct argus_event carry[ARGUS_RING_ENTRY_MAX - 1];
	size_t ncarry;

	/* shared-memory ring */
	struct shm_hdr *hdr;
	struct argus_event *slots;
	size_t map_len;
	int wake_fd; /* eventfd; owned */
};

/* ---- kernel BPF ring -------------------------------------------------- */

/* Per ring entry (1 to ARGUS_RING_ENTRY_MAX records that a BPF program
 * wrote together): copy them out; stop the consume loop once out is full
 * (the entry just copied is consumed, the rest stay in the ring). */
static int bpf_record(void *ctx, void *data, size_t size)
{
	struct argus_ring *r = ctx;
	size_t n = size / sizeof(struct argus_event);
	if (!n || n > ARGUS_RING_ENTRY_MAX || size % sizeof(struct argus_event)) {
		r->malformed++;
		return 0;
	}
	const struct argus_event *ev = data;
	for (size_t i = 0; i < n; i++) {
		if (r->out_n < r->out_max)
			memcpy(&r->out[r->out_n++], &ev[i], sizeof(*ev));
		else
			memcpy(&r->carry[r->ncarry++], &ev[i], sizeof(*ev));
	}
	return r->out_n == r->out_max ? -ENOSPC : 0;
}

int argus_ring_open_bpf(struct argus_ring **rp, int map_fd, unsigned cpu, argus_ring_drops_fn drops,
                        void *drops_arg)
{
	*rp = NULL;
	struct bpf_map_info info = {0};
	uint32_t len = sizeof(info);
	if (bpf_obj_get_info_by_fd(map_fd, &info, &len))
		return -errno;
	if (info.type != BPF_MAP_TYPE_RINGBUF)
		return -EINVAL;

	struct argus_ring *r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->kind = RING_BPF;
	r->cpu = cpu;
	r->wake_fd = -1;
	r->drops_fn = drops;
	r->drops_arg = drops_arg;
	r->rb_size = info.max_entries;
	r->page_size = (size_t)sysconf(_SC_PAGESIZE);
	r->rb = ring_buffer__new(map_fd, bpf_record, r, NULL);
	if (!r->rb) {
		int err = -errno;
		free(r);
		return err ? err : -EINVAL;
	}
	/* Positions for `argus status` ring fill: page 0 is the consumer's,
	 * page 1 the producer's; both may be mapped read-only. */
	void *c = mmap(NULL, r->page_size, PROT_READ, MAP_SHARED, map_fd, 0);
	void *p = mmap(NULL, r->page_size, PROT_READ, MAP_SHARED, map_fd, (off_t)r->page_size);
	r->cons_page = c == MAP_FAILED ? NULL : c;
	r->prod_page = p == MAP_FAILED ? NULL : p;
	*rp = r;
	return 0;
}

static size_t bpf_read(struct argus_ring *r, struct argus_event *out, size_t max)
{
	size_t c = r->ncarry < max ? r->ncarry : max;

	memcpy(out, r->carry, c * sizeof(*out));
	memmove(r->carry, r->carry + c, (r->ncarry - c) * sizeof(*out));
	r->ncarry -= c;
	if (c == max)
		return c;
	r->out = out;
	r->out_n = c;
	r->out_max = max;
	ring_buffer__consume(r->rb); /* -ENOSPC when out filled up: not an error */
	r->out = NULL;
	return r->out_n;
}

/* ---- shared-memory ring ----------------------------------------------- */

static int shm_map(struct argus_ring *r, int fd, size_t len)
{
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return -errno;
	r->hdr = m;
	r->slots = (struct argus_event *)((char *)m + SHM_HDR_SIZE);
	r->map_len = len;
	return 0;
}

int argus_ring_create_shm(struct argus_ring **rp, unsigned capacity, int *fd_out)
{
	*rp = NULL;
	*fd_out = -1;
	if (capacity < 2 || capacity > SHM_MAX_CAPACITY || (capacity & (capacity - 1)))
		return -EINVAL;
	size_t len = SHM_HDR_SIZE + (size_t)capacity * sizeof(struct argus_event);
	struct argus_ring *r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->kind = RING_SHM;
	int err;
	int fd = memfd_create("argus-ring", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		goto fail_errno;
	if (ftruncate(fd, (off_t)len) || fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW))
		goto fail_errno;
	r->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (r->wake_fd < 0)
		goto fail_errno;
	if ((err = shm_map(r, fd, len)))
		goto fail;
	r->hdr->magic = SHM_MAGIC;
	r->hdr->version = SHM_VERSION;
	r->hdr->record_size = sizeof(struct argus_event);
	r->hdr->capacity = capacity;
	ck_ring_init(&r->hdr->ring, capacity);
	*fd_out = fd;
	*rp = r;
	return 0;
fail_errno:
	err = -errno;
fail:
	if (fd >= 0)
		close(fd);
	if (r->wake_fd >= 0)
		close(r->wake_fd);
	free(r);
	return err;
}

int argus_ring_attach_shm(struct argus_ring **rp, int fd)
{
	*rp = NULL;
	struct stat st;
	if (fstat(fd, &st))
		return -errno;
	if (st.st_size < SHM_HDR_SIZE)
		return -EINVAL;
	struct argus_ring *r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->kind = RING_SHM;
	r->wake_fd = -1;
	int err = shm_map(r, fd, (size_t)st.st_size);
	if (err) {
		free(r);
		return err;
	}
	/* The file comes from another process: trust nothing in it. */
	const struct shm_hdr *h = r->hdr;
	size_t want = SHM_HDR_SIZE + (size_t)h->capacity * sizeof(struct argus_event);
	if (h->magic != SHM_MAGIC || h->version != SHM_VERSION ||
	    h->record_size != sizeof(struct argus_event) || h->capacity < 2 ||
	    h->capacity > SHM_MAX_CAPACITY || (h->capacity & (h->capacity - 1)) ||
	    want != (size_t)st.st_size || h->ring.size != h->capacity ||
	    h->ring.mask != h->capacity - 1) {
		argus_ring_close(r);
		return -EPROTO;
	}
	*rp = r;
	return 0;
}

int argus_ring_set_wake_fd(struct argus_ring *r, int fd)
{
	if (r->kind != RING_SHM)
		return -EINVAL;
	int d = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (d < 0)
		return -errno;
	if (r->wake_fd >= 0)
		close(r->wake_fd);
	r->wake_fd = d;
	return 0;
}

int argus_ring_write(struct argus_ring *r, const struct argus_event *ev)
{
	if (r->kind != RING_SHM)
		return 0;
	struct argus_event copy = *ev;
	CK_UNCHECKED_BEGIN();
	bool was_empty = ck_ring_size(&r->hdr->ring) == 0;
	bool ok = ck_ring_enqueue_spsc_argus_event(&r->hdr->ring, r->slots, &copy);
	CK_UNCHECKED_END();
	if (!ok) {
		atomic_fetch_add_explicit(&r->hdr->drops, 1, memory_order_relaxed);
		return 0;
	}
	atomic_fetch_add_explicit(&r->hdr->written, 1, memory_order_relaxed);
	/* Wake the reader once per burst: when the ring was empty it may be
	 * asleep; otherwise it has work and will come back. */
	if (was_empty && r->wake_fd >= 0) {
		uint64_t one = 1;
		ssize_t n = write(r->wake_fd, &one, sizeof(one));
		(void)n; /* EAGAIN: the counter is already non-zero, reader is due */
	}
	return 1;
}

static size_t shm_read(struct argus_ring *r, struct argus_event *out, size_t max)
{
	if (r->wake_fd >= 0) {
		/* Clear the wake-up before draining so a write after our last
		 * dequeue wakes us again. */
		uint64_t v;
		ssize_t n = read(r->wake_fd, &v, sizeof(v));
		(void)n;
	}
	size_t n = 0;
	CK_UNCHECKED_BEGIN();
	while (n < max && ck_ring_dequeue_spsc_argus_event(&r->hdr->ring, r->slots, &out[n]))
		n++;
	CK_UNCHECKED_END();
	return n;
}

/* ---- the daemon's hook socket (client side; docs/daemon.md) ------------ */

int argus_ring_connect(const char *path, struct argus_ring **rp, int *sock_out)
{
	*rp = NULL;
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
	if ((err = argus_ring_attach_shm(rp, fds[0])))
		goto fail_fds;
	if (fds[1] >= 0)
		argus_ring_set_wake_fd(*rp, fds[1]);
	argus_ring_set_cpu(*rp, id);
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

/* ---- common ----------------------------------------------------------- */

size_t argus_ring_read(struct argus_ring *r, struct argus_event *out, size_t max)
{
	if (!max)
		return 0;
	return r->kind == RING_BPF ? bpf_read(r, out, max) : shm_read(r, out, max);
}

int argus_ring_wait_fd(const struct argus_ring *r)
{
	return r->kind == RING_BPF ? ring_buffer__epoll_fd(r->rb) : r->wake_fd;
}

uint64_t argus_ring_drops(const struct argus_ring *r)
{
	if (r->kind == RING_SHM)
		return atomic_load_explicit(&r->hdr->drops, memory_order_relaxed);
	return r->drops_fn ? r->drops_fn(r->drops_arg, r->cpu) : 0;
}

uint64_t argus_ring_malformed(const struct argus_ring *r)
{
	return r->malformed;
}

void argus_ring_fill(const struct argus_ring *r, uint64_t *used, uint64_t *size)
{
	*used = 0;
	*size = 0;
	if (r->kind == RING_SHM) {
		CK_UNCHECKED_BEGIN();
		*used = ck_ring_size(&r->hdr->ring) * sizeof(struct argus_event);
		CK_UNCHECKED_END();
		*size = (uint64_t)r->hdr->capacity * sizeof(struct argus_event);
		return;
	}
	*size = r->rb_size;
	if (r->cons_page && r->prod_page) {
		uint64_t c = __atomic_load_n((const uint64_t *)r->cons_page, __ATOMIC_ACQUIRE);
		uint64_t p = __atomic_load_n((const uint64_t *)r->prod_page, __ATOMIC_ACQUIRE);
		*used = p >= c ? p - c : 0;
	}
}

unsigned argus_ring_cpu(const struct argus_ring *r)
{
	return r->cpu;
}

void argus_ring_set_cpu(struct argus_ring *r, unsigned cpu)
{
	r->cpu = cpu;
}

void argus_ring_close(struct argus_ring *r)
{
	if (!r)
		return;
	if (r->rb)
		ring_buffer__free(r->rb);
	if (r->cons_page)
		munmap((void *)r->cons_page, r->page_size);
	if (r->prod_page)
		munmap((void *)r->prod_page, r->page_size);
	if (r->hdr)
		munmap(r->hdr, r->map_len);
	if (r->wake_fd >= 0)
		close(r->wake_fd);
	free(r);
}
