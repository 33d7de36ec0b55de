/*
 * daemon.c - `argus start`: sources -> merge -> consumers, on libuv.
 *
 * One thread, one loop. Every tick (5 ms) the daemon drains every ring into
 * the merge, releases what the watermark allows, finishes the records
 * (source decode) and hands them to the consumers: sinks (the graph builder),
 * JSON stream clients and the flight recorder. A control socket answers
 * status / stop / flush. SIGINT and SIGTERM drain everything and exit.
 * struct argus_daemon is the root object: all mutable state lives here.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "stream_priv.h"

#define READ_BATCH        4096
#define MAX_READ_PER_TICK (1u << 16) /* per ring: bounds one tick's latency */

/* One control connection: a request line in, a reply out, closed. */
struct ctl_conn {
	uv_pipe_t pipe;
	uv_write_t wreq;
	struct argus_daemon *d;
	char req[256];
	size_t len;
	char *reply;
	bool stop_after;
};

uint64_t mono_now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* Is uid in group gid (primary or supplementary)? From /proc: the peer's
 * own view, no NSS lookups in the daemon. */
static bool pid_in_group(pid_t pid, long gid)
{
	char path[64], line[4096];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	bool in = false;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "Groups:", 7))
			continue;
		char *p = line + 7, *end;
		for (long g; (g = strtol(p, &end, 10)), end != p; p = end)
			if (g == gid)
				in = true;
		break;
	}
	fclose(f);
	return in;
}

bool peer_allowed(int fd, long gid)
{
	struct ucred cr;
	socklen_t l = sizeof(cr);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &l))
		return false;
	if (cr.uid == 0 || cr.uid == geteuid())
		return true;
	return gid >= 0 && ((long)cr.gid == gid || pid_in_group(cr.pid, gid));
}

/* ---- consumers ---------------------------------------------------------- */

static void to_consumers(struct argus_daemon *d, const struct argus_event *ev, size_t n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n; i++)
		d->by_type[ev[i].type < ARGUS_EV_TYPE_MAX ? ev[i].type : ARGUS_EV_TYPE_MAX]++;
	d->total += n;
	for (unsigned s = 0; s < d->nsinks; s++)
		if (d->sinks[s].events)
			d->sinks[s].events(d->sinks[s].arg, ev, n);
	clients_deliver(&d->cs, ev, n);
	if (d->rec)
		rec_events(d->rec, ev, n);
}

static int dsink_events(void *arg, const struct argus_event *ev, size_t n)
{
	to_consumers(arg, ev, n);
	return 0;
}

static uint32_t dsink_string(void *arg, const char *s, size_t len)
{
	struct argus_daemon *d = arg;
	size_t before = d->strings.n;
	uint32_t id = tab_string(&d->strings, s, len);
	if (id && d->strings.n > before) {
		if (d->rec)
			rec_string(d->rec, id);
		/* sinks keep their own tables: they get each new entry once,
		 * in id order, so their ids are the daemon's */
		for (unsigned k = 0; k < d->nsinks; k++)
			if (d->sinks[k].intern_string)
				d->sinks[k].intern_string(d->sinks[k].arg, s, len);
	}
	return id;
}

static uint32_t dsink_stack(void *arg, const uint64_t *ips, uint32_t depth)
{
	struct argus_daemon *d = arg;
	size_t before = d->stacks.n;
	uint32_t id = tab_stack(&d->stacks, ips, depth);
	if (id && d->stacks.n > before) {
		if (d->rec)
			rec_stack(d->rec, id);
		for (unsigned k = 0; k < d->nsinks; k++)
			if (d->sinks[k].intern_stack)
				d->sinks[k].intern_stack(d->sinks[k].arg, ips, depth);
	}
	return id;
}

static int dsink_map(void *arg, const struct argus_map *m)
{
	struct argus_daemon *d = arg;
	if (d->rec)
		rec_map(d->rec, m);
	for (unsigned s = 0; s < d->nsinks; s++)
		if (d->sinks[s].map)
			d->sinks[s].map(d->sinks[s].arg, m);
	return 0;
}

static int dsink_build_id(void *arg, const struct argus_build_id *b)
{
	struct argus_daemon *d = arg;
	if (d->rec)
		rec_build_id(d->rec, b);
	for (unsigned s = 0; s < d->nsinks; s++)
		if (d->sinks[s].build_id)
			d->sinks[s].build_id(d->sinks[s].arg, b);
	return 0;
}

