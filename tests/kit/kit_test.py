#!/usr/bin/python3
"""The plugin kit, end to end: install this build, build the out-of-tree
example against the install prefix ONLY, and run it with the installed trnsim
next to the installed stock modules.

    kit_test.py --build-dir B --source-dir S --cmake CMAKE --ctest CTEST --cc CC [--pkg-config PC]
                [--make MAKE] [--generator G] [--make-program M]

Steps (every file goes into one temporary directory, removed at the end;
the build tree is left as found: `cmake --install` writes its
install_manifest.txt there, so the test restores or removes that file):
  1. cmake --install B --prefix TMP/prefix; the kit files must be there;
     find_package(trnsim X.Y REQUIRED) accepts this version and refuses
     another minor or major version.
  2. copy examples/out-of-tree-plugin to TMP/src (no path back into S).
  3. build it with find_package(trnsim) (CMAKE_PREFIX_PATH = the prefix and
     nothing else), with the Makefile (pkg-config), and with the one-line cc
     command; no compile command may name S or B.
  4. run examples' test_example.py on each build with TMP/prefix/bin/trnsim,
     the example loaded next to every installed stock module; run the
     example's own ctest.
  5. cmake --install the example into the prefix, then
     TMP/prefix/bin/trnsim run --config CFG, CFG naming the stock modules and
     trnsim-example by name only, on a program that mixes a stock opcode
     with Scale; check the outputs bit for bit and that every module came
     from the prefix.
Exit 0 when everything holds.
"""
import argparse
import ast
import glob
import json
import os
import shlex
import shutil
import struct
import subprocess
import sys
import tempfile

# The variables that could lead a build or a run to something other than
# the prefix under test.
LEAKY_ENV = ("CMAKE_PREFIX_PATH", "PKG_CONFIG_PATH", "PKG_CONFIG_LIBDIR", "TRNSIM_PLUGIN_PATH", "trnsim_DIR",
             "CMAKE_INCLUDE_PATH", "CPATH", "C_INCLUDE_PATH")


class Failure(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Failure(msg)
    print(f"ok: {msg}")


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in LEAKY_ENV}
    env.update(extra)
    return env


