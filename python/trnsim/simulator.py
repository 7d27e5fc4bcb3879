"""trnsim.Simulator: the simulator in process, numpy arrays in and out."""
import ctypes
import functools
import json
import os
import threading

import numpy as np

from . import _build, dtypes, errors
from ._lib import Options, Tensor, last_error, lib
from .program import Program


def _setting_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_setting_value(x) for x in v) + "]"
    return json.dumps(str(v))  # a libconfig string: quoted, escaped


def settings_to_sets(settings):
    """Keyword settings -> KEY=VALUE strings (docs/config.md, Overrides).

    search={"duplicate_match_order": "descending"} and
    search__duplicate_match_order="descending" both give
    search.duplicate_match_order="descending"; machine={"partitions": 4}
    gives machine.partitions=4; unknown_opcode="skip" stays top level."""
    out = []
    for key, value in settings.items():
        key = key.replace("__", ".")
        if isinstance(value, dict):
            for sub, v in value.items():
                out.append("%s.%s=%s" % (key, sub, _setting_value(v)))
        else:
            out.append("%s=%s" % (key, _setting_value(value)))
    return out


def _is_config_text(config):
    return isinstance(config, str) and ("=" in config or "\n" in config) and not os.path.isfile(config)


def program_text(program):
    """(json text, name) of a program given as a dict, a Program, JSON text or a path."""
    if hasattr(program, "to_dict"):
        return json.dumps(program.to_dict()), getattr(program, "name", "<program>")
    if isinstance(program, dict):
        return json.dumps(program), "<program>"
    if isinstance(program, (bytes, bytearray)):
        return program.decode(), "<program text>"
    if isinstance(program, os.PathLike) or (isinstance(program, str) and not program.lstrip().startswith("{")):
        path = os.fspath(program)
        try:
            with open(path, encoding="utf-8") as f:
                return f.read(), path
        except OSError as exc:
            raise errors.ProgramError("%s: cannot read the program: %s" % (path, exc.strerror), file=path) from None
    if isinstance(program, str):
        return program, "<program text>"
    raise errors.ProgramError("a program is a dict, a trnsim.Program, JSON text or a path, not %s" %
                              type(program).__name__)


def _one_thread(method):
    """A Simulator serves one thread at a time: a call while another thread
    is inside one raises UsageError instead of racing on the handle (the
    same thread may re-enter, as run() calls set() and get())."""
    @functools.wraps(method)
    def guarded(self, *args, **kw):
        if self._h is None and method.__name__ != "close":
            raise errors.UsageError("Simulator.%s: the simulator is closed (open a new "
                                    "trnsim.Simulator)" %
                                    method.__name__)
        if not self._busy.acquire(blocking=False):
            raise errors.UsageError(
                "Simulator.%s: another thread is using this simulator; a Simulator serves one "
                "thread at a "
                "time (give each thread its own, or hold a lock around its calls)" %
                method.__name__)
        try:
            return method(self, *args, **kw)
        finally:
            self._busy.release()
    return guarded


class TensorInfo:
    """A tensor of the loaded program."""

    __slots__ = ("name", "dtype", "shape", "count", "nbytes", "_cname")

    def __init__(self, t):
        self.name = t.name.decode()
        self.dtype = t.dtype.decode()
        self.shape = tuple(t.shape[i] for i in range(t.ndim))
        self.count = t.count
        self.nbytes = t.bytes
        self._cname = t.name  # bytes, for the calls

    def __repr__(self):
        return "TensorInfo(%r, %s, %s)" % (self.name, self.dtype, list(self.shape))


