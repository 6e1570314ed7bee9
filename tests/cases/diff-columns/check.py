"""report --diff and graph --diff text: the change of time always carries
its sign, a decrease of 100 ms or more too (-230.660 ms: a duration with no
padding left for the sign), and the columns stay aligned under the header
when the percent has four or more digits before the point (+7110.9%).
Sleeps of 20 ms, 250 ms and none: the checks hold for any delay a busy
machine adds to them."""
import os
import re

DUR = r"\d+\.\d{3} (?:us|ms|  s)"


def columns(text):
    """The header's column spans, from its ==== line; every row must put
    blanks between them and start its function where the header's does."""
    lines = text.splitlines()
    assert lines[1].split() == ["Total", "time", "Diff", "%", "Self", "time", "Diff", "%", "Calls", "Diff",
                                "Function"], lines[1]
    spans = [m.span() for m in re.finditer(r"=+", lines[2])]
    rows = {}
    for l in lines[3:]:
        cells = [l[a:b] for a, b in spans[:-1]]
        gaps = [l[spans[i][1]:spans[i + 1][0]] for i in range(len(spans) - 1)]
        assert all(g.strip() == "" for g in gaps), "misaligned row %r\n%s" % (l, text)
        assert all(c.startswith(" ") or c.strip() == c for c in cells), (l, text)
        name = l[spans[-1][0]:]
        assert not name.startswith(" "), "misaligned row %r\n%s" % (l, text)
        rows[name.lstrip("+-| ")] = [c.strip() for c in cells]
    return rows


def check(ctx):
    prog = os.path.join(ctx.work, "prog")
    slow = os.path.join(ctx.work, "slow.data")
    ctx.run("record", "-q", "-d", slow, "--", prog, "250000", data=False, check=True)
    fast = os.path.join(ctx.work, "fast.data")
    ctx.run("record", "-q", "-d", fast, "--", prog, "0", data=False, check=True)

    for cmd in ("report", "graph"):
        # 20 ms against 250 ms: work lost 230 ms (give or take), said with a minus
        text = ctx.run(cmd, "-d", ctx.data, "--diff", slow, check=True).stdout
        rows = columns(text)
        for f in ("main", "work"):
            total, diff, pct = rows[f][:3]
            assert re.fullmatch(r"-\d{3}\.\d{3} ms", diff), (cmd, f, diff, text)
            assert re.fullmatch(r"-[1-9]\d\.\d%", pct), (cmd, f, pct, text)
        # and the other way round: the same change with a plus
        text = ctx.run(cmd, "-d", slow, "--diff", ctx.data, check=True).stdout
        for f in ("main", "work"):
            diff = columns(text)[f][1]
            assert re.fullmatch(r"\+\d{3}\.\d{3} ms", diff), (cmd, f, diff, text)
        # 20 ms and 250 ms against no sleep: +1000% and more, in the column
        for d in (ctx.data, slow):
            text = ctx.run(cmd, "-d", d, "--diff", fast, check=True).stdout
            rows = columns(text)
            for f in ("main", "work"):
                total, diff, pct = rows[f][:3]
                assert re.fullmatch(r"\+" + DUR, diff), (cmd, f, diff, text)
                assert re.fullmatch(r"\+\d{4}\.\d%|\+\d{5,6}%|\+\d\.\de\d+%", pct), (cmd, f, pct, text)
