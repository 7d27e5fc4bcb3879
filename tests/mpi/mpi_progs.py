#!/usr/bin/python3
"""Programs through `mpirun -np N trnsim run ... --config <mpi config>`,
compared byte for byte with the same program in one process.

    mpi_progs.py --trnsim BIN --mpiexec MPIEXEC CASE...   (--list prints the cases)

A kind case runs its program on 2 processes x 1 core, 4 x 1 and 4 x 2 (cores
= N*M) and requires every output file to be identical to the single-process
run's file (the .npy bytes, header included); several also check the
values against numpy (the fold of tests/collective/coll_progs.py). Error
cases check for one `trnsim:` line naming the problem, a non-zero exit from
mpirun, and that no output file was written.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "collective"))
from coll_progs import data, fold  # noqa: E402  (the numpy reference fold and data)

TRNSIM = MPIEXEC = None
CASES = {}
TOPOLOGIES = ((2, 2), (4, 4), (4, 8))  # (processes, cores)


class Fail(Exception):
    pass


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def config(module, settings, top="", hbm=1048576):
    s = "".join(f"      {k} = {json.dumps(v)};\n" for k, v in settings.items())
    return (top + "machine = { cores = 1; partitions = 128; sbuf_partition_bytes = 196608;\n"
            f"  psum_partition_bytes = 16384; hbm_bytes = {hbm}; registers = 64; }};\n"
            "plugins = ( { family = \"dma\"; module = \"trnsim-dma\"; },\n"
            f"  {{ family = \"collective\"; module = \"{module}\";\n"
            f"    settings = {{\n{s}    }}; }} );\n")


MPI_ONLY = ("mpi_reduce", "mpi_timeout", "multiworker_allreduce")


IO_REPORT = '"$0" "$@"; s=$?; cat /proc/$$/io > "$TRNSIM_IO_LOG.$OMPI_COMM_WORLD_RANK"; exit $s'


def run(d, tag, prog, inputs, outputs, settings, np_=None, expect_error=None, progs=None, io_log=None, top="",
        extra=(), mpi_args=(), rank_configs=None):
    """One run in directory d; np_ None = one process. Returns {name: path}
    and the completed process. io_log: each rank's /proc/PID/io after its
    trnsim ended (through sh, which adds its reaped child's counts) goes to
    io_log.RANK. top: config lines before the machine; extra: more
    arguments for trnsim run; mpi_args: more arguments for mpirun;
    rank_configs: one config text per process (the same program on each)."""
    mpi = np_ is not None
    cfg = os.path.join(d, f"{tag}.cfg")
    st = dict(settings)
    if not mpi:
        st = {k: v for k, v in st.items() if k not in MPI_ONLY}
    with open(cfg, "w") as f:
        f.write(config("trnsim-collective-mpi" if mpi else "trnsim-collective", st, top))
    pfile = os.path.join(d, f"{tag}.json")
    with open(pfile, "w") as f:
        json.dump(prog, f)
    args = ["run", pfile, "--config", cfg] + list(extra)
    for name, arr in inputs.items():
        ip = os.path.join(d, f"{tag}_in_{name}.npy")
        np.save(ip, arr)
        args += ["--input", f"{name}={ip}"]
    outs = {}
    for name in outputs:
        outs[name] = os.path.join(d, f"{tag}_out_{name.replace('@', '_')}.npy")
        args += ["--output", f"{name}={outs[name]}"]
    base = [MPIEXEC, "--allow-run-as-root", "--oversubscribe"] + list(mpi_args)
    if rank_configs:  # MPMD: one config file per process
        cmd = base[:]
        for i, text in enumerate(rank_configs):
            cf = os.path.join(d, f"{tag}_c{i}.cfg")
            with open(cf, "w") as f:
                f.write(text)
            cmd += ["-np", "1", TRNSIM, "run", pfile, "--config", cf] + args[4:]
            cmd += [":"] if i + 1 < len(rank_configs) else []
    elif progs:  # MPMD: one program file per process
        cmd = base[:]
        for i, p in enumerate(progs):
            pf = os.path.join(d, f"{tag}_p{i}.json")
            with open(pf, "w") as f:
                json.dump(p, f)
            cmd += (["-np", "1", TRNSIM, "run", pf] + args[2:]) + ([":"] if i + 1 < len(progs) else [])
    elif mpi and io_log:
        cmd = base + ["-x", "TRNSIM_IO_LOG", "-np", str(np_), "sh", "-c", IO_REPORT, TRNSIM] + args
    elif mpi:
        cmd = base + ["-np", str(np_), TRNSIM] + args
    else:
        cmd = [TRNSIM] + args
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")
    if io_log:
        env["TRNSIM_IO_LOG"] = io_log
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env, stdin=subprocess.DEVNULL)
    if expect_error is not None:
        mine = [ln for ln in r.stderr.splitlines() if ln.startswith("trnsim:")]
        if r.returncode == 0:
            raise Fail(f"{tag}: expected a failure, the run succeeded")
        if len(mine) != 1:
            raise Fail(f"{tag}: expected one 'trnsim:' line, got {len(mine)}:\n{r.stderr}")
        for t in expect_error:
            if t not in mine[0]:
                raise Fail(f"{tag}: the message lacks {t!r}:\n{mine[0]}")
        left = [p for p in outs.values() if os.path.exists(p)]
        left += [f for f in os.listdir(d) if ".tmp-trnsim-" in f]
        if left:
            raise Fail(f"{tag}: a failed run left outputs behind: {left}")
        print(f"  {tag}: failed as expected (exit {r.returncode}): {mine[0]}")
        return None, r
    if r.returncode != 0:
        raise Fail(f"{tag}: exit {r.returncode}:\n{r.stderr}")
    return outs, r


def identical(tag, a, b, what="the single-process run's"):
    for name in a:
        x, y = open(a[name], "rb").read(), open(b[name], "rb").read()
        if x != y:
            ga, gb = np.load(a[name]), np.load(b[name])
            bad = np.nonzero(ga.reshape(-1).view(np.uint8) != gb.reshape(-1).view(np.uint8))[0]
            raise Fail(f"{tag}: output {name} differs from {what} ({bad.size} bytes, first at "
                       f"byte {int(bad[0]) if bad.size else -1} of the data)")
    print(f"  {tag}: {', '.join(a)} byte-identical to {what}")


def same_bits(tag, path, want):
    got = np.load(path)
    want = np.asarray(want, dtype=got.dtype)
    if got.shape != want.shape or got.tobytes() != want.tobytes():
        raise Fail(f"{tag}: {path} does not match the numpy reference")
    print(f"  {tag}: matches numpy bit for bit")


def kind_case(build, topologies=TOPOLOGIES):
    """build(cores) -> (prog, inputs, outputs, settings, check or None)."""
    def runner():
        for np_, cores in topologies:
            prog, inputs, outputs, settings, check = build(cores)
            with tempfile.TemporaryDirectory(prefix="mpi-") as d:
                one, _ = run(d, "one", prog, inputs, outputs, settings)
                many, _ = run(d, "mpi", prog, inputs, outputs, settings, np_=np_)
                tag = f"{np_} processes x {cores // np_} core(s)"
                identical(tag, many, one)
                if check:
                    check(tag, many)
    return runner


def T(name, shape, dtype="float32", **kw):
    t = {"name": name, "memory": "sbuf", "dtype": dtype, "shape": list(shape)}
    t.update(kw)
    return t


def cc(kind, ins, outs, **attrs):
    i = {"opcode": "CollectiveCompute", "kind": kind, "inputs": ins, "outputs": outs}
    i.update(attrs)
    return i


def P(cores, tensors, insts):
    return {"cores": cores, "tensors": tensors, "instructions": insts}


# ---- every kind ------------------------------------------------------------------

def allreduce(op, shape=(4, 1001), dtype="float32", specials=True):
    def build(n):
        x = data(n, shape, seed=10 + n + op, specials=specials)
        prog = P(n, [T("x", shape, dtype), T("y", shape, dtype)], [cc("AllReduce", ["x"], ["y"], reduce_op=op)])

        def check(tag, outs):
            if dtype == "float32":
                want = np.broadcast_to(fold(op, list(x)), x.shape)
                same_bits(tag, outs["y"], want)
        return prog, {"x": x}, ["y"], {}, check
    return build


CASES["allreduce_add_fp32"] = kind_case(allreduce(4, specials=False))
CASES["allreduce_add_specials"] = kind_case(allreduce(4))
CASES["allreduce_max"] = kind_case(allreduce(8))
CASES["allreduce_min"] = kind_case(allreduce(9))
CASES["allreduce_bf16"] = kind_case(allreduce(4, dtype="bfloat16", specials=False))


def fold_order_changes_bits():
    """The data of allreduce_add_fp32 really depends on the fold order, so
    byte identity there proves the core order was kept."""
    x = data(8, (4, 1001), seed=10 + 8 + 4, specials=False)
    fwd, rev = fold(4, list(x)), fold(4, list(x[::-1]))
    if fwd.tobytes() == rev.tobytes():
        raise Fail("the test data does not depend on the fold order")
    print(f"  {int((fwd != rev).sum())} of {fwd.size} sums change with the fold order")


CASES["allreduce_data_is_order_sensitive"] = fold_order_changes_bits


def reduce_scatter(n):
    x = data(n, (2, 8 * n), seed=30 + n, specials=False)
    prog = P(n, [T("x", (2, 8 * n)), T("y", (1, 16))], [cc("ReduceScatter", ["x"], ["y"], reduce_op="add")])

    def check(tag, outs):
        full = fold(4, list(x)).reshape(-1)
        same_bits(tag, outs["y"], full.reshape(n, 1, 16))
    return prog, {"x": x}, ["y"], {"multi_lnc": "allow"}, check


CASES["reducescatter_add"] = kind_case(reduce_scatter)


def allreduce_scale(n):
    """add with scale: only the lowest core's input, times scale (the SCALE
    branch); the others are exchanged and checked but not added."""
    x = data(n, (2, 7), seed=35 + n, specials=False)
    prog = P(n, [T("x", (2, 7)), T("y", (2, 7))], [cc("AllReduce", ["x"], ["y"], reduce_op="add", scale=0.375)])

    def check(tag, outs):
        same_bits(tag, outs["y"], np.broadcast_to((x[0] * np.float32(0.375)).astype(np.float32), x.shape))
    return prog, {"x": x}, ["y"], {}, check


CASES["allreduce_scale"] = kind_case(allreduce_scale)


def all_gather(rows):
    def build(n):
        x = data(n, (2, 3), seed=40 + n)
        prog = P(n, [T("x", (2, 3)), T("y", (2, 3 * n) if rows else (2 * n, 3))],
                 [cc("AllGather", ["x"], ["y"], cc_dim=1 if rows else 0)])
        return prog, {"x": x}, ["y"], {}, None
    return build


CASES["allgather_flat"] = kind_case(all_gather(False))
CASES["allgather_rows"] = kind_case(all_gather(True))


def all_to_all(n):
    x = data(n, (n, 4), seed=50 + n)
    return P(n, [T("x", (n, 4)), T("y", (n, 4))], [cc("AllToAll", ["x"], ["y"])]), {"x": x}, ["y"], {}, None


CASES["alltoall"] = kind_case(all_to_all)


def all_to_all_v(n):
    counts = np.full((n, n), 2)
    counts[np.arange(n), (np.arange(n) + 1) % n] = 5
    counts[np.arange(n), np.arange(n)] = 1
    e = int(counts.sum(1)[0])
    x = data(n, (1, e), seed=60 + n)
    prog = P(n, [T("x", (1, e)), T("y", (1, e))], [cc("AllToAllV", ["x"], ["y"], send_counts=counts.tolist())])
    return prog, {"x": x}, ["y"], {}, None


CASES["alltoallv"] = kind_case(all_to_all_v)


def permute(n):
    perm = np.random.default_rng(70 + n).permutation(n)
    pairs = [[int(s), int(t)] for s, t in zip(range(n), perm)]
    x = data(n, (2, 3), seed=71 + n)
    prog = P(n, [T("x", (2, 3)), T("y", (2, 3))], [cc("Permute", ["x"], ["y"], src_target_pairs=pairs)])
    return prog, {"x": x}, ["y"], {}, None


CASES["permute"] = kind_case(permute)


def permute_implicit(n):
    x = data(n, (2, 3), seed=80 + n)
    return P(n, [T("x", (2, 3)), T("y", (2, 3))], [cc("PermuteImplicit", ["x"], ["y"])]), {"x": x}, ["y"], {}, None


CASES["permute_implicit"] = kind_case(permute_implicit)


def permute_reduce_implicit(n):
    a, b = data(n, (2, 4), seed=90 + n), data(n, (2, 4), seed=91 + n)
    prog = P(n, [T("a", (2, 4)), T("b", (2, 4)), T("y", (2, 4))],
             [cc("PermuteReduceImplicit", ["a", "b"], ["y"], reduce_op="add")])
    return prog, {"a": a, "b": b}, ["y"], {}, None


CASES["permute_reduce_implicit"] = kind_case(permute_reduce_implicit)


def send_recv(cce):
    def build(n):
        x = data(n, (2, 3), seed=100 + n)
        attrs = {"reduce_op": "max"} if cce else {}
        prog = P(n, [T("x", (2, 3)), T("y", (2, 3))], [cc("SendRecvCCE" if cce else "SendRecv", ["x"], ["y"], **attrs)])
        return prog, {"x": x}, ["y"], {"cores_per_lnc": n}, None
    return build


CASES["sendrecv"] = kind_case(send_recv(False))
CASES["sendrecvcce"] = kind_case(send_recv(True))


def identity(n):
    x = data(n, (2, 3), seed=110 + n)
    return P(n, [T("x", (2, 3)), T("y", (2, 3))], [cc("PermuteReduce", ["x"], ["y"])]), {"x": x}, ["y"], {}, None


CASES["permute_reduce_identity"] = kind_case(identity)


def groups_split(n):
    """Two groups, each listed out of core order: AllReduce and AllGather per
    group, then an int32 AllGather of the whole run (raw bytes)."""
    half = n // 2
    g = [list(range(half))[::-1], list(range(half, n))]
    x = data(n, (2, 5), seed=120 + n, specials=False)
    k = (np.arange(n * 4, dtype=np.int32).reshape(n, 1, 4) + (1 << 24) + 1)
    prog = P(n, [T("x", (2, 5)), T("s", (2, 5)), T("g", (2 * half, 5)), T("k", (1, 4), "int32"),
                 T("kk", (1, 4 * n), "int32")],
             [cc("AllReduce", ["x"], ["s"], reduce_op="add", replica_groups=g),
              cc("AllGather", ["x"], ["g"], replica_groups=g),
              cc("AllGather", ["k"], ["kk"], cc_dim=1)])
    return prog, {"x": x, "k": k}, ["s", "g", "kk"], {}, None


CASES["groups_split"] = kind_case(groups_split)


def send_recv_phases(n):
    """CollectiveSend / CollectiveRecv around a ring in two phases: even
    cores send while odd cores receive, then the reverse."""
    x = data(n, (2, 3), seed=130 + n)
    nxt = [(c + 1) % n for c in range(n)]
    prv = [(c - 1) % n for c in range(n)]
    even = lambda lst, on: [p if (c % 2 == 0) == on else -1 for c, p in enumerate(lst)]  # noqa: E731
    insts = [
        {"opcode": "CollectiveSend", "inputs": ["x"], "outputs": [], "peer_id": even(nxt, True)},
        {"opcode": "CollectiveRecv", "inputs": [], "outputs": ["y"], "peer_id": even(prv, False)},
        {"opcode": "CollectiveSend", "inputs": ["x"], "outputs": [], "peer_id": even(nxt, False)},
        {"opcode": "CollectiveRecv", "inputs": [], "outputs": ["y"], "peer_id": even(prv, True)},
    ]
    prog = P(n, [T("x", (2, 3)), T("y", (2, 3), "bfloat16")], insts)

    def check(tag, outs):
        got = np.load(outs["y"])
        want = np.stack([x[(c - 1) % n] for c in range(n)])
        b = want.view(np.uint32).astype(np.uint64)
        want = ((((b + 0x7FFF + ((b >> 16) & 1)) >> 16) << 16).astype(np.uint32)).view(np.float32)
        nan = np.isnan(want)
        if not (np.array_equal(np.isnan(got), nan) and np.array_equal(got[~nan], want[~nan])):
            raise Fail(f"{tag}: received values differ from the ring predecessors' (bf16 RNE)")
        print(f"  {tag}: every core holds its predecessor's input (bf16)")
    return prog, {"x": x}, ["y"], {}, check


CASES["send_recv_ring"] = kind_case(send_recv_phases)


@case
def multiworker_reference():
    """multiworker_allreduce = "reference": local input x replicas, like the
    single-process regime = "multiworker"."""
    for np_, n in ((2, 2), (4, 8)):
        x = data(n, (2, 3), seed=140 + n, specials=False)
        prog = P(n, [T("x", (2, 3)), T("y", (2, 3))], [cc("AllReduce", ["x"], ["y"], reduce_op="add")])
        with tempfile.TemporaryDirectory(prefix="mpi-") as d:
            one, _ = run(d, "one", prog, {"x": x}, ["y"], {"regime": "multiworker"})
            many, _ = run(d, "mpi", prog, {"x": x}, ["y"], {"multiworker_allreduce": "reference"}, np_=np_)
            identical(f"{np_} processes, reference regime", many, one)
            same_bits(f"{np_} processes, local x {n}", many["y"], (x * np.float32(n)).astype(np.float32))


# ---- the fast mode ----------------------------------------------------------------

@case
def native_allreduce():
    """mpi_reduce = "native": fp32 add within n * eps * sum|x| of the exact
    core-order sum and said to be not exact on stderr; max / min without
    NaN or signed-zero ties equal the exact result bit for bit."""
    for np_, n in ((4, 4), (4, 8)):
        x = data(n, (4, 1001), seed=150 + n, specials=False)
        for op in (4, 8, 9):
            prog = P(n, [T("x", (4, 1001)), T("y", (4, 1001))], [cc("AllReduce", ["x"], ["y"], reduce_op=op)])
            with tempfile.TemporaryDirectory(prefix="mpi-") as d:
                outs, r = run(d, "native", prog, {"x": x}, ["y"], {"mpi_reduce": "native"}, np_=np_)
                got = np.load(outs["y"])
                exact = fold(op, list(x))
                tag = f"native op {op} on {np_} processes x {n // np_}"
                if "not bit-exact" not in r.stderr or r.stderr.count("not bit-exact") != 1:
                    raise Fail(f"{tag}: stderr should say once that the fold is not bit-exact:\n{r.stderr}")
                if op == 4:
                    bound = n * np.finfo(np.float32).eps * np.abs(x.astype(np.float64)).sum(0)
                    err = np.abs(got.astype(np.float64) - exact.astype(np.float64))
                    if not (err <= bound).all():
                        raise Fail(f"{tag}: error {err.max()} beyond the documented bound")
                    print(f"  {tag}: {int((got != exact).sum())} sums differ from core order, all within "
                          f"n*eps*sum|x| (max error {err.max():.3g})")
                else:
                    same_bits(tag, outs["y"], np.broadcast_to(exact, got.shape))
        x = data(n, (4, 1000), seed=160 + n, specials=False)
        prog = P(n, [T("x", (4, 1000)), T("y", (1, 4000 // n))], [cc("ReduceScatter", ["x"], ["y"], reduce_op="add")])
        with tempfile.TemporaryDirectory(prefix="mpi-") as d:
            outs, r = run(d, "native_rs", prog, {"x": x}, ["y"], {"mpi_reduce": "native", "multi_lnc": "allow"},
                          np_=np_)
            got = np.load(outs["y"]).reshape(-1)
            exact = fold(4, list(x)).reshape(-1)
            bound = n * np.finfo(np.float32).eps * np.abs(x.astype(np.float64)).sum(0).reshape(-1)
            if "MPI_Reduce_scatter_block" not in r.stderr or \
                    not (np.abs(got.astype(np.float64) - exact) <= bound).all():
                raise Fail(f"native ReduceScatter on {np_} processes: not within the bound or not reported")
            print(f"  native ReduceScatter on {np_} processes x {n // np_}: within n*eps*sum|x|, reported")


def H(name, count):
    return {"name": name, "memory": "hbm", "dtype": "float32", "shape": [count]}


@case
def native_lent_memory():
    """The fast mode on lent memory: MPI reads contiguous fp32 inputs and
    writes contiguous outputs in place (one core per process), in place on
    an input that is its own output (MPI_IN_PLACE), and through dense
    buffers where it cannot (strided SBUF rows, two cores per process). The
    --trace-text note says which buffers MPI got; every output is
    byte-identical to the same run with direct_access = false (the copying
    path, the oracle) and within n * eps * sum|x| of the core-order fold
    (max: equal to it)."""
    e = 3000
    for np_, n in ((2, 2), (4, 4), (4, 8)):
        x = data(n, (e,), seed=170 + n, specials=False)
        w = data(n, (e,), seed=171 + n, specials=False)
        s = data(n, (4, 250), seed=172 + n, specials=False)
        prog = P(n, [H("x", e), H("y", e), H("z", e), H("m", e), H("r", e // n), T("s", (4, 250)),
                     T("t", (4, 250))],
                 [cc("AllReduce", ["x"], ["y"], reduce_op="add"),
                  cc("AllReduce", ["z"], ["z"], reduce_op="add"),
                  cc("AllReduce", ["x"], ["m"], reduce_op="max"),
                  cc("ReduceScatter", ["x"], ["r"], reduce_op="add"),
                  cc("AllReduce", ["s"], ["t"], reduce_op="add")])
        inputs, outputs = {"x": x, "z": w, "s": s}, ["y", "z", "m", "r", "t"]
        settings = {"mpi_reduce": "native", "multi_lnc": "allow"}
        tag = f"{np_} processes x {n // np_}"
        with tempfile.TemporaryDirectory(prefix="mpi-") as d:
            logs = os.path.join(d, "logs")  # each rank's stderr apart (--trace-text lines would interleave)
            lent, _ = run(d, "lent", prog, inputs, outputs, settings, np_=np_, extra=["--trace-text"],
                          mpi_args=["--output-filename", logs])
            copied, _ = run(d, "copied", prog, inputs, outputs, settings, np_=np_, top="direct_access = false;\n")
            identical(f"{tag}, lent against copying", lent, copied, "the copying path's")
            with open(os.path.join(logs, "1", "rank.0", "stderr")) as f:
                notes = [ln for ln in f.read().splitlines() if ln.startswith("info: core ") and ": MPI " in ln]
            one = n == np_
            want = [("#0:", "reads the lent input in place" if one else "reads a dense fold",
                     "writes the lent output in place"),
                    ("#1:", "MPI_IN_PLACE" if one else "reads a dense fold", "writes the lent output in place"),
                    ("#2:", "reads the lent input in place" if one else "reads a dense fold",
                     "writes the lent output in place"),
                    ("#3:", "reads the lent input in place" if one else "reads a dense fold",
                     "writes the lent output in place" if one else "writes a dense buffer"),
                    ("#4:", "reads a dense fold", "writes a dense buffer")]
            if len(notes) != len(want) or not all(all(t in ln for t in ts) for ln, ts in zip(notes, want)):
                raise Fail(f"{tag}: process 0's buffer notes are not the expected ones:\n" + "\n".join(notes))
            print(f"  {tag}: MPI got the expected buffers ({'lent in and out' if one else 'dense fold, lent out'})")
            eps = np.finfo(np.float32).eps
            for name, src, op in (("y", x, 4), ("z", w, 4), ("m", x, 8), ("r", x, 4), ("t", s, 4)):
                got = np.load(lent[name]).astype(np.float64)
                exact = fold(op, list(src)).astype(np.float64)
                bound = n * eps * np.abs(src.astype(np.float64)).sum(0)
                if name == "r":
                    exact, bound = exact.reshape(n, -1), bound.reshape(n, -1)
                if op == 8 and got.tobytes() != np.broadcast_to(exact, got.shape).tobytes():
                    raise Fail(f"{tag}: native max {name} differs from the exact maximum")
                if not (np.abs(got - exact) <= bound).all():
                    raise Fail(f"{tag}: native {name} beyond n*eps*sum|x|")
            print(f"  {tag}: sums within n*eps*sum|x|, max exact")


# ---- inputs: each process reads its own slices --------------------------------------

@case
def input_slices_only():
    """An --input stacked [cores, 128, 2048] (1 MiB a core): every process
    reads only its own cores' slices (its read(2)/pread(2) bytes, rchar of
    /proc/PID/io, are its slices plus the header, the program, the config
    and MPI's start-up, far below the whole file), and the outputs are the
    single-process run's bytes."""
    for np_, cores in ((4, 4), (2, 4)):
        x = data(cores, (128, 2048), seed=300 + cores + np_, specials=False)
        prog = P(cores, [T("x", (128, 2048)), T("y", (128, 2048))],
                 [{"opcode": "TensorCopy", "inputs": ["x"], "outputs": ["y"]}])
        with tempfile.TemporaryDirectory(prefix="mpi-") as d:
            one, _ = run(d, "one", prog, {"x": x}, ["y"], {})
            log = os.path.join(d, "io")
            many, _ = run(d, "mpi", prog, {"x": x}, ["y"], {}, np_=np_, io_log=log)
            tag = f"{np_} processes x {cores // np_} core(s)"
            identical(tag, many, one)
            whole = os.path.getsize(os.path.join(d, "mpi_in_x.npy"))
            own = whole * (cores // np_) // cores
            for r in range(np_):
                with open(f"{log}.{r}") as f:
                    rchar = int(next(ln for ln in f if ln.startswith("rchar:")).split()[1])
                if not own <= rchar < own + (whole - own) // 2:
                    raise Fail(f"{tag}: process {r} read {rchar} bytes; its slices are {own} of the file's {whole}")
                print(f"  {tag}: process {r} read {rchar} bytes (its slices {own}, the file {whole})")


# ---- errors -----------------------------------------------------------------------

@case
def deadlock_send_send():
    """Both cores send first: neither receive is ever reached."""
    prog = P(2, [T("x", (1, 4), fill=1), T("y", (1, 4))],
             [{"opcode": "CollectiveSend", "inputs": ["x"], "outputs": [], "peer_id": [1, 0]},
              {"opcode": "CollectiveRecv", "inputs": [], "outputs": ["y"], "peer_id": [1, 0]}])
    with tempfile.TemporaryDirectory(prefix="mpi-") as d:
        run(d, "deadlock", prog, {}, ["y"], {"mpi_timeout": 1.5}, np_=2,
            expect_error=["deadlock", "for 1.5 s", "waits at instruction 0 (CollectiveSend/49)"])


@case
def failing_rank():
    """Core 1 (process 1) reads a tensor nobody wrote before the AllReduce;
    process 0 waits in the AllReduce until it hears of the failure."""
    prog = P(2, [T("x", (1, 4)), T("z", (1, 4)), T("y", (1, 4))],
             [{"opcode": "TensorCopy", "inputs": ["x"], "outputs": ["z"]},
              cc("AllReduce", ["z"], ["y"], reduce_op="add")])
    with tempfile.TemporaryDirectory(prefix="mpi-") as d:
        x = np.ones((1, 4), np.float32)
        np.save(os.path.join(d, "x0.npy"), x)
        cfg_in = {"x@0": x}
        run(d, "fail", prog, cfg_in, ["y"], {"mpi_timeout": 30}, np_=2,
            expect_error=["MPI process 1:", "instruction 0 (core 1, opcode TensorCopy", "never-written"])


@case
def mismatched_programs():
    a = P(2, [T("x", (1, 4), fill=1), T("y", (1, 4))], [cc("AllReduce", ["x"], ["y"], reduce_op="add")])
    b = P(2, [T("x", (1, 4), fill=2), T("y", (1, 4))], [cc("AllReduce", ["x"], ["y"], reduce_op="max")])
    with tempfile.TemporaryDirectory(prefix="mpi-") as d:
        run(d, "mismatch", a, {}, ["y"], {"mpi_timeout": 30}, np_=2, progs=[a, b],
            expect_error=["MPI process 1 runs a different program than process 0"])


@case
def mismatched_configs():
    """Processes with different configs: one error naming the first setting
    that differs and both values (machine sizes, a module setting, a module
    present on one side only), no output; a speed knob (direct_access) may
    differ and the run is then the single-process one. Both processes find
    the difference, so the line's "MPI process K:" prefix is whichever of
    them told the other first; the text after it is the same."""
    prog = P(2, [T("x", (1, 4), fill=1), T("y", (1, 4))], [cc("AllReduce", ["x"], ["y"], reduce_op="add")])
    mpi = "trnsim-collective-mpi"
    plain = config(mpi, {"mpi_timeout": 30})
    bad = (
        ("hbm", config(mpi, {"mpi_timeout": 30}, hbm=2097152),
         "machine.hbm_bytes is 2097152 on process 1, 1048576 on process 0"),
        ("reduce", config(mpi, {"mpi_timeout": 30, "mpi_reduce": "native"}),
         'collective.mpi_reduce is "native" on process 1, "exact" on process 0'),
        ("quirk", config(mpi, {"mpi_timeout": 30, "regime": "multiworker"}),
         'collective.regime is "multiworker" on process 1, "exact" on process 0'),
        ("module", plain.replace("plugins = (", 'plugins = ( { family = "bn"; module = "trnsim-bn"; },'),
         'bn.module is "trnsim-bn"'),
    )
    for tag, other, want in bad:
        with tempfile.TemporaryDirectory(prefix="mpi-") as d:
            run(d, f"config_{tag}", prog, {}, ["y"], {}, np_=2, rank_configs=[plain, other],
                expect_error=["MPI process ", "MPI process 1's config differs from process 0's: " + want,
                              "every process must use the same config"])
    with tempfile.TemporaryDirectory(prefix="mpi-") as d:
        one, _ = run(d, "one", prog, {}, ["y"], {})
        many, _ = run(d, "knob", prog, {}, ["y"], {}, np_=2, rank_configs=[plain, "direct_access = false;\n" + plain])
        identical("direct_access differing", many, one)


@case
def uneven_split():
    prog = P(3, [T("x", (1, 4), fill=1), T("y", (1, 4))], [cc("AllReduce", ["x"], ["y"], reduce_op="add")])
    with tempfile.TemporaryDirectory(prefix="mpi-") as d:
        run(d, "uneven", prog, {}, ["y"], {}, np_=2, expect_error=["3 cores do not split evenly over 2 MPI processes"])


# ---- remote DMA across processes ---------------------------------------------------

def barrier():
    return cc("AllReduce", ["b"], ["bo"], reduce_op="add")


def remote_dma(n):
    """Before a barrier every core puts x into the next core's y, accumulates
    it into the next core's acc, Saves it into the next core's HBM, and
    writes the odd elements of the next core's s while that core writes the
    even ones itself (the same 64-byte blocks, different bytes); after it,
    each core reads the previous core's y, the next core's s and the next
    core's HBM. 4 x 2 mixes remote cores in the same process and in others."""
    x = data(n, (2, 8), seed=200 + n, specials=False)
    prog = P(n, [T("x", (2, 8)), T("y", (2, 8)), T("acc", (2, 8), fill=0.25), T("s", (2, 16)), T("z", (2, 8)),
                 T("w", (2, 16)), T("hh", (2, 8)), T("b", (1, 4), fill=1), T("bo", (1, 4)),
                 {"name": "h", "memory": "hbm", "dtype": "float32", "shape": [16]}],
             [{"opcode": "TensorCopy", "inputs": ["x"], "outputs": [{"tensor": "y", "core_offset": 1}]},
              {"opcode": "DMACopy", "accumulate": True, "inputs": ["x"],
               "outputs": [{"tensor": "acc", "core_offset": 1}]},
              {"opcode": "Save", "inputs": ["x"], "outputs": [{"tensor": "h", "core_offset": 1}]},
              {"opcode": "TensorCopy", "inputs": [{"tensor": "x", "ap": [[1, 8]]}],
               "outputs": [{"tensor": "s", "core_offset": 1, "offset": 1, "ap": [[2, 8]]}]},
              {"opcode": "TensorCopy", "inputs": [{"tensor": "x", "ap": [[1, 8]]}],
               "outputs": [{"tensor": "s", "ap": [[2, 8]]}]},
              barrier(),
              {"opcode": "TensorCopy", "inputs": [{"tensor": "y", "core_offset": -1}], "outputs": ["z"]},
              {"opcode": "TensorCopy", "inputs": [{"tensor": "s", "core_offset": 1}], "outputs": ["w"]},
              {"opcode": "Load", "inputs": [{"tensor": "h", "core_offset": 1}], "outputs": ["hh"]}])

    def check(tag, outs):
        prev = np.roll(x, 1, axis=0)
        sv = np.empty((n, 2, 16), np.float32)
        sv[:, :, 0::2], sv[:, :, 1::2] = x, prev
        for name, want in (("y", prev), ("acc", (np.float32(0.25) + prev).astype(np.float32)),
                           ("z", np.roll(x, 2, axis=0)), ("s", sv), ("w", np.roll(sv, -1, axis=0)), ("hh", x)):
            same_bits(f"{tag} {name}", outs[name], want)
    return prog, {"x": x}, ["y", "acc", "s", "z", "w", "hh"], {}, check


CASES["remote_dma"] = kind_case(remote_dma)


@case
def remote_dma_uninit_read():
    """Reading another process's never-written bytes is the in-process error
    (both processes do; whichever is reported first names its core)."""
    prog = P(2, [T("x", (1, 4), fill=1), T("y", (1, 4)), T("z", (1, 4))],
             [{"opcode": "TensorCopy", "inputs": [{"tensor": "y", "core_offset": 1}], "outputs": ["z"]}])
    with tempfile.TemporaryDirectory(prefix="mpi-") as d:
        run(d, "rdma_uninit", prog, {}, ["z"], {}, np_=2,
            expect_error=["MPI process ", "instruction 0 (core ", "opcode TensorCopy", "never-written sbuf bytes",
                          "of tensor 'y'"])


@case
def remote_dma_out_of_bounds():
    """An operand past the end of another process's core's memory is refused
    before anything moves, as in one process."""
    prog = P(2, [T("x", (1, 4), fill=1), T("y", (1, 4))],
             [{"opcode": "TensorCopy", "inputs": ["x"],
               "outputs": [{"memory": "hbm", "dtype": "float32", "core": 1, "offset": 262143, "ap": [[1, 4]]}]}])
    with tempfile.TemporaryDirectory(prefix="mpi-") as d:
        run(d, "rdma_oob", prog, {}, ["y"], {}, np_=2, expect_error=["past the end of hbm"])


def no_osc_components():
    """mpirun arguments that leave Open MPI without any one-sided (osc)
    component, so MPI_Win_create_dynamic fails: what an MPI without RMA
    support does. The components are the installed ones (ompi_info)."""
    info = subprocess.run(["ompi_info", "--parsable"], capture_output=True, text=True, check=True).stdout
    names = sorted({ln.split(":")[2] for ln in info.splitlines() if ln.startswith("mca:osc:")})
    if not names:
        raise Fail("ompi_info lists no osc components")
    return ["--mca", "osc", "^" + ",".join(names)]


@case
def no_rma_window():
    """Without a usable RMA window (no osc component) a program that stays on
    each process's own cores runs as usual (byte-identical to one process),
    and one that reaches another process's core fails at that instruction
    with one line saying why, with no output written."""
    off = no_osc_components()
    local = P(2, [T("x", (1, 4), fill=1), T("y", (1, 4))], [cc("AllReduce", ["x"], ["y"], reduce_op="add")])
    remote = P(2, [T("x", (1, 4), fill=1), T("y", (1, 4))],
               [{"opcode": "TensorCopy", "inputs": ["x"], "outputs": [{"tensor": "y", "core_offset": 1}]}])
    with tempfile.TemporaryDirectory(prefix="mpi-") as d:
        one, _ = run(d, "one", local, {}, ["y"], {})
        many, _ = run(d, "nowin", local, {}, ["y"], {}, np_=2, mpi_args=off)
        identical("no RMA window, no remote access", many, one)
        run(d, "nowin_remote", remote, {}, ["y"], {}, np_=2, mpi_args=off,
            expect_error=["MPI process ", "instruction 0 (core ", "opcode TensorCopy", "writing core ",
                          "memory in another MPI process: this MPI cannot create an RMA window "
                          "(MPI_Win_create_dynamic failed at start-up)"])


@case
def count_mismatch_everywhere():
    """A bad count fails on every process with the in-process message, once."""
    prog = P(4, [T("x", (1, 4), fill=1), T("y", (1, 3))], [cc("AllReduce", ["x"], ["y"], reduce_op="add")])
    with tempfile.TemporaryDirectory(prefix="mpi-") as d:
        run(d, "count", prog, {}, ["y"], {}, np_=4,
            expect_error=["AllReduce (kind 2)", "output has 3 elements, expected 4"])


# ---- --trace / --timeline across processes -----------------------------------

def observed(n):
    """A copy, an AllReduce and an AllGather: records of three families."""
    x = data(n, (2, 8), seed=70 + n, specials=False)
    prog = P(n, [T("x", (2, 8)), T("z", (2, 8)), T("y", (2, 8)), T("g", (2, 8 * n))],
             [{"opcode": "TensorCopy", "inputs": ["x"], "outputs": ["z"]},
              cc("AllReduce", ["z"], ["y"], reduce_op="add"), cc("AllGather", ["y"], ["g"], cc_dim=1)])
    return prog, {"x": x}, ["g"]


def jsonl(path):
    return [json.loads(line) for line in open(path)]  # every line must parse


def normal(rec, drop):
    """A record without its timing fields; the MPI module named as the
    in-process one (the config swaps the collective module)."""
    r = {k: v for k, v in rec.items() if k not in drop}
    if r.get("module") == "trnsim-collective-mpi":
        r["module"] = "trnsim-collective"
    args = r.get("args")
    if isinstance(args, dict) and args.get("module") == "trnsim-collective-mpi":
        r["args"] = dict(args, module="trnsim-collective")
    return json.dumps(r, sort_keys=True)


def trace_records(tag, path, cores):
    """The trace's shape (header first, end last, counts) and its completed
    records; wait records depend on timing and are left out."""
    recs = jsonl(path)
    head, end, body = recs[0], recs[-1], recs[1:-1]
    if head.get("type") != "header" or head.get("cores") != cores or end.get("type") != "end":
        raise Fail(f"{tag}: {path} lacks its header or end record: {head} ... {end}")
    inst = [r for r in body if r["type"] == "instruction"]
    if end["records"] != len(inst) or len(inst) != len(body):
        raise Fail(f"{tag}: end record says {end['records']} records, the file has {len(inst)} of {len(body)}")
    for r in inst:  # who met: every core of the group (each process's driving core says so under MPI)
        if "party" in r and sorted(m["core"] for m in r["party"]) != list(range(cores)):
            raise Fail(f"{tag}: a party that is not the whole group: {r}")
    if not any("party" in r for r in inst):
        raise Fail(f"{tag}: no record names who met")
    done = sorted(normal(r, ("start_ns", "duration_ns", "party")) for r in inst if r["status"] != "wait")
    return {k: v for k, v in head.items() if k not in ("config", "program")}, end["status"], done


def timeline_slices(tag, path, cores):
    """Schema checks (fields per ph, one named track per core, slices in time
    order per track) and the completed instructions' slices."""
    doc = json.load(open(path))
    need = {"X": {"name", "ph", "ts", "dur", "pid", "tid", "cat", "args"}, "M": {"name", "ph", "pid", "tid", "args"}}
    last, names = {}, set()
    for e in doc["traceEvents"]:
        miss = need.get(e["ph"], set()) - set(e)
        if e["ph"] not in ("X", "M", "s", "f") or miss or e["pid"] != 1 or not 0 <= e["tid"] < cores:
            raise Fail(f"{tag}: a malformed event in {path}: {e}")
        if e["ph"] == "M" and e["name"] == "thread_name":
            names.add(e["tid"])
        if e["ph"] == "X":  # starts in order on each track, top-level slices apart (1 ns of rounding)
            top = e["args"].get("depth", 0) == 0
            start, end = last.get(e["tid"], (0, 0))
            if e["ts"] < start or e["ts"] < 0 or (top and e["ts"] < end - 1e-3):
                raise Fail(f"{tag}: core {e['tid']}'s slices are out of time order in {path}: {e}")
            last[e["tid"]] = (e["ts"], e["ts"] + e["dur"] if top else end)
    ids = {}
    for e in doc["traceEvents"]:
        if e["ph"] in ("s", "f"):
            ids.setdefault(e["id"], []).append(e["ph"])
    if any(sorted(v) != ["f", "s"] for v in ids.values()):
        raise Fail(f"{tag}: flow ids not used by exactly one 's' and one 'f' in {path}: {ids}")
    if names != set(range(cores)) or set(last) != set(range(cores)):
        raise Fail(f"{tag}: tracks {sorted(names)}, slices on {sorted(last)}; expected every core of {cores}")
    return sorted(normal(e, ("ts", "dur")) for e in doc["traceEvents"]
                  if e["ph"] == "X" and e["cat"] != "wait" and e["args"]["status"] != "wait")


def observe_args(d, tag):
    return ["--trace", os.path.join(d, f"{tag}.jsonl"), "--timeline", os.path.join(d, f"{tag}.tl.json")]


def no_leftovers(tag, d, parts):
    left = [f for f in os.listdir(d) if ".trnsim-" in f] + os.listdir(parts)
    if left:
        raise Fail(f"{tag}: temporary files left behind: {left}")


def with_parts_dir(d):
    """The processes' part files go to a directory of the test's own."""
    parts = os.path.join(d, "parts")
    os.mkdir(parts)
    os.environ["TMPDIR"] = parts
    return parts


@case
def trace_timeline_merged():
    """--trace and --timeline of an MPI run: one file each, with the records
    and slices of the single-process run (timing fields aside)."""
    for np_, cores in TOPOLOGIES:
        prog, inputs, outputs = observed(cores)
        with tempfile.TemporaryDirectory(prefix="mpi-") as d:
            parts = with_parts_dir(d)
            one, _ = run(d, "one", prog, inputs, outputs, {}, extra=observe_args(d, "one"))
            many, _ = run(d, "mpi", prog, inputs, outputs, {}, np_=np_, extra=observe_args(d, "mpi"))
            tag = f"{np_} processes x {cores // np_} core(s)"
            identical(tag, many, one)
            h1, s1, r1 = trace_records(tag, os.path.join(d, "one.jsonl"), cores)
            h2, s2, r2 = trace_records(tag, os.path.join(d, "mpi.jsonl"), cores)
            if h1 != h2 or s1 != s2 or s2 != "ok" or r1 != r2 or len(r1) != 3 * cores:
                raise Fail(f"{tag}: the MPI trace differs from the single-process trace "
                           f"({len(r2)} against {len(r1)} completed records; headers {h2} / {h1})")
            t1 = timeline_slices(tag, os.path.join(d, "one.tl.json"), cores)
            t2 = timeline_slices(tag, os.path.join(d, "mpi.tl.json"), cores)
            if t1 != t2:
                raise Fail(f"{tag}: the MPI timeline's slices differ from the single-process timeline's")
            no_leftovers(tag, d, parts)
            print(f"  {tag}: trace ({len(r2)} records) and timeline ({len(t2)} slices) as in one process")


@case
def trace_limit_merged():
    """--trace-limit N holds for the merged file: N records, then the limit
    record, and the end record says so."""
    prog, inputs, outputs = observed(4)
    with tempfile.TemporaryDirectory(prefix="mpi-") as d:
        with_parts_dir(d)
        t = os.path.join(d, "t.jsonl")
        run(d, "mpi", prog, inputs, outputs, {}, np_=4, extra=["--trace", t, "--trace-limit", "2"])
        recs = jsonl(t)
        kinds = [r["type"] for r in recs]
        if kinds != ["header", "instruction", "instruction", "limit", "end"] or not recs[-1]["limit_reached"]:
            raise Fail(f"limit 2: the file has {kinds}, end {recs[-1]}")
        print("  --trace-limit 2: two records, the limit record, limit_reached")


@case
def trace_of_failing_rank():
    """A run that fails on process 1 keeps its merged trace (as one process
    keeps its own): the failing record, and an end record saying error;
    the error is one line and no output is written."""
    prog = P(2, [T("x", (1, 4)), T("z", (1, 4)), T("y", (1, 4))],
             [{"opcode": "TensorCopy", "inputs": ["x"], "outputs": ["z"]},
              cc("AllReduce", ["z"], ["y"], reduce_op="add")])
    with tempfile.TemporaryDirectory(prefix="mpi-") as d:
        parts = with_parts_dir(d)
        t = os.path.join(d, "t.jsonl")
        run(d, "fail", prog, {"x@0": np.ones((1, 4), np.float32)}, ["y"], {"mpi_timeout": 30}, np_=2,
            extra=["--trace", t], expect_error=["MPI process 1:", "never-written"])
        recs = jsonl(t)
        bad = [r for r in recs if r["type"] == "instruction" and r["status"] == "error"]
        if recs[-1] != {"type": "end", "status": "error", "records": len(recs) - 2, "limit_reached": False} or \
                [(r["core"], r["opcode"]) for r in bad] != [(1, "TensorCopy")]:
            raise Fail(f"the failed run's trace: end {recs[-1]}, error records {bad}")
        no_leftovers("failing rank", d, parts)
        print("  the failed run's trace ends with core 1's error and status error")


@case
def observe_bad_targets():
    """A target rank 0 cannot create or write, and a bad filter: one line
    from rank 0 for the whole job, no output, no temporary, no part left.
    Only rank 0 checks the targets, so its line names it; every process
    finds the bad filter, a failure of the whole job: no process is named,
    or one (the one that got there first, when it stopped a slower one
    mid-exchange), never two."""
    prog, inputs, outputs = observed(4)
    with tempfile.TemporaryDirectory(prefix="mpi-") as d:
        parts = with_parts_dir(d)
        cases = [(["--trace", os.path.join(d, "no", "t.jsonl")], ["--trace", "cannot create it", "No such file"]),
                 (["--timeline", d], ["--timeline", "is a directory; only a regular file or a new path"]),
                 (["--trace", "/dev/full"], ["--trace: /dev/full is a character device"]),
                 (["--trace", os.path.join(d, "t.jsonl"), "--trace-filter", "opcod=Max"],
                  ["--trace-filter 'opcod=Max': unknown key 'opcod'"])]
        for i, (extra, want) in enumerate(cases):
            prefix = ["trnsim: MPI process 0: "] if i < 3 else []
            _, r = run(d, f"bad{i}", prog, inputs, outputs, {}, np_=4, extra=extra, expect_error=prefix + want)
            if r.stderr.count("MPI process") > 1:
                raise Fail(f"{extra}: more than one prefix:\n{r.stderr}")
            if os.path.exists(os.path.join(d, "t.jsonl")):
                raise Fail(f"{extra}: a trace file was written")
        no_leftovers("bad targets", d, parts)


# ---- a silent process, processes that disagree ---------------------------------------

def rank_pids(marker):
    """{rank: pid} of the trnsim processes whose command line holds marker."""
    pids = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().split(b"\0")
            if not cmd[0].endswith(b"trnsim") or marker.encode() not in cmd:
                continue
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = dict(v.split(b"=", 1) for v in f.read().split(b"\0") if b"=" in v)
            if b"OMPI_COMM_WORLD_RANK" in env:
                pids[int(env[b"OMPI_COMM_WORLD_RANK"])] = int(pid)
        except (OSError, ValueError):
            pass
    return pids


def long_then_allreduce(cores, trips):
    return P(cores, [T("x", (1, 4), fill=1), T("z", (1, 4)), T("y", (1, 4))],
             [{"loop": {"trips": trips, "body": [{"opcode": "TensorCopy", "inputs": ["x"], "outputs": ["z"]}]}},
              cc("AllReduce", ["z"], ["y"], reduce_op="add")])


def start_and_stop(d, tag, np_, stop, timeout=5, trips=400000):
    """mpirun with np_ processes of a run that computes for a while, then
    waits in an AllReduce; process `stop` is SIGSTOPped once the run has
    started (rank 0's first --progress line: every process is past MPI_Init
    and the program check). Returns (exit status, stderr, seconds from the
    stop to the job's end)."""
    import signal
    import threading
    import time
    prog = os.path.join(d, f"{tag}.json")
    with open(prog, "w") as f:
        json.dump(long_then_allreduce(np_, trips), f)
    cfg = os.path.join(d, f"{tag}.cfg")
    with open(cfg, "w") as f:
        f.write(config("trnsim-collective-mpi", {"mpi_timeout": float(timeout)}))
    out = os.path.join(d, f"{tag}_y.npy")
    cmd = [MPIEXEC, "--allow-run-as-root", "--oversubscribe", "-np", str(np_), TRNSIM, "run", prog, "--config", cfg,
           "--output", f"y={out}", "--progress"]
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env,
                         stdin=subprocess.DEVNULL)
    err, started = [], threading.Event()

    def read():
        for ln in p.stderr:
            err.append(ln)
            if "progress:" in ln:
                started.set()
    reader = threading.Thread(target=read)
    reader.start()
    if not started.wait(60):
        p.kill()
        reader.join()
        raise Fail(f"{tag}: the run never started:\n{''.join(err)}")
    pids = rank_pids(prog)
    if stop not in pids:
        p.kill()
        reader.join()
        raise Fail(f"{tag}: process {stop} not found ({pids})")
    os.kill(pids[stop], signal.SIGSTOP)
    stopped = time.time()
    try:
        p.wait(timeout=timeout + 40)
    except subprocess.TimeoutExpired:
        os.kill(pids[stop], signal.SIGKILL)
        p.kill()
        reader.join()
        raise Fail(f"{tag}: the job was still running {timeout + 40} s after process {stop} stopped")
    took = time.time() - stopped
    reader.join()
    if os.path.exists(out):
        raise Fail(f"{tag}: a failed run wrote {out}")
    return p.returncode, "".join(err), took


