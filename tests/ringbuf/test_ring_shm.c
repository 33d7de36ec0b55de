/* Shared-memory rings: order, bounds, drops, wake-ups, hostile files. */
#include <errno.h>
#include <poll.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ringbuf.h"
#include "test.h"

static struct argus_event ev_n(uint64_t n)
{
	struct argus_event ev = {0};
	ev.ts = 1000 + n;
	ev.tid = (uint32_t)n;
	ev.type = ARGUS_EV_SCHED_SWITCH;
	return ev;
}

TEST(records_come_out_in_order_across_mappings)
{
	struct argus_ring *c, *p;
	int fd;
	ASSERT_EQ(argus_ring_create_shm(&c, 64, &fd), 0);
	ASSERT_EQ(argus_ring_attach_shm(&p, fd), 0);
	for (uint64_t i = 0; i < 40; i++) {
		struct argus_event ev = ev_n(i);
		ASSERT_EQ(argus_ring_write(p, &ev), 1);
	}
	struct argus_event out[64];
	ASSERT_EQ(argus_ring_read(c, out, 25), 25);
	ASSERT_EQ(argus_ring_read(c, out + 25, 64), 15);
	for (uint64_t i = 0; i < 40; i++)
		ASSERT_U64_EQ(out[i].ts, 1000 + i);
	ASSERT_EQ(argus_ring_read(c, out, 64), 0);
	ASSERT_U64_EQ(argus_ring_drops(c), 0);
	argus_ring_close(p);
	argus_ring_close(c);
	close(fd);
}

TEST(full_ring_drops_at_producer_and_counts)
{
	struct argus_ring *c, *p;
	int fd;
	ASSERT_EQ(argus_ring_create_shm(&c, 16, &fd), 0);
	ASSERT_EQ(argus_ring_attach_shm(&p, fd), 0);
	int ok = 0;
	for (uint64_t i = 0; i < 100; i++) {
		struct argus_event ev = ev_n(i);
		ok += argus_ring_write(p, &ev);
	}
	/* ck_ring keeps one slot free: 15 usable of 16 */
	ASSERT_EQ(ok, 15);
	ASSERT_U64_EQ(argus_ring_drops(c), 85);
	ASSERT_U64_EQ(argus_ring_drops(p), 85);
	uint64_t used, size;
	argus_ring_fill(c, &used, &size);
	ASSERT_U64_EQ(used, 15 * sizeof(struct argus_event));
	ASSERT_U64_EQ(size, 16 * sizeof(struct argus_event));
	struct argus_event out[16];
	ASSERT_EQ(argus_ring_read(c, out, 16), 15);
	for (uint64_t i = 0; i < 15; i++)
		ASSERT_U64_EQ(out[i].ts, 1000 + i); /* the oldest are kept */
	argus_ring_close(p);
	argus_ring_close(c);
	close(fd);
}

TEST(write_to_empty_ring_wakes_reader)
{
	struct argus_ring *c, *p;
	int fd;
	ASSERT_EQ(argus_ring_create_shm(&c, 16, &fd), 0);
	ASSERT_EQ(argus_ring_attach_shm(&p, fd), 0);
	int wfd = argus_ring_wait_fd(c);
	ASSERT(wfd >= 0);
	ASSERT_EQ(argus_ring_set_wake_fd(p, wfd), 0);
	struct pollfd pfd = {.fd = wfd, .events = POLLIN};
	ASSERT_EQ(poll(&pfd, 1, 0), 0);
	struct argus_event ev = ev_n(1);
	ASSERT_EQ(argus_ring_write(p, &ev), 1);
	ASSERT_EQ(poll(&pfd, 1, 1000), 1);
	struct argus_event out[4];
	ASSERT_EQ(argus_ring_read(c, out, 4), 1);
	ASSERT_EQ(poll(&pfd, 1, 0), 0); /* reading cleared it */
	argus_ring_close(p);
	argus_ring_close(c);
	close(fd);
}

TEST(capacity_must_be_power_of_two)
{
	struct argus_ring *r;
	int fd;
	ASSERT_EQ(argus_ring_create_shm(&r, 100, &fd), -EINVAL);
	ASSERT_EQ(argus_ring_create_shm(&r, 1, &fd), -EINVAL);
	ASSERT(r == NULL);
}

TEST(attach_refuses_a_foreign_file)
{
	int fd = memfd_create("junk", 0);
	ASSERT(fd >= 0);
	char junk[8192];
	memset(junk, 0x5a, sizeof(junk));
	ASSERT_EQ(write(fd, junk, sizeof(junk)), (ssize_t)sizeof(junk));
	struct argus_ring *r;
	ASSERT_EQ(argus_ring_attach_shm(&r, fd), -EPROTO);
	ASSERT(r == NULL);
	close(fd);
	int e = memfd_create("short", 0);
	ASSERT_EQ(argus_ring_attach_shm(&r, e), -EINVAL); /* empty file */
	close(e);
}

TEST(attach_refuses_a_shrunk_header)
{
	struct argus_ring *c, *p;
	int fd;
	ASSERT_EQ(argus_ring_create_shm(&c, 16, &fd), 0);
	/* A producer that lies about capacity must not make us read past the map. */
	void *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT(m != MAP_FAILED);
	((uint32_t *)m)[4] = 1u << 20; /* capacity field */
	ASSERT_EQ(argus_ring_attach_shm(&p, fd), -EPROTO);
	munmap(m, 4096);
	argus_ring_close(c);
	close(fd);
}

TEST_MAIN(TEST_ENTRY(records_come_out_in_order_across_mappings),
          TEST_ENTRY(full_ring_drops_at_producer_and_counts),
          TEST_ENTRY(write_to_empty_ring_wakes_reader), TEST_ENTRY(capacity_must_be_power_of_two),
          TEST_ENTRY(attach_refuses_a_foreign_file), TEST_ENTRY(attach_refuses_a_shrunk_header))
