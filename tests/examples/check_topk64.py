#!/usr/bin/python3
"""examples/topk64.json's outputs equal a stable descending sort (numpy)."""
import json
import os
import sys

import numpy as np

out = sys.argv[1]
here = os.path.dirname(os.path.abspath(__file__))
prog = json.load(open(os.path.join(here, "..", "..", "examples", "topk64.json")))
x = np.array(prog["tensors"][0]["data"], np.float32).reshape(8, 512)
order = np.argsort(-x, axis=1, kind="stable")[:, :64]
assert np.array_equal(np.load(f"{out}/indices.npy"), order.astype(np.uint32))
assert np.array_equal(np.load(f"{out}/values.npy"), np.take_along_axis(x, order, axis=1))
print("topk64: values and indices equal numpy's stable sort")
