#!/usr/bin/python3
"""Checks examples/quickstart.json's outputs against numpy: the TopK-8 round
exactly (a stable descending sort of the bf16-rounded data), and the BN
statistics against a float64 two-pass mean / population variance."""
import json
import os
import sys

import numpy as np

out = sys.argv[1]
here = os.path.dirname(os.path.abspath(__file__))
prog = json.load(open(os.path.join(here, "..", "..", "examples", "quickstart.json")))
x = np.array(prog["tensors"][0]["data"], np.float32).reshape(4, 32)
# bf16 round-to-nearest-even, as the HBM tensor stores it
u = x.view(np.uint32).astype(np.uint64)
xb = (((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint32) << 16).view(np.float32)

top8, idx8 = np.load(f"{out}/top8.npy"), np.load(f"{out}/idx8.npy")
rest, stats = np.load(f"{out}/rest.npy"), np.load(f"{out}/stats.npy")
order = np.argsort(-xb, axis=1, kind="stable")[:, :8]
want_vals = np.take_along_axis(xb, order, axis=1)
assert np.array_equal(top8, want_vals), (top8, want_vals)
assert np.array_equal(idx8, order.astype(np.uint32)), (idx8, order)
want_rest = xb.copy()
np.put_along_axis(want_rest, order, -np.inf, axis=1)
assert np.array_equal(rest, want_rest)
mean64 = xb.astype(np.float64).mean(axis=1)
var64 = xb.astype(np.float64).var(axis=1)
assert np.allclose(stats[:, 0], mean64, rtol=0, atol=1e-5 * (np.abs(mean64) + np.sqrt(var64)).max()), (stats, mean64)
assert np.allclose(stats[:, 1], var64, rtol=1e-5), (stats, var64)
print("quickstart: top-8 values and indices exact; mean / variance within 1e-5 of float64")
