import os
import re
import shutil


def check(ctx):
    out = ctx.record.stdout
    # the program's own output comes first and unchanged, then the profile
    assert out.startswith("argc 2 arg1 [two words]\n"), out
    assert "to stderr" in ctx.record.stderr, ctx.record.stderr
    table = out.split("\n", 1)[1]
    assert re.search(r"^\s*\S+ \S+\s+\S+ \S+\s+7\s.*\bleaf$", table, re.M), table
    assert re.search(r"^\s*\S+ \S+\s+\S+ \S+\s+1\s.*\bmain$", table, re.M), table
    prog = os.path.join(ctx.work, "prog")

    # no -d: ./fntrace.data; recording again keeps the previous one as .old
    sub = os.path.join(ctx.work, "default")
    shutil.rmtree(sub, ignore_errors=True)
    os.makedirs(sub)
    for n in (1, 2):
        p = ctx.run("record", "--", prog, "run%d" % n, data=False, cwd=sub)
        assert p.returncode == 7, p
    assert sorted(os.listdir(sub)) == ["fntrace.data", "fntrace.data.old"], os.listdir(sub)
    for d, n in (("fntrace.data", 2), ("fntrace.data.old", 1)):
        info = ctx.run("info", data=False, cwd=sub, *(["-d", d] if d != "fntrace.data" else [])).stdout
        assert re.search(r"^command: .*prog run%d$" % n, info, re.M), (d, info)

    # --clock monotonic: the same calls, and info says which clock
    mono = os.path.join(ctx.work, "mono.data")
    p = ctx.run("record", "-d", mono, "--clock", "monotonic", "--", prog, data=False)
    assert p.returncode == 7, p
    info = ctx.run("info", "-d", mono, check=True).stdout
    assert re.search(r"^clock: .*monotonic", info, re.M | re.I), info
    assert ctx.counts("-d", mono) == {"main": 1, "leaf": 7}
    p = ctx.run("record", "-d", mono, "--clock", "sundial", "--", prog, data=False)
    assert p.returncode == 2 and "--clock" in p.stderr, p
