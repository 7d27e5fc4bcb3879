#!/usr/bin/python3
"""The timeline's flow arrows come from the modules' rendezvous_met reports
(docs/observability.md, docs/plugins.md): each arrow must join exactly the
slices of the cores that met, bound to the right instruction on each side;
a module that does not report gets none; the host refuses a malformed
report (a module bug) with one error line and writes no output.

    timeline_arrows.py TRNSIM TEST_MODULE_CONFIG ABI2_TEST_MODULE_CONFIG [PROGRAMS_DIR SEND_RECV_PAIRS]

The collective cases run when PROGRAMS_DIR (tests/observe/programs) and the
send/recv program are given (the collective family is built)."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
from clicase import Cli, case, finish, one_line_error  # noqa: E402
from timeline_format import validate  # noqa: E402

TRNSIM, TEST_CFG, ABI2_CFG = sys.argv[1:4]
PROGRAMS = sys.argv[4] if len(sys.argv) > 4 else None
SEND_RECV = sys.argv[5] if len(sys.argv) > 5 else None
run = Cli(TRNSIM).run


def slice_at(slices, tid, ts):
    """(core, name, index, status) of the innermost instruction slice
    (never a "wait" slice) of core tid holding ts."""
    inside = [x for x in slices if x["tid"] == tid and x["name"] != "wait"
              and x["ts"] <= ts <= x["ts"] + x["dur"] + 1e-6]
    assert inside, f"no instruction slice of core {tid} holds ts {ts}"
    x = max(inside, key=lambda x: (x["ts"], -x["dur"]))
    return (tid, x["name"], x["args"]["index"], x["args"]["status"]), x


def arrows(path, cores):
    """{(from slice, to slice)}: each flow's two ends, as slice_at names them."""
    slices, flows = validate(path, cores)
    out = set()
    for es in flows.values():
        s = next(e for e in es if e["ph"] == "s")
        f = next(e for e in es if e["ph"] == "f")
        out.add((slice_at(slices, s["tid"], s["ts"])[0], slice_at(slices, f["tid"], f["ts"])[0]))
    assert len(out) == len(flows), "two arrows join the same two slices"
    return out, slices


def timeline_of(d, program, *cfg):
    tl = os.path.join(d, "t.json")
    run("run", program, "--timeline", tl, *cfg)
    return tl


def send_recv_pairs(d):
    # core 0 sends to 1 and core 2 to 3; each send waits, the receive completes it
    got, _ = arrows(timeline_of(d, SEND_RECV), 4)
    want = {((0, "CollectiveSend", 0, "wait"), (1, "CollectiveRecv", 1, "ok")),
            ((2, "CollectiveSend", 0, "wait"), (3, "CollectiveRecv", 1, "ok"))}
    assert got == want, got


def receive_waits_first(d):
    # core 0's receive waits; core 1's send completes it: the arrow leaves the
    # send and ends in core 0's receive attempt that completed, after its wait
    got, slices = arrows(timeline_of(d, os.path.join(PROGRAMS, "recv_first.json")), 2)
    assert got == {((1, "CollectiveSend", 1, "ok"), (0, "CollectiveRecv", 0, "ok"))}, got
    wait = next(x for x in slices if x["tid"] == 0 and x["name"] == "wait")
    done = next(x for x in slices if x["tid"] == 0 and x["name"] == "CollectiveRecv" and x["args"]["status"] == "ok")
    assert done["ts"] >= wait["ts"] + wait["dur"] - 1e-6, (wait, done)


def two_groups(d):
    # replica groups {0,1} and {2,3}: core 1 completes the first, core 3 the second
    got, _ = arrows(timeline_of(d, os.path.join(PROGRAMS, "groups_pairs.json")), 4)
    want = {((0, "CollectiveCompute", 0, "wait"), (1, "CollectiveCompute", 0, "ok")),
            ((2, "CollectiveCompute", 0, "wait"), (3, "CollectiveCompute", 0, "ok"))}
    assert got == want, got


def strided_groups(d):
    # groups {0,2} and {1,3}: cores 0 and 1 both wait when core 2 completes
    # {0,2}; only core 0 met it, so core 1's arrow goes to core 3
    got, _ = arrows(timeline_of(d, os.path.join(PROGRAMS, "groups_strided.json")), 4)
    want = {((0, "CollectiveCompute", 0, "wait"), (2, "CollectiveCompute", 0, "ok")),
            ((1, "CollectiveCompute", 0, "wait"), (3, "CollectiveCompute", 0, "ok"))}
    assert got == want, got


def trace_names_the_party(d):
    tr = os.path.join(d, "t.jsonl")
    run("run", os.path.join(PROGRAMS, "groups_strided.json"), "--trace", tr)
    recs = [json.loads(line) for line in open(tr)]
    met = {r["core"]: sorted((p["core"], p["index"], p["role"]) for p in r["party"])
           for r in recs if r["type"] == "instruction" and "party" in r}
    assert met == {2: [(0, 0, "member"), (2, 0, "member")], 3: [(1, 0, "member"), (3, 0, "member")]}, met
    for r in recs:
        if r["type"] == "instruction" and r["status"] != "ok":
            assert "party" not in r, r


