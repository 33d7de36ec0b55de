/*
 * more.c - finer tracing of one process on demand (`argus trace-more`,
 * docs/daemon.md "Finer tracing on demand"): the control request "more
 * pid=P ...", what is on for which process and until when, and its end
 * (the deadline, the end of the process's next stall, the process gone,
 * the daemon stopping). What "on" means is the source's (the kernel
 * tracer's full stacks: argus_daemon_source.more) and the hook rings'
 * (every toolkit landmark: argus_ring_set_asks).
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmdline.h"
#include "ring_producer.h"
#include "stream_priv.h"

/* ---- the request line ------------------------------------------------------ */

__attribute__((format(printf, 3, 4))) static void whyf(char *why, size_t cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (cap)
		vsnprintf(why, cap, fmt, ap);
	va_end(ap);
}

bool argus_more_parse(const char *line, struct argus_more_req *r, char *why, size_t whylen)
{
	char buf[256], *save = NULL;
	memset(r, 0, sizeof(*r));
	if (strlen(line) >= sizeof(buf)) {
		whyf(why, whylen, "request too long");
		return false;
	}
	strcpy(buf, line);
	char *w = strtok_r(buf, " ", &save);
	if (!w || strcmp(w, "more")) {
		whyf(why, whylen, "not a more request: '%.60s'", line);
		return false;
	}
	bool for_set = false;
	while ((w = strtok_r(NULL, " ", &save))) {
		uint64_t v;
		if (!strncmp(w, "pid=", 4)) {
			if (r->pid || !cli_parse_u64(w + 4, 1, 4194304, &v)) {
				whyf(why, whylen, "bad or second pid '%.40s'", w + 4);
				return false;
			}
			r->pid = (uint32_t)v;
		} else if (!strncmp(w, "stacks=", 7)) {
			if (strcmp(w + 7, "full")) {
				whyf(why, whylen, "stacks=%.40s: only stacks=full", w + 7);
				return false;
			}
			r->what |= ARGUS_MORE_STACKS;
		} else if (!strcmp(w, "syscalls")) {
			r->what |= ARGUS_MORE_SYSCALLS;
		} else if (!strcmp(w, "hooks")) {
			r->what |= ARGUS_MORE_HOOKS;
		} else if (!strcmp(w, "off")) {
			r->off = true;
		} else if (!strncmp(w, "for=", 4)) {
			if (for_set || !cli_parse_duration(w + 4, &v) || !v ||
			    v > ARGUS_MORE_MAX_NS) {
				whyf(why, whylen, "bad or second duration for=%.40s (at most 10m)",
				     w + 4);
				return false;
			}
			r->for_ns = v;
			for_set = true;
		} else {
			whyf(why, whylen,
			     "unknown word '%.40s' (pid=P, stacks=full, syscalls, hooks, "
			     "for=DUR, off)",
			     w);
			return false;
		}
	}
	if (!r->pid) {
		whyf(why, whylen, "no pid=P");
		return false;
	}
	if (r->off && (r->what || for_set)) {
		whyf(why, whylen, "off takes nothing but the pid");
		return false;
	}
	if (!r->off && !r->what) {
		whyf(why, whylen, "nothing asked (stacks=full, syscalls, hooks)");
		return false;
	}
	return true;
}

int argus_more_format(const struct argus_more_req *r, char *buf, size_t cap)
{
	char dur[40] = "";
	if (r->for_ns)
		snprintf(dur, sizeof(dur), " for=%" PRIu64 "ns", r->for_ns);
	int n = r->off ? snprintf(buf, cap, "more pid=%u off", r->pid)
	               : snprintf(buf, cap, "more pid=%u%s%s%s%s", r->pid,
	                          r->what & ARGUS_MORE_STACKS ? " stacks=full" : "",
	                          r->what & ARGUS_MORE_SYSCALLS ? " syscalls" : "",
	                          r->what & ARGUS_MORE_HOOKS ? " hooks" : "", dur);
	return n < 0 || (size_t)n >= cap ? -1 : n;
}

int argus_more_reply_class(const char *reply)
{
	static const struct {
		const char *prefix;
		int cls;
	} tab[] = {
	    {"ok", 0},
	    {"error noproc:", ARGUS_MORE_ENOPROC},
	    {"error nohooks:", ARGUS_MORE_ENOHOOKS},
	    {"error nosupport:", ARGUS_MORE_ENOSUPPORT},
	};
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strncmp(reply, tab[i].prefix, strlen(tab[i].prefix)))
			return tab[i].cls;
	return ARGUS_MORE_EREFUSED;
}

/* ---- the daemon's side ------------------------------------------------------ */

