/*
 * builtin-record.c - `argus record`: trace the machine (or a command and its
 * children) with the eBPF tracer into an .argus file. Also the live session
 * (live.h) `argus stream` shares: kext -> per-CPU rings -> merge -> decode
 * -> sink.
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

#include "cli.h"
#include "live.h"
#include "ringbuf.h"
#include "stream.h"

#define LIVE_BATCH        4096
#define LIVE_POLL_MS      50           /* rings are read at least this often */
#define LIVE_GATHER_MS    10           /* ... and at most this often */
#define LIVE_MAX_DELAY_NS 100000000ull /* merge watermark: a quiet CPU holds 100 ms */
#define RECORD_ZSTD_LEVEL 1

struct live {
	struct live_opts o;
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
	struct live_stats st;
	uint64_t last_ts;
	bool rt; /* the reader runs SCHED_FIFO right now */
};

static void set_priority(struct live *l, bool rt);

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int live_parse_common(struct live_opts *o, int argc, char **argv, int *i, pid_t *pids,
                      size_t max_pids)
{
	const char *a = argv[*i], *name = o->name;
	const char *val = *i + 1 < argc ? argv[*i + 1] : NULL;
	uint64_t v;

#define NEED_VALUE()                                                                               \
	do {                                                                                       \
		if (!val) {                                                                        \
			cli_error(name, "%s needs a value", a);                                    \
			return ARGUS_EXIT_USAGE;                                                   \
		}                                                                                  \
		++*i;                                                                              \
	} while (0)

	if (!strcmp(a, "--pid") || !strcmp(a, "-p")) {
		NEED_VALUE();
		if (!cli_parse_u64(val, 1, 4194304, &v)) {
			cli_error(name, "--pid %s: not a process id", val);
			return ARGUS_EXIT_USAGE;
		}
		if (kill((pid_t)v, 0) != 0 && errno == ESRCH) {
			cli_error(name, "--pid %s: no such process", val);
			return ARGUS_EXIT_USAGE;
		}
		if (o->kext.npids == max_pids) {
			cli_error(name, "at most %zu --pid options", max_pids);
			return ARGUS_EXIT_USAGE;
		}
		pids[o->kext.npids++] = (pid_t)v;
		o->kext.pids = pids;
	} else if (!strcmp(a, "--all") || !strcmp(a, "-a")) {
		/* system-wide is the default */
	} else if (!strcmp(a, "--comm")) {
		NEED_VALUE();
		o->kext.comm = val;
	} else if (!strcmp(a, "--cgroup")) {
		NEED_VALUE();
		o->kext.cgroup = val;
	} else if (!strcmp(a, "--duration") || !strcmp(a, "-d")) {
		NEED_VALUE();
		if (!cli_parse_duration(val, &o->duration_ns) || o->duration_ns == 0) {
			cli_error(name, "--duration %s: not a duration (e.g. 10s, 500ms)", val);
			return ARGUS_EXIT_USAGE;
		}
	} else if (!strcmp(a, "--ring-size")) {
		NEED_VALUE();
		if (!cli_parse_size(val, &v) || v < 4096 || v > (1u << 30) || (v & (v - 1))) {
			cli_error(name, "--ring-size %s: a power of two from 4k to 1G", val);
			return ARGUS_EXIT_USAGE;
		}
		o->kext.ring_bytes = (uint32_t)v;
	} else if (!strcmp(a, "--no-samples")) {
		o->kext.no_samples = true;
	} else if (!strcmp(a, "--no-irqs")) {
		o->kext.no_irqs = true;
	} else if (!strcmp(a, "--no-rt")) {
		o->no_rt = true;
	} else if (!strcmp(a, "--no-recv-enter")) {
		o->kext.no_recv_enter = true;
	} else if (!strcmp(a, "--")) {
		if (*i + 1 >= argc) {
			cli_error(name, "-- needs a command");
			return ARGUS_EXIT_USAGE;
		}
		o->cmd = &argv[*i + 1];
		*i = argc - 1;
	} else {
		return -1;
	}
	return 0;
#undef NEED_VALUE
}

int live_kext_exit(int status)
{
	switch (status) {
	case ARGUS_KEXT_EPRIV:
		return ARGUS_EXIT_PRIV;
	case ARGUS_KEXT_ENOSUPPORT:
		return ARGUS_EXIT_NOSUPPORT;
	case ARGUS_KEXT_EINVAL:
		return ARGUS_EXIT_USAGE;
	default:
		return ARGUS_EXIT_INTERNAL;
	}
}

