#!/usr/bin/python3
"""trnsim conform through the real CLI. Usage:
conform_cli.py --trnsim T --mutant MUTANT.so --python PY TEST
TEST: search_ref mutant nan_payloads repeat frontends_bir frontends_python json bad_inputs"""
import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("--trnsim", required=True)
ap.add_argument("--mutant", required=True)
ap.add_argument("--python", required=True)
ap.add_argument("--ctest", help="the ctest module (conform_test_module.c), for recipes")
ap.add_argument("test")
opts = ap.parse_args()
T = opts.trnsim
HERE = os.path.dirname(os.path.abspath(__file__))
REF = ["--family", "search", "--module", "search=trnsim-search-ref"]


def conform(*args, rc=0, env=None):
    r = subprocess.run([T, "conform", *args], capture_output=True, text=True, timeout=280,
                       env=env)
    assert r.returncode == rc, f"{args}: exit {r.returncode}, expected {rc}\n{r.stdout}\n{r.stderr}"
    return r


def summary_counts(text):
    """The per opcode/dtype table of the text summary: {(opcode, dtypes): cases}."""
    rows = {}
    lines = text.splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("opcode "))
    for l in lines[start + 1:]:
        if l.startswith("family "):
            break
        op, dts, n = l.split()
        rows[(op, dts)] = int(n)
    return rows


def search_ref(tmp):
    out = os.path.join(tmp, "out")
    r = conform(*REF, "--cases", "400", "--seed", "7", "--out", out)
    first = r.stdout.splitlines()[0]
    assert re.fullmatch(r"conform: 400 cases, 400 agree, 0 differ, 0 invalid \(seed 7, .* cases/s\)",
                        first), first
    rows = summary_counts(r.stdout)
    assert sum(rows.values()) == 400, rows
    # every opcode, and every dtype a recipe lists for the data, is drawn
    ops = {op for op, _ in rows}
    assert ops == {"Max", "MaxIndex", "MatchReplace", "MaxIndexAndMatchReplace"}, ops
    data_dtypes = {d.split(",")[0] for _, d in rows}
    for dt in ["float32", "bfloat16", "float16", "float8_e4m3", "float8_e5m2", "float8_e3m4",
               "float8_e4m3fn", "float32r", "int32", "int8", "uint8", "int16", "uint16", "uint32"]:
        assert dt in data_dtypes, (dt, sorted(data_dtypes))
    fam = re.search(r"^search\s+(\d+)\s+(\d+)\s+100\.0%$", r.stdout, re.M)
    assert fam and fam.group(1) == fam.group(2), r.stdout
    assert "B: <embedded default config> --module search=trnsim-search-ref" in r.stdout
    rep = re.search(r"^repeat: (.*)$", r.stdout, re.M).group(1)
    assert rep.endswith("--cases 400 --seed 7"), rep
    assert not os.path.exists(out), "an agreeing run writes no case folder"
    assert r.stderr == "", r.stderr


def mutant(tmp):
    out = os.path.join(tmp, "out")
    r = conform("--family", "search", "--module", "search=" + opts.mutant, "--cases", "2000",
                "--seed", "1", "--out", out, rc=1)
    m = re.search(r"^difference in case (\d+) \((\w+)\): (.*)$", r.stdout, re.M)
    assert m, r.stdout
    shrunk = re.search(r"^  shrunk from (\d+) to (\d+) instructions? \(\d+ tries\): (.*)$",
                       r.stdout, re.M)
    assert shrunk and shrunk.group(2) == "1", r.stdout
    case = os.path.join(out, "case-" + m.group(1))
    for f in ["program.json", "diff-command.txt", "in", "out-a", "out-b"]:
        assert os.path.exists(os.path.join(case, f)), (f, os.listdir(case))
    prog = json.load(open(os.path.join(case, "program.json")))
    assert len(prog["instructions"]) == 1, prog
    assert prog["instructions"][0]["opcode"] == "Max", prog
    names = {t["name"] for t in prog["tensors"]}
    # the differing row moved to row 0 and the rows shrunk to that one
    assert all(t["shape"][0] == 1 for t in prog["tensors"]), prog
    for f in os.listdir(os.path.join(case, "in")):
        assert f[:-4] in names, (f, names)
    for side in ["out-a", "out-b"]:
        assert sorted(os.listdir(os.path.join(case, side))) == sorted(n + ".npy" for n in names)
    # the values output differs between the two sides' files
    v = prog["instructions"][0]["outputs"][0]
    v = v if isinstance(v, str) else v["tensor"]
    a = np.load(os.path.join(case, "out-a", v + ".npy"))
    b = np.load(os.path.join(case, "out-b", v + ".npy"))
    assert a.tobytes() != b.tobytes()
    # the printed line is the file's, and run it reproduces the difference
    line = open(os.path.join(case, "diff-command.txt")).read().strip()
    printed = r.stdout.splitlines()
    assert "  " + line in printed, (line, printed)
    d = subprocess.run(shlex.split(line), capture_output=True, text=True, timeout=60)
    assert d.returncode == 1, (line, d.returncode, d.stdout, d.stderr)
    assert d.stdout.startswith("difference at instruction 0"), d.stdout
    # --config and --set apply to both sides and to the diff line (from another directory)
    cfg = os.path.join(os.path.dirname(os.path.dirname(HERE)), "config", "search.cfg")
    out2 = os.path.join(tmp, "out2")
    r = conform("--config", os.path.relpath(cfg), "--set", "search.duplicate_match_order=descending",
                "--module", "search=" + opts.mutant, "--cases", "500", "--seed", "2", "--out",
                out2, rc=1)
    line = re.search(r"^  (\S+ diff .*)$", r.stdout, re.M).group(1)
    assert " --config " + os.path.realpath(cfg) + " --set search.duplicate_match_order=descending " \
        in line, line
    d = subprocess.run(shlex.split(line), capture_output=True, text=True, timeout=60, cwd="/")
    assert d.returncode == 1, (line, d.stdout, d.stderr)


