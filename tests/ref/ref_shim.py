#!/usr/bin/env python3
"""A stand-in for the trnsim executable, for a family's own program tests.

A test runner given `--trnsim ref_shim.py` gets exactly what the real trnsim
($REF_SHIM_TRNSIM) answers; in addition, every `run` it makes is repeated as

    trnsim diff PROGRAM --config ... --set ... --input ... --against-module $REF_SHIM_SWAP

and the outcome appended to $REF_SHIM_LOG as one JSON line
{"program", "run_rc", "diff_rc", "stdout", "stderr"}, so the runner's own
programs and inputs (known answers, special values) are the ones compared.
ref_runner.py reads the log.
"""
import json
import os
import subprocess
import sys

# run options diff takes too (each with a value); the other options (outputs,
# traces, statistics, dumps) only concern the run
KEEP = {"--config", "--set", "--input", "--format", "--function", "--max-instructions", "--timeout"}
WITH_VALUE = {"--output", "--trace", "--trace-filter", "--trace-limit", "--timeline", "--dump-at",
              "--dump-on-error", "--restore"}


def diff_args(argv):
    """The program and the options diff repeats; None when run is asked for
    something diff does not compare (a restore starts from a dump)."""
    keep, program, i = [], None, 0
    while i < len(argv):
        a = argv[i]
        if a == "--restore":
            return None, []
        if a in KEEP and i + 1 < len(argv):
            keep += [a, argv[i + 1]]
            i += 1
        elif a in WITH_VALUE:
            i += 1
        elif not a.startswith("-") and program is None:
            program = a
        i += 1
    return program, keep


def main():
    real = os.environ["REF_SHIM_TRNSIM"]
    argv = sys.argv[1:]
    p = subprocess.run([real] + argv, stdin=sys.stdin)
    if argv[:1] == ["run"]:
        program, keep = diff_args(argv[1:])
        if program:
            swap = ["--against-module", os.environ["REF_SHIM_SWAP"]]
            d = subprocess.run([real, "diff", program] + keep + swap, capture_output=True,
                               text=True, timeout=600)
            rec = {"program": program, "args": keep, "run_rc": p.returncode,
                   "diff_rc": d.returncode,
                   "stdout": d.stdout[-4000:], "stderr": d.stderr[-4000:]}
            with open(os.environ["REF_SHIM_LOG"], "a") as f:
                f.write(json.dumps(rec) + "\n")
    sys.exit(p.returncode)


if __name__ == "__main__":
    main()
