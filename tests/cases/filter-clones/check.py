"""-F/-N globs naming a function select its gcc clones (f [clone
.constprop.0], cscale.constprop.0) too, at read and at record time."""
import os
import re


def names(out):
    return [re.sub(r"^.*?\| ", "", l).strip() for l in out.splitlines() if "|" in l and "FUNCTION" not in l]


def check(ctx):
    got = ctx.counts()
    compute = [n for n in got if n.startswith("w::compute")]
    cscale = [n for n in got if n.startswith("cscale")]
    assert len(compute) == 1 and got[compute[0]] == 2 and len(cscale) == 1 and got[cscale[0]] == 2, got
    if ctx.compiler == "gcc" and ctx.opt == "O2":       # what the case is about: the calls go to clones
        assert compute[0] == "w::compute [clone .constprop.0]" and cscale[0] == "cscale.constprop.0", got
    for glob, want in (("w::compute", compute[0]), ("w::compute(int, int)", compute[0]), ("cscale", cscale[0])):
        p = ctx.run("replay", "-F", glob, check=True)
        assert names(p.stdout) == [want + "();"] * 2 and not p.stderr, (glob, p.stdout, p.stderr)
        d = os.path.join(ctx.work, "rec-" + re.sub(r"\W", "_", glob))
        ctx.run("record", "-q", "-d", d, "-F", glob, "--", ctx.work + "/prog", data=False, check=True)
        got = names(ctx.run("replay", "-d", d, data=False, check=True).stdout)
        assert got == [want + "();"] * 2, (glob, got)
    out = names(ctx.run("replay", "-N", "w::compute", "-N", "cscale", check=True).stdout)
    assert not [n for n in out if "compute" in n or "cscale" in n] and "w::driver() {" not in out, out
    # --patch selects the clones' pads too
    d, _ = ctx.record_build("prog-patchable", record_args=["-q", "--patch", "w::compute", "--patch", "cscale"])
    got = sorted(names(ctx.run("replay", "-d", d, data=False, check=True).stdout))
    assert got == sorted([compute[0] + "();"] * 2 + [cscale[0] + "();"] * 2), got
