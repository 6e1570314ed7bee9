import os
import sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
import exportcheck as X


def check(ctx):
    want = X.report_profile(ctx)
    slices, tnames, pnames, instants = X.chrome_threads(X.load_chrome(X.export(ctx, "chrome")))
    X.same_profile(X.profile(slices), want, "chrome export")
    # the child: its returns through spawn() and main() are instants, not slices
    assert len(pnames) == 2 and set(pnames.values()) == {"prog"}, pnames
    (parent,) = slices.keys()
    child = [e for e in instants]
    assert [(e["name"], e["args"]) for e in sorted(child, key=lambda e: X.ns(e["ts"]))] == \
        [("spawn", {"end": "exit without entry"}), ("main", {"end": "exit without entry"})], child
    assert all(e["pid"] != parent[0] for e in child), child
    # the parent: the first image's do_exec and main end at the exec, the
    # second image's main and after_exec return
    got = sorted((s[2], s[3].get("end", "")) for s in slices[parent])
    assert got == sorted([("in_parent", ""), ("spawn", ""), ("do_exec", "exec"), ("main", "exec"),
                          ("main", ""), ("after_exec", "")]), got

    pslices, ptn, ppn, pinst, locs, names = X.load_perfetto(X.export(ctx, "perfetto"))
    X.same_profile(X.profile(pslices), want, "perfetto export")
    assert sorted((s[2], s[3].get("end", "")) for s in pslices[parent]) == got
    assert sorted((k[0] != parent[0], n, m["end"]) for k, n, m in pinst) == \
        [(True, "main", "exit without entry"), (True, "spawn", "exit without entry")], pinst
    assert set(ppn.values()) == {"prog"} and len(ppn) == 2, ppn

    # speedscope: one profile per thread of each process image, each with a
    # name of its own (load_speedscope refuses two of one name): the image
    # the exec started, with the same pid, tid and thread name, says so; the
    # child has no calls
    prof, frames = X.load_speedscope(X.export(ctx, "speedscope"))
    pid = parent[0]
    after = "prog (pid %d, tid %d, after exec 1)" % (pid, pid)
    assert sorted(prof) == ["prog (pid %d, tid %d)" % (pid, pid), after], sorted(prof)
    assert sorted(s[2] for s in prof[after]) == ["after_exec", "main"], prof[after]
