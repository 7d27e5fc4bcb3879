"""ctypes binding of libtrnsim's embedding API (include/trnsim/trnsim.h).

The library is found, in order, at $TRNSIM_LIBRARY, at the path the build or
the install wrote into _libpath.py, and by ctypes.util.find_library.
"""
import ctypes
import ctypes.util
import os
import re

from . import errors

API_VERSION = 4  # trnsim_get_written_tensor


class _Error(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("message", ctypes.c_char_p), ("file", ctypes.c_char_p),
                ("instruction", ctypes.c_int64), ("core", ctypes.c_int32), ("opcode", ctypes.c_int32),
                ("opcode_name", ctypes.c_char_p)]


class Options(ctypes.Structure):
    _fields_ = [("size", ctypes.c_size_t), ("config_path", ctypes.c_char_p), ("config_text", ctypes.c_char_p),
                ("sets", ctypes.POINTER(ctypes.c_char_p)), ("n_sets", ctypes.c_size_t),
                ("module_dir", ctypes.c_char_p), ("trace", ctypes.c_int), ("stats", ctypes.c_int),
                ("format", ctypes.c_int)]


class Tensor(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("dtype", ctypes.c_char_p), ("dtype_id", ctypes.c_int),
                ("ndim", ctypes.c_int), ("shape", ctypes.POINTER(ctypes.c_int64)), ("count", ctypes.c_int64),
                ("bytes", ctypes.c_size_t)]


def _library_path():
    env = os.environ.get("TRNSIM_LIBRARY")
    if env:
        return env
    try:
        from . import _libpath
    except ImportError:
        _libpath = None
    if _libpath is not None:
        path = _libpath.LIBRARY
        if not os.path.isabs(path):
            path = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), path))
        if os.path.exists(path):
            return path
    found = ctypes.util.find_library("trnsim")
    if found:
        return found
    raise errors.ModuleError(
        "libtrnsim not found: set TRNSIM_LIBRARY to the path of libtrnsim.so, or import the package from a "
        "build tree (build/python) or an installed tree (<prefix>/lib/python3/dist-packages)")


def _load():
    path = _library_path()
    try:
        lib = ctypes.CDLL(path)
    except OSError as exc:
        raise errors.ModuleError("cannot load libtrnsim from %s: %s" % (path, exc)) from None
    p, c_int, c_size, vp = ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t, ctypes.c_void_p
    cstr = ctypes.c_char_p
    sigs = {
        "trnsim_api_version": (ctypes.c_uint, []),
        "trnsim_version": (cstr, []),
        "trnsim_last_error": (ctypes.POINTER(_Error), []),
        "trnsim_open": (p, [ctypes.POINTER(Options)]),
        "trnsim_close": (None, [p]),
        "trnsim_load_program_file": (c_int, [p, cstr]),
        "trnsim_load_program_text": (c_int, [p, cstr, cstr]),
        "trnsim_cores": (c_int, [p]),
        "trnsim_tensor_count": (c_int, [p]),
        "trnsim_tensor_at": (c_int, [p, c_int, ctypes.POINTER(Tensor)]),
        "trnsim_tensor_find": (c_int, [p, cstr, ctypes.POINTER(Tensor)]),
        "trnsim_set_tensor": (c_int, [p, cstr, c_int, vp, c_size]),
        "trnsim_get_tensor": (c_int, [p, cstr, c_int, vp, c_size]),
        "trnsim_run": (c_int, [p]),
        "trnsim_widen": (c_int, [cstr, vp, vp, c_size]),
        "trnsim_narrow": (c_int, [cstr, vp, vp, c_size]),
        # API version 2: programs built in memory
        "trnsim_value_int": (p, [ctypes.c_int64]),
        "trnsim_value_float": (p, [ctypes.c_double]),
        "trnsim_value_bool": (p, [c_int]),
        "trnsim_value_string": (p, [cstr]),
        "trnsim_value_list": (p, []),
        "trnsim_value_object": (p, []),
        "trnsim_value_ints": (p, [vp, c_size]),
        "trnsim_value_floats": (p, [vp, c_size]),
        "trnsim_value_append": (c_int, [p, p]),
        "trnsim_value_set": (c_int, [p, cstr, p]),
        "trnsim_value_free": (None, [p]),
        "trnsim_program_new": (p, []),
        "trnsim_program_free": (None, [p]),
        "trnsim_program_set": (c_int, [p, cstr, p]),
        "trnsim_program_tensor": (c_int, [p, cstr, cstr, cstr, c_int, vp, p]),
        "trnsim_program_instruction": (c_int, [p, cstr, p, p, p]),
        "trnsim_program_instruction_it": (c_int, [p, ctypes.c_uint32, p, p, p]),
        "trnsim_program_loop_begin": (c_int, [p, ctypes.c_int64, p]),
        "trnsim_program_loop_end": (c_int, [p]),
        "trnsim_program_to_json": (ctypes.c_void_p, [p]),
        "trnsim_free": (None, [vp]),
        "trnsim_load_program": (c_int, [p, p, cstr]),
        # API version 3: inputs bound in place
        "trnsim_bind_tensor": (c_int, [p, cstr, c_int, vp, c_size]),
        "trnsim_unbind_tensor": (c_int, [p, cstr, c_int]),
        # API version 4: a get that refuses bytes nothing wrote
        "trnsim_get_written_tensor": (c_int, [p, cstr, c_int, vp, c_size]),
    }
    for name, (res, args) in sigs.items():
        fn = getattr(lib, name)
        fn.restype = res
        fn.argtypes = args
    if lib.trnsim_api_version() < API_VERSION:
        raise errors.ModuleError("%s has embedding API version %d; this package needs %d or later" %
                                 (path, lib.trnsim_api_version(), API_VERSION))
    lib.path = path
    return lib


lib = _load()


# The library words some fixes for the CLI; from Python they read as Python.
_AS_PYTHON = [
    (re.compile(r"--input (\S+?)=FILE\.npy"),
     r"Simulator.set('\1', array) (or run(inputs={'\1': array}))"),
    (re.compile(r"e\.g\. --set machine\.hbm_bytes=(\d+)"),
     r"e.g. Simulator(machine={'hbm_bytes': \1})"),
    (re.compile(r"--set (\S+?)(:|$)"),
     lambda m: "the setting %s%s" % (_as_keyword(m.group(1)), m.group(2))),
]


def _as_keyword(setting):
    """KEY=VALUE as Simulator takes it: "search.order=x (Simulator(search={'order': x}))"."""
    key, eq, value = setting.partition("=")
    if not eq:
        return setting
    family, dot, name = key.partition(".")
    call = "%s={'%s': %s}" % (family, name, value) if dot else "%s=%s" % (key, value)
    return "%s (Simulator(%s))" % (setting, call)


def as_python(message):
    """A library message with its CLI flags put as the Python calls that do the same."""
    for pattern, repl in _AS_PYTHON:
        message = pattern.sub(repl, message)
    return message


def last_error(default_cls=None):
    """The library's last error as a trnsim.Error subclass instance."""
    e = lib.trnsim_last_error().contents
    cls = errors.KIND_CLASSES.get(e.kind, default_cls or errors.Error)
    dec = lambda b: b.decode("utf-8", "replace") if b else ""
    return cls(as_python(dec(e.message)), file=dec(e.file) or None,
               instruction=e.instruction if e.instruction >= 0 else None,
               core=e.core if e.core >= 0 else None, opcode=e.opcode if e.opcode >= 0 else None,
               opcode_name=dec(e.opcode_name) or None)
