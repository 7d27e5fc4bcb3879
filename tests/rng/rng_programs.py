#!/usr/bin/python3
"""Run an RNG program through trnsim and check every tensor it holds
against rng_ref.py's model of the same program.

    rng_programs.py --trnsim BIN [--config CFG] PROGRAM.json [--cores N]

The model interprets the program's RNG instructions (GetRandState/2,
SetRandState/2, Rand, Rand2, and Rng as a skipped no-op) on whole tensors
or operand objects with partition / partitions / partition_step, then every
tensor that has data or is written is requested with --output and compared
bit for bit. --cores N reruns the program with "cores": N and requires
every core's slice to equal the model's single-core result (the same seed
gives the same stream on every core). --trace-has TEXT (repeatable) runs
with --trace-text and requires TEXT in the trace (stderr).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rng_ref  # noqa: E402

NAMES = {58: "GetRandState", 59: "SetRandState", 60: "Rand", 97: "Rand2", 98: "GetRandState2",
         99: "SetRandState2", 100: "Rng"}
DTYPES = {"uint32": np.uint32, "float32": np.float32, "int32": np.int32}


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


class Tensor:
    def __init__(self, d, cores, core):
        self.name, self.memory = d["name"], d["memory"]
        self.dtype = DTYPES[d["dtype"].lower()]
        self.shape = d["shape"]
        if self.memory == "hbm":
            self.parts, self.base = 1, 0
        else:
            self.parts, self.base = self.shape[0], d.get("partition", 0)
        self.free = int(np.prod(self.shape)) // self.parts
        self.known = True
        self.rows_written = set(range(self.parts))
        if "data" in d:
            v = np.array(d["data"], dtype=np.float64)
        elif "data_per_core" in d:
            v = np.array(d["data_per_core"][core], dtype=np.float64)
        elif "fill" in d:
            v = np.full(self.parts * self.free, float(d["fill"]))
        else:
            v, self.known = np.zeros(self.parts * self.free), False
            self.rows_written = set()
        self.val = v.astype(self.dtype).reshape(self.parts, self.free)

    def view(self, op):
        """(rows of self.val, engine partitions) an operand visits."""
        if isinstance(op, str):
            rows = list(range(self.parts))
        else:
            first, step = op.get("partition", 0), op.get("partition_step", 1)
            count = op.get("partitions", self.parts - first)
            rows = [first + i * step for i in range(count)]
        engine = [0 if self.memory == "hbm" else self.base + r for r in rows]
        return rows, engine

    def partial(self):
        """Written, but some rows never: they go out as zeros only with
        --output-unwritten=zeros."""
        return self.known and len(self.rows_written) < self.parts


def model(prog, core, cores):
    ts = {d["name"]: Tensor(d, cores, core) for d in prog["tensors"]}
    eng = rng_ref.Engine(128)
    for ins in prog["instructions"]:
        op = ins["opcode"]
        op = NAMES.get(op, op)
        outs = [(ts[o if isinstance(o, str) else o["tensor"]], o) for o in ins.get("outputs", [])]
        ins_ = [(ts[o if isinstance(o, str) else o["tensor"]], o) for o in ins.get("inputs", [])]
        if op == "Rng":
            continue
        engine = ins.get("engine", 5 if op.endswith("2") and "State" in op else 1)
        if op == "Rand":
            t, o = outs[0]
            rows, parts = t.view(o)
            for r, p in zip(rows, parts):  # partition by partition: a revisit continues the stream
                t.val[r] = eng.rand(ins["algorithm"], [p], t.free)[0]
            t.known = True
            t.rows_written.update(rows)
        elif op == "Rand2":
            t, o = outs[0]
            rows, parts = t.view(o)
            nl = 4 if ins.get("is_4x2p") else 2 if (ins.get("is_2x1p") or ins.get("is_2x2p")) else 1
            for r, p in zip(rows, parts):
                t.val[r] = eng.rand2([p], t.free, ins.get("min", 0.0), ins.get("max", 1.0), nl)[0]
            t.known = True
            t.rows_written.update(rows)
        elif op.startswith("GetRandState"):
            t, o = outs[0]
            rows, parts = t.view(o)
            t.val[rows] = eng.get1(parts) if engine == 1 else eng.get2(parts)
            t.known = True
            t.rows_written.update(rows)
        elif op.startswith("SetRandState"):
            if "seed" in ins:
                seed = ins["seed"]
                if isinstance(seed, list):
                    eng.seed_wire(seed)
                else:
                    eng.seed_scalar(int(seed, 0) if isinstance(seed, str) else seed)
            else:
                t, o = ins_[0]
                rows, parts = t.view(o)
                for r, p in zip(rows, parts):
                    (eng.set1 if engine == 1 else eng.set2)(p, [int(x) for x in t.val[r]])
        else:
            fail(f"the model does not know opcode {op}")
    return ts


def run(trnsim, config, prog, outdir, names, trace_has=(), zeros=False):
    path = os.path.join(outdir, "prog.json")
    with open(path, "w") as f:
        json.dump(prog, f)
    cmd = [trnsim, "run", path]
    if config:
        cmd += ["--config", config]
    for n in names:
        cmd += ["--output", f"{n}={os.path.join(outdir, n + '.npy')}"]
    if trace_has:
        cmd.append("--trace-text")
    if zeros:  # rows the program leaves unwritten are compared as zeros
        cmd.append("--output-unwritten=zeros")
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        fail(f"trnsim exited {r.returncode}:\n{r.stderr}")
    for text in trace_has:
        if text not in r.stderr:
            fail(f"the trace lacks {text!r}:\n{r.stderr}")
        print(f"ok: the trace has {text!r}")
    return {n: np.load(os.path.join(outdir, n + ".npy")) for n in names}


def same_bits(name, got, want):
    if got.dtype != want.dtype or got.shape != want.shape:
        fail(f"{name}: got {got.dtype}{got.shape}, expected {want.dtype}{want.shape}")
    if got.tobytes() != want.tobytes():
        g, w = got.reshape(-1).view(np.uint32), want.reshape(-1).view(np.uint32)
        bad = np.nonzero(g != w)[0]
        fail(f"{name}: {len(bad)} of {g.size} elements differ, first at {bad[0]}: "
             f"got {g[bad[0]]:#x}, expected {w[bad[0]]:#x}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trnsim", required=True)
    ap.add_argument("--config")
    ap.add_argument("program")
    ap.add_argument("--cores", type=int)
    ap.add_argument("--trace-has", action="append", default=[])
    a = ap.parse_args()
    prog = json.load(open(a.program))
    cores = prog.get("cores", 1)
    models = [model(prog, k, cores) for k in range(cores)]
    names = [n for n, t in models[0].items() if t.known]
    zeros = any(models[0][n].partial() for n in names)
    with tempfile.TemporaryDirectory(prefix="rngprog-") as out:
        got = run(a.trnsim, a.config, prog, out, names, a.trace_has, zeros)
        for n in names:
            want = np.stack([m[n].val.reshape(m[n].shape) for m in models]) if cores > 1 else \
                models[0][n].val.reshape(models[0][n].shape)
            same_bits(n, got[n], want)
            print(f"ok: {n} {want.dtype}{list(want.shape)} matches the model")
        if a.cores:
            if cores != 1:
                fail("--cores needs a 1-core program")
            multi = dict(prog, cores=a.cores)
            got4 = run(a.trnsim, a.config, multi, out, names, zeros=zeros)
            for n in names:
                if got4[n].shape[0] != a.cores:
                    fail(f"{n}: expected a leading core axis of {a.cores}, got {got4[n].shape}")
                for k in range(a.cores):
                    same_bits(f"{n}@core{k}", got4[n][k], got[n])
                print(f"ok: {n}: all {a.cores} cores equal the 1-core run")


if __name__ == "__main__":
    main()
