#!/usr/bin/python3
"""BN programs through the real CLI, checked against the numpy reference.

    bn_cases.py --trnsim BIN --config CFG CASE

Each case writes a program and its .npy inputs to a temporary directory,
runs `trnsim run`, and compares every output with bn_ref.py bit for bit
(NaN-aware: a NaN matches any NaN, docs/bn.md), plus float64 tolerances
where the case says so. Exit 0 when everything holds; one line per check.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bn_ref  # noqa: E402

F = np.float32
ARGS = None


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(program, inputs, outputs, expect_ok=True):
    """Run program (a dict) with inputs {name: array}; return {name: array}."""
    with tempfile.TemporaryDirectory(prefix="bn-cases-") as d:
        path = os.path.join(d, "prog.json")
        with open(path, "w") as f:
            json.dump(program, f)
        cmd = [ARGS.trnsim, "run", path, "--config", ARGS.config]
        for name, arr in inputs.items():
            p = os.path.join(d, f"in_{name}.npy")
            np.save(p, arr)
            cmd += ["--input", f"{name}={p}"]
        for name in outputs:
            cmd += ["--output", f"{name}={os.path.join(d, 'out_' + name + '.npy')}"]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        if r.returncode != 0:
            fail(f"trnsim exited {r.returncode}: {r.stderr.strip()}")
        return {n: np.load(os.path.join(d, f"out_{n}.npy")) for n in outputs}


def tensor(name, shape, dtype="float32", memory="sbuf", **kw):
    t = {"name": name, "memory": memory, "dtype": dtype, "shape": list(shape)}
    t.update(kw)
    return t


def check_bits(what, got, want):
    i = bn_ref.same_bits(got, want)
    if i is not None:
        g, w = np.asarray(got, F).reshape(-1), np.asarray(want, F).reshape(-1)
        if i < 0:
            fail(f"{what}: shape {np.shape(got)}, expected {np.shape(want)}")
        fail(f"{what}: element {i}: got {g[i]!r} ({g.view(np.uint32)[i]:#010x}), "
             f"expected {w[i]!r} ({w.view(np.uint32)[i]:#010x})")
    print(f"ok: {what} ({np.size(got)} values bit-exact)")


# ---- cases -------------------------------------------------------------------

def case_stats():
    """BNStats over every input kind; P not a multiple of the block width,
    odd and even N, N = 1 and 2; several tensors in one program per kind."""
    shapes = [(1, 1), (7, 2), (9, 3), (128, 64), (128, 65), (13, 1001), (128, 1)]
    rng = np.random.default_rng(34)
    for kind in bn_ref.KINDS:
        tensors, insts, inputs = [], [], {}
        for k, (P, N) in enumerate(shapes):
            tensors += [tensor(f"x{k}", (P, N)), tensor(f"s{k}", (P, 6))]
            insts.append({"opcode": "BNStats", "inputs": [f"x{k}"], "outputs": [f"s{k}"]})
            inputs[f"x{k}"] = bn_ref.data(kind, (P, N), rng)
        outs = run({"tensors": tensors, "instructions": insts}, inputs, [f"s{k}" for k in range(len(shapes))])
        for k, (P, N) in enumerate(shapes):
            check_bits(f"BNStats {kind} {P}x{N}", outs[f"s{k}"], bn_ref.stats(inputs[f"x{k}"]))


def case_stats_transpose():
    """apply_transpose: 32x32 tile swap on multiples of 32, plain copy at N = 1."""
    shapes = [(32, 32), (64, 96), (128, 64), (7, 1), (128, 1)]
    rng = np.random.default_rng(35)
    for kind in ("random", "nan"):
        tensors, insts, inputs = [], [], {}
        for k, (P, N) in enumerate(shapes):
            tensors += [tensor(f"x{k}", (P, N)), tensor(f"s{k}", (P, 6))]
            insts.append({"opcode": 34, "inputs": [f"x{k}"], "outputs": [f"s{k}"], "apply_transpose": True})
            inputs[f"x{k}"] = bn_ref.data(kind, (P, N), rng)
        outs = run({"tensors": tensors, "instructions": insts}, inputs, [f"s{k}" for k in range(len(shapes))])
        for k, (P, N) in enumerate(shapes):
            want = bn_ref.stats(inputs[f"x{k}"], apply_transpose=True)
            check_bits(f"BNStats transposed {kind} {P}x{N}", outs[f"s{k}"], want)
            if N > 1 and kind == "random":
                plain = bn_ref.stats(inputs[f"x{k}"])
                if bn_ref.same_bits(want, plain) is None:
                    fail(f"transposed {P}x{N}: the transpose changed nothing")
    # apply_transpose false / 0 is the plain path.
    x = bn_ref.data("random", (64, 64), rng)
    prog = {"tensors": [tensor("x", (64, 64)), tensor("a", (64, 6)), tensor("b", (64, 6))],
            "instructions": [{"opcode": "BNStats", "inputs": ["x"], "outputs": ["a"], "apply_transpose": False},
                             {"opcode": "BNStats", "inputs": ["x"], "outputs": ["b"], "apply_transpose": 0}]}
    outs = run(prog, {"x": x}, ["a", "b"])
    check_bits("apply_transpose false", outs["a"], bn_ref.stats(x))
    check_bits("apply_transpose 0", outs["b"], bn_ref.stats(x))


def bf16_round(x):
    """fp32 -> bf16 (RNE) -> fp32, for finite inputs."""
    b = np.asarray(x, F).view(np.uint32).astype(np.uint64)
    b = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) << 16
    return b.astype(np.uint32).view(F)


def case_stats_dtypes_and_aps():
    """Widening first (bf16 / float16 / int32 inputs), an HBM input, a strided
    AP with a partition step, and a bf16 output (narrowed RNE)."""
    rng = np.random.default_rng(36)
    xf = bn_ref.data("random", (16, 40), rng)
    xi = rng.integers(-1000, 1000, (16, 40), dtype=np.int32)
    xh = bn_ref.data("random", (300,), rng)
    big = bn_ref.data("random", (32, 80), rng)
    prog = {"tensors": [tensor("xb", (16, 40), "bfloat16"), tensor("xh16", (16, 40), "float16"),
                        tensor("xi", (16, 40), "int32"), tensor("hx", (300,), memory="hbm"),
                        tensor("big", (32, 80)), tensor("sb", (16, 6)), tensor("s16", (16, 6)),
                        tensor("si", (16, 6)), tensor("sh", (1, 6)), tensor("ss", (16, 6)),
                        tensor("sbf", (16, 6), "bfloat16")],
            "instructions": [
                {"opcode": "BNStats", "inputs": ["xb"], "outputs": ["sb"]},
                {"opcode": "BNStats", "inputs": ["xh16"], "outputs": ["s16"]},
                {"opcode": "BNStats", "inputs": ["xi"], "outputs": ["si"]},
                {"opcode": "BNStats", "inputs": ["hx"], "outputs": ["sh"]},
                {"opcode": "BNStats", "inputs": [{"tensor": "big", "partition": 1, "partitions": 16,
                                                  "partition_step": 2, "offset": 3, "ap": [[2, 20], [1, 2]]}],
                 "outputs": ["ss"]},
                {"opcode": "BNStats", "inputs": ["xb"], "outputs": ["sbf"]}]}
    outs = run(prog, {"xb": xf, "xh16": xf.astype(np.float16), "xi": xi, "hx": xh, "big": big},
               ["sb", "s16", "si", "sh", "ss", "sbf"])
    check_bits("BNStats bf16 input", outs["sb"], bn_ref.stats(bf16_round(xf)))
    check_bits("BNStats float16 input", outs["s16"], bn_ref.stats(xf.astype(np.float16).astype(F)))
    check_bits("BNStats int32 input", outs["si"], bn_ref.stats(xi.astype(F)))
    check_bits("BNStats HBM input", outs["sh"], bn_ref.stats(xh.reshape(1, -1)))
    # partitions 1, 3, ..., 31; elements 3 + 2*i + j for i < 20, j < 2
    sel = big[1:33:2][:, [3 + 2 * i + j for i in range(20) for j in range(2)]]
    check_bits("BNStats strided AP", outs["ss"], bn_ref.stats(sel))
    check_bits("BNStats bf16 output", outs["sbf"], bf16_round(bn_ref.stats(bf16_round(xf))))


def case_aggregate_tiles():
    """BNStats of four column tiles (odd and even sizes) written side by side,
    one BNStatsAggregate over the 24 values; against the reference bits, the
    whole-row result and float64 (docs/bn.md tolerances)."""
    P, N = 128, 1000
    cuts = [0, 1, 250, 777, 1000]
    rng = np.random.default_rng(37)
    x = (F(10) + rng.uniform(-1, 1, (P, N))).astype(F)
    x[::2] = bn_ref.data("random", (P // 2, N), rng)
    insts = []
    for t in range(4):
        insts.append({"opcode": "BNStats",
                      "inputs": [{"tensor": "x", "offset": cuts[t], "ap": [[1, cuts[t + 1] - cuts[t]]]}],
                      "outputs": [{"tensor": "st", "offset": 6 * t, "ap": [[1, 6]]}]})
    insts += [{"opcode": "BNStatsAggregate", "inputs": ["st"], "outputs": ["mv"]},
              {"opcode": "BNStats", "inputs": ["x"], "outputs": ["whole"]},
              {"opcode": "BNStatsAggregate", "inputs": ["whole"], "outputs": ["mvw"]}]
    prog = {"tensors": [tensor("x", (P, N)), tensor("st", (P, 24)), tensor("mv", (P, 2)),
                        tensor("whole", (P, 6)), tensor("mvw", (P, 2))], "instructions": insts}
    outs = run(prog, {"x": x}, ["st", "mv", "mvw"])
    st = np.concatenate([bn_ref.stats(x[:, cuts[t]:cuts[t + 1]]) for t in range(4)], axis=1)
    check_bits("BNStats tiles", outs["st"], st)
    check_bits("BNStatsAggregate of 4 tiles", outs["mv"], bn_ref.aggregate(st))
    x64 = x.astype(np.float64)
    m64, v64 = x64.mean(axis=1), x64.var(axis=1)
    for name in ("mv", "mvw"):
        mv = outs[name].astype(np.float64)
        em = np.abs(mv[:, 0] - m64) / (np.abs(m64) + np.sqrt(v64))
        ev = np.abs(mv[:, 1] - v64) / v64
        if em.max() > 1e-5 or ev.max() > 1e-5:
            fail(f"{name}: float64 mean err {em.max():.3g} (tol 1e-5), var err {ev.max():.3g} (tol 1e-5)")
        print(f"ok: {name} within tolerance of float64 (mean {em.max():.2g}, var {ev.max():.2g})")
    a, w = outs["mv"].astype(np.float64), outs["mvw"].astype(np.float64)
    dm = np.abs(a[:, 0] - w[:, 0]) / (np.abs(w[:, 0]) + np.sqrt(w[:, 1]))
    dv = np.abs(a[:, 1] - w[:, 1]) / w[:, 1]
    if dm.max() > 1e-5 or dv.max() > 1e-5:
        fail(f"4 tiles vs whole row: mean differs by {dm.max():.3g}, var by {dv.max():.3g} (tol 1e-5)")
    print(f"ok: 4 tiles merged vs whole row: mean {dm.max():.2g}, var {dv.max():.2g} relative")


def case_aggregate_kinds():
    """Raw triples of every kind, counts 0..8 (zero counts divide by zero)."""
    rng = np.random.default_rng(38)
    tensors, insts, inputs = [], [], {}
    for k, kind in enumerate(bn_ref.KINDS):
        st = bn_ref.data(kind, (19, 36), rng)
        st[:, 0::3] = rng.integers(0, 9, (19, 12)).astype(F)
        st[[0, 5], 0] = 0  # rows that start with an empty triple
        st[:, 2::3] = np.abs(st[:, 2::3])
        inputs[f"st{k}"] = st
        tensors += [tensor(f"st{k}", (19, 36)), tensor(f"mv{k}", (19, 2))]
        insts.append({"opcode": "BNStatsAggregate", "inputs": [f"st{k}"], "outputs": [f"mv{k}"]})
    outs = run({"tensors": tensors, "instructions": insts}, inputs, [f"mv{k}" for k in range(len(bn_ref.KINDS))])
    for k, kind in enumerate(bn_ref.KINDS):
        check_bits(f"BNStatsAggregate {kind}", outs[f"mv{k}"], bn_ref.aggregate(inputs[f"st{k}"]))
    zero_first = inputs["st0"][:, 0] == 0
    if not zero_first.any() or not np.all(np.isnan(outs["mv0"][zero_first])):
        fail("a zero first count did not give NaN")
    print(f"ok: {int(zero_first.sum())} rows starting with a zero count give NaN mean and variance")


def case_backward():
    """Forward (BNStats, BNStatsAggregate), vf = 1/sqrt(var + eps) in numpy
    (another engine's job), BNGradients, then BNBackprop and BNBackprop2 on the
    same coefficients in their two layouts: reference bits at every step,
    identical dx from both opcodes, and the analytic float64 gradient."""
    P, N, eps = 128, 384, F(1e-5)
    rng = np.random.default_rng(39)
    x = bn_ref.data("random", (P, N), rng)
    dy = bn_ref.data("random", (P, N), rng)
    gamma = rng.uniform(0.5, 2, P).astype(F)
    fwd = run({"tensors": [tensor("x", (P, N)), tensor("st", (P, 6)), tensor("mv", (P, 2))],
               "instructions": [{"opcode": "BNStats", "inputs": ["x"], "outputs": ["st"]},
                                {"opcode": "BNStatsAggregate", "inputs": ["st"], "outputs": ["mv"]}]},
              {"x": x}, ["mv"])["mv"]
    check_bits("forward mean/var", fwd, bn_ref.aggregate(bn_ref.stats(x)))
    mean = fwd[:, :1].copy()
    vf = (F(1) / np.sqrt(fwd[:, 1:2] + eps)).astype(F)
    g = run({"tensors": [tensor("x", (P, N)), tensor("dy", (P, N)), tensor("m", (P, 1)), tensor("vf", (P, 1)),
                         tensor("g", (P, 3))],
             "instructions": [{"opcode": "BNGradients", "inputs": ["x", "dy", "m", "vf"], "outputs": ["g"]}]},
            {"x": x, "dy": dy, "m": mean, "vf": vf}, ["g"])["g"]
    check_bits("BNGradients", g, bn_ref.gradients(x, dy, mean, vf))
    scale = (gamma.reshape(P, 1) * vf / F(N)).astype(F)
    coef = np.concatenate([g[:, :2], scale], axis=1)
    prog = {"tensors": [tensor("x", (P, N)), tensor("dy", (P, N)), tensor("m", (P, 1)), tensor("coef", (P, 3)),
                        tensor("ab", (P, 2)), tensor("scale", (P, 1)), tensor("dx1", (P, N)),
                        tensor("dx2", (P, N))],
            "instructions": [
                {"opcode": "BNBackprop", "inputs": ["x", "dy", "m", "coef"], "outputs": ["dx1"],
                 "total_elements": N},
                {"opcode": "BNBackprop2", "inputs": ["x", "dy", "m", "ab", "scale"], "outputs": ["dx2"],
                 "total_elements": float(N)}]}
    outs = run(prog, {"x": x, "dy": dy, "m": mean, "coef": coef, "ab": g[:, :2].copy(), "scale": scale},
               ["dx1", "dx2"])
    want = bn_ref.backprop(x, dy, mean, g[:, 0], g[:, 1], scale, N)
    check_bits("BNBackprop", outs["dx1"], want)
    check_bits("BNBackprop2", outs["dx2"], want)
    if outs["dx1"].tobytes() != outs["dx2"].tobytes():
        fail("BNBackprop and BNBackprop2 differ")
    print("ok: BNBackprop and BNBackprop2 give identical bytes")
    x64, dy64 = x.astype(np.float64), dy.astype(np.float64)
    mu = x64.mean(axis=1, keepdims=True)
    inv = 1 / np.sqrt(x64.var(axis=1, keepdims=True) + float(eps))
    dx64 = gamma.reshape(P, 1) * inv / N * (N * dy64 - dy64.sum(axis=1, keepdims=True)
                                            - (x64 - mu) * inv ** 2 * ((x64 - mu) * dy64).sum(axis=1, keepdims=True))
    err = np.abs(outs["dx1"] - dx64).max(axis=1) / np.abs(dx64).max(axis=1)
    if err.max() > 1e-4:
        fail(f"dx vs analytic float64: relative error {err.max():.3g} > 1e-4")
    print(f"ok: dx within {err.max():.2g} (relative to max |dx|) of the analytic float64 gradient")


def case_backprop_details():
    """total_elements is rounded to fp32 once (16777217 -> 16777216); "inf"
    is accepted; dx may overwrite x in place; every kind of input."""
    P, N = 9, 33
    rng = np.random.default_rng(40)
    tensors, insts, inputs, outs_names, wants = [], [], {}, [], {}
    for k, kind in enumerate(bn_ref.KINDS):
        x, dy = bn_ref.data(kind, (P, N), rng), bn_ref.data("random", (P, N), rng)
        m, coef = bn_ref.data(kind, (P, 1), rng), bn_ref.data("random", (P, 3), rng)
        total = [16777217, "inf", 3.5, 1, 0.1, 1e30][k]
        inputs.update({f"x{k}": x, f"dy{k}": dy, f"m{k}": m, f"c{k}": coef})
        tensors += [tensor(f"x{k}", (P, N)), tensor(f"dy{k}", (P, N)), tensor(f"m{k}", (P, 1)),
                    tensor(f"c{k}", (P, 3))]
        # in place: dx overwrites x
        insts.append({"opcode": "BNBackprop", "inputs": [f"x{k}", f"dy{k}", f"m{k}", f"c{k}"],
                      "outputs": [f"x{k}"], "total_elements": total})
        outs_names.append(f"x{k}")
        tf = F(np.inf) if total == "inf" else F(total)
        wants[f"x{k}"] = bn_ref.backprop(x, dy, m, coef[:, 0], coef[:, 1], coef[:, 2], tf)
    outs = run({"tensors": tensors, "instructions": insts}, inputs, outs_names)
    for k, kind in enumerate(bn_ref.KINDS):
        check_bits(f"BNBackprop in place {kind}", outs[f"x{k}"], wants[f"x{k}"])


def case_gradients_kinds():
    """BNGradients over every kind, and numpy's pairwise np.sum disagrees with
    the index-order sums (bn.naive_gradient_sums) on this shipped input."""
    P, N = 11, 1001
    rng = np.random.default_rng(41)
    tensors, insts, inputs = [], [], {}
    for k, kind in enumerate(bn_ref.KINDS):
        inputs.update({f"x{k}": bn_ref.data(kind, (P, N), rng), f"dy{k}": bn_ref.data("random", (P, N), rng),
                       f"m{k}": bn_ref.data(kind, (P, 1), rng), f"v{k}": bn_ref.data("random", (P, 1), rng)})
        tensors += [tensor(f"x{k}", (P, N)), tensor(f"dy{k}", (P, N)), tensor(f"m{k}", (P, 1)),
                    tensor(f"v{k}", (P, 1)), tensor(f"g{k}", (P, 3))]
        insts.append({"opcode": "BNGradients", "inputs": [f"x{k}", f"dy{k}", f"m{k}", f"v{k}"],
                      "outputs": [f"g{k}"]})
    outs = run({"tensors": tensors, "instructions": insts}, inputs, [f"g{k}" for k in range(len(bn_ref.KINDS))])
    for k, kind in enumerate(bn_ref.KINDS):
        want = bn_ref.gradients(inputs[f"x{k}"], inputs[f"dy{k}"], inputs[f"m{k}"], inputs[f"v{k}"])
        check_bits(f"BNGradients {kind}", outs[f"g{k}"], want)
    pairwise = inputs["dy0"].sum(axis=1, dtype=F)
    if bn_ref.same_bits(pairwise, outs["g0"][:, 0]) is None:
        fail("np.sum happened to equal the index-order sum on every row")
    print("ok: numpy's pairwise np.sum differs from the index-order sum dy on this input")


def case_multicore():
    """Two SPMD cores, each with its own x (an input of shape [cores, P, N]):
    each core's stats are those of its own data (the module's scratch is
    shared by the cores, which run one instruction at a time)."""
    P, N = 24, 100
    rng = np.random.default_rng(42)
    x = np.stack([bn_ref.data("random", (P, N), rng), bn_ref.data("huge", (P, N), rng)])
    prog = {"cores": 2, "tensors": [tensor("x", (P, N)), tensor("st", (P, 6)), tensor("mv", (P, 2))],
            "instructions": [{"opcode": "BNStats", "inputs": ["x"], "outputs": ["st"]},
                             {"opcode": "BNStatsAggregate", "inputs": ["st"], "outputs": ["mv"]}]}
    outs = run(prog, {"x": x}, ["st", "mv"])
    for core in range(2):
        st = bn_ref.stats(x[core])
        check_bits(f"core {core} BNStats", outs["st"][core], st)
        check_bits(f"core {core} BNStatsAggregate", outs["mv"][core], bn_ref.aggregate(st))


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}


def main():
    global ARGS
    ap = argparse.ArgumentParser()
    ap.add_argument("--trnsim", required=True)
    ap.add_argument("--config", required=True)
    ap.add_argument("case", choices=sorted(CASES))
    ARGS = ap.parse_args()
    CASES[ARGS.case]()


if __name__ == "__main__":
    main()
