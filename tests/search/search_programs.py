#!/usr/bin/python3
"""Program-level tests of the search family through the real CLI.

    search_programs.py --trnsim build/trnsim CASE

Each CASE builds a program (tests/search/programs/*.json or one generated
here), runs `trnsim run` with .npy inputs, and checks the .npy outputs bit for
bit against independent references: a Python transliteration of the reference's
loops (seed_* below, written apart from the C oracle), a stable sort, and
numpy's argpartition. Error cases check the exit status, the message and that
no output file was left behind. Exit 0 when the case passes.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "programs")
NOT_FOUND = 0xFFFFFFFF


# ---- the reference's loops, in Python (comparisons of float32 values widened to
# Python floats keep IEEE order and equality, including -0.0 and NaN) -------

def seed_max8(row):
    slot = [None] * 8
    for carry in (float(x) for x in row):
        for k in range(8):
            if slot[k] is None:
                slot[k] = carry
                break
            if carry > slot[k]:
                slot[k], carry = carry, slot[k]
    return np.array(slot, dtype=np.float32)


def seed_match(row, vals, descending=False, sentinel=None):
    """One-to-one first-occurrence match (3.2 / 3.3); returns (idx, out)."""
    idx = [NOT_FOUND] * 8
    matched = [False] * 8
    out = np.array(row, dtype=np.float32, copy=True)
    order = range(7, -1, -1) if descending else range(8)
    for i, d in enumerate(float(x) for x in row):
        for k in order:
            if matched[k]:
                continue
            if d == float(vals[k]):
                matched[k] = True
                idx[k] = i
                if sentinel is not None:
                    out[i] = sentinel
                break
    return np.array(idx, dtype=np.uint32), out


# ---- running trnsim -------------------------------------------------------------

class Case:
    def __init__(self, trnsim, config, workdir):
        self.trnsim = trnsim
        self.config = config
        self.dir = workdir

    def path(self, name):
        return os.path.join(self.dir, name)

    def write_program(self, prog, name="prog.json"):
        p = self.path(name)
        with open(p, "w") as f:
            json.dump(prog, f, indent=1)
        return p

    def run(self, program, inputs, outputs, config=None, raw_bits=False):
        """inputs: {tensor: array}; outputs: [tensor]. Returns (proc, {tensor: array})."""
        cmd = [self.trnsim, "run", program, "--config", config or self.config]
        for name, arr in inputs.items():
            f = self.path("in_%s.npy" % name)
            np.save(f, arr)
            cmd += ["--input", "%s=%s" % (name, f)]
        files = {}
        for name in outputs:
            files[name] = self.path("out_%s.npy" % name)
            if os.path.exists(files[name]):
                os.remove(files[name])
            cmd += ["--output", "%s=%s" % (name, files[name])]
        if raw_bits:
            cmd.append("--raw-bits")
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        got = {}
        if proc.returncode == 0:
            got = {n: np.load(f) for n, f in files.items()}
        return proc, got

    def run_ok(self, program, inputs, outputs, **kw):
        proc, got = self.run(program, inputs, outputs, **kw)
        if proc.returncode != 0:
            fail("trnsim failed (exit %d):\n%s%s" % (proc.returncode, proc.stdout, proc.stderr))
        return got

    def run_error(self, program, inputs, outputs, expect_in_message, **kw):
        proc, _ = self.run(program, inputs, outputs, **kw)
        if proc.returncode == 0:
            fail("expected an error containing %r, but trnsim succeeded" % expect_in_message)
        msg = proc.stderr
        for piece in ([expect_in_message] if isinstance(expect_in_message, str) else expect_in_message):
            if piece not in msg:
                fail("error message lacks %r:\n%s" % (piece, msg))
        for name in outputs:
            f = self.path("out_%s.npy" % name)
            if os.path.exists(f):
                fail("output %s was written although the run failed" % f)
        leftovers = [f for f in os.listdir(self.dir) if f.startswith("out_")]
        if leftovers:
            fail("files left behind after the failed run: %s" % leftovers)
        print("ok: error as expected: %s" % msg.strip().splitlines()[-1])


class Failure(Exception):
    pass


def fail(msg):
    raise Failure(msg)


def assert_bits(name, got, want):
    got = np.ascontiguousarray(got)
    want = np.ascontiguousarray(want)
    if got.shape != want.shape or got.dtype.itemsize != want.dtype.itemsize:
        fail("%s: shape/dtype %s %s, expected %s %s" % (name, got.shape, got.dtype, want.shape, want.dtype))
    u = "u%d" % got.dtype.itemsize
    gb, wb = got.view(u), want.view(u)
    bad = np.argwhere(gb != wb)
    if bad.size:
        at = tuple(bad[0])
        fail("%s: %d element(s) differ; first at %s: got %r (0x%x), expected %r (0x%x)" % (
            name, len(bad), at, got[at], int(gb[at]), want[at], int(wb[at])))
    print("ok: %s matches bit for bit (%d elements)" % (name, got.size))


def load_program(name):
    with open(os.path.join(PROGRAMS, name)) as f:
        return json.load(f)


# ---- known answers ---------------------------------------------------------------

def known_rows():
    nan = np.float32("nan")
    rows = np.zeros((6, 16), dtype=np.float32)
    rows[0] = np.arange(1, 17)
    rows[1] = [1, nan] + list(range(2, 16))
    rows[2] = [0.0, -0.0, -1, -1, -1, -1, -1, -1, 1] + [-2] * 7
    rows[3] = [3, 1, 3, 2, 3, 3, 1, 3, 3, 2, 3, 3, 3, 3, 0, 3]
    rows[4] = -0.0
    rows[5] = [-np.inf] * 15 + [np.inf]
    return rows


def case_max_known(c):
    rows = known_rows()
    got = c.run_ok(c.write_program(load_program("max.json")), {"x": rows}, ["v"])["v"]
    want = np.stack([seed_max8(r) for r in rows])
    nan, ninf = np.float32("nan"), -np.inf
    hand = np.array([
        [16, 15, 14, 13, 12, 11, 10, 9],
        [15, nan, 14, 13, 12, 11, 10, 9],          # search.sticky_nan
        [1, -0.0, 0.0, -1, -1, -1, -1, -1],        # search.signed_zero_cascade
        [3] * 8,
        [-0.0] * 8,
        [np.inf, ninf, ninf, ninf, ninf, ninf, ninf, ninf],
    ], dtype=np.float32)
    assert_bits("python seed vs hand answers", want, hand)
    assert_bits("Max output", got, want)


NKI_DATA = np.array([[1, 2, 3, 4, 8, 8, 8, 8, 8, 8, 8]], dtype=np.float32)
NKI_VALS = np.array([[3, 8, 8, 8, 8, 8, 8, 8]], dtype=np.float32)


def check_nki_example(c, config, want_idx):
    prog = c.write_program(load_program("nki_example.json"))
    got = c.run_ok(prog, {"data": NKI_DATA, "vals": NKI_VALS}, ["i89", "o90", "o91", "i91"], config=config)
    ninf = -np.inf
    want_out = np.array([[1, 2, ninf, 4] + [ninf] * 7], dtype=np.float32)
    want_idx = np.array([want_idx], dtype=np.uint32)
    assert_bits("MaxIndex indices", got["i89"], want_idx)
    assert_bits("MatchReplace data", got["o90"], want_out)
    assert_bits("MaxIndexAndMatchReplace data", got["o91"], want_out)
    assert_bits("MaxIndexAndMatchReplace indices", got["i91"], want_idx)


def case_nki_ascending(c):
    check_nki_example(c, c.config, [2, 4, 5, 6, 7, 8, 9, 10])


def case_nki_descending(c):
    check_nki_example(c, os.path.join(HERE, "search_descending.cfg"), [2, 10, 9, 8, 7, 6, 5, 4])


# ---- random rows vs the Python seed -----------------------------------------------

def mixed_rows(rng, parts, n):
    """Rows of every flavour: uniform, ties, zeros of both signs, NaN, Inf."""
    x = rng.standard_normal((parts, n)).astype(np.float32)
    kind = np.arange(parts) % 6
    x[kind == 1] = rng.integers(0, 4, (np.sum(kind == 1), n))
    x[kind == 2] = rng.choice(np.array([0.0, -0.0, 1.0, -1.0], dtype=np.float32), (np.sum(kind == 2), n))
    x[kind == 3] = x[kind == 3][:, :1]                      # all equal
    spots = rng.random((parts, n)) < 0.05
    x[(kind == 4)[:, None] & spots] = np.nan
    x[(kind == 4)[:, None] & (rng.random((parts, n)) < 0.05)] = np.inf
    x[kind == 5, rng.integers(0, 8)] = np.nan               # a NaN during the fill
    return x


def vals_for(rng, rows):
    """Each row's own top 8, or elements of it, duplicates, absent values, NaN."""
    vals = np.stack([seed_max8(r) for r in rows])
    pick = rng.integers(0, rows.shape[1], vals.shape)
    other = np.take_along_axis(rows, pick, 1)
    mode = (np.arange(rows.shape[0]) % 3)[:, None]
    vals = np.where(mode == 1, other, vals)
    vals[2::3, 3] = np.float32(1234.5)                      # absent
    vals[2::3, 5] = np.nan
    vals[2::3, 6] = vals[2::3, 7]                           # duplicate
    return vals.astype(np.float32)


