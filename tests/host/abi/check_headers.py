#!/usr/bin/env python3
"""A plugin topic header compiles on its own, and pulls in only the libc headers it may.

    check_headers.py CC INCLUDE_DIR NAME [--libc stdint.h,stddef.h]
    check_headers.py CC --self-test

NAME is a header of INCLUDE_DIR/trnsim/plugin/ (e.g. abi.h). It must compile alone
(-include it into an empty C file, warnings as errors). With --libc, every header
from outside INCLUDE_DIR that a trnsim header includes directly must be one of the
list: the ABI headers stay free of stdio, stdlib and stdarg, which only kit.h (the
helpers, not ABI) may bring. --self-test plants a header that includes stdio.h and
one that does not compile, and checks that both fail with their reason.
"""
import os
import re
import subprocess
import sys
import tempfile


def compile_alone(cc, include_dir, name, extra=()):
    cmd = [cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-I", include_dir, "-include",
           "trnsim/plugin/" + name, "-x", "c", "/dev/null"] + list(extra)
    return subprocess.run(cmd, capture_output=True, text=True)


def libc_includes(cc, include_dir, name):
    """Headers outside include_dir that a header under include_dir includes directly."""
    with tempfile.TemporaryDirectory() as d:  # -H lists no -include'd header: a real one
        src = os.path.join(d, "one.c")
        with open(src, "w") as f:
            f.write('#include "trnsim/plugin/%s"\n' % name)
        r = subprocess.run([cc, "-std=c11", "-I", include_dir, "-E", "-H", "-o", os.devnull, src],
                           capture_output=True, text=True)
    ours = os.path.realpath(include_dir) + os.sep
    stack, found = [], set()
    for line in r.stderr.splitlines():
        m = re.match(r"^(\.+) (.*)$", line)
        if not m:
            continue
        depth, path = len(m.group(1)), os.path.realpath(m.group(2))
        del stack[depth - 1:]
        if stack and stack[-1].startswith(ours) and not path.startswith(ours):
            found.add(os.path.basename(path))
        stack.append(path)
    return found


def check(cc, include_dir, name, libc):
    r = compile_alone(cc, include_dir, name, ["-fsyntax-only"])
    if r.returncode != 0:
        return "trnsim/plugin/%s does not compile on its own:\n%s" % (name, r.stderr)
    if libc is not None:
        extra = sorted(libc_includes(cc, include_dir, name) - libc)
        if extra:
            return ("trnsim/plugin/%s pulls in %s; it may include only %s (helpers that need"
                    " more belong in kit.h)" % (name, ", ".join(extra), ", ".join(sorted(libc))))
    return None


def self_test(cc):
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "trnsim", "plugin"))
        with open(os.path.join(d, "trnsim", "plugin", "noisy.h"), "w") as f:
            f.write("#include <stdint.h>\n#include <stdio.h>\ntypedef int trn_x;\n")
        with open(os.path.join(d, "trnsim", "plugin", "broken.h"), "w") as f:
            f.write("typedef trn_unknown trn_y;\n")
        noisy = check(cc, d, "noisy.h", {"stdint.h", "stddef.h"})
        broken = check(cc, d, "broken.h", None)
        ok = check(cc, d, "noisy.h", None)
    assert noisy and "pulls in stdio.h" in noisy, noisy
    assert broken and "does not compile on its own" in broken, broken
    assert ok is None, ok
    print("check_headers: a planted stdio.h and a planted broken header are both caught")


def main(argv):
    if len(argv) == 3 and argv[2] == "--self-test":
        self_test(argv[1])
        return 0
    if len(argv) not in (4, 6) or (len(argv) == 6 and argv[4] != "--libc"):
        sys.exit(__doc__)
    libc = set(argv[5].split(",")) if len(argv) == 6 else None
    err = check(argv[1], argv[2], argv[3], libc)
    if err:
        print(err)
        return 1
    print("trnsim/plugin/%s compiles on its own%s" % (argv[3], " and includes only "
          + ", ".join(sorted(libc)) + " of libc" if libc else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
