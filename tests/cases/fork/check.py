def check(ctx):
    info = ctx.run("info", check=True).stdout
    assert "processes: 2" in info, info
    rows = ctx.csv("--threads")
    tids = {r["function"]: r["tid"] for r in rows}
    assert tids["in_child"] != tids["in_parent"], rows
