#!/usr/bin/env python3
"""The host's layout, checked (docs/internals/architecture.md).

Each folder of host/ has one job and a layer; a file may include, and an
object file may call, only folders of a lower layer (or the few side arrows
listed in SIDE). So there is no circle between folders, by construction, and
the check also looks for circles directly, over the folder graph it built:
  check_layout.py ROOT            the include graph of ROOT's sources
  check_layout.py ROOT --objects BUILD
                                  the same, plus the call graph read with nm
                                  from BUILD's host object files
Plugins see include/trnsim/ and their own family folder only.
"""
import collections
import pathlib
import re
import subprocess
import sys

# Higher layers first. A folder may depend on any folder of a lower layer.
LAYERS = [
    ["cli"],
    ["embed"],
    ["observers", "dump", "conform"],
    ["exec"],
    ["dist"],
    ["modules"],
    ["frontend"],
    ["npy", "program"],
    ["memory"],
    ["arith"],
    ["common"],
]
# Arrows between folders of one layer.
SIDE = {("program", "npy"): False}
# Upward arrows not broken yet, each with why; printed, not failed on. Only
# ever shrinks: a new upward arrow anywhere else fails the check.
PENDING = {}
# The readers are second-level folders of frontend/: they may use frontend/'s
# own headers (the load options, the JSON helpers), and never each other.
READERS = {"frontend/native", "frontend/bir"}
LAYER_OF = {f: i for i, layer in enumerate(LAYERS) for f in layer}
# A folder's private header (<folder>_int.h) is for its own files; the one
# named exception: dump/ saves and sets the run state itself.
PRIVATE_EXCEPTIONS = {("dump", "exec/exec_int.h")}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def node_of(rel):
    """The folder a host path (relative to host/) belongs to: its first part,
    or frontend/<reader> for a reader's files."""
    parts = pathlib.PurePosixPath(rel).parts
    if len(parts) >= 3 and f"{parts[0]}/{parts[1]}" in READERS:
        return f"{parts[0]}/{parts[1]}"
    return parts[0] if len(parts) > 1 else "."


def layer_folder(node):
    return node.split("/")[0]


def allowed(src, dst):
    """Whether folder src may depend on folder dst."""
    if src == dst:
        return True
    a, b = layer_folder(src), layer_folder(dst)
    if a == b:  # inside frontend/: the door and the readers, but not reader to reader
        return not (src in READERS and dst in READERS)
    if a not in LAYER_OF or b not in LAYER_OF:
        return False
    return LAYER_OF[a] < LAYER_OF[b] or SIDE.get((a, b), False) or (a, b) in PENDING


def include_edges(root, bad):
    edges = collections.defaultdict(set)
    host = root / "host"
    for f in sorted(host.rglob("*.[ch]")):
        rel = f.relative_to(host).as_posix()
        src = node_of(rel)
        if layer_folder(src) not in LAYER_OF:
            bad.append(f"{f}: host/{layer_folder(src)}/ is not a known part of the layout")
            continue
        for inc in INCLUDE.findall(f.read_text()):
            if inc.startswith("trnsim/") or "/" not in inc:
                continue
            dst = node_of(inc)
            name = pathlib.PurePosixPath(inc).name
            if name.endswith("_test.h"):
                bad.append(f"{f}: includes {inc}: a test header is for tests only")
            if (name.endswith("_int.h") and layer_folder(dst) != layer_folder(src)
                    and (layer_folder(src), inc) not in PRIVATE_EXCEPTIONS):
                bad.append(f"{f}: includes {inc}: host/{layer_folder(dst)}/'s private header")
            if (layer_folder(dst) != layer_folder(src) and not name.endswith("_int.h")
                    and inc != f"{layer_folder(dst)}/{layer_folder(dst)}.h"):
                bad.append(f"{f}: includes {inc}: from outside, host/{layer_folder(dst)}/ is reached "
                           f"through its one interface header {layer_folder(dst)}/{layer_folder(dst)}.h")
            if dst == src:
                continue
            edges[src].add(dst)
            if not allowed(src, dst):
                bad.append(f"{f}: includes {inc}: host/{src}/ may not depend on host/{dst}/")
    return edges


