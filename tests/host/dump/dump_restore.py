#!/usr/bin/python3
"""--dump-at, --restore and --dump-on-error, one family per invocation.

For each program: the outputs of an uninterrupted run; then, for each dump
point, a run with --dump-at (its outputs must not change), a run restored
from that dump (its outputs must be the same bytes), and, for one-core
programs, the dump's tensor files against a run of the program cut before
the dump point (independent known values). The 'host' family checks the
option errors: bad directories, mismatching restores, numpy reading.

Usage: dump_restore.py TRNSIM FAMILY REPO_DIR"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
from clicase import Cli, case, finish, one_line_error  # noqa: E402

trnsim, family, repo = sys.argv[1], sys.argv[2], sys.argv[3]
_cli = Cli(trnsim, timeout=300)


def run(args, rc=0):
    return _cli.run(*args, rc=rc)


def write_json(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f)


def cores_of(prog):
    return prog.get("cores", 1)


def outputs(d, prog_path, prog, cfg, extra, tag, names=None):
    """Every tensor of every core (never-written bytes as zeros), or
    `names` (all of them written), after a run, as raw bytes."""
    args, files = ["run", prog_path, *cfg, "--raw-bits", *extra], {}
    if not names:
        names = [t["name"] for t in prog["tensors"]]
        args.append("--output-unwritten=zeros")
    for n in names:
        for c in range(cores_of(prog)):
            f = f"{d}/{tag}_{n}_{c}.npy"
            files[(n, c)] = f
            args += ["--output", f"{n}@{c}={f}"]
    r = run(args)
    got = {}
    for k, f in files.items():
        with open(f, "rb") as fh:
            got[k] = fh.read()
        os.unlink(f)
    return got, r


def written_tensors(prog):
    """Tensors every instruction leaves fully written: the inputs with data."""
    return [t["name"] for t in prog["tensors"] if any(k in t for k in ("data", "data_per_core", "fill"))]


def check_intermediates(d, prog, cfg, index, dump, probes):
    """A one-core dump before `index` against the program cut there: every
    tensor the manifest calls fully written has the cut run's values, and
    each probe instruction (e.g. GetRandState) appended to the cut program
    gives what the dump's module state says."""
    man = json.load(open(f"{dump}/manifest.json"))
    cut = dict(prog, instructions=prog["instructions"][:index] + [p[0] for p in probes])
    path = f"{d}/cut.json"
    write_json(path, cut)
    full = [t["name"] for t in man["tensors"] if t["fully_written"][0]]
    assert set(written_tensors(prog)) <= set(full), (full, written_tensors(prog))
    got, _ = outputs(d, path, cut, cfg, [], "cut", full + [p[1] for p in probes if p[1] not in full])
    for t in man["tensors"]:
        if t["name"] not in full:
            continue
        a = np.load(f"{dump}/{t['files'][0]}")
        assert list(a.shape) == t["shape"], (t, a.shape)
        # the dump writes values (bf16 widened); the cut run wrote raw bits: compare through the same widening
        if t["dtype"] in ("bfloat16",):
            bits = np.load(_save(d, got[(t["name"], 0)])).astype(np.uint32) << 16
            assert np.array_equal(a.view(np.uint32), bits.reshape(a.shape)), t["name"]
        else:
            r = np.load(_save(d, got[(t["name"], 0)]))
            assert a.tobytes() == r.tobytes(), (t["name"], a, r)
    for probe, name, check in probes:
        check(man, dump, np.load(_save(d, got[(name, 0)])))


def _save(d, data):
    p = f"{d}/tmp_load.npy"
    with open(p, "wb") as f:
        f.write(data)
    return p