static void deliver(struct argus_daemon *d, struct argus_event *ev, size_t n)
{
	if (d->src.decode)
		d->src.decode(d->src.arg, ev, n, &d->dsink);
	to_consumers(d, ev, n);
}

/* ---- the pipeline tick --------------------------------------------------- */

/* DROP records for shared-memory rings (and kernel rings whose source does
 * not report its own). */
void daemon_ring_drops(struct argus_daemon *d, uint64_t now)
{
	struct argus_event drops[64];
	size_t nd = 0;
	if (d->src.drop_records)
		nd = d->src.drop_records(d->src.arg, drops, 64, now);
	for (unsigned i = d->src.drop_records ? d->nkernel : 0; i < d->nrings && nd < 64; i++) {
		if (!d->rings[i])
			continue;
		uint64_t total = argus_ring_drops(d->rings[i]) + argus_ring_malformed(d->rings[i]);
		if (total <= d->drops_reported[i])
			continue; /* a hook ring's counter is the app's: never backwards */
		struct argus_event *e = &drops[nd++];
		argus_event_drop(e, now,
		                 i < d->nkernel ? ARGUS_DROP_KERNEL_RING : ARGUS_DROP_HOOK_RING, i,
		                 total - d->drops_reported[i], total);
		e->cpu = (uint16_t)argus_ring_cpu(d->rings[i]);
		d->drops_reported[i] = total;
	}
	if (nd)
		argus_merge_push(d->merge, d->drop_src, drops, nd, now);
}

void daemon_read_ring(struct argus_daemon *d, unsigned i, uint64_t now)
{
	size_t got = 0, n;
	while (got < MAX_READ_PER_TICK &&
	       (n = argus_ring_read(d->rings[i], d->buf, READ_BATCH)) > 0) {
		got += n;
		/* a hooked process speaks only for itself (hookguard.c) */
		if (d->ring_owner[i])
			n = argus_hook_guard_apply(&d->guards[i], d->buf, n, now);
		if (n)
			argus_merge_push(d->merge, i, d->buf, n, now);
	}
	d->read_total += got;
	if (got) {
		struct argus_merge_stats ms;
		argus_merge_get_stats(d->merge, &ms);
		if (ms.buffered > d->merge_peak)
			d->merge_peak = ms.buffered;
	}
}

/* Returns when it read the rings: what was written by then, up to that
 * time less max_delay, is delivered. */
static uint64_t pump(struct argus_daemon *d, bool final)
{
	uint64_t now = mono_now_ns();
	for (unsigned i = 0; i < d->nrings; i++)
		if (d->rings[i])
			daemon_read_ring(d, i, now);
	daemon_ring_drops(d, now);
	size_t n;
	while ((n = final ? argus_merge_drain(d->merge, d->out, READ_BATCH)
	                  : argus_merge_pop(d->merge, d->out, READ_BATCH, now)) > 0) {
		uint64_t lag = now > d->out[n - 1].ts ? now - d->out[n - 1].ts : 0;
		if (lag > d->max_lag_ns)
			d->max_lag_ns = lag;
		deliver(d, d->out, n);
	}
	return now;
}

/*
 * The loop's priority: it reads the kernel and hook rings, and a machine
 * saturated by a storm must not starve it (the rings would overflow and an
 * app's hang in the storm would go unseen: at nice 0, 800 processes of
 * `perf bench sched messaging` on 2 CPUs left it 2 % of the kernel's
 * records). As `argus record`'s reader does (session/live.c): asleep in
 * epoll at nice -20 (the scheduler wakes it on an idle CPU, and soon),
 * SCHED_FIFO 1 from its wake-up until it sleeps again (a turn's work is
 * bounded: MAX_READ_PER_TICK per ring). Not inherited by anything the
 * daemon forks (SCHED_RESET_ON_FORK). Best effort: without CAP_SYS_NICE it
 * stays as it is.
 */
static void loop_priority(struct argus_daemon *d, bool rt)
{
	struct sched_param sp = {.sched_priority = rt ? 1 : 0};
	if (rt != d->rt &&
	    sched_setscheduler(0, (rt ? SCHED_FIFO : SCHED_OTHER) | SCHED_RESET_ON_FORK, &sp) == 0)
		d->rt = rt;
}

