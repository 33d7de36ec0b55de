/* The daemon end to end: ring -> merge -> sink / JSON clients / recorder,
 * control requests, permissions. */
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <sys/wait.h>

#include "daemon_fixture.h"
#include "stream_priv.h"

/* A consumer that checks order (runs on the daemon thread; read after join). */
struct count_sink {
	uint64_t n, out_of_order, last_ts;
};

static int count_events(void *arg, const struct argus_event *ev, size_t n)
{
	struct count_sink *c = arg;
	for (size_t i = 0; i < n; i++) {
		if (ev[i].ts < c->last_ts)
			c->out_of_order++;
		c->last_ts = ev[i].ts;
	}
	c->n += n;
	return 0;
}

static void write_events(struct fixture *f, uint64_t base, unsigned n, uint16_t type, uint32_t pid)
{
	for (unsigned i = 0; i < n; i++) {
		struct argus_event e = fx_ev(base + i * 1000ull, type, pid);
		ASSERT_EQ(argus_ring_write(f->prod, &e), 1);
	}
}

TEST(records_reach_sink_in_order_and_status_counts)
{
	struct fixture f;
	struct count_sink cs = {0};
	struct argus_sink sink = {.events = count_events, .arg = &cs};
	struct argus_daemon_opts o = {.rec_dir = ""};
	fx_start(&f, &o, 4096, &sink);
	write_events(&f, fx_now() - 1000000000ull, 1000, ARGUS_EV_SCHED_SWITCH, 7);
	ASSERT(fx_wait_status(&f, "\"total\":1000,"));
	int mfd = memfd_create("text", 0);
	ASSERT_EQ(argus_daemon_request(f.run, "status", mfd), 0);
	char text[8192] = "";
	ASSERT(pread(mfd, text, sizeof(text) - 1, 0) > 0);
	close(mfd);
	ASSERT_CONTAINS(text, "sched_switch");
	ASSERT_CONTAINS(text, "recorder: off");
	ASSERT_CONTAINS(text, "clients: 0 connected");
	fx_stop(&f);
	ASSERT_U64_EQ(cs.n, 1000);
	ASSERT_U64_EQ(cs.out_of_order, 0);
	char path[200];
	snprintf(path, sizeof(path), "%s/%s", f.run, CONTROL_SOCK);
	ASSERT(access(path, F_OK) != 0); /* sockets removed on the way out */
	fx_cleanup(&f);
}

TEST(unknown_control_request_gets_an_error_line)
{
	struct fixture f;
	struct argus_daemon_opts o = {.rec_dir = ""};
	fx_start(&f, &o, 64, NULL);
	int mfd = memfd_create("text", 0);
	ASSERT_EQ(argus_daemon_request(f.run, "frobnicate", mfd), 0);
	char text[512] = "";
	ASSERT(pread(mfd, text, sizeof(text) - 1, 0) > 0);
	close(mfd);
	ASSERT_CONTAINS(text, "error: unknown request 'frobnicate'");
	fx_stop(&f);
	fx_cleanup(&f);
}

