/*
 * live.c - the live kernel source: the eBPF tracer (kext/), one ring reader
 * per CPU (ringbuf/), the merge by time (stream/), decoding, and the loop
 * that feeds a sink until a signal, a duration or the traced command's exit
 * ends it (`argus record`, `argus stream`); and the tracer as the daemon's
 * source (`argus start`).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmdline.h"
#include "live_priv.h"

#define LIVE_BATCH        4096
#define LIVE_POLL_MS      50           /* rings are read at least this often */
#define LIVE_GATHER_MS    10           /* ... and at most this often */
#define LIVE_MAX_DELAY_NS 100000000ull /* merge watermark: a quiet CPU holds 100 ms */

struct argus_live {
	struct argus_live_opts o;
	struct argus_kext *k;
	unsigned nrings;
	struct argus_ring **rings;
	struct argus_merge *merge;
	struct argus_event *buf;
	struct argus_event *rbuf; /* a batch per ring (pump) */
	size_t *rn;
	int sigfd;
	sigset_t oldmask;
	pid_t child;
	int go_fd;
	struct hookrings hk; /* the command's, with hooks_lib */
	uint32_t cmd_pid;    /* the command's pid, after it ended too */
	struct argus_live_stats st;
	uint64_t last_ts;
	bool rt; /* the reader runs SCHED_FIFO right now */
};

static void set_priority(struct argus_live *l, bool rt);

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The command waits on a pipe until its pid is in the filter, then execs. */
static int spawn_held(struct argus_live *l)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC)) {
		cli_error(l->o.name, "pipe: %s", strerror(errno));
		return ARGUS_LIVE_EINTERNAL;
	}
	l->child = fork();
	if (l->child < 0) {
		cli_error(l->o.name, "fork: %s", strerror(errno));
		return ARGUS_LIVE_EINTERNAL;
	}
	if (l->child == 0) {
		char b;

		sigprocmask(SIG_SETMASK, &l->oldmask, NULL);
		close(p[1]);
		if (read(p[0], &b, 1) != 1)
			_exit(127); /* argus gave up: do not run untraced */
		if (l->hk.n)
			hookrings_child_env(&l->hk, l->o.hooks_lib);
		execvp(l->o.cmd[0], l->o.cmd);
		fprintf(stderr, "argus %s: cannot run %s: %s\n", l->o.name, l->o.cmd[0],
		        strerror(errno));
		_exit(127);
	}
	close(p[0]);
	l->go_fd = p[1];
	l->cmd_pid = (uint32_t)l->child;
	return 0;
}

