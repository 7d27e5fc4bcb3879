#!/usr/bin/python3
"""--trace FILE.jsonl (docs/observability.md): every line parses with jq;
records hold the real operands, statuses and counts; each output digest
equals XXH64 computed here (tests/observe/xxh64.py) over the bytes of the
output .npy the same run wrote; --trace-values gives the elements and bits
of the outputs; filters and the limit keep exactly what they say; bad
options are one clear error that leaves no file; --trace-text keeps the old
text trace.

    trace_jsonl.py TRNSIM TEST_MODULE_CONFIG"""
import json
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
sys.path.insert(0, os.path.dirname(__file__))
from clicase import Cli, case, finish, one_line_error  # noqa: E402
from xxh64 import xxh64  # noqa: E402

TRNSIM, TEST_CFG = sys.argv[1], sys.argv[2]
run = Cli(TRNSIM).run
CFG = "plugins = ( { family = \"dma\"; module = \"trnsim-dma\"; }, { family = \"search\"; module = \"trnsim-search\"; } );\n"

rng = np.random.default_rng(17)
X = [rng.standard_normal(64).astype(np.float32) for _ in range(2)]
X[0][5] = np.nan
X[1][9] = -0.0

PROGRAM = {
    "cores": 2,
    "tensors": [
        {"name": "x", "memory": "sbuf", "dtype": "float32", "shape": [4, 16],
         "data_per_core": [[("nan" if np.isnan(v) else float(v)) for v in x] for x in X]},
        {"name": "a", "memory": "sbuf", "dtype": "float32", "shape": [4, 16]},
        {"name": "b", "memory": "sbuf", "dtype": "bfloat16", "shape": [4, 16]},
        {"name": "v", "memory": "sbuf", "dtype": "float32", "shape": [4, 8]},
        {"name": "w", "memory": "sbuf", "dtype": "float32", "shape": [4, 16]},
        {"name": "i", "memory": "sbuf", "dtype": "uint32", "shape": [4, 8]},
        {"name": "s", "memory": "sbuf", "dtype": "float32", "shape": [4, 16], "fill": 0},
        {"name": "h", "memory": "hbm", "dtype": "float32", "shape": [64]},
    ],
    "instructions": [
        {"opcode": "TensorCopy", "inputs": ["x"], "outputs": ["a"]},
        {"opcode": "TensorCopy", "inputs": ["x"], "outputs": ["b"]},
        {"opcode": "Max", "inputs": ["x"], "outputs": ["v"]},
        {"opcode": "MaxIndexAndMatchReplace", "imm_value": "-inf", "inputs": ["v", "x"], "outputs": ["w", "i"]},
        {"opcode": "TensorCopy", "inputs": [{"tensor": "x", "ap": [[2, 8]]}],
         "outputs": [{"tensor": "s", "offset": 1, "ap": [[2, 8]]}]},
        {"opcode": "Load", "inputs": ["x"], "outputs": ["h"]},
    ],
}
OUTS = ["a", "b", "v", "w", "i", "s", "h"]


def setup(d):
    prog, cfg = os.path.join(d, "p.json"), os.path.join(d, "c.cfg")
    json.dump(PROGRAM, open(prog, "w"))
    open(cfg, "w").write(CFG)
    return prog, cfg


def records(path):
    """Every line through jq (it must parse), then as Python objects."""
    r = subprocess.run(["jq", "-c", ".", path], capture_output=True, text=True)
    assert r.returncode == 0, f"jq could not read {path}: {r.stderr}"
    lines = open(path).read().splitlines()
    assert len(r.stdout.splitlines()) == len(lines), "jq and the file disagree on the records"
    return [json.loads(line) for line in lines]


def traced(d, *extra, outputs=True):
    prog, cfg = setup(d)
    tr = os.path.join(d, "t.jsonl")
    args = ["run", prog, "--config", cfg, "--trace", tr, "--raw-bits", *extra]
    if outputs:
        for n in OUTS:
            args += ["--output", f"{n}={os.path.join(d, n + '.npy')}"]
    run(*args)
    return records(tr)


def insts(recs):
    return [r for r in recs if r["type"] == "instruction"]