def keep_going_time(tmp):
    out = os.path.join(tmp, "out")
    r = conform("--family", "search", "--module", "search=" + opts.mutant, "--cases", "120",
                "--seed", "3", "--keep-going", "--out", out, rc=1)
    first = r.stdout.splitlines()
    head = next(l for l in first if l.startswith("conform: "))
    m = re.match(r"conform: 120 cases, (\d+) agree, (\d+) differ, 0 invalid", head)
    assert m and int(m.group(2)) > 1 and int(m.group(1)) + int(m.group(2)) == 120, head
    found = re.findall(r"^difference in case (\d+) ", r.stdout, re.M)
    assert len(found) == int(m.group(2)), (found, head)
    assert sorted(os.listdir(out)) == sorted("case-" + n for n in found), os.listdir(out)
    # --time alone: as many cases as fit, and the repeat line names how many ran
    r = conform(*REF, "--time", "0.5", "--seed", "8")
    n = int(re.match(r"conform: (\d+) cases, \1 agree", r.stdout).group(1))
    assert n > 0, r.stdout
    assert re.search(r"^repeat: .* --cases %d --seed 8$" % n, r.stdout, re.M), r.stdout


def repeat(tmp):
    args = [*REF, "--cases", "150", "--seed", "12345"]
    a = conform(*args).stdout
    b = conform(*args).stdout
    strip = lambda s: re.sub(r", [0-9.]+ s, [0-9]+ cases/s\)", ")", s)
    assert strip(a) == strip(b), (a, b)
    c = conform(*REF, "--cases", "150", "--seed", "12346").stdout
    assert summary_counts(a) != summary_counts(c), "another seed draws other cases"
    # the repeat line repeats the run
    rep = re.search(r"^repeat: (.*)$", a, re.M).group(1)
    r = subprocess.run(shlex.split(rep), capture_output=True, text=True, timeout=280)
    assert r.returncode == 0 and strip(r.stdout) == strip(a), (rep, r.stdout)


def frontends_bir(tmp):
    r = conform("--family", "search", "--frontends", "native,bir", "--cases", "300", "--seed", "3",
                "--out", os.path.join(tmp, "out"))
    assert re.match(r"conform: 300 cases, 300 agree, 0 differ, 0 invalid", r.stdout), r.stdout
    assert "  B: the BIR front end" in r.stdout, r.stdout
    # float8_e4m3fn has no BIR name: those cases run on the native side alone
    m = re.search(r"^  (\d+) cases the BIR writer cannot express", r.stdout, re.M)
    assert m and 0 < int(m.group(1)) < 150, r.stdout


def check_value_classes(path):
    """The inputs the Python side received hold every adversarial class."""
    f32, bf16, ints = [], [], {"int32": set(), "int8": set()}
    for line in open(path):
        dt, *vals = line.split()
        vals = [int(v) for v in vals]
        if dt == "float32":
            f32 += vals
        elif dt == "bfloat16":
            bf16 += vals
        else:
            ints[dt].update(vals)
    u = np.array(f32, dtype=np.int64).astype(np.uint32)
    exp, man, sign = (u >> 23) & 0xFF, u & 0x7FFFFF, u >> 31
    nan = (exp == 0xFF) & (man != 0)
    classes = {
        "qNaN with payload": nan & (man & 0x400000 != 0) & (man & 0x3FFFFF != 0),
        "sNaN": nan & (man & 0x400000 == 0),
        "negative NaN": nan & (sign == 1),
        "+0": u == 0, "-0": u == 0x80000000,
        "subnormal": (exp == 0) & (man != 0),
        "+Inf": u == 0x7F800000, "-Inf": u == 0xFF800000,
        "largest finite": (u & 0x7FFFFFFF) == 0x7F7FFFFF,
        "bf16 tie": (exp != 0xFF) & (u & 0xFFFF == 0x8000),
        "fp16 tie": (exp != 0xFF) & (u & 0x1FFF == 0x1000),
        "large exponent": (exp > 127 + 20) & (exp != 0xFF),
        "small exponent": (exp < 127 - 20) & (exp != 0),
    }
    for name, mask in classes.items():
        assert mask.any(), ("no " + name + " in the float32 inputs", len(u))
    # repeated values within a row: far more duplicates than random bits give
    assert len(set(f32)) < 0.95 * len(f32), (len(set(f32)), len(f32))
    b = np.array(bf16, dtype=np.int64)
    assert ((b & 0x7F80) == 0x7F80).any() and ((b & 0x7F80) == 0).any(), "bf16 specials"
    assert {-2**31, 2**31 - 1, 0, -1} <= ints["int32"], sorted(ints["int32"])[:8]
    assert {-128, 127} <= ints["int8"], sorted(ints["int8"])


