#!/usr/bin/python3
"""Common mistakes that once ran silently or passed `check`: each must be one
clear error line, the same from `trnsim run` and `trnsim check`, with no
output file left behind.

    mistakes.py --trnsim BIN FAMILY

runs the cases of FAMILY (a family of the build, or "host" for the ones
that need no family). Every case states the exact message expected.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

CASES = {}


def case(family):
    def add(fn):
        CASES.setdefault(family, []).append(fn)
        return fn
    return add


def tensor(name, shape, dtype="float32", memory="sbuf", **kw):
    t = {"name": name, "memory": memory, "dtype": dtype, "shape": list(shape)}
    t.update(kw)
    return t


def prog(tensors, insts, cores=1):
    return {"cores": cores, "tensors": tensors, "instructions": insts}


class Fail(Exception):
    pass


def refused(trnsim, program, output, message):
    """Both `run` (asking for `output`) and `check` fail with exactly
    'trnsim: PROG: ' + message, one line, and run leaves no output file."""
    with tempfile.TemporaryDirectory(prefix="mistake-") as d:
        p = os.path.join(d, "prog.json")
        with open(p, "w") as f:
            json.dump(program, f)
        want = f"trnsim: {p}: {message}"
        out = os.path.join(d, "out.npy")
        for cmd in ([trnsim, "run", p, "--output", f"{output}={out}"], [trnsim, "check", p]):
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
            lines = r.stderr.strip().splitlines()
            if r.returncode == 0:
                raise Fail(f"{cmd[1]} succeeded; expected: {want}")
            if lines != [want]:
                raise Fail(f"{cmd[1]}: expected exactly\n  {want}\ngot\n  " + "\n  ".join(lines))
            if os.listdir(d) != ["prog.json"]:
                raise Fail(f"{cmd[1]} left files behind: {sorted(os.listdir(d))}")
        print(f"  refused by run and check: {message}")


# ---- misspelled attributes ------------------------------------------------------

@case("collective")
def replica_group_singular(trnsim):
    x, y = tensor("x", (1, 4), fill=1), tensor("y", (1, 4))
    refused(trnsim, prog([x, y], [{"opcode": "CollectiveCompute", "kind": "AllReduce", "reduce_op": "add",
                                   "replica_group": [[0, 1], [2, 3]], "inputs": ["x"], "outputs": ["y"]}], cores=4),
            "y", "instruction 0 (opcode CollectiveCompute/48, family collective): unknown attribute 'replica_group' "
                 "for CollectiveCompute; did you mean 'replica_groups'?")


@case("rng")
def rand2_low_high(trnsim):
    r = tensor("r", (2, 8))
    for key in ("low", "high"):
        refused(trnsim, prog([r], [{"opcode": "Rand2", key: 5, "outputs": ["r"]}]), "r",
                f"instruction 0 (opcode Rand2/97, family rng): unknown attribute '{key}' for Rand2 (its attributes: "
                "min, max, is_2x1p, is_2x2p, is_4x2p)")


@case("bn")
def apply_transpos(trnsim):
    x, st = tensor("x", (32, 32), fill=1), tensor("st", (32, 6))
    refused(trnsim, prog([x, st], [{"opcode": "BNStats", "apply_transpos": True, "inputs": ["x"], "outputs": ["st"]}]),
            "st", "instruction 0 (opcode BNStats/34, family bn): unknown attribute 'apply_transpos' for BNStats; "
                  "did you mean 'apply_transpose'?")


@case("search")
def imm_vale(trnsim):
    v, d, o = tensor("v", (1, 8), fill=1), tensor("d", (1, 16), fill=1), tensor("o", (1, 16))
    refused(trnsim, prog([v, d, o], [{"opcode": "MatchReplace", "imm_vale": -1, "imm_value": 0,
                                      "inputs": ["v", "d"], "outputs": ["o"]}]),
            "o", "instruction 0 (opcode MatchReplace/90, family search): unknown attribute 'imm_vale' for "
                 "MatchReplace; did you mean 'imm_value'?")


# ---- wrong keys and names -------------------------------------------------------

@case("search")
def input_key(trnsim):
    d, v = tensor("d", (1, 16), fill=1), tensor("v", (1, 8))
    refused(trnsim, prog([d, v], [{"opcode": "Max", "input": ["d"], "outputs": ["v"]}]), "v",
            "instruction 0 (opcode Max/88, family search): unknown instruction key 'input' for Max; did you mean "
            "'inputs'?")


@case("search")
def opcode_case(trnsim):
    d, v = tensor("d", (1, 16), fill=1), tensor("v", (1, 8))
    refused(trnsim, prog([d, v], [{"opcode": "max", "inputs": ["d"], "outputs": ["v"]}]), "v",
            "instruction 0 (opcode max): unknown opcode name 'max'; did you mean 'Max'? (names are case-sensitive; trnsim "
            "opcodes lists the loaded ones)")


@case("host")
def unknown_opcode_far(trnsim):
    refused(trnsim, prog([tensor("v", (1, 8))], [{"opcode": "Frobnicate"}]), "v",
            "instruction 0 (opcode Frobnicate): unknown opcode name 'Frobnicate' (trnsim opcodes lists the loaded ones)")


# ---- what `check` used to pass --------------------------------------------------

@case("search")
def max_output_16_wide(trnsim):
    d, v = tensor("d", (2, 32), fill=1), tensor("v", (2, 16))
    refused(trnsim, prog([d, v], [{"opcode": "Max", "inputs": ["d"], "outputs": ["v"]}]), "v",
            "instruction 0 (core 0, opcode Max/88, family search): Max: output 0 (values) has 16 elements per "
            "partition; expected exactly 8")


@case("search")
def missing_imm_value(trnsim):
    v, d, o = tensor("v", (1, 8), fill=1), tensor("d", (1, 16), fill=1), tensor("o", (1, 16))
    refused(trnsim, prog([v, d, o], [{"opcode": "MatchReplace", "inputs": ["v", "d"], "outputs": ["o"]}]), "o",
            "instruction 0 (opcode MatchReplace/90, family search): MatchReplace needs the attribute 'imm_value' "
            "(the value written over each match (fp32, rounded to nearest even; \"-inf\" for TopK))")


@case("collective")
def reduce_scatter_four_cores(trnsim):
    x, y = tensor("x", (1, 8), fill=1), tensor("y", (1, 2))
    refused(trnsim, prog([x, y], [{"opcode": "CollectiveCompute", "kind": "ReduceScatter", "reduce_op": "add",
                                   "inputs": ["x"], "outputs": ["y"]}], cores=4),
            "y", "instruction 0 (core 0, opcode CollectiveCompute/48, family collective): ReduceScatter: multiple "
                 "LNCs aren't yet supported (the reference's rule): the group has 4 ranks in 1 group(s) but an LNC "
                 "has cores_per_lnc = 1 cores; use one group of exactly the cores of one LNC, or set multi_lnc = "
                 "\"allow\"")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trnsim", required=True)
    ap.add_argument("family")
    a = ap.parse_args()
    cases = CASES.get(a.family)
    if not cases:
        print(f"no cases for family {a.family!r}")
        return 1
    failed = 0
    for fn in cases:
        print(f"{fn.__name__}:")
        try:
            fn(a.trnsim)
        except Fail as e:
            print(f"FAIL {fn.__name__}: {e}")
            failed += 1
    print(f"{len(cases) - failed} of {len(cases)} cases passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
