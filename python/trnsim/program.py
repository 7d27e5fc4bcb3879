"""A builder for native programs (docs/programs.md) without writing JSON.

    p = trnsim.Program(cores=1)
    x = p.tensor("x", [128, 64], "float32")
    v = p.tensor("v", [128, 8], "float32")
    p.add("Max", inputs=[x[:, 0:32]], outputs=[v])     # slices are APs
    p.op.Max(inputs=[x], outputs=[v])                    # the same, by attribute
    p.to_json()                                          # the native program
    trnsim.Simulator().run(p, inputs={"x": data})

Simulator.load hands a Program to libtrnsim as a program built in memory
(trnsim_program_*, docs/embedding.md), read by the same checks as its JSON.
"""
import contextlib
import json
import math

import numpy as np

from . import dtypes, errors


def _json_value(v):
    """Attributes as the native reader takes them (inf / nan as strings)."""
    if isinstance(v, (float, np.floating)):
        f = float(v)
        if math.isnan(f):
            return "nan"
        if math.isinf(f):
            return "inf" if f > 0 else "-inf"
        return f
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (list, tuple, np.ndarray)):
        return [_json_value(x) for x in (v.tolist() if isinstance(v, np.ndarray) else v)]
    if isinstance(v, dict):
        return {k: _json_value(x) for k, x in v.items()}
    if isinstance(v, Operand):
        return v.to_json()
    return v


class Operand:
    """An access pattern over a tensor (docs/programs.md, Operands)."""

    def __init__(self, tensor, partition=0, partitions=None, partition_step=1, offset=0, ap=None, dtype=None, **extra):
        self.tensor, self.partition, self.partitions = tensor, partition, partitions
        self.partition_step, self.offset, self.ap, self.dtype, self.extra = partition_step, offset, ap, dtype, extra

    def to_json(self):
        d = {"tensor": self.tensor.name}
        if self.partition:
            d["partition"] = self.partition
        if self.partitions is not None:
            d["partitions"] = self.partitions
        if self.partition_step != 1:
            d["partition_step"] = self.partition_step
        if self.offset:
            d["offset"] = self.offset
        if self.ap is not None:
            d["ap"] = [list(p) for p in self.ap]
        if self.dtype is not None:
            d["dtype"] = self.dtype
        d.update({k: _json_value(v) for k, v in self.extra.items()})
        return d


def _span(index, extent, what):
    """(start, count, step) of a slice or an int index over extent."""
    if isinstance(index, (int, np.integer)):
        i = int(index) + (extent if index < 0 else 0)
        if not 0 <= i < extent:
            raise errors.ProgramError("%s index %d is outside 0..%d" % (what, index, extent - 1))
        return i, None, 1
    if not isinstance(index, slice):
        raise errors.ProgramError("%s: index with ints and slices, not %s" % (what, type(index).__name__))
    start, stop, step = index.indices(extent)
    n = len(range(start, stop, step))
    if n == 0:
        raise errors.ProgramError("%s slice %s selects nothing" % (what, index))
    return start, n, step


