#!/usr/bin/env python3
"""Fail when a file includes across a forbidden direction of the layout
(docs/internals/architecture.md): cli -> runtime -> frontend -> memory ->
arith -> common, and plugins see include/trnsim/ and their own folder only."""
import pathlib
import re
import sys

ALLOWED = {
    "common": set(),
    "arith": {"common"},
    "memory": {"arith", "common"},
    "frontend": {"memory", "arith", "common"},
    "runtime": {"frontend", "memory", "arith", "common"},
    "cli": {"runtime", "frontend", "memory", "arith", "common"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def check_host(root, bad):
    for f in sorted((root / "host").rglob("*.[ch]")):
        part = f.relative_to(root / "host").parts[0]
        if part not in ALLOWED:
            bad.append(f"{f}: host/{part}/ is not a known part of the layout")
            continue
        for inc in INCLUDE.findall(f.read_text()):
            if inc.startswith("trnsim/"):
                continue
            target = inc.split("/")[0] if "/" in inc else part
            if target != part and target not in ALLOWED[part]:
                bad.append(f"{f}: includes {inc}: host/{part}/ may not depend on host/{target}/")


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


def main():
    root = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[2]
    bad = []
    check_host(root, bad)
    check_plugins(root, bad)
    for b in bad:
        print(b)
    print(f"layout: {len(bad)} forbidden include(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
