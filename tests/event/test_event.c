/* The record schema, names and JSON encoding (event/). */
#include <stdbool.h>
#include <stddef.h>

#include "docfile.h"
#include "event.h"
#include "test.h"

/* A strict JSON syntax check (RFC 8259 subset argus emits: objects,
 * arrays, strings, integers). Returns the position after the value or NULL. */
static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
		p++;
	return p;
}

static const char *json_value(const char *p);

static const char *json_string(const char *p)
{
	if (*p++ != '"')
		return NULL;
	while (*p && *p != '"') {
		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p == '\\') {
			p++;
			if (*p == 'u') {
				for (int i = 1; i <= 4; i++)
					if (!strchr("0123456789abcdefABCDEF", p[i]) || !p[i])
						return NULL;
				p += 4;
			} else if (!strchr("\"\\/bfnrt", *p) || !*p) {
				return NULL;
			}
		}
		p++;
	}
	return *p == '"' ? p + 1 : NULL;
}

static const char *json_value(const char *p)
{
	p = skip_ws(p);
	if (*p == '{' || *p == '[') {
		char close = *p == '{' ? '}' : ']';
		bool obj = *p == '{';
		p = skip_ws(p + 1);
		if (*p == close)
			return p + 1;
		for (;;) {
			if (obj) {
				p = json_string(skip_ws(p));
				if (!p)
					return NULL;
				p = skip_ws(p);
				if (*p++ != ':')
					return NULL;
			}
			p = json_value(p);
			if (!p)
				return NULL;
			p = skip_ws(p);
			if (*p == ',') {
				p++;
				continue;
			}
			return *p == close ? p + 1 : NULL;
		}
	}
	if (*p == '"')
		return json_string(p);
	if (*p == '-')
		p++;
	if (*p < '0' || *p > '9')
		return NULL;
	if (*p == '0' && p[1] >= '0' && p[1] <= '9')
		return NULL;
	while (*p >= '0' && *p <= '9')
		p++;
	return p;
}

static bool json_valid(const char *s)
{
	const char *end = json_value(s);
	return end && *skip_ws(end) == '\0';
}

static const char *resolve(void *arg, uint32_t id)
{
	(void)arg;
	return id == 7 ? "/usr/bin/gedit \"quoted\"" : NULL;
}

static struct argus_event sample(unsigned type)
{
	struct argus_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.ts = 123456789012345ull;
	ev.pid = 4242;
	ev.tid = 4243;
	ev.type = (uint16_t)type;
	ev.cpu = 1;
	for (size_t i = 0; i < sizeof(ev.raw); i++)
		ev.raw[i] = (uint8_t)(0x41 + i); /* printable: comm fields stay ASCII */
	return ev;
}

TEST(record_is_64_bytes)
{
	ASSERT_EQ(sizeof(struct argus_event), 64);
	ASSERT_EQ(offsetof(struct argus_event, raw), 24);
}

TEST(every_type_has_a_unique_name_that_round_trips)
{
	int named = 0;
	for (unsigned t = 0; t < ARGUS_EV_TYPE_MAX; t++) {
		const char *n = argus_event_type_name(t);
		if (!n)
			continue;
		named++;
		ASSERT_EQ(argus_event_type_from_name(n), t);
		ASSERT(argus_event_type_valid(t));
	}
	ASSERT(named >= 40);
	ASSERT(argus_event_type_name(ARGUS_EV_NONE) == NULL);
	ASSERT(argus_event_type_name(9999) == NULL);
	ASSERT_EQ(argus_event_type_from_name("no_such_type"), -1);
	ASSERT_EQ(argus_event_type_from_name(NULL), -1);
}

