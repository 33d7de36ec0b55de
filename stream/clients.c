/*
 * clients.c - JSON stream clients of the daemon (docs/json-stream.md).
 *
 * A client sends one request line ("stream v=1 types=... pids=...") and then
 * receives NDJSON. Each client has a bounded queue of 64 KiB blocks; when it
 * is full the client's records are dropped and counted, and as soon as there
 * is room again the client is told with a DROP record (source "client").
 * Writing is asynchronous (uv_write of one block at a time): a slow client
 * only ever fills its own queue, ingest never waits for it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "stream_priv.h"

#define QBLOCK         (64 * 1024)
#define LINE_MAX_BYTES 2048
#define REQ_MAX        1024

struct qblock {
	struct qblock *next;
	size_t len, sent;
	char data[QBLOCK];
};

struct client {
	struct client *next;
	struct client_set *cs;
	uv_pipe_t pipe;
	uv_write_t wreq;
	uint32_t id;
	pid_t peer_pid;
	bool streaming, closing, writing;
	char req[REQ_MAX];
	size_t req_len;
	struct stream_filter f;
	/* queue */
	struct qblock *head, *tail;
	size_t nblocks, max_blocks, inflight;
	uint64_t queued;
	uint64_t queued_peak; /* the most ever queued */
	uint64_t base; /* cs->delivered when it began streaming */
	uint64_t sent, drops_pending, drops_total, last_ts, first_drop_ts;
};

static const char *string_of(void *arg, uint32_t id)
{
	const struct tab_entry *e = tab_get(arg, id);
	return e ? e->data : NULL;
}

static void client_free_cb(uv_handle_t *h)
{
	struct client *c = h->data;
	while (c->head) {
		struct qblock *b = c->head;
		c->head = b->next;
		free(b);
	}
	free(c);
}

static void client_close(struct client *c)
{
	if (c->closing)
		return;
	c->closing = true;
	struct client **pp = &c->cs->head;
	while (*pp && *pp != c)
		pp = &(*pp)->next;
	if (*pp)
		*pp = c->next;
	uv_close((uv_handle_t *)&c->pipe, client_free_cb);
}

/* Append one line (with its newline) if the queue has room. */
static bool queue_line(struct client *c, const char *line, size_t len)
{
	if (!c->tail || c->tail->len + len > QBLOCK) {
		if (c->nblocks >= c->max_blocks)
			return false;
		struct qblock *b = malloc(sizeof(*b));
		if (!b)
			return false;
		b->next = NULL;
		b->len = b->sent = 0;
		if (c->tail)
			c->tail->next = b;
		else
			c->head = b;
		c->tail = b;
		c->nblocks++;
	}
	memcpy(c->tail->data + c->tail->len, line, len);
	c->tail->len += len;
	c->queued += len;
	if (c->queued > c->queued_peak)
		c->queued_peak = c->queued;
	return true;
}

static void kick(struct client *c);
static bool send_drop_notice(struct client *c);

static void on_written(uv_write_t *req, int status)
{
	struct client *c = req->data;
	c->writing = false;
	if (c->closing)
		return;
	if (status < 0) {
		client_close(c);
		return;
	}
	struct qblock *b = c->head;
	b->sent += c->inflight;
	c->queued -= c->inflight;
	c->inflight = 0;
	if (b->sent == b->len) {
		if (b != c->tail) {
			c->head = b->next;
			free(b);
			c->nblocks--;
		} else {
			b->len = b->sent = 0;
		}
	}
	if (c->drops_pending)
		send_drop_notice(c); /* room again: say what was lost */
	kick(c);
}

static void kick(struct client *c)
{
	if (c->writing || c->closing || !c->head)
		return;
	struct qblock *b = c->head;
	if (b->sent == b->len)
		return;
	c->inflight = b->len - b->sent;
	uv_buf_t buf = uv_buf_init(b->data + b->sent, (unsigned)c->inflight);
	c->wreq.data = c;
	if (uv_write(&c->wreq, (uv_stream_t *)&c->pipe, &buf, 1, on_written) < 0) {
		client_close(c);
		return;
	}
	c->writing = true;
}

/* One NDJSON line: {"kind":"event", + the record's object minus its "{". */
static size_t encode_line(const struct argus_event *ev, const struct argus_json_ctx *ctx,
                          char line[LINE_MAX_BYTES])
{
	static const char prefix[] = "{\"kind\":\"event\",";
	const size_t plen = sizeof(prefix) - 1;
	size_t k = argus_event_to_json(ev, ctx, line + plen - 1, LINE_MAX_BYTES - plen);
	if (k > LINE_MAX_BYTES - plen - 1)
		k = LINE_MAX_BYTES - plen - 1; /* cannot happen: records are small */
	memcpy(line, prefix, plen);
	size_t len = plen - 1 + k;
	line[len++] = '\n';
	return len;
}

