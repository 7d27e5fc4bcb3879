#!/usr/bin/python3
"""Program-level tests of trnsim-experimental through the real CLI.

    exp_programs.py --trnsim build/trnsim --repo SOURCE_DIR CASE

Each CASE writes its program and config into a temporary directory, runs
`trnsim`, and checks the .npy outputs bit for bit against hand-computed
values and the Python model in exp_ref.py (which shares no code with the
module), or checks the error line and that no output file was left, or the
skip notes on stderr. Exit 0 when the case passes.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import exp_ref  # noqa: E402


class Fail(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Fail(msg)


def same_bits(name, got, want):
    got, want = np.asarray(got), np.asarray(want)
    check(got.dtype == want.dtype, f"{name}: dtype {got.dtype}, expected {want.dtype}")
    check(got.shape == want.shape, f"{name}: shape {got.shape}, expected {want.shape}")
    if got.tobytes() != want.tobytes():
        g, w = got.reshape(-1), want.reshape(-1)
        bad = np.nonzero(g.view(f"u{g.dtype.itemsize}") != w.view(f"u{w.dtype.itemsize}"))[0]
        i = int(bad[0])
        raise Fail(f"{name}: {len(bad)} of {g.size} elements differ; first at flat index {i}: "
                   f"got {g[i]!r}, expected {w[i]!r}")
    print(f"ok: {name} ({got.size} elements, {got.dtype})")


def config_text(exp_settings=None, unknown="error", rng=True, experimental=True):
    plugins = []
    if rng:
        plugins.append('{ family = "rng"; module = "trnsim-rng"; }')
    if experimental:
        s = "".join(f' {k} = "{v}";' for k, v in (exp_settings or {}).items())
        plugins.append('{ family = "experimental"; module = "trnsim-experimental"; settings = {' + s + ' }; }')
    return f'unknown_opcode = "{unknown}";\nplugins = (\n  ' + ",\n  ".join(plugins) + "\n);\n"


class Runner:
    def __init__(self, trnsim, repo, workdir):
        self.trnsim, self.repo, self.dir = trnsim, repo, workdir
        self.n = 0

    def path(self, name):
        return os.path.join(self.dir, name)

    def config(self, text):
        self.n += 1
        p = self.path(f"cfg{self.n}.cfg")
        with open(p, "w") as f:
            f.write(text)
        return p

    def run(self, prog, config, inputs=None, outputs=(), extra=()):
        """Returns (proc, {name: array}); output files that exist are loaded."""
        self.n += 1
        prog_path = self.path(f"prog{self.n}.json")
        with open(prog_path, "w") as f:
            json.dump(prog, f, indent=1)
        cmd = [self.trnsim, "run", prog_path, "--config", config, *extra]
        for name, arr in (inputs or {}).items():
            p = self.path(f"in{self.n}_{name}.npy")
            np.save(p, arr)
            cmd += ["--input", f"{name}={p}"]
        outs = {}
        for name in outputs:
            outs[name] = self.path(f"out{self.n}_{name}.npy")
            cmd += ["--output", f"{name}={outs[name]}"]
        env = dict(os.environ)
        env.pop("TRNSIM_PLUGIN_PATH", None)
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
        loaded = {k: np.load(v) for k, v in outs.items() if os.path.exists(v)}
        return proc, loaded, outs

    def ok(self, prog, config, inputs=None, outputs=(), extra=()):
        proc, loaded, _ = self.run(prog, config, inputs, outputs, extra)
        check(proc.returncode == 0, f"trnsim failed ({proc.returncode}): {proc.stderr.strip()}")
        return loaded, proc

    def error(self, prog, config, texts, inputs=None, outputs=()):
        proc, loaded, outs = self.run(prog, config, inputs, outputs)
        lines = proc.stderr.strip().splitlines()
        check(proc.returncode == 1, f"expected exit 1, got {proc.returncode}; stderr: {proc.stderr.strip()}")
        check(len(lines) == 1, f"expected one stderr line, got {lines}")
        for t in texts:
            check(t in lines[0], f"error line lacks {t!r}: {lines[0]}")
        for name, p in outs.items():
            check(not os.path.exists(p), f"output {name} was left behind after a failed run")
        left = [f for f in os.listdir(self.dir) if ".tmp-trnsim-" in f]
        check(not left, f"temporary files left: {left}")
        print(f"ok: error: {lines[0]}")


def tensor(name, dtype, shape, memory="sbuf", **kw):
    return dict(name=name, memory=memory, dtype=dtype, shape=list(shape), **kw)


def f32(bits):
    return np.array(bits, dtype=np.uint32).view(np.float32)


NAN, QNAN_NEG, SNAN = 0x7FC00000, 0xFFC00000, 0x7F800001
SUB_MIN, SUB_NEG = 0x00000001, 0x807FFFFF

# ---- NonzeroWithCount ----------------------------------------------------------------


def case_nonzero_nki_example(r):
    """The NKI documentation's example, slot for slot."""
    prog = {"tensors": [tensor("x", "float32", [1, 8], data=[0, 1, 1, 0, 0, 1, 0, 0]),
                        tensor("n", "int32", [1, 9])],
            "instructions": [{"opcode": "NonzeroWithCount", "inputs": ["x"], "outputs": ["n"],
                              "index_offset": 16, "padding_val": -1}]}
    out, _ = r.ok(prog, r.config(config_text()), outputs=["n"])
    same_bits("n", out["n"], np.array([[17, 18, 21, -1, -1, -1, -1, -1, 3]], np.int32))


