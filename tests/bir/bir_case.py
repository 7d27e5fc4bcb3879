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


def int_grid(rng, shape, scale=8):
    return (rng.integers(-1000, 1000, size=shape) / scale).astype(np.float32)


CASES = {
    "topk64": dict(bir="programs/topk64.bir.json", native="programs/topk64.native.json",
                   config="../../config/topk.cfg", inputs={"x": lambda r: int_grid(r, (8, 512))},
                   outputs=["values", "indices"], oracle=topk_oracle),
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
