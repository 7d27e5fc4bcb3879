#!/usr/bin/python3
"""The complete kernel that opens docs/bir.md, run exactly as printed: the
JSON block between its marker lines is written to topk16.bir.json and the
page's own command line is run (the config path taken from the source
tree), then its values and indices are checked against numpy. Also the
page's open questions, each as the page states it: DRAM's flat dims
[bytes] (and [1, bytes] refused), a non-finite immediate as a string (and
the token -Infinity refused), reg_ap_offset not negative, register_access
taken from ins or outs.

    bir_doc_example.py TRNSIM ROOT"""
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

import numpy as np


def page_parts(root):
    text = open(os.path.join(root, "docs/bir.md")).read()
    m = re.search(r"<!-- BEGIN example kernel -->\n```json\n(.*?)```\n"
                  r"<!-- END example kernel -->\n\n```\n(.*?)\n```", text, re.S)
    if not m:
        sys.exit("FAIL: docs/bir.md has no example kernel between its marker lines "
                 "followed by its command line")
    return m.group(1), m.group(2)


def run(args, cwd):
    return subprocess.run(args, capture_output=True, text=True, cwd=cwd)


def variant(tmp, kernel, name, change):
    doc = json.loads(kernel)
    change(doc["functions"][0])
    path = os.path.join(tmp, name)
    with open(path, "w") as fh:
        json.dump(doc, fh)
    return path


def main():
    trnsim, root = sys.argv[1], sys.argv[2]
    kernel, command = page_parts(root)
    failures = 0
    with tempfile.TemporaryDirectory(prefix="birdoc-") as tmp:
        with open(os.path.join(tmp, "topk16.bir.json"), "w") as fh:
            fh.write(kernel)
        x = np.random.default_rng(16).permutation(4 * 64).reshape(4, 64) - 128
        x = x.astype(np.float32) / 4
        np.save(os.path.join(tmp, "x.npy"), x)
        args = shlex.split(command)
        if args[0] != "trnsim":
            sys.exit(f"FAIL: the page's command does not start with trnsim: {command}")
        args = [trnsim] + [os.path.join(root, a) if a.startswith("config/") else a
                           for a in args[1:]]
        r = run(args, tmp)
        if r.returncode:
            sys.exit(f"FAIL: the page's kernel, run as printed: {r.stderr.strip()}")
        v, i = np.load(os.path.join(tmp, "values.npy")), np.load(os.path.join(tmp, "indices.npy"))
        want = -np.sort(-x, axis=1)[:, :16]
        if not np.array_equal(v, want) or any(not np.array_equal(x[r_, i[r_].astype(int)], want[r_])
                                              for r_ in range(4)):
            sys.exit("FAIL: the page's kernel: values or indices differ from numpy's TopK-16")
        print("ok: docs/bir.md's kernel runs as printed: TopK-16 values and indices as numpy's")
        cfg = os.path.join(root, "config/topk.cfg")

        def alloc(f, n):
            return next(a for a in f["allocations"] if a["name"] == n)

        def find_replace(f):
            return f["blocks"][0]["instructions"][1]["blocks"][0]["instructions"][1]

        cases = [
            ("DRAM dims [1, bytes]",
             lambda f: alloc(f, "x")["memorylocations"][0].update(dims=[1, 1024]),
             "dims [1, 1024] do not describe tensor_shape [4, 64]"),
            ("negative reg_ap_offset", lambda f: find_replace(f)["ins"][0].update(reg_ap_offset=-1),
             "'reg_ap_offset' = -1 is outside [0, 2^40]"),
            ("immediate 'nan'", lambda f: find_replace(f)["ins"][2].update(value="nan"), None),
            # an over-long offset as KLR writes it, a string: named as written, not clamped
            ("over-long reg_ap_offset string",
             lambda f: find_replace(f)["ins"][0].update(reg_ap_offset="99999999999999999999"),
             "'reg_ap_offset' = \"99999999999999999999\" is outside [0, 2^40]"),
            ("over-long negative reg_ap_offset string",
             lambda f: find_replace(f)["ins"][0].update(reg_ap_offset="-99999999999999999999"),
             "'reg_ap_offset' = \"-99999999999999999999\" is outside [0, 2^40]"),
            ("over-long negative reg_ap_offset number",
             lambda f: find_replace(f)["ins"][0].update(reg_ap_offset=-99999999999999999999),
             "too big negative integer near '-99999999999999999999'"),
            ("reg_ap_offset string with a space",
             lambda f: find_replace(f)["ins"][0].update(reg_ap_offset=" 5"),
             "'reg_ap_offset' must be an integer (a number, or digits in a string)"),
            ("ap step -2^63", lambda f: find_replace(f)["ins"][1]["ap"][1].__setitem__(0, -2**63),
             "ap[1] must be [step, num] with |step| <= 2^40 and 1 <= num <= 2^32"),
        ]
        for name, change, needle in cases:
            path = variant(tmp, kernel, "v.bir.json", change)
            r = run([trnsim, "check", path, "--config", cfg], tmp)
            if needle:
                ok = r.returncode == 1 and needle in r.stderr and len(r.stderr.splitlines()) == 1
            else:
                ok = r.returncode == 0
            print(f"{'ok' if ok else 'FAIL'}: {name}: exit {r.returncode} {r.stderr.strip()[:160]}")
            failures += not ok
        path = os.path.join(tmp, "inf.bir.json")
        with open(path, "w") as fh:
            fh.write(kernel.replace('"value": "-inf"', '"value": -Infinity'))
        r = run([trnsim, "check", path, "--config", cfg], tmp)
        ok = r.returncode == 1 and len(r.stderr.splitlines()) == 1
        print(f"{'ok' if ok else 'FAIL'}: the token -Infinity: exit {r.returncode} "
              f"{r.stderr.strip()[:160]}")
        failures += not ok
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
