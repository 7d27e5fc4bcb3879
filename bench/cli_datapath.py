#!/usr/bin/python3
"""trnsim run end to end against a numpy script doing the same work, as
whole processes: .npy in, the kernel, .npy out.

    /usr/bin/python3 bench/cli_datapath.py [--build build] [--rounds 9] [--quick] [FILTER]

Each case writes its input files once, then alternates, round by round,
`trnsim run PROGRAM --input ... --output ...` with `python3 -c SCRIPT`
(np.load -> the same work -> np.save), who goes first rotating. Both
replace an output file left by the previous round, as a user rerunning a
command does. Every child is waited for with wait4, which gives its peak
resident set (ru_maxrss) and its minor page faults (ru_minflt).

The children are started by a small launcher process (this script with
--serve, which never imports numpy): a child's ru_maxrss counts the memory
of the process it was spawned from up to its exec, so spawning from the
benchmark itself, which holds the arrays, would report that instead. The
launcher's own resident set (about 10 MiB) is therefore a floor under both
sides' peak RSS.

Printed per case: the median wall time of each side and the median of the
paired ratios numpy / trnsim (above 1: trnsim faster) with its IQR; trnsim's
peak RSS against the bytes the program declares (its tensors on every core)
plus the bytes of its input files; the minor faults of both. trnsim's
outputs are checked against numpy's after timing: bit for bit for the copy
and the AllReduce sum, within 1e-5 for BatchNorm (numpy's mean and var are
not the reference's Welford recurrence).
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def cpu_model():
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def serve():
    """The launcher: one JSON request per line (argv, env), one JSON answer
    per line: wall seconds, peak RSS bytes, minor faults, exit code, stderr."""
    for line in sys.stdin:
        req = json.loads(line)
        t0 = time.perf_counter()
        p = subprocess.Popen(req["argv"], env=req["env"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        err = p.stderr.read()
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        print(json.dumps({"wall": wall, "rss": ru.ru_maxrss * 1024, "minflt": ru.ru_minflt,
                          "rc": os.waitstatus_to_exitcode(status), "err": err.decode(errors="replace")}), flush=True)


class Launcher:
    def __init__(self):
        self.p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--serve"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)

    def timed(self, argv, env):
        """(wall seconds, peak RSS bytes, minor faults) of one child process."""
        self.p.stdin.write(json.dumps({"argv": argv, "env": env}) + "\n")
        self.p.stdin.flush()
        r = json.loads(self.p.stdout.readline())
        if r["rc"] != 0:
            raise SystemExit("%s failed (exit %d): %s" % (argv[0], r["rc"], r["err"].strip()))
        return r["wall"], r["rss"], r["minflt"]

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def quartiles(xs):
    q = statistics.quantiles(xs, n=4, method="inclusive")
    return q[0], q[2]


class Case:
    """One program: its files, the trnsim command, the numpy script."""

    def __init__(self, name, size, cfg, prog, inputs, outputs, script, check):
        self.name, self.size, self.cfg, self.prog = name, size, cfg, prog
        self.inputs, self.outputs, self.script, self.check = inputs, outputs, script, check

    def declared_bytes(self):
        cores = self.prog.get("cores", 1)
        per_core = 0
        for t in self.prog["tensors"]:
            width = np.dtype(t["dtype"]).itemsize
            per_core += width * int(np.prod(t["shape"]))
        return per_core * cores


def run_case(c, a, work, launcher):
    d = tempfile.mkdtemp(dir=work)
    cfg, prog = os.path.join(d, "c.cfg"), os.path.join(d, "p.json")
    with open(cfg, "w") as f:
        f.write(c.cfg)
    with open(prog, "w") as f:
        json.dump(c.prog, f)
    in_bytes = 0
    ins = []
    for name, arr in c.inputs.items():
        path = os.path.join(d, name + ".npy")
        np.save(path, arr)
        in_bytes += arr.nbytes
        ins.append((name, path))
    tr_out = {n: os.path.join(d, "trnsim_" + n + ".npy") for n in c.outputs}
    np_out = {n: os.path.join(d, "numpy_" + n + ".npy") for n in c.outputs}
    tr_argv = [a.trnsim, "run", prog, "--config", cfg]
    for n, p in ins:
        tr_argv += ["--input", "%s=%s" % (n, p)]
    for n, p in tr_out.items():
        tr_argv += ["--output", "%s=%s" % (n, p)]
    np_argv = [sys.executable, "-c", c.script, json.dumps({"in": dict(ins), "out": np_out})]
    env = dict(os.environ, TRNSIM_PLUGIN_PATH=a.build)
    sides = {"trnsim": tr_argv, "numpy": np_argv}
    timed = launcher.timed
    for argv in sides.values():  # warm the page cache, and leave outputs to replace
        timed(argv, env)
    res = {k: [] for k in sides}
    for r in range(a.rounds):
        order = ("trnsim", "numpy") if r % 2 == 0 else ("numpy", "trnsim")
        for k in order:
            res[k].append(timed(sides[k], env))
    ok = c.check({n: np.load(p) for n, p in tr_out.items()}, {n: np.load(p) for n, p in np_out.items()})
    tw = [x[0] for x in res["trnsim"]]
    nw = [x[0] for x in res["numpy"]]
    ratios = [n / t for t, n in zip(tw, nw)]
    q1, q3 = quartiles(ratios)
    rss = statistics.median(x[1] for x in res["trnsim"])
    np_rss = statistics.median(x[1] for x in res["numpy"])
    flt = statistics.median(x[2] for x in res["trnsim"])
    np_flt = statistics.median(x[2] for x in res["numpy"])
    budget = c.declared_bytes() + in_bytes
    mib = 1 << 20
    print("%-26s %-16s trnsim %8.1f ms  numpy %8.1f ms  ratio %.2fx (IQR %.2f-%.2f, %d pairs)%s"
          % (c.name, c.size, statistics.median(tw) * 1e3, statistics.median(nw) * 1e3, statistics.median(ratios),
             q1, q3, len(ratios), "" if ok else "  MISMATCH: outputs differ from numpy's"))
    print("%-26s %-16s peak RSS %.1f MiB = %.2fx (declared %.0f MiB + inputs %.0f MiB); numpy %.1f MiB"
          % ("", "", rss / mib, rss / budget, c.declared_bytes() / mib, in_bytes / mib, np_rss / mib))
    print("%-26s %-16s minor faults %d = %.2fx numpy's %d"
          % ("", "", flt, flt / np_flt, np_flt))
    sys.stdout.flush()
    for f in os.listdir(d):
        os.remove(os.path.join(d, f))
    os.rmdir(d)


LOAD = "import json, sys\nimport numpy as np\nio = json.loads(sys.argv[1])\n"


def case_copy(a):
    n = (4 << 20) if a.quick else (16 << 20)
    x = np.random.default_rng(7).random(n, dtype=np.float32)
    cfg = ('machine = { hbm_bytes = %d; };\nplugins = ( { family = "dma"; module = "trnsim-dma"; } );\n'
           % (2 * n * 4 + (1 << 20)))
    prog = {"tensors": [{"name": "x", "memory": "hbm", "dtype": "float32", "shape": [n]},
                        {"name": "y", "memory": "hbm", "dtype": "float32", "shape": [n]}],
            "instructions": [{"opcode": "TensorCopy", "inputs": ["x"], "outputs": ["y"]}]}
    script = LOAD + "x = np.load(io['in']['x'])\ny = x.copy()\nnp.save(io['out']['y'], y)\n"
    return Case("DMA TensorCopy hbm->hbm", "%d MiB fp32" % (n * 4 >> 20), cfg, prog, {"x": x}, ["y"], script,
                lambda t, p: t["y"].tobytes() == p["y"].tobytes() == x.tobytes())


def case_allreduce(a):
    ranks, fe = 8, (1024 if a.quick else 8192)
    xs = np.stack([np.random.default_rng(1000 + r).uniform(-1e3, 1e3, (128, fe)).astype(np.float32)
                   for r in range(ranks)])
    cfg = ('machine = { hbm_bytes = 1048576; };\n'
           'plugins = ( { family = "collective"; module = "trnsim-collective"; } );')
    prog = {"cores": ranks,
            "tensors": [{"name": "x", "memory": "sbuf", "dtype": "float32", "shape": [128, fe]},
                        {"name": "y", "memory": "sbuf", "dtype": "float32", "shape": [128, fe]}],
            "instructions": [{"opcode": "CollectiveCompute", "kind": "AllReduce", "reduce_op": "add",
                              "inputs": ["x"], "outputs": ["y"]}]}
    # ranks in core order, each added to the running sum (the collective's order)
    script = LOAD + ("xs = np.load(io['in']['x'])\nacc = xs[0].copy()\nfor r in range(1, xs.shape[0]):\n"
                     "    np.add(acc, xs[r], out=acc)\nouts = np.empty_like(xs)\nouts[...] = acc\n"
                     "np.save(io['out']['y'], outs)\n")
    return Case("AllReduce add, 8 cores", "%d x %d KiB" % (ranks, 128 * fe * 4 >> 10), cfg, prog, {"x": xs}, ["y"],
                script, lambda t, p: t["y"].tobytes() == p["y"].tobytes())


def case_bn(a):
    rows, cols = 128, (2048 if a.quick else 16384)
    x = np.random.default_rng(34).uniform(-3, 5, (rows, cols)).astype(np.float32)
    cfg = 'plugins = ( { family = "bn"; module = "trnsim-bn"; } );'
    prog = {"tensors": [{"name": "x", "memory": "sbuf", "dtype": "float32", "shape": [rows, cols]},
                        {"name": "st", "memory": "sbuf", "dtype": "float32", "shape": [rows, 6]},
                        {"name": "mv", "memory": "sbuf", "dtype": "float32", "shape": [rows, 2]}],
            "instructions": [{"opcode": "BNStats", "inputs": ["x"], "outputs": ["st"]},
                             {"opcode": "BNStatsAggregate", "inputs": ["st"], "outputs": ["mv"]}]}
    script = LOAD + ("x = np.load(io['in']['x'])\nmv = np.stack([x.mean(axis=1), x.var(axis=1)], axis=1)\n"
                     "np.save(io['out']['mv'], mv.astype(np.float32))\n")
    return Case("BNStats+BNStatsAggregate", "%d x %d fp32" % (rows, cols), cfg, prog, {"x": x}, ["mv"], script,
                lambda t, p: np.allclose(t["mv"], p["mv"], rtol=1e-5, atol=1e-5))


CASES = [("datapath_copy", case_copy), ("datapath_allreduce", case_allreduce), ("datapath_bn", case_bn)]


def main():
    if sys.argv[1:] == ["--serve"]:
        return serve()
    launcher = Launcher()  # before numpy is imported here, and before any array exists
    global np
    import numpy as np
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("filter", nargs="?", default="", help="run the cases whose name contains this")
    ap.add_argument("--build", default=os.path.join(REPO, "build"), help="the build tree (trnsim, modules)")
    ap.add_argument("--rounds", type=int, default=9, help="alternated pairs per case")
    ap.add_argument("--quick", action="store_true", help="smaller sizes")
    ap.add_argument("--work", default=None, help="where the files go (default: a temporary directory)")
    a = ap.parse_args()
    a.build = os.path.abspath(a.build)
    a.trnsim = os.path.join(a.build, "trnsim")
    if not os.path.exists(a.trnsim):
        raise SystemExit("cli_datapath: %s not found (build first, or pass --build)" % a.trnsim)
    with open("/sys/kernel/mm/transparent_hugepage/enabled") if os.path.exists(
            "/sys/kernel/mm/transparent_hugepage/enabled") else open(os.devnull) as f:
        thp = f.read().strip() or "unknown"
    print("cli_datapath: %s, %d CPUs, load %.1f; numpy %s; transparent huge pages: %s"
          % (cpu_model(), os.cpu_count(), os.getloadavg()[0], np.__version__, thp))
    print("ratio = numpy time / trnsim time (> 1: trnsim faster), median of alternated pairs of whole processes")
    work = a.work or tempfile.mkdtemp(prefix="trnsim_cli_bench_")
    for name, fn in CASES:
        if a.filter in name:
            run_case(fn(a), a, work, launcher)
    launcher.close()
    print("load at the end %.1f" % os.getloadavg()[0])
    if not a.work:
        os.rmdir(work)


if __name__ == "__main__":
    main()
