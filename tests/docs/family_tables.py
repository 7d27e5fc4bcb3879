#!/usr/bin/python3
"""The family pages' operand and attribute tables, generated from the
modules' own schemas (the ABI 2 descriptors), so they cannot drift.

    family_tables.py --dump DUMP_SCHEMA --modules DIR --docs DOCS FAMILY... [--write] [--self-test]

For each FAMILY, DUMP_SCHEMA DIR/trnsim-FAMILY.so prints the module's
opcodes, operands and attributes; the tables made from them sit in
DOCS/FAMILY.md between the BEGIN / END marker lines below. Without --write
the page must already hold exactly those tables (the test); with --write the
block is (re)written, inserted before the page's first "## " heading if the
page has none yet. --self-test also checks that a page whose block was
changed, or that lacks the block, fails.
"""
import argparse
import difflib
import os
import subprocess
import sys

BEGIN = "<!-- BEGIN operand and attribute tables: generated from the module's schema by tests/docs/family_tables.py --write; do not edit -->"
END = "<!-- END operand and attribute tables -->"


def cell(s):
    return "" if s == "-" else s.replace("|", "\\|")


def schema(dump, module):
    out = subprocess.run([dump, module], capture_output=True, text=True, check=True).stdout
    ops, operands, attrs, noattr = [], {}, {}, {}
    for line in out.splitlines():
        f = line.split("\t")
        if f[0] == "op":
            ops.append((int(f[2]), f[3]))
        elif f[0] == "operand":
            operands.setdefault(f[1], []).append(f[2:])
        elif f[0] == "attr":
            attrs.setdefault(f[1], []).append(f[2:])
        elif f[0] == "noattr":
            noattr[f[1]] = f[2]
    return sorted(ops), operands, attrs, noattr


def tables(family, sch):
    ops, operands, attrs, noattr = sch
    out = [BEGIN, "## Operands and attributes", "",
           f"What each opcode of `trnsim-{family}` takes, in operand order, as the",
           "module's schema declares it (`trnsim check` and `trnsim run` enforce the",
           "attributes when the program loads). [P][n]: P partitions of n elements each.", "",
           "| IT | opcode | # | operand | role | what |", "|---|---|---|---|---|---|"]
    for it, name in ops:
        for idx, d, role, flags, help_ in operands.get(name, []):
            tag = {"optional": " (optional)", "repeated": " (repeated)"}.get(flags, "")
            out.append(f"| {it} | `{name}` | {idx} | {'input' if d == 'in' else 'output'}{tag} | `{role}` | {cell(help_)} |")
    out += ["", "| opcode | attribute | type | default | values | meaning |", "|---|---|---|---|---|---|"]
    for it, name in ops:
        for key, types, default, values, help_ in attrs.get(name, []):
            default = "**required**" if default == "required" else f"`{default}`" if default != "-" else ""
            vals = ", ".join(f"`{v}`" for v in values.split(", ")) if values != "-" else ""
            out.append(f"| `{name}` | `{key}` | {types} | {default} | {vals} | {cell(help_)} |")
    none = [n for _, n in ops if noattr.get(n) == "none"]
    unchecked = [n for _, n in ops if noattr.get(n) == "unchecked"]
    if none:
        out += ["", "No attributes (any attribute is an error): " + ", ".join(f"`{n}`" for n in none) + "."]
    if unchecked:
        out += ["", "No attribute schema (attributes are not checked): " + ", ".join(f"`{n}`" for n in unchecked) + "."]
    out.append(END)
    return "\n".join(out) + "\n"


def current(text):
    if BEGIN not in text or END not in text:
        return None
    a = text.index(BEGIN)
    b = text.index(END) + len(END) + 1
    return text[a:b]


def place(text, block):
    old = current(text)
    if old is not None:
        return text.replace(old, block)
    i = text.find("\n## ")
    return text + "\n" + block if i < 0 else text[:i + 1] + block + "\n" + text[i + 1:]


def problems(text, block, page):
    old = current(text)
    if old is None:
        return f"{page} has no generated operand / attribute tables (run tests/docs/family_tables.py --write)"
    if old != block:
        diff = "\n".join(difflib.unified_diff(old.splitlines(), block.splitlines(), "page", "schema", lineterm="", n=0))
        return f"{page}: the tables differ from the module's schema (run tests/docs/family_tables.py --write):\n{diff}"
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dump", required=True)
    ap.add_argument("--modules", required=True)
    ap.add_argument("--docs", required=True)
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("families", nargs="+")
    a = ap.parse_args()
    failures = 0
    for fam in a.families:
        page = os.path.join(a.docs, f"{fam}.md")
        block = tables(fam, schema(a.dump, os.path.join(a.modules, f"trnsim-{fam}.so")))
        text = open(page).read()
        if a.write:
            new = place(text, block)
            if new != text:
                open(page, "w").write(new)
                print(f"wrote the tables of {page}")
            continue
        p = problems(text, block, page)
        if p:
            print(f"FAIL: {p}")
            failures += 1
            continue
        print(f"ok: {page} holds its module's operand and attribute tables ({block.count(chr(10))} lines)")
        if a.self_test:
            rows = [l for l in block.splitlines() if l.startswith("| ") and "`" in l]
            changed = text.replace(rows[-1], rows[-1].replace("|", "| x", 1), 1)
            assert problems(changed, block, page), f"self-test: a changed row of {page} passes"
            assert problems(text.replace(current(text), ""), block, page), f"self-test: {page} without tables passes"
    if a.self_test and not a.write and not failures:
        print("ok: self-test: a changed row and a missing block are both caught")
    return 1 if failures else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except AssertionError as e:
        print(f"FAIL: {e}")
        sys.exit(1)
