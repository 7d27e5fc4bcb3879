#!/usr/bin/python3
"""Writes examples/quickstart.json: a [4 x 32] bf16 tensor in HBM is loaded
into SBUF (DMA, widened to fp32), one TopK-8 round runs on it (DVE search),
and BatchNorm statistics are aggregated per row (BN). Deterministic data."""
import json
import numpy as np

rng = np.random.default_rng(7)
x = np.round(rng.normal(0, 4, size=(4, 32)), 2).astype(np.float32)
x[1, 5] = x[1, 9]  # a tie: the earlier index wins
prog = {
    "comment": "README quick start: DMA load, one TopK-8 round, BatchNorm statistics",
    "tensors": [
        {"name": "x_hbm", "memory": "hbm", "dtype": "bfloat16", "shape": [4, 32], "data": [float(v) for v in x.ravel()]},
        {"name": "x", "memory": "sbuf", "dtype": "float32", "shape": [4, 32]},
        {"name": "top8", "memory": "sbuf", "dtype": "float32", "shape": [4, 8]},
        {"name": "idx8", "memory": "sbuf", "dtype": "uint32", "shape": [4, 8]},
        {"name": "rest", "memory": "sbuf", "dtype": "float32", "shape": [4, 32]},
        {"name": "st6", "memory": "sbuf", "dtype": "float32", "shape": [4, 6]},
        {"name": "stats", "memory": "sbuf", "dtype": "float32", "shape": [4, 2]},
    ],
    "instructions": [
        {"opcode": "Load", "inputs": ["x_hbm"], "outputs": ["x"]},
        {"opcode": "Max", "inputs": ["x"], "outputs": ["top8"]},
        {"opcode": "MaxIndexAndMatchReplace", "inputs": ["top8", "x"], "outputs": ["rest", "idx8"], "imm_value": "-inf"},
        {"opcode": "BNStats", "inputs": ["x"], "outputs": ["st6"]},
        {"opcode": "BNStatsAggregate", "inputs": ["st6"], "outputs": ["stats"]},
    ],
}
with open("quickstart.json", "w") as f:
    json.dump(prog, f, indent=1)
    f.write("\n")