TEST(stream_clients_get_ndjson_with_their_filters)
{
	struct fixture f;
	struct argus_daemon_opts o = {.rec_dir = ""};
	fx_start(&f, &o, 4096, NULL);
	int a = fx_connect(f.run, STREAM_SOCK), b = fx_connect(f.run, STREAM_SOCK);
	ASSERT(a >= 0 && b >= 0);
	ASSERT_EQ(write(a, "stream v=1\n", 11), 11);
	const char *rb = "stream v=1 types=futex_wait pids=42\n";
	ASSERT_EQ(write(b, rb, strlen(rb)), (ssize_t)strlen(rb));
	char line[2048];
	ASSERT(fx_line(a, line, sizeof(line), 3000));
	ASSERT_CONTAINS(line, "\"kind\":\"hello\",\"stream_version\":1");
	ASSERT(fx_line(b, line, sizeof(line), 3000));
	ASSERT_CONTAINS(line, "\"kind\":\"hello\"");
	uint64_t t = fx_now() - 1000000000ull;
	write_events(&f, t, 10, ARGUS_EV_SCHED_SWITCH, 7);
	write_events(&f, t + 20000, 5, ARGUS_EV_FUTEX_WAIT, 42);
	write_events(&f, t + 40000, 5, ARGUS_EV_FUTEX_WAIT, 43);
	for (int i = 0; i < 20; i++) {
		ASSERT_MSG(fx_line(a, line, sizeof(line), 3000), "client a got %d of 20 lines", i);
		ASSERT_CONTAINS(line, "{\"kind\":\"event\",\"ts\":");
	}
	for (int i = 0; i < 5; i++) {
		ASSERT_MSG(fx_line(b, line, sizeof(line), 3000), "client b got %d of 5 lines", i);
		ASSERT_CONTAINS(line, "\"type\":\"futex_wait\"");
		ASSERT_CONTAINS(line, "\"pid\":42,");
	}
	ASSERT_EQ(fx_line(b, line, sizeof(line), 200), 0); /* nothing else for b */
	ASSERT(fx_wait_status(&f, "\"clients\":[{"));
	close(a);
	close(b);
	fx_stop(&f);
	fx_cleanup(&f);
}

TEST(bad_stream_request_is_refused_with_a_reason)
{
	struct fixture f;
	struct argus_daemon_opts o = {.rec_dir = ""};
	fx_start(&f, &o, 64, NULL);
	int a = fx_connect(f.run, STREAM_SOCK);
	ASSERT(a >= 0);
	ASSERT_EQ(write(a, "stream v=1 types=nosuch\n", 24), 24);
	char line[512];
	ASSERT(fx_line(a, line, sizeof(line), 3000));
	ASSERT_CONTAINS(line, "\"kind\":\"error\"");
	ASSERT_CONTAINS(line, "unknown event type 'nosuch'");
	ASSERT_EQ(fx_line(a, line, sizeof(line), 3000), 0); /* then closed */
	close(a);
	fx_stop(&f);
	fx_cleanup(&f);
}

TEST(slow_client_never_slows_ingest_and_is_told_of_drops)
{
	enum { N = 100000 };
	struct fixture f;
	struct count_sink cs = {0};
	struct argus_sink sink = {.events = count_events, .arg = &cs};
	struct argus_daemon_opts o = {.rec_dir = "", .client_queue_bytes = 64 * 1024};
	fx_start(&f, &o, 1u << 17, &sink);
	int c = fx_connect(f.run, STREAM_SOCK);
	ASSERT(c >= 0);
	ASSERT_EQ(write(c, "stream v=1\n", 11), 11);
	char line[2048];
	ASSERT(fx_line(c, line, sizeof(line), 3000)); /* hello; then stop reading */
	write_events(&f, fx_now() - 2000000000ull, N, ARGUS_EV_SYS_ENTER, 9);
	/* every record went through although the client reads nothing */
	ASSERT(fx_wait_status(&f, "\"total\":100000,"));
	char st[65536];
	ASSERT_EQ(fx_status(&f, st, sizeof(st)), 0);
	char *p = strstr(st, "\"client_drops\":");
	ASSERT(p && strtoull(p + 15, NULL, 10) > 0);
	/* now read: the client learns what it lost */
	/* a notice may straddle two reads: search the seam too */
	static char win[512 + (1 << 16) + 1];
	size_t carry = 0;
	bool told = false;
	for (int i = 0; i < 5000 && !told; i++) {
		struct pollfd pfd = {.fd = c, .events = POLLIN};
		if (poll(&pfd, 1, 3000) <= 0)
			break;
		ssize_t r = read(c, win + carry, 1 << 16);
		if (r <= 0)
			break;
		size_t len = carry + (size_t)r;
		win[len] = '\0';
		char *d = strstr(win, "\"type\":\"drop\"");
		told = d && strstr(d, "\"source\":\"client\"");
		carry = len < 512 ? len : 512;
		memmove(win, win + len - carry, carry);
	}
	ASSERT_MSG(told, "no DROP record with source client reached the slow client");
	close(c);
	fx_stop(&f);
	ASSERT_U64_EQ(cs.n, N);
	fx_cleanup(&f);
}

