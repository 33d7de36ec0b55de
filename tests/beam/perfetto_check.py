#!/usr/bin/env python3
"""perfetto_check.py REPORTS.jsonl TRACE.txt [--sched] [--samples] - a Perfetto trace written by
argus (decoded by `protoc --decode=perfetto.protos.Trace`, text format)
against the JSON reports of the same diagnoses: the thread tracks, slices
and flows the reports call for, the stall and root-cause marks, the
scheduler events (--sched: some required) and the samples' interned
callstacks (--samples: some required). Prints what it found; exit 1 on the
first mismatch."""
import json
import sys


def parse(lines):
    """protobuf text format -> nested dicts of lists."""
    root = {}
    stack = [root]
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        if line == "}":
            stack.pop()
        elif line.endswith("{"):
            node = {}
            stack[-1].setdefault(line[:-1].strip(), []).append(node)
            stack.append(node)
        else:
            key, _, val = line.partition(":")
            val = val.strip()
            if val.startswith('"'):
                val = bytes(val[1:-1], "utf-8").decode("unicode_escape")
            stack[-1].setdefault(key.strip(), []).append(val)
    return root


def fail(msg):
    print("MISMATCH: " + msg)
    sys.exit(1)


def main():
    reports = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
    trace = parse(open(sys.argv[2]))
    packets = trace.get("packet", [])
    if not packets:
        fail("no packets")
    # what the reports call for
    vids, tids, flows, roots = set(), set(), 0, 0
    for r in reports:
        tids.add(r["stall"]["tid"])
        for p in (r["path"], r["normal_path"]):
            if not p:
                continue
            for v in p["vertices"]:
                vids.add(v["id"])
                tids.add(v["tid"])
            flows += len(p["edges"])
        for c in r["candidates"]:
            vids.add(c["vertex"]["id"])
            tids.add(c["vertex"]["tid"])
        roots += r["root_cause"] is not None
    # what the trace holds
    threads, begins, ends, starts, terms = set(), 0, 0, 0, 0
    stalls, rootmarks, sched, samples, callstacks = 0, 0, 0, 0, set()
    seg_vids = set()
    for p in packets:
        for td in p.get("track_descriptor", []):
            for th in td.get("thread", []):
                threads.add(int(th["tid"][0]))
        for te in p.get("track_event", []):
            t = te.get("type", [""])[0]
            begins += t == "TYPE_SLICE_BEGIN"
            ends += t == "TYPE_SLICE_END"
            starts += len(te.get("flow_ids", []))
            terms += len(te.get("terminating_flow_ids", []))
            cat = te.get("categories", [""])[0]
            stalls += cat == "argus.stall" and t == "TYPE_SLICE_BEGIN"
            rootmarks += cat == "argus.root_cause" and t == "TYPE_SLICE_BEGIN"
            if cat == "argus.segment" and t == "TYPE_SLICE_BEGIN":
                for a in te.get("debug_annotations", []):
                    if a.get("name") == ["vertex"]:
                        seg_vids.add(int(a["int_value"][0]))
        for b in p.get("ftrace_events", []):
            for ev in b.get("event", []):
                sched += 1
                if not any(k in ev for k in ("sched_switch", "sched_waking", "sched_wakeup_new")):
                    fail("an ftrace event of another kind: %s" % ev)
        for idata in p.get("interned_data", []):
            for cs in idata.get("callstacks", []):
                callstacks.add(cs["iid"][0])
        for s in p.get("perf_sample", []):
            samples += 1
            if "callstack_iid" in s and s["callstack_iid"][0] not in callstacks:
                fail("a sample's callstack %s is not interned before it" % s["callstack_iid"][0])
    print("reports %d: threads %d/%d, segment slices %d/%d, flows %d/%d (ended %d), "
          "stall marks %d, root-cause marks %d/%d, slices %d (ends %d), sched events %d, "
          "samples %d" % (len(reports), len(threads), len(tids), len(seg_vids), len(vids),
                          starts, flows, terms, stalls, rootmarks, roots, begins, ends, sched,
                          samples))
    if threads != tids:
        fail("thread tracks %s, reports' threads %s" % (sorted(threads), sorted(tids)))
    if seg_vids != vids:
        fail("segment slices of vertices %s, reports' %s" % (sorted(seg_vids), sorted(vids)))
    if starts != flows or terms != flows:
        fail("flows start %d, end %d; reports' edges %d" % (starts, terms, flows))
    if stalls != len(reports) or rootmarks != roots:
        fail("stall marks %d (of %d), root-cause marks %d (of %d)" %
             (stalls, len(reports), rootmarks, roots))
    if begins != len(vids) + stalls + rootmarks or ends != begins:
        fail("slices %d / ends %d, expected %d" % (begins, ends, len(vids) + stalls + rootmarks))
    if "--sched" in sys.argv[3:] and not sched:
        fail("no scheduler events")
    if "--samples" in sys.argv[3:] and not samples:
        fail("no CPU samples")


main()
