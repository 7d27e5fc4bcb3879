#!/usr/bin/env python3
"""Test trnsim-example through a real trnsim (Python standard library only).

    test_example.py --trnsim PREFIX/bin/trnsim --module build/trnsim-example.so [--stock rng]...

Writes its configs and outputs into a temporary directory (removed at the
end): each config loads the example next to the stock modules named with
--stock (default: every trnsim-*.so installed beside the trnsim executable,
in <prefix>/lib/trnsim, but the reference modules trnsim-*-ref.so). Checks, bit for bit, what Scale (IT 240) writes with
negative_zero = "keep" and "flush", what Iota (IT 241) writes when a BIR file
(iota.bir.json) names it, that `trnsim opcodes` and `trnsim quirks`
list the module, and that a bad instruction and a bad setting are refused
with one error line and no output file; and that `trnsim conform` finds
the module equal to itself on generated Scale programs and, given
--bug-module (a build with -DEXAMPLE_PLANTED_BUG), finds and shrinks the
planted bug. Exit 0 when everything holds.
"""
import argparse
import ast
import glob
import json
import os
import shlex
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.join(HERE, "scale.json")
BIR_PROGRAM = os.path.join(HERE, "iota.bir.json")  # the compiler's BIR JSON naming the module's Iota
X = [1.5, -2.0, 0.0, -0.0, 3.0, 0.25, 1e30, -7.0]  # scale.json's x
FACTOR = -2.0


def f32(v):
    """Round a Python float to fp32. x * factor of two fp32 values is exact
    in a double (24 + 24 significand bits), so rounding it once gives the
    fp32 product: an independent reference for the module's multiply."""
    return struct.unpack("<f", struct.pack("<f", v))[0]


def bits(v):
    return struct.unpack("<I", struct.pack("<f", v))[0]


