#!/usr/bin/env python3
"""score.py - score one bug zoo case: argus and the baselines against its truth.

  score.py --header
  score.py [--json] [--match function|process] [--score replay|live] [--bin-dir DIR]
           [--baselines BASEDIR] CASE TRUTH PID WORKDIR

WORKDIR is the folder of the case's argus run as run-case.sh leaves it,
BASEDIR that of its baselines run (without argus; its prog.pid is the app):
  beam.json, cp.json, nwe.json   `argus diagnose --json` of the trace: beam
                                 search, --algo critical-path, --no-weak-edges
  live.ndjson, notifications    the live daemon's stall and diagnosis lines;
                                 the Notify calls on the session bus
  fallbacks                      argus's own notification windows (mapped)
  BASEDIR/eustack.txt or gdb.txt the app's stacks 1 s into the hang
  BASEDIR/perf.script, case_pids `perf script` of 1 s of the hang; the
                                 processes of the case's desktop
  BASEDIR/offwake.txt or .na     offwaketime's folded stacks (BCC's, or rebuilt
                                 from perf's scheduler tracepoints by
                                 offwake.py), or why not

A method is right at top-k when one of its first k answers names the
root-cause process's comm (root_comm), its thread (root_thread, the thread's
own name, when the truth has one; `*`: any thread of it) and function
(root_function, when the truth has one: a stopped process runs none). What an
answer is, per method (bench/zoo/README.md "Scoring the baselines"):
  argus, critical path, no weak edges: the report's candidates, in order.
  stack snapshot: the frames of every thread of the app, the main thread's
    first, each thread's innermost first, leaving out system code (the
    kernel, and shared objects outside the zoo's program folder: libc,
    ld.so, GLib, GTK, ...) and frames without a symbol; the threads are the
    app's, so a root cause in another process is a miss.
  perf: (comm, function) pairs by samples, each sample counted for the
    innermost frame of its call chain outside system code; only samples of
    the case's desktop (not argus, perf, dunstctl), so the rest of a shared
    machine does not decide the column.
  offwaketime: its folded (wakee ; waker) stacks by time, leaving out
    wake-ups by the measuring tools (eu-stack's ptrace stop wakes a waiting
    thread); right when the waker side names root_comm and root_function.
The stall scored is the app's (anomaly_comm, PID) longest one in the replay,
and the live daemon's stall of PID nearest the hang mark in its stream (its
diagnosis line: the report the notification carried); the live daemon's
other stalls of the case's desktop are false stalls. Exit 0 when argus is
right at top-1 (--match function, the default) or names the process at top-1
with the truth's stall class (--match process), 1 otherwise: the replay's
answer, or the live daemon's with --score live.
"""
import json
import os
import re
import sys

COLS = ("%-18s %-5s %-5s %-5s %-5s %-3s %-7s %-7s %-13s %-5s %-5s %-5s %-5s %-5s %-5s %-5s"
        " %-5s  %s")
HEADER = ("case", "live1", "top1", "top3", "proc1", "fs", "detect", "notify", "class", "cp-1",
          "cp-3", "nwe-1", "nwe-3", "stk-1", "stk-3", "perf1", "perf3",
          "argus top-1 (comm function)")
# the measuring tools: their samples are not the desktop's
TOOL_COMMS = ("perf", "dunstctl", "eu-stack", "gdb", "sleep", "xdotool")


def truth_of(path):
    t = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#") and "=" in line:
                k, v = line.split("=", 1)
                t[k] = v
    return t


def read(work, name):
    try:
        with open(os.path.join(work, name)) as f:
            return f.read()
    except OSError:
        return None


def stall_of(text, truth, pid):
    """The case's longest stall in one diagnose --json output, or None."""
    best = None
    for line in (text or "").splitlines():
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
    """A candidate as (process comm, thread name, function)."""
    v = c.get("vertex") or {}
    return v.get("comm"), v.get("thread"), c.get("function")


def report_answers(d):
    return [names(c) for c in (d["candidates"] or [])] if d else None


APP_OBJECTS = None  # truth's app_objects: a regex of shared objects that are the app's


def system_module(path, bin_dir):
    """The kernel, a BPF program, or a shared object not of the zoo (or
    not of the app: realapps' truth names its own in app_objects)."""
    if not path or path.startswith("[") or path.startswith("bpf_prog"):
        return True
    if bin_dir and os.path.dirname(path) == bin_dir:
        return False
    if APP_OBJECTS and re.search(APP_OBJECTS, os.path.basename(path)):
        return False
    return re.search(r"\.so(\.|$)", os.path.basename(path)) is not None


