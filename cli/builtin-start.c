/*
 * builtin-start.c - `argus start`: the always-on daemon (docs/daemon.md).
 * Loads the kernel tracer (the session's live source as the daemon's), runs
 * the stream daemon (stream/) with a diagnosis session as its sink
 * (session/daemon.c) until `argus stop`, SIGINT or SIGTERM.
 */
#include <errno.h>
#include <grp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "debug_priv.h"
#include "issues.h"
#include "session.h"
#include "stream.h"

/* The issue store on the daemon's session (docs/issues.md): a store that
 * cannot be opened is said in one line, and the daemon runs without it. */
struct store {
	const char *path;   /* NULL = ARGUS_ISSUES_DB, "" = none */
	uint64_t max_bytes; /* its size cap; 0 = ARGUS_ISSUES_MAX_BYTES */
	bool max_set;
	struct argus_issues *db;
	struct argus_issue_sink *sink;
};

static int attach_store(void *arg, struct argus_session *s, char *err, size_t ecap)
{
	struct store *st = arg;
	char e[1024], host[64] = "", key[160];
	struct timespec rt, mono;
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	uint64_t real = (uint64_t)rt.tv_sec * 1000000000ull + (uint64_t)rt.tv_nsec;
	uint64_t mon = (uint64_t)mono.tv_sec * 1000000000ull + (uint64_t)mono.tv_nsec;
	gethostname(host, sizeof(host) - 1);
	snprintf(key, sizeof(key), "daemon:%s:%d:%llu", host, (int)getpid(),
	         (unsigned long long)real);
	struct argus_issues_session ss = {
	    .key = key, .kind = "daemon", .source = "live", .host = host, .started = real};
	int64_t sid = 0;
	int r = argus_issues_open(&st->db, st->path, false, e, sizeof(e));
	if (!r && st->max_set)
		argus_issues_set_max_bytes(st->db, st->max_bytes);
	if (!r && (r = argus_issues_add_session(st->db, &ss, &sid, e, sizeof(e))) > 0)
		r = 0;
	struct argus_issue_sink_opts o = {.db = st->db,
	                                  .session = sid,
	                                  .real_offset = (int64_t)real - (int64_t)mon,
	                                  .name = "start",
	                                  .live = true};
	if (!r && (r = argus_issue_sink_new(&st->sink, s, &o, e, sizeof(e))) == 0)
		return 0;
	cli_error("start", "issue store: %s (lags are not kept; argus goes on)", e);
	argus_issues_close(st->db);
	st->db = NULL;
	(void)err, (void)ecap;
	return 0;
}

/* The kernel tracer as the session's thread reaches it: set once loaded,
 * taken back under the lock before it is closed (that thread may still be
 * draining its queue then). */
struct kext_ref {
	pthread_mutex_t mu;
	struct argus_kext *k;
};

/* Session's thread: an app the trigger learned of gets full stacks. */
static void full_stacks_for_app(void *arg, uint32_t pid)
{
	struct kext_ref *r = arg;
	pthread_mutex_lock(&r->mu);
	if (r->k && argus_kext_full_stacks(r->k, pid, true))
		fprintf(stderr, "argus start: no full stacks for pid %u (too many processes)\n",
		        pid);
	pthread_mutex_unlock(&r->mu);
}

/* Session's thread: yields watched while a UI thread leaves an episode
 * unanswered (argus_session_opts.yields). */
static void watch_yields(void *arg, bool on)
{
	struct kext_ref *r = arg;
	pthread_mutex_lock(&r->mu);
	if (r->k && argus_kext_watch_yields(r->k, on))
		fprintf(stderr, "argus start: cannot %s watching yields\n", on ? "start" : "stop");
	pthread_mutex_unlock(&r->mu);
}

/* The system's rules file (docs/debug.md "Rules"), looked at again about
 * once a second from the diagnosis thread: when it changed (its inode, size
 * or time), it is read again and the graph takes its rules; a malformed file
 * is said in one line and the rules before it are kept. Two sets: the graph
 * points into the one in use while the other is read. */