@case
def silent_process():
    """One process SIGSTOPped (a hung node, a debugger) with mpi_timeout = 5:
    every process that still answers prints one line naming the silent one
    and the timeout set, and the job ends non-zero within mpi_timeout + 10 s
    of the stop (before: "within 15 s", then a spin in MPI_Win_free for
    ever)."""
    for np_, stop in ((2, 1), (4, 2), (4, 0)):
        with tempfile.TemporaryDirectory(prefix="mpi-") as d:
            tag = f"stop{stop}of{np_}"
            rc, err, took = start_and_stop(d, tag, np_, stop)
            mine = [ln for ln in err.splitlines() if ln.startswith("trnsim:")]
            if rc == 0:
                raise Fail(f"{tag}: exit 0")
            if took > 5 + 10:
                raise Fail(f"{tag}: the job ended {took:.1f} s after the stop (bound: mpi_timeout + 10 s)")
            want = {f"trnsim: MPI process {r}: no answer from MPI process {stop} within 5 s "
                    "(collective.mpi_timeout); the job ends without it" for r in range(np_) if r != stop}
            if len(mine) != np_ - 1 or set(mine) != want:
                raise Fail(f"{tag}: expected one line from each answering process:\n" + "\n".join(sorted(want)) +
                           "\ngot:\n" + err)
            left = [f for f in os.listdir(d) if ".trnsim-" in f]
            if left:
                raise Fail(f"{tag}: left {left}")
            print(f"  {tag}: ended {took:.1f} s after the stop, exit {rc}, {len(mine)} lines")


