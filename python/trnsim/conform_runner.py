"""trnsim conform's Python front end: run case folders through this package.

    python3 -m trnsim.conform_runner [--config FILE] [--set KEY=VALUE]... DIR...

For each DIR: read DIR/program.json (a native program, docs/programs.md) and
DIR/in/NAME.npy (one per input tensor, shaped [cores, *shape], or the
tensor's shape for the same data on every core), run the
program through the package's own front end, and write DIR/out/NAME.npy for
every tensor of the program, shaped [cores, *shape]; or, when the package
refuses the program or a run fails, DIR/error.txt with the package's error
message (one line) and no out/ files. Then the next DIR. The exit status is 0
unless the runner itself failed (bad arguments, an unreadable folder, a
program it cannot take: 2, after one line on standard error naming the DIR).
A DIR run again loses its earlier out/ and error.txt first.
DIR/config.cfg, when present, is the config of that case (else --config,
else the embedded default); --set overrides apply to every case.
--verbose prints, and the environment variable TRNSIM_CONFORM_RUNNER_LOG
names a file that gets, one line per case with the path each instruction
took (conform starts the runner itself, so the variable is how to see it).

Output dtypes are the package's value dtype of the tensor's dtype (float32,
float16, the integer types) except for bfloat16 and the fp8 formats, which
are written as their raw-bit views (<u2, |u1, as `trnsim run --raw-bits`
writes them), and the packed x4 formats, written as their raw words. Inputs
in in/ may be those raw views, or values that the package rounds RNE.

Which path an instruction takes (docs/python.md, "The conform runner"):

- **trnsim.isa functions**, so that the package's NKI-level translation is
  what is tested, when the instruction's operands are whole, plainly placed
  tensors in the layout the function builds:
  Max -> isa.max8; MaxIndex -> isa.nc_find_index8; MatchReplace ->
  isa.nc_match_replace8; MaxIndexAndMatchReplace ->
  isa.nc_match_replace8(dst_idx=True); BNStats -> isa.bn_stats;
  BNStatsAggregate -> isa.bn_aggr; BNGradients -> isa.bn_gradients;
  BNBackprop / BNBackprop2 -> isa.bn_backprop / isa.bn_backprop2;
  DMACopy mode 0 (whole tensors in any memory, plain or accumulate) ->
  isa.dma_copy, mode 0 indirect gather (HBM) -> isa.dma_gather, mode 1 (HBM)
  -> isa.dma_transpose, mode 2 (any memory) -> isa.dma_compute, mode 3 (HBM
  to SBUF) -> isa.dma_replicate; CollectiveCompute kinds AllReduce,
  AllGather, AllToAll, Permute, PermuteImplicit (any memory, the output in
  the input's dtype) ->
  isa.all_reduce / all_gather / all_to_all / collective_permute /
  collective_permute_implicit; on one core, SetRandState(2) from a state
  tensor -> isa.set_rand_state, SetRandState2 with a seed ->
  isa.set_rng_seed, GetRandState(2) -> isa.get_rand_state, Rand ->
  isa.rand, Rand2 -> isa.rand2 (the isa device state carries the
  generator state between them, as the engine's does).
- **trnsim.Program** (the generic builder, p.tensor / p.add / p.loop,
  loaded in memory through trnsim_program_*) for everything else: the
  other opcodes (TensorCopy, Load, Save, AbstractCopy, GenericCopy,
  TensorLoad, TensorSave, DMATrigger and the descriptors, DMABlock,
  CollectiveSend / Recv, ReduceScatter and the other collective kinds,
  GetGlobalRankId, experimental Rng and NonzeroWithCount), any instruction
  whose operands are slices, views or offsets, and any attribute the isa
  function cannot say. Consecutive such instructions run as one program.

A whole program goes through trnsim.Program when carrying tensor contents
between the two paths could change its meaning: a program with loops,
registers, views or explicitly placed tensors, or one where a stateful instruction (RNG,
experimental, DMA queues and descriptors, CollectiveSend / Recv) goes the
generic path while another goes the isa path. Between the steps of a mixed
program the runner carries every tensor's contents; a tensor any step wrote
counts as written whole (a later read of its unwritten part is not refused
as the CLI refuses it).
"""
import argparse
import json
import math
import os
import shutil
import sys

import numpy as np

