#!/usr/bin/python3
"""--set KEY=VALUE overlays and @include base configs (docs/config.md),
through the real CLI: each overlay changes what runs, and each mistake is one
error line naming the option or file:line, with no output left behind.
Usage: config_overlays.py TRNSIM PROGRAMS_DIR"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

trnsim, progs = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
cfg = f"{progs}/test.cfg"
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from clicase import Cli, case, finish, one_line_error  # noqa: E402

run = Cli(trnsim).run


def write(d, name, text):
    p = os.path.join(d, name)
    with open(p, "w") as f:
        f.write(text)
    return p


def setting_program(d, memory="sbuf", shape=(1, 4)):
    """TestSetting writes the module's `scale` setting into every element of y."""
    return write(d, "p.json", json.dumps({
        "tensors": [{"name": "y", "memory": memory, "dtype": "float32", "shape": list(shape)}],
        "instructions": [{"opcode": "TestSetting", "outputs": ["y"]}]}))


def scale_of(d, *args):
    out = os.path.join(d, "y.npy")
    run("run", setting_program(d), "--output", f"y={out}", *args)
    y = np.load(out)
    os.remove(out)
    assert y.shape == (1, 4) and len(set(y.ravel().tolist())) == 1, y
    return float(y[0, 0])


def set_module_setting(d):
    assert scale_of(d, "--config", cfg) == 3.5  # test.cfg's own value
    assert scale_of(d, "--config", cfg, "--set", "test.scale=5") == 5.0
    assert scale_of(d, "--config", cfg, "--set", "test.scale=7", "--set", "test.scale=0.25") == 0.25  # last wins
    assert scale_of(d, "--set", "test.scale=9", "--config", cfg) == 9.0  # order of options does not matter


def set_unknown_opcode(d):
    r = run("run", f"{progs}/skip.json", "--config", cfg, rc=1)
    one_line_error(r, "no loaded module handles opcode Rng (IT 100)")
    out = os.path.join(d, "y.npy")
    run("run", f"{progs}/skip.json", "--config", cfg, "--set", "unknown_opcode=skip", "--output", f"y={out}")
    assert np.load(out).tobytes() == np.load(f"{progs}/copy_y.npy").tobytes()


def set_machine(d):
    p = setting_program(d, memory="hbm", shape=(1, 1024))  # 4096 bytes
    assert run("check", p, "--config", cfg).stdout.strip() == f"{p}: ok (1 core)"
    assert run("check", p, "--config", cfg, "--set", "machine.cores=3").stdout.strip() == f"{p}: ok (3 cores)"
    out = os.path.join(d, "y.npy")
    r = run("run", p, "--config", cfg, "--set", "machine.hbm_bytes=4095", "--output", f"y={out}", rc=1)
    one_line_error(r, "tensor 'y'", "hbm")
    assert not os.path.exists(out)
    assert run("check", p, "--config", cfg, "--set", "machine.hbm_bytes=4096").returncode == 0
    # 64 GiB + 1 is read whole (libconfig alone would keep its low 32 bits: 1)
    r = run("check", p, "--config", cfg, "--set", "machine.hbm_bytes=68719476737", rc=1)
    one_line_error(r, "--set machine.hbm_bytes=68719476737: machine.hbm_bytes = 68719476737 is outside [64, 68719476736]")
    # in a file too: 64 GiB + 64 is refused, not read as 64
    big = write(d, "big.cfg", "machine = { hbm_bytes = 68719476800; };\n" + open(cfg).read())
    run("check", p, "--config", big, "--set", "machine.hbm_bytes=4096")  # --set wins over the file
    r = run("check", p, "--config", big, "--set", "machine.cores=1", rc=1)
    one_line_error(r, f"{big}:1: machine.hbm_bytes = 68719476800 is outside [64, 68719476736]")


def set_errors(d):
    p = setting_program(d)
    out = os.path.join(d, "y.npy")
    cases = [
        ("machine.hbm_byte=4", "--set machine.hbm_byte=4: unknown key 'hbm_byte' in machine; did you mean 'hbm_bytes'?"),
        ("unknown_opcod=skip", "--set unknown_opcod=skip: unknown key 'unknown_opcod' in the top level; did you mean "
                               "'unknown_opcode'?"),
        ("unknown_opcode=skp", "--set unknown_opcode=skp: unknown_opcode must be \"error\" or \"skip\""),
        ("tset.scale=1", "--set tset.scale=1: 'tset' is neither machine nor the family of a configured module "
                         "(configured: test); did you mean 'test'?"),
        ("test.scal=1", "trnsim: --set test.scal=1: module 'trnsim-test' (family test): unknown setting 'scal' for "
                        "module trnsim-test (known: scale, mode, fail_init); did you mean 'scale'?"),
        ("test.scale=500", "--set test.scale=500: module 'trnsim-test' (family test): setting 'scale' = 500 is "
                           "outside [0, 100]"),
        ("test.scale=big", "--set test.scale=big: module 'trnsim-test' (family test): setting 'scale' must be a "
                           "number"),
        ("test.mode=c", "--set test.mode=c: module 'trnsim-test' (family test): setting 'mode' = \"c\" is not "
                        "one of a|b"),
        ("test.fail_init=1", "--set test.fail_init=1: module 'trnsim-test' (family test): setting 'fail_init' "
                             "must be true or false"),
        ("machine.cores=true", "--set machine.cores=true: machine.cores must be an integer"),
        ("scale", "--set scale: expected KEY=VALUE"),
        ("=1", "--set =1: expected KEY=VALUE"),
        ("test.scale.x=1", "--set test.scale.x=1: KEY is NAME or SECTION.NAME"),
        ("machine.hbm bytes=1", "--set machine.hbm bytes=1: 'hbm bytes' is not a valid key name"),
    ]
    for kv, msg in cases:
        for cmd in (["run", p, "--output", f"y={out}"], ["check", p], ["opcodes"], ["quirks"]):
            r = run(*cmd, "--config", cfg, "--set", kv, rc=1)
            one_line_error(r, msg)
            assert not os.path.exists(out), kv
    r = run("opcodes", "--config", cfg, "--set", rc=1)
    one_line_error(r, "unexpected argument '--set'")


