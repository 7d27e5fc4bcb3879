#!/usr/bin/python3
"""Messages that name the place that wrote the mistake: the file
and line of the config that wrote a module, the --set option, "did you
mean" for module names, a bare module file name found in the working
folder, two --input for one tensor, --dump-at on an empty program, a
--trace that may grow large.

Usage: cli_places.py TRNSIM BUILD_DIR"""
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
from clicase import Cli, case, finish, one_line_error  # noqa: E402

trnsim, build = sys.argv[1], sys.argv[2]
run = Cli(trnsim, timeout=60).run

PROG = {"cores": 2,
        "tensors": [{"name": "y", "memory": "sbuf", "dtype": "float32", "shape": [1, 4], "fill": 1.0},
                    {"name": "z", "memory": "sbuf", "dtype": "float32", "shape": [1, 4]}],
        "instructions": [{"opcode": "CollectiveCompute", "kind": "AllReduce", "reduce_op": "add",
                          "inputs": ["y"], "outputs": ["z"]}]}


def prog(d, p=PROG):
    path = f"{d}/p.json"
    with open(path, "w") as f:
        json.dump(p, f)
    return path


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def including_config(d):
    cfg = f"{d}/my.cfg"
    write(cfg, '@include "default.cfg"\n# my modules\nplugins = ( { family = "collective"; '
               'module = "nosuch-collective"; } );\n')
    r = run("check", prog(d), "--config", cfg, rc=1)
    one_line_error(r, f"{cfg}:3: module 'nosuch-collective' (family collective): not found")
    assert "<embedded default config>" not in r.stderr


def set_option(d):
    p = prog(d)
    r = run("check", p, "--set", "dma.nosuch=1", rc=1)
    line = one_line_error(r, "trnsim: --set dma.nosuch=1: module 'trnsim-dma' (family dma): unknown setting "
                             "'nosuch' for module trnsim-dma")
    assert "<embedded default config>" not in line, line
    big = "machine.cores=99999999999999999999999"
    r = run("check", p, "--set", big, rc=1)
    one_line_error(r, f"trnsim: --set {big}: integer 99999999999999999999999 is outside the 64-bit range")


def did_you_mean(d):
    cfg = f"{d}/typo.cfg"
    write(cfg, 'plugins = ( { family = "collective"; module = "trnsim-colective"; } );\n')
    r = run("check", prog(d), "--config", cfg, rc=1)
    one_line_error(r, f"{cfg}:1: module 'trnsim-colective'", "not found", "did you mean 'trnsim-collective'?")


def bare_file_name(d):
    """A module file name without a folder is looked for in the working
    folder first, as ./NAME.so would be. The test module is a file in every
    build (a static build compiles the families in, not the test modules)."""
    shutil.copy(f"{build}/trnsim-test.so", f"{d}/my-test.so")
    copy = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "programs", "copy.json")
    test_cfg = os.path.join(os.path.dirname(copy), "test.cfg")
    r = run("diff", copy, "--config", test_cfg, "--against-module", "test=my-test.so", cwd=d)
    assert "identical" in r.stdout, r.stdout
    cfg = f"{d}/local.cfg"
    write(cfg, 'plugins = ( { family = "test"; module = "my-test.so"; } );\n')
    r = run("check", copy, "--config", cfg, cwd=d)
    assert "ok (" in r.stdout, r.stdout
    write(cfg, 'plugins = ( { family = "test"; module = "none-test.so"; } );\n')
    r = run("check", copy, "--config", cfg, cwd=d, rc=1)
    one_line_error(r, "not found; searched ./none-test.so, ")


def two_inputs(d):
    p, out = prog(d), f"{d}/z.npy"
    for a, b, core in (("y=a.npy", "y=b.npy", "every core"), ("y=a.npy", "y@1=b.npy", "core 1"),
                       ("y@0=a.npy", "y@0=b.npy", "core 0")):
        r = run("run", p, "--input", a, "--input", b, "--output", f"z={out}", rc=1)
        one_line_error(r, f"--input {a} and --input {b} both give tensor 'y' on {core}")
        assert not os.path.exists(out)


def dump_at_empty(d):
    p = prog(d, {"tensors": [], "instructions": []})
    r = run("run", p, "--dump-at", f"0={d}/dump", rc=1)
    line = one_line_error(r, "core 0 executes no instructions (the program has none)")
    assert "0 .. 0" not in line and not os.path.exists(f"{d}/dump")


def trace_warning(d):
    """A --trace that could pass 1 GiB, without --trace-limit, is warned
    about once before the run, with the estimate and the fix."""
    loop = dict(PROG, cores=8, tensors=[dict(PROG["tensors"][0]), PROG["tensors"][1]],
                instructions=[{"loop": {"trips": 1000000, "body": PROG["instructions"]}}])
    p, t = prog(d, loop), f"{d}/t.jsonl"
    r = run("run", p, "--trace", t, "--max-instructions", "3", rc=1)
    lines = r.stderr.splitlines()
    assert len(lines) == 2, r.stderr
    assert lines[0] == (f"trnsim: warning: --trace {t} may grow to about 4.5 GiB (1000000 instructions on 8 cores, "
                        "~600 bytes each); add --trace-limit N to write at most N records"), lines[0]
    assert "stopped after 3 instructions" in lines[1], lines[1]
    r = run("run", p, "--trace", t, "--trace-limit", "10", "--max-instructions", "3", rc=1)
    one_line_error(r, "stopped after 3 instructions")
    r = run("run", prog(d), "--trace", t)
    assert r.stderr == "", r.stderr


case("a module written in an including config is blamed on it", including_config)
case("--set KEY=VALUE: for an option", set_option)
case("did you mean, for module names", did_you_mean)
case("a bare module file name is found in the working folder", bare_file_name)
case("two --input for one tensor", two_inputs)
case("--dump-at on an empty program", dump_at_empty)
case("--trace warns once up front when it may grow large", trace_warning)
sys.exit(finish())
