"""trnsim.isa RNG functions (IT 58-60, 97-99): explicit state in and out,
against the CLI bit for bit and against independent numpy generators."""
import threading

import numpy as np
import pytest

import trnsim
from trnsim import isa

M32 = 0xFFFFFFFF


@pytest.fixture(autouse=True)
def fresh_device():
    """Each test starts from the engine's default state (a fresh device)."""
    isa.reset_rand_state()


def xorwow(s):
    """One cuRAND XORWOW step on a 6-word lane (docs/rng.md); returns the output."""
    t = s[0] ^ (s[0] >> 2)
    s[0], s[1], s[2], s[3] = s[1], s[2], s[3], s[4]
    s[4] = ((s[4] ^ (s[4] << 4)) ^ (t ^ (t << 1))) & M32
    s[5] = (s[5] + 362437) & M32
    return (s[5] + s[4]) & M32


def lanes_of(state_row):
    """A [24] gen-2 row (word-major) -> 4 lanes of 6 words."""
    return [[int(state_row[w * 4 + lane]) for w in range(6)] for lane in range(4)]


def rand2_oracle(state, n, lo, hi, nlanes):
    p = state.shape[0]
    out = np.zeros((p, n), np.float32)
    new = np.zeros_like(state)
    for r in range(p):
        lanes = lanes_of(state[r])
        for j in range(n):
            bits = xorwow(lanes[j % nlanes])
            u = np.array([(bits & 0x7FFFFF) | 0x3F800000], np.uint32).view(np.float32)[0] - np.float32(1)
            out[r, j] = np.float32(lo) + np.float32(np.float32(hi) - np.float32(lo)) * u
        for lane in range(4):
            for w in range(6):
                new[r, w * 4 + lane] = lanes[lane][w]
    return out, new


def test_rand2_default_state(same_as_cli):
    isa.reset_rand_state()
    v, s = same_as_cli(isa.rand2, (4, 10))
    want, want_s = rand2_oracle(np.ones((4, 24), np.uint32), 10, 0.0, 1.0, 1)
    assert np.array_equal(v.view(np.uint32), want.view(np.uint32))
    assert np.array_equal(s, want_s)
    assert ((v >= 0) & (v < 1)).all()


@pytest.mark.parametrize("lanes", [1, 2, 4])
def test_rand2_explicit_state_chains(lanes, same_as_cli):
    st = isa.set_rng_seed(1234, 8)
    assert st.shape == (8, 24) and st.dtype == np.uint32
    v1, s1 = same_as_cli(isa.rand2, (8, 12), -2.0, 3.0, st, lanes)
    want, want_s = rand2_oracle(st, 12, -2.0, 3.0, lanes)
    assert np.array_equal(v1.view(np.uint32), want.view(np.uint32))
    assert np.array_equal(s1, want_s)
    v2, _ = isa.rand2((8, 12), -2.0, 3.0, s1, lanes)  # the state out continues the stream
    both, _ = rand2_oracle(st, 24, -2.0, 3.0, lanes)
    assert np.array_equal(np.concatenate([v1, v2], 1).view(np.uint32), both.view(np.uint32))


def test_rand_lfsr_against_numpy(same_as_cli):
    state = np.arange(1, 4 * 6 + 1, dtype=np.uint32).reshape(4, 6) * np.uint32(2654435761)
    v, s = same_as_cli(isa.rand, (4, 16), "lfsr", state)
    for r in range(4):
        x = int(state[r, 0])
        for j in range(16):
            b = (x >> 31) ^ (x >> 21) ^ (x >> 1) ^ x
            x = ((x << 1) | (b & 1)) & M32
            assert v[r, j] == x
        assert s[r, 0] == x and np.array_equal(s[r, 1:], state[r, 1:])


def test_rand_philox_and_pcg_run_and_chain(same_as_cli):
    for alg in ("philox", "pcg32"):
        v, s = same_as_cli(isa.rand, (3, 9), alg)
        assert v.dtype == np.uint32 and s.shape == (3, 6)
        v2, _ = isa.rand((3, 9), alg, s)
        assert not np.array_equal(v, v2)


def test_state_roundtrip_and_zero_guard(same_as_cli):
    s = np.arange(2 * 24, dtype=np.uint32).reshape(2, 24) + 7
    assert np.array_equal(same_as_cli(isa.set_rand_state, s), s)
    z = np.zeros((2, 6), np.uint32)
    got = isa.rand_set_state(z)  # words 0..4 all zero: word 4 set to 1
    assert list(got[0]) == [0, 0, 0, 0, 1, 0]
    # installed in partitions 0 and 1 of this thread's device; 2 and 3 keep the default
    cur = isa.get_rand_state(4, 1)
    assert np.array_equal(cur[:2], got) and np.array_equal(cur[2:], np.ones((2, 6), np.uint32))
    isa.reset_rand_state()
    assert np.array_equal(isa.get_rand_state(4, 1), np.ones((4, 6), np.uint32))
    w = isa.get_rand_state(3, 1, seed=[0xABCDEF, 2, 3, 4, 5, 6, 7, 8])  # the wire seed
    assert [int(w[p, 0]) for p in range(3)] == [(p << 24) | 0xABCDEF for p in range(3)]


