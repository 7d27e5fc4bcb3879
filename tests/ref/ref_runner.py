#!/usr/bin/env python3
"""A family's own program tests, each run also diffed against a module.

    ref_runner.py --trnsim T --swap FAMILY=MODULE [--mutant] --case "CMD ..." ...

Each --case is a test runner's command line (split on spaces) with @SHIM@
where it takes the trnsim executable: it is given ref_shim.py, which answers
as trnsim does and repeats every successful `run` as `trnsim diff ...
--against-module FAMILY=MODULE`. The runner must still pass (its own known
answers). Then, without --mutant, every program that ran must be identical
(diff exit 0); with --mutant, at least one must differ (exit 1, with the
difference report). A run that failed on purpose (an error test) is not
compared: diff then fails on both sides.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trnsim", required=True)
    ap.add_argument("--swap", required=True)
    ap.add_argument("--mutant", action="store_true")
    ap.add_argument("--case", action="append", required=True)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="trnsim-ref-run-") as tmp:
        log = os.path.join(tmp, "diffs.jsonl")
        env = dict(os.environ, REF_SHIM_TRNSIM=os.path.abspath(a.trnsim), REF_SHIM_SWAP=a.swap,
                   REF_SHIM_LOG=log)
        shim = os.path.join(HERE, "ref_shim.py")
        for case in a.case:
            cmd = [shim if w == "@SHIM@" else w for w in case.split()]
            p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1200)
            if p.returncode != 0:
                fail(f"{case}: the runner failed (exit {p.returncode})\n"
                     f"{p.stdout[-3000:]}{p.stderr[-3000:]}")
        recs = []
        if os.path.exists(log):
            with open(log) as f:
                recs = [json.loads(line) for line in f]
    ran = [r for r in recs if r["run_rc"] == 0]
    if not ran:
        fail(f"no program of {len(a.case)} runner case(s) ran successfully: nothing was compared")
    differing = 0
    for r in ran:
        what = (f"trnsim diff {os.path.basename(r['program'])} {' '.join(r['args'])} "
                f"--against-module {a.swap}")
        if r["diff_rc"] == 1:
            if "difference at instruction" not in r["stdout"]:
                fail(f"{what}: exit 1 without a difference report\n{r['stdout']}{r['stderr']}")
            if not a.mutant:
                fail(f"{what}: the module differs\n{r['stdout']}")
            differing += 1
        elif r["diff_rc"] != 0 or not r["stdout"].startswith("identical"):
            fail(f"{what}: exit {r['diff_rc']} where run succeeded\n{r['stdout']}{r['stderr']}")
    if a.mutant and not differing:
        fail(f"the planted bug in {a.swap} was not found in {len(ran)} programs")
    print(f"ok: {len(ran)} programs compared ({len(recs) - len(ran)} error runs not compared), "
          f"{differing} differing")


if __name__ == "__main__":
    main()
