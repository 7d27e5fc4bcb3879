"""trnsim.collectives: NKI's nki.collectives names, one array per rank in,
one array per rank out (the functions of trnsim.isa's collectives).

    from trnsim import collectives as cc
    sums = cc.all_reduce([x0, x1, x2, x3], op="add", replica_groups=[[0, 1], [2, 3]])

NKI's replica_groups rule holds: every rank (0 .. len(xs) - 1) is in exactly
one group, all groups of one size; otherwise trnsim.InputError, never an
array of zeros for a rank outside every group. collective_permute needs a
pair sending to every rank ([r, r] keeps rank r's input). op is "add",
"maximum" or "minimum" (or "max", "min", np.add, np.maximum, np.minimum).
docs/python.md has the crosswalk.
"""
from .isa.collectives import (all_gather, all_reduce, all_to_all, collective_permute,  # noqa: F401
                              collective_permute_implicit, reduce_scatter)

__all__ = ["all_reduce", "all_gather", "reduce_scatter", "all_to_all", "collective_permute",
           "collective_permute_implicit"]