TEST(a_client_gone_with_records_queued_leaves_the_daemon_running)
{
	/* stream clients that leave while the daemon writes to them (argus
	 * bench storm's zoo case kills its argus stream so): a write that meets
	 * the closed socket (EPIPE, in the tick that delivers, before the
	 * daemon has polled the client's EOF) must not end the daemon
	 * (SIGPIPE); it drops the client and goes on. Each client reads as
	 * fast as it can, then leaves in the middle of a long delivery. */
	enum { ROUNDS = 10, N = 120000 };
	struct fixture f;
	struct count_sink cs = {0};
	struct argus_sink sink = {.events = count_events, .arg = &cs};
	struct argus_daemon_opts o = {.rec_dir = ""};
	fx_start(&f, &o, 1u << 18, &sink);
	uint64_t t = fx_now() - 20000000000ull;
	static char buf[1 << 16];
	for (int r = 0; r < ROUNDS; r++) {
		int c = fx_connect(f.run, STREAM_SOCK);
		ASSERT(c >= 0);
		ASSERT_EQ(write(c, "stream v=1\n", 11), 11);
		char line[2048];
		ASSERT(fx_line(c, line, sizeof(line), 3000));
		write_events(&f, t, N, ARGUS_EV_SYS_ENTER, 9);
		t += N * 1000ull;
		size_t got = 0, want = (size_t)(r + 1) << 19; /* 0.5 .. 5 MiB */
		while (got < want) {
			struct pollfd pfd = {.fd = c, .events = POLLIN};
			if (poll(&pfd, 1, 3000) <= 0)
				break;
			ssize_t k = read(c, buf, sizeof(buf));
			if (k <= 0)
				break;
			got += (size_t)k;
		}
		close(c); /* the daemon is still writing to it */
	}
	char want[64];
	snprintf(want, sizeof(want), "\"total\":%d,", ROUNDS * N);
	ASSERT(fx_wait_status(&f, want));
	ASSERT(fx_wait_status(&f, "\"clients\":[]"));
	fx_stop(&f);
	ASSERT_U64_EQ(cs.n, (uint64_t)ROUNDS * N);
	fx_cleanup(&f);
}

TEST(stop_flushes_everything_to_the_recorder)
{
	struct fixture f;
	struct argus_daemon_opts o = {.chunk_span_ns = 200000000ull};
	fx_start(&f, &o, 1u << 14, NULL);
	uint64_t t = fx_now() - 5000000000ull;
	for (unsigned i = 0; i < 10000; i++) {
		struct argus_event e = fx_ev(t + i * 100000ull, ARGUS_EV_SCHED_WAKEUP, 5); /* 1 s */
		ASSERT_EQ(argus_ring_write(f.prod, &e), 1);
	}
	ASSERT(fx_wait_status(&f, "\"total\":10000,"));
	/* the status text says the recorder is on, and only that */
	int mfd = memfd_create("text", 0);
	ASSERT_EQ(argus_daemon_request(f.run, "status", mfd), 0);
	char text[8192] = "";
	ASSERT(pread(mfd, text, sizeof(text) - 1, 0) > 0);
	close(mfd);
	ASSERT_CONTAINS(text, "recorder: ");
	ASSERT_MSG(!strstr(text, "recorder: off"), "status: %s", text);
	fx_stop(&f);
	struct rec_chunk *ch;
	size_t n;
	ASSERT_EQ(rec_list(f.rec, &ch, &n), 0);
	ASSERT_MSG(n >= 5, "%zu chunks for 1 s of events at 200 ms each", n);
	uint64_t events = 0;
	for (size_t i = 0; i < n; i++) {
		ASSERT(!ch[i].open);
		char path[300];
		snprintf(path, sizeof(path), "%s/%s", f.rec, ch[i].name);
		struct argus_trace_reader *r;
		struct argus_trace_error e;
		ASSERT_EQ(argus_trace_open(&r, path, &e), 0);
		const struct argus_event *ev;
		while (argus_trace_next(r, &ev, &e) > 0)
			events++;
		argus_trace_close(r);
	}
	free(ch);
	ASSERT_U64_EQ(events, 10000);
	fx_cleanup(&f);
}

