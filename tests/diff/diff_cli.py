#!/usr/bin/python3
"""trnsim diff through the real CLI: identical configs, the duplicate-order
setting, a deliberately wrong module, --keep-going / --json, error cases;
and the progress display of run. Usage: diff_cli.py TRNSIM SOURCE_DIR FLIP_MODULE"""
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

import numpy as np

trnsim, src, flip = sys.argv[1:4]
here = os.path.join(src, "tests", "diff")
cfg = os.path.join(src, "config", "search.cfg")
desc_cfg = os.path.join(src, "tests", "search", "search_descending.cfg")
dups = os.path.join(here, "dups.json")
topk = os.path.join(here, "topk16.json")
DESC = "search.duplicate_match_order=descending"
failures = 0


def run(*args, rc=0):
    r = subprocess.run([trnsim, *args], capture_output=True, text=True, timeout=120)
    if r.returncode != rc:
        raise AssertionError(f"{args}: exit {r.returncode}, expected {rc}\n{r.stdout}\n{r.stderr}")
    return r


def case(fn):
    global failures
    try:
        fn()
        print(f"ok: {fn.__name__}")
    except AssertionError as e:
        failures += 1
        print(f"FAIL: {fn.__name__}: {e}")


def bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def identical():
    r = run("diff", dups, "--config", cfg, "--against", cfg)
    assert r.stdout == ("identical: 3 instructions on 1 core, every output bit and written byte equal, and every "
                        "tensor after the run\n"), r.stdout
    assert r.stderr == "", r.stderr
    # the same .so loaded twice with different settings: each keeps its own state
    r = run("diff", dups, "--config", cfg, "--against", desc_cfg, "--set", DESC)
    assert r.stdout.startswith("identical: 3 instructions"), r.stdout


def first_occurrences(data, vals, descending):
    """Each value of vals takes the next unused occurrence of itself in data;
    equal values go slot 0 first (ascending) or slot 7 first (descending)."""
    out = [0xFFFFFFFF] * 8
    used = set()
    order = range(7, -1, -1) if descending else range(8)
    for s in order:
        for i, x in enumerate(data):
            if x == vals[s] and i not in used:
                out[s] = i
                used.add(i)
                break
    return out


def duplicate_order():
    data = np.array([1, 2, 3, 4, 8, 8, 8, 8, 8, 8, 8], dtype=np.float32)
    vals = [3, 8, 8, 8, 8, 8, 8, 8]
    asc, desc = first_occurrences(data, vals, False), first_occurrences(data, vals, True)
    first = next(i for i in range(8) if asc[i] != desc[i])
    assert (first, asc[first], desc[first]) == (1, 4, 10), (asc, desc)
    r = run("diff", dups, "--config", cfg, "--against-set", DESC, rc=1)
    data1 = [5, 6, 7, 5, 5, 5, 1, 1, 1, 1, 1]
    vals1 = [5, 5, 5, 6, 6, 6, 6, 6]
    a1, d1 = first_occurrences(data1, vals1, False), first_occurrences(data1, vals1, True)
    differing = sum(x != y for x, y in zip(asc + a1, desc + d1))
    expect = (
        "difference at instruction 1 (execution 1 on core 0): MaxIndex (IT 89, family search)\n"
        "  operand:   outputs[0] (uint32, 16 elements), tensor 'idx'\n"
        "  element:   [0, 1] of the operand, [0, 1] of tensor 'idx'\n"
        f"  A:         0x{asc[1]:08x} = {asc[1]}  ({cfg})\n"
        f"  B:         0x{desc[1]:08x} = {desc[1]}  ({cfg} --against-set {DESC})\n"
        f"  ulp:       {desc[1] - asc[1]}\n"
        f"  differing: {differing} of 16 elements\n")
    assert r.stdout == expect, r.stdout + "\n---\n" + expect


def keep_going_table():
    r = run("diff", dups, "--config", cfg, "--against", desc_cfg, "--keep-going", rc=1)
    lines = r.stdout.splitlines()
    assert lines[0].split() == ["instruction", "execution", "core", "opcode", "operand", "differing", "elements",
                                "first", "ulp"], lines
    assert lines[1].split() == ["1", "1", "0", "MaxIndex", "outputs[0]", "10", "16", "[0,", "1]", "6"], lines
    assert lines[2] == "1 of 3 instructions differ, 10 elements in all", lines
    assert len(lines) == 3, lines


