"""Pure-Python reference of the RNG family for the program tests.

Written from the reference's generators as docs/rng.md states them,
the published reference routines (Random123 philox4x32_R, pcg32_random_r,
mt19937-64.c, cuRAND/Marsaglia xorwow) and docs/rng.md's documented choices
(gen-1 word mapping, lane flags, scalar-seed fill, tensor layout). It shares
no code with the C plugin or the C oracle. Floats go through numpy float32
so every operation rounds as fp32 does.
"""
import numpy as np

M32 = 0xFFFFFFFF
M64 = 0xFFFFFFFFFFFFFFFF


# ---- gen-1 ------------------------------------------------------------------

def lfsr(w, n):
    """Rand algorithm 0 on the 6 words w (list, updated); n outputs."""
    s, out = w[0], []
    for _ in range(n):
        b = ((s >> 31) ^ (s >> 21) ^ (s >> 1) ^ s) & 1
        s = ((s << 1) | b) & M32
        out.append(s)
    w[0] = s
    return out


def pcg32(w, n, inc=0x14057B7EF767814F):
    s, out = w[0] | (w[1] << 32), []
    for _ in range(n):
        old = s
        s = (old * 0x5851F42D4C957F2D + inc) & M64
        xs = (((old >> 18) ^ old) >> 27) & M32
        rot = old >> 59
        out.append(((xs >> rot) | (xs << ((-rot) & 31))) & M32)
    w[0], w[1] = s & M32, s >> 32
    return out


def philox_block(ctr, key):
    c, k = list(ctr), list(key)
    for r in range(10):
        if r:
            k = [(k[0] + 0x9E3779B9) & M32, (k[1] + 0xBB67AE85) & M32]
        p0 = 0xD2511F53 * c[0]
        p1 = 0xCD9E8D57 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k[0], p1 & M32, (p0 >> 32) ^ c[3] ^ k[1], p0 & M32]
    return c


