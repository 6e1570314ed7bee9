import os
import re
import sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
import exportcheck as X
from run import normalise_replay


def check(ctx):
    # fnt_capture_stack() in the uninstrumented library: exact frames, each
    # module!function (file:line), the call's own line
    p = ctx.run("stacks", "-d", ctx.data, check=True)
    heads = [l for l in p.stdout.splitlines() if l.startswith("stack ")]
    assert len(heads) == 1 and re.match(r"stack 1 at \d+\.\d{3} [mu]?s, thread \d+ \(prog\), pid \d+:$",
                                        heads[0]), p.stdout
    frames = [l.strip() for l in p.stdout.splitlines() if l.startswith("  #")]
    want = ["#0  libuninstr.so!lib_inner (uninstr.c:8)",
            "#1  libuninstr.so!lib_outer (uninstr.c:15)",
            "#2  prog!step (prog.c:9)",
            "#3  prog!main (prog.c:17)"]
    assert frames[:4] == want, p.stdout
    assert any("__libc_start" in f for f in frames[4:]), p.stdout

    # the snapshot taken by fnt_snapshot("slow request"): everything up to
    # that call, read like any trace; the name is made file-safe
    snap = os.path.join(ctx.data, "snapshot-slow_request")
    assert os.path.isdir(snap), os.listdir(ctx.data)
    r = ctx.run("replay", "-d", snap, check=True)
    text = normalise_replay(r.stdout)
    assert text.count("lib work() {") == 3 and text.count("after() {") == 1, text
    assert text.rstrip().endswith("} /* main (no return: trace ended) */"), text
    assert '/* mark: end "quoted" <&> */' in text, text

    # markers in the exports: chrome instant events and perfetto instants
    events = X.load_chrome(X.export(ctx, "chrome"))
    slices, tnames, pnames, instants = X.chrome_threads(events)
    assert [(e["name"], e.get("cat"), e["s"]) for e in instants] == \
        [("start", "mark", "t"), ('end "quoted" <&>', "mark", "t")], instants
    names = sorted(s[2] for sl in slices.values() for s in sl)
    assert names.count("lib work") == 3 and names.count("block") == 2 and "hidden" not in names, names
    pslices, ptn, ppn, pinst, locs, pnames2 = X.load_perfetto(X.export(ctx, "perfetto"))
    assert [i[1] for i in pinst] == ["start", 'end "quoted" <&>'], pinst
