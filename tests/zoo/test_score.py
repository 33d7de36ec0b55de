#!/usr/bin/env python3
"""test_score.py - bench/zoo/score.py on hand-made work folders: the hang's
start measured by the bench (busy_start) and the live answer scored (a busy
stall's final diagnosis, the first notification's time); the baselines'
answers (offwaketime rebuilt from perf's scheduler events by offwake.py, the
stack snapshot of every thread). Exit 1 on a failed check, naming it."""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(sys.argv[1], "bench", "zoo"))
import score  # noqa: E402
import offwake  # noqa: E402

S = 10**9
H = 1000 * S  # the driver's hang mark
failed = []


def check(name, cond):
    if not cond:
        failed.append(name)
        print("FAIL %s" % name)
    else:
        print("ok %s" % name)


def busy_file(work, busy_at):
    """busy.txt: 50 ms steps from H - 4 s to H + 16 s; busy_at(t) says
    the share of the step on CPU or runnable"""
    rows, c, t = [], 0, H - 4 * S
    while t < H + 16 * S:
        rows.append("%d %d 0" % (t, c))
        c += int(busy_at(t) * 50 * 10**6)
        t += 50 * 10**6
    with open(os.path.join(work, "busy.txt"), "w") as f:
        f.write("\n".join(rows) + "\n")


def within(a, b, tol=0.06 * S):
    return a is not None and abs(a - b) <= tol


with tempfile.TemporaryDirectory() as work:
    # idle, a 0.5 s burst (no hang), then busy from +6 s to +9 s with one
    # 50 ms step read low (the kernel charges at ticks): one hang from +6 s
    def f(t):
        if H + 1 * S <= t < H + 1.5 * S:
            return 1.0
        if t == H + 7 * S:
            return 0.2
        if t == H + 7 * S + 50 * 10**6:
            return 1.8
        return 1.0 if H + 6 * S <= t < H + 9 * S else 0.02
    busy_file(work, f)
    b = score.busy_start(work, H)
    check("busy hang found from its start", b is not None and within(b[0], H + 6 * S))
    check("busy hang to its end, one dip inside", b is not None and within(b[1], H + 9 * S, 0.15 * S))

    # busy from 5 s before the mark (an earlier hang): outside the window
    busy_file(work, lambda t: 1.0 if H - 5 * S <= t < H - 3.5 * S else 0.0)
    check("a busy stretch before the window is not the hang", score.busy_start(work, H) is None)

    # the app's start-up busy 1.2 s, over 1.4 s before the mark, then the
    # hang from the mark (zoo B7, 2026-11-26 14:09 on a loaded machine)
    busy_file(work, lambda t: 1.0 if (H - 2.6 * S <= t < H - 1.4 * S or H <= t < H + 9 * S)
              else 0.0)
    b = score.busy_start(work, H)
    check("a busy stretch over before the mark is not the hang",
          b is not None and within(b[0], H))

    # a thread that waits all along: no busy hang, the mark stays
    busy_file(work, lambda t: 0.05)
    check("a waiting thread has no busy start", score.busy_start(work, H) is None)

    # the live stream: the stall, its first diagnosis, its end, its final one
    first = {"summary": "app stalled 2.0 s: app 1/1 busy on CPU in load_phase",
             "stall": {"pid": 7, "since": H + 6 * S},
             "candidates": [{"comm": "app", "thread": "app", "function": "load_phase"}]}
    final = dict(first, summary="app stalled 9.0 s: app 1/1 busy on CPU in render_cell")
    lines = [{"kind": "stall", "phase": "start", "id": 1, "pid": 7, "tid": 7,
              "since": H + 6 * S, "detected": H + 8 * S},
             {"kind": "diagnosis", "final": False, "report": first},
             {"kind": "stall", "phase": "end", "id": 1, "pid": 7, "tid": 7,
              "since": H + 6 * S, "detected": H + 8 * S},
             {"kind": "diagnosis", "final": True, "report": final}]
    with open(os.path.join(work, "live.ndjson"), "w") as f:
        f.write("".join(json.dumps(o) + "\n" for o in lines))
    with open(os.path.join(work, "notifications"), "w") as f:
        f.write("%d\n   string \"%s\"\n" % (H + 8 * S + 10**8, first["summary"]))
    stall, report, notified = score.live_of(work, 7, H + 6 * S)
    check("the live stall near the measured start", stall is not None and stall["id"] == 1)
    check("the final diagnosis is the answer scored",
          report is not None and "render_cell" in report["summary"])
    check("the delay is the first notification's", notified == H + 8 * S + 10**8)
    # anchored at the mark (6 s before the stall): no stall of the hang
    stall, report, notified = score.live_of(work, 7, H)
    check("the mark alone misses a stall 6 s later", stall is None)