static const char *what_text(unsigned what, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s%s%s%s%s", what & ARGUS_MORE_STACKS ? "full stacks" : "",
	         (what & ARGUS_MORE_STACKS) && (what & ~ARGUS_MORE_STACKS) ? ", " : "",
	         what & ARGUS_MORE_SYSCALLS ? "syscalls" : "",
	         (what & ARGUS_MORE_SYSCALLS) && (what & ARGUS_MORE_HOOKS) ? ", " : "",
	         what & ARGUS_MORE_HOOKS ? "every landmark" : "");
	return buf;
}

static bool pid_hooked(const struct argus_daemon *d, uint32_t pid)
{
	for (unsigned i = d->nkernel; i < d->nrings; i++)
		if (d->rings[i] && d->ring_owner[i] == (pid_t)pid)
			return true;
	return false;
}

/* The hook rings of pid told to keep every landmark (on) or not. */
static void hooks_ask(struct argus_daemon *d, uint32_t pid, bool on)
{
	for (unsigned i = d->nkernel; i < d->nrings; i++)
		if (d->rings[i] && d->ring_owner[i] == (pid_t)pid)
			argus_ring_set_asks(d->rings[i], on ? ARGUS_RING_ASK_LANDMARKS : 0);
}

void more_ring_added(struct argus_daemon *d, unsigned slot)
{
	for (unsigned i = 0; i < d->more.n; i++)
		if (d->more.e[i].pid == (uint32_t)d->ring_owner[slot] &&
		    (d->more.e[i].what & ARGUS_MORE_HOOKS))
			argus_ring_set_asks(d->rings[slot], ARGUS_RING_ASK_LANDMARKS);
}

/* Switch what of pid on or off; 0 or an ARGUS_MORE_E* with err set. */
static int apply(struct argus_daemon *d, uint32_t pid, unsigned what, bool on, char *err,
                 size_t cap)
{
	unsigned src = what & (ARGUS_MORE_STACKS | ARGUS_MORE_SYSCALLS);
	if (src) {
		if (!d->src.more) {
			snprintf(err, cap,
			         "this daemon runs without the kernel tracer (--no-kernel)");
			return ARGUS_MORE_ENOSUPPORT;
		}
		int rc = d->src.more(d->src.arg, pid, src, on, err, cap);
		if (rc)
			return rc;
	}
	if (what & ARGUS_MORE_HOOKS)
		hooks_ask(d, pid, on);
	return 0;
}

static void end_entry(struct argus_daemon *d, unsigned i, const char *why)
{
	struct more_entry *e = &d->more.e[i];
	char err[256] = "", w[64];
	apply(d, e->pid, e->what, false, err, sizeof(err));
	fprintf(stderr, "argus start: trace-more: pid %u (%s): %s off (%s)\n", e->pid, e->comm,
	        what_text(e->what, w, sizeof(w)), why);
	d->more.e[i] = d->more.e[--d->more.n];
	d->more.ended++;
}

static void read_comm(uint32_t pid, char *out, size_t cap)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	FILE *f = fopen(path, "re");
	out[0] = '\0';
	if (f) {
		if (fgets(out, (int)cap, f))
			out[strcspn(out, "\n")] = '\0';
		fclose(f);
	}
	for (char *p = out; *p; p++) /* it goes into JSON and one-line replies */
		if ((unsigned char)*p < 0x20 || *p == '"' || *p == '\\' || (unsigned char)*p > 0x7e)
			*p = '?';
	if (!out[0])
		snprintf(out, cap, "?");
}

static bool pid_gone(uint32_t pid)
{
	return kill((pid_t)pid, 0) && errno == ESRCH;
}

/* "until 08:12:31 (5.0 s from now)" or "until its next stall ends (at most ...)" */
static void until_text(const struct more_entry *e, uint64_t now, char *buf, size_t cap)
{
	uint64_t left = e->until_ns > now ? e->until_ns - now : 0;
	time_t t = time(NULL) + (time_t)((left + 500000000ull) / 1000000000ull);
	struct tm tm;
	char clock[16] = "?";
	if (localtime_r(&t, &tm))
		strftime(clock, sizeof(clock), "%H:%M:%S", &tm);
	if (e->until_stall)
		snprintf(buf, cap, "until its next stall ends, at most until %s (%.1f s from now)",
		         clock, left / 1e9);
	else
		snprintf(buf, cap, "until %s (%.1f s from now)", clock, left / 1e9);
}