struct rules_watch {
	const char *path;
	struct dbg_rules set[2];
	struct argus_graph_opts g[2];
	int cur;
	struct stat st; /* as last read; st_ino 0 = no file */
};

static void rules_stat(const char *path, struct stat *st)
{
	if (stat(path, st))
		memset(st, 0, sizeof(*st));
}

static bool rules_changed(void *arg, const char *const **batch, const char *const **ignore)
{
	struct rules_watch *w = arg;
	struct stat now;
	rules_stat(w->path, &now);
	if (now.st_ino == w->st.st_ino && now.st_dev == w->st.st_dev &&
	    now.st_size == w->st.st_size && now.st_mtim.tv_sec == w->st.st_mtim.tv_sec &&
	    now.st_mtim.tv_nsec == w->st.st_mtim.tv_nsec)
		return false;
	w->st = now;
	int next = !w->cur;
	char err[4200];
	memset(&w->set[next], 0, sizeof(w->set[next]));
	memset(&w->g[next], 0, sizeof(w->g[next]));
	if (dbg_rules_load(&w->set[next], w->path, err, sizeof(err))) {
		cli_error("start", "%s (the rules before it are kept)", err);
		return false;
	}
	dbg_rules_apply(&w->set[next], &w->g[next]);
	w->cur = next;
	*batch = w->g[next].user_batch_comms;
	*ignore = w->g[next].ignore_wake_comms;
	fprintf(stderr, "argus start: rules %s read again: %zu rule%s\n", w->path, w->set[next].n,
	        w->set[next].n == 1 ? "" : "s");
	return true;
}

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: argus start [options]\n"
	    "  run the argus daemon in the foreground (systemd: stream/argus.service)\n"
	    "  --run-dir DIR       sockets (default " ARGUS_RUN_DIR ")\n"
	    "  --recorder DIR      flight recorder (default " ARGUS_REC_DIR ")\n"
	    "  --no-recorder       no flight recorder\n"
	    "  --hooks-dir DIR     socket hooked applications get rings from\n"
	    "                      (default /run/argus-hooks; \"\" = none)\n"
	    "  --keep DURATION     recorder span (default 5m)\n"
	    "  --keep-bytes SIZE   recorder size bound (default 2G); the lesser wins\n"
	    "  --chunk DURATION    event time per recorder chunk file (default 10s)\n"
	    "  --group NAME        this group may also use the sockets and read the recorder\n"
	    "  --max-delay DUR     how long a quiet CPU may hold the stream back (default 50ms)\n"
	    "  --client-queue SIZE per JSON client queue (default 8M)\n"
	    "  --ring-size SIZE    kernel ring per CPU (default 4M)\n"
	    "  --no-kernel         no eBPF tracer (hook rings only)\n"
	    "  --no-samples, --no-irqs  leave those records out\n"
	    "  --no-full-stacks    apps' samples without full stacks (by default they\n"
	    "                      copy registers and 8 KiB of stack, unwound with the\n"
	    "                      binaries' CFI; docs/kext.md)\n"
	    "  --no-shed           a filling kernel ring loses anyone's records (default:\n"
	    "                      past half, those outside the app set; docs/kext.md)\n"
	    "  --syscalls          per-call capture on the syscall exit tracepoint (every\n"
	    "                      syscall of every task pays for it; docs/kext.md)\n"
	    "  --meter             time the tracing programs per process (benchmarks:\n"
	    "                      argus bench overhead --meter; docs/kext.md)\n"
	    "  --no-rt             the ring reader at normal priority (default: nice -20\n"
	    "                      asleep, SCHED_FIFO awake); the diagnosis stays at nice -20\n"
	    "  --no-diagnose       no stall detection and diagnosis\n"
	    "  --reports DIR       diagnosis reports (default " ARGUS_REPORTS_DIR ";\n"
	    "                      \"\" = none)\n"
	    "  --user-reports DIR  the copies an app's owner (not root) may open, other users'\n"
	    "                      frames redacted: DIR/UID/ (default " ARGUS_USER_REPORTS_DIR ",\n"
	    "                      or REPORTS-users with --reports; \"\" = none)\n"
	    "  --notify-bus ADDR   send notifications to this D-Bus address (default: the\n"
	    "                      session bus of the stalled app's user)\n"
	    "  --no-notify         no desktop notifications\n"
	    "  --stall DURATION    stall threshold (default 2s)\n"
	    "  user rules: " DBG_SYSTEM_RULES " (docs/debug.md; malformed: exit 11)\n"
	    "  --issues-db PATH    the issue store every lag and stall goes to (default\n"
	    "                      " ARGUS_ISSUES_DB "; \"\" = none; docs/issues.md)\n"
	    "  --issues-max SIZE   its size cap (default 256M; 0 = none): past it the issues\n"
	    "                      last seen longest ago are dropped, and counted\n");
}

