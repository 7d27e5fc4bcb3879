"""trnsim's dtypes as numpy sees them, and exact conversions.

Every tensor dtype has a storage type (the numpy dtype of its raw bits) and,
where numpy has one, a value type. bfloat16 and the fp8 formats have no
numpy value type: they are ml_dtypes arrays when ml_dtypes is importable,
and always raw bits through bits() / from_bits(), converted by the
simulator's own arithmetic core (round to nearest even, docs/dtypes.md).
"""
import ctypes
import warnings

import numpy as np

from . import errors
from ._lib import lib, last_error

try:  # optional: not in Debian 12, so the package never needs it
    import ml_dtypes as _ml
except ImportError:  # pragma: no cover - depends on the machine
    _ml = None

# name -> (storage numpy dtype, numpy value dtype or None, ml_dtypes attribute or None)
_TABLE = {
    "int8": ("i1", "i1", None), "uint8": ("u1", "u1", None), "int16": ("<i2", "<i2", None),
    "float8_e3m4": ("u1", None, "float8_e3m4"), "float8_e4m3": ("u1", None, "float8_e4m3"),
    "float8_e4m3fn": ("u1", None, "float8_e4m3fn"), "float8_e8m0fnu": ("u1", None, "float8_e8m0fnu"),
    "float8_e5m2": ("u1", None, "float8_e5m2"),
    "float8_e4m3_x4": ("<u4", None, None), "float8_e5m2_x4": ("<u4", None, None),
    "uint16": ("<u2", "<u2", None), "float4_e2m1_x4": ("<u2", None, None),
    "bfloat16": ("<u2", None, "bfloat16"), "float16": ("<u2", "<f2", None),
    "uint32": ("<u4", "<u4", None), "int32": ("<i4", "<i4", None),
    "float32": ("<f4", "<f4", None), "float32r": ("<f4", "<f4", None),
    "uint64": ("<u8", "<u8", None), "int64": ("<i8", "<i8", None),
}
_ALIASES = {
    "i8": "int8", "s8": "int8", "u8": "uint8", "i16": "int16", "s16": "int16", "u16": "uint16",
    "e3m4": "float8_e3m4", "fp8_e3m4": "float8_e3m4", "f8e3m4": "float8_e3m4",
    "e4m3": "float8_e4m3", "fp8_e4m3": "float8_e4m3", "f8e4m3": "float8_e4m3",
    "e4m3fn": "float8_e4m3fn", "fp8_e4m3fn": "float8_e4m3fn", "f8e4m3fn": "float8_e4m3fn",
    "e8m0fnu": "float8_e8m0fnu", "e8m0": "float8_e8m0fnu", "fp8_e8m0fnu": "float8_e8m0fnu",
    "fp8_e8m0": "float8_e8m0fnu", "f8e8m0fnu": "float8_e8m0fnu",
    "e5m2": "float8_e5m2", "fp8_e5m2": "float8_e5m2", "f8e5m2": "float8_e5m2",
    "float8_e4m3fn_x4": "float8_e4m3_x4", "e4m3_x4": "float8_e4m3_x4", "fp8_e4m3_x4": "float8_e4m3_x4",
    "e5m2_x4": "float8_e5m2_x4", "fp8_e5m2_x4": "float8_e5m2_x4",
    "float4_e2m1fn_x4": "float4_e2m1_x4", "e2m1_x4": "float4_e2m1_x4", "fp4_e2m1_x4": "float4_e2m1_x4",
    "fp4_x4": "float4_e2m1_x4", "bf16": "bfloat16", "fp16": "float16", "f16": "float16", "half": "float16",
    "u32": "uint32", "i32": "int32", "s32": "int32", "fp32": "float32", "f32": "float32", "single": "float32",
    "fp32r": "float32r", "f32r": "float32r", "u64": "uint64", "i64": "int64", "s64": "int64",
}
PACKED = ("float8_e4m3_x4", "float8_e5m2_x4", "float4_e2m1_x4")
NAMES = tuple(_TABLE)


def canonical(name):
    """The canonical trnsim dtype name for a name, alias, numpy dtype or ml_dtypes type."""
    if isinstance(name, str):
        low = name.lower()
        if low in _TABLE:
            return low
        if low in _ALIASES:
            return _ALIASES[low]
        raise errors.InputError("unknown dtype '%s' (known: %s; aliases in docs/dtypes.md)" % (name, ", ".join(NAMES)))
    return dtype_of_numpy(np.dtype(name))


