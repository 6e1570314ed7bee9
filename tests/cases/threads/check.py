import re
def check(ctx):
    info = ctx.run("info", check=True).stdout
    assert "threads: 4" in info, info
    for n in (1, 2, 3):
        assert re.search(r"\d+  worker-%d +%d  exited" % (n, 2 + 2 * 10 * n), info), info
    rows = ctx.csv("--threads")
    per = sorted(int(r["calls"]) for r in rows if r["function"] == "work")
    assert per == [10, 20, 30], per
