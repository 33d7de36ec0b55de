/*
 * builtin-stream.c - `argus stream --json`: trace live and print every record
 * as one line of JSON (docs/events.md) until SIGINT / SIGTERM / --duration.
 * Strings the decoder interns (executable paths) are printed by name.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "hashmap.h"
#include "session.h"
#include "stream.h"

/* The strings of this session: id = index + 1, deduplicated by a hash. */
struct strtab {
	char **s;
	size_t n, cap;
	struct argus_hmap ids; /* hash -> id */
};

static uint64_t hash_bytes(const char *p, size_t len)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
	return h;
}

struct probe {
	const struct strtab *t;
	const char *s;
	size_t len;
};

static bool same_string(const void *val, void *arg)
{
	const struct probe *p = arg;
	const char *e = p->t->s[*(const uint64_t *)val - 1];

	return strlen(e) == p->len && !memcmp(e, p->s, p->len);
}

static uint32_t strtab_intern(void *arg, const char *s, size_t len)
{
	struct strtab *t = arg;
	struct probe p = {t, s, len};
	uint64_t key;
	const uint64_t *id = argus_hmap_find_by(&t->ids, hash_bytes(s, len), same_string, &p, &key);

	if (id)
		return (uint32_t)*id;
	if (t->n == t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 256;
		char **ns = realloc(t->s, nc * sizeof(*ns));

		if (!ns)
			return 0;
		t->s = ns;
		t->cap = nc;
	}
	t->s[t->n] = strndup(s, len);
	if (!t->s[t->n])
		return 0;
	if (!argus_hmap_set_u64(&t->ids, key, t->n + 1)) {
		free(t->s[t->n]);
		return 0;
	}
	return (uint32_t)++t->n;
}

static const char *strtab_get(void *arg, uint32_t id)
{
	struct strtab *t = arg;

	return id >= 1 && id <= t->n ? t->s[id - 1] : NULL;
}

static void strtab_free(struct strtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->s[i]);
	free(t->s);
	argus_hmap_free(&t->ids);
}

struct json_out {
	struct strtab strings;
	uint32_t stacks; /* stacks are numbered, not printed */
	char line[4096];
};

static int print_events(void *arg, const struct argus_event *ev, size_t n)
{
	struct json_out *j = arg;
	struct argus_json_ctx ctx = {.string = strtab_get, .arg = &j->strings};

	for (size_t i = 0; i < n; i++) {
		argus_event_to_json(&ev[i], &ctx, j->line, sizeof(j->line));
		if (fputs(j->line, stdout) == EOF || putchar('\n') == EOF)
			return -1;
	}
	return fflush(stdout) == 0 ? 0 : -1;
}

static uint32_t intern_string(void *arg, const char *s, size_t len)
{
	return strtab_intern(&((struct json_out *)arg)->strings, s, len);
}

static uint32_t number_stack(void *arg, const uint64_t *ips, uint32_t depth)
{
	(void)ips;
	(void)depth;
	/* the decoder caches per kernel stack, so each distinct stack asks once */
	return ++((struct json_out *)arg)->stacks;
}

static void stream_usage(FILE *f)
{
	fprintf(f,
	        "usage: argus stream --json [--duration S] [--pid P... | --all] [--comm NAME]\n"
	        "                    [--cgroup DIR] [--ring-size SIZE] [--no-samples] [--no-irqs]\n"
	        "                    [--no-recv-enter] [--syscalls] [--no-rt] [-- CMD ARGS...]\n\n"
	        "Trace live and print each record as a line of JSON (docs/events.md) until\n"
	        "SIGINT/SIGTERM, --duration or CMD's exit. Needs root or CAP_BPF + CAP_PERFMON.\n\n"
	        "usage: argus stream [--kinds K,K] [--types T,T] [--pid PID]... [--run-dir DIR]\n\n"
	        "Read the running daemon's stream (`argus start`, docs/json-stream.md):\n"
	        "records, stalls and diagnoses as NDJSON.\n");
}

int cmd_stream(int argc, char **argv)
{
	struct argus_live_opts o = {.name = "stream"};
	bool json = false;
	pid_t pids[64];
	int rc;

	/* without --json: a client of the running daemon's stream
	 * (docs/json-stream.md: --kinds, --types, --pid, --run-dir) */
	bool standalone = false;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--json"))
			standalone = true;
	if (!standalone && (argc < 2 || (strcmp(argv[1], "-h") && strcmp(argv[1], "--help"))))
		return argus_stream_client_run(argc, argv);

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			stream_usage(stdout);
			return ARGUS_EXIT_OK;
		}
		if (!strcmp(argv[i], "--json")) {
			json = true;
			continue;
		}
		rc = cli_live_parse(&o, argc, argv, &i, pids, 64);
		if (rc > 0)
			return rc;
		if (rc < 0) {
			cli_error("stream", "unknown option '%s' (see argus stream --help)",
			          argv[i]);
			return ARGUS_EXIT_USAGE;
		}
	}
	if (!json) {
		cli_error("stream", "--json is the only output format so far");
		return ARGUS_EXIT_USAGE;
	}
	if (o.cmd && o.kext.npids) {
		cli_error("stream", "--pid and a command exclude each other");
		return ARGUS_EXIT_USAGE;
	}
	struct json_out *j = calloc(1, sizeof(*j));
	if (!j) {
		cli_error("stream", "out of memory");
		return ARGUS_EXIT_INTERNAL;
	}
	struct argus_sink sink = {
	    .events = print_events,
	    .intern_string = intern_string,
	    .intern_stack = number_stack,
	    .arg = j,
	};
	struct argus_live *l;
	signal(SIGPIPE, SIG_IGN); /* a closed reader ends the stream, cleanly */
	rc = cli_live_exit(argus_live_open(&l, &o));
	if (rc == 0) {
		rc = cli_live_exit(argus_live_run(l, &sink));
		if (rc == ARGUS_EXIT_IO && errno == EPIPE)
			rc = ARGUS_EXIT_OK; /* the reader went away: a normal end */
		argus_live_close(l);
	}
	strtab_free(&j->strings);
	free(j);
	return rc;
}