from . import dtypes, errors, isa
from ._lib import lib
from .program import Program
from .simulator import Simulator

IT_NAMES = {32: "DMACopy", 34: "BNStats", 35: "BNStatsAggregate", 36: "BNGradients",
            37: "BNBackprop",
            38: "BNBackprop2", 48: "CollectiveCompute", 58: "GetRandState", 59: "SetRandState",
            60: "Rand", 88: "Max", 89: "MaxIndex", 90: "MatchReplace",
            91: "MaxIndexAndMatchReplace", 97: "Rand2", 98: "GetRandState2", 99: "SetRandState2",
            100: "Rng", 104: "NonzeroWithCount"}
RNG_OPS = ("GetRandState", "SetRandState", "Rand", "Rand2", "GetRandState2", "SetRandState2")
STATEFUL_OPS = RNG_OPS + ("Rng", "NonzeroWithCount", "DMATrigger", "DMADescriptor",
                          "DMADescriptorCopy", "DMADescriptorCCE", "DMADescriptorTranspose",
                          "DMADescriptorReplicate", "DMABlock",
                          "CollectiveSend", "CollectiveRecv")
_PLAIN_KEYS = ("opcode", "inputs", "outputs", "comment")
_KINDS = {"AllReduce": 2, "ReduceScatter": 3, "AllGather": 4, "AllToAll": 5, "Permute": 7,
          "PermuteImplicit": 9}
_REDOPS = {"bypass": 0, "add": 4, "max": 8, "min": 9}
_MODES = {"copy": 0, "transpose": 1, "cce": 2, "replicate": 3}


class NotIsa(Exception):
    """The instruction has no isa form here; it goes through trnsim.Program."""


def opcode_name(inst):
    op = inst.get("opcode")
    return IT_NAMES.get(op, str(op)) if isinstance(op, int) else str(op)


def _enum(value, names):
    if isinstance(value, str):
        key = value if value in names else value.lower()
        if key not in names:
            raise NotIsa()
        return names[key]
    return int(value)


def _float(v):
    return float(v)  # "nan", "inf", "-inf" read as Python reads them


class Case:
    """One program, its tensors' contents per core as raw storage arrays."""

    def __init__(self, program, config, settings, name="<program>"):
        self.program, self.config, self.settings, self.name = program, config, settings, name
        self.cores = int(program.get("cores", 1))
        self.decls = {t["name"]: t for t in program.get("tensors", [])}
        self.state = {}
        self.written = {}
        self.step = None

    # ---- the generic builder ----
    def build(self, instructions, with_init):
        p = Program(cores=self.cores, allow_uninit_read=bool(self.program.get("allow_uninit_read")),
                    name=self.name)
        for t in self.program.get("tensors", []):
            init = {k: v for k, v in t.items() if k not in ("name", "shape", "dtype", "memory")}
            if not with_init:
                init = {k: v for k, v in init.items() if k not in ("fill", "data", "data_per_core")}
            p.tensor(t["name"], t["shape"], t["dtype"], t.get("memory", "sbuf"), **init)
        _add_all(p, instructions)
        return p

    def simulator(self):
        return Simulator(self.config, **self.settings)

    def load_all(self, inputs):
        """Check the whole program as the package loads it; take every tensor's
        initial contents (fill / data) and the inputs."""
        sim = self.simulator()
        sim.load(self.build(self.program.get("instructions", []), True))
        for info in sim.tensors():
            st = dtypes.storage(info.dtype)
            raw = np.zeros((self.cores,) + info.shape, st)
            flags = []
            for c in range(self.cores):
                where = (sim._h, info._cname, c, raw[c].ctypes.data, raw[c].nbytes)
                ok = lib.trnsim_get_written_tensor(*where) == 0
                if not ok:
                    lib.trnsim_get_tensor(*where)
                flags.append(ok)
            self.state[info.name] = raw
            self.written[info.name] = all(flags)
        for name, arr in inputs.items():
            if name not in self.state:
                raise errors.InputError("in/%s.npy: the program has no tensor '%s' (tensors: %s)" %
                                        (name, name, ", ".join(self.state)))
            self.state[name] = _as_storage(arr, self.decls[name]["dtype"],
                                           self.state[name].shape, name)
            self.written[name] = True
        return sim

    def run_generic(self, instructions, sim=None):
        """Run instructions as one trnsim.Program from the carried contents."""
        if sim is None:
            sim = self.simulator()
            sim.load(self.build(instructions, False))
        for name, raw in self.state.items():
            if self.written[name]:
                dt = self.decls[name]["dtype"]
                for c in range(self.cores):
                    sim.set(name, dtypes.RawBits(raw[c], dt), c)
        if lib.trnsim_run(sim._h):
            from ._lib import last_error
            raise last_error(errors.RunError)
        outs = _outputs_of(instructions)
        for info in sim.tensors():
            raw = self.state[info.name]
            for c in range(self.cores):
                lib.trnsim_get_tensor(sim._h, info._cname, c, raw[c].ctypes.data, raw[c].nbytes)
            if info.name in outs:
                self.written[info.name] = True
        sim.close()

    # ---- isa steps ----
    def arg(self, op, core=0):
        """The current contents of a whole-tensor operand, as RawBits."""
        name = _whole(op)
        if not self.written[name]:
            raise errors.RunError("instruction reads tensor '%s', which nothing wrote (give it an "
                                  "input, "
                                  "data or fill)" % name)
        return dtypes.RawBits(self.state[name][core].copy(), self.decls[name]["dtype"])

    def put(self, op, value, core=0):
        name = _whole(op)
        dt = self.decls[name]["dtype"]
        if isinstance(value, dtypes.RawBits):
            raw = value.view(np.ndarray)
        else:
            raw = dtypes.to_tensor_bytes(value, dt)
        target = self.state[name][core]
        if raw.size != target.size:
            raise errors.RunError("conform_runner: %s gave %d elements for tensor '%s' of %d" %
                                  (self.step, raw.size, name, target.size))
        target[...] = np.ascontiguousarray(raw).view(target.dtype).reshape(target.shape)
        self.written[name] = True

    def decl(self, op):
        return self.decls[_whole(op)]


