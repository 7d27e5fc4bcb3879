#!/usr/bin/python3
"""--timeline FILE.json (docs/observability.md) against the Chrome
trace-event format: the object form with traceEvents; every event's fields
and ph type; metadata naming the process and one track per core; complete
('X') slices with a name, ts and dur, in time order on each track; waits as
their own slices; sub-instructions nested in their parent's slice; every
flow id used by exactly one 's' and one 'f' (bound to the enclosing slice),
each inside a slice of its track; and one slice per executed instruction.

    timeline_schema.py TRNSIM TEST_MODULE_CONFIG [COLLECTIVE_PROGRAM]"""
import json
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
from clicase import Cli, case, finish, one_line_error  # noqa: E402

TRNSIM, TEST_CFG = sys.argv[1], sys.argv[2]
COLLECTIVE = sys.argv[3] if len(sys.argv) > 3 else None
run = Cli(TRNSIM).run

REQUIRED = {"X": {"name", "ph", "ts", "dur", "pid", "tid", "cat", "args"},
            "M": {"name", "ph", "pid", "tid", "args"},
            "s": {"name", "ph", "ts", "pid", "tid", "id", "cat"},
            "f": {"name", "ph", "ts", "pid", "tid", "id", "cat", "bp"}}


def validate(path, cores):
    """The schema checks; returns the events by kind for the caller's own."""
    doc = json.load(open(path))
    assert set(doc) >= {"traceEvents", "displayTimeUnit"} and doc["displayTimeUnit"] == "ns", set(doc)
    ev = doc["traceEvents"]
    for e in ev:
        assert e.get("ph") in REQUIRED, e
        missing = REQUIRED[e["ph"]] - set(e)
        assert not missing, (missing, e)
        assert e["pid"] == 1 and isinstance(e["tid"], int) and 0 <= e["tid"] < cores, e
        if "ts" in e:
            assert isinstance(e["ts"], (int, float)) and e["ts"] >= 0, e
    meta = [e for e in ev if e["ph"] == "M"]
    names = {(e["name"], e["tid"]): e["args"] for e in meta}
    assert names[("process_name", 0)]["name"].startswith("trnsim "), names
    for c in range(cores):
        assert names[("thread_name", c)] == {"name": f"core {c}"}, names
        assert names[("thread_sort_index", c)] == {"sort_index": c}
    slices = [e for e in ev if e["ph"] == "X"]
    by_track = defaultdict(list)
    for e in slices:
        assert e["dur"] >= 0 and isinstance(e["name"], str) and e["name"], e
        by_track[e["tid"]].append(e)
    for tid, xs in by_track.items():
        ts = [x["ts"] for x in xs]
        assert ts == sorted(ts), f"core {tid}: slices out of time order {ts}"
    # slices on one track nest or follow each other, never overlap partly
    for tid, xs in by_track.items():
        stack = []
        for x in xs:
            while stack and x["ts"] >= stack[-1]["ts"] + stack[-1]["dur"] - 1e-9:
                stack.pop()
            if stack:
                assert x["ts"] + x["dur"] <= stack[-1]["ts"] + stack[-1]["dur"] + 1e-6, (stack[-1], x)
            stack.append(x)
    flows = defaultdict(list)
    for e in ev:
        if e["ph"] in "sf":
            assert e["bp"] == "e" if e["ph"] == "f" else True
            inside = [x for x in by_track[e["tid"]] if x["ts"] <= e["ts"] <= x["ts"] + x["dur"] + 1e-6]
            assert inside, f"flow event outside every slice of core {e['tid']}: {e}"
            flows[e["id"]].append(e)
    for fid, es in flows.items():
        kinds = sorted(x["ph"] for x in es)
        assert kinds == ["f", "s"], (fid, es)
        s, f = (x for x in sorted(es, key=lambda x: x["ph"], reverse=True))
        assert s["ts"] <= f["ts"] and s["tid"] != f["tid"], (s, f)
    return slices, flows