static void on_asleep(uv_prepare_t *p)
{
	loop_priority(p->data, false);
}

/* Only while records come in numbers (the tick at TICK_MS): on a quiet
 * machine the two priority changes would be most of a wake-up's cost. */
static void on_awake(uv_check_t *c)
{
	struct argus_daemon *d = c->data;
	loop_priority(d, d->tick_ms == TICK_MS);
}

/* Every TICK_MS while records come in numbers; a tick that reads fewer
 * than TICK_FEW per TICK_MS of its period doubles the period up to TICK_IDLE_MS (and half of
 * max_delay) while the tick hook waits on time (a stall could fire: it is
 * seen within that of its threshold), up to TICK_QUIET_MS while it does
 * not (every app in its loop, or no GUI app): an idle machine wakes the
 * daemon and the diagnosis thread 5 times a second instead of 200. Not
 * "reads none": an idle desktop still writes a few records every tick
 * (timers, kworkers, the compositor), and each wake-up costs more than its
 * records (the merge's and the diagnosis thread's turn). An event that
 * starts a stall reaches the hook within two quiet ticks (the hook's
 * answer is its worker's, one tick behind), far within the 2 s threshold.
 * The first full tick brings the period down at once; a 4 MiB ring holds
 * ~65 k records, far more than TICK_FEW a tick. */
static void on_tick(uv_timer_t *t)
{
	struct argus_daemon *d = t->data;
	uint64_t before = d->read_total, ms = d->tick_ms;
	uint64_t read_at = pump(d, false), now = mono_now_ns();
	bool timed = false;
	/* the hook's time is what the records delivered cover: the rings' read
	 * less max_delay, not the time after delivering them (a start-up burst
	 * took 89 ms to deliver; a trigger told 39 ms more than it was given
	 * took running threads for 39 ms more on CPU and waiting ones for 39
	 * ms more blocked: a false stall in argus bench quiet) */
	if (d->tick_fn && read_at > d->o.max_delay_ns)
		timed = d->tick_fn(d->tick_arg, read_at - d->o.max_delay_ns);
	if (d->more.n)
		more_sweep(d, now);
	uint64_t cap = d->o.max_delay_ns / 2000000ull;
	if (cap > TICK_IDLE_MS)
		cap = TICK_IDLE_MS;
	if (cap < TICK_MS)
		cap = TICK_MS;
	if (!timed)
		cap = TICK_QUIET_MS;
	/* in numbers: TICK_FEW or more per TICK_MS of the period (a rate:
	 * counted per tick, a longer tick read TICK_FEW at a rate a shorter
	 * one backed off at, and the period swung between TICK_MS and the
	 * cap under a steady few thousand records a second) */
	bool many = (d->read_total - before) * TICK_MS >= (uint64_t)TICK_FEW * ms;
	ms = many ? TICK_MS : ms * 2 > cap ? cap : ms * 2;
	if (ms != d->tick_ms) {
		d->tick_ms = ms;
		uv_timer_start(&d->tick, on_tick, ms, ms);
	}
}

static void on_second(uv_timer_t *t)
{
	struct argus_daemon *d = t->data;
	for (unsigned i = 0; i < NTYPES; i++) {
		d->rate[i] = d->by_type[i] - d->prev_by_type[i];
		d->prev_by_type[i] = d->by_type[i];
	}
	d->rate_total = d->total - d->prev_total;
	d->prev_total = d->total;
	if (d->rec)
		rec_flush(d->rec); /* a crash loses at most a second */
}

/* ---- stop ---------------------------------------------------------------- */

void daemon_close_cb_noop(uv_handle_t *h)
{
	(void)h;
}

