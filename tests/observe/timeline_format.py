"""The Chrome trace-event checks the timeline tests share
(docs/observability.md): the object form with traceEvents; every event's
fields and ph type; metadata naming the process and one track per core;
complete ('X') slices with a name, ts and dur, in time order on each track
and properly nested; every flow id used by exactly one 's' and one 'f'
('f' bound to the enclosing slice), each inside an instruction slice (not a
wait) of its track, the 's' no later than the 'f', on another core."""
import json
from collections import defaultdict

REQUIRED = {"X": {"name", "ph", "ts", "dur", "pid", "tid", "cat", "args"},
            "M": {"name", "ph", "pid", "tid", "args"},
            "s": {"name", "ph", "ts", "pid", "tid", "id", "cat"},
            "f": {"name", "ph", "ts", "pid", "tid", "id", "cat", "bp"}}


def validate(path, cores):
    """The schema checks; returns the events by kind for the caller's own."""
    doc = json.load(open(path))
    assert set(doc) >= {"traceEvents", "displayTimeUnit"} and doc["displayTimeUnit"] == "ns", set(doc)
    ev = doc["traceEvents"]
    for e in ev:
        assert e.get("ph") in REQUIRED, e
        missing = REQUIRED[e["ph"]] - set(e)
        assert not missing, (missing, e)
        assert e["pid"] == 1 and isinstance(e["tid"], int) and 0 <= e["tid"] < cores, e
        if "ts" in e:
            assert isinstance(e["ts"], (int, float)) and e["ts"] >= 0, e
    meta = [e for e in ev if e["ph"] == "M"]
    names = {(e["name"], e["tid"]): e["args"] for e in meta}
    assert names[("process_name", 0)]["name"].startswith("trnsim "), names
    for c in range(cores):
        assert names[("thread_name", c)] == {"name": f"core {c}"}, names
        assert names[("thread_sort_index", c)] == {"sort_index": c}
    slices = [e for e in ev if e["ph"] == "X"]
    by_track = defaultdict(list)
    for e in slices:
        assert e["dur"] >= 0 and isinstance(e["name"], str) and e["name"], e
        by_track[e["tid"]].append(e)
    for tid, xs in by_track.items():
        ts = [x["ts"] for x in xs]
        assert ts == sorted(ts), f"core {tid}: slices out of time order {ts}"
    # slices on one track nest or follow each other, never overlap partly
    for tid, xs in by_track.items():
        stack = []
        for x in xs:
            while stack and x["ts"] >= stack[-1]["ts"] + stack[-1]["dur"] - 1e-9:
                stack.pop()
            if stack:
                assert x["ts"] + x["dur"] <= stack[-1]["ts"] + stack[-1]["dur"] + 1e-6, (stack[-1], x)
            stack.append(x)
    flows = defaultdict(list)
    for e in ev:
        if e["ph"] in "sf":
            assert e["bp"] == "e" if e["ph"] == "f" else True
            inside = [x for x in by_track[e["tid"]] if x["ts"] <= e["ts"] <= x["ts"] + x["dur"] + 1e-6
                      and x["name"] != "wait"]
            assert inside, f"flow event outside every instruction slice of core {e['tid']}: {e}"
            flows[e["id"]].append(e)
    for fid, es in flows.items():
        kinds = sorted(x["ph"] for x in es)
        assert kinds == ["f", "s"], (fid, es)
        s, f = (x for x in sorted(es, key=lambda x: x["ph"], reverse=True))
        assert s["ts"] <= f["ts"] and s["tid"] != f["tid"], (s, f)
    return slices, flows
