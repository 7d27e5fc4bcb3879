#!/usr/bin/python3
"""cpack -G DEB builds trnsim and trnsim-dev holding what the install
rules promise, and the unpacked packages run on their own.

    check_deb.py --build-dir B --source-dir S --cpack CPACK --version V --families "dma bn ..."

1. cpack into a temporary directory; exactly trnsim_V_ARCH.deb and
   trnsim-dev_V_ARCH.deb come out.
2. trnsim holds usr/bin/trnsim, usr/lib/trnsim/trnsim-F.so for every built
   family (and trnsim-F-ref.so, its reference module, for every family of
   --ref-families), libtrnsim's runtime file, every config/*.cfg under
   usr/share/trnsim, every docs/**/*.md and README.md under usr/share/doc/trnsim, the examples,
   usr/share/man/man1/trnsim.1; the Python package if the tree has one.
   trnsim-dev holds every include/trnsim/**/*.h (the plugin/ topic headers
   too), the .pc files, the CMake package
   with its version file, and depends on trnsim (= V).
3. both are unpacked (dpkg-deb -x) into one root; ROOT/usr/bin/trnsim
   --version names V; it runs examples/quickstart.json from
   ROOT/usr/share/doc/trnsim/examples with every module taken from
   ROOT/usr/lib/trnsim (no TRNSIM_PLUGIN_PATH, nothing from the build tree);
   with the Python package, `import trnsim` finds the unpacked one; with
   search's reference module, `trnsim diff` of that example against
   `--against-module search=trnsim-search-ref` (by name) is identical.
(.ci/run installs the same packages with dpkg -i and runs them from /usr.)
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile


class Failure(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Failure(msg)
    print(f"ok: {msg}")


def run(cmd, env=None, cwd=None):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd, timeout=600)
    if p.returncode != 0:
        raise Failure(f"{' '.join(cmd)}: exit {p.returncode}\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
    return p


def contents(deb):
    lines = run(["dpkg-deb", "-c", deb]).stdout.splitlines()
    return {l.split()[5].lstrip(".") for l in lines if not l.split()[5].endswith("/")}


def expected(a):
    src = a.source_dir
    runtime = {"/usr/bin/trnsim", "/usr/share/man/man1/trnsim.1", "/usr/share/doc/trnsim/README.md"}
    runtime |= {f"/usr/lib/trnsim/trnsim-{f}.so" for f in a.families.split()}
    runtime |= {f"/usr/lib/trnsim/trnsim-{f}-ref.so" for f in a.ref_families.split()}
    runtime |= {"/usr/share/trnsim/" + os.path.basename(c) for c in glob.glob(f"{src}/config/*.cfg")}
    for md in glob.glob(f"{src}/docs/**/*.md", recursive=True):
        runtime.add("/usr/share/doc/trnsim/" + os.path.relpath(md, f"{src}/docs"))
    for ex in glob.glob(f"{src}/examples/*.json"):
        runtime.add("/usr/share/doc/trnsim/examples/" + os.path.basename(ex))
    dev = {"/usr/include/" + os.path.relpath(h, f"{src}/include")
           for h in glob.glob(f"{src}/include/trnsim/**/*.h", recursive=True)}
    dev |= {"/usr/lib/cmake/trnsim/trnsimConfig.cmake", "/usr/lib/cmake/trnsim/trnsimConfigVersion.cmake",
            "/usr/lib/pkgconfig/trnsim-plugin.pc"}
    return runtime, dev


def main():
    ap = argparse.ArgumentParser()
    for o in ("--build-dir", "--source-dir", "--cpack", "--version", "--families"):
        ap.add_argument(o, required=True)
    ap.add_argument("--ref-families", default="")
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="trnsim-deb-")
    try:
        out = os.path.join(tmp, "out")
        run([a.cpack, "-G", "DEB", "-B", out, "--config", os.path.join(a.build_dir, "CPackConfig.cmake")])
        debs = sorted(os.path.basename(d) for d in glob.glob(f"{out}/*.deb"))
        arch = run(["dpkg", "--print-architecture"]).stdout.strip()
        want = sorted([f"trnsim-dev_{a.version}_{arch}.deb", f"trnsim_{a.version}_{arch}.deb"])
        check(debs == want, f"cpack -G DEB built {want} ({debs})")
        main_deb, dev_deb = f"{out}/trnsim_{a.version}_{arch}.deb", f"{out}/trnsim-dev_{a.version}_{arch}.deb"
        have_main, have_dev = contents(main_deb), contents(dev_deb)
        want_main, want_dev = expected(a)
        check(not (want_main - have_main), f"trnsim holds the {len(want_main)} files the tree promises "
                                           f"(missing: {sorted(want_main - have_main)})")
        check(not (want_dev - have_dev), f"trnsim-dev holds the {len(want_dev)} kit files "
                                         f"(missing: {sorted(want_dev - have_dev)})")
        check(any(f.startswith("/usr/lib/libtrnsim.so.") for f in have_main) and "/usr/lib/libtrnsim.so" in have_dev,
              "libtrnsim.so.N in trnsim, the libtrnsim.so link in trnsim-dev")
        check(not any(f.startswith("/usr/include/") or f.endswith((".pc", ".cmake")) for f in have_main),
              "trnsim holds no headers, .pc or .cmake files")
        py_inits = [f for f in have_main if "/python3/" in f and f.endswith("/trnsim/__init__.py")]
        if os.path.isdir(os.path.join(a.source_dir, "python", "trnsim")):
            check(len(py_inits) == 1, f"trnsim holds the Python package ({py_inits})")
        dev_depends = run(["dpkg-deb", "-f", dev_deb, "Depends"]).stdout.strip()
        check(f"trnsim (= {a.version})" in dev_depends, f"trnsim-dev depends on trnsim (= {a.version})")
        depends = run(["dpkg-deb", "-f", main_deb, "Depends"]).stdout.strip()
        check("libconfig" in depends and "libjansson" in depends, f"trnsim depends on its libraries ({depends})")

        root = os.path.join(tmp, "root")
        for d in (main_deb, dev_deb):
            run(["dpkg-deb", "-x", d, root])
        env = {k: v for k, v in os.environ.items() if not k.startswith("TRNSIM")}
        exe = f"{root}/usr/bin/trnsim"
        version = run([exe, "--version"], env=env).stdout.splitlines()
        check(version[0] == f"trnsim {a.version}" and version[2].startswith(f"families built: {a.families} "),
              f"the packaged trnsim --version: {version}")
        ops = run([exe, "opcodes"], env=env, cwd=tmp).stdout
        mods = {os.path.realpath(l.split()[-1]) for l in ops.splitlines()[1:] if l.strip()}
        lib = os.path.realpath(f"{root}/usr/lib/trnsim") + os.sep
        check(mods and all(m.startswith(lib) for m in mods),
              f"every module comes from the unpacked usr/lib/trnsim ({sorted(mods)})")
        # invoked by name through PATH, as a user does: modules still found
        path_env = dict(env, PATH=f"{root}/usr/bin:" + env.get("PATH", ""))
        ops2 = run(["trnsim", "opcodes"], env=path_env, cwd=tmp).stdout
        check(ops2 == ops, "trnsim invoked by name through PATH finds the same modules")
        ex = f"{root}/usr/share/doc/trnsim/examples/quickstart.json"
        if py_inits:
            site = os.path.dirname(os.path.dirname(root + py_inits[0]))
            p = run([sys.executable, "-c", "import trnsim; print(trnsim.__file__)"],
                    env=dict(env, PYTHONPATH=site), cwd=tmp)
            check(os.path.realpath(p.stdout.strip()).startswith(os.path.realpath(root) + os.sep),
                  f"import trnsim finds the unpacked package ({p.stdout.strip()})")
        p = run([exe, "run", ex, "--output", f"top8={tmp}/top8.npy", "--stats"], env=env, cwd=tmp)
        check(os.path.getsize(f"{tmp}/top8.npy") > 128 and "MaxIndexAndMatchReplace" in p.stdout,
              "the packaged trnsim runs the packaged quickstart example")
        if "search" in a.ref_families.split():
            p = run([exe, "diff", ex, "--against-module", "search=trnsim-search-ref"], env=env, cwd=tmp)
            check(p.stdout.startswith("identical"),
                  f"the packaged search reference module agrees on the quickstart example ({p.stdout})")
    except Failure as e:
        print(f"FAIL: {e}")
        return 1
    finally:
        if a.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print("PASS: Debian packages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