EUSTACK_FRAME = re.compile(r"^#\d+\s+0x[0-9a-f]+\s+(?:(\S+)\s+)?-\s+(.*)$")
GDB_FRAME = re.compile(r"^#\d+\s+(?:(0x[0-9a-f]+) in )?(\S+) \(.*?\)(?: from (\S+))?(?: at .*)?$")


def module_at(maps, addr):
    """The file mapped at addr in a /proc/PID/maps text, or None."""
    for line in (maps or "").splitlines():
        f = line.split(None, 5)
        lo, _, hi = f[0].partition("-")
        if int(lo, 16) <= addr < int(hi, 16):
            return f[5].strip() if len(f) > 5 else None
    return None


def stack_answers(work, truth, pid, bin_dir):
    """The frames (comm, function) of every thread of the app in its
    snapshot, the main thread's first, each innermost first, or None when
    there is no snapshot of the main thread."""
    comm = truth["anomaly_comm"]
    text = read(work, "eustack.txt")
    if text and ("TID %d:" % pid) in text:
        blocks = {}
        for block in ("\n" + text).split("\nTID ")[1:]:
            tid, _, body = block.partition(":")
            if tid.strip().isdigit():
                blocks[int(tid)] = body
        frames = []
        for tid in [pid] + [t for t in blocks if t != pid]:
            for line in blocks[tid].splitlines():
                m = EUSTACK_FRAME.match(line.strip())
                if m and m.group(1) and not system_module(m.group(2).strip(), bin_dir):
                    frames.append((comm, None, m.group(1)))
        return frames
    text, maps = read(work, "gdb.txt"), read(work, "maps.txt")
    if text and ("(LWP %d)" % pid) in text:
        blocks = {}
        for block in ("\n" + text).split("\nThread ")[1:]:
            m = re.search(r"\(LWP (\d+)\)", block.split("\n", 1)[0])
            if m:
                blocks[int(m.group(1))] = block
        frames = []
        for tid in [pid] + [t for t in blocks if t != pid]:
            for line in blocks[tid].splitlines()[1:]:
                m = GDB_FRAME.match(line.strip())
                if not m or m.group(2) == "??":
                    continue
                module = m.group(3) or (module_at(maps, int(m.group(1), 16))
                                        if m.group(1) else None)
                if module and not system_module(module, bin_dir):
                    frames.append((comm, None, m.group(2)))
        return frames
    return None


PERF_HEAD = re.compile(r"^(.*?)\s+(\d+)/(\d+)\s*$")
PERF_FRAME = re.compile(r"^\s+[0-9a-f]+\s+(.*?)\s+\((.*)\)\s*$")


def perf_answers(work, bin_dir):
    """(comm, function) pairs of the case's desktop by samples, or None."""
    text, pids = read(work, "perf.script"), read(work, "case_pids")
    if text is None or pids is None:
        return None
    keep = {int(p) for p in pids.split()}
    counts = {}

    def close(sample):
        if not sample or sample[1] not in keep:
            return
        comm = sample[0]
        if comm in TOOL_COMMS or comm.startswith("argus"):
            return
        for sym, dso in sample[2]:
            if sym != "[unknown]" and not system_module(dso, bin_dir):
                key = (comm, None, sym.split("+0x")[0])
                counts[key] = counts.get(key, 0) + 1
                return

    sample = None
    for line in text.splitlines():
        if not line.strip():
            continue
        m = PERF_HEAD.match(line)
        if m and not line[0].isspace():
            close(sample)
            sample = (m.group(1).strip(), int(m.group(2)), [])
            continue
        m = PERF_FRAME.match(line)
        if m and sample:
            sample[2].append((m.group(1), m.group(2)))
    close(sample)
    return [k for k, _ in sorted(counts.items(), key=lambda kv: -kv[1])]


def offwake_answers(work, truth):
    """(answers, None) from offwaketime's folded stacks, or (None, why)."""
    na = read(work, "offwake.na")
    if na is not None:
        return None, na.strip()
    text = read(work, "offwake.txt")
    if text is None:
        return None, "not run"
    rows = []
    for line in text.splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit() or ";--;" not in stack:
            continue
        waker = stack.split(";--;", 1)[1].split(";")
        if waker[-1] in TOOL_COMMS or waker[-1].startswith("argus"):
            continue
        # the waker side: its stack, then its comm last
        fn = truth.get("root_function", "")
        answer = (waker[-1], None, fn if fn and fn in waker[:-1]
                  else (waker[-2] if len(waker) > 1 else None))
        rows.append((int(count), answer))
    rows.sort(key=lambda r: -r[0])
    return [a for _, a in rows], None


