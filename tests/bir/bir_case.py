#!/usr/bin/python3
"""Run a BIR file and its native equivalent on the same inputs and require
the same bits; convert the BIR file, run the conversion, require the same
bits again, and require that converting the conversion changes nothing.

    bir_case.py TRNSIM CASE DIR

CASE names an entry of CASES; DIR is tests/bir. An optional oracle checks
the values against an independent computation (numpy)."""
import os
import subprocess
import sys
import tempfile

import numpy as np


def topk_oracle(inputs, out):
    x = inputs["x"]
    want = -np.sort(-x, axis=1, kind="stable")[:, :64]
    assert np.array_equal(out["values"], want), "TopK values differ from numpy's sort"
    for r in range(x.shape[0]):  # each index names an element holding its value
        assert np.array_equal(x[r, out["indices"][r].astype(np.int64)], want[r])


def bn_oracle(inputs, out):
    x = inputs["x"].astype(np.float64)
    mv = out["mean_var"]
    assert np.allclose(mv[:, 0], x.mean(axis=1), rtol=1e-5, atol=1e-5), "BN mean differs from numpy's"
    assert np.allclose(mv[:, 1], x.var(axis=1), rtol=1e-4, atol=1e-4), "BN variance differs from numpy's"
    st = out["stats"].reshape(128, 4, 6)
    assert not np.array_equal(st[:, 0], st[:, 1]), "the four tiles' statistics must differ"


def rng_oracle(inputs, out):
    u = out["uniform"]
    assert u.min() >= -2.0 and u.max() <= 3.0 and len(np.unique(u)) > 4000, "Rand2 values outside [min, max]"
    assert out["state2"].any() and out["state1"].any() and len(np.unique(out["raw"])) > 1500


def coll_oracle(inputs, out):
    x = inputs["x"]  # [core, 4, 4]
    total = ((x[0] + x[1]) + x[2]) + x[3]  # fp32, core order
    for c in range(4):
        assert np.array_equal(out["summed"][c], total), f"AllReduce on core {c} differs from the core-order sum"
    assert np.array_equal(out["rank"].reshape(4), np.arange(4, dtype=np.int32)), "GetGlobalRankId -> register -> TensorSave"
    for c in range(4):  # every core holds the same sum: the max over ranks is it; core c gets row c
        assert np.array_equal(out["part"][c], total[c:c + 1]), f"ReduceScatter part of core {c}"


def dma_oracle(inputs, out):
    a, b, m = inputs["a"], inputs["b"], inputs["m"]
    # CCE folds into a zeroed accumulator (quirk dma.cce_zeroed_accumulator): max(max(+0, a), b)
    want = np.stack([a, np.maximum(np.maximum(np.float32(0), a), b), a])
    assert np.array_equal(out["rows"], want), "DMATrigger must fire copy, max, copy (round robin over 2 blocks)"
    assert np.array_equal(out["mt"], m.T), "DMACopy Transpose (WZXY) must transpose m"


def int_grid(rng, shape, scale=8):
    return (rng.integers(-1000, 1000, size=shape) / scale).astype(np.float32)


CASES = {
    "topk64": dict(bir="programs/topk64.bir.json", native="programs/topk64.native.json",
                   config="../../config/topk.cfg", inputs={"x": lambda r: int_grid(r, (8, 512))},
                   outputs=["values", "indices"], oracle=topk_oracle),
    "bn_tiles": dict(bir="programs/bn_tiles.bir.json", native="programs/bn_tiles.native.json",
                     config="configs/bn.cfg", inputs={"x": lambda r: r.standard_normal((128, 1024)).astype(np.float32)},
                     outputs=["stats", "mean_var"], oracle=bn_oracle),
    "rng_state": dict(bir="programs/rng_state.bir.json", native="programs/rng_state.native.json",
                      config="configs/rng.cfg", inputs={}, outputs=["uniform", "state2", "raw", "state1"],
                      oracle=rng_oracle),
    "allreduce_scatter": dict(bir="programs/allreduce_scatter.bir.json", native="programs/allreduce_scatter.native.json",
                              config="configs/coll4.cfg", inputs={"x": lambda r: int_grid(r, (4, 4, 4))},
                              outputs=["summed", "part", "rank"], oracle=coll_oracle),
    "dma_trigger": dict(bir="programs/dma_trigger.bir.json", native="programs/dma_trigger.native.json",
                        config="../../config/dma.cfg",
                        inputs={"a": lambda r: int_grid(r, (4,)), "b": lambda r: int_grid(r, (4,)),
                                "m": lambda r: int_grid(r, (2, 3))},
                        outputs=["rows", "mt"], oracle=dma_oracle),
}


def run(trnsim, prog, config, inputs, outputs, out_dir, extra=()):
    cmd = [trnsim, "run", prog, "--config", config] + list(extra)
    for k, v in inputs.items():
        cmd += ["--input", f"{k}={v}"]
    got = {}
    for name in outputs:
        path = os.path.join(out_dir, name + ".npy")
        cmd += ["--output", f"{name}={path}"]
        got[name] = path
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)}: {r.stderr.strip()}")
    return {k: np.load(v) for k, v in got.items()}


def same_bits(a, b, what):
    for k in a:
        if a[k].dtype != b[k].dtype or a[k].shape != b[k].shape or a[k].tobytes() != b[k].tobytes():
            sys.exit(f"FAIL: {what}: output {k} differs")


def convert(trnsim, prog, config, dst):
    r = subprocess.run([trnsim, "convert", prog, "--config", config, "-o", dst], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAIL: convert {prog}: {r.stderr.strip()}")
    with open(dst) as f:
        return f.read()


def main():
    trnsim, case, root = sys.argv[1], sys.argv[2], sys.argv[3]
    c = CASES[case]
    os.chdir(root)
    rng = np.random.default_rng(sum(map(ord, case)))
    with tempfile.TemporaryDirectory(prefix="bircase-") as tmp:
        arrays = {k: g(rng) for k, g in c["inputs"].items()}
        files = {}
        for k, a in arrays.items():
            files[k] = os.path.join(tmp, f"in_{k}.npy")
            np.save(files[k], a)
        os.makedirs(os.path.join(tmp, "b"))
        os.makedirs(os.path.join(tmp, "n"))
        os.makedirs(os.path.join(tmp, "c"))
        bir = run(trnsim, c["bir"], c["config"], files, c["outputs"], os.path.join(tmp, "b"))
        nat = run(trnsim, c["native"], c["config"], files, c["outputs"], os.path.join(tmp, "n"))
        same_bits(bir, nat, "BIR vs the native equivalent")
        conv = os.path.join(tmp, "converted.json")
        text = convert(trnsim, c["bir"], c["config"], conv)
        again = convert(trnsim, conv, c["config"], os.path.join(tmp, "again.json"))
        if again != text:
            sys.exit("FAIL: converting the converted program changed it")
        back = run(trnsim, conv, c["config"], files, c["outputs"], os.path.join(tmp, "c"))
        same_bits(bir, back, "BIR vs its conversion")
        if c.get("oracle"):
            c["oracle"](arrays, bir)
    print(f"ok: {case}: BIR, native equivalent and conversion agree bit for bit ({', '.join(c['outputs'])})")


if __name__ == "__main__":
    main()