def digests_match_outputs(d):
    recs = traced(d)
    head, end = recs[0], recs[-1]
    assert head["type"] == "header" and head["cores"] == 2 and head["digest"] == "xxh64", head
    assert end == {"type": "end", "status": "ok", "records": 12, "limit_reached": False}, end
    ins = insts(recs)
    assert len(ins) == 12 and len(recs) == 14
    out = {n: np.load(os.path.join(d, n + ".npy")) for n in OUTS}
    checked = 0
    for r in ins:
        assert r["status"] == "ok" and r["depth"] == 0 and r["duration_ns"] >= 0, r
        k = r["core"]
        for o in r["outputs"]:
            t = out[o["tensor"]][k]
            if o["tensor"] == "s":  # the strided write: elements 1, 3, ..., 15 of each partition
                assert o["ap"]["dims"] == [[2, 8]] and o["elements"] == 32, o
                t = np.ascontiguousarray(t[:, 1::2])
            want = "%016x" % xxh64(t.tobytes())
            assert o["digest"] == want, (r["index"], o["tensor"], o["digest"], want)
            assert o["bytes"] == t.nbytes and o["elements"] == t.size, o
            checked += 1
        for o in r["inputs"]:
            assert "digest" not in o
    assert checked == 14, checked
    by_index = {(r["core"], r["index"]): r for r in ins}
    mr = by_index[(1, 3)]
    assert mr["opcode"] == "MaxIndexAndMatchReplace" and mr["it"] == 91 and mr["family"] == "search"
    assert mr["module"] == "trnsim-search" and [o["tensor"] for o in mr["inputs"]] == ["v", "x"]
    b = by_index[(0, 1)]["outputs"][0]
    assert (b["dtype"], b["memory"], b["kind"], b["bytes"]) == ("bfloat16", "sbuf", "tensor", 128), b
    h = by_index[(0, 5)]["outputs"][0]
    assert h["memory"] == "hbm" and h["ap"]["partitions"] == 1 and h["elements"] == 64, h
    # the two cores' data differ, so do their digests
    assert by_index[(0, 0)]["outputs"][0]["digest"] != by_index[(1, 0)]["outputs"][0]["digest"]
    starts = [r["start_ns"] for r in ins]
    assert starts == sorted(starts), "start times go back"


def values_and_bits(d):
    ins = insts(traced(d, "--trace-values=3"))
    out = {n: np.load(os.path.join(d, n + ".npy")) for n in OUTS}
    for r in ins:
        for o in r["outputs"]:
            t = out[o["tensor"]][r["core"]]
            if o["tensor"] == "s":
                t = t[:, 1::2]
            flat = t.reshape(-1)[:3]
            width = flat.dtype.itemsize
            bits = ["0x%0*x" % (2 * width, int(u)) for u in flat.view(f"<u{width}")]
            assert o["bits"] == bits, (o["tensor"], o["bits"], bits)
            if o["dtype"] == "bfloat16":
                vals = (flat.astype(np.uint32) << 16).view(np.float32)
            else:
                vals = flat
            for got, want in zip(o["values"], vals.tolist()):
                if isinstance(want, float) and np.isnan(want):
                    assert got == "nan"
                elif o["dtype"] in ("float32", "bfloat16"):  # printed with 9 digits: the fp32 value exactly
                    assert np.float32(got) == np.float32(want), (o["tensor"], o["values"], vals)
                else:
                    assert got == want, (o["tensor"], o["values"], vals)
    a0 = [r for r in ins if r["core"] == 0 and r["index"] == 0][0]["outputs"][0]
    assert [np.float32(v) for v in a0["values"]] == list(X[0][:3])
    default = insts(traced(d, "--trace-values", outputs=False))
    assert all(len(o["values"]) == 8 for r in default for o in r["outputs"])


def filters(d):
    def kept(f):
        return [(r["core"], r["index"], r["opcode"]) for r in insts(traced(d, "--trace-filter", f, outputs=False))]
    assert kept("opcode=Max") == [(0, 2, "Max"), (1, 2, "Max")]
    assert kept("opcode=Max,Load;core=1") == [(1, 2, "Max"), (1, 5, "Load")]
    assert kept("index=1-2,5") == [(c, i, o) for c in (0, 1) for i, o in ((1, "TensorCopy"), (2, "Max"), (5, "Load"))]
    assert kept("family=dma;core=0") == [(0, 0, "TensorCopy"), (0, 1, "TensorCopy"), (0, 4, "TensorCopy"),
                                         (0, 5, "Load")]
    assert kept("module=trnsim-search;index=3") == [(0, 3, "MaxIndexAndMatchReplace"), (1, 3, "MaxIndexAndMatchReplace")]
    assert kept("opcode=88") == [(0, 2, "Max"), (1, 2, "Max")]
    recs = traced(d, "--trace-filter", "opcode=Max", outputs=False)
    assert recs[0]["filter"] == "opcode=Max" and recs[-1]["records"] == 2