def stand_in_runner_env(tmp, **extra):
    """The environment of a conform run whose Python side is the stand-in runner
    (fake_runner.py: the CLI run on each folder), first on PYTHONPATH."""
    pkg = os.path.join(tmp, "py", "trnsim")
    os.makedirs(pkg)
    open(os.path.join(pkg, "__init__.py"), "w").close()
    shutil.copy(os.path.join(HERE, "fake_runner.py"), os.path.join(pkg, "conform_runner.py"))
    return dict(os.environ, PYTHONPATH=os.path.join(tmp, "py"), TRNSIM_CLI=T,
                TRNSIM_PYTHON=opts.python, TMPDIR=tmp, **extra)


def frontends_python(tmp):
    """With a stand-in runner (the CLI run on each folder) first on PYTHONPATH."""
    env = stand_in_runner_env(tmp)
    out = os.path.join(tmp, "out")
    env["FAKE_INPUTS"] = os.path.join(tmp, "inputs.txt")
    r = conform("--family", "search", "--frontends", "native,python", "--cases", "40", "--seed",
                "5", "--out", out, env=env)
    assert r.stdout.startswith("conform: 40 cases, 40 agree, 0 differ"), r.stdout
    check_value_classes(env.pop("FAKE_INPUTS"))
    assert "  B: the Python front end" in r.stdout, r.stdout
    assert not os.path.exists(out)
    assert [f for f in os.listdir(tmp) if f.startswith("trnsim-conform-")] == [], "temp left"
    # all three: cases BIR cannot say (float8_e4m3fn) still run natively for Python
    r = conform("--family", "search", "--frontends", "native,bir,python", "--cases", "30",
                "--seed", "5", "--out", out, env=env)
    assert r.stdout.startswith("conform: 30 cases, 30 agree, 0 differ"), r.stdout
    assert re.search(r"^  [1-9]\d* cases the BIR writer cannot express", r.stdout, re.M), r.stdout
    # a runner that flips one bit is caught, and its case kept
    env["FAKE_FLIP"] = "1"
    r = conform("--family", "search", "--frontends", "native,python", "--cases", "5", "--seed",
                "5", "--out", out, env=env, rc=1)
    m = re.search(r"^difference in case (\d+) \(\w+\): Python front end: tensor '(\w+)' differs",
                  r.stdout, re.M)
    assert m, r.stdout
    case = os.path.join(out, "case-" + m.group(1))
    assert sorted(os.listdir(case)) == ["in", "out", "program.json"], os.listdir(case)
    # an interpreter that cannot run: one line, exit 2
    env["TRNSIM_PYTHON"] = os.path.join(tmp, "no-python")
    r = conform("--family", "search", "--frontends", "native,python", "--cases", "2", "--seed",
                "5", "--out", os.path.join(tmp, "out2"), env=env, rc=2)
    assert r.stderr.count("\n") == 1 and "TRNSIM_PYTHON" in r.stderr, r.stderr
    assert r.stderr.startswith("trnsim: conform: --frontends python: cannot start "), r.stderr
    # a package without the runner: Python's own last line, one line
    env["TRNSIM_PYTHON"] = opts.python
    os.remove(os.path.join(tmp, "py", "trnsim", "conform_runner.py"))
    r = conform("--family", "search", "--frontends", "native,python", "--cases", "2", "--seed",
                "5", "--out", os.path.join(tmp, "out2"), env=env, rc=2)
    assert r.stderr.count("\n") == 1, r.stderr
    assert "No module named trnsim.conform_runner" in r.stderr, r.stderr
    assert not os.path.exists(os.path.join(tmp, "out2"))


def json_summary(tmp):
    r = conform(*REF, "--cases", "60", "--seed", "9", "--json")
    j = json.loads(r.stdout)
    for k in ["seed", "cases", "agree", "differ", "invalid", "failed_both", "seconds",
              "cases_per_second", "a", "b", "frontends", "bir_refused", "per_opcode", "families",
              "recipes", "differences", "repeat"]:
        assert k in j, (k, sorted(j))
    assert j["seed"] == 9 and j["cases"] == 60 and j["agree"] == 60 and j["differ"] == 0
    assert sum(x["cases"] for x in j["per_opcode"]) == 60
    assert j["families"] == [{"family": "search", "instructions": j["families"][0]["instructions"],
                              "valid": j["families"][0]["instructions"], "valid_ratio": 1.0}]
    names = {(x["opcode"], x["recipe"]) for x in j["recipes"]}
    assert ("Max", "topk16") in names and ("MaxIndexAndMatchReplace", "topk_round") in names, names
    assert all(x["first_error"] is None for x in j["recipes"]), j["recipes"]
    assert j["repeat"].endswith("--json --cases 60 --seed 9"), j["repeat"]
    # with a difference: the shrunk case and its diff line
    out = os.path.join(tmp, "out")
    r = conform("--family", "search", "--module", "search=" + opts.mutant, "--cases", "500",
                "--seed", "2", "--json", "--out", out, rc=1)
    j = json.loads(r.stdout)
    assert j["differ"] == 1 and len(j["differences"]) == 1, j
    d = j["differences"][0]
    assert d["instructions"] == 1 and d["reproducible"] is True, d
    assert os.path.isdir(d["dir"]) and d["diff_command"].split()[1] == "diff", d