int cmd_start(int argc, char **argv)
{
	struct argus_daemon_opts o = {.group = -1};
	struct argus_kext_opts ko = {0};
	bool no_kernel = false, no_diagnose = false, no_full_stacks = false;
	struct argus_daemon_diag_opts so = {0};
	struct store store = {0};
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "--notifier")) {
		/* internal: the daemon starts one per user session (docs/daemon.md)
		 * with the bus address and a socket on standard input, one
		 * notification a line, in a session of its own; it answers their
		 * "Open report" actions. Its session's group as the daemon's (a
		 * storm left a nice-0 notifier 1.2 s from its start to the
		 * desktop), then as the app's owner (UID:GID) when given. */
		char err[256];
		(void)argus_worker_group_nice(-20);
		if (argc == 4) {
			unsigned uid, gid;
			char end;
			if (sscanf(argv[3], "%u:%u%c", &uid, &gid, &end) != 2) {
				cli_error("start", "notifier: %s is not UID:GID", argv[3]);
				return ARGUS_EXIT_USAGE;
			}
			gid_t g = (gid_t)gid;
			if (setgroups(1, &g) || setresgid(g, g, g) || setresuid(uid, uid, uid)) {
				cli_error("start", "notifier: cannot become %u:%u: %s", uid, gid,
				          strerror(errno));
				return ARGUS_EXIT_PRIV;
			}
		}
		setenv("DBUS_SESSION_BUS_ADDRESS", argv[2], 1);
		const char *opener = getenv("ARGUS_OPEN");
		if (argus_notifier_run(0, 600, opener, err, sizeof(err)) < 0) {
			cli_error("start", "notifier: %s", err);
			return ARGUS_EXIT_IO;
		}
		return ARGUS_EXIT_OK;
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		uint64_t x;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return ARGUS_EXIT_OK;
		} else if (!strcmp(a, "--no-recorder")) {
			o.rec_dir = "";
		} else if (!strcmp(a, "--no-diagnose")) {
			no_diagnose = true;
		} else if (!strcmp(a, "--no-notify")) {
			so.no_notify = true;
		} else if (!strcmp(a, "--no-kernel")) {
			no_kernel = true;
		} else if (!strcmp(a, "--full-stacks")) {
			no_full_stacks = false;
		} else if (!strcmp(a, "--no-full-stacks")) {
			no_full_stacks = true;
		} else if (!strcmp(a, "--no-shed")) {
			ko.no_shed = true;
		} else if (!strcmp(a, "--no-samples")) {
			ko.no_samples = true;
		} else if (!strcmp(a, "--no-irqs")) {
			ko.no_irqs = true;
		} else if (!strcmp(a, "--syscalls")) {
			ko.syscalls = true;
		} else if (!strcmp(a, "--meter")) {
			ko.meter = true;
		} else if (!strcmp(a, "--no-rt")) {
			o.no_rt = true;
		} else if (!v) {
			cli_error("start", "unknown or incomplete option '%s' (see --help)", a);
			return ARGUS_EXIT_USAGE;
		} else if (!strcmp(a, "--run-dir")) {
			o.run_dir = v, i++;
		} else if (!strcmp(a, "--recorder")) {
			o.rec_dir = v, i++;
		} else if (!strcmp(a, "--reports")) {
			so.reports_dir = v, i++;
		} else if (!strcmp(a, "--user-reports")) {
			so.user_reports_dir = v, i++;
		} else if (!strcmp(a, "--issues-db")) {
			store.path = v, i++;
		} else if (!strcmp(a, "--issues-max")) {
			if (!cli_parse_size(v, &store.max_bytes)) {
				cli_error("start", "--issues-max: bad size '%s'", v);
				return ARGUS_EXIT_USAGE;
			}
			store.max_set = true, i++;
		} else if (!strcmp(a, "--notify-bus")) {
			so.notify_bus = v, i++;
		} else if (!strcmp(a, "--stall")) {
			if (!cli_parse_duration(v, &x) || !x) {
				cli_error("start", "--stall: bad duration '%s'", v);
				return ARGUS_EXIT_USAGE;
			}
			so.stall_ns = x, i++;
		} else if (!strcmp(a, "--hooks-dir")) {
			o.hooks_dir = v, i++;
		} else if (!strcmp(a, "--group")) {
			struct group *g = getgrnam(v);
			if (!g) {
				cli_error("start", "--group: no group named '%s'", v);
				return ARGUS_EXIT_USAGE;
			}
			o.group = (long)g->gr_gid, i++;
			so.group_set = true;
			so.group = g->gr_gid;
		} else if (!strcmp(a, "--keep") || !strcmp(a, "--chunk") ||
		           !strcmp(a, "--max-delay")) {
			if (!cli_parse_duration(v, &x) || !x) {
				cli_error("start", "%s: bad duration '%s'", a, v);
				return ARGUS_EXIT_USAGE;
			}
			if (!strcmp(a, "--keep"))
				o.rec_span_ns = x;
			else if (!strcmp(a, "--chunk"))
				o.chunk_span_ns = x;
			else
				o.max_delay_ns = x;
			i++;
		} else if (!strcmp(a, "--keep-bytes") || !strcmp(a, "--client-queue") ||
		           !strcmp(a, "--ring-size")) {
			if (!cli_parse_size(v, &x) || !x) {
				cli_error("start", "%s: bad size '%s'", a, v);
				return ARGUS_EXIT_USAGE;
			}
			if (!strcmp(a, "--keep-bytes"))
				o.rec_bytes = x;
			else if (!strcmp(a, "--client-queue"))
				o.client_queue_bytes = x;
			else if (x > (1u << 30) || (x & (x - 1))) {
				cli_error("start", "--ring-size must be a power of two up to 1G");
				return ARGUS_EXIT_USAGE;
			} else
				ko.ring_bytes = (uint32_t)x;
			i++;
		} else {
			cli_error("start", "unknown option '%s' (see --help)", a);
			return ARGUS_EXIT_USAGE;
		}
	}
	/* the system's user rules (docs/debug.md "Rules"): a malformed file
	 * stops the start, before anything is loaded; a change later is read
	 * again while the daemon runs */
	struct rules_watch rw = {0}; /* the diagnosis thread's while it runs */
	const char *sys = getenv("ARGUS_SYSTEM_RULES");
	rw.path = sys && *sys ? sys : DBG_SYSTEM_RULES;
	char rerr[4200];
	rules_stat(rw.path, &rw.st);
	int rrc = dbg_rules_load(&rw.set[0], rw.path, rerr, sizeof(rerr));
	if (rrc) {
		cli_error("start", "%s", rerr);
		return rrc;
	}
	dbg_rules_apply(&rw.set[0], &rw.g[0]);
	so.user_batch_comms = rw.g[0].user_batch_comms;
	so.ignore_wake_comms = rw.g[0].ignore_wake_comms;
	so.rules_changed = rules_changed;
	so.rules_arg = &rw;
	if (geteuid() != 0) {
		cli_error("start", "the daemon runs as root (it loads eBPF programs and owns %s)",
		          o.run_dir ? o.run_dir : ARGUS_RUN_DIR);
		return ARGUS_EXIT_PRIV;
	}
	char err[512];
	struct argus_daemon *d;
	if (argus_daemon_new(&d, &o, err, sizeof(err))) {
		cli_error("start", "%s", err);
		return ARGUS_EXIT_INTERNAL;
	}
	struct argus_kext *k = NULL;
	struct kext_ref kref = {.mu = PTHREAD_MUTEX_INITIALIZER};
	struct argus_daemon_diag *sd = NULL;
	int rc = ARGUS_EXIT_OK;
	/* apps get full stacks (kref.k is set before any record reaches the
	 * session) */
	if (!no_kernel && !no_full_stacks) {
		so.app = full_stacks_for_app;
		so.app_arg = &kref;
	}
	/* the end of schedule() traced only while the diagnosis waits on a UI
	 * thread (argus_kext_watch_yields); without a diagnosis, always */
	if (!no_kernel && !no_diagnose) {
		ko.yields_on_demand = true;
		so.yields = watch_yields;
		so.yields_arg = &kref;
	}
	if (!store.path || store.path[0]) {
		so.attach = attach_store;
		so.attach_arg = &store;
	}
	if (!no_diagnose && argus_daemon_diag_attach(&sd, d, &so, err, sizeof(err))) {
		cli_error("start", "%s", err);
		rc = ARGUS_EXIT_IO;
		goto out;
	}
	if (!no_kernel) {
		int kr = argus_live_daemon_source(d, &ko, &k, err, sizeof(err));
		if (kr) {
			cli_error("start", "%s", err);
			rc = cli_live_exit(kr);
			goto out;
		}
		pthread_mutex_lock(&kref.mu);
		kref.k = k;
		pthread_mutex_unlock(&kref.mu);
	}
	fprintf(stderr, "argus start: daemon running (pid %d), sockets in %s\n", (int)getpid(),
	        o.run_dir ? o.run_dir : ARGUS_RUN_DIR);
	if (argus_daemon_run(d, err, sizeof(err))) {
		cli_error("start", "%s", err);
		rc = ARGUS_EXIT_IO;
	}