def keep_going_json():
    r = run("diff", dups, "--config", cfg, "--against", desc_cfg, "--keep-going", "--json", rc=1)
    j = json.loads(r.stdout)
    assert j["identical"] is False and j["compared"] == 3 and j["differing_instructions"] == 1, j
    (d,) = j["differences"]
    assert (d["instruction"], d["execution"], d["core"], d["opcode"], d["it"], d["operand"], d["tensor"]) == \
        (1, 1, 0, "MaxIndex", 89, "outputs[0]", "idx"), d
    assert d["first"] == {"position": 1, "index": [0, 1], "tensor_index": [0, 1], "bits": ["0x00000004", "0x0000000a"],
                          "values": [4, 10], "ulp": 6}, d
    r = run("diff", dups, "--config", cfg, "--json")
    j = json.loads(r.stdout)
    assert j == {"a": cfg, "b": cfg, "differences": [], "compared": 3, "differing_instructions": 0,
                 "differing_elements": 0, "identical": True}, j


def wrong_module():
    data = np.array(json.load(open(topk))["tensors"][0]["data"], dtype=np.float32).reshape(2, 20)
    second = -np.sort(-data, axis=1)[:, 8:16]  # the second round of TopK-16 (no duplicates among the top 8)
    a = float(second[0, 3])
    b = struct.unpack("<f", struct.pack("<I", bits(a) ^ 1))[0]
    r = run("diff", topk, "--config", cfg, "--against-module", f"search={flip}", rc=1)
    expect = (
        "difference at instruction 2 (execution 2 on core 0): Max (IT 88, family search)\n"
        "  operand:   outputs[0] (float32, 16 elements), tensor 'next'\n"
        "  element:   [0, 3] of the operand, [0, 3] of tensor 'next'\n"
        f"  A:         0x{bits(a):08x} = {a:.9g}  ({cfg})\n"
        f"  B:         0x{bits(a) ^ 1:08x} = {b:.9g}  ({cfg} --against-module search={flip})\n"
        "  ulp:       1\n"
        "  differing: 1 of 16 elements\n")
    assert r.stdout == expect, r.stdout + "\n---\n" + expect
    # another element and bit, set through B's settings: the sign bit of element [1, 7]
    r = run("diff", topk, "--config", cfg, "--against-module", f"search={flip}", "--against-set", "search.flip_element=15",
            "--against-set", "search.flip_bit=31", "--json", rc=1)
    (d,) = json.loads(r.stdout)["differences"]
    v = float(second[1, 7])
    assert d["first"]["index"] == [1, 7] and d["first"]["bits"] == [f"0x{bits(v):08x}", f"0x{bits(v) ^ 0x80000000:08x}"], d
    assert d["first"]["values"] == [v, -v] and d["first"]["ulp"] == 2 * (bits(v) & 0x7fffffff), d
    # flipping a Max that never runs at that index: identical
    r = run("diff", topk, "--config", cfg, "--against-module", f"search={flip}", "--against-set", "search.flip_index=1")
    assert r.stdout.startswith("identical: 3 instructions"), r.stdout


def errors():
    cases = [
        (["diff"], "trnsim: diff: missing PROGRAM.json (usage: trnsim diff PROGRAM --config A.cfg --against B.cfg)"),
        (["diff", dups, "--config", cfg, "--against", "/nonexistent/b.cfg"],
         "trnsim: diff: B (/nonexistent/b.cfg): /nonexistent/b.cfg: cannot open config: No such file or directory"),
        (["diff", dups, "--config", cfg, "--against-module", "search=/nonexistent/x.so"],
         "trnsim: diff: --against-module search=/nonexistent/x.so: cannot read /nonexistent/x.so (give the module's .so file)"),
        (["diff", dups, "--config", cfg, "--against-module", f"nope={flip}"],
         f"trnsim: diff: B ({cfg} --against-module nope={flip}): module swap 'nope={flip}': the config loads no module of "
         "family 'nope'"),
        (["diff", "/nonexistent/p.json", "--config", cfg],
         f"trnsim: diff: A ({cfg}): /nonexistent/p.json: unable to open /nonexistent/p.json: No such file or directory"),
        (["diff", dups, "--config", cfg, "--output", "top=/tmp/never.npy"],
         "trnsim: diff: --output belongs to run (diff compares every output itself)"),
        (["diff", dups, "--config", cfg, "--max-instructions", "2"],
         f"trnsim: diff: A ({cfg}): {dups}: stopped after 2 instructions (--max-instructions 2), before instruction 2 on "
         "core 0 (MatchReplace/90)"),
    ]
    for args, line in cases:
        r = run(*args, rc=2)
        assert r.stderr == line + "\n", f"{args}:\n{r.stderr}\n---\n{line}"
        assert r.stdout == "", r.stdout
    assert not os.path.exists("/tmp/never.npy")
    # a module name (no '/') is searched as a config's module is: one line naming where
    r = run("diff", dups, "--config", cfg, "--against-module", "search=trnsim-nosuch", rc=2)
    head = f"trnsim: diff: B ({cfg} --against-module search=trnsim-nosuch): "
    assert len(r.stderr.splitlines()) == 1 and r.stderr.startswith(head), r.stderr
    assert "module 'trnsim-nosuch' (family search): not found; searched " in r.stderr, r.stderr
    assert r.stdout == "", r.stdout
    r = run("diff", dups, "--config", cfg, "--against-set", "search.duplicate_match_order=sideways", rc=2)
    assert len(r.stderr.splitlines()) == 1 and "B (" in r.stderr and "is not one of ascending|descending" in r.stderr, r.stderr


