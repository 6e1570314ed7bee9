import os

def check(ctx):
    assert ctx.record.stdout == "676\n", ctx.record.stdout
    prog = os.path.join(ctx.work, "prog")
    # the signal by number, and only g selected: the f calls stay NOPs
    d = os.path.join(ctx.work, "num.data")
    p = ctx.run("record", "-d", d, "--patch-signal", "10", "--patch", "g", "--", prog, data=False)
    assert p.returncode == 0 and p.stdout == "676\n", (p.returncode, p.stdout, p.stderr)
    rows = {r["function"]: int(r["calls"]) for r in ctx.csv("-d", d)}
    assert rows == {"g": 3}, rows
    # -P is the short form of --patch
    d = os.path.join(ctx.work, "short.data")
    p = ctx.run("record", "-d", d, "--patch-signal", "10", "-P", "g", "--", prog, data=False)
    assert p.returncode == 0 and p.stdout == "676\n", (p.returncode, p.stdout, p.stderr)
    assert "no patchable function entries" not in p.stderr, p.stderr
    rows = {r["function"]: int(r["calls"]) for r in ctx.csv("-d", d)}
    assert rows == {"g": 3}, rows
    p = ctx.run("record", "-d", d, "-P", "a;b", "--", prog, data=False)
    assert p.returncode == 2 and p.stderr.startswith("fntrace: option '-P/--patch' takes"), p.stderr
    # usage errors
    for bad in ("NOPE", "0", "9", "KILL", "SIGTRAP", "65"):
        p = ctx.run("record", "-d", os.path.join(ctx.work, "bad.data"), "--patch-signal", bad, "--", prog, data=False)
        first = p.stderr.split("\n", 1)[0]
        assert p.returncode == 2 and first.startswith("fntrace: option '--patch-signal'") and bad in first, \
            (bad, p.returncode, p.stderr)
