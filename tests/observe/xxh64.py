"""XXH64 with seed 0 in plain Python: the test's own implementation of the
trace digest (docs/observability.md), independent of trnsim's C code.
Checked against the xxHash project's published values for b"" and b"abc"."""
import struct

M = (1 << 64) - 1
P1, P2, P3, P4, P5 = (0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9,
                      0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5)


def _rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & M


def _round(acc, lane):
    return (_rotl((acc + lane * P2) & M, 31) * P1) & M


def xxh64(data: bytes) -> int:
    n = len(data)
    i = 0
    if n >= 32:
        v = [(P1 + P2) & M, P2, 0, (-P1) & M]
        lanes = struct.unpack_from("<%dQ" % ((n // 32) * 4), data)
        for k in range(0, len(lanes), 4):
            v[0] = _round(v[0], lanes[k])
            v[1] = _round(v[1], lanes[k + 1])
            v[2] = _round(v[2], lanes[k + 2])
            v[3] = _round(v[3], lanes[k + 3])
        i = (n // 32) * 32
        h = (_rotl(v[0], 1) + _rotl(v[1], 7) + _rotl(v[2], 12) + _rotl(v[3], 18)) & M
        for a in v:
            h = (((h ^ _round(0, a)) * P1) + P4) & M
    else:
        h = P5
    h = (h + n) & M
    while i + 8 <= n:
        (k1,) = struct.unpack_from("<Q", data, i)
        h = (_rotl(h ^ _round(0, k1), 27) * P1 + P4) & M
        i += 8
    if i + 4 <= n:
        (k,) = struct.unpack_from("<I", data, i)
        h = (_rotl(h ^ ((k * P1) & M), 23) * P2 + P3) & M
        i += 4
    while i < n:
        h = (_rotl(h ^ ((data[i] * P5) & M), 11) * P1) & M
        i += 1
    h ^= h >> 33
    h = (h * P2) & M
    h ^= h >> 29
    h = (h * P3) & M
    h ^= h >> 32
    return h


assert xxh64(b"") == 0xEF46DB3751D8E999
assert xxh64(b"abc") == 0x44BC2CF5AD770999