def rendezvous_program(d, cores):
    prog = os.path.join(d, "p.json")
    json.dump({"cores": cores, "tensors": [], "instructions": [{"opcode": "TestRendezvous"}]}, open(prog, "w"))
    return prog


def reporting_test_module(d):
    # the test module built against ABI 3 reports all three cores met
    got, _ = arrows(timeline_of(d, rendezvous_program(d, 3), "--config", TEST_CFG), 3)
    assert got == {((0, "TestRendezvous", 0, "wait"), (2, "TestRendezvous", 0, "ok")),
                   ((1, "TestRendezvous", 0, "wait"), (2, "TestRendezvous", 0, "ok"))}, got


def silent_abi2_module(d):
    # the same module built against the frozen ABI 2 header says nothing: no arrows
    got, slices = arrows(timeline_of(d, rendezvous_program(d, 3), "--config", ABI2_CFG), 3)
    assert got == set(), got
    assert len([x for x in slices if x["name"] == "wait"]) == 2


def met_program(d, **attrs):
    prog = os.path.join(d, "p.json")
    json.dump({"cores": 2, "tensors": [
        {"name": "x", "memory": "sbuf", "dtype": "float32", "shape": [1, 2], "data": [1, 2]},
        {"name": "y", "memory": "sbuf", "dtype": "float32", "shape": [1, 2]}], "instructions": [
        {"opcode": "TestCopy", "inputs": ["x"], "outputs": ["y"]},
        {"opcode": "TestMet", **attrs}]}, open(prog, "w"))
    return prog


def good_report_is_traced(d):
    tr = os.path.join(d, "t.jsonl")
    run("run", met_program(d, cores=[1, 0]), "--config", TEST_CFG, "--trace", tr)
    recs = [json.loads(line) for line in open(tr) if '"TestMet"' in line]
    assert [(r["core"], r["party"]) for r in recs] == [
        (c, [{"core": 1, "index": 1, "role": "member"}, {"core": 0, "index": 1, "role": "member"}]) for c in (0, 1)]


BAD_REPORTS = [
    ({"cores": [0, 7]}, "rendezvous_met: core 7 is not a core of this run (0..1) (a module bug)"),
    ({"cores": [0, 0]}, "rendezvous_met: core 0 is named twice (a module bug)"),
    ({"cores": [0, 1], "roles": [1, 1]},
     "a point-to-point report names exactly one TRN_PARTY_SENDER and one TRN_PARTY_RECEIVER (a module bug)"),
    ({"cores": [0, 1], "roles": [0, 2]},
     "a point-to-point report names exactly one TRN_PARTY_SENDER and one TRN_PARTY_RECEIVER (a module bug)"),
    ({"cores": [0], "roles": [3]}, "a role other than TRN_PARTY_MEMBER, _SENDER or _RECEIVER (a module bug)"),
    ({"cores": []}, "rendezvous_met: the party needs 1 to core_count() cores (a module bug)"),
    ({"cores": [1]}, "the executing core, at its instruction_index(), is not in the party (a module bug)"),
    ({"cores": [0, 1], "index": 1}, "the executing core, at its instruction_index(), is not in the party"),
    ({"cores": [0, 1], "twice": True}, "rendezvous_met: called twice by one handler call (a module bug)"),
]


def bad_reports(d):
    out = os.path.join(d, "y.npy")
    for attrs, msg in BAD_REPORTS:
        for observed in ([], ["--timeline", os.path.join(d, "t.json")]):  # checked with or without observers
            r = run("run", met_program(d, **attrs), "--config", TEST_CFG, "--output", "y=" + out, *observed, rc=1)
            one_line_error(r, "instruction 1 (core 0, opcode TestMet/221, family test)", msg)
            assert not os.path.exists(out), (attrs, "left an output")


def report_from_static_check(d):
    prog = met_program(d, cores=[0, 1], in_check=True)
    msg = "rendezvous_met: not available in a static check (nothing meets there) (a module bug)"
    for cmd in (["check", prog], ["run", prog, "--output", "y=" + os.path.join(d, "y.npy")]):
        one_line_error(run(*cmd, "--config", TEST_CFG, rc=1), "opcode TestMet/221", msg)
    assert not os.path.exists(os.path.join(d, "y.npy"))


if PROGRAMS:
    case("Send/Recv pairs: sender's waiting send -> receiver's completing receive", send_recv_pairs)
    case("receive first: the completing send -> the receive attempt that completed", receive_waits_first)
    case("replica groups {0,1},{2,3}: 0 -> 1 and 2 -> 3 only", two_groups)
    case("replica groups {0,2},{1,3}: 0 -> 2 and 1 -> 3 only", strided_groups)
    case("the JSONL trace names each completing record's party", trace_names_the_party)
case("a reporting module's rendezvous: an arrow from each waiting core", reporting_test_module)
case("a module that does not report (ABI 2 build): waits, no arrows", silent_abi2_module)
case("a good report shows in the trace", good_report_is_traced)
case("malformed reports are module bugs: one error line, no output", bad_reports)
case("a report from a static check is refused by check and run", report_from_static_check)
sys.exit(finish())