# Rows with hand-computed answers: all zero (signed zeros), all nonzero
# (NaNs, infinities, subnormals), NaN-only positions, single elements.
SPECIAL_ROWS = [
    ([0.0, -0.0, 0.0, -0.0, 0.0, 0.0, -0.0, 0.0], [-1] * 8 + [0]),
    ([1.0, f32(NAN), np.inf, -np.inf, f32(SUB_MIN), f32(SUB_NEG), f32(QNAN_NEG), -3.0], list(range(8)) + [8]),
    ([0.0, f32(NAN), -0.0, f32(SNAN), 0.0, 0.0, 0.0, -0.0], [1, 3] + [-1] * 6 + [2]),
    ([0.0] * 7 + [f32(SUB_MIN)], [7] + [-1] * 7 + [1]),
    ([5.0] + [-0.0] * 7, [0] + [-1] * 7 + [1]),
    ([-0.0, 2.0, 0.0, -2.0, 0.0, 1e-30, 0.0, 0.0], [1, 3, 5] + [-1] * 5 + [3]),
]


def case_nonzero_special_rows(r):
    x = np.array([[float(v) for v in row] for row, _ in SPECIAL_ROWS], dtype=np.float32)
    for i, (row, _) in enumerate(SPECIAL_ROWS):  # keep the exact NaN payloads
        for j, v in enumerate(row):
            if isinstance(v, np.ndarray):
                x[i, j] = v
    want = np.array([w for _, w in SPECIAL_ROWS], dtype=np.int32)
    prog = {"tensors": [tensor("x", "float32", x.shape), tensor("n", "int32", [x.shape[0], 9]),
                        tensor("u", "uint32", [x.shape[0], 9])],
            "instructions": [{"opcode": "NonzeroWithCount", "inputs": ["x"], "outputs": ["n"]},
                             {"opcode": "NonzeroWithCount", "inputs": ["x"], "outputs": ["u"]}]}
    out, _ = r.ok(prog, r.config(config_text()), inputs={"x": x}, outputs=["n", "u"])
    same_bits("n (hand)", out["n"], want)
    same_bits("n (model)", out["n"], exp_ref.nonzero(x))
    same_bits("u (uint32: -1 is 0xFFFFFFFF)", out["u"], want.view(np.uint32))


def case_nonzero_random(r):
    """128 partitions x 300 with zeros of both signs, NaNs and subnormals."""
    rng = np.random.default_rng(2024)
    bits = rng.integers(0, 2**32, size=(128, 300), dtype=np.uint64).astype(np.uint32)
    x = bits.view(np.float32).copy()
    dens = rng.random((128, 1))
    x[rng.random((128, 300)) < dens] = 0.0
    x[rng.random((128, 300)) < 0.05] = -0.0
    x[rng.random((128, 300)) < 0.01] = np.nan
    x[3] = 0.0
    x[4] = 7.0
    prog = {"tensors": [tensor("x", "float32", x.shape), tensor("n", "int32", [128, 301]),
                        tensor("u", "uint32", [128, 301])],
            "instructions": [{"opcode": "NonzeroWithCount", "inputs": ["x"], "outputs": ["n"],
                              "index_offset": -1000, "padding_val": 77},
                             {"opcode": 104, "inputs": ["x"], "outputs": ["u"], "index_offset": 4294966000}]}
    out, _ = r.ok(prog, r.config(config_text()), inputs={"x": x}, outputs=["n", "u"])
    same_bits("n", out["n"], exp_ref.nonzero(x, -1000, 77))
    same_bits("u", out["u"], exp_ref.nonzero(x, 4294966000, -1, np.uint32))
    check(out["n"][3, 300] == 0 and (out["n"][3, :300] == 77).all(), "all-zero row")
    check(out["n"][4, 300] == 300 and (out["n"][4, :300] == np.arange(300) - 1000).all(), "all-nonzero row")
    # numpy's own count, independently of the model
    check((out["n"][:, 300] == np.count_nonzero(x, axis=1)).all(), "counts differ from np.count_nonzero")
    print("ok: counts equal np.count_nonzero")


