"""trnsim.Simulator and trnsim.Program: programs in every form, inputs per
core, outputs, errors with their fields (and nothing printed), and bounded
memory over 10^4 calls."""
import json
import os
import resource

import numpy as np
import pytest

import trnsim
from trnsim import isa

HERE = os.path.dirname(os.path.abspath(__file__))
MAX_PROG = {"tensors": [{"name": "x", "memory": "sbuf", "dtype": "float32", "shape": [2, 16]},
                        {"name": "v", "memory": "sbuf", "dtype": "float32", "shape": [2, 8]}],
            "instructions": [{"opcode": "Max", "inputs": ["x"], "outputs": ["v"]}]}


def test_program_forms(tmp_path):
    x = np.arange(32, dtype=np.float32).reshape(2, 16)
    want = -np.sort(-x, axis=1)[:, :8]
    path = tmp_path / "max.json"
    path.write_text(json.dumps(MAX_PROG))
    sim = trnsim.Simulator()
    for prog in (MAX_PROG, json.dumps(MAX_PROG), str(path), path):
        out = sim.run(prog, inputs={"x": x})
        assert list(out) == ["v"] and np.array_equal(out["v"], want)
    assert [t.name for t in sim.tensors()] == ["x", "v"] and sim.tensor("v").shape == (2, 8)


def test_builder_makes_the_native_program():
    p = trnsim.Program()
    x = p.tensor("x", [4, 6, 8], "float32")
    v = p.tensor("v", [4, 8], "float32")
    p.add("Max", inputs=[x[1:3, 2:5, ::2]], outputs=[v[1:3]])
    p.op.Max(inputs=[x], outputs=[v])
    d = p.to_dict()
    assert d["instructions"][0]["inputs"][0] == {"tensor": "x", "partition": 1, "partitions": 2,
                                                 "offset": 16, "ap": [[8, 3], [2, 4]]}
    assert d["instructions"][0]["outputs"][0] == {"tensor": "v", "partition": 1, "partitions": 2, "ap": [[1, 8]]}
    assert json.loads(p.to_json()) == d
    data = np.random.default_rng(0).standard_normal((4, 6, 8)).astype(np.float32)
    sim = trnsim.Simulator()
    out = sim.run(p, inputs={"x": data})["v"]
    assert np.array_equal(out, -np.sort(-data.reshape(4, 48), axis=1)[:, :8])  # the last instruction wins
    q = trnsim.Program()
    x = q.tensor("x", [4, 6, 8], "float32")
    v = q.tensor("v", [4, 8], "float32", fill=0.0)
    q.add("Max", inputs=[x[1:3, 2:5, ::2]], outputs=[v[1:3]])
    out = trnsim.Simulator().run(q, inputs={"x": data})["v"]
    sl = data[1:3, 2:5, ::2].reshape(2, 12)
    assert np.array_equal(out[1:3], -np.sort(-sl, axis=1)[:, :8]) and not out[0].any()


def test_cores_and_per_core_inputs():
    p = trnsim.Program(cores=3)
    x = p.tensor("x", [1, 4], "float32", memory="hbm")
    y = p.tensor("y", [1, 4], "float32", memory="hbm")
    p.add("CollectiveCompute", [x], [y], kind="AllReduce", reduce_op="add")
    sim = trnsim.Simulator()
    xs = np.arange(12, dtype=np.float32).reshape(3, 1, 4)
    out = sim.run(p, inputs={"x": xs})["y"]  # [cores, *shape]
    assert out.shape == (3, 1, 4) and np.array_equal(out[2], xs.sum(0))
    out = sim.run(inputs={"x": np.ones((1, 4), np.float32), "x@1": np.zeros((1, 4), np.float32)})
    assert np.array_equal(out["y"][0], [[2, 2, 2, 2]])
    assert np.array_equal(sim.get("x", core=1), np.zeros((1, 4)))


def test_settings_override():
    data = np.array([[1, 2, 3, 4, 8, 8, 8, 8, 8, 8, 8]], np.float32)
    vals = np.array([[3, 8, 8, 8, 8, 8, 8, 8]], np.float32)
    prog = {"tensors": [{"name": "d", "memory": "sbuf", "dtype": "float32", "shape": [1, 11]},
                        {"name": "v", "memory": "sbuf", "dtype": "float32", "shape": [1, 8]},
                        {"name": "i", "memory": "sbuf", "dtype": "uint32", "shape": [1, 8]}],
            "instructions": [{"opcode": "MaxIndex", "inputs": ["v", "d"], "outputs": ["i"]}]}
    for sim, want in ((trnsim.Simulator(search={"duplicate_match_order": "descending"}), [2, 10, 9, 8, 7, 6, 5, 4]),
                      (trnsim.Simulator(search__duplicate_match_order="ascending"), [2, 4, 5, 6, 7, 8, 9, 10])):
        assert list(sim.run(prog, {"d": data, "v": vals})["i"][0]) == want
    cfg = 'plugins = ( { family = "search"; module = "trnsim-search"; } );'
    assert list(trnsim.Simulator(cfg).run(prog, {"d": data, "v": vals})["i"][0]) == [2, 4, 5, 6, 7, 8, 9, 10]


