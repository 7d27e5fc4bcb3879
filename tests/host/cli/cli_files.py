#!/usr/bin/python3
"""Every file a command writes passes one guard (host/common/outfile.c):
targets that are the run's own inputs, two targets naming one file, folders
that cannot take a file, convert -o onto devices and FIFOs, a full disk,
and what SIGKILL, SIGINT and SIGTERM leave behind. Each refusal is one
line, the run's files stay as they were and nothing is left beside them.
Usage: cli_files.py TRNSIM PROGRAMS_DIR (needs root to mount a tmpfs)."""
import contextlib
import json
import os
import shutil
import signal
import stat
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


def listing(d):
    return sorted(os.listdir(d))


@contextlib.contextmanager
def tmpfs(size, ro=False, inodes=None):
    """A small tmpfs of its own (a full disk, a read-only file system, one
    without free inodes)."""
    d = tempfile.mkdtemp()
    opts = f"size={size}" + (",ro" if ro else "") + (f",nr_inodes={inodes}" if inodes else "")
    subprocess.run(["mount", "-t", "tmpfs", "-o", opts, "tmpfs", d], check=True)
    try:
        yield d
    finally:
        subprocess.run(["umount", d], check=True)
        os.rmdir(d)


def inputs_never_targets(d):
    """A --trace or --timeline naming the program, an --input, the --config
    or a file it @includes, or any of them through a symlink, is refused
    before the run; every file read stays byte for byte."""
    prog, x, base, top = (os.path.join(d, n) for n in ("prog.json", "x.npy", "base.cfg", "top.cfg"))
    shutil.copy(f"{progs}/io.json", prog)
    shutil.copy(f"{progs}/io_x.npy", x)
    shutil.copy(cfg, base)
    write(top, b'@include "base.cfg"\n')
    os.symlink(prog, os.path.join(d, "link.jsonl"))
    before = {p: read(p) for p in (prog, x, base, top)}
    common = ["run", prog, "--config", top, "--input", f"x={x}"]
    for opt, target, reads in (("--timeline", prog, f"the program {prog}"), ("--trace", x, f"--input x {x}"),
                               ("--timeline", x, f"--input x {x}"), ("--trace", top, f"--config {top}"),
                               ("--timeline", base, f"--config {base}"),
                               ("--trace", os.path.join(d, "link.jsonl"), f"the program {prog}")):
        r = run(*common, opt, target, rc=1)
        one_line_error(r, f"{opt} {target} and {reads} are the same file", "name another file for " + opt)
    r = run(*common, "--output", f"y={x}", rc=1)
    one_line_error(r, f"--output y {x} and --input x {x} are the same file")
    assert {p: read(p) for p in before} == before
    assert listing(d) == ["base.cfg", "link.jsonl", "prog.json", "top.cfg", "x.npy"], listing(d)


def two_targets_one_file(d):
    """Two artefacts naming one file, however spelt, are one error naming
    both options; nothing is written."""
    prog = f"{progs}/copy.json"
    t, sub = os.path.join(d, "t"), os.path.join(d, "sub")
    os.mkdir(sub)
    for args, want in ((["--trace", t, "--timeline", t], f"--trace and --timeline name the same file {t}"),
                       (["--trace", "t", "--timeline", "./t"], "--trace and --timeline name the same file ./t"),
                       (["--trace", t, "--timeline", "sub/../t"], "--trace and --timeline name the same file"),
                       (["--output", "y=t.npy", "--trace", "t.npy"], "--output y and --trace name the same file"),
                       (["--output", "y=t.npy", "--timeline", "t.npy"], "--output y and --timeline name the same"),
                       (["--output", "y=t.npy", "--dump-at", "0=t.npy"], "--output y and --dump-at 0@0 name the"),
                       (["--trace", "dd", "--dump-on-error", "dd"], "--trace and --dump-on-error name the same")):
        r = run("run", prog, "--config", cfg, *args, rc=1, cwd=d)
        one_line_error(r, want, "give each its own file")
    assert listing(d) == ["sub"], listing(d)


