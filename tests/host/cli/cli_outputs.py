#!/usr/bin/python3
"""--output handling under hostile conditions: targets that are not regular
files, planted symlinks at temporary names, a commit that fails half-way,
signals while temporaries exist, and outputs checked before the run.
Usage: cli_outputs.py TRNSIM PROGRAMS_DIR (needs root for chattr +i)."""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

trnsim, progs = sys.argv[1], sys.argv[2]
cfg = f"{progs}/test.cfg"
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from clicase import Cli, case, finish, one_line_error  # noqa: E402

run = Cli(trnsim, timeout=120).run


def read(path):
    with open(path, "rb") as f:
        return f.read()


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def not_regular_targets():
    """A FIFO, and a symlink to a character device, are refused before the
    run and stay what they were; nothing is left next to them."""
    with tempfile.TemporaryDirectory() as d:
        fifo, dev = os.path.join(d, "fifo.npy"), os.path.join(d, "null.npy")
        os.mkfifo(fifo)
        os.symlink("/dev/null", dev)
        r = run("run", f"{progs}/copy.json", "--config", cfg, "--output", f"y={fifo}", rc=1)
        one_line_error(r, f"--output y: {fifo} is a FIFO; only a regular file or a new path can be an output")
        r = run("run", f"{progs}/copy.json", "--config", cfg, "--output", f"y={dev}", rc=1)
        one_line_error(r, f"--output y: {dev} is a character device")
        assert sorted(os.listdir(d)) == ["fifo.npy", "null.npy"], os.listdir(d)
        assert os.path.islink(dev) and os.readlink(dev) == "/dev/null"
        import stat
        assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def replaced_keeps_mode():
    """An existing regular file is replaced by the output and keeps its mode;
    no temporary is left."""
    with tempfile.TemporaryDirectory() as d:
        y = os.path.join(d, "y.npy")
        write(y, b"OLD")
        os.chmod(y, 0o640)
        run("run", f"{progs}/copy.json", "--config", cfg, "--output", f"y={y}")
        assert read(y).startswith(b"\x93NUMPY"), read(y)[:16]
        assert os.stat(y).st_mode & 0o777 == 0o640, oct(os.stat(y).st_mode)
        assert os.listdir(d) == ["y.npy"], os.listdir(d)