def test_rng_errors():
    with pytest.raises(trnsim.InputError, match=r"a state is \[4, 24\] uint32 here"):
        isa.rand2((4, 8), state=np.zeros((4, 6), np.uint32))
    with pytest.raises(trnsim.InputError, match="algorithm is 'lfsr', 'pcg32' or 'philox'"):
        isa.rand((2, 2), "mt")
    with pytest.raises(trnsim.InputError, match=r"isa.rand2: shape is \[P, ...\] with P >= 1 partitions"):
        isa.rand2((0, 2))
    with pytest.raises(trnsim.InputError, match=r"isa.set_rand_state: partitions must be 1..128, got 129"):
        isa.rand_set_state(np.ones((129, 24), np.uint32))


# NKI's stateful calls: the device state of this thread

def test_rand_set_state_then_rand2_continues_it():
    st = isa.set_rng_seed(99, 8) + np.arange(8 * 24, dtype=np.uint32).reshape(8, 24)
    isa.rand_set_state(st)
    v1, s1 = isa.rand2((8, 12), -1.0, 1.0)       # no state=: the installed one
    v2, s2 = isa.rand2((8, 12), -1.0, 1.0)       # continues where v1 stopped
    want, want_s = rand2_oracle(st, 24, -1.0, 1.0, 1)
    assert np.array_equal(np.concatenate([v1, v2], 1).view(np.uint32), want.view(np.uint32))
    assert np.array_equal(s2, want_s) and np.array_equal(isa.rand_get_state(8), want_s)


def test_set_rng_seed_then_rand2_gives_every_partition_its_own_stream():
    isa.set_rng_seed(7)
    v, _ = isa.rand2((128, 16))
    assert len({r.tobytes() for r in v}) == 128           # no two rows alike (one dropout mask each)
    want, _ = isa.rand2((128, 16), state=isa.get_rand_state(128, 2, seed=7))
    assert np.array_equal(v.view(np.uint32), want.view(np.uint32))


def test_functional_state_leaves_the_device_alone():
    isa.reset_rand_state()
    before = isa.rand_get_state(4)
    isa.rand2((4, 8), state=isa.set_rng_seed(5, 4) * 0 + 3)
    isa.set_rng_seed(5)
    after_seed = isa.rand_get_state(4)
    isa.rand2((4, 8), state=np.full((4, 24), 9, np.uint32))
    assert np.array_equal(isa.rand_get_state(4), after_seed) and not np.array_equal(before, after_seed)


def test_gen1_device_state():
    isa.reset_rand_state()
    st = (np.arange(1, 3 * 6 + 1, dtype=np.uint32).reshape(3, 6) * np.uint32(2654435761))
    isa.rand_set_state(st)
    a, _ = isa.rand((3, 5), "lfsr")
    b, _ = isa.rand((3, 5), "lfsr")
    both, _ = isa.rand((3, 10), "lfsr", st)
    assert np.array_equal(np.concatenate([a, b], 1), both)


def test_rand2_over_300_partitions_runs_in_pieces_continuing_the_streams():
    isa.reset_rand_state()
    st = isa.get_rand_state(128, 2, seed=11)
    v, out = isa.rand2((300, 4), state=st)
    p1, s1 = rand2_oracle(st, 4, 0.0, 1.0, 1)
    p2, s2 = rand2_oracle(s1, 4, 0.0, 1.0, 1)
    p3, s3 = rand2_oracle(s2[:44], 4, 0.0, 1.0, 1)
    assert v.shape == (300, 4) and out.shape == (128, 24)
    assert np.array_equal(v.view(np.uint32), np.concatenate([p1, p2, p3]).view(np.uint32))
    assert np.array_equal(out[:44], s3) and np.array_equal(out[44:], s2[44:])


def test_each_thread_has_its_own_device_state():
    isa.set_rng_seed(1)
    mine = isa.rand_get_state(4)
    seen = []
    t = threading.Thread(target=lambda: seen.append((isa.rand_get_state(4), isa.set_rng_seed(2, 4))))
    t.start()
    t.join()
    assert np.array_equal(seen[0][0], np.ones((4, 24), np.uint32))  # a new thread starts at the default
    assert np.array_equal(isa.rand_get_state(4), mine)               # its seed did not reach this thread
