"""trnsim.Program loaded as a program built in memory (trnsim_program_* of
libtrnsim, API version 2): the same document as its JSON, the same results
(in process and through the CLI), the same refusals with the same fields."""
import json

import numpy as np
import pytest

import trnsim
from trnsim import _build, _lib

from conftest import run_cli


def _no_text(*args):
    raise AssertionError("a trnsim.Program must not be loaded as JSON text")


def topk_program():
    """Two TopK rounds over a slice, a loop around a BNStats, two cores,
    initial data, a fill, -inf as an attribute."""
    p = trnsim.Program(cores=2)
    x = p.tensor("x", [4, 32], "float32")
    w = p.tensor("w", [4, 16], "float32", data=np.arange(64, dtype=np.float32) * 0.25)
    vals = p.tensor("vals", [4, 16], "float32", fill=-np.inf)
    idx = p.tensor("idx", [4, 16], "uint32")
    st = p.tensor("st", [4, 6], "float32")
    m = p.tensor("m", [4, 8], "float32")
    for r in range(2):
        slot = vals[:, 8 * r:8 * r + 8]
        p.add("Max", inputs=[x[:, 0:16]], outputs=[slot])
        p.add("MaxIndexAndMatchReplace", inputs=[slot, x[:, 0:16]], outputs=[x[:, 0:16], idx[:, 8 * r:8 * r + 8]],
              imm_value=-np.inf)
    with p.loop(3, register=0):
        p.op.BNStats(inputs=[w], outputs=[st])
    p.add(88, inputs=[x[:, 16:32]], outputs=[m])  # an opcode by IT number (Max)
    return p


def test_built_program_is_its_json_and_runs_the_same(monkeypatch, tmp_path):
    p = topk_program()
    ph = _build.build(p)
    try:
        assert json.loads(_build.to_json(ph)) == json.loads(p.to_json())  # the library's document is the JSON
    finally:
        _lib.lib.trnsim_program_free(ph)

    x = np.random.default_rng(5).standard_normal((2, 4, 32)).astype(np.float32)
    x[:, :, 3] = x[:, :, 9]  # equal values: the match order shows
    with trnsim.Simulator() as sim:
        want = sim.run(p.to_dict(), inputs={"x": x})  # JSON text
    with monkeypatch.context() as m:
        m.setattr(_lib.lib, "trnsim_load_program_text", _no_text)
        with trnsim.Simulator() as sim:
            got = sim.run(p, inputs={"x": x})
    assert sorted(got) == ["idx", "m", "st", "vals", "x"]
    for name in want:
        assert got[name].dtype == want[name].dtype and got[name].tobytes() == want[name].tobytes(), name
    # top 8 of each row's first 16 elements, descending, and where they were
    first = x[:, :, :16]
    assert np.array_equal(got["vals"][:, :, :8], -np.sort(-first, axis=2)[:, :, :8])
    assert np.array_equal(np.take_along_axis(first, got["idx"][:, :, :8].astype(np.int64), 2), got["vals"][:, :, :8])
    # and the CLI, reading the JSON from a file, gives the same bytes
    outs = [(n, c) for n in sorted(want) for c in range(2)]
    cli = run_cli(p.to_dict(), [("x", c, x[c]) for c in range(2)], outs, tmp_path)
    for (n, c), raw in zip(outs, cli):
        assert raw.tobytes() == got[n][c].tobytes(), (n, c)


def _bad(kind):
    p = trnsim.Program()
    x = p.tensor("x", [2 if kind != "placement" else 129, 16], "float32")
    v = p.tensor("v", [2, 8], "float32")
    if kind == "opcode":
        p.add("Maxx", inputs=[x], outputs=[v])
    elif kind == "bounds":
        p.add("Max", inputs=[x.ap([[1, 16]], offset=4)], outputs=[v])
    elif kind == "attribute":
        p.add("MaxIndexAndMatchReplace", inputs=[v, x], outputs=[x], imm_valu=0.0)
    elif kind == "tensor":
        p.add("Max", inputs=["y"], outputs=[v])
    elif kind == "uninit":  # refused by the run, not the load
        p.add("Max", inputs=[x], outputs=[v])
    return p


@pytest.mark.parametrize("kind, cls, text", [
    ("opcode", trnsim.ProgramError, "<program>: instruction 0 (opcode Maxx): unknown opcode name 'Maxx'"),
    ("placement", trnsim.ProgramError, "<program>: tensor 'x': 129 partitions, the machine has 128"),
    ("bounds", trnsim.ProgramError, "instruction 0 (opcode Max/88, family search), inputs[0]: leaves tensor 'x'"),
    ("attribute", trnsim.ProgramError, "unknown attribute 'imm_valu' for MaxIndexAndMatchReplace; did you mean "
                                       "'imm_value'?"),
    ("tensor", trnsim.ProgramError, "instruction 0 (opcode Max): inputs[0]: no tensor named 'y'"),
    ("uninit", trnsim.RunError, "reads never-written sbuf bytes"),
])
def test_built_program_refused_as_its_json(kind, cls, text, monkeypatch, capfd):
    p = _bad(kind)
    with trnsim.Simulator() as sim:
        with pytest.raises(cls) as from_json:
            sim.run(p.to_dict())
    with monkeypatch.context() as m:
        m.setattr(_lib.lib, "trnsim_load_program_text", _no_text)
        with trnsim.Simulator() as sim:
            with pytest.raises(cls) as built:
                sim.run(p)
            if kind != "uninit":
                assert sim.tensors() == []  # a refused program leaves none
    a, b = from_json.value, built.value
    assert text in b.message, b.message
    assert (a.message, a.file, a.instruction, a.core, a.opcode, a.opcode_name) == \
           (b.message, b.file, b.instruction, b.core, b.opcode, b.opcode_name)
    assert capfd.readouterr() == ("", "")


def test_values_without_a_native_form():
    p = trnsim.Program()
    p.tensor("x", [1, 8], "uint64", data=[1 << 64] + [0] * 7)
    with trnsim.Simulator() as sim:
        with pytest.raises(trnsim.ProgramError, match="the integer 18446744073709551616 does not fit in int64"):
            sim.load(p)
        assert sim.tensors() == []
    q = trnsim.Program()
    q.tensor("x", [1, 8], "float32")
    q.add("Max", inputs=["x"], outputs=["x"], comment=None)
    with trnsim.Simulator() as sim:
        with pytest.raises(trnsim.ProgramError, match="not None"):
            sim.load(q)


def test_loaded_again_only_when_changed():
    p = trnsim.Program()
    x = p.tensor("x", [1, 8], "float32")
    v = p.tensor("v", [1, 8], "float32")
    p.add("Max", inputs=[x], outputs=[v])
    with trnsim.Simulator() as sim:
        sim.run(p, inputs={"x": np.arange(8, dtype=np.float32).reshape(1, 8)})
        sim.load(p)  # the same program: memories kept
        assert sim.get("v").tolist() == [[7, 6, 5, 4, 3, 2, 1, 0]]
        p.add("Max", inputs=[x], outputs=[x])
        sim.load(p)  # changed: loaded afresh
        assert len(sim._program["instructions"]) == 2
