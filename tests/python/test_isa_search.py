"""trnsim.isa search functions (IT 88-91) and topk: against the CLI bit for
bit, against numpy, and the reference's tie / NaN / duplicate rules."""
import numpy as np
import pytest

import trnsim
from trnsim import isa

RNG = np.random.default_rng(7)


def test_max8_against_cli_and_numpy(same_as_cli):
    x = RNG.standard_normal((128, 300)).astype(np.float32)
    v = same_as_cli(isa.max8, x)
    assert v.shape == (128, 8) and v.dtype == np.float32
    assert np.array_equal(v, -np.sort(-x, axis=1)[:, :8])


def test_max8_dtypes_and_free_dims(same_as_cli):
    x = RNG.integers(-1000, 1000, (16, 4, 8)).astype(np.float16)
    v = same_as_cli(isa.max8, x)  # free dims flattened as NKI does
    assert v.dtype == np.float16
    assert np.array_equal(v, -np.sort(-x.reshape(16, 32), axis=1)[:, :8])
    b = trnsim.round_to(RNG.standard_normal((8, 64)), "bfloat16")
    vb = same_as_cli(isa.max8, b)
    assert isinstance(vb, trnsim.RawBits) and vb.trnsim_dtype == "bfloat16"
    want = -np.sort(-trnsim.from_bits(b), axis=1)[:, :8]
    assert np.array_equal(trnsim.from_bits(vb), want)


def test_max8_reference_quirks():
    nan = np.float32("nan")
    row = np.array([[1, nan, 2, 3, 4, 5, 6, 7, 8, 9]], np.float32)  # NaN is sticky
    got = isa.max8(row)[0]
    assert np.array_equal(got, [9, nan, 8, 7, 6, 5, 4, 3], equal_nan=True)
    z = np.array([[0.0, -0.0, -1, -1, -1, -1, -1, -1, 1]], np.float32)  # the cascade is not a shift
    got = isa.max8(z)[0]
    assert got[0] == 1 and np.signbit(got[1]) and not np.signbit(got[2])


def test_find_index8(same_as_cli):
    x = RNG.permutation(256).astype(np.float32).reshape(2, 128)
    vals = x[:, [5, 0, 127, 64, 3, 9, 100, 1]].copy()
    vals[1, 7] = -5  # absent
    idx = same_as_cli(isa.nc_find_index8, x, vals)
    assert idx.dtype == np.uint32
    assert list(idx[0]) == [5, 0, 127, 64, 3, 9, 100, 1]
    assert idx[1, 7] == 0xFFFFFFFF


def test_duplicates_ascending_and_descending_setting():
    data = np.array([[1, 2, 3, 4, 8, 8, 8, 8, 8, 8, 8]], np.float32)
    vals = np.array([[3, 8, 8, 8, 8, 8, 8, 8]], np.float32)
    assert list(isa.nc_find_index8(data, vals)[0]) == [2, 4, 5, 6, 7, 8, 9, 10]  # the reference
    try:
        isa.configure(search={"duplicate_match_order": "descending"})
        assert list(isa.nc_find_index8(data, vals)[0]) == [2, 10, 9, 8, 7, 6, 5, 4]  # NKI's documented order
    finally:
        isa.configure()


def test_match_replace8_both_forms(same_as_cli):
    x = RNG.standard_normal((32, 100)).astype(np.float32)
    vals = -np.sort(-x, axis=1)[:, :8]
    y = same_as_cli(isa.nc_match_replace8, x, vals, -np.inf)
    y2, idx = same_as_cli(isa.nc_match_replace8, x, vals, -np.inf, dst_idx=True)
    assert np.array_equal(y, y2)
    want = x.copy()
    np.put_along_axis(want, np.argsort(-x, axis=1)[:, :8], -np.inf, 1)
    assert np.array_equal(y, want)
    assert np.array_equal(idx, np.argsort(-x, axis=1, kind="stable")[:, :8])


