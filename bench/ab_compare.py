#!/usr/bin/python3
"""Two trnsim-bench binaries against each other, e.g. main's and a branch's:

    bench/ab_compare.py BASE/trnsim-bench NEW/trnsim-bench [CASE] [--runs N] [--cpu-time] [--quick]

Runs `trnsim-bench CASE` from each binary N times, alternating which goes
first, and for every result line (a kernel and size) takes the throughput
each printed. The ratio of a pair is new / base (> 1: the new binary is
faster); the report is the median of the paired ratios with its quartiles,
and each side's median throughput. --cpu-time and --quick are handed to
both binaries.
A benchmark, never a test: nothing fails on a time."""
import re
import statistics
import subprocess
import sys

# bench_report's line: the kernel in 34 columns, the size, the rate and its
# unit, then "vs" and the baseline.
RATE = re.compile(r"^(.*?)\s+([\d.]+) ([KMGT]?)\S*/s\s+vs ")
SCALE = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


PASSED = ("--cpu-time", "--quick")


def rates(binary, case):
    flags = [a for a in sys.argv[1:] if a in PASSED]
    out = subprocess.run([binary, case] + flags, capture_output=True, text=True, check=True).stdout
    got = {}
    for line in out.splitlines():
        m = RATE.match(line[35:]) if len(line) > 35 else None
        if m:
            got[(line[:34].strip(), m.group(1).strip())] = float(m.group(2)) * SCALE[m.group(3)]
    return got


def quartiles(v):
    v = sorted(v)
    if len(v) < 2:
        return v[0], v[0], v[0]
    q = statistics.quantiles(v, n=4, method="inclusive")
    return q[0], q[1], q[2]


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    runs = 7
    if "--runs" in sys.argv:
        runs = int(sys.argv[sys.argv.index("--runs") + 1])
        args.remove(str(runs))
    base, new = args[0], args[1]
    case = args[2] if len(args) > 2 else "host_dispatch"
    ratios, seen = {}, {}
    for r in range(runs):
        order = [(base, "base"), (new, "new")] if r % 2 == 0 else [(new, "new"), (base, "base")]
        got = {tag: rates(b, case) for b, tag in order}
        for key in got["base"]:
            if key in got["new"]:
                ratios.setdefault(key, []).append(got["new"][key] / got["base"][key])
                seen.setdefault(key, ([], []))
                seen[key][0].append(got["base"][key])
                seen[key][1].append(got["new"][key])
    model = "unknown"
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    clock = ", thread CPU time" if "--cpu-time" in sys.argv else ""
    print(f"{case}: new / base throughput, median of {runs} alternated pairs (machine: {model}{clock})")
    for key, v in ratios.items():
        q1, med, q3 = quartiles(v)
        b, n = (statistics.median(x) for x in seen[key])
        print(f"  {key[0]:<34} {key[1]:<16} ratio {med:.3f} (IQR {q1:.3f}-{q3:.3f})  base {b:.4g}/s  new {n:.4g}/s")


main()
