def calls(ctx, data):
    rows = ctx.run("report", "--format", "csv", "-d", data, check=True).stdout.splitlines()[1:]
    return {r.split(",")[0]: int(r.split(",")[1]) for r in rows}


def check(ctx):
    c = ctx.counts()
    assert "malloc" not in c and "printf" not in c, c
    assert c.get("free") == 1 and c.get("qsort") == 1, c
    # -F on a library function: only qsort and what it calls back
    d = ctx.work + "/f.data"
    ctx.run("record", "-F", "qsort", "-d", d, "--", ctx.work + "/prog", check=True)
    f = calls(ctx, d)
    assert set(f) == {"qsort", "cmp"} and f["qsort"] == 1 and f["cmp"] >= 2, f
    # -D 2: main and its direct callees, library calls included
    d = ctx.work + "/d.data"
    ctx.run("record", "-D", "2", "-d", d, "--", ctx.work + "/prog", check=True)
    f = calls(ctx, d)
    assert set(f) == {"main", "sort3", "scratch", "printf"}, f
