import os
import subprocess

# Exact names of the functions prog.cc defines, in each --demangle mode.
# The old text scanner showed operator!=<unsigned int> as "int>",
# operator==<int, long> as "long>", the local class's destructor and the
# lambda as "outer", ident<int> (decltype(auto)) as "decltype" and plus1<int>
# (decltype(x + 1)) as its whole signature.
MINE = ("ident", "_Z5ident", "main", "outer", "geo::", "late", "plus1", "size_of", "_Z5", "_Z4", "_Z7", "_ZZ", "_ZN3geo", "_ZNK3geo",
        "bool geo::", "int outer", "decltype", "int size_of", "unsigned int geo::", "int main", "outer(int)",
        "auto late", "late(int)")

STRING = "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >"
MAP = ("std::map<%s, int, std::less<%s >, std::allocator<std::pair<%s const, int> > >" % (STRING, STRING, STRING))

EXPECTED = {
    "short": {
        "main": 1, "outer": 1, "outer(int)::Guard::~Guard": 1, "outer(int)::{lambda(int)#1}::operator()": 1,
        "geo::operator!=<unsigned int>": 1, "geo::operator==<int, long>": 1, "geo::Box<unsigned int>::area": 1,
        "late": 1, "plus1<int>": 1, "size_of<std::map<std::string, int> >": 1, "ident<int>": 1,
    },
    "simple": {
        "main": 1, "outer": 1, "outer::Guard::~Guard": 1, "outer::{lambda(int)#1}::operator()": 1,
        "geo::operator!=": 1, "geo::operator==": 1, "geo::Box::area": 1, "late": 1, "plus1": 1, "size_of": 1,
        "ident": 1,
    },
    "full": {
        "main": 1, "outer(int)": 1, "outer(int)::Guard::~Guard()": 1,
        "outer(int)::{lambda(int)#1}::operator()(int) const": 1,
        "bool geo::operator!=<unsigned int>(geo::Box<unsigned int> const&, geo::Box<unsigned int> const&)": 1,
        "bool geo::operator==<int, long>(geo::P, long)": 1, "geo::Box<unsigned int>::area() const": 1,
        "late(int)": 1, "decltype ({parm#1}+(1)) plus1<int>(int)": 1, "decltype(auto) ident<int>(int)": 1,
        "int size_of<%s >(%s const&)" % (MAP, MAP): 1,
    },
    "no": {
        "main": 1, "_Z5outeri": 1, "_ZZ5outeriEN5GuardD2Ev": 1, "_ZZ5outeriENKUliE_clEi": 1,
        "_ZN3geoneIjEEbRKNS_3BoxIT_EES5_": 1, "_ZN3geoeqIilEEbNS_1PET0_": 1, "_ZNK3geo3BoxIjE4areaEv": 1,
        "_Z4latei": 1, "_Z5plus1IiEDTplfp_Li1EET_": 1, "_Z5identIiEDcT_": 1,
        "_Z7size_ofISt3mapINSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEEiSt4lessIS6_ESaISt4pairIKS6_iEEEEiRKT_": 1,
    },
}


def lambda_as_gcc(name):
    """clang names a lambda in a non-inline function $_0 (mangled 3$_0)"""
    if name.startswith("_ZZ5outeriENK"):
        return "_ZZ5outeriENKUliE_clEi"
    return name.replace("$_0", "{lambda(int)#1}")


def check(ctx):
    for mode, want in EXPECTED.items():
        got = {}
        for f, n in ctx.counts("--demangle", mode).items():
            f = lambda_as_gcc(f)
            got[f] = got.get(f, 0) + n
        got = {f: n for f, n in got.items() if f in want or f.startswith(MINE) and not f.startswith("std")}
        assert got == want, (mode, sorted(got.items()), sorted(want.items()))
    # the default is short; --no-demangle is --demangle no
    assert ctx.counts() == ctx.counts("--demangle", "short")
    assert ctx.counts("--no-demangle") == ctx.counts("--demangle", "no")
    # replay and graph name calls the same way
    rep = ctx.run("replay", "--demangle", "simple", check=True).stdout
    assert "outer::Guard::~Guard();" in rep, rep
    rep = ctx.run("replay", check=True).stdout
    assert "geo::operator!=<unsigned int>();" in rep, rep
    assert "outer(int)::{lambda(int)#1}::operator()();" in lambda_as_gcc(rep), rep
    out = ctx.run("graph", "-d", ctx.data, "--demangle", "simple", check=True).stdout
    assert "+-outer::Guard::~Guard" in out and "geo::operator!=\n" in out + "\n", out
    folded = os.path.join(ctx.work, "full.folded")
    ctx.run("export", "-d", ctx.data, "--format", "folded", "--demangle", "full", "-o", folded, check=True)
    with open(folded) as f:
        text = f.read()
    assert "main;outer(int);outer(int)::Guard::~Guard() " in text, text
    # -F/-N globs match the displayed name, whatever the mode, and the full signature
    for mode, pat in (("short", "outer(int)::Guard::*"), ("simple", "outer::Guard::*"),
                      ("full", "outer(int)::Guard::*"), ("short", "*Guard()")):
        out = ctx.run("replay", "--demangle", mode, "-F", pat, check=True).stdout
        assert "Guard" in out and "late" not in out, (mode, pat, out)
    out = ctx.run("replay", "-N", "geo::*", check=True).stdout
    assert "geo::" not in out and "late();" in out, out
    # a mode that does not exist is a usage error naming the option
    p = ctx.run("replay", "--demangle", "pretty")
    assert p.returncode == 2, p
    assert "option '--demangle' takes full, short, simple or no, not 'pretty'" in p.stderr, p.stderr
    record_time(ctx)


def record_counts(ctx, *record_args):
    d = os.path.join(ctx.work, "rec-%d" % abs(hash(record_args)))
    p = subprocess.run([ctx.fntrace, "record", "-d", d, *record_args, "--", os.path.join(ctx.work, "prog")],
                       capture_output=True, text=True, cwd=ctx.work, timeout=60)
    assert p.returncode == 0, p.stderr
    return {lambda_as_gcc(f): n for f, n in ctx.counts("-d", d).items()}


def record_time(ctx):
    """record-time -F/-N take the same globs as read time: the short name
    (templated operators, local classes), the simple one, the full
    signature, and the short name with std::string"""
    guard = {"outer(int)::Guard::~Guard": 1}
    assert record_counts(ctx, "-F", "outer(int)::Guard::*") == guard
    assert record_counts(ctx, "-F", "outer::Guard::*") == guard
    assert record_counts(ctx, "-F", "outer(int)::Guard::~Guard()") == guard
    assert record_counts(ctx, "-F", "geo::operator!=<unsigned int>") == {"geo::operator!=<unsigned int>": 1}
    got = record_counts(ctx, "-F", "size_of<std::map<std::string, int> >")
    assert got["size_of<std::map<std::string, int> >"] == 1 and "main" not in got and "late" not in got, got
    got = record_counts(ctx, "-N", "geo::*", "-N", "outer")
    assert not [f for f in got if f.startswith(("geo::", "outer"))] and got["late"] == 1 and got["main"] == 1, got
