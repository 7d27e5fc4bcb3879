#!/usr/bin/python3
"""Write .npy files with numpy itself, for test_npy_numpy.c (a ctest fixture).

usage: gen_numpy_files.py OUTDIR

OUTDIR/manifest.txt lists one array per line, "NAME DESCR D0 D1 ...", and
OUTDIR/NAME.bin holds that array's bytes (a.tobytes(), C order), so the C
test compares what it reads with what numpy meant, without using the writer
under test. Files with fixed names cover the cases the C test checks by hand
(known values, big-endian, Fortran order, an unsupported dtype, v2 / v3
headers, non-contiguous input).
"""
import os
import sys

import numpy as np

DESCRS = ["<f2", "<f4", "<f8", "|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4", "<u8", "|b1"]
SHAPES = [(), (0,), (5,), (2, 3), (3, 1, 4), (1, 2, 1, 2, 1, 2, 1, 2), (4, 0), (33, 65)]


def random_array(rng, descr, shape):
    dt = np.dtype(descr)
    if dt.kind == "b":
        return rng.integers(0, 2, size=shape).astype(dt)
    # Any bit pattern, floats included (NaNs with payloads, Infs, subnormals).
    bits = rng.integers(0, 256, size=int(np.prod(shape, dtype=np.int64)) * dt.itemsize, dtype=np.uint8)
    return bits.view(dt).reshape(shape)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(20240601)
    lines = []

    def keep(name, a, writer=None):
        path = os.path.join(out, name + ".npy")
        if writer is None:
            np.save(path, a)
        else:
            with open(path, "wb") as f:
                writer(f, a)
        with open(os.path.join(out, name + ".bin"), "wb") as f:
            f.write(np.ascontiguousarray(a).tobytes())
        lines.append(" ".join([name, np.dtype(a.dtype).str] + [str(d) for d in a.shape]))

    for descr in DESCRS:
        for k, shape in enumerate(SHAPES):
            keep("%s%s_%d" % (descr[1], descr[2], k), random_array(rng, descr, shape))
    a = random_array(rng, "<f4", (3, 4))
    keep("v2", a, lambda f, x: np.lib.format.write_array(f, x, version=(2, 0)))
    keep("v3", random_array(rng, "<i2", (7,)), lambda f, x: np.lib.format.write_array(f, x, version=(3, 0)))
    keep("strided", np.arange(20, dtype="<i4").reshape(4, 5)[::2, 1::2])  # numpy writes C order
    keep("native_u1", np.arange(10, dtype=np.uint8))

    # Checked value by value in C.
    np.save(os.path.join(out, "known.npy"), np.array([1.5, -2.0, 0.1], dtype="<f4"))
    np.save(os.path.join(out, "bf16_ties.npy"), np.array([1.00390625, 1.01171875, 1.0078125], dtype="<f4"))
    np.save(os.path.join(out, "f16_from_f4.npy"), np.array([1.0, 65520.0, 2.0 ** -25, 0.1], dtype="<f4"))
    np.save(os.path.join(out, "bf16_bits.npy"), np.array([0x3F80, 0x7FC1, 0xFF80], dtype="<u2"))
    # Errors.
    np.save(os.path.join(out, "big_endian.npy"), np.arange(6, dtype=">f4").reshape(2, 3))
    np.save(os.path.join(out, "fortran.npy"), np.asfortranarray(np.arange(6, dtype="<f4").reshape(2, 3)))
    np.save(os.path.join(out, "complex.npy"), np.zeros(3, dtype=np.complex64))
    np.save(os.path.join(out, "f8.npy"), np.zeros((2, 3), dtype="<f8"))

    with open(os.path.join(out, "manifest.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote %d arrays to %s" % (len(lines), out))


if __name__ == "__main__":
    main()