@case
def never_joins():
    """A process of the job that never starts MPI (here `sleep`): the
    trnsim process says so after mpi_timeout (5 s) and the job ends, within
    mpi_timeout + 10 s (before: MPI_Init for ever)."""
    import time
    prog = long_then_allreduce(2, 10)
    for np_ in (2, 4):
        with tempfile.TemporaryDirectory(prefix="mpi-") as d:
            pf, cf = os.path.join(d, "p.json"), os.path.join(d, "mpi.cfg")
            with open(pf, "w") as f:
                json.dump(prog, f)
            with open(cf, "w") as f:
                f.write(config("trnsim-collective-mpi", {"mpi_timeout": 5.0}))
            cmd = [MPIEXEC, "--allow-run-as-root", "--oversubscribe", "-np", str(np_ - 1), TRNSIM, "run", pf,
                   "--config", cf, "--output", f"y={d}/y.npy", ":", "-np", "1", "sleep", "100"]
            t0 = time.time()
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
                               env=dict(os.environ, ASAN_OPTIONS="detect_leaks=0"))
            took = time.time() - t0
            mine = [ln for ln in r.stderr.splitlines() if ln.startswith("trnsim:")]
            if r.returncode == 0 or took > 15 or not mine:
                raise Fail(f"never_joins {np_}: exit {r.returncode} after {took:.1f} s:\n{r.stderr}")
            for ln in mine:
                if "MPI did not start within 5 s (collective.mpi_timeout): a process of the job never joined" \
                        not in ln:
                    raise Fail(f"never_joins {np_}: {ln}")
            if os.listdir(d) != ["p.json", "mpi.cfg"] and sorted(os.listdir(d)) != ["mpi.cfg", "p.json"]:
                raise Fail(f"never_joins {np_}: left {os.listdir(d)}")
            print(f"  {np_} processes, one never joins: ended after {took:.1f} s: {mine[0]}")


