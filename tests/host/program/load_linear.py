#!/usr/bin/python3
"""Loading is linear in the number of names: 100k native tensors
(the text fast path and the document reader) and 100k BIR allocations load
in seconds, not minutes (each name was compared with every earlier one:
24 s and 15 s on an idle machine, more than 120 s and 60 s on a loaded
one); duplicates are still found; --timeout covers loading.

Usage: load_linear.py TRNSIM"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
from clicase import Cli, case, finish, one_line_error  # noqa: E402

run = Cli(sys.argv[1], timeout=60).run
N = 100000
LIMIT = 20.0  # seconds, on a shared machine; the quadratic loads took minutes


def native(d, indent=None, dup=False):
    ts = [{"name": f"t{i}", "memory": "hbm", "dtype": "float32", "shape": [4]} for i in range(N)]
    if dup:
        ts[N - 1]["name"] = "t17"
    path = f"{d}/t{'_doc' if indent else ''}{'_dup' if dup else ''}.json"
    with open(path, "w") as f:
        json.dump({"tensors": ts, "instructions": [
            {"opcode": "DMACopy", "inputs": ["t0"], "outputs": [f"t{N - 2}"]}]}, f, indent=indent)
    return path


def bir(d, dup=False):
    allocs = [{"Skind": "memory_location_set", "name": f"a{i}", "kind": "Internal", "dtype": "float32",
               "partition_dim": 0, "tensor_shape": [4],
               "memorylocations": [{"Skind": "memory_location", "name": f"a{i}_hbm", "type": "DRAM",
                                    "addr": i * 16, "dims": [16]}]} for i in range(N)]
    if dup:
        allocs[N - 1]["name"] = "a5"
    path = f"{d}/a{'_dup' if dup else ''}.bir.json"
    with open(path, "w") as f:
        json.dump({"version": 2, "arch": "gen3", "functions": [
            {"name": "f", "allocations": allocs, "blocks": [{"name": "main", "instructions": []}]}]}, f)
    return path


def timed(*args, rc=0):
    t0 = time.monotonic()
    r = run(*args, rc=rc)
    took = time.monotonic() - t0
    assert took < LIMIT, f"{args}: {took:.1f} s"
    return r


def native_loads(d):
    for indent in (None, 1):  # the text fast path, the document reader
        r = timed("check", native(d, indent))
        assert "ok (1 core)" in r.stdout, r.stdout
    r = timed("check", native(d, None, dup=True), rc=1)
    one_line_error(r, "tensor 't17': declared twice")


def bir_loads(d):
    r = timed("check", bir(d))
    assert "100000" in r.stdout, r.stdout
    r = timed("check", bir(d, dup=True), rc=1)
    one_line_error(r, "allocation 'a5': declared twice")


def timeout_covers_loading(d):
    path = native(d)
    out = f"{d}/y.npy"
    r = run("run", path, "--timeout", "0.001", "--output", f"t0={out}", rc=1)
    one_line_error(r, f"{path}: loading took", "past --timeout 0.001; nothing ran")
    assert not os.path.exists(out)


case("100k native tensors load in seconds", native_loads)
case("100k BIR allocations load in seconds", bir_loads)
case("--timeout covers loading", timeout_covers_loading)
sys.exit(finish())
