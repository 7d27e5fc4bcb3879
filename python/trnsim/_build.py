"""A trnsim.Program handed to libtrnsim as a program built in memory
(trnsim_program_* of include/trnsim/trnsim.h, API version 2) instead of as
JSON text: the library reads it with the same reader and checks as the
equivalent JSON, so it loads the same program and is refused with the same
messages."""
import ctypes

import numpy as np

from . import errors
from ._lib import last_error, lib

_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def _made(handle):
    if not handle:
        raise last_error(errors.ProgramError)
    return handle


def _ok(rc):
    if rc:
        raise last_error(errors.ProgramError)


def _int(v):
    if not _INT64_MIN <= v <= _INT64_MAX:
        raise errors.ProgramError("the integer %d does not fit in int64, the range of a native program's integers" % v)
    return _made(lib.trnsim_value_int(v))


def _list(items):
    kinds = {type(x) for x in items}
    if items and kinds == {int} and all(_INT64_MIN <= x <= _INT64_MAX for x in items):
        a = np.asarray(items, dtype=np.int64)  # numbers in one call (shapes, integer data)
        return _made(lib.trnsim_value_ints(a.ctypes.data, a.size))
    if items and kinds == {float}:
        a = np.asarray(items, dtype=np.float64)
        return _made(lib.trnsim_value_floats(a.ctypes.data, a.size))
    h = _made(lib.trnsim_value_list())
    try:
        for x in items:
            _ok(lib.trnsim_value_append(h, value(x)))  # the item is taken, also on failure
    except BaseException:
        lib.trnsim_value_free(h)
        raise
    return h


def _object(d):
    h = _made(lib.trnsim_value_object())
    try:
        for k, x in d.items():
            _ok(lib.trnsim_value_set(h, str(k).encode(), value(x)))
    except BaseException:
        lib.trnsim_value_free(h)
        raise
    return h


def value(v):
    """A value of a Program (the types JSON has) as a new trnsim_value."""
    if isinstance(v, bool):
        return _made(lib.trnsim_value_bool(int(v)))
    if isinstance(v, int):
        return _int(v)
    if isinstance(v, float):
        return _made(lib.trnsim_value_float(v))
    if isinstance(v, str):
        return _made(lib.trnsim_value_string(v.encode()))
    if isinstance(v, (list, tuple)):
        return _list(list(v))
    if isinstance(v, dict):
        return _object(v)
    if v is None:
        raise errors.ProgramError("a program value is a number, a string, a list or a dict, not None")
    raise errors.ProgramError("a program value is a number, a string, a list or a dict, not %s" % type(v).__name__)


def _values(*vs):
    """trnsim_values of vs (None stays None), all or none made."""
    out = []
    try:
        for v in vs:
            out.append(None if v is None else value(v))
    except BaseException:
        for h in out:
            if h:
                lib.trnsim_value_free(h)
        raise
    return out


_INSTRUCTION_KEYS = ("opcode", "inputs", "outputs")
_TENSOR_KEYS = ("name", "memory", "dtype", "shape")


def _entries(ph, insts):
    for inst in insts:
        if "loop" in inst and "opcode" not in inst:
            loop = dict(inst["loop"])
            body = loop.pop("body", [])
            trips = loop.pop("trips")
            (attrs,) = _values(loop or None)
            _ok(lib.trnsim_program_loop_begin(ph, int(trips), attrs))
            _entries(ph, body)
            _ok(lib.trnsim_program_loop_end(ph))
            continue
        op = inst["opcode"]
        attrs = {k: v for k, v in inst.items() if k not in _INSTRUCTION_KEYS} or None
        ins, outs, attrs = _values(inst.get("inputs"), inst.get("outputs"), attrs)
        if isinstance(op, str):
            _ok(lib.trnsim_program_instruction(ph, op.encode(), ins, outs, attrs))
        else:
            _ok(lib.trnsim_program_instruction_it(ph, int(op), ins, outs, attrs))


def build(program):
    """A trnsim_program handle of program (a trnsim.Program); the caller frees it."""
    d = program.to_dict()
    ph = _made(lib.trnsim_program_new())
    try:
        for key in ("cores", "allow_uninit_read"):
            if key in d:
                _ok(lib.trnsim_program_set(ph, key.encode(), value(d[key])))
        for t in d["tensors"]:
            shape = np.asarray(t["shape"], dtype=np.int64)
            more = {k: v for k, v in t.items() if k not in _TENSOR_KEYS} or None
            name, memory, dtype = t["name"].encode(), t["memory"].encode() if "memory" in t else None, t["dtype"].encode()
            (more,) = _values(more)
            _ok(lib.trnsim_program_tensor(ph, name, memory, dtype, shape.size, shape.ctypes.data, more))
        _entries(ph, d["instructions"])
    except BaseException:
        lib.trnsim_program_free(ph)
        raise
    return ph


def to_json(ph):
    """The library's native JSON text of a built program."""
    p = _made(lib.trnsim_program_to_json(ph))
    try:
        return ctypes.string_at(p).decode()
    finally:
        lib.trnsim_free(p)