TEST(hook_rings_come_from_the_socket_and_speak_for_their_process)
{
	struct fixture f;
	struct argus_daemon_opts o = {.rec_dir = ""};
	fx_start(&f, &o, 64, NULL);
	int a = fx_connect(f.run, STREAM_SOCK);
	ASSERT(a >= 0);
	char req[160], line[2048];
	int n = snprintf(req, sizeof(req),
	                 "stream v=1 types=cond_signal,sched_switch,dbus_send,drop pids=%d,1\n",
	                 (int)getpid());
	ASSERT_EQ(write(a, req, (size_t)n), n);
	ASSERT(fx_line(a, line, sizeof(line), 3000)); /* hello */
	char sock[160];
	snprintf(sock, sizeof(sock), "%s/%s", f.hooks, HOOKS_SOCK);
	struct stat st;
	ASSERT_EQ(stat(sock, &st), 0);
	ASSERT_EQ(st.st_mode & 0777, 0666); /* traced applications are not root */
	struct argus_ring *r;
	int s;
	ASSERT_EQ(argus_ring_connect(sock, &r, &s), 0);
	ASSERT_EQ(argus_ring_cpu(r), 1); /* slot 0 is the fixture's ring */
	uint64_t t = fx_now() - 1000000000ull;
	uint32_t me = (uint32_t)getpid();
	for (unsigned i = 0; i < 50; i++) {
		/* claims to be another process: the daemon knows better */
		struct argus_event e = fx_ev(t + i, ARGUS_EV_COND_SIGNAL, 4000000);
		e.tid = me;
		ASSERT_EQ(argus_ring_write(r, &e), 1);
		/* the kernel's word about another process: refused */
		struct argus_event k = fx_ev(t + i, ARGUS_EV_SCHED_SWITCH, 1);
		k.sched_switch.next_pid = k.sched_switch.next_tid = 1;
		ASSERT_EQ(argus_ring_write(r, &k), 1);
	}
	for (int i = 0; i < 50; i++) {
		ASSERT_MSG(fx_line(a, line, sizeof(line), 3000), "got %d of 50 hook records", i);
		ASSERT_CONTAINS(line, "\"type\":\"cond_signal\"");
		ASSERT_CONTAINS(line, "\"flags\":[\"hook\"]");
		char who[64];
		snprintf(who, sizeof(who), "\"pid\":%u,\"tid\":%u,", me, me);
		ASSERT_CONTAINS(line, who);
	}
	/* a thread of another process (init), a string id, a drop record that
	 * blames the kernel: re-attributed, cleared, made the ring's own */
	struct argus_event e = fx_ev(t + 100, ARGUS_EV_DBUS_SEND, 1);
	e.tid = 1;
	e.dbus.member_str = 1;
	e.dbus.dest_str = 2;
	ASSERT_EQ(argus_ring_write(r, &e), 1);
	struct argus_event dr = fx_ev(t + 101, ARGUS_EV_DROP, 1);
	dr.drop.source = ARGUS_DROP_KERNEL_RING;
	dr.drop.source_id = 0;
	dr.drop.count = dr.drop.total = 7;
	ASSERT_EQ(argus_ring_write(r, &dr), 1);
	ASSERT(fx_line(a, line, sizeof(line), 3000));
	char who[64];
	snprintf(who, sizeof(who), "\"pid\":%u,\"tid\":%u,", me, me);
	ASSERT_CONTAINS(line, "\"type\":\"dbus_send\"");
	ASSERT_CONTAINS(line, who);
	ASSERT_MSG(!strstr(line, "\"member\":\"") && !strstr(line, "\"dest\":\""),
	           "a string id from a hook ring was resolved: %s", line);
	ASSERT(fx_line(a, line, sizeof(line), 3000));
	ASSERT_CONTAINS(line, "\"type\":\"drop\"");
	ASSERT_CONTAINS(line, "\"source\":\"hook_ring\",\"source_id\":1,");
	ASSERT_CONTAINS(line, who);
	/* a record from an hour in the future is pulled back to now, marked */
	struct argus_event fut = fx_ev(fx_now() + 3600000000000ull, ARGUS_EV_COND_SIGNAL, 1);
	fut.tid = me;
	ASSERT_EQ(argus_ring_write(r, &fut), 1);
	ASSERT(fx_line(a, line, sizeof(line), 3000));
	ASSERT_CONTAINS(line, "\"flags\":[\"hook\",\"trunc\"]");
	ASSERT(strtoull(strstr(line, "\"ts\":") + 5, NULL, 10) <= fx_now());
	ASSERT(fx_wait_status(&f, "\"kind\":\"hook\""));
	ASSERT(fx_wait_status(&f, "\"records_refused\":50,\"records_reattributed\":2}"));
	argus_ring_close(r);
	close(s); /* the process is done: its ring goes back */
	bool gone = false;
	for (int i = 0; i < 300 && !gone; i++, usleep(10000)) {
		char stj[65536];
		ASSERT_EQ(fx_status(&f, stj, sizeof(stj)), 0);
		gone = !strstr(stj, "\"source\":1,");
	}
	ASSERT_MSG(gone, "the hook ring was not freed after its process left");
	/* its counts stay */
	ASSERT(fx_wait_status(&f, "\"records_refused\":50,\"records_reattributed\":2}"));
	ASSERT_EQ(fx_line(a, line, sizeof(line), 200), 0); /* no sched_switch came */
	close(a);
	fx_stop(&f);
	fx_cleanup(&f);
}

