/*
 * rules.c - the diagnosis rules as data: which rule explains which wait, in
 * which order, each with its principle in one sentence, the paper section it
 * implements or extends, and the cases that decide it (docs/diagnosis.md
 * "Rules" prints this table). A rule with a function is asked in order
 * until one finds a culprit; the others are branches inside those, listed
 * so every decision the diagnosis makes is written down in one place.
 *
 * Papers: [ATC21] Argus, USENIX ATC 2021 (shared/papers/000); [IA] Argus,
 * interactive variant (001).
 */
#include <string.h>

#include "diag_priv.h"

#define LW (1u << ARGUS_STALL_LONG_WAIT)
#define YL (1u << ARGUS_STALL_YIELD_LOOP)
#define LR (1u << ARGUS_STALL_LONG_RUNNING)

/* A rule with apply is asked in table order; one without is a branch
 * inside a rule (where it is decided: the name after the "/"). */
struct dg_rule {
	struct argus_diag_rule info;
	dg_rule_fn apply;
	bool launch_first; /* asked first for a launch stall's own wait */
};

#define RULE(name, classes, apply, principle, paper, cases)                                        \
	{                                                                                          \
		{name, classes, principle, paper, cases, apply != NULL}, apply, false              \
	}
#define RULE_LAUNCH_FIRST(name, classes, apply, principle, paper, cases)                           \
	{                                                                                          \
		{name, classes, principle, paper, cases, apply != NULL}, apply, true               \
	}

