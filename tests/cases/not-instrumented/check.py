def check(ctx):
    assert "built with -finstrument-functions" in ctx.record.stderr, ctx.record.stderr
    for cmd in ("replay", "report", "info"):
        p = ctx.run(cmd)
        assert "no function events were recorded" in p.stderr and "-finstrument-functions" in p.stderr, (cmd, p.stderr)
    assert ctx.run("replay").returncode == 1
    assert "status: exited with 0" in ctx.run("info").stdout
    # -P on code without patchable entries: said plainly, the program still runs
    import os
    d = os.path.join(ctx.work, "p.data")
    p = ctx.run("record", "-d", d, "-P", "*", "--", os.path.join(ctx.work, "prog"), data=False)
    assert p.returncode == 0, (p.returncode, p.stderr)
    assert "has no patchable function entries: -P/--patch patches only the pads of" in p.stderr, p.stderr
