#!/usr/bin/python3
"""cmake --install into a temporary prefix, then import trnsim from there
with nothing pointing back at the build tree: the package must find the
installed libtrnsim, and libtrnsim the installed modules.

    install_test.py --build-dir B --cmake CMAKE --python-dir lib/python3/dist-packages
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

PROBE = r"""
import sys, numpy as np, trnsim
from trnsim import isa
prefix = sys.argv[1]
assert trnsim.__file__.startswith(prefix), trnsim.__file__
assert trnsim._lib.lib.path.startswith(prefix), trnsim._lib.lib.path
import trnsim.isa.search, trnsim.isa.collectives  # the isa package's files are installed too
assert isa.__file__.startswith(prefix) and trnsim.isa.search.__file__.startswith(prefix)
v, i = isa.topk(np.arange(64, dtype=np.float32).reshape(2, 32), 3)
assert v.tolist() == [[31, 30, 29], [63, 62, 61]] and i.tolist() == [[31, 30, 29]] * 2
assert isa.bn_aggr(isa.bn_stats(np.ones((1, 8), np.float32))).tolist()[0][0] == 1.0
maps = [l.split()[-1] for l in open("/proc/self/maps") if "trnsim" in l and (l.split()[-1].endswith(".so") or ".so.1" in l.split()[-1])]
assert maps and all(m.startswith(prefix) for m in maps), maps
print("ok", len(set(maps)), "trnsim objects mapped, all from the prefix")
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--cmake", required=True)
    ap.add_argument("--python-dir", required=True)
    a = ap.parse_args()
    manifest = os.path.join(a.build_dir, "install_manifest.txt")
    saved = open(manifest, "rb").read() if os.path.exists(manifest) else None
    tmp = tempfile.mkdtemp(prefix="trnsim-pyinstall-")
    try:
        prefix = os.path.join(tmp, "prefix")
        r = subprocess.run([a.cmake, "--install", a.build_dir, "--prefix", prefix], capture_output=True, text=True)
        if r.returncode:
            print(r.stdout, r.stderr)
            return 1
        env = {k: v for k, v in os.environ.items()
               if k not in ("PYTHONPATH", "TRNSIM_LIBRARY", "TRNSIM_PLUGIN_PATH", "LD_LIBRARY_PATH")}
        env["PYTHONPATH"] = os.path.join(prefix, a.python_dir)
        r = subprocess.run([sys.executable, "-c", PROBE, os.path.realpath(prefix)], capture_output=True, text=True,
                           env=env, cwd=tmp)
        print(r.stdout.strip(), r.stderr.strip())
        return 0 if r.returncode == 0 and r.stdout.startswith("ok") else 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if saved is None:
            if os.path.exists(manifest):
                os.remove(manifest)
        else:
            with open(manifest, "wb") as f:
                f.write(saved)


if __name__ == "__main__":
    sys.exit(main())
