"""trnsim.conform_runner: a case folder run through the Python package gives
`trnsim run --output`'s bits for every tensor; a refused program gives
error.txt and no outputs; the runner goes on with the next folder."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import trnsim
from trnsim import conform_runner

CLI = os.environ.get("TRNSIM_CLI")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NAN_PAYLOAD = np.array([0x7FC00123], np.uint32).view(np.float32)[0]


def _rows(p, n, seed, ties=True):
    """fp32 rows with repeated values, a NaN with a payload, +-0, a subnormal and infinities."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((p, n)).astype(np.float32)
    if ties:
        x[:, 3] = x[:, 7] = x[:, n - 1] = 5.0
        x[1, 0] = np.float32(-0.0)
        x[1, 1] = 0.0
        x[2, 5] = np.inf
        x[2, 6] = -np.inf
        x[3, n - 2] = np.float32(1e-40)
    return x


def bf16_bits(values):
    return trnsim.as_bits(trnsim.round_to(values, "bfloat16"), "bfloat16").view(np.ndarray)


def _t(name, shape, dtype="float32", memory="sbuf", **kw):
    return dict({"name": name, "memory": memory, "dtype": dtype, "shape": list(shape)}, **kw)


def _h(name, shape, dtype="float32", **kw):
    return _t(name, shape, dtype, "hbm", **kw)


def _i(opcode, ins, outs, **attrs):
    return dict({"opcode": opcode, "inputs": list(ins), "outputs": list(outs)}, **attrs)


def search_case():
    x = _rows(4, 32, 1)
    x[0, 9] = NAN_PAYLOAD
    tensors = [_t("x", [4, 32]), _t("v", [4, 8]), _t("idx", [4, 8], "uint32"), _t("y", [4, 32]),
               _t("y2", [4, 32]), _t("idx2", [4, 8], "uint32"), _t("xb", [4, 32], "bfloat16"),
               _t("vb", [4, 8], "bfloat16"), _t("w", [4, 16])]
    insts = [_i("Max", ["x"], ["v"]),
             _i("MaxIndex", ["v", "x"], ["idx"]),
             _i("MatchReplace", ["v", "x"], ["y"], imm_value="-inf"),
             {"opcode": "MaxIndexAndMatchReplace", "inputs": ["v", "y"], "outputs": ["y2", "idx2"],
              "imm_value": 0.5},
             _i("Max", ["xb"], ["vb"]),
             # a slice: the generic builder, between isa steps
             {"opcode": "Max", "inputs": [{"tensor": "y2", "ap": [[1, 16]]}],
              "outputs": [{"tensor": "w", "offset": 8, "ap": [[1, 8]]}]},
             {"opcode": "Max", "inputs": [{"tensor": "x", "offset": 16, "ap": [[1, 16]]}],
              "outputs": [{"tensor": "w", "ap": [[1, 8]]}]}]
    xb = bf16_bits(_rows(4, 32, 2))
    return ({"cores": 1, "tensors": tensors, "instructions": insts}, {"x": x, "xb": xb}, None,
            ["Max:isa", "MaxIndex:isa", "MatchReplace:isa", "MaxIndexAndMatchReplace:isa",
             "Max:isa",
             "Max:program", "Max:program"])