def philox(w, n):
    """Counter words 0..3 (word 0 low), key words 4..5; element j is word
    j % 4 of block ctr + j // 4; the counter moves ceil(n / 4) blocks."""
    ctr = w[0] | (w[1] << 32) | (w[2] << 64) | (w[3] << 96)
    out = []
    for b in range((n + 3) // 4):
        c = (ctr + b) % (1 << 128)
        out += philox_block([(c >> (32 * i)) & M32 for i in range(4)], [w[4], w[5]])
    ctr = (ctr + (n + 3) // 4) % (1 << 128)
    for i in range(4):
        w[i] = (ctr >> (32 * i)) & M32
    return out[:n]


GEN1 = {0: lfsr, 1: pcg32, 2: philox}


def zero_guard(w):
    if not any(w[:5]):
        w[4] = 1
    return w


def wire_seed(p, imm):
    wire = [((p << 24) | (imm[0] & 0xFFFFFF)) & M32] + list(imm[1:8])
    return zero_guard(wire[:6])


# ---- gen-2 ------------------------------------------------------------------

def xorwow(s):
    t = s[0] ^ (s[0] >> 2)
    s[0], s[1], s[2], s[3] = s[1], s[2], s[3], s[4]
    s[4] = (s[4] ^ ((s[4] << 4) & M32)) ^ (t ^ ((t << 1) & M32))
    s[5] = (s[5] + 362437) & M32
    return (s[5] + s[4]) & M32


def rand2(lanes, n, lo=0.0, hi=1.0, nlanes=1):
    """lanes: 4 lists of 6 words (updated). Column j uses lane j % nlanes."""
    bits = np.array([xorwow(lanes[j % nlanes]) for j in range(n)], dtype=np.uint32)
    u = ((bits & np.uint32(0x7FFFFF)) | np.uint32(0x3F800000)).view(np.float32) - np.float32(1.0)
    lo, hi = np.float32(lo), np.float32(hi)
    with np.errstate(all="ignore"):
        return lo + (hi - lo) * u


def gen2_from_tensor(t):
    """24-word tensor row (word-major) -> 4 lanes of 6, zero-guarded."""
    return [zero_guard([t[word * 4 + lane] for word in range(6)]) for lane in range(4)]


def gen2_to_tensor(lanes):
    return [lanes[lane][word] for word in range(6) for lane in range(4)]


# ---- MT19937-64 seed engine -------------------------------------------------

class MT64:
    NN, MM = 312, 156

    def __init__(self, seed):
        self.mt = [seed & M64]
        for i in range(1, self.NN):
            prev = self.mt[-1]
            self.mt.append((0x5851F42D4C957F2D * (prev ^ (prev >> 62)) + i) & M64)
        self.mti = self.NN

    def next(self):
        mt, NN, MM = self.mt, self.NN, self.MM
        if self.mti >= NN:
            for i in range(NN):
                x = (mt[i] & 0xFFFFFFFF80000000) | (mt[(i + 1) % NN] & 0x7FFFFFFF)
                xa = (x >> 1) ^ (0xB5026F5AA96619E9 if x & 1 else 0)
                mt[i] = mt[(i + MM) % NN] ^ xa
            self.mti = 0
        x = mt[self.mti]
        self.mti += 1
        x ^= (x >> 29) & 0x5555555555555555
        x ^= (x << 17) & 0x71D67FFFEDA60000
        x ^= (x << 37) & 0xFFF7EEE000000000
        x ^= x >> 43
        return x & M64


def scalar_seed_lanes(seed, partitions):
    """SetRandState engine 5 scalar seed: per partition, lane 0..3, word
    0..5, two words per genrand64 output (low half first)."""
    mt = MT64(seed)
    words = []
    for _ in range(partitions * 12):
        r = mt.next()
        words += [r & M32, r >> 32]
    parts = []
    for p in range(partitions):
        row = words[p * 24:(p + 1) * 24]
        parts.append([zero_guard(row[l * 6:(l + 1) * 6]) for l in range(4)])
    return parts


# ---- engine model -----------------------------------------------------------

class Engine:
    """One core's RNG engine, as docs/rng.md defines it."""

    def __init__(self, partitions=128):
        self.gen1 = [[1] * 6 for _ in range(partitions)]
        self.gen2 = [[[1] * 6 for _ in range(4)] for _ in range(partitions)]

    def rand(self, alg, parts, n):
        return np.array([GEN1[alg](self.gen1[p], n) for p in parts], dtype=np.uint32)

    def rand2(self, parts, n, lo=0.0, hi=1.0, nlanes=1):
        return np.array([rand2(self.gen2[p], n, lo, hi, nlanes) for p in parts], dtype=np.float32)

    def set1(self, p, row):
        self.gen1[p] = zero_guard(list(row))

    def set2(self, p, row):
        self.gen2[p] = gen2_from_tensor(list(row))

    def get1(self, parts):
        return np.array([self.gen1[p] for p in parts], dtype=np.uint32)

    def get2(self, parts):
        return np.array([gen2_to_tensor(self.gen2[p]) for p in parts], dtype=np.uint32)

    def seed_wire(self, imm):
        for p in range(len(self.gen1)):
            self.gen1[p] = wire_seed(p, imm)

    def seed_scalar(self, seed):
        self.gen2 = scalar_seed_lanes(seed, len(self.gen2))


def self_test():
    """The published vectors (tests/rng/data), through this module."""
    import os
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
    # Philox: Random123 kat_vectors
    n = 0
    for line in open(os.path.join(here, "philox4x32_10_kat.txt")):
        if line.startswith("philox4x32 10 "):
            v = [int(x, 16) for x in line.split()[2:]]
            assert philox_block(v[0:4], v[4:6]) == v[6:10], line
            n += 1
    assert n == 55
    # PCG32 oneseq round 1
    s = 0x977AFD8015414A94
    assert pcg32([s & M32, s >> 32, 0, 0, 0, 0], 6) == [0xc2f57bd6, 0x6b07c4a9, 0x72b7b29b, 0x44215383,
                                                       0xf5af5ead, 0x68beb632]
    # XORWOW: Marsaglia's seeds
    st = [123456789, 362436069, 521288629, 88675123, 5783321, 6615241]
    assert [xorwow(st) for _ in range(3)] == [246875399, 3690007200, 1264581005]
    # MT19937-64 seed 5489
    mt = MT64(5489)
    assert [mt.next() for _ in range(3)] == [14514284786278117030, 4620546740167642908, 13109570281517897720]
    return True


if __name__ == "__main__":
    print("rng_ref self test:", self_test())