static char *replyf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *replyf(const char *fmt, ...)
{
	char buf[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return strdup(buf);
}

static const char *err_word(int rc)
{
	return rc == ARGUS_MORE_ENOPROC      ? " noproc"
	       : rc == ARGUS_MORE_ENOHOOKS   ? " nohooks"
	       : rc == ARGUS_MORE_ENOSUPPORT ? " nosupport"
	                                     : "";
}

char *more_request(struct argus_daemon *d, const char *line)
{
	struct argus_more_req r;
	char why[256], w[64], until[128];
	if (!argus_more_parse(line, &r, why, sizeof(why)))
		return replyf("error: %s\n", why);
	uint64_t now = mono_now_ns();
	int at = -1;
	for (unsigned i = 0; i < d->more.n; i++)
		if (d->more.e[i].pid == r.pid)
			at = (int)i;
	if (r.off) {
		if (at < 0)
			return replyf("ok: pid %u: no finer tracing was on\n", r.pid);
		char comm[16];
		snprintf(comm, sizeof(comm), "%s", d->more.e[at].comm);
		end_entry(d, (unsigned)at, "asked");
		return replyf("ok: pid %u (%s): finer tracing off\n", r.pid, comm);
	}
	if (pid_gone(r.pid))
		return replyf("error noproc: no process %u\n", r.pid);
	if ((r.what & ARGUS_MORE_HOOKS) && !pid_hooked(d, r.pid))
		return replyf(
		    "error nohooks: process %u was not started with hooks (no hook ring "
		    "of it reached this daemon: start it with LD_PRELOAD=libargus-hooks.so, "
		    "docs/hooks.md)\n",
		    r.pid);
	if (at < 0 && d->more.n == ARGUS_MORE_MAX_PIDS)
		return replyf("error: finer tracing is on for %d processes already (at most %d)\n",
		              ARGUS_MORE_MAX_PIDS, ARGUS_MORE_MAX_PIDS);
	char note[256] = "";
	int rc = apply(d, r.pid, r.what, true, note, sizeof(note));
	if (rc)
		return replyf("error%s: %s\n", err_word(rc), note);
	struct more_entry *e;
	if (at >= 0) {
		e = &d->more.e[at];
		unsigned dropped = e->what & ~r.what;
		if (dropped) { /* a new request replaces the one before */
			char ignore[256];
			apply(d, r.pid, dropped, false, ignore, sizeof(ignore));
		}
	} else {
		e = &d->more.e[d->more.n++];
		memset(e, 0, sizeof(*e));
		e->pid = r.pid;
		read_comm(r.pid, e->comm, sizeof(e->comm));
	}
	e->what = r.what;
	e->since_ns = now;
	e->until_ns = now + (r.for_ns ? r.for_ns : ARGUS_MORE_MAX_NS);
	e->until_stall = !r.for_ns;
	d->more.asked++;
	until_text(e, now, until, sizeof(until));
	what_text(e->what, w, sizeof(w));
	fprintf(stderr, "argus start: trace-more: pid %u (%s): %s %s\n", e->pid, e->comm, w, until);
	return replyf("ok: pid %u (%s): %s %s%s%s\n", e->pid, e->comm, w, until,
	              note[0] ? "; " : "", note);
}

void more_sweep(struct argus_daemon *d, uint64_t now)
{
	for (unsigned i = d->more.n; i-- > 0;) {
		struct more_entry *e = &d->more.e[i];
		if (now >= e->until_ns)
			end_entry(d, i,
			          e->until_stall ? "10 min and no stall ended" : "its time is up");
		else if (pid_gone(e->pid))
			end_entry(d, i, "the process is gone");
	}
}

void argus_daemon_stall_ended(struct argus_daemon *d, uint32_t pid)
{
	for (unsigned i = d->more.n; i-- > 0;)
		if (d->more.e[i].pid == pid && d->more.e[i].until_stall)
			end_entry(d, i, "its stall ended");
}

void more_all_off(struct argus_daemon *d)
{
	while (d->more.n)
		end_entry(d, d->more.n - 1, "the daemon stops");
}

size_t more_status(const struct argus_daemon *d, char *buf, size_t cap, bool json)
{
	size_t len = 0;
	uint64_t now = mono_now_ns();
	if (cap)
		buf[0] = '\0';
	for (unsigned i = 0; i < d->more.n && len < cap; i++) {
		const struct more_entry *e = &d->more.e[i];
		uint64_t left = e->until_ns > now ? e->until_ns - now : 0;
		char w[64], until[128];
		int n;
		if (json)
			n = snprintf(buf + len, cap - len,
			             "%s{\"pid\":%u,\"comm\":\"%s\",\"stacks\":%s,\"syscalls\":%s,"
			             "\"hooks\":%s,\"since_ns\":%" PRIu64 ",\"until_ns\":%" PRIu64
			             ",\"left_ns\":%" PRIu64 ",\"until_stall\":%s}",
			             i ? "," : "", e->pid, e->comm,
			             e->what & ARGUS_MORE_STACKS ? "true" : "false",
			             e->what & ARGUS_MORE_SYSCALLS ? "true" : "false",
			             e->what & ARGUS_MORE_HOOKS ? "true" : "false", e->since_ns,
			             e->until_ns, left, e->until_stall ? "true" : "false");
		else {
			until_text(e, now, until, sizeof(until));
			n = snprintf(buf + len, cap - len, "  pid %u (%s): %s %s\n", e->pid,
			             e->comm, what_text(e->what, w, sizeof(w)), until);
		}
		if (n < 0)
			break;
		len += (size_t)n;
	}
	return len < cap ? len : cap ? cap - 1 : 0;
}
