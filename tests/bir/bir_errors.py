#!/usr/bin/python3
"""Malformed BIR files: each gets exactly one error line naming the file,
the function, the block path, the instruction (number and BIR name), the
core and the opcode where there is one, and what was expected; the run
exits 1 and leaves no output file.

    bir_errors.py TRNSIM DIR"""
import copy
import json
import os
import subprocess
import sys
import tempfile

import numpy as np


def loop(f):
    return f["blocks"][0]["instructions"][1]


def max8(f):
    return loop(f)["blocks"][0]["instructions"][0]


def replace8(f):
    return loop(f)["blocks"][0]["instructions"][1]


def alloc(f, name):
    return next(a for a in f["allocations"] if a["name"] == name)


def set_(obj, key, value):
    obj[key] = value


def nest_loops(f, depth):
    body = f["blocks"][0]["instructions"]
    for d in reversed(range(depth)):
        body = [{"opcode": "Loop", "LoopAxis": {"name": f"l{d}", "lb": 0, "ub": 1, "stride": 1},
                 "blocks": [{"name": f"in{d}", "instructions": body}]}]
    f["blocks"][0]["instructions"] = body


def add_insts(f, *ops):
    for i, op in enumerate(ops):
        f["blocks"][0]["instructions"].append({"opcode": op, "name": f"extra{i}", "ins": [], "outs": []})


