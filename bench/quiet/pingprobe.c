/*
 * pingprobe - did an app really hang? The window manager's test, with no
 * window manager: every --interval-ms, each mapped top-level window that
 * lists _NET_WM_PING in WM_PROTOCOLS gets a _NET_WM_PING client message
 * (EWMH), and the time until the app sends it back to the root window is
 * its latency. A ping unanswered for --hang-ms (1 s) is a real hang: the
 * app's event loop did not read its X events for that long.
 *
 *   pingprobe [--interval-ms MS] [--hang-ms MS] [--out FILE]
 *
 * Runs until SIGINT / SIGTERM (or the X server goes), then writes one
 * line per window it saw to --out (default stdout):
 *
 *   window 0x600003 pid=1234 class=gedit ping=yes sent=240 answered=239
 *          max_ms=12.3 hangs=0 longest_ms=0.0 seen_s=60.1 title=...
 *
 * A window without _NET_WM_PING is listed with ping=no and not probed: an
 * X round trip of the probe's own (XSync) would time the X server, not the
 * app. pid is _NET_WM_PID, else the X-Resource extension's client pid, else
 * 0. Each hang is also logged on stderr as it is seen.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xcb/res.h>
#include <xcb/xcb.h>

#define MAX_WINDOWS 512
#define SCAN_EVERY  4 /* ticks between two scans for windows */

struct win {
	xcb_window_t id;
	uint32_t pid;
	char cls[64], title[128];
	bool ping, live;
	bool inflight, flagged; /* a ping out; already counted as a hang */
	uint32_t seq;
	uint64_t sent_ns, nsent, nanswered;
	double max_ms, longest_ms;
	unsigned hangs;
	uint64_t first_ns, last_ns;
};

static struct win wins[MAX_WINDOWS];
static int nwins;
static volatile sig_atomic_t stop;
static xcb_connection_t *xc;
static xcb_window_t root;
static xcb_atom_t a_protocols, a_ping, a_pid, a_name, a_utf8;
static bool have_res;

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static xcb_atom_t atom(const char *name)
{
	xcb_intern_atom_reply_t *r =
	    xcb_intern_atom_reply(xc, xcb_intern_atom(xc, 0, (uint16_t)strlen(name), name), NULL);
	xcb_atom_t a = r ? r->atom : XCB_ATOM_NONE;
	free(r);
	return a;
}

/* A property's value (at most cap bytes, NUL-terminated), its length or -1. */
static int prop(xcb_window_t w, xcb_atom_t name, xcb_atom_t type, void *out, int cap)
{
	xcb_get_property_reply_t *r = xcb_get_property_reply(
	    xc, xcb_get_property(xc, 0, w, name, type, 0, (uint32_t)cap / 4 + 1), NULL);
	if (!r || r->type == XCB_ATOM_NONE) {
		free(r);
		return -1;
	}
	int len = xcb_get_property_value_length(r);
	if (len >= cap)
		len = cap - 1;
	memcpy(out, xcb_get_property_value(r), (size_t)len);
	((char *)out)[len] = 0;
	free(r);
	return len;
}

/* The pid of the client that made w, from the X-Resource extension. */
static uint32_t res_pid(xcb_window_t w)
{
	if (!have_res)
		return 0;
	xcb_res_client_id_spec_t spec = {w, XCB_RES_CLIENT_ID_MASK_LOCAL_CLIENT_PID};
	xcb_res_query_client_ids_reply_t *r =
	    xcb_res_query_client_ids_reply(xc, xcb_res_query_client_ids(xc, 1, &spec), NULL);
	uint32_t pid = 0;
	if (r) {
		xcb_res_client_id_value_iterator_t it = xcb_res_query_client_ids_ids_iterator(r);
		for (; it.rem; xcb_res_client_id_value_next(&it))
			if (it.data->spec.mask & XCB_RES_CLIENT_ID_MASK_LOCAL_CLIENT_PID &&
			    xcb_res_client_id_value_value_length(it.data) >= 1)
				pid = xcb_res_client_id_value_value(it.data)[0];
		free(r);
	}
	return pid;
}

static void learn(struct win *w)
{
	xcb_atom_t protos[64];
	int n = prop(w->id, a_protocols, XCB_ATOM_ATOM, protos, (int)sizeof(protos));
	for (int i = 0; n > 0 && i < n / 4; i++)
		w->ping |= protos[i] == a_ping;
	uint32_t pid[2];
	if (prop(w->id, a_pid, XCB_ATOM_CARDINAL, pid, (int)sizeof(pid)) >= 4)
		w->pid = pid[0];
	else
		w->pid = res_pid(w->id);
	/* WM_CLASS is "instance\0class\0": keep the instance */
	if (prop(w->id, XCB_ATOM_WM_CLASS, XCB_ATOM_STRING, w->cls, (int)sizeof(w->cls)) < 0)
		snprintf(w->cls, sizeof(w->cls), "?");
	if (prop(w->id, a_name, a_utf8, w->title, (int)sizeof(w->title)) < 0 &&
	    prop(w->id, XCB_ATOM_WM_NAME, XCB_ATOM_STRING, w->title, (int)sizeof(w->title)) < 0)
		w->title[0] = 0;
	for (char *p = w->title; *p; p++)
		if (*p == '\n')
			*p = ' ';
	for (char *p = w->cls; *p; p++)
		if (*p == ' ')
			*p = '_';
}