def folders_checked_first(d):
    """An --output, --trace or --timeline whose folder is missing, is a
    regular file, or is on a read-only file system: refused before the run
    (fail_late.json would fail at its last instruction)."""
    f = os.path.join(d, "afile")
    write(f, b"")
    late = f"{progs}/fail_late.json"
    for opt, target, why in (("--trace", f"{d}/no/t.jsonl", "No such file or directory"),
                             ("--timeline", f"{f}/t.json", "Not a directory")):
        r = run("run", late, "--config", cfg, opt, target, rc=1)
        one_line_error(r, f"{opt} {target}: cannot create it: {why}", "name a path in a folder that exists")
    r = run("run", late, "--config", cfg, "--output", f"y={d}/no/y.npy", rc=1)
    one_line_error(r, f"--output y={d}/no/y.npy: cannot create it: No such file or directory")
    r = run("run", late, "--config", cfg, "--output", f"y={f}/y.npy", rc=1)
    one_line_error(r, f"--output y={f}/y.npy: cannot create it: Not a directory")
    with tmpfs("64k", ro=True) as ro:
        for opt in ("--trace", "--timeline", "--output"):
            target = f"{ro}/x.jsonl"
            arg = f"y={target}" if opt == "--output" else target
            r = run("run", late, "--config", cfg, opt, arg, rc=1)
            one_line_error(r, "cannot create it: Read-only file system", f"the folder {ro}")
    assert listing(d) == ["afile"], listing(d)


def convert_target():
    """convert -o: a device or a FIFO is refused and stays what it was; a
    replaced file keeps its mode; the program itself is refused; a full disk
    says so with the path and leaves the old file; nothing else is left."""
    prog = f"{progs}/copy.json"
    with tempfile.TemporaryDirectory() as d:
        # a null device of the test's own: a trnsim that replaced it (as
        # convert -o /dev/null once did, as root) cannot harm the system's
        null, fifo, out = os.path.join(d, "null"), os.path.join(d, "fifo"), os.path.join(d, "n.json")
        os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        r = run("convert", prog, "--config", cfg, "-o", null, rc=1)
        one_line_error(r, f"-o: {null} is a character device")
        assert stat.S_ISCHR(os.stat(null).st_mode)
        os.unlink(null)
        os.mkfifo(fifo)
        r = run("convert", prog, "--config", cfg, "-o", fifo, rc=1)
        one_line_error(r, f"-o: {fifo} is a FIFO")
        write(out, b"OLD")
        os.chmod(out, 0o640)
        run("convert", prog, "--config", cfg, "-o", out)
        assert json.loads(read(out))["instructions"][0]["opcode"] == "TestCopy"
        assert os.stat(out).st_mode & 0o777 == 0o640, oct(os.stat(out).st_mode)
        own = os.path.join(d, "p.json")
        shutil.copy(prog, own)
        r = run("convert", own, "--config", cfg, "-o", own, rc=1)
        one_line_error(r, f"-o {own} and the program {own} are the same file")
        assert read(own) == read(prog)
        assert listing(d) == ["fifo", "n.json", "p.json"], listing(d)
    with tmpfs("4k") as full:
        out = os.path.join(full, "n.json")
        write(out, b"OLD")
        big = os.path.join(full, "..", os.path.basename(full) + "-prog.json")
        try:
            with open(big, "w") as f:  # a program whose native form needs more than 4 KiB
                json.dump({"tensors": [{"name": f"t{i}", "memory": "sbuf", "dtype": "float32", "shape": [1, 4]}
                                       for i in range(200)], "instructions": []}, f)
            r = run("convert", big, "--config", cfg, "-o", out, rc=1)
            one_line_error(r, f"-o {out}: writing failed: No space left on device", f"{out} was not changed")
        finally:
            os.unlink(big)
        assert read(out) == b"OLD" and listing(full) == ["n.json"], listing(full)


def full_disk_outputs(d):
    """--output and --trace on a full disk: the OS's reason with the path;
    the old files stay, nothing is left."""
    with tmpfs("64k") as full:
        y, t = os.path.join(full, "big.npy"), os.path.join(full, "t.jsonl")
        write(y, b"OLD")
        r = run("run", big_program(d), "--config", cfg, "--output", f"big={y}", rc=1)
        one_line_error(r, y, "No space left on device")
        assert read(y) == b"OLD" and listing(full) == ["big.npy"], listing(full)
        write(t, b"OLD")
        r = run("run", long_program(d, 5000), "--config", cfg, "--trace", t, rc=1)
        one_line_error(r, f"--trace {t}: writing failed: No space left on device")
        assert read(t) == b"OLD" and listing(full) == ["big.npy", "t.jsonl"], listing(full)


