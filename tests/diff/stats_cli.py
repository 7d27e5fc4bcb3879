#!/usr/bin/python3
"""--stats additions through the real CLI: output elements, NaN / Inf per
opcode (against numpy on the --output files), bytes per memory (from the
operand shapes), and the nccl-tests lines of collectives (size, count, type,
redop, busbw = algbw x factor, #wrong where diff checked them).
Usage: stats_cli.py TRNSIM SOURCE_DIR"""
import json
import os
import re
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from clicase import Cli, case, finish  # noqa: E402

trnsim, src = sys.argv[1:3]
here = os.path.join(src, "tests", "diff")
run = Cli(trnsim).run
topk_cfg = os.path.join(src, "config", "topk.cfg")
coll_cfg = os.path.join(src, "config", "collective.cfg")
nonfinite = os.path.join(here, "nonfinite.json")
colls = os.path.join(here, "collectives.json")
LNC = "collective.cores_per_lnc=4"


def counts(a):
    a = np.asarray(a, dtype=np.float32)
    return int(np.isnan(a).sum()), int(np.isinf(a).sum())


def values_and_bytes():
    with tempfile.TemporaryDirectory() as d:
        outs = {t: os.path.join(d, t + ".npy") for t in ("top", "out", "h")}
        r = run("run", nonfinite, "--config", topk_cfg, "--stats-json",
                *[x for t, p in outs.items() for x in ("--output", f"{t}={p}")])
        st = json.loads(r.stdout)
        got = {o["name"]: (o["count"], o["elements"], o["nan"], o["inf"]) for o in st["opcodes"]}
        top, out, h = (np.load(outs[t]) for t in ("top", "out", "h"))
    assert got["Max"] == (1, top.size, *counts(top)), (got, top)
    assert got["MatchReplace"] == (1, out.size, *counts(out)), (got, out)
    assert got["Load"] == (1, h.size, *counts(h)), (got, h)
    # the NaN is never matched and stays; the found 8 of each row become -inf
    assert counts(out) == (1, 16) and counts(top) == (1, 1), (out, top)
    # Max reads data (2x12 fp32) and writes top (2x8 fp32); MatchReplace reads top and
    # data and writes out (2x12 fp32); Load reads out and writes h (2x12 bf16) in HBM
    f32 = 4
    assert st["memories"] == [
        {"name": "sbuf", "bytes_read": (24 + 16 + 24 + 24) * f32, "bytes_written": (16 + 24) * f32},
        {"name": "psum", "bytes_read": 0, "bytes_written": 0},
        {"name": "hbm", "bytes_read": 0, "bytes_written": 24 * 2}], st["memories"]
    r = run("run", nonfinite, "--config", topk_cfg, "--stats")
    rows = {l.split()[1]: l.split() for l in r.stdout.splitlines() if re.match(r"\d+ ", l)}
    assert rows["MatchReplace"][5:] == ["24", "1", "16"], rows
    mem = [l.split() for l in r.stdout.splitlines() if l.split()[:1] in (["sbuf"], ["psum"], ["hbm"])]
    assert mem == [["sbuf", "352", "160"], ["psum", "0", "0"], ["hbm", "0", "48"]], mem


# kind: (size in bytes: the larger of one rank's input and output, count, type, redop, nccl-tests' busbw factor for 4 ranks)
EXPECT = {
    "AllReduce": (2 * 64 * 4, 128, "float32", "add", 2 * 3 / 4),
    "AllGather": (64 * 4, 64, "float32", None, 3 / 4),
    "ReduceScatter": (64 * 2, 64, "bfloat16", "max", 3 / 4),
    "AllToAll": (64 * 4, 64, "float32", None, 3 / 4),
    "Permute": (16 * 4, 16, "float32", None, 1.0),
}


def collective_lines():
    st = json.loads(run("run", colls, "--config", coll_cfg, "--set", LNC, "--stats-json").stdout)
    cs = st["collectives"]
    assert [c["collective"] for c in cs] == list(EXPECT) and [c["instruction"] for c in cs] == [0, 1, 2, 3, 4], cs
    for c in cs:
        size, count, dtype, redop, factor = EXPECT[c["collective"]]
        assert (c["size"], c["count"], c["type"], c["redop"], c["ranks"], c["executions"], c["wrong"]) == \
            (size, count, dtype, redop, 4, 1, None), c
        assert c["busbw_factor"] == factor, c
        assert c["time_us"] > 0 and abs(c["algbw"] - size / (c["time_us"] * 1e-6) / 1e9) <= 1e-6 + 1e-3 * c["algbw"], c
        assert abs(c["busbw"] - c["algbw"] * factor) <= 1e-6 + 1e-6 * c["busbw"], c
    assert st["opcodes"][0]["count"] == 5 * 4, st["opcodes"]  # five collectives on four cores
    text = run("run", colls, "--config", coll_cfg, "--set", LNC, "--stats").stdout.splitlines()
    head = next(i for i, l in enumerate(text) if l.split()[:2] == ["instruction", "collective"])
    assert text[head].split() == ["instruction", "collective", "size(B)", "count", "type", "redop", "ranks",
                                  "time(us)", "algbw(GB/s)", "busbw(GB/s)", "#wrong"], text[head]
    for line, kind in zip(text[head + 1:], EXPECT):
        f = line.split()
        size, count, dtype, redop, factor = EXPECT[kind]
        assert f[1:7] == [kind, str(size), str(count), dtype, redop or "none", "4"] and f[10] == "N/A", f
        assert abs(float(f[9]) - float(f[8]) * factor) <= 1.5e-4, f  # printed to 4 places


def collective_wrong_checked():
    # diff checked every collective against an identical B: #wrong 0 on each line
    r = run("diff", colls, "--config", coll_cfg, "--set", LNC, "--against-set", LNC, "--stats", "--json")
    j = json.loads(r.stdout)
    assert j["identical"] and [c["wrong"] for c in j["stats"]["collectives"]] == [0] * 5, j


def collective_wrong_found():
    """B runs the multi-worker emulation (each core's AllReduce = its own input x 4), A the
    exact one: its cores complete in another order (A's last core to arrive completes
    first, B's complete at once), diff still pairs each core's execution, and #wrong
    counts every element that differs."""
    prog = os.path.join(src, "tests", "collective", "programs", "multiworker_allreduce.json")
    x = np.array(json.load(open(prog))["tensors"][0]["data_per_core"], dtype=np.float32)
    exact = x[0].copy()
    for c in range(1, 4):
        exact = (exact + x[c]).astype(np.float32)  # fp32, in core order
    r = run("diff", prog, "--config", coll_cfg, "--against-set", "collective.regime=multiworker", "--keep-going",
            "--json", "--stats", rc=1)
    j = json.loads(r.stdout)
    assert sorted(d["core"] for d in j["differences"]) == [0, 1, 2, 3], j
    for d in j["differences"]:
        c = d["core"]
        assert (d["instruction"], d["operand"], d["differing"], d["elements"]) == (0, "outputs[0]", 3, 3), d
        want = np.array([exact[0], x[c][0] * 4], dtype=np.float32)
        assert d["first"]["bits"] == [f"0x{b:08x}" for b in want.view(np.uint32)], (d, exact, x[c])
        assert np.array(d["first"]["values"], dtype=np.float32).tolist() == want.tolist(), d
    (line,) = j["stats"]["collectives"]
    assert (line["collective"], line["wrong"], line["size"], line["count"]) == ("AllReduce", 12, 12, 3), line


for fn in (values_and_bytes, collective_lines, collective_wrong_checked, collective_wrong_found):
    case(fn.__name__, fn)
sys.exit(finish())