def read_npy_f32(path):
    """A little-endian float32 .npy file -> (shape, [floats])."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        raise ValueError(f"{path}: not an .npy file")
    major = data[6]
    hlen_size = 2 if major == 1 else 4
    hlen = int.from_bytes(data[8:8 + hlen_size], "little")
    header = ast.literal_eval(data[8 + hlen_size:8 + hlen_size + hlen].decode("latin1"))
    if header["descr"] != "<f4" or header["fortran_order"]:
        raise ValueError(f"{path}: expected C-order <f4, found {header}")
    body = data[8 + hlen_size + hlen:]
    return tuple(header["shape"]), list(struct.unpack(f"<{len(body) // 4}f", body))


class Failure(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Failure(msg)
    print(f"ok: {msg}")


def write_config(path, module, stock, negative_zero="keep"):
    lines = ['unknown_opcode = "error";', "plugins = ("]
    entries = [f'  {{ family = "{fam}"; module = "trnsim-{fam}"; }}' for fam in stock]
    entries.append(f'  {{ family = "example"; module = "{module}"; '
                   f'settings = {{ negative_zero = "{negative_zero}"; }}; }}')
    lines.append(",\n".join(entries))
    lines.append(");")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def run(cmd):
    env = dict(os.environ)
    env.pop("TRNSIM_PLUGIN_PATH", None)  # only the config says where modules are
    return subprocess.run(cmd, capture_output=True, text=True, env=env)


def check_scale(trnsim, cfg, tmp, negative_zero):
    out = os.path.join(tmp, f"y_{negative_zero}.npy")
    p = run([trnsim, "run", PROGRAM, "--config", cfg, "--output", f"y={out}"])
    if p.returncode != 0:
        raise Failure(f"trnsim run failed: {p.stderr.strip()}")
    shape, got = read_npy_f32(out)
    want = [f32(x * FACTOR) for x in X]
    if negative_zero == "flush":
        want = [0.0 if w == 0.0 else w for w in want]
    check(shape == (2, 4), f"y has shape (2, 4) ({negative_zero})")
    check([bits(g) for g in got] == [bits(w) for w in want],
          f"y == x * {FACTOR} bit for bit, negative_zero = {negative_zero}: {got}")
    check(bits(got[2]) == (0x80000000 if negative_zero == "keep" else 0), f"0 * -2 is {got[2]!r}")


def check_iota(trnsim, cfg, tmp):
    out = os.path.join(tmp, "ramp.npy")
    p = run([trnsim, "run", BIR_PROGRAM, "--config", cfg, "--output", f"ramp={out}"])
    if p.returncode != 0:
        raise Failure(f"trnsim run iota.bir.json failed: {p.stderr.strip()}")
    shape, got = read_npy_f32(out)
    check(shape == (2, 8) and got == [float(-3 + 2 * k) for k in range(16)],
          f"the BIR file's Iota (start -3, step 2) wrote {got}")
    p = run([trnsim, "check", BIR_PROGRAM, "--config", cfg])
    check(p.returncode == 0 and any(line.split()[:3] == ["Iota", "1", "1"] for line in p.stdout.splitlines()),
          "trnsim check on the BIR file counts one Iota")


def check_listings(trnsim, cfg, stock):
    p = run([trnsim, "opcodes", "--config", cfg])
    if p.returncode != 0:
        raise Failure(f"trnsim opcodes failed: {p.stderr.strip()}")
    rows = [line.split() for line in p.stdout.splitlines() if line[:1].isdigit()]
    mine = [r for r in rows if r[0] == "240"]
    check(len(mine) == 1 and mine[0][1:4] == ["Scale", "example", "trnsim-example"],
          f"trnsim opcodes: IT 240 is Scale of trnsim-example ({mine})")
    for fam in stock:
        check(any(r[2] == fam and r[3] == f"trnsim-{fam}" for r in rows), f"trnsim opcodes lists family {fam}")
    p = run([trnsim, "quirks", "--config", cfg])
    check(p.returncode == 0 and "example.negative_zero" in p.stdout, "trnsim quirks lists example.negative_zero")


def check_error(trnsim, cmd_tail, tmp, texts, what):
    out = os.path.join(tmp, "bad.npy")
    p = run([trnsim, "run", *cmd_tail, "--output", f"y={out}"])
    lines = p.stderr.strip().splitlines()
    check(p.returncode == 1 and len(lines) == 1 and all(t in lines[0] for t in texts),
          f"{what} is refused: {lines}")
    check(not os.path.exists(out), f"{what}: no output file left")


def check_conform(trnsim, cfg, tmp, module, bug_module):
    """trnsim conform on Scale's recipe: the module against itself agrees on
    every generated case; a build with EXAMPLE_PLANTED_BUG (the last element
    never scaled) differs, and the shrunk case's diff line shows it again."""
    base = [trnsim, "conform", "--config", cfg, "--opcode", "Scale", "--seed", "1", "--json"]
    p = run(base + ["--module", f"example={module}", "--cases", "100",
                    "--out", os.path.join(tmp, "conform-same")])
    s = json.loads(p.stdout) if p.stdout.startswith("{") else {}
    check(p.returncode == 0 and s.get("agree") == 100 and s.get("differ") == 0,
          f"conform: the module against itself agrees on 100 generated Scale programs ({p.stderr.strip()})")
    ratio = [f["valid_ratio"] for f in s.get("families", []) if f.get("family") == "example"]
    check(ratio and ratio[0] >= 0.9, f"conform: at least 90% of the generated Scale instructions valid ({ratio})")
    if not bug_module:
        return
    p = run(base + ["--module", f"example={bug_module}", "--time", "30",
                    "--out", os.path.join(tmp, "conform-bug")])
    s = json.loads(p.stdout) if p.stdout.startswith("{") else {}
    diffs = s.get("differences") or [{}]
    case = diffs[0].get("dir", "")
    check(p.returncode == 1 and os.path.isfile(os.path.join(case, "program.json")),
          f"conform: the planted bug is found and its case written ({case or p.stderr.strip()})")
    with open(os.path.join(case, "program.json")) as f:
        insts = json.load(f)["instructions"]
    check(len(insts) == 1 and insts[0]["opcode"] in ("Scale", 240), f"the shrunk case is one Scale ({insts})")
    p = run(shlex.split(diffs[0]["diff_command"]))
    check(p.returncode == 1 and "difference at instruction 0" in p.stdout,
          f"the case's trnsim diff line shows the difference again: {p.stdout.strip()[:200]}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trnsim", required=True)
    ap.add_argument("--module", required=True, help="path of trnsim-example.so")
    ap.add_argument("--stock", action="append", help="stock family to load beside the example")
    ap.add_argument("--bug-module", help="a build with -DEXAMPLE_PLANTED_BUG, which conform must catch")
    a = ap.parse_args()
    trnsim, module = os.path.abspath(a.trnsim), os.path.abspath(a.module)
    stock = a.stock
    if stock is None:  # every module installed beside this trnsim
        prefix = os.path.dirname(os.path.dirname(trnsim))
        found = glob.glob(os.path.join(prefix, "lib*", "trnsim", "trnsim-*.so")) + \
            glob.glob(os.path.join(prefix, "lib", "*", "trnsim", "trnsim-*.so"))  # lib, lib64, lib/<multiarch>
        # trnsim-collective-mpi and the reference modules trnsim-FAMILY-ref: a
        # family again, not a family of their own
        stock = sorted({os.path.basename(p)[len("trnsim-"):-3] for p in found
                        if not p.endswith(("-mpi.so", "-ref.so"))} - {"example"})
    print(f"trnsim {trnsim}\nmodule {module}\nstock families: {', '.join(stock) or '(none)'}")
    with tempfile.TemporaryDirectory(prefix="trnsim-example-") as tmp:
        try:
            keep = write_config(os.path.join(tmp, "keep.cfg"), module, stock, "keep")
            flush = write_config(os.path.join(tmp, "flush.cfg"), module, stock, "flush")
            check_scale(trnsim, keep, tmp, "keep")
            check_scale(trnsim, flush, tmp, "flush")
            check_listings(trnsim, keep, stock)
            check_iota(trnsim, keep, tmp)
            check_conform(trnsim, keep, tmp, module, a.bug_module and os.path.abspath(a.bug_module))
            bad_prog = os.path.join(tmp, "bad.json")
            with open(bad_prog, "w") as f:
                f.write('{"tensors": [{"name": "x", "memory": "sbuf", "dtype": "float32", "shape": [2, 4], "fill": 1},'
                        ' {"name": "y", "memory": "sbuf", "dtype": "float32", "shape": [2, 3]}],'
                        ' "instructions": [{"opcode": 240, "inputs": ["x"], "outputs": ["y"]}]}')
            check_error(trnsim, [bad_prog, "--config", keep], tmp,
                        ["opcode Scale/240, family example", "Scale output 0 must have the input's shape"],
                        "a Scale with a wrong output shape")
            bad_cfg = write_config(os.path.join(tmp, "bad.cfg"), module, stock, "maybe")
            check_error(trnsim, [PROGRAM, "--config", bad_cfg], tmp, ["negative_zero", "keep|flush"],
                        "negative_zero = \"maybe\"")
        except Failure as e:
            print(f"FAIL: {e}")
            return 1
    print("PASS: trnsim-example")
    return 0


if __name__ == "__main__":
    sys.exit(main())
