"""trnsim.isa collectives (IT 48) over a list of per-rank arrays: against
the CLI bit for bit and against numpy (the fold in rank order)."""
import numpy as np
import pytest

import trnsim
from trnsim import isa

RNG = np.random.default_rng(5)


def ranks(n, shape=(4, 6), dtype=np.float32):
    return [(RNG.standard_normal(shape) * 10 ** RNG.integers(0, 8)).astype(dtype) for _ in range(n)]


def fold(xs, op=np.add):
    acc = xs[0].astype(np.float32)
    for x in xs[1:]:
        acc = op(x.astype(np.float32), acc)
    return acc


@pytest.mark.parametrize("n", [2, 3, 8])
def test_all_reduce_fold_order(n, same_as_cli):
    xs = ranks(n)
    outs = same_as_cli(isa.all_reduce, xs)
    want = fold(xs)  # fp32, ins[0] then ins[1] ... (not numpy's pairwise sum)
    for o in outs:
        assert np.array_equal(o.view(np.uint32), want.view(np.uint32))


def test_all_reduce_known_order():
    # 1e8 + 1 rounds back to 1e8 in fp32, so rank order gives 1 where the exact sum is 2
    xs = [np.array([v], np.float32) for v in (1e8, 1, -1e8, 1, 0, 0, 0, 0)]
    assert [o[0] for o in isa.all_reduce(xs)] == [1.0] * 8
    assert isa.all_reduce(xs[::-1])[0][0] == 0.0  # the reverse order


def test_all_reduce_max_min_and_groups(same_as_cli):
    xs = ranks(4)
    outs = same_as_cli(isa.all_reduce, xs, "max", [[0, 2], [1, 3]])
    assert np.array_equal(outs[0], np.maximum(xs[0], xs[2])) and np.array_equal(outs[3], np.maximum(xs[1], xs[3]))
    outs = isa.all_reduce(xs, "min")
    assert np.array_equal(outs[1], np.min(xs, axis=0))


def test_all_gather_reduce_scatter_all_to_all(same_as_cli):
    xs = ranks(4, (8, 3))
    g = same_as_cli(isa.all_gather, xs)
    for o in g:
        assert np.array_equal(o, np.stack(xs))
    rs = same_as_cli(isa.reduce_scatter, xs)
    total = fold(xs)
    for j, o in enumerate(rs):
        assert o.shape == (2, 3) and np.array_equal(o, total[2 * j:2 * j + 2])
    a2a = same_as_cli(isa.all_to_all, xs)
    for j, o in enumerate(a2a):
        want = np.concatenate([x.reshape(-1)[6 * j:6 * j + 6] for x in xs]).reshape(8, 3)
        assert np.array_equal(o, want)
    rsg = isa.reduce_scatter(xs, "add", [[0, 1], [2, 3]])
    assert np.array_equal(rsg[1], fold(xs[:2])[4:]) and np.array_equal(rsg[2], fold(xs[2:])[:4])


def test_permutes(same_as_cli):
    xs = ranks(4, (2, 2), np.int32)
    p = same_as_cli(isa.collective_permute, xs, [[0, 2], [2, 0], [1, 1], [3, 3]])
    assert np.array_equal(p[2], xs[0]) and np.array_equal(p[0], xs[2])
    assert np.array_equal(p[1], xs[1]) and np.array_equal(p[3], xs[3])
    ring = same_as_cli(isa.collective_permute_implicit, xs)
    for r in range(4):
        assert np.array_equal(ring[r], xs[(r - 1) % 4])


def test_raw_bytes_for_integers():
    xs = [np.array([2**31 - 1, 16777217], np.int32), np.array([5, 6], np.int32)]
    assert np.array_equal(isa.all_gather(xs)[0], np.stack(xs))  # routed raw: beyond 2^24 survives
    assert isa.all_reduce(xs)[0][1] == 16777216 + 6  # the fold is fp32 (collective.fp32_reduction)


def test_collective_errors():
    with pytest.raises(trnsim.InputError, match="rank 1 is float32 \\[3\\], rank 0 is float32 \\[2\\]"):
        isa.all_reduce([np.zeros(2, np.float32), np.zeros(3, np.float32)])
    # a group rule decided without data: refused when the program loads
    with pytest.raises(trnsim.ProgramError) as e:
        isa.all_to_all([np.zeros(6, np.float32)] * 4)
    assert "6 input elements do not split into 4 equal chunks" in e.value.message
    assert e.value.opcode == 48 and e.value.core is not None