def storage(name):
    """The numpy dtype that holds the raw bits of a tensor of this dtype."""
    return np.dtype(_TABLE[canonical(name)][0])


def ml_dtype(name):
    """The ml_dtypes type of a bfloat16 / fp8 dtype, or None (no ml_dtypes, or no such type)."""
    attr = _TABLE[canonical(name)][2]
    return getattr(_ml, attr, None) if (_ml is not None and attr) else None


def value_dtype(name):
    """The numpy dtype values of this tensor dtype come back as: its own
    numpy type, the ml_dtypes type when available, else float32 (exact)."""
    n = canonical(name)
    if _TABLE[n][1]:
        return np.dtype(_TABLE[n][1])
    ml = ml_dtype(n)
    if ml is not None:
        return np.dtype(ml)
    return np.dtype("<u%d" % storage(n).itemsize) if n in PACKED else np.dtype("<f4")


_NUMPY_TO_NAME = {"int8": "int8", "uint8": "uint8", "int16": "int16", "uint16": "uint16", "int32": "int32",
                  "uint32": "uint32", "int64": "int64", "uint64": "uint64", "float16": "float16",
                  "float32": "float32", "float64": "float32", "bool": "uint8"}


def dtype_of_numpy(dt):
    """The tensor dtype an array of numpy dtype dt becomes (float64 -> float32)."""
    dt = np.dtype(dt)
    if dt.name in _NUMPY_TO_NAME:
        return _NUMPY_TO_NAME[dt.name]
    if _ml is not None:
        for n, (_, _, attr) in _TABLE.items():
            if attr and getattr(_ml, attr, None) is not None and dt == np.dtype(getattr(_ml, attr)):
                return n
    raise errors.InputError("numpy dtype %s has no trnsim dtype (known: %s)" % (dt, ", ".join(NAMES)))


class RawBits(np.ndarray):
    """An array of raw bit patterns of a trnsim dtype (from as_bits() or
    round_to()); tensor inputs take its bytes unchanged. .trnsim_dtype names
    the dtype. numpy functions that keep the bits (concatenate, stack,
    reshape, slicing, copy, ...) keep the tag when every tagged argument has
    the same dtype; np.asarray / np.ascontiguousarray give plain integers
    (trnsim then refuses them where bits were expected, never guesses)."""

    def __new__(cls, array, dtype):
        n = canonical(dtype)
        a = np.asarray(array)
        if a.dtype != storage(n):
            raise errors.InputError("RawBits(..., %r): %s bit patterns are %s integers, got a %s "
                                    "array (to round values to %s: trnsim.round_to(values, %r))" %
                                    (dtype, n, storage(n), a.dtype, n, n))
        obj = a.view(cls)
        obj.trnsim_dtype = n
        return obj

    def __array_finalize__(self, obj):
        self.trnsim_dtype = getattr(obj, "trnsim_dtype", None)

    def __array_function__(self, func, types, args, kwargs):
        result = super().__array_function__(func, types, args, kwargs)
        tags = set()
        _tags_of(args, tags)
        if len(tags) == 1 and type(result) is np.ndarray:
            (tag,) = tags
            if tag and result.dtype == storage(tag):
                result = result.view(RawBits)
                result.trnsim_dtype = tag
        return result


def _tags_of(args, tags):
    for a in args:
        if isinstance(a, RawBits):
            tags.add(a.trnsim_dtype)
        elif isinstance(a, (list, tuple)):
            _tags_of(a, tags)


# 8- and 16-bit integer arrays: what raw bfloat16 / fp8 / float16 bits look
# like, and also plain integers; trnsim never guesses which
SMALL_INTS = frozenset(("int8", "uint8", "int16", "uint16"))


def ambiguous_bits(array, tensor_dtype, what):
    """The error for a plain 8/16-bit integer array where a float is computed."""
    a = np.asarray(array)
    guess = "bfloat16" if a.dtype.itemsize == 2 else "float8_e4m3"
    return errors.InputError(
        "%s: a plain %s array is integers, and this computes on floating-point values (%s); "
        "trnsim does not "
        "guess whether these are bit patterns. For %s bit patterns pass trnsim.as_bits(a, %r) (or "
        "an ml_dtypes array); for the integer values pass a.astype(np.float32)" %
        (what, a.dtype, tensor_dtype, "bfloat16 / float16" if a.dtype.itemsize == 2 else "fp8",
         guess))


