"""trnsim.isa DMA functions (IT 32 modes 0-3): against the CLI bit for bit
and against numpy."""
import numpy as np
import pytest

import trnsim
from trnsim import isa

RNG = np.random.default_rng(3)


def bf16_rne(x):
    """An independent fp32 -> bf16 RNE (NaN -> 0x7fc0)."""
    u = np.ascontiguousarray(x, np.float32).view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(x), np.uint16(0x7FC0), r)


def test_copy_same_dtype_keeps_bits(same_as_cli):
    x = RNG.integers(0, 2**32, 64, dtype=np.uint64).astype(np.uint32).view(np.float32).reshape(8, 8)
    y = same_as_cli(isa.dma_copy, x)
    assert np.array_equal(y.view(np.uint32), x.view(np.uint32))  # NaN payloads too


def test_copy_cast_and_accumulate(same_as_cli):
    x = (RNG.standard_normal((16, 32)) * 100).astype(np.float32)
    y = same_as_cli(isa.dma_copy, x, "bfloat16")
    assert np.array_equal(trnsim.round_to(y, "bfloat16"), bf16_rne(x))
    yb = isa.dma_copy(trnsim.round_to(x, "bf16"))  # raw bits in, raw bits out
    assert isinstance(yb, trnsim.RawBits) and np.array_equal(yb, bf16_rne(x))
    h = same_as_cli(isa.dma_copy, x, "float16")
    assert h.dtype == np.float16 and np.array_equal(h, x.astype(np.float16))
    acc = same_as_cli(isa.dma_copy, x, dst=np.ones((16, 32), np.float32), dst_rmw_op="add")
    assert np.array_equal(acc, x + np.float32(1))
    i = same_as_cli(isa.dma_copy, np.array([1.7, -2.7, 3e10, np.nan], np.float32), "int32")
    assert list(i) == [1, -2, 2**31 - 1, 0]  # truncate, saturate, NaN -> 0


@pytest.mark.parametrize("shape,axes", [((6, 5), None), ((2, 3, 4), None), ((2, 3, 4, 5), (3, 1, 2, 0)),
                                        ((4, 7), (0, 1)), ((3, 4, 5), (1, 0, 2))])
def test_transpose(shape, axes, same_as_cli):
    x = RNG.integers(-100, 100, shape).astype(np.int32)
    y = same_as_cli(isa.dma_transpose, x, axes)
    assert np.array_equal(y, np.transpose(x, axes))


def test_replicate(same_as_cli):
    x = RNG.standard_normal((1, 64)).astype(np.float32)
    y = same_as_cli(isa.dma_replicate, x, 128)
    assert np.array_equal(y, np.tile(x, (128, 1)))


def test_compute_cce(same_as_cli):
    xs = [RNG.standard_normal((8, 16)).astype(np.float32) for _ in range(5)]
    s = same_as_cli(isa.dma_compute, xs, "add")
    acc = np.zeros((8, 16), np.float32)  # +0.0, then each source in order
    for x in xs:
        acc = acc + x
    assert np.array_equal(s.view(np.uint32), acc.view(np.uint32))
    neg = [-np.abs(x) - 1 for x in xs]
    assert np.array_equal(same_as_cli(isa.dma_compute, neg, "max"), np.zeros((8, 16), np.float32))  # zeroed acc
    assert np.array_equal(isa.dma_compute(xs, "min"), np.minimum(np.min(xs, axis=0), 0))
    with pytest.raises(trnsim.InputError, match="no scales"):
        isa.dma_compute(xs[:2], scales=[2.0, 1.0])


def test_gather_scatter(same_as_cli):
    table = RNG.standard_normal((10, 3)).astype(np.float32)
    idx = np.array([9, 0, 4, 4, 2], np.int64)
    g = same_as_cli(isa.dma_gather, table, idx)
    assert np.array_equal(g, table[idx])
    src = RNG.standard_normal((5, 3)).astype(np.float32)
    t = same_as_cli(isa.dma_scatter, table, idx, src)
    want = table.copy()
    for j, i in enumerate(idx):  # in order: the later repeated index wins
        want[i] = src[j]
    assert np.array_equal(t, want)
    t2 = same_as_cli(isa.dma_scatter, table, idx, src, "add")
    want = table.copy()
    for j, i in enumerate(idx):
        want[i] = want[i] + src[j]
    assert np.array_equal(t2, want)
    g2 = isa.dma_gather(table, idx, dst=np.ones((5, 3), np.float32), dst_rmw_op="add")
    assert np.array_equal(g2, table[idx] + np.float32(1))


def test_dma_errors():
    with pytest.raises(trnsim.RunError) as e:
        isa.dma_gather(np.zeros((6, 1), np.float32), np.array([0, 9], np.int32))
    assert "gather: index 9 at position 1 is outside the table of 6" in e.value.message
    assert e.value.opcode == 32 and e.value.instruction == 0
    with pytest.raises(trnsim.ProgramError, match="elements"):  # the static check, before anything runs
        isa.dma_copy(np.zeros(4, np.float32), dst=np.zeros(5, np.float32))
    with pytest.raises(trnsim.InputError, match="only add"):
        isa.dma_copy(np.zeros(4, np.float32), dst=np.zeros(4, np.float32), dst_rmw_op="max")
    with pytest.raises(trnsim.InputError, match="not a permutation"):
        isa.dma_transpose(np.zeros((2, 2)), (0, 0))
