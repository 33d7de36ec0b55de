#!/usr/bin/env python3
"""score.py - score one bug zoo case's diagnoses against its truth file.

  score.py --header
  score.py [--match function|process] CASE TRUTH PID BEAM.json CP.json NWE.json

Each JSON file is `argus diagnose --json` output (docs/report.md). The stall
scored is the longest one of the case's program (app == anomaly_comm, pid ==
PID). A diagnosis is right at top-k when one of its first k candidates names
the root-cause process (vertex comm == root_comm) and function (== root_function).
"proc1" is the weaker check: the first candidate names the root-cause process.
Prints one line; exit 0 when beam search is right at top-1 (--match function,
the default) or names the process at top-1 with the truth's stall class
(--match process), 1 otherwise.
"""
import json
import sys

COLS = "%-18s %-6s %-6s %-6s %-7s %-13s %-6s %-6s %-6s %-6s %-6s %-6s  %s"


def truth_of(path):
    t = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#") and "=" in line:
                k, v = line.split("=", 1)
                t[k] = v
    return t


def stall_of(path, truth, pid):
    """The case's longest stall in one diagnose --json output, or None."""
    best = None
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            d = json.loads(line)
            s = d["stall"]
            if s["app"] != truth["anomaly_comm"] or s["pid"] != pid:
                continue
            dur = s["duration_ns"] if s["duration_ns"] is not None else 1 << 62
            if best is None or dur > best[0]:
                best = (dur, d)
    return best[1] if best else None


def names(c):
    v = c.get("vertex") or {}
    return v.get("comm"), c.get("function")


def right_at(d, truth, k):
    want = (truth["root_comm"], truth["root_function"])
    return any(names(c) == want for c in (d["candidates"] or [])[:k])


def proc_right(d, truth):
    """The first candidate names the root-cause process."""
    c = d["candidates"] or []
    return bool(c) and names(c[0])[0] == truth["root_comm"]


def yn(b):
    return "right" if b else "wrong"


def main():
    if sys.argv[1:] == ["--header"]:
        print(COLS % ("case", "top1", "top3", "proc1", "detect", "class", "cp-1", "cp-3",
                      "cp-p1", "nwe-1", "nwe-3", "nwe-p1", "argus top-1 (comm function)"))
        return 0
    args = sys.argv[1:]
    match = "function"
    if args[:1] == ["--match"]:
        match, args = args[1], args[2:]
    if match not in ("function", "process") or len(args) != 6:
        print("usage: score.py [--match function|process] CASE TRUTH PID BEAM CP NWE",
              file=sys.stderr)
        return 2
    case, truth_path, pid = args[0], args[1], int(args[2])
    truth = truth_of(truth_path)
    beam, cp, nwe = (stall_of(p, truth, pid) for p in args[3:6])
    if beam is None:
        print(COLS % (case, "wrong", "wrong", "wrong", "-", "no-stall", "-", "-", "-", "-", "-", "-",
                      "no stall of %s pid %d" % (truth["anomaly_comm"], pid)))
        return 1
    s = beam["stall"]
    detect = "%.2fs" % ((s["detected"] - s["since"]) / 1e9)
    top = beam["candidates"][0] if beam["candidates"] else {}
    class_ok = s["class"] == truth.get("class", s["class"])
    cls = s["class"] if class_ok else s["class"] + "!"
    proc_ok = proc_right(beam, truth)
    cols = [c for d in (cp, nwe) for c in
            ((yn(right_at(d, truth, 1)), yn(right_at(d, truth, 3)), yn(proc_right(d, truth)))
             if d else ("-", "-", "-"))]
    print(COLS % (case, yn(right_at(beam, truth, 1)), yn(right_at(beam, truth, 3)), yn(proc_ok),
                  detect, cls, *cols, "%s %s" % names(top)))
    if match == "process":
        return 0 if proc_ok and class_ok else 1
    return 0 if right_at(beam, truth, 1) else 1


if __name__ == "__main__":
    sys.exit(main())