def bn_case():
    p, n = 4, 64
    x = _rows(p, n, 3, ties=False) * np.float32(3) + np.float32(100)
    dy = _rows(p, n, 4, ties=False)
    x[0, 5] = np.inf  # dx = -inf (coef[0] below), which float8_e4m3fn holds as 0xFF, a NaN
    tensors = [_t("x", [p, n]), _t("dy", [p, n]), _t("st", [p, 6]), _t("mv", [p, 2]),
               _t("g", [p, 3]),
               _t("m", [p, 1]), _t("vf", [p, 1]), _t("coef", [p, 3]), _t("dx", [p, n], "bfloat16"),
               _t("ab", [p, 2]), _t("sc", [p, 1]), _t("dx2", [p, n]), _t("xb", [p, n], "bfloat16"),
               _t("stb", [p, 6]), _t("dx8", [p, n], "float8_e4m3fn")]
    insts = [_i("BNStats", ["x"], ["st"]),
             _i("BNStatsAggregate", ["st"], ["mv"]),
             _i("BNGradients", ["x", "dy", "m", "vf"], ["g"]),
             {"opcode": "BNBackprop", "inputs": ["x", "dy", "m", "coef"], "outputs": ["dx"],
              "total_elements": 64},
             {"opcode": "BNBackprop2", "inputs": ["x", "dy", "m", "ab", "sc"], "outputs": ["dx2"],
              "total_elements": 64.5},
             _i("BNStats", ["xb"], ["stb"]),
             _i("BNBackprop", ["x", "dy", "m", "coef"], ["dx8"], total_elements=1.5)]
    rng = np.random.default_rng(5)
    ins = {"x": x, "dy": dy, "m": np.full((p, 1), 100.0, np.float32),
           "vf": rng.random((p, 1)).astype(np.float32),
           "coef": np.vstack([[0.5, 2.0, 1.5], rng.standard_normal((p - 1, 3))]).astype(np.float32),
           "ab": rng.standard_normal((p, 2)).astype(np.float32),
           "sc": rng.random((p, 1)).astype(np.float32),
           "xb": bf16_bits(x)}
    return ({"cores": 1, "tensors": tensors, "instructions": insts}, ins, None, ["BNStats:isa",
            "BNStatsAggregate:isa", "BNGradients:isa", "BNBackprop:isa", "BNBackprop2:isa",
            "BNStats:isa", "BNBackprop:isa"])


def rng_case():
    p = 4
    si2 = np.arange(1, 1 + p * 24, dtype=np.uint32).reshape(p, 24) * np.uint32(2654435761)
    si1 = np.arange(7, 7 + p * 6, dtype=np.uint32).reshape(p, 6) * np.uint32(40503)
    tensors = [_t("si2", [p, 24], "uint32"), _t("r2", [p, 16]), _t("so2", [p, 24], "uint32"),
               _t("si1", [p, 6], "uint32"), _t("r1", [p, 8], "uint32"), _t("so1", [p, 6], "uint32"),
               _t("r3", [p, 8])]
    insts = [_i("SetRandState2", ["si2"], []),
             _i("Rand2", [], ["r2"], min=-2.0, max=3.0, is_2x1p=True),
             _i("GetRandState2", [], ["so2"]),
             _i("SetRandState", ["si1"], []),
             _i("Rand", [], ["r1"], algorithm="PCG32"),
             _i("GetRandState", [], ["so1"]),
             _i("SetRandState2", [], [], seed=42),
             _i("Rand2", [], ["r3"])]
    return ({"cores": 1, "tensors": tensors, "instructions": insts}, {"si2": si2, "si1": si1}, None,
            ["SetRandState2:isa", "Rand2:isa", "GetRandState2:isa", "SetRandState:isa", "Rand:isa",
             "GetRandState:isa", "SetRandState2:isa", "Rand2:isa"])


