"""Shared helpers: replay what an isa call ran through the trnsim CLI."""
import json
import os
import subprocess

import numpy as np
import pytest

import trnsim
from trnsim import isa

CLI = os.environ.get("TRNSIM_CLI")


FAMILIES = ("dma", "bn", "rng", "search", "collective")


def config_text(settings):
    """The default config's five families with module settings, as a file."""
    entries = []
    for fam in FAMILIES:
        group = "".join(" %s = %s;" % (k, json.dumps(v) if isinstance(v, str) else v)
                        for k, v in settings.get(fam, {}).items())
        entries.append('{ family = "%s"; module = "trnsim-%s";%s }' %
                       (fam, fam, " settings = {%s };" % group if group else ""))
    machine = "".join(" %s = %s;" % (k, v) for k, v in settings.get("machine", {}).items())
    return ("plugins = (\n  " + ",\n  ".join(entries) + "\n);\n" +
            ("machine = {%s };\n" % machine if machine else ""))


def run_cli(program, inputs, outputs, tmp_path, tag="p", settings=None):
    """Run program with the CLI: inputs [(name, core, raw array)], outputs
    [(name, core)]; returns the outputs' raw bytes as uint8 arrays."""
    assert CLI and os.path.exists(CLI), "TRNSIM_CLI must name the trnsim executable (ctest sets it)"
    d = tmp_path / tag
    d.mkdir(exist_ok=True)
    (d / "prog.json").write_text(json.dumps(program))
    args = [CLI, "run", str(d / "prog.json"), "--raw-bits"]
    if settings:
        (d / "sim.cfg").write_text(config_text(settings))
        args += ["--config", str(d / "sim.cfg")]
    for i, (name, core, raw) in enumerate(inputs):
        f = d / ("in%d.npy" % i)
        np.save(f, np.ascontiguousarray(raw))
        args += ["--input", "%s%s=%s" % (name, "" if core < 0 else "@%d" % core, f)]
    files = []
    for i, (name, core) in enumerate(outputs):
        f = d / ("out%d.npy" % i)
        files.append(f)
        args += ["--output", "%s@%d=%s" % (name, core, f)]
    r = subprocess.run(args, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return [np.load(f).view(np.uint8).reshape(-1) for f in files]


@pytest.fixture
def same_as_cli(tmp_path):
    """Call fn(*args, **kw) in process, then replay every program it ran
    through the CLI: every output must be the same bytes. Returns fn's result."""
    def check(fn, *args, **kw):
        isa.recorder = []
        try:
            result = fn(*args, **kw)
            records = isa.recorder
        finally:
            isa.recorder = None
        assert records, "the call ran no program"
        for k, (program, ins, outs, settings) in enumerate(records):
            got = run_cli(program, ins, [(n, c) for n, c, _ in outs], tmp_path, "r%d" % k, settings)
            for (name, core, raw), cli in zip(outs, got):
                mine = np.ascontiguousarray(raw).view(np.uint8).reshape(-1)
                assert np.array_equal(mine, cli), "%s@%d differs from the CLI's output" % (name, core)
        return result
    return check


def f32_bits(a):
    return np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)