def check_program(name, prog, points, cfg=(), probes=()):
    with tempfile.TemporaryDirectory() as d:
        path = f"{d}/{name}.json"
        write_json(path, prog)
        base, _ = outputs(d, path, prog, list(cfg), [], "base")
        for index, core in points:
            dump = f"{d}/dump_{index}_{core}"
            got, r = outputs(d, path, prog, list(cfg), ["--dump-at", f"{index}@{core}={dump}"], "dumping")
            assert got == base, f"{name}: a --dump-at {index}@{core} run changed the outputs"
            assert f"wrote {dump}" in r.stderr, r.stderr
            man = json.load(open(f"{dump}/manifest.json"))
            assert man["reason"] == "dump-at" and man["cores"][core]["index"] == index, man["cores"]
            restored, _ = outputs(d, path, prog, list(cfg), ["--restore", dump], "restored")
            for k in base:
                assert restored[k] == base[k], f"{name}: restored from {index}@{core}: tensor {k[0]} core {k[1]} differs"
            if cores_of(prog) == 1:
                check_intermediates(d, prog, list(cfg), index, dump, probes)


def every_index(prog, core=0):
    return [(i, core) for i in range(len(prog["instructions"]))]


# ---- families ----

def t(name, shape, dtype="float32", mem="sbuf", **kw):
    return dict(name=name, memory=mem, dtype=dtype, shape=shape, **kw)


def bn_case():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 8)).astype(np.float32)
    prog = {"tensors": [t("x", [4, 8], data=[float(v) for v in x.flat]), t("st", [4, 6]), t("mv", [4, 2]),
                        t("st2", [1, 6]), t("mv2", [1, 2])],
            "instructions": [{"opcode": "BNStats", "inputs": ["x"], "outputs": ["st"]},
                             {"opcode": "BNStatsAggregate", "inputs": ["st"], "outputs": ["mv"]},
                             {"opcode": "BNStats", "inputs": [{"tensor": "x", "partition": 2, "partitions": 1,
                                                               "ap": [[1, 7]]}], "outputs": ["st2"]},
                             {"opcode": "BNStatsAggregate", "inputs": ["st2"], "outputs": ["mv2"]}]}
    check_program("bn", prog, every_index(prog))


def rng_case():
    """PCG32 (gen-1 state), XORWOW lanes seeded by MT19937-64 (gen-2), LFSR;
    the dump's gen1 / gen2 arrays must equal GetRandState / GetRandState2 of
    the program cut at the dump point."""
    st = np.arange(1, 4 * 6 + 1, dtype=np.uint32) * np.uint32(2654435761)
    prog = {"tensors": [t("st", [4, 6], "uint32", data=[int(v) for v in st]), t("pcg", [4, 9], "uint32"),
                        t("lfsr", [4, 5], "uint32"), t("f1", [4, 7]), t("f2", [4, 3]),
                        t("g1", [4, 6], "uint32"), t("g2", [4, 24], "uint32"),
                        t("probe1", [4, 6], "uint32"), t("probe2", [4, 24], "uint32")],
            "instructions": [{"opcode": "SetRandState", "inputs": ["st"]},
                             {"opcode": "Rand", "algorithm": "PCG32", "outputs": ["pcg"]},
                             {"opcode": "SetRandState2", "seed": 42},
                             {"opcode": "Rand2", "outputs": ["f1"]},
                             {"opcode": "Rand", "algorithm": "LFSR", "outputs": ["lfsr"]},
                             {"opcode": "Rand2", "min": -2, "max": 3, "outputs": ["f2"]},
                             {"opcode": "GetRandState", "outputs": ["g1"]},
                             {"opcode": "GetRandState2", "outputs": ["g2"]}]}

    def gen1(man, dump, probe):
        assert probe.shape == (4, 6)
        g = np.load(f"{dump}/modules/rng/gen1.npy")
        assert g.dtype == np.uint32 and g.shape == (1, 128, 6), g.shape
        assert np.array_equal(g[0, :4], probe), (g[0, :4], probe)

    def gen2(man, dump, probe):
        g = np.load(f"{dump}/modules/rng/gen2.npy")
        assert g.shape == (1, 128, 24), g.shape
        assert np.array_equal(g[0, :4], probe), (g[0, :4], probe)

    probes = [({"opcode": "GetRandState", "outputs": ["probe1"]}, "probe1", gen1),
              ({"opcode": "GetRandState2", "outputs": ["probe2"]}, "probe2", gen2)]
    check_program("rng", prog, every_index(prog), probes=probes)