def check_random(c, config, descending):
    rng = np.random.default_rng(20240611)
    data = mixed_rows(rng, 128, 100)
    vals = vals_for(rng, data)
    prog = c.write_program(load_program("all_ops.json"))
    got = c.run_ok(prog, {"data": data, "vals": vals}, ["mx", "i89", "o90", "o91", "i91"], config=config)
    want_max = np.stack([seed_max8(r) for r in data])
    res = [seed_match(r, v, descending, np.float32(-7.5)) for r, v in zip(data, vals)]
    want_idx = np.stack([r[0] for r in res])
    want_out = np.stack([r[1] for r in res])
    assert_bits("Max", got["mx"], want_max)
    assert_bits("MaxIndex", got["i89"], want_idx)
    assert_bits("MatchReplace", got["o90"], want_out)
    assert_bits("MaxIndexAndMatchReplace data", got["o91"], want_out)
    assert_bits("MaxIndexAndMatchReplace indices", got["i91"], want_idx)


def case_random_ascending(c):
    check_random(c, c.config, False)


def case_random_descending(c):
    check_random(c, os.path.join(HERE, "search_descending.cfg"), True)


# ---- iterative TopK-64 ------------------------------------------------------------

def topk_program(parts, n, in_place=True):
    """8 rounds of Max + MaxIndexAndMatchReplace (imm -inf) into [parts, 64]."""
    prog = {
        "tensors": [
            {"name": "x", "memory": "sbuf", "dtype": "float32", "shape": [parts, n]},
            {"name": "vals", "memory": "sbuf", "dtype": "float32", "shape": [parts, 64]},
            {"name": "idx", "memory": "sbuf", "dtype": "uint32", "shape": [parts, 64]},
        ],
        "instructions": [],
    }
    if not in_place:
        prog["tensors"].append({"name": "y", "memory": "sbuf", "dtype": "float32", "shape": [parts, n]})
    for r in range(8):
        col = lambda t: {"tensor": t, "offset": 8 * r, "ap": [[1, 8]]}
        src, dst = ("x", "x") if in_place else (("x", "y") if r % 2 == 0 else ("y", "x"))
        prog["instructions"] += [
            {"opcode": "Max", "inputs": [src], "outputs": [col("vals")]},
            {"opcode": "MaxIndexAndMatchReplace", "inputs": [col("vals"), src],
             "outputs": [dst, col("idx")], "imm_value": "-inf"},
        ]
    return prog


