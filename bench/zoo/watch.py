#!/usr/bin/env python3
"""watch.py - what the bug zoo runner captures live while a case's hang lasts.

  watch.py --app PID --case-root PID [--bus-pid PID] [--seconds S] [--no-baselines]
           [--no-notify]

Runs in the case's scratch folder, started before the driver. Two threads:

- baselines: waits for the driver's `hang` file, then (1 s into the stall)
  takes a stack snapshot of the app (eu-stack, gdb -batch if eu-stack
  fails) and records the machine with `perf record -a --call-graph dwarf
  -F 199` for 1 s. BCC offwaketime runs beside it when it can run here;
  where it cannot (no kprobes, no kernel headers), its facts are recorded
  from the hang's mark until the driver is done (`driver.done`, or the
  case's seconds) with perf on the scheduler's tracepoints, filtered to
  the app's threads, into offwake.data (offwake.py folds it).
  It lists the processes of the case's desktop (descendants of --case-root)
  right after, for score.py to keep only those of perf's samples.
- notify: logs the Notify calls on the session bus (dbus-monitor) with
  their CLOCK_MONOTONIC time (ns) to `notifications`.
- fallback: logs argus's own notification windows (shown when the Notify
  call is not answered in time: a stopped bus or notification server) with
  the time the X server mapped them to `fallbacks`.

- busy: the app's main thread's CPU and run-queue time every 50 ms
  (busy.txt), from which score.py takes a busy hang's start.

Files written: desktop_pids (every process of the case's desktop seen while
it ran: the runner's descendants and the session bus's), hang_ns, eustack.txt (or gdb.txt and maps.txt), snapshot_ns (start and end
of the snapshot: how long the app was stopped), perf.data, case_pids,
offwake.txt, offwake.data (perf's, for offwake.py) or offwake.na,
notifications, fallbacks.
"""
import re
import os
import shutil
import signal
import subprocess
import sys
import threading
import time

SNAPSHOT_DELAY_S = 1.0  # into the stall: well past any normal frame
PERF_SECONDS = 1


def write(name, text):
    with open(name, "w") as f:
        f.write(text)


def wait_hang(limit_s):
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        if os.path.exists("hang"):
            return time.monotonic_ns()
        time.sleep(0.005)
    return None


def descendants(root):
    """root and every process below it, from /proc (ppid links)."""
    kids = {}
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % p) as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        kids.setdefault(ppid, []).append(int(p))
    out, todo = [], [root]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(kids.get(p, []))
    return out


def offwaketime_tool():
    """The offwaketime command, or None and why it cannot run here."""
    tool = shutil.which("offwaketime-bpfcc") or shutil.which("offwaketime")
    if not tool and os.access("/usr/share/bcc/tools/offwaketime", os.X_OK):
        tool = "/usr/share/bcc/tools/offwaketime"
    why = []
    if not tool:
        why.append("bpfcc-tools not installed")
    # it attaches kprobes (finish_task_switch, try_to_wake_up) and compiles
    # its program against the running kernel's headers
    if not any(os.path.exists(p) for p in ("/sys/kernel/tracing/kprobe_events",
                                          "/sys/kernel/debug/tracing/kprobe_events")):
        why.append("no kprobes in this kernel (no kprobe_events)")
    rel = os.uname().release
    if not (os.path.exists("/lib/modules/%s/build" % rel)
            or os.path.exists("/sys/kernel/kheaders.tar.xz")):
        why.append("no headers for kernel %s" % rel)
    return (tool, None) if not why else (None, "; ".join(why))


def offwake_perf(app, limit_s):
    """perf recording the app's threads' switches and wake-ups with their
    stacks (what offwaketime's kprobes see) into offwake.data: the running
    perf, or None and why not. The filter lists the threads the app has
    now: a thread started later is not in it (offwaketime -p filters by
    process)."""
    if not shutil.which("perf"):
        return None, "perf not installed"
    try:
        tids = [int(t) for t in os.listdir("/proc/%d/task" % app)]
    except OSError:
        return None, "the app %d was gone at the hang" % app
    switch = " || ".join("prev_pid == %d || next_pid == %d" % (t, t) for t in tids)
    waking = " || ".join("pid == %d" % t for t in tids)
    try:
        return subprocess.Popen(["perf", "record", "-q", "-a", "--call-graph", "dwarf",
                                 "-e", "sched:sched_switch", "--filter", switch,
                                 "-e", "sched:sched_waking", "--filter", waking,
                                 "-o", "offwake.data", "--", "sleep", "%.1f" % limit_s],
                                stdout=subprocess.DEVNULL, stderr=open("offwake.err", "w"),
                                start_new_session=True), None
    except OSError as e:
        return None, "perf: %s" % e.strerror


