#!/usr/bin/python3
"""The CLI's .npy data path against numpy: --input read straight into
simulator memory and --output written straight from it (docs/internals/
datapath.md). Every tensor dtype round-trips bit for bit, small and past the
1 MiB conversion buffer, in SBUF (a run per partition) and in HBM (one run),
on one core and stacked over two; the converting loads (float64, float32
narrowed, other integer widths) equal numpy's own conversions; a file that
fails half-way (short, a value out of range, a short pipe) leaves no output
and keeps the user's old file.
Usage: cli_datapath.py TRNSIM CONFIG"""
import json
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from clicase import case, finish  # noqa: E402

trnsim, cfg = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
rng = np.random.default_rng(16)

# trnsim dtype -> the numpy storage of its raw bits (docs/programs.md)
STORAGE = {"int8": "i1", "uint8": "u1", "int16": "<i2", "uint16": "<u2", "int32": "<i4", "uint32": "<u4",
           "int64": "<i8", "uint64": "<u8", "float32": "<f4", "float32r": "<f4", "float16": "<f2",
           "bfloat16": "<u2", "float8_e3m4": "u1", "float8_e4m3": "u1", "float8_e4m3fn": "u1",
           "float8_e8m0fnu": "u1", "float8_e5m2": "u1", "float8_e4m3_x4": "<u4", "float8_e5m2_x4": "<u4",
           "float4_e2m1_x4": "<u2"}


def run(*args, rc=0, stdin=None):
    """clicase's Cli.run, with binary data on stdin."""
    r = subprocess.run([trnsim, *args, "--config", cfg], capture_output=True, input=stdin, timeout=120)
    if r.returncode != rc:
        raise AssertionError(f"{args}: exit {r.returncode}, expected {rc}\n{r.stdout}\n{r.stderr}")
    return r


def program(d, dtype, shape, memory="sbuf", cores=1):
    p = os.path.join(d, "p.json")
    json.dump({"cores": cores, "tensors": [{"name": "t", "memory": memory, "dtype": dtype, "shape": list(shape)}],
               "instructions": []}, open(p, "w"))
    return p


def saved(a):
    """The bytes numpy.save writes for a (trnsim writes the same header)."""
    import io
    f = io.BytesIO()
    np.save(f, a)
    return f.getvalue()


def through(d, dtype, arr, shape=None, memory="sbuf", cores=1, extra=()):
    """arr saved by numpy, --input into a tensor, --output back: the bytes."""
    p = program(d, dtype, shape if shape is not None else arr.shape, memory, cores)
    src, out = os.path.join(d, "in.npy"), os.path.join(d, "out.npy")
    np.save(src, arr)
    run("run", p, "--input", f"t={src}", "--output", f"t={out}", *extra)
    with open(out, "rb") as f:
        data = f.read()
    os.remove(out)
    return data


def random_bits(storage, shape):
    dt = np.dtype(storage)
    n = int(np.prod(shape))
    return rng.integers(0, 256, size=n * dt.itemsize, dtype=np.uint8).view(dt).reshape(shape)


def same_dtype_round_trips(d):
    """Raw bits in, the same bits out (--raw-bits), for every dtype: small
    and large (over 1 MiB), SBUF and HBM."""
    for dtype, st in STORAGE.items():
        for shape, memory in (((128, 33), "sbuf"), ((3, 5, 7), "hbm"), ((128, 2560), "sbuf"), ((300000,), "hbm")):
            a = random_bits(st, shape)
            if dtype == "float32r":  # a value type: stored as fp32, so any finite value comes back
                a = rng.standard_normal(shape).astype(np.float32)
            got = through(d, dtype, a, memory=memory, extra=("--raw-bits",))
            assert got == saved(a), f"{dtype} {shape} {memory}: the output differs from the input"


def bf16_bits(f32):
    """RNE of fp32 to bfloat16 bits; every NaN becomes 0x7fc0 (docs/arith.md)."""
    b = f32.view(np.uint32).astype(np.uint64)
    r = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(f32), np.uint16(0x7FC0), r)


def widened_outputs(d):
    """bfloat16 raw bits in, written as float32 (the bits << 16), large."""
    a = random_bits("<u2", (128, 4096))
    a[np.isnan((a.astype(np.uint32) << 16).view(np.float32))] = 0x3F80  # NaNs widen canonically; keep the test exact
    want = (a.astype(np.uint32) << 16).view(np.float32)
    assert through(d, "bfloat16", a) == saved(want)