def case_nonzero_dtypes(r):
    """Inputs are widened to fp32 first; zero-ness survives every widening."""
    bf16 = np.array([[0x8000, 0x0001, 0x0000, 0x7FC0, 0x3F80, 0x0000]], dtype=np.uint16)  # -0, subnormal, 0, NaN, 1
    f16 = np.array([[-0.0, 6e-8, 0.0, np.nan, 0.0, -1.0]], dtype=np.float16)
    i32 = np.array([[0, -5, 0, 2**31 - 1, -(2**31), 0]], dtype=np.int32)
    u8 = np.array([[0, 0, 255, 1, 0, 0]], dtype=np.uint8)
    prog = {"tensors": [tensor("b", "bfloat16", [1, 6]), tensor("h", "float16", [1, 6]),
                        tensor("i", "int32", [1, 6]), tensor("c", "uint8", [1, 6])]
            + [tensor(f"o{k}", "int32", [1, 7]) for k in "bhic"],
            "instructions": [{"opcode": "NonzeroWithCount", "inputs": [k], "outputs": [f"o{k}"]} for k in "bhic"]}
    out, _ = r.ok(prog, r.config(config_text()), inputs={"b": bf16, "h": f16, "i": i32, "c": u8},
                  outputs=[f"o{k}" for k in "bhic"])
    same_bits("bfloat16 in", out["ob"], np.array([[1, 3, 4, -1, -1, -1, 3]], np.int32))
    same_bits("float16 in", out["oh"], np.array([[1, 3, 5, -1, -1, -1, 3]], np.int32))
    same_bits("int32 in", out["oi"], np.array([[1, 3, 4, -1, -1, -1, 3]], np.int32))
    same_bits("uint8 in", out["oc"], np.array([[2, 3, -1, -1, -1, -1, 2]], np.int32))


def case_nonzero_views(r):
    """Strided partitions, a 2-D free AP (flattened in visiting order) and a
    placed destination view; the rest of the destination is untouched."""
    rng = np.random.default_rng(5)
    x = rng.integers(-1, 2, size=(8, 8)).astype(np.float32)
    prog = {"tensors": [tensor("x", "float32", [8, 8]), tensor("d", "int32", [8, 12], fill=99)],
            "instructions": [{"opcode": "NonzeroWithCount",
                              "inputs": [{"tensor": "x", "partition": 1, "partitions": 3, "partition_step": 2,
                                          "ap": [[1, 2], [2, 4]]}],
                              "outputs": [{"tensor": "d", "partition": 4, "partitions": 3, "offset": 2,
                                           "ap": [[1, 9]]}]}]}
    out, _ = r.ok(prog, r.config(config_text()), inputs={"x": x}, outputs=["d"])
    # ap [[1, 2], [2, 4]]: element (j, i) is x[j + 2 i], j outer, i inner
    src = np.stack([np.array([x[p][j + 2 * i] for j in range(2) for i in range(4)], np.float32) for p in (1, 3, 5)])
    want = np.full((8, 12), 99, np.int32)
    want[4:7, 2:11] = exp_ref.nonzero(src)
    same_bits("d", out["d"], want)


