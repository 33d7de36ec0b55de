/*
 * debug-rules.c - a user's rules (docs/debug.md "Rules"): what a user adds
 * to the graph when argus's split and edge rules do not fit an app, one a
 * line in a rules file. `argus debug -i` adds and removes them (`rule add`,
 * `rule del`) in ~/.config/argus/rules; `argus diagnose` loads
 * /etc/argus/rules and the user's, `argus start` /etc/argus/rules.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "debug_priv.h"

/* The rule kinds as data: the words that name one, and what it does. */
static const struct {
	const char *verb, *what;
	uint8_t kind;
} kinds[] = {
    {"split", "batch", DBG_RULE_SPLIT_BATCH},
    {"ignore", "wakeup", DBG_RULE_IGNORE_WAKEUP},
};

bool dbg_rules_user_path(char *buf, size_t cap)
{
	const char *x = getenv("XDG_CONFIG_HOME"), *h = getenv("HOME");
	int n;
	if (x && *x)
		n = snprintf(buf, cap, "%s/argus/rules", x);
	else if (h && *h)
		n = snprintf(buf, cap, "%s/.config/argus/rules", h);
	else
		return false;
	return n > 0 && (size_t)n < cap;
}

/* The next blank-separated word of *s (NUL-terminated in place). */
static char *word(char **s)
{
	char *p = *s;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p)
		return *s = p, NULL;
	char *w = p;
	while (*p && *p != ' ' && *p != '\t')
		p++;
	if (*p)
		*p++ = 0;
	*s = p;
	return w;
}

bool dbg_rule_parse(const char *text, struct dbg_rule *out, char *err, size_t ecap)
{
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", text);
	char *s = buf, *verb = word(&s), *what = word(&s), *comm = word(&s), *extra = word(&s);
	if (!verb) {
		snprintf(err, ecap, "empty rule");
		return false;
	}
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (strcmp(verb, kinds[i].verb))
			continue;
		if (!what || strcmp(what, kinds[i].what)) {
			snprintf(err, ecap, "'%s' takes '%s COMM' (got '%s')", verb, kinds[i].what,
			         what ? what : "");
			return false;
		}
		if (!comm || extra) {
			snprintf(err, ecap, "'%s %s' takes one process name", verb, what);
			return false;
		}
		if (strlen(comm) >= ARGUS_COMM_LEN) {
			snprintf(err, ecap, "process name '%s' longer than %d characters", comm,
			         ARGUS_COMM_LEN - 1);
			return false;
		}
		memset(out, 0, sizeof(*out));
		out->kind = kinds[i].kind;
		snprintf(out->comm, sizeof(out->comm), "%s", comm);
		return true;
	}
	snprintf(err, ecap, "unknown rule '%s' (split batch COMM, ignore wakeup COMM)", verb);
	return false;
}

void dbg_rule_format(const struct dbg_rule *r, char *buf, size_t cap)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (kinds[i].kind == r->kind) {
			snprintf(buf, cap, "%s %s %s", kinds[i].verb, kinds[i].what, r->comm);
			return;
		}
	snprintf(buf, cap, "?");
}

int dbg_rules_load(struct dbg_rules *rs, const char *path, char *err, size_t ecap)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		if (errno == ENOENT)
			return ARGUS_EXIT_OK;
		snprintf(err, ecap, "%s: cannot read: %s", path, strerror(errno));
		return ARGUS_EXIT_IO;
	}
	char line[512];
	unsigned lineno = 0;
	int rc = ARGUS_EXIT_OK;
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			snprintf(err, ecap, "%s:%u: line longer than %zu characters", path, lineno,
			         sizeof(line) - 2);
			rc = ARGUS_EXIT_RULES;
			break;
		}
		char *hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		line[strcspn(line, "\r\n")] = 0;
		char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			continue;
		char why[160];
		struct dbg_rule r;
		if (!dbg_rule_parse(p, &r, why, sizeof(why))) {
			snprintf(err, ecap, "%s:%u: %s", path, lineno, why);
			rc = ARGUS_EXIT_RULES;
			break;
		}
		if (rs->n == DBG_RULES_MAX) {
			snprintf(err, ecap, "%s:%u: more than %d rules", path, lineno,
			         DBG_RULES_MAX);
			rc = ARGUS_EXIT_RULES;
			break;
		}
		rs->r[rs->n++] = r;
	}
	if (!rc && ferror(f)) {
		snprintf(err, ecap, "%s: cannot read: %s", path, strerror(errno));
		rc = ARGUS_EXIT_IO;
	}
	fclose(f);
	return rc;
}

int dbg_rules_load_all(struct dbg_rules *rs, bool user, char *err, size_t ecap)
{
	const char *sys = getenv("ARGUS_SYSTEM_RULES"); /* tests: not /etc */
	int rc = dbg_rules_load(rs, sys && *sys ? sys : DBG_SYSTEM_RULES, err, ecap);
	char path[4096];
	if (!rc && user && dbg_rules_user_path(path, sizeof(path)))
		rc = dbg_rules_load(rs, path, err, ecap);
	return rc;
}

/* mkdir -p of path's directory. */
int dbg_make_parent(const char *path)
{
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = 0;
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(dir, 0755) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(dir, 0755) && errno != EEXIST ? -1 : 0;
}

int dbg_rules_save(const struct dbg_rules *rs, const char *path, char *err, size_t ecap)
{
	char tmp[4200];
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (dbg_make_parent(path)) {
		snprintf(err, ecap, "%s: cannot make its directory: %s", path, strerror(errno));
		return -1;
	}
	FILE *f = fopen(tmp, "w");
	if (!f) {
		snprintf(err, ecap, "%s: cannot write: %s", tmp, strerror(errno));
		return -1;
	}
	fputs("# argus user rules (docs/debug.md \"Rules\"), one a line\n", f);
	for (size_t i = 0; i < rs->n; i++) {
		char line[128];
		dbg_rule_format(&rs->r[i], line, sizeof(line));
		fprintf(f, "%s\n", line);
	}
	if (fclose(f) || rename(tmp, path)) {
		snprintf(err, ecap, "%s: cannot write: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

void dbg_rules_apply(struct dbg_rules *rs, struct argus_graph_opts *g)
{
	size_t nb = 0, ni = 0;
	for (size_t i = 0; i < rs->n; i++) {
		if (rs->r[i].kind == DBG_RULE_SPLIT_BATCH)
			rs->batch[nb++] = rs->r[i].comm;
		else if (rs->r[i].kind == DBG_RULE_IGNORE_WAKEUP)
			rs->ignore[ni++] = rs->r[i].comm;
	}
	rs->batch[nb] = NULL;
	rs->ignore[ni] = NULL;
	g->user_batch_comms = nb ? rs->batch : NULL;
	g->ignore_wake_comms = ni ? rs->ignore : NULL;
}