def nan_payloads(tmp):
    """bn documents its NaN payloads as open (quirk bn.unpinned_nan_payload): against its
    reference module, outputs that differ only NaN against NaN are counted, not a
    difference; trnsim diff, which promises bits, still reports such a case."""
    out = os.path.join(tmp, "out")
    r = conform("--family", "bn", "--against-module", "bn=trnsim-bn-ref", "--cases", "300",
                "--seed", "1", "--out", out, "--json")
    j = json.loads(r.stdout)
    assert j["differ"] == 0 and j["agree"] == 300, j
    assert j["nan_payload_only"] > 0, j
    t = conform("--family", "bn", "--against-module", "bn=trnsim-bn-ref", "--cases", "300",
                "--seed", "1", "--out", out)
    assert "differed only in NaN payloads their module leaves open" in t.stdout, t.stdout
    assert not os.path.exists(out)
    # trnsim diff promises bits: a case conform counted (a BNGradients whose fast and
    # reference NaNs differ in sign, from conform seed 1 before NaNs were compared open)
    case = os.path.join(HERE, "nan_case")
    d = subprocess.run([T, "diff", os.path.join(case, "program.json"), "--against-module",
                        "bn=trnsim-bn-ref"] + [a for n in ("x", "dy", "m", "vf") for a in
                                               ("--input", f"{n}={case}/{n}.npy")],
                       capture_output=True, text=True, timeout=60)
    assert d.returncode == 1 and "BNGradients" in d.stdout and "NaN" in d.stdout, d.stdout


def bad_inputs(tmp):
    out = os.path.join(tmp, "out")
    cases = [
        (["--family", "nope", "--module", "search=trnsim-search-ref"], "--family nope"),
        (["--opcode", "Maxx", "--module", "search=trnsim-search-ref"], "--opcode Maxx"),
        (["--module", "search=" + os.path.join(tmp, "missing.so")], "--module search="),
        (["--module", "search=trnsim-search-nope"], "trnsim-search-nope"),
        (["--module", "search=trnsim-search-ref", "--cases", "0"], "--cases 0"),
        (["--frontends", "native,birr"], "--frontends native,birr"),
        (["--frontends", "bir"], "--frontends bir"),
        (["--module", "search=trnsim-search-ref", "--seed", "x"], "--seed x"),
        (["--module", "search=trnsim-search-ref", "--time", "-1"], "--time -1"),
        ([], "nothing to compare"),
        (["--module", "search=trnsim-search-ref", "--cases"], "--cases needs a value"),
        (["--module", "search=trnsim-search-ref", "--bogus", "1"], "unknown option '--bogus'"),
    ]
    for args, want in cases:
        r = conform("--out", out, *args, rc=2)
        assert r.stderr.count("\n") == 1 and r.stderr.startswith("trnsim: conform: "), r.stderr
        assert want in r.stderr, (want, r.stderr)
        assert r.stdout == "", r.stdout
        assert not os.path.exists(out), (args, "left an output folder")


