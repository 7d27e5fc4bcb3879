#!/usr/bin/python3
"""TopK-32 in four rounds of Max / MaxIndexAndMatchReplace, each round's 8
values and indices copied into `values` / `indices` at offset 8*round. As
written it matches numpy; with the last round's values copy moved from offset
24 to 32 it would write into the neighbouring `indices` tensor, which `check`
and `run` both refuse with the same one-line message and no output left.
Usage: topk_tensor_bounds.py TRNSIM CONFIG"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

trnsim, cfg = sys.argv[1], sys.argv[2]
P, N, K = 2, 64, 32
rng = np.random.default_rng(12)
x = rng.permutation(P * N).astype(np.float32).reshape(P, N) * np.float32(0.5) - np.float32(20)  # distinct


def program(last_offset):
    ins = [{"opcode": "TensorCopy", "inputs": ["x"], "outputs": ["work"]}]
    for r in range(K // 8):
        off = last_offset if r == K // 8 - 1 else 8 * r
        ins += [{"opcode": "Max", "inputs": ["work"], "outputs": ["v"]},
                {"opcode": "MaxIndexAndMatchReplace", "inputs": ["v", "work"], "outputs": ["work", "i"],
                 "imm_value": "-inf"},
                {"opcode": "TensorCopy", "inputs": ["v"], "outputs": [{"tensor": "values", "offset": off, "ap": [[1, 8]]}]},
                {"opcode": "TensorCopy", "inputs": ["i"], "outputs": [{"tensor": "indices", "offset": 8 * r, "ap": [[1, 8]]}]}]
    return {"tensors": [
        {"name": "x", "memory": "sbuf", "dtype": "float32", "shape": [P, N], "data": x.ravel().tolist()},
        {"name": "work", "memory": "sbuf", "dtype": "float32", "shape": [P, N]},
        {"name": "v", "memory": "sbuf", "dtype": "float32", "shape": [P, 8]},
        {"name": "i", "memory": "sbuf", "dtype": "uint32", "shape": [P, 8]},
        {"name": "values", "memory": "sbuf", "dtype": "float32", "shape": [P, K]},
        {"name": "indices", "memory": "sbuf", "dtype": "uint32", "shape": [P, K]}], "instructions": ins}


def run(*args, rc):
    r = subprocess.run([trnsim, *args, "--config", cfg], capture_output=True, text=True, timeout=60)
    assert r.returncode == rc, f"{args}: exit {r.returncode}\n{r.stdout}\n{r.stderr}"
    return r


with tempfile.TemporaryDirectory() as d:
    good, bad = os.path.join(d, "good.json"), os.path.join(d, "bad.json")
    json.dump(program(24), open(good, "w"))
    json.dump(program(32), open(bad, "w"))
    v, i = os.path.join(d, "v.npy"), os.path.join(d, "i.npy")
    run("run", good, "--output", f"values={v}", "--output", f"indices={i}", rc=0)
    want_i = np.argsort(-x, axis=1, kind="stable")[:, :K]
    assert np.array_equal(np.load(v), np.take_along_axis(x, want_i, axis=1)), np.load(v)
    assert np.array_equal(np.load(i), want_i.astype(np.uint32)), np.load(i)
    os.remove(v)
    os.remove(i)
    # values: bytes 640..767 of each partition, indices from byte 768 (64-byte aligned placement)
    msg = (f"{bad}: instruction 15 (opcode TensorCopy/23, family dma), outputs[0]: leaves tensor 'values': element 0 "
           "(partition 0, bytes 768..771, inside tensor 'indices') is outside the tensor, which holds partitions 0..1 "
           "of sbuf, bytes 640..767")
    for cmd in (["check", bad], ["run", bad, "--output", f"values={v}", "--output", f"indices={i}"]):
        r = run(*cmd, rc=1)
        lines = r.stderr.splitlines()
        assert len(lines) == 1 and msg in lines[0], r.stderr
        assert "declare a view (\"view_of\") or use a raw memory operand" in lines[0], lines[0]
    assert sorted(os.listdir(d)) == ["bad.json", "good.json"], os.listdir(d)
print("ok: TopK-32 matches numpy; an output moved onto the neighbouring tensor is refused by check and run alike")