def search_case():
    rng = np.random.default_rng(7)
    data = rng.integers(-20, 20, size=(8, 64)).astype(np.float32)  # many duplicates
    prog = {"tensors": [t("data", [8, 64], data=[float(v) for v in data.flat]), t("mx", [8, 8]),
                        t("idx", [8, 8], "uint32"), t("rep", [8, 64]), t("mx2", [8, 8]),
                        t("rep2", [8, 64]), t("idx2", [8, 8], "int32")],
            "instructions": [{"opcode": "Max", "inputs": ["data"], "outputs": ["mx"]},
                             {"opcode": "MaxIndex", "inputs": ["mx", "data"], "outputs": ["idx"]},
                             {"opcode": "MatchReplace", "inputs": ["mx", "data"], "outputs": ["rep"],
                              "imm_value": "-inf"},
                             {"opcode": "Max", "inputs": ["rep"], "outputs": ["mx2"]},
                             {"opcode": "MaxIndexAndMatchReplace", "inputs": ["mx2", "rep"],
                              "outputs": ["rep2", "idx2"], "imm_value": -1e30}]}
    check_program("search", prog, every_index(prog))


def dma_program():
    desc = json.load(open(f"{repo}/tests/dma/programs/descriptors.json"))
    a = [1.5, -2.0, 3.25, 4.0, -0.5, 6.0]
    tensors = [dict(x) for x in desc["tensors"]]
    for x in tensors:
        if x["name"] in ("a", "b"):
            x["data"] = a if x["name"] == "a" else [v * 2 for v in a]
    tensors += [t("off", [1], "int32", data=[3]), t("h", [16], mem="hbm", data=[float(i) for i in range(16)]),
                t("y", [1, 4]), t("saved", [1], "int64", mem="hbm")]
    insts = desc["instructions"] + [
        {"opcode": "TensorLoad", "register": 5, "inputs": ["off"]},
        {"opcode": "DMACopy", "inputs": [{"tensor": "h", "offset_register": 5, "ap": [[2, 4]]}], "outputs": ["y"]},
        {"opcode": "TensorSave", "register": 5, "outputs": ["saved"]}]
    return {"tensors": tensors, "instructions": insts}


def dma_case():
    """Descriptors, a trigger that fires three times (its counter is module
    state), a register loaded and used as a dynamic offset."""
    prog = dma_program()

    def triggers(man, dump, probe):
        rows = np.load(f"{dump}/modules/dma/triggers.npy")
        fired = sum(1 for i in prog["instructions"][:man["cores"][0]["index"]] if i["opcode"] == "DMATrigger")
        want = np.zeros((0, 4), np.int64) if fired == 0 else np.array([[0, 7, fired, 2]], np.int64)
        assert np.array_equal(rows, want), (rows, want)
        regs = np.load(f"{dump}/registers.npy")
        assert regs.shape == (1, 64) and regs[0, 5] == (3 if man["cores"][0]["index"] > 4 else 0), regs[0, :8]

    probes = [({"opcode": "DMACopy", "inputs": ["one"], "outputs": ["one"]}, "one", triggers)]
    check_program("dma", prog, every_index(prog), probes=probes)
    dump_on_error_case()


