"""trnsim.isa is a package (one module per family plus the kernel cache):
every name the single isa.py module had is still there, from the package."""
import importlib

import trnsim
from trnsim import isa

# the public names of isa.py before it became a package
PUBLIC = """all_gather all_reduce all_to_all bn_aggr bn_backprop bn_backprop2 bn_gradients bn_stats
clear_cache collective_permute collective_permute_implicit configure dma_compute dma_copy dma_gather
dma_replicate dma_scatter dma_transpose get_rand_state max8 nc_find_index8 nc_match_replace8 rand rand2
rand_get_state rand_set_state reduce_scatter set_rand_state set_rng_seed topk
CROSSWALK PARTITIONS recorder""".split()


def test_every_public_name_stays():
    missing = [n for n in PUBLIC if not hasattr(isa, n)]
    assert not missing
    assert trnsim.isa is isa and isa.__file__.endswith("isa/__init__.py")


def test_one_module_per_family():
    for fam, name in (("search", "topk"), ("bn", "bn_stats"), ("rng", "rand2"), ("dma", "dma_copy"),
                      ("collectives", "all_reduce")):
        mod = importlib.import_module("trnsim.isa." + fam)
        assert getattr(mod, name) is getattr(isa, name)


def test_crosswalk_names_resolve():
    for _, _, fn in isa.CROSSWALK:
        for name in fn.replace("(dst_idx=True)", "").split(", "):
            assert callable(getattr(isa, name)), name