def no_inode_left(d):
    """No inode left for a temporary (the folder passes the checks before
    the run): the OS's reason, with and without O_TMPFILE (before: "too
    many files at once", whatever the reason); the old file stays, nothing
    is left."""
    with tmpfs("64k", inodes=2) as full:  # the folder and y.npy
        y = os.path.join(full, "y.npy")
        write(y, b"OLD")
        for env in (None, NO_TMPFILE):
            r = subprocess.run([trnsim, "run", f"{progs}/copy.json", "--config", cfg, "--output", f"y={y}"],
                               capture_output=True, text=True, timeout=120, env=env)
            assert r.returncode == 1, r
            one_line_error(r, f"--output y: cannot create a file next to {y}: No space left on device")
            assert read(y) == b"OLD" and listing(full) == ["y.npy"], listing(full)


def longest_name(d):
    """A target whose name has 250 bytes (NAME_MAX is 255): written, with
    and without O_TMPFILE, nothing left beside it (before: the temporary's
    name, .NAME.trnsim-XXXXXX, was past NAME_MAX, and the run failed after
    it ended: 'File name too long')."""
    y = os.path.join(d, "y" * 246 + ".npy")
    for env in (None, NO_TMPFILE):
        r = subprocess.run([trnsim, "run", f"{progs}/copy.json", "--config", cfg, "--output", f"y={y}"],
                           capture_output=True, text=True, timeout=120, env=env)
        assert r.returncode == 0, r.stderr
        assert read(y).startswith(b"\x93NUMPY") and listing(d) == [os.path.basename(y)], listing(d)
        os.unlink(y)


def long_program(d, trips=100000000):
    p = os.path.join(d, f"long{trips}.json")
    with open(p, "w") as f:
        json.dump({"tensors": [{"name": "x", "memory": "sbuf", "dtype": "float32", "shape": [2, 4], "fill": 1.0},
                               {"name": "y", "memory": "sbuf", "dtype": "float32", "shape": [2, 4]}],
                   "instructions": [{"loop": {"trips": trips, "body": [
                       {"opcode": "TestCopy", "inputs": ["x"], "outputs": ["y"]}]}}]}, f)
    return p


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
            with contextlib.suppress(OSError):
                if os.readlink(f"/proc/{pid}/fd/{fd}").startswith(folder + "/"):
                    return True
    except OSError:
        pass
    return False


def wait_writing(p, folder):
    deadline = time.time() + 60
    while time.time() < deadline and p.poll() is None and not writing_into(p.pid, folder):
        time.sleep(0.005)
    assert p.poll() is None and writing_into(p.pid, folder), "the run never started writing"


