/*
 * event.h - libargus-event, the foundation every stage builds on:
 * event names, the JSON encoding, and .argus trace files (writer, reader).
 *
 * The binary record itself is in argus_event.h (shared with BPF code).
 * Formats: docs/events.md (records, JSON) and docs/trace-format.md (files).
 */
#ifndef ARGUS_EVENT_LIB_H
#define ARGUS_EVENT_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "argus_event.h"

/* ---- names ------------------------------------------------------------ */

/* Stable lower-case names ("sched_switch"); NULL for an unknown type. */
const char *argus_event_type_name(unsigned type);
/* Inverse of argus_event_type_name; -1 when unknown. */
int argus_event_type_from_name(const char *name);
const char *argus_obj_kind_name(unsigned kind);
/* enum argus_drop_source's names (docs/events.md `drop`), by value */
extern const char *const argus_drop_source_names[ARGUS_DROP_SOURCES];
/* Name of a syscall by trace number ("futex" for 202: event/syscalls.h), or
 * NULL when argus does not name it. */
const char *argus_syscall_name(unsigned nr);
/* How a wait in a syscall blocks, by trace number: enum argus_syscall_wait
 * (event/syscalls.h), ARGUS_SYSW_OTHER for calls not in the table. */
unsigned argus_syscall_wait(unsigned nr);
/* Whether a record of this type is valid for the schema (known type). */
bool argus_event_type_valid(unsigned type);

/* ---- JSON encoding ---------------------------------------------------- */

/* Resolves string-table ids to text for the JSON encoder; may be NULL. */
struct argus_json_ctx {
	const char *(*string)(void *arg, uint32_t id);
	void *arg;
};

/*
 * Encode one record as a single-line JSON object (no trailing newline).
 * Writes at most cap bytes including a NUL; returns the length the full
 * encoding needs (excluding NUL), like snprintf. Never fails for any input:
 * an unknown type is encoded with its number and raw payload in hex.
 */
size_t argus_event_to_json(const struct argus_event *ev, const struct argus_json_ctx *ctx,
                           char *buf, size_t cap);

/*
 * One JSON string literal (quotes included) of the first max bytes of s (up
 * to a NUL): quotes, backslashes, control and non-ASCII bytes escaped, so
 * any bytes give valid JSON. Writes at most cap bytes including a NUL;
 * returns the length the whole literal needs, like snprintf.
 */
size_t argus_json_quote(const char *s, size_t max, char *buf, size_t cap);

/* ---- trace files ------------------------------------------------------ */

#define ARGUS_TRACE_VERSION 1

/* Error codes shared by the trace reader and writer (negative returns). */
enum argus_trace_err {
	ARGUS_TRACE_OK = 0,
	ARGUS_TRACE_EIO = -1,      /* read / write / open failed (errno kept) */
	ARGUS_TRACE_EMAGIC = -2,   /* not an .argus file */
	ARGUS_TRACE_EVERSION = -3, /* written by a newer argus */
	ARGUS_TRACE_ETRUNC = -4,   /* file ends inside a header or block */
	ARGUS_TRACE_ECORRUPT = -5, /* checksum or structure mismatch */
	ARGUS_TRACE_ENOMEM = -6,
	ARGUS_TRACE_EINVAL = -7, /* bad argument */
};

/* Where and what went wrong: "FILE: offset N: fault". */
struct argus_trace_error {
	int code;        /* enum argus_trace_err */
	uint64_t offset; /* byte offset in the file */
	char msg[240];   /* one line, names the file */
};

struct argus_trace_meta {
	uint32_t version;       /* file format version */
	uint32_t schema;        /* ARGUS_SCHEMA_VERSION of the records */
	uint32_t clock;         /* clockid_t of ts: CLOCK_MONOTONIC */
	uint32_t flags;         /* ARGUS_TRACE_F_* */
	uint8_t boot_id[16];    /* /proc/sys/kernel/random/boot_id */
	uint64_t start_mono_ns; /* CLOCK_MONOTONIC at start */
	uint64_t start_real_ns; /* CLOCK_REALTIME at start */
	char host[64];
	char kernel[128];  /* uname -r and -v */
	char producer[64]; /* "argus record", "argus synth seed=..." */
};

enum argus_trace_flags {
	ARGUS_TRACE_F_SYNTH = 1 << 0, /* synthetic: has ground truth */
};

/* One mapping of a process (from /proc/PID/maps at discovery or exec). */
struct argus_map {
	uint64_t ts; /* when it was read */
	uint32_t pid;
	uint32_t path_str; /* string id, 0 = anonymous */
	uint64_t start, end, pgoff;
	uint32_t prot; /* PROT_* */
	uint32_t _pad;
};

