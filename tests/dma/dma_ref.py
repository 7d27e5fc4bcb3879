"""Independent numpy references for the DMA program tests.

Nothing here calls trnsim: the number formats are rebuilt from their
definitions (bf16 = the top half of fp32 with round-to-nearest-even; the
IEEE-style fp8 formats from an exhaustive code table) and the DMA modes from
the reference's DMA behaviour as docs/dma.md states it.
"""
import numpy as np

# ---- number formats ---------------------------------------------------------


def f32(values):
    return np.asarray(values, dtype=np.float32)


def f32_bits(x):
    return f32(x).view(np.uint32)


def bits_f32(u):
    return np.asarray(u, dtype=np.uint32).view(np.float32)


def bf16_bits(x):
    """fp32 -> bfloat16 bits, round to nearest even; any NaN -> 0x7fc0."""
    u = np.atleast_1d(f32_bits(x))  # uint32: no NaN input reaches 2^32 (NaNs are replaced below)
    one, sh = np.uint32(1), np.uint32(16)
    r = ((u + np.uint32(0x7FFF) + ((u >> sh) & one)) >> sh).astype(np.uint16).reshape(np.shape(x))
    nan = np.isnan(f32(x))
    return np.where(nan, np.uint16(0x7FC0), r).astype(np.uint16)


def bf16_value(bits):
    return bits_f32(np.asarray(bits, dtype=np.uint32) << 16)


def bf16_round(x):
    return bf16_value(bf16_bits(x))


class Fp8:
    """An IEEE-style fp8 format (all-ones exponent = Inf / NaN), config 0:
    overflow -> Inf, NaN -> the canonical quiet NaN."""

    def __init__(self, ebits, mbits):
        self.mbits = mbits
        self.bias = (1 << (ebits - 1)) - 1
        self.top = ((1 << ebits) - 1) << mbits  # magnitude code of +Inf
        self.nan = self.top | (1 << (mbits - 1))
        codes = np.arange(self.top + 1)  # finite magnitudes, plus Inf's slot
        e, m = codes >> mbits, codes & ((1 << mbits) - 1)
        val = np.where(e == 0, m * 2.0 ** (1 - self.bias - mbits),
                       (1 + m / 2.0 ** mbits) * 2.0 ** (e - self.bias))
        self.values = val  # the Inf slot holds the next power of two: RNE goes there on overflow

    def encode(self, x):
        x = np.asarray(x, dtype=np.float64).reshape(-1)
        out = np.empty(x.size, dtype=np.uint8)
        for i, v in enumerate(x):
            if np.isnan(v):
                out[i] = self.nan
                continue
            sign = 0x80 if np.signbit(v) else 0
            a = abs(v)
            if a >= self.values[-1]:
                out[i] = sign | self.top
                continue
            hi = int(np.searchsorted(self.values, a, side="left"))
            if self.values[hi] == a:
                code = hi
            else:
                lo = hi - 1
                dl, dh = a - self.values[lo], self.values[hi] - a
                code = lo if dl < dh else hi if dh < dl else (lo if lo % 2 == 0 else hi)
            out[i] = sign | code
        return out

    def decode(self, codes):
        c = np.asarray(codes, dtype=np.int64).reshape(-1)
        mag = c & 0x7F
        v = np.where(mag >= self.top, np.inf, self.values[np.minimum(mag, self.top)])
        v = np.where(mag > self.top, np.nan, v)
        return np.where(c & 0x80, -v, v).astype(np.float32)


E4M3 = Fp8(4, 3)
E5M2 = Fp8(5, 2)

# ---- the SSE fold of doDMACCE ---------------------------------------------------


def cce(op, sources, first=False):
    """Per element: acc = +0.0 (or the first source), then for each source x:
    add: acc + x; max: x if x > acc else acc; min: x if x < acc else acc."""
    srcs = [f32(s).reshape(-1) for s in sources]
    out = np.empty(srcs[0].size, dtype=np.float32)
    for i in range(out.size):
        acc = srcs[0][i] if first else np.float32(0.0)
        for x in srcs[1:] if first else srcs:
            x = x[i]
            if op == 4:
                acc = np.float32(acc + x)
            elif op == 8:
                acc = x if x > acc else acc
            else:
                acc = x if x < acc else acc
        out[i] = acc
    return out

# ---- access patterns -------------------------------------------------------------


def ap_gather(arr2d, part, parts, pstep, offset, ap):
    """Elements of an AP over a [partitions, free] array, in visiting order."""
    idx = np.zeros([1] * len(ap), dtype=np.int64) + offset
    for d, (step, num) in enumerate(ap):
        shape = [1] * len(ap)
        shape[d] = num
        idx = idx + (np.arange(num) * step).reshape(shape)
    rows = [arr2d[part + k * pstep][idx.reshape(-1)] for k in range(parts)]
    return np.concatenate(rows)
