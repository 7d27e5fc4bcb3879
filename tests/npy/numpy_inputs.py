#!/usr/bin/python3
"""--input files as numpy writes them by default (docs/programs.md, "Data
files"): float64 arrays into float tensors (fp32 RNE as numpy's
astype(float32), then narrowed RNE like a float32 file), integer arrays into
integer tensors of another width when every value fits, else one error line
naming the first value that does not; a missing file names the option and
the tensor. Every case reads the tensor back with --output and compares bits.
Usage: numpy_inputs.py TRNSIM CONFIG"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

trnsim, cfg = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from clicase import Cli, case, finish  # noqa: E402

run = Cli(trnsim, "--config", cfg).run


def load_as(d, dtype, arr, *extra):
    """Load arr into a tensor of dtype (same shape) and read it back."""
    p = os.path.join(d, "p.json")
    json.dump({"tensors": [{"name": "t", "memory": "sbuf", "dtype": dtype, "shape": list(arr.shape)}],
               "instructions": []}, open(p, "w"))
    src, out = os.path.join(d, "in.npy"), os.path.join(d, "out.npy")
    np.save(src, arr)
    run("run", p, "--input", f"t={src}", "--output", f"t={out}", *extra)
    got = np.load(out)
    os.remove(out)
    return got


def refused(d, dtype, arr, msg):
    p = os.path.join(d, "p.json")
    json.dump({"tensors": [{"name": "t", "memory": "sbuf", "dtype": dtype, "shape": list(arr.shape)}],
               "instructions": []}, open(p, "w"))
    src, out = os.path.join(d, "in.npy"), os.path.join(d, "out.npy")
    np.save(src, arr)
    r = run("run", p, "--input", f"t={src}", "--output", f"t={out}", rc=1)
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and msg in lines[0], r.stderr
    assert not os.path.exists(out)


rng = np.random.default_rng(7)
F64 = np.concatenate([rng.standard_normal(40) * 10.0 ** rng.integers(-30, 30, 40),
                      [np.nan, np.inf, -np.inf, -0.0, 0.0, 1e40, -1e40, 1e-50, 1 + 2.0 ** -24, 1 + 3 * 2.0 ** -24,
                       3.4028235677973366e38, 1.401298464324817e-45 * 0.75, 65519.99, 65520.0, 2.0 ** -25]])
F64 = F64.reshape(5, 11)


def bf16_bits(f32):
    """RNE of fp32 to bfloat16 bits; every NaN becomes 0x7fc0 (docs/arith.md)."""
    b = f32.view(np.uint32).astype(np.uint64)
    r = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(f32), np.uint16(0x7FC0), r)


def float64_inputs(d):
    with np.errstate(over="ignore"):
        want32 = F64.astype(np.float32)
        want16 = want32.astype(np.float16)  # fp32 -> fp16, RNE, as numpy does
    got = load_as(d, "float32", F64)
    assert got.dtype == np.float32 and got.tobytes() == want32.tobytes(), (got, want32)
    got = load_as(d, "float16", F64)
    assert got.dtype == np.float16 and got.view(np.uint16).tolist() == want16.view(np.uint16).tolist(), (got, want16)
    got = load_as(d, "bfloat16", F64, "--raw-bits")
    assert got.view(np.uint16).tolist() == bf16_bits(want32).tolist(), got
    # the same as a float32 file of astype(float32): one rule, not two
    assert load_as(d, "bfloat16", want32, "--raw-bits").tobytes() == got.tobytes()


def integer_inputs(d):
    a = np.array([[-2**31, 2**31 - 1, 0, -1], [5, 6, 7, 8]], np.int64)
    got = load_as(d, "int32", a)
    assert got.dtype == np.int32 and got.tolist() == a.tolist(), got
    u = np.array([[0, 2**32 - 1, 7, 9]], np.int64)
    got = load_as(d, "uint32", u)
    assert got.dtype == np.uint32 and got.tolist() == u.tolist(), got
    got = load_as(d, "int16", np.array([[0, 255, 128]], np.uint8))
    assert got.dtype == np.int16 and got.tolist() == [[0, 255, 128]], got
    got = load_as(d, "uint8", np.array([[0, 255]], np.int16))
    assert got.dtype == np.uint8 and got.tolist() == [[0, 255]], got
    got = load_as(d, "int64", np.array([[-3, 4]], np.int32))
    assert got.dtype == np.int64 and got.tolist() == [[-3, 4]], got
    big = np.array([[0, 1, 2, 3], [4, 5, 2**32, -1]], np.int64)
    refused(d, "uint32", big, "in.npy: element 6 [1, 2] is 4294967296, which does not fit uint32 (0..4294967295); "
            "a <i8 array loads into a uint32 tensor only when every value fits")
    refused(d, "uint32", np.array([[0, -1]], np.int64), "element 1 [0, 1] is -1, which does not fit uint32 (0..4294967295)")
    refused(d, "int32", np.array([[2**31]], np.int64), "element 0 [0, 0] is 2147483648, which does not fit int32 "
            "(-2147483648..2147483647)")
    refused(d, "int8", np.array([[200]], np.uint8), "element 0 [0, 0] is 200, which does not fit int8 (-128..127)")
    refused(d, "int64", np.array([[2**63]], np.uint64), "element 0 [0, 0] is 9223372036854775808, which does not fit int64")


def still_refused(d):
    """What is not a numpy default stays an error naming both dtypes."""
    refused(d, "float32", np.array([[1, 2]], np.int64), "dtype <i8 cannot be loaded into a float32 tensor (expected <f4)")
    refused(d, "int32", np.array([[1.0, 2.0]]), "dtype <f8 cannot be loaded into a int32 tensor (expected <i4)")


def missing_file(d):
    p = os.path.join(d, "p.json")
    json.dump({"tensors": [{"name": "t", "memory": "sbuf", "dtype": "float32", "shape": [1]}], "instructions": []},
              open(p, "w"))
    nope, out = os.path.join(d, "nope.npy"), os.path.join(d, "out.npy")
    r = run("run", p, "--input", f"t={nope}", "--output", f"t={out}", rc=1)
    assert r.stderr.strip() == (f"trnsim: --input t={nope}: cannot open {nope}: No such file or directory "
                                "(the file for tensor 't')"), r.stderr
    assert sorted(os.listdir(d)) == ["p.json"]


CASES = [("float64 into float tensors", float64_inputs), ("integers that fit, and those that do not", integer_inputs),
         ("other pairs still refused", still_refused), ("missing input file", missing_file)]
for name, fn in CASES:
    case(name, fn)
sys.exit(finish())
