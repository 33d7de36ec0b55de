/*
 * notifiers.c - the report sink's desktop notifications (reports.c): one
 * notifier process per user session bus, started as the app's owner, fed
 * one line per notification (docs/daemon.md, "Notifications").
 */
#include <errno.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "reports_priv.h"

/* A value of the stalled process's environment ("" when absent). */
static void proc_env(uint32_t pid, const char *name, char *out, size_t cap)
{
	char path[64];
	out[0] = 0;
	snprintf(path, sizeof(path), "/proc/%u/environ", pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	static const size_t max = 1 << 20; /* environments are small */
	char *buf = malloc(max);
	size_t n = buf ? fread(buf, 1, max - 1, f) : 0;
	fclose(f);
	if (!buf)
		return;
	buf[n] = 0;
	size_t nl = strlen(name);
	for (size_t i = 0; i < n; i += strlen(buf + i) + 1)
		if (!strncmp(buf + i, name, nl) && buf[i + nl] == '=') {
			snprintf(out, cap, "%s", buf + i + nl + 1);
			break;
		}
	free(buf);
}

/* Real uid / gid of a process; false when it is gone. */
static bool proc_owner(uint32_t pid, uid_t *uid, gid_t *gid)
{
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/%u/status", pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	int got = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long v;
		if (sscanf(line, "Uid: %lu", &v) == 1)
			*uid = (uid_t)v, got |= 1;
		else if (sscanf(line, "Gid: %lu", &v) == 1)
			*gid = (gid_t)v, got |= 2;
	}
	fclose(f);
	return got == 3;
}

/* Who owns pid: the test's callback, else /proc. */
bool report_owner_of(const struct argus_report_sink_opts *o, uint32_t pid, uid_t *uid, gid_t *gid)
{
	if (o->owner)
		return o->owner(o->owner_arg, pid, uid, gid);
	return proc_owner(pid, uid, gid);
}

/*
 * The notifications go out from one notifier per user session: a child of
 * the daemon (`argus start --notifier`, a fresh single-threaded process for
 * GIO) that takes the app owner's uid / gid (a session bus accepts only its
 * own user), connects to the bus and serves every notification of that bus
 * - sending it, its fallback window when the bus is late, answering its
 * "Open report" action - from lines the daemon writes on a socket
 * (argus_notifier_run, beam/notify.c): a slow bus costs the notifier, never
 * the daemon. The bus: --notify-bus, else the app's DBUS_SESSION_BUS_ADDRESS,
 * else /run/user/UID/bus, else the daemon's own; with none, no notification
 * (the report and the stream still have it). The display: the app's DISPLAY
 * (and XAUTHORITY), else the daemon's. A notifier that ended (all answered,
 * idle 10 minutes) is reaped and started again for its bus's next one.
 */

/* Reap the notifiers that ended; close a dead one's socket. */
static void reap_notifiers(struct notifier_set *ns)
{
	for (unsigned i = 0; i < NOTIFIERS; i++) {
		struct notifier *n = &ns->nf[i];
		if (n->pid > 0 && waitpid(n->pid, NULL, WNOHANG) == n->pid) {
			if (n->fd >= 0)
				close(n->fd);
			memset(n, 0, sizeof(*n));
		}
	}
}

/* A line to a notifier, keyed by the stall (its final diagnosis replaces
 * the first notification), with the app's X display and Xauthority file;
 * false when it is gone (its socket closed). */
static bool notifier_send(struct notifier *n, const char *body, const char *report, uint64_t key,
                          const char *display, const char *xauth)
{
	char line[3072];
	int len = snprintf(line, sizeof(line), "%s%c%s%c%" PRIu64 "%c%s%c%s\n", body,
	                   ARGUS_NOTIFY_SEP, report, ARGUS_NOTIFY_SEP, key, ARGUS_NOTIFY_SEP,
	                   display, ARGUS_NOTIFY_SEP, xauth);
	if (len < 0 || (size_t)len >= sizeof(line))
		return false;
	for (char *p = line; p < line + len - 1; p++)
		if (*p == '\n')
			*p = ' '; /* one notification, one line */
	return send(n->fd, line, (size_t)len, MSG_NOSIGNAL | MSG_DONTWAIT) == len;
}

/* Start the notifier of bus as the app's owner; NULL when it cannot run. */
static struct notifier *notifier_start(struct notifier_set *ns,
                                       const struct argus_report_sink_opts *o, const char *bus,
                                       bool owner, uid_t uid, gid_t gid)
{
	struct notifier *n = NULL;
	for (unsigned i = 0; i < NOTIFIERS && !n; i++)
		if (!ns->nf[i].pid)
			n = &ns->nf[i];
	if (!n) {
		/* every slot taken: the oldest one's socket is closed (it answers
		 * what it has, then ends) to make room */
		n = &ns->nf[ns->next++ % NOTIFIERS];
		if (n->fd >= 0)
			close(n->fd);
		memset(n, 0, sizeof(*n));
	}
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		fprintf(stderr, "argus %s: cannot start the notifier: %s\n", o->name,
		        strerror(errno));
		return NULL;
	}
	/* posix_spawn, not fork: the daemon's fork copied the page tables of
	 * its hundreds of MiB and held the allocator's locks meanwhile (its
	 * atfork handlers), 0.3 s in a storm in which the daemon's loop and
	 * this diagnosis both waited (a notification that late). The
	 * notifier drops to the app's owner itself, after its exec. */
	char as[32] = "";
	if (owner && uid != 0 && geteuid() == 0)
		snprintf(as, sizeof(as), "%u:%u", (unsigned)uid, (unsigned)gid);
	char *args[] = {"argus", "start", "--notifier", (char *)bus, as[0] ? as : NULL, NULL};
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	pid_t pid = -1;
	int rc = posix_spawn_file_actions_init(&fa);
	if (!rc) {
		rc = posix_spawnattr_init(&at);
		if (!rc) {
			/* standard input the socket; not the daemon's sockets and
			 * rings; a session of its own (the daemon's Ctrl-C is not
			 * the notifier's) */
			if (!(rc = posix_spawn_file_actions_adddup2(&fa, sv[1], 0)) &&
			    !(rc = posix_spawn_file_actions_addclosefrom_np(&fa, 3)) &&
			    !(rc = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID)))
				rc = posix_spawn(&pid, "/proc/self/exe", &fa, &at, args, environ);
			posix_spawnattr_destroy(&at);
		}
		posix_spawn_file_actions_destroy(&fa);
	}
	if (rc) {
		fprintf(stderr, "argus %s: cannot start the notifier: %s\n", o->name, strerror(rc));
		close(sv[0]);
		close(sv[1]);
		return NULL;
	}
	close(sv[1]);
	n->pid = pid;
	n->fd = sv[0];
	snprintf(n->bus, sizeof(n->bus), "%s", bus);
	return n;
}

