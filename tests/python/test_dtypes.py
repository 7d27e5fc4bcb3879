"""trnsim.bits / from_bits and the tensor conversions: every bfloat16,
float16 and fp8 pattern against independent decoders, RNE against an
independent rounding, and the same bits as the C core through a tensor."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import trnsim
from trnsim import dtypes, isa

ALL16 = np.arange(65536, dtype=np.uint32).astype(np.uint16)
ALL8 = np.arange(256, dtype=np.uint16).astype(np.uint8)


def decode_fp8(code, ebits, mbits, ieee=True):
    """Independent decoder of a sign / exponent / mantissa fp8 code."""
    s = -1.0 if code >> 7 else 1.0
    e = (code >> mbits) & ((1 << ebits) - 1)
    m = code & ((1 << mbits) - 1)
    bias = (1 << (ebits - 1)) - 1
    if ieee and e == (1 << ebits) - 1:
        return s * np.inf if m == 0 else np.nan
    if not ieee and e == (1 << ebits) - 1 and m == (1 << mbits) - 1:
        return np.nan  # e4m3fn: only S.1111.111 is NaN, no Inf
    if e == 0:
        return s * m * 2.0 ** (1 - bias - mbits)
    return s * (1 + m / 2.0 ** mbits) * 2.0 ** (e - bias)


def same_values(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return np.array_equal(np.isnan(a), np.isnan(b)) and np.array_equal(a[~np.isnan(a)], b[~np.isnan(b)]) and \
        np.array_equal(np.signbit(a[~np.isnan(a)]), np.signbit(b[~np.isnan(b)]))


def test_bf16_every_pattern():
    v = trnsim.from_bits(ALL16, "bfloat16")
    assert np.array_equal(v.view(np.uint32), ALL16.astype(np.uint32) << 16)  # widening is a shift
    back = trnsim.round_to(v, "bfloat16")
    finite = ~np.isnan(v)
    assert np.array_equal(back[finite], ALL16[finite])
    assert np.all(back[~finite] == 0x7FC0)  # NaN -> the canonical NaN


def test_bf16_rounding_is_rne():
    u = np.random.default_rng(0).integers(0, 2**32, 200000, dtype=np.uint64).astype(np.uint32)
    u = np.concatenate([u, np.array([0x3F808000, 0x3F818000, 0x7F7FFFFF, 0x00008000, 0x80000000], np.uint32)])
    x = u.view(np.float32)
    want = ((u.astype(np.uint64) + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    want = np.where(np.isnan(x), np.uint16(0x7FC0), want)
    assert np.array_equal(trnsim.round_to(x, "bf16"), want)
    assert np.array_equal(trnsim.round_to(x.astype(np.float64), "bf16"), want)  # float64 narrows to fp32 first


def test_f16_every_pattern_and_numpy():
    v = trnsim.from_bits(ALL16, "float16")
    assert same_values(v, ALL16.view(np.float16))
    x = np.random.default_rng(1).standard_normal(100000).astype(np.float32) * np.float32(3e4)
    got = trnsim.round_to(x, "float16")
    assert np.array_equal(got, x.astype(np.float16).view(np.uint16))  # numpy rounds RNE too


@pytest.mark.parametrize("name,e,m,ieee", [("float8_e4m3", 4, 3, True), ("float8_e5m2", 5, 2, True),
                                           ("float8_e3m4", 3, 4, True), ("float8_e4m3fn", 4, 3, False)])
def test_fp8_every_pattern_and_rne(name, e, m, ieee):
    v = trnsim.from_bits(ALL8, name)
    assert same_values(v, [decode_fp8(int(c), e, m, ieee) for c in ALL8])
    finite = np.isfinite(v)
    assert np.array_equal(trnsim.round_to(v[finite], name), ALL8[finite])  # every finite code round-trips
    # midpoints of neighbouring positive codes round to the even code
    pos = np.sort(v[finite & (v > 0)])
    codes = trnsim.round_to(pos, name)
    mids = ((pos[:-1].astype(np.float64) + pos[1:]) / 2).astype(np.float32)
    got = trnsim.round_to(mids, name)
    want = np.where(codes[:-1] % 2 == 0, codes[:-1], codes[1:])
    exact = mids.astype(np.float64) == (pos[:-1].astype(np.float64) + pos[1:]) / 2
    assert np.array_equal(got[exact], want[exact])


def test_e8m0():
    v = trnsim.from_bits(ALL8, "e8m0")
    assert np.isnan(v[255]) and v[127] == 1.0 and v[128] == 2.0 and v[0] == 2.0 ** -127


def test_conversions_equal_the_c_core_through_a_tensor():
    x = np.random.default_rng(2).standard_normal(64).astype(np.float32) * 50
    for name in ("bfloat16", "float16", "float8_e4m3", "float8_e5m2", "float8_e3m4", "float8_e4m3fn"):
        sim = trnsim.Simulator(raw_bits=True)
        prog = {"tensors": [{"name": "t", "memory": "sbuf", "dtype": name, "shape": [1, 64],
                             "data": [float(v) for v in x]}], "instructions": []}
        sim.load(prog)  # the program's initial data is narrowed by the C core
        got = sim.get("t")
        assert np.array_equal(np.asarray(got).reshape(-1).view(dtypes.storage(name)), trnsim.round_to(x, name)), name
        sim.set("t", x.reshape(1, 64))  # and an fp32 input is narrowed the same way
        assert np.array_equal(np.asarray(sim.get("t")).reshape(-1).view(dtypes.storage(name)), trnsim.round_to(x, name))
        sim.close()


def test_outputs_without_ml_dtypes_are_exact_float32():
    sim = trnsim.Simulator()
    sim.load({"tensors": [{"name": "t", "memory": "sbuf", "dtype": "bf16", "shape": [2], "data": [1.5, -3]}],
              "instructions": []})
    got = sim.get("t")
    if dtypes._ml is None:
        assert got.dtype == np.float32 and list(got) == [1.5, -3.0]
    else:  # with ml_dtypes: its bfloat16
        import ml_dtypes
        assert got.dtype == np.dtype(ml_dtypes.bfloat16) and list(got.astype(np.float32)) == [1.5, -3.0]


def test_ml_dtypes_path_with_a_stand_in_module():
    """The ml_dtypes branch, exercised with a stand-in module whose types are
    2- and 1-byte opaque dtypes: bits must pass through unchanged."""
    code = textwrap.dedent("""
        import sys, types, numpy as np
        fake = types.ModuleType("ml_dtypes")
        fake.bfloat16 = np.dtype("V2"); fake.float8_e4m3 = np.dtype("V1")
        sys.modules["ml_dtypes"] = fake
        import trnsim
        from trnsim import isa
        assert trnsim.dtypes.ml_dtype("bf16") == np.dtype("V2")
        sim = trnsim.Simulator()
        sim.load({"tensors": [{"name": "t", "memory": "sbuf", "dtype": "bfloat16", "shape": [1, 3],
                               "data": [1.5, -2, 0.1]}], "instructions": []})
        got = sim.get("t")
        assert got.dtype == np.dtype("V2"), got.dtype
        bits = got.view(np.uint16)
        assert list(bits[0]) == [0x3FC0, 0xC000, 0x3DCD], [hex(b) for b in bits[0]]
        sim.set("t", got)  # an ml_dtypes array goes in bit for bit
        assert np.array_equal(sim.get("t").view(np.uint16), bits)
        assert trnsim.dtypes.tensor_dtype_of(got) == "bfloat16"
        assert np.array_equal(trnsim.round_to(got, "bfloat16"), bits)
        y = isa.dma_copy(np.array([1.0, 2.5], np.float32), "bfloat16")
        assert y.dtype == np.dtype("V2") and list(y.view(np.uint16)) == [0x3F80, 0x4020]
        print("ok")
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def test_dtype_errors():
    with pytest.raises(trnsim.InputError, match="unknown dtype 'float33'"):
        trnsim.round_to(np.zeros(2), "float33")
    with pytest.raises(trnsim.InputError, match="from_bits: bfloat16 bits are uint16, got float32"):
        trnsim.from_bits(np.zeros(2, np.float32), "bfloat16")
    with pytest.raises(trnsim.InputError, match="give the dtype"):
        trnsim.from_bits(np.zeros(2, np.uint16))