TEST(every_type_encodes_as_valid_json_with_common_fields)
{
	struct argus_json_ctx ctx = {resolve, NULL};
	char buf[2048];
	for (unsigned t = 0; t < ARGUS_EV_TYPE_MAX + 3; t++) {
		struct argus_event ev = sample(t);
		ev.flags = ARGUS_F_HARDIRQ | ARGUS_F_LATE | 0x8000;
		size_t n = argus_event_to_json(&ev, &ctx, buf, sizeof(buf));
		ASSERT(n < sizeof(buf));
		ASSERT_EQ(strlen(buf), n);
		ASSERT_MSG(json_valid(buf), "type %u: invalid JSON: %s", t, buf);
		ASSERT(strncmp(buf, "{\"ts\":123456789012345,\"type\":", 29) == 0);
		ASSERT_CONTAINS(buf, ",\"cpu\":1,\"pid\":4242,\"tid\":4243");
		ASSERT_CONTAINS(buf, "\"flags\":[\"hardirq\",\"late\",32768]");
		if (!argus_event_type_valid(t))
			ASSERT_CONTAINS(buf, "\"raw\":\"4142");
	}
}

TEST(objects_are_hex_strings_and_peers_named)
{
	struct argus_event ev = sample(ARGUS_EV_IPC_RECV);
	ev.ipc.obj = 0xffff888104c3a000ull;
	ev.ipc.peer_obj = 0xffff888104c3b400ull;
	ev.ipc.ret = 32;
	ev.ipc.fd = 3;
	ev.ipc.nr = 0;
	ev.ipc.obj_kind = ARGUS_OBJ_UNIX;
	char buf[512];
	argus_event_to_json(&ev, NULL, buf, sizeof(buf));
	ASSERT_CONTAINS(buf, "\"type\":\"ipc_recv\"");
	ASSERT_CONTAINS(buf, "\"syscall\":\"read\"");
	ASSERT_CONTAINS(buf, "\"obj_kind\":\"unix\"");
	ASSERT_CONTAINS(buf, "\"obj\":\"0xffff888104c3a000\"");
	ASSERT_CONTAINS(buf, "\"peer_obj\":\"0xffff888104c3b400\"");
	ASSERT_CONTAINS(buf, "\"ret\":32");
}

TEST(every_drop_source_has_its_name)
{
	static const char *const want[] = {"kernel_ring", "hook_ring", "merge", "client",
	                                   "decode",      "stack",     "nested"};
	ASSERT_EQ(sizeof(want) / sizeof(want[0]), ARGUS_DROP_SOURCES);
	for (unsigned src = 0; src < ARGUS_DROP_SOURCES; src++) {
		struct argus_event ev = sample(ARGUS_EV_DROP);
		ev.drop.source = src;
		ev.drop.count = 3;
		char buf[512], w[64];
		argus_event_to_json(&ev, NULL, buf, sizeof(buf));
		snprintf(w, sizeof(w), "\"source\":\"%s\"", want[src]);
		ASSERT_CONTAINS(buf, w);
	}
}

TEST(negative_values_and_extremes)
{
	struct argus_event ev = sample(ARGUS_EV_SYS_EXIT);
	ev.sys_exit.ret = INT64_MIN;
	ev.sys_exit.dur_ns = UINT64_MAX;
	ev.sys_exit.fd = -1;
	char buf[512];
	argus_event_to_json(&ev, NULL, buf, sizeof(buf));
	ASSERT(json_valid(buf));
	ASSERT_CONTAINS(buf, "\"ret\":-9223372036854775808");
	ASSERT_CONTAINS(buf, "\"dur_ns\":18446744073709551615");
	ASSERT_CONTAINS(buf, "\"fd\":-1");
}

