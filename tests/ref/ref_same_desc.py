#!/usr/bin/env python3
"""The reference modules describe themselves exactly as the stock ones do.

    ref_same_desc.py --trnsim T --stock STOCK.cfg --ref REF.cfg

`trnsim opcodes --attrs` (every opcode: IT, name, family, operands,
attributes with their types, ranges and defaults) and `trnsim quirks` (every
quirk with its default and setting) under REF.cfg must equal their output
under STOCK.cfg once each module name loses its "-ref" and the module file
its path; and every module of REF.cfg is a trnsim-FAMILY-ref.
"""
import argparse
import re
import subprocess
import sys


def run(*cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)}: exit {p.returncode}\n{p.stderr}")
    return p.stdout


def normalised(text):
    text = re.sub(r"\(/[^)]*\.so\)", "(MODULE.so)", text)
    text = re.sub(r"(trnsim-[a-z]+)-ref\b", r"\1", text)
    return [" ".join(line.split()) for line in text.splitlines()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trnsim", required=True)
    ap.add_argument("--stock", required=True)
    ap.add_argument("--ref", required=True)
    a = ap.parse_args()
    listing = run(a.trnsim, "opcodes", "--config", a.ref)
    modules = {line.split()[-2] for line in listing.splitlines()[1:] if line.strip()}
    if not modules or not all(re.fullmatch(r"trnsim-[a-z]+-ref", m) for m in modules):
        sys.exit(f"FAIL: {a.ref} loads modules that are not reference modules: {sorted(modules)}")
    for what in (["opcodes", "--attrs"], ["quirks"]):
        want = normalised(run(a.trnsim, *what, "--config", a.stock))
        got = normalised(run(a.trnsim, *what, "--config", a.ref))
        if got != want:
            diff = [f"  stock: {w}\n  ref:   {g}" for w, g in zip(want, got) if w != g][:5]
            sys.exit(f"FAIL: trnsim {' '.join(what)} differs ({len(want)} vs {len(got)} lines)\n"
                     + "\n".join(diff))
        print(f"same: trnsim {' '.join(what)} ({len(want)} lines)")
    print(f"ok: {len(modules)} reference modules: {', '.join(sorted(modules))}")


if __name__ == "__main__":
    main()
