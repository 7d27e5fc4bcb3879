#!/usr/bin/python3
"""--restore trusts nothing it reads: dumps edited into states no
run could have produced are one line naming the dump file and field, never
a silently wrong answer, a crash or a hang.

A two-core loop of AllReduces is dumped mid-loop; each case edits one value
of that dump and restores it.

Usage: restore_trust.py TRNSIM REPO_DIR"""
import json
import os
import shutil
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
from clicase import Cli, case, finish, one_line_error  # noqa: E402

trnsim, repo = sys.argv[1], sys.argv[2]
run = Cli(trnsim, timeout=60).run

PROG = {"cores": 2,
        "tensors": [{"name": "y", "memory": "sbuf", "dtype": "float32", "shape": [1, 4],
                     "data_per_core": [[1, 2, 3, 4], [5, 6, 7, 8]]},
                    {"name": "z", "memory": "sbuf", "dtype": "float32", "shape": [1, 4]}],
        "instructions": [{"loop": {"trips": 8, "body": [
            {"opcode": "CollectiveCompute", "kind": "AllReduce", "reduce_op": "add", "inputs": ["y"],
             "outputs": ["z"]},
            {"opcode": "CollectiveCompute", "kind": "AllReduce", "reduce_op": "add", "inputs": ["z"],
             "outputs": ["y"]}]}}]}


def setup(d, at="5@0"):
    """The program, a dump before index 5 of core 0 (trip 2: core 1 waits)."""
    prog, dump = f"{d}/loop.json", f"{d}/dump"
    with open(prog, "w") as f:
        json.dump(PROG, f)
    run("run", prog, "--dump-at", f"{at}={dump}")
    return prog, dump


def edit_manifest(dump, fn):
    path = f"{dump}/manifest.json"
    man = json.load(open(path))
    fn(man)
    with open(path, "w") as f:
        json.dump(man, f)


def refused(d, prog, dump, *needles, at_start=True):
    """One line and no output; at_start: refused before the run (else when a
    core meets the edited value, the message names the instruction)."""
    out = f"{d}/y.npy"
    r = run("run", prog, "--restore", dump, "--output", f"y={out}", rc=1)
    one_line_error(r, f"--restore {dump}: " if at_start else "instruction 2 (core 0", *needles)
    assert not os.path.exists(out), out


def untouched_restore(d):
    """The unedited dump restores to the uninterrupted run's bytes."""
    prog, dump = setup(d)
    run("run", prog, "--restore", dump, "--output", f"y@0={d}/y.npy")
    y = np.load(f"{d}/y.npy")
    want = np.array([[1, 2, 3, 4]], np.float32) + np.array([[5, 6, 7, 8]], np.float32)
    assert np.array_equal(y, want * 2 ** 15), y


def position_cases(d):
    prog, dump = setup(d)
    keep = f"{d}/keep"
    shutil.copytree(dump, keep)
    edits = [
        (lambda m: m["cores"][0]["trips"].__setitem__(0, 2 ** 62), "cores[0].trips[0] is 4611686018427387904",
         "has 8 trips", "inside it is at trip 0 .. 7"),
        (lambda m: m["cores"][1]["trips"].__setitem__(0, -2 ** 63), "cores[1].trips[0] is -9223372036854775808"),
        (lambda m: m["cores"][0].__setitem__("done", True), "cores[0].done is true",
         "is not the program's end"),
        (lambda m: m["cores"][0].__setitem__("entry", 4), "cores[0].index is 5",
         "its entry 4 and trips put it at instruction index 16"),
        (lambda m: m["cores"][0].__setitem__("index", 7), "cores[0].index is 7", "at instruction index 5"),
        (lambda m: m["cores"][0]["trips"].__setitem__(0, "2"), "cores[0].trips[0] is not an integer"),
    ]
    for fn, *needles in edits:
        shutil.rmtree(dump)
        shutil.copytree(keep, dump)
        edit_manifest(dump, fn)
        refused(d, prog, dump, "manifest.json: ", *needles)


def edit_npy(path, fn):
    a = np.load(path)
    fn(a)
    np.save(path, a)