/* The session bus of the stalled app pid (bus[0] = 0: none, said once
 * per call when loud); who owns pid in *owner, *uid, *gid. */
static void bus_of(const struct argus_report_sink_opts *o, uint32_t pid, const char *comm,
                   bool loud, char *bus, size_t cap, bool *owner, uid_t *uid, gid_t *gid)
{
	bus[0] = 0;
	*owner = report_owner_of(o, pid, uid, gid);
	if (o->notify_bus && *o->notify_bus) {
		snprintf(bus, cap, "%s", o->notify_bus);
	} else {
		proc_env(pid, "DBUS_SESSION_BUS_ADDRESS", bus, cap);
		if (!bus[0] && *owner) {
			char p[64];
			snprintf(p, sizeof(p), "/run/user/%u/bus", (unsigned)*uid);
			if (access(p, F_OK) == 0)
				snprintf(bus, cap, "unix:path=%s", p);
		}
	}
	if (!bus[0]) {
		const char *own = getenv("DBUS_SESSION_BUS_ADDRESS");
		if (own)
			snprintf(bus, cap, "%s", own);
	}
	if (!bus[0] && loud)
		/* no address: GIO would autolaunch a bus of its own */
		fprintf(stderr,
		        "argus %s: no session bus found for %s %u (not notified; "
		        "--notify-bus sets one)\n",
		        o->name, comm, pid);
}

/* The running notifier of bus, or NULL. */
static struct notifier *notifier_of(struct notifier_set *ns, const char *bus)
{
	reap_notifiers(ns);
	for (unsigned i = 0; i < NOTIFIERS; i++)
		if (ns->nf[i].pid && ns->nf[i].fd >= 0 && !strcmp(ns->nf[i].bus, bus))
			return &ns->nf[i];
	return NULL;
}

/* A stall fired, its diagnosis next: the notifier of its app's bus is
 * started now if none runs, so that its start (a fork and exec, GIO, the
 * bus's hello: most of a second on a loaded machine) goes on while the
 * diagnosis runs, not after it. */
void notifiers_warm(struct notifier_set *ns, const struct argus_report_sink_opts *o,
                    const struct argus_stall *s)
{
	char bus[512];
	bool owner;
	uid_t uid = 0;
	gid_t gid = 0;
	bus_of(o, s->pid, s->comm, false, bus, sizeof(bus), &owner, &uid, &gid);
	if (bus[0] && !notifier_of(ns, bus))
		notifier_start(ns, o, bus, owner, uid, gid);
}

void notifiers_send(struct notifier_set *ns, const struct argus_report_sink_opts *o,
                    const struct argus_diagnosis *d, const char *body, const char *report)
{
	if (o->notify) {
		o->notify(o->notify_arg, body, report);
		return;
	}
	char bus[512];
	bool owner;
	uid_t uid = 0;
	gid_t gid = 0;
	bus_of(o, d->stall.pid, d->stall.comm, true, bus, sizeof(bus), &owner, &uid, &gid);
	if (!bus[0])
		return;
	char display[256] = "", xauth[512] = "";
	proc_env(d->stall.pid, "DISPLAY", display, sizeof(display));
	proc_env(d->stall.pid, "XAUTHORITY", xauth, sizeof(xauth));
	if (!display[0] && getenv("DISPLAY"))
		snprintf(display, sizeof(display), "%s", getenv("DISPLAY"));
	struct notifier *n = notifier_of(ns, bus);
	if (n) {
		if (notifier_send(n, body, report, d->stall.id, display, xauth))
			return;
		/* ended or stuck: let it go, start another */
		close(n->fd);
		n->fd = -1;
		n->bus[0] = 0;
	}
	n = notifier_start(ns, o, bus, owner, uid, gid);
	if (n && !notifier_send(n, body, report, d->stall.id, display, xauth))
		fprintf(stderr, "argus %s: notification for stall %" PRIu64 " of %s not sent\n",
		        o->name, d->stall.id, d->stall.comm);
}

/* The notifiers answer what they have, then end on their own; those
 * already gone are reaped (the others are reaped by init after us). */
void notifiers_close(struct notifier_set *ns)
{
	for (unsigned i = 0; i < NOTIFIERS; i++)
		if (ns->nf[i].pid) {
			if (ns->nf[i].fd >= 0)
				close(ns->nf[i].fd);
			waitpid(ns->nf[i].pid, NULL, WNOHANG);
		}
}
