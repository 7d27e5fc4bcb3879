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
bfloat16 / fp8 come as ml_dtypes arrays or as trnsim.as_bits() raw bits (a plain
8- or 16-bit integer array is integers, and floating-point instructions
refuse it: docs/python.md, "Low-precision bits are never guessed").
"""
# None, or a list: every call then appends (program, [(input, core, raw)],
# [(output, core, raw)], settings) -- how the tests replay each call through the CLI
recorder = None

from ._kernel import PARTITIONS, clear_cache, configure
from .search import max8, nc_find_index8, nc_match_replace8, topk
from .bn import bn_aggr, bn_backprop, bn_backprop2, bn_gradients, bn_stats
from .rng import (get_rand_state, rand, rand2, rand_get_state, rand_set_state, reset_rand_state,
                  set_rand_state, set_rng_seed)
from .dma import dma_compute, dma_copy, dma_gather, dma_replicate, dma_scatter, dma_transpose
from .collectives import (all_gather, all_reduce, all_to_all, collective_permute,
                          collective_permute_implicit, reduce_scatter)

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
