"""trnsim.isa, collectives: CollectiveCompute (IT 48)."""
import numpy as np

from .. import errors
from ._kernel import _api, _call, _prog, _t, _values
from .dma import _flat_hbm


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


# NKI's names for the fold (strings, or numpy's / nki.language's functions by name)
_OPS = {"add": "add", "max": "max", "maximum": "max", "min": "min", "minimum": "min"}


def _reduce_op(op, what):
    name = op if isinstance(op, str) else getattr(op, "__name__", None)
    if name not in _OPS:
        raise errors.InputError("isa.%s: op is 'add', 'maximum' or 'minimum' (also 'max', 'min', "
                                "np.add, np.maximum, np.minimum), not %r" % (what, op))
    return _OPS[name]


def _groups(groups, n, what):
    """replica_groups as lists of ints, and the group size. NKI's rule: every
    rank 0..n-1 in exactly one group (a rank in none would get no result:
    the reference leaves its output unwritten)."""
    if groups is None:
        return None, n
    g = [[int(r) for r in grp] for grp in groups]
    seen = {}
    for j, grp in enumerate(g):
        if not grp:
            raise errors.InputError("isa.%s: replica_groups[%d] is empty; every group names at "
                                    "least one rank" %
                                    (what, j))
        for r in grp:
            if not 0 <= r < n:
                raise errors.InputError("isa.%s: replica_groups[%d] names rank %d; the ranks are "
                                        "0..%d (one per array)" % (what, j, r, n - 1))
            if r in seen:
                raise errors.InputError("isa.%s: rank %d is in replica_groups[%d] and [%d]; every "
                                        "rank is in exactly one group" % (what, r, seen[r], j))
            seen[r] = j
    missing = [r for r in range(n) if r not in seen]
    if missing:
        raise errors.InputError("isa.%s: rank%s %s in no replica group, so %s no result; every "
                                "rank is in exactly one group (NKI's rule): add %s to a group" %
                                (what, "s" if len(missing) > 1 else "",
                                 ", ".join(map(str, missing)),
                                 "they would get" if len(missing) > 1 else "it would get",
                                 "them" if len(missing) > 1 else "it"))
    return g, len(g[0])


def _collective(what, xs, kind, oshape_of, attrs, settings=None):
    arrs, dt, shape, rb, user_shape = _ranks(xs, what)
    n = len(arrs)
    groups, gsize = _groups(attrs.pop("replica_groups", None), n, what)
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


@_api(48, "CollectiveCompute")
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
                                 {"reduce_op": _reduce_op(op, "all_reduce"),
                                  "replica_groups": replica_groups})
    return [o.reshape(shape) for o in outs]


@_api(48, "CollectiveCompute")
def all_gather(xs, replica_groups=None):
    """nki.collectives.all_gather: every rank gets its group's inputs
    stacked in core order, [group size, *shape].

    Runs CollectiveCompute (IT 48) kind AllGather (4), cc_dim 0 (the dense
    concatenation). Same dtype: raw bytes move.
    """
    outs, shape, g = _collective("all_gather", xs, "AllGather", lambda s, g: (g * int(np.prod(s)),),
                                 {"replica_groups": replica_groups})
    return [o.reshape((g,) + tuple(shape)) for o in outs]


@_api(48, "CollectiveCompute")
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
                                 {"reduce_op": _reduce_op(op, "reduce_scatter"),
                                  "replica_groups": replica_groups},
                                 settings)
    part = (arr0[0] // g,) + tuple(arr0[1:]) if arr0 and arr0[0] % g == 0 else (int(np.prod(arr0)) // g,)
    return [o.reshape(part) for o in outs]


@_api(48, "CollectiveCompute")
def all_to_all(xs, replica_groups=None):
    """nki.collectives.all_to_all: rank j of a group gets chunk j of every
    member's input, in core order (each input split in N equal chunks,
    flat C order); the output has the input's shape.

    Runs CollectiveCompute (IT 48) kind AllToAll (5).
    """
    outs, shape, _ = _collective("all_to_all", xs, "AllToAll", lambda s, g: s, {"replica_groups": replica_groups})
    return [o.reshape(shape) for o in outs]


@_api(48, "CollectiveCompute")
def collective_permute(xs, source_target_pairs):
    """nki.collectives.collective_permute: rank t gets the input of the rank
    s of each pair [s, t]. Every rank must receive from exactly one pair
    (a rank that keeps its own input names [r, r]); a rank no pair sends to
    would get no result, and is an error.

    Runs CollectiveCompute (IT 48) kind Permute (7) with src_target_pairs
    (a permutation of the ranks it names).
    """
    n = len(list(xs))
    pairs = [[int(s), int(t)] for s, t in source_target_pairs]
    targets = [t for _, t in pairs]
    missing = [r for r in range(n) if r not in targets]
    if missing:
        raise errors.InputError("isa.collective_permute: no pair sends to rank%s %s, so %s no "
                                "result; name a pair "
                                "for every rank ([r, r] keeps rank r's own input)" %
                                ("s" if len(missing) > 1 else "", ", ".join(map(str, missing)),
                                 "they would get" if len(missing) > 1 else "it would get"))
    outs, shape, _ = _collective("collective_permute", xs, "Permute", lambda s, g: s, {"src_target_pairs": pairs})
    return [o.reshape(shape) for o in outs]


@_api(48, "CollectiveCompute")
def collective_permute_implicit(xs, replica_groups=None):
    """nki.collectives.collective_permute_implicit: each rank gets the input
    of its ring predecessor (the group in listed order).

    Runs CollectiveCompute (IT 48) kind PermuteImplicit (9).
    """
    outs, shape, _ = _collective("collective_permute_implicit", xs, "PermuteImplicit", lambda s, g: s,
                                 {"replica_groups": replica_groups})
    return [o.reshape(shape) for o in outs]