static void daemon_stop(struct argus_daemon *d)
{
	if (d->stopping)
		return;
	d->stopping = true;
	more_all_off(d); /* the rings and the source are still there */
	hooks_close(d);  /* drains each hook ring into the merge */
	pump(d, true);   /* everything still in the rings and the merge */
	if (d->rec) {
		rec_close(d->rec);
		d->rec = NULL;
	}
	clients_close_all(&d->cs);
	uv_close((uv_handle_t *)&d->tick, daemon_close_cb_noop);
	uv_close((uv_handle_t *)&d->second, daemon_close_cb_noop);
	if (!d->o.no_rt) {
		uv_close((uv_handle_t *)&d->asleep, daemon_close_cb_noop);
		uv_close((uv_handle_t *)&d->awake, daemon_close_cb_noop);
		loop_priority(d, false);
	}
	uv_close((uv_handle_t *)&d->sigint, daemon_close_cb_noop);
	uv_close((uv_handle_t *)&d->sigterm, daemon_close_cb_noop);
	char path[1200];
	if (d->ctl_bound) {
		uv_close((uv_handle_t *)&d->ctl, daemon_close_cb_noop);
		snprintf(path, sizeof(path), "%s/%s", d->run_dir, CONTROL_SOCK);
		unlink(path);
	}
	if (d->strm_bound) {
		uv_close((uv_handle_t *)&d->strm, daemon_close_cb_noop);
		snprintf(path, sizeof(path), "%s/%s", d->run_dir, STREAM_SOCK);
		unlink(path);
	}
}

static void on_signal(uv_signal_t *s, int signum)
{
	(void)signum;
	daemon_stop(s->data);
}

/* ---- control socket ------------------------------------------------------- */

static void ctl_closed(uv_handle_t *h)
{
	struct ctl_conn *c = h->data;
	free(c->reply);
	free(c);
}

static void ctl_written(uv_write_t *w, int status)
{
	(void)status;
	struct ctl_conn *c = w->data;
	struct argus_daemon *d = c->d;
	bool stop = c->stop_after;
	uv_close((uv_handle_t *)&c->pipe, ctl_closed);
	if (stop)
		daemon_stop(d);
}

static void ctl_reply(struct ctl_conn *c, char *text)
{
	c->reply = text;
	uv_read_stop((uv_stream_t *)&c->pipe);
	if (!text) {
		uv_close((uv_handle_t *)&c->pipe, ctl_closed);
		return;
	}
	uv_buf_t b = uv_buf_init(text, (unsigned)strlen(text));
	c->wreq.data = c;
	if (uv_write(&c->wreq, (uv_stream_t *)&c->pipe, &b, 1, ctl_written) < 0)
		uv_close((uv_handle_t *)&c->pipe, ctl_closed);
}

static void ctl_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
	(void)hint;
	struct ctl_conn *c = h->data;
	*buf = uv_buf_init(c->req + c->len, (unsigned)(sizeof(c->req) - 1 - c->len));
}

static void ctl_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
	(void)buf;
	struct ctl_conn *c = s->data;
	struct argus_daemon *d = c->d;
	if (nread < 0) {
		uv_read_stop(s);
		uv_close((uv_handle_t *)s, ctl_closed);
		return;
	}
	c->len += (size_t)nread;
	c->req[c->len] = '\0';
	char *nl = strchr(c->req, '\n');
	if (!nl) {
		if (c->len == sizeof(c->req) - 1)
			ctl_reply(c, strdup("error: request too long\n"));
		return;
	}
	*nl = '\0';
	if (!strcmp(c->req, "status")) {
		ctl_reply(c, daemon_status(d, false));
	} else if (!strcmp(c->req, "status json")) {
		ctl_reply(c, daemon_status(d, true));
	} else if (!strcmp(c->req, "flush")) {
		pump(d, false);
		int rc = d->rec ? rec_flush(d->rec) : 0;
		ctl_reply(c, strdup(rc ? "error: recorder flush failed\n" : "ok\n"));
	} else if (!strcmp(c->req, "stop")) {
		c->stop_after = true;
		ctl_reply(c, strdup("ok: stopping\n"));
	} else if (!strncmp(c->req, "more ", 5)) {
		ctl_reply(c, more_request(d, c->req));
	} else {
		char msg[320];
		snprintf(msg, sizeof(msg),
		         "error: unknown request '%.200s' (status, stop, flush, more)\n", c->req);
		ctl_reply(c, strdup(msg));
	}
}

static bool accept_checked(struct argus_daemon *d, uv_stream_t *server, uv_pipe_t *p)
{
	uv_pipe_init(&d->loop, p, 0);
	if (uv_accept(server, (uv_stream_t *)p))
		return false;
	uv_os_fd_t fd;
	return !uv_fileno((uv_handle_t *)p, &fd) && peer_allowed(fd, d->o.group);
}