def matches(answer, truth):
    """One answer (comm, thread, function) against the truth; a thread of
    None (a baseline's: it names no thread) is not asked."""
    comm, thread, fn = answer
    want_thread = truth.get("root_thread", "")
    want_fn = truth.get("root_function", "")
    return (comm == truth["root_comm"]
            and (not want_thread or want_thread == "*" or thread is None
                 or thread == want_thread)
            and (not want_fn or fn == want_fn))


def right_at(answers, truth, k):
    return answers is not None and any(matches(a, truth) for a in answers[:k])


def false_stalls(work, stall):
    """The live daemon's stalls of the case's desktop (desktop_pids) other
    than the one scored: each as "app pid/tid +S s" (seconds from the
    scored stall's start, or from the hang mark)."""
    pids = {int(p) for p in (read(work, "desktop_pids") or "").split()}
    hang = read(work, "hang_ns")
    ref = stall["since"] if stall else (int(hang) if hang else 0)
    out = []
    for line in (read(work, "live.ndjson") or "").splitlines():
        try:
            o = json.loads(line)
        except ValueError:
            continue
        if o.get("kind") != "stall" or o.get("phase") != "start" or o.get("pid") not in pids:
            continue
        if stall and o.get("id") == stall.get("id"):
            continue
        out.append("%s %d/%d %+.1fs" % (o.get("app"), o["pid"], o["tid"],
                                         (o["since"] - ref) / 1e9))
    return out


# the live stall scored starts at most 2 s before the driver's hang mark
# (the input left unread before the mark) and at most 5 s after it
HANG_WINDOW_S = (2.0, 5.0)


# a busy hang, as the kernel shows it: the app's main thread on CPU or
# waiting for one at least this share of each 50 ms, for at least BUSY_MIN_S
BUSY_SHARE = 0.75
BUSY_MIN_S = 1.0
# where its start may lie around the driver's hang mark (a file loads for
# seconds before its layout hangs the thread)
BUSY_WINDOW_S = (3.0, 15.0)


def busy_start(work, hang_ns):
    """The start of the app's busy hang measured by the bench itself (watch.py
    busy.txt, the kernel's schedstat of its main thread), not by argus nor by
    the driver's guess: the first stretch of 50 ms steps each at least
    BUSY_SHARE on CPU or runnable (over the 200 ms around it), at least
    BUSY_MIN_S long, starting within BUSY_WINDOW_S of the mark and still
    running at the mark (the hang answers the driver's action: a stretch over
    before it is the app's own start-up). None when there is none (a hang that waits:
    the driver's mark is its start)."""
    rows = []
    for line in (read(work, "busy.txt") or "").splitlines():
        try:
            t, run, runq = (int(x) for x in line.split())
        except ValueError:
            continue
        rows.append((t, run + runq))
    if not hang_ns or len(rows) < 2:
        return None
    best, start = None, None
    # each 50 ms step judged over the 200 ms around it: the kernel charges
    # run time at ticks and switches, so one step reads 30 % and the next
    # 150 % while the thread runs all along
    for i in range(len(rows) - 1):
        (t0, _), (t1, c1) = rows[i], rows[i + 1]
        a, b = rows[max(0, i - 1)], rows[min(len(rows) - 1, i + 3)]
        busy = b[0] > a[0] and (b[1] - a[1]) >= BUSY_SHARE * (b[0] - a[0])
        if busy and start is None:
            start = t0
        if not busy or i == len(rows) - 2:
            if start is not None:
                end = t1 if busy else t0
                if (end - start >= BUSY_MIN_S * 1e9 and end >= hang_ns
                        and -BUSY_WINDOW_S[0] <= (start - hang_ns) / 1e9 <= BUSY_WINDOW_S[1]
                        and best is None):
                    best = (start, end)
            start = None
    return best


