"""One function per instruction, named as the NKI ISA names it where it has
a counterpart, taking and returning numpy arrays. Each call runs exactly the
instruction(s) its docstring names on the reference model, in process.

A call builds a small native program once per distinct shape / dtype /
attribute set and keeps it loaded (a bounded cache of simulators), so a
repeated call only copies its inputs in, runs and copies its outputs out.
configure() chooses the config and settings every isa call uses.

Layouts follow NKI's: row-wise instructions take [P, ...] arrays (P the
partitions, the free dims flattened in C order as NKI flattens them);
P above 128 is split into runs of 128 partitions. Float inputs of any numpy
float dtype are accepted (float64 narrows to float32, RNE, as the CLI does);
bfloat16 / fp8 come as ml_dtypes arrays or as trnsim.bits() raw bits.
"""
import collections
import math

import numpy as np

from . import dtypes, errors
from ._lib import last_error, lib
from .simulator import Simulator

PARTITIONS = 128
_CACHE_SIZE = 48
_BIND_BYTES = 1 << 16  # inputs this large are bound in place rather than copied

_config = {"config": None, "settings": {}}
_cache = collections.OrderedDict()
# None, or a list: every call then appends (program, [(input, core, raw)],
# [(output, core, raw)], settings) -- how the tests replay each call through the CLI
recorder = None


def configure(config=None, **settings):
    """Use this config (a path, libconfig text or None for the embedded
    default) and these overrides (as trnsim.Simulator takes them) for every
    later isa call, e.g. configure(search={"duplicate_match_order": "descending"})."""
    _config["config"] = config
    _config["settings"] = dict(settings)
    clear_cache()


def clear_cache():
    """Close every cached simulator."""
    while _cache:
        _cache.popitem(last=False)[1].sim.close()


class _Kernel:
    """A loaded program and what its calls move in and out."""

    __slots__ = ("sim", "h", "program", "ins", "outs", "settings", "bound")

    def __init__(self, program, ins, outs, extra_settings):
        settings = dict(_config["settings"])
        for k, v in extra_settings.items():
            merged = dict(settings.get(k, {}))
            merged.update(v)
            settings[k] = merged
        self.settings = settings
        self.sim = Simulator(_config["config"], **settings)
        self.sim.load(program)
        self.h = self.sim._h
        self.program = program
        # ins: (name, core); outs: (name, core, shape, dtype name)
        self.ins = [(n.encode(), c) for n, c in ins]
        self.outs = [(n.encode(), c, tuple(self.sim.tensor(n).shape), dtypes.storage(self.sim.tensor(n).dtype))
                     for n, c in outs]
        self.bound = [None] * len(self.ins)  # the arrays the simulator reads in place


def _call(key, build, arrays, raw_outputs=False, settings=None):
    """Run the program of key (built once by build() -> (program, ins, outs))
    with arrays (raw tensor contents, in the order of ins); returns the outputs
    as raw storage arrays (raw_outputs) or values."""
    k = _cache.get(key)
    if k is None:
        program, ins, outs = build()
        k = _Kernel(program, ins, outs, settings or {})
        _cache[key] = k
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)[1].sim.close()
    else:
        _cache.move_to_end(key)
    h = k.h
    for j, ((name, core), a) in enumerate(zip(k.ins, arrays)):
        # a large input is lent in place, not copied (trnsim_bind_tensor):
        # the kernel keeps the array alive until its next call rebinds it
        if a.nbytes >= _BIND_BYTES and a.flags.aligned:
            rc = lib.trnsim_bind_tensor(h, name, core, a.ctypes.data, a.nbytes)
            k.bound[j] = a
        else:
            rc = lib.trnsim_set_tensor(h, name, core, a.ctypes.data, a.nbytes)
            k.bound[j] = None
        if rc:
            raise last_error(errors.InputError)
    if lib.trnsim_run(h):
        raise last_error(errors.RunError)
    out = []
    for name, core, shape, st in k.outs:
        raw = np.empty(shape, st)
        if lib.trnsim_get_tensor(h, name, core, raw.ctypes.data, raw.nbytes):
            raise last_error(errors.InputError)
        out.append(raw)
    if recorder is not None:  # what ran, for comparison with the CLI
        recorder.append((k.program, [(n.decode(), c, a) for (n, c), a in zip(k.ins, arrays)],
                         [(n.decode(), c, r.copy()) for (n, c, _, _), r in zip(k.outs, out)], k.settings))
    return out


def _values(raw, dt, raw_bits):
    return dtypes.from_tensor_bytes(raw, dt, raw_bits)


# ---- inputs ----

_FAST = {np.dtype(n): n for n in ("float32", "float16", "int8", "uint8", "int16", "uint16", "int32", "uint32",
                                   "int64", "uint64")}


def _input(array, what):
    """(contiguous raw contents, tensor dtype, original shape, raw_bits) of an input."""
    if type(array) is np.ndarray:  # the common case: the array's bytes are the tensor's
        name = _FAST.get(array.dtype)
        if name is not None:
            if not array.flags.c_contiguous:
                array = np.ascontiguousarray(array)
            return array, name, array.shape, False
    try:
        dt = dtypes.tensor_dtype_of(array)
        raw = dtypes.to_tensor_bytes(array, dt)
    except errors.InputError as exc:
        raise errors.InputError("%s: %s" % (what, exc.message)) from None
    return raw, dt, np.shape(array), isinstance(array, dtypes.RawBits)


def _rows(array, what, min_free=1):
    """An input as [P, N] raw contents (free dims flattened)."""
    raw, dt, shape, rb = _input(array, what)
    if len(shape) < 1 or shape[0] < 1:
        raise errors.InputError("%s: expected a [P, ...] array with at least one partition, got shape %s" %
                                (what, list(shape)))
    p = shape[0]
    n = math.prod(shape[1:])
    if n < min_free:
        raise errors.InputError("%s: %d elements per partition, at least %d needed" % (what, n, min_free))
    return (raw if len(shape) == 2 else raw.reshape(p, n)), dt, rb


