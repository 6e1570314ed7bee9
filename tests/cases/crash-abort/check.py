def check(ctx):
    assert "killed by signal 6" in ctx.record.stderr, ctx.record.stderr
    info = ctx.run("info", check=True).stdout
    assert "status: killed by signal 6" in info and "no clean exit" in info, info