WHERE_MAX = "instruction 2 (function sg0000, block main/loop k/round, BIR name 'max8') (every core, opcode Max)"
CASES = [
    ("allocation kind", lambda f: set_(alloc(f, "work"), "kind", "Internl"),
     ["function sg0000, allocation 'work': unknown kind 'Internl'", "did you mean 'Internal'?"]),
    ("argument kind", lambda f: set_(max8(f)["ins"][0], "kind", "physical_app"),
     [WHERE_MAX, "ins[0]: unknown argument kind 'physical_app'", "did you mean 'physical_ap'?"]),
    ("dangling memref", lambda f: set_(max8(f)["ins"][0], "memref", "wrk_loc"),
     [WHERE_MAX, "ins[0]: memref 'wrk_loc' is not a memory location of allocation 'work' (its location is 'work_loc')"]),
    ("dangling memsetref", lambda f: set_(max8(f)["ins"][0], "memsetref", "wrk"),
     [WHERE_MAX, "ins[0]: memsetref 'wrk' names no allocation of function sg0000; "
      "did you mean 'work'?"]),
    ("missing memsetref", lambda f: max8(f)["ins"][0].pop("memsetref"),
     [WHERE_MAX, "ins[0]: 'memsetref' is missing (the allocation)"]),
    ("missing ap", lambda f: max8(f)["ins"][0].pop("ap"),
     [WHERE_MAX, "ins[0]: 'ap' is missing (a list of [step, num] pairs)"]),
    ("missing regref", lambda f: max8(f)["outs"][0].pop("regref"),
     [WHERE_MAX, "outs[0]: 'regref' is missing (a loop axis or a REG allocation)"]),
    ("missing immediate value", lambda f: replace8(f)["ins"][2].pop("value"),
     ["BIR name 'find_replace8'", "ins[2]: 'value' is missing"]),
    ("missing LoopAxis lb", lambda f: loop(f)["LoopAxis"].pop("lb"),
     ["instruction 1 (function sg0000, block main/loop k, BIR name '(unnamed)') "
      "(every core, opcode Loop): "
      "LoopAxis 'lb' is missing"]),
    ("missing tensor_shape", lambda f: alloc(f, "work").pop("tensor_shape"),
     ["function sg0000, allocation 'work': 'tensor_shape' is missing"]),
    ("dma_blocks typo", lambda f: f["blocks"][0]["instructions"].append(
        {"opcode": "DMATrigger", "name": "fire", "dma_blocks": ["rond"]}),
     ["instruction 6 (function sg0000, block main, BIR name 'fire') "
      "(every core, opcode DMATrigger)",
      "field 'dma_blocks'[0]: no block named 'rond' in function sg0000; did you mean 'round'?"]),
    ("descriptor field typo", lambda f: (
        f["blocks"][0]["instructions"].append({"opcode": "DMATrigger", "name": "fire",
                                               "dma_blocks": ["d"]}),
        f["blocks"].append({"name": "d", "instructions": [
            {"opcode": "DMADescriptorCopy", "name": "dc", "mod": "Copy"}]})),
     ["instruction 6 (function sg0000, block main, BIR name 'fire') "
      "(every core, opcode DMATrigger): "
      "field 'dma_blocks'[0]: descriptor block 'd', descriptor 0 (BIR name 'dc', opcode "
      "DMADescriptorCopy): unknown field 'mod' for DMADescriptorCopy (did you mean 'mode'?)"]),
    ("static bounds", lambda f: set_(max8(f)["ins"][0], "ap", [[512, 8], [1, 600]]),
     ["instruction 2 (function sg0000, block main/loop k/round, BIR name 'max8') "
      "(every core, opcode Max/88, family "
      "search), inputs[0]: leaves tensor 'work'"]),
    ("unknown enum value", lambda f: f["blocks"][0]["instructions"].append(
        {"opcode": "DMACopy", "name": "tr", "mode": "Transposed", "ins": [], "outs": []}),
     ["instruction 6 (function sg0000, block main, BIR name 'tr') (every core, opcode DMACopy)",
      "field 'mode': unknown value 'Transposed' (expected one of Copy, Transpose, CCE, Replicate; did you mean 'Transpose'?)"]),
    ("AluOp without a number", lambda f: f["blocks"][0]["instructions"].append(
        {"opcode": "DMACopy", "name": "cce", "mode": "CCE", "cce_op": "mult", "ins": [], "outs": []}),
     ["BIR name 'cce'", "field 'cce_op': the AluOp 'mult' has no number trnsim knows here (accepted: bypass, add, max, min)"]),
    ("unknown field", lambda f: set_(replace8(f), "imm_valu", 1.0),
     ["instruction 3 (function sg0000, block main/loop k/round, BIR name 'find_replace8') (every core, opcode "
      "MaxIndexAndMatchReplace)", "unknown field 'imm_valu' for MaxIndexAndMatchReplace (did you mean 'imm_value'?)"]),
    ("stride 0", lambda f: set_(loop(f)["LoopAxis"], "stride", 0),
     ["instruction 1 (function sg0000, block main/loop k, BIR name '(unnamed)') "
      "(every core, opcode Loop): "
      "LoopAxis 'k': stride 0 (a loop needs a positive stride)"]),
    ("ub < lb", lambda f: set_(loop(f)["LoopAxis"], "ub", -8),
     ["(every core, opcode Loop): LoopAxis 'k': ub -8 < lb 0 (give lb <= ub)"]),
    ("10^9 trips", lambda f: loop(f)["LoopAxis"].update(ub=1000000000, stride=1),
     ["topk64.bir.json: the program executes 2000000003 instructions per core (loops multiplied out), more than "
      "the limit of 100000000; raise max_executions in the config"]),
    ("symbolic_ap", lambda f: set_(max8(f)["ins"], 0, {"kind": "symbolic_ap", "ap": [], "dtype": "float32",
                                                       "addrs": [], "access_shape": [], "memsetref": "work"}),
     [WHERE_MAX, "ins[0]: a symbolic_ap argument is not read (its public form is incomplete)"]),
    ("unknown dtype", lambda f: set_(max8(f)["ins"][0], "dtype", "float8e9"),
     [WHERE_MAX, "unknown dtype 'float8e9' (BIR dtypes: bfloat16, float8e3"]),
    ("unknown regref", lambda f: set_(max8(f)["outs"][0], "regref", "j"),
     [WHERE_MAX, "outs[0]: regref 'j' names no enclosing loop axis and no REG allocation; "
      "did you mean 'k'?"]),
    ("unhandled opcodes", lambda f: add_insts(f, "Activation", "Iota", "Activation"),
     ["function sg0000: 2 opcodes no loaded module handles: Activation x2, Iota x1 (loaded families: dma, search)",
      "unknown_opcode = \"skip\""]),
    ("partition step", lambda f: set_(max8(f)["ins"][0], "ap", [[100, 8], [1, 512]]),
     [WHERE_MAX, "ins[0]: partition step 100 is not a whole number of rows of allocation 'work' (512 float32 elements each)"]),
    ("dims", lambda f: set_(alloc(f, "vals")["memorylocations"][0], "dims", [8, 64]),
     ["allocation 'vals', memory location 'vals_loc': dims [8, 64] do not describe tensor_shape [8, 64] of 4-byte elements"]),
    ("unallocated", lambda f: set_(alloc(f, "vals")["memorylocations"][0], "type", "Unallocated"),
     ["memory location 'vals_loc': the location is Unallocated"]),
    ("unknown top-level key", lambda f: None,
     ["BIR file: unknown key 'fuctions' (did you mean 'functions'?)"]),
    ("run-time error", lambda f: None,
     ["instruction 0 (function sg0000, block main, BIR name 'load_x') (core 0, opcode Load/19, family dma, execution 0)",
      "never-written"]),
    ("two blocks of one name", lambda f: f["blocks"].append({"name": "round", "instructions": []}),
     ["function sg0000: two blocks are named 'round' (block main/loop k/round and block round); "
      "a block name must be "
      "unique"]),
    ("opcode typo", lambda f: set_(max8(f), "opcode", "Maxx"),
     ["instruction 2 (function sg0000, block main/loop k/round, BIR name 'max8') "
      "(every core, opcode Maxx): "
      "unknown opcode name 'Maxx'; did you mean 'Max'?"]),
    ("family the config lacks", lambda f: add_insts(f, "BNStats"),
     ["BIR name 'extra0') (every core, opcode BNStats): opcode BNStats (IT",
      "belongs to family 'bn', which the config does not load (loaded: dma, "
      "search); add { family = \"bn\"; module = \"trnsim-bn\"; } to plugins"]),
    ("missing dtype", lambda f: alloc(f, "work").pop("dtype"),
     ["function sg0000, allocation 'work': 'dtype' is missing (BIR dtypes: bfloat16"]),
    ("missing kind", lambda f: alloc(f, "work").pop("kind"),
     ["function sg0000, allocation 'work': 'kind' is missing (one of ExternalInput"]),
    ("missing location type", lambda f: alloc(f, "work")["memorylocations"][0].pop("type"),
     ["allocation 'work', memory location 'work_loc': 'type' is missing (one of Unallocated"]),
    ("33 nested loops", lambda f: nest_loops(f, 33),
     ["LoopAxis 'l32': loops nested 33 deep; trnsim reads at most 32 nested loops"]),
    ("out of bounds", lambda f: set_(alloc(f, "vals")["memorylocations"][0], "addr", 196608 - 128),
     ["tensor 'vals': needs bytes 196480..196735 of sbuf"]),
]