# ---- low-precision bits are never guessed ----

BF16_ONE_BITS = np.array([0x3F80, 0x4000, 0xBF80], np.uint16)  # 1.0, 2.0, -1.0


def test_as_bits_takes_bits_round_to_rounds_values():
    b = trnsim.as_bits(BF16_ONE_BITS, "bfloat16")
    assert isinstance(b, trnsim.RawBits) and b.trnsim_dtype == "bfloat16"
    assert trnsim.from_bits(b).tolist() == [1.0, 2.0, -1.0]            # the bits, as they are
    r = trnsim.round_to(np.array([1, 2, -1]), "bfloat16")                # integers are values
    assert r.tolist() == BF16_ONE_BITS.tolist()
    assert trnsim.as_bits(BF16_ONE_BITS.view(np.int16), "bf16").tolist() == BF16_ONE_BITS.tolist()
    with pytest.raises(trnsim.InputError, match=r"as_bits\(..., 'bfloat16'\): bfloat16 bit patterns are uint16 "
                                                r"integers, got a float32 array; to round values to bfloat16 use "
                                                r"trnsim.round_to"):
        trnsim.as_bits(np.ones(3, np.float32), "bfloat16")


def test_bits_is_deprecated_and_no_longer_rounds_bit_patterns():
    with pytest.warns(DeprecationWarning, match="trnsim.as_bits"):
        assert trnsim.bits(np.array([1.0, 2.0, -1.0]), "bfloat16").tolist() == BF16_ONE_BITS.tolist()
    with pytest.warns(DeprecationWarning), pytest.raises(trnsim.InputError, match="bit patterns or integer values"):
        trnsim.bits(BF16_ONE_BITS, "bfloat16")   # used to round 16256 etc. as integers


