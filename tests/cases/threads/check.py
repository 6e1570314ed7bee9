import re
def check(ctx):
    info = ctx.run("info", check=True).stdout
    assert "threads: 4" in info, info
    for n in (1, 2, 3):
        assert re.search(r"\d+  worker-%d +%d  exited" % (n, 2 + 2 * 10 * n), info), info
    rows = ctx.csv("--threads")
    per = sorted(int(r["calls"]) for r in rows if r["function"] == "work")
    assert per == [10, 20, 30], per
    # --tid selects threads: one worker's tid shows that worker's calls only
    tids = sorted({r["tid"] for r in rows if r["function"] == "work"})
    out = ctx.run("replay", "--tid", tids[0], check=True).stdout
    shown = {l.split("[", 1)[1].split("]", 1)[0].strip() for l in out.splitlines()[1:]}
    assert shown == {tids[0]}, (tids[0], shown)
    two = ctx.run("replay", "--tid", "%s,%s" % (tids[0], tids[1]), check=True).stdout
    shown = {l.split("[", 1)[1].split("]", 1)[0].strip() for l in two.splitlines()[1:]}
    assert shown == {tids[0], tids[1]}, shown
