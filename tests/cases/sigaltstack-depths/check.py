import re


def shape(text):
    """the replay's call column, indentation included"""
    return [m.group(1) for m in re.finditer(r"^.*? \| (.*)$", text, re.M) if not m.group(1).startswith("FUNCTION")]


def handler_rows(ctx, d):
    """graph's on_usr1 rows: (calls, prefix)"""
    rows = []
    for line in ctx.run("graph", "-d", d, check=True).stdout.splitlines():
        m = re.match(r"^\s*\d+\.\d{3} +\S+ +\d+\.\d{3} +\S+ +(\d+)  ((?:\|  |   )*(?:\+-)?)on_usr1$", line)
        if m:
            rows.append((int(m.group(1)), m.group(2)))
    return rows


def check(ctx):
    """the -pg -mfentry build shows the handlers where the -finstrument-
    functions build does (expected/replay): under the call each
    interrupted, three deep, in main, two deep"""
    want = shape(ctx.run("replay", check=True).stdout)
    assert "  on_usr1() {" in want and "      on_usr1() {" in want, want
    d = ctx.record_build("prog-fentry", stdout="done\n")[0]
    got = shape(ctx.run("replay", "-d", d, check=True).stdout)
    assert got == want, "\n".join(got)
    # graph: the handler once under main, twice under deep (recursion
    # collapsed); before, all three under the path of its first entry
    for t in (ctx.data, d):
        assert sorted(handler_rows(ctx, t)) == [(1, "+-"), (2, "|  +-")], (t, handler_rows(ctx, t))
