#!/usr/bin/python3
"""Check host/npy.c against numpy itself, through tests/npy/npy_tool.

usage: check_numpy.py NPY_TOOL WORKDIR

1. Files trnsim writes: for every descr and many shapes, the file bytes must
   equal numpy.save's for the same array, and numpy.load must give back the
   dtype, shape and bits.
2. Files numpy writes (v1, v2, v3 headers): npy_tool read gives numpy's
   descr, shape and bytes.
3. Tensor conversions against independent numpy references: bf16 widened
   (bits << 16), fp16 written as <f2, <f4 narrowed into float16
   (numpy's astype, RNE) and into bfloat16 (integer RNE below), E5M2 widened
   (fp16's top byte), raw bits unchanged.
Prints one line per group and exits 1 on the first mismatch.
"""
import io
import os
import subprocess
import sys

import numpy as np

TOOL = sys.argv[1]
WORK = sys.argv[2]
os.makedirs(WORK, exist_ok=True)
RNG = np.random.default_rng(7)
DESCRS = ["<f2", "<f4", "<f8", "|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4", "<u8", "|b1"]
SHAPES = [(), (0,), (1,), (5,), (2, 3), (3, 1, 4), (7, 0, 2), (1, 2, 1, 2, 1, 2, 1, 2), (3,) * 8,
          (1000,), (123456, 0), (4294967296, 0), (64, 33)]  # 2**32: the largest dimension read


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(args, data=b""):
    p = subprocess.run([TOOL] + [str(a) for a in args], input=data, capture_output=True)
    if p.returncode != 0:
        fail("%s -> exit %d: %s" % (" ".join(map(str, args)), p.returncode, p.stderr.decode()))
    return p.stdout.decode()


def random_array(descr, shape):
    dt = np.dtype(descr)
    n = int(np.prod(shape, dtype=np.int64))
    if dt.kind == "b":
        return RNG.integers(0, 2, size=n).astype(dt).reshape(shape)
    return RNG.integers(0, 256, size=n * dt.itemsize, dtype=np.uint8).view(dt).reshape(shape)


def saved_bytes(a, version=None):
    f = io.BytesIO()
    if version is None:
        np.save(f, a)
    else:
        np.lib.format.write_array(f, a, version=version)
    return f.getvalue()