def set_default_config(d):
    """Without --config the overlay goes over the embedded default."""
    r = run("opcodes", "--set", "search.duplicate_match_order=descending", "--set", "collective.cores_per_lnc=4",
            "--set", "collective.multi_lnc=allow")
    assert "BNStats" in r.stdout, r.stdout
    r = run("opcodes", "--set", "collective.cores_per_lnc=x", rc=1)
    one_line_error(r, "trnsim: --set collective.cores_per_lnc=x: module 'trnsim-collective' (family collective): "
                   "setting 'cores_per_lnc' must be an integer")
    r = run("opcodes", "--set", "search.duplicate_match_order=desc", rc=1)
    one_line_error(r, "--set search.duplicate_match_order=desc: module 'trnsim-search' (family search): setting "
                   "'duplicate_match_order' = \"desc\" is not one of")


def include_overrides(d):
    base = write(d, "base.cfg", "# the base\nmachine = { hbm_bytes = 4095; cores = 2; };\n"
                 "plugins = ( { family = \"test\"; module = \"trnsim-test\"; settings = { scale = 3.5; }; } );\n")
    over = write(d, "over.cfg", "# overrides\n@include \"base.cfg\"\n\nmachine = { cores = 4; };\n"
                 "plugins = ( { family = \"test\"; settings = { scale = 6.0; }; } );\n")
    one = ("--set", "machine.cores=1")
    assert scale_of(d, "--config", over, *one) == 6.0
    assert scale_of(d, "--config", base, *one) == 3.5
    assert scale_of(d, "--config", over, "--set", "test.scale=1.5", *one) == 1.5
    hbm = setting_program(d, memory="hbm", shape=(1, 1024))
    assert run("check", hbm, "--config", over, "--set", "machine.hbm_bytes=4096").stdout.strip() == f"{hbm}: ok (4 cores)"
    r = run("check", hbm, "--config", over, rc=1)  # hbm_bytes kept from the base
    one_line_error(r, "tensor 'y'")
    # a mistake names the file that made it
    bad_over = write(d, "bad_over.cfg", "@include \"base.cfg\"\nmachine = { core = 4; };\n")
    one_line_error(run("opcodes", "--config", bad_over, rc=1),
                   f"{bad_over}:2: unknown key 'core' in machine; did you mean 'cores'?")
    bad_base = write(d, "bad_base.cfg", "plugins = ( { family = \"test\"; module = \"trnsim-test\"; "
                     "settings = { scal = 1.0; }; } );\n")
    inc_bad = write(d, "inc_bad.cfg", "@include \"bad_base.cfg\"\nunknown_opcode = \"skip\";\n")
    one_line_error(run("opcodes", "--config", inc_bad, rc=1), f"{bad_base}:1: module 'trnsim-test'",
                   f"{bad_base}:1: module 'trnsim-test' (family test): unknown setting 'scal'")
    missing = write(d, "missing.cfg", "@include \"nope.cfg\"\n")
    one_line_error(run("opcodes", "--config", missing, rc=1), f"{missing}:1: @include \"nope.cfg\": no such file")
    selfinc = write(d, "self.cfg", "@include \"self.cfg\"\n")
    one_line_error(run("opcodes", "--config", selfinc, rc=1), "@include nested deeper than 10 files")
    os.mkdir(os.path.join(d, "dir.cfg"))
    incdir = write(d, "incdir.cfg", "@include \"dir.cfg\"\n")
    one_line_error(run("opcodes", "--config", incdir, rc=1), "is a directory, not a config file")


def include_default(d):
    """"default.cfg" with no such file is the embedded default; a family the
    base lacks is appended to its plugins."""
    over = write(d, "plus.cfg", "@include \"default.cfg\"\nplugins = ( { family = \"test\"; module = \"trnsim-test\"; "
                 "settings = { scale = 8.0; }; } );\n")
    r = run("opcodes", "--config", over, cwd=d)
    assert "BNStats" in r.stdout and "TestSetting" in r.stdout, r.stdout
    assert scale_of(d, "--config", over) == 8.0


CASES = [("--set a module setting", set_module_setting), ("--set unknown_opcode", set_unknown_opcode),
         ("--set machine", set_machine), ("--set mistakes", set_errors), ("--set over the default", set_default_config),
         ("@include base and overrides", include_overrides), ("@include \"default.cfg\"", include_default)]
for name, fn in CASES:
    case(name, fn)
sys.exit(finish())