def tensor_dtype_of(array):
    """The tensor dtype an input array asks for."""
    if isinstance(array, RawBits) and array.trnsim_dtype:
        return array.trnsim_dtype
    return dtype_of_numpy(np.asarray(array).dtype)


def _c_convert(fn, name, src, dst):
    if fn(name.encode(), src.ctypes.data, dst.ctypes.data, src.size if fn is lib.trnsim_narrow else dst.size):
        raise last_error(errors.InputError)


def narrow(values, name):
    """fp32 values -> raw bits of dtype name, by the arithmetic core (RNE)."""
    n = canonical(name)
    f = np.ascontiguousarray(values, dtype=np.float32)
    out = np.empty(f.shape, storage(n))
    if f.size:
        _c_convert(lib.trnsim_narrow, n, f, out)
    return out


def widen(raw, name):
    """Raw bits of dtype name -> fp32 values, by the arithmetic core (exact)."""
    n = canonical(name)
    r = np.ascontiguousarray(raw).view(storage(n))
    out = np.empty(r.shape, np.float32)
    if r.size:
        _c_convert(lib.trnsim_widen, n, r, out)
    return out


def as_bits(array, dtype):
    """Take these bit patterns as dtype: an unsigned (or same-size signed)
    integer array of the dtype's storage size (uint16 for bfloat16 and
    float16, uint8 for fp8, the raw words of packed forms) becomes a RawBits
    array of that dtype, bit for bit, nothing rounded. An ml_dtypes array of
    the dtype is taken bit for bit too. Anything else raises (to round
    values, round_to)."""
    n = canonical(dtype)
    if isinstance(array, RawBits):
        if array.trnsim_dtype != n:
            raise errors.InputError("as_bits: these are raw bits of %s, not %s" %
                                    (array.trnsim_dtype, n))
        return array
    a = np.asarray(array)
    st = storage(n)
    ml = ml_dtype(n)
    same_size_ints = a.dtype.kind in "iu" and a.dtype.itemsize == st.itemsize
    if (ml is not None and a.dtype == np.dtype(ml)) or same_size_ints:
        return RawBits(np.ascontiguousarray(a).view(st), n)
    raise errors.InputError("as_bits(..., %r): %s bit patterns are %s integers, got a %s array; "
                            "to round values "
                            "to %s use trnsim.round_to(values, %r)" % (dtype, n, st, a.dtype, n, n))


def round_to(values, dtype):
    """Round these values to dtype: numbers (floats, or integers as the
    integers they are) narrowed by the simulator's arithmetic core (round
    to nearest even; float64 first to float32, as the CLI does), as a
    RawBits array of the dtype's storage type. An ml_dtypes array of the
    dtype, or RawBits of it, is already there and comes back bit for bit;
    RawBits of another dtype are rounded from their values."""
    n = canonical(dtype)
    if n in PACKED:
        raise errors.InputError("round_to: %s is a packed form with no single value per element; "
                                "give its raw %s words with trnsim.as_bits" % (n, storage(n)))
    if isinstance(values, RawBits):
        if values.trnsim_dtype == n:
            return values
        values = from_bits(values)
    a = np.asarray(values)
    ml = ml_dtype(n)
    if ml is not None and a.dtype == np.dtype(ml):
        return RawBits(np.ascontiguousarray(a).view(storage(n)), n)
    if a.dtype.kind not in "fiub" and _ml is None:
        raise errors.InputError("round_to: takes numbers, got a %s array" % a.dtype)
    return RawBits(narrow(a.astype(np.float32) if a.dtype.kind in "iub" else a, n), n)


def bits(array, dtype):
    """Deprecated: trnsim.as_bits(a, dtype) takes bit patterns as they are,
    trnsim.round_to(values, dtype) rounds values. bits() rounds values, and
    refuses a plain integer array of the dtype's storage size (it used to
    round such bit patterns as integers)."""
    warnings.warn("trnsim.bits is deprecated: use trnsim.as_bits(a, dtype) to take bit patterns, "
                  "trnsim.round_to(values, dtype) to round values", DeprecationWarning,
                  stacklevel=2)
    n = canonical(dtype)
    a = array if isinstance(array, RawBits) else np.asarray(array)
    storage_ints = a.dtype.kind in "iu" and a.dtype.itemsize == storage(n).itemsize
    if not isinstance(a, RawBits) and storage_ints:
        raise errors.InputError("trnsim.bits(%s array, %r): bit patterns or integer values? Use "
                                "trnsim.as_bits(a, %r) for bit patterns, trnsim.round_to(a, %r) "
                                "for values" %
                                (a.dtype, dtype, n, n))
    if n in PACKED:
        return as_bits(array, n)
    return round_to(array, n)