def same_bits(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def check_writes():
    path = os.path.join(WORK, "w.npy")
    n = 0
    for descr in DESCRS:
        for shape in SHAPES:
            a = random_array(descr, shape)
            run(["write", path, descr] + list(shape), a.tobytes())
            got = open(path, "rb").read()
            want = saved_bytes(a)
            if got != want:
                fail("write %s %s: file differs from numpy.save\n  trnsim %r\n  numpy  %r"
                     % (descr, shape, got[:200], want[:200]))
            back = np.load(path)
            if not same_bits(back, a):
                fail("write %s %s: numpy.load gives %s %s" % (descr, shape, back.dtype.str, back.shape))
            n += 1
    # A one-byte type given as '<u1' is written as numpy writes it, '|u1'.
    a = random_array("|u1", (4, 4))
    run(["write", path, "<u1", 4, 4], a.tobytes())
    if open(path, "rb").read() != saved_bytes(a):
        fail("write <u1: file differs from numpy.save")
    print("writes: %d files byte-identical to numpy.save and loaded back exactly" % (n + 1))


def check_reads():
    path = os.path.join(WORK, "r.npy")
    raw = os.path.join(WORK, "r.bin")
    n = 0
    for version in [None, (1, 0), (2, 0), (3, 0)]:
        for descr in DESCRS:
            for shape in SHAPES:
                a = random_array(descr, shape)
                with open(path, "wb") as f:
                    f.write(saved_bytes(a, version))
                out = run(["read", path, raw]).split()
                if out[0] != np.dtype(descr).str or tuple(int(d) for d in out[1:]) != shape:
                    fail("read %s %s v%s: npy_tool says %s" % (descr, shape, version, out))
                if open(raw, "rb").read() != a.tobytes():
                    fail("read %s %s v%s: data differs" % (descr, shape, version))
                n += 1
    print("reads: %d numpy files (v1.0 / v2.0 / v3.0) read exactly" % n)


def tensor_save(dtype, raw, src, shape):
    path = os.path.join(WORK, "t.npy")
    run(["save-tensor", path, dtype, int(raw)] + list(shape), src.tobytes())
    return np.load(path)


def tensor_load(a, dtype, out_dtype):
    path = os.path.join(WORK, "l.npy")
    raw = os.path.join(WORK, "l.bin")
    np.save(path, a)
    run(["load-tensor", path, dtype, raw] + list(a.shape))
    return np.fromfile(raw, dtype=out_dtype).reshape(a.shape)


def is_nan16_bf(u):
    return ((u & 0x7F80) == 0x7F80) & ((u & 0x7F) != 0)


def bf16_rne(f32):
    """fp32 -> bf16 bits, round to nearest even, by integer arithmetic."""
    u = f32.view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def check_tensors():
    shape = (256, 256)
    bits = np.arange(65536, dtype=np.uint16).reshape(shape)
    # bf16 widened: exactly bits << 16 (NaNs included: widening is a shift).
    got = tensor_save("bfloat16", False, bits, shape)
    want = (bits.astype(np.uint32) << 16).view(np.float32)
    if got.dtype.str != "<f4" or got.view(np.uint32).tobytes() != want.view(np.uint32).tobytes():
        fail("bfloat16 -> <f4 differs from bits << 16")
    got = tensor_save("bfloat16", True, bits, shape)
    if not same_bits(got, bits):
        fail("bfloat16 raw -> <u2 differs")
    got = tensor_save("float16", False, bits, shape)
    if not same_bits(got, bits.view("<f2")):
        fail("float16 -> <f2 differs")
    # E5M2 widened: the code is fp16's top byte, so numpy's fp16 -> fp32 is
    # an exact reference (NaNs: only NaN-ness is compared).
    codes = np.arange(256, dtype=np.uint8).reshape(16, 16)
    got = tensor_save("float8_e5m2", False, codes, (16, 16))
    want = (codes.astype(np.uint16) << 8).view(np.float16).astype(np.float32)
    nan = np.isnan(want)
    if got.dtype.str != "<f4" or not np.array_equal(np.isnan(got), nan) or \
            got[~nan].view(np.uint32).tobytes() != want[~nan].view(np.uint32).tobytes():
        fail("float8_e5m2 -> <f4 differs from numpy's fp16 decode of code << 8")
    got = tensor_save("float8_e4m3", True, codes, (16, 16))
    if not same_bits(got, codes):
        fail("float8_e4m3 raw -> |u1 differs")

    # <f4 narrowed on load: every 2^17-th pattern plus random ones.
    f = np.concatenate([np.arange(0, 1 << 32, 1 << 15, dtype=np.uint64).astype(np.uint32),
                        RNG.integers(0, 1 << 32, size=1 << 16, dtype=np.uint64).astype(np.uint32)])
    f = f.view(np.float32).reshape(-1, 64)
    nan = np.isnan(f)
    got = tensor_load(f, "float16", np.uint16)
    with np.errstate(over="ignore"):
        want = f.astype(np.float16).view(np.uint16)
    nanbits = ((got & 0x7C00) == 0x7C00) & ((got & 0x3FF) != 0)
    if not np.array_equal(nanbits, nan) or not np.array_equal(got[~nan], want[~nan]):
        bad = np.argwhere((got != want) & ~nan)[0]
        fail("<f4 -> float16 differs from numpy astype at %s: 0x%08x -> 0x%04x, numpy 0x%04x"
             % (bad, f.view(np.uint32)[tuple(bad)], got[tuple(bad)], want[tuple(bad)]))
    got = tensor_load(f, "bfloat16", np.uint16)
    want = bf16_rne(f)
    if not np.array_equal(is_nan16_bf(got), nan) or not np.array_equal(got[~nan], want[~nan]):
        bad = np.argwhere((got != want) & ~nan)[0]
        fail("<f4 -> bfloat16 differs from integer RNE at %s" % (bad,))
    # Raw bits load unchanged.
    got = tensor_load(bits, "bfloat16", np.uint16)
    if not np.array_equal(got, bits):
        fail("<u2 -> bfloat16 raw differs")
    got = tensor_load(codes, "float8_e4m3", np.uint8)
    if not np.array_equal(got, codes):
        fail("|u1 -> float8_e4m3 raw differs")
    print("tensors: bf16/fp16/e5m2 writes and f4->fp16/bf16 narrowing (%d values) match numpy references"
          % f.size)


check_writes()
check_reads()
check_tensors()
print("OK")
