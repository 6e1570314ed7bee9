import re


def check(ctx):
    # the program's own counts, printed by it, equal the recorded calls
    m = re.search(r"qsort=(\d+) malloc=(\d+) free=(\d+)", ctx.record.stdout)
    assert m, ctx.record.stdout
    counts = ctx.counts()
    for i, name in enumerate(("qsort", "malloc", "free")):
        assert counts.get(name) == int(m.group(i + 1)), (name, counts, m.group(0))
    assert counts.get("printf") == 1, counts
    # named from .dynsym in every view, never name@plt or an address
    for view in (["graph"], ["export", "--format", "chrome", "-o", ctx.work + "/t.json"]):
        ctx.run(*view, "-d", ctx.data, check=True)
    graph = ctx.run("graph", "-d", ctx.data, check=True).stdout
    assert "qsort" in graph and "@plt" not in graph, graph
    with open(ctx.work + "/t.json") as f:
        js = f.read()
    assert '"qsort"' in js and '"malloc"' in js, js[:2000]
    # --no-libcall: none of them
    rec = ctx.run("record", "--no-libcall", "-d", ctx.work + "/off.data", "--", ctx.work + "/prog", check=True)
    off = ctx.run("report", "--format", "csv", "-d", ctx.work + "/off.data", check=True).stdout
    funcs = [l.split(",")[0] for l in off.splitlines()[1:]]   # the function column (the file column names the case)
    for name in ("qsort", "malloc", "free", "printf"):
        assert name not in funcs, off
    assert "by_value" in funcs, off