def limit(d):
    recs = traced(d, "--trace-limit", "5", outputs=False)
    assert [r["type"] for r in recs] == ["header"] + ["instruction"] * 5 + ["limit", "end"], recs
    assert recs[6]["records"] == 5 and "--trace-limit 5 reached" in recs[6]["message"]
    assert recs[-1]["limit_reached"] is True and recs[-1]["records"] == 5
    recs = traced(d, "--trace-limit", "1", "--trace-filter", "core=1", outputs=False)
    assert [(r["core"], r["index"]) for r in insts(recs)] == [(1, 0)]


def to_stderr(d):
    prog, cfg = setup(d)
    r = run("run", prog, "--config", cfg, "--trace", "-", "--trace-filter", "opcode=Load")
    recs = [json.loads(line) for line in r.stderr.splitlines()]
    assert [x["type"] for x in recs] == ["header", "instruction", "instruction", "end"], r.stderr
    assert r.stdout == ""


def bad_options(d):
    prog, cfg = setup(d)
    tr, out = os.path.join(d, "t.jsonl"), os.path.join(d, "a.npy")
    cases = [
        (["--trace-filter", "opcod=Max"], ["--trace-filter 'opcod=Max'", "unknown key 'opcod'",
                                           "did you mean 'opcode'?", "e.g. --trace-filter"]),
        (["--trace-filter", "opcode=max"], ["--trace-filter 'opcode=max'", "did you mean 'Max'?"]),
        (["--trace-filter", "index=5-2"], ["'5-2' is not a number or a range LO-HI for index", "e.g. --trace-filter"]),
        (["--trace-filter", "core"], ["'core' is not KEY=VALUE"]),
        (["--trace-filter", "core=0;;index=1"], ["an empty clause"]),
        (["--trace-filter", "family=dmaa"], ["no loaded module has family 'dmaa'; did you mean 'dma'?",
                                             "(loaded: dma, search)"]),
        (["--trace-limit", "0"], ["--trace-limit '0': expected a positive whole number"]),
        (["--trace-values=0"], ["--trace-values=0: expected --trace-values or --trace-values=K"]),
    ]
    for extra, needles in cases:
        r = run("run", prog, "--config", cfg, "--trace", tr, "--output", f"a={out}", *extra, rc=1)
        one_line_error(r, *needles)
        assert not os.path.exists(tr) and not os.path.exists(out), f"{extra} left a file"
    r = run("run", prog, "--config", cfg, "--trace-filter", "core=0", rc=1)
    one_line_error(r, "--trace-filter needs --trace FILE.jsonl")
    # an old `--trace` before the program must not make the program the trace file
    before = open(prog).read()
    r = run("run", "--trace", prog, "--config", cfg, rc=1)
    one_line_error(r, "--trace takes the file for the JSONL trace", "the one-line text trace is --trace-text")
    assert open(prog).read() == before
    r = run("run", prog, "--config", cfg, "--trace", os.path.join(d, "no", "such", "t.jsonl"), rc=1)
    one_line_error(r, "--trace " + os.path.join(d, "no", "such", "t.jsonl") + ": cannot create it")


def waits_and_errors(d):
    prog = os.path.join(d, "r.json")
    json.dump({"cores": 2, "tensors": [], "instructions": [
        {"opcode": "TestRendezvous"}, {"opcode": "TestFail", "message": "boom"}]}, open(prog, "w"))
    tr = os.path.join(d, "t.jsonl")
    r = run("run", prog, "--config", TEST_CFG, "--trace", tr, rc=1)
    one_line_error(r, "boom")
    recs = records(tr)
    got = [(x["core"], x["index"], x["opcode"], x["status"]) for x in insts(recs)]
    assert got == [(0, 0, "TestRendezvous", "wait"), (1, 0, "TestRendezvous", "ok"), (1, 1, "TestFail", "error"),
                   ], got
    assert "boom" in insts(recs)[-1]["error"]
    assert recs[-1] == {"type": "end", "status": "error", "records": 3, "limit_reached": False}


def text_trace_kept(d):
    prog, cfg = setup(d)
    r = run("run", prog, "--config", cfg, "--trace-text")
    lines = r.stderr.splitlines()
    assert len(lines) == 12 and lines[0].startswith("core 0 #0 TensorCopy (IT 23, dma) ok"), r.stderr


case("every output digest equals XXH64 of the output file's bytes", digests_match_outputs)
case("--trace-values: first K elements as values and bits", values_and_bits)
case("--trace-filter keeps exactly what it names", filters)
case("--trace-limit N: N records, then a limit record", limit)
case("--trace -: records on standard error", to_stderr)
case("bad trace options: one line, no file left", bad_options)
case("waits and errors are records with their status", waits_and_errors)
case("--trace-text keeps the text trace", text_trace_kept)
sys.exit(finish())