def converted_inputs(d):
    """float64 -> float32 / float16 / bfloat16, float32 -> bfloat16 and
    integer widths, against numpy's conversions, small and large."""
    for shape in ((7, 9), (128, 3000)):
        x = rng.standard_normal(shape) * 10.0 ** rng.integers(-6, 6, shape)
        with np.errstate(over="ignore"):
            x32 = x.astype(np.float32)
            x16 = x32.astype(np.float16)
        assert through(d, "float32", x) == saved(x32), f"float64 -> float32 {shape}"
        assert through(d, "float16", x) == saved(x16), f"float64 -> float16 {shape}"
        assert through(d, "bfloat16", x, extra=("--raw-bits",)) == saved(bf16_bits(x32)), f"float64 -> bf16 {shape}"
        assert through(d, "bfloat16", x32, extra=("--raw-bits",)) == saved(bf16_bits(x32)), f"float32 -> bf16 {shape}"
        i = rng.integers(-2**31, 2**31, shape, dtype=np.int64)
        assert through(d, "int32", i) == saved(i.astype(np.int32)), f"int64 -> int32 {shape}"
        u = rng.integers(0, 256, shape, dtype=np.int32)
        assert through(d, "uint8", u) == saved(u.astype(np.uint8)), f"int32 -> uint8 {shape}"
        assert through(d, "int64", u.astype(np.uint16)) == saved(u.astype(np.int64)), f"uint16 -> int64 {shape}"


def stacked_cores(d):
    """[cores, *shape] gives core k slice k and comes back stacked; a plain
    array goes to every core."""
    a = rng.standard_normal((2, 128, 300)).astype(np.float32)
    assert through(d, "float32", a, shape=(128, 300), cores=2) == saved(a)
    b = rng.standard_normal((128, 300)).astype(np.float32)
    assert through(d, "float32", b, shape=(128, 300), cores=2) == saved(np.stack([b, b]))
    h = rng.standard_normal((2, 400000)).astype(np.float64)
    assert through(d, "float32", h, shape=(400000,), memory="hbm", cores=2) == saved(h.astype(np.float32))


def refused_keeps_old(d, p, src, msg, stdin=None):
    out = os.path.join(d, "out.npy")
    with open(out, "wb") as f:
        f.write(b"the user's old file")
    r = run("run", p, "--input", f"t={src}", "--output", f"t={out}", rc=1, stdin=stdin)
    lines = r.stderr.decode().splitlines()
    assert len(lines) == 1 and msg in lines[0], r.stderr
    with open(out, "rb") as f:
        assert f.read() == b"the user's old file"
    left = sorted(n for n in os.listdir(d) if n not in ("p.json", "in.npy", "out.npy"))
    assert not left, left


def failures_leave_no_output(d):
    """A short file, a value out of range in a late chunk, a short pipe:
    one error line, the old output untouched, no temporary left."""
    big = np.zeros((128, 4096), np.int64)
    big[100, 4000] = 300
    src = os.path.join(d, "in.npy")
    np.save(src, big)
    p = program(d, "uint8", big.shape)
    refused_keeps_old(d, p, src, "in.npy: element 413600 [100, 4000] is 300, which does not fit uint8 (0..255)")
    data = saved(np.ones((128, 4096), np.float32))
    with open(src, "wb") as f:
        f.write(data[:-100])
    p = program(d, "float32", (128, 4096))
    refused_keeps_old(d, p, src, "in.npy: truncated data: expected 2097152 bytes for <f4 (128, 4096), found 2097052")
    refused_keeps_old(d, p, "/dev/stdin", "/dev/stdin: truncated data: expected 2097152 bytes for <f4 (128, 4096), "
                      "found 2097052", stdin=data[:-100])
    refused_keeps_old(d, p, "/dev/stdin", "/dev/stdin: extra bytes after the data: expected 2097152 bytes for <f4 "
                      "(128, 4096), found more", stdin=data + b"x")
    out = os.path.join(d, "out.npy")
    run("run", p, "--input", "t=/dev/stdin", "--output", f"t={out}", stdin=data)
    with open(out, "rb") as f:
        assert f.read() == data


def replaced_output(d):
    """A large output replaced: the new bytes under the name at exit, no
    temporary or old file left beside it, and the old file's data still
    reachable through another link to it (only the name is removed)."""
    a = rng.standard_normal((128, 4096)).astype(np.float32)
    p = program(d, "float32", a.shape)
    src, out, keep = (os.path.join(d, n) for n in ("in.npy", "out.npy", "keep.npy"))
    np.save(src, a)
    old = saved(np.zeros((128, 4096), np.float32))
    with open(out, "wb") as f:
        f.write(old)
    os.link(out, keep)
    for _ in range(2):  # the second run replaces a file trnsim wrote itself
        run("run", p, "--input", f"t={src}", "--output", f"t={out}")
        with open(out, "rb") as f:
            assert f.read() == saved(a)
        assert sorted(os.listdir(d)) == ["in.npy", "keep.npy", "out.npy", "p.json"], os.listdir(d)
    with open(keep, "rb") as f:
        assert f.read() == old


CASES = [("every dtype round-trips bit for bit", same_dtype_round_trips),
         ("bfloat16 written widened", widened_outputs),
         ("converted inputs equal numpy's conversions", converted_inputs),
         ("stacked and broadcast over cores", stacked_cores),
         ("failures leave no output, keep the old file", failures_leave_no_output),
         ("a replaced output leaves nothing behind", replaced_output)]
for name, fn in CASES:
    case(name, fn)
sys.exit(finish())