@case
def launched_without_mpi_config():
    """A process started by mpirun whose config has no MPI transport refuses
    with one line naming --config config/mpi.cfg (before: it ran the whole
    program alone, exit 0, while the others waited in MPI_Init); when every
    process lacks it, none runs the program and no file is written."""
    prog = P(2, [T("x", (1, 4), fill=1), T("y", (1, 4))], [cc("AllReduce", ["x"], ["y"], reduce_op="add")])
    mpi, plain = config("trnsim-collective-mpi", {"mpi_timeout": 30}), config("trnsim-collective", {})
    want = ["MPI process 1: started by mpirun", "the config has no MPI transport", "--config config/mpi.cfg"]
    with tempfile.TemporaryDirectory(prefix="mpi-") as d:
        run(d, "one_plain", prog, {}, ["y"], {}, np_=2, rank_configs=[mpi, plain], expect_error=want,
            extra=["--trace", os.path.join(d, "t.jsonl")])
        if os.path.exists(os.path.join(d, "t.jsonl")):
            raise Fail("one_plain: a trace was written")
    for np_ in (2, 4):
        with tempfile.TemporaryDirectory(prefix="mpi-") as d:
            pf, cf, t = os.path.join(d, "p.json"), os.path.join(d, "plain.cfg"), os.path.join(d, "t.jsonl")
            with open(pf, "w") as f:
                json.dump(P(np_, prog["tensors"], prog["instructions"]), f)
            with open(cf, "w") as f:
                f.write(plain)
            r = subprocess.run([MPIEXEC, "--allow-run-as-root", "--oversubscribe", "-np", str(np_), TRNSIM, "run",
                                pf, "--config", cf, "--trace", t, "--output", f"y={d}/y.npy"], capture_output=True,
                               text=True, timeout=120, stdin=subprocess.DEVNULL,
                               env=dict(os.environ, ASAN_OPTIONS="detect_leaks=0"))
            mine = [ln for ln in r.stderr.splitlines() if ln.startswith("trnsim:")]
            if r.returncode == 0 or not mine or any("--config config/mpi.cfg" not in ln for ln in mine):
                raise Fail(f"all_plain {np_}: exit {r.returncode}:\n{r.stderr}")
            if sorted(os.listdir(d)) != ["p.json", "plain.cfg"]:
                raise Fail(f"all_plain {np_}: left {os.listdir(d)}")
            print(f"  {np_} processes without the MPI config: refused ({len(mine)} line(s)), nothing written")


