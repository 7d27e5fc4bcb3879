#!/usr/bin/python3
"""Run one trnsim program and check what it produced.

    progtest.py --trnsim BIN PROGRAM.json [--config CFG] [--input NAME[@K]=F.npy]...
                [--expect NAME[@K]=F.npy]... [--output NAME[@K]]... [--check SCRIPT.py]
                [--expect-error TEXT]... [--expect-stdout TEXT]... [--expect-stderr TEXT]... [--arg X]...

--expect compares an output with an .npy file bit for bit (same dtype, same
shape, same bytes: NaN payloads and -0.0 count). --output only asks for an
output (for --check). --check runs `python3 SCRIPT OUTDIR` after a
successful run; outputs are OUTDIR/NAME.npy (NAME@K.npy for one core).
--expect-error: the run must fail with exactly one line on stderr containing
every TEXT, and must leave no output file behind. Exit 0 when all holds.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def compare(name, got_path, want_path):
    got, want = np.load(got_path), np.load(want_path)
    if got.dtype != want.dtype:
        fail(f"{name}: dtype {got.dtype}, expected {want.dtype}")
    if got.shape != want.shape:
        fail(f"{name}: shape {got.shape}, expected {want.shape}")
    if got.tobytes() != want.tobytes():
        g = got.reshape(-1).view(f"u{got.dtype.itemsize}") if got.dtype.kind == "f" else got.reshape(-1)
        w = want.reshape(-1).view(f"u{want.dtype.itemsize}") if want.dtype.kind == "f" else want.reshape(-1)
        bad = np.nonzero(g != w)[0]
        i = int(bad[0])
        fail(f"{name}: {len(bad)} of {g.size} elements differ; first at flat index {i}: "
             f"got {got.reshape(-1)[i]!r} (bits {g[i]:#x}), expected {want.reshape(-1)[i]!r} (bits {w[i]:#x})")
    print(f"ok: {name} matches {want_path} ({got.size} elements, {got.dtype})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trnsim", required=True)
    ap.add_argument("program")
    ap.add_argument("--config")
    ap.add_argument("--input", action="append", default=[])
    ap.add_argument("--expect", action="append", default=[])
    ap.add_argument("--output", action="append", default=[])
    ap.add_argument("--check")
    ap.add_argument("--expect-error", action="append", default=[])
    ap.add_argument("--expect-stdout", action="append", default=[])
    ap.add_argument("--expect-stderr", action="append", default=[])
    ap.add_argument("--arg", action="append", default=[])
    a = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="progtest-") as out:
        cmd = [a.trnsim, "run", a.program]
        if a.config:
            cmd += ["--config", a.config]
        for i in a.input:
            cmd += ["--input", i]
        wanted = {}
        for e in a.expect:
            name, path = e.split("=", 1)
            wanted[name] = path
        names = list(wanted) + a.output
        for name in names:
            cmd += ["--output", f"{name}={os.path.join(out, name + '.npy')}"]
        cmd += a.arg
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        sys.stdout.write(r.stdout)
        if a.expect_error:
            lines = r.stderr.strip().splitlines()
            if r.returncode == 0:
                fail("expected a failure, the run succeeded")
            if len(lines) != 1:
                fail(f"expected exactly one line on stderr, got {len(lines)}:\n{r.stderr}")
            for t in a.expect_error:
                if t not in lines[0]:
                    fail(f"stderr lacks {t!r}:\n{r.stderr}")
            left = os.listdir(out)
            if left:
                fail(f"a failed run left files behind: {left}")
            print(f"ok: failed as expected: {lines[0]}")
            return
        if r.returncode != 0:
            fail(f"trnsim exited {r.returncode}:\n{r.stderr}")
        sys.stderr.write(r.stderr)
        for t in a.expect_stdout:
            if t not in r.stdout:
                fail(f"stdout lacks {t!r}")
        for t in a.expect_stderr:
            if t not in r.stderr:
                fail(f"stderr lacks {t!r}")
        for name, path in wanted.items():
            compare(name, os.path.join(out, name + ".npy"), path)
        if a.check:
            c = subprocess.run([sys.executable, a.check, out], capture_output=True, text=True, timeout=600)
            sys.stdout.write(c.stdout)
            if c.returncode != 0:
                fail(f"{a.check} failed:\n{c.stderr}")
            print(f"ok: {a.check}")


if __name__ == "__main__":
    main()