def test_module_run(d):
    prog = os.path.join(d, "p.json")
    json.dump({"cores": 2, "tensors": [
        {"name": "x", "memory": "sbuf", "dtype": "float32", "shape": [1, 4], "data": [1, 2, 3, 4]},
        {"name": "y", "memory": "sbuf", "dtype": "float32", "shape": [1, 4]}], "instructions": [
        {"opcode": "TestCopy", "inputs": ["x"], "outputs": ["y"]},
        {"opcode": "TestRendezvous"},
        {"opcode": "TestSub", "body": [{"opcode": "TestCopy", "inputs": ["y"], "outputs": ["x"]},
                                       {"opcode": "TestCopy", "inputs": ["x"], "outputs": ["y"]}]}]},
              open(prog, "w"))
    tl = os.path.join(d, "t.json")
    run("run", prog, "--config", TEST_CFG, "--timeline", tl)
    slices, flows = validate(tl, 2)
    names = defaultdict(list)
    for x in slices:
        names[x["tid"]].append((x["name"], x["args"].get("depth"), x["args"].get("status")))
    # core 0 arrives first and waits; core 1 completes the rendezvous
    assert names[0] == [("TestCopy", 0, "ok"), ("TestRendezvous", 0, "wait"), ("wait", None, None),
                        ("TestRendezvous", 0, "ok"), ("TestSub", 0, "ok"), ("TestCopy", 1, "ok"),
                        ("TestCopy", 1, "ok")], names[0]
    assert names[1] == [("TestCopy", 0, "ok"), ("TestRendezvous", 0, "ok"), ("TestSub", 0, "ok"),
                        ("TestCopy", 1, "ok"), ("TestCopy", 1, "ok")], names[1]
    wait = [x for x in slices if x["name"] == "wait"][0]
    assert wait["cat"] == "wait" and wait["args"]["opcode"] == "TestRendezvous" and wait["args"]["attempts"] >= 1
    assert len(flows) == 1
    (s, f), = [sorted(v, key=lambda x: x["ph"], reverse=True) for v in flows.values()]
    assert (s["tid"], f["tid"]) == (0, 1), (s, f)
    parent = [x for x in slices if x["tid"] == 1 and x["name"] == "TestSub"][0]
    for sub in [x for x in slices if x["tid"] == 1 and x["args"]["depth"] == 1]:
        assert parent["ts"] <= sub["ts"] and sub["ts"] + sub["dur"] <= parent["ts"] + parent["dur"] + 1e-6


def collective_run(d):
    tl = os.path.join(d, "t.json")
    prog = json.load(open(COLLECTIVE))
    cores = prog["cores"]
    run("run", COLLECTIVE, "--timeline", tl)
    slices, flows = validate(tl, cores)
    done = [x for x in slices if x["name"] != "wait" and x["args"]["status"] == "ok"]
    assert len(done) == cores * len(prog["instructions"]), len(done)
    # every core but the last to arrive points at the slice that completed the AllReduce
    targets = {f["tid"] for v in flows.values() for f in v if f["ph"] == "f"}
    sources = sorted(s["tid"] for v in flows.values() for s in v if s["ph"] == "s")
    assert len(targets) == 1 and sources == sorted(set(range(cores)) - targets), (targets, sources)
    assert len([x for x in slices if x["name"] == "wait"]) == cores - 1


def failed_run_still_closes(d):
    prog = os.path.join(d, "p.json")
    json.dump({"tensors": [], "instructions": [{"opcode": "TestFail", "message": "boom"}]}, open(prog, "w"))
    tl = os.path.join(d, "t.json")
    one_line_error(run("run", prog, "--config", TEST_CFG, "--timeline", tl, rc=1), "boom")
    slices, _ = validate(tl, 1)
    assert [(x["name"], x["args"]["status"]) for x in slices] == [("TestFail", "error")]
    r = run("run", prog, "--config", TEST_CFG, "--timeline", os.path.join(d, "no", "t.json"), rc=1)
    one_line_error(r, "--timeline " + os.path.join(d, "no", "t.json") + ": cannot create it")


case("test module: tracks, a wait slice, a flow, nested sub-instructions", test_module_run)
if COLLECTIVE:
    case("AllReduce: a flow from every earlier core to the one that completed it", collective_run)
case("a failed run's timeline is complete JSON with the failed slice", failed_run_still_closes)
sys.exit(finish())
