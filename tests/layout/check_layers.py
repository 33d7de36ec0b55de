#!/usr/bin/env python3
"""Arrows one way: every stage includes and links only the stages before it.

The order is the pipeline's (docs/architecture.md). kext/ and hooks/ are both
producers: neither reaches the other, and both may use the ring contract that
ringbuf/ publishes for producers (ring_producer.h, shm_ring.h), as both use
event/'s record. A stage never includes another stage's private header.
Prints one line per wrong arrow and exits 1; exits 0 when there is none.
"""
import os
import re
import sys

ORDER = ["event", "synth", "kext", "hooks", "ringbuf", "stream", "incremental-graph",
         "trigger", "beam", "session", "issues", "bench", "cli"]
PRODUCERS = {"kext", "hooks"}
PRODUCER_CONTRACT = {"ring_producer.h", "shm_ring.h"}
PRIVATE = re.compile(r"(_priv|_internal|_int)\.h$")


def rank(stage):
    # kext and hooks share a rank: they sit side by side
    return {"hooks": ORDER.index("kext")}.get(stage, ORDER.index(stage))


def main(root):
    owner = {}
    for stage in ORDER:
        for dirpath, _, files in os.walk(os.path.join(root, stage)):
            for f in files:
                if f.endswith(".h") or f.endswith(".def"):
                    owner.setdefault(f, stage)
    bad = []
    for stage in ORDER:
        for dirpath, _, files in os.walk(os.path.join(root, stage)):
            if os.sep + "zoo" in dirpath or os.sep + "quiet" in dirpath:
                continue  # programs run by benchmarks, not stage code
            for f in sorted(files):
                if not f.endswith((".c", ".h", ".cpp")):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, root)
                with open(path, errors="replace") as fh:
                    for n, line in enumerate(fh, 1):
                        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                        if not m:
                            continue
                        inc = m.group(1)
                        name = os.path.basename(inc)
                        parts = [p for p in inc.split("/") if p not in ("..", ".")]
                        dst = parts[0] if len(parts) > 1 and parts[0] in ORDER else owner.get(name)
                        if dst is None or dst == stage:
                            continue
                        where = f"{rel}:{n}: {stage}/ includes {dst}/{name}"
                        if stage in PRODUCERS and name in PRODUCER_CONTRACT:
                            continue
                        if {stage, dst} == PRODUCERS:
                            bad.append(f"{where}: producers do not reach each other")
                        elif rank(dst) > rank(stage):
                            bad.append(f"{where}: {dst}/ comes after {stage}/")
                        elif PRIVATE.search(name):
                            bad.append(f"{where}: a private header of {dst}/")
    libs = {}
    for stage in ORDER:
        cm = os.path.join(root, stage, "CMakeLists.txt")
        if os.path.exists(cm):
            for lib in re.findall(r"add_library\(\s*([\w-]+)", open(cm).read()):
                libs[lib] = stage
    for stage in ORDER:
        cm = os.path.join(root, stage, "CMakeLists.txt")
        if not os.path.exists(cm):
            continue
        text = open(cm).read()
        for args in re.findall(r"target_link_libraries\(([^)]*)\)", text):
            for word in args.split()[1:]:
                dst = libs.get(word)
                if dst and dst != stage and rank(dst) > rank(stage):
                    bad.append(f"{stage}/CMakeLists.txt: {stage}/ links {word} of {dst}/, "
                               f"which comes after it")
                elif dst and {dst, stage} == PRODUCERS:
                    bad.append(f"{stage}/CMakeLists.txt: {stage}/ links {word} of {dst}/: "
                               "producers do not reach each other")
    for b in bad:
        print(b)
    print(f"layers: {len(bad)} wrong arrow(s) over {len(ORDER)} stages")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else
                  os.path.join(os.path.dirname(__file__), "..", "..")))