/* Build id of a mapped file. */
struct argus_build_id {
	uint32_t path_str;
	uint32_t len; /* <= 32 */
	uint8_t id[32];
};

/* A pre-resolved symbol of a mapped file (file offsets): lets a trace be
 * symbolized away from the machine that recorded it. */
struct argus_symbol {
	uint32_t path_str;
	uint32_t name_str;
	uint64_t offset; /* file-relative address (what maps pgoff maps) */
	uint64_t size;
};

/* An interned stack. ips[0] is the innermost frame. */
struct argus_stack {
	uint32_t id;
	uint32_t depth;
	const uint64_t *ips;
};

#define ARGUS_STACK_MAX_DEPTH 127

/* Ground truth of an injected anomaly (synthetic traces and bench/zoo). */
enum argus_anomaly_kind {
	ARGUS_ANOMALY_LONG_RUNNING = 1,
	ARGUS_ANOMALY_LONG_WAIT_CHAIN = 2,
	ARGUS_ANOMALY_CIRCULAR_TIMEOUT = 3,
	ARGUS_ANOMALY_MISSING_WAKEUP = 4,
	ARGUS_ANOMALY_YIELD_LOOP = 5,
	ARGUS_ANOMALY_DECOY_IDLE = 6, /* harmless long idle wait: no stall */
	ARGUS_ANOMALY_DECOY_BUSY = 7, /* busy background thread: no stall */
};
const char *argus_anomaly_kind_name(unsigned kind);

struct argus_truth {
	uint32_t kind;           /* enum argus_anomaly_kind */
	uint32_t ui_pid, ui_tid; /* the stalled UI thread (0 for decoys) */
	uint64_t stall_start;    /* input delivered / stall begins (ns) */
	uint64_t stall_end;
	uint32_t root_pid, root_tid;   /* the root cause */
	uint64_t root_start, root_end; /* root-cause segment span */
	uint32_t root_func_str;        /* string id of the root-cause function */
	uint32_t desc_str;             /* string id of a one-line description */
};

/*
 * A sink takes what a producer makes: events and the table entries they
 * refer to. Producers (argus synth, the kext decoder, hooks) write to a sink;
 * the trace writer, the daemon's window and tests provide sinks. Each
 * callback returns < 0 on failure (intern_*: 0). A NULL callback ignores.
 */
struct argus_sink {
	int (*events)(void *arg, const struct argus_event *ev, size_t n);
	uint32_t (*intern_string)(void *arg, const char *s, size_t len);
	uint32_t (*intern_stack)(void *arg, const uint64_t *ips, uint32_t depth);
	int (*map)(void *arg, const struct argus_map *m);
	int (*build_id)(void *arg, const struct argus_build_id *b);
	int (*symbol)(void *arg, const struct argus_symbol *s);
	int (*truth)(void *arg, const struct argus_truth *t);
	void *arg;
};

/* -- writer -- */

struct argus_trace_writer;

struct argus_trace_writer_opts {
	uint32_t chunk_events; /* events per chunk; 0 = default (65536) */
	int zstd_level;        /* 0 = default (3) */
};

/* Fill meta from this machine (host, kernel, boot id, clocks). */
void argus_trace_meta_init(struct argus_trace_meta *meta, const char *producer);

/* Open for writing. fd variants write to pipes too (the format is append
 * only); the caller keeps and closes its fd. meta NULL =
 * argus_trace_meta_init(.., "argus"). */
int argus_trace_writer_open(struct argus_trace_writer **w, const char *path,
                            const struct argus_trace_meta *meta,
                            const struct argus_trace_writer_opts *opts,
                            struct argus_trace_error *err);
int argus_trace_writer_fdopen(struct argus_trace_writer **w, int fd, const char *name,
                              const struct argus_trace_meta *meta,
                              const struct argus_trace_writer_opts *opts,
                              struct argus_trace_error *err);

/* Intern a string / stack; returns its id (>= 1), 0 on failure. Equal
 * inputs return equal ids. */
uint32_t argus_trace_intern_string(struct argus_trace_writer *w, const char *s, size_t len);
uint32_t argus_trace_intern_stack(struct argus_trace_writer *w, const uint64_t *ips,
                                  uint32_t depth);
int argus_trace_add_map(struct argus_trace_writer *w, const struct argus_map *m);
int argus_trace_add_build_id(struct argus_trace_writer *w, const struct argus_build_id *b);
int argus_trace_add_symbol(struct argus_trace_writer *w, const struct argus_symbol *s);
int argus_trace_add_truth(struct argus_trace_writer *w, const struct argus_truth *t);

