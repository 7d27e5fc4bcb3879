#!/usr/bin/env python3
"""trnsim conform of one family against its reference module (docs/cli.md
"trnsim conform", docs/internals/conform.md): generated programs from the
family's recipes, with a fixed seed, must pass the static check at least 90%
of the time, reach every opcode of the family, and agree with
trnsim-FAMILY-ref.

--nan-payload-quirk names a documented difference (bn.unpinned_nan_payload:
which NaN a NaN result is, is not pinned, docs/bn.md "NaN payloads"): then a
difference is accepted only when the shrunk case's outputs of the two sides
are equal bit for bit once any NaN is allowed to match any NaN; every other
difference fails the test.

  ref_conform.py --trnsim TRNSIM --family F [--config CFG] --cases N
                 [--nan-payload-quirk NAME]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

MIN_VALID = 0.9


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def opcodes_of(trnsim, family, config):
    """The family's opcode names, as `trnsim opcodes` lists them."""
    out = subprocess.run([trnsim, "opcodes"] + config, capture_output=True, text=True,
                         check=True).stdout
    names = []
    for line in out.splitlines()[1:]:
        cols = line.split()
        if len(cols) >= 3 and cols[2] == family:
            names.append(cols[1])
    return names


def nan_aware_equal(a, b):
    """a and b equal bit for bit, except that any NaN matches any NaN."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind != "f":
        return np.array_equal(a, b)
    both_nan = np.isnan(a) & np.isnan(b)
    raw_a = a.view(np.uint8).reshape(a.shape + (-1,))
    raw_b = b.view(np.uint8).reshape(b.shape + (-1,))
    return bool(((raw_a == raw_b).all(-1) | both_nan).all())


def only_nan_payloads(case_dir):
    """Whether the shrunk case's sides differ only in which NaN they hold."""
    names = sorted(os.listdir(os.path.join(case_dir, "out-a")))
    if names != sorted(os.listdir(os.path.join(case_dir, "out-b"))) or not names:
        return False
    for n in names:
        a = np.load(os.path.join(case_dir, "out-a", n))
        b = np.load(os.path.join(case_dir, "out-b", n))
        if not nan_aware_equal(a, b):
            return False
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trnsim", required=True)
    ap.add_argument("--family", required=True)
    ap.add_argument("--config")
    ap.add_argument("--cases", type=int, required=True)
    ap.add_argument("--nan-payload-quirk")
    a = ap.parse_args()
    config = ["--config", a.config] if a.config else []
    fam = a.family
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [a.trnsim, "conform", "--family", fam, "--module", fam + "=trnsim-" + fam + "-ref",
               "--seed", "1", "--cases", str(a.cases), "--json", "--out", tmp] + config
        if a.nan_payload_quirk:
            cmd.append("--keep-going")
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode not in (0, 1):
            fail("conform exited %d: %s" % (r.returncode, r.stderr.strip()))
        d = json.loads(r.stdout)
        if d["differ"] and not a.nan_payload_quirk:
            fail("stock and reference differ: %s" % json.dumps(d["differences"][:3]))
        if d["cases"] != a.cases:
            fail("%d cases run, expected %d" % (d["cases"], a.cases))
        rows = [f for f in d["families"] if f["family"] == fam]
        if not rows:
            fail("no instruction of family %s was generated" % fam)
        ratio = rows[0]["valid_ratio"]
        print("%s: %d cases, %d agree, %d differ, %d invalid; %d of %d instructions valid "
              "(%.1f%%)" % (fam, d["cases"], d["agree"], d["differ"], d["invalid"],
                            rows[0]["valid"], rows[0]["instructions"], 100 * ratio))
        if ratio < MIN_VALID:
            fail("valid ratio %.3f < %.2f" % (ratio, MIN_VALID))
        drawn = {p["opcode"] for p in d["per_opcode"]}
        missing = [op for op in opcodes_of(a.trnsim, fam, config) if op not in drawn]
        if missing:
            fail("no case for %s" % ", ".join(missing))
        if r.returncode == 0 and not d["differ"]:
            print("PASS")
            return
        if d["differ"] != len(d["differences"]):
            fail("%d differences but the summary lists %d; give fewer --cases" %
                 (d["differ"], len(d["differences"])))
        for x in d["differences"]:
            if not only_nan_payloads(x["dir"]):
                fail("case %d differs beyond NaN payloads (%s): %s" %
                     (x["case"], a.nan_payload_quirk, x["what"]))
        print("PASS (%d differences, each only in NaN payloads: %s)" %
              (len(d["differences"]), a.nan_payload_quirk))


main()