TEST(hook_socket_refuses_a_bad_hello)
{
	struct fixture f;
	struct argus_daemon_opts o = {.rec_dir = ""};
	fx_start(&f, &o, 64, NULL);
	int h = fx_connect(f.hooks, HOOKS_SOCK);
	ASSERT(h >= 0);
	ASSERT_EQ(write(h, "gimme\n", 6), 6);
	char line[256];
	ASSERT(fx_line(h, line, sizeof(line), 3000));
	ASSERT_CONTAINS(line, "error: expected 'hook v=1'");
	close(h);
	fx_stop(&f);
	fx_cleanup(&f);
}

/* Every event type, through the daemon to a client, against the published
 * JSON Schema (python3 with jsonschema validates). */
TEST(stream_lines_match_the_json_schema)
{
	const char *src = getenv("ARGUS_SRC");
	if (!src)
		SKIP("ARGUS_SRC (the source tree, for docs/json-stream.schema.json) is not set");
	if (system("/usr/bin/python3 -c 'import jsonschema' 2>/dev/null") != 0)
		SKIP("python3 with the jsonschema module is not installed");
	struct fixture f;
	struct argus_daemon_opts o = {.rec_dir = ""};
	fx_start(&f, &o, 1024, NULL);
	int a = fx_connect(f.run, STREAM_SOCK);
	ASSERT(a >= 0);
	ASSERT_EQ(write(a, "stream v=1\n", 11), 11);
	char path[128];
	snprintf(path, sizeof(path), "%s/lines.ndjson", f.base);
	FILE *out = fopen(path, "w");
	ASSERT(out);
	char line[4096];
	ASSERT(fx_line(a, line, sizeof(line), 3000));
	fputs(line, out);
	uint64_t t = fx_now() - 1000000000ull;
	unsigned n = 0;
	for (unsigned ty = 0; ty < ARGUS_EV_TYPE_MAX + 2; ty++) {
		struct argus_event e = fx_ev(t + ty, (uint16_t)ty, 100 + ty);
		for (unsigned k = 0; k < sizeof(e.raw); k++)
			e.raw[k] = (uint8_t)(ty * 31 + k * 7); /* junk payloads must still encode */
		e.flags = (uint16_t)(ty & 0x7f);
		ASSERT_EQ(argus_ring_write(f.prod, &e), 1);
		n++;
	}
	for (unsigned i = 0; i < n; i++) {
		ASSERT_MSG(fx_line(a, line, sizeof(line), 3000), "got %u of %u lines", i, n);
		fputs(line, out);
	}
	fclose(out);
	char cmd[1024];
	snprintf(cmd, sizeof(cmd),
	         "/usr/bin/python3 -c 'import json,sys,jsonschema;"
	         "v=jsonschema.Draft202012Validator(json.load(open(sys.argv[1])));"
	         "bad=[(l[:200],e.message[:200]) for l in open(sys.argv[2]) for e in "
	         "v.iter_errors(json.loads(l))];"
	         "print(*bad[:3],sep=chr(10));sys.exit(1 if bad else 0)' "
	         "'%s/docs/json-stream.schema.json' '%s'",
	         src, path);
	ASSERT_MSG(system(cmd) == 0, "stream lines do not match docs/json-stream.schema.json");
	close(a);
	fx_stop(&f);
	fx_cleanup(&f);
}