/* The command waits on a pipe until its pid is in the filter, then execs. */
static int spawn_held(struct live *l)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC)) {
		cli_error(l->o.name, "pipe: %s", strerror(errno));
		return ARGUS_EXIT_INTERNAL;
	}
	l->child = fork();
	if (l->child < 0) {
		cli_error(l->o.name, "fork: %s", strerror(errno));
		return ARGUS_EXIT_INTERNAL;
	}
	if (l->child == 0) {
		char b;

		sigprocmask(SIG_SETMASK, &l->oldmask, NULL);
		close(p[1]);
		if (read(p[0], &b, 1) != 1)
			_exit(127); /* argus gave up: do not run untraced */
		execvp(l->o.cmd[0], l->o.cmd);
		fprintf(stderr, "argus %s: cannot run %s: %s\n", l->o.name, l->o.cmd[0],
		        strerror(errno));
		_exit(127);
	}
	close(p[0]);
	l->go_fd = p[1];
	return 0;
}

int live_open(struct live **lp, const struct live_opts *o)
{
	struct live *l = calloc(1, sizeof(*l));
	char err[512];
	sigset_t mask;
	int rc;

	*lp = NULL;
	if (!l) {
		cli_error(o->name, "out of memory");
		return ARGUS_EXIT_INTERNAL;
	}
	l->o = *o;
	l->sigfd = -1;
	l->go_fd = -1;
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
		rc = ARGUS_EXIT_INTERNAL;
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
		rc = live_kext_exit(rc);
		goto fail;
	}
	l->nrings = argus_kext_ncpus(l->k);
	l->rings = calloc(l->nrings, sizeof(*l->rings));
	if (!l->rings || argus_merge_new(&l->merge, l->nrings, LIVE_MAX_DELAY_NS)) {
		cli_error(o->name, "out of memory");
		rc = ARGUS_EXIT_INTERNAL;
		goto fail;
	}
	for (unsigned c = 0; c < l->nrings; c++) {
		rc = argus_ring_open_bpf(&l->rings[c], argus_kext_ring_fd(l->k, c), c,
		                         argus_kext_ring_drops, l->k);
		if (rc) {
			cli_error(o->name, "cannot read the ring of CPU %u: %s", c, strerror(-rc));
			rc = ARGUS_EXIT_INTERNAL;
			goto fail;
		}
	}
	if (l->go_fd >= 0) {
		if (write(l->go_fd, "g", 1) != 1) {
			cli_error(o->name, "cannot start %s: %s", o->cmd[0], strerror(errno));
			rc = ARGUS_EXIT_INTERNAL;
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
	live_close(l);
	return rc;
}

/* Decode and hand a batch to the sink, in stream order. */
static int deliver(struct live *l, struct argus_event *ev, size_t n, const struct argus_sink *s)
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

/* Losses become DROP records at the stream's current position (with the
 * records the tracer still held when it stopped). */
static int deliver_drops(struct live *l, const struct argus_sink *s)
{
	struct argus_event d[64];
	size_t n = argus_kext_drop_records(l->k, d, 64, l->last_ts ? l->last_ts : mono_ns());

	for (size_t i = 0; i < n; i++) {
		if (d[i].type != ARGUS_EV_DROP)
			continue; /* a record the tracer still held at its stop */
		if (d[i].drop.source == ARGUS_DROP_KERNEL_RING)
			l->st.ring_drops += d[i].drop.count;
		else
			l->st.stack_drops += d[i].drop.count;
	}
	return deliver(l, d, n, s);
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
static void set_priority(struct live *l, bool rt)
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
static int poll_asleep(struct live *l, struct pollfd *pfd, unsigned nfd, int timeout, bool then_rt)
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
static int read_rings(struct live *l, const struct argus_sink *s, uint64_t now)
{
	bool more = true;

	if (!l->rbuf) {
		l->rbuf = malloc((size_t)l->nrings * LIVE_BATCH * sizeof(*l->rbuf));
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
	}
	return 0;
}

static int pump(struct live *l, const struct argus_sink *s, bool final)
{
	uint64_t now = mono_ns();
	size_t n;

	if (read_rings(l, s, now))
		return -1;
	while ((n = final ? argus_merge_drain(l->merge, l->buf, LIVE_BATCH)
	                  : argus_merge_pop(l->merge, l->buf, LIVE_BATCH, now)) > 0) {
		if (deliver(l, l->buf, n, s))
			return -1;
	}
	return deliver_drops(l, s);
}

/* true when the loop should end */
static bool handle_signals(struct live *l)
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

int live_run(struct live *l, const struct argus_sink *s)
{
	struct pollfd *pfd = calloc(l->nrings + 1, sizeof(*pfd));
	uint64_t end = l->o.duration_ns ? mono_ns() + l->o.duration_ns : 0;
	unsigned nfd = 0;
	int rc = 0;

	if (!pfd) {
		cli_error(l->o.name, "out of memory");
		return ARGUS_EXIT_INTERNAL;
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
			rc = ARGUS_EXIT_INTERNAL;
			break;
		}
		bool stop = (pfd[0].revents & POLLIN) && handle_signals(l);
		if (pump(l, s, false)) {
			rc = ARGUS_EXIT_IO;
			break;
		}
		if (stop)
			break;
		/* A ring's descriptor stays readable while it holds any record:
		 * let records gather (signals still end the wait) instead of
		 * spinning on a few at a time. */
		if (poll_asleep(l, pfd, 1, LIVE_GATHER_MS, false) > 0 && handle_signals(l)) {
			if (pump(l, s, false))
				rc = ARGUS_EXIT_IO;
			break;
		}
	}
	free(pfd);
	/* stop the tracer, then take everything it wrote */
	argus_kext_stop(l->k);
	if (pump(l, s, true) && !rc)
		rc = ARGUS_EXIT_IO;
	struct argus_merge_stats ms;
	argus_merge_get_stats(l->merge, &ms);
	l->st.late = ms.late;
	return rc;
}

void live_get_stats(const struct live *l, struct live_stats *st)
{
	*st = l->st;
}

void live_close(struct live *l)
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

/* ---- argus record ---------------------------------------------------------- */
static void record_usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: argus record -o FILE [--duration S] [--pid P... | --all] [--comm NAME]\n"
	    "                    [--cgroup DIR] [--ring-size SIZE] [--no-samples] [--no-irqs]\n"
	    "                    [--no-recv-enter] [--no-rt] [--ready-fd FD] [-- CMD ARGS...]\n\n"
	    "Trace the machine (default), some processes and their children, or CMD and its\n"
	    "children, into an .argus trace until SIGINT/SIGTERM, --duration or CMD's exit.\n"
	    "Needs root or CAP_BPF + CAP_PERFMON. What is captured: docs/kext.md.\n");
}