def run(argv, out, err, timeout):
    """argv's exit status, stdout to the file out; -1 when it cannot run
    (a missing tool leaves its column empty, not the others)."""
    try:
        with open(out, "w") as f:
            return subprocess.call(argv, stdout=f, stderr=err, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        with open(out + ".err" if out != "/dev/null" else "watch.err", "a") as f:
            f.write("%s: %s\n" % (argv[0], e))
        return -1


def baselines(app, root, limit_s):
    hang = wait_hang(limit_s)
    if hang is None:
        write("offwake.na", "the driver never marked the hang")
        return
    write("hang_ns", "%d\n" % hang)
    tool, why = offwaketime_tool()
    offperf = None
    if not tool:
        offperf, perf_why = offwake_perf(app, limit_s)
        if not offperf:
            write("offwake.na", "%s; %s" % (why, perf_why))
    time.sleep(max(0.0, SNAPSHOT_DELAY_S - (time.monotonic_ns() - hang) / 1e9))
    t0 = time.monotonic_ns()
    rc = run(["eu-stack", "-m", "-p", str(app)], "eustack.txt", subprocess.STDOUT, 20)
    if rc != 0 and shutil.which("gdb"):
        # gdb names a frame's library only when it lacks debug info: the
        # app's memory map says which module each frame's address is in
        try:
            shutil.copyfile("/proc/%d/maps" % app, "maps.txt")
        except OSError:
            pass
        run(["gdb", "-batch", "-nx", "-p", str(app), "-ex",
             "set print frame-info location-and-address", "-ex", "thread apply all bt"],
            "gdb.txt", subprocess.DEVNULL, 30)
    write("snapshot_ns", "%d %d\n" % (t0, time.monotonic_ns()))
    off = None
    if tool:
        off = subprocess.Popen([tool, "-f", "-p", str(app), str(PERF_SECONDS)],
                               stdout=open("offwake.txt", "w"),
                               stderr=open("offwake.err", "w"))
    with open("perf.err", "w") as err:
        run(["perf", "record", "-a", "--call-graph", "dwarf", "-F", "199", "-o", "perf.data",
             "--", "sleep", str(PERF_SECONDS)], "/dev/null", err, 30)
    me = os.getpid()
    write("case_pids", "".join("%d\n" % p for p in descendants(root) if p != me))
    if off:
        try:
            rc = off.wait(timeout=60)
        except subprocess.TimeoutExpired:
            off.kill()
            rc = -1
        if rc != 0:
            with open("offwake.err") as f:
                err = f.read().strip().splitlines()
            write("offwake.na", "offwaketime failed: %s" % (err[-1] if err else "exit %d" % rc))
    if offperf:
        # until the driver is done (its hang over) or the case's time is up
        end = hang / 1e9 + limit_s
        while time.monotonic() < end and offperf.poll() is None:
            if os.path.exists("driver.done"):
                break
            time.sleep(0.1)
        if offperf.poll() is None:
            os.killpg(offperf.pid, signal.SIGINT)  # perf writes its data and ends
        try:
            rc = offperf.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(offperf.pid, signal.SIGKILL)
            rc = offperf.wait()
        if rc not in (0, -signal.SIGINT, 128 + signal.SIGINT) or not os.path.exists("offwake.data"):
            with open("offwake.err") as f:
                err = f.read().strip().splitlines()
            write("offwake.na", "perf on the scheduler's tracepoints failed: %s"
                  % (err[-1] if err else "exit %d" % rc))


def mark_hang(limit_s):
    hang = wait_hang(limit_s)
    if hang is not None:
        write("hang_ns", "%d\n" % hang)


def desktop(root, bus, limit_s):
    """Every process the case's desktop had while it ran (descendants of
    the runner and of the session bus: the services it activates), sampled
    every 0.25 s into `desktop_pids`: score.py counts the live daemon's
    stalls of these processes (the daemon watches the whole machine)."""
    seen = set()
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        now = set(descendants(root)) | (set(descendants(bus)) if bus else set())
        if not now - seen and seen:
            time.sleep(0.25)
            continue
        seen |= now
        write("desktop_pids", "".join("%d\n" % p for p in sorted(seen)))
        time.sleep(0.25)


def busy(app, limit_s):
    """The app's main thread's time on CPU and waiting for a CPU, from the
    kernel (/proc/PID/task/PID/schedstat), every 50 ms into `busy.txt`
    ("ns_now run_ns runq_ns" a line): when the thread stopped waiting, an
    independent measure of a busy hang's start (score.py busy_start)."""
    path = "/proc/%d/task/%d/schedstat" % (app, app)
    end = time.monotonic() + limit_s
    with open("busy.txt", "w") as out:
        while time.monotonic() < end:
            try:
                with open(path) as f:
                    run, runq = f.read().split()[:2]
            except (OSError, ValueError):
                return
            out.write("%d %s %s\n" % (time.monotonic_ns(), run, runq))
            out.flush()
            time.sleep(0.05)


def notify(limit_s):
    """Logs every Notify call on the session bus to `notifications`: its
    CLOCK_MONOTONIC time (ns) when dbus-monitor printed it, the moment argus
    handed it to the desktop's notification server (dunst draws it on its
    next frame), then its arguments indented. score.py picks the app's."""
    try:
        mon = subprocess.Popen(["dbus-monitor", "--session",
                                "type='method_call',interface='org.freedesktop.Notifications',"
                                "member='Notify'"], stdout=subprocess.PIPE, text=True,
                               stderr=subprocess.DEVNULL)
    except OSError:
        return
    timer = threading.Timer(limit_s, mon.terminate)
    timer.start()
    with open("notifications", "w") as out:
        for line in mon.stdout:
            if line.startswith("method call") and "member=Notify" in line:
                out.write("%d\n" % time.monotonic_ns())
            elif line.startswith(" "):
                out.write(line)
            out.flush()
    timer.cancel()
    mon.wait()


MAP = re.compile(r"window (0x[0-9a-f]+), override (YES|NO)")


def fallback(limit_s):
    """Logs every fallback window of argus's (WM_CLASS "argus-notification")
    to `fallbacks`, in the format of `notifications`: the CLOCK_MONOTONIC
    time (ns) the X server reported its MapNotify (xev on the root window's
    children: the moment the user can see it), then its body
    (_ARGUS_NOTIFICATION_BODY) indented. score.py takes the earlier of it
    and the Notify call."""
    if not shutil.which("xev") or not shutil.which("xprop"):
        return
    argv = ["xev", "-root", "-event", "substructure"]
    if shutil.which("stdbuf"):
        argv = ["stdbuf", "-oL"] + argv  # a line as soon as the event comes
    try:
        xev = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True,
                               stderr=subprocess.DEVNULL)
    except OSError:
        return
    timer = threading.Timer(limit_s, xev.terminate)
    timer.start()
    mapped = None
    with open("fallbacks", "w") as out:
        for line in xev.stdout:
            if line.startswith("MapNotify"):
                mapped = time.monotonic_ns()
                continue
            m = MAP.search(line) if mapped else None
            if not m:
                continue
            at, mapped = mapped, None
            if m.group(2) != "YES":
                continue  # argus's window is override-redirect
            try:
                props = subprocess.run(["xprop", "-id", m.group(1), "WM_CLASS",
                                        "_ARGUS_NOTIFICATION_BODY"], capture_output=True,
                                       text=True, timeout=5).stdout
            except (OSError, subprocess.TimeoutExpired):
                continue
            if '"argus-notification"' not in props:
                continue
            out.write("%d\n" % at)
            for p in props.splitlines():
                out.write("   %s\n" % p)
            out.flush()
    timer.cancel()
    xev.wait()


