"""trnsim.isa, RNG family: the gen-1 (IT 58-60) and gen-2 (IT 97-99) generators."""
import numpy as np

from .. import dtypes, errors
from ._kernel import PARTITIONS, _call, _fp32_attr, _prog, _t


_ALGORITHMS = {"lfsr": 0, "pcg32": 1, "philox": 2}


def _state_in(state, p, words, what):
    s = np.asarray(state)
    if s.shape != (p, words):
        raise errors.InputError("%s: a state is [%d, %d] uint32 here (%s), got shape %s" %
                                (what, p, words, "gen-1: 6 words" if words == 6 else "gen-2: 4 lanes x 6 words, "
                                 "word-major", list(s.shape)))
    if s.dtype.kind not in "iu":
        raise errors.InputError("%s: state words are uint32, got %s" % (what, s.dtype))
    return dtypes.to_tensor_bytes(s.astype(np.uint32) if s.dtype != np.uint32 else s, "uint32")


def _rng_call(kind, shape, state, words, rand_inst, out_dt):
    shape = tuple(int(d) for d in (shape if np.ndim(shape) else (shape,)))
    if len(shape) < 1 or not 1 <= shape[0] <= PARTITIONS:
        raise errors.InputError("%s: shape [P, ...] with P 1..%d partitions, got %s" % (kind, PARTITIONS, list(shape)))
    p = shape[0]
    n = int(np.prod(shape[1:], dtype=np.int64)) if len(shape) > 1 else 1
    have_state = state is not None
    arrays = [_state_in(state, p, words, kind)] if have_state else []
    gen2 = words == 24

    def build():
        tensors = [_t("r", (p, n), out_dt), _t("so", (p, words), "uint32")]
        insts = []
        if have_state:
            tensors.append(_t("si", (p, words), "uint32"))
            insts.append({"opcode": "SetRandState2" if gen2 else "SetRandState", "inputs": ["si"], "outputs": []})
        insts.append(dict(rand_inst, outputs=["r"]))
        insts.append({"opcode": "GetRandState2" if gen2 else "GetRandState", "inputs": [], "outputs": ["so"]})
        return _prog(tensors, insts), [("si", -1)] if have_state else [], [("r", 0), ("so", 0)]
    key = (kind, p, n, have_state, tuple(sorted((k, str(v)) for k, v in rand_inst.items())))
    r, so = _call(key, build, arrays)
    return r.view(np.dtype(dtypes.value_dtype(out_dt))).reshape(shape), so


def rand(shape, algorithm="philox", state=None):
    """Gen-1 random bits with the state explicit: (values uint32 of shape,
    state_out [P, 6] uint32).

    Runs [SetRandState (IT 59) with state,] Rand (IT 60) and GetRandState
    (IT 58). shape [P, ...], P <= 128; element j of partition p is the
    j-th output of p's stream. algorithm: "lfsr", "pcg32", "philox" (or
    0, 1, 2). state None: the engine's default (every word 1). Quirks:
    rng.rand_raw_bits (no distribution), rng.zero_guard (words 0..4 all
    zero -> word 4 = 1 when installed). The word mapping is docs/rng.md's.
    """
    alg = _ALGORITHMS.get(str(algorithm).lower(), algorithm)
    if alg not in (0, 1, 2):
        raise errors.InputError("rand: algorithm is 'lfsr', 'pcg32' or 'philox' (0, 1, 2), not %r" % (algorithm,))
    return _rng_call("rand", shape, state, 6, {"opcode": "Rand", "algorithm": int(alg), "inputs": []}, "uint32")


def rand2(shape, min=0.0, max=1.0, state=None, lanes=1):
    """nki.isa.rand2 with the state explicit: (values float32 of shape,
    state_out [P, 24] uint32 in the reference's word-major layout).

    Runs [SetRandState2 (IT 99) with state,] Rand2 (IT 97) and
    GetRandState2 (IT 98). XORWOW, out = min + (max - min) * u in fp32.
    lanes 1, 2 (is_2x1p) or 4 (is_4x2p): column j is driven by lane j % lanes.
    Quirks: rng.rand2_half_open (values in [min, max), NKI says [min, max];
    fp32 rounding can still reach max), rng.rand2_min_gt_max,
    rng.gen2_state_transposed, rng.zero_guard.
    """
    flags = {1: {}, 2: {"is_2x1p": True}, 4: {"is_4x2p": True}}
    if lanes not in flags:
        raise errors.InputError("rand2: lanes is 1, 2 or 4, not %r" % (lanes,))
    inst = dict({"opcode": "Rand2", "min": _fp32_attr(min), "max": _fp32_attr(max), "inputs": []}, **flags[lanes])
    return _rng_call("rand2", shape, state, 24, inst, "float32")


def get_rand_state(partitions=PARTITIONS, generation=2, seed=None):
    """The engine state as GetRandState (IT 58, gen-1: [P, 6]) or
    GetRandState2 (IT 98, gen-2: [P, 24], word-major) reads it: the
    default (every word 1), or after SetRandState with a seed: gen-1 a
    list of 8 uint32 (the wire seed, partition p in word 0's top byte),
    gen-2 an integer (MT19937-64 fill, docs/rng.md)."""
    words = 6 if generation == 1 else 24
    if generation not in (1, 2):
        raise errors.InputError("generation is 1 or 2, not %r" % (generation,))
    p = int(partitions)
    if not 1 <= p <= PARTITIONS:
        raise errors.InputError("partitions must be 1..%d" % PARTITIONS)
    seed_j = None if seed is None else [int(s) for s in seed] if np.ndim(seed) else str(int(seed))

    def build():
        insts = []
        if seed_j is not None:
            insts.append({"opcode": "SetRandState2" if words == 24 else "SetRandState", "seed": seed_j,
                          "inputs": [], "outputs": []})
        insts.append({"opcode": "GetRandState2" if words == 24 else "GetRandState", "inputs": [], "outputs": ["so"]})
        return _prog([_t("so", (p, words), "uint32")], insts), [], [("so", 0)]
    return _call(("getstate", p, words, str(seed_j)), build, [])[0]


def set_rand_state(state):
    """Install a state ([P, 6] gen-1 or [P, 24] gen-2 uint32) with
    SetRandState (IT 59) / SetRandState2 (IT 99) and return it as
    GetRandState reads it back: equal, except where the zero guard
    (rng.zero_guard) repaired a lane whose words 0..4 were all zero."""
    s = np.asarray(state)
    if s.ndim != 2 or s.shape[1] not in (6, 24):
        raise errors.InputError("set_rand_state: a state is [P, 6] (gen-1) or [P, 24] (gen-2) uint32, got shape %s" %
                                list(s.shape))
    p, words = s.shape
    raw = _state_in(s, p, words, "set_rand_state")
    gen2 = words == 24

    def build():
        return (_prog([_t("si", (p, words), "uint32"), _t("so", (p, words), "uint32")],
                      [{"opcode": "SetRandState2" if gen2 else "SetRandState", "inputs": ["si"], "outputs": []},
                       {"opcode": "GetRandState2" if gen2 else "GetRandState", "inputs": [], "outputs": ["so"]}]),
                [("si", -1)], [("so", 0)])
    return _call(("setstate", p, words), build, [raw])[0]


rand_get_state = get_rand_state
rand_set_state = set_rand_state


def set_rng_seed(seed, partitions=PARTITIONS):
    """nki.isa.set_rng_seed (mapping inferred): the gen-2 state a scalar seed
    gives through SetRandState2's MT19937-64 fill, [P, 24] uint32."""
    return get_rand_state(partitions, 2, seed)