out:
	argus_daemon_free(d); /* rings first: they read kext's maps */
	struct argus_kext_stats ks;
	if (k) {
		argus_kext_get_stats(k, &ks);
		fprintf(stderr,
		        "argus start: lost: %llu (kernel rings; %llu of them shed outside the app "
		        "set), %llu stacks, %llu program runs skipped (nested)\n",
		        (unsigned long long)ks.ring_drops, (unsigned long long)ks.ring_shed,
		        (unsigned long long)ks.stack_drops, (unsigned long long)ks.prog_misses);
	}
	if (k && !no_full_stacks)
		fprintf(stderr,
		        "argus start: full stacks: %llu sample(s) unwound, %llu lost, %.1f ms"
		        " reading back and unwinding (%.1f us each)\n",
		        (unsigned long long)ks.ustacks, (unsigned long long)ks.ustacks_lost,
		        (double)ks.ustack_ns / 1e6,
		        ks.ustacks ? (double)ks.ustack_ns / 1e3 / (double)ks.ustacks : 0.0);
	pthread_mutex_lock(&kref.mu);
	kref.k = NULL;
	pthread_mutex_unlock(&kref.mu);
	argus_kext_close(k);
	if (sd)
		argus_daemon_diag_summary(sd);
	argus_daemon_diag_free(sd); /* the session, then its sinks */
	if (store.sink) {
		struct argus_issue_sink_stats is;
		argus_issue_sink_get_stats(store.sink, &is);
		fprintf(stderr,
		        "argus start: issue store %s: %llu lag(s), %llu stall(s), %llu hooked"
		        " handler(s) kept, %llu not written\n",
		        argus_issues_path(store.db), (unsigned long long)is.lags,
		        (unsigned long long)is.stalls, (unsigned long long)is.handlers,
		        (unsigned long long)is.errors);
	}
	argus_issue_sink_free(store.sink);
	argus_issues_close(store.db);
	if (rc == ARGUS_EXIT_OK)
		fprintf(stderr, "argus start: stopped cleanly\n");
	return rc;
}
