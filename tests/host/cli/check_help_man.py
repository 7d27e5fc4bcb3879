#!/usr/bin/python3
"""--help and trnsim(1) agree, for whatever commands and options exist.

    check_help_man.py TRNSIM MANPAGE CLI_SOURCE_DIR [--self-test]

1. `trnsim --help` lists the commands (its "Commands:" block). Each command
   answers `--help` and `-h` alike, on stdout, exit 0, starting with
   "Usage: trnsim COMMAND"; `trnsim help COMMAND` prints the same.
2. Every option a command's --help names is also in `trnsim --help` under a
   heading naming that command (the man page is generated from that text).
3. The man page names every command, and under the heading of each command
   every option of that command; -h, --help and --version too.
4. Every "--option" string literal in the CLI sources is named by some
   command's --help, so an option parsed but not documented fails.
--self-test then removes each command and each option from the man page in
turn and checks that step 3 fails for every one of them.
"""
import glob
import re
import shutil
import subprocess
import sys
import tempfile

# "  -h, --help", "      --config FILE", "      -o FILE"
OPTION = re.compile(r"^ {2,6}(?:(-[A-Za-z])(?:, |\s|$))?(--[A-Za-z0-9][A-Za-z0-9-]*)?")


def run(trnsim, *args):
    r = subprocess.run([trnsim, *args], capture_output=True, text=True, timeout=60)
    if r.returncode != 0 or r.stderr:
        raise AssertionError(f"trnsim {' '.join(args)}: exit {r.returncode}, stderr {r.stderr!r}")
    return r.stdout


def options_of(text):
    """The options listed in a help text (its indented '-x, --xxx' lines)."""
    found = []
    for line in text.splitlines():
        m = OPTION.match(line)
        if m:
            found += [o for o in m.groups() if o]
    return found


def blocks(text):
    """Heading line -> the lines under it, for the 'Heading:' lines of a help text."""
    out, cur = {}, None
    for line in text.splitlines():
        if line and not line.startswith(" ") and line.endswith(":"):
            cur = line[:-1]
            out[cur] = []
        elif cur is not None and line.strip():
            out[cur].append(line)
    return out


def commands_of(usage):
    cmds = [l.split()[0] for l in blocks(usage).get("Commands", [])]
    assert cmds, f"no 'Commands:' block in trnsim --help:\n{usage}"
    return cmds


def check_help(trnsim):
    usage = run(trnsim, "--help")
    cmds = commands_of(usage)
    heads = blocks(usage)
    per_cmd = {}
    for c in cmds:
        text = run(trnsim, c, "--help")
        assert text.startswith(f"Usage: trnsim {c}"), f"trnsim {c} --help starts {text[:60]!r}"
        assert run(trnsim, c, "-h") == text, f"trnsim {c} -h differs from --help"
        assert run(trnsim, "help", c) == text, f"trnsim help {c} differs from --help"
        opts = [o for o in options_of(text) if o not in ("-h", "--help")]
        assert "--help" in options_of(text), f"trnsim {c} --help does not list --help"
        listed = []
        for head, lines in heads.items():
            m = re.fullmatch(r"Options of trnsim (.*)", head)
            if m and c in [x.strip() for x in m.group(1).split(",")]:
                listed += options_of("\n".join(lines))
        missing = [o for o in opts if o not in listed]
        assert not missing, f"trnsim --help does not list {missing} under a heading naming '{c}'"
        per_cmd[c] = opts
    for o in ("-h", "--help", "--version"):
        assert o in options_of("\n".join(heads.get("Options", []))), f"trnsim --help: 'Options:' lacks {o}"
    print(f"ok: --help of {len(cmds)} commands ({', '.join(cmds)}), {sum(map(len, per_cmd.values()))} options")
    return per_cmd


def man_text(roff):
    """The man page's text with roff escapes removed, one line per roff line."""
    t = roff.replace("\\-", "-").replace("\\(aq", "'")
    t = re.sub(r"\\f(\[[^]]*\]|.)", "", t)
    t = re.sub(r"\\[/,&]", "", t)
    return t


