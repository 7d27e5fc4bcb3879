#!/usr/bin/python3
"""Speed of the Python package, as ratios to baselines timed in the same run.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_bench.py [--pairs 15]

Each case alternates the trnsim call and its baseline (a pair per round,
after a warm-up of both), and reports the median of the paired ratios
baseline / trnsim (above 1: trnsim is faster) with the median times:
  overhead  isa.max8 on [128 x 8] fp32 against a do-nothing Python function
            of the same argument: the per-call cost of the binding
  topk      isa.topk(x, 64) on [128 x 16384] fp32 against numpy argpartition
            + sort of the 64 winners (bench/topk_numpy.py), array in, arrays out
  bn        isa.bn_stats + isa.bn_aggr on [128 x 16384] fp32 against numpy
            x.mean(axis=1) + x.var(axis=1)
  threads   isa.topk(x, 64) on [128 x 4096] fp32, 2N calls split over two
            threads against the same 2N calls on one of them (both threads
            long-lived, their kernel caches warm): the throughput of 2
            threads over 1 (2.0 is perfect overlap on 2 idle cores)
Every trnsim result is checked against its baseline's before timing. Each
case also gives the same medians in this thread's CPU time (time.thread_time),
which on a loaded machine leaves out the time either side spent descheduled.
Runs in about 20 s.
"""
import argparse
import concurrent.futures
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import topk_numpy  # noqa: E402  (the numpy baseline the C benchmark uses too)

import trnsim  # noqa: E402
from trnsim import isa  # noqa: E402


def machine():
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip() + ", %d CPUs" % os.cpu_count()
    except OSError:
        pass
    return platform.processor() or "unknown"


def per_call(fn, reps):
    """(wall seconds, this thread's CPU seconds) per call."""
    t, c = time.perf_counter(), time.thread_time()
    for _ in range(reps):
        fn()
    return (time.perf_counter() - t) / reps, (time.thread_time() - c) / reps


CPU = {}  # case -> (median CPU a, median CPU b, median of the CPU-time ratios)


def paired(a, b, pairs, reps, case=None):
    """Alternate a and b; returns (median a, median b, median of b/a) in
    wall time, and keeps the same in thread CPU time under CPU[case]:
    on a loaded machine the wall clock also counts time spent descheduled."""
    per_call(a, reps)
    per_call(b, reps)
    ta, tb, ratios, ca, cb, cratios = [], [], [], [], [], []
    for k in range(pairs):  # who goes first alternates
        if k % 2 == 0:
            x, y = per_call(a, reps), per_call(b, reps)
        else:
            y, x = per_call(b, reps), per_call(a, reps)
        ta.append(x[0])
        tb.append(y[0])
        ratios.append(y[0] / x[0])
        ca.append(x[1])
        cb.append(y[1])
        cratios.append(y[1] / x[1] if x[1] > 0 else float("nan"))
    if case:
        CPU[case] = statistics.median(ca), statistics.median(cb), statistics.median(cratios)
    return statistics.median(ta), statistics.median(tb), statistics.median(ratios)


def noop(x):
    return x


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=int, default=15)
    a = ap.parse_args()
    print("machine: %s; numpy %s; trnsim %s (%s); load average %.2f" %
          (machine(), np.__version__, trnsim.__version__, trnsim._lib.lib.path, os.getloadavg()[0]))

    small = np.random.default_rng(0).standard_normal((128, 8)).astype(np.float32)
    assert np.array_equal(isa.max8(small), -np.sort(-small, axis=1))
    t_max8, t_noop, _ = paired(lambda: isa.max8(small), lambda: noop(small), a.pairs, 2000, "overhead")
    print("overhead: isa.max8 [128 x 8] %.2f us per call, no-op %.3f us: overhead %.2f us (target < 50 us)" %
          (t_max8 * 1e6, t_noop * 1e6, (t_max8 - t_noop) * 1e6))
    c = CPU["overhead"]
    print("  in CPU time: %.2f us, no-op %.3f us: overhead %.2f us" % (c[0] * 1e6, c[1] * 1e6, (c[0] - c[1]) * 1e6))
    kernel = next(k for key, k in isa._kernel._thread_cache().items() if key[0] == "max8")
    run = trnsim._lib.lib.trnsim_run
    t_call, t_run, _ = paired(lambda: isa.max8(small), lambda: run(kernel.h), a.pairs, 2000)
    print("  of which the simulator's run of the Max instruction alone (no data in or out) %.2f us, "
          "the binding (copies in and out, Python) %.2f us" % (t_run * 1e6, (t_call - t_run) * 1e6))

    x = topk_numpy.bench_data(128, 16384)
    v, i = isa.topk(x, 64)
    nv, ni = topk_numpy.topk(x, 64)
    # the data repeats values, so numpy's argpartition may pick other equal
    # elements: values must be equal, and each index must hold its value
    assert np.array_equal(v, nv) and np.array_equal(np.take_along_axis(x, i.astype(np.int64), 1), v), "topk differs"
    t_t, t_n, r = paired(lambda: isa.topk(x, 64), lambda: topk_numpy.topk(x, 64), a.pairs, 3, "topk")
    print("topk: isa.topk(x, 64) [128 x 16384] %.2f ms, numpy argpartition + sort %.2f ms: %.2fx (target >= 1.5x)" %
          (t_t * 1e3, t_n * 1e3, r))
    c = CPU["topk"]
    print("  in CPU time: %.2f ms, numpy %.2f ms: %.2fx" % (c[0] * 1e3, c[1] * 1e3, c[2]))

    mv = isa.bn_aggr(isa.bn_stats(x))
    assert np.allclose(mv[:, 0], x.mean(axis=1), atol=1e-6) and np.allclose(mv[:, 1], x.var(axis=1), rtol=1e-4)
    t_b, t_bn, r = paired(lambda: isa.bn_aggr(isa.bn_stats(x)), lambda: (x.mean(axis=1), x.var(axis=1)),
                          a.pairs, 10, "bn")
    print("bn: isa.bn_stats + isa.bn_aggr [128 x 16384] %.3f ms, numpy mean + var %.3f ms: %.2fx (target >= 3x)" %
          (t_b * 1e3, t_bn * 1e3, r))
    c = CPU["bn"]
    print("  in CPU time: %.3f ms, numpy %.3f ms: %.2fx" % (c[0] * 1e3, c[1] * 1e3, c[2]))
    threads(a.pairs)
    print("load average at the end %.2f" % os.getloadavg()[0])


def threads(pairs, calls=8):
    """Two threads against one on the same total work (isa calls release
    the GIL inside the simulator, so runs of different threads overlap)."""
    x = np.random.default_rng(1).standard_normal((128, 4096)).astype(np.float32)
    want = isa.topk(x, 64)

    def work(n):
        for _ in range(n):
            v, i = isa.topk(x, 64)
        assert np.array_equal(v, want[0]) and np.array_equal(i, want[1]), "topk differs in a thread"
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        one = lambda: pool.submit(work, 2 * calls).result()
        two = lambda: [f.result() for f in [pool.submit(work, calls) for _ in range(2)]]
        t_two, t_one, r = paired(two, one, pairs, 1)
    print("threads: %d x isa.topk(x, 64) [128 x 4096]: one thread %.1f ms, two threads %.1f ms: "
          "%.2fx the throughput (target >= 1.6x on 2 idle cores)" %
          (2 * calls, t_one * 1e3, t_two * 1e3, r))


if __name__ == "__main__":
    main()