TEST(strings_resolve_and_escape)
{
	struct argus_json_ctx ctx = {resolve, NULL};
	struct argus_event ev = sample(ARGUS_EV_PROC_EXEC);
	ev.exec.exe_str = 7;
	memcpy(ev.exec.comm, "a\"b\\c\n\x01\xff", 9);
	char buf[512];
	argus_event_to_json(&ev, &ctx, buf, sizeof(buf));
	ASSERT(json_valid(buf));
	ASSERT_CONTAINS(buf, "\"exe_str\":7,\"exe\":\"/usr/bin/gedit \\\"quoted\\\"\"");
	ASSERT_CONTAINS(buf, "\"comm\":\"a\\\"b\\\\c\\u000a\\u0001\\u00ff");
	/* unresolvable id: only the id */
	ev.exec.exe_str = 8;
	argus_event_to_json(&ev, &ctx, buf, sizeof(buf));
	ASSERT_CONTAINS(buf, "\"exe_str\":8,");
	ASSERT(strstr(buf, "\"exe\":") == NULL);
}

TEST(comm_without_nul_is_bounded)
{
	struct argus_event ev = sample(ARGUS_EV_COMM);
	memset(ev.comm.comm, 'x', sizeof(ev.comm.comm));
	char buf[512];
	argus_event_to_json(&ev, NULL, buf, sizeof(buf));
	ASSERT(json_valid(buf));
	ASSERT_CONTAINS(buf, "\"comm\":\"xxxxxxxxxxxxxxxx\",");
}

TEST(small_buffer_truncates_like_snprintf)
{
	struct argus_event ev = sample(ARGUS_EV_SCHED_SWITCH);
	char full[512], small[16];
	size_t need = argus_event_to_json(&ev, NULL, full, sizeof(full));
	memset(small, 'Z', sizeof(small));
	size_t n = argus_event_to_json(&ev, NULL, small, sizeof(small));
	ASSERT_EQ(n, need);
	ASSERT_EQ(small[sizeof(small) - 1], '\0');
	ASSERT(strncmp(small, full, sizeof(small) - 1) == 0);
	ASSERT_EQ(argus_event_to_json(&ev, NULL, NULL, 0), need);
}

TEST(enums_are_named)
{
	char buf[512];
	struct argus_event ev = sample(ARGUS_EV_DROP);
	ev.drop.source = ARGUS_DROP_CLIENT;
	ev.drop.count = 5;
	argus_event_to_json(&ev, NULL, buf, sizeof(buf));
	ASSERT_CONTAINS(buf, "\"source\":\"client\"");
	ev.drop.source = 99;
	argus_event_to_json(&ev, NULL, buf, sizeof(buf));
	ASSERT_CONTAINS(buf, "\"source\":99");
	ASSERT_STR_EQ(argus_obj_kind_name(ARGUS_OBJ_EVENTFD), "eventfd");
	ASSERT(argus_obj_kind_name(200) == NULL);
	ASSERT_STR_EQ(argus_syscall_name(202), "futex");
	ASSERT_STR_EQ(argus_anomaly_kind_name(ARGUS_ANOMALY_YIELD_LOOP), "yield_loop");
}

/* docs/events.md must document every type the encoder knows. */
TEST(docs_name_every_type)
{
	const char *doc = docfile("events.md");
	for (unsigned t = 0; t < ARGUS_EV_TYPE_MAX; t++) {
		const char *name = argus_event_type_name(t);
		if (!name)
			continue;
		char quoted[64];
		snprintf(quoted, sizeof(quoted), "`%s`", name);
		ASSERT_MSG(strstr(doc, quoted), "docs/events.md does not document %s", name);
	}
}

TEST_MAIN(TEST_ENTRY(record_is_64_bytes), TEST_ENTRY(every_type_has_a_unique_name_that_round_trips),
          TEST_ENTRY(every_type_encodes_as_valid_json_with_common_fields),
          TEST_ENTRY(objects_are_hex_strings_and_peers_named),
          TEST_ENTRY(every_drop_source_has_its_name), TEST_ENTRY(negative_values_and_extremes),
          TEST_ENTRY(strings_resolve_and_escape), TEST_ENTRY(comm_without_nul_is_bounded),
          TEST_ENTRY(small_buffer_truncates_like_snprintf), TEST_ENTRY(enums_are_named),
          TEST_ENTRY(docs_name_every_type))
