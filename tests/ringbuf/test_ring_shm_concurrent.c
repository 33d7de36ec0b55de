/* A producer thread against a consumer thread on one shared-memory ring:
 * every record arrives once, in order, or is counted as dropped. */
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "ringbuf.h"
#include "test.h"

#define N 200000

struct prod {
	int fd, wake;
	atomic_int done;
	uint64_t accepted;
};

static void *producer(void *arg)
{
	struct prod *p = arg;
	struct argus_ring *r;
	if (argus_ring_attach_shm(&r, p->fd))
		return NULL;
	argus_ring_set_wake_fd(r, p->wake);
	for (uint64_t i = 0; i < N; i++) {
		struct argus_event ev = {
		    .ts = i + 1, .tid = (uint32_t)i, .type = ARGUS_EV_SYS_ENTER};
		ev.sys_enter.arg0 = (int64_t)(i * 7);
		p->accepted += (uint64_t)argus_ring_write(r, &ev);
	}
	argus_ring_close(r);
	atomic_store(&p->done, 1);
	return NULL;
}

TEST(producer_thread_vs_consumer_thread)
{
	struct argus_ring *c;
	struct prod p = {0};
	ASSERT_EQ(argus_ring_create_shm(&c, 1024, &p.fd), 0);
	p.wake = argus_ring_wait_fd(c);
	pthread_t t;
	ASSERT_EQ(pthread_create(&t, NULL, producer, &p), 0);
	struct argus_event buf[256];
	uint64_t got = 0, last = 0;
	int bad = 0;
	for (;;) {
		int done = atomic_load(&p.done);
		size_t n = argus_ring_read(c, buf, 256);
		for (size_t i = 0; i < n; i++) {
			if (buf[i].ts <= last ||
			    buf[i].sys_enter.arg0 != (int64_t)((buf[i].ts - 1) * 7))
				bad++;
			last = buf[i].ts;
		}
		got += n;
		if (!n && done)
			break;
		if (!n) {
			struct pollfd pfd = {.fd = p.wake, .events = POLLIN};
			poll(&pfd, 1, 1); /* wake-up or a 1 ms periodic drain */
		}
	}
	pthread_join(t, NULL);
	ASSERT_EQ(bad, 0);
	ASSERT_U64_EQ(got, p.accepted);
	ASSERT_U64_EQ(got + argus_ring_drops(c), N);
	argus_ring_close(c);
	close(p.fd);
}

TEST_MAIN(TEST_ENTRY(producer_thread_vs_consumer_thread))