static const struct dg_rule rules[] = {
    RULE("kernel-request", LW | YL, dg_kernel_request,
         "A thread blocked in the kernel on a request the kernel sent for it to a "
         "user-space server (a FUSE daemon) waits for the thread that serves that "
         "connection, the last one seen answering there: stopped or blocked, that thread "
         "is the culprit, explained in turn.",
         "[ATC21] 4 (the kernel's internal messages traced, not only system calls) and 6.2 "
         "(the culprit of the culprit), with the server known from the kernel's own "
         "fuse_request_send / fuse_request_end tracepoints",
         "realapps r2, r3, r4, r5 (firefox-esr, geany, juffed, IDLE on a stopped bindfs); "
         "synthetic tests/beam/test_diagnose_kernel_request.c"),
    RULE("ipc-peer", LW, dg_ipc_peer,
         "A thread blocked reading the answer to a request it sent waits for the thread "
         "that received the request; blocked itself, that thread is the culprit, explained "
         "in turn.",
         "[ATC21] 6.2 (Algorithm 2's suspicious vertex and its recursion), with the peer "
         "known from the request's IPC edge instead of a baseline",
         "zoo B1 (circular wait), B6 (three processes away), B14a (a convoy around the "
         "wait); synthetic long_wait_chain"),
    RULE("ipc-peer/unread-request", LW, NULL,
         "A request no one has read yet waits for the thread that reads its destination (the "
         "last one seen receiving there), also when a broker that took it passed it on: "
         "stopped or blocked, that thread is the culprit.",
         "[ATC21] 6.2 (the culprit of the culprit), with the peer known from the socket's "
         "reader instead of a receive that has not happened",
         "realapps r2, r3, r4, r5 (the FUSE request unread: through kernel-request); none in "
         "the zoo"),
    RULE("ipc-peer/split-read", LW, NULL,
         "A read cut in two by a spurious wake-up (the peer reading the request wakes the "
         "writer on the same socket) is one wait: the request is looked up before both "
         "halves.",
         "[IA] 2.1 (segment boundaries)", "zoo B14a only"),
    RULE("ipc-peer/silent-peer", LW, NULL,
         "A peer that neither ran nor answered for as long as the wait at detection is "
         "stuck in a call whose switch-out was not recorded: it is the culprit, not "
         "explained further.",
         "[ATC21] 7.3 (trace inaccuracies)",
         "none in the zoo or the synthetic corpus (a lost switch record)"),
    RULE("compare", LW | YL, dg_compare,
         "The stalled wait is compared with the latest earlier wait of its thread that "
         "looked the same and ended quickly; on the normal causal path that ended that "
         "wait, the thread that did not do its part this time is the culprit (blocked: "
         "explained in turn; ran: a missing wake-up).",
         "[ATC21] 6.2, Algorithm 2; 6.1 Algorithm 1 for the normal path",
         "zoo B10, B11, B12, B13 (yield loop), B14b; synthetic circular_timeout, "
         "missing_wakeup, yield_loop"),
    RULE("compare/baseline-given", LW | YL, NULL,
         "A user named the baseline (argus debug -i `baseline V B`): it is compared with "
         "instead of the one searched, and the comparison alone explains the stall.",
         "[IA] 2.1.2 (if several nodes are similar, the user picks one)",
         "tests/debug scripted sessions only"),
    RULE("compare/normal-path-given", LW | YL, NULL,
         "A user walked the normal path (argus debug -i `path` and `pick` at a vertex with "
         "two or more inter-thread incoming edges): its threads are examined instead of "
         "Algorithm 1's paths.",
         "[IA] 2.1.2 (Argus consults the user to pick the edge to follow)",
         "tests/debug scripted sessions only"),
    RULE("compare/baseline-by-signature", LW | YL, NULL,
         "A baseline is an earlier vertex of the thread with a similar event signature "
         "(edit distance over event types) that is not known to block at another call "
         "site (wait stacks differ in a frame that is code: a stray stack word a "
         "frame-pointer walk read as a return address says nothing).",
         "[IA] 4.5 (finding similar nodes)",
         "zoo B1, B4, B10, B11, B13, B14b (its miss in about one live run in four: the "
         "stray second frame of __poll's stack); synthetic: every compare case, "
         "tests/beam/test_diagnose_stray_frames.c"),
    RULE("compare/baseline-by-wait-stack", LW, NULL,
         "Failing that, an earlier wait that blocked at the same call site (wait stack): "
         "what a segment did before it blocked depends on timing, its call site does not.",
         "[IA] 4.4 (call stacks)",
         "zoo B12; realapps r3 (geany on a stopped bindfs, right, before kernel-request "
         "decided it first)"),
    RULE("compare/baseline-by-peers-asked", LW, NULL,
         "Failing that, any earlier wait answered by the processes the stalled vertex "
         "asked: the input read in another batch changes a segment's shape, not whom it "
         "waits for (not for futex waits: a thread of its own process ends those).",
         "[ATC21] 6.2 (peers of connection events)",
         "zoo B14b; realapps r5 (IDLE on a stopped bindfs, right, before kernel-request "
         "decided it first)"),
    RULE("compare/whole-baseline", LW | YL, NULL,
         "A baseline whose best normal path ends where a batching loop's batch cut it off "
         "from its cause (a bus daemon that read a client's chatter and a service's reply "
         "in one wake-up, then wrote their forwards), and whose paths hold no thread "
         "blocked in the stall, says nothing of who answers: the similar vertex before it "
         "is taken (at most 3; none whole, the newest stands).",
         "[ATC21] 6.2 (GetBaseLine), [IA] 3.2 P1 (batching)",
         "zoo B14b (one live run in eight named dbus-daemon, 2026-11-28); synthetic "
         "tests/beam/test_diagnose_bus_batch.c"),
    RULE("compare/normal-path-from-the-waker", LW, NULL,
         "The normal path starts at the edge that ended the baseline's wait, not at "
         "whatever else its answer segment received later.",
         "[ATC21] 6.2",
         "zoo B1, B4, B10, B11, B12, B14b; synthetic circular_timeout, missing_wakeup"),
    RULE("compare/relay-thread", LW | YL, NULL,
         "A thread that is blocked itself is looked for on every normal path before one "
         "that ran and did not wake: a relay that passed a batch on would otherwise be "
         "blamed at a lower penalty than the blocked thread further along.",
         "[ATC21] 6.2 (the most related path first), [IA] 3.2 P1 (batching)",
         "zoo B14b; synthetic yield_loop"),
    RULE("compare/rest-call", LW | YL, NULL,
         "A thread of the normal path blocked in the call it normally rests in (its idle "
         "wait, or the wait it went on to after a split) is idle as usual, not a culprit.",
         "[ATC21] 6.2 (behaves differently)", "zoo B4, B13, B14b; synthetic missing_wakeup"),
    RULE("compare/pool-worker", LW | YL, NULL,
         "A pool hands a job to whichever worker is free: the missing wake-up is the "
         "vertex of that process that received the stalled vertex's request, not the "
         "normal run's thread.",
         "[ATC21] 6.2 (VertexInThread)", "synthetic missing_wakeup only (none in the zoo)"),
    RULE("compare/started-before", LW | YL, NULL,
         "A vertex that took the job before the waiter blocked and is still at it counts "
         "as running in the stall.",
         "[ATC21] 6.2", "zoo B12 only"),
    RULE_LAUNCH_FIRST("handoff", LW, dg_handoff,
         "A thread that handed its request to another thread of its own process (a D-Bus "
         "or I/O thread) and waits for it waits for what that thread asked in turn: that "
         "request, or the one a broker took and passed on, still unread names its reader, "
         "the culprit (stopped or blocked). For a launch stall's own wait it is asked "
         "before compare, as futex-sibling is: a call made once at start-up has no earlier "
         "run of itself to compare with (r12: an earlier short wait as baseline named "
         "dbus-daemon).",
         "[ATC21] 6.2 (the culprit of the culprit, followed through a relay thread), with "
         "the peers known from IPC edges instead of a baseline",
         "realapps r12 (gnome-text-editor's GDBus call to the stopped accessibility bus "
         "launcher, through GDBus's thread and dbus-daemon; live, 2026-11-26), r10 "
         "(lximage-qt's D-Bus thread on the stopped session bus: with futex-sibling off, "
         "replayed; in both orders of the hand-off, live 2026-11-27); synthetic "
         "tests/beam/test_diagnose_handoff.c, tests/beam/test_diagnose_launch_relay.c (the "
         "relay blocked before or after the wait began; the app's display connection on a "
         "bus client's reused socket addresses)"),
    RULE("spin-peer", YL, dg_spin_peer,
         "A yield loop with no flag writer seen waits for the thread that received its "
         "last request: blocked in another call than the one it took the request from, it "
         "is the culprit; back in that call, it ran and did not answer.",
         "[ATC21] 6.4 (yield loops), [IA] 3.2 P3 (shared flags) without watchpoints",
         "none in the zoo (B13 is decided by compare: it has a baseline)"),
    RULE_LAUNCH_FIRST("futex-sibling", LW, dg_sibling,
         "A futex wait that no request and no earlier run explains waits for a thread of "
         "its own process: one blocked all along reading another process's answer (the "
         "D-Bus thread a main thread waits for at start-up) is explained as ipc-peer "
         "explains a read. For a launch stall's own wait it is asked before compare: an "
         "earlier wake-up by another thread (Qt's bearer thread) says less than a thread "
         "blocked on a stopped service.",
         "[ATC21] 6.2 (the culprit of the culprit), with the waker's thread found by its "
         "own wait instead of a baseline",
         "realapps r10 (lximage-qt, replayed; handoff decides it too); synthetic "
         "tests/beam/test_diagnose_launch.c (a main thread's futex wait on its D-Bus "
         "thread with no hand-off write seen: this rule alone); none in the zoo"),
    RULE("costly-function", LR, NULL,
         "A busy stall's root is its own segment, named by the innermost application "
         "function on most of the stall's samples (costly_share of them, default 0.98).",
         "[ATC21] 6.4 (LongRunning)", "zoo B2, B3, B5, B7, B8, B9; synthetic long_running"),
    RULE("costly-function/whole-chains", LR, NULL,
         "When most of a busy stall's samples carry whole call chains (full stacks unwound "
         "with the binaries' CFI), the stall is named by the innermost function with a "
         "symbol, in any object, under which more than half of those samples lie "
         "(chain_share): the rule perf's DWARF call graphs give the realapps truth.",
         "[ATC21] 6.3 (the longest common sequence of the vertex's stacks) and 6.4 "
         "(LongRunning), on DWARF-unwound stacks as perf --call-graph dwarf takes them, "
         "with a majority for the common sequence",
         "realapps r11 (geany: pango_layout_get_iter, live), r9 (gnumeric: the phase "
         "under way at detection; gnm_cell_render_value over 20 s); "
         "tests/beam/test_costly.c whole_chains_*"),
    RULE("costly-function/app-callback", LR, NULL,
         "On whole call chains, the app's own code is named first, as on frame-pointer "
         "stacks: the innermost application function that system code called back (a "
         "handler under the toolkit's loop, not main above it) held by costly_share of the "
         "chains and by every chain of its direct caller (a chain in the caller's other "
         "callee is no stray), or, when the handler runs in phases one after the other, by "
         "a stretch of consecutive chains costly_share of which hold it and which holds "
         "most of the chains, while it holds at most half of the chains outside the "
         "stretch (the other phases do not count against it; on nearly every chain outside "
         "too, it is a loop's steady work, not a phase); whole-chains decides only "
         "when no such function is (a "
         "distribution binary's code lives under the system's library directories).",
         "[ATC21] 6.4 (LongRunning) on DWARF-unwound stacks; argus's application-code "
         "preference (docs/diagnosis.md \"Application code\")",
         "zoo B9 (composite_tiles, not its callee clear_tile: on 83 of 98 chains, or on "
         "161-221 of 166-222 where the faults cost most, the loop's munmap calls between "
         "them), B3 (a11y_describe, the describing phase between building "
         "and laying out the window, 195 of 241 chains; on_key without phases), B7, B8 "
         "with full stacks; realapps r11 (geany: its code is in libgeany, whole-chains "
         "decides); tests/beam/test_costly.c callback_*"),
    RULE("the-wait-itself", LW | YL, NULL,
         "A wait that no rule explains (no request answered, nothing to compare with) is "
         "reported as it is: the stalled thread blocked, with its wait's stack.",
         "[ATC21] 6.2 (no baseline: the anomaly vertex itself)",
         "zoo B4 (the UI thread itself, blocked on the pty it reads); launch stalls whose "
         "peer has no known reader"),
    RULE("critical-path", LW | YL | LR, NULL,
         "The baseline tool, not argus's answer: the costliest segment (on CPU or waiting) "
         "on the causal path back from the stall.",
         "[ATC21] 7.2 (comparison with other approaches)", "the baseline row of argus bench zoo"),
};