static void on_ctl_conn(uv_stream_t *server, int status)
{
	struct argus_daemon *d = server->data;
	if (status < 0 || d->stopping)
		return;
	struct ctl_conn *c = calloc(1, sizeof(*c));
	if (!c)
		return;
	c->d = d;
	c->pipe.data = c;
	if (!accept_checked(d, server, &c->pipe)) {
		uv_close((uv_handle_t *)&c->pipe, ctl_closed);
		return;
	}
	uv_read_start((uv_stream_t *)&c->pipe, ctl_alloc, ctl_read);
}

static void refused_closed(uv_handle_t *h)
{
	free(h);
}

static void on_stream_conn(uv_stream_t *server, int status)
{
	struct argus_daemon *d = server->data;
	if (status < 0 || d->stopping)
		return;
	/* Check the peer first on a throw-away handle, then hand the fd over. */
	uv_pipe_t *p = malloc(sizeof(*p));
	if (!p)
		return;
	if (!accept_checked(d, server, p)) {
		uv_close((uv_handle_t *)p, refused_closed);
		return;
	}
	uv_os_fd_t fd;
	uv_fileno((uv_handle_t *)p, &fd);
	int dupfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	uv_close((uv_handle_t *)p, refused_closed);
	if (dupfd >= 0)
		clients_adopt(&d->cs, dupfd);
}

/* ---- setup ---------------------------------------------------------------- */

