#!/usr/bin/env python3
"""test_score.py - bench/zoo/score.py on hand-made work folders: the hang's
start measured by the bench (busy_start) and the live answer scored (a busy
stall's final diagnosis, the first notification's time). Exit 1 on a failed
check, naming it."""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(sys.argv[1], "bench", "zoo"))
import score  # noqa: E402

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

sys.exit(1 if failed else 0)
