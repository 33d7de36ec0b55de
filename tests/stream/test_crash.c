/* kill -9 of `argus start` under load, three times at random moments
 * (docs/daemon.md "Flight recorder"): after each, `argus dump` (no daemon
 * running) recovers every record up to at most the last second before
 * the kill, with no gap; `argus start` comes back over the stale sockets
 * and the chunk left open. The load: this process, hooked, writing
 * numbered records into its hook ring as fast as the ring takes them.
 * Runs the built argus binary ($ARGUS_BIN) without the kernel tracer. */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>

#include "daemon_fixture.h"
#include "stream_priv.h"

#define ROUNDS 3
#define SLACK  500000000ull /* scheduling on a loaded machine, on top of the 1 s */

struct load {
	const char *hooks;
	atomic_bool stop;
	atomic_uint_fast64_t seq;   /* next record number */
	atomic_uint_fast64_t ts[1]; /* time of the last record written */
	uint64_t *ts_of;            /* [seq] -> ts written, for the check */
	uint64_t cap;
	int rc;
};

/* Write numbered COND_SIGNAL records (sync.obj = number) until told to
 * stop; reconnects when the daemon is gone and back. */
static void *load_run(void *arg)
{
	struct load *l = arg;
	char sock[160];
	snprintf(sock, sizeof(sock), "%s/%s", l->hooks, HOOKS_SOCK);
	struct argus_ring *r = NULL;
	int s = -1;
	while (!atomic_load(&l->stop)) {
		if (!r && argus_ring_connect(sock, &r, &s)) {
			r = NULL;
			usleep(2000);
			continue;
		}
		uint64_t n = atomic_load(&l->seq);
		if (n >= l->cap)
			break;
		struct argus_event e = fx_ev(fx_now(), ARGUS_EV_COND_SIGNAL, (uint32_t)getpid());
		e.tid = (uint32_t)getpid();
		e.sync.obj = n;
		if (argus_ring_write(r, &e) == 1) {
			l->ts_of[n] = e.ts;
			atomic_store(&l->seq, n + 1);
		} else {
			usleep(200); /* full: the daemon is behind, or gone */
			char c;
			if (recv(s, &c, 1, MSG_DONTWAIT | MSG_PEEK) == 0) {
				argus_ring_close(r); /* the daemon went away */
				close(s);
				r = NULL;
			}
		}
		if (n % 64 == 0)
			usleep(100); /* about 100-300 k records/s */
	}
	if (r) {
		argus_ring_close(r);
		close(s);
	}
	return NULL;
}