def dump_on_error_case():
    """A block whose second descriptor fails after the first wrote: the dump
    holds the state before the block ran (its first write not applied), the
    error is still one line, and a restore from the dump fails the same way."""
    prog = {"tensors": [t("a", [1, 4], data=[1, 2, 3, 4]), t("b", [1, 4]), t("cp", [4], mem="hbm"),
                        t("u", [1, 4]), t("b2", [1, 4])],
            "instructions": [{"opcode": "DMACopy", "inputs": ["a"], "outputs": ["b"]},
                             {"opcode": "DMABlock", "descriptors": [
                                 {"opcode": "DMADescriptorCopy", "inputs": ["a"], "outputs": ["cp"]},
                                 {"opcode": "DMADescriptorCopy", "inputs": ["u"], "outputs": ["b2"]}]}]}
    with tempfile.TemporaryDirectory() as d:
        path, dump, out = f"{d}/fail.json", f"{d}/err", f"{d}/b.npy"
        write_json(path, prog)
        plain = run(["run", path], rc=1).stderr.strip()
        r = run(["run", path, "--dump-on-error", dump, "--output", f"b={out}"], rc=1)
        one_line_error(r, plain[len("trnsim: "):], f"[--dump-on-error: the state before this instruction ran is in "
                                                  f"{dump}]")
        assert not os.path.exists(out), "a failed run left an output"
        man = json.load(open(f"{dump}/manifest.json"))
        assert man["reason"] == "dump-on-error" and man["cores"][0]["index"] == 1, man["cores"]
        assert man["error"] == plain[len("trnsim: "):], man["error"]
        tens = {x["name"]: x for x in man["tensors"]}
        assert tens["b"]["fully_written"] == [True] and tens["cp"]["fully_written"] == [False], tens
        assert np.array_equal(np.load(f"{dump}/tensors/core0/b.npy"), np.array([[1, 2, 3, 4]], np.float32))
        assert np.array_equal(np.load(f"{dump}/tensors/core0/cp.npy"), np.zeros(4, np.float32))
        again = run(["run", path, "--restore", dump], rc=1).stderr.strip()
        assert again == plain, (again, plain)
        # the stop of --max-instructions: nothing half done, the state at the stop
        dump2 = f"{d}/stop"
        r = run(["run", path, "--max-instructions", "1", "--dump-on-error", dump2], rc=1)
        one_line_error(r, "--max-instructions 1", f"the state before the stop is in {dump2}")
        assert json.load(open(f"{dump2}/manifest.json"))["cores"][0]["index"] == 1


def collective_case():
    """Four cores, a program of several collectives: dumps while some cores
    wait at a rendezvous with their records posted, restored on every core."""
    x = [[float(c * 10 + i) + 0.125 for i in range(4)] for c in range(4)]
    prog = {"cores": 4,
            "tensors": [t("x", [1, 4], data_per_core=x), t("y", [1, 4]), t("w", [1, 4], fill=-1.0), t("z", [1, 4]),
                        t("v", [1, 4], fill=0.0)],
            "instructions": [{"opcode": "CollectiveCompute", "kind": "AllReduce", "reduce_op": "add",
                              "inputs": ["x"], "outputs": ["y"]},
                             {"opcode": "CollectiveSend", "inputs": ["y"], "peer_id": [1, -1, 3, -1]},
                             {"opcode": "CollectiveRecv", "outputs": ["w"], "peer_id": [-1, 0, -1, 2]},
                             {"opcode": "CollectiveCompute", "kind": "AllReduce", "reduce_op": "max",
                              "inputs": ["w"], "outputs": ["z"], "replica_groups": [[0, 1], [2, 3]]},
                             {"opcode": "CollectiveSend", "inputs": ["x"], "peer_id": [-1, 2, -1, 0]},
                             {"opcode": "CollectiveRecv", "outputs": ["v"], "peer_id": [3, -1, 1, -1]}]}
    points = [(0, 0), (0, 3), (1, 0), (1, 2), (2, 1), (3, 3), (3, 0), (4, 1), (5, 0), (5, 2)]
    check_program("collective", prog, points)
    with tempfile.TemporaryDirectory() as d:
        path, dump = f"{d}/c.json", f"{d}/mid"
        write_json(path, prog)
        run(["run", path, "--dump-at", f"0@3={dump}"])
        man = json.load(open(f"{dump}/manifest.json"))
        assert [c["waiting"] for c in man["cores"]] == [True, True, True, False], man["cores"]
        recs = np.load(f"{dump}/modules/collective/records.npy")
        assert recs.shape == (3, 73) and list(recs[:, 3]) == [0, 1, 2] and not recs[:, 7].any(), recs[:, :8]
        waits = np.load(f"{dump}/modules/collective/waits.npy")
        assert list(waits[:, 0]) == [1, 1, 1, 0], waits
        for c in range(4):
            assert np.array_equal(np.load(f"{dump}/tensors/core{c}/x.npy"), np.array([x[c]], np.float32))