# offwake.py: `perf script` of the app's main thread (pid 50) blocking in
# read twice: woken by its peer's write after 3 s, then by a tool's ptrace
# stop after 1 s; preempted once (prev_state R: no wait)
PERF = """app    50/50    100.000000: sched:sched_switch: prev_comm=app prev_pid=50 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
\tffffffff82265ec8 __schedule ([kernel.kallsyms])
\t          1234 read_reply (/usr/bin/app)
\t          1200 main (/usr/bin/app)

peer    60/61    103.000000: sched:sched_waking: comm=app pid=50 prio=120 target_cpu=000
\tffffffff813b4986 try_to_wake_up ([kernel.kallsyms])
\t          2222 send_reply (/usr/bin/peer)
\t          2200 worker (/usr/bin/peer)

swapper     0/0    103.000100: sched:sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=app next_pid=50 next_prio=120
\tffffffff82265ec8 __schedule ([kernel.kallsyms])

app    50/50    103.500000: sched:sched_switch: prev_comm=app prev_pid=50 prev_prio=120 prev_state=R+ ==> next_comm=cc next_pid=70 next_prio=120
\tffffffff82265ec8 __schedule ([kernel.kallsyms])
\t          1300 layout (/usr/bin/app)

cc    70/70    103.600000: sched:sched_switch: prev_comm=cc prev_pid=70 prev_prio=120 prev_state=R ==> next_comm=app next_pid=50 next_prio=120
\tffffffff82265ec8 __schedule ([kernel.kallsyms])

app    50/50    104.000000: sched:sched_switch: prev_comm=app prev_pid=50 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
\tffffffff82265ec8 __schedule ([kernel.kallsyms])
\t          1234 read_reply (/usr/bin/app)
\t          1200 main (/usr/bin/app)

eu-stack    80/80    105.000000: sched:sched_waking: comm=app pid=50 prio=120 target_cpu=000
\tffffffff813b4986 try_to_wake_up ([kernel.kallsyms])
\t          3333 ptrace_attach (/usr/bin/eu-stack)

swapper     0/0    105.000200: sched:sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=app next_pid=50 next_prio=120
\tffffffff82265ec8 __schedule ([kernel.kallsyms])

app    50/50    105.100000: sched:sched_switch: prev_comm=app prev_pid=50 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
\tffffffff82265ec8 __schedule ([kernel.kallsyms])
\t          1234 read_reply (/usr/bin/app)
"""
folded = offwake.fold(PERF.splitlines())
peer_key = ("app;main;read_reply;__schedule;--;try_to_wake_up;send_reply;worker;peer")
check("offwake: a wait counted with its waker's stack, in us",
      folded.get(peer_key) == 3000100)
check("offwake: a preempted thread did not wait, a wait still going is not counted",
      len(folded) == 2 and sum(folded.values()) == 3000100 + 1000200)
with tempfile.TemporaryDirectory() as work:
    with open(os.path.join(work, "offwake.txt"), "w") as f:
        for k, us in sorted(folded.items(), key=lambda kv: -kv[1]):
            f.write("%s %d\n" % (k, us))
    answers, why = score.offwake_answers(work, {"root_comm": "peer",
                                                "root_function": "send_reply"})
    check("offwake: the tool's wake-up is left out, the peer's answered",
          why is None and answers == [("peer", None, "send_reply")])
    with open(os.path.join(work, "offwake.na"), "w") as f:
        f.write("no kprobes\n")
    answers, why = score.offwake_answers(work, {"root_comm": "peer"})
    check("offwake: why it did not run", answers is None and why == "no kprobes")

# the stack snapshot: every thread, the main thread's frames first
with tempfile.TemporaryDirectory() as work:
    with open(os.path.join(work, "eustack.txt"), "w") as f:
        f.write("PID 50 - process\nTID 51:\n#0  0x0000000000001000 pool_work - /usr/bin/app\n"
                "TID 50:\n#0  0x00007f0000001000 __poll - /usr/lib/libc.so.6\n"
                "#1  0x0000000000001200 main_loop - /usr/bin/app\n")
    a = score.stack_answers(work, {"anomaly_comm": "app"}, 50, None)
    check("snapshot: every thread, the main thread first",
          a == [("app", None, "main_loop"), ("app", None, "pool_work")])

sys.exit(1 if failed else 0)
