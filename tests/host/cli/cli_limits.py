#!/usr/bin/python3
"""Bounded cost for any input, through the real CLI: lying .npy headers,
endless input streams, memory and execution budgets. Every refusal is one
line that names what was refused and the limit, and leaves no output file.
Usage: cli_limits.py TRNSIM PROGRAMS_DIR"""
import json
import os
import subprocess
import sys
import tempfile
import threading

trnsim, progs = sys.argv[1], sys.argv[2]
cfg = f"{progs}/test.cfg"
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from clicase import Cli, case, finish, one_line_error  # noqa: E402

run = Cli(trnsim, timeout=60).run


def npy_header(dict_text):
    h = dict_text.encode()
    while (10 + len(h) + 1) % 64:
        h += b" "
    h += b"\n"
    return b"\x93NUMPY\x01\x00" + len(h).to_bytes(2, "little") + h


def sparse_input_refused_at_once():
    """A sparse file claiming 2^31 float32 is refused from its header (the
    data would be 8 GiB); the run takes no time and writes nothing."""
    with tempfile.TemporaryDirectory() as d:
        p, y = os.path.join(d, "sparse.npy"), os.path.join(d, "y.npy")
        head = npy_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2147483648,), }")
        with open(p, "wb") as f:
            f.write(head)
        os.truncate(p, len(head) + (8 << 30))
        r = run("run", f"{progs}/io.json", "--config", cfg, "--input", f"x={p}", "--output", f"y={y}", rc=1,
                timeout=10)
        one_line_error(r, f"--input x: {p}: shape (2147483648,) does not match the tensor's shape (2, 3)")
        assert os.listdir(d) == ["sparse.npy"], os.listdir(d)


def endless_input_stream():
    """A valid array followed by bytes that never end, from a pipe: the run
    ends with one line instead of reading for ever."""
    with tempfile.TemporaryDirectory() as d:
        fifo, y = os.path.join(d, "x.fifo"), os.path.join(d, "y.npy")
        os.mkfifo(fifo)
        with open(f"{progs}/io_x.npy", "rb") as f:
            good = f.read()

        def feed():
            try:
                with open(fifo, "wb") as w:
                    w.write(good)
                    while True:
                        w.write(b"\0" * 65536)
            except (BrokenPipeError, OSError):
                pass

        t = threading.Thread(target=feed, daemon=True)
        t.start()
        r = run("run", f"{progs}/io.json", "--config", cfg, "--input", f"x={fifo}", "--output", f"y={y}", rc=1,
                timeout=20)
        one_line_error(r, f"--input x: {fifo}: extra bytes after the data: expected 24 bytes for <f4 (2, 3), found more")
        t.join(5)
        assert os.listdir(d) == ["x.fifo"], os.listdir(d)


def write_json(d, name, obj):
    p = os.path.join(d, name)
    with open(p, "w") as f:
        json.dump(obj, f)
    return p


def write_cfg(d, machine):
    p = os.path.join(d, "m.cfg")
    with open(p, "w") as f:
        f.write("machine = { %s };\n" % " ".join(f"{k} = {v};" for k, v in machine.items()))
        f.write('plugins = ( { family = "test"; module = "trnsim-test"; } );\n')
    return p


COPY = {"opcode": "TestCopy", "inputs": ["x"], "outputs": ["y"]}
XY = [{"name": "x", "memory": "sbuf", "dtype": "float32", "shape": [1, 4], "fill": 1.0},
      {"name": "y", "memory": "sbuf", "dtype": "float32", "shape": [1, 4]}]