/* Run fn as user nobody in a child; returns its exit status. */
static int as_nobody(int (*fn)(const struct fixture *), const struct fixture *f)
{
	pid_t p = fork();
	if (p == 0) {
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(99);
		_exit(fn(f));
	}
	int st;
	waitpid(p, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 98;
}

static int try_sockets(const struct fixture *f)
{
	int a = fx_connect(f->run, STREAM_SOCK), b = fx_connect(f->run, CONTROL_SOCK);
	if (a >= 0 || b >= 0)
		return 1; /* got in */
	if (a != -EACCES || b != -EACCES)
		return 2;
	if (opendir(f->rec) != NULL || errno != EACCES)
		return 3; /* could list the recording */
	return 0;
}

TEST(another_user_is_refused)
{
	if (geteuid() != 0)
		SKIP("needs root to switch to user nobody");
	struct fixture f;
	struct argus_daemon_opts o = {0};
	fx_start(&f, &o, 64, NULL);
	write_events(&f, fx_now() - 1000000000ull, 10, ARGUS_EV_SCHED_SWITCH, 7);
	ASSERT(fx_wait_status(&f, "\"total\":10,"));
	ASSERT_EQ(argus_daemon_request(f.run, "flush", -1), 0);
	int rc = as_nobody(try_sockets, &f);
	ASSERT_MSG(rc == 0, "user nobody was not refused (step %d)", rc);
	fx_stop(&f);
	fx_cleanup(&f);
}

static char chunk_path[600]; /* a chunk of the recording, for the child to try */

static int try_reading(const struct fixture *f)
{
	(void)f;
	int fd = open(chunk_path, O_RDONLY);
	if (fd >= 0 || errno != EACCES)
		return 1; /* could read a chunk by its name */
	return 0;
}

/* The first chunk file of the recorder's directory, into chunk_path. */
static bool find_chunk(const struct fixture *f)
{
	DIR *dir = opendir(f->rec);
	struct dirent *de;
	chunk_path[0] = '\0';
	while (dir && (de = readdir(dir)))
		if (strstr(de->d_name, ".argus"))
			snprintf(chunk_path, sizeof(chunk_path), "%s/%s", f->rec, de->d_name);
	if (dir)
		closedir(dir);
	return chunk_path[0];
}

static unsigned mode_of(const char *path)
{
	struct stat st;
	return stat(path, &st) ? 07777 : (unsigned)(st.st_mode & 07777);
}

/* Without --group: the sockets' directory, the recording and its chunks
 * are root's alone (0700 / 0600); nobody cannot read a chunk even by name. */
TEST(recording_is_root_only_without_a_group)
{
	if (geteuid() != 0)
		SKIP("needs root to switch to user nobody");
	struct fixture f;
	struct argus_daemon_opts o = {0};
	fx_start(&f, &o, 64, NULL);
	write_events(&f, fx_now() - 1000000000ull, 10, ARGUS_EV_SCHED_SWITCH, 7);
	ASSERT(fx_wait_status(&f, "\"total\":10,"));
	ASSERT_EQ(argus_daemon_request(f.run, "flush", -1), 0);
	ASSERT_EQ(mode_of(f.run), 0700);
	ASSERT_EQ(mode_of(f.rec), 0700);
	ASSERT(find_chunk(&f));
	ASSERT_EQ(mode_of(chunk_path), 0600);
	chmod(f.rec, 0755); /* even with the directory open, the file is not */
	int rc = as_nobody(try_reading, &f);
	chmod(f.rec, 0700);
	ASSERT_MSG(rc == 0, "user nobody could read %s", chunk_path);
	fx_stop(&f);
	fx_cleanup(&f);
}

static int group_member_reads(const struct fixture *f)
{
	int a = fx_connect(f->run, CONTROL_SOCK);
	if (a < 0)
		return 1;
	if (write(a, "status\n", 7) != 7)
		return 2;
	char line[256];
	if (!fx_line(a, line, sizeof(line), 3000) || !strstr(line, "argus daemon"))
		return 3; /* connected, but the peer check said no */
	close(a);
	int fd = open(chunk_path, O_RDONLY);
	if (fd < 0)
		return 4;
	close(fd);
	return 0;
}

/* argus start --group G: members of G may use the sockets and read the
 * recording (0750 / 0640, group G), as docs/daemon.md says. */
TEST(a_group_may_read_what_it_was_given)
{
	if (geteuid() != 0)
		SKIP("needs root to switch to user nobody");
	struct fixture f;
	struct argus_daemon_opts o = {0};
	fx_start_group(&f, &o, 64, 65534);
	write_events(&f, fx_now() - 1000000000ull, 10, ARGUS_EV_SCHED_SWITCH, 7);
	ASSERT(fx_wait_status(&f, "\"total\":10,"));
	ASSERT_EQ(argus_daemon_request(f.run, "flush", -1), 0);
	ASSERT_EQ(mode_of(f.run), 0750);
	ASSERT_EQ(mode_of(f.rec), 0750);
	ASSERT(find_chunk(&f));
	ASSERT_EQ(mode_of(chunk_path), 0640);
	struct stat st;
	ASSERT_EQ(stat(chunk_path, &st), 0);
	ASSERT_EQ(st.st_gid, 65534);
	int rc = as_nobody(group_member_reads, &f);
	ASSERT_MSG(rc == 0, "a member of the group was refused (step %d)", rc);
	fx_stop(&f);
	fx_cleanup(&f);
}

static int hostile_hook(const struct fixture *f)
{
	char sock[160];
	snprintf(sock, sizeof(sock), "%s/%s", f->hooks, HOOKS_SOCK);
	struct argus_ring *r;
	int s;
	if (argus_ring_connect(sock, &r, &s))
		return 1; /* the hook socket is open to every user */
	uint64_t t = fx_now() - 500000000ull;
	for (unsigned i = 0; i < 20; i++) {
		/* init's pid and thread; a scheduler record about it */
		struct argus_event e = fx_ev(t + i, ARGUS_EV_COND_SIGNAL, 1);
		struct argus_event k = fx_ev(t + i, ARGUS_EV_SCHED_SWITCH, 1);
		if (argus_ring_write(r, &e) != 1 || argus_ring_write(r, &k) != 1)
			return 2;
	}
	usleep(100000);
	argus_ring_close(r);
	close(s);
	return 0;
}

/* Another user's process on the hook socket, claiming to be init: its
 * records carry its own pid (SO_PEERCRED) and thread, scheduler records
 * are refused. */
TEST(a_hooked_process_of_another_user_speaks_only_for_itself)
{
	if (geteuid() != 0)
		SKIP("needs root to switch to user nobody");
	struct fixture f;
	struct argus_daemon_opts o = {.rec_dir = ""};
	fx_start(&f, &o, 64, NULL);
	int a = fx_connect(f.run, STREAM_SOCK);
	ASSERT(a >= 0);
	const char *req = "stream v=1 types=cond_signal,sched_switch\n";
	ASSERT_EQ(write(a, req, strlen(req)), (ssize_t)strlen(req));
	char line[2048];
	ASSERT(fx_line(a, line, sizeof(line), 3000)); /* hello */
	pid_t p = fork();
	if (p == 0) {
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(99);
		_exit(hostile_hook(&f));
	}
	int st;
	waitpid(p, &st, 0);
	ASSERT_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the hooked child failed: %d", st);
	char who[64];
	snprintf(who, sizeof(who), "\"pid\":%d,\"tid\":%d,", (int)p, (int)p);
	for (int i = 0; i < 20; i++) {
		ASSERT_MSG(fx_line(a, line, sizeof(line), 3000), "got %d of 20 records", i);
		ASSERT_CONTAINS(line, "\"type\":\"cond_signal\"");
		ASSERT_CONTAINS(line, who);
	}
	ASSERT_EQ(fx_line(a, line, sizeof(line), 300), 0); /* no scheduler record */
	ASSERT(fx_wait_status(&f, "\"records_refused\":20,\"records_reattributed\":20}"));
	close(a);
	fx_stop(&f);
	fx_cleanup(&f);
}

/* The peer check behind the socket modes: a socket nobody can reach, on
 * which the daemon's check must still say no to nobody and yes to root. */
static int connect_only(const struct fixture *f)
{
	int fd = fx_connect(f->base, "peer.sock");
	if (fd < 0)
		return 1;
	char c;
	ssize_t r = read(fd, &c, 1); /* wait for the verdict to be taken */
	(void)r;
	return 0;
}

TEST(peer_check_refuses_other_users)
{
	if (geteuid() != 0)
		SKIP("needs root to switch to user nobody");
	struct fixture f = {0};
	strcpy(f.base, "/tmp/argus-test-XXXXXX");
	ASSERT(mkdtemp(f.base));
	chmod(f.base, 0777);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/peer.sock", f.base);
	int l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT_EQ(bind(l, (struct sockaddr *)&sa, sizeof(sa)), 0);
	chmod(sa.sun_path, 0777);
	ASSERT_EQ(listen(l, 4), 0);
	pid_t p = fork();
	if (p == 0) {
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(99);
		_exit(connect_only(&f));
	}
	int c = accept(l, NULL, NULL);
	ASSERT(c >= 0);
	ASSERT(!peer_allowed(c, -1));
	ASSERT(peer_allowed(c, 65534)); /* ... unless its group is allowed */
	close(c);
	int st;
	waitpid(p, &st, 0);
	int self = fx_connect(f.base, "peer.sock");
	c = accept(l, NULL, NULL);
	ASSERT(peer_allowed(c, -1)); /* root is */
	close(c);
	close(self);
	close(l);
	fx_cleanup(&f);
}

TEST_MAIN(TEST_ENTRY(records_reach_sink_in_order_and_status_counts),
          TEST_ENTRY(unknown_control_request_gets_an_error_line),
          TEST_ENTRY(stream_clients_get_ndjson_with_their_filters),
          TEST_ENTRY(bad_stream_request_is_refused_with_a_reason),
          TEST_ENTRY(slow_client_never_slows_ingest_and_is_told_of_drops),
          TEST_ENTRY(a_client_gone_with_records_queued_leaves_the_daemon_running),
          TEST_ENTRY(stop_flushes_everything_to_the_recorder),
          TEST_ENTRY(hook_rings_come_from_the_socket_and_speak_for_their_process),
          TEST_ENTRY(hook_socket_refuses_a_bad_hello),
          TEST_ENTRY(stream_lines_match_the_json_schema), TEST_ENTRY(another_user_is_refused),
          TEST_ENTRY(peer_check_refuses_other_users),
          TEST_ENTRY(recording_is_root_only_without_a_group),
          TEST_ENTRY(a_group_may_read_what_it_was_given),
          TEST_ENTRY(a_hooked_process_of_another_user_speaks_only_for_itself))
