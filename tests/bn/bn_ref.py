"""numpy reference for the BN family: seed section 1 in np.float32, the
the reference's expressions in the reference's order, one element index at a time and
all partitions at once (numpy float32 ops are IEEE single, never fused).
Independent of the C oracle and of the plugin; used by bn_cases.py and
gen_data.py."""
import numpy as np

F = np.float32
ONE = F(1.0)


def tile_transpose(x):
    """apply_transpose: out[((p&31)|(e&~31)) + N*((p&~31)|(e&31))] = x[p, e]."""
    P, N = x.shape
    if N == 1:
        return x.copy()
    p = np.arange(P)[:, None]
    e = np.arange(N)[None, :]
    flat = np.empty(P * N, x.dtype)
    flat[((p & 31) | (e & ~31)) + N * ((p & ~31) | (e & 31))] = x
    return flat.reshape(P, N)


def stats(x, apply_transpose=False):
    x = np.asarray(x, F)
    if apply_transpose:
        x = tile_transpose(x)
    P, N = x.shape
    out = np.zeros((P, 6), F)
    out[:, 0] = F((N + 1) >> 1)
    out[:, 3] = F(N >> 1)
    n = F(0.0)
    with np.errstate(all="ignore"):
        for i in range(N):
            L = i & 1
            if L == 0:
                n = F(n + ONE)
            xi = x[:, i]
            r = F(ONE / n)
            old = out[:, 3 * L + 1].copy()
            new = (F(ONE - r) * old + r * xi).astype(F)
            out[:, 3 * L + 1] = new
            out[:, 3 * L + 2] = out[:, 3 * L + 2] + (xi - new) * (xi - old)
    return out


def aggregate(st):
    st = np.asarray(st, F)
    P, E = st.shape
    n_acc = np.zeros(P, F)
    mean_acc = np.zeros(P, F)
    var_acc = np.zeros(P, F)
    with np.errstate(all="ignore"):
        for j in range(0, E - 2, 3):
            n_t, mean_t, m2_t = st[:, j], st[:, j + 1], st[:, j + 2]
            N = n_t + n_acc
            r = ONE / N
            delta = mean_acc - mean_t
            new_mean = (mean_acc * n_acc + n_t * mean_t) * r
            var_acc = (var_acc * n_acc + m2_t) * r + n_t * n_acc * delta * delta * r * r
            mean_acc = new_mean
            n_acc = n_acc + n_t
    return np.stack([mean_acc, var_acc], axis=1).astype(F)


def gradients(x, dy, m, vf):
    x, dy = np.asarray(x, F), np.asarray(dy, F)
    m, vf = np.asarray(m, F).reshape(-1), np.asarray(vf, F).reshape(-1)
    P, N = x.shape
    out = np.zeros((P, 3), F)
    with np.errstate(all="ignore"):
        for i in range(N):
            t = (x[:, i] - m) * dy[:, i] * vf
            out[:, 2] = out[:, 2] + t
            out[:, 1] = out[:, 1] + t * vf
            out[:, 0] = out[:, 0] + dy[:, i]
    return out


def backprop(x, dy, m, a, bc, scale, total):
    x, dy = np.asarray(x, F), np.asarray(dy, F)
    col = lambda v: np.asarray(v, F).reshape(-1, 1)
    with np.errstate(all="ignore"):
        return ((dy * F(total) - ((x - col(m)) * col(bc) + col(a))) * col(scale)).astype(F)


def same_bits(a, b):
    """Index of the first difference, or None. NaN-aware: any NaN matches any
    NaN (payload propagation is not pinned; docs/bn.md); all other values,
    signed zeros included, must match bit for bit."""
    a, b = np.asarray(a, F).reshape(-1), np.asarray(b, F).reshape(-1)
    if a.shape != b.shape:
        return -1
    bad = (a.view(np.uint32) != b.view(np.uint32)) & ~(np.isnan(a) & np.isnan(b))
    idx = np.nonzero(bad)[0]
    return int(idx[0]) if idx.size else None


def data(kind, shape, rng):
    """Inputs of one kind, like tests/bn/bn_testdata.c's kinds."""
    P = shape[0]
    if kind == "random":
        scale = np.ldexp(F(1), (np.arange(P) % 9) - 4).astype(F).reshape((P,) + (1,) * (len(shape) - 1))
        return (rng.uniform(-1, 1, shape).astype(F) * scale).astype(F)
    if kind == "constant":
        return np.broadcast_to(rng.uniform(-100, 100, (P,) + (1,) * (len(shape) - 1)).astype(F), shape).copy()
    if kind == "huge":
        return (F(1e6) + rng.uniform(-1, 1, shape).astype(F)).astype(F)
    if kind == "subnormal":
        bits = rng.integers(0, 1 << 23, shape, dtype=np.uint32) | (rng.integers(0, 2, shape, dtype=np.uint32) << 31)
        v = bits.view(F).copy()
        v[rng.random(shape) < 0.1] = F(0)
        return v
    if kind in ("inf", "nan"):
        v = rng.uniform(-3, 3, shape).astype(F)
        mask = rng.random(shape) < 1 / 17
        if kind == "inf":
            v[mask] = np.where(rng.random(shape) < 0.5, F(np.inf), F(-np.inf))[mask]
        else:
            payloads = np.array([0x7FC00000, 0xFFC00000, 0x7FC12345, 0x7F800001], np.uint32).view(F)
            v[mask] = payloads[rng.integers(0, 4, shape)][mask]
        return v
    raise ValueError(kind)


KINDS = ["random", "constant", "huge", "subnormal", "inf", "nan"]
