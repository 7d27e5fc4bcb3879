#!/usr/bin/python3
"""numpy baseline for the search benchmark: top-64 (values and indices, sorted
descending) of each row of a [128 x 16384] fp32 array, the data bench_search.c
uses (element j = p*16384 + i is splitmix64(j) >> 40 scaled to [0, 1)).

    /usr/bin/python3 bench/topk_numpy.py [--rows 128] [--cols 16384] [--repeat 20]

Prints the best and median time of argpartition + a sort of the 64 winners.
"""
import argparse
import time

import numpy as np


def bench_data(rows, cols):
    """splitmix64 of j = 0..rows*cols-1, top 24 bits as a fraction (as in C)."""
    with np.errstate(over="ignore"):
        z = (np.arange(rows * cols, dtype=np.uint64) + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return ((z >> np.uint64(40)).astype(np.float32) * np.float32(2.0 ** -24)).reshape(rows, cols)


def topk(x, k=64):
    part = np.argpartition(-x, k - 1, axis=1)[:, :k]
    v = np.take_along_axis(x, part, 1)
    order = np.argsort(-v, axis=1, kind="stable")
    return np.take_along_axis(v, order, 1), np.take_along_axis(part, order, 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=128)
    ap.add_argument("--cols", type=int, default=16384)
    ap.add_argument("--repeat", type=int, default=20)
    a = ap.parse_args()
    x = bench_data(a.rows, a.cols)
    times = []
    for _ in range(a.repeat):
        t = time.perf_counter()
        v, i = topk(x)
        times.append(time.perf_counter() - t)
    times.sort()
    # a checksum the C bench prints too, so both are known to see the same data
    print("numpy %s argpartition top-64 of [%d x %d] fp32: best %.3f ms, median %.3f ms "
          "(values sum %.6f, first row top %.8f at %d)" % (
              np.__version__, a.rows, a.cols, times[0] * 1e3, times[len(times) // 2] * 1e3,
              float(v.astype(np.float64).sum()), float(v[0, 0]), int(i[0, 0])))


if __name__ == "__main__":
    main()
