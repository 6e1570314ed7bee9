"""-P with -F, -N, -H and a time= trigger: the filters find the patched
functions by name, as in a -pg -mfentry build"""
import re


def calls(out):
    return [re.sub(r"^.*\| ", "", l) for l in out.splitlines() if "|" in l and "FUNCTION" not in l]


def check(ctx):
    # top(3) = sum over i of 2i + 2(i + 1), plus leaf(100) = 200
    assert ctx.record.stdout == "218\n", ctx.record.stdout
    out = ctx.run("replay", check=True).stdout
    want = []
    for i in range(3):
        want += ["mid(%d) {" % i, "  leaf();", "  leaf();", "} = %d /* mid */" % (4 * i + 2)]
    assert calls(out) == want, out
    prog = ctx.work + "/prog"
    pats = ["-P", "leaf", "-P", "mid", "-P", "top"]
    # -N mid: top and its own leaf(100) only
    d = ctx.work + "/n.data"
    ctx.run("record", "-q", "-d", d, *pats, "-N", "mid", "--", prog, check=True)
    assert calls(ctx.run("replay", "-d", d, check=True).stdout) == ["top() {", "  leaf();", "} /* top */"], d
    # -H mid: mid hidden, its leaves shown under top
    d = ctx.work + "/h.data"
    ctx.run("record", "-q", "-d", d, *pats, "-H", "mid", "--", prog, check=True)
    assert calls(ctx.run("replay", "-d", d, check=True).stdout) == ["top() {"] + ["  leaf();"] * 7 + ["} /* top */"], d
    # a time= trigger far above any call's time: every leaf erased
    d = ctx.work + "/t.data"
    ctx.run("record", "-q", "-d", d, *pats, "-T", "leaf@time=1s", "--", prog, check=True)
    got = calls(ctx.run("replay", "-d", d, check=True).stdout)
    assert got == ["top() {"] + ["  mid();"] * 3 + ["} /* top */"], got