def main():
    trnsim, root = sys.argv[1], sys.argv[2]
    with open(os.path.join(root, "programs/topk64.bir.json")) as fh:
        base = json.load(fh)
    cfg = os.path.join(root, "../../config/topk.cfg")
    failures = 0
    with tempfile.TemporaryDirectory(prefix="birerr-") as tmp:
        x = os.path.join(tmp, "x.npy")
        np.save(x, np.zeros((8, 512), np.float32))
        for name, mutate, needles in CASES:
            doc = copy.deepcopy(base)
            mutate(doc["functions"][0])
            if name == "unknown top-level key":
                doc["fuctions"] = doc.pop("functions")
                doc["functions"] = []
            path = os.path.join(tmp, "topk64.bir.json")
            with open(path, "w") as fh:
                json.dump(doc, fh)
            out = os.path.join(tmp, "values.npy")
            inputs = [] if name == "run-time error" else ["--input", f"x={x}"]
            r = subprocess.run([trnsim, "run", path, "--config", cfg] + inputs + ["--output", f"values={out}"],
                               capture_output=True, text=True)
            lines = r.stderr.splitlines()
            bad = [n for n in needles if n not in r.stderr]
            if r.returncode != 1 or len(lines) != 1 or bad or os.path.exists(out) or not r.stderr.startswith(
                    f"trnsim: {path}"):
                print(f"FAIL: {name}: exit {r.returncode}, stderr {r.stderr!r}, missing {bad}")
                failures += 1
            else:
                print(f"ok: {name}: {lines[0]}")
        failures += check_skip(trnsim, base, tmp, x)
        failures += check_functions(trnsim, base, tmp, x, cfg)
    sys.exit(1 if failures else 0)


