#!/usr/bin/python3
"""docs/getting-started.md works as written: its program (the first ```json
block) checks and runs, the failing run without data prints the error the
page quotes and writes nothing, and the run with the page's data gives the
values the page prints, which are also numpy's top 8 and their indices.

    check_getting_started.py TRNSIM PAGE
"""
import os
import re
import subprocess
import sys
import tempfile

import numpy as np


def main():
    trnsim, page = sys.argv[1:3]
    text = open(page).read()
    program = re.search(r"```json\n(.*?)```", text, re.S).group(1)
    printed = re.search(r"which prints\n\n((?:    .*\n)+)", text).group(1)
    with tempfile.TemporaryDirectory() as d:
        with open(f"{d}/top8.json", "w") as f:
            f.write(program)
        run = lambda *a: subprocess.run([trnsim, *a], capture_output=True, text=True, cwd=d, timeout=60)
        r = run("check", "top8.json")
        assert r.returncode == 0 and r.stdout.strip() == "top8.json: ok (1 core)", (r.stdout, r.stderr)
        r = run("run", "top8.json", "--output", "top8=top8.npy")
        quoted = "reads never-written sbuf bytes at partition 0, byte offset 0"
        assert r.returncode == 1 and quoted in r.stderr and quoted in text, r.stderr
        assert len(r.stderr.splitlines()) == 1 and not os.path.exists(f"{d}/top8.npy"), r.stderr
        x = np.arange(32, dtype=np.float32).reshape(2, 16)[:, ::-1] * 0.5  # the page's data
        assert "np.arange(32, dtype=np.float32).reshape(2, 16)[:, ::-1] * 0.5" in text
        np.save(f"{d}/x.npy", x)
        r = run("run", "top8.json", "--input", "x=x.npy", "--output", "top8=top8.npy", "--output", "idx8=idx8.npy")
        assert r.returncode == 0, r.stderr
        top8, idx8 = np.load(f"{d}/top8.npy"), np.load(f"{d}/idx8.npy")
    want_idx = np.argsort(-x, axis=1, kind="stable")[:, :8]
    assert np.array_equal(top8, np.take_along_axis(x, want_idx, axis=1)), top8
    assert np.array_equal(idx8, want_idx.astype(np.uint32)), idx8
    shown = "\n".join(l[4:] for l in printed.splitlines())
    got = f"{top8}\n{idx8}"
    assert shown.split() == got.split(), f"the page prints\n{shown}\nthe run gives\n{got}"
    print("ok: docs/getting-started.md: check, the quoted error, and the printed top 8 and indices")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        print(f"FAIL: {e}")
        sys.exit(1)
