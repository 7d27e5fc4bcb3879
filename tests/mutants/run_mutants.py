#!/usr/bin/python3
"""The mutation kit: does `trnsim conform` find small bugs in a family's module?

    run_mutants.py --prefix PREFIX [--time 60] [--seed 1] [--only ID,...]
                   [--mode conform|diff] [--json FILE] [--markdown FILE] [--work DIR]

Each mutant of tests/mutants/mutants.json is one edit of a fast module's
source (plugins/FAMILY/): the original text (which must occur exactly once in
its file) and its replacement. For each mutant this script

  1. copies plugins/FAMILY/ into a work folder and applies the edit;
  2. builds the module against the INSTALLED plugin kit only (PREFIX: what
     `cmake --install` puts there: include/trnsim and the trnsim CMake
     package), with the family's own CMakeLists.txt read through a shim that
     defines trnsim_add_plugin() as the project does (one MODULE, the
     project's global flags: -O2, gnu11, -ffp-contract=off -fno-fast-math,
     and the family's per-file / per-target -O3). Each family is configured
     once; a mutant rebuilds the files its edit touches;
  3. --mode conform (the default): runs
         PREFIX/bin/trnsim conform --family F --module F=MUTANT.so --seed S
             --time T --out TMP --json
     and records killed (exit 1), survived (exit 0) or error (exit 2, or a
     mutant that does not build: an error, never a kill), the seconds taken
     and the cases run to the first difference (from the --json summary);
     --mode diff: runs `trnsim diff PROGRAM --against-module F=MUTANT.so`
     over the family's stored programs (tests/FAMILY/programs/*.json and
     tests/mutants/programs/FAMILY/*.json) with tests/ref/ref_diff.py's
     adversarial inputs, two seeds each: "changed" when some program
     differs, "unchanged" when none does (which proves nothing about
     conform: it only says the stored programs miss it).

The experimental family is not in the default config: its runs add
--config PREFIX/share/trnsim/experimental.cfg. A mutant's optional
"settings" (KEY=VALUE strings) are given to conform as --set, to diff as
--set and --against-set: for a mutant only a non-default setting exposes.

Exit 0 when every mutant built and ran (whatever the verdicts), 1 when one
was an error, 2 on a usage error. --expect-killed makes a survivor (diff mode:
an unchanged mutant) exit 1 too (the ctest).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "ref"))
sys.dont_write_bytecode = True

SHIM = """cmake_minimum_required(VERSION 3.16)
project(trnsim_mutant_{family} LANGUAGES C)
find_package(trnsim REQUIRED)
# the project's global flags (CMakeLists.txt): bit-exact, gnu11, -O2
set(CMAKE_C_STANDARD 11)
set(CMAKE_C_STANDARD_REQUIRED ON)
set(CMAKE_C_EXTENSIONS ON)
set(CMAKE_POSITION_INDEPENDENT_CODE ON)
set(CMAKE_BUILD_TYPE Release)
set(CMAKE_C_FLAGS_RELEASE "-O2")
add_compile_options(-Wall -Wextra -Wshadow -Wno-unused-parameter -Wno-missing-field-initializers
                    -ffp-contract=off -fno-fast-math)
# a family's OBJECT libraries (collective_common) see the kit's headers too
get_target_property(_kit_inc trnsim::plugin INTERFACE_INCLUDE_DIRECTORIES)
include_directories(${{_kit_inc}})
set(TRNSIM_STATIC_PLUGINS OFF)
set(TRNSIM_WITH_MPI OFF)
set(TRNSIM_BUILD_TESTS OFF)
set(CMAKE_LIBRARY_OUTPUT_DIRECTORY ${{CMAKE_BINARY_DIR}}/out)
# trnsim_add_plugin as the project defines it, for the fast module only
function(trnsim_add_plugin family)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "REF;MUTANT" "" "")
  if(ARG_REF OR NOT family STREQUAL "{family}")
    return()
  endif()
  add_library(trnsim-${{family}} MODULE ${{ARG_UNPARSED_ARGUMENTS}})
  set_target_properties(trnsim-${{family}} PROPERTIES PREFIX "" C_VISIBILITY_PRESET hidden)
  target_link_options(trnsim-${{family}} PRIVATE -Wl,--no-undefined)
  target_link_libraries(trnsim-${{family}} PRIVATE trnsim::plugin m)
