"""graph --diff BASE: two runs of one program (work() calls leaf 3 times
and extra() in this run, leaf twice and old() in the base) merged path by
path; calls, their change and new/gone paths exact, with -D and -F."""
import os
import re

# a line: total, its change, %, self, its change, %, calls, change, function
LINE = re.compile(r"^  (.{10})  (.{11})  (.{8})  (.{10})  (.{11})  (.{8})  +(\d+)  +([-+]?\d+)  (.*)$")


def rows(ctx, *args):
    p = ctx.run("graph", "-d", ctx.data, "--diff", os.path.join(ctx.work, "base.data"), *args, check=True)
    lines = p.stdout.splitlines()
    base = os.path.join(ctx.work, "base.data")
    assert lines[0] == "# %s against the base %s, merged by path" % (ctx.data, base), lines
    out = []
    for l in lines[3:]:
        if l == "# 3 subtrees below --min-time or deeper than -D not shown" and "-D" in args:
            continue
        m = LINE.match(l)
        assert m, "not a graph --diff line: %r\n%s" % (l, p.stdout)
        pct = m.group(3).strip()
        out.append((m.group(9), int(m.group(7)), int(m.group(8)), pct if pct in ("new", "gone") else ""))
    return out


def check(ctx):
    base = os.path.join(ctx.work, "base.data")
    ctx.run("record", "-q", "-d", base, "--", os.path.join(ctx.work, "prog"), "a", "b", data=False, check=True)
    assert rows(ctx) == [
        ("main", 1, 0, ""),
        ("+-work", 1, 0, ""),
        ("   +-leaf", 3, 1, ""),
        ("   +-extra", 1, 1, "new"),
        ("   |  +-leaf", 1, 1, "new"),
        ("   +-old", 0, -1, "gone"),
    ], rows(ctx)
    assert rows(ctx, "-D", "2") == [("main", 1, 0, ""), ("+-work", 1, 0, "")], rows(ctx, "-D", "2")
    assert rows(ctx, "-F", "extra") == [("extra", 1, 1, "new"), ("+-leaf", 1, 1, "new")], rows(ctx, "-F", "extra")
    # FUNC: the trees under work merged
    assert [r[0] for r in rows(ctx, "work")] == ["work", "+-leaf", "+-extra", "|  +-leaf", "+-old"]
    # the base's own missing trace: the message every reading command gives
    p = ctx.run("graph", "-d", ctx.data, "--diff", os.path.join(ctx.work, "nosuch"))
    assert p.returncode == 1 and p.stderr.startswith("fntrace: cannot open '%s'" % os.path.join(ctx.work, "nosuch")), p
