#!/usr/bin/python3
"""Fields the BIR reader once dropped or overwrote, run as written: each
case changes a BIR kernel and its native twin the same way, runs both and
requires the same bytes, and the change's documented effect on the values.

    bir_findings.py TRNSIM DIR

- a DMATrigger's explicit `trigger` is kept (two triggers sharing an id
  share one round robin), not replaced by the instruction's number;
- `engine` on the RNG state opcodes is the generator's (an integer), so
  SetRandState / GetRandState reach engine 5 and GetRandState2 the gen-1
  state; an issuing engine's name there is accepted and changes nothing."""
import copy
import json
import os
import sys
import tempfile

import numpy as np

from bir_case import CASES, run, same_bits


def rng_insts(doc):
    return doc["functions"][0]["blocks"][0]["instructions"]


def set_engine(bir_i, nat_i, engine, **extra):
    def bir(doc):
        rng_insts(doc)[bir_i].update(engine=engine, **extra.get("bir", {}))

    def nat(doc):
        doc["instructions"][nat_i].update(engine=engine, **extra.get("native", {}))
    return bir, nat


ST2_OUT = {"kind": "physical_ap", "ap": [[24, 128], [1, 24]], "dtype": "uint32", "offset": 0,
           "memsetref": "st2"}


def seed_engine5():
    """SetRandState with engine 5 seeds gen-2 (its MT19937-64 seed); GetRandState
    with engine 5 saves the gen-2 state into st2 (24 words), then the
    gen-1 state is saved as before."""
    def bir(doc):
        i = rng_insts(doc)
        i.insert(6, copy.deepcopy(i[5]))
        i[3].update(engine=5, ins=[{"kind": "imm_value", "dtype": "uint64", "value": 99}])
        i[5].update(engine=5, outs=[ST2_OUT])

    def nat(doc):
        i = doc["instructions"]
        i.insert(6, copy.deepcopy(i[5]))
        i[3].update(engine=5, seed=99)
        i[5].update(engine=5, outputs=["st2"])
    return bir, nat


def gen1_through_get2():
    """GetRandState2 with engine 1 saves the gen-1 state: the same 6 words
    GetRandState saves."""
    def bir(doc):
        rng_insts(doc)[5].update(opcode="GetRandState2", engine=1)

    def nat(doc):
        doc["instructions"][5].update(opcode="GetRandState2", engine=1)
    return bir, nat


def issuing_engine():
    """An issuing engine's name on an RNG state opcode: not modelled."""
    def bir(doc):
        for k in (0, 2, 3, 5):
            rng_insts(doc)[k]["engine"] = "act"
    return bir, lambda doc: None


RNG_CASES = [("SetRandState / GetRandState engine 5", seed_engine5(), "differs"),
             ("GetRandState2 engine 1", gen1_through_get2(), "same"),
             ("issuing engine 'act'", issuing_engine(), "same")]


def write(doc, path):
    with open(path, "w") as fh:
        json.dump(doc, fh)
    return path


def load(path):
    with open(path) as fh:
        return json.load(fh)


def check_rng(trnsim, tmp):
    c = CASES["rng_state"]
    base_bir, base_nat = load(c["bir"]), load(c["native"])
    os.makedirs(os.path.join(tmp, "base"))
    base = run(trnsim, c["bir"], c["config"], {}, c["outputs"], os.path.join(tmp, "base"))
    for k, (name, (mb, mn), expect) in enumerate(RNG_CASES):
        b, n = copy.deepcopy(base_bir), copy.deepcopy(base_nat)
        mb(b)
        mn(n)
        out_b, out_n = os.path.join(tmp, f"b{k}"), os.path.join(tmp, f"n{k}")
        os.makedirs(out_b)
        os.makedirs(out_n)
        got = run(trnsim, write(b, os.path.join(tmp, f"k{k}.bir.json")), c["config"], {},
                  c["outputs"], out_b)
        nat = run(trnsim, write(n, os.path.join(tmp, f"k{k}.json")), c["config"], {},
                  c["outputs"], out_n)
        same_bits(got, nat, f"{name}: BIR vs native")
        differs = any(got[o].tobytes() != base[o].tobytes() for o in c["outputs"])
        if differs != (expect == "differs"):
            how = "differ from" if differs else "equal"
            sys.exit(f"FAIL: {name}: the outputs {how} the unchanged kernel's")
        print(f"ok: {name}: BIR and native agree; outputs {expect} as documented")


def check_trigger(trnsim, tmp):
    """Two DMATriggers in one loop trip sharing `trigger` 7 share one round
    robin (copy, max, copy, max ...): each row ends as max(max(0, a), b).
    Without the field each trigger has its own (the instruction's number):
    both fire copy, then max, then copy: rows a, max, a."""
    c = CASES["dma_trigger"]
    rng = np.random.default_rng(7)
    a, b, m = (rng.integers(-50, 50, size=s).astype(np.float32) for s in ((4,), (4,), (2, 3)))
    files = {}
    for k, v in (("a", a), ("b", b), ("m", m)):
        files[k] = os.path.join(tmp, f"t_{k}.npy")
        np.save(files[k], v)
    mx = np.maximum(np.maximum(np.float32(0), a), b)
    for shared, want in ((True, np.stack([mx, mx, mx])), (False, np.stack([a, mx, a]))):
        doc = load(c["bir"])
        fire = doc["functions"][0]["blocks"][0]["instructions"][1]["blocks"][0]["instructions"]
        fire.append(dict(fire[0], name="trigger_again"))
        if shared:
            for t in fire:
                t["trigger"] = 7
        out = os.path.join(tmp, f"trig{int(shared)}")
        os.makedirs(out)
        prog = write(doc, os.path.join(tmp, f"trig{int(shared)}.bir.json"))
        got = run(trnsim, prog, c["config"], files, ["rows"], out)
        if not np.array_equal(got["rows"], want):
            sys.exit(f"FAIL: DMATrigger {'shared' if shared else 'own'} trigger: rows "
                     f"{got['rows'].tolist()}, want {want.tolist()}")
        which = "a shared explicit" if shared else "its own"
        print(f"ok: DMATrigger with {which} trigger: rows as documented")


def main():
    trnsim, root = sys.argv[1], sys.argv[2]
    os.chdir(root)
    with tempfile.TemporaryDirectory(prefix="birfind-") as tmp:
        check_rng(trnsim, tmp)
        check_trigger(trnsim, tmp)


if __name__ == "__main__":
    main()
