"""The cache of loaded programs behind trnsim.isa, how a call runs one, and
the input helpers every family shares."""
import collections
import functools
import math
import sys
import threading

import numpy as np

from .. import dtypes, errors
from .._lib import last_error, lib
from ..simulator import Simulator

PARTITIONS = 128
_CACHE_SIZE = 48
_BIND_BYTES = 1 << 16  # inputs this large are bound in place rather than copied

# Threads (docs/python.md, Threads): each thread keeps its own cache of
# kernels, so no simulator is ever touched by two threads and runs of
# different threads overlap (ctypes releases the GIL in every library call).
# configure() replaces one (config, settings, generation) tuple at once; a
# thread whose cache is of an older generation closes it on its next call.
_config = (None, {}, 0)
_config_lock = threading.Lock()
_local = threading.local()


def configure(config=None, **settings):
    """Use this config (a path, libconfig text or None for the embedded
    default) and these overrides (as trnsim.Simulator takes them) for every
    later isa call of every thread, e.g.
    configure(search={"duplicate_match_order": "descending"})."""
    global _config
    with _config_lock:
        _config = (config, dict(settings), _config[2] + 1)
    clear_cache()


def clear_cache():
    """Close this thread's cached simulators now; other threads close theirs
    on their next isa call."""
    global _config
    with _config_lock:
        _config = _config[:2] + (_config[2] + 1,)
    _thread_cache()


def _thread_cache():
    """This thread's kernels (an OrderedDict, least recently used first),
    emptied first if configure() or clear_cache() ran since it was filled."""
    generation = _config[2]
    cache = getattr(_local, "cache", None)
    if cache is None or _local.generation != generation:
        while cache:
            cache.popitem(last=False)[1].sim.close()
        cache = _local.cache = collections.OrderedDict()
        _local.generation = generation
    return cache


class _Kernel:
    """A loaded program and what its calls move in and out."""

    __slots__ = ("sim", "h", "program", "ins", "outs", "settings", "bound")

    def __init__(self, program, ins, outs, extra_settings):
        config, settings, _ = _config
        settings = dict(settings)
        for k, v in extra_settings.items():
            merged = dict(settings.get(k, {}))
            merged.update(v)
            settings[k] = merged
        _fit_sbuf(program, settings)
        self.settings = settings
        self.sim = Simulator(config, **settings)
        self.sim.load(program)
        self.h = self.sim._h
        self.program = program
        # ins: (name, core); outs: (name, core, shape, dtype name)
        self.ins = [(n.encode(), c) for n, c in ins]
        self.outs = [(n.encode(), c, tuple(self.sim.tensor(n).shape), dtypes.storage(self.sim.tensor(n).dtype))
                     for n, c in outs]
        self.bound = [None] * len(self.ins)  # the arrays the simulator reads in place


# The SBUF a partition has by default (docs/config.md) and at most
_SBUF_DEFAULT = 196608
_SBUF_MAX = 1 << 24
_ALIGN = 64  # the host places each tensor at a 64-byte boundary of the partition


