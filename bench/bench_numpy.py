#!/usr/bin/python3
"""trnsim against numpy in one Python process, through the trnsim Python
package (python/trnsim, a ctypes binding of libtrnsim).

    /usr/bin/python3 bench/bench_numpy.py [--build build] [--quick] [FILTER]

Each case loads one program into a trnsim.Simulator, sets its inputs once,
then times `sim.run(outputs=[])` (the run alone: no tensor is copied out)
against numpy doing the same work on arrays allocated beforehand. As in
trnsim-bench, the two alternate round by round and the ratio is the median of
the paired ratios (numpy time / trnsim time: above 1, trnsim is faster), with
its interquartile range. trnsim's result is checked against numpy's before
and after timing: bit for bit where numpy computes the same bits (the copy,
the AllReduce sum, the top-64 values), against the data for the top-64
indices, and within 1e-5 for BatchNorm statistics (numpy's mean and var are
not the reference's Welford recurrence, so their bits differ).

Without the package (or its library) the numpy side is timed alone and the
reason is printed: see trnsim_simulator() below, the one place that reaches
the package.
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from topk_numpy import bench_data, topk  # noqa: E402  (the C bench's TopK data)


def trnsim_simulator(build):
    """(trnsim module, None), or (None, why not). The package is imported
    from the build tree (BUILD/python, where the build puts it beside the
    path of its library), else from python/ of this checkout with the build
    tree's libtrnsim.so, unless PYTHONPATH or TRNSIM_LIBRARY say otherwise."""
    lib = os.path.join(build, "libtrnsim.so")
    if "TRNSIM_LIBRARY" not in os.environ and os.path.exists(lib):
        os.environ["TRNSIM_LIBRARY"] = lib
    for where in (os.path.join(build, "python"), os.path.join(REPO, "python")):  # after PYTHONPATH's entries
        if os.path.isdir(where):
            sys.path.append(where)
    try:
        import trnsim
        trnsim.Simulator  # noqa: B018  (the class this script drives)
    except (ImportError, AttributeError, OSError) as exc:
        return None, "%s: %s" % (type(exc).__name__, exc)
    except Exception as exc:  # the package's own "library not found" error
        return None, "%s: %s" % (type(exc).__name__, exc)
    return trnsim, None


# ---- timing: alternated rounds, median of paired ratios --------------------

def compare(fn, baseline, min_seconds, min_rounds=7):
    """Warm both up, then rounds of one call each (who goes first alternates)
    until min_seconds have passed. Returns (median fn time, median baseline
    time, median ratio, q1, q3, rounds), ratio = baseline / fn."""
    fn(), baseline()
    pairs, total = [], 0.0
    while len(pairs) < min_rounds or total < min_seconds:
        order = (fn, baseline) if len(pairs) % 2 == 0 else (baseline, fn)
        t = {}
        for f in order:
            t0 = time.perf_counter()
            f()
            t[f] = time.perf_counter() - t0
        pairs.append((t[fn], t[baseline]))
        total += t[fn] + t[baseline]
    ratios = sorted(b / a for a, b in pairs)
    q = statistics.quantiles(ratios, n=4, method="inclusive")
    return (statistics.median(a for a, _ in pairs), statistics.median(b for _, b in pairs),
            statistics.median(ratios), q[0], q[2], len(pairs))


def report(kernel, size, work, unit, res):
    t, tb, ratio, q1, q3, rounds = res
    print("%-34s %-18s %10.3f ms   vs numpy %10.3f ms   ratio %.2fx (IQR %.2f-%.2f, %d pairs)  %.2f G%s/s"
          % (kernel, size, t * 1e3, tb * 1e3, ratio, q1, q3, rounds, work / t / 1e9, unit))
    sys.stdout.flush()


def numpy_only(kernel, size, fn, min_seconds):
    fn()
    times = []
    while len(times) < 7 or sum(times) < min_seconds:
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    print("%-34s %-18s numpy alone: median %.3f ms over %d calls" % (kernel, size, statistics.median(times) * 1e3,
                                                                     len(times)))


# ---- the cases --------------------------------------------------------------

