#!/usr/bin/python3
"""Stand-in for trnsim that the check-vs-run test puts in place of the real
binary while it runs the suite's error tests (tests/validation/check_vs_run.py).

    TRNSIM_REAL=build/trnsim TRNSIM_BOTH_LOG=log.jsonl trnsim_both.py ARGS...

It runs the real trnsim with ARGS and returns exactly what it did. When the
command was `run` and it failed, it also runs `check` on the same program
with the options check takes (--config, --set, --format, --function) and appends one
JSON line to TRNSIM_BOTH_LOG: the program's text, both exit statuses and
both stderr texts, and the run-only options the check could not take."""
import json
import os
import subprocess
import sys

CHECK_OPTIONS = {"--config", "--set", "--format", "--function"}


def check_args(args):
    """check PROGRAM plus the options of args that check takes; and the rest."""
    keep, dropped, i = ["check", args[1]], [], 2
    while i < len(args):
        a = args[i]
        name = a.split("=", 1)[0]
        takes_value = "=" not in a and a.startswith("--") and i + 1 < len(args) and not args[i + 1].startswith("--")
        if name in CHECK_OPTIONS:
            keep += [a, args[i + 1]] if "=" not in a else [a]
            i += 1 if "=" in a else 2
            continue
        dropped.append(name)
        i += 2 if takes_value and name not in ("--trace", "--stats", "--stats-json", "--raw-bits") else 1
    return keep, dropped


def main():
    real, args = os.environ["TRNSIM_REAL"], sys.argv[1:]
    r = subprocess.run([real, *args], stdin=sys.stdin, capture_output=True)
    sys.stdout.buffer.write(r.stdout)
    sys.stderr.buffer.write(r.stderr)
    if len(args) >= 2 and args[0] == "run" and r.returncode != 0:
        cargs, dropped = check_args(args)
        c = subprocess.run([real, *cargs], capture_output=True, text=True)
        try:
            with open(args[1], encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError:
            text = None
        rec = {"test": os.environ.get("TRNSIM_BOTH_TEST", ""), "program": args[1], "text": text,
               "args": args, "dropped": dropped, "run_rc": r.returncode,
               "run_err": r.stderr.decode("utf-8", "replace"), "check_rc": c.returncode, "check_err": c.stderr}
        with open(os.environ["TRNSIM_BOTH_LOG"], "a") as f:
            f.write(json.dumps(rec) + "\n")
    return r.returncode


if __name__ == "__main__":
    sys.exit(main())