int cmd_record(int argc, char **argv)
{
	struct live_opts o = {.name = "record"};
	const char *out = NULL;
	pid_t pids[64];
	int rc;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			record_usage(stdout);
			return ARGUS_EXIT_OK;
		}
		if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) {
			if (i + 1 >= argc) {
				cli_error("record", "-o needs a file name");
				return ARGUS_EXIT_USAGE;
			}
			out = argv[++i];
			continue;
		}
		if (!strcmp(argv[i], "--ready-fd")) {
			uint64_t fd;

			if (i + 1 >= argc || !cli_parse_u64(argv[i + 1], 3, 65535, &fd)) {
				cli_error("record", "--ready-fd needs a descriptor number >= 3");
				return ARGUS_EXIT_USAGE;
			}
			o.ready_fd = (int)fd;
			i++;
			continue;
		}
		rc = live_parse_common(&o, argc, argv, &i, pids, 64);
		if (rc > 0)
			return rc;
		if (rc < 0) {
			cli_error("record", "unknown option '%s' (see argus record --help)",
			          argv[i]);
			return ARGUS_EXIT_USAGE;
		}
	}
	if (!out) {
		cli_error("record", "-o FILE is required (see argus record --help)");
		return ARGUS_EXIT_USAGE;
	}
	if (o.cmd && o.kext.npids) {
		cli_error("record", "--pid and a command exclude each other");
		return ARGUS_EXIT_USAGE;
	}

	struct argus_trace_meta meta;
	struct argus_trace_writer *w;
	struct argus_trace_error terr;
	argus_trace_meta_init(&meta, "argus record");
	/* zstd level 1: compression is the reader's largest cost (a third or
	 * more of its time on a busy machine), and on scheduler-heavy traces
	 * level 1 is ~25 % faster than 3 and compresses as well (~4.5 bytes a
	 * record) */
	struct argus_trace_writer_opts wo = {.zstd_level = RECORD_ZSTD_LEVEL};
	if (argus_trace_writer_open(&w, out, &meta, &wo, &terr)) {
		cli_error("record", "%s", terr.msg);
		return ARGUS_EXIT_IO;
	}
	struct live *l;
	rc = live_open(&l, &o);
	if (rc) {
		argus_trace_writer_close(w, &terr);
		unlink(out); /* nothing was recorded */
		return rc;
	}
	struct argus_sink sink = argus_trace_writer_sink(w);
	rc = live_run(l, &sink);
	struct live_stats st;
	live_get_stats(l, &st);
	live_close(l);
	if (argus_trace_writer_close(w, &terr)) {
		cli_error("record", "%s", terr.msg);
		return ARGUS_EXIT_IO;
	}
	fprintf(stderr,
	        "argus record: %llu records to %s; lost: %llu (kernel rings), %llu stacks; "
	        "late: %llu\n",
	        (unsigned long long)st.events, out, (unsigned long long)st.ring_drops,
	        (unsigned long long)st.stack_drops, (unsigned long long)st.late);
	return rc;
}
