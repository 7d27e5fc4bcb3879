#!/usr/bin/env python3
"""Each family's fast module against its reference module, through the CLI.

    ref_diff.py --trnsim T --config CFG --family F --module M [--mutant] PROGRAM...

For every PROGRAM (a .json, or gen:NAME for a program this script writes
with a family's Python generator), runs

    trnsim diff PROGRAM --config CFG --against-module F=M --input ...

with the same adversarial data on both sides (NaN with payloads and both
signs, +-0, subnormals, +-Inf, the largest finite values, RNE ties, repeats,
plain random numbers) in every tensor the program does not fill itself.
Without --mutant every program must be identical (exit 0, "identical" on
stdout, nothing on stderr). With --mutant (a reference module with a planted
bug) at least one program must differ (exit 1, naming the differing
instruction), and none may be an error (exit 2).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)

NP_DTYPES = {
    "float32": np.float32, "float16": np.float16, "bfloat16": np.uint16, "int8": np.int8,
    "uint8": np.uint8, "int16": np.int16, "uint16": np.uint16, "int32": np.int32,
    "uint32": np.uint32, "int64": np.int64, "uint64": np.uint64, "float64": np.float64,
}


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


NANS = [0x7FC00000, 0xFFC00001, 0x7FA00000]
OTHER_SPECIALS = [0x7F800000, 0xFF800000, 0x00000000, 0x80000000, 0x00000001, 0x807FFFFF,
                  0x7F7FFFFF, 0xFF7FFFFF, 0x3F800000, 0x3F800001]
USE_NANS = True


def adversarial_f32(rng, n):
    """n float32 values: a special value in about one element of four."""
    bits = (NANS if USE_NANS else []) + OTHER_SPECIALS
    special = np.array(bits, dtype=np.uint32).view(np.float32)
    x = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)).astype(np.float32)
    pick = rng.random(n) < 0.25
    x[pick] = special[rng.integers(0, len(special), int(pick.sum()))]
    rep = rng.random(n) < 0.1  # repeated values: ties for Max / MatchReplace
    x[rep] = x[0]
    return x


def values_for(rng, dtype, shape):
    n = int(np.prod(shape))
    if dtype == "float32":
        return adversarial_f32(rng, n).reshape(shape)
    if dtype == "float16":
        return adversarial_f32(rng, n).astype(np.float16).reshape(shape)
    if dtype == "bfloat16":  # the high halves, with ties (low half 0x8000) in the fp32 it came from
        return (adversarial_f32(rng, n).view(np.uint32) >> 16).astype(np.uint16).reshape(shape)
    if dtype == "float64":
        return adversarial_f32(rng, n).astype(np.float64).reshape(shape)
    # integers: small non-negative values, valid as indices and counts
    return rng.integers(0, 4, n).astype(NP_DTYPES[dtype]).reshape(shape)


def gen_program(name, out_dir):
    """A program from a family's Python generator."""
    if name.startswith("search_topk"):
        sys.path.insert(0, os.path.join(TESTS, "search"))
        import search_programs
        prog = search_programs.topk_program(128, 512, in_place=name.endswith("inplace"))
    else:
        fail(f"unknown generated program {name}")
    path = os.path.join(out_dir, name + ".json")
    with open(path, "w") as f:
        json.dump(prog, f)
    return path


def inputs_for(prog, rng, out_dir, stem):
    args = []
    for t in prog.get("tensors", []):
        if "data" in t or "fill" in t or t.get("dtype") not in NP_DTYPES:
            continue
        path = os.path.join(out_dir, f"{stem}-{t['name']}.npy")
        np.save(path, values_for(rng, t["dtype"], tuple(t["shape"])))
        args += ["--input", f"{t['name']}={path}"]
    return args


def diff(a, program, out_dir, seed):
    with open(program) as f:
        prog = json.load(f)
    stem = os.path.splitext(os.path.basename(program))[0]
    cmd = [a.trnsim, "diff", program, "--config", a.config,
           "--against-module", f"{a.family}={a.module}"]
    cmd += inputs_for(prog, np.random.default_rng(seed), out_dir, stem)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    return cmd, p


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trnsim", required=True)
    ap.add_argument("--config", required=True)
    ap.add_argument("--family", required=True)
    ap.add_argument("--module", required=True)
    ap.add_argument("--mutant", action="store_true")
    ap.add_argument("--seed", type=int, default=31)
    ap.add_argument("--no-nan", action="store_true",
                    help="no NaN inputs (a family whose NaN payloads are not pinned, e.g. bn)")
    ap.add_argument("programs", nargs="+")
    a = ap.parse_args()
    global USE_NANS
    USE_NANS = not a.no_nan
    differed = 0
    with tempfile.TemporaryDirectory(prefix="trnsim-ref-") as tmp:
        for i, prog in enumerate(a.programs):
            path = gen_program(prog[4:], tmp) if prog.startswith("gen:") else prog
            cmd, p = diff(a, path, tmp, a.seed + i)
            shown = " ".join(cmd)
            if p.returncode == 2 or p.returncode not in (0, 1):
                fail(f"{shown}: exit {p.returncode}, an error\n{p.stdout}{p.stderr}")
            if p.returncode == 1:
                if not a.mutant:
                    fail(f"{shown}: the reference module differs\n{p.stdout}{p.stderr}")
                if "difference at instruction" not in p.stdout:
                    fail(f"{shown}: exit 1 without a difference report\n{p.stdout}{p.stderr}")
                differed += 1
                print(f"differs as planted: {os.path.basename(path)}\n{p.stdout}")
                continue
            if not p.stdout.startswith("identical") or p.stderr:
                fail(f"{shown}: exit 0 without 'identical'\n{p.stdout}{p.stderr}")
            print(f"identical: {os.path.basename(path)}")
    if a.mutant and not differed:
        fail(f"the planted bug in {a.module} was not found by any of {len(a.programs)} programs")
    print(f"ok: {len(a.programs)} programs, {differed} differing")


if __name__ == "__main__":
    main()
