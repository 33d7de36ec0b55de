/*
 * request.c - the JSON stream's request line and the filter it sets
 * (docs/json-stream.md "Protocol"). Pure functions over bytes a client
 * sent, apart from the socket code, so the libFuzzer target
 * tests/fuzz/fuzz_stream_request.c drives exactly what the daemon runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream_priv.h"

/* Line kinds a client can ask for (request key "kinds"). */
static const char *const kind_names[] = {"event", "stall", "diagnosis"};
#define NKINDS    (sizeof(kind_names) / sizeof(kind_names[0]))
#define ALL_KINDS ((1u << NKINDS) - 1)

int stream_kind_bit(const char *name)
{
	for (unsigned i = 0; i < NKINDS; i++)
		if (!strcmp(name, kind_names[i]))
			return (int)i;
	return -1;
}

/* A decimal number, all of val, at most max. */
static bool parse_uint(const char *val, unsigned long max, unsigned long *out)
{
	if (*val < '0' || *val > '9')
		return false;
	char *end;
	unsigned long v = strtoul(val, &end, 10);
	if (*end || v > max)
		return false;
	*out = v;
	return true;
}

bool stream_request_parse(struct stream_filter *f, char *line, char *why, size_t whylen)
{
	memset(f, 0, sizeof(*f));
	f->all_types = true;
	f->kinds = ALL_KINDS;
	char *save = NULL;
	char *tok = strtok_r(line, " \t\r", &save);
	if (!tok || strcmp(tok, "stream")) {
		snprintf(why, whylen, "request must start with 'stream'");
		return false;
	}
	while ((tok = strtok_r(NULL, " \t\r", &save))) {
		char *eq = strchr(tok, '=');
		if (!eq) {
			snprintf(why, whylen, "expected key=value, got '%.64s'", tok);
			return false;
		}
		*eq = '\0';
		char *val = eq + 1;
		char *s2 = NULL;
		if (!strcmp(tok, "v")) {
			unsigned long v;
			if (!parse_uint(val, 1000000, &v) || v != ARGUS_STREAM_VERSION) {
				snprintf(why, whylen,
				         "stream version %.16s not supported (this daemon: %d)",
				         val, ARGUS_STREAM_VERSION);
				return false;
			}
		} else if (!strcmp(tok, "types")) {
			f->all_types = false;
			for (char *t = strtok_r(val, ",", &s2); t; t = strtok_r(NULL, ",", &s2)) {
				int ty = argus_event_type_from_name(t);
				if (ty < 0 || ty >= 512) {
					snprintf(why, whylen, "unknown event type '%.64s'", t);
					return false;
				}
				f->types[ty / 64] |= 1ull << (ty % 64);
			}
			/* drops always pass: a client must know what it missed */
			f->types[ARGUS_EV_DROP / 64] |= 1ull << (ARGUS_EV_DROP % 64);
		} else if (!strcmp(tok, "kinds")) {
			f->kinds = 0;
			for (char *t = strtok_r(val, ",", &s2); t; t = strtok_r(NULL, ",", &s2)) {
				int b = stream_kind_bit(t);
				if (b < 0) {
					snprintf(
					    why, whylen,
					    "unknown line kind '%.64s' (event, stall, diagnosis)",
					    t);
					return false;
				}
				f->kinds |= 1u << b;
			}
		} else if (!strcmp(tok, "pids")) {
			for (char *t = strtok_r(val, ",", &s2); t; t = strtok_r(NULL, ",", &s2)) {
				unsigned long p;
				if (!parse_uint(t, UINT32_MAX, &p) || f->npids == STREAM_MAX_PIDS) {
					snprintf(why, whylen,
					         "bad pid list at '%.32s' (at most %d pids)", t,
					         STREAM_MAX_PIDS);
					return false;
				}
				f->pids[f->npids++] = (uint32_t)p;
			}
		} else {
			snprintf(why, whylen, "unknown request key '%.32s'", tok);
			return false;
		}
	}
	return true;
}

static bool pid_wanted(const struct stream_filter *f, uint32_t pid)
{
	if (!f->npids)
		return true;
	for (unsigned i = 0; i < f->npids; i++)
		if (f->pids[i] == pid)
			return true;
	return false;
}

bool stream_filter_wants(const struct stream_filter *f, const struct argus_event *ev)
{
	/* drops always pass: a client must know what it missed */
	if (!(f->kinds & 1u) && ev->type != ARGUS_EV_DROP)
		return false;
	if (!f->all_types && (ev->type >= 512 || !(f->types[ev->type / 64] >> (ev->type % 64) & 1)))
		return false;
	return pid_wanted(f, ev->pid);
}

bool stream_filter_wants_line(const struct stream_filter *f, int kind_bit, uint32_t pid)
{
	if (kind_bit <= 0 || !(f->kinds & (1u << kind_bit)))
		return false;
	return !pid || pid_wanted(f, pid);
}

size_t stream_error_line(const char *why, char *out, size_t cap)
{
	static const char pre[] = "{\"kind\":\"error\",\"message\":";
	char q[STREAM_WHY_MAX * 6 + 3];
	size_t n = argus_json_quote(why, STREAM_WHY_MAX, q, sizeof(q));
	if (n >= sizeof(q))
		n = argus_json_quote("request refused", STREAM_WHY_MAX, q, sizeof(q));
	int k = snprintf(out, cap, "%s%s}\n", pre, q);
	return k < 0 ? 0 : (size_t)k < cap ? (size_t)k : cap - 1;
}
