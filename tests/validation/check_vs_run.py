#!/usr/bin/python3
"""check and run agree on every error program of the suite.

    check_vs_run.py --trnsim build/trnsim --build build --wrapper tests/tools/trnsim_both.py

It lists the suite's tests (`ctest --show-only=json-v1`), takes every test
that checks errors through the trnsim binary (its name says so: ERROR_TESTS
below) and runs it with trnsim_both.py in place of the binary. Each of
those tests must still pass, and every `trnsim run` in it that failed was
also given to `trnsim check` (with the options check takes). Then, for each
failed run:
  - static errors (the default): check fails with the identical line;
  - the errors of DATA_DEPENDENT (matched by their message, each with its
    reason), and errors of an instruction with a dynamic offset
    (offset_register: the register's value exists only while running):
    check passes (exit 0), since nothing it could know without running
    says the program is wrong.
A failure lists every disagreement with its test and program."""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

# Tests whose name says they check errors. The MPI tests start their
# processes through mpirun, so they are not run here (docs/cli.md says so);
# this test itself is not matched.
ERROR_TESTS = re.compile(r"err|refus|bad|mistake|needs|bounds|limit|invalid|fail|missing|uninit|deadlock|oob"
                         r"|noskip|shape")
SKIP_TESTS = re.compile(r"^mpi_")

# The errors only running can find, by their message: (pattern, reason).
DATA_DEPENDENT = [
    (r"reads never-written", "uninitialised read: whether a byte was written depends on what ran before it"),
    (r"deadlock", "a rendezvous that never completes: decided by running the cores"),
    (r"late failure", "TestFail (a test opcode) fails when it executes, by design"),
    (r"--input|\.npy", "an --input file, which check does not read"),
    (r"--max-instructions|--timeout", "a run limit, which check does not take"),
    (r"index \d+ at position \d+ is outside the table", "an indirect copy's indices are data read from memory"),
    (r"is not an integer a register can hold", "TensorLoad's value is data read from memory"),
    (r"register \d+ holds", "a register's value is written while running"),
    (r"has fired all \d+ of its blocks", "a trigger's fires are counted while running"),
]
DYNAMIC_OFFSET = "a dynamic offset (offset_register): the register's value exists only while running"


def has_dynamic_offset(node):
    if isinstance(node, dict):
        return "offset_register" in node or any(has_dynamic_offset(v) for v in node.values())
    if isinstance(node, list):
        return any(has_dynamic_offset(v) for v in node)
    return False


def data_dependent(msg, program_text):
    for pat, why in DATA_DEPENDENT:
        if re.search(pat, msg):
            return why
    m = re.search(r": instruction (\d+) \(core", msg)
    try:
        insts = json.loads(program_text or "null")["instructions"]
    except (ValueError, KeyError, TypeError):
        return None
    if m and isinstance(insts, list) and int(m.group(1)) < len(insts) and has_dynamic_offset(insts[int(m.group(1))]):
        return DYNAMIC_OFFSET
    return None


def error_tests(build, trnsim):
    out = subprocess.run(["ctest", "--test-dir", build, "--show-only=json-v1"], capture_output=True, text=True,
                         check=True).stdout
    for t in json.loads(out)["tests"]:
        cmd = t.get("command") or []
        if not ERROR_TESTS.search(t["name"]) or SKIP_TESTS.search(t["name"]) or trnsim not in cmd:
            continue
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        yield t["name"], cmd, props.get("WORKING_DIRECTORY")


def line(text):
    lines = text.strip().splitlines()
    return lines[-1] if lines else ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trnsim", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--wrapper", required=True)
    a = ap.parse_args()
    trnsim = os.path.abspath(a.trnsim)
    bad, ran, records = [], [], []
    with tempfile.TemporaryDirectory(prefix="check-vs-run-") as d:
        log = os.path.join(d, "log.jsonl")
        for name, cmd, cwd in error_tests(a.build, trnsim):
            env = dict(os.environ, TRNSIM_REAL=trnsim, TRNSIM_BOTH_LOG=log, TRNSIM_BOTH_TEST=name)
            cmd = [os.path.abspath(a.wrapper) if c == trnsim else c for c in cmd]
            r = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
            ran.append(name)
            if r.returncode != 0:
                bad.append(f"{name}: the test itself failed through the wrapper:\n{r.stdout[-2000:]}{r.stderr[-2000:]}")
        if os.path.exists(log):
            with open(log) as f:
                records = [json.loads(x) for x in f]
    static = dynamic = 0
    for rec in records:
        run_msg, check_msg = line(rec["run_err"]), line(rec["check_err"])
        why = data_dependent(run_msg, rec["text"])
        where = f"{rec['test']}: {' '.join(rec['args'])}"
        if why:
            dynamic += 1
            if rec["check_rc"] != 0:
                bad.append(f"{where}: run failed for a data-dependent reason ({why}), but check failed too:\n"
                           f"  run:   {run_msg}\n  check: {check_msg}")
            continue
        static += 1
        if rec["check_rc"] == 0:
            bad.append(f"{where}: run failed, check passed:\n  run:   {run_msg}\n  check: {check_msg}")
        elif run_msg != check_msg:
            bad.append(f"{where}: check and run disagree:\n  run:   {run_msg}\n  check: {check_msg}")
    for b in bad:
        print("FAIL: " + b)
    print(f"{len(ran)} error tests run through check and run; {len(records)} failed runs: {static} static "
          f"(check gave the same line), {dynamic} data-dependent (check passed); {len(bad)} problem(s)")
    if not records:
        print("FAIL: no failed run was seen (is the wrapper in place?)")
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