def planted_symlink_not_followed():
    """The temporary is created exclusively under an unpredictable name: a
    symlink planted at the old predictable name (FILE.tmp-trnsim-PID) while
    the run waits for its input is not followed."""
    with tempfile.TemporaryDirectory() as d:
        victim, y, fifo = os.path.join(d, "victim"), os.path.join(d, "y.npy"), os.path.join(d, "x.fifo")
        write(victim, b"precious")
        os.mkfifo(fifo)
        p = subprocess.Popen([trnsim, "run", f"{progs}/io.json", "--config", cfg, "--input", f"x={fifo}",
                              "--output", f"y={y}"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        os.symlink(victim, f"{y}.tmp-trnsim-{p.pid}")
        write(fifo, read(f"{progs}/io_x.npy"))  # blocks until trnsim opens it
        out, err = p.communicate(timeout=60)
        assert p.returncode == 0, err
        assert read(victim) == b"precious", read(victim)
        assert read(y).startswith(b"\x93NUMPY")
        assert sorted(os.listdir(d)) == sorted(["victim", "y.npy", "x.fifo", f"y.npy.tmp-trnsim-{p.pid}"]), os.listdir(d)


def all_or_nothing():
    """Two outputs over existing files; the second cannot be replaced
    (immutable). The first keeps its old contents and nothing else is left."""
    with tempfile.TemporaryDirectory() as d:
        a, b = os.path.join(d, "a.npy"), os.path.join(d, "b.npy")
        write(a, b"OLD-A")
        write(b, b"OLD-B")
        if subprocess.run(["chattr", "+i", b]).returncode != 0:
            raise AssertionError("chattr +i failed: this test needs root on a file system with attributes")
        try:
            r = run("run", f"{progs}/copy.json", "--config", cfg, "--output", f"y={a}", "--output", f"x={b}", rc=1)
            one_line_error(r, f"--output x: cannot put the output in place at {b}: Operation not permitted",
                           "no output file was changed")
            assert read(a) == b"OLD-A", read(a)
            assert read(b) == b"OLD-B", read(b)
            assert sorted(os.listdir(d)) == ["a.npy", "b.npy"], os.listdir(d)
        finally:
            subprocess.run(["chattr", "-i", b])
        # and a new path next to it: removed again, the old file kept
        c = os.path.join(d, "c.npy")
        subprocess.run(["chattr", "+i", b], check=True)
        try:
            r = run("run", f"{progs}/copy.json", "--config", cfg, "--output", f"y={c}", "--output", f"x={b}", rc=1)
            one_line_error(r, f"--output x: cannot put the output in place at {b}")
            assert sorted(os.listdir(d)) == ["a.npy", "b.npy"], os.listdir(d)
        finally:
            subprocess.run(["chattr", "-i", b])


def big_program(d):
    """One 64 Mi-element float32 HBM tensor (256 MiB): its output takes a
    while to write."""
    p = os.path.join(d, "big.json")
    with open(p, "w") as f:
        json.dump({"tensors": [{"name": "big", "memory": "hbm", "dtype": "float32", "shape": [1 << 26], "fill": 1.5},
                               {"name": "x", "memory": "sbuf", "dtype": "float32", "shape": [1, 4], "fill": 1.0},
                               {"name": "y", "memory": "sbuf", "dtype": "float32", "shape": [1, 4]}],
                   "instructions": [{"opcode": "TestCopy", "inputs": ["x"], "outputs": ["y"]}]}, f)
    return p


def writing_into(pid, folder):
    """True once the process holds a file open in folder (its temporary)."""
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}").startswith(folder + "/"):
                    return True
            except OSError:
                pass
    except OSError:
        pass
    return False


def signal_removes_temporaries():
    """SIGTERM while the output's temporary is being written: the temporary
    (unnamed: O_TMPFILE) is gone, the old file is untouched, the exit status
    is 128+15."""
    with tempfile.TemporaryDirectory() as d:
        prog = big_program(d)
        out = os.path.join(d, "out")
        os.mkdir(out)
        y = os.path.join(out, "big.npy")
        write(y, b"OLD")
        p = subprocess.Popen([trnsim, "run", prog, "--config", cfg, "--output", f"big={y}"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 120
        seen = False
        while time.time() < deadline and p.poll() is None and not seen:
            seen = writing_into(p.pid, out)
        if seen:
            p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=120)
        assert seen, f"never saw the temporary (exit {p.returncode}): {err}"
        assert p.returncode == 128 + signal.SIGTERM, (p.returncode, err)
        assert err.strip() == "trnsim: interrupted; temporary output files removed", err
        assert os.listdir(out) == ["big.npy"], os.listdir(out)
        assert read(y) == b"OLD"


def signal_during_run():
    """SIGINT while the run waits for an input: exit 130, nothing written."""
    with tempfile.TemporaryDirectory() as d:
        fifo, y = os.path.join(d, "x.fifo"), os.path.join(d, "y.npy")
        os.mkfifo(fifo)
        p = subprocess.Popen([trnsim, "run", f"{progs}/io.json", "--config", cfg, "--input", f"x={fifo}",
                              "--output", f"y={y}"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(0.5)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=60)
        assert p.returncode == 130, (p.returncode, err)
        assert os.listdir(d) == ["x.fifo"], os.listdir(d)


def outputs_checked_first():
    """A misspelled --output or a core out of range is reported before the
    run (the program would fail later) and names --output."""
    with tempfile.TemporaryDirectory() as d:
        y = os.path.join(d, "y.npy")
        r = run("run", f"{progs}/fail_late.json", "--config", cfg, "--output", f"yy={y}", rc=1)
        one_line_error(r, "--output yy: ", "no tensor named 'yy'")
        r = run("run", f"{progs}/fail_late.json", "--config", cfg, "--output", f"y@3={y}", rc=1)
        one_line_error(r, "--output y@3: the run has 1 core (0 .. 0)")
        assert os.listdir(d) == [], os.listdir(d)


PARTIAL = {"cores": 2,
           "tensors": [{"name": "x", "memory": "sbuf", "dtype": "float32", "shape": [2, 4],
                        "data": [1, 2, 3, 4, 5, 6, 7, 8]},
                       {"name": "y", "memory": "sbuf", "dtype": "float32", "shape": [3, 4]},
                       {"name": "z", "memory": "sbuf", "dtype": "float32", "shape": [2, 4]},
                       {"name": "h", "memory": "hbm", "dtype": "float32", "shape": [6]}],
           "instructions": [{"opcode": "TestCopy", "inputs": ["x"], "outputs": ["z"]},
                            {"opcode": "TestCopy", "inputs": ["x"],
                             "outputs": [{"tensor": "y", "partition": 0, "partitions": 2, "partition_step": 2}]}]}
FIX = "write it in the program or give it data (--input {0}=FILE.npy, 'data' or 'fill'), " \
      "or pass --output-unwritten=zeros to write zeros for never-written bytes"


def partial_program(d):
    path = os.path.join(d, "partial.json")
    with open(path, "w") as f:
        json.dump(PARTIAL, f)
    return path


def unwritten_output_refused(d):
    """An --output with bytes nothing wrote is one error after the run,
    naming the output, the tensor, the core, the first never-written
    element (index, coordinates, address) and the fix; exit 1; no output
    is written (the other, complete one neither), an old file at the
    target stays (before: zeros were written, exit 0)."""
    prog = partial_program(d)
    y, z, h = (os.path.join(d, n) for n in ("y.npy", "z.npy", "h.npy"))
    write(y, b"OLD")
    r = run("run", prog, "--config", cfg, "--output", f"z={z}", "--output", f"y={y}", rc=1)
    one_line_error(r, f"trnsim: --output y={y}: tensor 'y' on core 0: element 4 [1, 0] (sbuf partition 1, "
                      "byte offset 64) was never written, so it holds no value; " + FIX.format("y"))
    # core 0 given whole by --input, core 1 only partly written: core 1 is named
    import numpy as np
    xin = os.path.join(d, "y0.npy")
    np.save(xin, np.ones((3, 4), np.float32))
    r = run("run", prog, "--config", cfg, "--input", f"y@0={xin}", "--output", f"y={y}", rc=1)
    one_line_error(r, f"--output y={y}: tensor 'y' on core 1: element 4 [1, 0] ")
    r = run("run", prog, "--config", cfg, "--output", f"h@1={h}", rc=1)
    one_line_error(r, f"trnsim: --output h@1={h}: tensor 'h' on core 1: element 0 [0] (hbm byte ",
                   ") was never written, so it holds no value; " + FIX.format("h"))
    assert read(y) == b"OLD"
    assert sorted(os.listdir(d)) == ["partial.json", "y.npy", "y0.npy"], os.listdir(d)


def unwritten_output_zeros(d):
    """--output-unwritten=zeros writes the never-written bytes as zeros and
    the written ones as the program wrote them; a bad mode is refused."""
    import numpy as np
    prog = partial_program(d)
    y, h = os.path.join(d, "y.npy"), os.path.join(d, "h.npy")
    run("run", prog, "--config", cfg, "--output", f"y={y}", "--output", f"h@1={h}", "--output-unwritten=zeros")
    x = np.arange(1, 9, dtype=np.float32).reshape(2, 4)
    want = np.stack([np.stack([x[0], np.zeros(4, np.float32), x[1]])] * 2)
    got = np.load(y)
    assert got.dtype == np.float32 and got.tobytes() == want.tobytes(), got
    assert np.load(h).tobytes() == np.zeros(6, np.float32).tobytes(), np.load(h)
    run("run", prog, "--config", cfg, "--output", f"y@1={y}", "--output-unwritten", "zeros")
    assert np.load(y).tobytes() == want[1].tobytes()
    os.unlink(y)
    r = run("run", prog, "--config", cfg, "--output", f"y={y}", "--output-unwritten=nan", rc=1)
    one_line_error(r, "--output-unwritten nan: expected 'error' (the default: an --output with never-written "
                      "bytes fails) or 'zeros' (write zeros for them)")
    assert not os.path.exists(y)


CASES = [("FIFO / device targets refused", not_regular_targets), ("replace keeps mode", replaced_keeps_mode),
         ("planted symlink not followed", planted_symlink_not_followed), ("all or nothing", all_or_nothing),
         ("SIGTERM removes temporaries", signal_removes_temporaries), ("SIGINT during the run", signal_during_run),
         ("outputs checked before the run", outputs_checked_first),
         ("unwritten output refused", unwritten_output_refused),
         ("--output-unwritten=zeros", unwritten_output_zeros)]
for name, fn in CASES:
    case(name, fn)
sys.exit(finish())
