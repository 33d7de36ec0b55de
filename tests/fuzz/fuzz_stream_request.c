/*
 * libFuzzer target: the request line a JSON stream client sends
 * (docs/json-stream.md "Protocol"), parsed as the daemon parses it
 * (stream/request.c). Any bytes: no crash; a refusal is one valid JSON
 * line; an accepted request gives a filter that lets drop records through
 * whenever its pid filter does. The same bytes as a control line "more
 * ..." (argus trace-more, docs/daemon.md): parsed or refused with one line,
 * and what is accepted is what its own formatting reads back as.
 * Corpus: tests/fuzz/corpus/request/.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream_priv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQ_MAX 1024 /* the daemon's request buffer (clients.c) */

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			fprintf(stderr, "fuzz_stream_request: %s:%d: %s\n", __FILE__, __LINE__,    \
			        #c);                                                               \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

/* A JSON string literal at *p (RFC 8259): advances past it, false if bad. */
static bool json_string(const char **p)
{
	const char *s = *p;
	if (*s++ != '"')
		return false;
	for (;;) {
		unsigned char c = (unsigned char)*s++;
		if (c == '"')
			break;
		if (c < 0x20)
			return false; /* control characters (and the NUL end) */
		if (c >= 0x80)
			return false; /* the daemon escapes every non-ASCII byte */
		if (c != '\\')
			continue;
		c = (unsigned char)*s++;
		if (c == 'u') {
			for (int i = 0; i < 4; i++)
				if (!strchr("0123456789abcdefABCDEF", *s++) || !s[-1])
					return false;
		} else if (!strchr("\"\\/bfnrt", c) || !c) {
			return false;
		}
	}
	*p = s;
	return true;
}

static void check_error_line(const char *line, size_t len)
{
	CHECK(len > 0 && line[len - 1] == '\n' && strlen(line) == len);
	static const char pre[] = "{\"kind\":\"error\",\"message\":";
	CHECK(!strncmp(line, pre, sizeof(pre) - 1));
	const char *p = line + sizeof(pre) - 1;
	CHECK(json_string(&p));
	CHECK(!strcmp(p, "}\n"));
}

/* The control line "more ..." (stream/more.c). */
static void check_more(const char *line)
{
	struct argus_more_req r, back;
	char why[256], again[256];
	if (!argus_more_parse(line, &r, why, sizeof(why))) {
		CHECK(memchr(why, '\0', sizeof(why)) && !strchr(why, '\n'));
		return;
	}
	CHECK(r.pid >= 1 && r.pid <= 4194304);
	CHECK(r.off ? r.what == 0 && r.for_ns == 0 : r.what != 0 && (r.what & ~7u) == 0);
	CHECK(r.for_ns <= ARGUS_MORE_MAX_NS);
	CHECK(argus_more_format(&r, again, sizeof(again)) > 0);
	CHECK(argus_more_parse(again, &back, why, sizeof(why)));
	CHECK(back.pid == r.pid && back.what == r.what && back.for_ns == r.for_ns &&
	      back.off == r.off);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* what the daemon has when the newline arrives: the bytes before it */
	char req[REQ_MAX];
	size_t n = size < REQ_MAX - 1 ? size : REQ_MAX - 1;
	memcpy(req, data, n);
	char *nl = memchr(req, '\n', n);
	if (nl)
		*nl = '\0';
	else
		req[n] = '\0';
	check_more(req);
	struct stream_filter f;
	char why[STREAM_WHY_MAX];
	if (!stream_request_parse(&f, req, why, sizeof(why))) {
		CHECK(memchr(why, '\0', sizeof(why)));
		char line[STREAM_WHY_MAX * 6 + 64];
		size_t len = stream_error_line(why, line, sizeof(line));
		check_error_line(line, len);
		return 0;
	}
	CHECK(f.npids <= STREAM_MAX_PIDS);
	CHECK((f.kinds & ~7u) == 0);
	/* records from the input's bytes through the filter */
	struct argus_event ev = {0};
	for (size_t i = 0; i + 8 <= size && i < 256; i += 8) {
		uint16_t ty;
		uint32_t pid;
		memcpy(&ty, data + i, 2);
		memcpy(&pid, data + i + 4, 4);
		ev.type = ty;
		ev.pid = pid;
		bool w = stream_filter_wants(&f, &ev);
		ev.type = ARGUS_EV_DROP;
		bool pid_ok = !f.npids;
		for (unsigned k = 0; k < f.npids; k++)
			pid_ok |= f.pids[k] == pid;
		CHECK(stream_filter_wants(&f, &ev) == pid_ok); /* drops always pass */
		(void)w;
		for (int kind = 0; kind < 4; kind++)
			(void)stream_filter_wants_line(&f, kind, pid);
	}
	return 0;
}