def _add_all(p, instructions):
    for inst in instructions:
        if isinstance(inst, dict) and "loop" in inst:
            loop = dict(inst["loop"])
            body = loop.pop("body", [])
            trips = loop.pop("trips")
            with p.loop(trips, **loop):
                _add_all(p, body)
            continue
        attrs = {k: v for k, v in inst.items() if k not in ("opcode", "inputs", "outputs")}
        p.add(inst["opcode"], inst.get("inputs", []), inst.get("outputs", []), **attrs)


def _outputs_of(instructions):
    names = set()
    for inst in instructions:
        if "loop" in inst:
            names |= _outputs_of(inst["loop"].get("body", []))
        for op in inst.get("outputs", []) or []:
            names.add(op if isinstance(op, str) else op.get("tensor"))
    return names


def _whole(op):
    if isinstance(op, str):
        return op
    if isinstance(op, dict) and set(op) == {"tensor"}:
        return op["tensor"]
    raise NotIsa()


def _as_storage(arr, dt, shape, name):
    st = dtypes.storage(dt)
    if arr.shape == shape[1:]:  # one array for every core
        arr = np.broadcast_to(arr, shape)
    if arr.shape != shape:
        raise errors.InputError("in/%s.npy: shape %s, expected [cores, *shape] = %s" %
                                (name, list(arr.shape), list(shape)))
    if arr.dtype == st:
        return np.ascontiguousarray(arr)
    try:
        return dtypes.to_tensor_bytes(arr, dt).reshape(shape)
    except errors.InputError as exc:
        raise errors.InputError("in/%s.npy: %s" % (name, exc.message)) from None


# ---- one function per isa-path opcode: run it on `case` or raise NotIsa ----

def _attrs(inst, allowed):
    extra = set(inst) - set(_PLAIN_KEYS) - set(allowed)
    if extra:
        raise NotIsa()
    return inst


def _ops(inst, n_in, n_out):
    ins, outs = inst.get("inputs", []), inst.get("outputs", [])
    if len(ins) != n_in or len(outs) != n_out:
        raise NotIsa()
    for op in ins + outs:
        _whole(op)
    return ins, outs


def _need(cond):
    if not cond:
        raise NotIsa()


def _sbuf_rows(case, op, cols=None):
    t = case.decl(op)
    _need(t.get("memory", "sbuf") == "sbuf" and len(t["shape"]) >= 1)
    if cols is not None:
        _need(list(t["shape"]) == [t["shape"][0], cols] or (cols == 1 and len(t["shape"]) == 1))
    return t


