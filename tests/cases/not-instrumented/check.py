def check(ctx):
    assert "built with -finstrument-functions" in ctx.record.stderr, ctx.record.stderr
    for cmd in ("replay", "report", "info"):
        p = ctx.run(cmd)
        assert "no function events were recorded" in p.stderr and "-finstrument-functions" in p.stderr, (cmd, p.stderr)
    assert ctx.run("replay").returncode == 1
    assert "status: exited with 0" in ctx.run("info").stdout