def inputs():
    """--input as run reads it, into both runs: lookups of distinct values give the same
    indices under either duplicate order; eight equal lookups do not."""
    with tempfile.TemporaryDirectory() as d:
        f = os.path.join(d, "vals.npy")
        np.save(f, np.array([[3, 8, 7, 6, 5, 4, 2, 1]] * 2, dtype=np.float32))
        r = run("diff", dups, "--config", cfg, "--against-set", DESC, "--input", f"vals={f}")
        assert r.stdout.startswith("identical: 3 instructions"), r.stdout
        np.save(f, np.array([[8] * 8] * 2, dtype=np.float32))
        r = run("diff", dups, "--config", cfg, "--against-set", DESC, "--input", f"vals={f}", "--json", rc=1)
        (x,) = json.loads(r.stdout)["differences"]
        # row 0 of data holds seven 8s (indices 4..10): ascending, slot 0 takes index 4 and slot 7
        # finds none; descending, slot 7 takes 4 and slot 0 finds none (0xFFFFFFFF)
        asc = first_occurrences([1, 2, 3, 4, 8, 8, 8, 8, 8, 8, 8], [8] * 8, False)
        desc = first_occurrences([1, 2, 3, 4, 8, 8, 8, 8, 8, 8, 8], [8] * 8, True)
        assert (asc[0], desc[0]) == (4, 0xFFFFFFFF), (asc, desc)
        assert (x["instruction"], x["first"]["index"], x["first"]["bits"], x["differing"]) == \
            (1, [0, 0], ["0x00000004", "0xffffffff"], sum(a != b for a, b in zip(asc, desc))), x


PROGRESS = re.compile(r"progress: (\d+)/(\d+) instructions \((\d+\.\d)%\); per core \(of (\d+)\): ([\d ]+); "
                      r"elapsed (\d+\.\d s|\d+ min \d\d s); ETA (\d+\.\d s|\d+ min \d\d s|\?|0 s \(done\)|- \(stopped\))$")


def progress():
    with tempfile.TemporaryDirectory() as d:
        err = os.path.join(d, "err")
        with open(err, "w") as f:  # forced into a file: one line per update, the last one says done
            r = subprocess.run([trnsim, "run", topk, "--config", cfg, "--progress"], stderr=f, timeout=60)
        assert r.returncode == 0
        lines = open(err).read().splitlines()
        assert lines, "no progress line"
        for l in lines:
            assert PROGRESS.match(l), l
        m = PROGRESS.match(lines[-1])
        assert m.group(1, 2, 3, 4, 5, 7) == ("3", "3", "100.0", "3", "3", "0 s (done)"), lines[-1]
    # not a terminal, not forced: nothing on stderr
    r = run("run", topk, "--config", cfg)
    assert r.stderr == "", r.stderr
    r = run("run", topk, "--config", cfg, "--progress", "--no-progress")
    assert r.stderr == "", r.stderr
    # a failed run ends its forced display with "stopped", then the one error line
    r = run("run", topk, "--config", cfg, "--progress", "--max-instructions", "2", rc=1)
    lines = r.stderr.splitlines()
    assert len(lines) == 2 and PROGRESS.match(lines[0]) and lines[0].endswith("ETA - (stopped)"), lines
    assert lines[0].startswith("progress: 2/3 instructions (66.7%)"), lines
    assert lines[1].startswith("trnsim: ") and "--max-instructions 2" in lines[1], lines


for fn in (identical, duplicate_order, keep_going_table, keep_going_json, wrong_module, inputs, errors, progress):
    case(fn)
sys.exit(1 if failures else 0)