def recipes(tmp):
    """A recipe the static check refuses is reported with the check's message
    and counted against its own instructions only; an opcode without recipes
    is drawn from its operand roles."""
    cfg = os.path.join(tmp, "ctest.cfg")
    with open(cfg, "w") as f:
        f.write('plugins = ( { family = "dma"; module = "trnsim-dma"; },\n'
                '            { family = "ctest"; module = "%s"; } );\n' % opts.ctest)
    args = ["--config", cfg, "--module", "ctest=" + opts.ctest, "--cases", "60", "--seed", "4"]
    j = json.loads(conform(*args, "--json").stdout)
    rec = {(x["opcode"], x["recipe"]): x for x in j["recipes"]}
    assert set(rec) == {("CTestCopy", "good"), ("CTestCopy", "bad"), ("CTestCopy", "per_core"),
                        ("CTestCopy", "through_dma"), ("CTestPlain", "schema")}, rec
    td = rec[("CTestCopy", "through_dma")]  # chained: the descriptors' tensors renamed too
    assert td["first_error"] is None and td["valid"] == td["programs"] > 1, td
    pc = rec[("CTestCopy", "per_core")]  # shapes from CORES: valid only when CORES is the count
    assert pc["first_error"] is None and pc["valid"] == pc["programs"] > 0, pc
    bad, good, plain = rec[("CTestCopy", "bad")], rec[("CTestCopy", "good")], \
        rec[("CTestPlain", "schema")]
    assert bad["programs"] > 0 and bad["valid"] == 0, bad
    assert bad["first_error"].endswith(
        "instruction 0 (core 0, opcode CTestCopy/210, family ctest): CTest: input and output "
        "differ in elements or dtype"), bad
    assert good["first_error"] is None and good["valid"] == good["programs"] > 0, good
    assert plain["first_error"] is None and plain["valid"] == plain["programs"] > 0, plain
    fams = {f["family"]: f for f in j["families"]}
    assert set(fams) == {"ctest", "dma"} and fams["dma"]["valid"] == fams["dma"]["instructions"], j
    fam = fams["ctest"]
    assert fam["instructions"] - fam["valid"] == bad["programs"], j
    assert j["invalid"] > 0 and j["agree"] + j["invalid"] == 60 and j["differ"] == 0, j
    t = conform(*args).stdout
    assert re.search(r"^recipe CTestCopy/bad: (\d+) of \1 programs invalid; first: .*CTest: input "
                     r"and output differ", t, re.M), t
    assert "recipe CTestCopy/good" not in t, t
    # one case, refused (seed 2 chains the bad recipe): nothing compared is an error
    r = conform("--config", cfg, "--module", "ctest=" + opts.ctest, "--opcode", "CTestCopy",
                "--cases", "1", "--seed", "2", rc=2)
    assert r.stdout.startswith("conform: 1 cases, 0 agree, 0 differ, 1 invalid"), r.stdout
    assert r.stderr == ("trnsim: conform: none of the 1 cases was compared (1 failed the static "
                        "check, 0 failed on both sides): nothing is proven; fix the recipes the "
                        "summary names\n"), r.stderr


def out_checked(tmp):
    """--out is checked before the first case (a mutant that differs at once): an empty
    path wrote to /case-N, and a regular file failed only after the difference was found
    and shrunk, losing it. A run --time ends before its first case proves nothing: exit 2
    (it passed with 0 cases)."""
    mut = ["--family", "search", "--module", "search=" + opts.mutant, "--cases", "50",
           "--seed", "1"]
    f = os.path.join(tmp, "afile")
    with open(f, "w") as g:
        g.write("mine\n")
    for out, want in [("", "--out '': expected a directory"),
                      (f, "--out %s: %s exists and is not a directory" % (f, f)),
                      (os.path.join(f, "sub"), "--out %s/sub: cannot create it: Not a directory"
                       % f)]:
        r = conform(*mut, "--out", out, rc=2)
        assert r.stderr.count("\n") == 1 and r.stderr.startswith("trnsim: conform: "), r.stderr
        assert want in r.stderr, (want, r.stderr)
        assert r.stdout == "", r.stdout
    assert open(f).read() == "mine\n"
    # missing parents are still created, when a case differs
    nested = os.path.join(tmp, "a", "b", "c")
    r = conform(*mut, "--out", nested, rc=1)
    assert [d for d in os.listdir(nested) if d.startswith("case-")], os.listdir(nested)
    r = conform(*REF, "--time", "1e-9", "--seed", "1", rc=2)
    assert r.stdout.startswith("conform: 0 cases"), r.stdout
    assert r.stderr == ("trnsim: conform: --time 1e-09: no case started within it: nothing is "
                        "proven; give more seconds\n"), r.stderr


