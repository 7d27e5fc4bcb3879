#!/usr/bin/python3
"""The example observer module (examples/observer-nan-count) counts the NaNs
each opcode wrote. Its table must equal the counts taken independently from
the output .npy files, and loading it must not change a single output bit
(observers are read-only)."""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        fail(f"{' '.join(cmd)} exited {r.returncode}:\n{r.stderr}")
    return r


def nans(path):
    """NaNs in an output file, from its bits (bfloat16 is saved as uint16 bits)."""
    a = np.load(path)
    if a.dtype == np.float32:
        return int(np.isnan(a).sum()), a.size
    if a.dtype == np.uint16 or a.dtype.str == "<V2":  # bfloat16 bits
        b = a.view(np.uint16).astype(np.uint32)
        return int((((b >> 7) & 0xFF) == 0xFF).__and__((b & 0x7F) != 0).sum()), a.size
    if a.dtype.kind in "iu":
        return 0, a.size
    fail(f"unexpected dtype {a.dtype} in {path}")


def table(text):
    rows = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) == 5 and f[0].isdigit():
            rows[f[1]] = (int(f[0]), int(f[2]), int(f[3]), int(f[4]))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trnsim", required=True)
    ap.add_argument("--module", required=True)
    ap.add_argument("--program", required=True)
    a = ap.parse_args()
    outs = {"y": "TensorCopy", "yb": "TensorCopy", "w": "TensorCopy", "wi": "TensorCopy", "h": "Load"}
    with tempfile.TemporaryDirectory(prefix="nancount-") as d:
        report = os.path.join(d, "nans.txt")
        plain = os.path.join(d, "plain.cfg")
        with open(plain, "w") as f:
            f.write('plugins = ( { family = "dma"; module = "trnsim-dma"; } );\n')
        observed = os.path.join(d, "observed.cfg")
        with open(observed, "w") as f:
            f.write('plugins = ( { family = "dma"; module = "trnsim-dma"; },\n'
                    f'  {{ family = "nancount"; module = "{a.module}"; settings = {{ report = "{report}"; }}; }} );\n')
        for tag, cfg in (("plain", plain), ("observed", observed)):
            args = [a.trnsim, "run", a.program, "--config", cfg]
            for name in outs:
                args += ["--output", f"{name}={os.path.join(d, tag + '_' + name + '.npy')}"]
            run(args)
        for name in outs:
            p, o = (os.path.join(d, f"{t}_{name}.npy") for t in ("plain", "observed"))
            if open(p, "rb").read() != open(o, "rb").read():
                fail(f"output {name} differs with the observer loaded")
        want = {}
        for name, op in outs.items():
            n, size = nans(os.path.join(d, f"plain_{name}.npy"))
            c = want.setdefault(op, [0, 0, 0])
            c[0] += 1
            c[1] += size
            c[2] += n
        if want["TensorCopy"][2] != 10 or want["Load"][2] != 5:
            fail(f"the program's outputs do not hold the NaNs it was written to write: {want}")
        got = table(open(report).read())
        expect = {"TensorCopy": (23, *want["TensorCopy"]), "Load": (19, *want["Load"])}
        if got != expect:
            fail(f"table {got}, expected {expect}:\n{open(report).read()}")
        print(f"ok: the observer's table matches the outputs: {expect}")
        # Without a report file the table goes to stderr, after the run.
        with open(os.path.join(d, "stderr.cfg"), "w") as f:
            f.write('plugins = ( { family = "dma"; module = "trnsim-dma"; },\n'
                    f'  {{ family = "nancount"; module = "{a.module}"; }} );\n')
        r = run([a.trnsim, "run", a.program, "--config", os.path.join(d, "stderr.cfg")])
        if table(r.stderr) != expect or "NaNs written per opcode" not in r.stderr:
            fail(f"stderr table: {r.stderr!r}")
        print("ok: without a report file the table goes to stderr")


main()
