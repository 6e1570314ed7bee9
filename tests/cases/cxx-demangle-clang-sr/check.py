import os
import subprocess

# The names of lib::twice<long> and lib::twice<int> in each view and
# --demangle mode, whichever compiler mangled them.
EXPECTED = {
    "short": {"main": 1, "lib::twice<long>": 1, "lib::twice<int>": 2},
    "full": {"main": 1, "std::enable_if<lib::wide<long>::value, long>::type lib::twice<long>(long)": 1,
             "std::enable_if<!lib::wide<int>::value, int>::type lib::twice<int>(int)": 2},
}


def check(ctx):
    for mode, want in EXPECTED.items():
        got = ctx.counts("--demangle", mode)
        assert got == want, (mode, got)
    got = ctx.counts("--demangle", "simple")
    assert not [f for f in got if f.startswith("_Z")], got
    rep = ctx.run("replay", check=True).stdout
    assert "lib::twice<long>();" in rep and rep.count("lib::twice<int>();") == 2 and "_Z" not in rep, rep
    # the report's signature column and the graph
    rows = {r["function"]: r for r in ctx.csv()}
    assert rows["lib::twice<int>"]["signature"] == \
        "std::enable_if<!lib::wide<int>::value, int>::type lib::twice<int>(int)", rows
    g = ctx.run("graph", "--no-pager", check=True).stdout
    assert "lib::twice<long>" in g and "_Z" not in g, g
    # read-time and record-time globs match the name and the signature
    out = ctx.run("replay", "-F", "lib::twice<int>(int)", check=True).stdout
    assert out.count("lib::twice<int>();") == 2 and "twice<long>" not in out, out
    d = os.path.join(ctx.work, "rec-glob")
    p = subprocess.run([ctx.fntrace, "record", "-d", d, "-F", "lib::twice<long>", "--",
                        os.path.join(ctx.work, "prog")], capture_output=True, text=True, cwd=ctx.work, timeout=60)
    assert p.returncode == 0, p.stderr
    assert ctx.counts("-d", d) == {"lib::twice<long>": 1}, ctx.counts("-d", d)
