#!/usr/bin/python3
"""Writes the golden programs under programs/ and their expected outputs
under data/, computed by the numpy reference bn_ref.py (never by trnsim).
Run by hand after changing a case; the results are checked in.

    /usr/bin/python3 tests/bn/gen_data.py
"""
import json
import os
import sys

import numpy as np

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import bn_ref  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
F = np.float32


def save(name, arr):
    np.save(os.path.join(HERE, "data", name + ".npy"), np.asarray(arr, F))


def write_prog(name, prog):
    """One tensor or instruction per line; name may include a subfolder."""
    lines = ["{\"tensors\": ["]
    lines += ["  " + json.dumps(t) + ("," if i + 1 < len(prog["tensors"]) else "") for i, t in enumerate(prog["tensors"])]
    lines += [" ],", " \"instructions\": ["]
    insts = prog["instructions"]
    lines += ["  " + json.dumps(t) + ("," if i + 1 < len(insts) else "") for i, t in enumerate(insts)]
    lines += [" ]}"]
    with open(os.path.join(HERE, "programs", name + ".json"), "w") as f:
        f.write("\n".join(lines) + "\n")


def forward_known():
    """Four hand-readable rows and a fifth of 0.1f x 7 (bn.convex_mean_update)."""
    x = np.array([[1, 2, 3, 4, 5, 6, 7, 8],
                  [5, 7, 5, 7, 5, 7, 5, 7],
                  [1e6 + k / 16 for k in range(8)],
                  [-2, -2, -2, -2, -2, -2, -2, -2.5],
                  [0.1] * 7 + [0.1]], F)
    st = bn_ref.stats(x)
    mv = bn_ref.aggregate(st)
    st7 = bn_ref.stats(x[4:, :7])
    write_prog("forward_known", {
        "tensors": [
            {"name": "x", "memory": "sbuf", "dtype": "float32", "shape": [5, 8],
             "data": [float(v) for v in x.reshape(-1)]},
            {"name": "st", "memory": "sbuf", "dtype": "float32", "shape": [5, 6]},
            {"name": "mv", "memory": "sbuf", "dtype": "float32", "shape": [5, 2]},
            {"name": "st7", "memory": "sbuf", "dtype": "float32", "shape": [1, 6]}],
        "instructions": [
            {"opcode": "BNStats", "inputs": ["x"], "outputs": ["st"]},
            {"opcode": "BNStatsAggregate", "inputs": ["st"], "outputs": ["mv"]},
            {"opcode": "BNStats", "comment": "0.1f x 7: M2 of lane A is 2^-54, not 0",
             "inputs": [{"tensor": "x", "partition": 4, "partitions": 1, "ap": [[1, 7]]}], "outputs": ["st7"]}]})
    save("forward_known_st", st)
    save("forward_known_mv", mv)
    save("forward_known_st7", st7)
    assert st7[0, 2] == F(2.0 ** -54)


def backward_known():
    """BNGradients, BNBackprop and BNBackprop2 on a small random case; the
    inputs come from data/ as .npy files."""
    rng = np.random.default_rng(2024)
    P, N = 32, 17
    x = bn_ref.data("random", (P, N), rng)
    dy = bn_ref.data("random", (P, N), rng)
    m = bn_ref.data("random", (P, 1), rng)
    vf = rng.uniform(0.5, 2, (P, 1)).astype(F)
    g = bn_ref.gradients(x, dy, m, vf)
    scale = rng.uniform(0.01, 0.1, (P, 1)).astype(F)
    coef = np.concatenate([g[:, :2], scale], axis=1)
    dx = bn_ref.backprop(x, dy, m, g[:, 0], g[:, 1], scale, N)
    for name, arr in (("x", x), ("dy", dy), ("m", m), ("vf", vf), ("coef", coef), ("ab", g[:, :2]),
                      ("scale", scale), ("g", g), ("dx", dx)):
        save("backward_known_" + name, arr)
    t = lambda name, shape: {"name": name, "memory": "sbuf", "dtype": "float32", "shape": list(shape)}
    write_prog("backward_known", {
        "tensors": [t("x", (P, N)), t("dy", (P, N)), t("m", (P, 1)), t("vf", (P, 1)), t("g", (P, 3)),
                    t("coef", (P, 3)), t("ab", (P, 2)), t("scale", (P, 1)), t("dx", (P, N)), t("dx2", (P, N))],
        "instructions": [
            {"opcode": "BNGradients", "inputs": ["x", "dy", "m", "vf"], "outputs": ["g"]},
            {"opcode": "BNBackprop", "inputs": ["x", "dy", "m", "coef"], "outputs": ["dx"], "total_elements": N},
            {"opcode": "BNBackprop2", "inputs": ["x", "dy", "m", "ab", "scale"], "outputs": ["dx2"],
             "total_elements": N}]})