def main():
    args = sys.argv[1:]
    app = root = bus = None
    limit_s, do_base, do_notify = 30.0, True, True
    while args:
        a = args.pop(0)
        if a == "--app":
            app = int(args.pop(0))
        elif a == "--case-root":
            root = int(args.pop(0))
        elif a == "--bus-pid":
            v = args.pop(0)
            bus = int(v) if v.isdigit() else None
        elif a == "--seconds":
            limit_s = float(args.pop(0))
        elif a == "--no-baselines":
            do_base = False
        elif a == "--no-notify":
            do_notify = False
        else:
            print("watch.py: unknown argument %s" % a, file=sys.stderr)
            return 2
    if app is None or root is None:
        print("usage: watch.py --app PID --case-root PID [--bus-pid PID] [--seconds S]"
              " [--no-baselines]"
              " [--no-notify]", file=sys.stderr)
        return 2
    threads = []
    if do_base:
        threads.append(threading.Thread(target=baselines, args=(app, root, limit_s)))
    else:
        threads.append(threading.Thread(target=mark_hang, args=(limit_s,)))
    if do_notify:
        threads.append(threading.Thread(target=notify, args=(limit_s,)))
        threads.append(threading.Thread(target=fallback, args=(limit_s,)))
    threading.Thread(target=busy, args=(app, limit_s), daemon=True).start()
    # daemon: ends with the watcher, not after limit_s
    threading.Thread(target=desktop, args=(root, bus, limit_s), daemon=True).start()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return 0


if __name__ == "__main__":
    sys.exit(main())