/* Append events (in time order within a chunk is expected, not required). */
int argus_trace_write(struct argus_trace_writer *w, const struct argus_event *ev, size_t n);
/* Seal the current chunk and pending tables so a crash loses nothing before
 * this point. */
int argus_trace_flush(struct argus_trace_writer *w);
/* Flush, write index and trailer, close. Frees w even on error. */
int argus_trace_writer_close(struct argus_trace_writer *w, struct argus_trace_error *err);
uint64_t argus_trace_writer_events(const struct argus_trace_writer *w);
/* After a write or flush failed (the writer is then done for): the records
 * it took that are not in the file (the block whose write failed, in the
 * order written; *ev valid until close), for the caller to write elsewhere.
 * 0 when nothing failed. */
size_t argus_trace_writer_unwritten(const struct argus_trace_writer *w,
                                    const struct argus_event **ev);
uint64_t argus_trace_writer_bytes(const struct argus_trace_writer *w);
/* A sink that writes into w (valid while w is open). */
struct argus_sink argus_trace_writer_sink(struct argus_trace_writer *w);

/* -- reader -- */

struct argus_trace_reader;

/* Open and validate the header and tables. On a damaged file the reader
 * still opens when the header is intact; faults are then reported through
 * argus_trace_next (and counted in argus_trace_get_health). "-" reads
 * standard input. */
int argus_trace_open(struct argus_trace_reader **r, const char *path,
                     struct argus_trace_error *err);
int argus_trace_open_mem(struct argus_trace_reader **r, const void *data, size_t size,
                         const char *name, struct argus_trace_error *err);
void argus_trace_close(struct argus_trace_reader *r);

const struct argus_trace_meta *argus_trace_get_meta(const struct argus_trace_reader *r);

/* Restrict iteration to events with from <= ts <= to; chunks outside the
 * range are skipped without decompression. Call before the first next. */
void argus_trace_set_range(struct argus_trace_reader *r, uint64_t from, uint64_t to);

/* Next event: 1 = *ev set (valid until the next call), 0 = end,
 * < 0 = a fault (err set); iteration may continue after a fault, with the
 * next intact chunk. */
int argus_trace_next(struct argus_trace_reader *r, const struct argus_event **ev,
                     struct argus_trace_error *err);

/* Lookups; NULL / false when unknown. Tables are complete after the last
 * event has been read (a streamed file carries tables between chunks). */
const char *argus_trace_string(const struct argus_trace_reader *r, uint32_t id);
bool argus_trace_stack(const struct argus_trace_reader *r, uint32_t id, struct argus_stack *out);
size_t argus_trace_maps(const struct argus_trace_reader *r, const struct argus_map **maps);
size_t argus_trace_build_ids(const struct argus_trace_reader *r, const struct argus_build_id **ids);
size_t argus_trace_symbols(const struct argus_trace_reader *r, const struct argus_symbol **syms);
size_t argus_trace_truths(const struct argus_trace_reader *r, const struct argus_truth **t);
/* Entries in the string and stack tables (so far, for a pipe). */
size_t argus_trace_string_count(const struct argus_trace_reader *r);
size_t argus_trace_stack_count(const struct argus_trace_reader *r);

/* Counts of what could not be read: faults seen and events lost with them. */
struct argus_trace_health {
	uint64_t faults;
	uint64_t chunks_ok, chunks_bad;
	uint64_t events_lost;    /* events in chunks that failed validation */
	bool indexed;            /* trailer index present and valid */
	uint64_t chunks_decoded; /* chunks decompressed (set_range skips the rest) */
	uint64_t chunks_skipped; /* chunks passed over by set_range, not decompressed */
};
void argus_trace_get_health(const struct argus_trace_reader *r, struct argus_trace_health *h);

/* A drop record: count records a ring lost since the last one (total so
 * far), from source (ARGUS_DROP_*) number source_id. The caller sets pid,
 * cpu and flags where they apply. */
static inline void argus_event_drop(struct argus_event *e, uint64_t ts, uint32_t source,
                                    uint32_t source_id, uint64_t count, uint64_t total)
{
	memset(e, 0, sizeof(*e));
	e->ts = ts;
	e->type = ARGUS_EV_DROP;
	e->drop.count = count;
	e->drop.total = total;
	e->drop.source = source;
	e->drop.source_id = source_id;
}

#endif /* ARGUS_EVENT_LIB_H */
