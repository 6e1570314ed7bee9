import re


def calls(out):
    return [re.sub(r"^.*?\| ", "", l).strip() for l in out.splitlines() if "|" in l and "FUNCTION" not in l]


def check(ctx):
    """globs see a template function's signature without its return type"""
    assert ctx.record.stdout == "3 4 zzz 25\n", ctx.record.stdout
    out = ctx.run("replay", check=True).stdout
    # the [abi:cxx11] name, copied as replay shows it, selects the function for -A/-R
    # (a leaf at -O2; at -O0 it calls std::string's constructor, traced too)
    assert re.search(r'\| +mkstr\[abi:cxx11\]\(n=3\) = "zzz";', out) or \
        (re.search(r'\| +mkstr\[abi:cxx11\]\(n=3\) \{', out) and
         re.search(r'\| +\} = "zzz" /\* mkstr\[abi:cxx11\] \*/', out)), out
    # read time: -N 'std::*' leaves the program's own template functions
    got = calls(ctx.run("replay", "-N", "std::*", "-D", "2", check=True).stdout)
    for name in ("make<int>();", "build<int>();", "geo::area();"):
        assert name in got, (name, got)
    # -F 'geo::*': geo::area only, not make<int> (which returns a geo::Box)
    got = calls(ctx.run("replay", "-F", "geo::*", check=True).stdout)
    assert got == ["geo::area();"], got
    # record time, the same
    d = ctx.work + "/n.data"
    ctx.run("record", "-q", "-d", d, "-N", "std::*", "--", ctx.work + "/prog", check=True)
    got = calls(ctx.run("replay", "-d", d, "-D", "2", check=True).stdout)
    for name in ("make<int>();", "build<int>();", "geo::area();"):
        assert name in got, (name, got)
    d = ctx.work + "/f.data"
    ctx.run("record", "-q", "-d", d, "-F", "geo::*", "--", ctx.work + "/prog", check=True)
    assert calls(ctx.run("replay", "-d", d, check=True).stdout) == ["geo::area();"], d