int argus_live_open(struct argus_live **lp, const struct argus_live_opts *o)
{
	struct argus_live *l = calloc(1, sizeof(*l));
	char err[512];
	sigset_t mask;
	int rc;

	*lp = NULL;
	if (!l) {
		cli_error(o->name, "out of memory");
		return ARGUS_LIVE_EINTERNAL;
	}
	l->o = *o;
	l->sigfd = -1;
	l->go_fd = -1;
	for (unsigned i = 0; i < HOOK_RINGS; i++)
		l->hk.fd[i] = -1;
	l->st.cmd_status = -1;
	/* signals arrive through a descriptor: the loop stops cleanly */
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, &l->oldmask);
	l->sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	l->buf = malloc(LIVE_BATCH * sizeof(*l->buf));
	if (l->sigfd < 0 || !l->buf) {
		cli_error(o->name, "cannot set up: %s", strerror(errno));
		rc = ARGUS_LIVE_EINTERNAL;
		goto fail;
	}
	if (o->cmd && o->hooks_lib && hookrings_open(&l->hk, o->name)) {
		rc = ARGUS_LIVE_EINTERNAL;
		goto fail;
	}
	if (o->cmd) {
		rc = spawn_held(l);
		if (rc)
			goto fail;
		l->o.kext.pids = &l->child;
		l->o.kext.npids = 1;
	}
	rc = argus_kext_open(&l->k, &l->o.kext, err, sizeof(err));
	if (rc == 0)
		rc = argus_kext_start(l->k, err, sizeof(err));
	if (rc) {
		cli_error(o->name, "%s", err);
		goto fail;
	}
	l->nrings = argus_kext_ncpus(l->k);
	l->rings = calloc(l->nrings, sizeof(*l->rings));
	if (!l->rings || argus_merge_new(&l->merge, l->nrings + l->hk.n, LIVE_MAX_DELAY_NS)) {
		cli_error(o->name, "out of memory");
		rc = ARGUS_LIVE_EINTERNAL;
		goto fail;
	}
	for (unsigned c = 0; c < l->nrings; c++) {
		rc = argus_ring_open_bpf(&l->rings[c], argus_kext_ring_fd(l->k, c), c,
		                         argus_kext_ring_drops, l->k);
		if (rc) {
			cli_error(o->name, "cannot read the ring of CPU %u: %s", c, strerror(-rc));
			rc = ARGUS_LIVE_EINTERNAL;
			goto fail;
		}
	}
	if (l->go_fd >= 0) {
		if (write(l->go_fd, "g", 1) != 1) {
			cli_error(o->name, "cannot start %s: %s", o->cmd[0], strerror(errno));
			rc = ARGUS_LIVE_EINTERNAL;
			goto fail;
		}
		close(l->go_fd);
		l->go_fd = -1;
	}
	if (!o->no_rt) {
		setpriority(PRIO_PROCESS, 0, -20); /* see set_priority */
		set_priority(l, true);
	}
	if (o->ready_fd > 0) {
		/* scripts and `argus bench overhead` start their workload now */
		if (write(o->ready_fd, "ready\n", 6) != 6)
			cli_error(o->name, "--ready-fd %d: %s", o->ready_fd, strerror(errno));
		close(o->ready_fd);
	}
	*lp = l;
	return 0;
fail:
	argus_live_close(l);
	return rc;
}

/* Decode and hand a batch to the sink, in stream order. */
static int deliver(struct argus_live *l, struct argus_event *ev, size_t n,
                   const struct argus_sink *s)
{
	if (!n)
		return 0;
	if (argus_kext_decode(l->k, ev, n, s) < 0)
		return -1;
	if (s->events && s->events(s->arg, ev, n) < 0)
		return -1;
	l->st.events += n;
	l->last_ts = ev[n - 1].ts;
	return 0;
}

/* Losses become DROP records at the stream's current position. The records
 * the tracer still held or staged when it stopped go through the merge, into
 * their place in time (the final drain follows). */
static int deliver_drops(struct argus_live *l, const struct argus_sink *s, uint64_t now)
{
	struct argus_event d[64 + HOOK_RINGS];
	uint64_t ts = l->last_ts ? l->last_ts : mono_ns();
	size_t n, nd;

	do {
		n = argus_kext_drop_records(l->k, d, 64, ts);
		nd = 0;
		for (size_t i = 0; i < n; i++) {
			if (d[i].type != ARGUS_EV_DROP) {
				unsigned src = d[i].cpu < l->nrings ? d[i].cpu : 0;

				if (argus_merge_push(l->merge, src, &d[i], 1, now))
					return -1;
				continue;
			}
			if (d[i].drop.source == ARGUS_DROP_KERNEL_RING)
				l->st.ring_drops += d[i].drop.count;
			else if (d[i].drop.source == ARGUS_DROP_NESTED)
				l->st.nested += d[i].drop.count;
			else
				l->st.stack_drops += d[i].drop.count;
			d[nd++] = d[i];
		}
		if (nd && deliver(l, d, nd, s))
			return -1;
	} while (n == 64);
	nd = hookrings_drops(&l->hk, d, HOOK_RINGS, l->cmd_pid, ts);
	return nd ? deliver(l, d, nd, s) : 0;
}

/* The reader's priority. A machine saturated by the workload must not
 * starve the reader (its rings would overflow: a normal-priority reader lost
 * ~60 % of the records of `perf bench sched messaging` on 2 CPUs), so it
 * reads at real-time priority, SCHED_FIFO 1. But a real-time task is woken
 * on the CPU it last ran on and preempts whatever runs there, even when
 * another CPU is idle: a workload pinned to one CPU lost as much time to the
 * reader as the reader used while the other CPU idled. So the reader sleeps
 * at the highest normal priority (nice -20: the scheduler wakes it on an
 * idle CPU, and soon) and switches to SCHED_FIFO once awake, until it
 * sleeps again. Not inherited by anything argus starts. Best effort. */