def _per_core(case, fn):
    for c in range(case.cores):
        fn(c)


def isa_max(case, inst):
    _attrs(inst, ())
    (x,), (v,) = _ops(inst, 1, 1)
    tx = _sbuf_rows(case, x)
    tv = _sbuf_rows(case, v, 8)
    _need(tv["shape"][0] == tx["shape"][0] and len(tx["shape"]) >= 2)
    _per_core(case, lambda c: case.put(v, isa.max8(case.arg(x, c), dtype=tv["dtype"]), c))


def isa_find_index(case, inst):
    _attrs(inst, ())
    (vals, x), (idx,) = _ops(inst, 2, 1)
    p = _sbuf_rows(case, x)["shape"][0]
    _need(_sbuf_rows(case, vals, 8)["shape"][0] == p and _sbuf_rows(case, idx, 8)["shape"][0] == p)
    _need(case.decl(idx)["dtype"] == "uint32")
    _per_core(case, lambda c: case.put(idx, isa.nc_find_index8(case.arg(x, c), case.arg(vals, c)),
                                       c))


def isa_match_replace(case, inst, with_idx):
    _attrs(inst, ("imm_value",))
    _need("imm_value" in inst)
    (vals, x), outs = _ops(inst, 2, 2 if with_idx else 1)
    tx = _sbuf_rows(case, x)
    p = tx["shape"][0]
    ty = case.decl(outs[0])
    _need(ty["dtype"] == tx["dtype"] and list(ty["shape"]) == list(tx["shape"]))
    _need(_sbuf_rows(case, vals, 8)["shape"][0] == p)
    if with_idx:
        _need(_sbuf_rows(case, outs[1], 8)["shape"][0] == p and
              case.decl(outs[1])["dtype"] == "uint32")
    imm = _float(inst["imm_value"])

    def one(c):
        if with_idx:
            y, idx = isa.nc_match_replace8(case.arg(x, c), case.arg(vals, c), imm, dst_idx=True)
            case.put(outs[0], y, c)
            case.put(outs[1], idx, c)
        else:
            case.put(outs[0], isa.nc_match_replace8(case.arg(x, c), case.arg(vals, c), imm), c)
    _per_core(case, one)


def isa_bn_stats(case, inst):
    _attrs(inst, ("apply_transpose",))
    (x,), (st,) = _ops(inst, 1, 1)
    _sbuf_rows(case, x)
    _need(_sbuf_rows(case, st, 6)["dtype"] == "float32")
    at = bool(inst.get("apply_transpose", False))
    _per_core(case, lambda c: case.put(st, isa.bn_stats(case.arg(x, c), apply_transpose=at), c))


def isa_bn_aggr(case, inst):
    _attrs(inst, ())
    (st,), (mv,) = _ops(inst, 1, 1)
    _sbuf_rows(case, st)
    _need(_sbuf_rows(case, mv, 2)["dtype"] == "float32")
    _per_core(case, lambda c: case.put(mv, isa.bn_aggr(case.arg(st, c)), c))


def isa_bn_gradients(case, inst):
    _attrs(inst, ())
    ins, (g,) = _ops(inst, 4, 1)
    for op in ins:
        _sbuf_rows(case, op)
    _need(_sbuf_rows(case, g, 3)["dtype"] == "float32")
    _per_core(case, lambda c: case.put(g, isa.bn_gradients(*[case.arg(op, c) for op in ins]), c))


def isa_bn_backprop(case, inst, split):
    _attrs(inst, ("total_elements",))
    _need("total_elements" in inst)
    ins, (dx,) = _ops(inst, 5 if split else 4, 1)
    for op in ins:
        _sbuf_rows(case, op)
    tdx = _sbuf_rows(case, dx)
    _need(list(tdx["shape"]) == list(case.decl(ins[0])["shape"]))
    te = _float(inst["total_elements"])
    fn = isa.bn_backprop2 if split else isa.bn_backprop
    # bn_backprop returns values, never raw bits: a bfloat16 / fp8 dx would
    # lose its NaN bits on the way back, so take the fp32 result and let
    # put() narrow it with the package's (the host's) RNE, as the write does
    odt = "float32" if tdx["dtype"] == "bfloat16" or tdx["dtype"].startswith("float8") \
        else tdx["dtype"]
    _per_core(case, lambda c: case.put(dx, fn(*[case.arg(op, c) for op in ins], te, dtype=odt),
                                       c))