static struct win *find(xcb_window_t id)
{
	for (int i = 0; i < nwins; i++)
		if (wins[i].id == id)
			return &wins[i];
	return NULL;
}

/* A ping out for hang_ns or more counts once as a hang, when first seen. */
static void check_hang(struct win *w, uint64_t now, uint64_t hang_ns)
{
	if (w->inflight && !w->flagged && now - w->sent_ns >= hang_ns) {
		w->flagged = true;
		w->hangs++;
		if ((double)(now - w->sent_ns) / 1e6 > w->longest_ms)
			w->longest_ms = (double)(now - w->sent_ns) / 1e6;
		fprintf(stderr,
		        "pingprobe: hang: window 0x%x pid %u (%s) no ping reply for %.0f ms\n",
		        w->id, w->pid, w->cls, (double)(now - w->sent_ns) / 1e6);
	}
}

/* The window went (an Open dialog closed) or was unmapped: a ping still out
 * is dropped, a hang only if it had already been counted as one while the
 * window was there (the app may have destroyed it before reading the ping). */
static void gone(struct win *w, uint64_t now)
{
	w->live = false;
	if (w->inflight && w->flagged && (double)(now - w->sent_ns) / 1e6 > w->longest_ms)
		w->longest_ms = (double)(now - w->sent_ns) / 1e6;
	w->inflight = false;
}

/* The mapped, managed children of the root: windows come and go. */
static void scan(uint64_t now)
{
	for (int i = 0; i < nwins; i++)
		wins[i].live = false;
	xcb_query_tree_reply_t *t = xcb_query_tree_reply(xc, xcb_query_tree(xc, root), NULL);
	if (!t)
		return;
	xcb_window_t *kids = xcb_query_tree_children(t);
	int n = xcb_query_tree_children_length(t);
	for (int i = 0; i < n; i++) {
		xcb_get_window_attributes_reply_t *a = xcb_get_window_attributes_reply(
		    xc, xcb_get_window_attributes(xc, kids[i]), NULL);
		bool shown = a && a->map_state == XCB_MAP_STATE_VIEWABLE && !a->override_redirect;
		free(a);
		if (!shown)
			continue;
		struct win *w = find(kids[i]);
		if (!w && nwins < MAX_WINDOWS) {
			w = &wins[nwins++];
			memset(w, 0, sizeof(*w));
			w->id = kids[i];
			w->first_ns = now;
			learn(w);
		}
		if (w) {
			w->live = true;
			w->last_ns = now;
		}
	}
	free(t);
	for (int i = 0; i < nwins; i++)
		if (!wins[i].live)
			gone(&wins[i], now);
}

static void send_ping(struct win *w, uint64_t now)
{
	xcb_client_message_event_t ev;
	memset(&ev, 0, sizeof(ev));
	ev.response_type = XCB_CLIENT_MESSAGE;
	ev.format = 32;
	ev.window = w->id;
	ev.type = a_protocols;
	ev.data.data32[0] = a_ping;
	ev.data.data32[1] = XCB_CURRENT_TIME;
	ev.data.data32[2] = w->id;
	ev.data.data32[3] = ++w->seq; /* echoed back: which ping the reply is for */
	/* no event mask: delivered to the client that made the window */
	xcb_send_event(xc, 0, w->id, XCB_EVENT_MASK_NO_EVENT, (const char *)&ev);
	w->inflight = true;
	w->flagged = false;
	w->sent_ns = now;
	w->nsent++;
}

static void on_event(xcb_generic_event_t *e)
{
	uint8_t type = e->response_type & 0x7f;
	if (type == XCB_UNMAP_NOTIFY || type == XCB_DESTROY_NOTIFY) {
		/* at once, not at the next scan: a ping to a closed dialog
		 * is no hang */
		xcb_window_t id = type == XCB_UNMAP_NOTIFY
		                      ? ((xcb_unmap_notify_event_t *)e)->window
		                      : ((xcb_destroy_notify_event_t *)e)->window;
		struct win *w = find(id);
		if (w)
			gone(w, now_ns());
		return;
	}
	if (type != XCB_CLIENT_MESSAGE)
		return;
	xcb_client_message_event_t *cm = (xcb_client_message_event_t *)e;
	if (cm->window != root || cm->type != a_protocols || cm->data.data32[0] != a_ping)
		return;
	struct win *w = find(cm->data.data32[2]);
	if (!w || !w->inflight || cm->data.data32[3] != w->seq)
		return;
	double ms = (double)(now_ns() - w->sent_ns) / 1e6;
	w->inflight = false;
	w->nanswered++;
	if (ms > w->max_ms)
		w->max_ms = ms;
	if (w->flagged && ms > w->longest_ms)
		w->longest_ms = ms;
}