static void set_priority(struct argus_live *l, bool rt)
{
	struct sched_param sp = {.sched_priority = rt ? 1 : 0};

	if (l->o.no_rt || rt == l->rt)
		return;
	if (sched_setscheduler(0, (rt ? SCHED_FIFO : SCHED_OTHER) | SCHED_RESET_ON_FORK, &sp) == 0)
		l->rt = rt;
}

/* poll() for the loop, asleep at normal priority (set_priority); back to
 * real time after it when `then_rt` (the gather sleep is followed by the
 * loop's own poll: switching there and back costs two syscalls a turn). */
static int poll_asleep(struct argus_live *l, struct pollfd *pfd, unsigned nfd, int timeout,
                       bool then_rt)
{
	set_priority(l, false);
	int n = poll(pfd, nfd, timeout);
	int e = errno;

	if (then_rt)
		set_priority(l, true);
	errno = e;
	return n;
}

/* Read every ring once (fully), push into the merge, release what is due. */
/* Every ring is read before any record is looked at: a PROC_FORK in one
 * CPU's ring must be known before the child's first records in another's,
 * or the child's /proc maps are read for nothing (its layout is its
 * parent's). A burst of forks would cost the reader more than tracing
 * them: 400 forks were 40 % of its time on `perf bench sched messaging`. */
static int read_rings(struct argus_live *l, const struct argus_sink *s, uint64_t now)
{
	bool more = true;

	if (!l->rbuf) {
		l->rbuf = malloc((size_t)(l->nrings + l->hk.n) * LIVE_BATCH * sizeof(*l->rbuf));
		l->rn = calloc(l->nrings, sizeof(*l->rn));
		if (!l->rbuf || !l->rn)
			return -1;
	}
	for (bool first = true; more; first = false) {
		more = false;
		for (unsigned c = 0; c < l->nrings; c++) {
			struct argus_event *b = l->rbuf + (size_t)c * LIVE_BATCH;

			l->rn[c] = argus_ring_read(l->rings[c], b, LIVE_BATCH);
			argus_kext_note_forks(l->k, b, l->rn[c]);
			if (first && !l->rn[c])
				argus_merge_quiet(l->merge, c, now);
		}
		for (unsigned c = 0; c < l->nrings; c++) {
			struct argus_event *b = l->rbuf + (size_t)c * LIVE_BATCH;

			if (!l->rn[c])
				continue;
			/* /proc is read while short-lived processes still live */
			if (argus_kext_prefetch(l->k, b, l->rn[c], s) < 0 ||
			    argus_merge_push(l->merge, c, b, l->rn[c], now))
				return -1;
			more |= l->rn[c] == LIVE_BATCH;
		}
		/* the command's hook rings: merge sources after the CPUs' */
		for (unsigned h = 0; h < l->hk.n; h++) {
			unsigned src = l->nrings + h;
			struct argus_event *b = l->rbuf + (size_t)src * LIVE_BATCH;
			size_t n = hookrings_read(&l->hk, h, b, LIVE_BATCH, l->cmd_pid, now);

			if (first && !n)
				argus_merge_quiet(l->merge, src, now);
			if (n && argus_merge_push(l->merge, src, b, n, now))
				return -1;
			more |= n == LIVE_BATCH;
		}
	}
	return 0;
}

static int pump(struct argus_live *l, const struct argus_sink *s, bool final)
{
	uint64_t now = mono_ns();
	size_t n;

	if (read_rings(l, s, now) || deliver_drops(l, s, now))
		return -1;
	while ((n = final ? argus_merge_drain(l->merge, l->buf, LIVE_BATCH)
	                  : argus_merge_pop(l->merge, l->buf, LIVE_BATCH, now)) > 0) {
		if (deliver(l, l->buf, n, s))
			return -1;
	}
	return 0;
}