static pid_t start(const char *bin, const char *base)
{
	char run[128], rec[128], hooks[128];
	snprintf(run, sizeof(run), "%s/run", base);
	snprintf(rec, sizeof(rec), "%s/rec", base);
	snprintf(hooks, sizeof(hooks), "%s/hooks", base);
	pid_t p = fork();
	if (p == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 2);
		execl(bin, bin, "start", "--no-kernel", "--run-dir", run, "--recorder", rec,
		      "--hooks-dir", hooks, "--reports", "", "--no-notify", (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 1000; i++, usleep(10000))
		if (argus_daemon_request(run, "status", -1) == 0)
			return p;
	kill(p, SIGKILL);
	waitpid(p, NULL, 0);
	return -1;
}

/* argus dump of the whole recording; the numbers of the load's records in
 * it, as a bitmap over [0, cap). */
static int dump(const char *bin, const char *base, uint8_t *seen, uint64_t cap, uint64_t *max_seq)
{
	char cmd[1024], out[256];
	snprintf(out, sizeof(out), "%s/dump.argus", base);
	snprintf(cmd, sizeof(cmd), "'%s' dump --last 1h -o '%s' --recorder '%s/rec' 2>&1", bin, out,
	         base);
	int st = system(cmd);
	if (getenv("CRASH_DEBUG")) {
		snprintf(cmd, sizeof(cmd), "ls -la '%s/rec'", base);
		if (system(cmd))
			return -1;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return -1;
	struct argus_trace_reader *r;
	struct argus_trace_error te;
	if (argus_trace_open(&r, out, &te))
		return -2;
	const struct argus_event *e;
	memset(seen, 0, cap);
	*max_seq = 0;
	int rc;
	while ((rc = argus_trace_next(r, &e, &te)) == 1)
		if (e->type == ARGUS_EV_COND_SIGNAL && e->pid == (uint32_t)getpid() &&
		    e->sync.obj < cap) {
			seen[e->sync.obj] = 1;
			if (e->sync.obj > *max_seq)
				*max_seq = e->sync.obj;
		}
	argus_trace_close(r);
	unlink(out);
	return rc == 0 ? 0 : -3;
}

TEST(kill_9_three_times_under_load)
{
	const char *bin = getenv("ARGUS_BIN");
	if (!bin || access(bin, X_OK))
		SKIP("ARGUS_BIN (the argus binary) is not set or not built");
	if (geteuid() != 0)
		SKIP("argus start runs as root");
	char base[64] = "/tmp/argus-test-crash-XXXXXX";
	ASSERT(mkdtemp(base));
	char hooks[128];
	snprintf(hooks, sizeof(hooks), "%s/hooks", base);
	struct load l = {.hooks = hooks, .cap = 64u << 20};
	l.ts_of = calloc(l.cap, sizeof(*l.ts_of));
	uint8_t *seen = malloc(l.cap), *was_seen = calloc(l.cap, 1);
	ASSERT(l.ts_of && seen && was_seen);
	pid_t d = start(bin, base);
	ASSERT_MSG(d > 0, "argus start did not come up");
	pthread_t th;
	ASSERT_EQ(pthread_create(&th, NULL, load_run, &l), 0);
	srand((unsigned)getpid());
	uint64_t kept_before = 0;
	for (int round = 0; round < ROUNDS; round++) {
		/* a random moment 1.5 .. 3.5 s into the run */
		usleep(1500000 + (useconds_t)(rand() % 2000000));
		uint64_t kill_ts = fx_now();
		uint64_t written = atomic_load(&l.seq);
		ASSERT_EQ(kill(d, SIGKILL), 0);
		waitpid(d, NULL, 0);
		/* no daemon: dump what is on disk */
		uint64_t max_seq;
		int rc = dump(bin, base, seen, l.cap, &max_seq);
		ASSERT_MSG(rc == 0, "argus dump after kill -9 #%d failed (%d)", round + 1, rc);
		/* no gap up to the newest record recovered, nothing after the kill */
		/* (records written while no daemon ran went into a ring
		 * nobody read: this round's span starts at its first record) */
		uint64_t first = kept_before, missing = 0;
		while (first < max_seq && !seen[first])
			first++;
		for (uint64_t i = first; i <= max_seq; i++)
			missing += !seen[i];
		for (uint64_t i = 0; i < kept_before; i++)
			missing += !seen[i] && was_seen[i];
		uint64_t lost_ns = kill_ts - l.ts_of[max_seq];
		fprintf(
		    stderr,
		    "kill -9 #%d: %llu records written, %llu recovered (up to %.3f s before the "
		    "kill), %llu missing\n",
		    round + 1, (unsigned long long)written, (unsigned long long)(max_seq + 1),
		    lost_ns / 1e9, (unsigned long long)missing);
		ASSERT_U64_EQ(missing, 0);
		ASSERT(max_seq + 1 > kept_before); /* this round's records are there */
		ASSERT_MSG(lost_ns <= 1000000000ull + SLACK,
		           "the newest record recovered is %.3f s older than the kill",
		           lost_ns / 1e9);
		kept_before = max_seq + 1;
		memcpy(was_seen, seen, kept_before); /* earlier rounds stay recovered */
		/* back over the stale sockets and the open chunk */
		d = start(bin, base);
		ASSERT_MSG(d > 0, "argus start did not come back after kill -9 #%d", round + 1);
	}
	usleep(1500000);
	atomic_store(&l.stop, true);
	pthread_join(th, NULL);
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "'%s' stop --run-dir '%s/run' >/dev/null 2>&1", bin, base);
	ASSERT_EQ(system(cmd), 0);
	int st;
	ASSERT_EQ(waitpid(d, &st, 0), d);
	ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* after a clean stop: every record ever written but those of the
	 * three lost seconds */
	uint64_t max_seq, missing = 0, written = atomic_load(&l.seq);
	ASSERT_EQ(dump(bin, base, seen, l.cap, &max_seq), 0);
	for (uint64_t i = 0; i < written; i++)
		missing += !seen[i];
	fprintf(stderr, "after a clean stop: %llu of %llu records, %llu missing (the kills)\n",
	        (unsigned long long)(written - missing), (unsigned long long)written,
	        (unsigned long long)missing);
	ASSERT_U64_EQ(max_seq + 1, written);
	free(l.ts_of);
	free(seen);
	free(was_seen);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", base);
}

TEST_MAIN(TEST_ENTRY(kill_9_three_times_under_load))
