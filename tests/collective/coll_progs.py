#!/usr/bin/python3
"""Collective programs run through the real trnsim CLI, checked against
numpy references written here independently of the C code.

    coll_progs.py --trnsim BIN CASE...     (coll_progs.py --list prints the cases)

Every case builds a program (JSON), its per-core inputs (.npy with a leading
cores dimension) and a config with the settings it needs, runs
`trnsim run`, and compares the outputs bit for bit with numpy. The
reference fold is the reference's: acc = ins[0]; for x in ins[1:]:
add: acc = x + acc (a NaN x wins, quietened), max: acc = x if x > acc else
acc, min: acc = x if x < acc else acc (numpy comparisons with NaN are False,
which is the SSE rule: a NaN or a tie keeps the accumulator).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

TRNSIM = None
CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


class Fail(Exception):
    pass


# ---- references -------------------------------------------------------------

def bits(a):
    return np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)


def quiet(x):
    return (bits(x) | np.uint32(0x00400000)).view(np.float32)


def fold(op, ins):
    acc = np.array(ins[0], dtype=np.float32, copy=True)
    for x in ins[1:]:
        x = np.asarray(x, dtype=np.float32)
        if op == 4:
            with np.errstate(invalid="ignore", over="ignore"):
                s = (x + acc).astype(np.float32)
            acc = np.where(np.isnan(x), quiet(x), s).astype(np.float32)
        elif op == 8:
            acc = np.where(x > acc, x, acc).astype(np.float32)
        elif op == 9:
            acc = np.where(x < acc, x, acc).astype(np.float32)
        else:
            raise ValueError(op)
    return acc


def bf16_rne(a):
    """fp32 -> bf16 -> fp32 with round to nearest even (no NaNs here)."""
    b = bits(a).astype(np.uint64)
    r = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) << 16
    return r.astype(np.uint32).view(np.float32)


def data(cores, shape, seed, specials=True):
    """Rank-dependent fp32 data: every core different, with NaNs, signed
    zeros, infinities and ties mixed in when specials."""
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((cores,) + tuple(shape)) * 10.0 ** rng.integers(-3, 4, (cores,) + tuple(shape)))
    x = x.astype(np.float32)
    if specials:
        flat = x.reshape(cores, -1)
        n = flat.shape[1]
        pool = np.array([0x7FC00000, 0xFFC01234, 0x7F800000, 0xFF800000, 0x00000000, 0x80000000,
                         0x3F800000, 0x3F800000, 0x00000001], dtype=np.uint32).view(np.float32)
        for k in range(cores):
            pos = rng.choice(n, size=max(1, n // 4), replace=False)
            flat[k, pos] = rng.choice(pool, size=pos.size)
    return x


# ---- running trnsim ---------------------------------------------------------

def config(**settings):
    s = "".join(f"      {k} = {json.dumps(v) if not isinstance(v, list) else '[' + ', '.join(map(str, v)) + ']'};\n"
                for k, v in settings.items())
    return ("machine = { cores = 1; partitions = 128; sbuf_partition_bytes = 196608;\n"
            "  psum_partition_bytes = 16384; hbm_bytes = 1048576; registers = 64; };\n"
            "plugins = ( { family = \"collective\"; module = \"trnsim-collective\";\n"
            f"    settings = {{\n{s}    }}; }} );\n")


def run(prog, inputs=None, outputs=(), settings=None, expect_error=None):
    """Run prog; return {name: array [cores, ...]} or, with expect_error
    (a list of strings), check the one-line message and that no output
    file was left."""
    with tempfile.TemporaryDirectory(prefix="coll-") as d:
        p = os.path.join(d, "prog.json")
        with open(p, "w") as f:
            json.dump(prog, f)
        c = os.path.join(d, "coll.cfg")
        with open(c, "w") as f:
            f.write(config(**(settings or {})))
        cmd = [TRNSIM, "run", p, "--config", c]
        for name, arr in (inputs or {}).items():
            ip = os.path.join(d, f"in_{name}.npy")
            np.save(ip, arr)
            cmd += ["--input", f"{name}={ip}"]
        outs = {}
        for name in outputs:
            outs[name] = os.path.join(d, f"out_{name}.npy")
            cmd += ["--output", f"{name}={outs[name]}"]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        if expect_error is not None:
            lines = r.stderr.strip().splitlines()
            if r.returncode == 0:
                raise Fail("expected a failure, the run succeeded")
            if len(lines) != 1:
                raise Fail(f"expected one line on stderr, got:\n{r.stderr}")
            for t in expect_error:
                if t not in lines[0]:
                    raise Fail(f"stderr lacks {t!r}:\n{r.stderr}")
            left = [f for f in os.listdir(d) if f.startswith("out_")]
            if left:
                raise Fail(f"a failed run left outputs behind: {left}")
            print(f"  failed as expected: {lines[0]}")
            return None
        if r.returncode != 0:
            raise Fail(f"trnsim exited {r.returncode}:\n{r.stderr}")
        return {n: np.load(path) for n, path in outs.items()}


def same_bits(name, got, want):
    got = np.asarray(got)
    want = np.asarray(want, dtype=got.dtype)
    if got.shape != want.shape:
        raise Fail(f"{name}: shape {got.shape}, expected {want.shape}")
    if got.tobytes() != want.tobytes():
        g = got.reshape(-1).view(f"u{got.itemsize}")
        w = want.reshape(-1).view(f"u{want.itemsize}")
        bad = np.nonzero(g != w)[0]
        i = int(bad[0])
        raise Fail(f"{name}: {bad.size} of {g.size} elements differ; first at {i}: got {got.reshape(-1)[i]!r} "
                   f"({g[i]:#x}), expected {want.reshape(-1)[i]!r} ({w[i]:#x})")
    print(f"  ok: {name} ({got.size} elements bit-exact)")


def tensor(name, shape, dtype="float32", memory="sbuf", **kw):
    t = {"name": name, "memory": memory, "dtype": dtype, "shape": list(shape)}
    t.update(kw)
    return t


def cc(kind, ins, outs, **attrs):
    i = {"opcode": "CollectiveCompute", "kind": kind, "inputs": ins, "outputs": outs}
    i.update(attrs)
    return i


def prog(cores, tensors, insts):
    return {"cores": cores, "tensors": tensors, "instructions": insts}


SIZES = (2, 4, 8)


# ---- AllReduce ----------------------------------------------------------------

def check_refuses(prog_, expect_error):
    """`trnsim check` refuses prog_ with one line holding every expect_error
    string: what run refuses without data, check refuses too."""
    with tempfile.TemporaryDirectory(prefix="coll-") as d:
        p = os.path.join(d, "prog.json")
        with open(p, "w") as f:
            json.dump(prog_, f)
        c = os.path.join(d, "coll.cfg")
        with open(c, "w") as f:
            f.write(config())
        r = subprocess.run([TRNSIM, "check", p, "--config", c], capture_output=True, text=True,
                           timeout=300)
        lines = r.stderr.strip().splitlines()
        if r.returncode == 0 or len(lines) != 1:
            raise Fail(f"check should refuse with one line, exited {r.returncode}:\n{r.stderr}")
        for t in expect_error:
            if t not in lines[0]:
                raise Fail(f"check's stderr lacks {t!r}:\n{r.stderr}")
        print(f"  check refused as expected: {lines[0]}")


@case
def packed_input_through_fp32():
    """A packed x4 input on the fp32 path (a reducing kind, or a route between
    dtypes) has no value to read: check refuses it as run does, naming the
    input (found by trnsim conform: check passed, run failed in the read)."""
    pk = "float8_e4m3_x4"
    a = tensor("a", (2, 4), dtype=pk, fill=0)
    f = tensor("f", (2, 4), fill=1)
    e = tensor("e", (2, 4))
    msg = ["has no fp32 value per element (a packed form)", "goes through fp32"]
    for kind, ins, name in [("AllToAll", ["a"], "AllToAll (kind 5): core 0's input 0"),
                            ("AllReduce", ["a"], "AllReduce (kind 2): core 0's input 0"),
                            ("PermuteImplicit", ["a"], "PermuteImplicit (kind 9): core 0's input 0"),
                            ("PermuteReduceImplicit", ["f", "a"],
                             "PermuteReduceImplicit (kind 10): core 0's input 1")]:
        p = prog(2, [a, f, e], [cc(kind, ins, ["e"], reduce_op="add")])
        check_refuses(p, [name] + msg)
        run(p, outputs=["e"], expect_error=[name] + msg)
    # the identity copy and point to point decide at run: the input named there too
    run(prog(2, [a, e], [cc("PermuteReduce", ["a"], ["e"])]), outputs=["e"],
        expect_error=["the identity copy", "the input: dtype float8_e4m3_x4"] + msg)
    run(prog(2, [a, e], [{"opcode": "CollectiveSend", "inputs": ["a"], "peer_id": [1, -1]},
                         {"opcode": "CollectiveRecv", "outputs": ["e"], "peer_id": [-1, 0]}]),
        outputs=["e"], expect_error=["CollectiveRecv #0", "the input: dtype float8_e4m3_x4"] + msg)
    # the same dtype on every AP: routed raw, bit for bit
    raw = np.arange(2 * 2 * 4, dtype=np.uint32).reshape(2, 2, 4) * 0x01010101
    out = run(prog(2, [tensor("a", (2, 4), dtype=pk), tensor("b", (2, 4), dtype=pk)],
                   [cc("PermuteImplicit", ["a"], ["b"])]), {"a": raw}, ["b"])
    same_bits("packed PermuteImplicit, raw", out["b"].view(np.float32),
              raw[::-1].copy().view(np.float32))


def allreduce(op, n):
    x = data(n, (8, 16), seed=100 + op * 10 + n)
    out = run(prog(n, [tensor("x", (8, 16)), tensor("y", (8, 16))],
                   [cc("AllReduce", ["x"], ["y"], reduce_op=op)]), {"x": x}, ["y"])
    want = fold(op, [x[k] for k in range(n)])
    same_bits(f"AllReduce op {op} on {n} cores", out["y"], np.broadcast_to(want, (n, 8, 16)))


for _op, _name in ((4, "add"), (8, "max"), (9, "min")):
    for _n in SIZES:
        CASES[f"allreduce_{_name}_{_n}"] = (lambda o, m: (lambda: allreduce(o, m)))(_op, _n)


@case
def allreduce_fold_order():
    """fp32 sum whose bits depend on the order: ins[0], then ranks 1..7."""
    n = 8
    cols = np.array([[1e8, 1, -1e8, 1, 0, 0, 0, 0],
                     [1, 1e8, 1, -1e8, 1, 1, 1, 1],
                     [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8],
                     [3e7, 1, 1, 1, 1, -3e7, 1, 1]], dtype=np.float32).T  # [core, 4]
    x = np.ascontiguousarray(cols).reshape(n, 1, 4)
    out = run(prog(n, [tensor("x", (1, 4)), tensor("y", (1, 4))],
                   [cc(2, ["x"], ["y"], reduce_op="add")]), {"x": x}, ["y"])
    want = fold(4, [x[k] for k in range(n)])
    rev = fold(4, [x[k] for k in reversed(range(n))])
    assert want[0, 0] == 1.0 and rev[0, 0] == 0.0, (want, rev)  # the reference values, by hand
    if np.array_equal(bits(want), bits(rev)):
        raise Fail("the data does not make the order visible")
    same_bits("AllReduce add, fold order ins[0], 1, ..., 7", out["y"], np.broadcast_to(want, (n, 1, 4)))
    print(f"  (reverse order would give {rev.ravel()}, the reference's order gives {want.ravel()})")


@case
def allreduce_nan_ties():
    """SSE max / min: NaN or tie keeps the accumulator; -0.0 vs +0.0 ties."""
    n = 2
    nan = np.float32("nan")
    a = np.array([nan, 1.0, 0.0, -0.0, 1.0], dtype=np.float32)
    b = np.array([1.0, nan, -0.0, 0.0, 2.0], dtype=np.float32)
    x = np.stack([a, b]).reshape(2, 1, 5)
    for op, want in ((8, [nan, 1.0, 0.0, -0.0, 2.0]), (9, [nan, 1.0, 0.0, -0.0, 1.0])):
        out = run(prog(n, [tensor("x", (1, 5)), tensor("y", (1, 5))],
                       [cc(2, ["x"], ["y"], reduce_op=op)]), {"x": x}, ["y"])
        w = np.array(want, dtype=np.float32).reshape(1, 1, 5)
        same_bits(f"AllReduce op {op} NaN / signed-zero ties", out["y"], np.broadcast_to(w, (n, 1, 5)))


@case
def allreduce_groups_split_8():
    """Two groups of 4 out of 8 cores, listed out of order: each folds its
    own members in ascending core order (the reference gathers ins by core
    id; the listing only decides membership)."""
    n, groups = 8, [[6, 0, 4, 2], [7, 5, 3, 1]]
    x = data(n, (4, 8), seed=7)
    out = run(prog(n, [tensor("x", (4, 8)), tensor("y", (4, 8))],
                   [cc(2, ["x"], ["y"], reduce_op="add", replica_groups=groups)]), {"x": x}, ["y"])
    want = np.empty_like(x)
    for g in groups:
        r = fold(4, [x[k] for k in sorted(g)])
        for k in g:
            want[k] = r
    same_bits("AllReduce add, groups [[6,0,4,2],[7,5,3,1]], core order", out["y"], want)
    listed = fold(4, [x[k] for k in groups[0]])
    print(f"  (the listed order differs in {int(np.sum(bits(listed) != bits(want[6])))} elements)")


@case
def unsorted_group_core_order():
    """One group of all 4 cores listed [3, 1, 2, 0]. The reference reads
    replica_groups only for membership and size: its scaffolding collects
    ins[k] = getCcOpInMemObjForCore(k) for core = 0 .. numReplicas-1 (getCcOpInMemObjForCore
    @ 0x272aa0), so the fold order, the SCALE branch's first input and
    the gather / scatter / all-to-all slots follow the core ids (rank of
    core = core with cores_per_lnc 1), not the listing."""
    n, group = 4, [[3, 1, 2, 0]]
    cols = np.array([[1e8, 1, -1e8, 1],
                     [1, 1e8, 1, -1e8],
                     [0.1, 0.2, 0.3, 0.4],
                     [3e7, 1, 1, -3e7]], dtype=np.float32).T  # [core, 4]
    x = np.ascontiguousarray(cols).reshape(n, 1, 4)
    want = fold(4, [x[k] for k in range(n)])
    listed = fold(4, [x[k] for k in group[0]])
    if np.array_equal(bits(want), bits(listed)):
        raise Fail("the data does not make the order visible")
    out = run(prog(n, [tensor("x", (1, 4)), tensor("y", (1, 4)), tensor("s", (1, 4)), tensor("g", (4, 4)),
                       tensor("a", (1, 4))],
                   [cc(2, ["x"], ["y"], reduce_op="add", replica_groups=group),
                    cc(2, ["x"], ["s"], reduce_op="add", scale=0.3, replica_groups=group),
                    cc(4, ["x"], ["g"], replica_groups=group),
                    cc(5, ["x"], ["a"], replica_groups=group)]),
              {"x": x}, ["y", "s", "g", "a"])
    same_bits("AllReduce add, group [3,1,2,0]: fold in core order 0, 1, 2, 3", out["y"],
              np.broadcast_to(want, (n, 1, 4)))
    same_bits("AllReduce add scale 0.3, group [3,1,2,0]: core 0's input (ins[0])", out["s"],
              np.broadcast_to((x[0] * np.float32(0.3)).astype(np.float32), (n, 1, 4)))
    same_bits("AllGather, group [3,1,2,0]: slot k holds core k's input", out["g"],
              np.broadcast_to(x.reshape(n, 4), (n, n, 4)))
    a_want = np.stack([np.array([x[i, 0, j] for i in range(n)]).reshape(1, 4) for j in range(n)])
    same_bits("AllToAll, group [3,1,2,0]: core j gets chunk j of core 0, 1, 2, 3", out["a"], a_want)
    # ReduceScatter within one LNC of 4 cores: core c gets part c.
    xs = data(n, (n, 3), seed=23, specials=False)
    out = run(prog(n, [tensor("x", (n, 3)), tensor("y", (1, 3))],
                   [cc(3, ["x"], ["y"], reduce_op="add", replica_groups=group)]), {"x": xs}, ["y"],
              settings={"cores_per_lnc": n})
    full = fold(4, [xs[k] for k in range(n)]).reshape(n, 1, 3)
    same_bits("ReduceScatter add, group [3,1,2,0]: core c gets part c of the core-order fold", out["y"], full)


@case
def allreduce_scale():
    """add with scale: only the first input (ins[0], the lowest core of the
    group) times scale."""
    n = 4
    x = data(n, (2, 8), seed=11, specials=False)
    out = run(prog(n, [tensor("x", (2, 8)), tensor("y", (2, 8))],
                   [cc(2, ["x"], ["y"], reduce_op="add", scale=0.3, replica_groups=[[2, 1, 0, 3]])]),
              {"x": x}, ["y"])
    want = (x[0] * np.float32(0.3)).astype(np.float32)
    same_bits("AllReduce add scale 0.3, group [2,1,0,3]: input of core 0 (ins[0]) only", out["y"],
              np.broadcast_to(want, (n, 2, 8)))


@case
def allreduce_bf16():
    """bf16 in and out: widened to fp32, folded, narrowed RNE."""
    n = 4
    x = bf16_rne(data(n, (4, 8), seed=13, specials=False))
    out = run(prog(n, [tensor("x", (4, 8), "bfloat16"), tensor("y", (4, 8), "bfloat16")],
                   [cc(2, ["x"], ["y"], reduce_op="add")]), {"x": x}, ["y"])
    want = bf16_rne(fold(4, [x[k] for k in range(n)]))
    same_bits("AllReduce add bf16 (fp32 fold, RNE narrow)", out["y"], np.broadcast_to(want, (n, 4, 8)))


@case
def allreduce_int32_fp32_rounding():
    """The reduction is fp32 (collective.fp32_reduction): int32 sums above
    2^24 round."""
    n = 2
    x = np.array([[[16777217, 3]], [[0, 4]]], dtype=np.int32)
    out = run(prog(n, [tensor("x", (1, 2), "int32"), tensor("y", (1, 2), "int32")],
                   [cc(2, ["x"], ["y"], reduce_op="add")]), {"x": x}, ["y"])
    same_bits("AllReduce add int32 through fp32", out["y"], np.array([[[16777216, 7]]] * 2, dtype=np.int32))


@case
def allreduce_unsupported_op():
    run(prog(2, [tensor("x", (1, 4), fill=1), tensor("y", (1, 4))], [cc(2, ["x"], ["y"], reduce_op=5)]),
        expect_error=["Unsupported OP type 5", "instruction 0", "CollectiveCompute"])


@case
def allreduce_unsupported_op_alone():
    """The fold never runs with one rank: the reference does not reject the op."""
    x = data(2, (1, 4), seed=3, specials=False)
    out = run(prog(2, [tensor("x", (1, 4)), tensor("y", (1, 4))],
                   [cc(2, ["x"], ["y"], reduce_op=5, replica_groups=[[0], [1]])]), {"x": x}, ["y"])
    same_bits("AllReduce op 5 in groups of one: a copy", out["y"], x)


@case
def allreduce_missing_rank():
    run(prog(4, [tensor("x", (1, 4), fill=1), tensor("y", (1, 4))],
             [cc(2, ["x"], ["y"], reduce_op="add", replica_groups=[[0, 1], [2, 4]])]),
        expect_error=["replica_groups[1][1] = 4 names a rank that does not exist", "4 cores"])


@case
def allreduce_not_in_group():
    """Cores in no group do nothing (isInReplicaGroup)."""
    n = 4
    x = data(n, (1, 4), seed=5, specials=False)
    out = run(prog(n, [tensor("x", (1, 4)), tensor("y", (1, 4), fill=-7)],
                   [cc(2, ["x"], ["y"], reduce_op="max", replica_groups=[[1, 3]])]), {"x": x}, ["y"])
    want = np.full_like(x, -7)
    want[1] = want[3] = fold(8, [x[1], x[3]])
    same_bits("AllReduce in group [1,3] of 4 cores", out["y"], want)


# ---- ReduceScatter --------------------------------------------------------------

def reduce_scatter(n):
    x = data(n, (n, 6), seed=200 + n)
    out = run(prog(n, [tensor("x", (n, 6)), tensor("y", (1, 6))],
                   [cc("ReduceScatter", ["x"], ["y"], reduce_op="add")]), {"x": x}, ["y"],
              settings={"cores_per_lnc": n})
    full = fold(4, [x[k] for k in range(n)]).reshape(n, 6)
    same_bits(f"ReduceScatter add on {n} cores (cores_per_lnc {n})", out["y"], full.reshape(n, 1, 6))


for _n in SIZES:
    CASES[f"reducescatter_{_n}"] = (lambda m: (lambda: reduce_scatter(m)))(_n)


@case
def reducescatter_multi_lnc_error():
    run(prog(4, [tensor("x", (4, 2), fill=1), tensor("y", (1, 2))], [cc(3, ["x"], ["y"], reduce_op="add")]),
        expect_error=["ReduceScatter: multiple LNCs aren't yet supported", "cores_per_lnc = 1"])


@case
def reducescatter_split_allowed():
    """multi_lnc = "allow": two groups of 4, each scatters its own sum."""
    n, groups = 8, [[0, 1, 2, 3], [4, 5, 6, 7]]
    x = data(n, (4, 3), seed=17)
    out = run(prog(n, [tensor("x", (4, 3)), tensor("y", (1, 3))],
                   [cc(3, ["x"], ["y"], reduce_op="min", replica_groups=groups)]), {"x": x}, ["y"],
              settings={"multi_lnc": "allow"})
    want = np.empty((n, 1, 3), dtype=np.float32)
    for g in groups:
        r = fold(9, [x[k] for k in g]).reshape(4, 3)
        for j, k in enumerate(g):
            want[k, 0] = r[j]
    same_bits("ReduceScatter min, groups of 4, multi_lnc allow", out["y"], want)


@case
def reducescatter_indivisible():
    run(prog(4, [tensor("x", (1, 6), fill=1), tensor("y", (1, 2))], [cc(3, ["x"], ["y"], reduce_op="add")]),
        settings={"cores_per_lnc": 4}, expect_error=["6 input elements do not split into 4 equal parts"])


# ---- AllGather ------------------------------------------------------------------

def all_gather(n, rows):
    x = data(n, (3, 5), seed=300 + n)
    oshape = (3, 5 * n) if rows else (3 * n, 5)
    out = run(prog(n, [tensor("x", (3, 5)), tensor("g", oshape)],
                   [cc("AllGather", ["x"], ["g"], cc_dim=1 if rows else 0)]), {"x": x}, ["g"])
    want = np.concatenate([x[k] for k in range(n)], axis=1 if rows else 0)
    same_bits(f"AllGather {'per partition' if rows else 'flat'} on {n} cores", out["g"],
              np.broadcast_to(want, (n,) + oshape))


for _n in SIZES:
    CASES[f"allgather_flat_{_n}"] = (lambda m: (lambda: all_gather(m, False)))(_n)
    CASES[f"allgather_rows_{_n}"] = (lambda m: (lambda: all_gather(m, True)))(_n)


@case
def allgather_int32_raw():
    """Same dtype everywhere: bytes move as stored (int32 above 2^24 exact)."""
    n = 4
    x = (np.arange(n * 3, dtype=np.int64).reshape(n, 1, 3) + 2**30 + 1).astype(np.int32)
    out = run(prog(n, [tensor("x", (1, 3), "int32"), tensor("g", (n, 3), "int32")],
                   [cc(4, ["x"], ["g"])]), {"x": x}, ["g"])
    same_bits("AllGather int32 raw", out["g"], np.broadcast_to(x.reshape(n, 3), (n, n, 3)))


@case
def allgather_groups_split_8():
    n, groups = 8, [[1, 3, 5, 7], [6, 4, 2, 0]]
    x = data(n, (2, 2), seed=19)
    out = run(prog(n, [tensor("x", (2, 2)), tensor("g", (8, 2))],
                   [cc(4, ["x"], ["g"], replica_groups=groups)]), {"x": x}, ["g"])
    want = np.empty((n, 8, 2), dtype=np.float32)
    for g in groups:
        for k in g:
            want[k] = np.concatenate([x[m] for m in sorted(g)])
    same_bits("AllGather, groups [[1,3,5,7],[6,4,2,0]], slots in core order", out["g"], want)


# ---- AllToAll / AllToAllV ---------------------------------------------------------

def all_to_all(n):
    x = data(n, (n, 4), seed=400 + n)
    out = run(prog(n, [tensor("x", (n, 4)), tensor("y", (n, 4))], [cc("AllToAll", ["x"], ["y"])]),
              {"x": x}, ["y"])
    want = np.stack([np.stack([x[i, j] for i in range(n)]) for j in range(n)])  # y_j[i] = x_i[j]
    same_bits(f"AllToAll on {n} cores", out["y"], want)


def all_to_all_v(n):
    rng = np.random.default_rng(500 + n)
    counts = rng.integers(0, 4, (n, n))
    rows, cols = counts.sum(1), counts.sum(0)
    # every core's tensor has the same shape: pad by making row sums equal
    counts[:, 0] += rows.max() - rows
    rows, cols = counts.sum(1), counts.sum(0)
    if len(set(cols)) != 1:  # columns must be equal too for one output shape: balance on the diagonal
        counts = np.full((n, n), 2)
        counts[np.arange(n), (np.arange(n) + 1) % n] = 5
        counts[np.arange(n), np.arange(n)] = 1
        rows, cols = counts.sum(1), counts.sum(0)
    e = int(rows[0])
    x = data(n, (1, e), seed=501 + n)
    out = run(prog(n, [tensor("x", (1, e)), tensor("y", (1, int(cols[0])))],
                   [cc("AllToAllV", ["x"], ["y"], send_counts=counts.tolist())]), {"x": x}, ["y"])
    want = []
    for j in range(n):
        parts = []
        for i in range(n):
            start = int(counts[i, :j].sum())
            parts.append(x[i, 0, start:start + counts[i, j]])
        want.append(np.concatenate(parts).reshape(1, -1))
    same_bits(f"AllToAllV on {n} cores, send_counts {counts.tolist()}", out["y"], np.stack(want))


for _n in SIZES:
    CASES[f"alltoall_{_n}"] = (lambda m: (lambda: all_to_all(m)))(_n)
    CASES[f"alltoallv_{_n}"] = (lambda m: (lambda: all_to_all_v(m)))(_n)


@case
def alltoall_indivisible():
    run(prog(4, [tensor("x", (1, 6), fill=1), tensor("y", (1, 6))], [cc(5, ["x"], ["y"])]),
        expect_error=["AllToAll (kind 5)", "6 input elements do not split into 4 equal chunks"])


@case
def alltoallv_bad_counts():
    run(prog(2, [tensor("x", (1, 4), fill=1), tensor("y", (1, 4))],
             [cc(6, ["x"], ["y"], send_counts=[[1, 2], [2, 2]])]),
        expect_error=["input has 4 elements but send_counts[0] sends 3"])


# ---- Permute / PermuteImplicit / SendRecv -------------------------------------------

def permute(n):
    rng = np.random.default_rng(600 + n)
    perm = rng.permutation(n)
    pairs = [[int(s), int(t)] for s, t in zip(range(n), perm)]
    x = data(n, (2, 3), seed=601 + n)
    out = run(prog(n, [tensor("x", (2, 3)), tensor("y", (2, 3))],
                   [cc("Permute", ["x"], ["y"], src_target_pairs=pairs)]), {"x": x}, ["y"])
    want = np.empty_like(x)
    for s, t in pairs:
        want[t] = x[s]
    same_bits(f"Permute on {n} cores, pairs {pairs}", out["y"], want)


def permute_implicit(n, groups=None):
    x = data(n, (2, 3), seed=700 + n)
    extra = {"replica_groups": groups} if groups else {}
    out = run(prog(n, [tensor("x", (2, 3)), tensor("y", (2, 3))],
                   [cc("PermuteImplicit", ["x"], ["y"], **extra)]), {"x": x}, ["y"])
    want = np.empty_like(x)
    for g in groups or [list(range(n))]:
        for j, k in enumerate(g):
            want[k] = x[g[j - 1]]  # receives from its ring predecessor
    same_bits(f"PermuteImplicit on {n} cores, groups {groups}", out["y"], want)


def permute_reduce_implicit(n, op):
    a, b = data(n, (2, 4), seed=800 + n), data(n, (2, 4), seed=900 + n)
    out = run(prog(n, [tensor("a", (2, 4)), tensor("b", (2, 4)), tensor("y", (2, 4))],
                   [cc("PermuteReduceImplicit", ["a", "b"], ["y"], reduce_op=op)]), {"a": a, "b": b}, ["y"])
    want = np.stack([fold(op, [a[(k - 1) % n], b[(k - 1) % n]]) for k in range(n)])
    same_bits(f"PermuteReduceImplicit op {op} on {n} cores", out["y"], want)


def send_recv(n, cce):
    x = data(n, (2, 3), seed=1000 + n)
    attrs = {"reduce_op": "max"} if cce else {}
    out = run(prog(n, [tensor("x", (2, 3)), tensor("y", (2, 3))],
                   [cc("SendRecvCCE" if cce else "SendRecv", ["x"], ["y"], **attrs)]), {"x": x}, ["y"],
              settings={"cores_per_lnc": n})
    want = np.empty_like(x)
    for j in range(n):
        p = (j + 1) % n
        want[j] = fold(8, [x[min(j, p)], x[max(j, p)]]) if cce else x[p]
    same_bits(f"{'SendRecvCCE max' if cce else 'SendRecv'} on {n} cores", out["y"], want)


for _n in SIZES:
    CASES[f"permute_{_n}"] = (lambda m: (lambda: permute(m)))(_n)
    CASES[f"permute_implicit_{_n}"] = (lambda m: (lambda: permute_implicit(m)))(_n)
    CASES[f"permute_reduce_implicit_{_n}"] = (lambda m: (lambda: permute_reduce_implicit(m, 4 if m != 4 else 9)))(_n)
    CASES[f"sendrecv_{_n}"] = (lambda m: (lambda: send_recv(m, False)))(_n)
    CASES[f"sendrecvcce_{_n}"] = (lambda m: (lambda: send_recv(m, True)))(_n)

CASES["permute_implicit_groups_split_8"] = lambda: permute_implicit(8, [[0, 2, 4, 6], [1, 7, 3, 5]])


@case
def sendrecvcce_unsorted_group():
    """The peer comes from the listed group (position + 1), the pair folds in
    core order (the reference's scaffolding collects ins by core id); max
    over NaN / ties makes the order visible."""
    n, group = 4, [2, 0, 3, 1]
    x = data(n, (4, 8), seed=29)
    out = run(prog(n, [tensor("x", (4, 8)), tensor("y", (4, 8))],
                   [cc("SendRecvCCE", ["x"], ["y"], reduce_op="max", replica_groups=[group])]), {"x": x}, ["y"],
              settings={"cores_per_lnc": n})
    want = np.empty_like(x)
    listed_differs = False
    for j, c in enumerate(group):
        peer = group[(j + 1) % n]
        want[c] = fold(8, [x[min(c, peer)], x[max(c, peer)]])
        first, second = (c, peer) if j < (j + 1) % n else (peer, c)
        listed_differs |= not np.array_equal(bits(want[c]), bits(fold(8, [x[first], x[second]])))
    if not listed_differs:
        raise Fail("the data does not make the pair order visible")
    same_bits("SendRecvCCE max, group [2,0,3,1]: peer by listed position, pair folded in core order", out["y"], want)


@case
def permute_partial():
    """Pairs naming cores 1 and 3 only: the others are untouched."""
    n = 4
    x = data(n, (1, 4), seed=23)
    out = run(prog(n, [tensor("x", (1, 4)), tensor("y", (1, 4), fill=-7)],
                   [cc(7, ["x"], ["y"], src_target_pairs=[[3, 1], [1, 3]])]), {"x": x}, ["y"])
    want = np.full_like(x, -7)
    want[1], want[3] = x[3], x[1]
    same_bits("Permute [[3,1],[1,3]] on 4 cores", out["y"], want)


@case
def permute_not_a_permutation():
    run(prog(4, [tensor("x", (1, 4), fill=1), tensor("y", (1, 4))],
             [cc(7, ["x"], ["y"], src_target_pairs=[[0, 1], [1, 2], [2, 1]])]),
        expect_error=["src_target_pairs is not a permutation: rank 1 is the target of pairs [0] and [2]"])


@case
def sendrecv_multi_lnc_error():
    run(prog(2, [tensor("x", (1, 4), fill=1), tensor("y", (1, 4))], [cc(0, ["x"], ["y"])]),
        expect_error=["SendRecv: Multiple LNCs are not supported yet"])


# ---- the identity arm (kind 8 and unknown kinds) ---------------------------------

def identity(n):
    """kind 8 (PermuteReduce) and kind 42 copy each core's own input: no
    exchange, no reduce, even with replica_groups and reduce_op given."""
    x = data(n, (2, 4), seed=29 + n)
    for kind in (8, 42):
        out = run(prog(n, [tensor("x", (2, 4)), tensor("y", (2, 4))],
                       [cc(kind, ["x"], ["y"], reduce_op="add", replica_groups=[list(range(n))])]), {"x": x}, ["y"])
        same_bits(f"kind {kind} on {n} cores: identity copy", out["y"], x)


for _n in SIZES:
    CASES[f"permute_reduce_identity_{_n}"] = (lambda m: (lambda: identity(m)))(_n)


@case
def permute_reduce_count_mismatch():
    run(prog(2, [tensor("x", (2, 3), fill=1), tensor("y", (2, 2))], [cc(8, ["x"], ["y"])]),
        expect_error=["PermuteReduce (kind 8, the identity copy", "6 elements but the output has 4"])


# ---- the multi-worker regime ---------------------------------------------------------

def multiworker(n):
    x = data(n, (2, 8), seed=1100 + n, specials=False)
    out = run(prog(n, [tensor("x", (2, 8)), tensor("y", (2, 8)), tensor("m", (2, 8))],
                   [cc(2, ["x"], ["y"], reduce_op="add"), cc(2, ["x"], ["m"], reduce_op="max")]),
              {"x": x}, ["y", "m"], settings={"regime": "multiworker"})
    same_bits(f"multiworker AllReduce add on {n} cores = local x {n}", out["y"], (x * np.float32(n)).astype(np.float32))
    same_bits(f"multiworker AllReduce max on {n} cores = local copy", out["m"], x)
    exact = fold(4, [x[k] for k in range(n)])
    print(f"  (the exact sum differs from the approximation in {int(np.sum(bits(exact) != bits(out['y'][0])))} "
          f"of {exact.size} elements on core 0)")


for _n in SIZES:
    CASES[f"multiworker_{_n}"] = (lambda m: (lambda: multiworker(m)))(_n)


@case
def multiworker_needs_one_core_per_lnc():
    run(prog(2, [tensor("x", (1, 1), fill=1)], []), settings={"regime": "multiworker", "cores_per_lnc": 2},
        expect_error=["init failed", "needs cores_per_lnc = 1", "found 2"])


# ---- rank ids ---------------------------------------------------------------------

@case
def global_rank_id():
    """GetGlobalRankId into an output and into a register; the register
    drives a dynamic offset (kind 8 copy of table[rank])."""
    n = 8
    table = np.arange(100, 108, dtype=np.float32).reshape(1, 8)
    p = prog(n, [tensor("r", (1, 1), fill=-1), tensor("t", (1, 8), data=table.ravel().tolist()),
                 tensor("v", (1, 1), fill=-1)],
             [{"opcode": "GetGlobalRankId", "outputs": ["r"], "register": 3},
              cc(8, [{"tensor": "t", "ap": [[1, 1]], "offset_register": 3}], ["v"])])
    for per_lnc in (1, 2):
        out = run(p, outputs=["r", "v"], settings={"cores_per_lnc": per_lnc})
        ranks = np.arange(n) // per_lnc
        same_bits(f"GetGlobalRankId, cores_per_lnc {per_lnc}", out["r"], ranks.astype(np.float32).reshape(n, 1, 1))
        same_bits(f"register -> offset, cores_per_lnc {per_lnc}", out["v"], (100 + ranks).astype(np.float32).reshape(n, 1, 1))


@case
def cur_processing_rank():
    n, groups = 8, [[0, 2, 4, 6], [1, 3, 5, 7]]
    insts = [{"opcode": "GetCurProcessingRankID", "outputs": [{"tensor": "r", "ap": [[1, 1]], "offset": it}],
              "iter_id": it, "replica_groups": groups} for it in range(4)]
    for table in (None, [2, 0, 3, 1]):
        out = run(prog(n, [tensor("r", (1, 4), "int32", fill=-1)], insts), outputs=["r"],
                  settings={"rank_table": table} if table else {})
        want = np.empty((n, 1, 4), dtype=np.int32)
        for g in groups:
            for j, k in enumerate(g):
                for it in range(4):
                    q = (j - it) % 4
                    want[k, 0, it] = g[table[q] if table else q]
        same_bits(f"GetCurProcessingRankID iterations 0..3, rank_table {table}", out["r"], want)


@case
def cur_processing_rank_iter_out_of_ring():
    run(prog(2, [tensor("r", (1, 1), fill=0)],
             [{"opcode": "GetCurProcessingRankID", "outputs": ["r"], "iter_id": 2}]),
        expect_error=["iter_id 2 is outside the ring of 2 ranks"])


# ---- CollectiveSend / CollectiveRecv -----------------------------------------------

@case
def send_recv_p2p():
    """Even cores send to the next odd core, then the odd cores send back
    twice their value's bytes (another tensor)."""
    n = 8
    x = data(n, (2, 4), seed=31)
    sends = [k + 1 if k % 2 == 0 else -1 for k in range(n)]
    recvs = [k - 1 if k % 2 == 1 else -1 for k in range(n)]
    insts = [{"opcode": "CollectiveSend", "inputs": ["x"], "peer_id": sends},
             {"opcode": "CollectiveRecv", "outputs": ["y"], "peer_id": recvs},
             {"opcode": "CollectiveSend", "inputs": ["y"], "peer_id": recvs},
             {"opcode": "CollectiveRecv", "outputs": ["z"], "peer_id": sends}]
    out = run(prog(n, [tensor("x", (2, 4)), tensor("y", (2, 4), fill=-7), tensor("z", (2, 4), fill=-7)], insts),
              {"x": x}, ["y", "z"])
    want_y, want_z = np.full_like(x, -7), np.full_like(x, -7)
    for k in range(0, n, 2):
        want_y[k + 1] = x[k]
        want_z[k] = x[k]
    same_bits("CollectiveSend even -> odd", out["y"], want_y)
    same_bits("CollectiveSend back odd -> even", out["z"], want_z)


@case
def send_without_recv_deadlocks():
    run(prog(2, [tensor("x", (1, 4), fill=1)],
             [{"opcode": "CollectiveSend", "inputs": ["x"], "peer_id": [1, -1]}]),
        expect_error=["deadlock", "core 0 waits at instruction 0 (CollectiveSend/49)"])


@case
def send_to_self():
    run(prog(2, [tensor("x", (1, 4), fill=1)],
             [{"opcode": "CollectiveSend", "inputs": ["x"], "peer_id": 0}]),
        expect_error=["peer_id 0 is this core itself"])


# ---- more attribute errors ----------------------------------------------------

@case
def errors_attributes():
    x = tensor("x", (1, 4), fill=1)
    y = tensor("y", (1, 4))
    run(prog(2, [x, y], [cc("Allreduce", ["x"], ["y"], reduce_op="add")]),
        expect_error=["instruction 0 (opcode CollectiveCompute/48, family collective): attribute 'kind' of "
                      "CollectiveCompute: unknown value 'Allreduce'; did you mean 'AllReduce'?"])
    run(prog(2, [x, y], [cc(2, ["x"], ["y"])]), expect_error=["AllReduce (kind 2) needs the attribute 'reduce_op'"])
    run(prog(2, [x, y], [cc(2, ["x"], ["y"], reduce_op="mul")]), expect_error=[
        "attribute 'reduce_op' of CollectiveCompute: unknown value 'mul' (one of bypass, add, max, min)"])
    run(prog(2, [x, y], [cc(2, ["x", "x"], ["y"], reduce_op="add")]),
        expect_error=["AllReduce (kind 2) takes 1 input and 1 output, the instruction has 2 and 1"])
    run(prog(2, [x, y], [cc(7, ["x"], ["y"])]), expect_error=["Permute (kind 7) needs the attribute 'src_target_pairs'"])
    run(prog(2, [x, y], [cc(2, ["x"], ["y"], reduce_op="add", replica_groups=[[0], []])]),
        expect_error=["replica_groups[1] is empty"])
    run(prog(2, [x, y], [{"opcode": "GetGlobalRankId"}]), expect_error=["GetGlobalRankId needs a destination"])
    run(prog(2, [x, y], [{"opcode": "GetGlobalRankId", "outputs": ["x"]}]),
        expect_error=["the output has 4 elements, expected 1"])
    run(prog(2, [x, y], [{"opcode": "CollectiveRecv", "outputs": ["y"], "peer_id": 2}]),
        expect_error=["peer_id 2 names a core that does not exist"])
    run(prog(2, [x, y], [{"opcode": "CollectiveRecv", "outputs": ["y"], "peer_id": [1, 0, 1]}]),
        expect_error=["peer_id has 3 entries, expected one per core (2)"])


def main():
    global TRNSIM
    ap = argparse.ArgumentParser()
    ap.add_argument("--trnsim")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("cases", nargs="*")
    a = ap.parse_args()
    if a.list:
        print("\n".join(CASES))
        return 0
    TRNSIM = a.trnsim
    failed = 0
    for name in a.cases or list(CASES):
        print(f"{name}:")
        try:
            CASES[name]()
        except Fail as e:
            print(f"FAIL {name}: {e}")
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
