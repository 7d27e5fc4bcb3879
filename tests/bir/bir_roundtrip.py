#!/usr/bin/python3
"""trnsim convert --to bir on every native program under tests/: each one
with a BIR form is converted, the native program and its BIR are run on the
same inputs with every tensor written out, and every output byte must be
the same (or both runs refused with the same message, the BIR context
aside). Then the conversions are fixed points: BIR -> native -> BIR gives
the same BIR file, native -> BIR -> native the same native file; and each
BIR kernel of tests/bir/programs converted to native, to BIR and back to
native gives the same native file.

A program's initial `data` / `fill` has no BIR form: such a program is
converted with those values moved to --input files (both runs get them).
Programs refused by the writer must be refused with one line saying "no
BIR form" and what; the report lists them by reason.

    bir_roundtrip.py TRNSIM ROOT"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

NUMPY_DTYPES = {"float32": np.float32, "float16": np.float16, "int8": np.int8, "int16": np.int16,
                "int32": np.int32, "int64": np.int64, "uint8": np.uint8, "uint16": np.uint16,
                "uint32": np.uint32, "uint64": np.uint64}
# read from float32 files, narrowed RNE (docs/programs.md, "Data files")
for _name in ("bfloat16", "float8_e3m4", "float8_e4m3", "float8_e5m2", "float8_e4m3fn", "float32r"):
    NUMPY_DTYPES[_name] = np.float32


def sh(args):
    return subprocess.run(args, capture_output=True, text=True)


def strip_init(prog, tmp, stem):
    """The program without initial values, and --input arguments giving them."""
    inputs = []
    for t in prog.get("tensors", []):
        kind = next((k for k in ("data", "fill", "data_per_core") if k in t), None)
        if not kind:
            continue
        if t["dtype"] not in NUMPY_DTYPES or "view_of" in t:
            return None, None
        dt = NUMPY_DTYPES[t["dtype"]]
        val = t.pop(kind)
        if any(isinstance(v, str) for v in np.ravel(np.array(val, dtype=object))):
            return None, None  # bit patterns or special spellings: left to the native reader
        if kind == "fill":
            arr = np.full(t["shape"], val, dt)
        elif kind == "data":
            arr = np.array(val, dt).reshape(t["shape"])
        else:  # a [cores, ...] file gives core k slice k
            arr = np.array(val, dt).reshape([len(val)] + t["shape"])
        path = os.path.join(tmp, f"{stem}_in_{t['name']}.npy")
        np.save(path, arr)
        inputs += ["--input", f"{t['name']}={path}"]
    return prog, inputs


def random_inputs(prog, tmp, stem, rng, given):
    """Known values for every tensor without initial values (numpy dtypes)."""
    args = []
    for t in prog.get("tensors", []):
        if "view_of" in t or t["dtype"] not in NUMPY_DTYPES or t["name"] in given:
            continue
        dt = NUMPY_DTYPES[t["dtype"]]
        if np.issubdtype(dt, np.floating):
            arr = (rng.integers(-1000, 1000, size=t["shape"]) / 8).astype(dt)
        else:
            arr = rng.integers(0, 100, size=t["shape"]).astype(dt)
        path = os.path.join(tmp, f"{stem}_rand_{t['name']}.npy")
        np.save(path, arr)
        args += ["--input", f"{t['name']}={path}"]
    return args


def choose_config(trnsim, native, configs, cores):
    """The first config under which the native program loads."""
    for cfg in configs:
        common = ["--config", cfg] + (["--set", f"machine.cores={cores}"] if cores else [])
        if sh([trnsim, "check", native] + common).returncode == 0:
            return common
    return None


def outputs(prog, tmp, tag):
    """Every tensor out; bytes a program never writes go out as zeros, so
    they are compared too."""
    args, paths = ["--output-unwritten=zeros"], {}
    for t in prog.get("tensors", []):
        p = os.path.join(tmp, f"{tag}_{t['name']}.npy")
        args += ["--output", f"{t['name']}={p}"]
        paths[t["name"]] = p
    return args, paths


CONTEXT = re.compile(r" \(function [^()]*, BIR name '[^']*'\)")


def normalise(msg, path):
    return CONTEXT.sub("", msg.replace(path, "PROG")).strip()


def run_both(trnsim, native, bir, prog, common, tmp):
    """Both runs, every tensor out: the same bytes or the same refusal."""
    on, pn = outputs(prog, tmp, "n")
    ob, pb = outputs(prog, tmp, "b")
    rn = sh([trnsim, "run", native] + common + on)
    rb = sh([trnsim, "run", bir] + common + ob)
    if rn.returncode or rb.returncode:
        mn, mb = normalise(rn.stderr, native), normalise(rb.stderr, bir)
        if rn.returncode != rb.returncode or mn != mb:
            return (f"runs differ: native exit {rn.returncode} {mn!r}, "
                    f"BIR exit {rb.returncode} {mb!r}")
        return "refused alike"
    for name in pn:
        a, b = open(pn[name], "rb").read(), open(pb[name], "rb").read()
        if a != b:
            return f"tensor {name}: output bytes differ"
    return None


def convert(trnsim, src, dst, common, to):
    r = sh([trnsim, "convert", src, "-o", dst, "--to", to] + common)
    return r


def one_program(trnsim, path, cfg, tmp, k, report):
    with open(path) as fh:
        try:
            prog = json.load(fh)
        except ValueError:
            return 0
    if not isinstance(prog, dict) or "instructions" not in prog:
        return 0
    stem = f"p{k}"
    prog, inputs = strip_init(prog, tmp, stem)
    if prog is None:
        report.setdefault("initial values numpy cannot give (bf16 / fp8 data, views)",
                          []).append(path)
        return 0
    native = os.path.join(tmp, f"{stem}.json")
    with open(native, "w") as fh:
        json.dump(prog, fh)
    common = choose_config(trnsim, native, cfg, prog.get("cores"))
    if common is None:
        report.setdefault("loads under none of the stock and test configs "
                          "(test modules, bad files)", []).append(path)
        return 0
    bir = os.path.join(tmp, f"{stem}.bir.json")
    r = convert(trnsim, native, bir, common, "bir")
    if r.returncode:
        line = r.stderr.strip()
        if "no BIR form" in line and len(line.splitlines()) == 1 and not os.path.exists(bir):
            reason = line.split("no BIR form: ", 1)[1]
            reason = re.sub(r"'[^']*'|\d+", "_", reason)[:90]
            report.setdefault(reason, []).append(path)
            return 0
        if "no BIR form" not in line:  # the native program itself does not load
            report.setdefault("does not load under the default config", []).append(path)
            return 0
        print(f"FAIL: {path}: refusal is not one line or left a file: {line!r}")
        return 1
    why = run_both(trnsim, native, bir, prog, common + inputs, tmp)
    if why == "refused alike":  # with known values for every tensor the run may get further
        given = {a.split("=", 1)[0] for a in inputs[1::2]}
        rand = random_inputs(prog, tmp, stem, np.random.default_rng(k), given)
        why = run_both(trnsim, native, bir, prog, common + inputs + rand, tmp)
    if why and why != "refused alike":
        print(f"FAIL: {path}: {why}")
        return 1
    n1, b2, n2 = (os.path.join(tmp, f"{stem}.{s}") for s in ("n1.json", "b2.bir.json", "n2.json"))
    for src, dst, to in ((bir, n1, "native"), (n1, b2, "bir"), (b2, n2, "native")):
        r = convert(trnsim, src, dst, common, to)
        if r.returncode:
            print(f"FAIL: {path}: convert {src} --to {to}: {r.stderr.strip()}")
            return 1
    if open(bir).read() != open(b2).read():
        print(f"FAIL: {path}: BIR -> native -> BIR changed the BIR file")
        return 1
    if open(n1).read() != open(n2).read():
        print(f"FAIL: {path}: native -> BIR -> native changed the native file")
        return 1
    key = "round-tripped" + (" (both runs refused alike)" if why else "")
    report.setdefault(key, []).append(path)
    return 0


def bir_kernels(trnsim, root, tmp):
    """tests/bir kernels: BIR -> native -> BIR -> native gives the same native file."""
    failures = 0
    configs = {"topk64": "config/topk.cfg", "bn_tiles": "tests/bir/configs/bn.cfg",
               "rng_state": "tests/bir/configs/rng.cfg",
               "allreduce_scatter": "tests/bir/configs/coll4.cfg",
               "dma_trigger": "config/dma.cfg"}
    for name, cfg in configs.items():
        common = ["--config", os.path.join(root, cfg)]
        k = os.path.join(root, "tests/bir/programs", f"{name}.bir.json")
        n1, b, n2 = (os.path.join(tmp, f"{name}.{s}") for s in ("n1.json", "bir.json", "n2.json"))
        for src, dst, to in ((k, n1, "native"), (n1, b, "bir"), (b, n2, "native")):
            r = convert(trnsim, src, dst, common, to)
            if r.returncode:
                print(f"FAIL: {name}: convert --to {to}: {r.stderr.strip()}")
                failures += 1
                break
        else:
            if open(n1).read() != open(n2).read():
                print(f"FAIL: {name}: BIR -> native -> BIR -> native changed the native file")
                failures += 1
            else:
                print(f"ok: {name}.bir.json: converted to native, to BIR and back to native: "
                      "the same file")
    return failures


def bad_target(trnsim, root, tmp):
    """--to takes bir or native; anything else: one line, no file."""
    out = os.path.join(tmp, "bad.json")
    prog = os.path.join(root, "tests/bir/programs/topk64.native.json")
    r = sh([trnsim, "convert", prog, "--to", "xml", "-o", out])
    want = "trnsim: convert: --to takes bir or native (see trnsim help convert)"
    if r.returncode != 1 or r.stderr.strip() != want or os.path.exists(out):
        print(f"FAIL: --to xml: exit {r.returncode}, {r.stderr!r}")
        return 1
    print(f"ok: --to xml: {r.stderr.strip()}")
    return 0


def main():
    trnsim, root = sys.argv[1], sys.argv[2]
    cfg = [os.path.join(root, "config/default.cfg")] + sorted(
        glob.glob(os.path.join(root, "config/*.cfg")) +
        glob.glob(os.path.join(root, "tests/*/configs/*.cfg")) +
        glob.glob(os.path.join(root, "tests/*/*.cfg")))
    files = sorted(f for f in glob.glob(os.path.join(root, "tests/*/programs/*.json"))
                   if not f.endswith(".bir.json"))
    report, failures = {}, 0
    with tempfile.TemporaryDirectory(prefix="birrt-") as tmp:
        for k, f in enumerate(files):
            failures += one_program(trnsim, f, cfg, tmp, k, report)
        failures += bir_kernels(trnsim, root, tmp) + bad_target(trnsim, root, tmp)
    for reason, paths in sorted(report.items(), key=lambda x: -len(x[1])):
        print(f"{len(paths):3d} {reason}: {', '.join(os.path.relpath(p, root) for p in paths[:6])}"
              f"{' ...' if len(paths) > 6 else ''}")
    done = sum(len(v) for k, v in report.items() if k.startswith("round-tripped"))
    print(f"{'FAIL' if failures else 'ok'}: {done} native programs round-tripped through BIR, "
          f"{failures} failing")
    sys.exit(1 if failures or done == 0 else 0)


if __name__ == "__main__":
    main()