def case_copy(tr, a):
    """TensorCopy hbm -> hbm of 64 MiB fp32 (16 MiB under --quick)."""
    n = (4 << 20) if a.quick else (16 << 20)
    x = np.random.default_rng(7).random(n, dtype=np.float32)
    y = np.empty_like(x)
    size = "%d MiB fp32" % (n * 4 >> 20)

    def numpy_copy():
        np.copyto(y, x)
    if tr is None:
        return numpy_only("TensorCopy hbm->hbm", size, numpy_copy, a.min_seconds)
    cfg = 'machine = { hbm_bytes = 268435456; };\nplugins = ( { family = "dma"; module = "trnsim-dma"; } );\n'
    prog = {"tensors": [{"name": "x", "memory": "hbm", "dtype": "float32", "shape": [n]},
                        {"name": "y", "memory": "hbm", "dtype": "float32", "shape": [n]}],
            "instructions": [{"opcode": "TensorCopy", "inputs": ["x"], "outputs": ["y"]}]}
    sim = tr.Simulator(cfg, module_dir=a.build)
    sim.load(prog)
    sim.set("x", x)

    def check():
        numpy_copy()
        return sim.get("y").tobytes() == y.tobytes() == x.tobytes()
    run_checked(sim, "TensorCopy hbm->hbm", size, n * 4, "B", numpy_copy, check, a)


def case_allreduce(tr, a):
    """AllReduce add over 8 cores, 4 MiB fp32 per rank (512 KiB under --quick)."""
    ranks, fe = 8, (1024 if a.quick else 8192)
    xs = np.stack([np.random.default_rng(1000 + r).uniform(-1e3, 1e3, (128, fe)).astype(np.float32)
                   for r in range(ranks)])
    acc = np.empty((128, fe), np.float32)
    outs = np.empty_like(xs)
    size = "%d x %d KiB" % (ranks, 128 * fe * 4 >> 10)

    def numpy_allreduce():
        # ranks in core order, each added to the running sum (the collective's
        # order; fp32 addition is commutative, so in[r] + s == s + in[r])
        np.copyto(acc, xs[0])
        for r in range(1, ranks):
            np.add(acc, xs[r], out=acc)
        outs[...] = acc  # every core receives the result
    if tr is None:
        return numpy_only("AllReduce add, 8 cores", size, numpy_allreduce, a.min_seconds)
    cfg = ('machine = { hbm_bytes = 1048576; };\n'
           'plugins = ( { family = "collective"; module = "trnsim-collective"; } );')
    prog = {"cores": ranks,
            "tensors": [{"name": "x", "memory": "sbuf", "dtype": "float32", "shape": [128, fe]},
                        {"name": "y", "memory": "sbuf", "dtype": "float32", "shape": [128, fe]}],
            "instructions": [{"opcode": "CollectiveCompute", "kind": "AllReduce", "reduce_op": "add",
                              "inputs": ["x"], "outputs": ["y"]}]}
    sim = tr.Simulator(cfg, module_dir=a.build)
    sim.load(prog)
    sim.set("x", xs)

    def check():
        numpy_allreduce()
        return sim.get("y").tobytes() == outs.tobytes()
    run_checked(sim, "AllReduce add, 8 cores", size, ranks * 128 * fe * 4, "B", numpy_allreduce, check, a)


def case_topk(tr, a):
    """TopK-64 of [128 x 16384] fp32 (2048 under --quick): 8 rounds of Max +
    MaxIndexAndMatchReplace against numpy argpartition + a sort of the 64."""
    rows, cols = 128, (2048 if a.quick else 16384)
    x = bench_data(rows, cols)
    size = "%d x %d fp32" % (rows, cols)
    box = {}

    def numpy_topk():
        box["v"], box["i"] = topk(x)
    if tr is None:
        return numpy_only("TopK-64", size, numpy_topk, a.min_seconds)
    ins = []
    for r in range(8):
        src = "x" if r == 0 else "y"
        ins.append({"opcode": "Max", "inputs": [src],
                    "outputs": [{"tensor": "vals", "offset": 8 * r, "ap": [[1, 8]]}]})
        ins.append({"opcode": "MaxIndexAndMatchReplace", "imm_value": "-inf",
                    "inputs": [{"tensor": "vals", "offset": 8 * r, "ap": [[1, 8]]}, src],
                    "outputs": ["y", {"tensor": "idx", "offset": 8 * r, "ap": [[1, 8]]}]})
    prog = {"tensors": [{"name": "x", "memory": "sbuf", "dtype": "float32", "shape": [rows, cols]},
                        {"name": "y", "memory": "sbuf", "dtype": "float32", "shape": [rows, cols]},
                        {"name": "vals", "memory": "sbuf", "dtype": "float32", "shape": [rows, 64]},
                        {"name": "idx", "memory": "sbuf", "dtype": "uint32", "shape": [rows, 64]}],
            "instructions": ins}
    sim = tr.Simulator('plugins = ( { family = "search"; module = "trnsim-search"; } );', module_dir=a.build)
    sim.load(prog)
    sim.set("x", x)

    def check():
        numpy_topk()
        v, i = sim.get("vals"), sim.get("idx").astype(np.int64)
        same_values = v.tobytes() == box["v"].tobytes()  # both sorted descending
        points_at_values = np.array_equal(np.take_along_axis(x, i, 1), v)
        distinct = all(len(set(row)) == 64 for row in i.tolist())
        return same_values and points_at_values and distinct
    run_checked(sim, "TopK-64 Max+MaxIdxMR x8", size, rows * cols, "row-elem", numpy_topk, check, a)