def man_problems(roff, per_cmd):
    """What trnsim(1) lacks, as a list of sentences (empty: nothing)."""
    lines = man_text(roff).splitlines()
    problems = []
    # the .TP item lines: the first line after each .TP
    items = [lines[i + 1].strip() for i, l in enumerate(lines[:-1]) if l.startswith(".TP")]
    sections, cur = {}, None
    for i, l in enumerate(lines):
        if l.startswith((".SH", ".SS")):
            cur = l.split(None, 1)[1].strip().strip('"').rstrip(":") if len(l.split()) > 1 else ""
            sections[cur] = []
        elif cur is not None and i > 0 and lines[i - 1].startswith(".TP"):
            sections[cur].append(l.strip())
    cmd_items = [it.split()[0] for it in sections.get("Commands", []) if it]
    for c, opts in per_cmd.items():
        if c not in cmd_items:
            problems.append(f"trnsim(1) does not list the command '{c}' under 'Commands'")
        under = []
        for head, its in sections.items():
            m = re.fullmatch(r"Options of trnsim (.*)", head)
            if m and c in [x.strip() for x in m.group(1).split(",")]:
                # "--trace-values[=K]": an option with an optional value
                under += [w.split("[")[0].rstrip(",") for it in its for w in it.split() if w.startswith("-")]
        for o in opts:
            if o not in under:
                problems.append(f"trnsim(1) does not list {o} under a heading naming '{c}'")
    top = [w.rstrip(",") for it in sections.get("OPTIONS", []) for w in it.split() if w.startswith("-")]
    for o in ("-h", "--help", "--version"):
        if o not in top:
            problems.append(f"trnsim(1) does not list {o} under OPTIONS")
    if not items:
        problems.append("trnsim(1) has no .TP items")
    return problems


def without(roff, word):
    """The page with every .TP entry (item and text) that names `word` taken out."""
    lines = roff.splitlines()
    keep, skipping = [], False
    for i, line in enumerate(lines):
        if i + 1 < len(lines) and line.startswith(".TP"):
            nxt = [t.split("[")[0].rstrip(",") for t in man_text(lines[i + 1]).split()]
            skipping = bool(nxt) and (nxt[0] == word or word in nxt[:2])
            if skipping:
                continue
        elif skipping and line.startswith("."):
            skipping = False
        if not skipping:
            keep.append(line)
    return "\n".join(keep)


def check_sources(src_dir, per_cmd):
    documented = {o for opts in per_cmd.values() for o in opts} | {"--help", "--version"}
    literals = set()
    for path in glob.glob(f"{src_dir}/*.c"):
        literals |= set(re.findall(r'"(--[a-z][a-z0-9-]*)"', open(path).read()))
    undocumented = sorted(literals - documented)
    assert not undocumented, f"options in {src_dir} that no --help names: {undocumented}"
    print(f"ok: the {len(literals)} option strings in {src_dir}/*.c are all in --help")


def main():
    trnsim, man, src_dir = sys.argv[1:4]
    per_cmd = check_help(trnsim)
    check_sources(src_dir, per_cmd)
    roff = open(man).read()
    problems = man_problems(roff, per_cmd)
    assert not problems, "\n".join(problems)
    print(f"ok: {man} lists every command and option of --help")
    if "--self-test" in sys.argv:
        # each command and each option, taken out of the page, must be missed
        n = 0
        for c, opts in per_cmd.items():
            for word in [c] + opts:
                if not man_problems(without(roff, word), per_cmd):
                    raise AssertionError(f"self-test: a man page without '{word}' ({c}) still passes")
                n += 1
        with tempfile.TemporaryDirectory() as d:
            for path in glob.glob(f"{src_dir}/*.c"):
                shutil.copy(path, d)
            with open(f"{d}/planted.c", "w") as f:
                f.write('if (!strcmp(s, "--frobnicate")) frob = 1;\n')
            try:
                check_sources(d, per_cmd)
            except AssertionError as e:
                assert "--frobnicate" in str(e), e
            else:
                raise AssertionError("self-test: an undocumented --frobnicate in the sources passes")
        print(f"ok: self-test: each of {n} commands and options, removed from the page, is caught")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        print(f"FAIL: {e}")
        sys.exit(1)
