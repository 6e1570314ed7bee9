import os
import re
import tarfile


def per_event(ctx, d):
    """bytes per event on disk, as `fntrace info` gives them"""
    out = ctx.run("info", "-d", d, check=True).stdout
    m = re.search(r"^bytes: .*\(([\d.]+) bytes per event on disk\)$", out, re.M)
    assert m, out
    return float(m.group(1))


def names(out):
    return out.split()


def calls(ctx, d):
    """the calls of main, g and the f functions (slot_of and pick, which
    find them, and libc's inline wrappers at -O2 are traced too)"""
    return {k: v for k, v in ctx.counts("-d", d).items() if k in ("main", "g") or re.match(r"f\d+$", k)}


def check(ctx):
    # two functions of one slot of the address cache, called in turn: the
    # format's 64 slots are 32 sets of two, so after their first calls in a
    # chunk both stay cached and each event takes as many bytes as with two
    # functions of different sets, not a NEW event with the address (about
    # 1 byte more each, and 4-5 ns more to write).  Against that baseline,
    # recorded beside it: an event's head grows with the pause before it,
    # so a loaded machine moves both
    n = 400000
    # (up to 3 pairs: a pause of the machine in one recording only)
    for prog in ("prog", "prog-fentry"):
        for _ in range(3):
            size = {}
            for mode in ("1", "2"):
                d, rec = ctx.record_build(prog, args=(mode, str(n)))
                a, b = names(rec.stdout)
                assert calls(ctx, d) == {"main": 1, a: n, b: n}, (prog, mode, calls(ctx, d))
                size[mode] = per_event(ctx, d)
            if size["2"] - size["1"] < 0.4:
                break
        assert size["2"] - size["1"] < 0.4, (prog, "bytes per event, one slot / two sets", size)

    # three in turn: every event is a NEW one.  The other ways of writing
    # an event must keep the writer's cache as the reader rebuilds it:
    # the C hook (--callsite), a trigger's function (its slot is tagged so
    # that each of its events takes the rare path), the values' fast path
    # of -pg -mfentry (-A), and -C, which erases the entries of the calls
    # that do not lead to g and puts the cache back as it was before them
    n, k = 100000, 1000
    runs = [
        ("prog", []), ("prog", ["--callsite"]), ("prog-fentry", []), ("prog-fentry", ["-A", "*@arg1"]),
        ("prog", ["-T", "f*@depth=5"]), ("prog-fentry", ["-T", "f*@depth=5"]),
    ]
    for prog, opts in runs:
        d, rec = ctx.record_build(prog, args=("3", str(n), str(k)), record_args=opts)
        a, b, c = names(rec.stdout)
        got = calls(ctx, d)
        assert got == {"main": 1, a: n, b: n, c: n, "g": n // k}, (prog, opts, got)
    for prog in ("prog", "prog-fentry"):
        d, rec = ctx.record_build(prog, args=("3", str(n), str(k)), record_args=["-C", "g"])
        a, b, c = names(rec.stdout)
        got = calls(ctx, d)
        assert got == {"main": 1, b: n // k, "g": n // k}, (prog, "-C g", got)

    # a trace written before the two-way sets (format version 1, every
    # event of the three a NEW one into its single slot) reads as it did
    here = os.path.dirname(os.path.abspath(__file__))
    with tarfile.open(os.path.join(here, "v1.tar.gz")) as tf:
        tf.extractall(ctx.work)
    p = ctx.run("replay", "-d", os.path.join(ctx.work, "v1.data"), check=True)
    with open(os.path.join(here, "v1-replay.txt")) as f:
        assert p.stdout == f.read(), p.stdout