def case_bn(tr, a):
    """BNStats + BNStatsAggregate of [128 x 16384] fp32 (2048 under --quick)
    against numpy's per-row mean and variance."""
    rows, cols = 128, (2048 if a.quick else 16384)
    x = np.random.default_rng(34).uniform(-3, 5, (rows, cols)).astype(np.float32)
    size = "%d x %d fp32" % (rows, cols)
    box = {}

    def numpy_moments():
        box["m"], box["v"] = x.mean(axis=1), x.var(axis=1)
    if tr is None:
        return numpy_only("BNStats+BNStatsAggregate", size, numpy_moments, a.min_seconds)
    prog = {"tensors": [{"name": "x", "memory": "sbuf", "dtype": "float32", "shape": [rows, cols]},
                        {"name": "st", "memory": "sbuf", "dtype": "float32", "shape": [rows, 6]},
                        {"name": "mv", "memory": "sbuf", "dtype": "float32", "shape": [rows, 2]}],
            "instructions": [{"opcode": "BNStats", "inputs": ["x"], "outputs": ["st"]},
                             {"opcode": "BNStatsAggregate", "inputs": ["st"], "outputs": ["mv"]}]}
    sim = tr.Simulator('plugins = ( { family = "bn"; module = "trnsim-bn"; } );', module_dir=a.build)
    sim.load(prog)
    sim.set("x", x)

    def check():  # a different algorithm: close, not equal
        numpy_moments()
        mv = sim.get("mv")
        return (np.allclose(mv[:, 0], box["m"], rtol=1e-5, atol=1e-5) and
                np.allclose(mv[:, 1], box["v"], rtol=1e-5, atol=1e-5))
    run_checked(sim, "BNStats+BNStatsAggregate", size, rows * cols, "elem", numpy_moments, check, a)


def run_checked(sim, kernel, size, work, unit, numpy_fn, check, a):
    sim.run(outputs=[])
    if not check():
        print("MISMATCH: %s %s: trnsim differs from numpy; not timing it" % (kernel, size))
        return
    res = compare(lambda: sim.run(outputs=[]), numpy_fn, a.min_seconds)
    if not check():
        print("MISMATCH after timing: %s %s: trnsim differs from numpy; its numbers are not reported" % (kernel, size))
        return
    report(kernel, size, work, unit, res)


CASES = [("numpy_copy", case_copy), ("numpy_allreduce", case_allreduce), ("numpy_topk", case_topk),
         ("numpy_bn", case_bn)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("filter", nargs="?", default="", help="run the cases whose name contains this")
    ap.add_argument("--build", default=os.path.join(REPO, "build"), help="the build tree (libtrnsim.so, modules)")
    ap.add_argument("--quick", action="store_true", help="smaller sizes, shorter timings")
    a = ap.parse_args()
    a.build = os.path.abspath(a.build)
    a.min_seconds = 0.3 if a.quick else 2.0
    tr, why = trnsim_simulator(a.build)
    print("bench_numpy: numpy %s; ratio = numpy time / trnsim time (> 1: trnsim faster), median of alternated pairs"
          % np.__version__)
    if tr is None:
        print("trnsim Python package not available (%s): timing numpy alone" % why)
    for name, fn in CASES:
        if a.filter in name:
            print("\n# %s" % name)
            fn(tr, a)


if __name__ == "__main__":
    main()