/* Tell the client what it lost, once there is room for the telling. */
static bool send_drop_notice(struct client *c)
{
	struct argus_event ev = {0};
	ev.ts = c->last_ts;
	ev.type = ARGUS_EV_DROP;
	ev.drop.count = c->drops_pending;
	ev.drop.total = c->drops_total;
	ev.drop.first_ts = c->first_drop_ts;
	ev.drop.source = ARGUS_DROP_CLIENT;
	ev.drop.source_id = c->id;
	char line[LINE_MAX_BYTES];
	size_t n = encode_line(&ev, NULL, line);
	if (!queue_line(c, line, n))
		return false;
	c->drops_pending = 0;
	return true;
}

/* No room for a longest line: a record for it is lost without being
 * encoded, and so is the drop notice (on_written sends it once there is
 * room). A full client cost the daemon's loop two JSON encodings per record
 * it then dropped: in the full storm (perf record of `argus bench storm`,
 * 2026-11-26) JSON encoding was 37 % of the daemon's samples, the refused
 * drop notices alone 24 %, CPU the diagnosis went without. */
static bool no_room(const struct client *c)
{
	return c->nblocks >= c->max_blocks && (!c->tail || c->tail->len + LINE_MAX_BYTES > QBLOCK);
}

static void lost(struct client *c, uint64_t ts);

static bool wants(const struct client *c, const struct argus_event *ev)
{
	return c->streaming && !c->closing && stream_filter_wants(&c->f, ev);
}

void clients_deliver(struct client_set *cs, const struct argus_event *ev, size_t n)
{
	cs->delivered += n;
	if (!cs->head)
		return;
	struct argus_json_ctx ctx = {string_of, (void *)cs->strings};
	char line[LINE_MAX_BYTES];
	for (size_t i = 0; i < n; i++) {
		size_t len = 0; /* encoded lazily: only when some client wants it */
		for (struct client *c = cs->head; c; c = c->next) {
			if (!wants(c, &ev[i]))
				continue;
			c->last_ts = ev[i].ts;
			if (no_room(c)) {
				lost(c, ev[i].ts);
				continue;
			}
			if (!len)
				len = encode_line(&ev[i], &ctx, line); /* once, if wanted */
			if (c->drops_pending && !send_drop_notice(c)) {
				c->drops_pending++;
				c->drops_total++;
				cs->drops_total++;
				continue;
			}
			if (queue_line(c, line, len)) {
				c->sent++;
			} else {
				if (!c->drops_pending)
					c->first_drop_ts = ev[i].ts;
				c->drops_pending++;
				c->drops_total++;
				cs->drops_total++;
			}
		}
	}
	for (struct client *c = cs->head; c; c = c->next)
		kick(c);
}

static void lost(struct client *c, uint64_t ts)
{
	if (!c->drops_pending)
		c->first_drop_ts = ts;
	c->drops_pending++;
	c->drops_total++;
	c->cs->drops_total++;
}

void clients_publish(struct client_set *cs, const char *kind, uint32_t pid, const char *json)
{
	int bit = stream_kind_bit(kind);
	if (bit <= 0 || !cs->head)
		return; /* records go through clients_deliver */
	size_t len = strlen(json);
	char *line = malloc(len + 1);
	if (!line)
		return;
	memcpy(line, json, len);
	line[len++] = '\n';
	for (struct client *c = cs->head; c; c = c->next) {
		if (!c->streaming || c->closing || !stream_filter_wants_line(&c->f, bit, pid))
			continue;
		if (c->drops_pending && !send_drop_notice(c)) {
			lost(c, c->last_ts);
			continue;
		}
		if (len <= QBLOCK && queue_line(c, line, len))
			c->sent++;
		else
			lost(c, c->last_ts);
	}
	free(line);
	for (struct client *c = cs->head; c; c = c->next)
		kick(c);
}

static void on_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
	(void)hint;
	struct client *c = h->data;
	size_t room = REQ_MAX - c->req_len;
	*buf = uv_buf_init(c->req + c->req_len, (unsigned)(room ? room : 0));
}