def _any_memory(case, op):
    """A whole tensor in any memory: the isa function builds HBM tensors, and
    a dense copy, fold or collective of whole tensors gives the same
    elements in visiting order wherever they live."""
    return case.decl(op)


def _hbm(case, op):
    t = case.decl(op)
    _need(t.get("memory") == "hbm")
    return t


def isa_dma_copy(case, inst):
    mode = _enum(inst.get("mode", 0), _MODES)
    if mode == 0 and "indirect" in inst:
        return _dma_gather(case, inst)
    if mode == 0:
        _attrs(inst, ("mode", "accumulate"))
        (s,), (d,) = _ops(inst, 1, 1)
        ts = _any_memory(case, s)
        td = _any_memory(case, d)
        _need(math.prod(ts["shape"]) == math.prod(td["shape"]))
        acc = bool(inst.get("accumulate", False))
        _per_core(case, lambda c: case.put(d, isa.dma_copy(case.arg(s, c), dtype=td["dtype"],
                                                            dst=case.arg(d, c) if acc else None,
                                                            dst_rmw_op="add" if acc else None), c))
    elif mode == 1:
        _dma_transpose(case, inst)
    elif mode == 2:
        _attrs(inst, ("mode", "reduce_op"))
        ins, (d,) = _ops(inst, len(inst.get("inputs", [])), 1)
        for op in ins:
            _any_memory(case, op)
        td = _any_memory(case, d)
        _need(list(td["shape"]) == list(case.decl(ins[0])["shape"]))
        names = {4: "add", 8: "max", 9: "min"}
        op = names.get(_enum(inst.get("reduce_op", -1), _REDOPS))
        _need(op is not None)
        _per_core(case, lambda c: case.put(d, isa.dma_compute([case.arg(o, c) for o in ins], op,
                                                               dtype=td["dtype"]), c))
    elif mode == 3:
        _attrs(inst, ("mode",))
        (s,), (d,) = _ops(inst, 1, 1)
        ts = _hbm(case, s)
        td = _sbuf_rows(case, d)
        _need(td["dtype"] == ts["dtype"] and len(td["shape"]) == 2 and
              td["shape"][1] == math.prod(ts["shape"]))
        _per_core(case, lambda c: case.put(d, isa.dma_replicate(case.arg(s, c), td["shape"][0]), c))
    else:
        raise NotIsa()


def _dma_transpose(case, inst):
    _attrs(inst, ("mode", "shape", "perm"))
    (s,), (d,) = _ops(inst, 1, 1)
    ts, td = _hbm(case, s), _hbm(case, d)
    _need(ts["dtype"] == td["dtype"] and "perm" in inst)
    shape = list(ts["shape"])
    nd, pad = len(shape), 4 - len(shape)
    _need(list(inst.get("shape", [1] * pad + shape)) == [1] * pad + shape)
    perm = [int(a) for a in inst["perm"]]
    _need(perm[:pad] == list(range(pad)) and sorted(perm[pad:]) == list(range(pad, 4)))
    axes = [a - pad for a in perm[pad:]]
    _need(list(td["shape"]) == [shape[a] for a in axes])

    def one(c):
        x = case.arg(s, c).reshape(shape)
        case.put(d, isa.dma_transpose(x, axes), c)
    _per_core(case, one)
    return nd


def _dma_gather(case, inst):
    _attrs(inst, ("mode", "indirect", "elems_per_index", "reduce_op", "accumulate"))
    _need(inst["indirect"] == "gather" and not inst.get("accumulate", False))
    (t, i), (d,) = _ops(inst, 2, 1)
    tt, ti, td = _hbm(case, t), _hbm(case, i), _hbm(case, d)
    row = int(inst.get("elems_per_index", 1))
    n_idx = math.prod(ti["shape"])
    _need(tt["dtype"] == td["dtype"] and math.prod(tt["shape"]) % row == 0 and
          math.prod(td["shape"]) == n_idx * row and
          ti["dtype"] in ("int32", "uint32", "int64", "uint64"))
    op = {0: None, 4: "add", 8: "max", 9: "min"}.get(_enum(inst.get("reduce_op", 0), _REDOPS), "?")
    _need(op != "?")

    def one(c):
        table = case.arg(t, c).reshape(-1, row)
        idx = case.arg(i, c).view(np.ndarray).reshape(-1)
        dst = case.arg(d, c).reshape(n_idx, row) if op else None
        case.put(d, isa.dma_gather(table, idx, dst=dst, dst_rmw_op=op), c)
    _per_core(case, one)