const struct argus_diag_rule *argus_diag_rule_at(size_t i)
{
	return i < sizeof(rules) / sizeof(rules[0]) ? &rules[i].info : NULL;
}

/* Whether name is in the comma-separated list (a user turned it off). */
static bool listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *s = list; s && *s;) {
		const char *e = strchr(s, ',');
		size_t k = e ? (size_t)(e - s) : strlen(s);
		if (k == n && !strncmp(s, name, n))
			return true;
		s = e ? e + 1 : NULL;
	}
	return false;
}

int dg_explain(struct ctx *c, const struct argus_vertex_info *a, unsigned cls,
               const struct dg_args *x)
{
	const char *outer = c->rule;
	/* a user's baseline or normal path: the comparison answers the top */
	bool user = x->depth == 0 && (c->h->baseline || c->h->normal_path);
	bool launch = c->stall && c->stall->cause == ARGUS_CAUSE_LAUNCH && x->depth == 0;
	for (size_t k = 0; k < 2 * (sizeof(rules) / sizeof(rules[0])); k++) {
		/* a launch stall's own wait: the launch_first rules, then the rest */
		size_t nr = sizeof(rules) / sizeof(rules[0]), i = k % nr;
		const struct dg_rule *r = &rules[i];
		if ((k < nr) != (launch && r->launch_first))
			continue;
		if (!r->apply || !(r->info.classes & (1u << cls)))
			continue;
		if (user && r->apply != dg_compare)
			continue;
		if (listed(c->p->rules_off, r->info.name))
			continue;
		c->rule = r->info.name; /* the candidates it adds name it */
		dg_step(c, "depth %u: rule %s asked to explain " ARGUS_VID_FMT " (%u/%u)", x->depth,
		        r->info.name, ARGUS_VID_ARGS(a->id), a->pid, a->tid);
		int n = r->apply(c, a, x);
		c->rule = outer;
		dg_step(c, "depth %u: rule %s: %d culprit%s", x->depth, r->info.name, n,
		        n == 1 ? "" : "s");
		if (n) {
			if (n > 0)
				dg_note(c, r->info.name);
			return n;
		}
	}
	return 0;
}