def run(cmd, what, env=None, cwd=None):
    print("$ " + " ".join(shlex.quote(c) for c in cmd), flush=True)
    p = subprocess.run(cmd, capture_output=True, text=True, env=env or clean_env(), cwd=cwd)
    if p.returncode != 0:
        raise Failure(f"{what} failed ({p.returncode}):\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
    return p


def read_npy_f32(path):
    with open(path, "rb") as f:
        data = f.read()
    hlen_size = 2 if data[6] == 1 else 4
    hlen = int.from_bytes(data[8:8 + hlen_size], "little")
    header = ast.literal_eval(data[8 + hlen_size:8 + hlen_size + hlen].decode("latin1"))
    if header["descr"] != "<f4":
        raise Failure(f"{path}: dtype {header['descr']}, expected <f4")
    body = data[8 + hlen_size + hlen:]
    return tuple(header["shape"]), list(struct.unpack(f"<{len(body) // 4}f", body))


def bits(v):
    return struct.unpack("<I", struct.pack("<f", v))[0]


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


class Manifest:
    """Keep B/install_manifest.txt as it was before `cmake --install B`."""

    def __init__(self, build_dir):
        self.path = os.path.join(build_dir, "install_manifest.txt")
        self.old = open(self.path, "rb").read() if os.path.exists(self.path) else None

    def restore(self):
        if self.old is None:
            if os.path.exists(self.path):
                os.remove(self.path)
        else:
            with open(self.path, "wb") as f:
                f.write(self.old)


# ---- 1. install ---------------------------------------------------------------------


def install(a, prefix):
    manifest = Manifest(a.build_dir)
    try:
        run([a.cmake, "--install", a.build_dir, "--prefix", prefix], "cmake --install")
    finally:
        manifest.restore()
    pcs = glob.glob(os.path.join(prefix, "*", "pkgconfig", "trnsim-plugin.pc")) + \
        glob.glob(os.path.join(prefix, "*", "*", "pkgconfig", "trnsim-plugin.pc"))
    cfgs = glob.glob(os.path.join(prefix, "**", "trnsimConfig.cmake"), recursive=True)
    check(os.path.isfile(os.path.join(prefix, "include", "trnsim", "plugin.h")), "installed include/trnsim/plugin.h")
    check(os.path.isfile(os.path.join(prefix, "include", "trnsim", "plugin", "host_api.h")),
          "installed include/trnsim/plugin/host_api.h")
    check(os.path.isfile(os.path.join(prefix, "include", "trnsim", "dtype.h")), "installed include/trnsim/dtype.h")
    check(len(pcs) == 1, f"installed one trnsim-plugin.pc ({pcs})")
    check(len(cfgs) == 1, f"installed one trnsimConfig.cmake ({cfgs})")
    trnsim = os.path.join(prefix, "bin", "trnsim")
    check(os.access(trnsim, os.X_OK), "installed bin/trnsim")
    mods = sorted(glob.glob(os.path.join(prefix, "*", "trnsim", "trnsim-*.so")) +
                  glob.glob(os.path.join(prefix, "*", "*", "trnsim", "trnsim-*.so")))
    # trnsim-collective-mpi is the collective family again (with its MPI
    # transport), an alternative to trnsim-collective, not a family of its own;
    # so is each reference module trnsim-FAMILY-ref (docs/plugins.md)
    stock = [os.path.basename(m)[len("trnsim-"):-3] for m in mods
             if not m.endswith(("-mpi.so", "-ref.so"))]
    print(f"installed modules: {', '.join(stock) or '(none: a static build)'}")
    return trnsim, os.path.dirname(pcs[0]), stock


# ---- 1b. find_package with a version ------------------------------------------------


def version_requests(a, tmp, prefix):
    """find_package(trnsim MAJOR.MINOR REQUIRED) finds this prefix; a request
    for another minor version (0.x: the next one, and the one before) or for
    the next major version is refused by the installed version file
    (trnsimConfigVersion.cmake, SameMinorVersion)."""
    major, minor, _ = (int(x) for x in a.version.split("."))
    cases = [(f"{major}.{minor}", True), (f"{major}.{minor}.0", True), (f"{major}.{minor + 1}", False),
             (f"{major + 1}.0", False)]
    if minor > 0:
        cases.append((f"{major}.{minor - 1}", major > 0))
    for req, ok in cases:
        src = os.path.join(tmp, f"version-{req}")
        os.makedirs(src)
        with open(os.path.join(src, "CMakeLists.txt"), "w") as f:
            f.write("cmake_minimum_required(VERSION 3.16)\nproject(v LANGUAGES NONE)\n"
                    f"find_package(trnsim {req} REQUIRED)\n"
                    'message(STATUS "found trnsim ${trnsim_VERSION} in ${trnsim_DIR}")\n')
        cmd = [a.cmake, "-S", src, "-B", os.path.join(src, "b"), f"-DCMAKE_PREFIX_PATH={prefix}",
               "-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF", "-DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF"]
        p = subprocess.run(cmd, capture_output=True, text=True, env=clean_env())
        if ok:
            check(p.returncode == 0 and f"found trnsim {a.version} in {os.path.realpath(prefix)}" in
                  p.stdout.replace(prefix, os.path.realpath(prefix)),
                  f"find_package(trnsim {req} REQUIRED) finds {a.version} in the prefix")
        else:
            check(p.returncode != 0 and "not accepted" in p.stderr and
                  f"trnsimConfig.cmake, version: {a.version}" in p.stderr,
                  f"find_package(trnsim {req} REQUIRED) refuses {a.version}, naming the installed version")


# ---- 3. the three builds ----------------------------------------------------------------


def forbidden_paths(a):
    return [os.path.realpath(a.source_dir), os.path.realpath(a.build_dir)]


def no_tree_paths(a, text, what):
    for p in forbidden_paths(a):
        check(p + os.sep not in text and not text.rstrip().endswith(p), f"{what} does not name {p}")


def build_cmake(a, src, bld, prefix):
    cmd = [a.cmake, "-S", src, "-B", bld, f"-DCMAKE_PREFIX_PATH={prefix}", f"-DCMAKE_C_COMPILER={a.cc}",
           "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON", "-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF",
           "-DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF", f"-DCMAKE_INSTALL_PREFIX={prefix}"]
    if a.generator:
        cmd += ["-G", a.generator]
        if a.make_program:
            cmd += [f"-DCMAKE_MAKE_PROGRAM={a.make_program}"]
    run(cmd, "configuring the example (find_package)")
    run([a.cmake, "--build", bld], "building the example (find_package)")
    cache = open(os.path.join(bld, "CMakeCache.txt")).read()
    found = [line.split("=", 1)[1] for line in cache.splitlines() if line.startswith("trnsim_DIR:")]
    check(found and os.path.realpath(found[0]).startswith(os.path.realpath(prefix) + os.sep),
          f"find_package(trnsim) used the prefix ({found})")
    no_tree_paths(a, open(os.path.join(bld, "compile_commands.json")).read(), "the find_package compile command")
    return os.path.join(bld, "trnsim-example.so")


def build_oneline(a, src, out_dir, pc_dir):
    env = clean_env(PKG_CONFIG_LIBDIR=pc_dir)  # this prefix's .pc files and no others
    cflags = run([a.pkg_config, "--cflags", "trnsim-plugin"], "pkg-config --cflags", env=env).stdout.split()
    no_tree_paths(a, " ".join(cflags), "pkg-config --cflags")
    os.makedirs(out_dir)
    out = os.path.join(out_dir, "trnsim-example.so")
    run([a.cc, "-shared", "-fPIC", *cflags, os.path.join(src, "example.c"), "-o", out, "-Wl,--no-undefined"],
        "the one-line cc build", env=env)
    return out


def build_make(a, src, out_dir, pc_dir):
    env = clean_env(PKG_CONFIG_LIBDIR=pc_dir)
    p = run([a.make, "-C", src, f"BUILD={out_dir}", f"CC={a.cc}", f"PKG_CONFIG={a.pkg_config}"],
            "make (pkg-config)", env=env)
    no_tree_paths(a, p.stdout, "the make compile command")
    return os.path.join(out_dir, "trnsim-example.so")


# ---- 4 / 5. running -------------------------------------------------------------------


def run_example_test(a, src, trnsim, module, stock):
    cmd = [a.python, os.path.join(src, "test_example.py"), "--trnsim", trnsim, "--module", module]
    for fam in stock:
        cmd += ["--stock", fam]
    p = run(cmd, f"test_example.py with {module}")
    check("PASS: trnsim-example" in p.stdout, f"test_example.py passed for {module}")


def installed_run(a, tmp, trnsim, prefix, stock):
    """trnsim run --config CFG: stock modules and trnsim-example by name."""
    cfg = os.path.join(tmp, "kit.cfg")
    entries = [f'  {{ family = "{f}"; module = "trnsim-{f}"; }}' for f in stock]
    entries.append('  { family = "example"; module = "trnsim-example"; settings = { negative_zero = "flush"; }; }')
    with open(cfg, "w") as f:
        f.write('unknown_opcode = "error";\nplugins = (\n' + ",\n".join(entries) + "\n);\n")
    x = [0.5, -0.0, 0.0, -3.25, 1e-45, 65504.0]
    tensors = [{"name": "x", "memory": "sbuf", "dtype": "float32", "shape": [2, 3], "data": x},
               {"name": "y", "memory": "sbuf", "dtype": "float32", "shape": [2, 3]}]
    insts = [{"opcode": "Scale", "inputs": ["x"], "outputs": ["y"], "factor": -4}]
    outputs = ["y"]
    if "rng" in stock:  # a stock opcode feeding Scale
        tensors += [{"name": "r", "memory": "sbuf", "dtype": "float32", "shape": [2, 3]},
                    {"name": "s", "memory": "sbuf", "dtype": "float32", "shape": [2, 3]}]
        insts += [{"opcode": "Rand2", "outputs": ["r"], "min": -1, "max": 1},
                  {"opcode": "Scale", "inputs": ["r"], "outputs": ["s"], "factor": 0.5}]
        outputs += ["r", "s"]
    if "dma" in stock:  # and one consuming its output
        tensors += [{"name": "z", "memory": "sbuf", "dtype": "float32", "shape": [2, 3]}]
        insts += [{"opcode": "TensorCopy", "inputs": ["y"], "outputs": ["z"]}]
        outputs += ["z"]
    prog = os.path.join(tmp, "kit.json")
    with open(prog, "w") as f:
        json.dump({"tensors": tensors, "instructions": insts}, f)
    cmd = [trnsim, "run", prog, "--config", cfg]
    for o in outputs:
        cmd += ["--output", f"{o}={os.path.join(tmp, o + '.npy')}"]
    run(cmd, "the installed trnsim run --config")
    got = {o: read_npy_f32(os.path.join(tmp, o + ".npy"))[1] for o in outputs}
    want_y = [f32(f32(v) * -4.0) for v in x]  # x as the fp32 the tensor holds
    want_y = [0.0 if w == 0.0 else w for w in want_y]  # negative_zero = "flush"
    check([bits(v) for v in got["y"]] == [bits(v) for v in want_y], f"y = Scale(x, -4), flushed: {got['y']}")
    if "r" in got:
        check(all(-1.0 <= v < 1.0 for v in got["r"]) and len(set(got["r"])) > 1, f"Rand2 gave {got['r']}")
        want_s = [f32(v * 0.5) for v in got["r"]]
        want_s = [0.0 if w == 0.0 else w for w in want_s]
        check([bits(v) for v in got["s"]] == [bits(v) for v in want_s], "s = Scale(Rand2 output, 0.5)")
    if "z" in got:
        check([bits(v) for v in got["z"]] == [bits(v) for v in got["y"]], "TensorCopy of Scale's output")
    p = run([trnsim, "opcodes", "--config", cfg], "trnsim opcodes")
    rows = [line.split() for line in p.stdout.splitlines() if line[:1].isdigit()]
    real_prefix = os.path.realpath(prefix) + os.sep
    check(rows and all(os.path.realpath(r[4]).startswith(real_prefix) for r in rows),
          "every opcode was loaded from the prefix")
    check(any(r[:4] == ["240", "Scale", "example", "trnsim-example"] for r in rows),
          "IT 240 is the installed trnsim-example")
    for fam in stock:
        check(any(r[2] == fam for r in rows), f"family {fam} loaded next to the example")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--cmake", required=True)
    ap.add_argument("--ctest", required=True)
    ap.add_argument("--cc", required=True)
    ap.add_argument("--pkg-config", default="pkg-config")
    ap.add_argument("--make", default="")
    ap.add_argument("--generator", default="")
    ap.add_argument("--make-program", default="")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--version", required=True, help="the project version the install must report")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory (debugging)")
    a = ap.parse_args()
    a.build_dir, a.source_dir = os.path.abspath(a.build_dir), os.path.abspath(a.source_dir)

    tmp = tempfile.mkdtemp(prefix="trnsim-kit-")
    print(f"temporary directory: {tmp}")
    try:
        prefix = os.path.join(tmp, "prefix")
        trnsim, pc_dir, stock = install(a, prefix)
        version_requests(a, tmp, prefix)
        src = os.path.join(tmp, "src")
        shutil.copytree(os.path.join(a.source_dir, "examples", "out-of-tree-plugin"), src,
                        ignore=shutil.ignore_patterns("build", "build-*", "*.so", "__pycache__"))
        modules = {"find_package": build_cmake(a, src, os.path.join(tmp, "build-cmake"), prefix),
                   "one-line cc": build_oneline(a, src, os.path.join(tmp, "build-cc"), pc_dir)}
        if a.make and shutil.which(a.make):
            modules["Makefile"] = build_make(a, src, os.path.join(tmp, "build-make"), pc_dir)
        else:
            print("note: no make program; the Makefile build is not tried")
        for how, module in modules.items():
            check(os.path.isfile(module), f"{how} build produced {module}")
            run_example_test(a, src, trnsim, module, stock)
        p = run([a.ctest, "--test-dir", os.path.join(tmp, "build-cmake"), "--output-on-failure"],
                "the example's own ctest")
        check("100% tests passed" in p.stdout, "the example's own ctest passed")
        run([a.cmake, "--install", os.path.join(tmp, "build-cmake")], "cmake --install of the example")
        installed_run(a, tmp, trnsim, prefix, stock)
    except Failure as e:
        print(f"FAIL: {e}")
        return 1
    finally:
        if a.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print("PASS: plugin kit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
