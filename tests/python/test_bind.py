"""Inputs bound in place (Simulator.bind, trnsim_bind_tensor; isa calls bind
their large inputs): the same bytes as copied inputs, the caller's array
never written, read where it lies, and one clear error per bad array."""
import numpy as np
import pytest

import trnsim
from trnsim import isa

RNG = np.random.default_rng(5)

BN_PROG = {"tensors": [{"name": "x", "memory": "sbuf", "dtype": "float32", "shape": [128, 4096]},
                       {"name": "y", "memory": "sbuf", "dtype": "float32", "shape": [128, 4096]},
                       {"name": "st", "memory": "sbuf", "dtype": "float32", "shape": [128, 6]}],
           "instructions": [{"opcode": "BNStats", "inputs": ["x"], "outputs": ["st"]}]}


def copied(fn, *args):
    """fn's result with every isa input copied in rather than bound."""
    saved = isa._kernel._BIND_BYTES
    isa._kernel._BIND_BYTES = 1 << 62
    try:
        isa.clear_cache()
        return fn(*args)
    finally:
        isa._kernel._BIND_BYTES = saved
        isa.clear_cache()


def same_bytes(a, b):
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(same_bytes(p, q) for p, q in zip(a, b))
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a.view(np.uint8), b.view(np.uint8))


@pytest.mark.parametrize("case", ["bn", "bn_aggr", "max8", "topk", "find_index8", "dma_copy", "all_reduce"])
def test_isa_bound_inputs_equal_copied(case, same_as_cli):
    x = RNG.standard_normal((128, 2048)).astype(np.float32)
    x[3, 7] = np.nan
    x[5, :] = x[5, 0]  # ties
    calls = {
        "bn": lambda: isa.bn_stats(x),
        "bn_aggr": lambda: isa.bn_aggr(np.tile(isa.bn_stats(x), (1, 30))),
        "max8": lambda: isa.max8(x),
        "topk": lambda: isa.topk(x, 16),
        "find_index8": lambda: isa.nc_find_index8(x, isa.max8(x)),
        "dma_copy": lambda: isa.dma_copy(x, dtype="bfloat16"),
        "all_reduce": lambda: isa.all_reduce([x, x * 2, x - 1]),
    }
    keep = x.copy()
    bound = same_as_cli(calls[case])
    assert same_bytes(bound, copied(calls[case]))
    assert same_bytes(x, keep), "an isa call wrote into its input"


def test_isa_binds_large_inputs():
    x = RNG.standard_normal((128, 1024)).astype(np.float32)
    isa.clear_cache()
    isa.bn_stats(x)
    (k,) = [k for key, k in isa._kernel._thread_cache().items() if key[0] == "bnstats"] or [None]
    assert k is not None and k.bound[0] is x, "a 512 KiB input was not bound"
    small = x[:, :8].copy()
    isa.max8(small)
    (k,) = [k for key, k in isa._kernel._thread_cache().items() if key[0] == "max8"]
    assert k.bound[0] is None, "a 4 KiB input was bound, not copied"


def test_bound_array_is_read_in_place():
    x = RNG.standard_normal((128, 4096)).astype(np.float32)
    with trnsim.Simulator() as bound, trnsim.Simulator() as copy:
        bound.load(BN_PROG)
        bound.bind("x", x)
        first = bound.run()["st"]
        copy.load(BN_PROG)
        assert same_bytes(first, copy.run(inputs={"x": x})["st"])
        x[17, 100] += 1.0  # changed between runs: the next run reads the change
        second = bound.run()["st"]
        assert same_bytes(second, copy.run(inputs={"x": x})["st"])
        assert not same_bytes(first[17], second[17])
        bound.unbind("x")  # copied in: later changes are not seen
        x[17, 100] -= 1.0
        assert same_bytes(bound.run()["st"], second)


def test_run_that_writes_the_bound_tensor():
    prog = dict(BN_PROG, instructions=[
        {"opcode": "BNStats", "inputs": ["x"], "outputs": ["st"]},
        {"opcode": "DMACopy", "accumulate": True, "inputs": ["y"], "outputs": ["x"]},
        {"opcode": "BNStats", "inputs": ["x"], "outputs": ["st"]}])
    x = RNG.standard_normal((128, 4096)).astype(np.float32)
    y = RNG.standard_normal((128, 4096)).astype(np.float32)
    keep = x.copy()
    with trnsim.Simulator() as bound, trnsim.Simulator() as copy:
        bound.load(prog)
        bound.bind("x", x)
        bound.set("y", y)
        got = bound.run(outputs=["st", "x"])
        want = copy.run(prog, inputs={"x": x, "y": y}, outputs=["st", "x"])
        assert same_bytes(got["st"], want["st"]) and same_bytes(got["x"], want["x"])
        assert same_bytes(x, keep), "the run wrote into the bound array"
        assert same_bytes(got["x"], (keep + y).astype(np.float32))


def test_bind_on_several_cores():
    prog = {"cores": 3, "tensors": BN_PROG["tensors"], "instructions": [
        {"opcode": "CollectiveCompute", "kind": "AllReduce", "reduce_op": "add", "inputs": ["x"], "outputs": ["y"]}]}
    xs = RNG.standard_normal((3, 128, 4096)).astype(np.float32)
    with trnsim.Simulator() as bound, trnsim.Simulator() as copy:
        bound.load(prog)
        for c in range(3):
            bound.bind("x", xs[c], core=c)
        want = copy.run(prog, inputs={"x": xs}, outputs=["y"])["y"]
        assert same_bytes(bound.run(outputs=["y"])["y"], want)


def test_bind_errors():
    with trnsim.Simulator() as sim:
        sim.load(BN_PROG)
        x = np.zeros((128, 4096), np.float32)
        cases = [
            (x.astype(np.float64), "tensor 'x': bind needs dtype float32 (the tensor is float32), got float64; "
                                   "convert it or use set()"),
            (x[:, :2048], "tensor 'x': bind needs shape [128, 4096], got [128, 2048]"),
            (np.zeros((4096, 128), np.float32).T, "tensor 'x': bind needs a C-contiguous array "
                                                   "(np.ascontiguousarray, or use set())"),
            (x.tolist(), "tensor 'x': bind needs a numpy array, got list (use set() to convert)"),
        ]
        for arr, msg in cases:
            with pytest.raises(trnsim.InputError) as info:
                sim.bind("x", arr)
            assert info.value.message == msg
        raw = np.zeros(128 * 4096 * 4 + 4, np.uint8)
        start = 1 if raw.ctypes.data % 4 != 3 else 2
        unaligned = raw[start:start + 128 * 4096 * 4].view(np.float32).reshape(128, 4096)
        assert not unaligned.flags.aligned
        with pytest.raises(trnsim.InputError) as info:
            sim.bind("x", unaligned)
        assert info.value.message.startswith(
            "tensor 'x': a bound buffer must be aligned to the 4-byte width of float32, this one is ")
        with pytest.raises(trnsim.InputError) as info:
            sim.bind("nope", x)
        assert "no tensor named 'nope'" in info.value.message
        # nothing was bound: x reads as never written
        with pytest.raises(trnsim.RunError) as info:
            sim.run()
        assert "reads never-written" in info.value.message