def case_folder(tmp):
    """Each case folder holds exactly its shrunk case: in/ had the unshrunk case's inputs
    too (i0_d.npy beside d.npy), written there by the new-process checks during shrinking,
    and a folder written again kept an earlier run's files. A case folder is written under
    a private name and renamed into place whole. A long --out path cut the
    diff line at 8191 characters, so the check failed and the case was reported 'not
    shrunk: in a new process the case agrees'."""
    def check(out, stdout):
        assert "not shrunk" not in stdout, stdout
        found = re.findall(r"^difference in case (\d+) ", stdout, re.M)
        assert len(found) > 10, stdout
        for n in found:
            case = os.path.join(out, "case-" + n)
            line = open(os.path.join(case, "diff-command.txt")).read()
            given = set(re.findall(r"--input (\w+)=", line))
            prog = json.load(open(os.path.join(case, "program.json")))
            names = {t["name"] for t in prog["tensors"]}
            files = {f[:-4] for f in os.listdir(os.path.join(case, "in"))}
            assert files == given and files <= names, (case, sorted(files), sorted(given))
            for side in ["out-a", "out-b"]:
                assert {f[:-4] for f in os.listdir(os.path.join(case, side))} == names, case
        return found

    args = ["--family", "search", "--module", "search=" + opts.mutant, "--cases", "50",
            "--seed", "3", "--keep-going"]
    env = dict(os.environ, TMPDIR=tmp)  # conform's scratch folders: none may be left
    out = os.path.join(tmp, "out")
    found = check(out, conform(*args, "--out", out, rc=1, env=env).stdout)
    stale = os.path.join(out, "case-" + found[0])
    for sub in ["in", "out-a"]:
        np.save(os.path.join(stale, sub, "old_run.npy"), np.zeros(1, np.float32))
    with open(os.path.join(stale, "notes.txt"), "w") as f:
        f.write("an earlier run's\n")
    check(out, conform(*args, "--out", out, rc=1, env=env).stdout)
    # a case folder is put in place whole: an earlier run's is replaced, not merged into
    assert "notes.txt" not in os.listdir(stale), os.listdir(stale)
    # ... and one that cannot be put in place leaves no partial folder, nor the file touched
    blocked = os.path.join(tmp, "blocked")
    os.mkdir(blocked)
    with open(os.path.join(blocked, "case-" + found[0]), "w") as f:
        f.write("mine\n")
    r = conform(*args, "--out", blocked, rc=2, env=env)
    want = ("trnsim: conform: --out: %s/case-%s exists and is not a folder; remove it or give "
            "another --out\n" % (os.path.realpath(blocked), found[0]))
    assert r.stderr == want, r.stderr
    assert os.listdir(blocked) == ["case-" + found[0]], os.listdir(blocked)
    assert open(os.path.join(blocked, "case-" + found[0])).read() == "mine\n"
    # a long (valid) --out path: every case shrunk, its diff line whole and reproducing
    deep = os.path.join(tmp, *(["d" * 200] * 7), "out")
    found = check(deep, conform(*args, "--out", deep, rc=1, env=env).stdout)
    line = open(os.path.join(deep, "case-" + found[-1], "diff-command.txt")).read()
    d = subprocess.run(shlex.split(line), capture_output=True, text=True, timeout=60)
    assert d.returncode == 1, (d.stdout, d.stderr)
    assert [f for f in os.listdir(tmp) if f.startswith("trnsim-conform")] == [], os.listdir(tmp)
    for o in [out, deep]:  # the new-process checks' scratch folders are gone
        assert all(f.startswith("case-") for f in os.listdir(o)), os.listdir(o)


def python_kept_case(tmp):
    """A case the Python side differs on is copied to --out without a shell (an --out
    holding a quote went to another path: it's/ became its/, and the path reached a
    shell), and its runner line, run as printed, repeats the batch's run: the same
    --config and --set (they were left out)."""
    args_log = os.path.join(tmp, "args.jsonl")
    env = stand_in_runner_env(tmp, FAKE_FLIP="1", FAKE_ARGS=args_log)
    cfg = os.path.join(os.path.dirname(os.path.dirname(HERE)), "config", "search.cfg")
    out = os.path.join(tmp, "it's out")
    conf = ["--config", cfg, "--set", "search.duplicate_match_order=descending"]
    r = conform("--family", "search", "--frontends", "native,python", *conf, "--cases", "3",
                "--seed", "5", "--out", out, "--json", env=env, rc=1)
    j = json.loads(r.stdout)
    d = j["differences"][0]
    assert d["dir"] == os.path.join(os.path.realpath(out), "case-%d" % d["case"]), d
    assert sorted(os.listdir(d["dir"])) == ["in", "out", "program.json"], os.listdir(d["dir"])
    assert os.listdir(tmp).count("its out") == 0, os.listdir(tmp)
    batch = json.loads(open(args_log).readline())
    assert batch[:4] == conf, batch
    # the printed line runs the runner on the kept folder, as the batch ran it
    os.remove(args_log)
    shutil.rmtree(os.path.join(d["dir"], "out"))
    p = subprocess.run(d["diff_command"], shell=True, capture_output=True, text=True, env=env,
                       timeout=120, cwd="/")
    assert p.returncode == 0, (d["diff_command"], p.stdout, p.stderr)
    assert json.loads(open(args_log).readline()) == conf + [d["dir"]], open(args_log).read()
    assert os.listdir(os.path.join(d["dir"], "out")), "the runner wrote no tensor"


def python_both_failed(tmp):
    """Against the Python front end alone, a case both sides fail (a recipe reading a
    tensor nothing wrote) is counted as failed on both sides, and a run of only such
    cases proved nothing: exit 2, as against a module (it said '3 agree', exit 0)."""
    cfg = os.path.join(tmp, "ctest.cfg")
    with open(cfg, "w") as f:
        f.write('plugins = ( { family = "ctest"; module = "%s"; } );\n' % opts.ctest)
    t = {"memory": "sbuf", "dtype": "float32", "shape": [1, 4]}
    recipes = json.dumps([{"name": "unwritten", "vars": {},
                           "tensors": [dict(t, name="x"), dict(t, name="y")],
                           "instructions": [{"opcode": "CTestCopy", "inputs": ["x"],
                                             "outputs": ["y"]}]}])
    env = stand_in_runner_env(tmp, CTEST_RECIPES=recipes)
    for fe in ["native,python", "native,bir,python"]:
        r = conform("--config", cfg, "--frontends", fe, "--opcode", "CTestCopy", "--cases", "3",
                    "--seed", "1", env=env, rc=2)
        assert r.stdout.startswith("conform: 3 cases, 3 agree, 0 differ"), r.stdout
        assert "  3 cases failed on both sides alike" in r.stdout, (fe, r.stdout)
        assert r.stderr == ("trnsim: conform: none of the 3 cases was compared (0 failed the "
                            "static check, 3 failed on both sides): nothing is proven; fix the "
                            "recipes the summary names\n"), r.stderr


