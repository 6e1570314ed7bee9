"""--demangle simple leaves ABI tags out (mk, Two::m), and globs match that
form: -F/-N at read and record time, -A/-R.  The other forms keep them
(mk[abi:cxx11], Two[abi:t1]::m), and a name copied with its tag matches."""
import os
import re


def names(out):
    return [re.sub(r"^.*?\| ", "", l).strip() for l in out.splitlines() if "|" in l and "FUNCTION" not in l]


def check(ctx):
    out = ctx.run("replay", check=True).stdout
    # -A/-R by the name without its tag
    assert re.search(r'\| +mk\[abi:cxx11\]\(n=3\) = "zzz";', out) or \
        re.search(r'\| +\} = "zzz" /\* mk\[abi:cxx11\] \*/', out), out
    got = names(ctx.run("replay", "--demangle", "simple", "-D", "2", check=True).stdout)
    assert "Two::m();" in got and "other();" in got and [g for g in got if g.startswith("mk(n=3)")], got
    for glob, want in (("mk", "mk[abi:cxx11]"), ("mk[abi:cxx11]", "mk[abi:cxx11]"), ("Two::m", "Two[abi:t1]::m")):
        p = ctx.run("replay", "-F", glob, "-D", "1", check=True)
        got = names(p.stdout)
        assert len(got) == 1 and got[0].startswith(want + "(") and not p.stderr, (glob, got, p.stderr)
        d = os.path.join(ctx.work, "rec-" + re.sub(r"\W", "_", glob))
        ctx.run("record", "-q", "-d", d, "-F", glob, "--", ctx.work + "/prog", data=False, check=True)
        got = names(ctx.run("replay", "-d", d, "-D", "1", data=False, check=True).stdout)
        assert len(got) == 1 and got[0].startswith(want + "("), (glob, got)
    got = names(ctx.run("replay", "-N", "mk", "-D", "2", check=True).stdout)
    assert not [g for g in got if g.startswith("mk")], got