def check_functions(trnsim, base, tmp, x, cfg):
    """Several functions in one file: --function NAME picks the one to run
    (the same bits as the file with that function alone); without it, or
    with a name the file lacks or repeats, one error line lists the names."""
    other = copy.deepcopy(base["functions"][0])
    other["name"] = "warmup"
    loop(other)["LoopAxis"]["ub"] = 16  # two rounds: other values
    doc = copy.deepcopy(base)
    doc["functions"] = [other, doc["functions"][0]]
    path = os.path.join(tmp, "two.bir.json")
    with open(path, "w") as fh:
        json.dump(doc, fh)
    dup = copy.deepcopy(doc)
    dup["functions"][0]["name"] = "sg0000"
    dup_path = os.path.join(tmp, "dup.bir.json")
    with open(dup_path, "w") as fh:
        json.dump(dup, fh)
    x = os.path.join(tmp, "x_random.npy")  # distinct values: the top 64 tell the functions apart
    np.save(x, np.random.default_rng(5).permutation(8 * 512).reshape(8, 512).astype(np.float32))
    single = os.path.join(tmp, "single.npy")
    subprocess.run([trnsim, "run", os.path.join(os.path.dirname(cfg), "../tests/bir/programs/topk64.bir.json"),
                    "--config", cfg, "--input", f"x={x}", "--output", f"values={single}"], check=True)
    failures = 0
    for name, prog, args, needle in [
            ("two functions", path, [], f"trnsim: {path}: 2 functions (warmup, sg0000); give --function NAME "
             "(config bir_function) to choose the one to run"),
            ("unknown function", path, ["--function", "sg0001"],
             f"trnsim: {path}: no function named 'sg0001' (the file's functions: warmup, "
             "sg0000); did you mean 'sg0000'?"),
            ("repeated function", dup_path, ["--function", "sg0000"],
             f"trnsim: {dup_path}: more than one function is named 'sg0000'")]:
        out = os.path.join(tmp, "f.npy")
        r = subprocess.run([trnsim, "run", prog, "--config", cfg, "--input", f"x={x}", "--output", f"values={out}"]
                           + args, capture_output=True, text=True)
        if r.returncode != 1 or r.stderr.strip() != needle or os.path.exists(out):
            print(f"FAIL: {name}: exit {r.returncode}, stderr {r.stderr!r}")
            failures += 1
        else:
            print(f"ok: {name}: {r.stderr.strip()}")
    for flag in (["--function", "sg0000"], ["--set", "bir_function=sg0000"]):
        out = os.path.join(tmp, "chosen.npy")
        r = subprocess.run([trnsim, "run", path, "--config", cfg, "--input", f"x={x}", "--output", f"values={out}"]
                           + flag, capture_output=True, text=True)
        if r.returncode != 0 or not np.array_equal(np.load(out), np.load(single)):
            print(f"FAIL: {' '.join(flag)}: exit {r.returncode}, stderr {r.stderr!r}")
            failures += 1
        else:
            print(f"ok: {' '.join(flag)}: the same values as the file with that function alone")
        os.remove(out)
    return failures


def check_skip(trnsim, base, tmp, x):
    """unknown_opcode = "skip": opcodes trnsim has no number for are left out
    with one note after the run; the kernel still runs."""
    doc = copy.deepcopy(base)
    add_insts(doc["functions"][0], "Activation", "Iota", "Activation")
    path = os.path.join(tmp, "skip.bir.json")
    with open(path, "w") as fh:
        json.dump(doc, fh)
    cfg = os.path.join(tmp, "skip.cfg")
    with open(cfg, "w") as fh:
        fh.write('unknown_opcode = "skip";\nplugins = ( { family = "dma"; module = "trnsim-dma"; },'
                 ' { family = "search"; module = "trnsim-search"; } );\n')
    out = os.path.join(tmp, "skip_values.npy")
    r = subprocess.run([trnsim, "run", path, "--config", cfg, "--input", f"x={x}", "--output", f"values={out}"],
                       capture_output=True, text=True)
    note = "skipped at load, no loaded module handles them: Activation x2, Iota x1"
    if r.returncode != 0 or note not in r.stderr or not os.path.exists(out):
        print(f"FAIL: skip: exit {r.returncode}, stderr {r.stderr!r}")
        return 1
    print(f"ok: skip: {r.stderr.strip()}")
    return 0


if __name__ == "__main__":
    main()
