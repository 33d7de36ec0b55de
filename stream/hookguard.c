/*
 * hookguard.c - what a hooked application may say in its ring
 * (docs/daemon.md "Hook records"). The application is not trusted: it
 * writes its ring's 64-byte slots itself and may write anything. Before a
 * record reaches the merge it is made to speak for the ring's owner only:
 *
 *   - type: one the hooks produce (the table below); anything else
 *     (scheduler, syscall, fork, exec, stack records: the kernel's word
 *     about other processes) is refused and counted;
 *   - pid: the owner's (SO_PEERCRED), whatever the record says;
 *   - tid: when it is a live thread of another process, the owner's main
 *     thread instead (counted); a thread of the owner, or one that has
 *     exited, keeps its id (the ring may be read after the thread or the
 *     whole process has gone);
 *   - table ids (string ids) the hooks never write are cleared: they would
 *     name another process's strings;
 *   - a drop record counts the ring's own losses (source hook_ring, the
 *     ring's id);
 *   - flags: hook, and trunc when the time was pulled back from the
 *     future (a record from the future would hold the merge back);
 *   - cpu: kept when plausible, else 0.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "stream.h"

#define NO_FIELD   0xff
#define MAX_CPU    4096
#define TID_TTL_NS 1000000000ull /* a verified thread is checked again after 1 s */

/* Per record type a hook may write: the payload offsets of its string-table
 * ids (cleared). Types not listed are refused. */
struct hook_rule {
	bool allowed;
	uint8_t str[2];
};

#define RULE(...)                                                                                  \
	{                                                                                          \
		true,                                                                              \
		{                                                                                  \
			__VA_ARGS__                                                                \
		}                                                                                  \
	}
#define LOOP_STR offsetof(struct argus_ev_loop, name_str)
static const struct hook_rule hook_rules[ARGUS_EV_TYPE_MAX] = {
    [ARGUS_EV_UI_INPUT] = RULE(NO_FIELD, NO_FIELD),
    [ARGUS_EV_LOOP_ITER_BEGIN] = RULE(LOOP_STR, NO_FIELD),
    [ARGUS_EV_LOOP_ITER_END] = RULE(LOOP_STR, NO_FIELD),
    [ARGUS_EV_DISPATCH_BEGIN] = RULE(LOOP_STR, NO_FIELD),
    [ARGUS_EV_DISPATCH_END] = RULE(LOOP_STR, NO_FIELD),
    [ARGUS_EV_LANDMARK] = RULE(NO_FIELD, NO_FIELD),
    [ARGUS_EV_ASYNC_POST] = RULE(NO_FIELD, NO_FIELD),
    [ARGUS_EV_ASYNC_RUN_BEGIN] = RULE(NO_FIELD, NO_FIELD),
    [ARGUS_EV_ASYNC_RUN_END] = RULE(NO_FIELD, NO_FIELD),
    [ARGUS_EV_COND_WAIT] = RULE(NO_FIELD, NO_FIELD),
    [ARGUS_EV_COND_WAKE] = RULE(NO_FIELD, NO_FIELD),
    [ARGUS_EV_COND_SIGNAL] = RULE(NO_FIELD, NO_FIELD),
    [ARGUS_EV_COND_BROADCAST] = RULE(NO_FIELD, NO_FIELD),
    [ARGUS_EV_SEM_WAIT] = RULE(NO_FIELD, NO_FIELD),
    [ARGUS_EV_SEM_POST] = RULE(NO_FIELD, NO_FIELD),
    [ARGUS_EV_MUTEX_HANDOFF] = RULE(NO_FIELD, NO_FIELD),
    [ARGUS_EV_DBUS_SEND] =
        RULE(offsetof(struct argus_ev_dbus, member_str), offsetof(struct argus_ev_dbus, dest_str)),
    [ARGUS_EV_DBUS_RECV] =
        RULE(offsetof(struct argus_ev_dbus, member_str), offsetof(struct argus_ev_dbus, dest_str)),
    [ARGUS_EV_FLAG_WRITE] = RULE(NO_FIELD, NO_FIELD),
    [ARGUS_EV_FLAG_READ] = RULE(NO_FIELD, NO_FIELD),
    [ARGUS_EV_DROP] = RULE(NO_FIELD, NO_FIELD),
};

bool argus_hook_type_allowed(unsigned type)
{
	return type < ARGUS_EV_TYPE_MAX && hook_rules[type].allowed;
}

bool argus_tid_not_foreign(void *arg, uint32_t pid, uint32_t tid)
{
	(void)arg;
	if (!pid || !tid || tid > 0x7fffffffu)
		return false;
	if (pid == tid)
		return true;
	char path[64];
	struct stat st;
	snprintf(path, sizeof(path), "/proc/%u/task/%u", pid, tid);
	if (stat(path, &st) == 0)
		return true;
	/* not (or no longer) a thread of pid: foreign when some other process
	 * has a live thread of that id; a thread that has exited (the ring is
	 * read after the fact, after its process left too) keeps its id */
	snprintf(path, sizeof(path), "/proc/%u", tid);
	return stat(path, &st) != 0;
}

static bool tid_ok(struct argus_hook_guard *g, uint32_t tid, uint64_t now)
{
	if (tid == g->pid)
		return true;
	unsigned oldest = 0;
	for (unsigned i = 0; i < ARGUS_HOOK_GUARD_TIDS; i++) {
		if (g->tids[i] == tid && now - g->tids_at[i] < TID_TTL_NS)
			return true;
		if (g->tids_at[i] < g->tids_at[oldest])
			oldest = i;
	}
	bool (*check)(void *, uint32_t, uint32_t) = g->tid_ok ? g->tid_ok : argus_tid_not_foreign;
	if (!check(g->tid_arg, g->pid, tid))
		return false;
	g->tids[oldest] = tid;
	g->tids_at[oldest] = now ? now : 1;
	return true;
}

size_t argus_hook_guard_apply(struct argus_hook_guard *g, struct argus_event *ev, size_t n,
                              uint64_t now)
{
	size_t kept = 0;
	for (size_t i = 0; i < n; i++) {
		struct argus_event e = ev[i];
		if (!argus_hook_type_allowed(e.type)) {
			g->refused++;
			continue;
		}
		const struct hook_rule *r = &hook_rules[e.type];
		for (unsigned k = 0; k < 2; k++)
			if (r->str[k] != NO_FIELD)
				memset(e.raw + r->str[k], 0, sizeof(uint32_t));
		e.pid = g->pid;
		if (!tid_ok(g, e.tid, now)) {
			e.tid = g->pid;
			g->retid++;
		}
		e.flags = ARGUS_F_HOOK;
		e._rsvd = 0;
		if (e.cpu >= MAX_CPU)
			e.cpu = 0;
		if (e.ts > now + 1000000000ull) {
			e.ts = now;
			e.flags |= ARGUS_F_TRUNC;
			g->clamped++;
		}
		if (e.type == ARGUS_EV_DROP) {
			e.drop.source = ARGUS_DROP_HOOK_RING;
			e.drop.source_id = g->source_id;
		}
		ev[kept++] = e;
	}
	return kept;
}
