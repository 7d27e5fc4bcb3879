"""Python model of the experimental opcodes, written from the text (the reference's XORWOW /
MT19937-64 seeding, the NKI nonzero_with_count and rng descriptions, docs/experimental.md)
and sharing no code with plugins/experimental or tests/experimental/*.c.

    python3 exp_ref.py      runs the self test (published MT19937-64 values,
                            the NKI example, hand-computed XORWOW steps)
"""
import numpy as np

M32 = 0xFFFFFFFF
M64 = 0xFFFFFFFFFFFFFFFF


# ---- NonzeroWithCount ----------------------------------------------------------

def nonzero_row(row_f32, index_offset=0, padding_val=-1):
    """One partition -> T + 1 int64 values (indices, padding, count).
    numpy's nonzero is the IEEE x != 0 test: NaN counts, -0.0 does not."""
    row = np.asarray(row_f32, dtype=np.float32).reshape(-1)
    idx = np.flatnonzero(row).astype(np.int64) + index_offset
    out = np.full(row.size + 1, padding_val, dtype=np.int64)
    out[: idx.size] = idx
    out[row.size] = idx.size
    return out


def nonzero(x_f32, index_offset=0, padding_val=-1, dtype=np.int32):
    """[P, T...] -> [P, T + 1] of dtype (int32 or uint32: the low 32 bits)."""
    x = np.asarray(x_f32, dtype=np.float32)
    rows = x.reshape(x.shape[0], -1)
    out = np.stack([nonzero_row(r, index_offset, padding_val) for r in rows])
    u = (out & M32).astype(np.uint32)
    return u.view(np.int32) if np.dtype(dtype) == np.int32 else u


# ---- XORWOW and MT19937-64 -----------------------------------------------------------

def xorwow_next(s):
    """s: list of 6 ints, advanced in place; returns the 32-bit draw."""
    t = (s[0] ^ (s[0] >> 2)) & M32
    s[0], s[1], s[2], s[3] = s[1], s[2], s[3], s[4]
    s[4] = ((s[4] ^ (s[4] << 4)) ^ (t ^ (t << 1))) & M32
    s[5] = (s[5] + 362437) & M32
    return (s[5] + s[4]) & M32


class MT64:
    """MT19937-64 (Matsumoto & Nishimura), init_genrand64 + genrand64_int64."""

    def __init__(self, seed):
        self.mt = [0] * 312
        self.mt[0] = seed & M64
        for i in range(1, 312):
            prev = self.mt[i - 1]
            self.mt[i] = (6364136223846793005 * (prev ^ (prev >> 62)) + i) & M64
        self.i = 312

    def _twist(self):
        mt = self.mt
        for i in range(312):
            x = (mt[i] & 0xFFFFFFFF80000000) | (mt[(i + 1) % 312] & 0x7FFFFFFF)
            xa = x >> 1
            if x & 1:
                xa ^= 0xB5026F5AA96619E9
            mt[i] = mt[(i + 156) % 312] ^ xa
        self.i = 0

    def next(self):
        if self.i >= 312:
            self._twist()
        x = self.mt[self.i]
        self.i += 1
        x ^= (x >> 29) & 0x5555555555555555
        x ^= (x << 17) & 0x71D67FFFEDA60000
        x ^= (x << 37) & 0xFFF7EEE000000000
        x ^= x >> 43
        return x & M64


def zero_guard(s):
    if not any(s[:5]):
        s[4] = 1


def start_lanes(partitions, seed=None, lane_index=0):
    """The lanes of one core at the start of a run: [1]*6 each, or lane 0 of
    trnsim-rng's gen-2 fill from MT19937-64(seed) (12 outputs per partition,
    the first 3 -> words lo, hi, lo, hi, lo, hi). lane_index 1..3 gives the
    other lanes of the fill, which Rng must not draw (tests use them as the
    wrong answer)."""
    if seed is None:
        return [[1] * 6 for _ in range(partitions)]
    mt = MT64(seed)
    lanes = []
    for _ in range(partitions):
        r = [mt.next() for _ in range(12)]
        lane = []
        for k in range(3 * lane_index, 3 * lane_index + 3):
            lane += [r[k] & M32, r[k] >> 32]
        zero_guard(lane)
        lanes.append(lane)
    return lanes


class RngModel:
    """One core's Rng lanes; draw() follows an output AP's partitions."""

    def __init__(self, partitions=128, seed=None, lane_index=0):
        self.lanes = start_lanes(partitions, seed, lane_index)

    def draw(self, parts, n):
        """parts: engine partition of each visited row; returns [len(parts), n] uint32."""
        out = np.zeros((len(parts), n), dtype=np.uint32)
        for i, p in enumerate(parts):
            for j in range(n):
                out[i, j] = xorwow_next(self.lanes[p])
        return out


def truncate(bits_u32, dtype):
    """Keep the low bits of each draw, as the destination dtype holds them."""
    dt = np.dtype(dtype)
    width = dt.itemsize * 8
    low = (np.asarray(bits_u32, dtype=np.uint64) & ((1 << width) - 1)).astype(f"u{dt.itemsize}")
    return low.view(dt)


# ---- self test ------------------------------------------------------------------------

def self_test():
    # C++ [rand.predef]: the 10000th output of mt19937_64() is 9981545732273789042
    mt = MT64(5489)
    first = mt.next()
    for _ in range(9998):
        mt.next()
    assert first == 14514284786278117030, first
    assert mt.next() == 9981545732273789042
    mt = MT64(42)
    assert [mt.next() for _ in range(3)] == [0xC151DF7D6EE5E2D6, 0xA3978FB9B92502A8, 0xC08C967F0E5E7B0A]
    # XORWOW from the default lane, by hand: 362456, 725180
    s = [1] * 6
    assert [xorwow_next(s), xorwow_next(s)] == [362456, 725180]
    # NKI nonzero_with_count example
    got = nonzero(np.array([[0, 1, 1, 0, 0, 1, 0, 0]], np.float32), 16, -1)
    assert got.tolist() == [[17, 18, 21, -1, -1, -1, -1, -1, 3]], got
    assert nonzero(np.array([[np.nan, -0.0, 0.0]], np.float32), 0, -1, np.uint32).tolist() == [
        [0, 0xFFFFFFFF, 0xFFFFFFFF, 1]]
    assert truncate(np.array([0x12345678, 0xFFFFFF80], np.uint32), np.int8).tolist() == [0x78, -128]
    assert truncate(np.array([0x12345678], np.uint32), np.uint16).tolist() == [0x5678]
    print("exp_ref self test: ok")


if __name__ == "__main__":
    self_test()
