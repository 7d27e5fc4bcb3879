#!/usr/bin/python3
"""Initial data of packed x4 tensors is the elements' raw bits, on every core,
the same in every run (it was narrowed as a number, which writes nothing for
a packed form, leaving whatever the heap held). A non-integer is one error.
Usage: packed_init.py TRNSIM"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

trnsim = sys.argv[1]


def run(d, prog, *args):
    p = os.path.join(d, "p.json")
    with open(p, "w") as f:
        json.dump(prog, f)
    return subprocess.run([trnsim, "run", p, *args], capture_output=True, text=True, timeout=60)


def tensors(extra):
    return {"cores": 2, "tensors": [
        {"name": "a", "memory": "sbuf", "dtype": "float4_e2m1_x4", "shape": [2, 3], "fill": 0x1234},
        {"name": "b", "memory": "hbm", "dtype": "float8_e4m3_x4", "shape": [3],
         "data": [0, 0xFFFFFFFF, 0x7FC01234]},
        {"name": "c", "memory": "sbuf", "dtype": "float8_e5m2_x4", "shape": [1, 2],
         "data_per_core": [[1, 2], [3, 0x80000000]]}] + extra, "instructions": []}


with tempfile.TemporaryDirectory() as d:
    outs = [f"{n}={os.path.join(d, n + '.npy')}" for n in "abc"]
    for attempt in range(3):
        r = run(d, tensors([]), *sum((["--output", o] for o in outs), []))
        assert r.returncode == 0, r.stderr
        a, b, c = (np.load(os.path.join(d, n + ".npy")) for n in "abc")
        assert a.dtype == np.uint16 and (a == 0x1234).all() and a.shape == (2, 2, 3), a
        assert b.dtype == np.uint32 and b.tolist() == [[0, 0xFFFFFFFF, 0x7FC01234]] * 2, b
        assert c.tolist() == [[[1, 2]], [[3, 0x80000000]]], c
        for n in "abc":
            os.remove(os.path.join(d, n + ".npy"))
    for bad, msg in ((1.5, "expected an integer for a float4_e2m1_x4 tensor (a packed x4 element "
                      "is given as its raw bits, 0 .. 2^16-1)"),
                     (0x10000, "65536 does not fit float4_e2m1_x4")):
        prog = tensors([])
        prog["tensors"][0]["fill"] = bad
        r = run(d, prog, "--output", outs[0])
        assert r.returncode != 0 and msg in r.stderr, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert not os.path.exists(os.path.join(d, "a.npy"))
print("packed x4 initial data: raw bits on every core, 3 runs equal; 2 refusals")
