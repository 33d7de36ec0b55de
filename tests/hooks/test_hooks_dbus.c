/*
 * test_hooks_dbus.c - a GDBus method call from one process to another,
 * both under `argus run`, on a private session bus: the caller's call
 * (serial S) is the callee's received call, and the callee's reply
 * (reply_serial S) is the caller's received reply; with a GDBus caller and
 * with a libdbus one.
 */
#include "hooks_fixture.h"
#include "test.h"

static bool dbus_is(const struct argus_event *e, uint64_t arg)
{
	uint32_t type = (uint32_t)(arg >> 32), serial = (uint32_t)arg;
	if (e->dbus.msg_type != type)
		return false;
	return type == 1 ? e->dbus.serial == serial : e->dbus.reply_serial == serial;
}

#define CALL(s)   ((1ull << 32) | (s))
#define RETURN(s) ((2ull << 32) | (s))

/*
 * Start a private session bus and the GDBus server under `argus run`, run
 * client_cmd under `argus run`, wait for the server to answer once and
 * exit. Fills the client's and the server's results (records, output).
 */
static void call_once(const char *const *client_cmd, struct run_result *c, struct run_result *s)
{
	if (!fx_have("dbus-daemon"))
		SKIP("dbus-daemon not installed");
	char dir[] = "/tmp/argus-hooks-bus.XXXXXX";
	ASSERT(mkdtemp(dir));
	chmod(dir, 0700);
	setenv("XDG_RUNTIME_DIR", dir, 1);
	setenv("HOME", dir, 1);
	char addr[256], bus[200], log[220], srv_out[220], srv_trace[220];
	snprintf(bus, sizeof(bus), "%s/bus", dir);
	snprintf(addr, sizeof(addr), "--address=unix:path=%s", bus);
	snprintf(log, sizeof(log), "%s/daemon.log", dir);
	snprintf(srv_out, sizeof(srv_out), "%s/server.out", dir);
	snprintf(srv_trace, sizeof(srv_trace), "%s/server.argus", dir);
	char *daemon_argv[] = {"dbus-daemon", "--session", "--nofork", "--nopidfile", addr, NULL};
	pid_t daemon = fx_start(daemon_argv, log);
	ASSERT_MSG(fx_wait_for(bus, NULL, 5), "dbus-daemon did not start");
	char env_addr[256];
	snprintf(env_addr, sizeof(env_addr), "unix:path=%s", bus);
	setenv("DBUS_SESSION_BUS_ADDRESS", env_addr, 1);

	char *srv_argv[] = {getenv("ARGUS_BIN"), "run",         "--record", srv_trace, "--",
	                    (char *)HOOKS_PROG,  "dbus-server", NULL};
	pid_t server = fx_start(srv_argv, srv_out);
	bool up = fx_wait_for(srv_out, "name_acquired", 10);
	int cst = up ? fx_argus_run(NULL, client_cmd, 15, NULL, c) : -1;
	int sst = fx_wait(server, 15);
	kill(daemon, SIGTERM);
	fx_wait(daemon, 5);
	memset(s, 0, sizeof(*s));
	fx_slurp(srv_out, s->out, sizeof(s->out));
	fx_read_trace(srv_trace, s);
	char rm[300];
	snprintf(rm, sizeof(rm), "rm -rf %s", dir);
	ASSERT_EQ(system(rm), 0);
	ASSERT_MSG(up, "the server did not get its name");
	ASSERT_MSG(cst == 0, "client: %d %s", cst, c->err);
	ASSERT_EQ(sst, 0);
}

/* The four records of one call, across the two processes. */
static void check_linked(struct run_result *c, struct run_result *s)
{
	uint64_t serial;
	ASSERT_MSG(fx_key(s, "call_serial", &serial), "server output: %s", s->out);
	const struct argus_event *call_sent = fx_find(c, ARGUS_EV_DBUS_SEND, dbus_is, CALL(serial));
	const struct argus_event *call_recv = fx_find(s, ARGUS_EV_DBUS_RECV, dbus_is, CALL(serial));
	const struct argus_event *reply_sent =
	    fx_find(s, ARGUS_EV_DBUS_SEND, dbus_is, RETURN(serial));
	const struct argus_event *reply_recv =
	    fx_find(c, ARGUS_EV_DBUS_RECV, dbus_is, RETURN(serial));
	ASSERT_MSG(call_sent, "caller: no dbus_send of call serial %u", (unsigned)serial);
	ASSERT_MSG(call_recv, "callee: no dbus_recv of call serial %u", (unsigned)serial);
	ASSERT_MSG(reply_sent, "callee: no dbus_send of the reply");
	ASSERT_MSG(reply_recv, "caller: no dbus_recv of the reply");
	ASSERT(call_sent->ts < call_recv->ts);
	ASSERT(call_recv->ts < reply_sent->ts);
	ASSERT(reply_sent->ts < reply_recv->ts);
	ASSERT(call_sent->pid != call_recv->pid);
	ASSERT(call_sent->dbus.conn != 0);
}

TEST(gdbus_call_and_reply_linked_by_serial)
{
	struct run_result c, s;
	const char *cmd[] = {HOOKS_PROG, "dbus-client", NULL};
	call_once(cmd, &c, &s);
	check_linked(&c, &s);
	free(c.ev);
	free(s.ev);
}

TEST(libdbus_call_and_reply_linked_by_serial)
{
#ifdef LIBDBUS_PROG
	struct run_result c, s;
	const char *cmd[] = {LIBDBUS_PROG, NULL};
	call_once(cmd, &c, &s);
	check_linked(&c, &s);
	/* the client's own view agrees */
	uint64_t cs, rs;
	ASSERT(fx_key(&c, "call_serial", &cs) && fx_key(&c, "reply_serial", &rs));
	ASSERT_U64_EQ(cs, rs);
	free(c.ev);
	free(s.ev);
#else
	SKIP("libdbus (dbus-1) development files were not found at build time");
#endif
}

TEST_MAIN(TEST_ENTRY(gdbus_call_and_reply_linked_by_serial),
          TEST_ENTRY(libdbus_call_and_reply_linked_by_serial))
