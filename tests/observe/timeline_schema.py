#!/usr/bin/python3
"""--timeline FILE.json (docs/observability.md) against the Chrome
trace-event format (timeline_format.py: fields and ph types, metadata, one
track per core, slices in time order and nested, flows paired and inside
instruction slices); waits as their own slices; sub-instructions nested in
their parent's slice; one slice per executed instruction; and, for
collective programs, one arrow per core that met another (as many as the
JSONL trace's `party` lists name).

    timeline_schema.py TRNSIM TEST_MODULE_CONFIG [ALLREDUCE_PROGRAM [COLLECTIVE_PROGRAM...]]"""
import json
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
from clicase import Cli, case, finish, one_line_error  # noqa: E402
from timeline_format import validate  # noqa: E402

TRNSIM, TEST_CFG = sys.argv[1], sys.argv[2]
COLLECTIVE = sys.argv[3] if len(sys.argv) > 3 else None
MORE = sys.argv[4:]
run = Cli(TRNSIM).run


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


def collective_programs(d):
    for prog in MORE:
        tl, tr = os.path.join(d, "t.json"), os.path.join(d, "t.jsonl")
        run("run", prog, "--timeline", tl, "--trace", tr)
        cores = json.load(open(prog))["cores"]
        _, flows = validate(tl, cores)
        parties = [json.loads(line).get("party") for line in open(tr)]
        met = sum(len(p) - 1 for p in parties if p)
        assert met > 0 and len(flows) == met, (prog, len(flows), met)


case("test module: tracks, a wait slice, a flow, nested sub-instructions", test_module_run)
if COLLECTIVE:
    case("AllReduce: a flow from every earlier core to the one that completed it", collective_run)
if MORE:
    case("Send/Recv and replica-group programs: valid, one arrow per core met", collective_programs)
case("a failed run's timeline is complete JSON with the failed slice", failed_run_still_closes)
sys.exit(finish())