def machine_budget_default():
    """1024 cores and one filled 256 MiB HBM tensor ask for about 300 GiB:
    refused at once against the default budget (half of physical memory)."""
    with tempfile.TemporaryDirectory() as d:
        prog = write_json(d, "p.json", {"cores": 1024, "tensors": [
            {"name": "big", "memory": "hbm", "dtype": "float32", "shape": [1 << 26], "fill": 1.0}] + XY,
            "instructions": [COPY]})
        y = os.path.join(d, "y.npy")
        r = run("run", prog, "--config", cfg, "--output", f"y={y}", rc=1, timeout=20)
        one_line_error(r, f"{prog}: the run needs ", "1024 cores x 317.", "over machine.max_bytes = ",
                       "(the default: half of physical memory)")
        assert sorted(os.listdir(d)) == ["p.json"], os.listdir(d)


def machine_budget_config():
    """machine.max_bytes from the config: the default machine (317 MiB a
    core) is refused under 100 MB and runs with smaller memories."""
    with tempfile.TemporaryDirectory() as d:
        prog = write_json(d, "p.json", {"tensors": XY, "instructions": [COPY]})
        c = write_cfg(d, {"max_bytes": 100000000})
        y = os.path.join(d, "y.npy")
        r = run("run", prog, "--config", c, "--output", f"y={y}", rc=1)
        one_line_error(r, "over machine.max_bytes = 100000000; use fewer cores or smaller memories")
        assert not os.path.exists(y)
        c = write_cfg(d, {"max_bytes": 100000000, "hbm_bytes": 1 << 20})
        run("run", prog, "--config", c, "--output", f"y={y}")
        assert os.path.exists(y)


def lazy_memory():
    """A 64 GiB HBM per core that the program never touches costs nothing:
    the run succeeds and its peak resident memory stays small."""
    import resource
    with tempfile.TemporaryDirectory() as d:
        prog = write_json(d, "p.json", {"tensors": XY, "instructions": [COPY]})
        c = write_cfg(d, {"hbm_bytes": "68719476736L", "max_bytes": "1099511627776L"})
        y = os.path.join(d, "y.npy")
        run("run", prog, "--config", c, "--output", f"y={y}")
        peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        assert peak_kib < 256 * 1024, f"peak RSS {peak_kib} KiB"


def instruction_budget():
    """One instruction whose input is a step-0 AP of 2^30 elements over one
    element: refused before anything is allocated, naming the operand, its
    element count and the budget."""
    with tempfile.TemporaryDirectory() as d:
        prog = write_json(d, "p.json", {"tensors": XY, "instructions": [
            {"opcode": "TestCopy", "inputs": [{"tensor": "x", "partitions": 1, "ap": [[0, 1 << 30]]}],
             "outputs": ["y"]}]})
        y = os.path.join(d, "y.npy")
        r = run("run", prog, "--config", cfg, "--output", f"y={y}", rc=1, timeout=20)
        one_line_error(r, f"{prog}: instruction 0 (opcode TestCopy/200): inputs[0]: 1073741824 elements need "
                          "4294967296 bytes of working memory, over the per-instruction budget of 1073741824 bytes "
                          "(machine.max_instruction_bytes)")
        c = write_cfg(d, {"max_instruction_bytes": 16})
        r = run("check", os.path.join(progs, "copy.json"), "--config", c, rc=1)
        one_line_error(r, "instruction 0 (opcode TestCopy/200): inputs[0]: 8 elements need 32 bytes of working "
                          "memory, over the per-instruction budget of 16 bytes")
        assert os.listdir(d) == ["p.json", "m.cfg"] or sorted(os.listdir(d)) == ["m.cfg", "p.json"], os.listdir(d)


def max_instructions():
    """--max-instructions N ends the run with one line before instruction N+1."""
    with tempfile.TemporaryDirectory() as d:
        prog = write_json(d, "p.json", {"tensors": XY, "instructions": [COPY] * 5})
        y = os.path.join(d, "y.npy")
        r = run("run", prog, "--config", cfg, "--max-instructions", "2", "--output", f"y={y}", rc=1)
        one_line_error(r, f"{prog}: stopped after 2 instructions (--max-instructions 2), before instruction 2 on "
                          "core 0 (TestCopy/200)")
        assert not os.path.exists(y)
        run("run", prog, "--config", cfg, "--max-instructions", "5", "--output", f"y={y}")
        r = run("run", prog, "--config", cfg, "--max-instructions", "0", rc=1)
        one_line_error(r, "--max-instructions '0': expected a positive whole number")


