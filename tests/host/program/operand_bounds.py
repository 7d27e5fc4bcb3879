#!/usr/bin/python3
"""Operands stay inside their tensor (docs/programs.md, "Operands"): an
operand that names a tensor and leaves it is refused -- by check and run
alike when the offsets are static, at the execution when they are dynamic --
with one line naming the operand, the tensor, the first element outside and
the tensor's extent, and no output left. Deliberate overlaps go through a
view (view_of) or raw memory. The uninitialised-read error names the tensor
and element and says how to give it data.
Usage: operand_bounds.py TRNSIM PROGRAMS_DIR"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

trnsim, progs = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
cfg = f"{progs}/test.cfg"
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from clicase import Cli, case, finish, one_line_error  # noqa: E402

run = Cli(trnsim, "--config", cfg).run

X = [float(v) for v in range(1, 9)]  # x: [2, 4] float32, 1..8
T_X = {"name": "x", "memory": "sbuf", "dtype": "float32", "shape": [2, 4], "data": X}      # bytes 0..15
T_Y = {"name": "y", "memory": "sbuf", "dtype": "float32", "shape": [2, 4], "fill": 0}      # bytes 64..79
T_Z = {"name": "z", "memory": "sbuf", "dtype": "float32", "shape": [2, 4], "fill": -1}     # bytes 128..143


def write(d, tensors, instructions):
    p = os.path.join(d, "p.json")
    with open(p, "w") as f:
        json.dump({"tensors": tensors, "instructions": instructions}, f)
    return p


def refused(d, tensors, instructions, *needles, output="y"):
    """check and run give the same one line; run leaves no output."""
    p = write(d, tensors, instructions)
    a = one_line_error(run("check", p, rc=1), *needles)
    out = os.path.join(d, "out.npy")
    b = one_line_error(run("run", p, "--output", f"{output}={out}", rc=1), *needles)
    assert a == b, f"check and run differ:\n{a}\n{b}"
    assert sorted(os.listdir(d)) == ["p.json"], os.listdir(d)
    return a


def copy(inp, out):
    return {"opcode": "TestCopy", "inputs": [inp], "outputs": [out]}


def output_into_neighbour(d):
    # y's second partition written at offset 4: elements 4..7 of partition 1
    # are bytes 80..95, past y's 16 bytes per partition (64..79).
    msg = refused(d, [T_X, T_Y, T_Z], [copy({"tensor": "x", "partitions": 1}, {"tensor": "y", "partition": 1, "partitions": 1, "offset": 4})],
                  "instruction 0 (opcode TestCopy/200, family test), outputs[0]: leaves tensor 'y': element 0 "
                  "(partition 1, bytes 80..83) is outside the tensor, which holds partitions 0..1 of sbuf, bytes 64..79",
                  "declare a view (\"view_of\") or use a raw memory operand")
    assert "inside tensor" not in msg, msg  # the gap between y and z belongs to nobody
    # far enough to land in z: named
    refused(d, [T_X, T_Y, T_Z], [copy({"tensor": "x", "partitions": 1}, {"tensor": "y", "partitions": 1, "offset": 16})],
            "outputs[0]: leaves tensor 'y': element 0 (partition 0, bytes 128..131, inside tensor 'z')")


def input_overrun_and_partitions(d):
    # an AP of 6 where the tensor has 4 per partition: the 5th element is the first outside
    refused(d, [T_X, T_Y], [copy({"tensor": "x", "partitions": 1, "ap": [[1, 6]]}, {"memory": "sbuf", "dtype": "float32", "partition": 0, "offset": 64, "ap": [[1, 6]]})],
            "inputs[0]: leaves tensor 'x': element 4 (partition 0, bytes 16..19) is outside the tensor, which holds "
            "partitions 0..1 of sbuf, bytes 0..15")
    # partitions 1..2 of a 2-partition tensor: element 4 is the first of partition 2
    refused(d, [T_X, T_Y], [copy({"tensor": "x", "partition": 1, "partitions": 2}, {"memory": "sbuf", "dtype": "float32", "partitions": 2, "offset": 64, "ap": [[1, 4]]})],
            "inputs[0]: leaves tensor 'x': element 4 (partition 2, bytes 0..3) is outside the tensor, which holds "
            "partitions 0..1 of sbuf")
    # a negative step walking before the tensor's first byte
    refused(d, [T_Y, T_X], [copy({"tensor": "x", "partitions": 1, "offset": 1, "ap": [[-1, 4]]}, {"tensor": "y", "partitions": 1})],
            "inputs[0]: leaves tensor 'x': element 2 (partition 0, bytes 60..63) is outside the tensor, which holds "
            "partitions 0..1 of sbuf, bytes 64..79")
    # hbm: flat, no partitions in the extent
    hx = {"name": "hx", "memory": "hbm", "dtype": "float32", "shape": [4], "data": X[:4]}
    hy = {"name": "hy", "memory": "hbm", "dtype": "float32", "shape": [4]}
    refused(d, [hx, hy], [copy({"tensor": "hx", "ap": [[1, 5]]}, {"memory": "hbm", "dtype": "float32", "offset": 16, "ap": [[1, 5]]})],
            "inputs[0]: leaves tensor 'hx': element 4 (partition 0, bytes 16..19) is outside the tensor, which holds "
            "hbm, bytes 0..15", output="hy")


def inside_is_fine(d):
    """Reinterpreting the dtype counts bytes, not elements; a strided AP inside passes."""
    b = {"name": "b", "memory": "sbuf", "dtype": "bfloat16", "shape": [2, 8], "fill": 0}
    p = write(d, [T_X, b], [copy({"tensor": "x", "ap": [[2, 2]]}, {"tensor": "b", "dtype": "float32", "ap": [[1, 2]]})])
    assert run("check", p).returncode == 0
    out = os.path.join(d, "b.npy")
    run("run", p, "--output", f"b={out}", "--raw-bits")
    bits = np.load(out).view(np.uint16).reshape(2, 8)
    got = bits[:, :4].copy().view(np.float32)  # the float32 view of b's first 8 bytes
    assert np.array_equal(got, np.array([[1, 3], [5, 7]], np.float32)), got
    assert not bits[:, 4:].any()


def view_of(d):
    """A view over y and z reaches both through one operand, deliberately."""
    both = {"name": "yz", "view_of": "y", "dtype": "float32", "shape": [2, 36]}  # bytes 64..207: y, the gap, z
    p = write(d, [T_X, T_Y, T_Z, both], [copy({"tensor": "x"}, {"tensor": "yz", "offset": 2, "ap": [[1, 4]]}),
                                          copy({"tensor": "x"}, {"tensor": "yz", "offset": 16, "ap": [[1, 4]]})])
    assert run("check", p).returncode == 0
    oy, oz = os.path.join(d, "y.npy"), os.path.join(d, "z.npy")
    run("run", p, "--output", f"y={oy}", "--output", f"z={oz}")
    x = np.array(X, np.float32).reshape(2, 4)
    assert np.array_equal(np.load(oy), np.hstack([np.zeros((2, 2), np.float32), x[:, :2]])), np.load(oy)
    assert np.array_equal(np.load(oz), x), np.load(oz)
    os.remove(oy)
    os.remove(oz)
    # the view's own extent still bounds its operands
    refused(d, [T_X, T_Y, T_Z, both], [copy({"tensor": "x"}, {"tensor": "yz", "offset": 34, "ap": [[1, 4]]})],
            "outputs[0]: leaves tensor 'yz': element 2 (partition 0, bytes 208..211) is outside the tensor, which "
            "holds partitions 0..1 of sbuf, bytes 64..207")
    for bad, msg in [({"name": "v", "view_of": "nope", "dtype": "float32", "shape": [2, 4]},
                      "tensor 'v': 'view_of' must name a tensor declared before it"),
                     ({"name": "v", "view_of": "y", "memory": "hbm", "dtype": "float32", "shape": [4]},
                      "tensor 'v': a view of 'y' must be in its memory (sbuf)"),
                     ({"name": "v", "view_of": "y", "dtype": "float32", "shape": [2, 4], "offset": 2},
                      "tensor 'v': starts at byte 66 (view_of 'y' + offset 2), not a multiple of the 4-byte dtype"),
                     ({"name": "v", "view_of": "y", "dtype": "float32", "shape": [2, 60000]},
                      "tensor 'v': needs bytes 64..240063 of sbuf, which has 196608 per partition"),
                     ({"name": "v", "view_of": "y", "partition": 127, "dtype": "float32", "shape": [2, 4]},
                      "tensor 'v': partitions 127..128 exceed the machine's 128")]:
        p = write(d, [T_X, T_Y, bad], [])
        one_line_error(run("check", p, rc=1), msg)
    # a view takes no bytes: the next tensor is placed as if it were not there
    tail = {"name": "t", "memory": "sbuf", "dtype": "float32", "shape": [2, 4]}
    p = write(d, [T_X, T_Y, both, tail], [copy({"tensor": "x"}, {"tensor": "t", "offset": 4})])
    one_line_error(run("check", p, rc=1), "leaves tensor 't': element 0 (partition 0, bytes 144..147, inside tensor 'yz') "
             "is outside the tensor, which holds partitions 0..1 of sbuf, bytes 128..143")


def raw_memory_may_cross(d):
    p = write(d, [T_X, T_Y, T_Z], [copy({"tensor": "x", "partitions": 1}, {"memory": "sbuf", "dtype": "float32", "offset": 30, "ap": [[1, 4]]})])
    oy, oz = os.path.join(d, "y.npy"), os.path.join(d, "z.npy")
    run("run", p, "--output", f"y={oy}", "--output", f"z={oz}")  # elements 30..33 = bytes 120..135: the gap and z
    assert np.array_equal(np.load(oz)[0], np.array([3, 4, -1, -1], np.float32)), np.load(oz)


def dynamic_offset_and_sub(d):
    """Offsets known only when running are checked at the execution."""
    ins = [{"opcode": "TestRegs", "reg": 3, "value": 1},
           copy({"tensor": "x", "partitions": 1}, {"tensor": "y", "partitions": 1, "offset_register": 3})]
    p = write(d, [T_X, T_Y], ins)
    assert run("check", p).returncode == 0  # nothing static is wrong
    out = os.path.join(d, "y.npy")
    one_line_error(run("run", p, "--output", f"y={out}", rc=1),
             "instruction 1 (core 0, opcode TestCopy/200, family test): outputs[0]: leaves tensor 'y': element 3 "
             "(partition 0, bytes 80..83)")
    assert not os.path.exists(out)
    sub = {"opcode": "TestSub", "body": [copy({"tensor": "x", "partitions": 1}, {"tensor": "y", "partitions": 1, "offset": 2})]}
    p = write(d, [T_X, T_Y], [sub])
    one_line_error(run("run", p, "--output", f"y={out}", rc=1), "sub-instruction (opcode TestCopy/200): outputs[0]: leaves "
             "tensor 'y': element 2 (partition 0, bytes 80..83)")
    assert not os.path.exists(out)


def uninit_names_tensor(d):
    u = {"name": "u", "memory": "sbuf", "dtype": "float32", "shape": [2, 4]}
    p = write(d, [T_X, u, T_Y], [copy({"tensor": "u", "partition": 1, "partitions": 1}, {"tensor": "y", "partitions": 1})])
    out = os.path.join(d, "y.npy")
    line = one_line_error(run("run", p, "--output", f"y={out}", rc=1),
                    "reads never-written sbuf bytes at partition 1, byte offset 64, element 4 [1, 0] of tensor 'u'; "
                    "give the tensor data with --input u=FILE.npy, or 'data' or 'fill' in the program, or write it first "
                    "(allow_uninit_read = true allows such reads)")
    assert line.index("--input") < line.index("allow_uninit_read"), line
    assert not os.path.exists(out)
    # bytes no tensor holds: named by address only
    p = write(d, [T_X, T_Y], [copy({"memory": "sbuf", "dtype": "float32", "offset": 8, "ap": [[1, 4]]}, {"tensor": "y", "partitions": 1})])
    one_line_error(run("run", p, rc=1), "reads never-written sbuf bytes at partition 0, byte offset 32 (write them first, or "
             "set allow_uninit_read to allow)")


CASES = [("output into a neighbour", output_into_neighbour), ("inputs, partitions, steps, hbm", input_overrun_and_partitions),
         ("inside passes", inside_is_fine), ("view_of", view_of), ("raw memory may cross", raw_memory_may_cross),
         ("dynamic offsets and sub-instructions", dynamic_offset_and_sub), ("uninitialised read names the tensor", uninit_names_tensor)]
for name, fn in CASES:
    case(name, fn)
sys.exit(finish())