def _per_partition(array, p, n, what):
    """A per-partition operand of n elements ([P, n] or [P] when n is 1)."""
    raw, dt, rb = _rows(array, what)
    if raw.shape != (p, n):
        raise errors.InputError("%s: expected %d partitions of %d elements, got shape %s" %
                                (what, p, n, list(np.shape(array))))
    return raw, dt


def _float_out(dt):
    return dt if dt not in dtypes.PACKED and not dt.startswith(("int", "uint")) else "float32"


def _t(name, shape, dt, memory="sbuf"):
    return {"name": name, "memory": memory, "dtype": dt, "shape": [int(s) for s in shape]}


def _prog(tensors, insts, cores=1):
    return {"cores": cores, "tensors": tensors, "instructions": insts}


def _chunked(fn, arrays, *args, **kw):
    """Run fn over runs of 128 partitions of the row arrays; concatenate."""
    a0 = arrays[0]
    p = a0.shape[0] if type(a0) is np.ndarray and a0.ndim else np.shape(a0)[0] if np.ndim(a0) else 1
    if p <= PARTITIONS:
        return fn(*arrays, *args, **kw)
    parts = [fn(*[a[i:i + PARTITIONS] for a in arrays], *args, **kw) for i in range(0, p, PARTITIONS)]
    if isinstance(parts[0], tuple):
        return tuple(np.concatenate([q[j] for q in parts]) for j in range(len(parts[0])))
    return np.concatenate(parts)


def _fp32_attr(v):
    f = float(v)
    return "nan" if math.isnan(f) else ("inf" if f > 0 else "-inf") if math.isinf(f) else f


# ======================= search: IT 88-91 =======================

def max8(data, dtype=None):
    """nki.isa.max8: the 8 largest values of each partition, descending.

    Runs Max (IT 88). data [P, N], 8 <= N <= 16384 elements per partition
    (free dims flattened). Returns [P, 8] in dtype (default: data's float
    dtype, float32 for integer data); values are compared in fp32 and
    narrowed RNE. Quirks: ties keep the earliest element
    (search.earliest_tie); a NaN is sticky (search.sticky_nan: it only
    lands while the slots fill and is never displaced); a demoted value
    equal to the next slot lands further down (search.signed_zero_cascade).
    """
    return _chunked(_max8, [data], dtype)


def _max8(data, dtype):
    x, dt, rb = _rows(data, "max8 data", 8)
    odt = dtypes.canonical(dtype) if dtype else _float_out(dt)
    p, n = x.shape

    def build():
        return (_prog([_t("x", (p, n), dt), _t("v", (p, 8), odt)],
                      [{"opcode": "Max", "inputs": ["x"], "outputs": ["v"]}]), [("x", -1)], [("v", 0)])
    (v,) = _call(("max8", p, n, dt, odt), build, [x])
    return _values(v, odt, rb)


def nc_find_index8(data, vals):
    """nki.isa.nc_find_index8: for each of the 8 vals of a partition, the
    index of its first occurrence in data (uint32, from 0).

    Runs MaxIndex (IT 89), inputs [vals, data]. data [P, N] (8..16384),
    vals [P, 8]. A value not found gives 0xFFFFFFFF. Quirks: matching is
    IEEE == in fp32 (search.ieee_equal_match: NaN never matches, -0 matches
    +0); equal vals take successive occurrences in ascending order
    (search.ascending_duplicate_match; the setting
    search.duplicate_match_order = "descending" gives NKI's documented order).
    """
    return _chunked(_find_index8, [data, vals])


def _find_index8(data, vals):
    x, dt, _ = _rows(data, "nc_find_index8 data", 8)
    p, n = x.shape
    v, vdt = _per_partition(vals, p, 8, "nc_find_index8 vals")

    def build():
        return (_prog([_t("x", (p, n), dt), _t("vals", (p, 8), vdt), _t("idx", (p, 8), "uint32")],
                      [{"opcode": "MaxIndex", "inputs": ["vals", "x"], "outputs": ["idx"]}]),
                [("x", -1), ("vals", -1)], [("idx", 0)])
    (idx,) = _call(("find8", p, n, dt, vdt), build, [x, v])
    return idx


def nc_match_replace8(data, vals, imm, dst_idx=False):
    """nki.isa.nc_match_replace8: data with the first occurrence of each of
    the 8 vals of a partition replaced by imm (an fp32 value).

    Runs MatchReplace (IT 90); with dst_idx=True runs the fused
    MaxIndexAndMatchReplace (IT 91) and returns (data_out, indices), the
    indices as nc_find_index8 gives them. data [P, N] (8..16384), vals
    [P, 8]; data_out has data's shape and dtype. Quirks as nc_find_index8:
    IEEE equality, ascending assignment of duplicates (NKI's v2.32 docs
    give the reverse order; the data output is the same in both).
    """
    if dst_idx:
        return _chunked(_match_replace8, [data, vals], imm, True)
    return _chunked(_match_replace8, [data, vals], imm, False)


def _match_replace8(data, vals, imm, with_idx):
    x, dt, rb = _rows(data, "nc_match_replace8 data", 8)
    p, n = x.shape
    v, vdt = _per_partition(vals, p, 8, "nc_match_replace8 vals")
    imm_j = _fp32_attr(imm)

    def build():
        tensors = [_t("x", (p, n), dt), _t("vals", (p, 8), vdt), _t("y", (p, n), dt)]
        outs = ["y"]
        if with_idx:
            tensors.append(_t("idx", (p, 8), "uint32"))
            outs.append("idx")
        op = "MaxIndexAndMatchReplace" if with_idx else "MatchReplace"
        return (_prog(tensors, [{"opcode": op, "imm_value": imm_j, "inputs": ["vals", "x"], "outputs": outs}]),
                [("x", -1), ("vals", -1)], [(o, 0) for o in outs])
    res = _call(("mr8", p, n, dt, vdt, str(imm_j), with_idx), build, [x, v])
    y = _values(res[0], dt, rb).reshape(np.shape(data))
    return (y, res[1]) if with_idx else y