/* A stale socket file is removed; a live daemon is an error. */
static int bind_socket(struct argus_daemon *d, uv_pipe_t *p, const char *name, uv_connection_cb cb,
                       char *err, size_t errlen)
{
	char path[1200];
	snprintf(path, sizeof(path), "%s/%s", d->run_dir, name);
	if (strlen(path) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
		snprintf(err, errlen, "socket path too long: %s", path);
		return -ENAMETOOLONG;
	}
	int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	strcpy(sa.sun_path, path);
	if (probe >= 0 && connect(probe, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		close(probe);
		snprintf(err, errlen, "another argus daemon is running (%s answers)", path);
		return -EADDRINUSE;
	}
	if (probe >= 0)
		close(probe);
	unlink(path);
	uv_pipe_init(&d->loop, p, 0);
	p->data = d;
	int rc = uv_pipe_bind(p, path);
	if (!rc)
		rc = uv_listen((uv_stream_t *)p, 64, cb);
	if (rc) {
		snprintf(err, errlen, "cannot listen on %s: %s", path, uv_strerror(rc));
		uv_close((uv_handle_t *)p, daemon_close_cb_noop);
		return rc;
	}
	if (chmod(path, 0660) || (d->o.group >= 0 && chown(path, 0, (gid_t)d->o.group))) {
		snprintf(err, errlen, "cannot set mode of %s: %s", path, strerror(errno));
		uv_close((uv_handle_t *)p, daemon_close_cb_noop);
		unlink(path);
		return -errno;
	}
	return 0;
}

int argus_daemon_new(struct argus_daemon **dp, const struct argus_daemon_opts *o, char *err,
                     size_t errlen)
{
	*dp = NULL;
	struct argus_daemon *d = calloc(1, sizeof(*d));
	if (!d) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	d->o = *o;
	snprintf(d->run_dir, sizeof(d->run_dir), "%s", o->run_dir ? o->run_dir : ARGUS_RUN_DIR);
	snprintf(d->rec_dir, sizeof(d->rec_dir), "%s", o->rec_dir ? o->rec_dir : ARGUS_REC_DIR);
	snprintf(d->hooks_dir, sizeof(d->hooks_dir), "%s",
	         o->hooks_dir ? o->hooks_dir : ARGUS_HOOKS_DIR);
	if (!d->o.rec_span_ns)
		d->o.rec_span_ns = 300ull * 1000000000ull;
	if (!d->o.rec_bytes)
		d->o.rec_bytes = 2ull << 30;
	if (!d->o.chunk_span_ns)
		d->o.chunk_span_ns = 10ull * 1000000000ull;
	if (!d->o.max_delay_ns)
		d->o.max_delay_ns = 50ull * 1000000ull;
	if (!d->o.client_queue_bytes)
		d->o.client_queue_bytes = 8ull << 20;
	if (!d->o.max_hook_rings)
		d->o.max_hook_rings = 64;
	d->max_rings = MAX_KERNEL_RINGS + d->o.max_hook_rings;
	d->rings = calloc(d->max_rings, sizeof(*d->rings));
	d->ring_owner = calloc(d->max_rings, sizeof(*d->ring_owner));
	d->guards = calloc(d->max_rings, sizeof(*d->guards));
	d->drops_reported = calloc(d->max_rings, sizeof(*d->drops_reported));
	d->buf = malloc(READ_BATCH * sizeof(*d->buf));
	d->out = malloc(READ_BATCH * sizeof(*d->out));
	if (!d->rings || !d->ring_owner || !d->guards || !d->drops_reported || !d->buf || !d->out) {
		argus_daemon_free(d);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	d->dsink = (struct argus_sink){.events = dsink_events,
	                               .intern_string = dsink_string,
	                               .intern_stack = dsink_stack,
	                               .map = dsink_map,
	                               .build_id = dsink_build_id,
	                               .arg = d};
	*dp = d;
	return 0;
}

int argus_daemon_add_ring(struct argus_daemon *d, struct argus_ring *r)
{
	/* kernel rings come first, before any hook ring and before run */
	if (d->running || d->nrings > d->nkernel || d->nkernel >= MAX_KERNEL_RINGS)
		return -EBUSY;
	d->rings[d->nkernel++] = r;
	d->nrings = d->nkernel;
	return 0;
}

void argus_daemon_set_source(struct argus_daemon *d, const struct argus_daemon_source *s)
{
	d->src = *s;
}

int argus_daemon_add_sink(struct argus_daemon *d, const struct argus_sink *s)
{
	if (d->nsinks == MAX_SINKS)
		return -ENOSPC;
	d->sinks[d->nsinks++] = *s;
	return 0;
}

void argus_daemon_set_tick(struct argus_daemon *d, bool (*fn)(void *arg, uint64_t stream_ns),
                           void *arg)
{
	d->tick_fn = fn;
	d->tick_arg = arg;
}

void argus_daemon_set_status(struct argus_daemon *d, int (*fn)(void *arg, char *buf, size_t cap),
                             void *arg)
{
	d->status_fn = fn;
	d->status_arg = arg;
}

void argus_daemon_publish(struct argus_daemon *d, const char *kind, uint32_t pid, const char *json)
{
	if (!d->stopping)
		clients_publish(&d->cs, kind, pid, json);
}

const char *argus_daemon_string(const struct argus_daemon *d, uint32_t id)
{
	const struct tab_entry *e = tab_get(&d->strings, id);
	return e ? e->data : NULL;
}

bool argus_daemon_stack(const struct argus_daemon *d, uint32_t id, struct argus_stack *out)
{
	const struct tab_entry *e = tab_get(&d->stacks, id);
	if (!e)
		return false;
	*out = (struct argus_stack){
	    .id = id, .depth = e->depth, .ips = (const uint64_t *)(const void *)e->data};
	return true;
}

int argus_daemon_add_hook_ring(struct argus_daemon *d, struct argus_ring *r)
{
	/* reuse a freed hook slot (its merge source), else append */
	for (unsigned i = d->nkernel; i < d->nrings; i++)
		if (!d->rings[i]) {
			d->rings[i] = r;
			d->drops_reported[i] = 0;
			d->ring_owner[i] = 0;
			return (int)i;
		}
	if (d->nrings >= d->max_rings || d->nrings - d->nkernel >= d->o.max_hook_rings)
		return -ENOSPC;
	d->ring_owner[d->nrings] = 0;
	d->rings[d->nrings] = r;
	return (int)d->nrings++;
}

int argus_daemon_run(struct argus_daemon *d, char *err, size_t errlen)
{
	int rc;
	umask(027);
	mode_t mode = d->o.group >= 0 ? 0750 : 0700;
	if (mkdir(d->run_dir, mode) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", d->run_dir, strerror(errno));
		return -errno;
	}
	if (chmod(d->run_dir, mode) ||
	    (d->o.group >= 0 && chown(d->run_dir, 0, (gid_t)d->o.group))) {
		snprintf(err, errlen, "cannot set owner / mode of %s: %s", d->run_dir,
		         strerror(errno));
		return -errno;
	}
	/* Sources: kernel rings, one daemon source (DROP records), hook rings. */
	d->drop_src = d->max_rings;
	if ((rc = argus_merge_new(&d->merge, d->max_rings + 1, d->o.max_delay_ns))) {
		snprintf(err, errlen, "out of memory");
		return rc;
	}
	if ((rc = uv_loop_init(&d->loop))) {
		snprintf(err, errlen, "libuv: %s", uv_strerror(rc));
		return rc;
	}
	d->cs.loop = &d->loop;
	d->cs.queue_limit = d->o.client_queue_bytes;
	d->cs.strings = &d->strings;
	if (d->rec_dir[0]) {
		struct rec_opts ro = {.dir = d->rec_dir,
		                      .span_ns = d->o.rec_span_ns,
		                      .max_bytes = d->o.rec_bytes,
		                      .chunk_span_ns = d->o.chunk_span_ns,
		                      .gid = d->o.group};
		if ((rc = rec_open(&d->rec, &ro, &d->strings, &d->stacks, err, errlen)))
			goto fail_loop;
	}
	if ((rc = bind_socket(d, &d->ctl, CONTROL_SOCK, on_ctl_conn, err, errlen)))
		goto fail_rec;
	d->ctl_bound = true;
	if ((rc = bind_socket(d, &d->strm, STREAM_SOCK, on_stream_conn, err, errlen)))
		goto fail_rec;
	d->strm_bound = true;
	if (d->hooks_dir[0] && (rc = hooks_listen(d, err, errlen)))
		goto fail_rec;
	uv_timer_init(&d->loop, &d->tick);
	uv_timer_init(&d->loop, &d->second);
	d->tick.data = d->second.data = d;
	d->tick_ms = TICK_MS;
	uv_timer_start(&d->tick, on_tick, TICK_MS, TICK_MS);
	uv_timer_start(&d->second, on_second, 1000, 1000);
	if (!d->o.no_rt) {
		/* the loop's thread: nice -20 asleep, real time awake */
		struct sched_param sp = {.sched_priority = 0};
		sched_setscheduler(0, SCHED_OTHER | SCHED_RESET_ON_FORK, &sp);
		setpriority(PRIO_PROCESS, 0, -20);
		uv_prepare_init(&d->loop, &d->asleep);
		uv_check_init(&d->loop, &d->awake);
		d->asleep.data = d->awake.data = d;
		uv_prepare_start(&d->asleep, on_asleep);
		uv_check_start(&d->awake, on_awake);
	}
	uv_signal_init(&d->loop, &d->sigint);
	uv_signal_init(&d->loop, &d->sigterm);
	d->sigint.data = d->sigterm.data = d;
	uv_signal_start(&d->sigint, on_signal, SIGINT);
	uv_signal_start(&d->sigterm, on_signal, SIGTERM);
	/* a client that leaves while its lines are being written makes the
	 * write fail with EPIPE (libuv then closes it), never end the daemon:
	 * libuv writes with write(2), which raises SIGPIPE */
	signal(SIGPIPE, SIG_IGN);
	d->start_ns = mono_now_ns();
	d->running = true;
	uv_run(&d->loop, UV_RUN_DEFAULT);
	d->running = false;
	uv_loop_close(&d->loop);
	return 0;

fail_rec:
	d->stopping = true;
	if (d->strm_bound) {
		char path[1200];
		snprintf(path, sizeof(path), "%s/%s", d->run_dir, STREAM_SOCK);
		uv_close((uv_handle_t *)&d->strm, daemon_close_cb_noop);
		unlink(path);
		d->strm_bound = false;
	}
	if (d->ctl_bound) {
		char path[1200];
		snprintf(path, sizeof(path), "%s/%s", d->run_dir, CONTROL_SOCK);
		uv_close((uv_handle_t *)&d->ctl, daemon_close_cb_noop);
		unlink(path);
		d->ctl_bound = false;
	}
	if (d->rec) {
		rec_close(d->rec);
		d->rec = NULL;
	}
fail_loop:
	uv_run(&d->loop, UV_RUN_NOWAIT); /* let closed handles finish */
	uv_loop_close(&d->loop);
	return rc < 0 ? rc : -EIO;
}

void argus_daemon_free(struct argus_daemon *d)
{
	if (!d)
		return;
	if (d->rings)
		for (unsigned i = 0; i < d->nrings; i++)
			argus_ring_close(d->rings[i]);
	free(d->rings);
	free(d->ring_owner);
	free(d->guards);
	free(d->drops_reported);
	argus_merge_free(d->merge);
	tab_free(&d->strings);
	tab_free(&d->stacks);
	free(d->buf);
	free(d->out);
	free(d);
}