def case_nonzero_gpsimd(r):
    """nonzero_partitions = "gpsimd": only tile partitions 0, 16, 32, ...
    are read and written; the other rows of the destination keep their
    bytes and the other rows of the source are not read at all."""
    rng = np.random.default_rng(9)
    x = (rng.random((40, 5)) < 0.5).astype(np.float32)
    gpsimd = r.config(config_text({"nonzero_partitions": "gpsimd"}))
    prog = {"tensors": [tensor("x", "float32", [40, 5]), tensor("n", "int32", [40, 6], fill=99)],
            "instructions": [{"opcode": "NonzeroWithCount", "inputs": ["x"], "outputs": ["n"]}]}
    out, _ = r.ok(prog, gpsimd, inputs={"x": x}, outputs=["n"])
    want = np.full((40, 6), 99, np.int32)
    want[[0, 16, 32]] = exp_ref.nonzero(x[[0, 16, 32]])
    same_bits("n", out["n"], want)

    # partitions relative to the tile: a tile starting at partition 1
    tile = dict(prog, instructions=[{"opcode": "NonzeroWithCount",
                                     "inputs": [{"tensor": "x", "partition": 1, "partitions": 39}],
                                     "outputs": [{"tensor": "n", "partition": 1, "partitions": 39}]}])
    out, _ = r.ok(tile, gpsimd, inputs={"x": x}, outputs=["n"])
    want = np.full((40, 6), 99, np.int32)
    want[[1, 17, 33]] = exp_ref.nonzero(x[[1, 17, 33]])
    same_bits("n (tile from partition 1)", out["n"], want)

    # only rows 0, 16, 32 of x are ever written: "gpsimd" reads nothing else
    rows = [tensor(f"r{p}", "float32", [1, 5], partition=p, offset=0, data=x[p].tolist()) for p in (0, 16, 32)]
    sparse = {"tensors": [tensor("x", "float32", [40, 5], offset=0), tensor("n", "int32", [40, 6], fill=99,
                                                                              offset=64)] + rows,
              "instructions": prog["instructions"]}
    out, _ = r.ok(sparse, gpsimd, outputs=["n"])
    want = np.full((40, 6), 99, np.int32)
    want[[0, 16, 32]] = exp_ref.nonzero(x[[0, 16, 32]])
    same_bits("n (sparse source)", out["n"], want)
    r.error(sparse, r.config(config_text()), ["never-written"], outputs=["n"])


def case_nonzero_errors(r):
    cfg = r.config(config_text())
    base = [tensor("x", "float32", [2, 8], fill=1.0), tensor("n", "int32", [2, 9]),
            tensor("f", "float32", [2, 9]), tensor("w", "int32", [2, 10]), tensor("m", "int32", [3, 9]),
            tensor("h", "float32", [8], memory="hbm", fill=0.0), tensor("p", "float8_e4m3_x4", [2, 8], fill=0),
            tensor("u", "uint32", [2, 9])]

    def prog(inputs, outputs, **attrs):
        return {"tensors": base, "instructions": [{"opcode": "NonzeroWithCount", "inputs": inputs,
                                                   "outputs": outputs, **attrs}]}

    head = "instruction 0 (core 0, opcode NonzeroWithCount/104, family experimental)"
    r.error(prog(["x"], ["f"]), cfg, [head, "output 0 must be int32 or uint32, found float32"], outputs=["f"])
    r.error(prog(["x"], ["w"]), cfg, ["output 0 needs 9 elements per partition", "found 10"], outputs=["w"])
    r.error(prog(["x"], ["m"]), cfg, ["input 0 has 2 partitions and output 0 has 3"], outputs=["m"])
    r.error(prog(["h"], ["n"]), cfg, ["input 0 must be in sbuf or psum", "found hbm"], outputs=["n"])
    r.error(prog(["p"], ["n"]), cfg, ["input 0 has dtype float8_e4m3_x4", "fp32 value"], outputs=["n"])
    r.error(prog(["x"], ["n"], padding_val=2**31), cfg,
            ["padding_val must be in [-2147483648, 2147483647], found 2147483648"], outputs=["n"])
    r.error(prog(["x"], ["n"], index_offset=2**31 - 5), cfg,
            ["index_offset 2147483643 + 8 elements - 1 exceeds the largest int32, 2147483647"], outputs=["n"])
    r.error(prog(["x"], ["u"], index_offset=2**32 - 5), cfg,
            ["exceeds the largest uint32, 4294967295"], outputs=["u"])
    r.error(prog(["x"], ["u"], index_offset=-(2**31) - 1), cfg,
            ["index_offset must be in [-2147483648, 4294967295]"], outputs=["u"])
    r.error(prog(["x", "x"], ["n"]), cfg, ["takes 1 input(s) and 1 output(s), found 2 and 1"], outputs=["n"])
    r.error(prog(["x"], ["n"], index_offset="seven"), cfg, ["index_offset"], outputs=["n"])
    # an error in the second instruction leaves the first one's output unwritten too
    two = prog(["x"], ["n"])
    two["instructions"].append({"opcode": "NonzeroWithCount", "inputs": ["x"], "outputs": ["f"]})
    r.error(two, cfg, ["instruction 1", "must be int32 or uint32"], outputs=["n"])