/* true when the loop should end */
static bool handle_signals(struct argus_live *l)
{
	struct signalfd_siginfo si;
	bool stop = false;

	while (read(l->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			int status;

			if (l->child > 0 && waitpid(l->child, &status, WNOHANG) == l->child) {
				l->st.cmd_status = status;
				l->child = 0;
				stop = true;
			}
			continue;
		}
		stop = true; /* SIGINT, SIGTERM */
	}
	return stop;
}

int argus_live_run(struct argus_live *l, const struct argus_sink *s)
{
	struct pollfd *pfd = calloc(l->nrings + 1, sizeof(*pfd));
	uint64_t end = l->o.duration_ns ? mono_ns() + l->o.duration_ns : 0;
	unsigned nfd = 0;
	int rc = 0;

	if (!pfd) {
		cli_error(l->o.name, "out of memory");
		return ARGUS_LIVE_EINTERNAL;
	}
	pfd[nfd++] = (struct pollfd){.fd = l->sigfd, .events = POLLIN};
	for (unsigned c = 0; c < l->nrings; c++) {
		int fd = argus_ring_wait_fd(l->rings[c]);

		if (fd >= 0)
			pfd[nfd++] = (struct pollfd){.fd = fd, .events = POLLIN};
	}
	for (;;) {
		int timeout = LIVE_POLL_MS;

		if (end) {
			uint64_t now = mono_ns();

			if (now >= end)
				break;
			if ((end - now) / 1000000 < (uint64_t)timeout)
				timeout = (int)((end - now) / 1000000) + 1;
		}
		if (poll_asleep(l, pfd, nfd, timeout, true) < 0 && errno != EINTR) {
			cli_error(l->o.name, "poll: %s", strerror(errno));
			rc = ARGUS_LIVE_EINTERNAL;
			break;
		}
		bool stop = (pfd[0].revents & POLLIN) && handle_signals(l);
		if (pump(l, s, false)) {
			rc = ARGUS_LIVE_ESINK;
			break;
		}
		if (stop)
			break;
		/* A ring's descriptor stays readable while it holds any record:
		 * let records gather (signals still end the wait) instead of
		 * spinning on a few at a time. */
		if (poll_asleep(l, pfd, 1, LIVE_GATHER_MS, false) > 0 && handle_signals(l)) {
			if (pump(l, s, false))
				rc = ARGUS_LIVE_ESINK;
			break;
		}
	}
	free(pfd);
	/* stop the tracer, then take everything it wrote */
	argus_kext_stop(l->k);
	if (pump(l, s, true) && !rc)
		rc = ARGUS_LIVE_ESINK;
	struct argus_merge_stats ms;
	argus_merge_get_stats(l->merge, &ms);
	l->st.late = ms.late;
	return rc;
}

void argus_live_get_stats(const struct argus_live *l, struct argus_live_stats *st)
{
	*st = l->st;
	st->hook_events = l->hk.events;
	st->hook_drops = l->hk.drops;
	st->ring_shed = l->k ? argus_kext_ring_shed(l->k) : 0;
}

void argus_live_close(struct argus_live *l)
{
	if (!l)
		return;
	if (l->go_fd >= 0) {
		close(l->go_fd); /* a held command sees EOF and exits without running */
		l->go_fd = -1;
	} else if (l->child > 0) {
		kill(l->child, SIGTERM); /* the session ended first: so does the command */
	}
	if (l->child > 0)
		waitpid(l->child, NULL, 0);
	for (unsigned c = 0; l->rings && c < l->nrings; c++)
		argus_ring_close(l->rings[c]);
	hookrings_close(&l->hk);
	free(l->rings);
	argus_merge_free(l->merge);
	argus_kext_close(l->k);
	free(l->buf);
	free(l->rbuf);
	free(l->rn);
	if (l->sigfd >= 0)
		close(l->sigfd);
	sigprocmask(SIG_SETMASK, &l->oldmask, NULL);
	free(l);
}

/* kext/ behind the daemon's source interface */
static int kext_decode(void *arg, struct argus_event *ev, size_t n, const struct argus_sink *sink)
{
	return argus_kext_decode(arg, ev, n, sink);
}