def stable_topk(x, k=64):
    """Descending by value, ties by ascending index (numpy's stable sort)."""
    order = np.argsort(-x, axis=1, kind="stable")[:, :k]
    return np.take_along_axis(x, order, 1), order.astype(np.uint32)


def numpy_topk(x, k=64):
    """numpy's argpartition top-k, then sorted descending (bench/topk_numpy.py)."""
    part = np.argpartition(-x, k - 1, axis=1)[:, :k]
    v = np.take_along_axis(x, part, 1)
    o = np.argsort(-v, axis=1, kind="stable")
    return np.take_along_axis(v, o, 1), np.take_along_axis(part, o, 1)


def check_topk(c, x, in_place, unique):
    prog = c.write_program(topk_program(x.shape[0], x.shape[1], in_place))
    got = c.run_ok(prog, {"x": x}, ["vals", "idx"])
    sv, si = stable_topk(x)
    assert_bits("TopK-64 values vs stable sort", got["vals"], sv)
    assert_bits("TopK-64 indices vs stable sort", got["idx"], si)
    nv, ni = numpy_topk(x)
    assert_bits("TopK-64 values vs numpy argpartition", got["vals"], nv)
    if unique:  # with ties argpartition may pick other occurrences
        assert_bits("TopK-64 indices vs numpy argpartition", got["idx"], ni.astype(np.uint32))
    # the indices name the values
    assert_bits("x[idx] == values", np.take_along_axis(x, got["idx"].astype(np.int64), 1), got["vals"])


