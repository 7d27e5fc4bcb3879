#!/usr/bin/python3
"""trnsim diff compares the written-byte maps too: a module that writes
fewer bytes (here: a TestCopy that skips +0.0 elements, whose never-written
bytes read as the same zeros) is a difference at its first instruction,
naming the tensor, the element of the first byte only one side wrote and
which side wrote it; text, --json and --keep-going.

    diff_written.py TRNSIM TEST_MODULE_CONFIG SPARSE_MODULE"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
from clicase import Cli, case, finish  # noqa: E402

TRNSIM, CFG, SPARSE = sys.argv[1:4]
run = Cli(TRNSIM).run
SWAP = f"test={SPARSE}"


def program(d, x, y_data=None):
    """TestCopy x -> y, then y -> z (which may read bytes of y never written):
    y is never written before unless y_data."""
    y = {"name": "y", "memory": "sbuf", "dtype": "float32", "shape": [2, 3]}
    if y_data is not None:
        y["data"] = y_data
    path = os.path.join(d, "p.json")
    json.dump({"tensors": [{"name": "x", "memory": "sbuf", "dtype": "float32", "shape": [2, 3], "data": x}, y,
                           {"name": "z", "memory": "sbuf", "dtype": "float32", "shape": [2, 3]}],
               "instructions": [{"opcode": "TestCopy", "inputs": ["x"], "outputs": ["y"]},
                                {"opcode": "TestCopy", "inputs": ["y"], "outputs": ["z"], "allow_uninit_read": True}]},
              open(path, "w"))
    return path


X = [1, 2, 3, 4, 0, 5]  # element [1, 1] is +0.0: the sparse copy leaves it unwritten


def a_wrote_it(d):
    r = run("diff", program(d, X), "--config", CFG, "--against-module", SWAP, rc=1)
    expect = (
        "difference at instruction 0 (execution 0 on core 0): TestCopy (IT 200, family test)\n"
        "  operand:   outputs[0] (float32, 6 elements), tensor 'y': the written bytes differ\n"
        "  element:   [1, 1] of the operand, [1, 1] of tensor 'y' (its byte 0 first)\n"
        f"  A:         0x00000000 = 0, written  ({CFG})\n"
        f"  B:         0x00000000 = 0, never written  ({CFG} --against-module {SWAP})\n"
        "  ulp:       0\n"
        "  differing: 1 of 6 elements hold bytes one side wrote and the other did not\n")
    assert r.stdout == expect, r.stdout + "\n---\n" + expect
    assert r.stderr == "", r.stderr


def b_wrote_it(d):
    sparse_cfg = os.path.join(d, "sparse.cfg")
    open(sparse_cfg, "w").write(f'plugins = ( {{ family = "test"; module = "{SPARSE}"; }} );\n')
    prog = program(d, [0, 0, 7, 0, 0, 0])  # elements 0, 1, 3, 4, 5 unwritten by A
    r = run("diff", prog, "--config", sparse_cfg, "--against", CFG, "--json", rc=1)
    (x,) = json.loads(r.stdout)["differences"]
    assert (x["kind"], x["instruction"], x["operand"], x["tensor"], x["differing"], x["elements"]) == \
        ("written", 0, "outputs[0]", "y", 5, 6), x
    assert x["first"] == {"position": 0, "index": [0, 0], "tensor_index": [0, 0], "bits": ["0x00000000", "0x00000000"],
                          "values": [0, 0], "ulp": 0, "byte": 0, "written_by": "B"}, x


def keep_going(d):
    # B's y[1, 1] is never written, so its second copy skips it again: z differs too
    r = run("diff", program(d, X), "--config", CFG, "--against-module", SWAP, "--keep-going", rc=1)
    lines = r.stdout.splitlines()
    assert lines[1].split() == ["0", "0", "0", "TestCopy", "outputs[0]", "written", "1", "6", "[1,", "1]", "0"], lines
    assert lines[2].split() == ["1", "1", "0", "TestCopy", "outputs[0]", "written", "1", "6", "[1,", "1]", "0"], lines
    assert lines[-1] == "2 of 2 instructions differ, 2 elements in all", lines


def same_bytes_written(d):
    # no zero to skip: both write every byte
    r = run("diff", program(d, [1, 2, 3, 4, 5, 6]), "--config", CFG, "--against-module", SWAP)
    assert r.stdout.startswith("identical: 2 instructions"), r.stdout
    # a destination written before (y has data): the skipped element keeps its old,
    # written bytes, and the value comparison names it
    r = run("diff", program(d, X, y_data=[9] * 6), "--config", CFG, "--against-module", SWAP, "--json", rc=1)
    (x, *_) = json.loads(r.stdout)["differences"]
    assert (x["kind"], x["first"]["index"], x["first"]["values"]) == ("value", [1, 1], [0, 9]), x


def strided_output(d):
    # y[p, 1] and y[p, 3] through a step-2 access pattern: operand element [0, 1]
    # (x's +0.0) is y[0, 3], and only A wrote it
    path = os.path.join(d, "p.json")
    json.dump({"tensors": [{"name": "x", "memory": "sbuf", "dtype": "float32", "shape": [2, 2], "data": [1, 0, 3, 4]},
                           {"name": "y", "memory": "sbuf", "dtype": "float32", "shape": [2, 4]}],
               "instructions": [{"opcode": "TestCopy", "inputs": ["x"],
                                 "outputs": [{"tensor": "y", "partitions": 2, "ap": [[2, 2]], "offset": 1}]}]},
              open(path, "w"))
    r = run("diff", path, "--config", CFG, "--against-module", SWAP, "--json", rc=1)
    (x,) = json.loads(r.stdout)["differences"]
    assert (x["kind"], x["tensor"], x["differing"], x["elements"]) == ("written", "y", 1, 4), x
    assert (x["first"]["index"], x["first"]["tensor_index"], x["first"]["written_by"]) == ([0, 1], [0, 3], "A"), x


case("A wrote a byte B did not: text report", a_wrote_it)
case("a strided output: the element's place in the tensor", strided_output)
case("B wrote bytes A did not: --json", b_wrote_it)
case("--keep-going: every instruction whose written bytes differ", keep_going)
case("the same bytes written, or a value difference first", same_bytes_written)
sys.exit(finish())