def mpmd(d, tag, prog, per_rank_args, cfg_settings=None):
    """One program, one command line per process (MPMD)."""
    pf, cf = os.path.join(d, f"{tag}.json"), os.path.join(d, f"{tag}.cfg")
    with open(pf, "w") as f:
        json.dump(prog, f)
    with open(cf, "w") as f:
        f.write(config("trnsim-collective-mpi", cfg_settings or {"mpi_timeout": 30}))
    cmd = [MPIEXEC, "--allow-run-as-root", "--oversubscribe"]
    for i, extra in enumerate(per_rank_args):
        cmd += ["-np", "1", TRNSIM, "run", pf, "--config", cf] + list(extra) + ([":"] if i + 1 < len(per_rank_args)
                                                                                 else [])
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
                          env=dict(os.environ, ASAN_OPTIONS="detect_leaks=0"))


@case
def processes_agree_on_the_run():
    """Outputs gather by name and core, whatever the order of the --output
    options on each process (before: core 1's y landed in z's file); another
    --output list, other artefact options or other --input contents on one
    process is one error naming that process once (before: "MPI process 0:
    MPI process 3 ..."), and nothing is written."""
    for np_ in (2, 4):
        prog = P(np_, [T("x", (1, 4)), T("w", (1, 4)), T("y", (1, 4)), T("z", (1, 4))],
                 [{"opcode": "TensorCopy", "inputs": ["x"], "outputs": ["y"]},
                  {"opcode": "TensorCopy", "inputs": ["w"], "outputs": ["z"]}])
        with tempfile.TemporaryDirectory(prefix="mpi-") as d:
            x = np.arange(np_ * 4, dtype=np.float32).reshape(np_, 1, 4)
            w = -x - 100
            xp, wp, x2 = (os.path.join(d, n) for n in ("x.npy", "w.npy", "x2.npy"))
            np.save(xp, x)
            np.save(wp, w)
            np.save(x2, x + 1)
            last = np_ - 1
            ins = ["--input", f"x={xp}", "--input", f"w={wp}"]
            outs = [["--output", f"y@{last}={d}/y.npy"], ["--output", f"z@{last}={d}/z.npy"]]
            order = [ins + outs[0] + outs[1]] + [ins + outs[1] + outs[0]] * (np_ - 1)
            r = mpmd(d, "reorder", prog, order)
            if r.returncode != 0:
                raise Fail(f"reorder {np_}: exit {r.returncode}:\n{r.stderr}")
            same_bits(f"reorder {np_} y", f"{d}/y.npy", x[last])
            same_bits(f"reorder {np_} z", f"{d}/z.npy", w[last])
            os.unlink(f"{d}/y.npy")
            os.unlink(f"{d}/z.npy")
            bad = (("outputs", ins + outs[0], "another --output list than process 0 (1 output against 2"),
                   ("artefacts", ins + outs[0] + outs[1] + ["--raw-bits"],
                    "other artefact options than process 0"),
                   ("inputs", ["--input", f"x={x2}", "--input", f"w={wp}"] + outs[0] + outs[1],
                    f"MPI process {last}'s --input x={x2} differs from process 0's --input x={xp}: the whole "
                    "files' XXH64 digests are "),
                   ("input names", ["--input", f"x@0={xp}", "--input", f"w={wp}"] + outs[0] + outs[1],
                    "reads other --input files than process 0 (2 inputs against 2, or other names or cores)"))
            for tag, other, want in bad:
                r = mpmd(d, tag, prog, [ins + outs[0] + outs[1]] * (np_ - 1) + [other])
                mine = [ln for ln in r.stderr.splitlines() if ln.startswith("trnsim:")]
                if r.returncode == 0 or len(mine) != 1 or want not in mine[0]:
                    raise Fail(f"{tag} {np_}: expected one line naming process {last} and {want!r}:\n{r.stderr}")
                if not (mine[0].startswith(f"trnsim: MPI process {last} ") or
                        mine[0].startswith(f"trnsim: MPI process {last}'s ")) or mine[0].count("MPI process") != 1:
                    raise Fail(f"{tag} {np_}: one prefix, the process the difference is about:\n{mine[0]}")
                left = [f for f in os.listdir(d) if f.endswith(".npy") and f not in ("x.npy", "w.npy", "x2.npy")]
                if left:
                    raise Fail(f"{tag} {np_}: left {left}")
                print(f"  {np_} processes, {tag}: {mine[0]}")
            print(f"  {np_} processes: reordered --output options, y and z hold core {last}'s data")


