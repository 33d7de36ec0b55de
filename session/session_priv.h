/*
 * session_priv.h - what the session's files share (not installed).
 */
#ifndef ARGUS_SESSION_PRIV_H
#define ARGUS_SESSION_PRIV_H

#include "hashmap.h"
#include "idmap.h"
#include "session.h"

#define SESSION_MAX_SINKS 8
#define SESSION_MAX_FIRED 8

/* The tables a producer interns (pushed source, tables.c); ids are 1-based
 * indexes. */
struct ptables {
	char **strs;
	uint32_t nstr, cstr;
	struct idmap str_ix; /* hash -> id */
	struct pstack {
		uint64_t *ips;
		uint32_t depth;
	} * stk;
	uint32_t nstk, cstk;
	struct idmap stk_ix;
	struct argus_map *maps;
	size_t nmaps, cmaps;
	struct argus_symbol *syms;
	size_t nsyms, csyms;
	struct argus_tsym *tsym; /* over the maps and symbols so far */
	size_t tsym_maps, tsym_syms; /* of them, the ones tsym holds */
	bool tsym_dirty;
	struct argus_elfsym *elf; /* live_symbols */
};

/* Recent records for reports (history.c). */
struct history {
	struct argus_event *buf;
	size_t cap, head, n;
	uint64_t keep_ns;
	uint64_t evicted;
};
int sess_history_init(struct history *h, uint64_t bytes, uint64_t keep_ns);
void sess_history_free(struct history *h);
void sess_history_add(struct history *h, const struct argus_event *e);

struct argus_session {
	struct argus_session_opts o;
	struct argus_graph *g;
	struct argus_samples *smp;
	struct argus_trigger *trig;
	struct argus_session_sink sinks[SESSION_MAX_SINKS];
	unsigned nsinks;
	/* the source's symbols and, for a file, its stack table (NULL when
	 * stacks are registered as they are interned) */
	struct argus_symbolizer sym;
	const struct argus_trace_reader *stacks;
	int (*prepare)(struct argus_session *s); /* before a diagnosis (symbols) */
	struct ptables pt;
	struct history hist;
	struct argus_stall fired[SESSION_MAX_FIRED];
	uint32_t nfired;
	/* busy stalls ended, for their diagnosis over the whole stall (the
	 * sinks' final) */
	struct argus_stall busy_ended[SESSION_MAX_FIRED];
	uint32_t nbusy_ended;
	struct argus_lag lags[SESSION_MAX_FIRED]; /* ended, for the sinks' lag */
	uint32_t nlags;
	bool lag_sinks; /* a sink takes lags */
	bool final_sinks; /* a sink takes busy stalls' final diagnoses */
	/* with lag sinks: the UI threads' wait stacks (what names a lag
	 * without samples) */
	struct argus_samples *waits;
	struct argus_hmap ui_tids; /* tid set (keep_wait) */
	uint32_t ui_seen;
	struct argus_hmap apps; /* pid set: the processes announced to o.app */
	uint32_t apps_ui_seen;
	bool yields_watched;    /* o.yields last said on */
	uint64_t yields_wanted; /* when an episode last asked for them */
	/* with landmark sinks: the shadow stack of each thread's dispatches */
	bool landmark_sinks, lm_init;
	struct argus_hmap lm;
	/* child pid -> the pid it was forked from (PROC_FORK records): its
	 * layout until it execs (argus_tsym_set_parent) */
	struct argus_hmap forks;
	bool ended;
	struct argus_session_stats st;
	struct argus_diagnosis d; /* scratch: large */
};

/* The pid pid was forked from, 0 unknown (arg: the session). */
uint32_t session_parent(void *arg, uint32_t pid);

/* Fan one record out; 0, or -1 out of memory. */
int session_feed(struct argus_session *s, const struct argus_event *e);
void session_fault(struct argus_session *s, const struct argus_trace_error *e);

/* landmarks.c */
void session_landmark(struct argus_session *s, const struct argus_event *e);
void session_landmarks_free(struct argus_session *s);

/* tables.c */
/* A string of the source's table (a file's, or the pushed one); NULL unknown. */
const char *session_string(const struct argus_session *s, uint32_t id);
void ptables_free(struct ptables *t);
int ptables_prepare(struct argus_session *s);
bool ptables_resolve(void *arg, uint32_t pid, uint64_t ip, struct argus_frame *out);
bool ptables_stack_of(void *arg, uint32_t id, const uint64_t **ips, uint32_t *depth);

#endif /* ARGUS_SESSION_PRIV_H */
