#!/usr/bin/python3
"""An ABI 1 module (the out-of-tree example compiled against the frozen ABI 1
header) loads into this trnsim, is listed, runs bit-exact, and gets no
attribute validation beyond what ABI 1 had (a misspelled attribute is the
module's business)."""
import argparse
import json
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
    return r.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trnsim", required=True)
    ap.add_argument("--module", required=True)
    ap.add_argument("--program", required=True)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="abi1-") as d:
        cfg = os.path.join(d, "abi1.cfg")
        with open(cfg, "w") as f:
            f.write(f'plugins = ( {{ family = "example"; module = "{a.module}"; }} );\n')
        listing = run([a.trnsim, "opcodes", "--config", cfg])
        if not any(line.split()[:3] == ["240", "Scale", "example"] for line in listing.splitlines()):
            fail(f"opcodes does not list Scale from the ABI 1 module:\n{listing}")
        prog = json.load(open(a.program))
        x = np.array(prog["tensors"][0]["data"], dtype=np.float32).reshape(2, 4)
        factor = np.float32(prog["instructions"][0]["factor"])
        out = os.path.join(d, "y.npy")
        run([a.trnsim, "run", a.program, "--config", cfg, "--output", f"y={out}"])
        y = np.load(out)
        want = x * factor
        if y.dtype != np.float32 or y.tobytes() != want.tobytes():
            fail(f"Scale gave {y!r}, expected {want!r}")
        print("ok: the ABI 1 module runs Scale bit for bit")
        # ABI 1: the host does not know the module's attributes, so a
        # misspelled one reaches the module, which ignores it (factor 1).
        prog["instructions"][0] = {"opcode": "Scale", "inputs": ["x"], "outputs": ["y"], "factr": -2}
        p = os.path.join(d, "misspelled.json")
        with open(p, "w") as f:
            json.dump(prog, f)
        run([a.trnsim, "check", p, "--config", cfg])
        run([a.trnsim, "run", p, "--config", cfg, "--output", f"y={out}"])
        if np.load(out).tobytes() != x.tobytes():
            fail("an ABI 1 module's unknown attribute changed the result")
        print("ok: an ABI 1 module's attributes are not validated by the host (as in ABI 1)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