@pytest.mark.parametrize("k", [1, 8, 13, 64])
def test_topk_against_numpy(k, same_as_cli):
    x = RNG.standard_normal((128, 2048)).astype(np.float32)
    v, i = same_as_cli(isa.topk, x, k)
    part = np.argpartition(-x, k - 1, axis=1)[:, :k]
    order = np.argsort(-np.take_along_axis(x, part, 1), axis=1, kind="stable")
    ref_i = np.take_along_axis(part, order, 1)
    assert np.array_equal(v, np.take_along_axis(x, ref_i, 1))
    assert np.array_equal(i, ref_i)


def test_topk_ties_in_index_order():
    x = RNG.integers(0, 5, (64, 512)).astype(np.float32)  # many equal values
    v, i = isa.topk(x, 40)
    ref = np.argsort(-x, axis=1, kind="stable")[:, :40]
    assert np.array_equal(i, ref)
    assert np.array_equal(v, np.take_along_axis(x, ref, 1))


def test_topk_more_than_128_partitions():
    x = RNG.standard_normal((300, 64)).astype(np.float32)
    v, i = isa.topk(x, 10)
    assert v.shape == (300, 10)
    assert np.array_equal(i, np.argsort(-x, axis=1, kind="stable")[:, :10])


def test_search_errors():
    with pytest.raises(trnsim.InputError, match="max8 data: 4 elements per partition, at least 8 needed"):
        isa.max8(np.zeros((2, 4), np.float32))
    with pytest.raises(trnsim.InputError, match=r"expected 2 partitions of 8 elements, got shape \[2, 7\]"):
        isa.nc_find_index8(np.zeros((2, 16), np.float32), np.zeros((2, 7), np.float32))
    with pytest.raises(trnsim.InputError, match="topk: k = 0 must be 1 .. 16"):
        isa.topk(np.zeros((2, 16), np.float32), 0)
    with pytest.raises(trnsim.ProgramError) as e:  # the module's static check, with the instruction's fields
        isa.max8(np.zeros((1, 16385), np.float32))
    assert e.value.opcode == 88 and e.value.opcode_name == "Max"
    assert e.value.instruction == 0 and e.value.core == 0
    assert "16384" in e.value.message and "instruction 0 (core 0, opcode Max/88" in e.value.message


def test_max8_row_limit_error_says_how_to_split_and_the_recipe_holds():
    x = RNG.standard_normal((3, 40000)).astype(np.float32)
    with pytest.raises(trnsim.ProgramError, match=r"Max: input 0 \(data\) has 40000 elements per partition; "
                                                  r"expected 8 to 16384. For a wider row: split the row") as e:
        isa.max8(x)
    assert (e.value.opcode, e.value.opcode_name) == (88, "Max")
    parts = [isa.max8(x[:, i:i + 16384]) for i in range(0, 40000, 16384)]
    assert np.array_equal(isa.max8(np.concatenate(parts, 1)), -np.sort(-x, 1)[:, :8])
    with pytest.raises(trnsim.ProgramError, match=r"40000 elements per partition; expected 8 to 16384. For a wider "
                                                  r"row: topk each part"):
        isa.topk(x, 8)


def test_topk_masked_rows_and_nan_as_documented():
    """docs/python.md, TopK: the reference's bits for rows with fewer than k
    values above -inf, and for a NaN."""
    x = np.full((1, 16), -np.inf, np.float32)
    x[0, [3, 9, 12]] = [1, 2, 3]
    v, i = isa.topk(x, 16)
    assert v[0, :3].tolist() == [3, 2, 1] and np.isneginf(v[0, 3:]).all()
    # round 1: the -inf slots take the first -inf positions in order; every
    # later round starts again from the first -inf positions
    assert i.tolist() == [[12, 9, 3, 0, 1, 2, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7]]
    v, i = isa.topk(np.full((1, 16), -np.inf, np.float32), 16)
    assert i.tolist() == [list(range(8)) * 2]
    y = np.arange(16, dtype=np.float32)[None].copy()
    y[0, 5] = np.nan
    v, i = isa.topk(y, 16)
    # a NaN lands in every round (sticky in Max, never matched), index 0xFFFFFFFF
    assert np.isnan(v[0, [5, 13]]).all() and (i[0, [5, 13]] == 0xFFFFFFFF).all()
    assert v[0, ~np.isnan(v[0])].tolist() == [15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 4, 3, 2, 1]
