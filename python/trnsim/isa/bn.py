"""trnsim.isa, BN family: BNStats .. BNBackprop2 (IT 34-38)."""
import numpy as np

from .. import dtypes, errors
from ._kernel import (_api, _call, _chunked, _fp32_attr, _one_of, _per_partition, _prog, _rows, _t,
                      _values)


@_api(34, "BNStats")
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


@_api(35, "BNStatsAggregate")
def bn_aggr(stats=None, *, data=None):
    """nki.isa.bn_aggr: per partition, (mean, variance) of the records in stats.

    Runs BNStatsAggregate (IT 35). stats (NKI's data=) [P, 6K]: K bn_stats records side by
    side, merged in order (Chan). The variance is the population variance
    (bn.population_variance). Quirks: bn.raw_m2_normalized_merge; zero counts
    are not guarded (bn.aggregate_zero_count_nan: an empty first record gives
    NaN). Elements per partition must be a multiple of 6 (NKI says 3).
    """
    return _chunked(_bn_aggr, [_one_of("bn_aggr", stats, "stats", data, "data")])


def _bn_aggr(stats):
    s, dt, _ = _rows(stats, "bn_aggr stats")
    p, n = s.shape

    def build():
        return (_prog([_t("st", (p, n), dt), _t("mv", (p, 2), "float32")],
                      [{"opcode": "BNStatsAggregate", "inputs": ["st"], "outputs": ["mv"]}]),
                [("st", -1)], [("mv", 0)])
    return _call(("bnaggr", p, n, dt), build, [s])[0].view(np.float32)


@_api(36, "BNGradients")
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


@_api(37, "BNBackprop")
def bn_backprop(x, dy, mean, coef, total_elements, dtype="float32"):
    """The BN dx apply with packed coefficients (no NKI name):
    dx = (dy*total_elements - ((x - m)*Bc + A)) * scale, coef = (A, Bc, scale).

    Runs BNBackprop (IT 37), inputs [x, dy, mean, coef]. x, dy [P, N]; mean
    [P] or [P, 1]; coef [P, 3]. total_elements is rounded to fp32 once, as
    the reference reads it. Returns dx [P, N] in dtype.
    """
    return _chunked(_bn_backprop, [x, dy, mean, coef], None, total_elements, dtype)


@_api(38, "BNBackprop2")
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