# ---- Rng ------------------------------------------------------------------------------


def case_rng_default(r):
    """Default lanes: every partition draws the same stream; consecutive
    instructions continue it; each dtype keeps the low bits."""
    dts = ["uint32", "int8", "uint8", "int16", "uint16", "int32"]
    prog = {"tensors": [tensor(f"o{k}", dt, [3, 10]) for k, dt in enumerate(dts)],
            "instructions": [{"opcode": "Rng", "outputs": [f"o{k}"]} for k in range(len(dts))]}
    out, _ = r.ok(prog, r.config(config_text()), outputs=[f"o{k}" for k in range(len(dts))])
    model = exp_ref.RngModel(128)
    for k, dt in enumerate(dts):
        bits = model.draw([0, 1, 2], 10)
        same_bits(f"o{k} ({dt})", out[f"o{k}"], exp_ref.truncate(bits, dt))
    # hand values: the first draws from {1,1,1,1,1,1} are 362456 and 725180
    check(out["o0"][0, 0] == 362456 and out["o0"][2, 1] == 725180, "first draws are not 362456, 725180")
    print("ok: hand values 362456, 725180")


def rand2_mantissa(rand2):
    """Rand2(min 0, max 1) gives u = mantissa * 2^-23 exactly: recover it."""
    m = rand2.astype(np.float64) * 2.0**23
    check((m == np.floor(m)).all(), "Rand2(0, 1) values are not multiples of 2^-23")
    return m.astype(np.uint32)


def case_rng_vs_rand2(r):
    """Cross-module: Rng's draws and trnsim-rng's Rand2 (lane 0, no lane
    flag) come from separate but equal default lanes, so Rng's low 23 bits
    are Rand2(0, 1) * 2^23."""
    prog = {"tensors": [tensor("o", "uint32", [128, 40]), tensor("f", "float32", [128, 40])],
            "instructions": [{"opcode": "Rng", "outputs": ["o"]}, {"opcode": "Rand2", "outputs": ["f"]}]}
    out, _ = r.ok(prog, r.config(config_text()), outputs=["o", "f"])
    same_bits("Rng & 0x7FFFFF vs Rand2 mantissa", out["o"] & 0x7FFFFF, rand2_mantissa(out["f"]))


def case_rng_seeded(r):
    """rng_seed = "42" (and "0x2A") fills the lanes like trnsim-rng's
    SetRandState2 with seed 42: lane 0 of each partition, checked against
    Rand2 and against the Python MT19937-64 model."""
    prog = {"tensors": [tensor("o", "uint32", [128, 24]), tensor("f", "float32", [128, 24])],
            "instructions": [{"opcode": "SetRandState2", "seed": 42},
                             {"opcode": "Rng", "outputs": ["o"]}, {"opcode": "Rand2", "outputs": ["f"]}]}
    for text in ("42", "0x2A"):
        out, _ = r.ok(prog, r.config(config_text({"rng_seed": text})), outputs=["o", "f"])
        same_bits(f"rng_seed {text}: Rng vs model", out["o"], exp_ref.RngModel(128, 42).draw(range(128), 24))
        same_bits(f"rng_seed {text}: Rng low 23 bits vs Rand2", out["o"] & 0x7FFFFF, rand2_mantissa(out["f"]))
    check(len(set(map(tuple, out["o"].tolist()))) == 128, "seeded partitions should draw distinct streams")