def live_of(work, pid, hang_ns):
    """The live daemon's stall of the app (start line), its diagnosis and
    when the notification showed: (stall, report, notified_ns)."""
    stall, report, first = None, None, None
    for line in (read(work, "live.ndjson") or "").splitlines():
        try:
            o = json.loads(line)
        except ValueError:
            continue
        if o.get("kind") == "stall" and o.get("pid") == pid and o.get("phase") == "start":
            # a stall that starts well before or after the hang's start is
            # another one (a false stall): HANG_WINDOW_S around the mark
            if hang_ns and not (-HANG_WINDOW_S[0] <= (o["since"] - hang_ns) / 1e9
                                <= HANG_WINDOW_S[1]):
                continue
            # the stall nearest the driver's hang mark
            if stall is None or (hang_ns and abs(o["since"] - hang_ns) <
                                 abs(stall["since"] - hang_ns)):
                stall = o
    # its diagnosis: the report about that very stall (none when no stall
    # of the app started near the hang)
    for line in (read(work, "live.ndjson") or "").splitlines() if stall else ():
        try:
            o = json.loads(line)
        except ValueError:
            continue
        if (o.get("kind") == "diagnosis" and o["report"]["stall"]["pid"] == pid
                and o["report"]["stall"]["since"] == stall["since"]):
            if report is None:
                first = o["report"]
            # the answer the user ends with: a busy stall's final diagnosis
            # (at its end, over its whole time) when there is one
            if report is None or o.get("final"):
                report = o["report"]
    # notified: when the first answer went out
    return stall, report, notified_at(work, first if report else None)


def notified_at(work, report):
    """When the user could first see the notification of this diagnosis
    (ns), or None: the Notify call whose body is the report's summary
    (dbus-monitor saw it go to the notification server), or argus's own
    fallback window with that body (mapped: shown when the Notify call was
    not answered in time), whichever came first."""
    if not report:
        return None
    first = None
    for name in ("notifications", "fallbacks"):
        at, body = None, []
        for line in (read(work, name) or "").splitlines() + ["0"]:
            if line.strip().isdigit():
                if at and any(report["summary"] in b for b in body):
                    first = at if first is None else min(first, at)
                    break
                at, body = int(line), []
            else:
                body.append(line)
    return first


def notified_by(work, report, at):
    """"window" when the first notification the user saw was argus's
    fallback window, "desktop" when it was the Notify call, None."""
    if at is None:
        return None
    for line in (read(work, "fallbacks") or "").splitlines():
        if line.strip().isdigit() and int(line) == at:
            return "window"
    return "desktop"


def mark(answers, truth, k):
    return None if answers is None else right_at(answers, truth, k)