_COLLECTIVES = {2: "all_reduce", 4: "all_gather", 5: "all_to_all", 7: "collective_permute",
                9: "collective_permute_implicit"}


def isa_collective(case, inst):
    _attrs(inst, ("kind", "reduce_op", "replica_groups", "src_target_pairs"))
    kind = _enum(inst["kind"], _KINDS) if "kind" in inst else None
    _need(kind in _COLLECTIVES)
    (x,), (y,) = _ops(inst, 1, 1)
    _need(_any_memory(case, x)["dtype"] == _any_memory(case, y)["dtype"])  # the isa call's rule
    xs = [case.arg(x, c) for c in range(case.cores)]
    groups = inst.get("replica_groups")
    if groups is not None:  # the isa functions take NKI's rule only: every rank in one group
        flat = sorted(int(r) for g in groups for r in g)
        _need(flat == list(range(case.cores)) and len({len(g) for g in groups}) == 1)
    if kind in (2,):
        op = {4: "add", 8: "max", 9: "min"}.get(_enum(inst.get("reduce_op", 4), _REDOPS))
        _need(op is not None)
        outs = isa.all_reduce(xs, op=op, replica_groups=groups)
    elif kind == 7:
        _need("src_target_pairs" in inst and groups is None)
        _need(sorted(int(t) for _, t in inst["src_target_pairs"]) == list(range(case.cores)))
        outs = isa.collective_permute(xs, inst["src_target_pairs"])
    else:
        _need("reduce_op" not in inst and "src_target_pairs" not in inst)
        outs = getattr(isa, _COLLECTIVES[kind])(xs, replica_groups=groups)
    for c, o in enumerate(outs):
        case.put(y, o, c)


def _rng_state_op(case, inst, words, op_get):
    if op_get:
        _attrs(inst, ())
        _, (so,) = _ops(inst, 0, 1)
        t = _sbuf_rows(case, so, words)
        _need(t["dtype"] == "uint32")
        case.put(so, isa.get_rand_state(t["shape"][0], generation=1 if words == 6 else 2))
        return
    _attrs(inst, ("engine", "seed"))
    engine = int(inst.get("engine", 1 if words == 6 else 5))
    if "seed" in inst:
        _need(engine == 5 and not inst.get("inputs") and not isinstance(inst["seed"], list))
        seed = inst["seed"]
        isa.set_rng_seed(int(seed, 0) if isinstance(seed, str) else int(seed))
        return
    (si,), _ = _ops(inst, 1, 0)
    t = _sbuf_rows(case, si)
    _need(t["dtype"] == "uint32" and len(t["shape"]) == 2 and
          t["shape"][1] == (6 if engine == 1 else 24 if engine == 5 else -1))
    isa.set_rand_state(case.arg(si).view(np.ndarray))


def isa_rand(case, inst, gen2):
    (r,) = _ops(inst, 0, 1)[1]
    t = _sbuf_rows(case, r)
    if gen2:
        _attrs(inst, ("min", "max", "is_2x1p", "is_4x2p"))
        _need(t["dtype"] == "float32")
        lanes = 4 if inst.get("is_4x2p") else 2 if inst.get("is_2x1p") else 1
        vals, _ = isa.rand2(t["shape"], _float(inst.get("min", 0.0)), _float(inst.get("max", 1.0)),
                            lanes=lanes)
    else:
        _attrs(inst, ("algorithm",))
        _need(t["dtype"] == "uint32")
        alg = _enum(inst["algorithm"], {"lfsr": 0, "pcg32": 1, "philox": 2, "philox_1": 2})
        vals, _ = isa.rand(t["shape"], algorithm=alg)
    case.put(r, vals)


