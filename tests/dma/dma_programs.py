#!/usr/bin/python3
"""Program-level tests of the DMA family through the real CLI.

    dma_programs.py --trnsim build/trnsim --config config/dma.cfg CASE
    dma_programs.py --list

Each CASE runs `trnsim run` on a program (tests/dma/programs/*.json, or one
built here) with .npy inputs and checks the .npy outputs bit for bit against
independent numpy references (dma_ref.py). Error cases check the exit status,
that stderr is one line naming the problem, and that no output file was left.
Exit 0 when the case passes.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

import dma_ref as ref

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "programs")
CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


class Failure(Exception):
    pass


class Ctx:
    def __init__(self, trnsim, config, tmp):
        self.trnsim, self.config, self.tmp = trnsim, config, tmp
        self.n = 0

    def run(self, program, inputs=None, outputs=(), raw_bits=False, config_text=None, error=None):
        """Run a program (path or dict). Returns {name: array}, or checks that
        the run failed with one stderr line containing every string of error."""
        self.n += 1
        d = os.path.join(self.tmp, f"run{self.n}")
        os.makedirs(d)
        if isinstance(program, dict):
            path = os.path.join(d, "prog.json")
            with open(path, "w") as f:
                json.dump(program, f)
        else:
            path = os.path.join(PROGRAMS, program)
        config = self.config
        if config_text is not None:
            config = os.path.join(d, "dma.cfg")
            with open(config, "w") as f:
                f.write(config_text)
        cmd = [self.trnsim, "run", path, "--config", config]
        for name, arr in (inputs or {}).items():
            p = os.path.join(d, f"in_{name}.npy")
            np.save(p, arr)
            cmd += ["--input", f"{name}={p}"]
        outdir = os.path.join(d, "out")
        os.makedirs(outdir)
        for name in outputs:
            cmd += ["--output", f"{name}={os.path.join(outdir, name + '.npy')}"]
        if raw_bits:
            cmd.append("--raw-bits")
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        if error is not None:
            lines = r.stderr.strip().splitlines()
            if r.returncode == 0:
                raise Failure("expected a failure, the run succeeded")
            if len(lines) != 1:
                raise Failure(f"expected one line on stderr, got {len(lines)}:\n{r.stderr}")
            for t in [error] if isinstance(error, str) else error:
                if t not in lines[0]:
                    raise Failure(f"stderr lacks {t!r}:\n{r.stderr}")
            if os.listdir(outdir):
                raise Failure(f"a failed run left files behind: {os.listdir(outdir)}")
            print(f"ok: failed as expected: {lines[0]}")
            return None
        if r.returncode != 0:
            raise Failure(f"trnsim exited {r.returncode}:\n{r.stderr}")
        return {n: np.load(os.path.join(outdir, n + ".npy")) for n in outputs}


def same(name, got, want):
    """Bit-for-bit equality (dtype, shape and bytes: NaN payloads and -0.0 count)."""
    want = np.asarray(want)
    if got.dtype != want.dtype:
        raise Failure(f"{name}: dtype {got.dtype}, expected {want.dtype}")
    if got.shape != want.shape:
        raise Failure(f"{name}: shape {got.shape}, expected {want.shape}")
    if got.tobytes() != want.tobytes():
        g = got.reshape(-1).view(f"u{got.itemsize}")
        w = want.reshape(-1).view(f"u{want.itemsize}")
        bad = np.nonzero(g != w)[0]
        i = int(bad[0])
        raise Failure(f"{name}: {len(bad)} of {g.size} elements differ; first at {i}: got {got.reshape(-1)[i]!r} "
                      f"(bits {int(g[i]):#x}), expected {want.reshape(-1)[i]!r} (bits {int(w[i]):#x})")
    print(f"ok: {name} ({got.size} elements, {got.dtype})")


def rng(seed):
    return np.random.default_rng(seed)


def tensors(*specs):
    return [dict(zip(("name", "memory", "dtype", "shape"), s[:4]), **(s[4] if len(s) > 4 else {})) for s in specs]


def prog(tens, insts):
    return {"tensors": tensors(*tens), "instructions": insts}


# Specials the rounding and SSE rules are about.
NAN_A = ref.bits_f32(0x7FC00123)
NAN_B = ref.bits_f32(0xFFC00456)

# ---- plain copies -----------------------------------------------------------------


@case
def copy_strided4d(c):
    """4-D strided source AP (partition step 2, a negative step): raw copy,
    cast to bf16 (RNE), and the accumulate path into PSUM (fill 0.5)."""
    x = rng(1).standard_normal((8, 120)).astype(np.float32) * 100
    x[3, 7] = NAN_A  # inside the AP: a raw copy keeps the payload
    out = c.run("copy_strided.json", {"x": x}, ["y", "yb", "acc"], raw_bits=True)
    sel = ref.ap_gather(x, 1, 3, 2, 5, [[40, 2], [-1, 3], [10, 4], [3, 2]])
    assert np.any(sel.view(np.uint32) == 0x7FC00123)
    same("y", out["y"], sel)
    same("yb", out["yb"], ref.bf16_bits(sel).reshape(3, 48))
    same("acc", out["acc"], (np.float32(0.5) + sel).reshape(3, 48))


@case
def copy_cast_rounding(c):
    """fp32 -> bf16 / float8_e4m3 / float8_e5m2 / float16: ties to even,
    overflow to Inf (fp8 config 0), NaN to the canonical NaN."""
    one = 1.0
    vals = [one + 2 ** -8, one + 3 * 2 ** -8, one + 2 ** -8 + 2 ** -20, -(one + 2 ** -8), 240.0, 248.0, 247.9,
            1e-3, -0.0, 3.0e38, float("inf"), float("nan"), 0.1, 17.0, 57344.0, 61440.0]
    x = ref.f32(vals).reshape(1, 16)
    p = prog([("x", "sbuf", "float32", [1, 16]), ("b", "sbuf", "bfloat16", [1, 16]),
              ("e4", "hbm", "float8_e4m3", [16]), ("e5", "hbm", "float8_e5m2", [16]),
              ("h", "sbuf", "float16", [1, 16])],
             [{"opcode": "TensorCopy", "inputs": ["x"], "outputs": ["b"]},
              {"opcode": "Save", "inputs": ["x"], "outputs": ["e4"]},
              {"opcode": "AbstractCopy", "inputs": ["x"], "outputs": ["e5"]},
              {"opcode": "GenericCopy", "inputs": ["x"], "outputs": ["h"]}])
    out = c.run(p, {"x": x}, ["b", "e4", "e5", "h"], raw_bits=True)
    same("b", out["b"], ref.bf16_bits(x))
    assert ref.bf16_bits(x)[0, 0] == 0x3F80 and ref.bf16_bits(x)[0, 1] == 0x3F82  # tie down, tie up
    same("e4", out["e4"], ref.E4M3.encode(x))
    assert ref.E4M3.encode(x)[4] == 0x77 and ref.E4M3.encode(x)[5] == 0x78  # 240 max, 248 -> Inf
    same("e5", out["e5"], ref.E5M2.encode(x))
    h = x.astype(np.float16)  # numpy's fp32 -> fp16 is RNE; the NaN is canonical 0x7e00 in trnsim
    h.view(np.uint16)[0, 11] = 0x7E00
    same("h", out["h"], h)


@case
def copy_raw_same_dtype(c):
    """Equal dtypes copy raw bytes: bf16 NaN payloads and signs, int32 and
    int64 beyond 2^24, uint8 and float8 codes all survive."""
    bb = np.array([[0x7FC1, 0xFFC2, 0x7F81, 0x8000, 0x3F80, 0x0001]], dtype=np.uint16)
    ii = np.array([[2 ** 31 - 1, -2 ** 31, 16777217, -16777219]], dtype=np.int32)
    ll = np.array([2 ** 62 + 1, -(2 ** 53) - 1], dtype=np.int64)
    f8 = np.array([[0x7D, 0xFF, 0x01, 0x80]], dtype=np.uint8)
    p = prog([("b", "sbuf", "bfloat16", [1, 6]), ("b2", "hbm", "bfloat16", [6]),
              ("i", "sbuf", "int32", [1, 4]), ("i2", "psum", "int32", [1, 4]),
              ("l", "hbm", "int64", [2]), ("l2", "sbuf", "int64", [2, 1]),
              ("f", "sbuf", "float8_e4m3", [1, 4]), ("f2", "hbm", "float8_e4m3", [4])],
             [{"opcode": "Load", "inputs": ["b"], "outputs": ["b2"]},
              {"opcode": "TensorCopy", "inputs": ["i"], "outputs": ["i2"]},
              {"opcode": "DMACopy", "inputs": ["l"], "outputs": ["l2"]},
              {"opcode": "DMADescriptor", "inputs": ["f"], "outputs": ["f2"]}])
    out = c.run(p, {"b": bb, "i": ii, "l": ll, "f": f8}, ["b2", "i2", "l2", "f2"], raw_bits=True)
    same("b2", out["b2"], bb.reshape(6))
    same("i2", out["i2"], ii)
    same("l2", out["l2"], ll.reshape(2, 1))
    same("f2", out["f2"], f8.reshape(4))


@case
def copy_reshape(c):
    """Source and destination need equal element counts, not equal shapes:
    [4 partitions x 6] -> [3 partitions x 8] in visiting order."""
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    p = prog([("x", "sbuf", "float32", [4, 6]), ("y", "sbuf", "float32", [3, 8], {"partition": 64})],
             [{"opcode": "DMACopy", "mode": 0, "inputs": ["x"], "outputs": ["y"]}])
    same("y", c.run(p, {"x": x}, ["y"])["y"], x.reshape(3, 8))


@case
def copy_remote_ring(c):
    """Remote DMA on 4 cores: TensorCopy into the next core's SBUF
    (core_offset 1), and every core Saves its x into core 3's HBM; the last
    core to run that instruction (core 3, in the host's core order) wins."""
    x = rng(40).standard_normal((4, 2, 8)).astype(np.float32)
    p = prog([("x", "sbuf", "float32", [2, 8]), ("y", "sbuf", "float32", [2, 8]), ("h", "hbm", "float32", [16])],
             [{"opcode": "TensorCopy", "inputs": ["x"], "outputs": [{"tensor": "y", "core_offset": 1}]},
              {"opcode": "Save", "inputs": ["x"], "outputs": [{"tensor": "h", "core": 3}]}])
    p["cores"] = 4
    out = c.run(p, {"x": x}, ["y", "h@3"])
    same("y", out["y"], np.roll(x, 1, axis=0))
    same("h@3", out["h@3"], x[3].reshape(16))


@case
def copy_large(c):
    """Copies of >= 4 MiB (the chunked path): SBUF -> HBM contiguous, a
    strided destination AP that transposes, a cast to bf16, an accumulate;
    an overlapping shift inside one HBM tensor reads the whole source before
    writing (as the reference)."""
    x = rng(5).standard_normal((128, 8192)).astype(np.float32)
    n = 1 << 20
    z = np.arange(n + 16, dtype=np.float32)
    p = prog([("x", "sbuf", "float32", [128, 8192]), ("y", "hbm", "float32", [n]),
              ("yt", "hbm", "float32", [8192, 128]), ("z", "hbm", "float32", [n + 16]),
              ("yb", "hbm", "bfloat16", [n]), ("acc", "hbm", "float32", [n], {"fill": 0.5})],
             [{"opcode": "TensorCopy", "inputs": ["x"], "outputs": ["y"]},
              {"opcode": "TensorCopy", "inputs": ["x"], "outputs": [{"tensor": "yt", "ap": [[1, 128], [128, 8192]]}]},
              {"opcode": "DMACopy", "inputs": [{"tensor": "z", "ap": [[1, n]]}],
               "outputs": [{"tensor": "z", "offset": 16, "ap": [[1, n]]}]},
              {"opcode": "Save", "inputs": ["x"], "outputs": ["yb"]},
              {"opcode": "Save", "accumulate": True, "inputs": ["x"], "outputs": ["acc"]}])
    out = c.run(p, {"x": x, "z": z}, ["y", "yt", "z", "yb", "acc"], raw_bits=True)
    same("y", out["y"], x.reshape(-1))
    same("yt", out["yt"], x.T)
    same("yb", out["yb"], ref.bf16_bits(x.reshape(-1)))
    same("acc", out["acc"], np.float32(0.5) + x.reshape(-1))
    want = z.copy()
    want[16:] = z[:n]
    same("z", out["z"], want)


@case
def accumulate_dtypes(c):
    """The accumulate flavour (cast_copy_or_accumulate add): fp32, bf16 with
    RNE after the fp32 add (256 + 0.7 stays 256), int32 wrapping and exact
    beyond 2^24, int64."""
    a = ref.f32([[0.7, 1.5, -3.25, 1e-8]])
    p = prog([("a", "sbuf", "float32", [1, 4]),
              ("f", "psum", "float32", [1, 4], {"fill": 256}),
              ("b", "psum", "bfloat16", [1, 4], {"fill": 256}),
              ("s", "sbuf", "int32", [1, 4], {"data": [2147483647, -2147483648, 7, 1]}),
              ("t", "sbuf", "int32", [1, 4], {"data": [1, -1, -10, 16777217]}),
              ("s64", "hbm", "int64", [2], {"data": [4611686018427387904, -5]}),
              ("t64", "hbm", "int64", [2], {"data": [1099511627777, 3]})],
             [{"opcode": "TensorCopy", "accumulate": True, "inputs": ["a"], "outputs": ["f"]},
              {"opcode": "TensorCopy", "accumulate": True, "inputs": ["a"], "outputs": ["f"]},
              {"opcode": "TensorCopy", "accumulate": True, "inputs": ["a"], "outputs": ["b"]},
              {"opcode": "DMACopy", "accumulate": True, "inputs": ["t"], "outputs": ["s"]},
              {"opcode": "Save", "accumulate": True, "inputs": ["t64"], "outputs": ["s64"]}])
    out = c.run(p, {"a": a}, ["f", "b", "s", "s64"], raw_bits=True)
    f = np.float32(256) + a
    same("f", out["f"], f + a)
    same("b", out["b"], ref.bf16_bits(np.float32(256) + ref.bf16_round(a)))
    assert ref.bf16_bits(np.float32(256) + ref.bf16_round(a))[0, 0] == ref.bf16_bits(256.0)  # 0.7 vanished
    # same dtype: added in int32 / int64 (no trip through fp32: 1 + 16777217 is exact)
    same("s", out["s"], np.array([[-2147483648, 2147483647, -3, 16777218]], dtype=np.int32))
    same("s64", out["s64"], np.array([4611686018427387904 + 1099511627777, -2], dtype=np.int64))

def budget_config(c, budget):
    """The test config with machine.max_instruction_bytes = budget."""
    with open(c.config) as f:
        text = f.read()
    assert "machine = {" in text
    return text.replace("machine = {", f"machine = {{\n  max_instruction_bytes = {budget};", 1)


STREAM_BUDGET = 8 << 20  # under the 16 MiB operands below, over one 4 MiB piece


@case
def copy_streams_over_budget(c):
    """The plain copies stream operands larger than the per-instruction
    budget (TRN_OPF_STREAMS): a 16 MiB copy, cast and accumulate, and step-0
    APs of 2^24 elements over one element, under an 8 MiB budget, give the
    bytes of the same copies split into 1 MiB instructions (the whole-buffer
    path) under the default budget, and numpy's."""
    n, k, reps = 1 << 22, 1 << 18, 1 << 24
    x = rng(11).standard_normal(n).astype(np.float32)
    tens = [("x", "hbm", "float32", [n]), ("y", "hbm", "float32", [n]), ("yb", "hbm", "bfloat16", [n]),
            ("acc", "hbm", "float32", [n], {"fill": 0.5}), ("accb", "hbm", "bfloat16", [n], {"fill": 0.25}),
            ("s", "hbm", "float32", [1], {"data": [3.3]}), ("t", "hbm", "float32", [1]),
            ("tb", "hbm", "bfloat16", [1], {"fill": 1})]

    def copies(parts, step0_parts):
        step = n // parts
        out = []
        for op, src, dst, extra in (("TensorCopy", "x", "y", {}), ("Save", "x", "yb", {}),
                                    ("GenericCopy", "x", "acc", {"accumulate": True}),
                                    ("Load", "x", "accb", {"accumulate": True})):
            for j in range(parts):
                out.append({"opcode": op, **extra, "inputs": [{"tensor": src, "offset": j * step, "ap": [[1, step]]}],
                            "outputs": [{"tensor": dst, "offset": j * step, "ap": [[1, step]]}]})
        for op, dst in (("AbstractCopy", "t"), ("Load", "tb")):  # the last of 2^24 stores of s[0] remains
            r = reps // step0_parts
            out += [{"opcode": op, "inputs": [{"tensor": "s", "ap": [[0, r]]}],
                     "outputs": [{"tensor": dst, "ap": [[0, r]]}]}] * step0_parts
        return out

    names = ["y", "yb", "acc", "accb", "t", "tb"]
    streamed = c.run(prog(tens, copies(1, 1)), {"x": x}, names, raw_bits=True,
                     config_text=budget_config(c, STREAM_BUDGET))
    whole = c.run(prog(tens, copies(n // k, reps // k)), {"x": x}, names, raw_bits=True)
    for name in names:
        same(f"{name} (streamed = whole-buffer pieces)", streamed[name], whole[name])
    same("y", streamed["y"], x)
    same("yb", streamed["yb"], ref.bf16_bits(x))
    same("acc", streamed["acc"], np.float32(0.5) + x)
    same("accb", streamed["accb"], ref.bf16_bits(np.float32(0.25) + ref.bf16_round(x)))
    same("t", streamed["t"], ref.f32([3.3]))
    same("tb", streamed["tb"], ref.bf16_bits(ref.f32([3.3])))


@case
def copy_refused_over_budget(c):
    """Where the kernel needs the whole operand it is refused at load, naming
    the operand, its elements and the budget: DMACopy (its transpose,
    replicate and indirect modes need whole operands), and a plain copy
    whose input may share bytes with its output (the whole input is read
    first, as the reference does)."""
    n = 1 << 22
    cfg = budget_config(c, STREAM_BUDGET)
    tens = [("x", "hbm", "float32", [n], {"fill": 1}), ("y", "hbm", "float32", [n]),
            ("z", "hbm", "float32", [n + 16], {"fill": 2})]
    over = (f"inputs[0]: {n} elements need {4 * n} bytes of working memory, over the per-instruction budget of "
            f"{STREAM_BUDGET} bytes (machine.max_instruction_bytes)")
    c.run(prog(tens, [{"opcode": "DMACopy", "inputs": ["x"], "outputs": ["y"]}]), {}, ["y"], config_text=cfg,
          error=["instruction 0 (opcode DMACopy/32)", over])
    c.run(prog(tens, [{"opcode": "TensorCopy", "inputs": [{"tensor": "z", "ap": [[1, n]]}],
                       "outputs": [{"tensor": "z", "offset": 16, "ap": [[1, n]]}]}]), {}, ["z"], config_text=cfg,
          error=["instruction 0 (opcode TensorCopy/23)", over + "; the opcode streams its operands, but an input may "
                 "share bytes with an output, so the whole input is read first"])
    # the same overlapping copy runs under the default budget (whole buffer), and so does DMACopy
    p = prog(tens, [{"opcode": "TensorCopy", "inputs": [{"tensor": "z", "ap": [[1, n]]}],
                     "outputs": [{"tensor": "z", "offset": 16, "ap": [[1, n]]}]},
                    {"opcode": "DMACopy", "inputs": ["x"], "outputs": ["y"]}])
    out = c.run(p, {}, ["z", "y"])
    same("z", out["z"], np.full(n + 16, 2, dtype=np.float32))
    same("y", out["y"], np.ones(n, dtype=np.float32))


@case
def copy_step0_2p30_bounded(c):
    """The largest AP there is, 2^30 elements of step 0 over one element,
    copied raw (and 2^27 of them cast to bf16, the slower per-element path)
    under the default 1 GiB budget, which a 4 GiB working copy exceeds: it
    runs in bounded memory (the process's peak resident size, from
    getrusage, stays under 256 MiB)."""
    import resource
    reps, cast_reps = 1 << 30, 1 << 27
    p = prog([("s", "hbm", "float32", [1], {"data": [-7.1]}), ("t", "hbm", "float32", [1]),
              ("tb", "hbm", "bfloat16", [1])],
             [{"opcode": "TensorCopy", "inputs": [{"tensor": "s", "ap": [[0, reps]]}],
               "outputs": [{"tensor": "t", "ap": [[0, reps]]}]},
              {"opcode": "Save", "inputs": [{"tensor": "s", "ap": [[0, cast_reps]]}],
               "outputs": [{"tensor": "tb", "ap": [[0, cast_reps]]}]}])
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    out = c.run(p, {}, ["t", "tb"], raw_bits=True)
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    same("t", out["t"], ref.f32([-7.1]))
    same("tb", out["tb"], ref.bf16_bits(ref.f32([-7.1])))
    assert peak_kib < 256 * 1024, f"peak resident size {peak_kib} KiB (before: {before} KiB)"
    print(f"ok: peak resident size {peak_kib} KiB")


# ---- transpose and replicate ---------------------------------------------------------


@case
def transpose_replicate(c):
    """Non-square 128x48 -> 48x128 (fp32 and bf16), a 4-D permutation
    (2, 0, 3, 1), replicate of one row to all 128 partitions (fp32, bf16)."""
    r = rng(2)
    a = (r.standard_normal((128, 48)) * 10).astype(np.float32)
    q = np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5)
    v = (r.standard_normal((1, 64)) * 3).astype(np.float32)
    v[0, 5] = 1 + 2 ** -8 + 2 ** -9  # rounds up in bf16
    out = c.run("transpose_replicate.json", {"a": a, "q": q, "v": v}, ["t", "tb", "qt", "r", "rb"], raw_bits=True)
    same("t", out["t"], a.T)
    same("tb", out["tb"], ref.bf16_bits(a.T))
    same("qt", out["qt"], q.transpose(2, 0, 3, 1))
    same("r", out["r"], np.tile(v, (128, 1)))
    same("rb", out["rb"], np.tile(ref.bf16_bits(v), (128, 1)))


@case
def transpose_partition_axes(c):
    """A transpose whose shape comes from the source AP (partitions x free),
    written to a strided destination AP; bf16 raw bits (payloads) survive."""
    bits = (np.arange(5 * 7, dtype=np.uint16) + 0x3F00).reshape(5, 7)
    bits[2, 3] = 0xFFC3
    p = prog([("s", "sbuf", "bfloat16", [5, 7]), ("d", "sbuf", "bfloat16", [7, 10], {"fill": 0})],
             [{"opcode": "DMADescriptorTranspose", "perm": [0, 1, 3, 2], "inputs": ["s"],
               "outputs": [{"tensor": "d", "ap": [[2, 5]], "offset": 1}]}])
    out = c.run(p, {"s": bits}, ["d"], raw_bits=True)
    want = np.zeros((7, 10), dtype=np.uint16)
    want[:, 1::2] = bits.T
    same("d", out["d"], want)


@case
def replicate_descriptor_fp8(c):
    """DMADescriptorReplicate: one HBM vector to 128 partitions as fp8 E4M3."""
    v = ref.f32([0.3, -17.0, 300.0, 2 ** -10, 1.0625, -0.0, 15.5, 0.1])
    p = prog([("v", "hbm", "float32", [8]), ("r", "sbuf", "float8_e4m3", [128, 8])],
             [{"opcode": "DMADescriptorReplicate", "inputs": ["v"], "outputs": ["r"]}])
    same("r", c.run(p, {"v": v}, ["r"], raw_bits=True)["r"], np.tile(ref.E4M3.encode(v), (128, 1)))

# ---- CCE ---------------------------------------------------------------------------


def cce_inputs():
    r = rng(3)
    a = (r.standard_normal((4, 16)) * 8).astype(np.float32)
    b = ref.bf16_round(r.standard_normal((4, 16)) * 8)
    cc = (r.standard_normal(64) * 8).astype(np.float32)
    a[0, 0], b[0, 1], cc[2] = NAN_A, np.nan, NAN_B  # NaN in one source each
    a[0, 3], b[0, 3], cc[3] = 2.0, 2.0, 2.0         # a three-way tie
    a[0, 4], b[0, 4], cc[4] = -0.0, -0.0, -0.0      # -0 + -0 + -0 from +0 is +0
    a[0, 5], b[0, 5], cc[5] = 100.0, 100.0, 100.0   # 300: past E4M3's 240 -> Inf
    a[3], b[3] = -np.abs(a[3]) - 1, -np.abs(b[3]) - 1  # row 3 all negative:
    cc[48:] = -np.abs(cc[48:]) - 1                      # max gives +0 (quirk)
    return a, ref.bf16_round(b), cc  # b is stored as bfloat16


@case
def cce_modes(c):
    """add / max / min over fp32 + bf16 + fp32 sources with NaN, ties, -0 and
    an all-negative row (max = +0: quirk dma.cce_zeroed_accumulator);
    bf16 and fp8 destinations narrow RNE."""
    a, b, cc = cce_inputs()
    out = c.run("cce.json", {"a": a, "b": ref.bf16_bits(b), "c": cc}, ["sum", "mx", "mn", "sb", "s8"],
                raw_bits=True)
    srcs = [a, b, cc]
    s = ref.cce(4, srcs).reshape(4, 16)
    same("sum", out["sum"], s)
    assert s.view(np.uint32)[0, 4] == 0  # +0, not -0
    mx = ref.cce(8, srcs).reshape(4, 16)
    same("mx", out["mx"], mx)
    assert np.all(mx[3].view(np.uint32) == 0)  # the zeroed accumulator
    same("mn", out["mn"], ref.cce(9, srcs).reshape(4, 16))
    same("sb", out["sb"], ref.bf16_bits(s))
    same("s8", out["s8"], ref.E4M3.encode(s).reshape(4, 16))


@case
def cce_first_setting(c):
    """cce_init = "first" (not the reference): the accumulator starts at the
    first source, so the all-negative row keeps its true maximum."""
    a, b, cc = cce_inputs()
    cfg = open(c.config).read().replace('cce_init = "zero"', 'cce_init = "first"')
    assert 'cce_init = "first"' in cfg
    out = c.run("cce.json", {"a": a, "b": ref.bf16_bits(b), "c": cc}, ["mx", "mn"], raw_bits=True, config_text=cfg)
    mx = ref.cce(8, [a, b, cc], first=True).reshape(4, 16)
    same("mx", out["mx"], mx)
    assert np.all(mx[3] < 0)
    same("mn", out["mn"], ref.cce(9, [a, b, cc], first=True).reshape(4, 16))


@case
def cce_nan_sticky_in_max(c):
    """Hand-computed SSE rule: max(x, acc) keeps acc on NaN and ties, so a
    NaN never enters max / min from the zeroed accumulator, while add lets
    it in and keeps the first NaN's payload."""
    a = ref.f32([[np.nan, -1.0, 3.0, -0.0]])
    a.view(np.uint32)[0, 0] = 0x7FC00077
    b = ref.f32([[5.0, np.nan, -0.0, 0.0]])
    b.view(np.uint32)[0, 1] = 0x7FC00088
    p = prog([("a", "sbuf", "float32", [1, 4]), ("b", "sbuf", "float32", [1, 4]),
              ("mx", "sbuf", "float32", [1, 4]), ("mn", "sbuf", "float32", [1, 4]), ("s", "sbuf", "float32", [1, 4])],
             [{"opcode": "DMACopy", "mode": 2, "reduce_op": 8, "inputs": ["a", "b"], "outputs": ["mx"]},
              {"opcode": "DMACopy", "mode": 2, "reduce_op": 9, "inputs": ["a", "b"], "outputs": ["mn"]},
              {"opcode": "DMACopy", "mode": 2, "reduce_op": 4, "inputs": ["a", "b"], "outputs": ["s"]}])
    out = c.run(p, {"a": a, "b": b}, ["mx", "mn", "s"])
    same("mx", out["mx"], ref.f32([[5.0, 0.0, 3.0, 0.0]]))
    same("mn", out["mn"], ref.f32([[0.0, -1.0, 0.0, 0.0]]))
    s = ref.f32([[np.nan, np.nan, 3.0, 0.0]])
    s.view(np.uint32)[0, :2] = [0x7FC00077, 0x7FC00088]
    same("s", out["s"], s)

# ---- indirect ------------------------------------------------------------------------


@case
def gather_scatter(c):
    """Row and element gathers, scatter-add with repeated indices (fp32 and
    bf16, sequential RNE), int32 scatter-add wrapping at 2^31."""
    r = rng(4)
    table = (r.standard_normal((16, 8)) * 4).astype(np.float32)
    idx = np.array([[3, 15, 3, 0, 7, 3]], dtype=np.int32)
    upd = (r.standard_normal((6, 8)) + 0.7).astype(np.float32)
    out = c.run("gather_scatter.json", {"table": table, "idx": idx, "upd": upd},
                ["rows", "elems", "acc", "accb", "itab"], raw_bits=True)
    same("rows", out["rows"], table[idx[0]])
    same("elems", out["elems"], table.reshape(-1)[idx[0]].reshape(1, 6))
    acc = np.zeros((16, 8), dtype=np.float32)
    accb = np.full((16, 8), 256, dtype=np.float32)
    for j, k in enumerate(idx[0]):
        acc[k] = acc[k] + upd[j]
        accb[k] = ref.bf16_round(accb[k] + ref.bf16_round(upd[j]))
    same("acc", out["acc"], acc)
    same("accb", out["accb"], ref.bf16_bits(accb))
    same("itab", out["itab"], np.array([-2147483646, 2147483647, -1073741824, 5], dtype=np.int32))


@case
def gather_raw_bits(c):
    """Same-dtype gather / scatter move raw elements (bf16 NaN payloads,
    int32 beyond 2^24); bypass scatter with repeated indices: the last one
    wins; add scatter accumulates in int32."""
    tb = np.array([0x7FC5, 0xFFC6, 0x3F81, 0x0001], dtype=np.uint16)
    ti = np.array([16777217, -16777219, 2 ** 31 - 1, 3], dtype=np.int32)
    idx = np.array([[3, 0, 1, 1, 2]], dtype=np.int64)
    src = np.array([[1, 2, 16777219, 33554437, 5]], dtype=np.int32)
    p = prog([("tb", "hbm", "bfloat16", [4]), ("ti", "hbm", "int32", [4]),
              ("idx", "sbuf", "int64", [1, 5]), ("gb", "sbuf", "bfloat16", [1, 5]), ("gi", "sbuf", "int32", [1, 5]),
              ("src", "sbuf", "int32", [1, 5]), ("st", "hbm", "int32", [4], {"fill": 0}),
              ("sa", "hbm", "int32", [4], {"data": [1, 2, 3, 4]})],
             [{"opcode": "DMACopy", "indirect": "gather", "inputs": ["tb", "idx"], "outputs": ["gb"]},
              {"opcode": "DMACopy", "indirect": "gather", "inputs": ["ti", "idx"], "outputs": ["gi"]},
              {"opcode": "DMACopy", "indirect": "scatter", "reduce_op": 0, "inputs": ["src", "idx"], "outputs": ["st"]},
              {"opcode": "DMACopy", "indirect": "scatter", "reduce_op": 4, "inputs": ["src", "idx"], "outputs": ["sa"]}])
    out = c.run(p, {"tb": tb, "ti": ti, "idx": idx, "src": src}, ["gb", "gi", "st", "sa"], raw_bits=True)
    same("gb", out["gb"], tb[idx[0]].reshape(1, 5))
    same("gi", out["gi"], ti[idx[0]].reshape(1, 5))
    same("st", out["st"], np.array([2, 33554437, 5, 1], dtype=np.int32))
    # scatter-add in int32 itself: 2 + 16777219 + 33554437 is exact (fp32 would round both)
    same("sa", out["sa"], np.array([1 + 2, 2 + 16777219 + 33554437, 3 + 5, 4 + 1], dtype=np.int32))


@case
def scatter_minmax_optin(c):
    """allow_minmax_reduce = true maps AluOpType max (8) / min (9) onto the
    MAX / MIN reduce of cast_copy_or_accumulate (acc second: NaN / tie keep
    the table's value)."""
    cfg = open(c.config).read().replace("allow_minmax_reduce = false", "allow_minmax_reduce = true")
    assert "allow_minmax_reduce = true" in cfg
    src = ref.f32([[5.0, -2.0, np.nan, 7.0, 1.0]])
    idx = np.array([[0, 0, 1, 2, 2]], dtype=np.int32)
    p = prog([("src", "sbuf", "float32", [1, 5]), ("idx", "sbuf", "int32", [1, 5]),
              ("tmax", "hbm", "float32", [3], {"data": [1.0, 4.0, 3.0]}),
              ("tmin", "hbm", "float32", [3], {"data": [1.0, 4.0, 3.0]})],
             [{"opcode": "DMACopy", "indirect": "scatter", "reduce_op": 8, "inputs": ["src", "idx"], "outputs": ["tmax"]},
              {"opcode": "DMACopy", "indirect": "scatter", "reduce_op": 9, "inputs": ["src", "idx"], "outputs": ["tmin"]}])
    out = c.run(p, {"src": src, "idx": idx}, ["tmax", "tmin"], config_text=cfg)
    same("tmax", out["tmax"], ref.f32([5.0, 4.0, 7.0]))
    same("tmin", out["tmin"], ref.f32([-2.0, 4.0, 1.0]))

# ---- descriptors, trigger, registers --------------------------------------------------------


@case
def descriptors_and_trigger(c):
    """A DMABlock of three descriptors (copy, transpose, CCE via
    DMADescriptor mode 2); trigger 7 fired three times runs blocks 0, 1, 0."""
    a = ref.f32([[1, -2, 3], [-4, 5, -6]])
    b = ref.f32([[-1, 2, 4], [-8, -5, -7]])
    out = c.run("descriptors.json", {"a": a, "b": b}, ["cp", "tr", "mx", "c0", "c1"])
    same("cp", out["cp"], a)
    same("tr", out["tr"], a.T)
    same("mx", out["mx"], ref.f32([[1, 2, 4], [0, 5, 0]]))  # max from +0
    same("c0", out["c0"], ref.f32([2, 2, 2, 2]))
    same("c1", out["c1"], ref.f32([1, 1, 1, 1]))


@case
def trigger_counters_per_id(c):
    """Triggers count per id: two ids interleaved, three blocks each; id 1
    fires four times (blocks 0, 1, 2, 0), id 2 twice (blocks 3, 4)."""
    def block(k):
        return {"opcode": "DMABlock", "descriptors": [
            {"opcode": "DMADescriptorCopy", "accumulate": True, "inputs": ["one"],
             "outputs": [{"tensor": "cnt", "offset": k, "ap": [[1, 1]]}]}]}
    t1 = {"opcode": "DMATrigger", "trigger": 1, "blocks": [block(0), block(1), block(2)]}
    t2 = {"opcode": "DMATrigger", "trigger": 2, "blocks": [block(3), block(4), block(5)]}
    p = prog([("one", "sbuf", "float32", [1, 1], {"fill": 1}), ("cnt", "hbm", "float32", [6], {"fill": 0})],
             [t1, t2, t1, t1, t1, t2])
    same("cnt", c.run(p, {}, ["cnt"])["cnt"], ref.f32([2, 1, 1, 1, 1, 0]))


@case
def trigger_per_core(c):
    """Fire counters are per core: on two SPMD cores, each core's trigger 7
    runs blocks 0, 1, 0 (a shared counter would give core 1 blocks 1, 0, 1)."""
    a = ref.f32([[1, -2, 3], [-4, 5, -6]])
    with open(os.path.join(PROGRAMS, "descriptors.json")) as f:
        p = json.load(f)
    p["cores"] = 2
    out = c.run(p, {"a": a, "b": a}, ["c0", "c1"])
    same("c0", out["c0"], np.tile(ref.f32([2, 2, 2, 2]), (2, 1)))
    same("c1", out["c1"], np.tile(ref.f32([1, 1, 1, 1]), (2, 1)))


@case
def indirect_cast(c):
    """Indirect copies between dtypes go through fp32: a float32 table
    gathered into bfloat16 (RNE), float32 rows scattered into a bfloat16
    table with bypass (the later duplicate wins) and into float8_e5m2 with add."""
    table = ref.f32([1 + 2 ** -8, 1 + 3 * 2 ** -8, -2.7, 1000.0, 0.3, 7.0])
    idx = np.array([[5, 0, 1, 3, 1]], dtype=np.int16)
    src = ref.f32([[0.1, 0.2, 3.3, -7.7, 9.9]])
    p = prog([("t", "hbm", "float32", [6]), ("i", "sbuf", "int16", [1, 5]), ("g", "sbuf", "bfloat16", [1, 5]),
              ("s", "sbuf", "float32", [1, 5]), ("tb", "hbm", "bfloat16", [6], {"fill": 0}),
              ("t8", "hbm", "float8_e5m2", [6], {"fill": 1})],
             [{"opcode": "DMACopy", "indirect": "gather", "inputs": ["t", "i"], "outputs": ["g"]},
              {"opcode": "DMACopy", "indirect": "scatter", "inputs": ["s", "i"], "outputs": ["tb"]},
              {"opcode": "DMACopy", "indirect": "scatter", "reduce_op": 4, "inputs": ["s", "i"], "outputs": ["t8"]}])
    out = c.run(p, {"t": table, "i": idx, "s": src}, ["g", "tb", "t8"], raw_bits=True)
    same("g", out["g"], ref.bf16_bits(table[idx[0]]).reshape(1, 5))
    tb = np.zeros(6, dtype=np.float32)
    t8 = np.ones(6, dtype=np.float32)
    for j, k in enumerate(idx[0]):
        tb[k] = ref.bf16_round(src[0, j])
        # narrow the source to e5m2, add in fp32 to the widened table value, narrow again
        s8 = ref.E5M2.decode(ref.E5M2.encode(src[0, j]))[0]
        t8[k] = ref.E5M2.decode(ref.E5M2.encode(np.float32(t8[k] + s8)))[0]
    same("tb", out["tb"], ref.bf16_bits(tb))
    same("t8", out["t8"], ref.E5M2.encode(t8))


@case
def tensorload_dynamic_offset(c):
    """TensorLoad puts 3 into register 5; the copy's source AP starts at
    element 3 at run time; TensorSave stores the register as int64."""
    x = np.arange(16, dtype=np.float32) * 1.5
    out = c.run("dynamic_offset.json", {"x": x}, ["y", "saved"])
    same("y", out["y"], x[3:11:2].reshape(1, 4))
    same("saved", out["saved"], np.array([3], dtype=np.int64))


@case
def tensorload_dtypes(c):
    """TensorLoad from uint16 / int8 / bf16 (integral) and TensorSave to
    int16 / float32 / bfloat16 (RNE of the integer)."""
    p = prog([("u", "sbuf", "uint16", [1], {"data": [65535]}), ("i", "sbuf", "int8", [1], {"data": [-7]}),
              ("f", "sbuf", "bfloat16", [1], {"data": [-384]}),
              ("o16", "hbm", "int16", [3]), ("of", "hbm", "float32", [3]), ("ob", "hbm", "bfloat16", [1])],
             [{"opcode": "TensorLoad", "register": 0, "inputs": ["u"]},
              {"opcode": "TensorLoad", "register": 1, "inputs": ["i"]},
              {"opcode": "TensorLoad", "register": 2, "inputs": ["f"]},
              {"opcode": "TensorSave", "register": 1, "outputs": [{"tensor": "o16", "ap": [[1, 1]]}]},
              {"opcode": "TensorSave", "register": 2, "outputs": [{"tensor": "o16", "offset": 1, "ap": [[1, 1]]}]},
              {"opcode": "TensorSave", "register": 1, "outputs": [{"tensor": "o16", "offset": 2, "ap": [[1, 1]]}]},
              {"opcode": "TensorSave", "register": 0, "outputs": [{"tensor": "of", "ap": [[1, 1]]}]},
              {"opcode": "TensorSave", "register": 1, "outputs": [{"tensor": "of", "offset": 1, "ap": [[1, 1]]}]},
              {"opcode": "TensorSave", "register": 2, "outputs": [{"tensor": "of", "offset": 2, "ap": [[1, 1]]}]},
              {"opcode": "TensorSave", "register": 0, "outputs": ["ob"]}])
    out = c.run(p, {}, ["o16", "of", "ob"], raw_bits=True)
    same("o16", out["o16"], np.array([-7, -384, -7], dtype=np.int16))
    same("of", out["of"], ref.f32([65535, -7, -384]))
    same("ob", out["ob"], ref.bf16_bits(ref.f32([65535])))  # 65535 -> 65536 in bf16


@case
def uninit_allowed(c):
    """The write guard: reading never-written memory is an error unless the
    instruction (or a DMABlock around it) allows it; then the bytes read are
    the zeroed memory."""
    p = prog([("x", "sbuf", "float32", [1, 4]), ("y", "hbm", "float32", [4])],
             [{"opcode": "TensorCopy", "allow_uninit_read": True, "inputs": ["x"], "outputs": ["y"]}])
    same("y", c.run(p, {}, ["y"])["y"], np.zeros(4, dtype=np.float32))
    p["instructions"][0].pop("allow_uninit_read")
    c.run(p, {}, ["y"], error=["instruction 0", "TensorCopy", "never-written", "allow_uninit_read"])
    # a block's permission reaches its descriptors
    blk = {"opcode": "DMABlock", "allow_uninit_read": True,
           "descriptors": [{"opcode": "DMADescriptorCopy", "inputs": ["x"], "outputs": ["y"]}]}
    p["instructions"] = [blk]
    same("y (block)", c.run(p, {}, ["y"])["y"], np.zeros(4, dtype=np.float32))
    blk.pop("allow_uninit_read")
    c.run(p, {}, ["y"], error=["DMABlock: descriptor 1 of 1", "never-written"])

# ---- errors ------------------------------------------------------------------------


def err_prog(inst, extra=()):
    base = [("x", "sbuf", "float32", [2, 3], {"fill": 1}), ("y", "sbuf", "float32", [2, 3]),
            ("z", "sbuf", "float32", [1, 5]), ("i", "sbuf", "int32", [1, 2], {"data": [0, 9]})]
    return prog(base + list(extra), [inst])


def expect_error(c, inst, error, extra=(), config_text=None):
    c.run(err_prog(inst, extra), {}, ["y"], error=error, config_text=config_text)


@case
def errors_shapes(c):
    """Element-count mismatches, replicate / transpose shape errors, operand counts."""
    expect_error(c, {"opcode": "TensorCopy", "inputs": ["x"], "outputs": ["z"]},
                 ["TensorCopy", "the source has 6 elements", "the destination 5"])
    expect_error(c, {"opcode": "DMACopy", "mode": 3, "inputs": ["x"], "outputs": ["y"]},
                 ["replicate", "the source has 6 elements", "each of the 2 destination partitions 3"])
    expect_error(c, {"opcode": "DMACopy", "mode": 1, "perm": [0, 1, 2, 2], "inputs": ["x"], "outputs": ["y"]},
                 "'perm' must be a permutation of [0, 1, 2, 3], found [0, 1, 2, 2]")
    expect_error(c, {"opcode": "DMACopy", "mode": 1, "inputs": ["x"], "outputs": ["y"]}, "transpose: needs 'perm'")
    expect_error(c, {"opcode": "DMACopy", "mode": 1, "perm": [0, 1, 3, 2], "shape": [4, 2], "inputs": ["x"],
                     "outputs": ["y"]}, "'shape' [1, 1, 4, 2] holds 8 elements, the source 6")
    expect_error(c, {"opcode": "Load", "inputs": ["x", "x"], "outputs": ["y"]},
                 "expects 1 input and 1 output, found 2 inputs and 1 output")
    expect_error(c, {"opcode": "DMACopy", "mode": 7, "inputs": ["x"], "outputs": ["y"]},
                 "unknown DMACopy mode 7 (expected 0 copy, 1 transpose, 2 CCE, 3 replicate)")
    expect_error(c, {"opcode": "DMADescriptorCCE", "mode": 1, "inputs": ["x", "x"], "outputs": ["y"]},
                 "this descriptor is mode 2 (CCE), but its 'mode' attribute is 1")
    for mode, what in ((0, "copy"), (1, "transpose"), (3, "replicate")):  # reduce_op is never silently ignored
        perm = {"perm": [0, 1, 2, 3]} if mode == 1 else {}
        expect_error(c, {"opcode": "DMACopy", "mode": mode, "reduce_op": 4, **perm, "inputs": ["x"],
                         "outputs": ["y"]}, f"{what}: reduce_op applies to indirect copies and CCE")
    # attributes of one mode given with another would be ignored: refused (check and run alike)
    for mode, what, attrs, only in ((0, "copy", {"perm": [0, 1, 2, 3]}, "'perm' applies only to mode 1 (transpose)"),
                                    (3, "replicate", {"shape": [6]}, "'shape' applies only to mode 1 (transpose)"),
                                    (1, "transpose", {"perm": [0, 1, 2, 3], "indirect": "gather"},
                                     "'indirect' applies only to mode 0 (copy)"),
                                    (2, "CCE", {"reduce_op": 4, "elems_per_index": 2},
                                     "'elems_per_index' applies only to mode 0 (copy)")):
        expect_error(c, {"opcode": "DMACopy", "mode": mode, **attrs, "inputs": ["x", "x"] if mode == 2 else ["x"],
                         "outputs": ["y"]}, f"mode {mode} ({what}): {only}, where it would be read; remove it, or "
                                           f"set mode {1 if 'mode 1' in only else 0}")
    expect_error(c, {"opcode": "DMACopy", "elems_per_index": 2, "inputs": ["x"], "outputs": ["y"]},
                 "mode 0 (copy): 'elems_per_index' applies only to an indirect copy; add 'indirect': \"gather\" or "
                 "\"scatter\", or remove it")


@case
def errors_bounds(c):
    """Out-of-bounds APs, static (checked before the run) and through a
    register offset (checked when the instruction runs)."""
    expect_error(c, {"opcode": "TensorCopy", "inputs": [{"tensor": "x", "offset": 196608}], "outputs": ["y"]},
                 ["past the end of sbuf"])
    p = prog([("off", "sbuf", "int32", [1], {"data": [100000000]}), ("h", "hbm", "float32", [4], {"fill": 2}),
              ("y", "sbuf", "float32", [1, 4])],
             [{"opcode": "TensorLoad", "register": 3, "inputs": ["off"]},
              {"opcode": "DMACopy", "inputs": [{"tensor": "h", "offset_register": 3}], "outputs": ["y"]}])
    c.run(p, {}, ["y"], error=["instruction 1", "DMACopy", "past the end of hbm"])


@case
def errors_cce(c):
    """CCE with fewer than two sources, a missing or unsupported op."""
    expect_error(c, {"opcode": "DMACopy", "mode": 2, "reduce_op": 4, "inputs": ["x"], "outputs": ["y"]},
                 "CCE: needs at least two source operands to fold, found 1")
    expect_error(c, {"opcode": "DMACopy", "mode": 2, "inputs": ["x", "x"], "outputs": ["y"]},
                 "CCE: needs 'reduce_op' (AluOpType 4 add, 8 max or 9 min)")
    expect_error(c, {"opcode": "DMACopy", "mode": 2, "reduce_op": 0, "inputs": ["x", "x"], "outputs": ["y"]},
                 "CCE: reduce_op must be 4 (add), 8 (max) or 9 (min), found 0 (bypass)")
    expect_error(c, {"opcode": "DMACopy", "mode": 2, "reduce_op": 4, "inputs": ["x", "z"], "outputs": ["y"]},
                 "CCE: source 1 has 5 elements, the destination 6")


@case
def errors_indirect(c):
    """Index outside its table, max / min without the opt-in, a float index,
    an unknown 'indirect' kind, a table that is not whole rows."""
    expect_error(c, {"opcode": "DMACopy", "indirect": "gather", "inputs": ["x", "i"],
                     "outputs": [{"tensor": "y", "partitions": 1, "ap": [[1, 2]]}]},
                 "gather: index 9 at position 1 is outside the table of 6 elements")
    expect_error(c, {"opcode": "DMACopy", "indirect": "scatter", "elems_per_index": 3, "reduce_op": 4,
                     "inputs": [{"tensor": "x"}, "i"], "outputs": ["y"]},
                 "scatter: index 9 at position 1 is outside the table of 2 rows")
    expect_error(c, {"opcode": "DMACopy", "indirect": "scatter", "reduce_op": 8, "inputs": [
        {"tensor": "x", "partitions": 1, "ap": [[1, 2]]}, "i"], "outputs": ["y"]},
                 "scatter: AluOpType 8 (max) has no MemoryReductionOp: the reference accepts only bypass (0) and add (4)")
    expect_error(c, {"opcode": "DMACopy", "indirect": "scatter", "reduce_op": 9, "inputs": [
        {"tensor": "x", "partitions": 1, "ap": [[1, 2]]}, "i"], "outputs": ["y"]},
                 "AluOpType 9 (min) has no MemoryReductionOp")
    expect_error(c, {"opcode": "DMACopy", "indirect": "gather", "inputs": ["x", "z"], "outputs": ["y"]},
                 "the index operand (inputs[1]) must have an integer dtype, found float32")
    expect_error(c, {"opcode": "DMACopy", "indirect": "sideways", "inputs": ["x", "i"], "outputs": ["y"]},
                 "'indirect' must be \"gather\" or \"scatter\", found \"sideways\"")
    expect_error(c, {"opcode": "DMACopy", "indirect": "gather", "elems_per_index": 4, "inputs": ["x", "i"],
                     "outputs": ["y"]}, "the table has 6 elements, not a whole number of 4-element rows")


@case
def errors_descriptors(c):
    """Empty or missing descriptor lists, a non-descriptor in a block (by
    number and by name), an unknown opcode name, a trigger fired past its
    blocks with round_robin false, a bad descriptor late in a block."""
    expect_error(c, {"opcode": "DMABlock", "descriptors": []},
                 "DMABlock: 'descriptors' is empty (it needs at least one descriptor instruction)")
    expect_error(c, {"opcode": "DMABlock"}, "DMABlock: needs 'descriptors', a non-empty list of descriptor instructions")
    expect_error(c, {"opcode": "DMABlock", "descriptors": [{"opcode": 23, "inputs": ["x"], "outputs": ["y"]}]},
                 "DMABlock: descriptors[0] has opcode 23, expected a descriptor instruction (IT 68-72)")
    expect_error(c, {"opcode": "DMABlock", "descriptors": [{"opcode": "TensorCopy", "inputs": ["x"], "outputs": ["y"]}]},
                 "DMABlock: descriptors[0] has opcode TensorCopy, expected a descriptor instruction (IT 68-72)")
    expect_error(c, {"opcode": "DMABlock", "descriptors": [{"opcode": "DMADescriptorFoo", "inputs": ["x"],
                                                            "outputs": ["y"]}]},
                 "attribute 'descriptors'[0]: unknown opcode name 'DMADescriptorFoo'; did you mean 'DMADescriptor'?")
    expect_error(c, {"opcode": "DMABlock", "descriptors": [{"inputs": ["x"], "outputs": ["y"]}]},
                 ["instruction 0 (opcode DMABlock/107, family dma): attribute 'descriptors'[0]: 'opcode' must be a "
                  "name or an IT number"])
    expect_error(c, {"opcode": "DMABlock", "descriptors": [
        {"opcode": "DMADescriptorCopy", "inputs": ["x"], "outputs": ["y"]},
        {"opcode": "DMADescriptorCopy", "inputs": ["x"], "outputs": ["z"]}]},
                 ["DMABlock: descriptor 2 of 2: sub-instruction (opcode DMADescriptorCopy/69)", "the source has 6 elements"])
    blk = {"opcode": "DMABlock", "descriptors": [{"opcode": "DMADescriptorCopy", "inputs": ["x"], "outputs": ["y"]}]}
    trig = {"opcode": "DMATrigger", "trigger": 4, "round_robin": False, "blocks": [blk, blk]}
    c.run(prog([("x", "sbuf", "float32", [2, 3], {"fill": 1}), ("y", "sbuf", "float32", [2, 3])], [trig, trig, trig]),
          {}, ["y"], error=["instruction 2", "DMATrigger: trigger 4 has fired all 2 of its blocks (fire 3; round_robin "
                                             "is false)"])
    expect_error(c, {"opcode": "DMATrigger", "blocks": [{"opcode": 69, "inputs": ["x"], "outputs": ["y"]}]},
                 "DMATrigger: blocks[0] has opcode 69, expected a DMABlock instruction (IT 107)")
    expect_error(c, {"opcode": "DMATrigger", "blocks": []}, "DMATrigger: 'blocks' is empty")
    expect_error(c, {"opcode": "DMATrigger", "blocks": [{"opcode": "DMADescriptorCopy", "inputs": ["x"],
                                                         "outputs": ["y"]}]},
                 "DMATrigger: blocks[0] has opcode DMADescriptorCopy, expected a DMABlock instruction (IT 107)")


@case
def errors_dtypes(c):
    """Packed x4 dtypes cast, accumulate into a non-reducing dtype,
    TensorLoad of a fraction, TensorSave out of range."""
    expect_error(c, {"opcode": "TensorCopy", "inputs": ["x"], "outputs": [{"tensor": "y", "dtype": "float8_e4m3_x4"}]},
                 "copy: cannot cast float32 to float8_e4m3_x4 (a packed x4 dtype copies only to itself)")
    expect_error(c, {"opcode": "TensorCopy", "accumulate": True, "inputs": [{"tensor": "x", "partitions": 1}],
                     "outputs": [{"tensor": "y", "dtype": "uint8", "partitions": 1, "ap": [[1, 3]]}]},
                 "copy: accumulate needs a destination of a reducing dtype")
    c.run(prog([("f", "sbuf", "float32", [1], {"fill": 2.5})],
               [{"opcode": "TensorLoad", "register": 1, "inputs": ["f"]}]), {}, [],
          error="TensorLoad: the float32 value 2.5 is not an integer a register can hold")
    c.run(prog([("v", "sbuf", "int32", [1], {"data": [300]}), ("o", "sbuf", "int8", [1])],
               [{"opcode": "TensorLoad", "register": 2, "inputs": ["v"]},
                {"opcode": "TensorSave", "register": 2, "outputs": ["o"]}]), {}, ["o"],
          error="TensorSave: register 2 holds 300, outside int8 (-128..127)")
    c.run(prog([("v", "sbuf", "int32", [1, 2], {"data": [1, 2]})],
               [{"opcode": "TensorLoad", "register": 2, "inputs": ["v"]}]), {}, [],
          error="TensorLoad: the operand must be exactly one element, found 2")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trnsim")
    ap.add_argument("--config")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("case", nargs="?")
    a = ap.parse_args()
    if a.list:
        print("\n".join(CASES))
        return 0
    if a.case not in CASES:
        print(f"unknown case {a.case!r}; known: {', '.join(CASES)}")
        return 2
    with tempfile.TemporaryDirectory(prefix="dma-prog-") as tmp:
        try:
            CASES[a.case](Ctx(a.trnsim, a.config, tmp))
        except (Failure, AssertionError) as e:
            print(f"FAIL: {a.case}: {e}")
            return 1
    print(f"PASS: {a.case}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
