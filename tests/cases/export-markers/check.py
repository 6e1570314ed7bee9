import os
import sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
import exportcheck as X


def check(ctx):
    want = X.report_profile(ctx)
    # longjmp: the four deep() frames end where the jump landed, marked
    # "unwound"; abort: nested, die_here and main never returned, marked
    # "trace ended" and closed at the thread's last event (as report counts them)
    expect = sorted([("deep", "unwound")] * 4 + [("fine", None)] * 2 +
                    [("nested", "trace ended"), ("die_here", "trace ended"), ("main", "trace ended")])
    slices, tnames, pnames, instants = X.chrome_threads(X.load_chrome(X.export(ctx, "chrome")))
    assert not instants, instants
    (sl,) = slices.values()
    assert sorted((s[2], s[3].get("end")) for s in sl) == expect, sl
    X.same_profile(X.profile(slices), want, "chrome export")
    ends = {s[2]: s[1] for s in sl if s[3].get("end") == "trace ended"}
    assert len(set(ends.values())) == 1, ends        # all at the thread's last event
    nodes = X.nest(sl)
    parent = {n[2]: nodes[n[4]][2] if n[4] is not None else None for n in nodes if n[2] != "deep"}
    assert parent["die_here"] == "nested" and parent["nested"] == "main", parent
    assert all(s[3]["src"].endswith("export-markers/prog.c:%d" % {"deep": 6, "fine": 7, "die_here": 8,
                                                                 "nested": 9, "main": 10}[s[2]]) for s in sl), sl

    pslices, ptn, ppn, pinst, locs, names = X.load_perfetto(X.export(ctx, "perfetto"))
    (psl,) = pslices.values()
    assert sorted((s[2], s[3].get("end")) for s in psl) == expect, psl
    X.same_profile(X.profile(pslices), want, "perfetto export")
    assert sorted(s[:3] for s in psl) == sorted(s[:3] for s in sl)