def bir_refused_all(tmp):
    """--frontends native,bir where the BIR writer can say no case (float8_e4m3fn): every
    case ran on A alone, so nothing was compared: exit 2 (it said '3 agree', exit 0). With
    Python too, Python compares them."""
    cfg = os.path.join(tmp, "ctest.cfg")
    with open(cfg, "w") as f:
        f.write('plugins = ( { family = "ctest"; module = "%s"; } );\n' % opts.ctest)
    t = {"memory": "sbuf", "dtype": "float8_e4m3fn", "shape": [1, 4]}
    recipes = json.dumps([{"name": "fn", "vars": {},
                           "tensors": [dict(t, name="x", input=True), dict(t, name="y")],
                           "instructions": [{"opcode": "CTestCopy", "inputs": ["x"],
                                             "outputs": ["y"]}]}])
    env = dict(os.environ, CTEST_RECIPES=recipes)
    r = conform("--config", cfg, "--frontends", "native,bir", "--opcode", "CTestCopy", "--cases",
                "3", "--seed", "1", env=env, rc=2)
    assert "  3 cases the BIR writer cannot express were run on A only" in r.stdout, r.stdout
    assert "failed on both sides alike" not in r.stdout, r.stdout
    assert r.stderr == ("trnsim: conform: none of the 3 cases was compared (0 failed the static "
                        "check, 0 failed on both sides, 3 the BIR writer cannot express (run on "
                        "A only)): nothing is proven; fix the recipes the summary names\n"), \
        r.stderr


def long_list_attr(tmp):
    """A required list attribute drawn from its schema ("@"; CTestList has no recipes) whose
    len_max is large (2^20) gets a short list, not one of up to len_max elements (a
    len_max of 2^32-1 drew billions: gigabytes and minutes per case); an int attribute
    with infinite bounds is drawn within int64 (the bounds converted to INT64_MIN, an
    undefined conversion, so every draw was INT64_MIN)."""
    cfg = os.path.join(tmp, "ctest.cfg")
    with open(cfg, "w") as f:
        f.write('plugins = ( { family = "ctest"; module = "%s"; } );\n' % opts.ctest)
    r = conform("--config", cfg, "--module", "ctest=" + opts.ctest, "--opcode", "CTestList",
                "--cases", "20", "--seed", "1", "--json")
    j = json.loads(r.stdout)
    rec = [x for x in j["recipes"] if x["opcode"] == "CTestList"]
    assert rec and rec[0]["first_error"] is None and rec[0]["valid"] == rec[0]["programs"] > 0, \
        rec


def bir_many_cores(tmp):
    """A recipe of 20 cores through the BIR front end runs on a BIR side of 20 cores (the
    BIR sides stopped at 16, and the 17th was reported as a difference of the BIR front
    end, 'B refused the program A accepted: a recipe asks for 20 cores', exit 1, with a
    run line naming a program.bir.json that was never written)."""
    cfg = os.path.join(tmp, "ctest.cfg")
    with open(cfg, "w") as f:
        f.write('plugins = ( { family = "ctest"; module = "%s"; } );\n' % opts.ctest)
    t = {"memory": "sbuf", "dtype": "float32", "shape": [1, 4]}
    recipes = json.dumps([{"name": "many", "cores": [20, 20], "vars": {},
                           "tensors": [dict(t, name="x", input=True), dict(t, name="y")],
                           "instructions": [{"opcode": "CTestCopy", "inputs": ["x"],
                                             "outputs": ["y"]}]}])
    out = os.path.join(tmp, "out")
    r = conform("--config", cfg, "--frontends", "native,bir", "--opcode", "CTestCopy", "--cases",
                "3", "--seed", "1", "--out", out, env=dict(os.environ, CTEST_RECIPES=recipes))
    assert r.stdout.startswith("conform: 3 cases, 3 agree, 0 differ, 0 invalid"), r.stdout
    assert "cannot express" not in r.stdout and not os.path.exists(out), r.stdout


def frontends_bir_multicore(tmp):
    """Multi-core programs are written as BIR from the BIR side of their own core count:
    a 1-core copy failed the static check of every instruction naming ranks (replica
    groups, peers), and 82 of 100 collective cases were counted as ones BIR cannot say
    and never compared. What is left are the BIR writer's own limits (fp8 dtypes without
    a BIR name, fill)."""
    r = conform("--family", "collective", "--frontends", "native,bir", "--cases", "100",
                "--seed", "1", "--json")
    j = json.loads(r.stdout)
    assert j["agree"] == 100 and j["bir_refused"] <= 30, (j["agree"], j["bir_refused"])


