#!/usr/bin/python3
"""Writes the programs and expected .npy files of tests/host/programs.
Expected values come from numpy and an integer RNE formula, not from trnsim."""
import json
import numpy as np

X = [1.00390625, 1.01171875, 3.14159, -2.5, 1e-3, 65504.0, 0.1, 100.5]


def bf16_rne(a):
    """fp32 -> bf16 -> fp32 by integer round-to-nearest-even on the bits."""
    u = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    r = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return (r.astype(np.uint32) << 16).view(np.float32)


def save(name, obj):
    with open(name, "w") as f:
        json.dump(obj, f, indent=1)


x_t = {"name": "x", "memory": "sbuf", "dtype": "float32", "shape": [2, 4], "data": X}
y_t = {"name": "y", "memory": "sbuf", "dtype": "bfloat16", "shape": [2, 4]}
save("copy.json", {"tensors": [x_t, y_t], "instructions": [{"opcode": "TestCopy", "inputs": ["x"], "outputs": ["y"]}]})
np.save("copy_y.npy", bf16_rne(np.array(X, np.float32)).reshape(2, 4))

save("fail_late.json", {"tensors": [x_t, y_t], "instructions": [
    {"opcode": "TestCopy", "inputs": ["x"], "outputs": ["y"]},
    {"opcode": "TestFail", "message": "late failure"}]})

save("deadlock.json", {"cores": 2, "tensors": [], "instructions": [
    {"opcode": "TestRendezvous"}, {"opcode": "TestWaitForever"}]})

save("needs_bn.json", {"tensors": [x_t], "instructions": [{"opcode": "BNStats", "inputs": ["x"], "outputs": ["x"]}]})

with open("bad_syntax.json", "w") as f:
    f.write('{\n "tensors": [],\n "instructions": [\n  {"opcode": 200,, "inputs": []}\n ]\n}\n')

save("oob.json", {"tensors": [x_t], "instructions": [
    {"opcode": "TestRegs", "reg": 0, "value": 49150},
    {"opcode": "TestCopy", "inputs": [{"tensor": "x", "partitions": 1}],
     "outputs": [{"memory": "sbuf", "dtype": "float32", "ap": [[1, 4]], "offset_register": 0}]}]})

save("uninit.json", {"tensors": [{"name": "x", "memory": "sbuf", "dtype": "float32", "shape": [2, 4]}, y_t],
                     "instructions": [{"opcode": "TestCopy", "inputs": ["x"], "outputs": ["y"]}]})

save("skip.json", {"tensors": [x_t, y_t], "instructions": [
    {"opcode": "TestCopy", "inputs": ["x"], "outputs": ["y"]}, {"opcode": "Rng"}]})

save("rendezvous.json", {"cores": 2, "tensors": [
    {"name": "x", "memory": "sbuf", "dtype": "float32", "shape": [1, 3], "data_per_core": [[1, 2, 3], [4, 5, 6]]},
    {"name": "y", "memory": "sbuf", "dtype": "float32", "shape": [1, 3]}],
    "instructions": [{"opcode": "TestRendezvous"}, {"opcode": "TestCopy", "inputs": ["x"], "outputs": ["y"]}]})
np.save("rendezvous_y.npy", np.array([[[1, 2, 3]], [[4, 5, 6]]], np.float32))

save("io.json", {"tensors": [{"name": "x", "memory": "sbuf", "dtype": "float32", "shape": [2, 3]},
                             {"name": "y", "memory": "psum", "dtype": "float16", "shape": [2, 3]}],
                 "instructions": [{"opcode": "TestCopy", "inputs": ["x"], "outputs": ["y"]}]})
xi = np.array([[0.1, -1e-5, 65519.0], [65520.0, 3.0e-8, -7.75]], np.float32)
np.save("io_x.npy", xi)
np.save("io_y.npy", xi.astype(np.float16))