def topk(x, k):
    """The k largest values of each partition and their indices:
    (values [P, k] descending, indices [P, k] uint32).

    Runs ceil(k / 8) rounds of Max (IT 88) then MaxIndexAndMatchReplace
    (IT 91, imm_value -inf) on a working copy: the TopK pattern of public
    NKI kernels (max8 + nc_match_replace8 with dst_idx). Equal values come
    in index order (Max keeps the earliest; the match takes successive
    occurrences); a NaN is sticky in Max and never matches, so rows with
    NaN give indices 0xFFFFFFFF for it. x [P, N], 8 <= N <= 16384, k <= N.
    Values are in x's dtype (float32 for integer x).
    """
    return _chunked(_topk, [x], k)


def _topk(x, k):
    d, dt, rb = _rows(x, "topk x", 8)
    p, n = d.shape
    k = int(k)
    if not 1 <= k <= n:
        raise errors.InputError("topk: k = %d must be 1 .. %d (the elements per partition)" % (k, n))
    rounds = -(-k // 8)
    vdt = _float_out(dt)

    def build():
        # in place: x is written again by the next call, and the module then
        # writes only the struck-out elements
        insts = []
        for r in range(rounds):
            slot = {"tensor": "vals", "offset": 8 * r, "ap": [[1, 8]]}
            insts.append({"opcode": "Max", "inputs": ["x"], "outputs": [slot]})
            insts.append({"opcode": "MaxIndexAndMatchReplace", "imm_value": "-inf", "inputs": [slot, "x"],
                          "outputs": ["x", {"tensor": "idx", "offset": 8 * r, "ap": [[1, 8]]}]})
        return (_prog([_t("x", (p, n), dt), _t("vals", (p, 8 * rounds), vdt),
                       _t("idx", (p, 8 * rounds), "uint32")], insts), [("x", -1)], [("vals", 0), ("idx", 0)])
    vals, idx = _call(("topk", p, n, dt, rounds), build, [d])
    return _values(vals[:, :k].copy(), vdt, rb), idx[:, :k].copy()


# ======================= BN: IT 34-38 =======================

def bn_stats(data, apply_transpose=False):
    """nki.isa.bn_stats: per partition, 6 fp32: (count, mean, M2) of the
    even elements, then of the odd ones (M2 = sum of squared deviations).

    Runs BNStats (IT 34). data [P, N], free dims flattened; any N (the
    reference does not enforce NKI's 512-element bn_stats_fmax, so a whole
    row is one instruction). Quirks: bn.shared_welford_count,
    bn.seeded_lane_counts, bn.convex_mean_update (constant rows can leave
    a tiny M2). apply_transpose runs the 32x32 tile swap first
    (bn.tile_swap_transpose; P and N multiples of 32, or N = 1).
    """
    return _chunked(_bn_stats, [data], apply_transpose)


def _bn_stats(data, apply_transpose):
    x, dt, _ = _rows(data, "bn_stats data")
    p, n = x.shape
    at = bool(apply_transpose)

    def build():
        inst = {"opcode": "BNStats", "inputs": ["x"], "outputs": ["st"]}
        if at:
            inst["apply_transpose"] = True
        return _prog([_t("x", (p, n), dt), _t("st", (p, 6), "float32")], [inst]), [("x", -1)], [("st", 0)]
    return _call(("bnstats", p, n, dt, at), build, [x])[0].view(np.float32)


def bn_aggr(stats):
    """nki.isa.bn_aggr: per partition, (mean, variance) of the records in stats.

    Runs BNStatsAggregate (IT 35). stats [P, 6K]: K bn_stats records side by
    side, merged in order (Chan). The variance is the population variance
    (bn.population_variance). Quirks: bn.raw_m2_normalized_merge; zero counts
    are not guarded (bn.aggregate_zero_count_nan: an empty first record gives
    NaN). Elements per partition must be a multiple of 6 (NKI says 3).
    """
    return _chunked(_bn_aggr, [stats])


def _bn_aggr(stats):
    s, dt, _ = _rows(stats, "bn_aggr stats")
    p, n = s.shape

    def build():
        return (_prog([_t("st", (p, n), dt), _t("mv", (p, 2), "float32")],
                      [{"opcode": "BNStatsAggregate", "inputs": ["st"], "outputs": ["mv"]}]),
                [("st", -1)], [("mv", 0)])
    return _call(("bnaggr", p, n, dt), build, [s])[0].view(np.float32)


def bn_gradients(x, dy, mean, varfactor):
    """The BN backward reduction (no NKI name): per partition
    [sum dy, sum (x-m)*dy*vf^2, sum (x-m)*dy*vf] in fp32, index order.

    Runs BNGradients (IT 36), inputs [x, dy, mean, varfactor]. x, dy [P, N];
    mean, varfactor [P] or [P, 1]. Quirk bn.naive_gradient_sums: plain fp32
    sums in index order (numpy's pairwise sum gives other bits).
    """
    return _chunked(_bn_gradients, [x, dy, mean, varfactor])


def _bn_gradients(x, dy, mean, varfactor):
    a, dt, _ = _rows(x, "bn_gradients x")
    p, n = a.shape
    b, dt2, _ = _rows(dy, "bn_gradients dy")
    if b.shape != a.shape:
        raise errors.InputError("bn_gradients: dy has shape %s, x %s" % (list(np.shape(dy)), list(np.shape(x))))
    m, mdt = _per_partition(mean, p, 1, "bn_gradients mean")
    v, vdt = _per_partition(varfactor, p, 1, "bn_gradients varfactor")

    def build():
        return (_prog([_t("x", (p, n), dt), _t("dy", (p, n), dt2), _t("m", (p, 1), mdt), _t("vf", (p, 1), vdt),
                       _t("g", (p, 3), "float32")],
                      [{"opcode": "BNGradients", "inputs": ["x", "dy", "m", "vf"], "outputs": ["g"]}]),
                [("x", -1), ("dy", -1), ("m", -1), ("vf", -1)], [("g", 0)])
    return _call(("bngrad", p, n, dt, dt2, mdt, vdt), build, [a, b, m, v])[0].view(np.float32)


def bn_backprop(x, dy, mean, coef, total_elements, dtype="float32"):
    """The BN dx apply with packed coefficients (no NKI name):
    dx = (dy*total_elements - ((x - m)*Bc + A)) * scale, coef = (A, Bc, scale).

    Runs BNBackprop (IT 37), inputs [x, dy, mean, coef]. x, dy [P, N]; mean
    [P] or [P, 1]; coef [P, 3]. total_elements is rounded to fp32 once, as
    the reference reads it. Returns dx [P, N] in dtype.
    """
    return _chunked(_bn_backprop, [x, dy, mean, coef], None, total_elements, dtype)


def bn_backprop2(x, dy, mean, ab, scale, total_elements, dtype="float32"):
    """The split form of bn_backprop (no NKI name): ab = (A, Bc) [P, 2] and
    scale [P] or [P, 1] as separate operands; identical bytes to bn_backprop.

    Runs BNBackprop2 (IT 38), inputs [x, dy, mean, ab, scale].
    """
    return _chunked(_bn_backprop, [x, dy, mean, ab, scale], total_elements, dtype)


def _bn_backprop(x, dy, mean, coef, scale, total_elements, dtype):
    a, dt, _ = _rows(x, "bn_backprop x")
    p, n = a.shape
    b, dt2, _ = _rows(dy, "bn_backprop dy")
    m, mdt = _per_partition(mean, p, 1, "bn_backprop mean")
    split = scale is not None
    c, cdt = _per_partition(coef, p, 2 if split else 3, "bn_backprop2 ab" if split else "bn_backprop coef")
    arrays = [a, b, m, c]
    tensors = [_t("x", (p, n), dt), _t("dy", (p, n), dt2), _t("m", (p, 1), mdt), _t("c", (p, 2 if split else 3), cdt)]
    names = ["x", "dy", "m", "c"]
    if split:
        s, sdt = _per_partition(scale, p, 1, "bn_backprop2 scale")
        arrays.append(s)
        tensors.append(_t("s", (p, 1), sdt))
        names.append("s")
    odt = dtypes.canonical(dtype)
    te = _fp32_attr(total_elements)

    def build():
        op = "BNBackprop2" if split else "BNBackprop"
        return (_prog(tensors + [_t("dx", (p, n), odt)],
                      [{"opcode": op, "total_elements": te, "inputs": names, "outputs": ["dx"]}]),
                [(nm, -1) for nm in names], [("dx", 0)])
    key = ("bnbp", split, p, n, tuple(t["dtype"] for t in tensors), odt, str(te))
    dx = _call(key, build, arrays)[0]
    return _values(dx, odt, False).reshape(np.shape(x))


# ======================= RNG: IT 58-60, 97-99 =======================

_ALGORITHMS = {"lfsr": 0, "pcg32": 1, "philox": 2}


def _state_in(state, p, words, what):
    s = np.asarray(state)
    if s.shape != (p, words):
        raise errors.InputError("%s: a state is [%d, %d] uint32 here (%s), got shape %s" %
                                (what, p, words, "gen-1: 6 words" if words == 6 else "gen-2: 4 lanes x 6 words, "
                                 "word-major", list(s.shape)))
    if s.dtype.kind not in "iu":
        raise errors.InputError("%s: state words are uint32, got %s" % (what, s.dtype))
    return dtypes.to_tensor_bytes(s.astype(np.uint32) if s.dtype != np.uint32 else s, "uint32")


def _rng_call(kind, shape, state, words, rand_inst, out_dt):
    shape = tuple(int(d) for d in (shape if np.ndim(shape) else (shape,)))
    if len(shape) < 1 or not 1 <= shape[0] <= PARTITIONS:
        raise errors.InputError("%s: shape [P, ...] with P 1..%d partitions, got %s" % (kind, PARTITIONS, list(shape)))
    p = shape[0]
    n = int(np.prod(shape[1:], dtype=np.int64)) if len(shape) > 1 else 1
    have_state = state is not None
    arrays = [_state_in(state, p, words, kind)] if have_state else []
    gen2 = words == 24

    def build():
        tensors = [_t("r", (p, n), out_dt), _t("so", (p, words), "uint32")]
        insts = []
        if have_state:
            tensors.append(_t("si", (p, words), "uint32"))
            insts.append({"opcode": "SetRandState2" if gen2 else "SetRandState", "inputs": ["si"], "outputs": []})
        insts.append(dict(rand_inst, outputs=["r"]))
        insts.append({"opcode": "GetRandState2" if gen2 else "GetRandState", "inputs": [], "outputs": ["so"]})
        return _prog(tensors, insts), [("si", -1)] if have_state else [], [("r", 0), ("so", 0)]
    key = (kind, p, n, have_state, tuple(sorted((k, str(v)) for k, v in rand_inst.items())))
    r, so = _call(key, build, arrays)
    return r.view(np.dtype(dtypes.value_dtype(out_dt))).reshape(shape), so


def rand(shape, algorithm="philox", state=None):
    """Gen-1 random bits with the state explicit: (values uint32 of shape,
    state_out [P, 6] uint32).

    Runs [SetRandState (IT 59) with state,] Rand (IT 60) and GetRandState
    (IT 58). shape [P, ...], P <= 128; element j of partition p is the
    j-th output of p's stream. algorithm: "lfsr", "pcg32", "philox" (or
    0, 1, 2). state None: the engine's default (every word 1). Quirks:
    rng.rand_raw_bits (no distribution), rng.zero_guard (words 0..4 all
    zero -> word 4 = 1 when installed). The word mapping is docs/rng.md's.
    """
    alg = _ALGORITHMS.get(str(algorithm).lower(), algorithm)
    if alg not in (0, 1, 2):
        raise errors.InputError("rand: algorithm is 'lfsr', 'pcg32' or 'philox' (0, 1, 2), not %r" % (algorithm,))
    return _rng_call("rand", shape, state, 6, {"opcode": "Rand", "algorithm": int(alg), "inputs": []}, "uint32")


def rand2(shape, min=0.0, max=1.0, state=None, lanes=1):
    """nki.isa.rand2 with the state explicit: (values float32 of shape,
    state_out [P, 24] uint32 in the reference's word-major layout).

    Runs [SetRandState2 (IT 99) with state,] Rand2 (IT 97) and
    GetRandState2 (IT 98). XORWOW, out = min + (max - min) * u in fp32.
    lanes 1, 2 (is_2x1p) or 4 (is_4x2p): column j is driven by lane j % lanes.
    Quirks: rng.rand2_half_open (values in [min, max), NKI says [min, max];
    fp32 rounding can still reach max), rng.rand2_min_gt_max,
    rng.gen2_state_transposed, rng.zero_guard.
    """
    flags = {1: {}, 2: {"is_2x1p": True}, 4: {"is_4x2p": True}}
    if lanes not in flags:
        raise errors.InputError("rand2: lanes is 1, 2 or 4, not %r" % (lanes,))
    inst = dict({"opcode": "Rand2", "min": _fp32_attr(min), "max": _fp32_attr(max), "inputs": []}, **flags[lanes])
    return _rng_call("rand2", shape, state, 24, inst, "float32")


def get_rand_state(partitions=PARTITIONS, generation=2, seed=None):
    """The engine state as GetRandState (IT 58, gen-1: [P, 6]) or
    GetRandState2 (IT 98, gen-2: [P, 24], word-major) reads it: the
    default (every word 1), or after SetRandState with a seed: gen-1 a
    list of 8 uint32 (the wire seed, partition p in word 0's top byte),
    gen-2 an integer (MT19937-64 fill, docs/rng.md)."""
    words = 6 if generation == 1 else 24
    if generation not in (1, 2):
        raise errors.InputError("generation is 1 or 2, not %r" % (generation,))
    p = int(partitions)
    if not 1 <= p <= PARTITIONS:
        raise errors.InputError("partitions must be 1..%d" % PARTITIONS)
    seed_j = None if seed is None else [int(s) for s in seed] if np.ndim(seed) else str(int(seed))

    def build():
        insts = []
        if seed_j is not None:
            insts.append({"opcode": "SetRandState2" if words == 24 else "SetRandState", "seed": seed_j,
                          "inputs": [], "outputs": []})
        insts.append({"opcode": "GetRandState2" if words == 24 else "GetRandState", "inputs": [], "outputs": ["so"]})
        return _prog([_t("so", (p, words), "uint32")], insts), [], [("so", 0)]
    return _call(("getstate", p, words, str(seed_j)), build, [])[0]


def set_rand_state(state):
    """Install a state ([P, 6] gen-1 or [P, 24] gen-2 uint32) with
    SetRandState (IT 59) / SetRandState2 (IT 99) and return it as
    GetRandState reads it back: equal, except where the zero guard
    (rng.zero_guard) repaired a lane whose words 0..4 were all zero."""
    s = np.asarray(state)
    if s.ndim != 2 or s.shape[1] not in (6, 24):
        raise errors.InputError("set_rand_state: a state is [P, 6] (gen-1) or [P, 24] (gen-2) uint32, got shape %s" %
                                list(s.shape))
    p, words = s.shape
    raw = _state_in(s, p, words, "set_rand_state")
    gen2 = words == 24

    def build():
        return (_prog([_t("si", (p, words), "uint32"), _t("so", (p, words), "uint32")],
                      [{"opcode": "SetRandState2" if gen2 else "SetRandState", "inputs": ["si"], "outputs": []},
                       {"opcode": "GetRandState2" if gen2 else "GetRandState", "inputs": [], "outputs": ["so"]}]),
                [("si", -1)], [("so", 0)])
    return _call(("setstate", p, words), build, [raw])[0]


rand_get_state = get_rand_state
rand_set_state = set_rand_state


def set_rng_seed(seed, partitions=PARTITIONS):
    """nki.isa.set_rng_seed (mapping inferred): the gen-2 state a scalar seed
    gives through SetRandState2's MT19937-64 fill, [P, 24] uint32."""
    return get_rand_state(partitions, 2, seed)


# ======================= DMA: IT 32 =======================

_REDUCE = {None: 0, "bypass": 0, "add": 4, "max": 8, "min": 9}


def _flat_hbm(array, what):
    raw, dt, shape, rb = _input(array, what)
    if len(shape) == 0 or len(shape) > 4:
        raw = raw.reshape(-1)
    return raw, dt, rb


def _reduce_code(op, what):
    if op not in _REDUCE:
        raise errors.InputError("%s: the op is 'add', 'max', 'min' or None, not %r" % (what, op))
    return _REDUCE[op]


def dma_copy(src, dtype=None, dst=None, dst_rmw_op=None):
    """nki.isa.dma_copy: src copied into a destination of dtype (default:
    dst's, else src's), through fp32 with RNE when the dtypes differ (raw
    bytes when equal: NaN payloads and integers beyond 2^24 survive).

    Runs DMACopy (IT 32) mode 0 between HBM tensors. dst: the destination's
    initial contents (its shape and dtype); dst_rmw_op="add" accumulates
    into it (the accumulate flag: cast_copy_or_accumulate add, needs a
    reducing dtype). Element counts must match. Returns the destination.
    """
    s, sdt, rb = _flat_hbm(src, "dma_copy src")
    if dst_rmw_op not in (None, "add"):
        raise errors.InputError("dma_copy: dst_rmw_op is None or 'add' (NKI allows only add), not %r" % (dst_rmw_op,))
    if dst is not None:
        d, ddt, _ = _flat_hbm(dst, "dma_copy dst")
        if dtype is not None and dtypes.canonical(dtype) != ddt:
            raise errors.InputError("dma_copy: dtype %s differs from dst's %s" % (dtype, ddt))
        oshape = d.shape
    else:
        if dst_rmw_op:
            raise errors.InputError("dma_copy: dst_rmw_op='add' needs dst, the values to add to")
        ddt = dtypes.canonical(dtype) if dtype else sdt
        oshape = s.shape
    acc = dst_rmw_op == "add"
    ins = [("s", -1)] + ([("d", -1)] if dst is not None else [])
    arrays = [s] + ([d] if dst is not None else [])

    def build():
        inst = {"opcode": "DMACopy", "mode": 0, "inputs": ["s"], "outputs": ["d"]}
        if acc:
            inst["accumulate"] = True
        return (_prog([_t("s", s.shape, sdt, "hbm"), _t("d", oshape, ddt, "hbm")], [inst]), ins, [("d", 0)])
    out = _call(("dmacopy", s.shape, sdt, oshape, ddt, acc, dst is not None), build, arrays)[0]
    shape = np.shape(dst) if dst is not None else np.shape(src)
    return _values(out, ddt, rb).reshape(shape)


def dma_transpose(src, axes=None):
    """nki.isa.dma_transpose: numpy.transpose(src, axes) by the DMA engine.

    Runs DMACopy (IT 32) mode 1 with shape = src's shape padded to 4 dims
    and the matching perm. src has 1..4 dims; axes default reversed (NKI
    documents [1,0], [2,1,0] and [3,1,2,0]; the reference takes any
    permutation). Same dtype, so raw elements move.
    """
    raw, dt, shape, rb = _input(src, "dma_transpose src")
    nd = len(shape)
    if not 1 <= nd <= 4:
        raise errors.InputError("dma_transpose: src has 1 to 4 dims, got %d" % nd)
    axes = tuple(range(nd))[::-1] if axes is None else tuple(int(a) % nd for a in axes)
    if sorted(axes) != list(range(nd)):
        raise errors.InputError("dma_transpose: axes %s is not a permutation of 0..%d" % (list(axes), nd - 1))
    pad = 4 - nd
    shape4 = [1] * pad + list(shape)
    perm = list(range(pad)) + [a + pad for a in axes]
    oshape = tuple(shape[a] for a in axes)

    def build():
        return (_prog([_t("s", shape, dt, "hbm"), _t("d", oshape, dt, "hbm")],
                      [{"opcode": "DMACopy", "mode": 1, "shape": shape4, "perm": perm, "inputs": ["s"],
                        "outputs": ["d"]}]), [("s", -1)], [("d", 0)])
    out = _call(("dmatr", tuple(shape), dt, axes), build, [raw])[0]
    return _values(out, dt, rb)


def dma_replicate(src, partitions=PARTITIONS):
    """The whole of src written to every one of `partitions` SBUF partitions:
    [partitions, src.size] (no NKI name; e.g. a [1, 64] row to 128 partitions).

    Runs DMACopy (IT 32) mode 3 (doDMAReplicate), HBM -> SBUF.
    """
    s, dt, rb = _flat_hbm(src, "dma_replicate src")
    p = int(partitions)
    n = s.size

    def build():
        return (_prog([_t("s", s.shape, dt, "hbm"), _t("d", (p, n), dt)],
                      [{"opcode": "DMACopy", "mode": 3, "inputs": ["s"], "outputs": ["d"]}]), [("s", -1)], [("d", 0)])
    out = _call(("dmarep", s.shape, dt, p), build, [s])[0]
    return _values(out, dt, rb)


def dma_compute(srcs, reduce_op="add", dtype=None, scales=None):
    """nki.isa.dma_compute: the element-wise fold of 2..16 sources by the
    DMA compute engine, in fp32, narrowed RNE into dtype (default: the
    first source's).

    Runs DMACopy (IT 32) mode 2 (CCE, doDMACCE). reduce_op "add", "max" or
    "min" (NKI documents only add). Quirk dma.cce_zeroed_accumulator: the
    accumulator starts at +0.0, so max of all-negative inputs is +0 and
    min of all-positive inputs is +0. The reference has no scales: any
    scale other than 1.0 is refused.
    """
    srcs = list(srcs)
    if not 2 <= len(srcs) <= 16:
        raise errors.InputError("dma_compute: 2 to 16 sources, got %d" % len(srcs))
    if scales is not None and any(float(s) != 1.0 for s in scales):
        raise errors.InputError("dma_compute: the reference's CCE has no scales (only 1.0)")
    op = _reduce_code(reduce_op, "dma_compute")
    if op == 0:
        raise errors.InputError("dma_compute: reduce_op is 'add', 'max' or 'min'")
    ins = [_flat_hbm(s, "dma_compute srcs[%d]" % i) for i, s in enumerate(srcs)]
    odt = dtypes.canonical(dtype) if dtype else ins[0][1]
    shape = ins[0][0].shape

    def build():
        tensors = [_t("s%d" % i, a.shape, dt, "hbm") for i, (a, dt, _) in enumerate(ins)]
        return (_prog(tensors + [_t("d", shape, odt, "hbm")],
                      [{"opcode": "DMACopy", "mode": 2, "reduce_op": op, "inputs": [t["name"] for t in tensors],
                        "outputs": ["d"]}]), [("s%d" % i, -1) for i in range(len(ins))], [("d", 0)])
    key = ("dmacce", tuple((a.shape, dt) for a, dt, _ in ins), odt, op)
    out = _call(key, build, [a for a, _, _ in ins])[0]
    return _values(out, odt, ins[0][2]).reshape(np.shape(srcs[0]))


def _indices(indices, what):
    i = np.asarray(indices)
    if i.dtype.kind not in "iu":
        raise errors.InputError("%s: indices are integers, got %s" % (what, i.dtype))
    return _flat_hbm(i, what)[:2]


def dma_gather(table, indices, dst=None, dst_rmw_op=None):
    """Rows of table picked by indices: out[j] = table[indices[j]]
    (indices.shape + table.shape[1:]; NKI: dma_copy with dynamic indices).

    Runs DMACopy (IT 32) mode 0 with indirect "gather", elems_per_index the
    size of one table row. Every index must be a row of the table (else an
    error, nothing written). dst / dst_rmw_op="add": accumulate into dst.
    """
    t, tdt, rb = _flat_hbm(table, "dma_gather table")
    idx, idt = _indices(indices, "dma_gather indices")
    tshape = np.shape(table)
    row = int(np.prod(tshape[1:], dtype=np.int64)) if len(tshape) > 1 else 1
    oshape = tuple(np.shape(indices)) + tuple(tshape[1:])
    op = _reduce_code(dst_rmw_op, "dma_gather")
    if op and dst is None:
        raise errors.InputError("dma_gather: dst_rmw_op needs dst, the values to reduce into")
    arrays = [t, idx]
    if dst is not None:
        d, ddt, _ = _flat_hbm(dst, "dma_gather dst")
        if ddt != tdt or d.size != int(np.prod(oshape, dtype=np.int64)):
            raise errors.InputError("dma_gather: dst must be %s of %s elements" % (tdt, list(oshape)))
        arrays.append(d.reshape(-1))
    n_out = max(int(np.prod(oshape, dtype=np.int64)), 1)

    def build():
        inst = {"opcode": "DMACopy", "mode": 0, "indirect": "gather", "elems_per_index": row, "reduce_op": op,
                "inputs": ["t", "i"], "outputs": ["d"]}
        ins = [("t", -1), ("i", -1)] + ([("d", -1)] if dst is not None else [])
        return (_prog([_t("t", t.shape, tdt, "hbm"), _t("i", idx.shape, idt, "hbm"), _t("d", (n_out,), tdt, "hbm")],
                      [inst]), ins, [("d", 0)])
    out = _call(("gather", t.shape, tdt, idx.shape, idt, row, op, dst is not None), build, arrays)[0]
    return _values(out, tdt, rb).reshape(oshape)


def dma_scatter(table, indices, src, dst_rmw_op=None):
    """table with rows replaced by src: table[indices[j]] = src[j] in order
    j = 0, 1, ... (a later repeated index wins), or += with
    dst_rmw_op="add" (repeated indices accumulate). Returns the new table.

    Runs DMACopy (IT 32) mode 0 with indirect "scatter" (reduce_op bypass 0
    or add 4), elems_per_index one table row.
    """
    t, tdt, rb = _flat_hbm(table, "dma_scatter table")
    idx, idt = _indices(indices, "dma_scatter indices")
    s, sdt, _ = _flat_hbm(src, "dma_scatter src")
    tshape = np.shape(table)
    row = int(np.prod(tshape[1:], dtype=np.int64)) if len(tshape) > 1 else 1
    op = _reduce_code(dst_rmw_op, "dma_scatter")

    def build():
        return (_prog([_t("t", t.shape, tdt, "hbm"), _t("i", idx.shape, idt, "hbm"), _t("s", s.shape, sdt, "hbm")],
                      [{"opcode": "DMACopy", "mode": 0, "indirect": "scatter", "elems_per_index": row,
                        "reduce_op": op, "inputs": ["s", "i"], "outputs": ["t"]}]),
                [("t", -1), ("i", -1), ("s", -1)], [("t", 0)])
    out = _call(("scatter", t.shape, tdt, idx.shape, idt, s.shape, sdt, row, op), build, [t, idx, s])[0]
    return _values(out, tdt, rb).reshape(tshape)


# ======================= collectives: IT 48 =======================

def _ranks(xs, what):
    xs = list(xs)
    if not xs:
        raise errors.InputError("%s: give one array per rank" % what)
    ins = [_flat_hbm(x, "%s rank %d" % (what, i)) for i, x in enumerate(xs)]
    shape, dt = ins[0][0].shape, ins[0][1]
    for i, (a, d, _) in enumerate(ins):
        if a.shape != shape or d != dt:
            raise errors.InputError("%s: rank %d is %s %s, rank 0 is %s %s" % (what, i, d, list(a.shape), dt, list(shape)))
    return [a for a, _, _ in ins], dt, shape, ins[0][2], np.shape(xs[0])


def _groups(groups, n):
    if groups is None:
        return None, n
    g = [[int(r) for r in grp] for grp in groups]
    return g, (len(g[0]) if g else n)


def _collective(what, xs, kind, oshape_of, attrs, settings=None):
    arrs, dt, shape, rb, user_shape = _ranks(xs, what)
    n = len(arrs)
    groups, gsize = _groups(attrs.pop("replica_groups", None), n)
    if groups is not None:
        attrs["replica_groups"] = groups
    oshape = oshape_of(shape, gsize)

    def build():
        inst = dict({"opcode": "CollectiveCompute", "kind": kind, "inputs": ["x"], "outputs": ["y"]}, **attrs)
        return (_prog([_t("x", shape, dt, "hbm"), _t("y", oshape, dt, "hbm")], [inst], cores=n),
                [("x", c) for c in range(n)], [("y", c) for c in range(n)])
    key = ("coll", kind, n, shape, dt, str(sorted(attrs.items())), str(settings))
    outs = _call(key, build, arrs, settings=settings)
    return [_values(o, dt, rb) for o in outs], user_shape, gsize


def all_reduce(xs, op="add", replica_groups=None):
    """nki.collectives.all_reduce over one array per rank: every rank gets
    the fold of its group's inputs (a list, rank order).

    Runs CollectiveCompute (IT 48) kind AllReduce (2) on len(xs) cores.
    The fold is doReduction in fp32: res = ins[0], then ins[1] ... in
    ascending core order within the group, narrowed RNE (so an int32 sum
    goes through fp32: collective.fp32_reduction). op "add", "max", "min";
    max / min keep the accumulator on a NaN or a tie (collective.sse_minmax).
    """
    outs, shape, _ = _collective("all_reduce", xs, "AllReduce", lambda s, g: s,
                                 {"reduce_op": op, "replica_groups": replica_groups})
    return [np.asarray(o).reshape(shape) for o in outs]


def all_gather(xs, replica_groups=None):
    """nki.collectives.all_gather: every rank gets its group's inputs
    stacked in core order, [group size, *shape].

    Runs CollectiveCompute (IT 48) kind AllGather (4), cc_dim 0 (the dense
    concatenation). Same dtype: raw bytes move.
    """
    outs, shape, g = _collective("all_gather", xs, "AllGather", lambda s, g: (g * int(np.prod(s)),),
                                 {"replica_groups": replica_groups})
    return [np.asarray(o).reshape((g,) + tuple(shape)) for o in outs]


def reduce_scatter(xs, op="add", replica_groups=None):
    """nki.collectives.reduce_scatter: rank at position j of its group gets
    part j of N equal parts of the group's fold (flat, C order; the first
    dim split when it divides).

    Runs CollectiveCompute (IT 48) kind ReduceScatter (3) with the fold of
    all_reduce. The reference runs it only among the cores of one LNC
    (collective.multi_lnc_unsupported): this call sets
    collective.cores_per_lnc to the rank count for one group, and
    collective.multi_lnc = "allow" when replica_groups are given.
    """
    arr0 = np.shape(xs[0])
    n = len(xs)
    settings = {"collective": {"multi_lnc": "allow"}} if replica_groups else {"collective": {"cores_per_lnc": n}}
    outs, shape, g = _collective("reduce_scatter", xs, "ReduceScatter", lambda s, g: (int(np.prod(s)) // g,),
                                 {"reduce_op": op, "replica_groups": replica_groups}, settings)
    part = (arr0[0] // g,) + tuple(arr0[1:]) if arr0 and arr0[0] % g == 0 else (int(np.prod(arr0)) // g,)
    return [np.asarray(o).reshape(part) for o in outs]


def all_to_all(xs, replica_groups=None):
    """nki.collectives.all_to_all: rank j of a group gets chunk j of every
    member's input, in core order (each input split in N equal chunks,
    flat C order); the output has the input's shape.

    Runs CollectiveCompute (IT 48) kind AllToAll (5).
    """
    outs, shape, _ = _collective("all_to_all", xs, "AllToAll", lambda s, g: s, {"replica_groups": replica_groups})
    return [np.asarray(o).reshape(shape) for o in outs]


def collective_permute(xs, source_target_pairs):
    """nki.collectives.collective_permute: rank t gets the input of the rank
    s of each pair [s, t]; ranks the pairs do not name take no part
    (their entry is None).

    Runs CollectiveCompute (IT 48) kind Permute (7) with src_target_pairs
    (a permutation of the ranks it names).
    """
    pairs = [[int(s), int(t)] for s, t in source_target_pairs]
    outs, shape, _ = _collective("collective_permute", xs, "Permute", lambda s, g: s, {"src_target_pairs": pairs})
    named = {t for _, t in pairs}
    return [np.asarray(o).reshape(shape) if r in named else None for r, o in enumerate(outs)]


def collective_permute_implicit(xs, replica_groups=None):
    """nki.collectives.collective_permute_implicit: each rank gets the input
    of its ring predecessor (the group in listed order).

    Runs CollectiveCompute (IT 48) kind PermuteImplicit (9).
    """
    outs, shape, _ = _collective("collective_permute_implicit", xs, "PermuteImplicit", lambda s, g: s,
                                 {"replica_groups": replica_groups})
    return [np.asarray(o).reshape(shape) for o in outs]


# The crosswalk: NKI name -> (IT, trnsim function); docs/python.md has it as a table.
CROSSWALK = [
    ("nki.isa.max8", "88 Max", "max8"),
    ("nki.isa.nc_find_index8", "89 MaxIndex", "nc_find_index8"),
    ("nki.isa.nc_match_replace8", "90 MatchReplace", "nc_match_replace8"),
    ("nki.isa.nc_match_replace8(dst_idx=...)", "91 MaxIndexAndMatchReplace", "nc_match_replace8(dst_idx=True)"),
    ("(max8 + nc_match_replace8 rounds)", "88 + 91", "topk"),
    ("nki.isa.bn_stats", "34 BNStats", "bn_stats"),
    ("nki.isa.bn_aggr", "35 BNStatsAggregate", "bn_aggr"),
    ("-", "36 BNGradients", "bn_gradients"),
    ("-", "37 BNBackprop", "bn_backprop"),
    ("-", "38 BNBackprop2", "bn_backprop2"),
    ("nki.isa.rand2", "99 + 97 + 98", "rand2"),
    ("-", "59 + 60 + 58 (gen-1)", "rand"),
    ("nki.isa.rand_get_state", "58 / 98", "get_rand_state"),
    ("nki.isa.rand_set_state", "59 / 99", "set_rand_state"),
    ("nki.isa.set_rng_seed", "99 with seed (MT19937-64)", "set_rng_seed"),
    ("nki.isa.dma_copy", "32 mode 0", "dma_copy"),
    ("nki.isa.dma_copy (dynamic indices)", "32 mode 0 indirect gather / scatter", "dma_gather, dma_scatter"),
    ("nki.isa.dma_transpose", "32 mode 1", "dma_transpose"),
    ("nki.isa.dma_compute", "32 mode 2 (CCE)", "dma_compute"),
    ("-", "32 mode 3", "dma_replicate"),
    ("nki.collectives.all_reduce", "48 kind 2", "all_reduce"),
    ("nki.collectives.all_gather", "48 kind 4", "all_gather"),
    ("nki.collectives.reduce_scatter", "48 kind 3", "reduce_scatter"),
    ("nki.collectives.all_to_all", "48 kind 5", "all_to_all"),
    ("nki.collectives.collective_permute", "48 kind 7", "collective_permute"),
    ("nki.collectives.collective_permute_implicit", "48 kind 9", "collective_permute_implicit"),
]
