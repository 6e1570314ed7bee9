"""Library call names come from the executable's .dynsym and its GOT
relocations: with no debug info (built without -g) and in a stripped
executable (no .symtab either), report, graph and every export name qsort,
malloc, printf and free as the program wrote them, with their exact counts,
never name@plt or an address.  The exports' profiles equal report's."""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import exportcheck as X  # noqa: E402

LIBS = {"malloc": 1, "qsort": 1, "printf": 1, "free": 1}


def build(ctx, name, strip):
    out = os.path.join(ctx.work, name)
    cc = {"gcc": "gcc", "clang": "clang"}[ctx.compiler]
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "prog.c")
    subprocess.run([cc, "-" + ctx.opt, "-finstrument-functions", "-o", out, src], check=True)
    if strip:
        subprocess.run(["strip", out], check=True)
    syms = subprocess.run(["readelf", "-S", "--wide", out], capture_output=True, text=True, check=True).stdout
    assert ".debug_info" not in syms and (".symtab" in syms) != strip, syms
    return out


def export(ctx, d, fmt, *more):
    out = os.path.join(d, "out." + fmt)
    ctx.run("export", "-q", "-d", d, "-f", fmt, "-o", out, *more, check=True)
    return out


def check_names(ctx, d, own):
    prof = X.report_profile(ctx, "-d", d)
    assert {n: prof[n][0] for n in LIBS} == LIBS, prof
    assert {n: c[0] for n, c in prof.items() if n not in LIBS} == own, prof
    graph = ctx.run("graph", "-d", d, check=True).stdout
    for n in LIBS:
        assert re.search(r"\b%s\b" % n, graph), (n, graph)
    assert "@plt" not in graph, graph

    slices = X.chrome_threads(X.load_chrome(export(ctx, d, "chrome")))[0]
    X.same_profile(X.profile(slices), prof, "chrome export")
    slices = X.load_perfetto(export(ctx, d, "perfetto"))[0]
    X.same_profile(X.profile(slices), prof, "perfetto export")
    profiles = X.load_speedscope(export(ctx, d, "speedscope"))[0]
    X.same_profile(X.profile(profiles), prof, "speedscope export")
    with open(export(ctx, d, "folded")) as f:
        frames = {fr for line in f for fr in line.rsplit(" ", 1)[0].split(";")}
    assert set(LIBS) <= frames and not any("@plt" in fr for fr in frames), frames
    # the flame graph (svg, and html's) leaves out frames under 0.1 pixel:
    # weighed by time, a free() of 50 ns is one when printf was preempted
    # for 10 ms (it failed so once with two CPU hogs).  The svg is weighed
    # by calls, where every frame has its width; the html's names are read
    # from its data, which holds every call.
    with open(export(ctx, d, "svg", "--value", "calls")) as f:
        text = f.read()
    for n in LIBS:
        assert 'data-n="%s"' % n in text, ("svg", n)
    assert "@plt" not in text, "svg"
    with open(export(ctx, d, "html")) as f:
        text = f.read()
    data = json.loads(re.search(r'<script type="application/json" id="fnt-data">(.*?)</script>', text, re.S).group(1))
    assert set(LIBS) <= set(data["names"]), ("html", data["names"])
    assert "@plt" not in text, "html"


def check(ctx):
    for name, strip in (("prog-nog", False), ("prog-stripped", True)):
        exe = build(ctx, name, strip)
        d = os.path.join(ctx.work, name + ".data")
        p = ctx.run("record", "-q", "-d", d, "--", exe, data=False)
        m = re.fullmatch(r"1 2 3 4 cmp=(\d+)\n", p.stdout)
        assert p.returncode == 0 and m, (name, p.returncode, p.stdout, p.stderr)
        # without -g, .symtab still names the program's own functions; stripped, they are
        # addresses in the executable
        own = {"main": 1, "cmp": int(m.group(1))}
        if strip:
            prof = X.report_profile(ctx, "-d", d)
            own = {n: c[0] for n, c in prof.items() if n not in LIBS}
            assert all(re.fullmatch(r"prog-stripped\+0x[0-9a-f]+", n) for n in own), own
            assert sorted(own.values()) == [1, int(m.group(1))], own      # main and cmp
        check_names(ctx, d, own)