def module_cases(d):
    """The collective registry's state: records met later, the waits."""
    prog, dump = setup(d)
    keep = f"{d}/keep"
    shutil.copytree(dump, keep)
    recs = "modules/collective/records.npy"
    r = np.load(f"{dump}/{recs}")
    pending = [i for i in range(len(r)) if r[i, 3] == 1 and not r[i, 7]]
    assert len(pending) == 1, r[:, :8]
    p = pending[0]

    def set_cell(row, col, v):
        return lambda a: a.__setitem__((row, col), v)

    edits = [
        (recs, set_cell(p, 25 + 2, 4), "collective #5 of core 1", "records.npy", "another input dtype",
         "the dump does not match the program"),
        (recs, set_cell(p, 25 + 16 + 16 + 2, 4), "another output dtype"),
        # a count and its AP disagree: refused on reading (handlers size buffers by the count)
        (recs, set_cell(p, 25 + 16 + 16 + 9, 3), f"records[{p}] is not a record of this run",
         "its output count 4 is not the 3 elements its access pattern visits"),
        (recs, set_cell(p, 12, 3), f"records[{p}] is not a record of this run",
         "its output count 3 is not the 4 elements its access pattern visits"),
        # the fuzz_dump finding: no inputs claimed, an input AP of 15794176 partitions and a
        # count of 8 (a Send's copy then overflowed its 8-element buffer)
        (recs, lambda a: (a.__setitem__((p, 8), 0), a.__setitem__((p, 25 + 4), 15794176),
                          a.__setitem__((p, 25 + 7), 0), a.__setitem__((p, 10), 8)),
         f"records[{p}] is not a record of this run",
         "its input 0 count 8 is not the 15794176 elements its access pattern visits"),
        # the same operand shape in both, another than the instruction's
        (recs, lambda a: (a.__setitem__((p, 12), 2), a.__setitem__((p, 25 + 16 + 16 + 9), 2)),
         "another operand shape"),
        (recs, set_cell(p, 25 + 6, 2 ** 40), "another operand place"),
        (recs, set_cell(p, 19, 2 ** 40), f"records[{p}] is not a record of this run"),
        (recs, lambda a: (a.__setitem__((p, 19), 2 ** 62), a.__setitem__((p, 20), 2 ** 62)),
         f"records[{p}] is not a record of this run"),
        ("modules/collective/waits.npy", set_cell(1, 2, -1), "waits[1]: core 1 waits at instruction index 5 on "
         "no record"),
        ("modules/collective/waits.npy", set_cell(1, 1, 3), "waits[1]: core 1 waits at instruction index 3",
         "another core or instruction"),
        ("modules/collective/waits.npy", set_cell(1, 4, 0), "waits[1] names a record the dump does not hold"),
    ]
    for f, fn, *needles in edits:
        shutil.rmtree(dump)
        shutil.copytree(keep, dump)
        edit_npy(f"{dump}/{f}", fn)
        at_start = "records[" in needles[0] or "waits[" in needles[0]
        refused(d, prog, dump, "module 'trnsim-collective' (family collective): state_restore failed: "
                if at_start else "", *needles, at_start=at_start)


def file_cases(d):
    """Only regular files inside the dump are opened: a FIFO would block the
    open for ever, a link may lead anywhere."""
    prog, dump = setup(d)
    keep = f"{d}/keep"
    shutil.copytree(dump, keep)
    for rel in ("manifest.json", "registers.npy", "modules/collective/waits.npy", "memory/core0.sbuf.bytes.npy"):
        for kind in ("fifo", "outside", "dir"):
            shutil.rmtree(dump)
            shutil.copytree(keep, dump)
            path = f"{dump}/{rel}"
            os.unlink(path)
            if kind == "fifo":
                os.mkfifo(path)
                refused(d, prog, dump, f"{path} is a FIFO; a dump holds regular files only")
            elif kind == "dir":
                os.mkdir(path)
                refused(d, prog, dump, f"{path} is a directory; a dump holds regular files only")
            else:
                shutil.copy(f"{keep}/{rel}", f"{d}/elsewhere")
                os.symlink(f"{d}/elsewhere", path)
                refused(d, prog, dump, f"{path} leads to {os.path.realpath(d)}/elsewhere, outside the dump")
    # a link that stays inside the dump is a file of the dump
    shutil.rmtree(dump)
    shutil.copytree(keep, dump)
    os.rename(f"{dump}/registers.npy", f"{dump}/regs.npy")
    os.symlink("regs.npy", f"{dump}/registers.npy")
    run("run", prog, "--restore", dump)


def config_cases(d):
    """The settings in effect, not only the top file's text: a file the
    config @includes changed since the dump; the machine block."""
    prog = f"{d}/loop.json"
    with open(prog, "w") as f:
        json.dump(PROG, f)
    top, inc, dump = f"{d}/my.cfg", f"{d}/inc.cfg", f"{d}/dump"
    with open(top, "w") as f:
        f.write('@include "inc.cfg"\n')
    with open(inc, "w") as f:
        f.write('@include "default.cfg"\nmax_executions = 1000000;\n')
    run("run", prog, "--config", top, "--dump-at", f"5@0={dump}")
    run("run", prog, "--config", top, "--restore", dump)
    with open(inc, "w") as f:
        f.write('@include "default.cfg"\nmax_executions = 2000000;\n')
    out = f"{d}/y.npy"
    r = run("run", prog, "--config", top, "--restore", dump, "--output", f"y={out}", rc=1)
    one_line_error(r, f"--restore {dump}: the dump was made with config {top} and no --set too, but the settings "
                   "in effect differ", "the file or one it @includes changed since the dump")
    assert not os.path.exists(out)
    with open(inc, "w") as f:
        f.write('@include "default.cfg"\nmax_executions = 1000000;\n')
    edit_manifest(dump, lambda m: m["machine"].__setitem__("partitions", 64))
    r = run("run", prog, "--config", top, "--restore", dump, "--output", f"y={out}", rc=1)
    one_line_error(r, f"--restore {dump}: manifest.json: machine.partitions is 64, this run's is 128")
    assert not os.path.exists(out)


case("an unedited dump restores to the same bytes", untouched_restore)
case("a core's position the program cannot reach", position_cases)
case("collective records and waits the program cannot have made", module_cases)
case("the effective config and the machine block are compared", config_cases)
case("FIFOs, directories and links out of the dump are not opened", file_cases)
sys.exit(finish())
