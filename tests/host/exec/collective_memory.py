#!/usr/bin/python3
"""Collective records are dropped once no core can need them, so
a loop of collectives runs in flat memory, and what the module must keep
counts against machine.max_bytes (host API keep_bytes).

Before: about 540 bytes per collective per core stayed for the whole run;
8 cores x 10^5 trips of a one-element AllReduce peaked at 439 MB.

Usage: collective_memory.py TRNSIM"""
import json
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
from clicase import Cli, case, finish, one_line_error  # noqa: E402

trnsim = sys.argv[1]
run = Cli(trnsim, timeout=120).run
FLAT_KB = 64 * 1024  # the runs below need about 7 MB; the old registry 439 MB


def write(d, name, prog):
    path = f"{d}/{name}.json"
    with open(path, "w") as f:
        json.dump(prog, f)
    return path


def allreduce_loop(cores, trips, groups=None):
    cc = {"opcode": "CollectiveCompute", "kind": "AllReduce", "reduce_op": "add", "inputs": ["x"], "outputs": ["y"]}
    if groups:
        cc["replica_groups"] = groups
    return {"cores": cores,
            "tensors": [{"name": "x", "memory": "sbuf", "dtype": "float32", "shape": [1, 1],
                         "data_per_core": [[float(c)] for c in range(cores)]},
                        {"name": "y", "memory": "sbuf", "dtype": "float32", "shape": [1, 1]}],
            "instructions": [{"loop": {"trips": trips, "body": [cc]}}]}


def p2p_loop(trips):
    return {"cores": 2,
            "tensors": [{"name": "x", "memory": "sbuf", "dtype": "float32", "shape": [1, 1],
                         "data_per_core": [[1.5], [2.5]]},
                        {"name": "y", "memory": "sbuf", "dtype": "float32", "shape": [1, 1], "fill": 0}],
            "instructions": [{"loop": {"trips": trips, "body": [
                {"opcode": "CollectiveSend", "inputs": ["x"], "peer_id": [1, -1]},
                {"opcode": "CollectiveRecv", "outputs": ["y"], "peer_id": [-1, 0]}]}}]}


def peak_kb(*args):
    r = subprocess.run(["/usr/bin/time", "-f", "%M", trnsim, *args], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return int(r.stderr.strip().splitlines()[-1])


def allreduce_flat(d):
    path, out = write(d, "ar", allreduce_loop(8, 100000)), f"{d}/y.npy"
    kb = peak_kb("run", path, "--output", f"y@5={out}")
    assert kb < FLAT_KB, f"peak {kb} kB"
    assert np.array_equal(np.load(out), np.array([[28.0]], np.float32))


def p2p_flat(d):
    path, out = write(d, "p2p", p2p_loop(100000)), f"{d}/y.npy"
    kb = peak_kb("run", path, "--output", f"y@1={out}")
    assert kb < FLAT_KB, f"peak {kb} kB"
    assert np.array_equal(np.load(out), np.array([[1.5]], np.float32))


def run_ahead_over_budget(d):
    """Core 2 is in no group: it posts its records without waiting and runs
    10^6 collectives ahead of cores 0 and 1, which must keep them all."""
    path, out = write(d, "ahead", allreduce_loop(3, 1000000, [[0, 1]])), f"{d}/y.npy"
    small = ["--set", "machine.partitions=4", "--set", "machine.hbm_bytes=65536"]
    r = run("run", path, *small, "--set", "machine.max_bytes=67108864", "--output", f"y@0={out}", rc=1)
    one_line_error(r, "(core 2, opcode CollectiveCompute/48", "module trnsim-collective keeps",
                   "more would pass machine.max_bytes = 67108864", "raise machine.max_bytes")
    assert not os.path.exists(out)


def restore_after_dropping(d):
    """A dump deep in the loop holds only what the registry still keeps (and
    where each list starts); restoring it gives the uninterrupted bytes."""
    path, dump, out = write(d, "ar", allreduce_loop(4, 1000)), f"{d}/dump", f"{d}/y.npy"
    run("run", path, "--dump-at", f"700@2={dump}")
    recs = np.load(f"{dump}/modules/collective/records.npy")
    assert len(recs) <= 8, recs.shape
    starts = np.load(f"{dump}/modules/collective/list_starts.npy")
    assert starts.shape[1] == 3 and (starts[:, 2] >= 690).all(), starts
    run("run", path, "--restore", dump, "--output", f"y@3={out}")
    assert np.array_equal(np.load(out), np.array([[6.0]], np.float32))


case("8 cores x 10^5 AllReduces in flat memory", allreduce_flat)
case("10^5 Send / Recv pairs in flat memory", p2p_flat)
case("what the module keeps counts against machine.max_bytes", run_ahead_over_budget)
case("a dump after records were dropped restores", restore_after_dropping)
sys.exit(finish())
