"""trnsim.isa BN functions (IT 34-38): against the CLI bit for bit, against
a float32 transliteration of the reference's loops, and against numpy's
mean / var."""
import numpy as np
import pytest

import trnsim
from trnsim import isa

RNG = np.random.default_rng(11)
f32 = np.float32


def welford_oracle(row):
    """BNStats on one row, in float32 scalars, in the reference's order."""
    out = [f32((len(row) + 1) // 2), f32(0), f32(0), f32(len(row) // 2), f32(0), f32(0)]
    n = f32(0)
    for i, x in enumerate(row.astype(f32)):
        lane = i & 1
        if lane == 0:
            n = f32(n + f32(1))
        r = f32(f32(1) / n)
        old = out[3 * lane + 1]
        new = f32(f32(f32(f32(1) - r) * old) + f32(r * x))
        out[3 * lane + 1] = new
        out[3 * lane + 2] = f32(out[3 * lane + 2] + f32(f32(x - new) * f32(x - old)))
    return np.array(out, f32)


def aggr_oracle(rec):
    n_acc = mean = var = f32(0)
    for t in range(len(rec) // 3):
        n_t, m_t, m2 = rec[3 * t:3 * t + 3]
        N = f32(n_t + n_acc)
        r = f32(f32(1) / N)
        delta = f32(mean - m_t)
        mean_new = f32(f32(f32(mean * n_acc) + f32(n_t * m_t)) * r)
        var = f32(f32(f32(f32(var * n_acc) + m2) * r) + f32(f32(f32(f32(f32(n_t * n_acc) * delta) * delta) * r) * r))
        mean = mean_new
        n_acc = f32(n_acc + n_t)
    return np.array([mean, var], f32)


def test_bn_stats_and_aggr_against_oracle_and_cli(same_as_cli):
    x = RNG.standard_normal((8, 37)).astype(f32) * 3 + 1
    st = same_as_cli(isa.bn_stats, x)
    assert st.shape == (8, 6) and st.dtype == f32
    for p in range(8):
        assert np.array_equal(st[p].view(np.uint32), welford_oracle(x[p]).view(np.uint32))
    mv = same_as_cli(isa.bn_aggr, st)
    for p in range(8):
        assert np.array_equal(mv[p].view(np.uint32), aggr_oracle(st[p]).view(np.uint32))


def test_bn_against_numpy_mean_var():
    x = RNG.standard_normal((128, 4096)).astype(f32)
    mv = isa.bn_aggr(isa.bn_stats(x))
    assert np.allclose(mv[:, 0], x.astype(np.float64).mean(1), atol=1e-6)
    assert np.allclose(mv[:, 1], x.astype(np.float64).var(1), rtol=1e-5)  # population variance


def test_tiled_stats_aggregate_like_nki():
    # NKI kernels tile rows by 512 and aggregate the records: the same numbers
    x = RNG.standard_normal((16, 2048)).astype(f32)
    recs = np.concatenate([isa.bn_stats(x[:, i:i + 512]) for i in range(0, 2048, 512)], axis=1)
    mv = isa.bn_aggr(recs)
    assert np.allclose(mv[:, 1], x.astype(np.float64).var(1), rtol=1e-5)


def test_bn_gradients_and_backprop(same_as_cli):
    p, n = 4, 50
    x = RNG.standard_normal((p, n)).astype(f32)
    dy = RNG.standard_normal((p, n)).astype(f32)
    m = x.mean(1).astype(f32)
    vf = (1 / np.sqrt(x.var(1) + 1e-5)).astype(f32)
    g = same_as_cli(isa.bn_gradients, x, dy, m, vf[:, None])
    for r in range(p):  # plain float32 sums in index order
        s0 = s1 = s2 = f32(0)
        for i in range(n):
            t = f32(f32(f32(x[r, i] - m[r]) * dy[r, i]) * vf[r])
            s2 = f32(s2 + t)
            s1 = f32(s1 + f32(t * vf[r]))
            s0 = f32(s0 + dy[r, i])
        assert np.array_equal(g[r].view(np.uint32), np.array([s0, s1, s2], f32).view(np.uint32))
    coef = np.stack([g[:, 0], g[:, 1], vf / n], axis=1).astype(f32)
    dx = same_as_cli(isa.bn_backprop, x, dy, m, coef, n)
    want = ((dy * f32(n)) - ((x - m[:, None]) * coef[:, 1:2] + coef[:, 0:1])) * coef[:, 2:3]
    assert np.array_equal(dx.view(np.uint32), want.astype(f32).view(np.uint32))
    dx2 = same_as_cli(isa.bn_backprop2, x, dy, m, coef[:, :2], coef[:, 2], n)
    assert np.array_equal(dx.view(np.uint32), dx2.view(np.uint32))


def test_bn_zero_count_is_nan_as_the_reference():
    mv = isa.bn_aggr(np.zeros((1, 6), f32))
    assert np.isnan(mv).all()


def test_bn_errors():
    with pytest.raises(trnsim.ProgramError) as e:  # the static check, before anything runs
        isa.bn_aggr(np.ones((2, 4), f32))  # not a multiple of 6
    assert e.value.opcode == 35 and e.value.instruction == 0
    assert "multiple of 6" in e.value.message
    with pytest.raises(trnsim.InputError, match="bn_gradients mean: expected 2 partitions of 1 elements"):
        isa.bn_gradients(np.ones((2, 4), f32), np.ones((2, 4), f32), np.ones((3,), f32), np.ones((2,), f32))


# ---- every size the instruction handles ----

def test_bn_stats_of_rows_longer_than_the_default_sbuf(same_as_cli):
    """[1, 49152] fp32 is all of a default SBUF partition, and BNStats loops
    over any row: the isa call gives its machine the SBUF the row needs."""
    for shape in ((1, 49152), (2, 70001)):
        x = RNG.standard_normal(shape).astype(f32)
        st = same_as_cli(isa.bn_stats, x)
        want = welford_oracle(x[-1]) if shape[1] < 60000 else None
        if want is not None:
            assert np.array_equal(st[-1].view(np.uint32), want.view(np.uint32))
        mv = isa.bn_aggr(data=st)
        assert np.allclose(mv[:, 0], x.mean(1), atol=1e-4) and np.allclose(mv[:, 1], x.var(1), rtol=1e-3)


def test_bn_backprop_at_16384_and_more(same_as_cli):
    for p, n in ((2, 16384), (3, 30000)):
        x = RNG.standard_normal((p, n)).astype(f32)
        dy = RNG.standard_normal((p, n)).astype(f32)
        m = x.mean(1).astype(f32)
        coef = RNG.standard_normal((p, 3)).astype(f32)
        dx = same_as_cli(isa.bn_backprop, x, dy, m, coef, n)
        want = ((dy * f32(n)) - ((x - m[:, None]) * coef[:, 1:2] + coef[:, 0:1])) * coef[:, 2:3]
        assert np.array_equal(dx.view(np.uint32), want.astype(f32).view(np.uint32))
        dx2 = same_as_cli(isa.bn_backprop2, x, dy, m, coef[:, :2], coef[:, 2], n)
        assert np.array_equal(dx.view(np.uint32), dx2.view(np.uint32))
        g = same_as_cli(isa.bn_gradients, x, dy, m, coef[:, 2])
        assert g.shape == (p, 3) and np.isfinite(g).all()
