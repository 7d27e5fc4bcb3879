#!/usr/bin/python3
"""trnsim describe OPCODE and trnsim opcodes --attrs print what the modules'
schemas declare, on the embedded default config. Usage: cli_describe.py TRNSIM"""
import os
import re
import subprocess
import sys

trnsim = sys.argv[1]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from clicase import Cli, case, finish  # noqa: E402

run = Cli(trnsim).run


def describe_max():
    lines = run("describe", "Max").stdout.splitlines()
    assert re.fullmatch(r"Max \(IT 88\): family search, module trnsim-search \(.+\)", lines[0]), lines[0]
    assert lines[1] == "operands:", lines
    assert lines[2].split()[:2] == ["input", "data"] and "[P][8..16384]" in lines[2], lines[2]
    assert lines[3].split()[:2] == ["output", "values"] and "[P][8]" in lines[3], lines[3]
    assert lines[4] == "attributes: none (any attribute is an error)", lines


def describe_rand2_defaults():
    out = run("describe", "Rand2").stdout
    assert re.search(r"^  min +number, default 0$", out, re.M), out
    assert re.search(r"^  max +number, default 1$", out, re.M), out


def describe_collective_enums():
    out = run("describe", "CollectiveCompute").stdout
    assert re.search(r"^  replica_groups ", out, re.M), out
    assert re.search(r"^      AllReduce +=", out, re.M), out


def describe_misspelled():
    r = run("describe", "max", rc=1)
    assert r.stdout == "", r.stdout
    assert r.stderr.strip().splitlines() == [
        "trnsim: describe: no loaded module handles an opcode named 'max'; did you mean 'Max'? "
        "(trnsim opcodes lists them)"], r.stderr


def describe_missing_name():
    r = run("describe", rc=1)
    assert r.stderr.strip() == "trnsim: describe: missing OPCODE (trnsim opcodes lists the names)", r.stderr


def opcodes_attrs_covers_every_opcode():
    listed = [l.split()[:4] for l in run("opcodes").stdout.splitlines()[1:] if l[:1].isdigit()]
    out = run("opcodes", "--attrs").stdout
    heads = re.findall(r"^(\S+) \(IT (\d+)\): family (\S+), module (\S+) ", out, re.M)
    assert [[it, name, fam, mod] for name, it, fam, mod in heads] == listed, (heads, listed)
    assert len(listed) > 30, listed


for n, f in list(globals().items()):
    if callable(f) and n not in ("run", "case") and f.__module__ == "__main__" and f.__code__.co_argcount == 0:
        case(n, f)
sys.exit(finish())