def object_edges(build, bad):
    """Calls between folders: every host object's undefined symbols against
    the folder that defines them (trnsim_<folder>.dir/<path>.o)."""
    defs, needs = {}, collections.defaultdict(set)
    for o in sorted(pathlib.Path(build).rglob("*.o")):
        m = re.search(r"/trnsim_(\w+)\.dir/(.+)\.o$", o.as_posix())
        if not m or m.group(1) not in LAYER_OF:
            continue
        src = node_of(m.group(2)) if "/" in m.group(2) else m.group(1)
        out = subprocess.run(["nm", str(o)], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            f = line.split()
            if len(f) == 3 and f[1] in "TDRB":
                defs[f[2]] = src
            elif len(f) == 2 and f[0] == "U":
                needs[src].add(f[1])
    edges = collections.defaultdict(set)
    for src, syms in needs.items():
        for sym in sorted(syms):
            dst = defs.get(sym)
            if dst and dst != src:
                if dst not in edges[src] and not allowed(src, dst):
                    bad.append(f"host/{src}/ calls {sym} of host/{dst}/: an arrow upward")
                edges[src].add(dst)
    return edges


def circles(edges):
    """Strongly connected components of more than one folder (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def check_plugins(root, bad):
    """A module's folder is plugins/<family>/ with its subfolders (e.g. the
    collective family's mpi/ transport): includes stay inside it."""
    plugins = (root / "plugins").resolve()
    for f in sorted((root / "plugins").rglob("*.[ch]")):
        folder = f.parent
        family = plugins / f.resolve().relative_to(plugins).parts[0]
        for inc in INCLUDE.findall(f.read_text()):
            if inc.startswith("trnsim/"):
                continue
            target = (folder / inc).resolve()
            if not target.exists() or family not in target.parents:
                bad.append(f"{f}: includes {inc}: a module sees include/trnsim/ and its own folder only")


PLANTED = [
    # (file, its text, a line the check must print)
    ("host/memory/bad.c", '#include "exec/exec.h"\n', "host/memory/ may not depend on host/exec/"),
    ("host/observers/bad.c", '#include "exec/exec_int.h"\n', "host/exec/'s private header"),
    ("host/exec/bad.c", '#include "exec/exec_test.h"\n', "a test header is for tests only"),
    ("host/frontend/bir/bad.c", '#include "frontend/native/native.h"\n',
     "host/frontend/bir/ may not depend on host/frontend/native/"),
    ("host/observers/a.c", '#include "dump/s.h"\n', "a circle of includes between folders"),
    ("host/dump/b.c", '#include "observers/o.h"\n', "host/dump/ may not depend on host/observers/"),
    ("host/exec/c.c", '#include "memory/ap.h"\n', "through its one interface header memory/memory.h"),
]


def self_test():
    """Each planted violation, alone in an empty tree, fails the check with
    its line (the circle needs both of the last two files)."""
    import tempfile
    failures = 0
    groups = [[p] for p in PLANTED[:4]] + [PLANTED[4:6]] + [PLANTED[6:]]
    for group in groups:
        with tempfile.TemporaryDirectory() as d:
            root = pathlib.Path(d)
            (root / "plugins").mkdir()
            for path, text, _ in group:
                (root / path).parent.mkdir(parents=True, exist_ok=True)
                (root / path).write_text(text)
            out = subprocess.run([sys.executable, __file__, str(root)], capture_output=True, text=True)
            for _, _, want in group:
                if out.returncode != 1 or want not in out.stdout:
                    print(f"planted {group[0][0]}: expected exit 1 and '{want}', got {out.returncode}:")
                    print(out.stdout)
                    failures += 1
    print(f"self-test: {len(groups)} planted trees, {failures} not caught")
    return 1 if failures else 0


def main(argv):
    if "--self-test" in argv:
        return self_test()
    root = pathlib.Path(argv[1]) if len(argv) > 1 else pathlib.Path(__file__).resolve().parents[3]
    bad = []
    graphs = {"include": include_edges(root, bad)}
    if "--objects" in argv:
        graphs["call"] = object_edges(argv[argv.index("--objects") + 1], bad)
    check_plugins(root, bad)
    for kind, edges in graphs.items():
        # a circle between the door and its readers is inside frontend/
        folders = collections.defaultdict(set)
        for src, dsts in edges.items():
            folders[layer_folder(src)] |= {layer_folder(d) for d in dsts} - {layer_folder(src)}
        for a, b in PENDING:
            folders[a].discard(b)
        for comp in circles(folders):
            bad.append(f"a circle of {kind}s between folders: " + " <-> ".join(comp))
    for (a, b), why in PENDING.items():
        print(f"pending: host/{a}/ -> host/{b}/: {why}")
    for b in bad:
        print(b)
    print(f"layout: {len(bad)} forbidden dependency(ies) or circle(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