def dma_case():
    rng = np.random.default_rng(6)
    a = _rows(4, 8, 7)
    b = rng.standard_normal((4, 8)).astype(np.float32)
    table = rng.standard_normal((6, 4)).astype(np.float32)
    tensors = [_h("a", [4, 8]), _h("b", [4, 8]),
               _h("ab", [4, 8], "bfloat16"), _h("acc", [4, 8], fill=1.5),
               _h("sum", [4, 8], "bfloat16"), _h("mx", [4, 8]),
               _h("at", [8, 4]), _t("rep", [3, 32]), _h("table", [6, 4]),
               _h("ix", [5], "int32"), _h("g", [5, 4]), _t("sb", [4, 8]),
               _t("sb2", [4, 8])]
    insts = [_i("DMACopy", ["a"], ["ab"], mode=0),
             _i("DMACopy", ["b"], ["acc"], accumulate=True),
             _i("DMACopy", ["a", "b"], ["sum"], mode=2, reduce_op="add"),
             _i("DMACopy", ["a", "b", "acc"], ["mx"], mode="CCE", reduce_op=8),
             _i("DMACopy", ["a"], ["at"], mode=1, perm=[0, 1, 3, 2]),
             _i("DMACopy", ["a"], ["rep"], mode=3),
             {"opcode": "DMACopy", "mode": 0, "indirect": "gather", "elems_per_index": 4,
              "inputs": ["table", "ix"], "outputs": ["g"]},
             _i("TensorCopy", ["sb"], ["sb2"])]
    ins = {"a": a, "b": b, "table": table, "ix": np.array([5, 0, 2, 2, 1], np.int32),
           "sb": rng.standard_normal((4, 8)).astype(np.float32)}
    return ({"cores": 1, "tensors": tensors, "instructions": insts}, ins, None,
            ["DMACopy:isa"] * 7 + ["TensorCopy:program"])


def collective_case():
    rng = np.random.default_rng(8)
    x = rng.standard_normal((2, 16)).astype(np.float32)
    x[0, 3], x[1, 3] = 1.0, np.float32(2 ** -24)  # a sum that rounds
    x[1, 4] = np.nan
    tensors = [_h("x", [16]), _h("s", [16]), _h("mx", [16]),
               _h("g", [32]), _h("t", [16]), _h("pm", [16]),
               _h("pi", [16]), _h("rs", [16]), _t("xs", [4, 8]), _t("ss", [4, 8]),
               _t("xi", [4, 8], "int8"), _t("si", [4, 8], "int32")]
    insts = [_i("CollectiveCompute", ["x"], ["s"], kind="AllReduce", reduce_op="add"),
             _i("CollectiveCompute", ["x"], ["mx"], kind=2, reduce_op="max"),
             _i("CollectiveCompute", ["x"], ["g"], kind="AllGather"),
             _i("CollectiveCompute", ["x"], ["t"], kind="AllToAll"),
             _i("CollectiveCompute", ["x"], ["pm"], kind="Permute",
                src_target_pairs=[[0, 1], [1, 0]]),
             _i("CollectiveCompute", ["x"], ["pi"], kind="PermuteImplicit"),
             # scale has no isa form: the generic builder, on both cores
             {"opcode": "CollectiveCompute", "kind": "AllReduce", "reduce_op": "add", "scale": 0.5,
              "inputs": ["x"], "outputs": ["rs"]},
             # whole SBUF tensors: the isa call; int8 in, int32 out: the generic builder
             _i("CollectiveCompute", ["xs"], ["ss"], kind="AllReduce", reduce_op="add"),
             _i("CollectiveCompute", ["xi"], ["si"], kind="AllReduce", reduce_op="add")]
    xs = rng.standard_normal((2, 4, 8)).astype(np.float32)
    xi = rng.integers(-128, 128, (2, 4, 8)).astype(np.int8)
    return ({"cores": 2, "tensors": tensors, "instructions": insts}, {"x": x, "xs": xs, "xi": xi},
            None, ["CollectiveCompute:isa"] * 6 + ["CollectiveCompute:program",
                                                   "CollectiveCompute:isa",
                                                   "CollectiveCompute:program"])


def experimental_case():
    x = _rows(4, 16, 9)
    x[0, :] = 0.0
    tensors = [_t("x", [4, 16]), _t("nz", [4, 17], "int32"), _t("r", [4, 8], "uint32"),
               _t("v", [4, 8])]
    insts = [{"opcode": "NonzeroWithCount", "inputs": ["x"], "outputs": ["nz"], "index_offset": 3,
              "padding_val": -1},
             _i("Rng", [], ["r"]),
             _i("Max", ["x"], ["v"])]
    return ({"cores": 1, "tensors": tensors, "instructions": insts}, {"x": x},
            os.path.join(REPO, "config", "experimental.cfg"), None)