def main():
    if sys.argv[1:] == ["--header"]:
        print(COLS % HEADER)
        return 0
    args = sys.argv[1:]
    match, as_json, bin_dir, base, score = "function", False, None, None, "replay"
    while args and args[0].startswith("--"):
        if args[0] == "--json":
            as_json, args = True, args[1:]
        elif args[0] == "--match" and len(args) > 1:
            match, args = args[1], args[2:]
        elif args[0] == "--score" and len(args) > 1:
            score, args = args[1], args[2:]
        elif args[0] == "--baselines" and len(args) > 1:
            base, args = args[1], args[2:]
        elif args[0] == "--bin-dir" and len(args) > 1:
            bin_dir, args = os.path.realpath(args[1]), args[2:]
        else:
            break
    if match not in ("function", "process") or len(args) != 4:
        print("usage: score.py [--json] [--match function|process] [--bin-dir DIR] "
              "CASE TRUTH PID WORKDIR", file=sys.stderr)
        return 2
    case, truth, pid, work = args[0], truth_of(args[1]), int(args[2]), args[3]
    global APP_OBJECTS
    APP_OBJECTS = truth.get("app_objects") or None
    diag = {m: stall_of(read(work, f), truth, pid)
            for m, f in (("argus", "beam.json"), ("critical_path", "cp.json"),
                         ("no_weak_edges", "nwe.json"))}
    beam = diag["argus"]
    answers = {m: report_answers(d) for m, d in diag.items()}
    answers["stack_snapshot"] = answers["perf"] = answers["offwaketime"] = None
    off_why = "baselines not run"
    snap = None
    if base:
        base_pid = int(read(base, "prog.pid"))
        answers["stack_snapshot"] = stack_answers(base, truth, base_pid, bin_dir)
        answers["perf"] = perf_answers(base, bin_dir)
        answers["offwaketime"], off_why = offwake_answers(base, truth)
        snap = read(base, "snapshot_ns")
    hang = read(work, "hang_ns")
    hang_ns = int(hang) if hang else None
    stopped_s = None
    if snap:
        a, b = (int(x) for x in snap.split())
        stopped_s = (b - a) / 1e9
    # the hang's start: a busy hang's measured by the bench (busy_start),
    # else the driver's mark; the live stall scored is the one nearest it
    # (for a case whose truth says the hang is busy: a hang that waits may
    # be followed by busy work, a launch's start-up once the service runs)
    busy = busy_start(work, hang_ns) if truth.get("class") == "long_running" else None
    ref_ns = busy[0] if busy else hang_ns
    live, live_report, notified = live_of(work, pid, ref_ns)

    s = beam["stall"] if beam else None
    out = {
        "case": case,
        "root": "%s %s" % (truth["root_comm"], truth["root_function"]),
        "class": s["class"] if s else None,
        "class_right": bool(s) and s["class"] == truth.get("class", s["class"]),
        "argus_proc1": bool(beam) and bool(answers["argus"]) and
        answers["argus"][0][0] == truth["root_comm"],
        "argus_answer": "%s %s %s" % answers["argus"][0] if beam and answers["argus"] else None,
        # offline: argus diagnose's trigger replayed on the recorded trace
        "detect_offline_s": (s["detected"] - s["since"]) / 1e9 if s else None,
        # live: the daemon's stall start to dunst showing the notification
        # from the hang's start as the bench measured it when it could
        # (busy_start: the earlier of it and argus's own), else argus's
        "notify_s": (notified - (min(busy[0], live["since"]) if busy else live["since"])) / 1e9
        if live and notified else None,
        # what the user saw first: the desktop's notification or argus's
        # fallback window (the bus or the notification server too slow)
        "notify_by": notified_by(work, live_report, notified) if live else None,
        "busy_start_s": (busy[0] - hang_ns) / 1e9 if busy else None,
        "busy_s": (busy[1] - busy[0]) / 1e9 if busy else None,
        "live_detect_s": (live["detected"] - live["since"]) / 1e9 if live else None,
        "live_answer": "%s %s %s" % names(live_report["candidates"][0])
        if live_report and live_report.get("candidates") else None,
        "live_summary": live_report["summary"] if live_report else None,
        "live_class": live["class"] if live else None,
        "live_cause": live.get("cause") if live else None,
        "false_stalls": false_stalls(work, live),
        "hang_to_since_s": (live["since"] - hang_ns) / 1e9 if live and hang_ns else None,
        "snapshot_stopped_s": stopped_s,
        "offwaketime_na": off_why,
    }
    for m in ("argus", "critical_path", "no_weak_edges", "stack_snapshot", "perf",
              "offwaketime"):
        out[m + "_top1"] = mark(answers[m], truth, 1)
        out[m + "_top3"] = mark(answers[m], truth, 3)
    live_answers = report_answers(live_report)
    out["live_top1"] = right_at(live_answers, truth, 1)
    out["live_top3"] = right_at(live_answers, truth, 3)
    out["live_proc1"] = bool(live_answers) and live_answers[0][0] == truth["root_comm"]
    out["live_thread1"] = bool(live_answers) and matches(
        (live_answers[0][0], live_answers[0][1], None),
        dict(truth, root_function=""))
    for m in ("stack_snapshot", "perf"):
        a = answers[m]
        out[m + "_answers"] = ["%s %s" % (x[0], x[2]) for x in a[:3]] if a is not None else None
    out["argus_top1"] = bool(out["argus_top1"])
    out["argus_top3"] = bool(out["argus_top3"])

    if as_json:
        print(json.dumps(out, separators=(",", ":")))
    else:
        def yn(b):
            return "-" if b is None else ("right" if b else "wrong")

        def secs(v):
            return "-" if v is None else "%.2fs" % v
        cls = "no-stall" if not s else (s["class"] if out["class_right"] else s["class"] + "!")
        print(COLS % (case, yn(out["live_top1"] if live else None),
                      yn(out["argus_top1"]), yn(out["argus_top3"]),
                      yn(out["argus_proc1"]), len(out["false_stalls"]),
                      secs(out["detect_offline_s"]),
                      secs(out["notify_s"]), cls,
                      *(yn(out[m + k]) for m in ("critical_path", "no_weak_edges",
                                                 "stack_snapshot", "perf")
                        for k in ("_top1", "_top3")),
                      out["argus_answer"] or "no stall of %s pid %d" % (truth["anomaly_comm"],
                                                                        pid)))
    if score == "live":
        if match == "process":
            return 0 if out["live_proc1"] else 1
        return 0 if out["live_top1"] else 1
    if match == "process":
        return 0 if out["argus_proc1"] and out["class_right"] else 1
    return 0 if out["argus_top1"] else 1


if __name__ == "__main__":
    sys.exit(main())