def case_rng_service_state(r):
    """Rng's bits come from trnsim-rng's gen-2 state through the rng.xorwow
    service: lane 0 of the state of the partition each row visits, seeded
    as SetRandState2 seeds, and continuing across instructions. The
    model's answers for the wrong lane (1, 2, 3 of the same fill) and for a
    neighbouring partition's state are shown to differ, so taking either
    would fail this case."""
    view = {"tensor": "a", "partition": 5, "partitions": 9, "partition_step": 7}
    prog = {"tensors": [tensor("a", "uint32", [128, 10], fill=0), tensor("b", "uint32", [128, 4], fill=0)],
            "instructions": [{"opcode": "Rng", "outputs": [view]},
                             {"opcode": "Rng", "outputs": [{"tensor": "b", "partition": 12, "partitions": 1}]}]}
    out, _ = r.ok(prog, r.config(config_text({"rng_seed": "1234567"})), outputs=["a", "b"])
    parts = [5 + 7 * i for i in range(9)]
    model = exp_ref.RngModel(128, 1234567)
    same_bits("strided rows vs model (lane 0)", out["a"][parts], model.draw(parts, 10))
    same_bits("partition 12 continues its stream", out["b"][12:13], model.draw([12], 4))
    for lane in (1, 2, 3):
        wrong = exp_ref.RngModel(128, 1234567, lane_index=lane).draw(parts, 10)
        check(not np.array_equal(out["a"][parts], wrong), f"lane {lane} of the fill gives the same bits")
    wrong = exp_ref.RngModel(128, 1234567).draw([p + 1 for p in parts], 10)
    check(not np.array_equal(out["a"][parts], wrong), "the next partition's state gives the same bits")
    print("ok: the wrong lanes and partitions give other bits")


def case_needs_rng(r):
    """Without trnsim-rng, which exports the rng.xorwow service, the module is
    refused when the modules load: one line naming both modules, the service,
    the version and the config entry to add; nothing is written."""
    prog = {"tensors": [tensor("o", "uint32", [2, 4])], "instructions": [{"opcode": "Rng", "outputs": ["o"]}]}
    r.error(prog, r.config(config_text(rng=False)),
            ["module 'trnsim-experimental' (family experimental): needs the service 'rng.xorwow' version >= 1, "
             "which no loaded module exports; add { family = \"rng\"; module = \"trnsim-rng\"; } to the config's "
             "plugins, which exports it"], outputs=["o"])


def case_rng_own_lanes(r):
    """SetRandState/SetRandState2 of trnsim-rng do not reach Rng's lanes
    (quirk experimental.rng_own_lanes)."""
    prog = {"tensors": [tensor("o", "uint32", [2, 6])],
            "instructions": [{"opcode": "SetRandState2", "seed": 7},
                             {"opcode": "SetRandState", "seed": [1, 2, 3, 4, 5, 6, 7, 8]},
                             {"opcode": "Rng", "outputs": ["o"]}]}
    out, _ = r.ok(prog, r.config(config_text()), outputs=["o"])
    same_bits("o", out["o"], exp_ref.RngModel(128).draw([0, 1], 6))


def case_rng_views(r):
    """Engine partition = part_start + i * part_step: step 0 revisits one
    lane (its stream continues; memory keeps the last visit), PSUM shares
    the lanes of SBUF, a strided view draws from the partitions it visits."""
    prog = {"tensors": [tensor("a", "uint32", [8, 4], fill=0), tensor("b", "uint16", [2, 3], memory="psum"),
                        tensor("c", "int32", [8, 2], fill=-7)],
            "instructions": [
                {"opcode": "Rng", "outputs": [{"tensor": "a", "partition": 3, "partitions": 3, "partition_step": 0}]},
                {"opcode": "Rng", "outputs": [{"tensor": "b", "partition": 0, "partitions": 2, "partition_step": 1}]},
                {"opcode": "Rng", "outputs": [{"tensor": "c", "partition": 1, "partitions": 3, "partition_step": 3,
                                               "ap": [[-1, 2]], "offset": 1}]}]}
    out, _ = r.ok(prog, r.config(config_text({"rng_seed": "99"})), outputs=["a", "b", "c"])
    m = exp_ref.RngModel(128, 99)
    a_want = np.zeros((8, 4), np.uint32)
    a_want[3] = m.draw([3, 3, 3], 4)[2]
    same_bits("a (step 0)", out["a"], a_want)
    same_bits("b (psum)", out["b"], exp_ref.truncate(m.draw([0, 1], 3), "uint16"))
    c_want = np.full((8, 2), -7, np.int32)
    bits = exp_ref.truncate(m.draw([1, 4, 7], 2), "int32")
    for i, p in enumerate([1, 4, 7]):
        c_want[p, 1], c_want[p, 0] = bits[i, 0], bits[i, 1]  # ap step -1 from offset 1
    same_bits("c (strided, reversed)", out["c"], c_want)


def case_rng_multicore(r):
    """Every core starts alike and advances its own lanes."""
    prog = {"cores": 3, "tensors": [tensor("o", "uint32", [2, 5]), tensor("q", "int16", [2, 5])],
            "instructions": [{"opcode": "Rng", "outputs": ["o"]}, {"opcode": "Rng", "outputs": ["q"]}]}
    out, _ = r.ok(prog, r.config(config_text({"rng_seed": "5"})), outputs=["o", "q"])
    m = exp_ref.RngModel(128, 5)
    o, q = m.draw([0, 1], 5), exp_ref.truncate(m.draw([0, 1], 5), "int16")
    same_bits("o", out["o"], np.stack([o] * 3))
    same_bits("q", out["q"], np.stack([q] * 3))


