"""Threads (docs/python.md, Threads): any number of threads call trnsim.isa
and use their own Simulators at once, with the bytes one thread gets; a
Simulator entered by a second thread raises UsageError, never races."""
import random
import threading

import numpy as np
import pytest

import trnsim
from trnsim import isa

THREADS = 8
ROUNDS = 3


def _data(seed, shape):
    return np.random.default_rng(seed).standard_normal(shape, dtype=np.float32)


def _copy_program(shape):
    t = lambda n: {"name": n, "memory": "hbm", "dtype": "float32", "shape": list(shape)}
    return {"tensors": [t("x"), t("y")],
            "instructions": [{"opcode": "DMACopy", "mode": 0, "inputs": ["x"], "outputs": ["y"]}]}


def _own_simulator(shape, seed):
    with trnsim.Simulator() as sim:
        return sim.run(_copy_program(shape), inputs={"x": _data(seed, shape)})["y"]


# every operation twice over shapes the threads share (the same kernel key in
# every thread: the case that crashed with one process-wide cache) and apart
OPS = [
    ("topk", lambda: isa.topk(_data(1, (128, 512)), 16)),
    ("topk_other", lambda: isa.topk(_data(2, (64, 1000)), 24)),
    ("max8", lambda: isa.max8(_data(3, (128, 256)))),
    ("match_replace", lambda: isa.nc_match_replace8(_data(4, (32, 64)), _data(4, (32, 64))[:, :8], 0.0)),
    ("bn", lambda: isa.bn_aggr(isa.bn_stats(_data(5, (128, 2048))))),
    ("bn_small", lambda: isa.bn_stats(_data(6, (3, 40)))),
    ("rand2", lambda: isa.rand2((128, 64), state=isa.set_rng_seed(7))),
    ("rand", lambda: isa.rand((16, 32), "pcg32", state=np.full((16, 6), 3, np.uint32))),
    ("device_rng", lambda: (isa.set_rng_seed(3), isa.rand2((64, 8)), isa.rand2((64, 8)))[1:]),
    ("all_reduce", lambda: isa.all_reduce([_data(10 + r, (256,)) for r in range(4)])),
    ("all_gather", lambda: isa.all_gather([_data(20 + r, (8, 8)) for r in range(8)])),
    ("transpose", lambda: isa.dma_transpose(_data(8, (32, 48)))),
    ("cast", lambda: isa.dma_copy(_data(9, (1000,)), dtype="float16")),
    ("simulator", lambda: _own_simulator((4, 100), 11)),
]


def _bytes(result):
    """Every array of a result, flattened to bytes, in order."""
    if isinstance(result, np.ndarray):
        return [np.ascontiguousarray(result).tobytes()]
    return [b for part in result for b in _bytes(part)]


def test_threads_mixing_operations_get_the_one_thread_bytes():
    isa.clear_cache()
    want = {name: _bytes(fn()) for name, fn in OPS}
    failures = []
    start = threading.Barrier(THREADS)

    def worker(seed):
        order = [op for _ in range(ROUNDS) for op in OPS]
        random.Random(seed).shuffle(order)
        start.wait()
        try:
            for name, fn in order:
                if _bytes(fn()) != want[name]:
                    failures.append("thread %d: %s differs from the one-thread run" % (seed, name))
        except Exception as exc:  # reported below, with the thread
            failures.append("thread %d: %r" % (seed, exc))
    threads = [threading.Thread(target=worker, args=(k,)) for k in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures[:5]


def test_each_thread_has_its_own_kernels():
    isa.topk(_data(1, (8, 64)), 8)
    mine = isa._kernel._thread_cache()
    theirs = []
    t = threading.Thread(target=lambda: (isa.topk(_data(1, (8, 64)), 8),
                                         theirs.append(isa._kernel._thread_cache())))
    t.start()
    t.join()
    key = ("topk", 8, 64, "float32", 1)
    assert key in theirs[0] and theirs[0][key].sim is not mine[key].sim


def test_configure_reaches_every_threads_cache():
    """configure() from one thread: another thread's next call uses the new
    settings (its cached kernels are of the old config)."""
    x = np.array([[5, 1, 5, 2, 5, 3, 5, 4, 0, 0]], np.float32)
    vals = np.array([[5, 5, 5, 5, 1, 2, 3, 4]], np.float32)
    results = {}
    ready, go, done = threading.Event(), threading.Event(), threading.Event()

    def other():
        results["before"] = isa.nc_find_index8(x, vals).copy()
        ready.set()
        go.wait()
        results["after"] = isa.nc_find_index8(x, vals).copy()
        done.set()
    t = threading.Thread(target=other)
    t.start()
    ready.wait()
    try:
        isa.configure(search={"duplicate_match_order": "descending"})
        go.set()
        done.wait()
    finally:
        isa.configure()
        t.join()
    assert results["before"].tolist() == [[0, 2, 4, 6, 1, 3, 5, 7]]
    assert results["after"].tolist() == [[6, 4, 2, 0, 1, 3, 5, 7]]


def test_a_simulator_entered_by_a_second_thread_raises():
    sim = trnsim.Simulator()
    sim.load(_copy_program((4,)))
    holding, release = threading.Event(), threading.Event()

    def hold():  # a thread inside the simulator (as in a long run) ...
        with sim._busy:
            holding.set()
            release.wait()
    t = threading.Thread(target=hold)
    t.start()
    holding.wait()
    try:
        for call in (lambda: sim.run(inputs={"x": np.ones(4, np.float32)}), lambda: sim.get("y"),
                     lambda: sim.set("x", np.ones(4, np.float32)), sim.close):
            with pytest.raises(trnsim.UsageError, match="another thread is using this simulator"):
                call()  # ... so this one raises
    finally:
        release.set()
        t.join()
    # the simulator is intact and usable again
    y = sim.run(inputs={"x": np.arange(4, dtype=np.float32)})["y"]
    assert y.tolist() == [0, 1, 2, 3]
    sim.close()


def test_a_shared_simulator_never_gives_a_wrong_answer():
    """Two threads hammer one Simulator: each call runs whole (its own
    input's bytes come back) or raises UsageError; nothing else."""
    sim = trnsim.Simulator()
    sim.load(_copy_program((256,)))
    bad, ran = [], [0, 0]

    def worker(k):
        x = np.full(256, k + 1, np.float32)
        for _ in range(300):
            try:
                y = sim.run(inputs={"x": x})["y"]
            except trnsim.UsageError:
                continue
            ran[k] += 1
            if not np.array_equal(y, x):
                bad.append(k)
    threads = [threading.Thread(target=worker, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    sim.close()
    assert not bad and sum(ran) > 0
