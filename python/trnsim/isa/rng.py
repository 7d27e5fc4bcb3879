"""trnsim.isa, RNG family: the gen-1 (IT 58-60) and gen-2 (IT 97-99) generators."""
import threading

import numpy as np

from .. import dtypes, errors
from ._kernel import PARTITIONS, _api, _call, _fp32_attr, _prog, _t


_ALGORITHMS = {"lfsr": 0, "pcg32": 1, "philox": 2}


def _state_in(state, p, words, what):
    s = np.asarray(state)
    if s.shape != (p, words):
        raise errors.InputError("%s: a state is [%d, %d] uint32 here (%s), got shape %s" %
                                (what, p, words, "gen-1: 6 words" if words == 6 else "gen-2: 4 "
                                                                                     "lanes x 6 "
                                                                                     "words, "
                                 "word-major", list(s.shape)))
    if s.dtype.kind not in "iu":
        raise errors.InputError("%s: state words are uint32, got %s" % (what, s.dtype))
    return dtypes.to_tensor_bytes(s.astype(np.uint32) if s.dtype != np.uint32 else s, "uint32")


def _rng_call(kind, p, n, state, words, rand_inst, out_dt):
    """One run over p <= 128 partitions: [p, n] values and the state after."""
    arrays = [_state_in(state, p, words, kind)]
    gen2 = words == 24

    def build():
        tensors = [_t("r", (p, n), out_dt), _t("so", (p, words), "uint32"),
                   _t("si", (p, words), "uint32")]
        set_op, get_op = (("SetRandState2", "GetRandState2") if gen2 else
                          ("SetRandState", "GetRandState"))
        insts = [{"opcode": set_op, "inputs": ["si"], "outputs": []},
                 dict(rand_inst, outputs=["r"]),
                 {"opcode": get_op, "inputs": [], "outputs": ["so"]}]
        return _prog(tensors, insts), [("si", -1)], [("r", 0), ("so", 0)]
    key = (kind, p, n, tuple(sorted((k, str(v)) for k, v in rand_inst.items())))
    r, so = _call(key, build, arrays)
    return r.view(np.dtype(dtypes.value_dtype(out_dt))), so


# NKI's generators are device state: rand_set_state / set_rng_seed install a
# state that later rand2 / rand calls continue. Each thread has its own
# device (a [128, words] state per generation, the engine's default until
# something is installed), as each thread has its own kernels.
_local = threading.local()


def _device(words):
    """This thread's current state of the generation with `words` words."""
    dev = getattr(_local, "states", None)
    if dev is None:
        dev = _local.states = {}
    if words not in dev:
        dev[words] = _engine_state(PARTITIONS, words, None)
    return dev[words]


def _install(words, rows):
    _device(words)[:rows.shape[0]] = rows


def reset_rand_state():
    """Put this thread's device generators (gen-1 and gen-2) back to the
    engine's default state, as a fresh device has them."""
    _local.states = {}


def _stream(kind, shape, state, words, rand_inst, out_dt):
    """rand / rand2: values of shape from the given state (functional: the
    device state is untouched) or from this thread's device state (which
    then continues where the call left it). P above 128 runs in pieces of
    128 partitions, one after the other, each continuing the state of the
    rows it reuses, as successive instructions on the engine would."""
    shape = tuple(int(d) for d in (shape if np.ndim(shape) else (shape,)))
    if len(shape) < 1 or shape[0] < 1:
        raise errors.InputError("isa.%s: shape is [P, ...] with P >= 1 partitions, got %s" %
                                (kind, list(shape)))
    p = shape[0]
    n = int(np.prod(shape[1:], dtype=np.int64)) if len(shape) > 1 else 1
    rows = min(p, PARTITIONS)
    if state is None:
        cur = _device(words)[:rows].copy()
    else:
        cur = _state_in(state, rows, words, "isa.%s state" % kind).copy()
    parts = []
    for start in range(0, p, PARTITIONS):
        q = min(PARTITIONS, p - start)
        r, cur[:q] = _rng_call(kind, q, n, cur[:q], words, rand_inst, out_dt)
        parts.append(r)
    if state is None:
        _install(words, cur)
    values = parts[0] if len(parts) == 1 else np.concatenate(parts)
    return values.reshape(shape), cur


@_api(60, "Rand")
def rand(shape, algorithm="philox", state=None):
    """Gen-1 random bits: (values uint32 of shape, state_out [min(P, 128), 6]
    uint32).

    Runs SetRandState (IT 59), Rand (IT 60) and GetRandState (IT 58).
    shape [P, ...]; element j of partition p is the j-th output of p's
    stream; P above 128 runs in pieces of 128 partitions, each piece
    continuing the stream of the rows it reuses. algorithm: "lfsr", "pcg32",
    "philox" (or 0, 1, 2). state None: this thread's device state (the
    engine's default, every word 1, until rand_set_state installs one),
    which the call then advances; a state given: that state, and the device
    state is left alone. Quirks: rng.rand_raw_bits (no distribution),
    rng.zero_guard (words 0..4 all zero -> word 4 = 1 when installed). The
    word mapping is docs/rng.md's.
    """
    alg = _ALGORITHMS.get(str(algorithm).lower(), algorithm)
    if alg not in (0, 1, 2):
        raise errors.InputError("isa.rand: algorithm is 'lfsr', 'pcg32' or 'philox' (0, 1, 2), "
                                "not %r" %
                                (algorithm,))
    inst = {"opcode": "Rand", "algorithm": int(alg), "inputs": []}
    return _stream("rand", shape, state, 6, inst, "uint32")