def case_rng_errors(r):
    cfg = r.config(config_text())
    base = [tensor("f", "float32", [2, 4]), tensor("l", "uint64", [2, 4]), tensor("b", "bfloat16", [2, 4]),
            tensor("h", "uint32", [8], memory="hbm"), tensor("o", "uint32", [2, 4], fill=1)]

    def prog(outputs, inputs=()):
        return {"tensors": base, "instructions": [{"opcode": "Rng", "inputs": list(inputs), "outputs": outputs}]}

    head = "instruction 0 (core 0, opcode Rng/100, family experimental)"
    want = "output 0 must be an integer dtype of at most 32 bits (int8, uint8, int16, uint16, int32, uint32)"
    r.error(prog(["f"]), cfg, [head, want, "found float32"], outputs=["f"])
    r.error(prog(["l"]), cfg, [want, "found uint64"], outputs=["l"])
    r.error(prog(["b"]), cfg, [want, "found bfloat16"], outputs=["b"])
    r.error(prog(["h"]), cfg, ["Rng output 0 must be in sbuf or psum", "found hbm"], outputs=["h"])
    r.error(prog(["o"], ["o"]), cfg, ["Rng takes 0 input(s) and 1 output(s), found 1 and 1"], outputs=["o"])
    r.error(prog([]), cfg, ["Rng takes 0 input(s) and 1 output(s), found 0 and 0"])


def case_settings_errors(r):
    prog = {"tensors": [tensor("o", "uint32", [1, 1])], "instructions": [{"opcode": "Rng", "outputs": ["o"]}]}
    for bad in ("-5", "12x", "0x", " 7"):
        r.error(prog, r.config(config_text({"rng_seed": bad})),
                [f'rng_seed = "{bad}"', "expected \"\" or a uint64 in decimal or 0x hex"], outputs=["o"])
    r.error(prog, r.config(config_text({"nonzero_partitions": "odd"})),
            ["nonzero_partitions", "odd", "all|gpsimd"], outputs=["o"])


# ---- the default: skip-and-note, or refuse ---------------------------------------------------


SKIP_PROG = {"tensors": [tensor("o", "uint32", [2, 4], fill=7), tensor("x", "float32", [2, 3], data=[0, 1, 0, 2, 0, 0]),
                         tensor("n", "int32", [2, 4], fill=5)],
             "instructions": [{"opcode": "Rng", "outputs": ["o"]},
                              {"opcode": "NonzeroWithCount", "inputs": ["x"], "outputs": ["n"]},
                              {"opcode": 100, "outputs": ["o"]}]}


def case_default_skips(r):
    """config/rng.cfg (unknown_opcode = "skip", no experimental module):
    the reference's skip-and-note for 100 and 104, memory untouched."""
    cfg = os.path.join(r.repo, "config", "rng.cfg")
    with open(cfg) as f:
        check("trnsim-experimental" not in f.read(), "config/rng.cfg loads trnsim-experimental")
    out, proc = r.ok(SKIP_PROG, cfg, outputs=["o", "n"])
    same_bits("o unchanged", out["o"], np.full((2, 4), 7, np.uint32))
    same_bits("n unchanged", out["n"], np.full((2, 4), 5, np.int32))
    notes = proc.stderr
    for want in ["note: skipped 2 instruction(s) Rng (IT 100)", "note: skipped 1 instruction(s) NonzeroWithCount (IT 104)",
                 "the reference's skip-and-note"]:
        check(want in notes, f"stderr lacks {want!r}: {notes!r}")
    print("ok: skip notes on stderr")
    _, proc = r.ok(SKIP_PROG, cfg, extra=["--trace-text"])
    check("Rng (IT 100): skipped" in proc.stderr and "NonzeroWithCount (IT 104): skipped" in proc.stderr,
          f"--trace-text lacks the skip lines: {proc.stderr!r}")
    print("ok: --trace-text skip lines")


