/*
 * ringbuf.c - the two kinds of argus record source behind ringbuf.h:
 *  - a kernel BPF_MAP_TYPE_RINGBUF read with libbpf's ring_buffer API, and
 *  - a single-producer ring in shared memory (memfd) built on ck_ring: its
 *    layout is shm_ring.h, its producer side ring_producer.c (which hooks/
 *    compiles without libbpf); this file creates and drains it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ringbuf.h"
#include "shm_ring.h"
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

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

	/* shared-memory ring; its wake_fd is the eventfd (owned) */
	struct argus_ring_producer shm;
	/* The other process can rewrite the shared header at any time: the
	 * reader keeps the ring's size and its own position itself, and only
	 * the producer's position is read from the header (docs/daemon.md). */
	uint32_t shm_cap;  /* slots: from creation, or the header checked at attach */
	uint32_t shm_head; /* the consumer's position; the header's c_head is a copy */
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
	r->shm.wake_fd = -1;
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
	r->shm.wake_fd = -1; /* nothing to close on failure */
	int err;
	int fd = memfd_create("argus-ring", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		goto fail_errno;
	if (ftruncate(fd, (off_t)len) || fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW))
		goto fail_errno;
	r->shm.wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (r->shm.wake_fd < 0)
		goto fail_errno;
	if ((err = argus_shm_map(&r->shm, fd, len)))
		goto fail;
	struct argus_shm_hdr *h = r->shm.hdr;
	h->magic = SHM_MAGIC;
	h->version = SHM_VERSION;
	h->record_size = sizeof(struct argus_event);
	h->capacity = capacity;
	ck_ring_init(&h->ring, capacity);
	r->shm_cap = capacity;
	*fd_out = fd;
	*rp = r;
	return 0;
fail_errno:
	err = -errno;
fail:
	if (fd >= 0)
		close(fd);
	if (r->shm.wake_fd >= 0)
		close(r->shm.wake_fd);
	free(r);
	return err;
}

int argus_ring_attach_shm(struct argus_ring **rp, int fd)
{
	*rp = NULL;
	struct argus_ring *r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->kind = RING_SHM;
	int err = argus_producer_init(&r->shm, fd);
	if (err) {
		free(r);
		return err;
	}
	r->shm_cap = r->shm.hdr->capacity; /* checked against the file's size */
	r->shm_head = ck_pr_load_uint(&r->shm.hdr->ring.c_head);
	*rp = r;
	return 0;
}

int argus_ring_set_wake_fd(struct argus_ring *r, int fd)
{
	return r->kind == RING_SHM ? argus_producer_set_wake_fd(&r->shm, fd) : -EINVAL;
}

int argus_ring_write(struct argus_ring *r, const struct argus_event *ev)
{
	return r->kind == RING_SHM ? argus_producer_write(&r->shm, ev) : 0;
}

static size_t shm_read(struct argus_ring *r, struct argus_event *out, size_t max)
{
	if (r->shm.wake_fd >= 0) {
		/* Clear the wake-up before draining so a write after our last
		 * dequeue wakes us again. */
		uint64_t v;
		ssize_t n = read(r->shm.wake_fd, &v, sizeof(v));
		(void)n;
	}
	/* ck_ring's own dequeue on a private view: size, mask and our
	 * position are ours; the producer's position is the one number taken
	 * from the shared header, and a position more than a ring ahead
	 * (a producer that writes the header itself) counts as malformed and
	 * is read as one ring's worth. */
	size_t n = 0;
	struct ck_ring view;
	memset(&view, 0, sizeof(view));
	CK_UNCHECKED_BEGIN();
	unsigned tail = ck_pr_load_uint(&r->shm.hdr->ring.p_tail);
	if (tail - r->shm_head > r->shm_cap - 1) {
		r->malformed++;
		tail = r->shm_head + r->shm_cap - 1;
	}
	view.c_head = r->shm_head;
	view.p_tail = view.p_head = tail;
	view.size = r->shm_cap;
	view.mask = r->shm_cap - 1;
	while (n < max && ck_ring_dequeue_spsc_argus_event(&view, r->shm.slots, &out[n]))
		n++;
	r->shm_head = view.c_head;
	ck_pr_store_uint(&r->shm.hdr->ring.c_head, view.c_head);
	CK_UNCHECKED_END();
	return n;
}

/* ---- the daemon's hook socket (client side; docs/daemon.md) ------------ */

int argus_ring_connect(const char *path, struct argus_ring **rp, int *sock_out)
{
	*rp = NULL;
	*sock_out = -1;
	struct argus_ring *r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	struct argus_ring_producer *p;
	int err = argus_producer_connect(path, &p, sock_out, &r->cpu);
	if (err) {
		free(r);
		return err;
	}
	r->kind = RING_SHM;
	r->shm = *p; /* the mapping and wake fd move into the ring */
	free(p);
	r->shm_cap = r->shm.hdr->capacity; /* checked by the attach */
	r->shm_head = ck_pr_load_uint(&r->shm.hdr->ring.c_head);
	*rp = r;
	return 0;
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
	return r->kind == RING_BPF ? ring_buffer__epoll_fd(r->rb) : r->shm.wake_fd;
}

uint64_t argus_ring_drops(const struct argus_ring *r)
{
	if (r->kind == RING_SHM)
		return atomic_load_explicit(&r->shm.hdr->drops, memory_order_relaxed);
	return r->drops_fn ? r->drops_fn(r->drops_arg, r->cpu) : 0;
}

void argus_ring_set_asks(struct argus_ring *r, uint32_t asks)
{
	if (r->kind == RING_SHM)
		atomic_store_explicit(&r->shm.hdr->asks, asks, memory_order_relaxed);
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
		unsigned ahead = ck_pr_load_uint(&r->shm.hdr->ring.p_tail) - r->shm_head;
		CK_UNCHECKED_END();
		if (ahead > r->shm_cap - 1)
			ahead = r->shm_cap - 1;
		*used = (uint64_t)ahead * sizeof(struct argus_event);
		*size = (uint64_t)r->shm_cap * sizeof(struct argus_event);
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
	argus_producer_fini(&r->shm);
	free(r);
}
