/*
 * synth_desktop.h - what the parts of the synthetic desktop share: its
 * state (apps, the plan, ground truth in progress), the record helpers
 * (synth_records.c) and the thread behaviours (synth_apps.c,
 * synth_services.c) that synth_desktop.c puts together.
 */
#ifndef ARGUS_SYNTH_DESKTOP_H
#define ARGUS_SYNTH_DESKTOP_H

#include "synth_int.h"

enum { SC_SIMPLE, SC_FONT, SC_JOB, SC_DBUS, SC_LONG, SC_CHAIN, SC_CIRC, SC_COND, SC_YIELD, NSC };

enum { JOB_EVENTFD = 1, JOB_COND = 2 };
enum { DBUS_CALL = 1, DBUS_RETURN = 2, DBUS_SIGNAL = 4 };

#define BASELINES          3 /* normal runs of an interaction before its anomaly */
#define MAX_KW             ARGUS_SYNTH_MAX_CPUS
#define FUTEX_WAIT_PRIVATE 128
#define FUTEX_WAKE_PRIVATE 129
#define INT_MAX_WAKE       0x7fffffff
#define ETIMEDOUT          110

struct app {
	struct sthread *ui, *gdbus, *w[2];
	char prefix[24];
	uint32_t pid;
	uint64_t ctx, pool, pool_cond, pool_mutex, result_cond, flag_addr;
	struct sthread *holder, *waiters[4];
	uint32_t nwait;
	struct msg jobs[16];
	uint32_t jhead, jn;
	uint64_t flag;
	bool busy, stalled;
	uint32_t done[NSC];
	uint32_t stk_poll, stk_handler, stk_long, stk_font, stk_chain, stk_circ, stk_cond,
	    stk_yield, stk_idle_cb, stk_blink, stk_w_idle, stk_w_mutex, stk_job, stk_gd_poll,
	    stk_gd_work;
};

/* ground truth being assembled: a UI part and a root-cause part */
struct pend {
	struct argus_truth t;
	char func[64];
	char desc[200];
	int need;
};

struct desktop {
	struct app app[ARGUS_SYNTH_MAX_APPS];
	uint32_t napps;
	struct sthread *xorg, *input, *dbus, *fontd, *chain[3], *render, *pa, *svc, *power, *shell,
	    *watch[2], *house, *extract, *kw[MAX_KW];
	uint32_t circ_app, focus;
	uint32_t serial, job;
	/* the plan */
	uint32_t order[8], nk; /* enabled kinds, in kind order */
	uint32_t total, next;  /* anomalies planned (rounds of nk), the next one */
	uint32_t inflight;
	bool render_anom, render_in_sync;
	uint32_t decoy_req;
	struct pend pend;
	uint32_t irq_input_str, irq_disk_str, irq_net_str;
	uint32_t member_str, dest_str, signal_str, power_str, src_str;
};

/* ---- synth_records.c: records as the tracer and hooks make them ---- */
/* A stack handle of t's process from a spec (synth_world.c). */
uint32_t sy_stk(struct sim *s, struct sthread *t, const char *spec, const char *prefix);
int sy_fd_of(uint32_t peer_pid);
void sy_sys_enter(struct sim *s, struct sthread *t, uint16_t nr, int fd, uint8_t kind, uint64_t obj,
                  uint64_t peer, int64_t a0, int64_t a1);
void sy_sys_exit(struct sim *s, struct sthread *t, uint16_t type, uint16_t nr, int fd, uint8_t kind,
                 uint64_t obj, uint64_t peer, int64_t ret);
void sy_ipc_quick(struct sim *s, struct sthread *t, uint16_t type, uint16_t nr, int fd,
                  uint8_t kind, uint64_t obj, uint64_t peer, int64_t bytes);
/* The user stack recorded if t's coming wait blocks. */
void sy_stack_wait(struct sim *s, struct sthread *t, uint32_t id);
void sy_loop_ev(struct sim *s, struct sthread *t, uint16_t type, uint64_t ctx, uint64_t src);
void sy_async_ev(struct sim *s, struct sthread *t, uint16_t type, uint32_t kind, uint64_t obj,
                 uint64_t target);
void sy_sync_ev(struct sim *s, struct sthread *t, uint16_t type, uint64_t obj, uint64_t mutex,
                int64_t ret);
void sy_futex_ev(struct sim *s, struct sthread *t, uint16_t type, uint64_t uaddr, int64_t tmo,
                 uint32_t val, int64_t ret);
void sy_dbus_ev(struct sim *s, struct sthread *t, uint16_t type, const struct msg *m);
/* t sends m over its process's socket to dst's process, waking dst on ch;
 * false (nothing recorded) when dst's queue is full. */
bool sy_send_sock(struct sim *s, struct sthread *t, struct sthread *dst, unsigned ch, struct msg m,
                  uint16_t nr, int64_t bytes);
/* The receive of m: after a blocking wait (dur since the entry) or not. */
void sy_recv_sock(struct sim *s, struct sthread *t, const struct msg *m, uint16_t nr, int64_t bytes,
                  bool waited);
uint64_t sy_eventfd_of(const struct sthread *t);
bool sy_send_eventfd(struct sim *s, struct sthread *t, struct sthread *dst, struct msg m);
void sy_recv_eventfd(struct sim *s, struct sthread *t);
void sy_poll_enter(struct sim *s, struct sthread *t, uint16_t nr, int64_t tmo, uint32_t stack);
void sy_poll_exit(struct sim *s, struct sthread *t, uint16_t nr, int64_t ret);
/* The channel to serve: the one that woke t, else the first pending; -1. */
int sy_pick(struct sthread *t, uint32_t mask);
/* Whether ambiguous wake-ups are short of the requested share. */
bool sy_need_ambiguous(struct sim *s);
/* The root-cause and UI parts of the anomaly in flight; the truth record
 * is written when both are in (decoys: the root part only). */
void sy_pend_root(struct sim *s, struct sthread *t, uint64_t t0, uint64_t t1, const char *fn,
                  const char *prefix);
void sy_pend_ui(struct sim *s, struct sthread *ui);
uint64_t sy_timerfd_of(const struct sthread *t);
void sy_timerfd_arm(struct sim *s, struct sthread *t, uint64_t in_ns, uint64_t interval);
void sy_timerfd_read(struct sim *s, struct sthread *t);

/* ---- thread behaviours (a step function per role) ---- */
void sy_worker_step(struct sim *s, struct sthread *t);
void sy_ui_step(struct sim *s, struct sthread *t);
void sy_xorg_step(struct sim *s, struct sthread *t);
void sy_input_step(struct sim *s, struct sthread *t);
void sy_server_step(struct sim *s, struct sthread *t);
void sy_dbus_step(struct sim *s, struct sthread *t);
void sy_gdbus_step(struct sim *s, struct sthread *t);
void sy_render_step(struct sim *s, struct sthread *t);
void sy_bg_step(struct sim *s, struct sthread *t);
void sy_shell_step(struct sim *s, struct sthread *t);
void sy_kworker_step(struct sim *s, struct sthread *t);

#endif /* ARGUS_SYNTH_DESKTOP_H */