def experimental_case():
    cfg = ["--config", f"{repo}/config/experimental.cfg", "--set", "experimental.rng_seed=\"7\""]
    prog = {"tensors": [t("r1", [4, 5], "uint32"), t("r2", [4, 3], "uint16"), t("r3", [4, 2], "uint32")],
            "instructions": [{"opcode": "Rng", "outputs": ["r1"]}, {"opcode": "Rng", "outputs": ["r2"]},
                             {"opcode": "Rng", "outputs": ["r3"]}]}

    def lanes(man, dump, probe):
        g = np.load(f"{dump}/modules/experimental/lanes.npy")
        assert g.dtype == np.uint32 and g.shape == (1, 128, 24), g.shape

    check_program("experimental", prog, every_index(prog), cfg,
                  probes=[({"opcode": "Rng", "outputs": ["r3"]}, "r3", lanes)])


# ---- option errors (the test module: every build has it) ----

def host_case():
    progs = f"{repo}/tests/host/programs"
    cfg = ["--config", f"{progs}/test.cfg"]
    copy = f"{progs}/copy.json"

    def bad_dirs():
        with tempfile.TemporaryDirectory() as d:
            f = f"{d}/afile"
            open(f, "w").close()
            full = f"{d}/full"
            os.mkdir(full)
            open(f"{full}/x", "w").close()
            out = f"{d}/y.npy"
            for opt in (["--dump-at", f"0={f}"], ["--dump-on-error", f]):
                r = run(["run", copy, *cfg, *opt, "--output", f"y={out}"], rc=1)
                one_line_error(r, f, "exists and is a regular file", "name a new directory")
            r = run(["run", copy, *cfg, "--dump-at", f"0={full}", "--output", f"y={out}"], rc=1)
            one_line_error(r, full, "exists and is not empty")
            r = run(["run", copy, *cfg, "--dump-at", f"0={f}/sub", "--output", f"y={out}"], rc=1)
            one_line_error(r, "cannot create a directory in", "Not a directory")
            ro = f"{d}/ro"
            os.mkdir(ro)
            os.chmod(ro, 0o500)
            if os.access(ro, os.W_OK):  # root: an immutable directory instead
                subprocess.run(["chattr", "+i", ro], check=True)
            try:
                r = run(["run", copy, *cfg, "--dump-at", f"0={ro}/dump", "--output", f"y={out}"], rc=1)
                one_line_error(r, f"--dump-at 0@0={ro}/dump", "cannot create a directory in",
                               "name a directory in a writable place")
            finally:
                subprocess.run(["chattr", "-i", ro], stderr=subprocess.DEVNULL)
                os.chmod(ro, 0o700)
            assert sorted(os.listdir(d)) == ["afile", "full", "ro"], os.listdir(d)
            assert os.listdir(full) == ["x"] and os.listdir(ro) == []
            r = run(["run", copy, *cfg, "--dump-at", "5=a"], rc=1)
            one_line_error(r, "--dump-at 5@0=a", "core 0 executes 1 instruction (indices 0 .. 0)")
            r = run(["run", copy, *cfg, "--dump-at", "x0=a"], rc=1)
            one_line_error(r, "--dump-at 'x0=a'", "expected INDEX=DIR or INDEX@CORE=DIR")
            r = run(["run", copy, *cfg, "--dump-at", f"0@2={d}/n"], rc=1)
            one_line_error(r, "the run has 1 core (0 .. 0)")
            assert not os.path.exists(f"{d}/n") and not os.path.exists("a")
            for cmd in ("check", "convert"):
                r = run([cmd, copy, *cfg, "--dump-at", f"0={d}/n"], rc=1)
                one_line_error(r, f"{cmd}: --dump-at belongs to run")
            assert not os.path.exists(f"{d}/n")

    def mismatch():
        with tempfile.TemporaryDirectory() as d:
            dump = f"{d}/d"
            run(["run", copy, *cfg, "--dump-at", f"0={dump}"])
            r = run(["run", copy, *cfg, "--set", "test.scale=2", "--restore", dump], rc=1)
            one_line_error(r, f"--restore {dump}: the dump was made with config", "--set test.scale=2",
                           "run with the --config and --set options the dump was made with")
            r = run(["run", f"{progs}/io.json", *cfg, "--restore", dump], rc=1)
            one_line_error(r, "the dump is of program", "copy.json", "io.json",
                           "restore with the program the dump was made from")
            r = run(["run", copy, *cfg, "--restore", f"{d}/none"], rc=1)
            one_line_error(r, "cannot read", "manifest.json", "name a directory written by --dump-at")
            r = run(["run", copy, *cfg, "--restore", dump, "--input", f"x={progs}/io_x.npy"], rc=1)
            one_line_error(r, "a restored run takes no --input")

    def npy_values():
        with tempfile.TemporaryDirectory() as d:
            dump = f"{d}/d"
            run(["run", copy, *cfg, "--dump-at", f"0={dump}"])
            prog = json.load(open(copy))
            x = np.load(f"{dump}/tensors/core0/x.npy")
            assert x.dtype == np.float32 and x.shape == (2, 4)
            assert np.array_equal(x, np.array(prog["tensors"][0]["data"], np.float32).reshape(2, 4))
            man = json.load(open(f"{dump}/manifest.json"))
            assert man["program"]["path"] == copy and len(man["program"]["digest"]) == 16
            assert man["config"]["file"] == f"{progs}/test.cfg" and "trnsim-test" in man["config"]["text"]
            assert man["trnsim_version"] and man["cores"][0] == {"core": 0, "index": 0, "entry": 0, "waiting": False,
                                                                "done": False, "trips": [], "next_instruction": 0,
                                                                "next_opcode": "TestCopy"}, man["cores"]
            mem = {m["memory"]: m for m in man["memories"]}
            w = np.load(f"{dump}/{mem['sbuf']['written']}")
            b = np.load(f"{dump}/{mem['sbuf']['bytes']}")
            # x: 4 float32 at the start of partitions 0 and 1
            pb = mem["sbuf"]["partition_bytes"]
            assert w.dtype == np.int64 and w.tolist() == [[0, 16], [pb, 16]] and b.dtype == np.uint8, w
            assert b.tobytes() == x.tobytes()
            assert np.load(f"{dump}/registers.npy").shape == (1, 64)

    def longest_name():
        """A dump folder whose name has 250 bytes (NAME_MAX is 255) is written and
        restored (before: its private name, .NAME.trnsim-XXXXXX, was past NAME_MAX,
        and the run was refused: 'cannot create a directory in ... File name too long')."""
        with tempfile.TemporaryDirectory() as d:
            dump = os.path.join(d, "d" * 250)
            run(["run", copy, *cfg, "--dump-at", f"0={dump}"])
            assert os.listdir(d) == ["d" * 250] and os.path.exists(f"{dump}/manifest.json"), os.listdir(d)
            y = f"{d}/y.npy"
            run(["run", copy, *cfg, "--restore", dump, "--output", f"y={y}"])
            assert np.load(y).shape == (2, 4)

    case("bad directories: one line, nothing left", bad_dirs)
    case("a 250-byte dump folder name", longest_name)
    case("restore refuses another program or config", mismatch)
    case("numpy reads the dump", npy_values)


cases = {"bn": bn_case, "rng": rng_case, "search": search_case, "dma": dma_case, "collective": collective_case,
         "experimental": experimental_case}
if family == "host":
    host_case()
else:
    case(f"{family}: dump at every point, restore, same bytes", cases[family])
sys.exit(finish())