def sigkill_leaves_nothing(d):
    """SIGKILL while the output, or the trace and timeline, are written:
    nothing beside the targets (the temporaries have no name), the old
    files untouched."""
    out = os.path.join(d, "out")
    os.mkdir(out)
    y, t, tl = os.path.join(out, "big.npy"), os.path.join(out, "t.jsonl"), os.path.join(out, "t.json")
    for path in (y, t, tl):
        write(path, b"OLD")
    p = subprocess.Popen([trnsim, "run", big_program(d), "--config", cfg, "--output", f"big={y}"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_writing(p, out)
    p.kill()
    p.wait(timeout=60)
    p = subprocess.Popen([trnsim, "run", long_program(d), "--config", cfg, "--trace", t, "--timeline", tl],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_writing(p, out)
    time.sleep(0.3)
    p.kill()
    p.wait(timeout=60)
    assert listing(out) == ["big.npy", "t.json", "t.jsonl"], listing(out)
    assert read(y) == b"OLD" and read(t) == b"OLD" and read(tl) == b"OLD"


def signals_remove_trace(d):
    """SIGINT and SIGTERM during the run: the trace and the timeline go with
    the other outputs (docs/observability.md): the old files stay as they
    were, no half-written file and nothing else is left."""
    out = os.path.join(d, "out")
    os.mkdir(out)
    t, tl, y = os.path.join(out, "t.jsonl"), os.path.join(out, "t.json"), os.path.join(out, "y.npy")
    write(t, b"OLD-T")
    prog = long_program(d)
    for sig in (signal.SIGINT, signal.SIGTERM):
        # --trace-limit: a bounded trace (no size warning), still being written when the signal comes
        p = subprocess.Popen([trnsim, "run", prog, "--config", cfg, "--trace", t, "--trace-limit", "10000000",
                              "--timeline", tl, "--output", f"y={y}"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_writing(p, out)
        time.sleep(0.3)
        p.send_signal(sig)
        _, err = p.communicate(timeout=60)
        assert p.returncode == 128 + sig, (p.returncode, err)
        assert err.strip() == "trnsim: interrupted; temporary output files removed", err
        assert listing(out) == ["t.jsonl"], listing(out)
        assert read(t) == b"OLD-T"


NO_TMPFILE = dict(os.environ, TRNSIM_TEST_NO_TMPFILE="1")  # the test hook: temporaries as without O_TMPFILE


def run_named(*args, rc=0):
    """trnsim with named temporaries (mkostemp), as on a file system without O_TMPFILE."""
    r = subprocess.run([trnsim, *args], capture_output=True, text=True, timeout=120, env=NO_TMPFILE)
    assert r.returncode == rc, f"{args}: exit {r.returncode}, expected {rc}\n{r.stderr}"
    return r


def named_temporaries(out):
    return [f for f in listing(out) if ".trnsim-" in f]


def mkostemp_fallback(d):
    """The named temporaries of a file system without O_TMPFILE (forced by
    TRNSIM_TEST_NO_TMPFILE=1): an output and convert -o are committed, a
    replaced file keeps its mode and nothing is left; while the trace is
    written its temporary has a name (.t.jsonl.trnsim-XXXXXX: the fallback
    ran), and SIGTERM removes it, the old file untouched; on a full disk
    the OS's reason comes with the path and the temporary is removed; a
    read-only file system is refused before the run."""
    out = os.path.join(d, "out")
    os.mkdir(out)
    y, n, t = (os.path.join(out, f) for f in ("y.npy", "n.json", "t.jsonl"))
    write(y, b"OLD")
    os.chmod(y, 0o640)
    run_named("run", f"{progs}/copy.json", "--config", cfg, "--output", f"y={y}")
    assert read(y).startswith(b"\x93NUMPY") and os.stat(y).st_mode & 0o777 == 0o640, oct(os.stat(y).st_mode)
    run_named("convert", f"{progs}/copy.json", "--config", cfg, "-o", n)
    assert json.loads(read(n))["instructions"][0]["opcode"] == "TestCopy"
    assert listing(out) == ["n.json", "y.npy"], listing(out)
    write(t, b"OLD-T")
    p = subprocess.Popen([trnsim, "run", long_program(d), "--config", cfg, "--trace", t, "--trace-limit", "10000000",
                          "--output", f"y={y}"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=NO_TMPFILE)
    wait_writing(p, out)
    seen = named_temporaries(out)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=60)
    assert len(seen) == 1 and seen[0].startswith(".t.jsonl.trnsim-"), seen
    assert p.returncode == 128 + signal.SIGTERM, (p.returncode, err)
    assert err.strip() == "trnsim: interrupted; temporary output files removed", err
    assert listing(out) == ["n.json", "t.jsonl", "y.npy"] and read(t) == b"OLD-T", listing(out)
    with tmpfs("64k") as full:
        big = os.path.join(full, "big.npy")
        write(big, b"OLD")
        r = run_named("run", big_program(d), "--config", cfg, "--output", f"big={big}", rc=1)
        one_line_error(r, big, "No space left on device")
        assert read(big) == b"OLD" and listing(full) == ["big.npy"], listing(full)
    with tmpfs("64k", ro=True) as ro:
        r = run_named("run", f"{progs}/copy.json", "--config", cfg, "--output", f"y={ro}/y.npy", rc=1)
        one_line_error(r, "cannot create it: Read-only file system", f"the folder {ro}")


for name, fn in (("inputs are never targets", inputs_never_targets), ("two targets, one file", two_targets_one_file),
                 ("folders checked before the run", folders_checked_first), ("convert -o", convert_target),
                 ("a full disk", full_disk_outputs), ("SIGKILL leaves nothing", sigkill_leaves_nothing),
                 ("SIGINT / SIGTERM remove trace and timeline", signals_remove_trace),
                 ("mkostemp fallback (TRNSIM_TEST_NO_TMPFILE)", mkostemp_fallback),
                 ("no inode left for a temporary", no_inode_left),
                 ("a 250-byte file name", longest_name)):
    case(name, fn)
sys.exit(finish())