@case
def unwritten_output():
    """An --output whose last core's bytes nothing wrote: the process that
    holds that core finds it, and rank 0 prints one line naming the
    process (once), the output, the core and the first never-written
    element; nothing is written (before: zeros, exit 0). With
    --output-unwritten=zeros that core's slice is zeros."""
    for np_ in (2, 4):
        last = np_ - 1
        prog = P(np_, [T("y", (2, 3))], [])
        ys = {f"y@{c}": np.full((2, 3), c + 1, np.float32) for c in range(last)}
        with tempfile.TemporaryDirectory(prefix="mpi-") as d:
            _, r = run(d, f"unwritten{np_}", prog, ys, ["y"], {"mpi_timeout": 30}, np_=np_,
                       expect_error=[f"trnsim: MPI process {last}: --output y=", f"tensor 'y' on core {last}: "
                                     "element 0 [0, 0] (sbuf partition 0, byte offset 0) was never written",
                                     "--output-unwritten=zeros"])
            line = [ln for ln in r.stderr.splitlines() if ln.startswith("trnsim:")][0]
            if line.count("MPI process") != 1:
                raise Fail(f"unwritten {np_}: the process is named more than once: {line}")
            outs, _ = run(d, f"zeros{np_}", prog, ys, ["y"], {"mpi_timeout": 30}, np_=np_,
                          extra=["--output-unwritten=zeros"])
            want = np.stack([ys[f"y@{c}"] for c in range(last)] + [np.zeros((2, 3), np.float32)])
            same_bits(f"{np_} processes, zeros", outs["y"], want)