def repeat_long(tmp):
    """The repeat line is whole however long the command (it was cut at 16383 characters:
    here long --config / --out / --module paths and many --family / --opcode / --set)."""
    deep = os.path.join(tmp, *(["r" * 200] * 8))
    os.makedirs(deep)
    cfg = os.path.join(deep, "search.cfg")
    shutil.copy(os.path.join(os.path.dirname(os.path.dirname(HERE)), "config", "search.cfg"), cfg)
    ref = os.path.join(os.path.dirname(T), "trnsim-search-ref.so")
    mod = os.path.join(deep, "ref.so")
    shutil.copy(ref, mod)
    args = ["--config", cfg, "--module", "search=" + mod, "--out", os.path.join(deep, "out")]
    args += ["--family", "search"] * 256 + ["--opcode", "Max"] * 200
    args += ["--set", "search.duplicate_match_order=ascending"] * 200
    r = conform(*args, "--cases", "5", "--seed", "3")
    rep = re.search(r"^repeat: (.*)$", r.stdout, re.M).group(1)
    assert len(rep) > 16384, len(rep)
    assert shlex.split(rep)[1:] == ["conform", *args, "--cases", "5", "--seed", "3"], rep[-200:]


def recipe_overflow(tmp):
    """Recipe values anywhere in int64 (the ctest module built with its recipes from
    CTEST_RECIPES): an expression whose value or any step of it leaves int64, or that
    divides INT64_MIN by -1 (which trapped: SIGFPE), is one error line naming the recipe
    and the expression; so is a range or core count that cannot be drawn. Before, a
    wrapped product gave a small valid shape and the run passed."""
    cfg = os.path.join(tmp, "ctest.cfg")
    with open(cfg, "w") as f:
        f.write('plugins = ( { family = "ctest"; module = "%s"; } );\n' % opts.ctest)
    out = os.path.join(tmp, "out")

    def recipe(name, vars, dim, cores=None):
        r = {"name": name, "vars": vars,
             "tensors": [{"name": "x", "memory": "sbuf", "dtype": "float32",
                          "shape": [1, dim], "input": True},
                         {"name": "y", "memory": "sbuf", "dtype": "float32", "shape": [1, 4]}],
             "instructions": [{"opcode": "CTestCopy", "inputs": ["x"], "outputs": ["y"]}]}
        if cores:
            r["cores"] = cores
        return json.dumps([r])

    def run(recipes, want):
        env = dict(os.environ, CTEST_RECIPES=recipes)
        r = conform("--config", cfg, "--module", "ctest=" + opts.ctest, "--opcode", "CTestCopy",
                    "--cases", "3", "--seed", "1", "--out", out, env=env, rc=2)
        assert r.stderr.count("\n") == 1 and r.stderr.startswith("trnsim: conform: "), r.stderr
        assert want in r.stderr, (want, r.stderr)
        assert r.stdout == "" and not os.path.exists(out), (r.stdout, want)

    lo, hi = -2**63, 2**63 - 1
    # the control: a plain recipe of this shape runs and agrees
    env = dict(os.environ, CTEST_RECIPES=recipe("plain", {"N": [4, 4]}, "N"))
    conform("--config", cfg, "--module", "ctest=" + opts.ctest, "--opcode", "CTestCopy",
            "--cases", "3", "--seed", "1", "--out", out, env=env)
    run(recipe("min_div", {"A": [lo, lo], "B": [-1, -1]}, "A/B"),
        "recipe 'min_div': cannot evaluate \"A/B\"")
    run(recipe("mul_wraps", {"A": [2**62 + 1, 2**62 + 1]}, "A*4"), "cannot evaluate \"A*4\"")
    run(recipe("big_literal", {}, "99999999999999999999-9223372036854775807+4"),
        "cannot evaluate \"99999999999999999999-9223372036854775807+4\"")
    run(recipe("sum_wraps", {"A": [hi, hi]}, "A+A-A"), "cannot evaluate \"A+A-A\"")
    run(recipe("wide", {"A": [lo, hi]}, 4), "recipe 'wide': var A: expected")
    run(recipe("no_cores", {}, 4, cores=[0, 2]), "recipe 'no_cores': cores: expected")
    # a draw that fails ("@" for an attribute the schema lacks) frees what it drew (an
    # ASan build's leak check failed the exit status)
    bad_at = json.loads(recipe("at", {}, 4))
    bad_at[0]["instructions"][0]["imm"] = "@"
    run(json.dumps(bad_at), "recipe 'at': attribute imm is \"@\" but CTestCopy's schema has no")


tests = {"recipe_overflow": recipe_overflow, "nan_payloads": nan_payloads, "recipes": recipes,
         "keep_going_time": keep_going_time, "search_ref": search_ref, "mutant": mutant,
         "repeat": repeat, "frontends_bir": frontends_bir, "frontends_python": frontends_python,
         "json": json_summary, "bad_inputs": bad_inputs, "out_checked": out_checked,
         "case_folder": case_folder, "python_kept_case": python_kept_case,
         "python_both_failed": python_both_failed, "bir_refused_all": bir_refused_all,
         "long_list_attr": long_list_attr, "bir_many_cores": bir_many_cores,
         "frontends_bir_multicore": frontends_bir_multicore, "repeat_long": repeat_long}
with tempfile.TemporaryDirectory() as tmp:
    os.chdir(tmp)
    tests[opts.test](tmp)
print(f"ok: {opts.test}")