class TensorRef:
    """A declared tensor; index it to get an Operand (first index: the
    partitions of an SBUF / PSUM tensor; the rest: its free dims)."""

    def __init__(self, program, name, shape, dtype, memory):
        self.program, self.name, self.shape, self.dtype, self.memory = program, name, tuple(shape), dtype, memory

    @property
    def partitioned(self):
        return self.memory in ("sbuf", "psum")

    def __getitem__(self, index):
        if not isinstance(index, tuple):
            index = (index,)
        if any(i is Ellipsis for i in index):
            k = index.index(Ellipsis)
            index = index[:k] + (slice(None),) * (len(self.shape) - len(index) + 1) + index[k + 1:]
        if len(index) > len(self.shape):
            raise errors.ProgramError("tensor '%s' has %d dims, indexed with %d" % (self.name, len(self.shape), len(index)))
        index = index + (slice(None),) * (len(self.shape) - len(index))
        free = self.shape[1:] if self.partitioned else self.shape
        kw = {}
        if self.partitioned:
            p0, pn, ps = _span(index[0], self.shape[0], "partition")
            kw = {"partition": p0, "partitions": pn if pn is not None else 1, "partition_step": ps}
            index = index[1:]
        strides = [int(np.prod(free[d + 1:], dtype=np.int64)) for d in range(len(free))]
        offset, ap = 0, []
        for d, idx in enumerate(index):
            start, n, step = _span(idx, free[d], "dim %d" % (d + (1 if self.partitioned else 0)))
            offset += start * strides[d]
            if n is not None:
                ap.append([step * strides[d], n])
        if not ap:
            ap = [[1, 1]]
        if len(ap) > 4:
            raise errors.ProgramError("an AP has at most 4 [step, num] pairs; this slice of '%s' needs %d" %
                                      (self.name, len(ap)))
        return Operand(self, offset=offset, ap=ap, **kw)

    def ap(self, pairs, offset=0, **kw):
        """An explicit AP: [[step, num], ...] outermost first, steps in elements."""
        return Operand(self, offset=offset, ap=[list(p) for p in pairs], **kw)

    def view(self, dtype, **kw):
        """The tensor's bytes reinterpreted as another dtype."""
        return Operand(self, dtype=dtypes.canonical(dtype), **kw)

    def to_json(self):
        return self.name


class _Ops:
    def __init__(self, program):
        self._p = program

    def __getattr__(self, opcode):
        return lambda inputs=(), outputs=(), **attrs: self._p.add(opcode, inputs, outputs, **attrs)


class Program:
    """A native program under construction; cores=N runs it SPMD on N cores."""

    def __init__(self, cores=1, allow_uninit_read=False, name="<program>"):
        self.cores, self.allow_uninit_read, self.name = cores, allow_uninit_read, name
        self._tensors, self._insts = [], []
        self.op = _Ops(self)

    def tensor(self, name, shape, dtype="float32", memory="sbuf", **init):
        """Declare a tensor. init: data=[...] (flat or shaped), fill=x,
        data_per_core=[...], partition=, offset= (placement)."""
        if any(t["name"] == name for t in self._tensors):
            raise errors.ProgramError("tensor '%s' is declared twice" % name)
        d = {"name": name, "memory": memory, "dtype": dtypes.canonical(dtype), "shape": [int(s) for s in shape]}
        for k, v in init.items():
            if k in ("data", "data_per_core"):
                v = np.asarray(v)
                v = v.reshape(len(v), -1).tolist() if k == "data_per_core" else v.reshape(-1).tolist()
            d[k] = _json_value(v)
        self._tensors.append(d)
        return TensorRef(self, name, shape, d["dtype"], memory)

    def add(self, opcode, inputs=(), outputs=(), **attrs):
        """Append an instruction: opcode by name (as `trnsim opcodes` lists
        them) or IT number; operands are tensors, Operands or names;
        attributes as keywords (snake_case, as docs/programs.md)."""
        inst = {"opcode": opcode if isinstance(opcode, str) else int(opcode),
                "inputs": [_operand(o) for o in inputs], "outputs": [_operand(o) for o in outputs]}
        for k, v in attrs.items():
            inst[k] = _json_value(v)
        self._insts.append(inst)
        return self

    @contextlib.contextmanager
    def loop(self, trips, **attrs):
        """Instructions added inside `with p.loop(trips, register=0):` form
        the loop's body (docs/programs.md, Loops: register, start, step)."""
        body = []
        entry = dict({"trips": int(trips)}, **{k: _json_value(v) for k, v in attrs.items()})
        entry["body"] = body
        self._insts.append({"loop": entry})
        outer, self._insts = self._insts, body
        try:
            yield self
        finally:
            self._insts = outer

    def to_dict(self):
        d = {"cores": self.cores, "tensors": list(self._tensors), "instructions": list(self._insts)}
        if self.allow_uninit_read:
            d["allow_uninit_read"] = True
        return d

    def to_json(self, indent=None):
        return json.dumps(self.to_dict(), indent=indent)


def _operand(o):
    if isinstance(o, str):
        return o
    if isinstance(o, (TensorRef, Operand)):
        return o.to_json()
    if isinstance(o, dict):
        return _json_value(o)
    raise errors.ProgramError("an operand is a tensor, a slice of one, a name or a dict, not %s" % type(o).__name__)
