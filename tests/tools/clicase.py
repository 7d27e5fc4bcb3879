"""What the CLI test scripts share: run trnsim and check its exit status,
check a one-line error, and run named cases, counting the failures.

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
    from clicase import Cli, case, finish, one_line_error
    run = Cli(trnsim, "--config", cfg).run
    case("name", fn)          # fn() or fn(tmpdir): a fresh directory per case
    sys.exit(finish())
"""
import inspect
import subprocess
import tempfile

_passed = _failures = 0


class Cli:
    """One trnsim binary; `after` is appended to every command line."""

    def __init__(self, trnsim, *after, timeout=60):
        self.trnsim, self.after, self.timeout = trnsim, list(after), timeout

    def run(self, *args, rc=0, timeout=None, cwd=None):
        r = subprocess.run([self.trnsim, *args, *self.after], capture_output=True, text=True,
                           timeout=timeout or self.timeout, cwd=cwd)
        if r.returncode != rc:
            raise AssertionError(f"{args}: exit {r.returncode}, expected {rc}\n{r.stdout}\n{r.stderr}")
        return r


def one_line_error(r, *needles):
    """The run printed exactly one line, `trnsim: ...`, holding every needle."""
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("trnsim: "), r.stderr
    for n in needles:
        assert n in lines[0], f"{n!r} not in {lines[0]!r}"
    return lines[0]


def case(name, fn):
    global _passed, _failures
    try:
        if inspect.signature(fn).parameters:
            with tempfile.TemporaryDirectory() as d:
                fn(d)
        else:
            fn()
        _passed += 1
        print(f"ok: {name}")
    except (AssertionError, subprocess.TimeoutExpired) as e:
        _failures += 1
        print(f"FAIL: {name}: {e}")


def finish():
    """Print the closing count; the exit status is 1 when any case failed."""
    print(f"{_passed} passed, {_failures} failed")
    return 1 if _failures else 0