CASES = {"search": search_case, "bn": bn_case, "rng": rng_case, "dma": dma_case,
         "collective": collective_case, "experimental": experimental_case}


def write_case(d, program, inputs, config):
    (d / "in").mkdir(parents=True)
    (d / "program.json").write_text(json.dumps(program))
    cores = program.get("cores", 1)
    for name, a in inputs.items():
        shape = next(t["shape"] for t in program["tensors"] if t["name"] == name)
        per_core = np.broadcast_to(a, (1,) + a.shape) if cores == 1 else a.reshape([cores] + shape)
        np.save(d / "in" / (name + ".npy"), np.ascontiguousarray(per_core))
    if config:
        (d / "config.cfg").write_text(open(config).read())


def run_runner(*dirs):
    env = dict(os.environ)
    return subprocess.run([sys.executable, "-m", "trnsim.conform_runner"] + [str(d) for d in dirs],
                          capture_output=True, text=True, env=env)


def cli_outputs(d, program, config):
    """Every tensor as `trnsim run --raw-bits --output NAME@K=...` writes it."""
    assert CLI and os.path.exists(CLI), "TRNSIM_CLI must name the trnsim executable (ctest sets it)"
    args = [CLI, "run", str(d / "program.json"), "--raw-bits"]
    if config:
        args += ["--config", str(d / "config.cfg")]
    cores = program.get("cores", 1)
    (d / "cli").mkdir()
    for f in sorted(os.listdir(d / "in")):
        for c in range(cores):  # core c's slice of the [cores, *shape] file
            one = d / "cli" / ("in-%d-%s" % (c, f))
            np.save(one, np.load(d / "in" / f)[c])
            args += ["--input", "%s@%d=%s" % (f[:-4], c, one)]
    for t in program["tensors"]:
        for c in range(cores):
            f = d / "cli" / ("%s@%d.npy" % (t["name"], c))
            args += ["--output", "%s@%d=%s" % (t["name"], c, f)]
    r = subprocess.run(args, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return {t["name"]: np.stack([np.load(d / "cli" / ("%s@%d.npy" % (t["name"], c)))
                                 for c in range(cores)])
            for t in program["tensors"]}


def _loads(config):
    try:
        trnsim.Simulator(config).close()
        return True
    except trnsim.ModuleError:
        return False


@pytest.mark.parametrize("family", sorted(CASES))
def test_case_matches_cli_bit_for_bit(family, tmp_path):
    program, inputs, config, paths = CASES[family]()
    if config and not _loads(config):  # a build without trnsim-experimental
        pytest.skip("%s: its modules are not built" % config)
    d = tmp_path / family
    write_case(d, program, inputs, config)
    r = run_runner(d)
    assert r.returncode == 0, r.stderr
    assert not (d / "error.txt").exists(), (d / "error.txt").read_text()
    want = cli_outputs(d, program, config)
    assert sorted(os.listdir(d / "out")) == sorted(t["name"] + ".npy" for t in program["tensors"])
    for name, w in want.items():
        got = np.load(d / "out" / (name + ".npy"))
        assert got.shape == w.shape, name
        assert got.dtype == w.dtype, (name, got.dtype, w.dtype)
        assert got.tobytes() == w.tobytes(), "%s: the runner's bits differ from trnsim run's" % name
    steps = conform_runner.plan(program, config, {})
    got_paths = None if steps is None else \
        ["%s:%s" % (conform_runner.opcode_name(i), p) for p, i in steps]
    assert got_paths == paths


def test_outputs_are_real_values(tmp_path):
    """Not only equal to the CLI: the search case's Max gives numpy's 8 largest."""
    program, inputs, config, _ = search_case()
    out = conform_runner.execute(program, {k: v[None] for k, v in inputs.items()}, config)
    x = inputs["x"].copy()
    v = out["v"][0]
    for p in range(4):
        row = x[p]
        if np.isnan(row).any():
            continue
        assert np.array_equal(v[p], np.sort(row)[::-1][:8])
    assert out["idx"].dtype == np.uint32 and out["vb"].dtype == np.uint16  # bf16 as raw bits


def test_refused_program_writes_error_and_goes_on(tmp_path):
    bad, good = tmp_path / "bad", tmp_path / "good"
    program = {"tensors": [_t("x", [4, 32]), _t("v", [4, 6])],
               "instructions": [_i("Max", ["x"], ["v"])]}
    write_case(bad, program, {"x": _rows(4, 32, 1)}, None)
    gprog, gin, gcfg, _ = search_case()
    write_case(good, gprog, gin, gcfg)
    r = run_runner(bad, good)
    assert r.returncode == 0, r.stderr
    msg = (bad / "error.txt").read_text()
    assert msg.endswith("\n") and msg.count("\n") == 1
    assert msg.startswith(str(bad / "program.json") + ": instruction 0"), msg
    assert "Max" in msg and "expected exactly 8" in msg, msg
    assert not (bad / "out").exists()
    assert (good / "out" / "v.npy").exists() and not (good / "error.txt").exists()


def test_run_error_on_the_isa_path(tmp_path):
    """An isa step reading a tensor nothing wrote is an error, as the CLI's."""
    d = tmp_path / "c"
    program = {"tensors": [_t("x", [4, 32]), _t("v", [4, 8])],
               "instructions": [_i("Max", ["x"], ["v"])]}
    write_case(d, program, {}, None)
    assert run_runner(d).returncode == 0
    assert "'x'" in (d / "error.txt").read_text()
    assert not (d / "out").exists()
    r = subprocess.run([CLI, "run", str(d / "program.json")], capture_output=True, text=True)
    assert r.returncode != 0 and "'x'" in r.stderr


def test_registers_run_whole():
    """A register is state the runner does not carry between steps: such a
    program goes whole through trnsim.Program."""
    program, _, _, _ = search_case()
    program = dict(program, instructions=program["instructions"] +
                   [_i("GetGlobalRankId", [], [], register=3)])
    assert conform_runner.plan_why(program, None, {}) == (None, "loops, registers, views or "
                                                                "placed tensors")


def test_runner_failure_exits_2(tmp_path):
    r = run_runner(tmp_path / "missing")
    assert r.returncode == 2 and "missing" in r.stderr


def test_runner_names_a_case_it_cannot_take(tmp_path):
    """A program the runner cannot build (a tensor without a shape) is one line naming its
    folder and exit 2, and the folders after it still run (it was a traceback, exit 1)."""
    bad, good = tmp_path / "bad", tmp_path / "good"
    (bad / "in").mkdir(parents=True)
    (bad / "program.json").write_text('{"tensors": [{"name": "x", "dtype": "float32"}], '
                                      '"instructions": []}')
    gprog, gin, gcfg, _ = search_case()
    write_case(good, gprog, gin, gcfg)
    r = run_runner(bad, good)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert r.stderr == "trnsim.conform_runner: %s: cannot run this case: KeyError: 'shape'\n" \
        % bad, r.stderr
    assert (good / "out" / "v.npy").exists()


def test_case_run_again_keeps_no_stale_outputs(tmp_path):
    """A kept case run again (its diff_command) that now fails has error.txt and no out/
    (the first run's out/ stayed beside error.txt)."""
    d = tmp_path / "c"
    program, inputs, config, _ = search_case()
    write_case(d, program, inputs, config)
    assert run_runner(d).returncode == 0 and (d / "out" / "v.npy").exists()
    (d / "out" / "old.npy").write_bytes(b"")
    for f in os.listdir(d / "in"):
        os.remove(d / "in" / f)  # now reads inputs nothing wrote: an error
    assert run_runner(d).returncode == 0
    assert (d / "error.txt").exists() and not (d / "out").exists(), os.listdir(d)