def case_topk64(c):
    x = np.random.default_rng(7).standard_normal((128, 16384)).astype(np.float32)
    top = np.sort(x, axis=1)[:, ::-1][:, :65]
    unique = bool(np.all(top[:, :-1] != top[:, 1:]))  # argpartition's indices are then unambiguous
    check_topk(c, x, in_place=True, unique=unique)


def case_topk64_ties(c):
    x = np.random.default_rng(8).integers(0, 40, (128, 4096)).astype(np.float32)
    check_topk(c, x, in_place=False, unique=False)


# ---- widening and narrowing ------------------------------------------------------

def bf16_bits(x):
    """float32 -> bf16 bits, round to nearest even (finite inputs)."""
    u = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return u.astype(np.uint16)


def case_widen_bf16(c):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((16, 40)).astype(np.float32)
    x[:, 5] = x[:, 9]                                  # a duplicate in every row
    raw = bf16_bits(x)
    wide = (raw.astype(np.uint32) << 16).view(np.float32)
    got = c.run_ok(c.write_program(load_program("widen_bf16.json")), {"x": raw}, ["v", "i", "x"], raw_bits=True)
    want_v = np.stack([seed_max8(r) for r in wide])
    res = [seed_match(r, v, False, np.float32(-np.inf)) for r, v in zip(wide, want_v)]
    assert_bits("Max of bf16 (widened)", got["v"], want_v)
    assert_bits("indices", got["i"], np.stack([r[0] for r in res]))
    assert_bits("bf16 data struck out (raw bits)", got["x"], bf16_bits(np.stack([r[1] for r in res])))


def case_widen_fp16(c):
    rng = np.random.default_rng(4)
    x = (rng.standard_normal((8, 64)) * 100).astype(np.float16)
    got = c.run_ok(c.write_program(load_program("widen_fp16.json")), {"x": x}, ["v"])
    want = np.stack([seed_max8(r.astype(np.float32)) for r in x])
    assert_bits("Max of fp16 (widened)", got["v"], want)


# ---- in place through a repeating access pattern ------------------------------------

def case_inplace_step0(c):
    """data read and written through a step-0 AP: 16 visits of one element.
    The first 8 visits match and become imm, the last visit writes the value
    back, so memory keeps 5.0 (the reference writes every element in order)."""
    prog = c.write_program(load_program("inplace_step0.json"))
    got = c.run_ok(prog, {}, ["x", "i"])
    assert_bits("x after MaxIndexAndMatchReplace", got["x"], np.full((2, 16), 5.0, dtype=np.float32))
    assert_bits("indices", got["i"], np.tile(np.arange(8, dtype=np.uint32), (2, 1)))


def case_strided(c):
    """Strided partitions and a 2-D free AP, in place (the struck-out-only
    write through a multi-dim AP); untouched elements must stay as they were."""
    rng = np.random.default_rng(11)
    x = rng.integers(-20, 20, (8, 64)).astype(np.float32)
    got = c.run_ok(c.write_program(load_program("strided.json")), {"x": x}, ["x", "v", "i"])
    parts = [1, 3, 5, 7]
    cols = (16 * np.arange(4)[:, None] + 2 * np.arange(8)[None, :]).ravel()
    want_x, want_v, want_i = x.copy(), np.zeros((8, 24), np.float32), np.zeros((8, 24), np.uint32)
    for p in parts:
        row = x[p, cols]
        vals = seed_max8(row)
        idx, out = seed_match(row, vals, False, np.float32(-100.0))
        want_v[p, 8:16], want_i[p, 8:16] = vals, idx
        want_x[p, cols] = out
    assert_bits("values", got["v"], want_v)
    assert_bits("indices", got["i"], want_i)
    assert_bits("x after the in-place strike-out", got["x"], want_x)