def _fit_sbuf(program, settings):
    """A row too long for the default SBUF is a limit of the simulated
    machine's size, not of the instruction (BNStats loops over any row):
    give this kernel's machine the SBUF its tensors need, up to the most the
    config allows, and let the instruction refuse only what it refuses."""
    need = 0
    for t in program["tensors"]:
        if t.get("memory") == "sbuf":
            free = math.prod(t["shape"][1:]) if len(t["shape"]) > 1 else 1
            need += -(-free * dtypes.storage(t["dtype"]).itemsize // _ALIGN) * _ALIGN
    machine = dict(settings.get("machine", {}))
    have = int(machine.get("sbuf_partition_bytes", _SBUF_DEFAULT))
    if need > have:
        machine["sbuf_partition_bytes"] = min(-(-need // 4096) * 4096, _SBUF_MAX)
        settings["machine"] = machine


def _call(key, build, arrays, raw_outputs=False, settings=None):
    """Run the program of key (built once by build() -> (program, ins, outs))
    with arrays (raw tensor contents, in the order of ins); returns the outputs
    as raw storage arrays (raw_outputs) or values."""
    cache = _thread_cache()
    k = cache.get(key)
    if k is None:
        program, ins, outs = build()
        k = _Kernel(program, ins, outs, settings or {})
        cache[key] = k
        while len(cache) > _CACHE_SIZE:
            cache.popitem(last=False)[1].sim.close()
    else:
        cache.move_to_end(key)
    h = k.h
    for j, ((name, core), a) in enumerate(zip(k.ins, arrays)):
        # a large input is lent in place, not copied (trnsim_bind_tensor):
        # the kernel keeps the array alive until its next call rebinds it
        if a.nbytes >= _BIND_BYTES and a.flags.aligned:
            rc = lib.trnsim_bind_tensor(h, name, core, a.ctypes.data, a.nbytes)
            k.bound[j] = a
        else:
            rc = lib.trnsim_set_tensor(h, name, core, a.ctypes.data, a.nbytes)
            k.bound[j] = None
        if rc:
            raise last_error(errors.InputError)
    if lib.trnsim_run(h):
        raise last_error(errors.RunError)
    out = []
    for name, core, shape, st in k.outs:
        raw = np.empty(shape, st)
        if lib.trnsim_get_written_tensor(h, name, core, raw.ctypes.data, raw.nbytes):
            raise last_error(errors.InputError)
        out.append(raw)
    recorder = sys.modules[__package__].recorder
    if recorder is not None:  # what ran, for comparison with the CLI
        recorder.append((k.program, [(n.decode(), c, a.copy()) for (n, c), a in zip(k.ins, arrays)],
                         [(n.decode(), c, r.copy()) for (n, c, _, _), r in zip(k.outs, out)], k.settings))
    return out


def _values(raw, dt, raw_bits):
    return dtypes.from_tensor_bytes(raw, dt, raw_bits)


# ---- inputs ----

_FAST = {np.dtype(n): n for n in ("float32", "float16", "int8", "uint8", "int16", "uint16", "int32", "uint32",
                                   "int64", "uint64")}


def _input(array, what):
    """(contiguous raw contents, tensor dtype, original shape, raw_bits) of an input."""
    if type(array) is np.ndarray:  # the common case: the array's bytes are the tensor's
        name = _FAST.get(array.dtype)
        if name is not None:
            if not array.flags.c_contiguous:
                array = np.ascontiguousarray(array)
            return array, name, array.shape, False
    try:
        dt = dtypes.tensor_dtype_of(array)
        raw = dtypes.to_tensor_bytes(array, dt)
    except errors.InputError as exc:
        raise errors.InputError("%s: %s" % (what, exc.message)) from None
    return raw, dt, np.shape(array), isinstance(array, dtypes.RawBits)


def _rows(array, what, min_free=1):
    """An input of a floating-point instruction as [P, N] raw contents (free
    dims flattened). A plain 8/16-bit integer array is refused: it may be
    bfloat16 / fp8 bits or integers, and trnsim does not guess."""
    raw, dt, shape, rb = _input(array, what)
    if dt in dtypes.SMALL_INTS and not rb:
        raise dtypes.ambiguous_bits(array, "fp32", what)
    if len(shape) < 1 or shape[0] < 1:
        raise errors.InputError("%s: expected a [P, ...] array with at least one partition, got "
                                "shape %s" %
                                (what, list(shape)))
    p = shape[0]
    n = math.prod(shape[1:])
    if n < min_free:
        raise errors.InputError("%s: %d elements per partition, at least %d needed" % (what, n, min_free))
    return (raw if len(shape) == 2 else raw.reshape(p, n)), dt, rb


def _per_partition(array, p, n, what):
    """A per-partition operand of n elements ([P, n] or [P] when n is 1)."""
    raw, dt, rb = _rows(array, what)
    if raw.shape != (p, n):
        raise errors.InputError("%s: expected %d partitions of %d elements, got shape %s" %
                                (what, p, n, list(np.shape(array))))
    return raw, dt


def _float_out(dt):
    return dt if dt not in dtypes.PACKED and not dt.startswith(("int", "uint")) else "float32"


def _t(name, shape, dt, memory="sbuf"):
    return {"name": name, "memory": memory, "dtype": dt, "shape": [int(s) for s in shape]}


def _prog(tensors, insts, cores=1):
    return {"cores": cores, "tensors": tensors, "instructions": insts}


def _chunked(fn, arrays, *args, **kw):
    """Run fn over runs of 128 partitions of the row arrays; concatenate."""
    a0 = arrays[0]
    p = a0.shape[0] if type(a0) is np.ndarray and a0.ndim else np.shape(a0)[0] if np.ndim(a0) else 1
    if p <= PARTITIONS:
        return fn(*arrays, *args, **kw)
    parts = [fn(*[a[i:i + PARTITIONS] for a in arrays], *args, **kw) for i in range(0, p, PARTITIONS)]
    if isinstance(parts[0], tuple):
        return tuple(np.concatenate([q[j] for q in parts]) for j in range(len(parts[0])))
    return np.concatenate(parts)


def _fp32_attr(v):
    f = float(v)
    return "nan" if math.isnan(f) else ("inf" if f > 0 else "-inf") if math.isinf(f) else f


def _one_of(what, first, first_name, nki, nki_name):
    """An argument given positionally / by its trnsim name, or by NKI's keyword."""
    if (first is None) == (nki is None):
        raise errors.InputError("isa.%s: give %s (or NKI's %s=), exactly one of them" %
                                (what, first_name, nki_name))
    return first if nki is None else nki


def _api(it, opname):
    """A public isa function: any trnsim.Error it raises reads as Python,
    "isa.<function> <argument>: ...", and carries the opcode it runs where
    the error itself names none (an argument refused before anything ran)."""
    def wrap(fn):
        @functools.wraps(fn)
        def call(*args, **kw):
            try:
                return fn(*args, **kw)
            except errors.Error as exc:
                raise _as_call_error(exc, fn.__name__, it, opname) from None
        return call
    return wrap


def _as_call_error(exc, name, it, opname):
    msg = exc.message
    if not msg.startswith("isa."):
        msg = ("isa." + msg) if msg.startswith(name + " ") or msg.startswith(name + ":") else \
            "isa.%s: %s" % (name, msg)
    if exc.opcode is None:
        return type(exc)(msg, file=exc.file, instruction=exc.instruction, core=exc.core, opcode=it,
                         opcode_name=opname)
    return type(exc)(msg, file=exc.file, instruction=exc.instruction, core=exc.core,
                     opcode=exc.opcode, opcode_name=exc.opcode_name)