def timeout():
    """--timeout SECONDS ends a long run between two instructions."""
    with tempfile.TemporaryDirectory() as d:
        n = 1 << 24
        # no initial data: loading takes a few ms (--timeout covers loading too,
        # and filling 64 MiB took 1 s on a loaded machine), each copy far longer
        prog = write_json(d, "p.json", {"allow_uninit_read": True, "tensors": [
            {"name": "a", "memory": "hbm", "dtype": "float32", "shape": [n]},
            {"name": "b", "memory": "hbm", "dtype": "float32", "shape": [n]}],
            "instructions": [{"opcode": "TestCopy", "inputs": ["a"], "outputs": ["b"]}] * 8})
        b = os.path.join(d, "b.npy")
        r = run("run", prog, "--config", cfg, "--timeout", "0.05", "--output", f"b={b}", rc=1)
        one_line_error(r, f"{prog}: stopped after ", "(--timeout 0.05), before instruction ", "(TestCopy/200)")
        assert not os.path.exists(b)
        r = run("run", prog, "--config", cfg, "--timeout", "-1", rc=1)
        one_line_error(r, "--timeout '-1': expected a positive number of seconds")


def integers_named_as_written(d):
    """A native program's integer past its range, or past int64, is named as
    the file wrote it (never a clamped or rounded number): past int64 the
    JSON reader quotes the text, in range of int64 the field names it."""
    def one(text, *needles):
        path = os.path.join(d, "n.json")
        with open(path, "w") as f:
            f.write('{"cores": 1, "tensors": [{"name": "x", "memory": "sbuf", "dtype": "float32", '
                    '"shape": [1, 4], ' + text + '}], "instructions": []}')
        one_line_error(run("check", path, "--config", cfg, rc=1), *needles)
    one('"offset": 99999999999999999999', "too big integer near '99999999999999999999'")
    one('"offset": -9223372036854775808', "'offset' = -9223372036854775808 is outside [0, ")
    one('"partition": 18014398509481985', "18014398509481985")
    one('"shape": [1, 4], "partition": -99999999999999999999'.replace('"shape": [1, 4], ', ''),
        "too big negative integer near '-99999999999999999999'")


def big_integer_from_a_pipe(d):
    """A program read from a FIFO whose integer is past int64: one line from
    the JSON reader, at once (before: the reader's message looked for the
    number by opening the path again, which for a FIFO whose writer had
    finished waits for a new writer for ever)."""
    fifo = os.path.join(d, "p.fifo")
    os.mkfifo(fifo)
    text = ('{"cores": 1, "tensors": [{"name": "x", "memory": "sbuf", "dtype": "float32", '
            '"shape": [1, 4], "partition": -99999999999999999999}], "instructions": []}')

    def feed():
        try:
            with open(fifo, "w") as w:
                w.write(text)
        except OSError:
            pass

    t = threading.Thread(target=feed, daemon=True)
    t.start()
    r = run("check", fifo, "--config", cfg, rc=1, timeout=20)
    one_line_error(r, f"{fifo}:1:", "too big negative integer")
    t.join(5)
    assert os.listdir(d) == ["p.fifo"], os.listdir(d)


CASES = [("machine budget, default", machine_budget_default), ("machine budget, config", machine_budget_config),
         ("untouched memory is free", lazy_memory), ("instruction working-memory budget", instruction_budget),
         ("--max-instructions", max_instructions), ("--timeout", timeout),
         ("sparse .npy refused from its header", sparse_input_refused_at_once),
         ("endless input stream ends", endless_input_stream),
         ("integers named as written", integers_named_as_written),
         ("a too big integer from a FIFO", big_integer_from_a_pipe)]
for name, fn in CASES:
    case(name, fn)
sys.exit(finish())
