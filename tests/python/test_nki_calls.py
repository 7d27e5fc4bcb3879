"""NKI's call forms through trnsim.isa and trnsim.collectives: keyword
names, tiles written in place (dst_idx=, dst=), and the replica_groups rule
(every rank in exactly one group, else an error, never zeros or None)."""
import numpy as np
import pytest

import trnsim
from trnsim import collectives, isa


def rows(p, n, seed=0):
    return np.random.default_rng(seed).standard_normal((p, n), dtype=np.float32)


def test_nki_keywords():
    x = rows(4, 64)
    assert np.array_equal(isa.max8(src=x), isa.max8(x))
    st = isa.bn_stats(data=x)
    assert np.array_equal(isa.bn_aggr(data=st), isa.bn_aggr(st))
    with pytest.raises(trnsim.InputError, match=r"isa.max8: give data \(or NKI's src=\), exactly one of them"):
        isa.max8(x, src=x)
    with pytest.raises(trnsim.InputError, match=r"isa.bn_aggr: give stats \(or NKI's data=\)"):
        isa.bn_aggr()


def test_match_replace8_fills_the_dst_idx_tile():
    x = np.array([[1, 2, 3, 4, 8, 8, 8, 8, 8, 8, 8]], np.float32)
    vals = np.array([[3, 8, 8, 8, 8, 8, 8, 8]], np.float32)
    tile = np.zeros((1, 8), np.uint32)
    y = isa.nc_match_replace8(x, vals, -np.inf, dst_idx=tile)
    assert tile.tolist() == [[2, 4, 5, 6, 7, 8, 9, 10]]       # the reference's ascending order
    assert y.tolist() == [[1, 2, -np.inf, 4] + [-np.inf] * 7]
    wide = np.zeros((1, 8), np.int64)
    isa.nc_match_replace8(x, vals, 0.0, dst_idx=wide)
    assert wide.tolist() == tile.tolist()
    with pytest.raises(trnsim.InputError, match="dst_idx is int32, which cannot hold every uint32 value"):
        isa.nc_match_replace8(x, vals, 0.0, dst_idx=np.zeros((1, 8), np.int32))
    with pytest.raises(trnsim.InputError, match=r"dst_idx has shape \[8\]; it takes \[1, 8\]"):
        isa.nc_match_replace8(x, vals, 0.0, dst_idx=np.zeros(8, np.uint32))
    yy, idx = isa.nc_match_replace8(x, vals, -np.inf, dst_idx=True)   # trnsim's form stays
    assert np.array_equal(idx, tile) and np.array_equal(yy, y)


def test_topk_loop_written_the_nki_way():
    """The TopK of NKI kernels: max8 then nc_match_replace8(dst_idx=tile), k/8 rounds."""
    x = rows(16, 300, 3)
    work, vals, idx = x.copy(), [], []
    for _ in range(4):
        v = isa.max8(src=work)
        tile = np.empty((16, 8), np.uint32)
        work = isa.nc_match_replace8(work, v, -np.inf, dst_idx=tile)
        vals.append(v)
        idx.append(tile)
    v, i = isa.topk(x, 32)
    assert np.array_equal(np.concatenate(vals, 1), v) and np.array_equal(np.concatenate(idx, 1), i)


def test_dma_copy_writes_dst():
    x = rows(4, 16)
    out = np.zeros((4, 16), np.float32)
    got = isa.dma_copy(dst=out, src=x)
    assert got is out and np.array_equal(out, x)
    half = np.zeros((4, 16), np.float16)
    isa.dma_copy(dst=half, src=x)                    # a cast into dst's dtype
    assert np.array_equal(half, x.astype(np.float16))
    acc = np.ones((4, 16), np.float32)
    isa.dma_copy(dst=acc, src=x, dst_rmw_op="add")
    assert np.array_equal(acc, x + np.float32(1))
    ro = np.zeros((4, 16), np.float32)
    ro.flags.writeable = False
    with pytest.raises(trnsim.InputError, match="isa.dma_copy: dst is read-only"):
        isa.dma_copy(dst=ro, src=x)
    assert not ro.any()


def test_dma_gather_writes_dst():
    table = np.arange(12, dtype=np.float32).reshape(4, 3)
    dst = np.zeros((2, 3), np.float32)
    assert isa.dma_gather(table, np.array([3, 1], np.int32), dst=dst) is dst
    assert dst.tolist() == [[9, 10, 11], [3, 4, 5]]


def ranks(n, seed=0):
    return [np.random.default_rng(seed + r).standard_normal(6, dtype=np.float32) for r in range(n)]


def test_collectives_namespace_has_nki_names_and_ops():
    xs = ranks(4)
    want = ((xs[0] + xs[1]) + xs[2]) + xs[3]
    for out in collectives.all_reduce(xs, op="add"):
        assert np.array_equal(out, want)
    for op, fn in (("maximum", np.maximum), (np.maximum, np.maximum), ("minimum", np.minimum)):
        got = collectives.all_reduce(xs, op=op, replica_groups=[[0, 1], [2, 3]])
        assert np.array_equal(got[0], fn(xs[0], xs[1])) and np.array_equal(got[3], fn(xs[2], xs[3]))
    assert trnsim.collectives.all_gather is isa.all_gather
    with pytest.raises(trnsim.InputError, match="op is 'add', 'maximum' or 'minimum'"):
        collectives.all_reduce(xs, op="mul")


@pytest.mark.parametrize("fn", [collectives.all_reduce, collectives.all_gather, collectives.all_to_all,
                                collectives.collective_permute_implicit])
def test_a_rank_in_no_group_is_an_error(fn):
    xs = ranks(4)
    with pytest.raises(trnsim.InputError, match=r"ranks 2, 3 in no replica group, so they would get no result; "
                                                r"every rank is in exactly one group \(NKI's rule\)"):
        fn(xs, replica_groups=[[0, 1]])
    with pytest.raises(trnsim.InputError, match=r"rank 1 is in replica_groups\[0\] and \[1\]"):
        fn(xs, replica_groups=[[0, 1], [1, 2]])
    with pytest.raises(trnsim.InputError, match=r"replica_groups\[1\] names rank 4; the ranks are 0..3"):
        fn(xs, replica_groups=[[0, 1], [2, 4]])


def test_permute_needs_a_pair_to_every_rank():
    xs = ranks(4)
    with pytest.raises(trnsim.InputError, match=r"isa.collective_permute: no pair sends to ranks 1, 3, so they "
                                                r"would get no result; name a pair for every rank \(\[r, r\]"):
        collectives.collective_permute(xs, [[0, 2], [2, 0]])
    out = collectives.collective_permute(xs, [[0, 2], [2, 0], [1, 1], [3, 3]])
    assert all(o is not None for o in out) and np.array_equal(out[1], xs[1])
