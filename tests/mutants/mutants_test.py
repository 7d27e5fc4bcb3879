#!/usr/bin/python3
"""ctest mutants_conform_kills: install this build into a temporary prefix,
then run_mutants.py --only IDS --expect-killed against that prefix alone.

    mutants_test.py --build-dir B --cmake CMAKE --only ID,... [--time T]

The build tree is left as found (`cmake --install` writes
B/install_manifest.txt; it is restored or removed). Exit 0 when every named
mutant builds against the installed kit and conform kills it.
"""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--cmake", required=True)
    ap.add_argument("--only", required=True)
    ap.add_argument("--time", default="20")
    a = ap.parse_args()
    manifest = os.path.join(a.build_dir, "install_manifest.txt")
    old = open(manifest, "rb").read() if os.path.exists(manifest) else None
    with tempfile.TemporaryDirectory(prefix="trnsim-mutants-") as tmp:
        prefix = os.path.join(tmp, "prefix")
        try:
            p = subprocess.run([a.cmake, "--install", a.build_dir, "--prefix", prefix],
                               capture_output=True, text=True)
        finally:
            if old is None:
                if os.path.exists(manifest):
                    os.remove(manifest)
            else:
                with open(manifest, "wb") as f:
                    f.write(old)
        if p.returncode:
            print(p.stdout[-2000:], p.stderr[-2000:], file=sys.stderr)
            return 1
        # nothing but the prefix may lead the mutant builds to headers or packages
        env = {k: v for k, v in os.environ.items()
               if k not in ("CMAKE_PREFIX_PATH", "PKG_CONFIG_PATH", "CPATH", "C_INCLUDE_PATH",
                            "trnsim_DIR", "TRNSIM_PLUGIN_PATH")}
        cmd = [sys.executable, os.path.join(HERE, "run_mutants.py"), "--prefix", prefix,
               "--only", a.only, "--time", a.time, "--seed", "1", "--expect-killed",
               "--work", os.path.join(tmp, "work"), "--markdown", "-"]
        r = subprocess.run(cmd, env=env)
        return r.returncode


if __name__ == "__main__":
    sys.exit(main())