def from_bits(raw, dtype=None):
    """Values of raw bit patterns: float32 for the float dtypes (exact; an
    ml_dtypes array with as_ml), the integers themselves otherwise."""
    n = canonical(dtype) if dtype is not None else getattr(raw, "trnsim_dtype", None)
    if n is None:
        raise errors.InputError("from_bits: give the dtype the bits are in (e.g. 'bfloat16')")
    r = np.asarray(raw)
    if r.dtype != storage(n):
        raise errors.InputError("from_bits: %s bits are %s, got %s" % (n, storage(n), r.dtype))
    if n in PACKED:
        return np.array(r)
    if _TABLE[n][1] and n not in ("float16",):
        return np.array(r.view(np.dtype(_TABLE[n][1])))
    return widen(r, n)


def to_tensor_bytes(array, name):
    """array as the raw contents of a tensor of dtype name (a contiguous
    array of its storage type). Floats narrow RNE; integers must fit."""
    n = name
    st = storage(n)
    if isinstance(array, RawBits):
        if array.trnsim_dtype != n:
            raise errors.InputError("raw bits of %s given for a %s tensor" % (array.trnsim_dtype, n))
        return np.ascontiguousarray(array.view(np.ndarray))
    a = np.asarray(array)
    if n in ("float32", "float32r"):
        if a.dtype == np.float32:
            return np.ascontiguousarray(a)
        return _float_input(a, n).astype(np.float32)
    if n == "float16":
        if a.dtype == np.float16:
            return np.ascontiguousarray(a).view(st)
        _no_guess(a, n)
        return narrow(_float_input(a, n).astype(np.float32), n)
    if _TABLE[n][1] is None and n not in PACKED:  # bfloat16, fp8
        ml = ml_dtype(n)
        if ml is not None and a.dtype == np.dtype(ml):
            return np.ascontiguousarray(a).view(st)
        _no_guess(a, n)
        return narrow(_float_input(a, n).astype(np.float32), n)
    if n in PACKED:
        if a.dtype != st:
            raise errors.InputError("a %s tensor takes its raw %s words, got %s" % (n, st, a.dtype))
        return np.ascontiguousarray(a)
    # integers
    if a.dtype == st:
        return np.ascontiguousarray(a)
    if a.dtype.kind not in "iub":
        raise errors.InputError("a %s tensor takes integers, got a %s array" % (n, a.dtype))
    info = np.iinfo(st)
    if a.size and (a.min() < info.min or a.max() > info.max):
        raise errors.InputError("values outside %s (%d .. %d)" % (n, info.min, info.max))
    return np.ascontiguousarray(a.astype(st))


def _no_guess(a, n):
    """A plain integer array of the float dtype's storage size: bits or values? Never guessed."""
    if a.dtype.kind in "iu" and a.dtype.itemsize == storage(n).itemsize:
        raise errors.InputError("a %s tensor got a plain %s array: bit patterns or integer "
                                "values? trnsim does "
                                "not guess: pass trnsim.as_bits(a, %r) for bit patterns, "
                                "a.astype(np.float32) for values" % (n, a.dtype, n))


def _float_input(a, n):
    if a.dtype.kind in "fiub":
        return a
    if _ml is not None:  # an ml_dtypes array of another float type
        return a.astype(np.float32)
    raise errors.InputError("a %s tensor takes numbers, got a %s array" % (n, a.dtype))


_SAME = frozenset(("float32", "float32r", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"))


def from_tensor_bytes(raw, name, raw_bits=False):
    """A tensor's raw contents as values (value_dtype), or RawBits with raw_bits."""
    if name in _SAME:  # stored as numpy holds them
        return raw
    if raw_bits and _TABLE[name][1] is None:
        return RawBits(raw, name)
    if _TABLE[name][1]:
        return raw.view(np.dtype(_TABLE[name][1]))
    if name in PACKED:
        return raw
    ml = ml_dtype(name)
    if ml is not None:
        return raw.view(ml)
    return widen(raw, name)
