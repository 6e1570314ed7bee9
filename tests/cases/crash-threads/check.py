def check(ctx):
    rows = ctx.csv("--threads")
    per = {}
    for r in rows:
        per.setdefault(r["tid"], {})[r["function"]] = int(r["calls"])
    assert sorted(per.values(), key=lambda d: d.get("work", 0)) == [
        {"main": 1, "work": 1, "crash": 1},
        {"worker": 1, "work": 30000, "park": 1},
        {"worker": 1, "work": 50000, "park": 1},
    ], per
    info = ctx.run("info", check=True).stdout
    assert "killed by signal 11" in info and "lost: 0" in info, info
    assert "damage" not in info and "missing" not in info, info
