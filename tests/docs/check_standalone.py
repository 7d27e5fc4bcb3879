#!/usr/bin/python3
"""Every document stands on its own: no path outside the repository and no
issue numbers in the docs, the README or the sources' comments.

    check_standalone.py ROOT [--self-test]

Scans README.md, every file under docs/, and every text file under host/,
plugins/, include/, tests/, bench/, examples/, python/, cmake/, config/, man/
and .ci/ (whatever of those exist), and fails, one line per hit
(FILE:LINE: what), on
  - a path outside the repository: the parent-directory "shared" folder or
    the machine's /work tree, and the seeds or vectors folders below it;
  - an issue number: the word issue followed by a number, with or without "#".
Where a doc relies on the reference's behaviour it cites the reference's
function and address instead (docs/reference.md).
--self-test first plants one line of each kind in a copy and checks that
each is reported.
"""
import os
import re
import shutil
import sys
import tempfile

DIRS = ("docs", "host", "plugins", "include", "tests", "bench", "examples", "python", "cmake", "config",
        "man", ".ci")
TEXT = (".md", ".c", ".h", ".py", ".txt", ".cmake", ".in", ".cfg", ".json", ".sh", ".h2m", ".map", "")
# written in pieces so this file does not match itself
DOTS = re.escape(".." + "/")
PATTERNS = [
    (re.compile(DOTS + "shared" + r"\b"), "a path outside the repository (the parent 'shared' folder)"),
    (re.compile(r"/" + "work" + r"/(shared|main|wt)\b"), "a path outside the repository (/work)"),
    (re.compile(r"\bshared" + r"/(seeds|vectors)\b"), "a path outside the repository (the shared seeds or vectors)"),
    (re.compile(r"\b[Ii]ssues?\s*#?\s*\d+"), "an issue number"),
]


def files(root):
    out = [os.path.join(root, "README.md")] if os.path.exists(os.path.join(root, "README.md")) else []
    for d in DIRS:
        for base, dirs, names in os.walk(os.path.join(root, d)):
            dirs[:] = [x for x in dirs if not x.startswith("build") and x not in ("__pycache__", ".git")]
            for n in names:
                if os.path.splitext(n)[1] in TEXT or n in ("run", "Makefile"):
                    out.append(os.path.join(base, n))
    return sorted(out)


def hits(root):
    found = []
    for path in files(root):
        try:
            text = open(path, encoding="utf-8").read()
        except UnicodeDecodeError:
            continue
        for no, line in enumerate(text.splitlines(), 1):
            for pat, what in PATTERNS:
                m = pat.search(line)
                if m:  # one report per line
                    found.append(f"{os.path.relpath(path, root)}:{no}: {what}: '{m.group(0)}'")
                    break
    return found


def self_test():
    plants = {"docs/a.md": "see " + ".." + "/shared" + "/seeds/000.txt", "host/b.c": "/* fixed for Iss" + "ue 7 */",
              "plugins/x/c.h": "// iss" + "ue #3", "tests/d.py": "# from /wo" + "rk/shared/DESIGN.md",
              "README.md": "as in shared" + "/vectors/rng"}
    with tempfile.TemporaryDirectory() as d:
        for rel, line in plants.items():
            os.makedirs(os.path.dirname(os.path.join(d, rel)) or d, exist_ok=True)
            with open(os.path.join(d, rel), "w") as f:
                f.write("clean line\n" + line + "\n")
        got = hits(d)
        for rel in plants:
            if not any(h.startswith(f"{rel}:2: ") for h in got):
                raise SystemExit(f"FAIL: self-test: the planted line in {rel} was not reported ({got})")
        if len(got) != len(plants):
            raise SystemExit(f"FAIL: self-test: expected {len(plants)} hits, got {got}")
    print(f"ok: self-test: each of the {len(plants)} planted references is reported")


def main():
    root = sys.argv[1]
    if "--self-test" in sys.argv:
        self_test()
    found = hits(root)
    for h in found:
        print(h)
    if found:
        print(f"FAIL: {len(found)} reference(s) outside the repository or to issue numbers")
        return 1
    print(f"ok: {len(files(root))} files stand on their own")
    return 0


if __name__ == "__main__":
    sys.exit(main())
