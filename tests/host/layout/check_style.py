#!/usr/bin/env python3
"""The C style (docs/internals/architecture.md, "Style"): every C source and
header of the tree is as the committed .clang-format writes it, and no line
runs past 100 columns. The frozen ABI 1 / ABI 2 headers and the recorded ABI
layout under tests/host/abi/ are kept byte for byte and are not checked.
Usage: check_style.py CLANG_FORMAT ROOT"""
import pathlib
import subprocess
import sys

SKIP_DIRS = {".git", "build"}
KEPT = "tests/host/abi/"


def sources(root):
    for f in sorted(root.rglob("*.[ch]")):
        rel = f.relative_to(root).as_posix()
        if rel.startswith(KEPT) or any(p in SKIP_DIRS or p.startswith("build") for p in f.parts):
            continue
        yield f, rel


def main(clang_format, root):
    root = pathlib.Path(root).resolve()
    bad = []
    files = list(sources(root))
    for f, rel in files:
        for n, line in enumerate(f.read_text().splitlines(), 1):
            if len(line) > 100:
                bad.append(f"{rel}:{n}: {len(line)} columns, more than 100")
    for i in range(0, len(files), 200):
        chunk = [str(f) for f, _ in files[i:i + 200]]
        out = subprocess.run([clang_format, "--dry-run", "-Werror", *chunk], capture_output=True,
                             text=True, cwd=root)
        for line in out.stderr.splitlines():
            if "error:" in line:
                bad.append(line.replace(str(root) + "/", ""))
    for b in bad[:50]:
        print(b)
    print(f"style: {len(files)} files, {len(bad)} finding(s); fix with: clang-format -i FILE")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
