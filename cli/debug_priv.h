/*
 * debug_priv.h - `argus debug -i`, the interactive diagnosis (docs/debug.md):
 * the session over one trace (debug-session.c), its command table
 * (debug-cmds.c, debug-path.c) and the user rules (debug-rules.c). Not
 * installed; the builtins (builtin-debug.c, builtin-diagnose.c,
 * builtin-start.c) call what is below.
 */
#ifndef ARGUS_DEBUG_PRIV_H
#define ARGUS_DEBUG_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "session.h"

/* ---- user rules (debug-rules.c; docs/debug.md "Rules") ---- */

enum dbg_rule_kind {
	DBG_RULE_SPLIT_BATCH = 0,   /* split batch COMM */
	DBG_RULE_IGNORE_WAKEUP = 1, /* ignore wakeup COMM */
};

#define DBG_RULES_MAX 64

struct dbg_rule {
	uint8_t kind;
	char comm[ARGUS_COMM_LEN];
};

struct dbg_rules {
	struct dbg_rule r[DBG_RULES_MAX];
	size_t n;
	/* the graph's NULL-terminated lists, pointing into r (dbg_rules_apply) */
	const char *batch[DBG_RULES_MAX + 1];
	const char *ignore[DBG_RULES_MAX + 1];
};

#define DBG_SYSTEM_RULES "/etc/argus/rules"

/* The user's rules file: $XDG_CONFIG_HOME/argus/rules, else
 * $HOME/.config/argus/rules; false when neither is set. */
bool dbg_rules_user_path(char *buf, size_t cap);
/* Parse one rule ("split batch COMM", "ignore wakeup COMM"); false with a
 * reason in err. */
bool dbg_rule_parse(const char *text, struct dbg_rule *out, char *err, size_t ecap);
void dbg_rule_format(const struct dbg_rule *r, char *buf, size_t cap);
/* Append the rules of a file (a missing file is none). Returns 0, or an
 * exit code with err set: ARGUS_EXIT_RULES ("FILE:LINE: what") or IO. */
int dbg_rules_load(struct dbg_rules *rs, const char *path, char *err, size_t ecap);
/* Both files, the system's then the user's (what argus diagnose loads;
 * argus start loads the system's alone). */
int dbg_rules_load_all(struct dbg_rules *rs, bool user, char *err, size_t ecap);
/* Write rs to path (its directory made), atomically. 0 or -1 (err set). */
int dbg_rules_save(const struct dbg_rules *rs, const char *path, char *err, size_t ecap);
/* mkdir -p of path's directory (0755). 0 or -1 (errno). */
int dbg_make_parent(const char *path);
/* Point the graph options at the rules (valid while rs lives). */
void dbg_rules_apply(struct dbg_rules *rs, struct argus_graph_opts *g);

/* ---- the interactive session (debug-session.c) ---- */

struct dbg_opts {
	const char *file;       /* the trace */
	const char *label;      /* how messages name it */
	uint32_t pid;           /* 0 = every process */
	const char *rules_path; /* the rules file rule add / del change, NULL = none */
	bool system;            /* it is the system's (argus debug -i --system) */
	struct argus_session_opts so;
};

/* What a user is looking at (one stall; a path being walked). */
struct dbg {
	struct dbg_opts o;
	struct dbg_rules rules;
	struct argus_session *s;
	struct argus_session_result res;
	struct argus_session_file_view *fv;
	struct argus_graph_view view;
	bool have_view;
	size_t *stalls; /* indexes into res.d of the stalls shown (pid filter) */
	size_t nstalls;
	size_t cur;                /* the current stall (index into stalls) */
	struct argus_diagnosis *d; /* the diagnosis on screen: res's, or a re-run */
	struct argus_diagnosis rerun;
	bool rerun_valid;
	/* the user's hints for the current stall */
	argus_vid baseline;
	struct argus_path path; /* walked by `path` / `pick` */
	bool walking;           /* a pick is awaited at path.v[path.n - 1] */
	bool path_done;
	struct argus_edge_info choices[16];
	size_t nchoices;
	FILE *out;
	bool quit;
};

int dbg_open(struct dbg *g, const struct dbg_opts *o);
void dbg_close(struct dbg *g);
/* Rebuild the graph with the rules now held (rule add / del). 0 or an exit code. */
int dbg_reload(struct dbg *g);
/* Run one command line; 0 ok, else the command failed (a line was printed). */
int dbg_exec(struct dbg *g, const char *line);
/* Read commands until quit or the end of input: with libedit when in is a
 * terminal, else line by line (scripts). Returns 0, or 1 when a command failed
 * (the session went on). */
int dbg_repl(struct dbg *g, FILE *in);

/* helpers the commands share */
void dbg_err(struct dbg *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool dbg_vid(struct dbg *g, const char *s, argus_vid *out);
bool dbg_vertex(struct dbg *g, argus_vid id, struct argus_vertex_info *v);
const char *dbg_comm(struct dbg *g, uint32_t pid);
void dbg_vertex_line(struct dbg *g, const struct argus_vertex_info *v);
/* Re-run the current stall's diagnosis with the hints held (and a step
 * printer when verbose); the result is on screen. 0, or -1 (printed). */
int dbg_rediagnose(struct dbg *g, argus_vid anomaly, bool verbose);
void dbg_print_diagnosis(struct dbg *g, const struct argus_diagnosis *d, bool candidates);
/* The current stall's record; NULL (printed) when there is none. */
const struct argus_diagnosis *dbg_current(struct dbg *g);

/* ---- the command table (debug-cmds.c) ---- */

struct dbg_cmd {
	const char *name, *args, *help;
	int min_args, max_args;
	int (*fn)(struct dbg *g, int argc, char **argv);
};
const struct dbg_cmd *dbg_cmd_find(const char *name);
const struct dbg_cmd *dbg_cmd_at(size_t i);

/* path / pick (debug-path.c) */
int dbg_cmd_path(struct dbg *g, int argc, char **argv);
int dbg_cmd_pick(struct dbg *g, int argc, char **argv);

#endif /* ARGUS_DEBUG_PRIV_H */
