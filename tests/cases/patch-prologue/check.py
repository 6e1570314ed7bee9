"""-P '*' on a program built with no instrumentation: the trace's counts are
the program's own, library callbacks nest, and the functions that cannot be
moved safely are refused with their reason, and still run."""
import re


def check(ctx):
    out = ctx.record.stdout
    assert "tot=2488 a0=0 asm=10,0,4,0,6,-1,8\n" in out, out
    want = dict((k, int(v)) for k, v in re.findall(r"(\w+)=(\d+)", out.splitlines()[1]))
    got = ctx.counts()
    for fn in ("rec", "sw", "tail", "leaf", "cmp", "worker"):
        assert got.get(fn) == want[fn], (fn, got.get(fn), want[fn])
    # the hand-written function of exactly 5 bytes moves whole (called by
    # call_first, whose first instruction is a direct call, and by
    # icall_first); main once; hot_part twice, its cold part not at all
    assert got.get("tiny") == 2 and got.get("main") == 1 and got.get("call_first") == 1, got
    assert got.get("hot_part") == 2, got
    # library calls of the patched program, as with an instrumented one
    assert got.get("qsort") == 1 and got.get("pthread_create") == 2, got
    # refused, and never in the trace
    for fn in ("into_first", "loop_to_start", "icall_first", "tiny3", "_start", "hot_part.cold"):
        assert fn not in got, (fn, got)
    info = ctx.run("info", check=True).stdout
    reasons = {
        "into_first": "a branch lands inside its first bytes",
        "loop_to_start": "it jumps back to its first instruction",
        "icall_first": "an indirect call among its first bytes",
        "hot_part.cold": "a part of another function (.cold)",
        "tiny3": "too short",
        "_start": "not in .text (.init, .plt, .fini, _start)",
    }
    for fn, why in reasons.items():
        assert re.search(r"-P skipped %s +0x[0-9a-f]+: %s" % (re.escape(fn), re.escape(why)), info), (fn, info)
    # exactly those, and the start-up code that every executable links in:
    # _init and _fini (.init, .fini), _start, and crtstuff's four functions,
    # whose symbols have no size
    skipped = re.findall(r"-P skipped (\S+) +0x[0-9a-f]+: ", info)
    crt = {"_init": "not in .text", "_fini": "not in .text", "_start": "not in .text",
           "deregister_tm_clones": "its symbol has no size", "register_tm_clones": "its symbol has no size",
           "__do_global_dtors_aux": "its symbol has no size", "frame_dummy": "its symbol has no size"}
    assert sorted(skipped) == sorted(list(reasons) + [f for f in crt if f != "_start"]), skipped
    for fn, why in crt.items():
        assert re.search(r"-P skipped %s +0x[0-9a-f]+: %s" % (re.escape(fn), re.escape(why)), info), (fn, info)
    # main worker tail sw rec leaf cmp tiny call_first hot_part
    assert "patched (-P): 10 functions, 12 skipped (see below)\n" in info, info
    assert re.search(r"-P: 10 functions patched in '.*/prog'", info), info
    # record says it too
    assert "fntrace: -P patched 10 functions, skipped 12 ('fntrace info' lists them and why)\n" in \
        ctx.record.stderr, ctx.record.stderr
    # -P selects: only sw and what matches rec*; nothing else patched
    import os
    d = os.path.join(ctx.work, "sel.data")
    p = ctx.run("record", "-q", "-d", d, "-P", "sw", "-P", "rec*", "--no-libcall", "--",
                os.path.join(ctx.work, "prog"), data=False)
    assert p.returncode == 0 and p.stdout == out, (p.returncode, p.stdout, p.stderr)
    rows = ctx.counts("-d", d)
    assert rows == {"sw": want["sw"], "rec": want["rec"]}, rows

    # Every function body is scanned for branches into the moved bytes by
    # Zydis, or by capstone when Zydis is not there (FNTRACE_PATCH_SCAN=
    # capstone stands in for that): the same verdicts, here and on a large
    # real program, fntrace itself built -O2 without instrumentation.
    def verdicts(d):
        info = ctx.run("info", "-d", d, check=True).stdout
        return sorted(re.sub(r"0x[0-9a-f]+", "ADDR", l) for l in info.splitlines() if ("-P " in l or "(-P)" in l) and not l.startswith("record options:"))

    env = dict(os.environ, FNTRACE_PATCH_SCAN="capstone")
    d2 = os.path.join(ctx.work, "capstone.data")
    p = ctx.run("record", "-q", "-d", d2, "-P", "*", "--", os.path.join(ctx.work, "prog"), data=False, env=env)
    assert p.returncode == 0 and p.stdout == out, (p.returncode, p.stdout, p.stderr)
    assert verdicts(d2) == verdicts(ctx.data), (verdicts(d2), verdicts(ctx.data))
    assert ctx.counts("-d", d2) == got, (ctx.counts("-d", d2), got)
    if ctx.build == "gcc-O2" and "san" not in os.path.basename(os.path.dirname(ctx.fntrace)):
        big = {}
        for scan in ("zydis", "capstone"):
            d3 = os.path.join(ctx.work, "self-%s.data" % scan)
            p = ctx.run("record", "-q", "-d", d3, "-P", "*", "--", ctx.fntrace, "info", "-d", ctx.data,
                        data=False, env=dict(os.environ, FNTRACE_PATCH_SCAN=scan))
            assert p.returncode == 0 and "-P skipped" in p.stdout, (p.returncode, p.stderr)
            big[scan] = verdicts(d3)
        m = re.search(r"patched \(-P\): (\d+) functions", "\n".join(big["zydis"]))
        assert m and int(m.group(1)) > 400, big["zydis"]
        assert big["zydis"] == big["capstone"], (big["zydis"], big["capstone"])
