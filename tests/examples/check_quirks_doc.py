#!/usr/bin/python3
"""Every quirk `trnsim quirks` prints (host and loaded modules) has its line in
docs/quirks.md, and every quirk named there is printed: the doc and the code
cannot drift apart. Usage: check_quirks_doc.py TRNSIM CONFIG DOC"""
import re
import subprocess
import sys

trnsim, config, doc = sys.argv[1:4]
out = subprocess.run([trnsim, "quirks", "--config", config], capture_output=True, text=True, check=True).stdout
printed = {line.split()[0] for line in out.splitlines()[1:] if line.strip()}
documented = set(re.findall(r"^\| `([a-z0-9_.]+)` \|", open(doc).read(), re.M))
missing, stale = printed - documented, documented - printed
if missing or stale:
    print("quirks printed but not in docs/quirks.md:", sorted(missing))
    print("quirks in docs/quirks.md but not printed:", sorted(stale))
    sys.exit(1)
print(f"ok: {len(printed)} quirks printed and documented")