endfunction()
add_subdirectory({src} family)
"""


def load_mutants(path):
    with open(path, encoding="utf-8") as f:
        mutants = json.load(f)
    seen = set()
    for m in mutants:
        for key in ("id", "family", "file", "original", "replacement", "breaks"):
            if not isinstance(m.get(key), str) or not m[key]:
                raise SystemExit("%s: mutant %r has no %s" % (path, m.get("id"), key))
        if m["id"] in seen:
            raise SystemExit("%s: mutant id %s is used twice" % (path, m["id"]))
        if not isinstance(m.get("settings", []), list):
            raise SystemExit("%s: mutant %s: settings is a list of KEY=VALUE" % (path, m["id"]))
        if m["original"] == m["replacement"]:
            raise SystemExit("%s: mutant %s changes nothing" % (path, m["id"]))
        seen.add(m["id"])
    return mutants


def apply(text, m):
    n = text.count(m["original"])
    if n != 1:
        raise ValueError("the original text of %s occurs %d times in plugins/%s/%s "
                         "(expected once)" % (m["id"], n, m["family"], m["file"]))
    return text.replace(m["original"], m["replacement"])


class FamilyBuild:
    """plugins/FAMILY copied to WORK/src/FAMILY, configured once against PREFIX."""

    def __init__(self, family, prefix, work, log):
        self.family, self.log = family, log
        self.src = os.path.join(work, "src", family)
        self.shim = os.path.join(work, "shim", family)
        self.build = os.path.join(work, "build", family)
        shutil.copytree(os.path.join(REPO, "plugins", family), self.src)
        os.makedirs(self.shim)
        with open(os.path.join(self.shim, "CMakeLists.txt"), "w") as f:
            f.write(SHIM.format(family=family, src=self.src))
        env = dict(os.environ, CMAKE_PREFIX_PATH=prefix)
        for k in ("PKG_CONFIG_PATH", "CPATH", "C_INCLUDE_PATH", "trnsim_DIR"):
            env.pop(k, None)
        self.env = env
        self.run(["cmake", "-S", self.shim, "-B", self.build, "-DCMAKE_PREFIX_PATH=" + prefix])
        self.so = os.path.join(self.build, "out", "trnsim-%s.so" % family)

    def run(self, cmd):
        p = subprocess.run(["nice", "-n", "10"] + cmd, capture_output=True, text=True, env=self.env)
        self.log.write("$ %s\n%s%s" % (" ".join(cmd), p.stdout[-4000:], p.stderr[-4000:]))
        if p.returncode:
            raise RuntimeError("%s failed:\n%s" % (" ".join(cmd[:3]),
                                                   (p.stdout + p.stderr)[-2000:]))

    def make(self, edits, out):
        """Build with {file: text} in place of the originals; copy the module to out."""
        saved = {}
        try:
            for name, text in edits.items():
                path = os.path.join(self.src, name)
                with open(path, encoding="utf-8") as f:
                    saved[path] = f.read()
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text)
            self.run(["cmake", "--build", self.build, "-j1"])
            shutil.copy2(self.so, out)
        finally:
            for path, text in saved.items():
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text)


def summary_cases(text):
    """Cases run up to and including the first difference, from conform's
    --json summary (differences[0].case counts from 0); for a survivor, the
    cases run."""
    try:
        s = json.loads(text)
    except ValueError:
        return None
    if not isinstance(s, dict):
        return None
    for key in ("cases_to_first_difference", "first_difference_case"):
        if isinstance(s.get(key), int):
            return s[key]
    diffs = s.get("differences")
    if isinstance(diffs, list) and diffs and isinstance(diffs[0].get("case"), int):
        return diffs[0]["case"] + 1  # "case" counts from 0
    return s.get("cases") if isinstance(s.get("cases"), int) else None


def family_args(prefix, m):
    args = []
    if m["family"] == "experimental":
        args = ["--config", os.path.join(prefix, "share", "trnsim", "experimental.cfg")]
    for kv in m.get("settings", []):
        args += ["--set", kv]
    return args


def run_conform(a, m, so, tmp):
    trnsim = os.path.join(a.prefix, "bin", "trnsim")
    out = os.path.join(tmp, "conform-" + m["id"])
    cmd = ["nice", "-n", "10", trnsim, "conform", "--family", m["family"],
           "--module", "%s=%s" % (m["family"], so), "--seed", str(a.seed), "--time", str(a.time),
           "--out", out, "--json"] + family_args(a.prefix, m)
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=a.time * 3 + 60)
    except subprocess.TimeoutExpired:
        return {"verdict": "error", "seconds": round(time.monotonic() - t0, 2),
                "detail": "conform ran past %d s" % (a.time * 3 + 60)}
    secs = round(time.monotonic() - t0, 2)
    verdict = {0: "survived", 1: "killed"}.get(p.returncode, "error")
    r = {"verdict": verdict, "seconds": secs, "cases": summary_cases(p.stdout)}
    if verdict != "survived":
        r["detail"] = (p.stderr.strip() or p.stdout.strip())[-600:]
    if verdict == "killed" and os.path.isdir(out):
        cases = sorted(d for d in os.listdir(out) if d.startswith("case-"))
        r["case_dirs"] = len(cases)
    return r


def stored_programs(family):
    progs = []
    for d in (os.path.join(REPO, "tests", family, "programs"),
              os.path.join(HERE, "programs", family)):
        if os.path.isdir(d):
            progs += sorted(os.path.join(d, f) for f in os.listdir(d)
                            if f.endswith(".json") and not f.startswith(("err_", "bad_")))
    return progs


def inputs_for(body, rng, d):
    """--input files of tests/ref/ref_diff.py's adversarial values for every
    tensor the program does not fill, one slice per core ([cores, *shape]),
    so that the cores of a collective differ."""
    import ref_diff  # tests/ref: the adversarial values
    import numpy as np
    cores = int(body.get("cores", 1))
    args = []
    for t in body.get("tensors", []):
        if any(k in t for k in ("data", "fill", "data_per_core", "view_of")):
            continue
        if t.get("dtype") not in ref_diff.NP_DTYPES:
            continue
        shape = tuple(t["shape"]) if cores == 1 else (cores,) + tuple(t["shape"])
        path = os.path.join(d, t["name"] + ".npy")
        np.save(path, ref_diff.values_for(rng, t["dtype"], shape))
        args += ["--input", "%s=%s" % (t["name"], path)]
    return args


def run_diff(a, m, so, tmp):
    import numpy as np
    trnsim = os.path.join(a.prefix, "bin", "trnsim")
    cfg = os.path.join(a.prefix, "share", "trnsim", "%s.cfg" % m["family"])
    t0 = time.monotonic()
    changed, ran, first = 0, 0, None
    for i, prog in enumerate(stored_programs(m["family"])):
        with open(prog) as f:
            body = json.load(f)
        for seed in (a.seed, a.seed + 1000):
            d = os.path.join(tmp, "diff-%s-%d-%d" % (m["id"], i, seed))
            os.makedirs(d)
            cmd = [trnsim, "diff", prog, "--config", cfg,
                   "--against-module", "%s=%s" % (m["family"], so)]
            for kv in m.get("settings", []):
                cmd += ["--set", kv, "--against-set", kv]
            cmd += inputs_for(body, np.random.default_rng(seed + i), d)
            p = subprocess.run(["nice", "-n", "10"] + cmd, capture_output=True, text=True,
                               timeout=300)
            if p.returncode == 2:
                continue  # the program's own error (both sides), not the mutant's doing
            ran += 1
            if p.returncode == 1:
                changed += 1
                first = first or os.path.basename(prog)
    return {"verdict": "changed" if changed else ("unchanged" if ran else "error"),
            "seconds": round(time.monotonic() - t0, 2), "programs_run": ran,
            "programs_differing": changed,
            "first_program": first}


def markdown(rows, a):
    conform = a.mode == "conform"
    head = ("| mutant | family | killed? | seconds | cases to first difference | what it breaks |\n"
            "|---|---|---|---|---|---|\n") if conform else \
        ("| mutant | family | behaviour | seconds | programs differing / run | what it breaks |\n"
         "|---|---|---|---|---|---|\n")
    lines = []
    for r in rows:
        if conform:
            v = {"killed": "yes", "survived": "**no**"}.get(r["verdict"], "error")
            cases = "" if r.get("cases") is None else str(r["cases"])
            lines.append("| %s | %s | %s | %.1f | %s | %s |" % (r["id"], r["family"], v,
                                                             r["seconds"], cases, r["breaks"]))
        else:
            lines.append("| %s | %s | %s | %.1f | %s / %s | %s |" % (
                r["id"], r["family"], r["verdict"], r["seconds"], r.get("programs_differing", ""),
                r.get("programs_run", ""), r["breaks"]))
    return head + "\n".join(lines) + "\n"


def totals(rows, mode):
    def median(v):
        v = sorted(v)
        if not v:
            return None
        h = len(v) // 2
        return v[h] if len(v) % 2 else (v[h - 1] + v[h]) / 2
    good = "killed" if mode == "conform" else "changed"
    hit = [r for r in rows if r["verdict"] == good]
    return {"mutants": len(rows), good: len(hit),
            "errors": sum(r["verdict"] == "error" for r in rows),
            "rate": round(len(hit) / len(rows), 4) if rows else None,
            "median_seconds": median([r["seconds"] for r in hit]),
            "median_cases": median([r["cases"] for r in hit if r.get("cases") is not None])}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--prefix", required=True, help="an install prefix: the kit and bin/trnsim")
    ap.add_argument("--mutants", default=os.path.join(HERE, "mutants.json"))
    ap.add_argument("--time", type=int, default=60, help="conform's budget per mutant (at most 60)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", help="comma-separated mutant ids")
    ap.add_argument("--mode", choices=("conform", "diff"), default="conform")
    ap.add_argument("--json", help="write the table and totals as JSON here ('-': stdout)")
    ap.add_argument("--markdown", help="write the kill table as Markdown here ('-': stdout)")
    ap.add_argument("--work", help="keep the work folder here (default: a temporary one, removed)")
    ap.add_argument("--expect-killed", action="store_true",
                    help="exit 1 unless every mutant is killed")
    a = ap.parse_args()
    if not 1 <= a.time <= 60:
        ap.error("--time is 1..60 seconds")
    a.prefix = os.path.abspath(a.prefix)
    if not os.access(os.path.join(a.prefix, "bin", "trnsim"), os.X_OK):
        ap.error("%s/bin/trnsim is not there: --prefix names a `cmake --install` prefix" % a.prefix)
    mutants = load_mutants(a.mutants)
    if a.only:
        want = a.only.split(",")
        unknown = [w for w in want if w not in {m["id"] for m in mutants}]
        if unknown:
            ap.error("unknown mutant id(s): %s" % ", ".join(unknown))
        mutants = [m for m in mutants if m["id"] in want]
    work = a.work or tempfile.mkdtemp(prefix="trnsim-mutants-")
    os.makedirs(work, exist_ok=True)
    rows, builds = [], {}
    log = open(os.path.join(work, "build.log"), "a")
    try:
        for m in mutants:
            row = {"id": m["id"], "family": m["family"], "breaks": m["breaks"]}
            t0 = time.monotonic()
            try:
                if m["family"] not in builds:
                    builds[m["family"]] = FamilyBuild(m["family"], a.prefix, work, log)
                b = builds[m["family"]]
                src = os.path.join(REPO, "plugins", m["family"], m["file"])
                with open(src, encoding="utf-8") as f:
                    text = apply(f.read(), m)
                so = os.path.join(work, "%s.so" % m["id"])
                b.make({m["file"]: text}, so)
                row["build_seconds"] = round(time.monotonic() - t0, 2)
                tmp = os.path.join(work, "runs")
                os.makedirs(tmp, exist_ok=True)
                run = run_conform if a.mode == "conform" else run_diff
                row.update(run(a, m, so, tmp))
            except (RuntimeError, ValueError, OSError) as exc:
                row.update({"verdict": "error", "seconds": 0.0, "detail": str(exc)[-600:]})
            rows.append(row)
            cases = "" if row.get("cases") is None else "  %d cases" % row["cases"]
            print("%-28s %-12s %-9s %6.1f s%s" % (m["id"], m["family"], row["verdict"],
                                                  row["seconds"], cases), flush=True)
    finally:
        log.close()
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)
    tot = totals(rows, a.mode)
    print(json.dumps(tot))
    if a.json:
        text = json.dumps({"mode": a.mode, "seed": a.seed, "time": a.time, "totals": tot,
                           "mutants": rows}, indent=1)
        (sys.stdout.write(text + "\n") if a.json == "-" else open(a.json, "w").write(text + "\n"))
    if a.markdown:
        text = markdown(rows, a)
        (sys.stdout.write(text) if a.markdown == "-" else open(a.markdown, "w").write(text))
    if any(r["verdict"] == "error" for r in rows):
        return 1
    if a.expect_killed and any(r["verdict"] not in ("killed", "changed") for r in rows):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
