"""trnsim.isa, search family: Max, MaxIndex, MatchReplace (IT 88-91) and TopK."""
import numpy as np

from .. import dtypes, errors
from ._kernel import (_api, _call, _chunked, _float_out, _fp32_attr, _one_of, _per_partition,
                      _prog, _rows, _t, _values)


@_api(88, "Max")
def max8(data=None, dtype=None, *, src=None):
    """nki.isa.max8: the 8 largest values of each partition, descending.

    Runs Max (IT 88). data (NKI's src=) [P, N], 8 <= N <= 16384 elements per partition
    (free dims flattened). Returns [P, 8] in dtype (default: data's float
    dtype, float32 for integer data); values are compared in fp32 and
    narrowed RNE. Quirks: ties keep the earliest element
    (search.earliest_tie); a NaN is sticky (search.sticky_nan: it only
    lands while the slots fill and is never displaced); a demoted value
    equal to the next slot lands further down (search.signed_zero_cascade).
    """
    return _chunked(_max8, [_one_of("max8", data, "data", src, "src")], dtype)


_ROW_MAX = 16384  # elements per partition Max and the match instructions take


def _with_split_hint(run, n, wider):
    """run(); the module's refusal of a row over 16384 elements, with its
    instruction's fields, then says how to split the row."""
    try:
        return run()
    except errors.ProgramError as exc:
        if n <= _ROW_MAX:
            raise
        raise type(exc)("%s. For a wider row: %s" % (exc.message, wider), file=exc.file,
                        instruction=exc.instruction, core=exc.core, opcode=exc.opcode,
                        opcode_name=exc.opcode_name) from None


def _max8(data, dtype):
    x, dt, rb = _rows(data, "max8 data", 8)
    odt = dtypes.canonical(dtype) if dtype else _float_out(dt)
    p, n = x.shape

    def build():
        return (_prog([_t("x", (p, n), dt), _t("v", (p, 8), odt)],
                      [{"opcode": "Max", "inputs": ["x"], "outputs": ["v"]}]), [("x", -1)], [("v", 0)])
    (v,) = _with_split_hint(lambda: _call(("max8", p, n, dt, odt), build, [x]), n,
                            "split the row into parts of at most 16384 columns, max8 each part, "
                            "and max8 the "
                            "parts' results side by side ([P, 8 * parts]): the 8 largest of the "
                            "parts' 8 largest are the row's")
    return _values(v, odt, rb)


@_api(89, "MaxIndex")
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


@_api(90, "MatchReplace")
def nc_match_replace8(data, vals, imm, dst_idx=None):
    """nki.isa.nc_match_replace8: data with the first occurrence of each of
    the 8 vals of a partition replaced by imm (an fp32 value).

    Runs MatchReplace (IT 90); with dst_idx runs the fused
    MaxIndexAndMatchReplace (IT 91) and gives the indices as
    nc_find_index8 gives them: dst_idx a [P, 8] uint32 (or wider integer)
    array, as NKI's dst_idx tile, is filled with them in place; dst_idx=True
    returns (data_out, indices) instead. data [P, N] (8..16384), vals
    [P, 8]; data_out has data's shape and dtype. Quirks as nc_find_index8:
    IEEE equality, ascending assignment of duplicates (NKI's v2.32 docs
    give the reverse order; the data output is the same in both).
    """
    if dst_idx is None or dst_idx is False:
        return _chunked(_match_replace8, [data, vals], imm, False)
    y, idx = _chunked(_match_replace8, [data, vals], imm, True)
    if dst_idx is True:
        return y, idx
    _fill_tile(dst_idx, idx, "nc_match_replace8", "dst_idx")
    return y


def _fill_tile(tile, values, what, arg):
    """Write values into the caller's array, as an NKI instruction writes its dst tile."""
    if type(tile) is not np.ndarray:
        raise errors.InputError("isa.%s: %s is a numpy array to fill (or True to get the values "
                                "back), not %s" %
                                (what, arg, type(tile).__name__))
    if tile.shape != values.shape:
        raise errors.InputError("isa.%s: %s has shape %s; it takes %s" %
                                (what, arg, list(tile.shape), list(values.shape)))
    if not np.can_cast(values.dtype, tile.dtype, "safe"):
        raise errors.InputError("isa.%s: %s is %s, which cannot hold every %s value; use %s or "
                                "wider" %
                                (what, arg, tile.dtype, values.dtype, values.dtype))
    if not tile.flags.writeable:
        raise errors.InputError("isa.%s: %s is read-only" % (what, arg))
    tile[...] = values


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


@_api(88, "Max")
def topk(x, k):
    """The k largest values of each partition and their indices:
    (values [P, k] descending, indices [P, k] uint32).

    Runs ceil(k / 8) rounds of Max (IT 88) then MaxIndexAndMatchReplace
    (IT 91, imm_value -inf) on a working copy: the TopK pattern of public
    NKI kernels (max8 + nc_match_replace8 with dst_idx). Equal values come
    in index order (Max keeps the earliest; the match takes successive
    occurrences). x [P, N], 8 <= N <= 16384, k <= N. Values are in x's
    dtype (float32 for integer x).

    The reference's bits where the values run out (docs/python.md, TopK):
    a row with fewer than k values above -inf gets -inf values (right),
    and for them the indices of the row's first -inf elements in position
    order, starting again from the first in every round of 8 (striking out
    -inf with -inf changes nothing), so indices repeat: an all -inf row
    gives [0..7, 0..7, ...]. A NaN is sticky in Max and never matches: it
    comes back in every round, at the slot where Max kept it, with index
    0xFFFFFFFF, taking the place of that round's smallest value.
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
    vals, idx = _with_split_hint(lambda: _call(("topk", p, n, dt, rounds), build, [d]), n,
                                 "topk each part of at most 16384 columns, add each part's first "
                                 "column to its "
                                 "indices, then topk the parts' values side by side and take the "
                                 "indices at the winners' positions")
    return _values(vals[:, :k].copy(), vdt, rb), idx[:, :k].copy()
