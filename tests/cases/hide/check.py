"""-H, --hide FUNC at read time (issue 14): FUNC's own lines are left out,
what it calls moves up one level, in replay, report, graph and the exports.
The program: main -> work -> mid x3 -> leaf x2, work -> fact -> fact -> fact
-> leaf, main -> mid -> leaf x2."""
import re


def names_depths(text):
    out = []
    for l in text.splitlines()[1:]:
        m = re.match(r"^.{11} \[\s*\d+\] \| ( *)(\S.*)$", l)
        assert m, l
        out.append((len(m.group(1)) // 2, m.group(2)))
    return out


def check(ctx):
    full = names_depths(ctx.run("replay", check=True).stdout)
    hid = names_depths(ctx.run("replay", "-H", "mid", check=True).stdout)
    # the same lines without mid's, and the lines mid enclosed one level up
    want, mid_depth = [], None
    for d, t in full:
        if t.startswith("mid()") or t == "} /* mid */":
            mid_depth = d if t.startswith("mid()") else None
            continue
        want.append((d - 1 if mid_depth is not None and d > mid_depth else d, t))
    assert hid == want, (hid, want)
    assert ("leaf();" in [t for _, t in hid]) and all("mid" not in t for _, t in hid)

    rows = {r["function"]: r for r in ctx.csv("-H", "mid")}
    assert set(rows) == {"main", "work", "leaf", "fact"} and int(rows["leaf"]["calls"]) == 9, rows

    g = ctx.run("graph", "-H", "mid", check=True).stdout
    lines = [re.sub(r"^\s*\S+ \S+\s+\S+ \S+\s+", "", l) for l in g.splitlines()[3:]]
    assert lines[:3] == ["1  main", "1  +-work", "6  |  +-leaf"], lines

    p = ctx.run("export", "-q", "-f", "folded", "--value", "calls", "-H", "mid", "-o", "-", check=True)
    stacks = dict(l.rsplit(" ", 1) for l in p.stdout.splitlines())
    assert stacks == {"main": "1", "main;work": "1", "main;work;leaf": "6", "main;work;fact": "3",
                      "main;work;fact;leaf": "1", "main;leaf": "2"}, stacks
    # globs as -F/-N: fac* hides fact, its leaf goes up to work
    rows = {r["function"]: r for r in ctx.csv("-H", "fac*")}
    assert "fact" not in rows and int(rows["leaf"]["calls"]) == 9, rows
