"""-C, --caller-filter FUNC at read time (issue 14): only FUNC's calls and
the calls that lead to them, in replay, report, graph and the exports.  The
program: main -> work -> mid x3 -> leaf x2, work -> fact -> fact -> fact ->
leaf, main -> mid -> leaf x2."""
import re


def lines(ctx, *args):
    out = ctx.run("replay", *args, check=True).stdout.splitlines()[1:]
    return [re.sub(r"^.{11} \[\s*\d+\] \| ", "", l) for l in out]


def check(ctx):
    # fact: its first call and its callers; the nested facts and its leaf are its callees
    assert lines(ctx, "-C", "fact") == ["main() {", "  work() {", "    fact();", "  } /* work */", "} /* main */"]
    # leaf: every call of it, and nothing that does not lead to one
    got = lines(ctx, "-C", "leaf")
    full = lines(ctx)
    assert [l for l in got if l.strip() == "leaf();"] == [l for l in full if l.strip() == "leaf();"]
    assert {re.sub(r"[ (].*|^\} /\* | \*/", "", l.strip()) for l in got} == {"main", "work", "mid", "fact", "leaf"}
    assert got == [l for l in full], "every call here leads to leaf"
    # mid: work's three and main's one, no leaf, no fact
    got = lines(ctx, "-C", "mid")
    assert [l.strip() for l in got if "mid" in l] == ["mid();"] * 4 and not any("fact" in l or "leaf" in l for l in got)

    rows = {r["function"]: int(r["calls"]) for r in ctx.csv("-C", "fact")}
    assert rows == {"main": 1, "work": 1, "fact": 1}, rows
    rows = {r["function"]: int(r["calls"]) for r in ctx.csv("-C", "mid")}
    assert rows == {"main": 1, "work": 1, "mid": 4}, rows
    p = ctx.run("export", "-q", "-f", "folded", "--value", "calls", "-C", "mid", "-o", "-", check=True)
    assert dict(l.rsplit(" ", 1) for l in p.stdout.splitlines()) == \
        {"main": "1", "main;work": "1", "main;work;mid": "3", "main;mid": "1"}, p.stdout