static void report(FILE *f, uint64_t t0, unsigned interval_ms, unsigned hang_ms)
{
	uint64_t end = now_ns();
	fprintf(f, "probe interval_ms=%u hang_ms=%u duration_s=%.1f windows=%d\n", interval_ms,
	        hang_ms, (double)(end - t0) / 1e9, nwins);
	for (int i = 0; i < nwins; i++) {
		struct win *w = &wins[i];
		if (w->inflight) {
			/* still out at the end: its wait so far */
			double ms = (double)(end - w->sent_ns) / 1e6;
			if (ms >= hang_ms) {
				if (!w->flagged)
					w->hangs++;
				if (ms > w->longest_ms)
					w->longest_ms = ms;
			}
		}
		fprintf(f,
		        "window 0x%x pid=%u class=%s ping=%s sent=%" PRIu64 " answered=%" PRIu64
		        " max_ms=%.1f hangs=%u longest_ms=%.1f seen_s=%.1f title=%s\n",
		        w->id, w->pid, w->cls, w->ping ? "yes" : "no", w->nsent, w->nanswered,
		        w->max_ms, w->hangs, w->longest_ms,
		        (double)(w->last_ns - w->first_ns) / 1e9, w->title);
	}
	fflush(f);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {{"interval-ms", required_argument, 0, 'i'},
	                                     {"hang-ms", required_argument, 0, 'g'},
	                                     {"out", required_argument, 0, 'o'},
	                                     {0, 0, 0, 0}};
	unsigned interval_ms = 250, hang_ms = 1000;
	const char *out = NULL;
	int c;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'i')
			interval_ms = (unsigned)strtoul(optarg, NULL, 10);
		else if (c == 'g')
			hang_ms = (unsigned)strtoul(optarg, NULL, 10);
		else if (c == 'o')
			out = optarg;
		else {
			fprintf(
			    stderr,
			    "usage: pingprobe [--interval-ms MS] [--hang-ms MS] [--out FILE]\n");
			return 2;
		}
	}
	if (!interval_ms || !hang_ms) {
		fprintf(stderr, "pingprobe: intervals must be > 0\n");
		return 2;
	}
	int screen;
	xc = xcb_connect(NULL, &screen);
	if (xcb_connection_has_error(xc)) {
		fprintf(stderr, "pingprobe: cannot open the display %s\n",
		        getenv("DISPLAY") ? getenv("DISPLAY") : "(DISPLAY unset)");
		return 1;
	}
	xcb_screen_iterator_t it = xcb_setup_roots_iterator(xcb_get_setup(xc));
	for (; screen > 0 && it.rem; screen--)
		xcb_screen_next(&it);
	root = it.data->root;
	a_protocols = atom("WM_PROTOCOLS");
	a_ping = atom("_NET_WM_PING");
	a_pid = atom("_NET_WM_PID");
	a_name = atom("_NET_WM_NAME");
	a_utf8 = atom("UTF8_STRING");
	const xcb_query_extension_reply_t *ext = xcb_get_extension_data(xc, &xcb_res_id);
	have_res = ext && ext->present;
	/* replies come to the root with SubstructureNotify | SubstructureRedirect
	 * (EWMH, GTK) or StructureNotify | SubstructureRedirect (Qt 5) */
	uint32_t mask = XCB_EVENT_MASK_STRUCTURE_NOTIFY | XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY;
	xcb_change_window_attributes(xc, root, XCB_CW_EVENT_MASK, &mask);
	xcb_flush(xc);

	struct sigaction sa = {.sa_handler = on_signal};
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	uint64_t t0 = now_ns(), next = t0, hang_ns = (uint64_t)hang_ms * 1000000u;
	unsigned tick = 0;
	struct pollfd pfd = {.fd = xcb_get_file_descriptor(xc), .events = POLLIN};
	while (!stop && !xcb_connection_has_error(xc)) {
		uint64_t now = now_ns();
		if (now >= next) {
			if (tick++ % SCAN_EVERY == 0)
				scan(now);
			for (int i = 0; i < nwins; i++) {
				struct win *w = &wins[i];
				if (!w->live || !w->ping)
					continue;
				check_hang(w, now, hang_ns);
				if (!w->inflight)
					send_ping(w, now);
			}
			xcb_flush(xc);
			next += (uint64_t)interval_ms * 1000000u;
			if (next < now)
				next = now; /* the probe itself was late: no burst */
		}
		xcb_generic_event_t *e;
		while ((e = xcb_poll_for_event(xc))) {
			on_event(e);
			free(e);
		}
		now = now_ns();
		int wait_ms = next > now ? (int)((next - now) / 1000000u) + 1 : 0;
		if (poll(&pfd, 1, wait_ms) < 0 && errno != EINTR)
			break;
	}
	FILE *f = out ? fopen(out, "w") : stdout;
	if (!f) {
		fprintf(stderr, "pingprobe: cannot write %s: %s\n", out, strerror(errno));
		f = stdout;
	}
	report(f, t0, interval_ms, hang_ms);
	if (f != stdout)
		fclose(f);
	xcb_disconnect(xc);
	return 0;
}