static size_t kext_drops(void *arg, struct argus_event *out, size_t max, uint64_t now_ns)
{
	return argus_kext_drop_records(arg, out, max, now_ns);
}

static void kext_hooked(void *arg, uint32_t pid)
{
	argus_kext_appset_add(arg, (pid_t)pid);
}

static int kext_status(void *arg, char *buf, size_t cap)
{
	struct argus_kext_stats st;
	argus_kext_get_stats(arg, &st);
	return snprintf(buf, cap,
	                "\"ring_drops\":%" PRIu64 ",\"ring_shed\":%" PRIu64 ",\"appset\":%" PRIu64
	                ",\"stack_drops\":%" PRIu64 ",\"ustacks\":%" PRIu64
	                ",\"ustacks_lost\":%" PRIu64 ",\"ustack_ns\":%" PRIu64
	                ",\"nested\":%" PRIu64,
	                st.ring_drops, st.ring_shed, argus_kext_appset_size(arg), st.stack_drops,
	                st.ustacks, st.ustacks_lost, st.ustack_ns, st.prog_misses);
}

/* argus trace-more (docs/daemon.md "Finer tracing on demand"): full stacks
 * for one process; per-call syscall records only as the tracer was loaded
 * (its capture mode cannot change per process, docs/kext.md "Two
 * captures"). */
static int kext_more(void *arg, uint32_t pid, unsigned what, bool on, char *err, size_t ecap)
{
	struct argus_kext *k = arg;
	if (on && (what & ARGUS_MORE_SYSCALLS) && !argus_kext_per_call(k)) {
		snprintf(err, ecap,
		         "per-call syscall records of one process: the kernel tracer cannot capture "
		         "them for one process alone (its capture is chosen when it loads; argus "
		         "start --syscalls captures every process's, and the syscall exit tracepoint "
		         "then slows every task's syscalls)");
		return ARGUS_MORE_ENOSUPPORT;
	}
	if (on && (what & ARGUS_MORE_STACKS) && !argus_kext_samples(k)) {
		snprintf(err, ecap, "full stacks ride on cpu-clock samples, and this daemon takes "
		                    "none (--no-samples)");
		return ARGUS_MORE_ENOSUPPORT;
	}
	if (what & ARGUS_MORE_STACKS) {
		int rc = argus_kext_full_stacks_asked(k, pid, on);
		if (rc) {
			snprintf(err, ecap, "full stacks for pid %u: %s", pid,
			         rc == ARGUS_KEXT_ENOMEM ? "too many processes have them" : "a BPF map "
			                                                                   "update failed");
			return ARGUS_MORE_EREFUSED;
		}
	}
	if (on && (what & ARGUS_MORE_SYSCALLS))
		snprintf(err, ecap, "syscalls: every process's are captured already (argus start "
		                    "--syscalls)");
	return 0;
}

int argus_live_daemon_source(struct argus_daemon *d, const struct argus_kext_opts *ko,
                             struct argus_kext **kp, char *err, size_t ecap)
{
	struct argus_kext *k;
	*kp = NULL;
	int kr = argus_kext_open(&k, ko, err, ecap);
	if (kr)
		return kr;
	*kp = k;
	kr = argus_kext_start(k, err, ecap);
	if (kr)
		return kr;
	for (unsigned c = 0; c < argus_kext_ncpus(k); c++) {
		struct argus_ring *r;
		int e =
		    argus_ring_open_bpf(&r, argus_kext_ring_fd(k, c), c, argus_kext_ring_drops, k);
		if (e || argus_daemon_add_ring(d, r)) {
			snprintf(err, ecap, "cannot read the ring of CPU %u: %s", c, strerror(-e));
			return ARGUS_LIVE_EINTERNAL;
		}
	}
	struct argus_daemon_source src = {
	    .decode = kext_decode,
	    .drop_records = kext_drops,
	    .hooked = kext_hooked,
	    .status = kext_status,
	    .more = kext_more,
	    .arg = k};
	argus_daemon_set_source(d, &src);
	return 0;
}