def test_errors_carry_fields_and_print_nothing(capfd, tmp_path):
    with pytest.raises(trnsim.ConfigError) as e:
        trnsim.Simulator(search={"duplicate_match_order": "sideways"})
    assert "setting 'duplicate_match_order' = \"sideways\" is not one of" in e.value.message
    assert e.value.file == "<embedded default config>"
    with pytest.raises(trnsim.ConfigError, match="'nope' is neither machine nor the family of a configured module"):
        trnsim.Simulator(nope={"x": 1})
    with pytest.raises(trnsim.ConfigError, match=r"<config text>:1:"):
        trnsim.Simulator("plugins = ( { family = ")
    with pytest.raises(trnsim.ModuleError, match="not found; searched"):
        trnsim.Simulator('plugins = ( { family = "x"; module = "trnsim-nothere"; } );')
    sim = trnsim.Simulator()
    bad = dict(MAX_PROG, instructions=[MAX_PROG["instructions"][0], {"opcode": "NoSuchOp"}])
    with pytest.raises(trnsim.ProgramError) as e:
        sim.load(bad)
    assert e.value.instruction == 1 and e.value.file == "<program>" and "unknown opcode name 'NoSuchOp'" in e.value.message
    with pytest.raises(trnsim.ProgramError, match="cannot read the program"):
        sim.load(str(tmp_path / "missing.json"))
    with pytest.raises(trnsim.UsageError, match="no program is loaded"):
        sim.run()
    sim.load(MAX_PROG)
    with pytest.raises(trnsim.RunError) as e:  # x never written
        sim.run()
    assert (e.value.instruction, e.value.core, e.value.opcode, e.value.opcode_name) == (0, 0, 88, "Max")
    assert "never-written" in e.value.message and isinstance(e.value, trnsim.Error)
    with pytest.raises(trnsim.InputError, match=r"tensor 'x': shape \[2, 15\] does not match the tensor's shape \[2, 16\]"):
        sim.run(inputs={"x": np.zeros((2, 15), np.float32)})
    with pytest.raises(trnsim.InputError, match="no tensor named 'z'"):
        sim.run(inputs={"z": np.zeros(1)})
    with pytest.raises(trnsim.InputError, match="core 5 does not exist"):
        sim.set("x", np.zeros((2, 16), np.float32), core=5)
    with pytest.raises(trnsim.InputError, match="a uint32 tensor takes integers"):
        trnsim.Simulator().run(dict(MAX_PROG, tensors=[{"name": "x", "memory": "sbuf", "dtype": "uint32",
                                                        "shape": [2]}], instructions=[]), {"x": np.zeros(2)})
    sim.close()
    with pytest.raises(trnsim.UsageError, match="closed"):
        sim.run(MAX_PROG)
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def rss_kib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)


def test_no_leak_over_ten_thousand_calls():
    x = np.random.default_rng(0).standard_normal((128, 8)).astype(np.float32)
    wide = np.zeros((1, 16385), np.float32)  # refused by the module's static check: a failing load
    sim = trnsim.Simulator()

    def round_of_calls():
        isa.max8(x)
        sim.run(MAX_PROG, {"x": x[:2, :8].repeat(2, 1)})
        with pytest.raises(trnsim.ProgramError):
            isa.max8(wide)

    for _ in range(500):  # warm up: caches, allocator pools
        round_of_calls()
    before = rss_kib()
    for _ in range(10000):
        round_of_calls()
    for _ in range(200):  # simulators opened and closed
        trnsim.Simulator().close()
    grown = rss_kib() - before
    assert grown < 4096, "RSS grew by %d KiB over 10^4 calls" % grown


def test_get_of_bytes_nothing_wrote_raises():
    prog = {"tensors": [{"name": "x", "memory": "sbuf", "dtype": "float32", "shape": [2, 16]},
                        {"name": "v", "memory": "sbuf", "dtype": "float32", "shape": [2, 8]},
                        {"name": "w", "memory": "hbm", "dtype": "float32", "shape": [4]}],
            "instructions": [{"opcode": "Max", "inputs": ["x"], "outputs": ["v"]}]}
    sim = trnsim.Simulator()
    sim.load(prog)
    with pytest.raises(trnsim.InputError) as e:
        sim.get("v")
    assert e.value.message.startswith("tensor 'v' on core 0: nothing wrote some of its bytes, so they hold no value")
    assert "element 0 [0, 0] of tensor 'v'" in e.value.message
    # the fix reads as Python, not as the CLI's --input flag
    assert "Simulator.set('v', array) (or run(inputs={'v': array}))" in e.value.message
    assert "--input" not in e.value.message
    assert sim.get("v", allow_unwritten=True).tolist() == [[0] * 8] * 2   # the explicit opt-out
    out = sim.run(inputs={"x": np.arange(32, dtype=np.float32).reshape(2, 16)})
    assert out["v"][0].tolist() == list(range(15, 7, -1))
    with pytest.raises(trnsim.InputError, match="tensor 'w' on core 0: nothing wrote"):
        sim.run(outputs=["v", "w"])
    assert sim.run(outputs=["w"], allow_unwritten=True)["w"].tolist() == [0] * 4
    sim.close()


def test_closed_simulator_raises_usage_error_everywhere():
    sim = trnsim.Simulator()
    sim.load(MAX_PROG)
    sim.close()
    for name, call in (("run", lambda: sim.run()), ("get", lambda: sim.get("x")),
                       ("set", lambda: sim.set("x", np.zeros((2, 16), np.float32))),
                       ("bind", lambda: sim.bind("x", np.zeros((2, 16), np.float32))),
                       ("load", lambda: sim.load(MAX_PROG)), ("tensor", lambda: sim.tensor("x"))):
        with pytest.raises(trnsim.UsageError, match=r"Simulator.%s: the simulator is closed" % name):
            call()
    sim.close()  # closing twice is fine


def test_setting_errors_read_as_python():
    with pytest.raises(trnsim.ConfigError) as e:
        trnsim.Simulator(nosuchfamily={"x": 1})
    assert "--set" not in e.value.message
    assert "the setting nosuchfamily.x=1 (Simulator(nosuchfamily={'x': 1})): " in e.value.message