class Simulator:
    """One simulator: a config, its modules, one loaded program, the memories
    of every core.

        sim = trnsim.Simulator()                          # the embedded default config
        sim = trnsim.Simulator("config/topk.cfg", search={"duplicate_match_order": "descending"})
        out = sim.run(program, inputs={"x": x})          # {name: ndarray}

    config is a path, libconfig text, or None. settings are overrides
    (docs/config.md): FAMILY={KEY: VALUE}, machine={...}, or top-level keys.
    raw_bits=True returns bfloat16 / fp8 outputs as RawBits instead of
    ml_dtypes (or, without ml_dtypes, float32) values.
    """

    def __init__(self, config=None, *, raw_bits=False, module_dir=None, **settings):
        self._busy = threading.RLock()
        self.raw_bits = raw_bits
        self._h = None
        self._text = None
        self._name = None
        self._tensors = {}
        self._bound = {}  # (name, core) -> the array a binding reads
        sets = settings_to_sets(settings)
        arr = (ctypes.c_char_p * max(len(sets), 1))(*[s.encode() for s in sets])
        opts = Options(size=ctypes.sizeof(Options), sets=arr, n_sets=len(sets),
                       module_dir=os.fsencode(module_dir) if module_dir else None)
        if config is not None:
            if _is_config_text(config):
                opts.config_text = config.encode()
            else:
                opts.config_path = os.fsencode(config)
        self._lib = lib  # kept for __del__ at interpreter exit
        h = lib.trnsim_open(ctypes.byref(opts))
        if not h:
            raise last_error(errors.ConfigError)
        self._h = ctypes.c_void_p(h)

    # ---- lifetime ----
    @_one_thread
    def close(self):
        """Free the simulator (also done when it is garbage collected)."""
        if self._h is not None:
            self._lib.trnsim_close(self._h)
            self._h = None
            self._tensors = {}
            self._bound = {}

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _handle(self):
        if self._h is None:
            raise errors.UsageError("the simulator is closed")
        return self._h

    # ---- programs ----
    @_one_thread
    def load(self, program):
        """Load a program (dict, trnsim.Program, JSON text or path): tensors
        placed, every core's memories fresh. Loading the same text again
        keeps the loaded program and its memories."""
        built = isinstance(program, Program)
        text, name = program_text(program)  # for a Program: what it is, to see whether it is loaded already
        if text == self._text and name == self._name:
            return
        h = self._handle()
        self._text = None
        self._tensors = {}
        self._bound = {}
        if built:  # through the in-memory builder: no JSON text on the way
            ph = _build.build(program)
            try:
                rc = lib.trnsim_load_program(h, ph, name.encode())
            finally:
                lib.trnsim_program_free(ph)
        else:
            rc = lib.trnsim_load_program_text(h, text.encode(), name.encode())
        if rc:
            raise last_error(errors.ProgramError)
        self._text, self._name = text, name
        t = Tensor()
        for i in range(lib.trnsim_tensor_count(h)):
            lib.trnsim_tensor_at(h, i, ctypes.byref(t))
            info = TensorInfo(t)
            self._tensors[info.name] = info
        self._program = program.to_dict() if built else json.loads(text) if text.lstrip().startswith("{") else None

    @property
    @_one_thread
    def cores(self):
        """Cores of the loaded program (0 without one)."""
        return lib.trnsim_cores(self._handle())

    def tensors(self):
        """The loaded program's tensors, in declaration order."""
        return list(self._tensors.values())

    def tensor(self, name):
        if self._h is None:
            raise errors.UsageError("Simulator.tensor: the simulator is closed (open a new "
                                    "trnsim.Simulator)")
        try:
            return self._tensors[name]
        except KeyError:
            raise errors.InputError("%s: no tensor named '%s' (tensors: %s)" %
                                    (self._name, name, ", ".join(self._tensors) or "none"), file=self._name) from None

    # ---- data ----
    @_one_thread
    def set(self, name, array, core=None):
        """Write a whole tensor: on every core (core None), or on one core.
        An array shaped [cores, *shape] with core None gives core k slice k."""
        t = self.tensor(name)
        a = array if isinstance(array, dtypes.RawBits) else np.asarray(array)
        cores = self.cores
        if core is None and cores > 1 and a.shape == (cores,) + t.shape:
            for c in range(cores):
                self.set(name, a[c], c)
            return
        if a.shape != t.shape and not (a.size == t.count and a.ndim <= 1 and len(t.shape) <= 1):
            raise errors.InputError("tensor '%s': shape %s does not match the tensor's shape %s%s" %
                                    (name, list(a.shape), list(t.shape),
                                     " (or [%d, *shape] for one slice per core)" % cores if cores > 1 else ""),
                                    file=self._name)
        try:
            raw = dtypes.to_tensor_bytes(a, t.dtype)
        except errors.InputError as exc:
            raise errors.InputError("tensor '%s': %s" % (name, exc.message), file=self._name) from None
        if lib.trnsim_set_tensor(self._handle(), t._cname, -1 if core is None else int(core),
                                 raw.ctypes.data, raw.nbytes):
            raise last_error(errors.InputError)
        if core is None:
            self._forget_bound(name)

    @_one_thread
    def bind(self, name, array, core=None):
        """Lend a whole tensor's contents in place instead of copying them
        (trnsim_bind_tensor): runs read the array's memory where they would
        read set()'s copy, with the same results, and never write it. The
        array must be a C-contiguous, aligned numpy array of exactly the
        tensor's storage dtype and shape. The simulator keeps a reference to
        it until the binding ends (set or bind again, unbind, load, close);
        changing the array between runs is what the next run reads."""
        t = self.tensor(name)
        st = np.dtype(dtypes.storage(t.dtype))
        where = "tensor '%s': bind" % name
        if type(array) is not np.ndarray:
            raise errors.InputError("%s needs a numpy array, got %s (use set() to convert)" %
                                    (where, type(array).__name__), file=self._name)
        if array.dtype != st:
            raise errors.InputError("%s needs dtype %s (the tensor is %s), got %s; convert it or "
                                    "use set()" %
                                    (where, st, t.dtype, array.dtype), file=self._name)
        if array.shape != t.shape:
            raise errors.InputError("%s needs shape %s, got %s" % (where, list(t.shape), list(array.shape)),
                                    file=self._name)
        if not array.flags.c_contiguous:
            raise errors.InputError("%s needs a C-contiguous array (np.ascontiguousarray, or use "
                                    "set())" % where,
                                    file=self._name)
        c = -1 if core is None else int(core)
        if lib.trnsim_bind_tensor(self._handle(), t._cname, c, array.ctypes.data, array.nbytes):
            raise last_error(errors.InputError)
        if c < 0:
            self._forget_bound(name)
        self._bound[(name, c)] = array

    @_one_thread
    def unbind(self, name, core=None):
        """End the tensor's binding on every core (core None) or one core,
        copying the array's contents in: the tensor keeps them."""
        t = self.tensor(name)
        if lib.trnsim_unbind_tensor(self._handle(), t._cname, -1 if core is None else int(core)):
            raise last_error(errors.InputError)
        if core is None:
            self._forget_bound(name)

    def _forget_bound(self, name):
        for key in [k for k in self._bound if k[0] == name]:
            del self._bound[key]

    @_one_thread
    def get(self, name, core=None, raw_bits=None, allow_unwritten=False):
        """A tensor's contents as an array of its dtype: core 0 of a one-core
        run or one core; core None on several cores gives [cores, *shape].

        Bytes nothing wrote (no input, fill, data or instruction) hold no
        value: reading them raises InputError naming the first such element,
        as an instruction reading them does. allow_unwritten=True returns
        them as they are (zeros in a fresh simulator)."""
        t = self.tensor(name)
        read = lib.trnsim_get_tensor if allow_unwritten else lib.trnsim_get_written_tensor
        cores = self.cores
        raw_bits = self.raw_bits if raw_bits is None else raw_bits
        stacked = core is None and cores > 1
        raw = np.empty(((cores,) if stacked else ()) + t.shape, dtypes.storage(t.dtype))
        for c, part in enumerate(raw if stacked else [raw]):  # each core's bytes straight into its slice
            if read(self._handle(), t._cname, c if stacked else 0 if core is None else int(core),
                    part.ctypes.data, part.nbytes):
                raise last_error(errors.InputError)
        return dtypes.from_tensor_bytes(raw, t.dtype, raw_bits)

    # ---- running ----
    @_one_thread
    def run(self, program=None, inputs=None, outputs=None, allow_unwritten=False):
        """Run a program (or the loaded one) and return {name: array}.

        inputs: {name: array} written before the run ("name@K" for core K
        only; [cores, *shape] for one slice per core). outputs: the names to
        return; None returns every tensor an instruction writes (every
        tensor when that cannot be seen from the program). An output with
        bytes nothing wrote raises InputError unless allow_unwritten (get)."""
        if program is not None:
            self.load(program)
        if self._text is None:
            raise errors.UsageError("no program is loaded")
        for key, value in (inputs or {}).items():
            name, core = key, None
            if "@" in key and key.rsplit("@", 1)[1].isdigit():
                name, c = key.rsplit("@", 1)
                core = int(c)
            self.set(name, value, core)
        if lib.trnsim_run(self._handle()):
            raise last_error(errors.RunError)
        if outputs is None:
            outputs = self._written_tensors()
        elif isinstance(outputs, str):
            outputs = [outputs]
        return {n: self.get(n, allow_unwritten=allow_unwritten) for n in outputs}

    def _written_tensors(self):
        prog = self._program
        if not isinstance(prog, dict) or not isinstance(prog.get("instructions"), list):
            return list(self._tensors)
        names = []

        def visit(insts):
            for inst in insts:
                if not isinstance(inst, dict):
                    continue
                if "loop" in inst and isinstance(inst["loop"], dict):
                    visit(inst["loop"].get("body", []))
                for op in inst.get("outputs", []) or []:
                    n = op if isinstance(op, str) else op.get("tensor") if isinstance(op, dict) else None
                    if n in self._tensors and n not in names:
                        names.append(n)
        visit(prog["instructions"])
        return [n for n in self._tensors if n in names]
