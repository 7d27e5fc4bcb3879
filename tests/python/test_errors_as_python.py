"""Mistakes a kernel author makes end in one trnsim.Error that reads as
Python: the isa function and argument, the opcode it runs, no CLI flags,
nothing printed."""
import numpy as np
import pytest

import trnsim
from trnsim import collectives, isa

X = np.zeros((2, 16), np.float32)
XS = [np.zeros(4, np.float32)] * 4

# (call, error class, message start, opcode)
MISTAKES = [
    (lambda: isa.max8(np.zeros((2, 4), np.float32)), trnsim.InputError,
     "isa.max8 data: 4 elements per partition, at least 8 needed", 88),
    (lambda: isa.max8(X, src=X), trnsim.InputError, "isa.max8: give data (or NKI's src=)", 88),
    (lambda: isa.topk(X, 0), trnsim.InputError, "isa.topk: k = 0 must be 1 .. 16", 88),
    (lambda: isa.topk(X.astype(np.uint16), 8), trnsim.InputError, "isa.topk x: a plain uint16 array is integers", 88),
    (lambda: isa.nc_find_index8(X, np.zeros((2, 4), np.float32)), trnsim.InputError,
     "isa.nc_find_index8 vals: expected 2 partitions of 8 elements", 89),
    (lambda: isa.nc_match_replace8(X, X[:, :8], 0.0, dst_idx=[0] * 8), trnsim.InputError,
     "isa.nc_match_replace8: dst_idx is a numpy array to fill", 90),
    (lambda: isa.bn_aggr(np.zeros((2, 5), np.float32)), trnsim.ProgramError, "isa.bn_aggr: ", 35),
    (lambda: isa.bn_gradients(X, X[:, :8], X[:, 0], X[:, 0]), trnsim.InputError,
     "isa.bn_gradients: dy has shape [2, 8], x [2, 16]", 36),
    (lambda: isa.rand2((4, 8), lanes=3), trnsim.InputError, "isa.rand2: lanes is 1, 2 or 4, not 3", 97),
    (lambda: isa.rand2((4, 8), state=np.zeros((4, 6), np.uint32)), trnsim.InputError,
     "isa.rand2 state: a state is [4, 24] uint32 here", 97),
    (lambda: isa.rand_set_state(np.zeros((4, 5), np.uint32)), trnsim.InputError,
     "isa.set_rand_state: a state is [P, 6] (gen-1) or [P, 24] (gen-2) uint32", 99),
    (lambda: isa.dma_copy(X, dst_rmw_op="max"), trnsim.InputError, "isa.dma_copy: dst_rmw_op is None or 'add'", 32),
    (lambda: isa.dma_transpose(X, axes=(0, 0)), trnsim.InputError,
     "isa.dma_transpose: axes [0, 0] is not a permutation", 32),
    (lambda: isa.dma_gather(X, np.array([0.5])), trnsim.InputError,
     "isa.dma_gather indices: indices are integers, got float64", 32),
    (lambda: collectives.all_reduce(XS, replica_groups=[[0, 1]]), trnsim.InputError,
     "isa.all_reduce: ranks 2, 3 in no replica group", 48),
    (lambda: collectives.all_reduce(XS, op="mul"), trnsim.InputError, "isa.all_reduce: op is 'add', 'maximum'", 48),
    (lambda: collectives.collective_permute(XS, [[0, 1], [1, 0]]), trnsim.InputError,
     "isa.collective_permute: no pair sends to ranks 2, 3", 48),
    (lambda: isa.all_gather([X, X[:1]]), trnsim.InputError, "isa.all_gather: rank 1 is float32 [1, 16]", 48),
]


@pytest.mark.parametrize("call, cls, start, opcode", MISTAKES)
def test_mistake_ends_in_one_python_error(call, cls, start, opcode, capfd):
    with pytest.raises(cls) as e:
        call()
    assert e.value.message.startswith(start), e.value.message
    assert e.value.opcode == opcode and e.value.opcode_name
    assert "--input" not in e.value.message and "--set" not in e.value.message
    assert capfd.readouterr() == ("", "")


def test_library_errors_keep_their_own_instruction_fields():
    with pytest.raises(trnsim.ProgramError) as e:
        isa.max8(np.zeros((1, 16385), np.float32))
    assert e.value.message.startswith("isa.max8: ") and "opcode Max/88" in e.value.message
    assert (e.value.opcode, e.value.instruction, e.value.core) == (88, 0, 0)