def case_inplace_overlap(c):
    x = np.random.default_rng(12).standard_normal((2, 20)).astype(np.float32)
    vals = np.full((2, 8), 99.0, np.float32)            # 99: absent
    vals[:, :3] = x[:, [2, 5, 17]]                      # 2 and 5 are visited twice, 17 once
    got = c.run_ok(c.write_program(load_program("inplace_overlap.json")), {"x": x, "v": vals}, ["x"])
    cols = (np.arange(4)[:, None] + 2 * np.arange(8)[None, :]).ravel()
    want_x = x.copy()
    for p in range(2):
        _, out = seed_match(x[p, cols], vals[p], False, np.float32(-np.inf))
        for k, col in enumerate(cols):   # visiting order: the last visit wins
            want_x[p, col] = out[k]
    assert np.isinf(want_x[:, 17]).all() and not np.isinf(want_x[:, [2, 5]]).any()
    assert_bits("x after MatchReplace through the overlapping AP", got["x"], want_x)


def case_uninit_inplace(c):
    """Fresh memory reads as zeros here (the host's calloc); what matters is
    that the in-place write leaves every element written."""
    got = c.run_ok(c.write_program(load_program("uninit_inplace.json")), {}, ["x", "i", "m"])
    want_x = np.zeros((2, 16), np.float32)
    want_x[:, :8] = -np.inf
    assert_bits("x", got["x"], want_x)
    assert_bits("indices", got["i"], np.tile(np.arange(8, dtype=np.uint32), (2, 1)))
    assert_bits("Max after", got["m"], np.zeros((2, 8), np.float32))


# ---- errors ---------------------------------------------------------------------------

def error_case(c, mutate, message, inputs=None):
    prog = load_program("error_base.json")
    mutate(prog)
    c.run_error(c.write_program(prog), inputs or {}, ["o"], message)


def case_error_7_elements(c):
    def m(p):
        p["instructions"][0]["inputs"][1] = {"tensor": "d", "ap": [[1, 7]]}
        p["instructions"][0]["outputs"][0] = {"tensor": "o", "ap": [[1, 7]]}
    error_case(c, m, ["7 elements per partition", "8 to 16384"])


def case_error_16385_elements(c):
    def m(p):
        p["tensors"][1]["shape"] = [2, 16385]
        p["tensors"][2]["shape"] = [2, 16385]
    error_case(c, m, ["16385 elements per partition", "8 to 16384"])


def case_error_9_vals(c):
    def m(p):
        p["tensors"][0]["shape"] = [2, 9]
        p["tensors"][0]["fill"] = 1.0
    error_case(c, m, ["9 elements per partition", "exactly 8"])


def case_error_index_dtype(c):
    def m(p):
        p["tensors"][3]["dtype"] = "float32"
    error_case(c, m, ["indices", "uint32"])


def case_error_partitions(c):
    def m(p):
        p["instructions"][0]["inputs"][0] = {"tensor": "v", "partitions": 1}
    error_case(c, m, ["spans 1 partitions", "expected 2"])


def case_error_no_imm(c):
    def m(p):
        del p["instructions"][0]["imm_value"]
    error_case(c, m, "imm_value")


def case_error_operand_count(c):
    def m(p):
        p["instructions"][0]["outputs"] = ["o"]
    error_case(c, m, ["expected 2 input(s) and 2 output(s)", "found 2 and 1"])


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trnsim", required=True)
    ap.add_argument("--config", default=os.path.join(HERE, "..", "..", "config", "search.cfg"))
    ap.add_argument("case", choices=sorted(CASES))
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="search_prog_") as d:
        try:
            CASES[a.case](Case(os.path.abspath(a.trnsim), os.path.abspath(a.config), d))
        except Failure as e:
            print("FAIL: %s" % e, file=sys.stderr)
            return 1
    print("PASS %s" % a.case)
    return 0


if __name__ == "__main__":
    sys.exit(main())
