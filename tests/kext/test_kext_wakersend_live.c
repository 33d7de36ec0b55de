/*
 * test_kext_wakersend_live.c - the default capture's waker sends against a
 * real process (label "live"): a waker's send is resolved from its fd at
 * each wake-up (kext/sched.bpf.c waker_call); a named connection's fd freed
 * and reopened as a socket pair's end, then a pipe - the kernel hands the
 * same file and inode back at the same addresses - must be taken for what
 * it is now, every time (a cache of watched files keyed by those pointers
 * alone fails here).
 */
#include <pthread.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>

#include "collect.h"

#define WS_ROUNDS 20

enum { WS_NAMED, WS_PAIR, WS_PIPE, WS_PHASES };

/* What the traced child tells the test (shared memory): the fd it writes
 * to in every phase, and each phase's reader thread. */
struct ws_shared {
	int fd;
	pid_t reader[WS_PHASES];
};

struct ws_reader {
	int fd;
	pid_t *tid;
};

static void *ws_read(void *arg)
{
	struct ws_reader *r = arg;
	char b;

	*r->tid = (pid_t)syscall(SYS_gettid);
	for (int i = 0; i < WS_ROUNDS; i++)
		if (read(r->fd, &b, 1) != 1)
			_exit(1);
	return NULL;
}

/* A reader thread asleep in its read before each write: every write is a
 * wake-up (on one CPU: pin_cpu0). */
static void ws_phase(int wfd, int rfd, pid_t *tid)
{
	struct ws_reader r = {rfd, tid};
	pthread_t t;

	if (pthread_create(&t, NULL, ws_read, &r))
		_exit(1);
	for (int i = 0; i < WS_ROUNDS; i++) {
		usleep(2000);
		if (write(wfd, "x", 1) != 1)
			_exit(1);
	}
	pthread_join(t, NULL);
}

/* Free the file at fd but keep its number (a copy of stderr there: no new
 * file takes the freed one's place), then put fd there. */
static void ws_free(int at)
{
	if (dup2(STDERR_FILENO, at) != at)
		_exit(1);
}

static void ws_move(int fd, int at)
{
	if (dup2(fd, at) != at || close(fd))
		_exit(1);
}

/* Writes on a client's end of a named connection (watched: remembered),
 * then the same fd number as a socket pair's end, then as a pipe. The
 * named ends are closed last-freed-first-reused: the kernel likely hands
 * the client's file and socket inode to the pair's first end (one CPU, its
 * inode freed after an RCU grace period: the pause). */
static void ws_child(void *arg)
{
	struct ws_shared *sh = arg;
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int sp[2], p[2];

	pin_cpu0();
	snprintf(a.sun_path, sizeof(a.sun_path), "/tmp/argus-test-wsend-%d", getpid());
	unlink(a.sun_path);
	int l = socket(AF_UNIX, SOCK_STREAM, 0), cl = socket(AF_UNIX, SOCK_STREAM, 0);
	if (l < 0 || cl < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1) ||
	    connect(cl, (struct sockaddr *)&a, sizeof(a)))
		_exit(1);
	int srv = accept(l, NULL, NULL);
	if (srv < 0)
		_exit(1);
	sh->fd = cl;
	ws_phase(cl, srv, &sh->reader[WS_NAMED]);
	close(l);
	unlink(a.sun_path);
	close(srv);
	ws_free(cl);
	usleep(50000);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp))
		_exit(1);
	ws_move(sp[0], sh->fd);
	ws_phase(sh->fd, sp[1], &sh->reader[WS_PAIR]);
	close(sp[1]);
	ws_free(sh->fd);
	usleep(50000);
	if (pipe(p))
		_exit(1);
	ws_move(p[1], sh->fd);
	ws_phase(sh->fd, p[0], &sh->reader[WS_PIPE]);
}

/* The writer's wake-ups of a phase's reader (*woken), and how many have
 * the waker's IPC_SEND of kind on the writer's fd at their time (the two
 * are written together, same ts). */
static size_t ws_with_send(const struct collector *c, pid_t writer, pid_t reader, int fd,
                           uint8_t kind, size_t *woken)
{
	size_t with = 0;

	*woken = 0;
	for (size_t i = 0; i < c->n; i++) {
		const struct argus_event *w = &c->ev[i];

		if (w->type != ARGUS_EV_SCHED_WAKEUP || w->tid != (uint32_t)writer ||
		    w->wakeup.wakee_tid != (uint32_t)reader)
			continue;
		++*woken;
		for (size_t j = 0; j < c->n; j++) {
			const struct argus_event *s = &c->ev[j];

			if (s->ts == w->ts && s->type == ARGUS_EV_IPC_SEND &&
			    s->tid == (uint32_t)writer && (s->flags & ARGUS_F_NORET) &&
			    s->ipc.obj_kind == kind && s->ipc.fd == fd) {
				with++;
				break;
			}
		}
	}
	return with;
}

TEST(a_watched_sockets_fd_reopened_as_a_pair_or_a_pipe_keeps_its_waker_sends)
{
	struct argus_kext_opts o = {.pid_filter = true, .no_samples = true};
	struct collector c;
	struct ws_shared *sh;
	size_t woken, with, named = 0;

	require_live();
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT(sh != MAP_FAILED);
	memset(sh, 0, sizeof(*sh));
	struct gated_child g = collect_child(&c, &o, ws_child, sh);
	for (int ph = 0; ph < WS_PHASES; ph++)
		ASSERT_MSG(sh->reader[ph] > 0, "phase %d's reader did not run", ph);

	/* the named end: each send written by sock_send_length (a real ret,
	 * no noret), none by the wake-ups */
	for (size_t i = 0; i < c.n; i++) {
		const struct argus_event *e = &c.ev[i];

		if (e->type == ARGUS_EV_IPC_SEND && e->tid == (uint32_t)g.pid &&
		    e->ipc.obj_kind == ARGUS_OBJ_UNIX && !(e->flags & ARGUS_F_NORET) &&
		    e->ipc.ret == 1)
			named++;
	}
	ASSERT_EQ(named, WS_ROUNDS);
	with = ws_with_send(&c, g.pid, sh->reader[WS_NAMED], sh->fd, ARGUS_OBJ_UNIX, &woken);
	ASSERT_MSG(woken >= 1, "the named end's writes woke no reader");
	ASSERT_EQ(with, 0);

	/* the same fd as a pair's end, then a pipe: every wake-up has its send */
	with = ws_with_send(&c, g.pid, sh->reader[WS_PAIR], sh->fd, ARGUS_OBJ_UNIX, &woken);
	ASSERT_MSG(woken >= 1, "the pair's writes woke no reader");
	ASSERT_MSG(with == woken, "%zu of %zu wake-ups by the pair's writes without their send",
	           woken - with, woken);
	with = ws_with_send(&c, g.pid, sh->reader[WS_PIPE], sh->fd, ARGUS_OBJ_PIPE, &woken);
	ASSERT_MSG(woken >= 1, "the pipe's writes woke no reader");
	ASSERT_MSG(with == woken, "%zu of %zu wake-ups by the pipe's writes without their send",
	           woken - with, woken);
	munmap(sh, sizeof(*sh));
	collector_free(&c);
}

TEST_MAIN(TEST_ENTRY(a_watched_sockets_fd_reopened_as_a_pair_or_a_pipe_keeps_its_waker_sends))