def case_default_refuses(r):
    """unknown_opcode = "error" (the default config's value) without the
    module: Rng and NonzeroWithCount are refused before anything runs."""
    cfg = r.config(config_text(unknown="error", experimental=False))
    r.error(SKIP_PROG, cfg, ["no loaded module handles opcode Rng (IT 100)", 'unknown_opcode = "skip"'], outputs=["o"])
    prog = dict(SKIP_PROG, instructions=SKIP_PROG["instructions"][1:2])
    r.error(prog, cfg, ["no loaded module handles opcode NonzeroWithCount (IT 104)"], outputs=["n"])


def case_configs(r):
    """config/default.cfg does not load the module, config/experimental.cfg
    loads it with the five stock families; `trnsim opcodes` names the owner."""
    text = open(os.path.join(r.repo, "config", "default.cfg")).read()
    check("experimental" not in text, "config/default.cfg mentions experimental")
    text = open(os.path.join(r.repo, "config", "experimental.cfg")).read()
    for fam in ("dma", "bn", "rng", "search", "collective", "experimental"):
        check(f'module = "trnsim-{fam}"' in text, f"config/experimental.cfg does not load trnsim-{fam}")
    proc = subprocess.run([r.trnsim, "opcodes", "--config", r.config(config_text())], capture_output=True, text=True)
    check(proc.returncode == 0, proc.stderr)
    rows = {line.split()[0]: line.split() for line in proc.stdout.splitlines() if line[:1].isdigit()}
    check(rows.get("100", [])[1:4] == ["Rng", "experimental", "trnsim-experimental"], f"IT 100 row: {rows.get('100')}")
    check(rows.get("104", [])[1:4] == ["NonzeroWithCount", "experimental", "trnsim-experimental"],
          f"IT 104 row: {rows.get('104')}")
    check(rows.get("97", [])[1:4] == ["Rand2", "rng", "trnsim-rng"], f"IT 97 row: {rows.get('97')}")
    print("ok: trnsim opcodes names the owners")
    proc = subprocess.run([r.trnsim, "quirks", "--config", r.config(config_text())], capture_output=True, text=True)
    for q in ("experimental.not_in_reference", "experimental.rng_own_lanes", "experimental.rng_start",
              "experimental.nonzero_nan", "experimental.nonzero_partitions"):
        check(q in proc.stdout, f"trnsim quirks lacks {q}")
    print("ok: trnsim quirks lists the module's quirks")


def case_experimental_cfg(r):
    """Needs all five stock families built: config/experimental.cfg loads,
    and a program mixes a stock opcode with both experimental ones."""
    cfg = os.path.join(r.repo, "config", "experimental.cfg")
    proc = subprocess.run([r.trnsim, "opcodes", "--config", cfg], capture_output=True, text=True)
    check(proc.returncode == 0, proc.stderr)
    rows = {line.split()[0]: line.split() for line in proc.stdout.splitlines() if line[:1].isdigit()}
    for it, fam in (("23", "dma"), ("34", "bn"), ("60", "rng"), ("88", "search"), ("48", "collective"),
                    ("100", "experimental"), ("104", "experimental")):
        check(rows.get(it, [None] * 3)[2] == fam, f"IT {it}: {rows.get(it)}")
    x = np.array([[0, 3, 0, 1], [0, 0, 0, 0]], np.float32)
    prog = {"tensors": [tensor("x", "float32", [2, 4]), tensor("y", "float32", [2, 4]), tensor("n", "int32", [2, 5]),
                        tensor("o", "uint8", [2, 3])],
            "instructions": [{"opcode": "TensorCopy", "inputs": ["x"], "outputs": ["y"]},
                             {"opcode": "NonzeroWithCount", "inputs": ["y"], "outputs": ["n"]},
                             {"opcode": "Rng", "outputs": ["o"]}]}
    out, _ = r.ok(prog, cfg, inputs={"x": x}, outputs=["n", "o"])
    same_bits("n", out["n"], np.array([[1, 3, -1, -1, 2], [-1, -1, -1, -1, 0]], np.int32))
    same_bits("o", out["o"], exp_ref.truncate(exp_ref.RngModel(128).draw([0, 1], 3), "uint8"))


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trnsim", required=True)
    ap.add_argument("--repo", default=os.path.dirname(os.path.dirname(HERE)))
    ap.add_argument("case", choices=sorted(CASES))
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="exp-prog-") as d:
        try:
            CASES[a.case](Runner(os.path.abspath(a.trnsim), os.path.abspath(a.repo), d))
        except Fail as e:
            print(f"FAIL: {a.case}: {e}")
            return 1
    print(f"PASS: {a.case}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