ISA_PATH = {
    "Max": isa_max,
    "MaxIndex": isa_find_index,
    "MatchReplace": lambda c, i: isa_match_replace(c, i, False),
    "MaxIndexAndMatchReplace": lambda c, i: isa_match_replace(c, i, True),
    "BNStats": isa_bn_stats,
    "BNStatsAggregate": isa_bn_aggr,
    "BNGradients": isa_bn_gradients,
    "BNBackprop": lambda c, i: isa_bn_backprop(c, i, False),
    "BNBackprop2": lambda c, i: isa_bn_backprop(c, i, True),
    "DMACopy": isa_dma_copy,
    "CollectiveCompute": isa_collective,
    "GetRandState": lambda c, i: _rng_state_op(c, i, 6, True),
    "GetRandState2": lambda c, i: _rng_state_op(c, i, 24, True),
    "SetRandState": lambda c, i: _rng_state_op(c, i, 6, False),
    "SetRandState2": lambda c, i: _rng_state_op(c, i, 24, False),
    "Rand": lambda c, i: isa_rand(c, i, False),
    "Rand2": lambda c, i: isa_rand(c, i, True),
}


def _plain_layout(program):
    insts = program.get("instructions", [])
    if any(not isinstance(i, dict) or "loop" in i for i in insts):
        return False
    # registers are state the runner does not carry between steps
    if any(k in ("register", "offset_register") for i in insts for k in _keys(i)):
        return False
    return not any(k in t for t in program.get("tensors", [])
                   for k in ("view_of", "partition", "offset"))


