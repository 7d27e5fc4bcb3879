#!/usr/bin/python3
"""Write tests/collective/expected/*.npy for the programs in programs/ from
the numpy reference of coll_progs.py (never from trnsim's output). Run it
after changing a program; the files are checked in."""
import json
import os

import numpy as np

import coll_progs as ref

HERE = os.path.dirname(os.path.abspath(__file__))


def load(name):
    with open(os.path.join(HERE, "programs", name + ".json")) as f:
        return json.load(f)


def per_core(prog, tensor):
    t = next(t for t in prog["tensors"] if t["name"] == tensor)
    return np.array(t["data_per_core"], dtype=np.float32).reshape([prog["cores"]] + t["shape"])


def save(name, arr):
    np.save(os.path.join(HERE, "expected", name + ".npy"), np.ascontiguousarray(arr))


def main():
    p = load("allreduce_fold_order")
    x = per_core(p, "x")
    save("allreduce_fold_order.y", np.broadcast_to(ref.fold(4, list(x)), x.shape))

    p = load("groups_split")
    x = per_core(p, "x")
    g = np.empty((8, 2, 8), dtype=np.float32)
    for grp in ([0, 1, 2, 3], [7, 6, 5, 4]):
        for k in grp:
            g[k] = np.concatenate([x[m] for m in sorted(grp)], axis=1)  # slots in core order
    m = np.empty_like(x)
    for grp in ([0, 2, 4, 6], [1, 3, 5, 7]):
        r = ref.fold(8, [x[k] for k in grp])
        for k in grp:
            m[k] = r
    save("groups_split.g", g)
    save("groups_split.m", m)

    p = load("permute_reduce_identity")
    save("permute_reduce_identity.y", per_core(p, "x"))

    ranks = np.arange(4)
    save("rank_ids.rank", ranks.astype(np.int32).reshape(4, 1, 1))
    save("rank_ids.looked_up", (100 + ranks).astype(np.float32).reshape(4, 1, 1))
    save("rank_ids.processing",
         np.array([[[(k - it) % 4 for it in range(4)]] for k in range(4)], dtype=np.int32))

    p = load("multiworker_allreduce")
    x = per_core(p, "x")
    save("multiworker_allreduce.y", (x * np.float32(4)).astype(np.float32))

    p = load("send_recv_pairs")
    x = per_core(p, "x")  # small integers: exact in bf16, written back as <f4
    y = np.full_like(x, -1)
    y[1], y[3] = x[0], x[2]
    save("send_recv_pairs.y", y)


if __name__ == "__main__":
    main()