def T(name, shape, dtype="float32", fill=1.0, **kw):
    t = {"name": name, "memory": "sbuf", "dtype": dtype, "shape": shape}
    if fill is not None:
        t["fill"] = fill
    t.update(kw)
    return t


def error_programs():
    """One bad instruction each; tests/bn/CMakeLists.txt names the text each
    error must contain. Tensors use "fill" so nothing else can fail."""
    x, st = T("x", [128, 64]), T("st", [128, 6], fill=None)
    dy, m, v = T("dy", [128, 64]), T("m", [128, 1]), T("v", [128, 1])
    dx = T("dx", [128, 64], fill=None)
    stats = lambda **kw: dict({"opcode": "BNStats", "inputs": ["x"], "outputs": ["st"]}, **kw)
    grads = {"opcode": "BNGradients", "inputs": ["x", "dy", "m", "v"], "outputs": ["g"]}
    cases = {
        "stats_out_elems": ([x, T("st", [128, 5], fill=None)], stats()),
        "stats_out_parts": ([x, T("st", [64, 6], fill=None)], stats()),
        "stats_counts": ([x, st], stats(inputs=["x", "x"])),
        "stats_packed": ([T("x", [128, 64], "float8_e4m3_x4"), st], stats()),
        "stats_transpose_edge": ([T("x", [128, 48]), st], stats(apply_transpose=True)),
        "stats_transpose_parts": ([T("x", [16, 32]), T("st", [16, 6], fill=None)], stats(apply_transpose=True)),
        "stats_transpose_string": ([x, st], stats(apply_transpose="yes")),
        "stats_transpose_object": ([x, st], stats(apply_transpose={"register": 3})),
        "stats_transpose_int": ([x, st], stats(apply_transpose=2)),
        "stats_out_of_bounds": ([x, st], stats(outputs=[{"tensor": "st", "offset": 49150}])),
        "stats_uninit": ([T("x", [128, 64], fill=None), st], stats()),
        "aggregate_not_6": ([T("s", [128, 9]), T("mv", [128, 2], fill=None)],
                            {"opcode": "BNStatsAggregate", "inputs": ["s"], "outputs": ["mv"]}),
        "aggregate_out_3": ([T("s", [128, 12]), T("mv", [128, 3], fill=None)],
                            {"opcode": "BNStatsAggregate", "inputs": ["s"], "outputs": ["mv"]}),
        "gradients_dy_shape": ([x, T("dy", [128, 63]), m, v, T("g", [128, 3], fill=None)], grads),
        "gradients_mean_elems": ([x, dy, T("m", [128, 2]), v, T("g", [128, 3], fill=None)], grads),
        "gradients_out_elems": ([x, dy, m, v, T("g", [128, 4], fill=None)], grads),
        "gradients_packed_dy": ([x, T("dy", [128, 64], "float4_e2m1_x4"), m, v, T("g", [128, 3], fill=None)],
                                 grads),
        "backprop_no_total": ([x, dy, m, T("c", [128, 3]), dx],
                              {"opcode": "BNBackprop", "inputs": ["x", "dy", "m", "c"], "outputs": ["dx"]}),
        "backprop_total_string": ([x, dy, m, T("c", [128, 3]), dx],
                                  {"opcode": "BNBackprop", "inputs": ["x", "dy", "m", "c"], "outputs": ["dx"],
                                   "total_elements": "many"}),
        "backprop_coef_2": ([x, dy, m, T("c", [128, 2]), dx],
                            {"opcode": "BNBackprop", "inputs": ["x", "dy", "m", "c"], "outputs": ["dx"],
                             "total_elements": 64}),
        "backprop2_counts": ([x, dy, m, T("c", [128, 3]), dx],
                             {"opcode": "BNBackprop2", "inputs": ["x", "dy", "m", "c"], "outputs": ["dx"],
                              "total_elements": 64}),
        "backprop2_dx_shape": ([x, dy, m, T("ab", [128, 2]), T("s", [128, 1]), T("dx", [128, 32], fill=None)],
                               {"opcode": "BNBackprop2", "inputs": ["x", "dy", "m", "ab", "s"], "outputs": ["dx"],
                                "total_elements": 64}),
    }
    for name, (tensors, inst) in cases.items():
        write_prog(os.path.join("errors", name), {"tensors": tensors, "instructions": [inst]})


if __name__ == "__main__":
    os.makedirs(os.path.join(HERE, "data"), exist_ok=True)
    os.makedirs(os.path.join(HERE, "programs", "errors"), exist_ok=True)
    forward_known()
    backward_known()
    error_programs()