def test_a_plain_uint16_array_is_not_taken_as_bf16_bits():
    prog = {"tensors": [{"name": "t", "memory": "hbm", "dtype": "bfloat16", "shape": [3]}], "instructions": []}
    sim = trnsim.Simulator(raw_bits=True)
    sim.load(prog)
    with pytest.raises(trnsim.InputError, match=r"a bfloat16 tensor got a plain uint16 array: bit patterns or "
                                                r"integer values\? trnsim does not guess: pass "
                                                r"trnsim.as_bits\(a, 'bfloat16'\)"):
        sim.set("t", BF16_ONE_BITS)
    sim.set("t", trnsim.as_bits(BF16_ONE_BITS, "bfloat16"))
    assert sim.get("t").tolist() == BF16_ONE_BITS.tolist()
    sim.set("t", np.array([1, 2, -1], np.int32))          # wider integers are values
    assert sim.get("t").tolist() == BF16_ONE_BITS.tolist()
    sim.close()


@pytest.mark.parametrize("call", [
    lambda a: isa.max8(a), lambda a: isa.topk(a, 8), lambda a: isa.bn_stats(a),
    lambda a: isa.nc_find_index8(a, a[:, :8]), lambda a: isa.dma_copy(a, dtype="float32"),
    lambda a: isa.dma_compute([a, a])])
@pytest.mark.parametrize("dt", [np.uint16, np.int16, np.uint8, np.int8])
def test_small_integer_arrays_to_float_instructions_raise_with_the_fix(call, dt):
    a = np.arange(2 * 16, dtype=dt).reshape(2, 16)
    with pytest.raises(trnsim.InputError, match=r"a plain %s array is integers, and this computes on "
                                                r"floating-point values .*trnsim.as_bits\(a, .*a.astype\(np.float32\)"
                       % np.dtype(dt).name):
        call(a)


def test_low_precision_kind_comes_back():
    x = np.random.default_rng(5).standard_normal((256, 64)).astype(np.float32)
    b = trnsim.round_to(x, "bfloat16")
    for out in (isa.max8(b), isa.topk(b, 8)[0], isa.dma_copy(b), isa.dma_transpose(b)):
        assert isinstance(out, trnsim.RawBits) and out.trnsim_dtype == "bfloat16"
    for out in isa.all_reduce([b[:4], b[4:8]]) + isa.all_gather([b[:4], b[4:8]]) + isa.all_to_all([b[:4], b[4:8]]):
        assert isinstance(out, trnsim.RawBits) and out.trnsim_dtype == "bfloat16"
    both = np.concatenate([b[:2], b[2:4]])
    assert isinstance(both, trnsim.RawBits) and both.trnsim_dtype == "bfloat16"
    assert type(np.stack([b[0], b[1]])) is trnsim.RawBits
    assert type(np.ascontiguousarray(b)) is np.ndarray    # a plain array now: refused, not guessed
    with pytest.raises(trnsim.InputError, match="a plain uint16 array is integers"):
        isa.max8(np.ascontiguousarray(b))
