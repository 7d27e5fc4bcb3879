#!/usr/bin/python3
"""Writes examples/topk64.json: iterative TopK-64 over [8 x 512] fp32 rows
(8 rounds of Max + MaxIndexAndMatchReplace, each round's 8 values and indices
copied into the result with TensorCopy). Needs only the dma and search
families (config/topk.cfg)."""
import json
import numpy as np

rows, cols, k = 8, 512, 64
rng = np.random.default_rng(64)
x = rng.integers(-1000, 1000, size=(rows, cols)).astype(np.float32) / 8  # many ties
tensors = [
    {"name": "x", "memory": "sbuf", "dtype": "float32", "shape": [rows, cols], "data": [float(v) for v in x.ravel()]},
    {"name": "work", "memory": "sbuf", "dtype": "float32", "shape": [rows, cols]},
    {"name": "v", "memory": "sbuf", "dtype": "float32", "shape": [rows, 8]},
    {"name": "i", "memory": "sbuf", "dtype": "uint32", "shape": [rows, 8]},
    {"name": "values", "memory": "sbuf", "dtype": "float32", "shape": [rows, k]},
    {"name": "indices", "memory": "sbuf", "dtype": "uint32", "shape": [rows, k]},
]
insts = [{"opcode": "TensorCopy", "inputs": ["x"], "outputs": ["work"]}]
for r in range(k // 8):
    insts += [
        {"opcode": "Max", "inputs": ["work"], "outputs": ["v"]},
        {"opcode": "MaxIndexAndMatchReplace", "inputs": ["v", "work"], "outputs": ["work", "i"], "imm_value": "-inf"},
        {"opcode": "TensorCopy", "inputs": ["v"], "outputs": [{"tensor": "values", "offset": 8 * r, "ap": [[1, 8]]}]},
        {"opcode": "TensorCopy", "inputs": ["i"], "outputs": [{"tensor": "indices", "offset": 8 * r, "ap": [[1, 8]]}]},
    ]
with open("topk64.json", "w") as f:
    json.dump({"comment": "iterative TopK-64: 8 rounds of Max-8 + MaxIndexAndMatchReplace", "tensors": tensors,
               "instructions": insts}, f, indent=1)
    f.write("\n")
