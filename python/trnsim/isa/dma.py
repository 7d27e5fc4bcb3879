"""trnsim.isa, DMA family: DMACopy (IT 32) in its modes."""
import numpy as np

from .. import dtypes, errors
from ._kernel import PARTITIONS, _api, _call, _input, _prog, _t, _values


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


@_api(32, "DMACopy")
def dma_copy(src, dtype=None, dst=None, dst_rmw_op=None):
    """nki.isa.dma_copy: src copied into a destination of dtype (default:
    dst's, else src's), through fp32 with RNE when the dtypes differ (raw
    bytes when equal: NaN payloads and integers beyond 2^24 survive).

    Runs DMACopy (IT 32) mode 0 between HBM tensors. dst: the destination,
    as NKI's dma_copy(dst=..., src=...): a numpy array is written in place
    and returned (its shape and dtype are the destination's); anything else
    array-like gives the initial contents of a new array. dst_rmw_op="add"
    accumulates into it (the accumulate flag: cast_copy_or_accumulate add,
    needs a reducing dtype). Element counts must match. Returns the
    destination.
    """
    s, sdt, rb = _flat_hbm(src, "dma_copy src")
    if dst_rmw_op not in (None, "add"):
        raise errors.InputError("dma_copy: dst_rmw_op is None or 'add' (NKI allows only add), not "
                                "%r" % (dst_rmw_op,))
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
    if sdt in dtypes.SMALL_INTS and not rb and (ddt != sdt or dst_rmw_op):
        raise dtypes.ambiguous_bits(src, "a cast to %s" % ddt, "isa.dma_copy src")
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
    values = _values(out, ddt, rb).reshape(shape)
    return _write_dst(dst, out, values, "dma_copy")


def _write_dst(dst, raw, values, what):
    """NKI's dst is written, not only read: the result goes into a numpy dst
    in place (raw bits when its items are the tensor's size, as for
    bfloat16 held in uint16 or ml_dtypes; else values) and dst is returned."""
    if not isinstance(dst, np.ndarray):
        return values
    if not dst.flags.writeable:
        raise errors.InputError("isa.%s: dst is read-only, and the result is written into it (as "
                                "NKI's dst); pass a writable array, or a copy" % what)
    if dst.dtype.itemsize == raw.dtype.itemsize and dst.dtype.kind != "b":
        dst.view(raw.dtype)[...] = raw.reshape(dst.shape)
    else:
        dst[...] = values
    return dst


@_api(32, "DMACopy")
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


@_api(32, "DMACopy")
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


@_api(32, "DMACopy")
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
    for i, (_, sdt, rb) in enumerate(ins):
        if sdt in dtypes.SMALL_INTS and not rb:
            raise dtypes.ambiguous_bits(srcs[i], "the fp32 fold", "isa.dma_compute srcs[%d]" % i)
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


@_api(32, "DMACopy")
def dma_gather(table, indices, dst=None, dst_rmw_op=None):
    """Rows of table picked by indices: out[j] = table[indices[j]]
    (indices.shape + table.shape[1:]; NKI: dma_copy with dynamic indices).

    Runs DMACopy (IT 32) mode 0 with indirect "gather", elems_per_index the
    size of one table row. Every index must be a row of the table (else an
    error, nothing written). dst: the destination's contents, a numpy dst
    written in place and returned (as dma_copy's); dst_rmw_op="add":
    accumulate into dst.
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
    return _write_dst(dst, out, _values(out, tdt, rb).reshape(oshape), "dma_gather")


@_api(32, "DMACopy")
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