def _keys(value):
    """Every key of a JSON value, operands' included."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from _keys(v)
    elif isinstance(value, list):
        for v in value:
            yield from _keys(v)


class _Probe(Case):
    """Says whether each instruction fits its isa function, touching nothing."""

    def arg(self, op, core=0):
        t = self.decls[_whole(op)]
        return dtypes.RawBits(np.zeros(t["shape"], dtypes.storage(t["dtype"])), t["dtype"])

    def put(self, op, value, core=0):
        _whole(op)


def plan(program, config, settings):
    """[(path, instruction)]: path "isa" or "program" per instruction, or
    None when the whole program goes through trnsim.Program."""
    return plan_why(program, config, settings)[0]


def plan_why(program, config, settings):
    """(plan(), why the whole program goes through trnsim.Program or None)."""
    if not _plain_layout(program):
        return None, "loops, registers, views or placed tensors"
    probe = _Probe(program, config, settings)
    steps = []
    for inst in program.get("instructions", []):
        fn = ISA_PATH.get(opcode_name(inst))
        path = "program"
        if fn is not None and not (opcode_name(inst) in RNG_OPS and probe.cores != 1):
            try:
                _static_fit(fn, probe, inst)
                path = "isa"
            except Exception:  # NotIsa, or a program the loader refuses anyway
                pass
        steps.append((path, inst))
    paths = {p for p, _ in steps}
    stateful_generic = any(p == "program" and opcode_name(i) in STATEFUL_OPS for p, i in steps)
    if "isa" not in paths:
        return None, "no instruction in an isa form"
    if stateful_generic and len(paths) > 1:
        return None, "a stateful instruction without an isa form"
    return steps, None


def _static_fit(fn, probe, inst):
    """Run fn against the probe with the isa calls stubbed: only the shape and
    attribute checks count."""
    saved = {name: getattr(isa, name) for name in _ISA_NAMES}
    try:
        for name in _ISA_NAMES:
            setattr(isa, name, _stub)
        fn(probe, inst)
    finally:
        for name, f in saved.items():
            setattr(isa, name, f)


_ISA_NAMES = ("max8", "nc_find_index8", "nc_match_replace8", "bn_stats", "bn_aggr", "bn_gradients",
              "bn_backprop", "bn_backprop2", "dma_copy", "dma_gather", "dma_transpose",
              "dma_compute",
              "dma_replicate", "all_reduce", "all_gather", "all_to_all", "collective_permute",
              "collective_permute_implicit", "get_rand_state", "set_rand_state", "set_rng_seed",
              "rand",
              "rand2")


def _stub(*args, **kw):
    return _StubResult()


class _StubResult:
    def __iter__(self):
        return iter((_StubResult(), _StubResult()))


def run_case(directory, config=None, settings=None):
    """Run one case folder; returns "ok" or "error" (error.txt written)."""
    settings = settings or {}
    prog_path = os.path.join(directory, "program.json")
    with open(prog_path, encoding="utf-8") as f:
        program = json.load(f)
    cfg = os.path.join(directory, "config.cfg")
    config = cfg if os.path.isfile(cfg) else config
    inputs = {}
    in_dir = os.path.join(directory, "in")
    if os.path.isdir(in_dir):
        for fn in sorted(os.listdir(in_dir)):
            if fn.endswith(".npy"):
                inputs[fn[:-4]] = np.load(os.path.join(in_dir, fn), allow_pickle=False)
    out_dir = os.path.join(directory, "out")
    err_path = os.path.join(directory, "error.txt")
    # a folder run again (a kept case) holds only this run's result
    if os.path.exists(err_path):
        os.remove(err_path)
    if os.path.isdir(out_dir):
        shutil.rmtree(out_dir)
    try:
        outputs = execute(program, inputs, config, settings, prog_path)
    except errors.Error as exc:
        with open(err_path, "w", encoding="utf-8") as f:
            f.write(exc.message.rstrip("\n") + "\n")
        return "error"
    os.makedirs(out_dir, exist_ok=True)
    for name, arr in outputs.items():
        np.save(os.path.join(out_dir, name + ".npy"), arr)
    return "ok"


def execute(program, inputs, config=None, settings=None, name="<program>"):
    """{tensor name: [cores, *shape] array} after running program."""
    settings = settings or {}
    isa.configure(config, **settings)
    isa.reset_rand_state()
    case = Case(program, config, settings, name)
    sim = case.load_all(inputs)
    steps = plan(program, config, settings)
    if steps is None:
        case.run_generic(program.get("instructions", []), sim)
    else:
        sim.close()
        pending = []
        for k, (path, inst) in enumerate(steps):
            if path == "program":
                pending.append(inst)
                continue
            if pending:
                case.run_generic(pending)
                pending = []
            case.step = "instruction %s (%s)" % (k, opcode_name(inst))
            ISA_PATH[opcode_name(inst)](case, inst)
        if pending:
            case.run_generic(pending)
    return {name: _output_view(raw, case.decls[name]["dtype"]) for name, raw in case.state.items()}


def _output_view(raw, dt):
    vd = dtypes.value_dtype(dt)
    if vd.kind in "iuf" and vd.itemsize == raw.dtype.itemsize and dtypes.ml_dtype(dt) is None:
        return raw.view(vd)
    return raw  # bfloat16, fp8: raw bits; packed x4: raw words


def _parse_set(text):
    if "=" not in text:
        raise SystemExit("trnsim.conform_runner: --set takes KEY=VALUE, got %r" % text)
    key, value = text.split("=", 1)
    for conv in (int, float):
        try:
            return key, conv(value)
        except ValueError:
            pass
    if value in ("true", "false"):
        return key, value == "true"
    return key, value[1:-1] if len(value) >= 2 and value[0] == value[-1] == '"' else value


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m trnsim.conform_runner",
                                 description=__doc__.split("\n")[0])
    ap.add_argument("dirs", nargs="+", metavar="DIR")
    ap.add_argument("--config", help="config file for every case without its own config.cfg")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--verbose", action="store_true", help="print each case's path per instruction")
    args = ap.parse_args(argv)
    settings = dict(_parse_set(s) for s in args.set)
    failed = False
    for d in args.dirs:
        try:
            result = run_case(d, args.config, settings)
        except (OSError, ValueError) as exc:
            print("trnsim.conform_runner: %s: %s" % (d, exc), file=sys.stderr)
            failed = True
            continue
        except Exception as exc:  # pylint: disable=broad-except
            # a folder the runner cannot take (a program without a tensor's
            # shape): one line naming it, not a traceback, and the next folder
            print("trnsim.conform_runner: %s: cannot run this case: %s: %s" %
                  (d, type(exc).__name__, exc), file=sys.stderr)
            failed = True
            continue
        log = os.environ.get("TRNSIM_CONFORM_RUNNER_LOG")
        if args.verbose or log:
            with open(os.path.join(d, "program.json"), encoding="utf-8") as f:
                steps, why = plan_why(json.load(f), args.config, settings)
            how = "program (whole: %s)" % why if steps is None else \
                ", ".join("%s:%s" % (opcode_name(i), p) for p, i in steps)
            line = "%s: %s [%s]" % (d, result, how)
            if args.verbose:
                print(line)
            if log:  # conform runs the runner itself: the paths taken, appended here
                with open(log, "a", encoding="utf-8") as f:
                    f.write(line + "\n")
    return 2 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