/* After a refusal line has been sent. */
static void on_refused(uv_shutdown_t *req, int status)
{
	(void)status;
	struct client *c = req->handle->data;
	free(req);
	client_close(c);
}

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
	(void)buf;
	struct client *c = s->data;
	if (nread < 0) {
		client_close(c); /* EOF or error: the client left */
		return;
	}
	if (c->streaming) {
		c->req_len = 0; /* nothing more is expected; discard */
		return;
	}
	c->req_len += (size_t)nread;
	char *nl = memchr(c->req, '\n', c->req_len);
	if (!nl) {
		if (c->req_len == REQ_MAX)
			goto refuse_long;
		return;
	}
	*nl = '\0';
	char why[STREAM_WHY_MAX];
	if (!stream_request_parse(&c->f, c->req, why, sizeof(why))) {
		char line[STREAM_WHY_MAX * 6 + 64];
		queue_line(c, line, stream_error_line(why, line, sizeof(line)));
		kick(c);
		uv_read_stop(s);
		uv_shutdown_t *sreq = malloc(sizeof(*sreq));
		if (!sreq || uv_shutdown(sreq, s, on_refused) < 0) {
			free(sreq);
			client_close(c);
		}
		return;
	}
	char hello[256];
	int n = snprintf(hello, sizeof(hello),
	                 "{\"kind\":\"hello\",\"stream_version\":%d,\"schema\":%d,\"client\":%u,"
	                 "\"queue_bytes\":%zu}\n",
	                 ARGUS_STREAM_VERSION, ARGUS_SCHEMA_VERSION, c->id, c->max_blocks * QBLOCK);
	queue_line(c, hello, (size_t)n);
	c->streaming = true;
	c->base = c->cs->delivered;
	kick(c);
	return;
refuse_long:
	client_close(c);
}

void clients_adopt(struct client_set *cs, int fd)
{
	struct client *c = calloc(1, sizeof(*c));
	if (!c) {
		close(fd);
		return;
	}
	c->cs = cs;
	c->id = ++cs->next_id;
	c->max_blocks = cs->queue_limit / QBLOCK ? cs->queue_limit / QBLOCK : 1;
	uv_pipe_init(cs->loop, &c->pipe, 0);
	c->pipe.data = c;
	struct ucred cr;
	socklen_t l = sizeof(cr);
	if (!getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &l))
		c->peer_pid = cr.pid;
	if (uv_pipe_open(&c->pipe, fd)) {
		close(fd);
		c->closing = true;
		uv_close((uv_handle_t *)&c->pipe, client_free_cb);
		return;
	}
	c->next = cs->head;
	cs->head = c;
	cs->connected_total++;
	uv_read_start((uv_stream_t *)&c->pipe, on_alloc, on_read);
}

unsigned clients_count(const struct client_set *cs)
{
	unsigned n = 0;
	for (const struct client *c = cs->head; c; c = c->next)
		n++;
	return n;
}

size_t clients_status(const struct client_set *cs, char *buf, size_t cap, bool json)
{
	size_t len = 0;
	bool first = true;
	if (cap)
		buf[0] = '\0';
	for (const struct client *c = cs->head; c && len < cap; c = c->next) {
		int n;
		if (json)
			n = snprintf(buf + len, cap - len,
			             "%s{\"id\":%u,\"pid\":%d,\"sent\":%" PRIu64
			             ",\"queued_bytes\":%" PRIu64 ",\"queued_peak_bytes\":%" PRIu64
			             ",\"drops\":%" PRIu64 ",\"delivered\":%" PRIu64 "}",
			             first ? "" : ",", c->id, (int)c->peer_pid, c->sent, c->queued,
			             c->queued_peak,
			             c->drops_total, c->streaming ? c->cs->delivered - c->base : 0);
		else
			n = snprintf(buf + len, cap - len,
			             "  client %u: pid %d, sent %" PRIu64 ", queued %" PRIu64
			             " bytes, dropped %" PRIu64 "%s\n",
			             c->id, (int)c->peer_pid, c->sent, c->queued, c->drops_total,
			             c->streaming ? "" : " (handshake)");
		if (n < 0)
			break;
		len += (size_t)n;
		first = false;
	}
	return len < cap ? len : cap;
}

void clients_close_all(struct client_set *cs)
{
	while (cs->head) {
		struct client *c = cs->head;
		if (c->drops_pending)
			send_drop_notice(c);
		/* Last chance to send what is queued without blocking. */
		if (!c->writing)
			for (struct qblock *b = c->head; b; b = b->next) {
				uv_buf_t ub =
				    uv_buf_init(b->data + b->sent, (unsigned)(b->len - b->sent));
				int w = uv_try_write((uv_stream_t *)&c->pipe, &ub, 1);
				if (w < 0 || (size_t)w < b->len - b->sent)
					break;
			}
		client_close(c);
	}
}