@case
def inputs_agree_whole():
    """Each process digests every --input file whole: two files that differ
    only in the middle (one element of core 1's slice, far from both ends)
    are one error naming the process and both files (before: the size and
    the first and last 64 KiB were compared, and each process ran on its own
    file, exit 0); a file one process cannot read while process 0 reads it
    is one error saying so. Nothing is written."""
    prog = P(2, [T("x", (128, 2048)), T("y", (128, 2048))],
             [{"opcode": "TensorCopy", "inputs": ["x"], "outputs": ["y"]}])
    with tempfile.TemporaryDirectory(prefix="mpi-") as d:
        a = np.arange(2 * 128 * 2048, dtype=np.float32).reshape(2, 128, 2048)
        b = a.copy()
        b[0, 64, 1000] += 1  # byte ~1 MiB of 2 MiB: outside the first and last 64 KiB
        ap_, bp = os.path.join(d, "a.npy"), os.path.join(d, "b.npy")
        np.save(ap_, a)
        np.save(bp, b)
        y = os.path.join(d, "y.npy")
        for tag, second, want in (
                ("middle", bp, f"trnsim: MPI process 1's --input x={bp} differs from process 0's --input x={ap_}: "
                               "the whole files' XXH64 digests are "),
                ("unreadable", os.path.join(d, "none.npy"),
                 f"trnsim: MPI process 1 cannot read --input x={d}/none.npy (No such file or directory), which "
                 f"process 0 reads (--input x={ap_}); every process reads each --input file whole")):
            r = mpmd(d, tag, prog, [["--input", f"x={ap_}", "--output", f"y={y}"],
                                    ["--input", f"x={second}", "--output", f"y={y}"]])
            mine = [ln for ln in r.stderr.splitlines() if ln.startswith("trnsim:")]
            if r.returncode == 0 or len(mine) != 1 or not mine[0].startswith(want):
                raise Fail(f"{tag}: expected one line starting {want!r}:\n{r.stderr}")
            if os.path.exists(y):
                raise Fail(f"{tag}: an output was written")
            print(f"  {tag}: {mine[0]}")


