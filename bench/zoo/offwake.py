#!/usr/bin/env python3
"""offwake.py - offwaketime's answer rebuilt from perf's scheduler tracepoints.

  offwake.py PERF_SCRIPT > offwake.txt

BCC's offwaketime (the wake-up chain peer of the paper's evaluation) needs
kprobes and kernel headers; where it cannot run, watch.py records the same
facts with `perf record -a --call-graph dwarf` on two tracepoints, filtered
in the kernel to the app's threads: sched:sched_switch (the app's thread
blocks: its stack; it runs again) and sched:sched_waking (someone wakes it:
the waker's stack, in the waker's context). PERF_SCRIPT is `perf script -F
trace:comm,pid,tid,time,event,trace,ip,sym,dso` of that recording.

Output: offwaketime -f's folded lines, one per (blocked stack, waker stack)
with the microseconds the app's threads spent blocked there before that
waker woke them:

  wakee_comm;outermost;...;innermost;--;waker innermost;...;outermost;waker_comm US

As offwaketime counts it: a wait is counted when its thread runs again (a
wait still going when the recording stopped is not in it), a preempted
thread (prev_state R) did not wait, and the waker is the task running the
wake-up (in an interrupt, whichever task the interrupt came in).
"""
import re
import sys

HEAD = re.compile(r"^(.*?)\s+(\d+)/(\d+)\s+(\d+\.\d+):\s+(sched:\S+):\s+(.*)$")
FRAME = re.compile(r"^\s+[0-9a-f]+\s+(.*?)\s+\((.*)\)\s*$")
FIELD = re.compile(r"(\w+)=(\S+)")


def events(lines):
    """(comm, tid, t_us, event, fields, frames innermost first) per event."""
    ev = None
    for line in lines:
        m = HEAD.match(line)
        if m and not line[0].isspace():
            if ev:
                yield ev
            # "prev_comm=a b" would split a comm: only the numeric and
            # state fields are read from the trace text
            ev = (m.group(1).strip(), int(m.group(3)), int(float(m.group(4)) * 1e6),
                  m.group(5), dict(FIELD.findall(m.group(6))), [])
            continue
        f = FRAME.match(line)
        if f and ev:
            ev[5].append(f.group(1).split("+0x")[0])
    if ev:
        yield ev


def fold(lines):
    """{folded key: microseconds} over perf script's lines."""
    blocked = {}  # tid -> (since_us, comm, frames) while it waits
    woken = {}  # tid -> (at_us, waker comm, waker frames)
    out = {}
    for comm, _tid, t, event, f, frames in events(lines):
        if event == "sched:sched_switch":
            prev, nxt = int(f.get("prev_pid", -1)), int(f.get("next_pid", -1))
            # a switch names both tasks; the filter kept it for either
            if nxt in blocked:
                since, wcomm, wframes = blocked.pop(nxt)
                w = woken.pop(nxt, None)
                if w and w[0] >= since:
                    key = ";".join([wcomm] + list(reversed(wframes)) + ["--"] + w[2] + [w[1]])
                    out[key] = out.get(key, 0) + (t - since)
            if not f.get("prev_state", "R").startswith("R"):
                blocked[prev] = (t, comm, frames)
        elif event == "sched:sched_waking":
            wakee = int(f.get("pid", -1))
            woken[wakee] = (t, comm, frames)
    return out


def main():
    if len(sys.argv) != 2:
        print("usage: offwake.py PERF_SCRIPT", file=sys.stderr)
        return 2
    try:
        with open(sys.argv[1]) as f:
            folded = fold(f)
    except OSError as e:
        print("offwake.py: %s: %s" % (sys.argv[1], e.strerror), file=sys.stderr)
        return 1
    for key, us in sorted(folded.items(), key=lambda kv: -kv[1]):
        print("%s %d" % (key, us))
    return 0


if __name__ == "__main__":
    sys.exit(main())
