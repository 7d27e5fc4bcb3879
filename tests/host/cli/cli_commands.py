#!/usr/bin/python3
"""The CLI's other commands: check, opcodes, quirks, --help, --version, --stats-json,
--trace-text, and usage errors. Usage: cli_commands.py TRNSIM PROGRAMS_DIR VERSION FAMILIES"""
import json
import re
import os
import subprocess
import sys
import tempfile

trnsim, progs, version, families = sys.argv[1:5]
cfg = f"{progs}/test.cfg"
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from clicase import Cli, case, finish, one_line_error  # noqa: E402

run = Cli(trnsim).run

HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "include", "trnsim", "plugin",
                      "abi.h")


def check_ok():
    r = run("check", f"{progs}/copy.json", "--config", cfg)
    assert r.stdout.strip() == f"{progs}/copy.json: ok (1 core)", r.stdout


def check_bad():
    r = run("check", f"{progs}/needs_bn.json", "--config", cfg, rc=1)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "family 'bn'" in lines[0], r.stderr


def opcodes():
    r = run("opcodes", "--config", cfg)
    rows = [l.split() for l in r.stdout.splitlines()[1:]]
    assert ["200", "TestCopy", "test", "trnsim-test"] == rows[0][:4], rows[0]
    assert len(rows) == 13, rows


def quirks():
    r = run("quirks", "--config", cfg)
    assert "test.example_quirk" in r.stdout and "host.skip_and_note" in r.stdout, r.stdout


def help_version():
    lines = run("--version").stdout.splitlines()
    assert lines[0] == f"trnsim {version}", lines
    abi = int(re.search(r"#define TRN_ABI_VERSION\s+(\d+)", open(HEADER).read()).group(1))
    assert lines[1] == f"plugin ABI {abi} (accepts modules of ABI 1 to {abi})", lines
    assert lines[2].startswith(f"families built: {families} ("), lines
    top = run("--help").stdout
    assert top.startswith("Usage: trnsim COMMAND") and "\n  run PROGRAM.json " in top, top
    assert run("run", "--help").stdout.startswith("Usage: trnsim run PROGRAM.json [OPTION]...\n")
    # --help anywhere among a command's arguments, but not as an option's value
    assert run("run", f"{progs}/copy.json", "--trace-text", "-h").stdout == run("help", "run").stdout
    r = run("run", "--config", "--help", rc=1)
    assert r.stderr == "trnsim: run: missing PROGRAM.json (see trnsim --help)\n", r.stderr
    r = run("help", "frobnicate", rc=1)
    assert r.stderr == "trnsim: help: unknown command 'frobnicate' (trnsim --help lists them)\n", r.stderr
    r = run("help", "run", "check", rc=1)
    assert r.stderr == "trnsim: help: unexpected argument 'check' (usage: trnsim help [COMMAND])\n", r.stderr
    assert run(rc=2).stderr.startswith("Usage: trnsim COMMAND")
    r = run("frobnicate", rc=1)
    assert r.stderr.strip() == "trnsim: unknown command 'frobnicate' (see trnsim --help)", r.stderr
    r = run("run", f"{progs}/copy.json", "--bogus", rc=1)
    assert "unknown or incomplete option '--bogus'" in r.stderr, r.stderr


def stats_json_and_trace():
    r = run("run", f"{progs}/copy.json", "--config", cfg, "--stats-json", "--trace-text")
    stats = json.loads(r.stdout)
    assert stats["opcodes"] == [{"it": 200, "name": "TestCopy", "count": 1, "skipped": 0,
                                 "seconds": stats["opcodes"][0]["seconds"], "elements": 8, "nan": 0, "inf": 0}], stats
    # 8 fp32 read from x, 8 bf16 written to y, both in SBUF; no collective ran
    assert stats["memories"] == [{"name": "sbuf", "bytes_read": 32, "bytes_written": 16},
                                 {"name": "psum", "bytes_read": 0, "bytes_written": 0},
                                 {"name": "hbm", "bytes_read": 0, "bytes_written": 0}], stats
    assert stats["collectives"] == [], stats
    assert "core 0 #0 TestCopy (IT 200, test) ok" in r.stderr, r.stderr


def output_targets():
    """An output that cannot be renamed into place (a directory) or a file
    named by two --output options is refused before the run, and no output
    of the run is left behind."""
    with tempfile.TemporaryDirectory() as d:
        a, sub = os.path.join(d, "a.npy"), os.path.join(d, "sub")
        os.mkdir(sub)
        r = run("run", f"{progs}/copy.json", "--config", cfg, "--output", f"y={a}", "--output", f"y={sub}", rc=1)
        one_line_error(r, f"--output y: {sub} is a directory")
        r = run("run", f"{progs}/copy.json", "--config", cfg, "--output", f"y={a}", "--output", f"x={a}", rc=1)
        one_line_error(r, f"--output y and --output x name the same file {a}")
        other = os.path.join(sub, "..", "a.npy")  # the same file, spelt differently, not yet existing
        r = run("run", f"{progs}/copy.json", "--config", cfg, "--output", f"y={a}", "--output", f"x={other}", rc=1)
        one_line_error(r, f"--output y and --output x name the same file {other}")
        assert os.listdir(d) == ["sub"], os.listdir(d)


def bindings():
    """NAME@CORE must be a core number: 4294967295 is not core -1 (all cores)."""
    r = run("run", f"{progs}/io.json", "--config", cfg, "--input", f"x@4294967295={progs}/io_x.npy", rc=1)
    one_line_error(r, "bad core in 'x@4294967295=")
    for core in (" 0", "+0", "-0", "0x1", ""):
        r = run("run", f"{progs}/io.json", "--config", cfg, "--input", f"x@{core}={progs}/io_x.npy", rc=1)
        one_line_error(r, f"bad core in 'x@{core}=")
    args = []
    for core in range(257):  # one tensor and core each: two for one is its own error
        args += ["--input", f"x@{core}={progs}/io_x.npy"]
    r = run("run", f"{progs}/io.json", "--config", cfg, *args, rc=1)
    one_line_error(r, "more than 256 --input options")


def config_directory():
    """libconfig would exit with status 2 on a directory; trnsim refuses it."""
    r = run("opcodes", "--config", progs, rc=1)
    one_line_error(r, f"{progs}: cannot read config: it is a directory")


def stdout_write_error():
    """A listing that cannot be written is an error, not exit 0."""
    with open("/dev/full", "w") as full:
        r = subprocess.run([trnsim, "opcodes", "--config", cfg], stdout=full, stderr=subprocess.PIPE, text=True,
                           timeout=60)
    assert r.returncode == 1, r.returncode
    one_line_error(r, "cannot write to standard output: No space left on device")


def control_characters_escaped():
    """A message quoting input with a newline stays one line."""
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "p.json")
        with open(p, "w") as f:
            json.dump({"tensors": [], "instructions": [{"opcode": "TestCopy", "inputs": ["a\nb\x01"]}]}, f)
        r = run("run", p, "--config", cfg, rc=1)
        one_line_error(r, "inputs[0]: no tensor named 'a\\nb\\x01'")


CASES = [("check ok", check_ok), ("check refuses", check_bad), ("opcodes", opcodes), ("quirks", quirks),
         ("help, version, usage errors", help_version), ("--stats-json and --trace-text", stats_json_and_trace),
         ("output targets checked first", output_targets), ("--input bindings", bindings),
         ("control characters escaped", control_characters_escaped), ("config directory", config_directory),
         ("stdout write error", stdout_write_error)]
for name, fn in CASES:
    case(name, fn)
sys.exit(finish())