@case
def fifo_inputs():
    """Each process's --input a FIFO (docs/mpi.md: read once, by the load,
    not digested): the run reads each once and succeeds (before: the
    agreement opened each FIFO to look at it, which took the writer's one
    rendezvous, and the load's own open then waited for a writer for ever;
    rank 0 hung, 2 of 2 tries)."""
    import threading
    prog = P(2, [T("x", (1, 4)), T("y", (1, 4))], [{"opcode": "TensorCopy", "inputs": ["x"], "outputs": ["y"]}])
    with tempfile.TemporaryDirectory(prefix="mpi-") as d:
        x = np.arange(8, dtype=np.float32).reshape(2, 1, 4)
        xp = os.path.join(d, "x.npy")
        np.save(xp, x)
        with open(xp, "rb") as f:
            data = f.read()
        fifos = [os.path.join(d, f"x{r}.fifo") for r in range(2)]

        def feed(path):
            try:
                with open(path, "wb") as w:
                    w.write(data)
            except OSError:
                pass
        threads = []
        for fp in fifos:
            os.mkfifo(fp)
            threads.append(threading.Thread(target=feed, args=(fp,), daemon=True))
            threads[-1].start()
        y = os.path.join(d, "y.npy")
        try:
            r = mpmd(d, "fifo", prog, [["--input", f"x={fp}", "--output", f"y={y}"] for fp in fifos],
                     {"mpi_timeout": 10})
        except subprocess.TimeoutExpired:
            r = None
        finally:
            for fp in fifos:  # a reader still waiting in open: let it go
                try:
                    os.close(os.open(fp, os.O_WRONLY | os.O_NONBLOCK))
                except OSError:
                    pass
            for t in threads:
                t.join(5)
        if r is None or r.returncode != 0:
            raise Fail("FIFO inputs: " + ("timed out" if r is None else f"exit {r.returncode}:\n{r.stderr}"))
        same_bits("FIFO inputs y", y, x)


@case
def traces_survive_any_failure():
    """Whichever processes fail (all of them at the same instruction, only
    process 0, only the last), the merged trace and timeline are kept, as
    one process keeps its own: the error records of the failing cores, an
    end record saying error, the timeline complete JSON (before: when every
    process failed, neither file was written, 3 of 3 tries). Each case
    runs three times."""
    for np_, failing in [(n, f) for n in (2, 4) for f in ("all", "first", "last")] * 3:
        owned = {"all": [], "first": list(range(1, np_)), "last": list(range(np_ - 1))}[failing]
        bad_cores = [c for c in range(np_) if c not in owned]
        prog = P(np_, [T("x", (1, 4)), T("z", (1, 4)), T("y", (1, 4))],
                 [{"opcode": "TensorCopy", "inputs": ["x"], "outputs": ["z"]},
                  cc("AllReduce", ["z"], ["y"], reduce_op="add")])
        with tempfile.TemporaryDirectory(prefix="mpi-") as d:
            parts = with_parts_dir(d)
            t, tl = os.path.join(d, "t.jsonl"), os.path.join(d, "t.json")
            x = {f"x@{c}": np.ones((1, 4), np.float32) for c in owned}
            run(d, f"{failing}{np_}", prog, x, ["y"], {"mpi_timeout": 30}, np_=np_,
                extra=["--trace", t, "--timeline", tl],
                expect_error=["never-written"])
            if not os.path.exists(t) or not os.path.exists(tl):
                raise Fail(f"{failing} of {np_}: trace kept {os.path.exists(t)}, timeline {os.path.exists(tl)}")
            recs = jsonl(t)
            errs = sorted(r["core"] for r in recs if r["type"] == "instruction" and r["status"] == "error")
            # a failing process may be told to stop by another's failure
            # before it reaches its own: at least one, only failing cores
            if recs[-1]["type"] != "end" or recs[-1]["status"] != "error" or not errs or \
                    not set(errs) <= set(bad_cores):
                raise Fail(f"{failing} of {np_}: end {recs[-1]}, error records on cores {errs}")
            with open(tl) as f:
                json.load(f)
            no_leftovers(f"{failing} of {np_}", d, parts)
            print(f"  {np_} processes, {failing} failing: trace (errors on cores {errs}) and timeline kept")


@case
def progress_from_rank_0():
    """--progress under MPI: one display, rank 0's, counting the whole job's
    cores (before: rank 0 counted only its own cores, labelled so; and
    before that, one line per process). Each process's stderr apart
    (--output-filename): the other processes print nothing; rank 0's last
    line is the job's total, cores x instructions per core, at 100%."""
    trips = 20000
    for np_ in (2, 4):
        cores = 2 * np_
        prog = long_then_allreduce(cores, trips)
        with tempfile.TemporaryDirectory(prefix="mpi-") as d:
            logs = os.path.join(d, "logs")
            run(d, "progress", prog, {}, ["y"], {"mpi_timeout": 30}, np_=np_, extra=["--progress"],
                mpi_args=["--output-filename", logs])
            per_rank = []
            for r in range(np_):
                with open(os.path.join(logs, "1", f"rank.{r}", "stderr")) as f:
                    per_rank.append([ln for ln in f.read().splitlines() if "progress:" in ln])
            lines, others = per_rank[0], sum(per_rank[1:], [])
            total = cores * (trips + 1)
            want = f"(MPI process 0's; the count is the job's, {np_} processes, {cores} cores)"
            if others:
                raise Fail(f"progress {np_}: other processes printed:\n" + "\n".join(others))
            if not lines or any(want not in ln for ln in lines) or \
                    not lines[-1].startswith(f"progress: {total}/{total} instructions (100.0%)") or \
                    not lines[-1].endswith("ETA 0 s (done)"):
                raise Fail(f"progress {np_}: expected rank 0's lines, the last {total}/{total}:\n" + "\n".join(lines))
            print(f"  {np_} processes: {len(lines)} line(s), rank 0's only: {lines[-1]}")


@case
def rank0_killed_leaves_nothing():
    """SIGKILL of MPI process 0 during a run with --trace, --timeline and
    --output: nothing is left beside the targets (before: two empty hidden
    .NAME.trnsim-XXXXXX files), the old files stay as they were."""
    import signal
    import threading
    import time
    for np_ in (2, 4):
        with tempfile.TemporaryDirectory(prefix="mpi-") as d:
            out = os.path.join(d, "out")
            os.mkdir(out)
            t, tl, y = (os.path.join(out, n) for n in ("t.jsonl", "t.json", "y.npy"))
            with open(t, "w") as f:
                f.write("OLD")
            prog = os.path.join(d, "p.json")
            with open(prog, "w") as f:
                json.dump(long_then_allreduce(np_, 3000000), f)
            cfg = os.path.join(d, "mpi.cfg")
            with open(cfg, "w") as f:
                f.write(config("trnsim-collective-mpi", {"mpi_timeout": 30}))
            p = subprocess.Popen([MPIEXEC, "--allow-run-as-root", "--oversubscribe", "-np", str(np_), TRNSIM, "run",
                                  prog, "--config", cfg, "--trace", t, "--timeline", tl, "--output", f"y={y}",
                                  "--progress"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                 stdin=subprocess.DEVNULL, env=dict(os.environ, ASAN_OPTIONS="detect_leaks=0"))
            started = threading.Event()

            def read():
                for ln in p.stderr:
                    if "progress:" in ln:
                        started.set()
            reader = threading.Thread(target=read)
            reader.start()
            if not started.wait(60):
                p.kill()
                reader.join()
                raise Fail(f"rank 0 killed, {np_}: the run never started")
            os.kill(rank_pids(prog)[0], signal.SIGKILL)
            try:
                p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                p.kill()
                raise Fail(f"rank 0 killed, {np_}: the job did not end")
            reader.join()
            time.sleep(0.2)
            if sorted(os.listdir(out)) != ["t.jsonl"]:
                raise Fail(f"rank 0 killed, {np_}: left {sorted(os.listdir(out))}")
            with open(t) as f:
                if f.read() != "OLD":
                    raise Fail(f"rank 0 killed, {np_}: the old trace changed")
            print(f"  {np_} processes, rank 0 killed: nothing left beside the targets, the old trace kept")


def main():
    global TRNSIM, MPIEXEC
    ap = argparse.ArgumentParser()
    ap.add_argument("--trnsim")
    ap.add_argument("--mpiexec", default="mpirun")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("cases", nargs="*")
    a = ap.parse_args()
    if a.list:
        print("\n".join(CASES))
        return 0
    TRNSIM, MPIEXEC = a.trnsim, a.mpiexec
    failed = 0
    for c in a.cases:
        print(c)
        try:
            CASES[c]()
        except Fail as e:
            print(f"FAIL {c}: {e}")
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
