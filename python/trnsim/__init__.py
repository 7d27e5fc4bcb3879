"""trnsim: the bit-exact NeuronCore instruction simulator, in process from numpy.

    import numpy as np, trnsim
    from trnsim import isa
    x = np.random.default_rng(0).standard_normal((128, 512), dtype=np.float32)
    values, indices = isa.topk(x, 16)          # Max-8 rounds on the reference model
    mean_var = isa.bn_aggr(isa.bn_stats(x))     # BNStats + BNStatsAggregate

trnsim.Simulator runs whole native programs (dicts, JSON text, paths or a
trnsim.Program); trnsim.isa has one function per instruction under its NKI
name; trnsim.as_bits (take bit patterns), trnsim.round_to (round values) and
trnsim.from_bits carry bfloat16 and fp8 as raw bits.
docs/python.md has the details and the NKI crosswalk.
"""
from ._lib import lib as _cdll
from .dtypes import RawBits, as_bits, bits, from_bits, round_to
from .errors import ConfigError, Error, InputError, ModuleError, ProgramError, RunError, UsageError
from .program import Operand, Program, TensorRef
from .simulator import Simulator, TensorInfo
from . import collectives, isa

__version__ = _cdll.trnsim_version().decode()
API_VERSION = _cdll.trnsim_api_version()

__all__ = ["Simulator", "Program", "TensorRef", "Operand", "TensorInfo", "RawBits", "as_bits",
           "round_to", "bits", "from_bits", "isa", "collectives", "Error", "ConfigError",
           "ModuleError", "ProgramError", "InputError", "RunError", "UsageError"]