@_api(97, "Rand2")
def rand2(shape, min=0.0, max=1.0, state=None, lanes=1):
    """nki.isa.rand2: (values float32 of shape, state_out [min(P, 128), 24]
    uint32 in the reference's word-major layout).

    Runs SetRandState2 (IT 99), Rand2 (IT 97) and GetRandState2 (IT 98).
    XORWOW, out = min + (max - min) * u in fp32. state None: NKI's way,
    this thread's device state (set by rand_set_state / set_rng_seed, the
    engine's default until then), which the call advances, so successive
    calls continue one stream; a state given: that state (functional; the
    device state is left alone). P above 128 runs in pieces of 128
    partitions, each continuing the rows' streams. lanes 1, 2 (is_2x1p) or
    4 (is_4x2p): column j is driven by lane j % lanes. Quirks:
    rng.rand2_half_open (values in [min, max), NKI says [min, max]; fp32
    rounding can still reach max), rng.rand2_min_gt_max,
    rng.gen2_state_transposed, rng.zero_guard.
    """
    flags = {1: {}, 2: {"is_2x1p": True}, 4: {"is_4x2p": True}}
    if lanes not in flags:
        raise errors.InputError("isa.rand2: lanes is 1, 2 or 4, not %r" % (lanes,))
    inst = dict({"opcode": "Rand2", "min": _fp32_attr(min), "max": _fp32_attr(max), "inputs": []}, **flags[lanes])
    return _stream("rand2", shape, state, 24, inst, "float32")


def _words_of(generation, what):
    if generation not in (1, 2):
        raise errors.InputError("isa.%s: generation is 1 or 2, not %r" % (what, generation))
    return 6 if generation == 1 else 24


def _partitions(partitions, what):
    p = int(partitions)
    if not 1 <= p <= PARTITIONS:
        raise errors.InputError("isa.%s: partitions must be 1..%d, got %d" % (what, PARTITIONS, p))
    return p


@_api(98, "GetRandState2")
def get_rand_state(partitions=PARTITIONS, generation=2, seed=None):
    """nki.isa.rand_get_state: this thread's current device state, as
    GetRandState (IT 58, gen-1: [P, 6]) or GetRandState2 (IT 98, gen-2:
    [P, 24], word-major) reads it: the engine's default (every word 1)
    until rand_set_state / set_rng_seed installs one, then as rand / rand2
    calls leave it. With seed: the state SetRandState with that seed gives
    (gen-1 a list of 8 uint32, the wire seed, partition p in word 0's top
    byte; gen-2 an integer, MT19937-64 fill, docs/rng.md), installing
    nothing."""
    words = _words_of(generation, "get_rand_state")
    p = _partitions(partitions, "get_rand_state")
    if seed is None:
        return _device(words)[:p].copy()
    return _engine_state(p, words, seed)


def _engine_state(p, words, seed):
    """The state the engine reads after a fresh start [and a seeded SetRandState]."""
    seed_j = None if seed is None else [int(s) for s in seed] if np.ndim(seed) else str(int(seed))

    def build():
        insts = []
        if seed_j is not None:
            insts.append({"opcode": "SetRandState2" if words == 24 else "SetRandState", "seed": seed_j,
                          "inputs": [], "outputs": []})
        insts.append({"opcode": "GetRandState2" if words == 24 else "GetRandState", "inputs": [], "outputs": ["so"]})
        return _prog([_t("so", (p, words), "uint32")], insts), [], [("so", 0)]
    return _call(("getstate", p, words, str(seed_j)), build, [])[0]


@_api(99, "SetRandState2")
def set_rand_state(state):
    """nki.isa.rand_set_state: install a state ([P, 6] gen-1 or [P, 24]
    gen-2 uint32, P <= 128) in partitions 0..P-1 of this thread's device
    with SetRandState (IT 59) / SetRandState2 (IT 99): later rand / rand2
    calls without state= continue from it. Returns it as GetRandState reads
    it back: equal, except where the zero guard (rng.zero_guard) repaired a
    lane whose words 0..4 were all zero."""
    s = np.asarray(state)
    if s.ndim != 2 or s.shape[1] not in (6, 24):
        raise errors.InputError("isa.set_rand_state: a state is [P, 6] (gen-1) or [P, 24] (gen-2) "
                                "uint32, got shape %s" % list(s.shape))
    p, words = s.shape
    _partitions(p, "set_rand_state")
    raw = _state_in(s, p, words, "isa.set_rand_state")
    gen2 = words == 24

    def build():
        return (_prog([_t("si", (p, words), "uint32"), _t("so", (p, words), "uint32")],
                      [{"opcode": "SetRandState2" if gen2 else "SetRandState", "inputs": ["si"], "outputs": []},
                       {"opcode": "GetRandState2" if gen2 else "GetRandState", "inputs": [], "outputs": ["so"]}]),
                [("si", -1)], [("so", 0)])
    installed = _call(("setstate", p, words), build, [raw])[0]
    _install(words, installed)
    return installed


rand_get_state = get_rand_state
rand_set_state = set_rand_state


@_api(99, "SetRandState2")
def set_rng_seed(seed, partitions=PARTITIONS):
    """nki.isa.set_rng_seed (mapping inferred): install in this thread's
    device the gen-2 state a scalar seed gives through SetRandState2's
    MT19937-64 fill, in all 128 partitions; returns partitions 0..P-1 of
    it, [P, 24] uint32 (usable as rand2's state=)."""
    p = _partitions(partitions, "set_rng_seed")
    full = _engine_state(PARTITIONS, 24, seed)
    _install(24, full)
    return full[:p].copy()
