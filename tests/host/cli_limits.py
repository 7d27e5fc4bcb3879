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
failures = 0


def run(*args, rc=0, timeout=60):
    r = subprocess.run([trnsim, *args], capture_output=True, text=True, timeout=timeout)
    if r.returncode != rc:
        raise AssertionError(f"{args}: exit {r.returncode}, expected {rc}\n{r.stdout}\n{r.stderr}")
    return r


def one_line_error(r, *needles):
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("trnsim: "), r.stderr
    for n in needles:
        assert n in lines[0], f"{n!r} not in {lines[0]!r}"


def case(name, fn):
    global failures
    try:
        fn()
        print(f"ok: {name}")
    except (AssertionError, subprocess.TimeoutExpired) as e:
        failures += 1
        print(f"FAIL: {name}: {e}")


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


CASES = [("sparse .npy refused from its header", sparse_input_refused_at_once),
         ("endless input stream ends", endless_input_stream)]
for name, fn in CASES:
    case(name, fn)
print(f"{len(CASES) - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)
