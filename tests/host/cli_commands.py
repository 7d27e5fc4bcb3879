#!/usr/bin/python3
"""The CLI's other commands: check, opcodes, quirks, --help, --version, --stats-json,
--trace, and usage errors. Usage: cli_commands.py TRNSIM PROGRAMS_DIR"""
import json
import subprocess
import sys

trnsim, progs = sys.argv[1], sys.argv[2]
cfg = f"{progs}/test.cfg"
failures = 0


def run(*args, rc=0):
    r = subprocess.run([trnsim, *args], capture_output=True, text=True, timeout=60)
    if r.returncode != rc:
        raise AssertionError(f"{args}: exit {r.returncode}, expected {rc}\n{r.stdout}\n{r.stderr}")
    return r


def case(name, fn):
    global failures
    try:
        fn()
        print(f"ok: {name}")
    except AssertionError as e:
        failures += 1
        print(f"FAIL: {name}: {e}")


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
    assert len(rows) == 8, rows


def quirks():
    r = run("quirks", "--config", cfg)
    assert "test.example_quirk" in r.stdout and "host.skip_and_note" in r.stdout, r.stdout


def help_version():
    assert "trnsim run PROGRAM.json" in run("--help").stdout
    assert run("--version").stdout.startswith("trnsim 0.")
    assert "usage" in run(rc=2).stderr
    r = run("frobnicate", rc=1)
    assert r.stderr.strip() == "trnsim: unknown command 'frobnicate' (see trnsim --help)", r.stderr
    r = run("run", f"{progs}/copy.json", "--bogus", rc=1)
    assert "unknown or incomplete option '--bogus'" in r.stderr, r.stderr


def stats_json_and_trace():
    r = run("run", f"{progs}/copy.json", "--config", cfg, "--stats-json", "--trace")
    stats = json.loads(r.stdout)
    assert stats["opcodes"] == [{"it": 200, "name": "TestCopy", "count": 1, "skipped": 0,
                                 "seconds": stats["opcodes"][0]["seconds"]}], stats
    assert "core 0 #0 TestCopy (IT 200, test) ok" in r.stderr, r.stderr


for name, fn in [("check ok", check_ok), ("check refuses", check_bad), ("opcodes", opcodes), ("quirks", quirks),
                 ("help, version, usage errors", help_version), ("--stats-json and --trace", stats_json_and_trace)]:
    case(name, fn)
print(f"{6 - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)
